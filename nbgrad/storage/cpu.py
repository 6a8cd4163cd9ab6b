"""CPU storage: NumPy arrays (large ones from the buffer pool, ``_cpupool``)."""

import numpy as np
from numpy.lib.stride_tricks import as_strided as _as_strided

from ..dtypes import checked_value
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
    value = checked_value(value, np_dtype)
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
_NO_VIEW = {}  # (shape, strides, new shape) of reshapes that need a copy


def reshape_view(arr, shape):
    """A view of ``arr`` with ``shape``, or None when that needs a copy."""
    if arr.flags.c_contiguous:
        v = arr.view()
        v.shape = shape
        return v
    # NumPy says "needs a copy" by raising, ~10-25 µs a time (a transposed gradient's
    # reshape meets it on every step): each such layout raises once
    key = (arr.shape, arr.strides, shape)
    if key in _NO_VIEW:
        return None
    v = arr.view()
    try:
        v.shape = shape
    except AttributeError:
        if len(_NO_VIEW) >= 4096:
            _NO_VIEW.clear()
        _NO_VIEW[key] = None
        return None
    return v


def permute(arr, perm):
    return arr.transpose(perm)


def view_dtype(arr, np_dtype):
    """``arr``'s memory read as ``np_dtype`` (its last dim rescaled for another element size;
    the caller checked it is contiguous)."""
    return arr.view(np_dtype)


def storage_view(arr, offset, shape, strides):
    """A view of the memory under ``arr`` with ``shape`` and element ``strides``, starting
    ``offset`` elements from ``arr``'s first (before it when negative); the caller keeps
    it inside the storage."""
    owner = arr
    while isinstance(owner.base, np.ndarray):  # (the array that holds the memory)
        owner = owner.base
    it = arr.itemsize
    if not all(shape):  # (no element to reach: any strides do, as PyTorch keeps them)
        return _as_strided(arr, tuple(shape), tuple(s * it for s in strides))
    start = arr.__array_interface__["data"][0] - owner.__array_interface__["data"][0]
    return np.ndarray(tuple(shape), arr.dtype, owner, start + offset * it,
                      tuple(s * it for s in strides))


def getitem(arr, key):
    r = arr[key]
    # all-int keys give a NumPy scalar (a copy); "..." at the end gives a 0-d view instead
    return r if isinstance(r, np.ndarray) else arr[key + (Ellipsis,)]


expand = as_strided  # (a broadcast view is one strided view; a frame less per expand)
