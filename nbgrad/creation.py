"""Tensor creation functions, as in PyTorch."""

import numbers
import warnings

import numpy as np

from . import _distributions as _D
from . import _recording
from . import dtypes as _dt
from .device import CPU, as_device, factory_device
from .memory_formats import contiguous_format, dim_order, ordered, preserve_format
from .random import _check as _generator
from .random import manual_seed  # noqa: F401  (nbgrad.manual_seed)
from .storage import for_device
from .storage._cpupool import out_of_memory
from .storage.layout import copy_data
from .tensor import Tensor, _wrap

_I64 = 2**63 - 1


def _unpack(v, fname, arg, pos):
    """PyTorch's argument parser: a size beyond int64 is a TypeError, not a huge array."""
    if not -_I64 - 1 <= v <= _I64:
        raise TypeError(
            f"{fname}(): argument '{arg}' failed to unpack the object at pos {pos} with error "
            '"Overflow when unpacking long long"'
        )


def _int64(v):
    """A Python int for an int64 argument PyTorch parses as a number (n, steps, high)."""
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool) and not -_I64 - 1 <= v <= _I64:
        raise ValueError("Overflow when unpacking long long")
    return v


def _size(size, fname="empty"):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    elif len(size) == 1 and not isinstance(size[0], (int, np.integer, Tensor)):
        raise TypeError(
            f"{fname}(): argument 'size' (position 1) must be tuple of ints, not "
            f"{type(size[0]).__name__}"
        )
    out = []
    for i, s in enumerate(size):
        if isinstance(s, Tensor):
            s = int(s.item())
        if not isinstance(s, (int, np.integer)):
            raise TypeError(
                f"{fname}(): argument 'size' failed to unpack the object at pos {i + 1} with "
                f'error "type must be tuple of ints,but got {type(s).__name__}"'
            )
        _unpack(s, fname, "size", i + 1)
        out.append(int(s))
    for s in out:
        if s < 0:
            if fname == "zeros":
                raise RuntimeError("zeros: Dimension size must be non-negative.")
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {out}")
    return tuple(out)


def _nbytes(shape, np_dtype):
    """Bytes of a tensor of ``shape``; PyTorch's error when that overflows int64."""
    n = 1
    for s in shape:
        n *= s
    nb = n * np.dtype(np_dtype).itemsize
    if nb > _I64:
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(shape)}")
    return nb


def _alloc(make, shape, np_dtype):
    """``make()``, an allocation of ``shape``: PyTorch's RuntimeErrors for a size that
    overflows and for memory the system refuses, not NumPy's ValueError / MemoryError."""
    nb = _nbytes(shape, np_dtype)
    try:
        return make()
    except MemoryError:
        raise out_of_memory(nb) from None
    except ValueError as e:
        if "too big" not in str(e):
            raise
        # a float64 working array of NumPy's (arange, linspace) beyond int64 bytes
        raise out_of_memory(nb) from None


def _requiring_grad(t):
    """``t`` made to require grad by a factory's ``requires_grad=True`` (PyTorch's factory
    message for a dtype that cannot, not ``requires_grad_``'s)."""
    if not t._dtype.is_floating_point:
        raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                           "gradients")
    return t.requires_grad_(True)


def _finish(data, dt, dev, requires_grad):
    t = _wrap(for_device(dev).from_host(data) if dev.type != "cpu" else data, dt, dev)
    return _requiring_grad(t) if requires_grad else t


def _infer_dtype(data):
    """PyTorch's dtype for nested Python data: bool, int64, or the default float; a NumPy
    scalar counts with its own dtype (``[np.float64(1.5), 2.0]``: float64; ``[np.int32(1)]``:
    int32), promoted as PyTorch promotes them."""
    kinds = set()
    typed = []  # the nbgrad dtypes of NumPy scalars

    def walk(x):
        if isinstance(x, (list, tuple)):
            for y in x:
                walk(y)
        elif isinstance(x, Tensor):
            kinds.add(x._dtype._cat)
        elif isinstance(x, np.generic) and not isinstance(x, np.bool_):
            if not isinstance(x, (np.integer, np.floating)):
                raise TypeError(f"Could not infer dtype of {type(x).__name__}")
            typed.append(_dt.from_numpy_dtype(x.dtype))
        elif isinstance(x, (bool, np.bool_)):
            kinds.add(0)
        elif isinstance(x, numbers.Integral):
            kinds.add(1)
        elif isinstance(x, numbers.Real):
            kinds.add(2)
        else:
            raise TypeError(f"Could not infer dtype of {type(x).__name__}")

    walk(data)
    dt = _dtype_of_kinds(kinds)
    if typed:
        cat = max([t._cat for t in typed] + list(kinds))
        # the widest type of the top category among the NumPy scalars and the Python
        # numbers' own (bool, int64, the default float), as PyTorch promotes them
        best = None
        for t in typed + ([dt] if kinds else []):
            if t._cat == cat and (best is None or t._rank > best._rank):
                best = t
        dt = best if best is not None else dt
    return dt


def _dtype_of_kinds(kinds):
    if 2 in kinds:
        return _dt.get_default_dtype()
    if 1 in kinds:
        return _dt.int64
    if 0 in kinds:
        return _dt.bool_
    return _dt.get_default_dtype()


@_recording.recorded
def tensor(data, dtype=None, device=None, requires_grad=False, *, pin_memory=False):
    """Construct a new tensor, with no autograd history, holding a copy of ``data``.

    ``data`` is always copied: the tensor shares no memory with a NumPy array or tensor it
    was made from (use :func:`nbgrad.from_numpy` or :func:`nbgrad.as_tensor` to share it,
    and ``t.detach().clone()`` to copy a tensor). The dtype is inferred as PyTorch does:
    ``bool`` for booleans, ``int64`` for integers, the default dtype (see
    :func:`nbgrad.set_default_dtype`) for floats; an ndarray keeps its own dtype.

    Args:
        data (array_like): the initial data: a number, a (nested) list or tuple of
            numbers, a NumPy array or scalar, or a tensor.
        dtype (nbgrad.dtype, optional): the dtype of the tensor. Default: inferred from
            ``data``.
        device (nbgrad.device or str, optional): the device of the tensor. Default: the
            default device.
        requires_grad (bool, optional): record operations on the tensor for autograd
            (which needs a floating-point or complex dtype). Default: ``False``.
        pin_memory (bool, optional): ``True`` asks for page-locked host memory, which
            nbgrad's copies to a GPU do not need: allowed where a CUDA GPU is, else
            PyTorch's ``RuntimeError``. Default: ``False``.

    Returns:
        Tensor: a new leaf tensor.

    Example::

        >>> import nbgrad, numpy as np
        >>> nbgrad.tensor([[1., 2.], [3., 4.]], requires_grad=True)
        tensor([[1., 2.],
                [3., 4.]], requires_grad=True)
        >>> nbgrad.tensor(3), nbgrad.tensor(3).dtype, nbgrad.tensor([True]).dtype
        (tensor(3), nbgrad.int64, nbgrad.bool)
        >>> nbgrad.tensor([1, 2], dtype=nbgrad.float64)
        tensor([1., 2.], dtype=nbgrad.float64)
        >>> a = np.array([1, 2])
        >>> t = nbgrad.tensor(a)
        >>> a[0] = 9                             # t holds a copy
        >>> t
        tensor([1, 2])
    """
    if pin_memory:
        _check_options("tensor", None, pin_memory)
    dev = factory_device(device)
    if isinstance(data, np.generic):  # a NumPy scalar: its own dtype, as a 0-d array
        data = np.asarray(data)
    if isinstance(data, Tensor):
        warnings.warn("To copy construct from a tensor, it is recommended to use "
                      "sourceTensor.detach().clone() or sourceTensor.detach().clone()"
                      ".requires_grad_(True), rather than nbgrad.tensor(sourceTensor).",
                      UserWarning, stacklevel=2)
        arr = for_device(data._device).to_host(data._data)
        dt = _dt.as_dtype(dtype) if dtype is not None else data._dtype
    elif isinstance(data, np.ndarray):
        dt = _dt.as_dtype(dtype) if dtype is not None else _dt.from_numpy_dtype(data.dtype)
        arr = data
    else:
        if isinstance(data, range):
            data = list(data)
        if isinstance(data, (list, tuple)):
            try:
                _check_rectangular(data)
                dt = _dt.as_dtype(dtype) if dtype is not None else _infer_dtype(data)
            except TypeError:
                # arrays or ranges inside the lists (rare: looked for only on failure) become
                # lists, an array's elements NumPy scalars that keep its dtype, as in PyTorch
                plain = _plain(data)
                if plain is data:
                    raise
                data = plain
                _check_rectangular(data)
        dt = _dt.as_dtype(dtype) if dtype is not None else _infer_dtype(data)
        if dt._cat == 1:
            _check_int64(data)
        if isinstance(data, (list, tuple)):
            data = _unwrap(data)
        # a float dtype takes any Python int (2**70 too), as in PyTorch
        arr = np.asarray(data, dtype=(np.float32 if dt.low else dt.np) if dt._cat == 2 else None)
        if arr.dtype == object:
            raise ValueError("expected a sequence of numbers with a regular (rectangular) shape")
        if dt._narrow:
            _check_range(data, dt, np.iinfo(dt.np))
    if dt.low and arr.dtype != dt.np:  # rounded to 16 bits through float32, as PyTorch
        return _finish(copy_data(np.asarray(arr), dt, CPU), dt, dev, requires_grad)
    return _finish(np.array(arr, dtype=dt.np, copy=True), dt, dev, requires_grad)


def _plain(x):
    """``x`` with every range and NumPy array inside it turned into lists (of NumPy
    scalars, for an array); ``x`` itself when there were none."""
    if isinstance(x, range):
        return list(x)
    if isinstance(x, np.ndarray):
        return x[()] if x.ndim == 0 else [_plain(y) for y in x]
    if isinstance(x, (list, tuple)):
        out = [_plain(y) for y in x]
        return out if any(a is not b for a, b in zip(out, x)) else x
    return x


def _check_rectangular(data):
    """PyTorch's errors for nested lists of uneven lengths (the shape follows the first
    element at each depth, as in PyTorch)."""
    shape = []
    x = data
    while isinstance(x, (list, tuple)):
        shape.append(len(x))
        if not x:
            break
        x = x[0]

    def walk(x, d):
        if d == len(shape):
            if isinstance(x, (list, tuple)):
                raise TypeError(f"'{type(x).__name__}' object cannot be interpreted as an integer")
            return
        if not isinstance(x, (list, tuple)):
            if isinstance(x, Tensor) and tuple(x.shape) == tuple(shape[d:]):
                return
            raise TypeError("not a sequence")
        if len(x) != shape[d]:
            raise ValueError(f"expected sequence of length {shape[d]} at dim {d} (got {len(x)})")
        for y in x:
            walk(y, d + 1)

    walk(data, 0)


def _check_int64(data):
    if isinstance(data, (list, tuple)):
        for y in data:
            _check_int64(y)
    else:
        _int64(data)


def _check_range(data, dt, info):
    """PyTorch's (c10's) check of each Python number for a narrow integer type: an int may
    wrap into an unsigned type from ``-max``; a float must lie in the type's range."""
    if isinstance(data, (list, tuple)):
        for y in data:
            _check_range(y, dt, info)
        return
    lo = -info.max if info.min == 0 and isinstance(data, numbers.Integral) else info.min
    if not lo <= data <= info.max:
        raise RuntimeError(f"value cannot be converted to type {dt.name} without overflow")


def _unwrap(x):
    if isinstance(x, (list, tuple)):
        return [_unwrap(y) for y in x]
    if isinstance(x, Tensor):
        return for_device(x._device).to_host(x._data).tolist()
    return x


def as_tensor(data, dtype=None, device=None):
    """``data`` as a tensor, sharing its memory where it can.

    A tensor of the dtype and device asked for is returned as it is; another tensor is
    converted (``data.to(...)``, a copy). A NumPy array on the CPU with no ``dtype`` shares
    its memory (as :func:`nbgrad.from_numpy`); anything else is copied, as
    :func:`nbgrad.tensor` does. The result keeps ``data``'s autograd history when ``data``
    is a tensor.

    Args:
        data (array_like): a tensor, a NumPy array, a number or a (nested) sequence.
        dtype (nbgrad.dtype, optional): the dtype of the tensor. Default: ``None``, inferred
            from ``data``.
        device (nbgrad.device or str, optional): the device of the tensor. Default:
            ``None``, ``data``'s for a tensor, else the default device (see
            :func:`nbgrad.set_default_device`).

    Example::

        >>> import nbgrad, numpy as np
        >>> a = np.array([1, 2, 3])
        >>> t = nbgrad.as_tensor(a)
        >>> a[0] = -1                          # t shares a's memory
        >>> t
        tensor([-1,  2,  3])
        >>> nbgrad.as_tensor([1.5, 2.0]), nbgrad.as_tensor(t, dtype=nbgrad.float32)
        (tensor([1.5000, 2.0000]), tensor([-1.,  2.,  3.]))
    """
    if isinstance(data, Tensor):
        return data.to(device=device or data.device, dtype=dtype or data.dtype)
    if isinstance(data, np.ndarray) and dtype is None and factory_device(device).type == "cpu":
        return from_numpy(data)
    return tensor(data, dtype=dtype, device=device)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """``obj`` as a tensor, sharing its memory where it can (a tensor, or a NumPy array of
    the dtype asked for, on the CPU), as ``torch.asarray``.

    Args:
        obj: a tensor, a NumPy array or scalar, a Python number or (nested) sequence, or
            anything NumPy reads as an array.
        dtype (nbgrad.dtype, optional): the result's dtype (``obj``'s, or inferred as
            ``tensor`` does).
        device (optional): the result's device (``obj``'s, or the CPU).
        copy (bool, optional): ``True`` always copies; ``False`` never does (an error when
            it would have to); ``None`` copies only when it must.
        requires_grad (bool): whether the result requires grad. Default: False.

    Example::

        >>> import nbgrad, numpy as np
        >>> a = np.arange(3.0)
        >>> t = nbgrad.asarray(a)
        >>> a[0] = 9.0
        >>> t
        tensor([9., 1., 2.], dtype=nbgrad.float64)
    """
    dt = None if dtype is None else _dt.as_dtype(dtype)
    if isinstance(obj, Tensor):
        out = obj.to(device=device or obj.device, dtype=dt or obj.dtype)
        if out is obj and copy:
            out = obj.clone()
        if out is not obj and copy is False:
            raise ValueError(f"can't alias tensor with dtype '{obj.dtype.scalar_type}' into "
                             f"dtype '{out.dtype.scalar_type}'.")
    elif isinstance(obj, np.ndarray) and (device is None or as_device(device).type == "cpu"):
        want = dt or _dt.from_numpy_dtype(obj.dtype)
        if want.np != obj.dtype and copy is False:
            raise ValueError("can't alias tensor with dtype "
                             f"'{_dt.from_numpy_dtype(obj.dtype).scalar_type}' into dtype "
                             f"'{want.scalar_type}'.")
        out = (from_numpy(obj) if want.np == obj.dtype and not copy
               else tensor(obj, dtype=want))
    else:
        if copy is False and not isinstance(obj, np.ndarray):
            raise ValueError("can't alias arbitrary sequence into a tensor.")
        out = tensor(obj, dtype=dt, device=device)
    if requires_grad:  # (on the caller's tensor itself when it is returned, as PyTorch)
        _requiring_grad(out)
    return out


def from_numpy(ndarray):
    """A CPU tensor that shares its memory with the NumPy array ``ndarray``.

    A change to either is seen in the other; the tensor has ``ndarray``'s shape, strides and
    dtype (float64, float32, float16, int64, int32, int16, int8, uint8 or bool). Arrays with
    negative strides are refused (copy them first). The tensor keeps the array alive.

    Args:
        ndarray (numpy.ndarray): the array to share.

    Example::

        >>> import nbgrad, numpy as np
        >>> a = np.array([[1.0, 2.0], [3.0, 4.0]])
        >>> t = nbgrad.from_numpy(a)
        >>> t
        tensor([[1., 2.],
                [3., 4.]], dtype=nbgrad.float64)
        >>> t[0, 0] = 10.0
        >>> a[0]
        array([10.,  2.])
    """
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    dt = _dt.from_numpy_dtype(ndarray.dtype)
    if any(s < 0 for s in ndarray.strides):
        raise ValueError(
            "At least one stride in the given numpy array is negative, and tensors with "
            "negative strides are not currently supported. (You can probably work around "
            "this by making a copy of your array  with array.copy().) "
        )
    if not ndarray.flags.writeable:
        import warnings

        warnings.warn(
            "The given NumPy array is not writable, and nbgrad does not support non-writable "
            "tensors: in-place operations on this tensor will raise an error. You may want to "
            "copy the array to protect its data or make it writable before converting it to a "
            "tensor.", UserWarning, stacklevel=2)
    # a view: later in-place reshapes of ``ndarray`` leave the tensor as it was (as in PyTorch)
    return _wrap(ndarray.view(), dt, as_device("cpu"))


def _check_options(fname, layout, pin_memory):
    """PyTorch's ``layout`` and ``pin_memory`` factory options, as far as nbgrad has them:
    strided tensors only; pinned memory only where a CUDA GPU could use it. (Called only
    when one is given: factories run often.)"""
    from .memory_formats import strided

    if layout is not None and layout is not strided:
        raise NotImplementedError(f"{fname}(): layout={layout} is not supported: nbgrad "
                                  "tensors are strided (dense)")
    if pin_memory:
        from . import cuda

        if not cuda.is_available():
            raise RuntimeError("pin_memory=True requires a CUDA or other accelerator backend; "
                               "no pinned memory allocator is available on this system.")


def _dtype_or_default(dtype):
    return _dt.as_dtype(dtype) if dtype is not None else _dt.get_default_dtype()


def _fill(size, value, dtype, device, requires_grad, fname):
    dev = factory_device(device)
    dt = _dtype_or_default(dtype)
    shape = _size(size, fname)
    if dt.low and isinstance(value, float):  # to 16 bits through float32, as PyTorch
        with np.errstate(over="ignore"):
            value = np.float32(value)
    data = _alloc(lambda: for_device(dev).full(shape, value, dt.np), shape, dt.np)
    return _finish_dev(data, dt, dev, requires_grad)


def _finish_dev(data, dt, dev, requires_grad):
    t = _wrap(data, dt, dev)
    return _requiring_grad(t) if requires_grad else t


@_recording.recorded
def zeros(*size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    """A tensor filled with zeros, of the shape ``size``.

    Args:
        *size (int or tuple of ints): the shape, as ints or as one tuple (or
            :class:`nbgrad.Size`).
        dtype (nbgrad.dtype, optional): the dtype of the tensor. Default: ``None``, the
            default dtype (see :func:`nbgrad.set_default_dtype`).
        device (nbgrad.device or str, optional): the device of the tensor. Default:
            ``None``, the default device (see :func:`nbgrad.set_default_device`).
        requires_grad (bool, optional): record operations on the tensor for autograd.
            Default: ``False``.
        layout (nbgrad.layout, optional): ``nbgrad.strided``, the one layout of nbgrad
            tensors (another raises ``NotImplementedError``). Default: ``nbgrad.strided``.
        pin_memory (bool, optional): ``True`` asks for page-locked host memory, which
            nbgrad's copies to a GPU do not need: allowed where a CUDA GPU is, else
            PyTorch's ``RuntimeError``. Default: ``False``.

    Example::

        >>> import nbgrad
        >>> nbgrad.zeros(2, 3)
        tensor([[0., 0., 0.],
                [0., 0., 0.]])
        >>> nbgrad.zeros((2,), dtype=nbgrad.int64)
        tensor([0, 0])
    """
    if layout is not None or pin_memory:
        _check_options("zeros", layout, pin_memory)
    return _fill(size, 0, dtype, device, requires_grad, "zeros")


@_recording.recorded
def ones(*size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    """A tensor filled with ones, of the shape ``size``.

    Args:
        *size (int or tuple of ints): the shape, as ints or as one tuple (or
            :class:`nbgrad.Size`).
        dtype (nbgrad.dtype, optional): the dtype of the tensor. Default: ``None``, the
            default dtype (see :func:`nbgrad.set_default_dtype`).
        device (nbgrad.device or str, optional): the device of the tensor. Default:
            ``None``, the default device (see :func:`nbgrad.set_default_device`).
        requires_grad (bool, optional): record operations on the tensor for autograd.
            Default: ``False``.
        layout (nbgrad.layout, optional): ``nbgrad.strided``, the one layout of nbgrad
            tensors (another raises ``NotImplementedError``). Default: ``nbgrad.strided``.
        pin_memory (bool, optional): ``True`` asks for page-locked host memory, which
            nbgrad's copies to a GPU do not need: allowed where a CUDA GPU is, else
            PyTorch's ``RuntimeError``. Default: ``False``.

    Example::

        >>> import nbgrad
        >>> nbgrad.ones(2, 3)
        tensor([[1., 1., 1.],
                [1., 1., 1.]])
        >>> nbgrad.ones(3, dtype=nbgrad.bool)
        tensor([True, True, True])
    """
    if layout is not None or pin_memory:
        _check_options("ones", layout, pin_memory)
    return _fill(size, 1, dtype, device, requires_grad, "ones")


@_recording.recorded
def empty(*size, dtype=None, device=None, requires_grad=False,
          memory_format=contiguous_format, layout=None, pin_memory=False):
    """A tensor of the shape ``size`` whose elements are not initialized: whatever the
    memory held.

    Faster than :func:`nbgrad.zeros` when every element will be written anyway.

    Args:
        *size (int or tuple of ints): the shape, as ints or as one tuple (or
            :class:`nbgrad.Size`).
        dtype (nbgrad.dtype, optional): the dtype of the tensor. Default: ``None``, the
            default dtype (see :func:`nbgrad.set_default_dtype`).
        device (nbgrad.device or str, optional): the device of the tensor. Default:
            ``None``, the default device (see :func:`nbgrad.set_default_device`).
        requires_grad (bool, optional): record operations on the tensor for autograd.
            Default: ``False``.
        memory_format (nbgrad.memory_format, optional): the layout of the tensor in
            memory (``nbgrad.channels_last`` for a 4-d tensor stored channels-last).
            Default: ``nbgrad.contiguous_format``.
        layout (nbgrad.layout, optional): ``nbgrad.strided``, the one layout of nbgrad
            tensors (another raises ``NotImplementedError``). Default: ``nbgrad.strided``.
        pin_memory (bool, optional): ``True`` asks for page-locked host memory, which
            nbgrad's copies to a GPU do not need: allowed where a CUDA GPU is, else
            PyTorch's ``RuntimeError``. Default: ``False``.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.empty(2, 3)
        >>> x.shape, x.dtype
        (nbgrad.Size([2, 3]), nbgrad.float32)
        >>> nbgrad.empty(1, 3, 2, 2, memory_format=nbgrad.channels_last).stride()
        (12, 1, 6, 3)
    """
    if layout is not None or pin_memory:
        _check_options("empty", layout, pin_memory)
    dev = factory_device(device)
    dt = _dtype_or_default(dtype)
    shape = _size(size, "empty")
    order = None
    if memory_format is not contiguous_format:
        if memory_format is preserve_format:
            raise RuntimeError("preserve memory format is unsupported by empty")
        order = dim_order(None, memory_format, "empty")
        if len(shape) != len(order):
            name = repr(memory_format)[len("torch."):]
            raise RuntimeError(f"required rank {len(order)} tensor to use {name} format")
    be = for_device(dev)
    data = _alloc(lambda: be.empty(shape, dt.np) if order is None
                  else ordered(be, shape, dt.np, order), shape, dt.np)
    return _finish_dev(data, dt, dev, requires_grad)


@_recording.recorded
def full(size, fill_value, *, dtype=None, device=None, requires_grad=False,
         layout=None, pin_memory=False):
    """A tensor of the shape ``size`` filled with ``fill_value``.

    Without ``dtype`` the dtype is inferred from ``fill_value``, as :func:`nbgrad.tensor`
    does: ``bool``, ``int64``, or the default floating dtype.

    Args:
        size (int or tuple of ints): the shape.
        fill_value (Number): the value of every element.
        dtype (nbgrad.dtype, optional): the dtype of the tensor. Default: ``None``, inferred
            from ``fill_value``.
        device (nbgrad.device or str, optional): the device of the tensor. Default:
            ``None``, the default device (see :func:`nbgrad.set_default_device`).
        requires_grad (bool, optional): record operations on the tensor for autograd.
            Default: ``False``.
        layout (nbgrad.layout, optional): ``nbgrad.strided``, the one layout of nbgrad
            tensors (another raises ``NotImplementedError``). Default: ``nbgrad.strided``.
        pin_memory (bool, optional): ``True`` asks for page-locked host memory, which
            nbgrad's copies to a GPU do not need: allowed where a CUDA GPU is, else
            PyTorch's ``RuntimeError``. Default: ``False``.

    Example::

        >>> import nbgrad
        >>> nbgrad.full((2, 3), 3.5)
        tensor([[3.5000, 3.5000, 3.5000],
                [3.5000, 3.5000, 3.5000]])
        >>> nbgrad.full((2,), 7), nbgrad.full((2,), True)
        (tensor([7, 7]), tensor([True, True]))
    """
    if layout is not None or pin_memory:
        _check_options("full", layout, pin_memory)
    if dtype is None:
        dtype = _infer_dtype(fill_value)
    return _fill((size,) if isinstance(size, int) else (tuple(size),), fill_value, dtype, device,
                 requires_grad, "full")


def _like(t, dtype, device):
    return (dtype if dtype is not None else t._dtype), (device if device is not None else t._device)


def _made_like(make, input, memory_format, fname, args, dt, dev, requires_grad):
    """``make(shape, *args, dtype=, device=, requires_grad=)`` of ``input``'s shape, laid
    out as ``memory_format`` says: for another order than row-major, made in the permuted
    shape and viewed back."""
    order = dim_order(input, memory_format, fname)
    if order is None:
        return make(tuple(input.shape), *args, dtype=dt, device=dev, requires_grad=requires_grad)
    t = make(tuple(input.shape[d] for d in order), *args, dtype=dt, device=dev)
    back = tuple(int(i) for i in np.argsort(order))
    return _finish_dev(for_device(t._device).permute(t._data, back), t._dtype, t._device,
                       requires_grad)


def _sample_like(draw, fill, input, memory_format, fname, requires_grad, dt, dev):
    """Samples of ``input``'s shape: ``draw(shape)``, or for another memory order than
    row-major an empty tensor in that order filled in place by ``fill`` (PyTorch's
    ``*_like`` samplers fill the new tensor so: the draws are its own for those strides)."""
    order = dim_order(input, memory_format, fname)
    t = draw(tuple(input.shape)) if order is None else empty_like(
        input, dtype=dt, device=dev, memory_format=memory_format)
    if order is not None:
        fill(t)
    return t.requires_grad_() if requires_grad else t


@_recording.recorded
def zeros_like(input, *, dtype=None, device=None, requires_grad=False,
               memory_format=preserve_format, layout=None, pin_memory=False):
    """A tensor of ``input``'s shape filled with zeros (its dtype and device are ``input``'s
    unless given).

    Args:
        input (Tensor): the tensor whose shape (and dtype and device) to take.
        dtype (nbgrad.dtype, optional): the dtype of the tensor. Default: ``None``, ``input``'s.
        device (nbgrad.device or str, optional): the device of the tensor. Default:
            ``None``, ``input``'s.
        requires_grad (bool, optional): record operations on the tensor for autograd.
            Default: ``False``.
        memory_format (nbgrad.memory_format, optional): the layout of the tensor in
            memory. Default: ``nbgrad.preserve_format``, that of ``input``.
        layout (nbgrad.layout, optional): ``nbgrad.strided``, the one layout of nbgrad
            tensors (another raises ``NotImplementedError``). Default: ``nbgrad.strided``.
        pin_memory (bool, optional): ``True`` asks for page-locked host memory, which
            nbgrad's copies to a GPU do not need: allowed where a CUDA GPU is, else
            PyTorch's ``RuntimeError``. Default: ``False``.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([[1, 2], [3, 4]])
        >>> nbgrad.zeros_like(x)
        tensor([[0, 0],
                [0, 0]])
        >>> nbgrad.zeros_like(x, dtype=nbgrad.float32)
        tensor([[0., 0.],
                [0., 0.]])
    """
    if layout is not None or pin_memory:
        _check_options("zeros_like", layout, pin_memory)
    dt, dev = _like(input, dtype, device)
    return _made_like(zeros, input, memory_format, "zeros_like", (), dt, dev, requires_grad)


@_recording.recorded
def ones_like(input, *, dtype=None, device=None, requires_grad=False,
              memory_format=preserve_format, layout=None, pin_memory=False):
    """A tensor of ``input``'s shape filled with ones (its dtype and device are ``input``'s
    unless given).

    Args:
        input (Tensor): the tensor whose shape (and dtype and device) to take.
        dtype (nbgrad.dtype, optional): the dtype of the tensor. Default: ``None``, ``input``'s.
        device (nbgrad.device or str, optional): the device of the tensor. Default:
            ``None``, ``input``'s.
        requires_grad (bool, optional): record operations on the tensor for autograd.
            Default: ``False``.
        memory_format (nbgrad.memory_format, optional): the layout of the tensor in
            memory. Default: ``nbgrad.preserve_format``, that of ``input``.
        layout (nbgrad.layout, optional): ``nbgrad.strided``, the one layout of nbgrad
            tensors (another raises ``NotImplementedError``). Default: ``nbgrad.strided``.
        pin_memory (bool, optional): ``True`` asks for page-locked host memory, which
            nbgrad's copies to a GPU do not need: allowed where a CUDA GPU is, else
            PyTorch's ``RuntimeError``. Default: ``False``.

    Example::

        >>> import nbgrad
        >>> nbgrad.ones_like(nbgrad.tensor([[1.5, 2.5]]))
        tensor([[1., 1.]])
    """
    if layout is not None or pin_memory:
        _check_options("ones_like", layout, pin_memory)
    dt, dev = _like(input, dtype, device)
    return _made_like(ones, input, memory_format, "ones_like", (), dt, dev, requires_grad)


@_recording.recorded
def empty_like(input, *, dtype=None, device=None, requires_grad=False,
               memory_format=preserve_format, layout=None, pin_memory=False):
    """A tensor of ``input``'s shape whose elements are not initialized (its dtype and
    device are ``input``'s unless given).

    Args:
        input (Tensor): the tensor whose shape (and dtype and device) to take.
        dtype (nbgrad.dtype, optional): the dtype of the tensor. Default: ``None``, ``input``'s.
        device (nbgrad.device or str, optional): the device of the tensor. Default:
            ``None``, ``input``'s.
        requires_grad (bool, optional): record operations on the tensor for autograd.
            Default: ``False``.
        memory_format (nbgrad.memory_format, optional): the layout of the tensor in
            memory. Default: ``nbgrad.preserve_format``, that of ``input``.
        layout (nbgrad.layout, optional): ``nbgrad.strided``, the one layout of nbgrad
            tensors (another raises ``NotImplementedError``). Default: ``nbgrad.strided``.
        pin_memory (bool, optional): ``True`` asks for page-locked host memory, which
            nbgrad's copies to a GPU do not need: allowed where a CUDA GPU is, else
            PyTorch's ``RuntimeError``. Default: ``False``.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.empty_like(nbgrad.zeros(2, 3, dtype=nbgrad.int32))
        >>> x.shape, x.dtype
        (nbgrad.Size([2, 3]), nbgrad.int32)
    """
    if layout is not None or pin_memory:
        _check_options("empty_like", layout, pin_memory)
    dt, dev = _like(input, dtype, device)
    return _made_like(empty, input, memory_format, "empty_like", (), dt, dev, requires_grad)


@_recording.recorded
def full_like(input, fill_value, *, dtype=None, device=None, requires_grad=False,
              memory_format=preserve_format, layout=None, pin_memory=False):
    """A tensor of ``input``'s shape filled with ``fill_value`` (its dtype and device are
    ``input``'s unless given).

    Args:
        input (Tensor): the tensor whose shape (and dtype and device) to take.
        fill_value (Number): the value of every element.
        dtype (nbgrad.dtype, optional): the dtype of the tensor. Default: ``None``, ``input``'s.
        device (nbgrad.device or str, optional): the device of the tensor. Default:
            ``None``, ``input``'s.
        requires_grad (bool, optional): record operations on the tensor for autograd.
            Default: ``False``.
        memory_format (nbgrad.memory_format, optional): the layout of the tensor in
            memory. Default: ``nbgrad.preserve_format``, that of ``input``.
        layout (nbgrad.layout, optional): ``nbgrad.strided``, the one layout of nbgrad
            tensors (another raises ``NotImplementedError``). Default: ``nbgrad.strided``.
        pin_memory (bool, optional): ``True`` asks for page-locked host memory, which
            nbgrad's copies to a GPU do not need: allowed where a CUDA GPU is, else
            PyTorch's ``RuntimeError``. Default: ``False``.

    Example::

        >>> import nbgrad
        >>> nbgrad.full_like(nbgrad.zeros(2, 2), 7.0)
        tensor([[7., 7.],
                [7., 7.]])
        >>> nbgrad.full_like(nbgrad.tensor([1, 2]), 2.7)       # input's dtype: int64
        tensor([2, 2])
    """
    if layout is not None or pin_memory:
        _check_options("full_like", layout, pin_memory)
    dt, dev = _like(input, dtype, device)
    return _made_like(full, input, memory_format, "full_like", (fill_value,), dt, dev,
                      requires_grad)


def _sample(draw, shape, dt, device, generator, requires_grad, fname):
    """A tensor of ``shape`` filled by ``draw(gen, n, np_dtype)`` on the host (PyTorch's CPU
    samples for the generator's state), then moved to ``device``."""
    dev = factory_device(device)
    gen = _generator(generator, dev, fname)
    n = int(np.prod(shape, dtype=np.int64))
    data = _alloc(lambda: draw(gen, n, dt.np).reshape(shape), shape, dt.np)
    return _finish(data, dt, dev, requires_grad)


def _float_only(dt, kernel):
    if not dt.is_floating_point:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{dt.scalar_type}\'')


@_recording.recorded
def rand(*size, generator=None, dtype=None, device=None, requires_grad=False,
         layout=None, pin_memory=False):
    """A tensor of the shape ``size`` of random numbers drawn uniformly from ``[0, 1)``.

    For the same seed (:func:`nbgrad.manual_seed`) the numbers are PyTorch's on the CPU.

    Args:
        *size (int or tuple of ints): the shape, as ints or as one tuple (or
            :class:`nbgrad.Size`).
        generator (nbgrad.Generator, optional): the generator to draw from. Default:
            ``None``, the default generator.
        dtype (nbgrad.dtype, optional): a floating-point dtype. Default: ``None``, the
            default dtype (see :func:`nbgrad.set_default_dtype`).
        device (nbgrad.device or str, optional): the device of the tensor. Default:
            ``None``, the default device (see :func:`nbgrad.set_default_device`).
        requires_grad (bool, optional): record operations on the tensor for autograd.
            Default: ``False``.
        layout (nbgrad.layout, optional): ``nbgrad.strided``, the one layout of nbgrad
            tensors (another raises ``NotImplementedError``). Default: ``nbgrad.strided``.
        pin_memory (bool, optional): ``True`` asks for page-locked host memory, which
            nbgrad's copies to a GPU do not need: allowed where a CUDA GPU is, else
            PyTorch's ``RuntimeError``. Default: ``False``.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> nbgrad.rand(2, 2)
        tensor([[0.4963, 0.7682],
                [0.0885, 0.1320]])
    """
    if layout is not None or pin_memory:
        _check_options("rand", layout, pin_memory)
    dt = _dtype_or_default(dtype)
    _float_only(dt, "check_uniform_bounds")
    return _sample(_D.uniform01, _size(size, "rand"), dt, device, generator, requires_grad,
                   "rand")


@_recording.recorded
def randn(*size, generator=None, dtype=None, device=None, requires_grad=False,
          layout=None, pin_memory=False):
    """A tensor of the shape ``size`` of random numbers drawn from the standard normal
    distribution (mean 0, variance 1).

    For the same seed (:func:`nbgrad.manual_seed`) the numbers are PyTorch's on the CPU
    (float32 tensors of 16 elements or more: to a few units in the last place).

    Args:
        *size (int or tuple of ints): the shape, as ints or as one tuple (or
            :class:`nbgrad.Size`).
        generator (nbgrad.Generator, optional): the generator to draw from. Default:
            ``None``, the default generator.
        dtype (nbgrad.dtype, optional): a floating-point dtype. Default: ``None``, the
            default dtype (see :func:`nbgrad.set_default_dtype`).
        device (nbgrad.device or str, optional): the device of the tensor. Default:
            ``None``, the default device (see :func:`nbgrad.set_default_device`).
        requires_grad (bool, optional): record operations on the tensor for autograd.
            Default: ``False``.
        layout (nbgrad.layout, optional): ``nbgrad.strided``, the one layout of nbgrad
            tensors (another raises ``NotImplementedError``). Default: ``nbgrad.strided``.
        pin_memory (bool, optional): ``True`` asks for page-locked host memory, which
            nbgrad's copies to a GPU do not need: allowed where a CUDA GPU is, else
            PyTorch's ``RuntimeError``. Default: ``False``.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> nbgrad.randn(3)
        tensor([ 1.5410, -0.2934, -2.1788])
        >>> nbgrad.randn(2, 3, dtype=nbgrad.float64).shape
        nbgrad.Size([2, 3])
    """
    if layout is not None or pin_memory:
        _check_options("randn", layout, pin_memory)
    dt = _dtype_or_default(dtype)
    _float_only(dt, "normal_kernel_cpu")
    return _sample(lambda g, n, d: _D.normal(g, n, d, 0.0, 1.0), _size(size, "randn"), dt,
                   device, generator, requires_grad, "randn")


@_recording.recorded
def randint(low=0, high=None, size=(), *, generator=None, dtype=None, device=None,
            requires_grad=False, layout=None, pin_memory=False):
    """A tensor of the shape ``size`` of random integers drawn uniformly from ``[low,
    high)``.

    ``randint(high, size)`` draws from ``[0, high)``. For the same seed
    (:func:`nbgrad.manual_seed`) the numbers are PyTorch's on the CPU.

    Args:
        low (int, optional): the lowest value that may be drawn. Default: ``0``.
        high (int): one above the highest value that may be drawn.
        size (tuple of ints): the shape.
        generator (nbgrad.Generator, optional): the generator to draw from. Default:
            ``None``, the default generator.
        dtype (nbgrad.dtype, optional): the dtype of the tensor. Default: ``None``, ``int64``.
        device (nbgrad.device or str, optional): the device of the tensor. Default:
            ``None``, the default device (see :func:`nbgrad.set_default_device`).
        requires_grad (bool, optional): record operations on the tensor for autograd.
            Default: ``False``.
        layout (nbgrad.layout, optional): ``nbgrad.strided``, the one layout of nbgrad
            tensors (another raises ``NotImplementedError``). Default: ``nbgrad.strided``.
        pin_memory (bool, optional): ``True`` asks for page-locked host memory, which
            nbgrad's copies to a GPU do not need: allowed where a CUDA GPU is, else
            PyTorch's ``RuntimeError``. Default: ``False``.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> nbgrad.randint(10, (5,))
        tensor([4, 9, 3, 0, 3])
        >>> nbgrad.randint(-3, 3, (2, 2))
        tensor([[ 0, -2],
                [-2, -2]])
    """
    if layout is not None or pin_memory:
        _check_options("randint", layout, pin_memory)
    if high is None:
        low, high = 0, low
    elif isinstance(high, (tuple, list)):  # randint(high, size)
        low, high, size = 0, low, high
    dt = _dt.as_dtype(dtype) if dtype is not None else _dt.int64
    shape = _size((size,) if isinstance(size, int) else (tuple(size),), "randint")
    _int64(low)
    _int64(high)
    if not low < high:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    if requires_grad and not dt.is_floating_point:
        raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                           "gradients")
    return _sample(lambda g, n, d: _D.randint(g, n, low, high, d), shape, dt, device,
                   generator, requires_grad, "randint")


@_recording.recorded
def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False,
             layout=None, pin_memory=False):
    """A random permutation of the integers ``0, ..., n - 1``.

    For the same seed (:func:`nbgrad.manual_seed`) it is PyTorch's on the CPU.

    Args:
        n (int): the number of integers.
        generator (nbgrad.Generator, optional): the generator to draw from. Default:
            ``None``, the default generator.
        dtype (nbgrad.dtype, optional): the dtype of the tensor. Default: ``None``, ``int64``.
        device (nbgrad.device or str, optional): the device of the tensor. Default:
            ``None``, the default device (see :func:`nbgrad.set_default_device`).
        requires_grad (bool, optional): record operations on the tensor for autograd.
            Default: ``False``.
        layout (nbgrad.layout, optional): ``nbgrad.strided``, the one layout of nbgrad
            tensors (another raises ``NotImplementedError``). Default: ``nbgrad.strided``.
        pin_memory (bool, optional): ``True`` asks for page-locked host memory, which
            nbgrad's copies to a GPU do not need: allowed where a CUDA GPU is, else
            PyTorch's ``RuntimeError``. Default: ``False``.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> nbgrad.randperm(5)
        tensor([4, 0, 1, 3, 2])
    """
    if layout is not None or pin_memory:
        _check_options("randperm", layout, pin_memory)
    dt = _dt.as_dtype(dtype) if dtype is not None else _dt.int64
    _int64(n)
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    n = int(n)
    return _sample(lambda g, k, d: _D.randperm(g, k).astype(d), (n,), dt, device,
                   generator, requires_grad, "randperm")


@_recording.recorded
def rand_like(input, *, dtype=None, device=None, requires_grad=False,
              memory_format=preserve_format, layout=None, pin_memory=False):
    """A tensor of ``input``'s shape of random numbers drawn uniformly from ``[0, 1)``, as
    :func:`nbgrad.rand` (its dtype and device are ``input``'s unless given).

    Args:
        input (Tensor): the tensor whose shape (and dtype and device) to take.
        dtype (nbgrad.dtype, optional): the dtype of the tensor. Default: ``None``, ``input``'s.
        device (nbgrad.device or str, optional): the device of the tensor. Default:
            ``None``, ``input``'s.
        requires_grad (bool, optional): record operations on the tensor for autograd.
            Default: ``False``.
        memory_format (nbgrad.memory_format, optional): the layout of the tensor in
            memory. Default: ``nbgrad.preserve_format``, that of ``input``.
        layout (nbgrad.layout, optional): ``nbgrad.strided``, the one layout of nbgrad
            tensors (another raises ``NotImplementedError``). Default: ``nbgrad.strided``.
        pin_memory (bool, optional): ``True`` asks for page-locked host memory, which
            nbgrad's copies to a GPU do not need: allowed where a CUDA GPU is, else
            PyTorch's ``RuntimeError``. Default: ``False``.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> nbgrad.rand_like(nbgrad.zeros(2, 2))
        tensor([[0.4963, 0.7682],
                [0.0885, 0.1320]])
    """
    if layout is not None or pin_memory:
        _check_options("rand_like", layout, pin_memory)
    dt, dev = _like(input, dtype, device)
    return _sample_like(lambda shape: rand(shape, dtype=dt, device=dev),
                        lambda t: t.uniform_(), input, memory_format, "rand_like", requires_grad,
                        dt, dev)


@_recording.recorded
def randn_like(input, *, dtype=None, device=None, requires_grad=False,
               memory_format=preserve_format, layout=None, pin_memory=False):
    """A tensor of ``input``'s shape of random numbers drawn from the standard normal
    distribution, as :func:`nbgrad.randn` (its dtype and device are ``input``'s unless
    given).

    Args:
        input (Tensor): the tensor whose shape (and dtype and device) to take.
        dtype (nbgrad.dtype, optional): the dtype of the tensor. Default: ``None``, ``input``'s.
        device (nbgrad.device or str, optional): the device of the tensor. Default:
            ``None``, ``input``'s.
        requires_grad (bool, optional): record operations on the tensor for autograd.
            Default: ``False``.
        memory_format (nbgrad.memory_format, optional): the layout of the tensor in
            memory. Default: ``nbgrad.preserve_format``, that of ``input``.
        layout (nbgrad.layout, optional): ``nbgrad.strided``, the one layout of nbgrad
            tensors (another raises ``NotImplementedError``). Default: ``nbgrad.strided``.
        pin_memory (bool, optional): ``True`` asks for page-locked host memory, which
            nbgrad's copies to a GPU do not need: allowed where a CUDA GPU is, else
            PyTorch's ``RuntimeError``. Default: ``False``.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> nbgrad.randn_like(nbgrad.zeros(3, dtype=nbgrad.float64))
        tensor([ 1.5410, -0.2934, -2.1788], dtype=nbgrad.float64)
    """
    if layout is not None or pin_memory:
        _check_options("randn_like", layout, pin_memory)
    dt, dev = _like(input, dtype, device)
    return _sample_like(lambda shape: randn(shape, dtype=dt, device=dev),
                        lambda t: t.normal_(), input, memory_format, "randn_like", requires_grad,
                        dt, dev)


@_recording.recorded
def randint_like(input, low=0, high=None, *, dtype=None, device=None, requires_grad=False,
                 memory_format=preserve_format, layout=None, pin_memory=False):
    """A tensor of ``input``'s shape of random integers drawn uniformly from ``[low,
    high)``, as :func:`nbgrad.randint` (its dtype and device are ``input``'s unless given).

    ``randint_like(input, high)`` draws from ``[0, high)``.

    Args:
        input (Tensor): the tensor whose shape (and dtype and device) to take.
        low (int, optional): the lowest value that may be drawn. Default: ``0``.
        high (int): one above the highest value that may be drawn.
        dtype (nbgrad.dtype, optional): the dtype of the tensor. Default: ``None``, ``input``'s.
        device (nbgrad.device or str, optional): the device of the tensor. Default:
            ``None``, ``input``'s.
        requires_grad (bool, optional): record operations on the tensor for autograd.
            Default: ``False``.
        memory_format (nbgrad.memory_format, optional): the layout of the tensor in
            memory. Default: ``nbgrad.preserve_format``, that of ``input``.
        layout (nbgrad.layout, optional): ``nbgrad.strided``, the one layout of nbgrad
            tensors (another raises ``NotImplementedError``). Default: ``nbgrad.strided``.
        pin_memory (bool, optional): ``True`` asks for page-locked host memory, which
            nbgrad's copies to a GPU do not need: allowed where a CUDA GPU is, else
            PyTorch's ``RuntimeError``. Default: ``False``.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> nbgrad.randint_like(nbgrad.zeros(2, 3), 10)
        tensor([[4., 9., 3.],
                [0., 3., 9.]])
    """
    if layout is not None or pin_memory:
        _check_options("randint_like", layout, pin_memory)
    if high is None:
        low, high = 0, low
    dt, dev = _like(input, dtype, device)
    return _sample_like(lambda shape: randint(low, high, shape, dtype=dt, device=dev),
                        lambda t: t.random_(low, high), input, memory_format, "randint_like",
                        requires_grad, dt, dev)


@_recording.recorded
def arange(start=None, end=None, step=1, *, dtype=None, device=None, requires_grad=False,
           layout=None, pin_memory=False):
    """A 1-d tensor of the values from ``start`` up to, not including, ``end``, ``step``
    apart, as Python's ``range``.

    ``arange(end)`` starts at 0. The number of values is ``ceil((end - start) / step)``.
    Without ``dtype``, integer arguments give ``int64`` and any float one the default
    floating dtype. With a floating ``step``, rounding may make ``end`` appear: prefer
    :func:`nbgrad.linspace` then.

    Args:
        start (Number): the first value (or ``end``, when it is the only one given).
        end (Number, optional): the bound, not reached. Default: ``None``.
        step (Number, optional): the gap between values. Default: ``1``.
        dtype (nbgrad.dtype, optional): the dtype of the tensor. Default: ``None``, inferred
            from the arguments.
        device (nbgrad.device or str, optional): the device of the tensor. Default:
            ``None``, the default device (see :func:`nbgrad.set_default_device`).
        requires_grad (bool, optional): record operations on the tensor for autograd.
            Default: ``False``.
        layout (nbgrad.layout, optional): ``nbgrad.strided``, the one layout of nbgrad
            tensors (another raises ``NotImplementedError``). Default: ``nbgrad.strided``.
        pin_memory (bool, optional): ``True`` asks for page-locked host memory, which
            nbgrad's copies to a GPU do not need: allowed where a CUDA GPU is, else
            PyTorch's ``RuntimeError``. Default: ``False``.

    Example::

        >>> import nbgrad
        >>> nbgrad.arange(5)
        tensor([0, 1, 2, 3, 4])
        >>> nbgrad.arange(1, 4)
        tensor([1, 2, 3])
        >>> nbgrad.arange(1, 2.5, 0.5)
        tensor([1.0000, 1.5000, 2.0000])
    """
    if layout is not None or pin_memory:
        _check_options("arange", layout, pin_memory)
    if start is None:  # (arange(end=4), as PyTorch's overload without a start)
        if end is None:
            raise TypeError("arange() received an invalid combination of arguments - got (), "
                            "but expected one of: (Number end), (Number start, Number end, "
                            "Number step=1)")
        start = 0
    elif end is None:
        start, end = 0, start
    for v in (start, end, step):
        if isinstance(v, int) and not -_I64 - 1 <= v <= _I64:
            raise OverflowError("int too big to convert")
    if step == 0 or step != step:
        raise RuntimeError("step must be nonzero")
    if not (np.isfinite(start) and np.isfinite(end)):
        raise RuntimeError(f"unsupported range: {_num(start)} -> {_num(end)}")
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dtype is None:
        dt = _infer_dtype([start, end, step])
    else:
        dt = _dt.as_dtype(dtype)
    size = np.ceil((end - start) / step)
    if size >= 2**63:
        raise RuntimeError("invalid size, possible overflow?")
    n = max(0, int(size))
    wt = np.float64 if dt.is_floating_point else np.int64
    data = _alloc(lambda: (start + step * np.arange(n, dtype=wt)).astype(dt.np), (n,), dt.np)
    return _finish(data, dt, factory_device(device), requires_grad)


def inclusive_range(start=0, end=None, step=1, *, dtype=None, device=None,
                    requires_grad=False, layout=None, pin_memory=False):
    """A 1-d tensor of the values from ``start`` to ``end`` *included*, ``step`` apart
    (``nbgrad.range``; named so here not to hide Python's ``range`` in this module).

    Deprecated, as PyTorch's: it warns, because it includes ``end`` where Python's
    ``range`` and :func:`nbgrad.arange` stop before it. The values have the default
    floating dtype unless ``dtype`` says otherwise.

    Args:
        start (Number, optional): the first value. Default: ``0``.
        end (Number): the last value.
        step (Number, optional): the gap between values. Default: ``1``.
        dtype (nbgrad.dtype, optional): the dtype of the tensor. Default: ``None``, the
            default dtype (see :func:`nbgrad.set_default_dtype`).
        device (nbgrad.device or str, optional): the device of the tensor. Default:
            ``None``, the default device (see :func:`nbgrad.set_default_device`).
        requires_grad (bool, optional): record operations on the tensor for autograd.
            Default: ``False``.
        layout (nbgrad.layout, optional): ``nbgrad.strided``, the one layout of nbgrad
            tensors (another raises ``NotImplementedError``). Default: ``nbgrad.strided``.
        pin_memory (bool, optional): ``True`` asks for page-locked host memory, which
            nbgrad's copies to a GPU do not need: allowed where a CUDA GPU is, else
            PyTorch's ``RuntimeError``. Default: ``False``.

    Example::

        >>> import nbgrad, warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     nbgrad.range(1, 2, 0.5)
        tensor([1.0000, 1.5000, 2.0000])
    """
    if layout is not None or pin_memory:
        _check_options("inclusive_range", layout, pin_memory)
    import warnings

    if end is None:
        raise TypeError('range() missing 1 required positional arguments: "end"')
    warnings.warn("torch.range is deprecated and will be removed in a future release because "
                  "its behavior is inconsistent with Python's range builtin. Instead, use "
                  "torch.arange, which produces values in [start, end).", UserWarning,
                  stacklevel=2)
    if step == 0 or step != step:
        raise RuntimeError("step must be nonzero")
    if not (np.isfinite(start) and np.isfinite(end)):
        raise RuntimeError(f"unsupported range: {_num(start)} -> {_num(end)}")
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    dt = _dtype_or_default(dtype)
    n = int(np.floor((end - start) / step)) + 1
    wt = np.float64 if dt.is_floating_point else np.int64
    values = (start + step * np.arange(n, dtype=wt)).astype(dt.np)
    return _finish(values, dt, factory_device(device), requires_grad)


def _num(v):
    """A number as PyTorch prints a Scalar in messages (``0``, ``1.5``, ``inf``)."""
    v = float(v)
    return str(int(v)) if v.is_integer() else str(v)


@_recording.recorded
def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False,
             layout=None, pin_memory=False):
    r"""A 1-d tensor of ``steps`` values evenly spaced from ``start`` to ``end``, both
    included.

    .. math::
        (\text{start},
        \text{start} + \frac{\text{end} - \text{start}}{\text{steps} - 1},
        \ldots,
        \text{end})

    Args:
        start (Number): the first value.
        end (Number): the last value.
        steps (int): the number of values.
        dtype (nbgrad.dtype, optional): the dtype of the tensor. Default: ``None``, the
            default dtype (see :func:`nbgrad.set_default_dtype`).
        device (nbgrad.device or str, optional): the device of the tensor. Default:
            ``None``, the default device (see :func:`nbgrad.set_default_device`).
        requires_grad (bool, optional): record operations on the tensor for autograd.
            Default: ``False``.
        layout (nbgrad.layout, optional): ``nbgrad.strided``, the one layout of nbgrad
            tensors (another raises ``NotImplementedError``). Default: ``nbgrad.strided``.
        pin_memory (bool, optional): ``True`` asks for page-locked host memory, which
            nbgrad's copies to a GPU do not need: allowed where a CUDA GPU is, else
            PyTorch's ``RuntimeError``. Default: ``False``.

    Example::

        >>> import nbgrad
        >>> nbgrad.linspace(0, 1, steps=5)
        tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000])
        >>> nbgrad.linspace(-10, 10, steps=3)
        tensor([-10.,   0.,  10.])
    """
    if layout is not None or pin_memory:
        _check_options("linspace", layout, pin_memory)
    dt = _dtype_or_default(dtype)
    if isinstance(steps, Tensor):
        steps = steps.item()
    if not isinstance(steps, (int, np.integer)) or isinstance(steps, bool):
        raise TypeError(f"linspace(): argument 'steps' must be int, not {type(steps).__name__}")
    steps = _int64(steps)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    data = _alloc(lambda: np.linspace(start, end, int(steps)).astype(dt.np), (int(steps),), dt.np)
    return _finish(data, dt, factory_device(device), requires_grad)


def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False,
             layout=None, pin_memory=False):
    r"""A 1-d tensor of ``steps`` values from ``base ** start`` to ``base ** end``, evenly
    spaced on a log scale.

    .. math::
        (\text{base}^{\text{start}},
        \text{base}^{(\text{start} + \frac{\text{end} - \text{start}}{\text{steps} - 1})},
        \ldots,
        \text{base}^{\text{end}})

    Args:
        start (Number): the first exponent.
        end (Number): the last exponent.
        steps (int): the number of values.
        base (float, optional): the base of the powers. Default: ``10.0``.
        dtype (nbgrad.dtype, optional): the dtype of the tensor. Default: ``None``, the
            default dtype (see :func:`nbgrad.set_default_dtype`).
        device (nbgrad.device or str, optional): the device of the tensor. Default:
            ``None``, the default device (see :func:`nbgrad.set_default_device`).
        requires_grad (bool, optional): record operations on the tensor for autograd.
            Default: ``False``.
        layout (nbgrad.layout, optional): ``nbgrad.strided``, the one layout of nbgrad
            tensors (another raises ``NotImplementedError``). Default: ``nbgrad.strided``.
        pin_memory (bool, optional): ``True`` asks for page-locked host memory, which
            nbgrad's copies to a GPU do not need: allowed where a CUDA GPU is, else
            PyTorch's ``RuntimeError``. Default: ``False``.

    Example::

        >>> import nbgrad
        >>> nbgrad.logspace(0, 3, steps=4)
        tensor([   1.,   10.,  100., 1000.])
        >>> nbgrad.logspace(0, 4, steps=3, base=2)
        tensor([ 1.,  4., 16.])
    """
    if layout is not None or pin_memory:
        _check_options("logspace", layout, pin_memory)
    exps = linspace(start, end, steps, dtype=_dt.float64)
    dt = _dtype_or_default(dtype)
    data = np.power(float(base), exps.numpy())
    if dt._cat != 2:
        data = np.trunc(data)
    return tensor(data, dtype=dt, device=device, requires_grad=requires_grad)


def _tri_indices(name, numpy_fn, row, col, offset, dtype, device):
    for v in (row, col, offset):
        _int64(v)
    if row < 0 or col < 0:
        raise RuntimeError(f"{name} expects row and col to be non-negative, got "
                           f"row = {row}, col = {col}")
    dt = _dt.int64 if dtype is None else _dt.as_dtype(dtype)
    if dt._cat != 1:
        raise RuntimeError(f"\"{name}\" not implemented for '{dt.scalar_type}'")
    return tensor(np.stack(numpy_fn(row, offset, col)).reshape(2, -1), dtype=dt, device=device)


def triu_indices(row, col, offset=0, *, dtype=None, device="cpu", layout=None, pin_memory=False):
    """The indices of the upper triangle of a ``row`` x ``col`` matrix, as a ``2 x N``
    tensor: the row indices, then the column indices, in row-major order.

    The triangle is on and above the ``offset``-th diagonal (0: the main one, positive:
    above it, negative: below), as :func:`nbgrad.triu` keeps it.

    Args:
        row (int): the number of rows of the matrix.
        col (int): the number of columns of the matrix.
        offset (int, optional): the diagonal the triangle starts from. Default: ``0``.
        dtype (nbgrad.dtype, optional): the dtype of the tensor. Default: ``None``, ``int64``.
        device (nbgrad.device or str, optional): the device of the tensor. Default:
            ``"cpu"``.
        layout (nbgrad.layout, optional): ``nbgrad.strided``, the one layout of nbgrad
            tensors (another raises ``NotImplementedError``). Default: ``nbgrad.strided``.
        pin_memory (bool, optional): ``True`` asks for page-locked host memory, which
            nbgrad's copies to a GPU do not need: allowed where a CUDA GPU is, else
            PyTorch's ``RuntimeError``. Default: ``False``.

    Example::

        >>> import nbgrad
        >>> nbgrad.triu_indices(3, 3)
        tensor([[0, 0, 0, 1, 1, 2],
                [0, 1, 2, 1, 2, 2]])
        >>> nbgrad.triu_indices(3, 3, offset=1)
        tensor([[0, 0, 1],
                [1, 2, 2]])
    """
    if layout is not None or pin_memory:
        _check_options("triu_indices", layout, pin_memory)
    return _tri_indices("triu_indices", np.triu_indices, row, col, offset, dtype, device)


def tril_indices(row, col, offset=0, *, dtype=None, device="cpu", layout=None, pin_memory=False):
    """The indices of the lower triangle of a ``row`` x ``col`` matrix, as a ``2 x N``
    tensor: the row indices, then the column indices, in row-major order.

    The triangle is on and below the ``offset``-th diagonal (0: the main one, positive:
    above it, negative: below), as :func:`nbgrad.tril` keeps it.

    Args:
        row (int): the number of rows of the matrix.
        col (int): the number of columns of the matrix.
        offset (int, optional): the diagonal the triangle ends at. Default: ``0``.
        dtype (nbgrad.dtype, optional): the dtype of the tensor. Default: ``None``, ``int64``.
        device (nbgrad.device or str, optional): the device of the tensor. Default:
            ``"cpu"``.
        layout (nbgrad.layout, optional): ``nbgrad.strided``, the one layout of nbgrad
            tensors (another raises ``NotImplementedError``). Default: ``nbgrad.strided``.
        pin_memory (bool, optional): ``True`` asks for page-locked host memory, which
            nbgrad's copies to a GPU do not need: allowed where a CUDA GPU is, else
            PyTorch's ``RuntimeError``. Default: ``False``.

    Example::

        >>> import nbgrad
        >>> nbgrad.tril_indices(3, 3)
        tensor([[0, 1, 1, 2, 2, 2],
                [0, 0, 1, 0, 1, 2]])
        >>> x = nbgrad.arange(9).reshape(3, 3)
        >>> i = nbgrad.tril_indices(3, 3, offset=-1)
        >>> x[i[0], i[1]]
        tensor([3, 6, 7])
    """
    if layout is not None or pin_memory:
        _check_options("tril_indices", layout, pin_memory)
    return _tri_indices("tril_indices", np.tril_indices, row, col, offset, dtype, device)


@_recording.recorded
def eye(n, m=None, *, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    """A 2-d tensor with ones on the main diagonal and zeros elsewhere: the identity
    matrix of ``n`` rows (and ``m`` columns).

    Args:
        n (int): the number of rows.
        m (int, optional): the number of columns. Default: ``None``, ``n``.
        dtype (nbgrad.dtype, optional): the dtype of the tensor. Default: ``None``, the
            default dtype (see :func:`nbgrad.set_default_dtype`).
        device (nbgrad.device or str, optional): the device of the tensor. Default:
            ``None``, the default device (see :func:`nbgrad.set_default_device`).
        requires_grad (bool, optional): record operations on the tensor for autograd.
            Default: ``False``.
        layout (nbgrad.layout, optional): ``nbgrad.strided``, the one layout of nbgrad
            tensors (another raises ``NotImplementedError``). Default: ``nbgrad.strided``.
        pin_memory (bool, optional): ``True`` asks for page-locked host memory, which
            nbgrad's copies to a GPU do not need: allowed where a CUDA GPU is, else
            PyTorch's ``RuntimeError``. Default: ``False``.

    Example::

        >>> import nbgrad
        >>> nbgrad.eye(3)
        tensor([[1., 0., 0.],
                [0., 1., 0.],
                [0., 0., 1.]])
        >>> nbgrad.eye(2, 3, dtype=nbgrad.int64)
        tensor([[1, 0, 0],
                [0, 1, 0]])
    """
    if layout is not None or pin_memory:
        _check_options("eye", layout, pin_memory)
    dt = _dtype_or_default(dtype)
    m = n if m is None else m
    _int64(n)
    _int64(m)
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    if n * m > _I64:
        raise RuntimeError("numel: integer multiplication overflow")
    data = _alloc(lambda: np.eye(n, m, dtype=dt.np), (n, m), dt.np)
    return _finish(data, dt, factory_device(device), requires_grad)


# ----- Tensor.new_*: creations with a tensor's dtype and device by default -----------------
def empty_strided(size, stride, *, dtype=None, device=None, requires_grad=False,
                  layout=None, pin_memory=False):
    """A tensor of the shape ``size`` and the strides ``stride``, whose elements are not
    initialized, over a storage just large enough for it.

    The strides are in elements: ``stride[i]`` is the step in memory between neighbours
    along dimension ``i``.

    Args:
        size (tuple of ints): the shape.
        stride (tuple of ints): the strides, one per dimension.
        dtype (nbgrad.dtype, optional): the dtype of the tensor. Default: ``None``, the
            default dtype (see :func:`nbgrad.set_default_dtype`).
        device (nbgrad.device or str, optional): the device of the tensor. Default:
            ``None``, the default device (see :func:`nbgrad.set_default_device`).
        requires_grad (bool, optional): record operations on the tensor for autograd.
            Default: ``False``.
        layout (nbgrad.layout, optional): ``nbgrad.strided``, the one layout of nbgrad
            tensors (another raises ``NotImplementedError``). Default: ``nbgrad.strided``.
        pin_memory (bool, optional): ``True`` asks for page-locked host memory, which
            nbgrad's copies to a GPU do not need: allowed where a CUDA GPU is, else
            PyTorch's ``RuntimeError``. Default: ``False``.

    Example::

        >>> import nbgrad
        >>> nbgrad.empty_strided((2, 3), (1, 2)).stride()
        (1, 2)
    """
    if layout is not None or pin_memory:
        _check_options("empty_strided", layout, pin_memory)
    size, stride = tuple(int(n) for n in size), tuple(int(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError(f"dimensionality of sizes ({len(size)}) must match dimensionality "
                           f"of strides ({len(stride)})")
    if any(n < 0 for n in size):
        raise RuntimeError(f"Trying to create tensor with negative dimension "
                           f"{min(size)}: {list(size)}")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} and "
                           f"strides={list(stride)}")
    span = 1 + sum((n - 1) * s for n, s in zip(size, stride)) if all(size) else 0
    base = empty(span, dtype=dtype, device=device)
    data = for_device(base._device).storage_view(base._data, 0, size, stride)
    return _finish_dev(data, base._dtype, base._device, requires_grad)


def new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad=False,
                      layout=None, pin_memory=False):
    """new_empty_strided(size, stride, *, dtype=None, device=None, requires_grad=False) -> Tensor

    A tensor of the shape ``size`` and the strides ``stride`` whose elements are not
    initialized (as :func:`nbgrad.empty_strided`), of this tensor's dtype and device
    unless given.

    Args:
        size (tuple of ints): the shape.
        stride (tuple of ints): the strides, one per dimension, in elements.
        dtype (nbgrad.dtype, optional): the dtype of the tensor. Default: ``None``, this tensor's.
        device (nbgrad.device or str, optional): the device of the tensor. Default:
            ``None``, this tensor's.
        requires_grad (bool, optional): record operations on the tensor for autograd.
            Default: ``False``.
        layout (nbgrad.layout, optional): ``nbgrad.strided``, the one layout of nbgrad
            tensors (another raises ``NotImplementedError``). Default: ``nbgrad.strided``.
        pin_memory (bool, optional): ``True`` asks for page-locked host memory, which
            nbgrad's copies to a GPU do not need: allowed where a CUDA GPU is, else
            PyTorch's ``RuntimeError``. Default: ``False``.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.ones(2, dtype=nbgrad.float64).new_empty_strided((2, 3), (1, 2))
        >>> x.stride(), x.dtype
        ((1, 2), nbgrad.float64)
    """
    if layout is not None or pin_memory:
        _check_options("new_empty_strided", layout, pin_memory)
    return empty_strided(size, stride, dtype=self._dtype if dtype is None else dtype,
                         device=self._device if device is None else device,
                         requires_grad=requires_grad)


def _new(self, make, size, dtype, device, requires_grad, *args):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    return make(size, *args, dtype=self._dtype if dtype is None else dtype,
                device=self._device if device is None else device, requires_grad=requires_grad)


def new_zeros(self, *size, dtype=None, device=None, requires_grad=False,
              layout=None, pin_memory=False):
    """new_zeros(*size, dtype=None, device=None, requires_grad=False) -> Tensor

    A tensor of the shape ``size`` filled with zeros, of this tensor's dtype and device
    unless given.

    Args:
        *size (int or tuple of ints): the shape, as ints or as one tuple (or
            :class:`nbgrad.Size`).
        dtype (nbgrad.dtype, optional): the dtype of the tensor. Default: ``None``, this tensor's.
        device (nbgrad.device or str, optional): the device of the tensor. Default:
            ``None``, this tensor's.
        requires_grad (bool, optional): record operations on the tensor for autograd.
            Default: ``False``.
        layout (nbgrad.layout, optional): ``nbgrad.strided``, the one layout of nbgrad
            tensors (another raises ``NotImplementedError``). Default: ``nbgrad.strided``.
        pin_memory (bool, optional): ``True`` asks for page-locked host memory, which
            nbgrad's copies to a GPU do not need: allowed where a CUDA GPU is, else
            PyTorch's ``RuntimeError``. Default: ``False``.

    Example::

        >>> import nbgrad
        >>> nbgrad.ones(2, dtype=nbgrad.int32).new_zeros(2, 3).dtype
        nbgrad.int32
    """
    if layout is not None or pin_memory:
        _check_options("new_zeros", layout, pin_memory)
    # (sized as new_zeros: PyTorch's message for a negative size is not zeros')
    return _new(self, lambda s, **k: zeros(*_size(s, "new_zeros"), **k), size, dtype, device,
                requires_grad)


def new_ones(self, *size, dtype=None, device=None, requires_grad=False,
             layout=None, pin_memory=False):
    """new_ones(*size, dtype=None, device=None, requires_grad=False) -> Tensor

    A tensor of the shape ``size`` filled with ones, of this tensor's dtype and device
    unless given.

    Args:
        *size (int or tuple of ints): the shape, as ints or as one tuple (or
            :class:`nbgrad.Size`).
        dtype (nbgrad.dtype, optional): the dtype of the tensor. Default: ``None``, this tensor's.
        device (nbgrad.device or str, optional): the device of the tensor. Default:
            ``None``, this tensor's.
        requires_grad (bool, optional): record operations on the tensor for autograd.
            Default: ``False``.
        layout (nbgrad.layout, optional): ``nbgrad.strided``, the one layout of nbgrad
            tensors (another raises ``NotImplementedError``). Default: ``nbgrad.strided``.
        pin_memory (bool, optional): ``True`` asks for page-locked host memory, which
            nbgrad's copies to a GPU do not need: allowed where a CUDA GPU is, else
            PyTorch's ``RuntimeError``. Default: ``False``.

    Example::

        >>> import nbgrad
        >>> nbgrad.tensor([1, 2]).new_ones(2, 2)
        tensor([[1, 1],
                [1, 1]])
    """
    if layout is not None or pin_memory:
        _check_options("new_ones", layout, pin_memory)
    return _new(self, lambda s, **k: ones(*s, **k), size, dtype, device, requires_grad)


def new_empty(self, *size, dtype=None, device=None, requires_grad=False,
              layout=None, pin_memory=False):
    """new_empty(*size, dtype=None, device=None, requires_grad=False) -> Tensor

    A tensor of the shape ``size`` whose elements are not initialized, of this tensor's
    dtype and device unless given.

    Args:
        *size (int or tuple of ints): the shape, as ints or as one tuple (or
            :class:`nbgrad.Size`).
        dtype (nbgrad.dtype, optional): the dtype of the tensor. Default: ``None``, this tensor's.
        device (nbgrad.device or str, optional): the device of the tensor. Default:
            ``None``, this tensor's.
        requires_grad (bool, optional): record operations on the tensor for autograd.
            Default: ``False``.
        layout (nbgrad.layout, optional): ``nbgrad.strided``, the one layout of nbgrad
            tensors (another raises ``NotImplementedError``). Default: ``nbgrad.strided``.
        pin_memory (bool, optional): ``True`` asks for page-locked host memory, which
            nbgrad's copies to a GPU do not need: allowed where a CUDA GPU is, else
            PyTorch's ``RuntimeError``. Default: ``False``.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.zeros(1, dtype=nbgrad.float64).new_empty((2, 3))
        >>> x.shape, x.dtype
        (nbgrad.Size([2, 3]), nbgrad.float64)
    """
    if layout is not None or pin_memory:
        _check_options("new_empty", layout, pin_memory)
    return _new(self, lambda s, **k: empty(*s, **k), size, dtype, device, requires_grad)


def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False,
             layout=None, pin_memory=False):
    """new_full(size, fill_value, *, dtype=None, device=None, requires_grad=False) -> Tensor

    A tensor of the shape ``size`` filled with ``fill_value``, of this tensor's dtype and
    device unless given.

    Args:
        size (int or tuple of ints): the shape.
        fill_value (Number): the value of every element.
        dtype (nbgrad.dtype, optional): the dtype of the tensor. Default: ``None``, this tensor's.
        device (nbgrad.device or str, optional): the device of the tensor. Default:
            ``None``, this tensor's.
        requires_grad (bool, optional): record operations on the tensor for autograd.
            Default: ``False``.
        layout (nbgrad.layout, optional): ``nbgrad.strided``, the one layout of nbgrad
            tensors (another raises ``NotImplementedError``). Default: ``nbgrad.strided``.
        pin_memory (bool, optional): ``True`` asks for page-locked host memory, which
            nbgrad's copies to a GPU do not need: allowed where a CUDA GPU is, else
            PyTorch's ``RuntimeError``. Default: ``False``.

    Example::

        >>> import nbgrad
        >>> nbgrad.tensor([1.0]).new_full((2, 2), 3.5)
        tensor([[3.5000, 3.5000],
                [3.5000, 3.5000]])
    """
    if layout is not None or pin_memory:
        _check_options("new_full", layout, pin_memory)
    return _new(self, full, (size,), dtype, device, requires_grad, fill_value)


def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False):
    """new_tensor(data, *, dtype=None, device=None, requires_grad=False) -> Tensor

    A new tensor holding a copy of ``data`` (as :func:`nbgrad.tensor` makes it), of this
    tensor's dtype and device unless given.

    To copy a tensor, ``t.detach().clone()`` is the recommended spelling (this warns, as in
    PyTorch).

    Args:
        data (array_like): the data: a number, a (nested) sequence, a NumPy array.
        dtype (nbgrad.dtype, optional): the dtype of the tensor. Default: ``None``, this tensor's.
        device (nbgrad.device or str, optional): the device of the tensor. Default:
            ``None``, this tensor's.
        requires_grad (bool, optional): record operations on the tensor for autograd.
            Default: ``False``.

    Example::

        >>> import nbgrad
        >>> nbgrad.ones(1, dtype=nbgrad.int8).new_tensor([[1, 2], [3, 4]])
        tensor([[1, 2],
                [3, 4]], dtype=nbgrad.int8)
    """
    if isinstance(data, Tensor):
        warnings.warn("To copy construct from a tensor, it is recommended to use "
                      "sourceTensor.detach().clone() or "
                      "sourceTensor.detach().clone().requires_grad_(True), rather than "
                      "tensor.new_tensor(sourceTensor).", UserWarning, stacklevel=2)
        data = for_device(data._device).to_host(data._data)  # (tensor() would warn again)
    return tensor(data, dtype=self._dtype if dtype is None else dtype,
                  device=self._device if device is None else device,
                  requires_grad=requires_grad)
