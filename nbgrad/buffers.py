"""Tensors over memory that other objects own, and tensors lent to other libraries:
``frombuffer`` (Python's buffer protocol), ``from_dlpack`` / ``to_dlpack`` and
``Tensor.__dlpack__`` (DLPack, the exchange format of NumPy, JAX, CuPy, PyTorch ...).
No copies: the tensor and the other object share memory. CPU memory only, for now.
"""

import enum

import numpy as np

from . import dtypes as _dt
from .device import as_device
from .tensor import Tensor, _wrap

__all__ = ["frombuffer", "from_dlpack", "to_dlpack", "DLDeviceType"]


class DLDeviceType(enum.IntEnum):
    """DLPack's device codes (the ones nbgrad's devices are)."""

    kDLCPU = 1
    kDLCUDA = 2


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-D CPU tensor over the memory of ``buffer`` (a ``bytearray``, ``memoryview``,
    ``array.array``, ...): ``count`` elements of ``dtype`` (-1: as many as fit) from byte
    ``offset``. It shares the memory: a change on either side shows on the other.

    Args:
        buffer (object): an object that exposes the buffer protocol.
        dtype (nbgrad.dtype): the dtype of the elements to read.
        count (int, optional): the number of elements; ``-1``: as many as fit after
            ``offset`` (the bytes left must then be a multiple of the element size).
            Default: ``-1``.
        offset (int, optional): the number of bytes to skip at the start. Default: ``0``.
        requires_grad (bool, optional): whether autograd records operations on the result.
            Default: ``False``.

    Example::

        >>> import nbgrad
        >>> b = bytearray(b"\\x01\\x00\\x00\\x00\\x02\\x00\\x00\\x00")
        >>> t = nbgrad.frombuffer(b, dtype=nbgrad.int32)
        >>> b[0] = 5
        >>> t
        tensor([5, 2], dtype=nbgrad.int32)
    """
    dt = _dt.as_dtype(dtype)
    try:
        view = memoryview(buffer)
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol.") from None
    length, size = view.nbytes, dt.itemsize
    if length == 0 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if not 0 <= offset < length:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than "
                         f"buffer length ({length} bytes) minus 1")
    if count < 0:
        if (length - offset) % size:
            raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} "
                             f"bytes) must be a multiple of element size ({size})")
        count = (length - offset) // size
    elif offset + count * size > length:
        raise ValueError(f"requested buffer length ({count} * {size} bytes) after offset "
                         f"({offset} bytes) must not be greater than actual buffer length "
                         f"({length} bytes)")
    data = np.frombuffer(view, dtype=dt.np, count=count, offset=offset)
    if not data.flags.writeable:
        import warnings

        warnings.warn("The given buffer is not writable, and nbgrad does not support "
                      "non-writable tensors: in-place operations on this tensor will raise an "
                      "error. You may want to copy the buffer to protect its data or make it "
                      "writable before converting it to a tensor.", UserWarning, stacklevel=2)
    t = _wrap(data, dt, as_device("cpu"))
    if requires_grad:
        t.requires_grad_(True)
    return t


class _Capsule:
    """A bare DLPack capsule (``to_dlpack``'s result) as the protocol's object NumPy reads."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return (DLDeviceType.kDLCPU, 0)


def from_dlpack(ext_tensor):
    """A tensor sharing memory with ``ext_tensor``: an object with ``__dlpack__`` (a NumPy
    array, a JAX or PyTorch CPU tensor, ...) or a DLPack capsule from ``to_dlpack``.

    Args:
        ext_tensor (object): an object with ``__dlpack__`` and ``__dlpack_device__`` whose
            memory is in CPU memory, or a DLPack capsule (returned as it is when it is
            already an nbgrad tensor).

    Example::

        >>> import nbgrad, numpy as np
        >>> a = np.arange(3.0)
        >>> t = nbgrad.from_dlpack(a)
        >>> a[0] = 9.0
        >>> t
        tensor([9., 1., 2.], dtype=nbgrad.float64)
    """
    if isinstance(ext_tensor, Tensor):
        return ext_tensor
    if not hasattr(ext_tensor, "__dlpack__"):
        if type(ext_tensor).__name__ != "PyCapsule":
            raise TypeError(f"from_dlpack(): expected an object with __dlpack__ or a DLPack "
                            f"capsule, got {type(ext_tensor).__name__}")
        ext_tensor = _Capsule(ext_tensor)
    kind, _ = ext_tensor.__dlpack_device__()
    if kind != DLDeviceType.kDLCPU:
        raise NotImplementedError("from_dlpack of memory on a device other than the CPU is "
                                  "not supported by nbgrad yet")
    data = np.from_dlpack(ext_tensor)
    return _wrap(data, _dt.from_numpy_dtype(data.dtype), as_device("cpu"))


def to_dlpack(tensor):
    """A DLPack capsule of ``tensor``'s memory, for another library's ``from_dlpack``.

    Example::

        >>> import nbgrad
        >>> nbgrad.from_dlpack(nbgrad.utils.dlpack.to_dlpack(nbgrad.arange(3.0)))
        tensor([0., 1., 2.])
    """
    return tensor.__dlpack__()


def dlpack(tensor, **kwargs):
    """``Tensor.__dlpack__``: PyTorch's refusals, then NumPy's capsule of the same memory."""
    if tensor.requires_grad:
        raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
    if tensor.device.type != "cpu":
        raise NotImplementedError("__dlpack__ of a CUDA tensor is not supported by nbgrad yet")
    if tensor.dtype is _dt.bfloat16:  # (NumPy has no bfloat16: ml_dtypes' cannot be lent)
        raise BufferError("__dlpack__ of a bfloat16 tensor is not supported by nbgrad yet")
    return tensor._data.__dlpack__(**kwargs)


def dlpack_device(tensor):
    if tensor.device.type == "cpu":
        return (DLDeviceType.kDLCPU, 0)
    return (DLDeviceType.kDLCUDA, tensor.device.index or 0)
