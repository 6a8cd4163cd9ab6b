"""CUDA storage: Numba device arrays.

Imported only when the first CUDA tensor is made. Under the CUDA simulator
(``NUMBA_ENABLE_CUDASIM=1``) device arrays wrap NumPy arrays and kernels run in Python
threads, so the same code is tested on machines without a GPU.
"""

import numpy as np
from numba import cuda

from ..device import device as _device
from ..dtypes import checked_value, from_numpy_dtype
from ..kernels.cuda._launch import grid
from ..kernels.cuda._view import SIMULATOR
from ..kernels.cuda._view import view as _view
from . import cuda_memory
from .layout import copy_data

NAME = "cuda"
_CUDA = _device("cuda")
cuda_memory.install()  # (before this process's first device array makes a context)

if SIMULATOR:
    from numba.cuda.simulator.cudadrv import devicearray as _simarray
    from numba.cuda.simulator.cudadrv.devicearray import FakeCUDAArray as _Fake

    # Host code reads device array shapes as tuples (real DeviceNDArray.shape is one); the
    # simulator's shape refuses negative indices, which only matters inside kernels.
    _simarray.FakeShape.__getitem__ = tuple.__getitem__


def check_device(device):
    if not cuda.is_available():
        raise RuntimeError(
            "Found no NVIDIA driver on your system. nbgrad's CUDA tensors need an NVIDIA GPU "
            "(or the simulator: set NUMBA_ENABLE_CUDASIM=1 before importing nbgrad)."
        )
    n = len(cuda.gpus)
    if device.index is not None and device.index >= n:
        raise RuntimeError(
            f"CUDA error: invalid device ordinal (device {device.index} requested, {n} present)"
        )


def is_device_array(a):
    return hasattr(a, "copy_to_host")


@cuda.jit
def _fill(out, v):
    i = cuda.grid(1)
    s = cuda.gridsize(1)
    while i < out.size:
        out[i] = v
        i += s


def empty(shape, np_dtype):
    return cuda.device_array(tuple(shape), np_dtype)


def full(shape, value, np_dtype):
    out = cuda.device_array(tuple(shape), np_dtype)
    if out.size:
        value = checked_value(value, np_dtype)
        _fill[grid(out.size)](out.reshape(out.size), np.dtype(np_dtype).type(value))
    return out


def zeros(shape, np_dtype):
    return full(shape, 0, np_dtype)


def from_host(nd):
    """A device copy of NumPy array ``nd``."""
    return cuda.to_device(np.ascontiguousarray(nd).reshape(nd.shape))  # keeps 0-d as 0-d


def to_host(arr):
    """A NumPy copy of device array ``arr``."""
    if not is_contiguous(arr):
        out = empty(arr.shape, arr.dtype)
        arr = copy_data(arr, from_numpy_dtype(np.dtype(arr.dtype)), _CUDA, out=out)
    return arr.copy_to_host()


def is_contiguous(arr):
    return arr.is_c_contiguous()


def scalar_of(arr):
    return to_host(arr).reshape(-1)[0].item()


def _dummy(arr):
    """A NumPy array with ``arr``'s shape and strides over one element (never read):
    lets NumPy do the index and reshape arithmetic for device arrays."""
    return np.lib.stride_tricks.as_strided(np.zeros(1, arr.dtype), arr.shape, arr.strides)


def as_strided(arr, shape, strides):
    return _view(arr, shape, strides)


def reshape_view(arr, shape):
    if is_contiguous(arr):
        return arr.reshape(tuple(shape)) if tuple(shape) != tuple(arr.shape) else arr
    v = _dummy(arr).view()
    try:
        v.shape = shape
    except AttributeError:
        return None
    return _view(arr, v.shape, v.strides)


def view_dtype(arr, np_dtype):
    """``arr``'s memory read as ``np_dtype`` (as ``storage.cpu.view_dtype``)."""
    if SIMULATOR:
        return _Fake(arr._ary.view(np_dtype))
    from numba.cuda.cudadrv.devicearray import DeviceNDArray

    a, b = arr.dtype.itemsize, np.dtype(np_dtype).itemsize
    shape, strides = tuple(arr.shape), tuple(arr.strides)
    if a != b and shape:
        shape = shape[:-1] + (shape[-1] * a // b,)
        strides = strides[:-1] + (b,)
    return DeviceNDArray(shape, strides, np.dtype(np_dtype), gpu_data=arr.gpu_data)


def permute(arr, perm):
    shape = tuple(arr.shape[p] for p in perm)
    strides = tuple(arr.strides[p] for p in perm)
    return _view(arr, shape, strides)


def storage_view(arr, offset, shape, strides):
    """``storage.cpu.storage_view`` on the device: from ``arr``'s first element onwards."""
    if offset < 0:
        raise NotImplementedError("as_strided: a view that starts before its input's first "
                                  "element is not supported on CUDA tensors yet")
    it = arr.dtype.itemsize
    return _view(arr, tuple(shape), tuple(s * it for s in strides), offset * it)


def getitem(arr, key):
    if SIMULATOR:
        return _Fake(arr._ary[key])
    d = _dummy(arr)
    v = d[key]
    offset = v.__array_interface__["data"][0] - d.__array_interface__["data"][0]
    return _view(arr, v.shape, v.strides, offset)


def expand(arr, shape, strides):
    return _view(arr, shape, strides)
