"""Copies across dtypes and devices: ``to``, ``clone``."""

from .. import dtypes as _dt
from ..device import as_device
from ..device import device as _device_cls
from ..memory_formats import dim_order, is_contiguous_as, ordered, preserve_format
from ..storage.layout import copy_data
from ._core import Tensor, backend
from .funcdef import deffunc, same_dtype, same_shape, surface


def _copy_ordered(x, odt, dev, order):
    """A copy of array ``x`` as dtype ``odt``: row-major, or with its dims in memory in
    ``order`` (a memory format's)."""
    if order is None:
        return copy_data(x, odt, dev)
    return copy_data(x, odt, dev, out=ordered(backend(dev), x.shape, odt.np, order))


CLONE = deffunc("clone", kernels=("copy",), forward=_copy_ordered, args=("order",),
                dtype=same_dtype, shape=same_shape, grads=("grad",), fn=False,
                method=False)


@surface(CLONE)
def clone(input, *, memory_format=preserve_format):
    """A copy of ``input`` with its own storage; gradients flow back to ``input``.

    Args:
        input (Tensor): the tensor to copy.
        memory_format (nbgrad.memory_format, optional): the copy's layout in memory:
            ``preserve_format`` (the default) keeps a channels-last input channels-last and
            makes any other copy row-major; ``contiguous_format``, ``channels_last`` or
            ``channels_last_3d`` choose it.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([1.0, 2.0], requires_grad=True)
        >>> y = x.clone()
        >>> y.sum().backward(); x.grad
        tensor([1., 1.])
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"clone(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    return CLONE.call(input, dim_order(input, memory_format, "clone"))


def _to_copy_forward(x, odt, dev, dtype, device, order):
    if device == dev:
        return _copy_ordered(x, odt, dev, order)
    host = backend(dev).to_host(x)
    if host.dtype != odt.np:
        host = host.astype(odt.np)
    out = backend(device).from_host(host.copy() if host is x else host)
    return out if order is None else _copy_ordered(out, odt, device, order)


# (a copy to another dtype or device: its output's device is the argument ``device``)
TO_COPY = deffunc("to", kernels=("copy",), forward=_to_copy_forward, node="ToCopyBackward0",
                  dtype=lambda dt, dtype, device, order: dtype, shape=same_shape,
                  args=("dtype", "device", "order"), device="device",
                  grads=("to(grad, device=input_device, dtype=input_dtype)",), fn=False,
                  method=False)


def _parse(args, kwargs):
    dev = kwargs.pop("device", None)
    dt = kwargs.pop("dtype", None)
    copy = kwargs.pop("copy", False)
    kwargs.pop("non_blocking", None)
    fmt = kwargs.pop("memory_format", preserve_format)
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
    return ((None if dev is None else as_device(dev)), (None if dt is None else _dt.as_dtype(dt)),
            copy, fmt)


@surface(TO_COPY)
def to(input, *args, **kwargs):
    """``input`` on another device and/or dtype; returns ``input`` when nothing changes."""
    dev, dt, copy, fmt = _parse(args, dict(kwargs))
    dev = dev or input._device
    dt = dt or input._dtype
    if (dev == input._device and dt is input._dtype and not copy
            and (fmt is preserve_format or is_contiguous_as(tuple(input.shape), input.stride(), fmt))):
        return input
    return TO_COPY.call(input, dt, dev, dim_order(input, fmt, "to"))
