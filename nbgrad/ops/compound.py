"""Arithmetic PyTorch names as single functions, composed of ops with rows (so each is
differentiable through its parts, on every device): ``addmm addmv addbmm baddbmm addcmul
addcdiv lerp hypot logaddexp logaddexp2 xlogy logit sinc nan_to_num nansum nanmean diff
cross kron tensordot cdist count_nonzero aminmax``, and the in-place ``addcmul_ addcdiv_
lerp_`` that hand-written optimizers use."""

import math
from collections import namedtuple

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
    sin,
    sqrt,
)
from .linalg import _matmul, matmul
from .selection import where

_MinMax = namedtuple("aminmax", ["min", "max"])


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
    """``beta * input + alpha * (mat1 @ mat2)``."""
    _addmm_dtypes(input, mat1, mat2)
    return _product_sum(input, mat1, mat2, beta, alpha)


@autocast_op("addmv")
def addmv(input, mat, vec, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat @ vec)``."""
    if not input.dtype is mat.dtype is vec.dtype:
        raise RuntimeError("addmv input tensors must have the same dtype, but got %s, %s, "
                           "and %s" % _types(input, mat, vec))
    return _product_sum(input, mat, vec, beta, alpha)


# (the names PyTorch's baddbmm message gives dtypes: its C++ type names)
_CPP_NAMES = {"float64": "double", "float32": "float", "bfloat16": "c10::BFloat16",
              "float16": "c10::Half", "int64": "long int", "int32": "int"}


@autocast_op("baddbmm")
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * (batch1 @ batch2)``, matrix by matrix."""
    if not input.dtype is batch1.dtype is batch2.dtype:
        names = [_CPP_NAMES.get(t.dtype.name, t.dtype.name) for t in (input, batch1, batch2)]
        raise RuntimeError("Input dtypes must be the same, got: input %s, batch1: %s, "
                           "batch2: %s" % tuple(names))
    return _product_sum(input, batch1, batch2, beta, alpha)


@autocast_op("addbmm")
def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * sum_i (batch1[i] @ batch2[i])``."""
    _addmm_dtypes(input, batch1, batch2)
    prod = _matmul(batch1, batch2).sum(0)
    return _scaled(input, beta) + _scaled(prod, alpha) if beta else _scaled(prod, alpha)


@autocast_op("addr")
def addr(input, vec1, vec2, *, beta=1, alpha=1):
    """``beta * input + alpha * outer(vec1, vec2)``.

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
    """``input + value * tensor1 * tensor2``.

    Example::

        >>> import nbgrad
        >>> nbgrad.addcmul(nbgrad.ones(2), nbgrad.tensor([1.0, 2.0]), nbgrad.tensor([3.0, 4.0]),
        ...                value=0.5)
        tensor([2.5000, 5.0000])
    """
    return input + _scaled(tensor1 * tensor2, value)


@autocast_op("addcdiv")
def addcdiv(input, tensor1, tensor2, *, value=1):
    """``input + value * tensor1 / tensor2``."""
    return input + _scaled(tensor1 / tensor2, value)


def lerp(input, end, weight):
    """``input + weight * (end - input)``."""
    return input + weight * (end - input)


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
    """``sqrt(input**2 + other**2)``."""
    return sqrt(input * input + other * other)


def logaddexp(input, other):
    """``log(exp(input) + exp(other))``, computed stably."""
    m = maximum(input, other)
    return m + log1p(exp(-abs(input - other)))


def logaddexp2(input, other):
    """``log2(2**input + 2**other)``, computed stably."""
    m = maximum(input, other)
    return m + log1p(exp(-abs(input - other) * math.log(2))) / math.log(2)


def xlogy(input, other):
    """``input * log(other)``, 0 where ``input`` is 0 (unless ``other`` is NaN)."""
    if not isinstance(other, Tensor):
        other = input * 0 + other
    if not isinstance(input, Tensor):
        input = other * 0 + input
    out = input * log(other)
    return where((input == 0) & ~isnan(other), zeros_like(out), out)


def logit(input, eps=None):
    """``log(p / (1 - p))``, ``p`` clamped to ``[eps, 1 - eps]`` when ``eps`` is given."""
    p = input if eps is None else input.clamp(eps, 1 - eps)
    return log(p / (1 - p))


def sinc(input):
    """``sin(pi x) / (pi x)``, 1 at 0."""
    px = input * math.pi
    one = full_like(input, 1.0)
    safe = where(input == 0, one, px)
    return where(input == 0, one, sin(safe) / safe)


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    """NaN, +inf and -inf replaced (by 0 and the dtype's largest / smallest finite value
    by default)."""
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
    """The sum, NaNs counted as 0."""
    x = where(isnan(input), zeros_like(input), input) if input.dtype.is_floating_point \
        else input
    return x.sum(dim, keepdim=keepdim, dtype=dtype) if dim is not None else x.sum(dtype=dtype)


def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """The mean of the elements that are not NaN."""
    keep = ~isnan(input)
    total = nansum(input, dim, keepdim, dtype=dtype)
    count = keep.sum(dim, keepdim=keepdim) if dim is not None else keep.sum()
    return total / count


def diff(input, n=1, dim=-1, prepend=None, append=None):
    """Differences of neighbours along ``dim``, ``n`` times (``prepend`` / ``append``
    joined first)."""
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
    """The cross product of 3-vectors along ``dim`` (the first dim of size 3 when None)."""
    if dim is None:
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
    """The Kronecker product."""
    n = max(input.ndim, other.ndim)
    a = input.reshape((1,) * (n - input.ndim) + tuple(input.shape))
    b = other.reshape((1,) * (n - other.ndim) + tuple(other.shape))
    ia = a.reshape(sum(((s, 1) for s in a.shape), ()))
    ib = b.reshape(sum(((1, s) for s in b.shape), ()))
    out = ia * ib
    return out.reshape(tuple(x * y for x, y in zip(a.shape, b.shape)))


@autocast_op("tensordot")
def tensordot(a, b, dims=2):
    """Contract the last ``dims`` dims of ``a`` with the first of ``b`` (or the listed
    pairs ``dims = ([a dims], [b dims])``)."""
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
    """The ``p``-norm distance between each row of ``x1`` (..., P, M) and of ``x2``
    (..., R, M): (..., P, R)."""
    if x1.dtype is not x2.dtype:
        raise RuntimeError("expected scalar type %s but found %s" % _types(x1, x2))
    diffs = x1.unsqueeze(-2) - x2.unsqueeze(-3)
    from .norm import linalg_vector_norm

    return linalg_vector_norm(diffs, p, -1)


def count_nonzero(input, dim=None):
    """How many elements are not zero (along ``dim``)."""
    nz = input != 0
    return nz.sum(dim) if dim is not None else nz.sum()


def aminmax(input, *, dim=None, keepdim=False):
    """``(min, max)`` of ``input`` (along ``dim``)."""
    if dim is None:
        return _MinMax(input.amin(), input.amax())
    return _MinMax(input.amin(dim, keepdim), input.amax(dim, keepdim))


@autocast_op("trace")
def trace(input):
    """The sum of a matrix's diagonal."""
    check_tensor(input, "trace")
    if input.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.ndim}")
    return input.diagonal().sum()


def positive(input):
    """``+input``: the tensor itself (bool refused, as PyTorch)."""
    check_tensor(input, "positive")
    if input.dtype is bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def true_divide(input, other):
    """``input / other`` (PyTorch's alias of ``div``)."""
    return input / other if isinstance(input, Tensor) else other.__rtruediv__(input)


def deg2rad(input):
    """Degrees to radians (integers become the default float)."""
    return input * (math.pi / 180.0)


def rad2deg(input):
    """Radians to degrees (integers become the default float)."""
    return input * (180.0 / math.pi)


def float_power(input, exponent):
    """``input ** exponent`` computed in float64 (PyTorch's ``float_power``)."""
    from ..dtypes import float64

    base = input.to(float64) if isinstance(input, Tensor) else float(input)
    exp_ = exponent.to(float64) if isinstance(exponent, Tensor) else float(exponent)
    return base ** exp_


def signbit(input):
    """Whether each element's sign bit is set (``-0.0`` too), as a bool tensor."""
    check_tensor(input, "signbit")
    if not input.dtype.is_floating_point:
        return input < 0
    # (-0.0 is the zero whose reciprocal is -inf)
    return (input < 0) | ((input == 0) & ((1.0 / input) < 0))


def isneginf(input):
    """Whether each element is ``-inf``, as a bool tensor."""
    check_tensor(input, "isneginf")
    return input == -math.inf if input.dtype.is_floating_point else input != input


def isposinf(input):
    """Whether each element is ``inf``, as a bool tensor."""
    check_tensor(input, "isposinf")
    return input == math.inf if input.dtype.is_floating_point else input != input


# ----- products, distances and sign manipulation PyTorch names ---------------------------
def inner(input, other):
    """Sum of products over the last dim of both (a product with a 0-dim operand)."""
    if input.ndim == 0 or other.ndim == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but "
                           f"got shapes {list(input.shape)} and {list(other.shape)}")
    return tensordot(input, other, dims=([input.ndim - 1], [other.ndim - 1]))


def vdot(input, other):
    """The dot product of two 1-d tensors (real: ``dot``)."""
    if input.ndim != 1 or other.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {other.ndim}D "
                           "tensors")
    if input.dtype is not other.dtype:
        raise RuntimeError("dot : expected both vectors to have same dtype, but found %s and %s"
                           % _types(input, other))
    return _matmul(input, other)


def dist(input, other, p=2):
    """The ``p``-norm of ``input - other`` (broadcast), a 0-dim tensor."""
    from .norm import linalg_vector_norm

    return linalg_vector_norm(input - other, p)


def copysign(input, other):
    """``|input|`` with the sign (bit) of ``other``; integers give the default float dtype."""
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
    """The step function: 0 below zero, 1 above, ``values`` at zero (no gradient)."""
    if input.dtype is not values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different "
                           "dtypes.")
    from ..autograd.grad_mode import no_grad

    with no_grad():
        return where(input == 0, values, (input > 0).to(input.dtype))


def ldexp(input, other):
    """``input * 2 ** other``."""
    return input * (2.0 ** other)


def renorm(input, p, dim, maxnorm):
    """Each slice along ``dim`` whose ``p``-norm exceeds ``maxnorm`` scaled down to norm
    ``maxnorm`` (PyTorch's factor ``maxnorm / (norm + 1e-7)``)."""
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
    """The trapezoidal rule along ``dim``: samples ``y`` at points ``x`` (or spaced ``dx``
    apart, 1 by default).

    Example::

        >>> import nbgrad
        >>> nbgrad.trapezoid(nbgrad.tensor([1.0, 2.0, 3.0]))
        tensor(4.)
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
    """``trapezoid`` (PyTorch's older name)."""
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running trapezoidal rule along ``dim`` (one value fewer than ``y`` has there).

    Example::

        >>> import nbgrad
        >>> nbgrad.cumulative_trapezoid(nbgrad.tensor([1.0, 2.0, 3.0]))
        tensor([1.5000, 4.0000])
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
    """The Vandermonde matrix of the vector ``x``: column k holds ``x ** (N - 1 - k)``
    (``increasing``: ``x ** k``), by running products as PyTorch computes it; integer
    inputs give int64.

    Example::

        >>> import nbgrad
        >>> nbgrad.vander(nbgrad.tensor([1, 2, 3]), N=3)
        tensor([[1, 1, 1],
                [4, 2, 1],
                [9, 3, 1]])
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
