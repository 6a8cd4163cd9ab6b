"""Copies across dtypes and devices: ``to``, ``clone``."""

from .. import dtypes as _dt
from ..device import as_device
from ..device import device as _device_cls
from ..storage.layout import copy_data
from ..tensor import _wrap
from ._core import Node, Tensor, backend, needs_grad, record, small_key


class ToCopyBackward0(Node):
    __slots__ = ()

    def backward(self, saved, g):
        dt, dev = self.attrs
        return (to(g, device=dev, dtype=dt),)


class CloneBackward0(Node):
    __slots__ = ()

    def backward(self, saved, g):
        return (g,)


def clone(input):
    """A copy with its own storage; gradients flow back to ``input``."""
    sk = input._sk
    if sk is None:
        sk = small_key(input)
    if sk:  # small and contiguous: NumPy's copy, without a kernel dispatch
        out = _wrap(input._data.copy(), sk.dt, input._device)
        out._sk = sk
    else:
        out = _wrap(copy_data(input._data, input._dtype, input._device), input._dtype,
                    input._device)
    if needs_grad(input):
        record(CloneBackward0, out, (input,))
    return out


def _parse(args, kwargs):
    dev = kwargs.pop("device", None)
    dt = kwargs.pop("dtype", None)
    copy = kwargs.pop("copy", False)
    kwargs.pop("non_blocking", None)
    if kwargs:
        raise TypeError(f"to() got unexpected keyword arguments {sorted(kwargs)}")
    for a in args:
        if isinstance(a, Tensor):
            dev, dt = a._device, a._dtype
        elif isinstance(a, (str, _device_cls, int)) and not isinstance(a, bool):
            if isinstance(a, str) and a in _dt._NAMES and a not in ("cpu", "cuda"):
                dt = _dt.as_dtype(a)
            else:
                dev = a  # as_device reads an int as a CUDA index (and rejects a negative one)
        elif a is None:
            continue
        else:
            dt = a
    return (None if dev is None else as_device(dev)), (None if dt is None else _dt.as_dtype(dt)), copy


def to(input, *args, **kwargs):
    """``input`` on another device and/or dtype; returns ``input`` when nothing changes."""
    dev, dt, copy = _parse(args, dict(kwargs))
    dev = dev or input._device
    dt = dt or input._dtype
    if dev == input._device and dt is input._dtype and not copy:
        return input
    if dev == input._device:
        data = copy_data(input._data, dt, dev)
    else:
        host = backend(input._device).to_host(input._data)
        if host.dtype != dt.np:
            host = host.astype(dt.np)
        data = backend(dev).from_host(host.copy() if host is input._data else host)
    out = _wrap(data, dt, dev)
    if needs_grad(input) and dt.is_floating_point:
        record(ToCopyBackward0, out, (input,), (), (input._dtype, input._device))
    return out
