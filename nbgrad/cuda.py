"""``nbgrad.cuda``: is there a CUDA device, how many, wait for it.

These import ``numba.cuda`` on first call (``import nbgrad`` does not). Under Numba's CUDA
simulator (``NUMBA_ENABLE_CUDASIM=1`` set before the first import) one simulated device is
available, which is how the CUDA code is tested on machines without a GPU.
"""

from .storage import cuda_memory as _memory
from .storage.cuda_memory import OutOfMemoryError  # noqa: F401 (PyTorch's name here)
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


def _pool(device):
    if device is not None:
        from .device import device as _device

        d = device if isinstance(device, int) else _device(device)
        device = d if isinstance(d, int) else (d.index or 0)
    return _memory.pool(device)


def _stat(device, name):
    """Statistic ``name`` of ``device``'s pool, 0 where nbgrad's allocator serves none."""
    return getattr(_pool(device), name, 0)


def memory_allocated(device=None):
    """memory_allocated(device=None) -> int

    Bytes of device memory held by tensors (and other device arrays) on ``device``, as
    nbgrad's caching allocator counts them (each block rounded up to 512 bytes). 0 without
    a GPU, under the simulator, or before the first CUDA tensor.

    Args:
        device (int or str or nbgrad.device, optional): the device. Default: the current one.

    Example::

        >>> import nbgrad
        >>> nbgrad.cuda.memory_allocated() >= 0
        True
    """
    return _stat(device, "allocated")


def max_memory_allocated(device=None):
    """max_memory_allocated(device=None) -> int

    The peak of :func:`memory_allocated` since the first CUDA tensor or the last
    :func:`reset_peak_memory_stats`.

    Example::

        >>> import nbgrad
        >>> nbgrad.cuda.max_memory_allocated() >= nbgrad.cuda.memory_allocated()
        True
    """
    return _stat(device, "peak_allocated")


def memory_reserved(device=None):
    """memory_reserved(device=None) -> int

    Bytes of device memory nbgrad's caching allocator holds from the driver: what
    :func:`memory_allocated` counts, and the free blocks it keeps for reuse
    (:func:`empty_cache` gives those back).

    Example::

        >>> import nbgrad
        >>> nbgrad.cuda.memory_reserved() >= nbgrad.cuda.memory_allocated()
        True
    """
    return _stat(device, "reserved")


def max_memory_reserved(device=None):
    """max_memory_reserved(device=None) -> int

    The peak of :func:`memory_reserved` since the first CUDA tensor or the last
    :func:`reset_peak_memory_stats`.

    Example::

        >>> import nbgrad
        >>> nbgrad.cuda.max_memory_reserved() >= nbgrad.cuda.memory_reserved()
        True
    """
    return _stat(device, "peak_reserved")


def reset_peak_memory_stats(device=None):
    """Start :func:`max_memory_allocated` and :func:`max_memory_reserved` again from the
    current values.

    Example::

        >>> import nbgrad
        >>> nbgrad.cuda.reset_peak_memory_stats()
        >>> nbgrad.cuda.max_memory_allocated() == nbgrad.cuda.memory_allocated()
        True
    """
    p = _pool(device)
    if p is not None:
        p.reset_peaks()


def empty_cache():
    """Give the free device memory nbgrad's caching allocator keeps for reuse back to the
    driver (for other processes, or other libraries in this one); tensors are not touched.
    :func:`memory_reserved` drops to :func:`memory_allocated`.

    Example::

        >>> import nbgrad
        >>> nbgrad.cuda.empty_cache()
        >>> nbgrad.cuda.memory_reserved() == nbgrad.cuda.memory_allocated()
        True
    """
    for p in list(_memory._POOLS.values()):
        p.empty_cache()


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

        # (made once: its classes stay the same for isinstance)
        ns = globals()["amp"] = types.SimpleNamespace(
            autocast=amp.autocast_mode._deprecated_autocast("cuda", float16),
            custom_fwd=functools.partial(amp.custom_fwd, device_type="cuda"),
            custom_bwd=functools.partial(amp.custom_bwd, device_type="cuda"),
            GradScaler=amp.grad_scaler._deprecated_grad_scaler("cuda"))
        return ns
    raise AttributeError(f"module 'nbgrad.cuda' has no attribute '{name}'")
