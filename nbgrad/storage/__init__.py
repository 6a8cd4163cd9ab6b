"""Storage per device type: allocation, host copies and strided views of device arrays.

One module per device type (``cpu``, ``cuda``) with the same functions; ``for_device``
finds the one for a device, importing it (and checking the device) on first use. Storage
sits below the ops and above the kernel table (``nbgrad.kernels.table``); ``layout`` holds
the copy and broadcasting helpers every device shares.
"""

import importlib

_MODULES = {"cpu": "nbgrad.storage.cpu", "cuda": "nbgrad.storage.cuda"}
_LOADED = {}  # device type -> storage module


def for_device(device):
    """The storage module (allocation, copies, views) for ``device``."""
    b = _LOADED.get(device.type)
    if b is None:
        mod = _MODULES.get(device.type)
        if mod is None:
            raise RuntimeError(f"no backend for device type '{device.type}'")
        try:
            b = importlib.import_module(mod)
        except ImportError as e:
            raise RuntimeError(
                f"nbgrad has no usable '{device.type}' backend here ({e}); "
                f"install nbgrad[{device.type}] or use device='cpu'"
            ) from None
        b.check_device(device)
        _LOADED[device.type] = b
    return b
