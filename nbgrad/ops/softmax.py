"""softmax and log_softmax along a dim, and their backward steps, each one fused kernel
over the ``(A, R, B)`` layout (``dim`` in the middle); the backward steps are ops with
their own nodes, so double backward works."""

import math

from ..tensor import _wrap
from ._core import (
    Node,
    Tensor,
    backend,
    contiguous_data,
    kernel,
    needs_grad,
    record,
    save,
    save_output,
)
from .elementwise import exp, mul, neg, sub
from .reduce import sum as _sum
from .shape import _wrap_dim


def _arb_view(x, dim):
    """Storage of ``x`` as a C-contiguous ``(A, R, B)`` array with ``dim`` in the middle."""
    d = contiguous_data(x)
    shape = d.shape
    return d.reshape(math.prod(shape[:dim]), shape[dim] if shape else 1, math.prod(shape[dim + 1:]))


def _float_input(x, op):
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): argument 'input' must be Tensor, not {type(x).__name__}")
    if not x._dtype.is_floating_point:
        raise RuntimeError(f'"{op}_lastdim_kernel_impl" not implemented for \'{x._dtype.name}\'; use a floating-point tensor')
    return x


def _fused(kname, x, dim):
    dev = x._device
    out = backend(dev).empty(tuple(x.shape), x._dtype.np)
    if out.size:
        kernel(kname, dev)(_arb_view(x, dim), out.reshape(_arb_view(x, dim).shape))
    return _wrap(out, x._dtype, dev)


def _fused2(kname, g, y, dim):
    dev = g._device
    if g._dtype is not y._dtype:
        g = g.to(y._dtype)
    out = backend(dev).empty(tuple(y.shape), y._dtype.np)
    if out.size:
        yv = _arb_view(y, dim)
        kernel(kname, dev)(_arb_view(g, dim), yv, out.reshape(yv.shape))
    return _wrap(out, y._dtype, dev)


def _dim(x, dim, op="softmax"):
    if dim is None:
        # PyTorch's legacy implicit dim (deprecated there, with this warning)
        import warnings

        warnings.warn(f"Implicit dimension choice for {op} has been deprecated. Change the call "
                      "to include dim=X as an argument.", UserWarning, stacklevel=3)
        dim = 0 if x.ndim in (0, 1, 3) else 1
    return _wrap_dim(dim, x.ndim) if x.ndim else 0


class LogSoftmaxBackward0(Node):
    __slots__ = ()

    def backward(self, saved, g):
        (y,) = saved
        return (log_softmax_backward(g, y, self.attrs),)


def log_softmax(input, dim=None, dtype=None):
    """``log(softmax(input))`` along ``dim``, computed stably in one pass."""
    x = _float_input(input if dtype is None else input.to(dtype), "log_softmax")
    d = _dim(x, dim, "log_softmax")
    out = _fused("log_softmax", x, d)
    if needs_grad(x):
        record(LogSoftmaxBackward0, out, (x,), (save_output(out),), d)
    return out


class LogSoftmaxBackwardBackward0(Node):
    __slots__ = ()

    def backward(self, saved, gg):
        g, y = saved
        d = self.attrs
        fg, fy = self.next_functions
        e = exp(y)
        dg = sub(gg, _sum(mul(gg, e), d, keepdim=True)) if fg[0] is not None else None
        dy = neg(mul(mul(gg, e), _sum(g, d, keepdim=True))) if fy[0] is not None else None
        return dg, dy


def log_softmax_backward(grad, output, dim):
    """``grad - exp(output) * grad.sum(dim)``: log_softmax's backward as one kernel."""
    out = _fused2("log_softmax_backward", grad, output, dim)
    if needs_grad(grad, output):
        record(LogSoftmaxBackwardBackward0, out, (grad, output), (save(grad), save(output)), dim)
    return out


class SoftmaxBackward0(Node):
    __slots__ = ()

    def backward(self, saved, g):
        (y,) = saved
        return (softmax_backward(g, y, self.attrs),)


def softmax(input, dim=None, dtype=None):
    """Softmax along ``dim``, stable for any logits."""
    x = _float_input(input if dtype is None else input.to(dtype), "softmax")
    d = _dim(x, dim)
    out = _fused("softmax", x, d)
    if needs_grad(x):
        record(SoftmaxBackward0, out, (x,), (save_output(out),), d)
    return out


class SoftmaxBackwardBackward0(Node):
    __slots__ = ()

    def backward(self, saved, gg):
        g, y = saved
        d = self.attrs
        fg, fy = self.next_functions
        dg = softmax_backward(gg, y, d) if fg[0] is not None else None
        dy = None
        if fy[0] is not None:
            s = _sum(mul(g, y), d, keepdim=True)
            dy = sub(mul(gg, sub(g, s)), mul(g, _sum(mul(gg, y), d, keepdim=True)))
        return dg, dy


def softmax_backward(grad, output, dim):
    """``output * (grad - (grad * output).sum(dim))``: softmax's backward as one kernel."""
    out = _fused2("softmax_backward", grad, output, dim)
    if needs_grad(grad, output):
        record(SoftmaxBackwardBackward0, out, (grad, output), (save(grad), save(output)), dim)
    return out

