"""CPU storage: NumPy arrays (large ones from the buffer pool, ``_cpupool``)."""

import numpy as np
from numpy.lib.stride_tricks import as_strided as _as_strided

from ._cpupool import empty as _pool_empty
from ._cpupool import out_of_memory

NAME = "cpu"


def check_device(device):
    if device.index not in (None, 0):
        raise RuntimeError(f"Invalid device: {device}; the CPU has no index")


def empty(shape, np_dtype):
    n = 1
    for d in (shape if isinstance(shape, (tuple, list)) else (shape,)):
        n *= d
    return _pool_empty(shape, np_dtype, n * np.dtype(np_dtype).itemsize)


def _refused(shape, np_dtype):
    return out_of_memory(int(np.prod(shape, dtype=object)) * np.dtype(np_dtype).itemsize)


def zeros(shape, np_dtype):
    try:
        return np.zeros(shape, np_dtype)
    except MemoryError:
        raise _refused(shape, np_dtype) from None


def full(shape, value, np_dtype):
    try:
        return np.full(shape, value, np_dtype)
    except MemoryError:
        raise _refused(shape, np_dtype) from None


def from_host(nd):
    """A device array holding a copy of NumPy array ``nd`` (here: ``nd`` itself)."""
    return nd


def to_host(arr):
    return arr


def as_strided(arr, shape, strides):
    if arr.flags.c_contiguous and arr.size:
        # straight over arr's buffer: ~10x cheaper than numpy's as_strided
        return np.ndarray(shape, arr.dtype, arr, 0, strides)
    return _as_strided(arr, shape, strides)


def is_contiguous(arr):
    return arr.flags.c_contiguous


def scalar_of(arr):
    return arr.reshape(-1)[0].item()


# ----- views (share storage) ------------------------------------------------------------
def reshape_view(arr, shape):
    """A view of ``arr`` with ``shape``, or None when that needs a copy."""
    v = arr.view()
    try:
        v.shape = shape
    except AttributeError:
        return None
    return v


def permute(arr, perm):
    return arr.transpose(perm)


def getitem(arr, key):
    r = arr[key]
    # all-int keys give a NumPy scalar (a copy); "..." at the end gives a 0-d view instead
    return r if isinstance(r, np.ndarray) else arr[key + (Ellipsis,)]


def expand(arr, shape, strides):
    return as_strided(arr, shape, strides)
