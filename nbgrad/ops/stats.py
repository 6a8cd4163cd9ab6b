"""Statistics over dims: var, std, var_mean, std_mean.

One ``deffunc`` row each (``ops/funcdef.py``): one Numba kernel (``var`` in
kernels/{cpu,cuda}/reduce.py) over the ``(A, R, B)`` layout of ops/reduce.py, accumulating
in float64 in two passes; the derivative formulas are PyTorch's (``var_backward``,
``std_backward``), written with nbgrad ops, so gradients are differentiable again.
``var_mean`` / ``std_mean`` are rows with two differentiable outputs and one node for
both (``VarMeanBackward0`` / ``StdMeanBackward0``, as PyTorch).
"""

import math
import warnings

from .. import dtypes as _dt
from ..storage.layout import copy_data
from ._core import backend, check_tensor, kernel
from .elementwise import add_grads, div, eq, mul, sub, where
from .funcdef import deffunc, surface
from .reduce import (
    _arb,
    _dims,
    _dims_shape,
    _mean_forward,
    _out_shape,
    mean,
    mean_backward,
    restore_reduced_dims,
)

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
    # the root of the float64 variance, rounded once (PyTorch's CPU kernel takes it in its
    # double accumulator; the root of a float32-rounded variance can be 1 ulp off)
    v = _var_forward(x, _dt.float64, dev, dims, correction, keepdim)
    if v.size:
        kernel("sqrt", dev)(v.reshape(-1), v.reshape(-1))  # v: fresh and C-contiguous
    return v if odt is _dt.float64 else copy_data(v, odt, dev)


def _float_dtype(idt, *args):
    if not idt.is_floating_point:
        raise RuntimeError("std and var only support floating point and complex dtypes")
    return idt


def _stat_shape(shape, dims, correction, keepdim):
    return _dims_shape(shape, dims, keepdim)


_ARGS = ("dim", "correction", "keepdim")
VAR = deffunc("var", overload="correction", kernels=("var",), forward=_var_forward,
              dtype=_float_dtype, shape=_stat_shape, args=_ARGS,
              grads=("var_backward(grad, input, dim, correction, keepdim)",))
STD = deffunc("std", overload="correction", kernels=("var", "sqrt"), forward=_std_forward,
              dtype=_float_dtype, shape=_stat_shape, args=_ARGS,
              grads=("std_backward(result, grad, input, dim, correction, keepdim)",))


def _stat_args(op, input, dim, unbiased, correction):
    """``(dims, correction)`` of a var/std call, after PyTorch's checks in its order."""
    check_tensor(input, op)
    dim, c = _correction(op, dim, unbiased, correction)
    _float_dtype(input._dtype)  # PyTorch refuses the dtype before it parses dims
    dims = _dims(dim, input.ndim)
    shape = input._meta.shape
    kept = math.prod(n for i, n in enumerate(shape) if i not in dims)
    if (math.prod(shape) // kept if kept else 0) - c <= 0:  # (PyTorch's reduction factor)
        warnings.warn(f"{op}(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the reduction factor (input numel divided by output numel).",
                      UserWarning, stacklevel=4)
    return dims, c


def _stat(row, op, input, dim, unbiased, keepdim, correction):
    dims, c = _stat_args(op, input, dim, unbiased, correction)
    return row.call(input, dims, c, keepdim)


@surface(VAR)
def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    r"""The variance of the elements of ``input``, over all of them or along ``dim``.

    .. math::
        \sigma^2 = \frac{1}{\max(0, N - \delta N)} \sum_{i=0}^{N-1} (x_i - \bar{x})^2

    where :math:`N` is the number of elements reduced, :math:`\bar{x}` their mean and
    :math:`\delta N` the ``correction``: 1 by default (the unbiased sample variance), 0
    for the population variance. The sums are accumulated in float64, in two passes.

    Args:
        input (Tensor): the input tensor, of a floating-point dtype.
        dim (int or tuple of ints, optional): the dimension or dimensions to reduce.
            Default: ``None``, all of them.
        unbiased (bool, optional): PyTorch's older spelling of ``correction``: ``True`` is
            ``correction=1``, ``False`` is ``correction=0``. Default: ``None``.
        keepdim (bool, optional): keep the reduced dimensions, with size 1. Default:
            ``False``.
        correction (int, optional): the difference between the number of elements reduced
            and the divisor (Bessel's correction). Default: ``None``, which means ``1``.

    Example::

        >>> import nbgrad
        >>> a = nbgrad.tensor([[1.0, 2.0, 3.0], [1.0, 1.0, 4.0]])
        >>> nbgrad.var(a)
        tensor(1.6000)
        >>> nbgrad.var(a, dim=1, correction=0)
        tensor([0.6667, 2.0000])
    """
    return _stat(VAR, "var", input, dim, unbiased, keepdim, correction)


@surface(STD)
def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    r"""The standard deviation of the elements of ``input``, over all of them or along
    ``dim``: the square root of :func:`nbgrad.var` with the same arguments.

    .. math::
        \sigma = \sqrt{\frac{1}{\max(0, N - \delta N)} \sum_{i=0}^{N-1} (x_i - \bar{x})^2}

    Its gradient is 0 where the result is 0 (PyTorch's choice).

    Args:
        input (Tensor): the input tensor, of a floating-point dtype.
        dim (int or tuple of ints, optional): the dimension or dimensions to reduce.
            Default: ``None``, all of them.
        unbiased (bool, optional): PyTorch's older spelling of ``correction``: ``True`` is
            ``correction=1``, ``False`` is ``correction=0``. Default: ``None``.
        keepdim (bool, optional): keep the reduced dimensions, with size 1. Default:
            ``False``.
        correction (int, optional): the difference between the number of elements reduced
            and the divisor (Bessel's correction). Default: ``None``, which means ``1``.

    Example::

        >>> import nbgrad
        >>> a = nbgrad.tensor([[1.0, 2.0, 3.0], [1.0, 1.0, 4.0]])
        >>> nbgrad.std(a)
        tensor(1.2649)
        >>> nbgrad.std(a, dim=1, keepdim=True)
        tensor([[1.0000],
                [1.7321]])
        >>> nbgrad.std(a, dim=1, unbiased=False)
        tensor([0.8165, 1.4142])
    """
    return _stat(STD, "std", input, dim, unbiased, keepdim, correction)


def _plus_mean_grad(gx, grad_mean, input, dim, keepdim):
    """``gx`` (None: none yet) plus the mean's gradient, when one came."""
    if grad_mean is None:
        return gx
    return add_grads(gx, mean_backward(grad_mean, tuple(input.shape), dim, input.numel(),
                                       keepdim))


def var_mean_backward(grad_var, grad_mean, input, dim, correction, keepdim):
    """``var_mean``'s input gradient: each output's by its own formula, summed (either
    gradient may be None)."""
    gx = None if grad_var is None else var_backward(grad_var, input, dim, correction, keepdim)
    return _plus_mean_grad(gx, grad_mean, input, dim, keepdim)


def std_mean_backward(grad_std, grad_mean, input, result, dim, correction, keepdim):
    """``std_mean``'s input gradient, as ``var_mean_backward``'s with std's formula."""
    gx = None if grad_std is None else std_backward(result, grad_std, input, dim, correction,
                                                    keepdim)
    return _plus_mean_grad(gx, grad_mean, input, dim, keepdim)


def _stat_mean_forward(stat):
    def forward(x, odts, dev, dims, correction, keepdim):
        return (stat(x, odts[0], dev, dims, correction, keepdim),
                _mean_forward(x, odts[0], dev, dims, keepdim, None))

    return forward


def _float_dtype2(idt, *args):
    dt = _float_dtype(idt)
    return dt, dt


def _stat_shape2(shape, dims, correction, keepdim):
    s = _stat_shape(shape, dims, correction, keepdim)
    return s, s


# one node for both outputs, as PyTorch's
VAR_MEAN = deffunc("var_mean", overload="correction", kernels=("var", "sum", "div"),
                   forward=_stat_mean_forward(_var_forward), dtype=_float_dtype2,
                   shape=_stat_shape2, args=_ARGS, outputs=("result0", "result1"),
                   differentiable=2, method=False,
                   grads=("var_mean_backward(grads[0], grads[1], input, dim, correction, "
                          "keepdim)",))
STD_MEAN = deffunc("std_mean", overload="correction", kernels=("var", "sqrt", "sum", "div"),
                   forward=_stat_mean_forward(_std_forward), dtype=_float_dtype2,
                   shape=_stat_shape2, args=_ARGS, outputs=("result0", "result1"),
                   differentiable=2, method=False,
                   grads=("std_mean_backward(grads[0], grads[1], input, result0, dim, "
                          "correction, keepdim)",))


@surface(VAR_MEAN)
def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """The variance and the mean of ``input`` over the same dimensions, as a tuple
    ``(var, mean)``.

    The same as ``(var(input, ...), mean(input, ...))`` with the arguments of
    :func:`nbgrad.var`, computed together, with one graph node for both.

    Args:
        input (Tensor): the input tensor, of a floating-point dtype.
        dim (int or tuple of ints, optional): the dimension or dimensions to reduce.
            Default: ``None``, all of them.
        unbiased (bool, optional): PyTorch's older spelling of ``correction``: ``True`` is
            ``correction=1``, ``False`` is ``correction=0``. Default: ``None``.
        keepdim (bool, optional): keep the reduced dimensions, with size 1. Default:
            ``False``.
        correction (int, optional): the difference between the number of elements reduced
            and the divisor (Bessel's correction). Default: ``None``, which means ``1``.

    Returns:
        (Tensor, Tensor): the variance and the mean.

    Example::

        >>> import nbgrad
        >>> v, m = nbgrad.var_mean(nbgrad.tensor([[1.0, 2.0], [3.0, 5.0]]), 1)
        >>> v.tolist(), m.tolist()
        ([0.5, 2.0], [1.5, 4.0])
    """
    return _stat(VAR_MEAN, "var_mean", input, dim, unbiased, keepdim, correction)


@surface(STD_MEAN)
def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """The standard deviation and the mean of ``input`` over the same dimensions, as a
    tuple ``(std, mean)``.

    The same as ``(std(input, ...), mean(input, ...))`` with the arguments of
    :func:`nbgrad.std`, computed together, with one graph node for both.

    Args:
        input (Tensor): the input tensor, of a floating-point dtype.
        dim (int or tuple of ints, optional): the dimension or dimensions to reduce.
            Default: ``None``, all of them.
        unbiased (bool, optional): PyTorch's older spelling of ``correction``: ``True`` is
            ``correction=1``, ``False`` is ``correction=0``. Default: ``None``.
        keepdim (bool, optional): keep the reduced dimensions, with size 1. Default:
            ``False``.
        correction (int, optional): the difference between the number of elements reduced
            and the divisor (Bessel's correction). Default: ``None``, which means ``1``.

    Returns:
        (Tensor, Tensor): the standard deviation and the mean.

    Example::

        >>> import nbgrad
        >>> s, m = nbgrad.std_mean(nbgrad.tensor([[1.0, 3.0], [2.0, 2.0]]), dim=1)
        >>> s, m
        (tensor([1.4142, 0.0000]), tensor([2., 2.]))
    """
    return _stat(STD_MEAN, "std_mean", input, dim, unbiased, keepdim, correction)


# ----- covariance and correlation of variables (rows) over observations (columns) ------
def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance matrix of the variables in the rows of ``input``, whose columns are
    the observations (NumPy's ``cov`` and PyTorch's).

    A 2-d input of ``V`` rows gives a ``(V, V)`` matrix; a 1-d input is one variable, and
    gives its variance as a 0-dim tensor. The observations may be weighted: by integer
    frequencies ``fweights``, by importance weights ``aweights``, or both (their product).

    Args:
        input (Tensor): the variables, one per row (or a 1-d tensor: one variable).
        correction (int, optional): the difference between the (weighted) number of
            observations and the divisor: 1 for the unbiased estimate, 0 for the
            maximum-likelihood one. Default: ``1``.
        fweights (Tensor, optional): a 1-d integer tensor of how many times each
            observation counts. Default: ``None``.
        aweights (Tensor, optional): a 1-d floating-point tensor of the observations'
            weights. Default: ``None``.

    Example::

        >>> import nbgrad
        >>> nbgrad.cov(nbgrad.tensor([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]]))
        tensor([[ 1., -1.],
                [-1.,  1.]])
    """
    import warnings

    from .linalg import matmul
    from .reduce import sum as _sum
    from .shape import reshape, squeeze, transpose, unsqueeze

    check_tensor(input, "cov")
    if input.ndim > 2:
        raise RuntimeError("cov(): expected input to have two or fewer dimensions but got an "
                           f"input with {input.ndim} dimensions")
    if input.dtype.name == "bool":
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = reshape(input, (1, -1)) if input.ndim < 2 else input
    n = x.shape[1]
    w = None
    if fweights is not None:
        if fweights.ndim > 1 or fweights.dtype.is_floating_point:
            raise RuntimeError("cov(): expected fweights to have one or fewer dimensions "
                               "and an integral dtype")
        w = fweights
    if aweights is not None:
        if aweights.ndim > 1 or not aweights.dtype.is_floating_point:
            raise RuntimeError("cov(): expected aweights to have one or fewer dimensions "
                               "and a floating point dtype")
        w = aweights if w is None else mul(w, aweights)
    if w is not None and tuple(w.shape) != (n,):
        raise RuntimeError(f"cov(): expected weights to have the same number of elements as "
                           f"the number of observations ({n}) but got {w.numel()}")
    w_sum = w.sum() if w is not None else float(n)
    if w is not None and bool(eq(w_sum, 0)):
        raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    avg = div(_sum(mul(x, w) if w is not None else x, 1), w_sum)
    if w is not None and correction != 0 and aweights is not None:
        factor = sub(w_sum, div(mul(_sum(mul(w, aweights)), correction), w_sum))
    else:
        factor = sub(w_sum, correction) if w is not None else w_sum - correction
    if float(factor) <= 0:
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the number of observations.", stacklevel=2)
        factor = 0.0
    xc = sub(x, unsqueeze(avg, 1))
    c = matmul(xc, transpose(mul(xc, w) if w is not None else xc, 0, 1))
    return squeeze(div(c, factor))


def corrcoef(input):
    r"""Pearson's correlation coefficients of the variables in the rows of ``input``,
    whose columns are the observations (NumPy's ``corrcoef``).

    .. math::
        R_{ij} = \frac{C_{ij}}{\sqrt{C_{ii} C_{jj}}}

    where :math:`C` is :func:`nbgrad.cov` of ``input``; the values are clipped to
    ``[-1, 1]``.

    Args:
        input (Tensor): the variables, one per row (or a 1-d tensor: one variable).

    Example::

        >>> import nbgrad
        >>> nbgrad.corrcoef(nbgrad.tensor([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]]))
        tensor([[ 1., -1.],
                [-1.,  1.]])
    """
    from .elementwise import clamp, sqrt
    from .shape import reshape
    from .strided import diagonal

    c = cov(input)
    if c.ndim == 0:
        return div(c, c)
    sd = sqrt(diagonal(c))
    c = div(div(c, reshape(sd, (-1, 1))), reshape(sd, (1, -1)))
    return clamp(c, -1, 1)
