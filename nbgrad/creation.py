"""Tensor creation functions, as in PyTorch."""

import numbers

import numpy as np

from . import dtypes as _dt
from .device import as_device
from .ops.registry import backend
from .tensor import Tensor, _wrap

_rng = [np.random.default_rng()]


def manual_seed(seed):
    """Seed the generator behind ``rand``, ``randn`` and dropout."""
    _rng[0] = np.random.default_rng(int(seed))


def generator():
    return _rng[0]


def _size(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    out = []
    for s in size:
        if isinstance(s, Tensor):
            s = int(s.item())
        if not isinstance(s, (int, np.integer)):
            raise TypeError(f"size must be a tuple of ints, but got an element of type {type(s).__name__}")
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(size)}")
        out.append(int(s))
    return tuple(out)


def _finish(data, dt, dev, requires_grad):
    t = _wrap(backend(dev).from_host(data) if dev.type != "cpu" else data, dt, dev)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _infer_dtype(data):
    """PyTorch's dtype for nested Python data: bool, int64, or the default float."""
    kinds = set()

    def walk(x):
        if isinstance(x, (list, tuple)):
            for y in x:
                walk(y)
        elif isinstance(x, Tensor):
            kinds.add(x._dtype._cat)
        elif isinstance(x, (bool, np.bool_)):
            kinds.add(0)
        elif isinstance(x, numbers.Integral):
            kinds.add(1)
        elif isinstance(x, numbers.Real):
            kinds.add(2)
        else:
            raise TypeError(f"Could not infer dtype of {type(x).__name__}")

    walk(data)
    if 2 in kinds:
        return _dt.get_default_dtype()
    if 1 in kinds:
        return _dt.int64
    if 0 in kinds:
        return _dt.bool_
    return _dt.get_default_dtype()


def tensor(data, dtype=None, device=None, requires_grad=False):
    """A new tensor holding a copy of ``data`` (nested lists, numbers or an ndarray).

    >>> nbgrad.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    """
    dev = as_device(device)
    if isinstance(data, Tensor):
        arr = backend(data._device).to_host(data._data)
        dt = _dt.as_dtype(dtype) if dtype is not None else data._dtype
    elif isinstance(data, np.ndarray):
        dt = _dt.as_dtype(dtype) if dtype is not None else _dt.from_numpy_dtype(data.dtype)
        arr = data
    else:
        dt = _dt.as_dtype(dtype) if dtype is not None else _infer_dtype(data)
        if isinstance(data, (list, tuple)):
            data = _unwrap(data)
        arr = np.asarray(data)
        if arr.dtype == object:
            raise ValueError("expected a sequence of numbers with a regular (rectangular) shape")
    return _finish(np.array(arr, dtype=dt.np, copy=True), dt, dev, requires_grad)


def _unwrap(x):
    if isinstance(x, (list, tuple)):
        return [_unwrap(y) for y in x]
    if isinstance(x, Tensor):
        return backend(x._device).to_host(x._data).tolist()
    return x


def as_tensor(data, dtype=None, device=None):
    """Like ``tensor`` but shares memory with a matching ndarray or Tensor."""
    if isinstance(data, Tensor):
        return data.to(device=device or data.device, dtype=dtype or data.dtype)
    if isinstance(data, np.ndarray) and dtype is None and device in (None, "cpu"):
        return from_numpy(data)
    return tensor(data, dtype=dtype, device=device)


def from_numpy(ndarray):
    """A CPU tensor sharing memory with ``ndarray``."""
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


def _dtype_or_default(dtype):
    return _dt.as_dtype(dtype) if dtype is not None else _dt.get_default_dtype()


def _fill(size, value, dtype, device, requires_grad):
    dev = as_device(device)
    dt = _dtype_or_default(dtype)
    return _finish_dev(backend(dev).full(_size(size), value, dt.np), dt, dev, requires_grad)


def _finish_dev(data, dt, dev, requires_grad):
    t = _wrap(data, dt, dev)
    if requires_grad:
        t.requires_grad_(True)
    return t


def zeros(*size, dtype=None, device=None, requires_grad=False):
    """A tensor of zeros."""
    return _fill(size, 0, dtype, device, requires_grad)


def ones(*size, dtype=None, device=None, requires_grad=False):
    """A tensor of ones."""
    return _fill(size, 1, dtype, device, requires_grad)


def empty(*size, dtype=None, device=None, requires_grad=False):
    """An uninitialised tensor."""
    dev = as_device(device)
    dt = _dtype_or_default(dtype)
    return _finish_dev(backend(dev).empty(_size(size), dt.np), dt, dev, requires_grad)


def full(size, fill_value, *, dtype=None, device=None, requires_grad=False):
    """A tensor filled with ``fill_value`` (dtype inferred from it when not given)."""
    if dtype is None:
        dtype = _infer_dtype(fill_value)
    return _fill((size,) if isinstance(size, int) else (tuple(size),), fill_value, dtype, device, requires_grad)


def _like(t, dtype, device):
    return (dtype if dtype is not None else t._dtype), (device if device is not None else t._device)


def zeros_like(input, *, dtype=None, device=None, requires_grad=False):
    """Zeros with ``input``'s shape, dtype and device."""
    dt, dev = _like(input, dtype, device)
    return zeros(tuple(input.shape), dtype=dt, device=dev, requires_grad=requires_grad)


def ones_like(input, *, dtype=None, device=None, requires_grad=False):
    """Ones with ``input``'s shape, dtype and device."""
    dt, dev = _like(input, dtype, device)
    return ones(tuple(input.shape), dtype=dt, device=dev, requires_grad=requires_grad)


def empty_like(input, *, dtype=None, device=None, requires_grad=False):
    """Uninitialised, with ``input``'s shape, dtype and device."""
    dt, dev = _like(input, dtype, device)
    return empty(tuple(input.shape), dtype=dt, device=dev, requires_grad=requires_grad)


def full_like(input, fill_value, *, dtype=None, device=None, requires_grad=False):
    """``fill_value`` with ``input``'s shape, dtype and device."""
    dt, dev = _like(input, dtype, device)
    return full(tuple(input.shape), fill_value, dtype=dt, device=dev, requires_grad=requires_grad)


def rand(*size, dtype=None, device=None, requires_grad=False):
    """Uniform samples in [0, 1)."""
    dt = _dtype_or_default(dtype)
    if not dt.is_floating_point:
        raise RuntimeError(f'"check_uniform_bounds" not implemented for \'{dt.name}\'')
    data = _rng[0].random(_size(size), dtype=dt.np)
    return _finish(data, dt, as_device(device), requires_grad)


def randn(*size, dtype=None, device=None, requires_grad=False):
    """Standard normal samples."""
    dt = _dtype_or_default(dtype)
    if not dt.is_floating_point:
        raise RuntimeError(f'"normal_kernel_cpu" not implemented for \'{dt.name}\'')
    data = _rng[0].standard_normal(_size(size), dtype=dt.np)
    return _finish(data, dt, as_device(device), requires_grad)


def randint(low, high=None, size=(), *, dtype=None, device=None):
    """Integers uniform in [low, high)."""
    if high is None:
        low, high = 0, low
    dt = _dt.as_dtype(dtype) if dtype is not None else _dt.int64
    data = _rng[0].integers(low, high, size=_size((size,) if isinstance(size, int) else (tuple(size),))).astype(dt.np)
    return _finish(data, dt, as_device(device), False)


def rand_like(input, *, dtype=None, device=None, requires_grad=False):
    dt, dev = _like(input, dtype, device)
    return rand(tuple(input.shape), dtype=dt, device=dev, requires_grad=requires_grad)


def randn_like(input, *, dtype=None, device=None, requires_grad=False):
    dt, dev = _like(input, dtype, device)
    return randn(tuple(input.shape), dtype=dt, device=dev, requires_grad=requires_grad)


def arange(start, end=None, step=1, *, dtype=None, device=None, requires_grad=False):
    """Values from ``start`` to ``end`` (exclusive) by ``step``."""
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if dtype is None:
        dt = _infer_dtype([start, end, step])
    else:
        dt = _dt.as_dtype(dtype)
    n = max(0, int(np.ceil((end - start) / step)))
    data = (start + step * np.arange(n, dtype=np.float64 if dt.is_floating_point else np.int64)).astype(dt.np)
    return _finish(data, dt, as_device(device), requires_grad)


def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False):
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive."""
    dt = _dtype_or_default(dtype)
    data = np.linspace(start, end, int(steps)).astype(dt.np)
    return _finish(data, dt, as_device(device), requires_grad)


def eye(n, m=None, *, dtype=None, device=None, requires_grad=False):
    """An identity matrix of ``n`` rows (and ``m`` columns)."""
    dt = _dtype_or_default(dtype)
    data = np.eye(n, n if m is None else m, dtype=dt.np)
    return _finish(data, dt, as_device(device), requires_grad)
