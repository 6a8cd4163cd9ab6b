"""The op registry: kernels by (op name, device type), and the storage backends.

``kernel`` and ``backend`` are the only functions that look at a device. Ops ask them for
what to run; a new device type registers a backend and kernels, and nothing else changes.
"""

import importlib

_KERNELS = {}  # op name -> {device type: callable}
_BACKENDS = {}  # device type -> backend module
_BACKEND_MODULES = {"cpu": "nbgrad.storage.cpu", "cuda": "nbgrad.storage.cuda"}


def register_kernel(name, device_type, fn=None):
    """Register ``fn`` as op ``name``'s kernel for ``device_type``; usable as a decorator."""
    if fn is None:
        return lambda f: register_kernel(name, device_type, f)
    _KERNELS.setdefault(name, {})[device_type] = fn
    return fn


def kernel(name, device):
    """The kernel of op ``name`` for ``device``, or a NotImplementedError naming both."""
    per = _KERNELS.get(name)
    if per is not None:
        k = per.get(device.type)
        if k is not None:
            return k
    if device.type not in _BACKENDS:
        backend(device)  # importing a backend registers its kernels
        return kernel(name, device)
    have = ", ".join(sorted(per)) if per else "no device"
    raise NotImplementedError(
        f"Could not run 'nbgrad::{name}' with arguments from the '{device.type}' backend. "
        f"'{name}' is only available for: {have}."
    )


def registered_ops():
    """Names of every op with at least one kernel, with the device types it has."""
    return {k: sorted(v) for k, v in _KERNELS.items()}


def backend(device):
    """The storage backend (allocation, copies, views) for ``device``."""
    b = _BACKENDS.get(device.type)
    if b is None:
        mod = _BACKEND_MODULES.get(device.type)
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
        _BACKENDS[device.type] = b
    return b
