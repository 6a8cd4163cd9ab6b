"""Statistics over dims: var, std, var_mean, std_mean.

One ``defreduce`` row each (``ops/reducedef.py``): one Numba kernel (``var`` in
kernels/{cpu,cuda}/reduce.py) over the ``(A, R, B)`` layout of ops/reduce.py, accumulating
in float64 in two passes; the derivative formulas are PyTorch's (``var_backward``,
``std_backward``), written with nbgrad ops, so gradients are differentiable again.
``var_mean`` / ``std_mean`` record one node for both results (``VarMeanBackward0`` /
``StdMeanBackward0``, as PyTorch).
"""

import math

from ..autograd.grad_mode import no_grad
from ._core import (
    Node,
    backend,
    check_tensor,
    kernel,
    needs_grad,
    record_multi,
    save,
    save_output,
)
from .elementwise import add, div, eq, mul, sub, where
from .reduce import (
    _arb,
    _dims,
    _dims_shape,
    _out_shape,
    mean,
    mean_backward,
    restore_reduced_dims,
)
from .reducedef import defreduce, surface

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


# ----- derivative helpers (PyTorch's FunctionsManual), in nbgrad ops ------------------------
def var_backward(grad, input, dim, correction, keepdim):
    """``grad * 2 (x - mean) / (n - correction)`` over the reduced ``dim``."""
    n = 1
    for d in dim:
        n *= input.shape[d]
    dof = n - correction
    scale = 2.0 / dof if dof != 0 else math.inf
    g = restore_reduced_dims(grad, dim, keepdim)
    return mul(mul(g, sub(input, mean(input, dim, keepdim=True))), scale)


def std_backward(result, grad, input, dim, correction, keepdim):
    """Through ``var_backward`` with ``grad / (2 std)``; 0 where std is 0, as PyTorch."""
    g = restore_reduced_dims(grad, dim, keepdim)
    y = restore_reduced_dims(result, dim, keepdim)
    zero = eq(y, 0)
    gv = where(zero, 0.0, div(g, mul(where(zero, 1.0, y), 2.0)))
    return var_backward(gv, input, dim, correction, True)


# ----- forwards, dtype rule ------------------------------------------------------------
def _var_forward(x, odt, dev, dims, correction, keepdim):
    x3, A, B = _arb(x, dims, dev)
    out = backend(dev).empty((A, B), odt.np)
    kernel("var", dev)(x3, out, correction)
    return out.reshape(_out_shape(x.shape, dims, keepdim))


def _std_forward(x, odt, dev, dims, correction, keepdim):
    v = _var_forward(x, odt, dev, dims, correction, keepdim)
    out = backend(dev).empty(v.shape, odt.np)
    if v.size:
        kernel("sqrt", dev)(v.reshape(-1), out.reshape(-1))  # v: fresh and C-contiguous
    return out


def _float_dtype(idt, *args):
    if not idt.is_floating_point:
        raise RuntimeError("std and var only support floating point and complex dtypes")
    return idt


def _stat_shape(shape, dims, correction, keepdim):
    return _dims_shape(shape, dims, keepdim)


_ARGS = ("dim", "correction", "keepdim")
VAR = defreduce("var", overload="correction", kernels=("var",), forward=_var_forward,
                dtype=_float_dtype, shape=_stat_shape, args=_ARGS,
                grads=("var_backward(grad, input, dim, correction, keepdim)",))
STD = defreduce("std", overload="correction", kernels=("var", "sqrt"), forward=_std_forward,
                dtype=_float_dtype, shape=_stat_shape, args=_ARGS,
                grads=("std_backward(result, grad, input, dim, correction, keepdim)",))


def _stat_args(op, input, dim, unbiased, correction):
    """``(dims, correction)`` of a var/std call, after PyTorch's checks in its order."""
    check_tensor(input, op)
    dim, c = _correction(op, dim, unbiased, correction)
    _float_dtype(input._dtype)  # PyTorch refuses the dtype before it parses dims
    return _dims(dim, input.ndim), c


def _stat(row, op, input, dim, unbiased, keepdim, correction):
    dims, c = _stat_args(op, input, dim, unbiased, correction)
    return row.call(input, dims, c, keepdim)


@surface(VAR)
def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Variance over ``dim`` (int or tuple; all dims when None) with ``n - correction``
    degrees of freedom (``correction=1`` by default; ``unbiased=False`` means 0).
    Accumulates in float64 in two passes."""
    return _stat(VAR, "var", input, dim, unbiased, keepdim, correction)


@surface(STD)
def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Standard deviation: ``sqrt(var(...))`` with the same arguments. Its gradient is 0
    where the result is 0 (PyTorch's choice)."""
    return _stat(STD, "std", input, dim, unbiased, keepdim, correction)


class VarMeanBackward0(Node):
    """Backward of ``var_mean`` / ``std_mean``: one node for both outputs (as PyTorch's),
    each output's gradient by its own formula, summed."""

    __slots__ = ()
    materialize_grads = False

    def backward(self, saved, g_stat, g_mean):
        x, result = saved
        dims, correction, keepdim, is_std = self.attrs
        gx = None
        if g_stat is not None:
            gx = (std_backward(result, g_stat, x, dims, correction, keepdim) if is_std
                  else var_backward(g_stat, x, dims, correction, keepdim))
        if g_mean is not None:
            gm = mean_backward(g_mean, tuple(x.shape), dims, x.numel(), keepdim)
            gx = gm if gx is None else add(gx, gm)
        return (gx,)


class StdMeanBackward0(VarMeanBackward0):
    __slots__ = ()


def _stat_mean(row, op, input, dim, unbiased, keepdim, correction):
    """``(row's statistic, mean)`` over the same dims, recorded as one node."""
    dims, c = _stat_args(op, input, dim, unbiased, correction)
    with no_grad():
        stat = row.call(input, dims, c, keepdim)
        m = mean(input, dims, keepdim)
    if needs_grad(input):
        is_std = row is STD
        record_multi(StdMeanBackward0 if is_std else VarMeanBackward0, [stat, m], (input,),
                     (save(input), save_output(stat) if is_std else None),
                     (dims, c, keepdim, is_std))
    return stat, m


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """``(var(input, ...), mean(input, ...))`` over the same dims, one graph node for both
    (``VarMeanBackward0``).

    Example::

        >>> v, m = nbgrad.var_mean(nbgrad.tensor([[1.0, 2.0], [3.0, 5.0]]), 1)
        >>> v.tolist(), m.tolist()
        ([0.5, 2.0], [1.5, 4.0])
    """
    return _stat_mean(VAR, "var_mean", input, dim, unbiased, keepdim, correction)


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """``(std(input, ...), mean(input, ...))`` over the same dims, one graph node for both
    (``StdMeanBackward0``)."""
    return _stat_mean(STD, "std_mean", input, dim, unbiased, keepdim, correction)
