"""``nbgrad.cuda``: is there a CUDA device, how many, wait for it.

These import ``numba.cuda`` on first call (``import nbgrad`` does not). Under Numba's CUDA
simulator (``NUMBA_ENABLE_CUDASIM=1`` set before the first import) one simulated device is
available, which is how the CUDA code is tested on machines without a GPU.
"""

from .tensor_types import CUDA_TYPES as _TYPES

# PyTorch's legacy CUDA tensor types (constructors; isinstance asks dtype and device type)
BoolTensor = _TYPES["BoolTensor"]
ByteTensor = _TYPES["ByteTensor"]
CharTensor = _TYPES["CharTensor"]
ShortTensor = _TYPES["ShortTensor"]
IntTensor = _TYPES["IntTensor"]
LongTensor = _TYPES["LongTensor"]
HalfTensor = _TYPES["HalfTensor"]
BFloat16Tensor = _TYPES["BFloat16Tensor"]
FloatTensor = _TYPES["FloatTensor"]
DoubleTensor = _TYPES["DoubleTensor"]


def _cuda():
    try:
        from numba import cuda
    except ImportError:
        return None
    return cuda


def is_available():
    """True when a CUDA device (or the simulator) can be used."""
    cuda = _cuda()
    if cuda is None:
        return False
    try:
        return bool(cuda.is_available())
    except Exception:  # a broken driver reads as no device
        return False


def device_count():
    """Number of CUDA devices."""
    if not is_available():
        return 0
    return len(_cuda().gpus)


def synchronize(device=None):
    """Wait for all queued work on the device to finish."""
    if is_available():
        _cuda().synchronize()


def current_device():
    """Index of the current CUDA device (always 0 for nbgrad)."""
    return 0


def manual_seed(seed):
    """Accepted as PyTorch's: nbgrad draws every device's random numbers from one generator,
    which ``nbgrad.manual_seed`` seeds (as ``torch.manual_seed`` seeds every device)."""


def manual_seed_all(seed):
    """As ``manual_seed``."""


def __getattr__(name):
    if name == "amp":  # torch.cuda.amp: torch.amp's classes for the "cuda" device
        import functools
        import types

        from . import amp
        from .dtypes import float16

        return types.SimpleNamespace(
            autocast=amp.autocast_mode._deprecated_autocast("cuda", float16),
            custom_fwd=functools.partial(amp.custom_fwd, device_type="cuda"),
            custom_bwd=functools.partial(amp.custom_bwd, device_type="cuda"),
            GradScaler=functools.partial(amp.GradScaler, "cuda"))
    raise AttributeError(f"module 'nbgrad.cuda' has no attribute '{name}'")
