"""Copies across dtypes and devices: ``to``, ``clone``."""

from .. import dtypes as _dt
from ..device import as_device
from ..device import device as _device_cls
from ..storage.layout import copy_data
from ._core import Tensor, backend
from .funcdef import deffunc, same_dtype, same_shape, surface

CLONE = deffunc("clone", kernels=("copy",), forward=lambda x, odt, dev: copy_data(x, odt, dev),
                dtype=same_dtype, shape=same_shape, grads=("grad",), fn=False,
                method=False)


@surface(CLONE)
def clone(input):
    """A copy with its own storage; gradients flow back to ``input``."""
    return CLONE.call(input)


def _to_copy_forward(x, odt, dev, dtype, device):
    if device == dev:
        return copy_data(x, odt, dev)
    host = backend(dev).to_host(x)
    if host.dtype != odt.np:
        host = host.astype(odt.np)
    return backend(device).from_host(host.copy() if host is x else host)


# (a copy to another dtype or device: its output's device is the argument ``device``)
TO_COPY = deffunc("to", kernels=("copy",), forward=_to_copy_forward, node="ToCopyBackward0",
                  dtype=lambda dt, dtype, device: dtype, shape=same_shape,
                  args=("dtype", "device"), device="device",
                  grads=("to(grad, device=input_device, dtype=input_dtype)",), fn=False,
                  method=False)


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


@surface(TO_COPY)
def to(input, *args, **kwargs):
    """``input`` on another device and/or dtype; returns ``input`` when nothing changes."""
    dev, dt, copy = _parse(args, dict(kwargs))
    dev = dev or input._device
    dt = dt or input._dtype
    if dev == input._device and dt is input._dtype and not copy:
        return input
    return TO_COPY.call(input, dt, dev)
