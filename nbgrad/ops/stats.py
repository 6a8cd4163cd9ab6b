"""Statistics over dims: var, std, var_mean, std_mean.

One Numba kernel per op (``var`` in kernels/{cpu,cuda}/reduce.py) over the ``(A, R, B)``
layout of ops/reduce.py, accumulating in float64 in two passes; the backward rules are
written with nbgrad ops, so gradients are differentiable again.
"""

import math

from ..tensor import _wrap
from ._core import (
    Node,
    backend,
    check_tensor,
    kernel,
    needs_grad,
    record,
    save,
    save_output,
)
from .elementwise import _unary, div, eq, mul, sub, where
from .reduce import _arb, _dims, _numel, _out_shape, _restore, mean

__all__ = ["var", "std", "var_mean", "std_mean"]


def _correction(op, dim, unbiased, correction):
    """PyTorch's two spellings: ``unbiased`` (bool, also as a bool ``dim``) or ``correction``."""
    if isinstance(dim, bool):
        if unbiased is not None:
            raise TypeError(f"{op}() received an invalid combination of arguments")
        dim, unbiased = None, dim
    if unbiased is not None and correction is not None:
        raise TypeError(
            f"{op}() received an invalid combination of arguments - got both 'unbiased' and "
            "'correction'"
        )
    if correction is None:
        correction = 0 if unbiased is False else 1
    return dim, correction


def _var_data(input, dims, keepdim, correction):
    dev = input._device
    x3, A, B = _arb(input._data, dims, dev)
    out = backend(dev).empty((A, B), input._dtype.np)
    kernel("var", dev)(x3, out, correction)
    return out.reshape(_out_shape(input._data.shape, dims, keepdim))


def _var_grad(g, x, dims, n, correction):
    """``g * 2 (x - mean) / (n - correction)``; ``g`` already has the keepdim shape."""
    dof = n - correction
    scale = 2.0 / dof if dof != 0 else math.inf
    return mul(mul(g, sub(x, mean(x, dims, keepdim=True))), scale)


class VarBackward0(Node):
    __slots__ = ()

    def backward(self, saved, g):
        (x,) = saved
        shape, dims, keepdim, n, c = self.attrs
        return (_var_grad(_restore(g, shape, dims, keepdim), x, dims, n, c),)


class StdBackward0(Node):
    """Through ``var``'s rule with ``g / (2 std)``; 0 where std is 0, as PyTorch."""

    __slots__ = ()

    def backward(self, saved, g):
        x, y = saved
        shape, dims, keepdim, n, c = self.attrs
        g = _restore(g, shape, dims, keepdim)
        y = _restore(y, shape, dims, keepdim)
        zero = eq(y, 0)
        gv = where(zero, 0.0, div(g, mul(where(zero, 1.0, y), 2.0)))
        return (_var_grad(gv, x, dims, n, c),)


def _var_std(op, input, dim, unbiased, keepdim, correction):
    check_tensor(input, op)
    dim, c = _correction(op, dim, unbiased, correction)
    if not input._dtype.is_floating_point:
        raise RuntimeError("std and var only support floating point and complex dtypes")
    dims = _dims(dim, input.ndim)
    n = _numel(input._data.shape, dims)
    data = _var_data(input, dims, keepdim, c)
    out = _wrap(data, input._dtype, input._device)
    return out, dims, n, c


def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Variance over ``dim`` (int or tuple; all dims when None) with ``n - correction``
    degrees of freedom (``correction=1`` by default; ``unbiased=False`` means 0).
    Accumulates in float64 in two passes."""
    out, dims, n, c = _var_std("var", input, dim, unbiased, keepdim, correction)
    if needs_grad(input):
        record(VarBackward0, out, (input,), (save(input),), (tuple(input.shape), dims, keepdim, n, c))
    return out


def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Standard deviation: ``sqrt(var(...))`` with the same arguments. Its gradient is 0
    where the result is 0 (PyTorch's choice)."""
    v, dims, n, c = _var_std("std", input, dim, unbiased, keepdim, correction)
    out = _unary("sqrt", v, True)
    if needs_grad(input):
        record(StdBackward0, out, (input,), (save(input), save_output(out)),
               (tuple(input.shape), dims, keepdim, n, c))
    return out


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """``(var(input, ...), mean(input, ...))`` over the same dims."""
    d = None if isinstance(dim, bool) else dim
    return (var(input, dim, unbiased, keepdim, correction=correction),
            mean(input, d, keepdim))


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """``(std(input, ...), mean(input, ...))`` over the same dims."""
    d = None if isinstance(dim, bool) else dim
    return (std(input, dim, unbiased, keepdim, correction=correction),
            mean(input, d, keepdim))
