"""Arithmetic PyTorch names as single functions, composed of ops with rows (so each is
differentiable through its parts, on every device): ``addmm addmv addbmm baddbmm addcmul
addcdiv lerp hypot logaddexp logaddexp2 xlogy logit sinc nan_to_num nansum nanmean diff
cross kron tensordot cdist count_nonzero aminmax``, and the in-place ``addcmul_ addcdiv_
lerp_`` that hand-written optimizers use."""

import math

from .. import return_types as RT
from .._warnings import warn_once
from ..amp.policy import autocast_op
from ..creation import full_like, zeros_like
from ..dtypes import bool_
from ..tensor import Tensor, _wrap_dim
from ._core import check_tensor
from .comparison import isinf, isnan
from .concat import cat, stack
from .elementwise import (
    abs,
    exp,
    log,
    log1p,
    maximum,
    refuse_integers,
    sin,
    sqrt,
)
from .linalg import _matmul, matmul
from .selection import where


def _scaled(x, s):
    return x if s == 1 else x * s


def _types(*ts):
    return tuple(t.dtype.scalar_type for t in ts)


def _addmm_dtypes(input, mat1, mat2):
    # (PyTorch's checks, in its order: no promotion between the three)
    if mat1.dtype is not mat2.dtype:
        raise RuntimeError("mat1 and mat2 must have the same dtype, but got %s and %s"
                           % _types(mat1, mat2))
    if input.dtype is not mat2.dtype:
        raise RuntimeError("self and mat2 must have the same dtype, but got %s and %s"
                           % _types(input, mat2))


def _product_sum(input, mat1, mat2, beta, alpha):
    # (the plain matmul: each public front applies its own autocast policy)
    prod = _matmul(mat1, mat2)
    return _scaled(input, beta) + _scaled(prod, alpha) if beta else _scaled(prod, alpha)


@autocast_op("addmm")
def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """Matrix product added to a matrix: ``beta * input + alpha * (mat1 @ mat2)``.

    ``input`` broadcasts to the shape of the product. When ``beta`` is 0, ``input`` is
    ignored (its NaNs and infinities do not reach the result). The three tensors must have the
    same dtype.

    Args:
        input (Tensor): the matrix added, broadcastable to :math:`(n, p)`.
        mat1 (Tensor): the first matrix of the product, of shape :math:`(n, m)`.
        mat2 (Tensor): the second matrix, of shape :math:`(m, p)`.
        beta (Number, optional): the multiplier of ``input``. Default: ``1``.
        alpha (Number, optional): the multiplier of the product. Default: ``1``.

    Returns:
        Tensor: a matrix of shape :math:`(n, p)`.

    Example::

        >>> import nbgrad
        >>> mat1 = nbgrad.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> nbgrad.addmm(nbgrad.ones(2, 2), mat1, nbgrad.eye(2))
        tensor([[2., 3.],
                [4., 5.]])
        >>> nbgrad.addmm(nbgrad.ones(2), mat1, nbgrad.eye(2), beta=0.5, alpha=2)
        tensor([[2.5000, 4.5000],
                [6.5000, 8.5000]])
    """
    _addmm_dtypes(input, mat1, mat2)
    return _product_sum(input, mat1, mat2, beta, alpha)


@autocast_op("addmv")
def addmv(input, mat, vec, *, beta=1, alpha=1):
    """Matrix-vector product added to a vector: ``beta * input + alpha * (mat @ vec)``.

    ``input`` broadcasts to the shape of the product; when ``beta`` is 0 it is ignored (its
    NaNs and infinities do not reach the result). The three tensors must have the same dtype.

    Args:
        input (Tensor): the vector added, broadcastable to :math:`(n)`.
        mat (Tensor): the matrix, of shape :math:`(n, m)`.
        vec (Tensor): the vector, of shape :math:`(m)`.
        beta (Number, optional): the multiplier of ``input``. Default: ``1``.
        alpha (Number, optional): the multiplier of the product. Default: ``1``.

    Returns:
        Tensor: a vector of shape :math:`(n)`.

    Example::

        >>> import nbgrad
        >>> mat = nbgrad.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> nbgrad.addmv(nbgrad.tensor([10.0, 20.0]), mat, nbgrad.tensor([1.0, 1.0]))
        tensor([13., 27.])
        >>> nbgrad.addmv(nbgrad.tensor([10.0, 20.0]), mat, nbgrad.tensor([1.0, 1.0]), beta=0)
        tensor([3., 7.])
    """
    if not input.dtype is mat.dtype is vec.dtype:
        raise RuntimeError("addmv input tensors must have the same dtype, but got %s, %s, "
                           "and %s" % _types(input, mat, vec))
    return _product_sum(input, mat, vec, beta, alpha)


@autocast_op("baddbmm")
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """Batched matrix products added to a batch: ``beta * input + alpha * (batch1 @ batch2)``.

    Each batch index ``b`` gives ``beta * input[b] + alpha * (batch1[b] @ batch2[b])``;
    ``input`` broadcasts to the shape of the products. When ``beta`` is 0, ``input`` is ignored.
    The three tensors must have the same dtype.

    Args:
        input (Tensor): the tensor added, broadcastable to :math:`(b, n, p)`.
        batch1 (Tensor): the first batch of matrices, of shape :math:`(b, n, m)`.
        batch2 (Tensor): the second batch, of shape :math:`(b, m, p)`.
        beta (Number, optional): the multiplier of ``input``. Default: ``1``.
        alpha (Number, optional): the multiplier of the products. Default: ``1``.

    Returns:
        Tensor: a tensor of shape :math:`(b, n, p)`.

    Example::

        >>> import nbgrad
        >>> out = nbgrad.baddbmm(nbgrad.zeros(4, 2, 5), nbgrad.ones(4, 2, 3), nbgrad.ones(4, 3, 5))
        >>> out.shape
        nbgrad.Size([4, 2, 5])
        >>> nbgrad.baddbmm(nbgrad.ones(1, 1, 1), nbgrad.ones(1, 1, 2), nbgrad.ones(1, 2, 1),
        ...                alpha=10)
        tensor([[[21.]]])
    """
    if not input.dtype is batch1.dtype is batch2.dtype:
        names = [t.dtype.cpp for t in (input, batch1, batch2)]
        raise RuntimeError("Input dtypes must be the same, got: input %s, batch1: %s, "
                           "batch2: %s" % tuple(names))
    return _product_sum(input, batch1, batch2, beta, alpha)


@autocast_op("addbmm")
def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """Sum of batched matrix products added to a matrix:
    ``beta * input + alpha * sum_b (batch1[b] @ batch2[b])``.

    The products of the batch are summed into one matrix (compare :func:`nbgrad.baddbmm`,
    which keeps them apart). ``input`` broadcasts to the shape of that matrix; when ``beta`` is
    0 it is ignored. The three tensors must have the same dtype.

    Args:
        input (Tensor): the matrix added, broadcastable to :math:`(n, p)`.
        batch1 (Tensor): the first batch of matrices, of shape :math:`(b, n, m)`.
        batch2 (Tensor): the second batch, of shape :math:`(b, m, p)`.
        beta (Number, optional): the multiplier of ``input``. Default: ``1``.
        alpha (Number, optional): the multiplier of the summed products. Default: ``1``.

    Returns:
        Tensor: a matrix of shape :math:`(n, p)`.

    Example::

        >>> import nbgrad
        >>> nbgrad.addbmm(nbgrad.zeros(2, 2), nbgrad.ones(3, 2, 4), nbgrad.ones(3, 4, 2))
        tensor([[12., 12.],
                [12., 12.]])
    """
    _addmm_dtypes(input, batch1, batch2)
    prod = _matmul(batch1, batch2).sum(0)
    return _scaled(input, beta) + _scaled(prod, alpha) if beta else _scaled(prod, alpha)


@autocast_op("addr")
def addr(input, vec1, vec2, *, beta=1, alpha=1):
    """Outer product added to a matrix: ``beta * input + alpha * outer(vec1, vec2)``.

    ``input`` broadcasts to the shape of the outer product; when ``beta`` is 0 it is ignored.

    Args:
        input (Tensor): the matrix added, broadcastable to :math:`(n, m)`.
        vec1 (Tensor): the first vector, of size :math:`n`.
        vec2 (Tensor): the second vector, of size :math:`m`.
        beta (Number, optional): the multiplier of ``input``. Default: ``1``.
        alpha (Number, optional): the multiplier of the outer product. Default: ``1``.

    Returns:
        Tensor: a matrix of shape :math:`(n, m)`.

    Example::

        >>> import nbgrad
        >>> nbgrad.addr(nbgrad.ones(2, 2), nbgrad.tensor([1.0, 2.0]), nbgrad.tensor([3.0, 4.0]))
        tensor([[4., 5.],
                [7., 9.]])
    """
    if vec1.ndim != 1 or vec2.ndim != 1:
        raise RuntimeError(f"addr: Expected 1-D argument vec1, but got {vec1.ndim}-D"
                           if vec1.ndim != 1 else
                           f"addr: Expected 1-D argument vec2, but got {vec2.ndim}-D")
    from .linalg import outer

    prod = outer(vec1, vec2)
    return _scaled(input, beta) + _scaled(prod, alpha) if beta else _scaled(prod, alpha)


@autocast_op("addcmul")
def addcmul(input, tensor1, tensor2, *, value=1):
    """Elementwise product, scaled and added: ``input + value * tensor1 * tensor2``.

    The three tensors broadcast together.

    Args:
        input (Tensor): the tensor added to.
        tensor1 (Tensor): the first factor.
        tensor2 (Tensor): the second factor.
        value (Number, optional): the multiplier of the product. Default: ``1``.

    Example::

        >>> import nbgrad
        >>> nbgrad.addcmul(nbgrad.ones(2), nbgrad.tensor([1.0, 2.0]), nbgrad.tensor([3.0, 4.0]),
        ...                value=0.5)
        tensor([2.5000, 5.0000])
    """
    return input + _scaled(tensor1 * tensor2, value)


@autocast_op("addcdiv")
def addcdiv(input, tensor1, tensor2, *, value=1):
    """Elementwise quotient, scaled and added: ``input + value * tensor1 / tensor2``.

    The three tensors broadcast together.

    Args:
        input (Tensor): the tensor added to.
        tensor1 (Tensor): the numerator.
        tensor2 (Tensor): the denominator.
        value (Number, optional): the multiplier of the quotient. Default: ``1``.

    Example::

        >>> import nbgrad
        >>> nbgrad.addcdiv(nbgrad.zeros(2), nbgrad.tensor([1.0, 2.0]), nbgrad.tensor([4.0, 4.0]),
        ...                value=2)
        tensor([0.5000, 1.0000])
    """
    return input + _scaled(tensor1 / tensor2, value)


def _lerp_checks(input, end, weight):
    """PyTorch's: ``end`` (and a tensor ``weight``) of ``input``'s dtype, a float one."""
    for name, t in (("end", end), ("weight", weight)):
        if (isinstance(t, Tensor) and t._dtype is not input._dtype
                and (name == "end" or t.ndim)):  # (a 0-d weight is a number to PyTorch)
            raise RuntimeError(f"expected dtype {input._dtype.cpp} for `{name}` but got dtype "
                               f"{t._dtype.cpp}")
    refuse_integers(input, "lerp_kernel_tensor" if isinstance(weight, Tensor)
                    else "lerp_kernel_scalar")


def lerp(input, end, weight):
    """Linear interpolation: ``input + weight * (end - input)``, as PyTorch computes it:
    from the end nearer the weight (``end - (end - input) * (1 - weight)`` where
    ``|weight| >= 0.5``), so a weight of 1 gives ``end`` exactly.

    ``weight`` 0 gives ``input``, 1 gives ``end``; the operands broadcast together.

    Args:
        input (Tensor): the start points.
        end (Tensor): the end points.
        weight (float or Tensor): the interpolation weight(s).

    Example::

        >>> import nbgrad
        >>> start, end = nbgrad.zeros(3), nbgrad.tensor([10.0, 20.0, 30.0])
        >>> nbgrad.lerp(start, end, 0.25)
        tensor([2.5000, 5.0000, 7.5000])
        >>> nbgrad.lerp(start, end, nbgrad.tensor([0.0, 0.5, 1.0]))
        tensor([ 0., 10., 30.])
    """
    check_tensor(input, "lerp")
    _lerp_checks(input, end, weight)
    diff = end - input
    if not isinstance(weight, Tensor):
        return input + weight * diff if -0.5 < weight < 0.5 else end - diff * (1 - weight)
    return where(weight.abs() < 0.5, input + weight * diff, end - diff * (1 - weight))


def _in_place(fn, name):
    def method(self, *args, **kwargs):
        from .inplace import copy_

        check_tensor(self, name)
        return copy_(self, fn(self, *args, **kwargs))

    method.__name__ = name
    method.__doc__ = f"In-place ``{fn.__name__}``: the result written into this tensor."
    return method


addcmul_ = _in_place(addcmul, "addcmul_")
addcdiv_ = _in_place(addcdiv, "addcdiv_")
lerp_ = _in_place(lerp, "lerp_")
addmm_ = _in_place(addmm, "addmm_")
baddbmm_ = _in_place(baddbmm, "baddbmm_")
addmv_ = _in_place(addmv, "addmv_")
addbmm_ = _in_place(addbmm, "addbmm_")
addr_ = _in_place(addr, "addr_")


def hypot(input, other):
    """Hypotenuse of the right triangle of legs ``input`` and ``other``: ``sqrt(input**2 +
    other**2)``, elementwise (the operands broadcast).

    Args:
        input (Tensor): the first leg.
        other (Tensor): the second leg.

    Example::

        >>> import nbgrad
        >>> nbgrad.hypot(nbgrad.tensor([3.0, 5.0]), nbgrad.tensor([4.0, 12.0]))
        tensor([ 5., 13.])
    """
    return sqrt(input * input + other * other)


def logaddexp(input, other):
    """Logarithm of the sum of exponentials, ``log(exp(input) + exp(other))``, elementwise.

    Computed without overflow, as ``max + log1p(exp(-|input - other|))``: useful to add
    probabilities kept as logarithms.

    Args:
        input (Tensor): the first operand.
        other (Tensor): the second operand (broadcast with ``input``).

    Example::

        >>> import nbgrad
        >>> nbgrad.logaddexp(nbgrad.tensor([0.0, 1000.0]), nbgrad.tensor([0.0, 1000.0]))
        tensor([6.9315e-01, 1.0007e+03])
    """
    m = maximum(input, other)
    return _same_inf(input, other, m + log1p(exp(-abs(input - other))))


def _same_inf(input, other, r):
    # equal infinities give themselves (their difference is nan), as PyTorch's kernels
    return where(isinf(input) & (input == other), input, r)


def logaddexp2(input, other):
    """Base-2 logarithm of the sum of powers of 2, ``log2(2**input + 2**other)``, elementwise.

    Computed without overflow (see :func:`nbgrad.logaddexp`).

    Args:
        input (Tensor): the first operand.
        other (Tensor): the second operand (broadcast with ``input``).

    Example::

        >>> import nbgrad
        >>> nbgrad.logaddexp2(nbgrad.tensor([1.0, 3.0]), nbgrad.tensor([1.0, 3.0]))
        tensor([2., 4.])
    """
    m = maximum(input, other)
    return _same_inf(input, other,
                     m + log1p(exp(-abs(input - other) * math.log(2))) / math.log(2))


def xlogy(input, other):
    """``input * log(other)``, elementwise, with 0 where ``input`` is 0.

    Where ``input`` is 0 the result is 0 even if ``other`` is 0 (where ``0 * log(0)`` would be
    NaN), unless ``other`` is NaN. Either operand may be a number.

    Args:
        input (Tensor or Number): the multiplier.
        other (Tensor or Number): the argument of the logarithm.

    Example::

        >>> import nbgrad
        >>> nbgrad.xlogy(nbgrad.tensor([0.0, 1.0, 2.0]), nbgrad.tensor([0.0, 1.0, 3.0]))
        tensor([0.0000, 0.0000, 2.1972])
    """
    if not isinstance(other, Tensor):
        other = input * 0 + other
    if not isinstance(input, Tensor):
        input = other * 0 + input
    out = input * log(other)
    return where((input == 0) & ~isnan(other), zeros_like(out), out)


def logit(input, eps=None):
    """The logit (log-odds) of each element: ``log(p / (1 - p))``, the inverse of the sigmoid.

    With ``eps`` given, ``p`` is first clamped to ``[eps, 1 - eps]``, so 0 and 1 give finite
    values; without it they give ``-inf`` and ``inf``.

    Args:
        input (Tensor): the probabilities :math:`p`.
        eps (float, optional): the clamping bound. Default: ``None`` (no clamping).

    Example::

        >>> import nbgrad
        >>> p = nbgrad.tensor([0.0, 0.25, 0.5, 1.0])
        >>> nbgrad.logit(p)
        tensor([   -inf, -1.0986,  0.0000,     inf])
        >>> nbgrad.logit(p, eps=1e-6)
        tensor([-13.8155,  -1.0986,   0.0000,  13.8023])
    """
    input = as_floating(input)  # (``1 - p`` of uint8 would wrap)
    p = input if eps is None else input.clamp(eps, 1 - eps)
    return log(p / (1 - p))


def as_floating(t):
    """``t``, or an integer / bool ``t`` in the default float dtype (the math of the
    floating ops that take integers, as PyTorch's: no wrap-around on the way)."""
    from ..dtypes import get_default_dtype

    return t if t.is_floating_point() else t.to(get_default_dtype())


def sinc(input):
    """The normalized sinc function, ``sin(pi x) / (pi x)``, elementwise, with 1 at 0.

    Args:
        input (Tensor): the input :math:`x`.

    Example::

        >>> import nbgrad
        >>> nbgrad.sinc(nbgrad.tensor([0.0, 0.5, 1.0]))
        tensor([ 1.0000e+00,  6.3662e-01, -2.7828e-08])
    """
    px = input * math.pi
    one = full_like(input, 1.0)
    safe = where(input == 0, one, px)
    return where(input == 0, one, sin(safe) / safe)


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    """Replace NaN, positive infinity and negative infinity by finite numbers.

    Integer and bool tensors are returned as a copy, unchanged.

    Args:
        input (Tensor): the input.
        nan (float, optional): the value that replaces NaN. Default: ``0.0``.
        posinf (float, optional): the value that replaces ``inf``. Default: ``None`` (the
            largest finite value of ``input``'s dtype).
        neginf (float, optional): the value that replaces ``-inf``. Default: ``None`` (the
            smallest finite value of ``input``'s dtype).

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([float("nan"), float("inf"), -float("inf"), 1.5])
        >>> nbgrad.nan_to_num(x, posinf=100.0, neginf=-100.0)
        tensor([   0.0000,  100.0000, -100.0000,    1.5000])
        >>> nbgrad.nan_to_num(x)[1].item() == nbgrad.finfo(nbgrad.float32).max
        True
    """
    import numpy as np

    info = np.finfo(input.dtype.np) if input.dtype.is_floating_point else None
    if info is None:
        return input.clone()
    big = float(info.max) if posinf is None else posinf
    small = float(info.min) if neginf is None else neginf
    out = where(isnan(input), full_like(input, nan), input)
    out = where(isinf(out) & (out > 0), full_like(input, big), out)
    return where(isinf(out) & (out < 0), full_like(input, small), out)


def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """The sum of the elements, counting NaNs as 0.

    Args:
        input (Tensor): the input.
        dim (int or tuple of ints, optional): the dimension(s) to sum over. Default: ``None``
            (all of them).
        keepdim (bool, optional): whether the summed dimensions stay, of size 1. Default:
            ``False``.
        dtype (nbgrad.dtype, optional): the dtype to compute and return in. Default: ``None``
            (as :func:`nbgrad.sum`).

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([[1.0, float("nan")], [2.0, 3.0]])
        >>> nbgrad.nansum(x)
        tensor(6.)
        >>> nbgrad.nansum(x, dim=1)
        tensor([1., 5.])
    """
    x = where(isnan(input), zeros_like(input), input) if input.dtype.is_floating_point \
        else input
    return x.sum(dim, keepdim=keepdim, dtype=dtype) if dim is not None else x.sum(dtype=dtype)


def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """The mean of the elements that are not NaN.

    A slice whose elements are all NaN gives NaN.

    Args:
        input (Tensor): the input, of a floating-point dtype.
        dim (int or tuple of ints, optional): the dimension(s) to average over. Default:
            ``None`` (all of them).
        keepdim (bool, optional): whether the reduced dimensions stay, of size 1. Default:
            ``False``.
        dtype (nbgrad.dtype, optional): the dtype to compute and return in. Default: ``None``.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([[1.0, float("nan")], [2.0, 4.0]])
        >>> nbgrad.nanmean(x)
        tensor(2.3333)
        >>> nbgrad.nanmean(x, dim=1)
        tensor([1., 3.])
    """
    keep = ~isnan(input)
    total = nansum(input, dim, keepdim, dtype=dtype)
    count = keep.sum(dim, keepdim=keepdim) if dim is not None else keep.sum()
    return total / count


def diff(input, n=1, dim=-1, prepend=None, append=None):
    """The ``n``-th forward difference along a dimension: ``out[i] = input[i + 1] - input[i]``,
    applied ``n`` times.

    ``prepend`` and ``append`` are joined to ``input`` along ``dim`` first. Each application
    shortens ``dim`` by one. For bool tensors the difference is ``!=`` (exclusive or).

    Args:
        input (Tensor): the input.
        n (int, optional): how many times to take the difference. Default: ``1``.
        dim (int, optional): the dimension along which to take it. Default: ``-1``.
        prepend (Tensor, optional): values joined before ``input`` along ``dim`` (the other
            dims matching). Default: ``None``.
        append (Tensor, optional): values joined after ``input`` along ``dim``. Default:
            ``None``.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([1, 3, 6, 10])
        >>> nbgrad.diff(x)
        tensor([2, 3, 4])
        >>> nbgrad.diff(x, n=2)
        tensor([1, 1])
        >>> nbgrad.diff(x, prepend=nbgrad.tensor([0]))
        tensor([1, 2, 3, 4])
    """
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    d = _wrap_dim(dim, input.ndim)
    x = cat([t for t in (prepend, input, append) if t is not None], d) if (
        prepend is not None or append is not None) else input
    for _ in range(n):
        m = x.shape[d]
        later, earlier = x.narrow(d, 1, m - 1), x.narrow(d, 0, m - 1)
        x = later != earlier if x.dtype is bool_ else later - earlier  # (bools: xor)
    return x




@autocast_op("cross")
def cross(input, other, dim=None):
    """The cross product of 3-element vectors along a dimension.

    The operands broadcast; ``dim`` must have size 3 in both.

    Args:
        input (Tensor): the first operand.
        other (Tensor): the second operand.
        dim (int, optional): the dimension holding the vectors. Default: ``None``: the first
            dimension of size 3, with PyTorch's warning (once) that this default is
            deprecated.

    Example::

        >>> import nbgrad
        >>> nbgrad.cross(nbgrad.tensor([1.0, 0.0, 0.0]), nbgrad.tensor([0.0, 1.0, 0.0]))
        tensor([0., 0., 1.])
        >>> nbgrad.cross(nbgrad.eye(3), nbgrad.ones(3, 3), dim=1)
        tensor([[ 0., -1.,  1.],
                [ 1.,  0., -1.],
                [-1.,  1.,  0.]])
    """
    if dim is None:
        warn_once("cross", "Using torch.cross without specifying the dim arg is deprecated.\n"
                  "Please either pass the dim explicitly or simply use torch.linalg.cross.\n"
                  "The default value of dim will change to agree with that of linalg.cross in "
                  "a future release.")
        dim = next(i for i, s in enumerate(input.shape) if s == 3)
    d = _wrap_dim(dim, input.ndim)
    if input.shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{input.shape[d]} and {other.shape[d]}")
    a = [input.select(d, i) for i in range(3)]
    b = [other.select(d, i) for i in range(3)]
    return stack([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                  a[0] * b[1] - a[1] * b[0]], d)


def kron(input, other):
    """The Kronecker product of two tensors.

    For matrices, each element ``input[i, j]`` is replaced by the block ``input[i, j] *
    other``. Tensors of different dimensions are padded with leading dims of size 1; the
    result has, in each dim, the product of the two sizes.

    Args:
        input (Tensor): the first operand.
        other (Tensor): the second operand.

    Example::

        >>> import nbgrad
        >>> nbgrad.kron(nbgrad.eye(2), nbgrad.tensor([[1.0, 2.0], [3.0, 4.0]]))
        tensor([[1., 2., 0., 0.],
                [3., 4., 0., 0.],
                [0., 0., 1., 2.],
                [0., 0., 3., 4.]])
        >>> nbgrad.kron(nbgrad.tensor([1, 10]), nbgrad.tensor([1, 2, 3]))
        tensor([ 1,  2,  3, 10, 20, 30])
    """
    n = max(input.ndim, other.ndim)
    a = input.reshape((1,) * (n - input.ndim) + tuple(input.shape))
    b = other.reshape((1,) * (n - other.ndim) + tuple(other.shape))
    ia = a.reshape(sum(((s, 1) for s in a.shape), ()))
    ib = b.reshape(sum(((1, s) for s in b.shape), ()))
    out = ia * ib
    return out.reshape(tuple(x * y for x, y in zip(a.shape, b.shape)))


@autocast_op("tensordot")
def tensordot(a, b, dims=2):
    """Tensor contraction: the sum of products over dims of ``a`` paired with dims of ``b``.

    With ``dims`` an integer ``d``, the last ``d`` dims of ``a`` are contracted with the first
    ``d`` of ``b``; with two lists, ``a``'s dims ``dims[0]`` with ``b``'s ``dims[1]``, in
    pairs. The result has ``a``'s remaining dims, then ``b``'s.

    Args:
        a (Tensor): the first operand.
        b (Tensor): the second operand.
        dims (int or tuple of two lists of ints, optional): the dims to contract. Default:
            ``2``.

    Example::

        >>> import nbgrad
        >>> a = nbgrad.arange(24.0).reshape(2, 3, 4)
        >>> b = nbgrad.ones(3, 4, 5)
        >>> nbgrad.tensordot(a, b, dims=2).shape
        nbgrad.Size([2, 5])
        >>> nbgrad.tensordot(a, nbgrad.ones(3, 2), dims=([1], [0])).shape
        nbgrad.Size([2, 4, 2])
        >>> nbgrad.tensordot(nbgrad.tensor([1.0, 2.0]), nbgrad.tensor([3.0, 4.0]), dims=1)
        tensor(11.)
    """
    if isinstance(dims, int):
        da, db = list(range(a.ndim - dims, a.ndim)), list(range(dims))
    else:
        da, db = ([dims[0]] if isinstance(dims[0], int) else list(dims[0]),
                  [dims[1]] if isinstance(dims[1], int) else list(dims[1]))
    da = [_wrap_dim(d, a.ndim) for d in da]
    db = [_wrap_dim(d, b.ndim) for d in db]
    fa = [d for d in range(a.ndim) if d not in da]
    fb = [d for d in range(b.ndim) if d not in db]
    k = math.prod(a.shape[d] for d in da)
    am = a.permute(*fa, *da).reshape(math.prod(a.shape[d] for d in fa), k)
    bm = b.permute(*db, *fb).reshape(k, math.prod(b.shape[d] for d in fb))
    return matmul(am, bm).reshape(tuple(a.shape[d] for d in fa) + tuple(b.shape[d] for d in fb))


@autocast_op("cdist")
def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    r"""The ``p``-norm distance between each pair of rows of two batches of row vectors.

    ``out[..., i, j]`` is the ``p``-norm of ``x1[..., i, :] - x2[..., j, :]``. The batch dims
    broadcast. nbgrad always computes the differences directly: ``compute_mode`` is accepted
    and has no effect.

    Args:
        x1 (Tensor): the first rows, of shape :math:`(*, P, M)`.
        x2 (Tensor): the second rows, of shape :math:`(*, R, M)`, of ``x1``'s dtype.
        p (float, optional): the order of the norm, in :math:`[0, \infty]`. Default: ``2.0``.
        compute_mode (str, optional): PyTorch's choice of algorithm for ``p=2``.
            Default: ``"use_mm_for_euclid_dist_if_necessary"``.

    Shape:
        - Input: x1 :math:`(*, P, M)`, x2 :math:`(*, R, M)`.
        - Output: :math:`(*, P, R)`.

    Example::

        >>> import nbgrad
        >>> x1 = nbgrad.tensor([[0.0, 0.0], [1.0, 1.0]])
        >>> x2 = nbgrad.tensor([[3.0, 4.0], [0.0, 0.0], [1.0, 0.0]])
        >>> nbgrad.cdist(x1, x2)
        tensor([[5.0000, 0.0000, 1.0000],
                [3.6056, 1.4142, 1.0000]])
        >>> nbgrad.cdist(x1, x2, p=1)
        tensor([[7., 0., 1.],
                [5., 2., 1.]])
    """
    if x1.dtype is not x2.dtype:
        raise RuntimeError("expected scalar type %s but found %s" % _types(x1, x2))
    diffs = x1.unsqueeze(-2) - x2.unsqueeze(-3)
    from .norm import linalg_vector_norm

    return linalg_vector_norm(diffs, p, -1)


def count_nonzero(input, dim=None):
    """Count the elements that are not zero.

    Args:
        input (Tensor): the input.
        dim (int or tuple of ints, optional): the dimension(s) to count along. Default:
            ``None`` (all the elements).

    Returns:
        Tensor: an int64 tensor of the counts.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([[0, 1, 2], [0, 0, 3]])
        >>> nbgrad.count_nonzero(x)
        tensor(3)
        >>> nbgrad.count_nonzero(x, dim=0)
        tensor([0, 1, 2])
    """
    nz = input != 0
    return nz.sum(dim) if dim is not None else nz.sum()


def aminmax(input, *, dim=None, keepdim=False):
    """The minimum and the maximum of a tensor, at once.

    Args:
        input (Tensor): the input.
        dim (int, optional): the dimension to reduce. Default: ``None`` (all of them).
        keepdim (bool, optional): whether the reduced dimension stays, of size 1. Default:
            ``False``.

    Returns:
        (Tensor, Tensor): a named tuple ``(min, max)``.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([[1, 5, 2], [7, 0, 3]])
        >>> nbgrad.aminmax(x)
        nbgrad.return_types.aminmax(
        min=tensor(0),
        max=tensor(7))
        >>> nbgrad.aminmax(x, dim=1).max
        tensor([5, 7])
    """
    if dim is None:
        return RT.aminmax(input.amin(), input.amax())
    return RT.aminmax(input.amin(dim, keepdim), input.amax(dim, keepdim))


@autocast_op("trace")
def trace(input):
    """The sum of the main diagonal of a matrix.

    Args:
        input (Tensor): a 2-d tensor (not necessarily square).

    Returns:
        Tensor: a 0-dim tensor.

    Example::

        >>> import nbgrad
        >>> nbgrad.trace(nbgrad.arange(9.0).reshape(3, 3))
        tensor(12.)
    """
    check_tensor(input, "trace")
    if input.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.ndim}")
    return input.diagonal().sum()


def positive(input):
    """Return ``input`` itself (the unary ``+``).

    Refused for bool tensors, as in PyTorch.

    Args:
        input (Tensor): the input, not of dtype bool.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([-1.0, 2.0])
        >>> nbgrad.positive(x) is x
        True
    """
    check_tensor(input, "positive")
    if input.dtype is bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def true_divide(input, other):
    """Division, ``input / other``: the same as :func:`nbgrad.div` with no rounding mode.

    Integer operands give the default floating-point dtype.

    Args:
        input (Tensor or Number): the dividend.
        other (Tensor or Number): the divisor (broadcast with ``input``).

    Example::

        >>> import nbgrad
        >>> nbgrad.true_divide(nbgrad.tensor([1, 2, 3]), 2)
        tensor([0.5000, 1.0000, 1.5000])
    """
    return input / other if isinstance(input, Tensor) else other.__rtruediv__(input)


def deg2rad(input):
    """Convert angles from degrees to radians, elementwise.

    Integer inputs give the default floating-point dtype.

    Args:
        input (Tensor): the angles, in degrees.

    Example::

        >>> import nbgrad
        >>> nbgrad.deg2rad(nbgrad.tensor([0.0, 90.0, 180.0]))
        tensor([0.0000, 1.5708, 3.1416])
    """
    return input * (math.pi / 180.0)


def rad2deg(input):
    """Convert angles from radians to degrees, elementwise.

    Integer inputs give the default floating-point dtype.

    Args:
        input (Tensor): the angles, in radians.

    Example::

        >>> import nbgrad
        >>> nbgrad.rad2deg(nbgrad.tensor([0.0, 3.141592653589793 / 2]))
        tensor([ 0., 90.])
    """
    return input * (180.0 / math.pi)


def float_power(input, exponent):
    """``input ** exponent``, elementwise, computed in double precision.

    Both operands are converted to float64 first, and so is the result, whatever their
    dtypes.

    Args:
        input (Tensor or Number): the base.
        exponent (Tensor or Number): the exponent (broadcast with ``input``).

    Example::

        >>> import nbgrad
        >>> nbgrad.float_power(nbgrad.tensor([1, 2, 3]), 2)
        tensor([1., 4., 9.], dtype=nbgrad.float64)
        >>> nbgrad.float_power(nbgrad.tensor([4.0]), 0.5).dtype
        nbgrad.float64
    """
    from ..dtypes import float64

    base = input.to(float64) if isinstance(input, Tensor) else float(input)
    exp_ = exponent.to(float64) if isinstance(exponent, Tensor) else float(exponent)
    return base ** exp_


def signbit(input):
    """Whether the sign bit of each element is set, as a bool tensor.

    For floating-point tensors it is set for ``-0.0`` too (where ``input < 0`` is false).

    Args:
        input (Tensor): the input.

    Example::

        >>> import nbgrad
        >>> nbgrad.signbit(nbgrad.tensor([-1.0, -0.0, 0.0, 2.0]))
        tensor([ True,  True, False, False])
    """
    check_tensor(input, "signbit")
    if not input.dtype.is_floating_point:
        return input < 0
    # (-0.0 is the zero whose reciprocal is -inf)
    return (input < 0) | ((input == 0) & ((1.0 / input) < 0))


def isneginf(input):
    """Whether each element is negative infinity, as a bool tensor.

    Args:
        input (Tensor): the input (integer tensors give all ``False``).

    Example::

        >>> import nbgrad
        >>> nbgrad.isneginf(nbgrad.tensor([-float("inf"), float("inf"), 1.0]))
        tensor([ True, False, False])
    """
    check_tensor(input, "isneginf")
    return input == -math.inf if input.dtype.is_floating_point else input != input


def isposinf(input):
    """Whether each element is positive infinity, as a bool tensor.

    Args:
        input (Tensor): the input (integer tensors give all ``False``).

    Example::

        >>> import nbgrad
        >>> nbgrad.isposinf(nbgrad.tensor([-float("inf"), float("inf"), 1.0]))
        tensor([False,  True, False])
    """
    check_tensor(input, "isposinf")
    return input == math.inf if input.dtype.is_floating_point else input != input


# ----- products, distances and sign manipulation PyTorch names ---------------------------
def inner(input, other):
    """Inner product over the last dimension of both operands.

    For 1-d tensors, the dot product. In general ``out[i..., j...] = sum_k input[i..., k] *
    other[j..., k]``: the result has ``input``'s leading dims, then ``other``'s. A 0-dim
    operand multiplies the other one instead.

    Args:
        input (Tensor): the first operand.
        other (Tensor): the second operand, whose last dim matches ``input``'s.

    Example::

        >>> import nbgrad
        >>> nbgrad.inner(nbgrad.tensor([1.0, 2.0]), nbgrad.tensor([3.0, 4.0]))
        tensor(11.)
        >>> a = nbgrad.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> nbgrad.inner(a, nbgrad.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]))
        tensor([[1., 2., 3.],
                [3., 4., 7.]])
    """
    if input.ndim == 0 or other.ndim == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but "
                           f"got shapes {list(input.shape)} and {list(other.shape)}")
    return tensordot(input, other, dims=([input.ndim - 1], [other.ndim - 1]))


def vdot(input, other):
    """The dot product of two 1-d tensors (for real tensors, the same as :func:`nbgrad.dot`).

    PyTorch's ``vdot`` conjugates the first operand; nbgrad has no complex dtypes.

    Args:
        input (Tensor): the first vector.
        other (Tensor): the second vector, of ``input``'s size and dtype.

    Example::

        >>> import nbgrad
        >>> nbgrad.vdot(nbgrad.tensor([1.0, 2.0, 3.0]), nbgrad.tensor([1.0, 0.0, -1.0]))
        tensor(-2.)
    """
    if input.ndim != 1 or other.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {other.ndim}D "
                           "tensors")
    if input.dtype is not other.dtype:
        raise RuntimeError("dot : expected both vectors to have same dtype, but found %s and %s"
                           % _types(input, other))
    return _matmul(input, other)


def dist(input, other, p=2):
    """The ``p``-norm of ``input - other`` (the two broadcast), a 0-dim tensor.

    Args:
        input (Tensor): the first operand.
        other (Tensor): the second operand.
        p (float, optional): the order of the norm. Default: ``2``.

    Example::

        >>> import nbgrad
        >>> a, b = nbgrad.tensor([0.0, 0.0]), nbgrad.tensor([3.0, 4.0])
        >>> nbgrad.dist(a, b)
        tensor(5.)
        >>> nbgrad.dist(a, b, p=1)
        tensor(7.)
        >>> nbgrad.dist(a, b, p=float("inf"))
        tensor(4.)
    """
    from .norm import linalg_vector_norm

    return linalg_vector_norm(input - other, p)


def copysign(input, other):
    """The magnitude of ``input`` with the sign of ``other``, elementwise.

    The sign is the sign bit, so ``-0.0`` in ``other`` counts as negative. Integer operands
    give the default floating-point dtype. Either operand may be a number.

    Args:
        input (Tensor or Number): the magnitudes.
        other (Tensor or Number): the signs (broadcast with ``input``).

    Example::

        >>> import nbgrad
        >>> nbgrad.copysign(nbgrad.tensor([1.0, -2.0, 3.0]), nbgrad.tensor([-1.0, 1.0, -0.0]))
        tensor([-1.,  2., -3.])
        >>> nbgrad.copysign(nbgrad.tensor([1, 2]), -1)
        tensor([-1., -2.])
    """
    from .. import dtypes as _dt
    from .dispatch import promote

    rt = promote(input, other)
    if not rt.is_floating_point:
        rt = _dt.get_default_dtype()
    x = input.to(rt) if isinstance(input, Tensor) else full_like(other, input, dtype=rt)
    if not isinstance(other, Tensor):
        other = full_like(x, other)
    mag = abs(x)
    return where(signbit(other), -mag, mag)


def heaviside(input, values):
    """The Heaviside step function: 0 where ``input < 0``, 1 where ``input > 0``, and ``values``
    where ``input`` is 0.

    The result carries no gradient.

    Args:
        input (Tensor): the input.
        values (Tensor): the values at 0, of ``input``'s dtype (broadcast with it).

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([-1.5, 0.0, 2.0])
        >>> nbgrad.heaviside(x, nbgrad.tensor([0.5]))
        tensor([0.0000, 0.5000, 1.0000])
    """
    if input.dtype is not values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different "
                           "dtypes.")
    from ..autograd.grad_mode import no_grad

    with no_grad():
        return where(input == 0, values, (input > 0).to(input.dtype))


def ldexp(input, other):
    """``input * 2 ** other``, elementwise (the operands broadcast).

    Args:
        input (Tensor): the mantissas.
        other (Tensor): the exponents.

    Example::

        >>> import nbgrad
        >>> nbgrad.ldexp(nbgrad.tensor([1.0, 3.0]), nbgrad.tensor([3, -1]))
        tensor([8.0000, 1.5000])
    """
    from .. import dtypes as _dt
    from .dispatch import promote

    rt = promote(input, other)  # (a 16-bit input stays 16-bit: the powers of 2 are exact)
    return input * (2.0 ** other).to(rt if rt.is_floating_point else _dt.get_default_dtype())


def renorm(input, p, dim, maxnorm):
    """Scale down the slices of ``input`` along ``dim`` whose ``p``-norm exceeds ``maxnorm``.

    Each slice ``input.select(dim, i)`` whose norm is above ``maxnorm`` is multiplied by
    ``maxnorm / (norm + 1e-7)`` (so its norm becomes, nearly, ``maxnorm``); the others are
    kept.

    Args:
        input (Tensor): the input.
        p (float): the order of the norm, positive.
        dim (int): the dimension whose slices are renormalized.
        maxnorm (float): the largest norm a slice keeps, at least 0.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([[3.0, 4.0], [0.3, 0.4]])
        >>> nbgrad.renorm(x, p=2, dim=0, maxnorm=1.0)
        tensor([[0.6000, 0.8000],
                [0.3000, 0.4000]])
    """
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm:g}")
    from .norm import linalg_vector_norm

    d = _wrap_dim(dim, input.ndim)
    others = tuple(i for i in range(input.ndim) if i != d)
    norms = linalg_vector_norm(input, p, others, keepdim=True)
    factor = where(norms > maxnorm, maxnorm / (norms + 1e-7), full_like(norms, 1.0))
    return input * factor


def _trapezoid_dim(y, dim, name):
    check_tensor(y, name)
    if y.dtype is bool_:
        raise RuntimeError(f"{name}: received a bool input for `y`, but bool is not supported")
    return _wrap_dim(dim, y.ndim)


def _spacing(x, y, d, name):
    """The sample points ``x`` viewed along ``y``'s dim ``d`` (a vector, or padded with
    leading ones), and their differences."""
    if x.dtype is bool_:
        raise RuntimeError(f"{name}: received a bool input for `x` or `y`, but bool is not "
                           "supported")
    if x.ndim == 1:
        if x.shape[0] != y.shape[d]:
            raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
        x = x.view(tuple(x.shape[0] if i == d else 1 for i in range(y.ndim)))
    elif x.ndim < y.ndim:
        x = x.view((1,) * (y.ndim - x.ndim) + tuple(x.shape))
    m = x.shape[d]
    return x.narrow(d, 1, m - 1) - x.narrow(d, 0, m - 1)


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """Integrate along a dimension by the trapezoidal rule.

    The samples ``y`` are taken at the points ``x`` (their spacings may vary) or, without
    ``x``, at points ``dx`` apart. The sum is ``sum_i (x[i+1] - x[i]) * (y[i] + y[i+1]) / 2``.

    Args:
        y (Tensor): the values of the function.
        x (Tensor, optional): the sample points: a vector of ``y``'s size along ``dim``, or a
            tensor that broadcasts with ``y``. Default: ``None``.
        dx (float, optional): the constant spacing, when ``x`` is not given (at most one of
            them). Default: ``None`` (a spacing of 1).
        dim (int, optional): the dimension to integrate along. Default: ``-1``.

    Returns:
        Tensor: ``y`` without the dimension ``dim``.

    Example::

        >>> import nbgrad
        >>> nbgrad.trapezoid(nbgrad.tensor([1.0, 2.0, 3.0]))
        tensor(4.)
        >>> nbgrad.trapezoid(nbgrad.tensor([1.0, 2.0, 3.0]), dx=0.5)
        tensor(2.)
        >>> nbgrad.trapezoid(nbgrad.tensor([1.0, 2.0, 3.0]), nbgrad.tensor([0.0, 1.0, 3.0]))
        tensor(6.5000)
    """
    if x is not None and dx is not None:
        raise RuntimeError("trapezoid: received both x and dx, but only one may be given")
    d = _trapezoid_dim(y, dim, "trapezoid")
    if y.shape[d] == 0:
        from ..creation import zeros

        return zeros(tuple(s for i, s in enumerate(y.shape) if i != d), dtype=y.dtype,
                     device=y.device)
    m = y.shape[d]
    if x is not None:
        pairs = y.narrow(d, 1, m - 1) + y.narrow(d, 0, m - 1)
        return (_spacing(x, y, d, "trapezoid") * pairs).sum(d) / 2.0
    dx = 1.0 if dx is None else float(dx)
    return (y.sum(d) - (y.select(d, 0) + y.select(d, -1)) * 0.5) * dx


def trapz(y, x=None, *, dx=None, dim=-1):
    """The trapezoidal rule: the older name of :func:`nbgrad.trapezoid`.

    Args:
        y (Tensor): the values of the function.
        x (Tensor, optional): the sample points. Default: ``None``.
        dx (float, optional): the constant spacing, when ``x`` is not given. Default:
            ``None`` (a spacing of 1).
        dim (int, optional): the dimension to integrate along. Default: ``-1``.

    Example::

        >>> import nbgrad
        >>> nbgrad.trapz(nbgrad.tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 1.0]]))
        tensor([4.0000, 0.5000])
    """
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running integral along a dimension by the trapezoidal rule.

    Element ``i`` of the result is :func:`nbgrad.trapezoid` of the first ``i + 2`` samples,
    so the result has one element fewer along ``dim`` than ``y``.

    Args:
        y (Tensor): the values of the function.
        x (Tensor, optional): the sample points (see :func:`nbgrad.trapezoid`). Default:
            ``None``.
        dx (float, optional): the constant spacing, when ``x`` is not given. Default:
            ``None`` (a spacing of 1).
        dim (int, optional): the dimension to integrate along. Default: ``-1``.

    Example::

        >>> import nbgrad
        >>> nbgrad.cumulative_trapezoid(nbgrad.tensor([1.0, 2.0, 3.0]))
        tensor([1.5000, 4.0000])
        >>> nbgrad.cumulative_trapezoid(nbgrad.tensor([1.0, 2.0, 3.0]), dx=2.0)
        tensor([3., 8.])
    """
    if x is not None and dx is not None:
        raise RuntimeError("cumulative_trapezoid: received both x and dx, but only one may "
                           "be given")
    d = _trapezoid_dim(y, dim, "cumulative_trapezoid")
    m = y.shape[d]
    if m == 0:
        return zeros_like(y)
    pairs = y.narrow(d, 1, m - 1) + y.narrow(d, 0, m - 1)
    if x is not None:
        return (_spacing(x, y, d, "cumulative_trapezoid") * pairs).cumsum(d) / 2.0
    dx = 1.0 if dx is None else float(dx)
    return (dx / 2.0 * pairs).cumsum(d)


def vander(x, N=None, increasing=False):
    r"""The Vandermonde matrix of a vector.

    Column ``k`` holds ``x ** (N - 1 - k)`` (decreasing powers), or ``x ** k`` with
    ``increasing``. Integer inputs give int64.

    Args:
        x (Tensor): a 1-d tensor.
        N (int, optional): the number of columns. Default: ``None`` (``len(x)``).
        increasing (bool, optional): whether the powers increase from left to right.
            Default: ``False``.

    Returns:
        Tensor: a matrix of shape :math:`(\text{len}(x), N)`.

    Example::

        >>> import nbgrad
        >>> nbgrad.vander(nbgrad.tensor([1, 2, 3]), N=3)
        tensor([[1, 1, 1],
                [4, 2, 1],
                [9, 3, 1]])
        >>> nbgrad.vander(nbgrad.tensor([2.0, 3.0]), N=4, increasing=True)
        tensor([[ 1.,  2.,  4.,  8.],
                [ 1.,  3.,  9., 27.]])
    """
    from .. import dtypes as _dt
    from ..creation import ones

    check_tensor(x, "vander")
    if x.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else int(N)
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    dt = _dt.promote_types(x._dtype, _dt.int64)
    out = ones((x.shape[0], n), dtype=dt, device=x.device)
    if n > 1:
        powers = x.to(dt).unsqueeze(1).expand(x.shape[0], n - 1).cumprod(1)
        out = cat([out.narrow(1, 0, 1), powers], 1)
    return out if increasing else out.flip(1)
