"""Whole-tensor tests, composed of the elementwise and reduction rows: ``isnan``,
``isinf``, ``isfinite``, ``isclose``, ``allclose``, ``equal``, ``any``, ``all``.

Their results are bool (or Python bool), so none has a gradient; each is a few table ops
rather than a kernel of its own.
"""

import math

from .. import dtypes as _dt
from ..autograd.grad_mode import no_grad
from . import elementwise as E
from ._core import SCALAR_TYPE


def _float(x):
    return x.is_floating_point()


def isnan(input):
    """Where ``input`` is NaN (never, for integer and bool tensors).

    Example::

        >>> import nbgrad
        >>> nbgrad.isnan(nbgrad.tensor([1.0, float("nan")]))
        tensor([False,  True])
    """
    with no_grad():
        return E.ne(input, input)


def isinf(input):
    """Where ``input`` is +inf or -inf."""
    with no_grad():
        if not _float(input):
            return E.ne(input, input)  # (all False)
        return E.eq(E.abs(input), math.inf)


def isfinite(input):
    """Where ``input`` is neither inf nor NaN (everywhere, for integer and bool tensors)."""
    with no_grad():
        if not _float(input):
            return E.eq(input, input)  # (all True)
        return E.eq(E.sub(input, input), 0.0)


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Where ``|input - other| <= atol + rtol * |other|`` (equal values, infinities
    included, always; NaNs only with ``equal_nan``), as PyTorch's ``isclose``.

    Example::

        >>> import nbgrad
        >>> nbgrad.isclose(nbgrad.tensor([1.0, 2.0]), nbgrad.tensor([1.0 + 1e-7, 2.1]))
        tensor([ True, False])
    """
    if input._dtype is not other._dtype:
        raise RuntimeError(f"{SCALAR_TYPE[input._dtype.name]} did not match "
                           f"{SCALAR_TYPE[other._dtype.name]}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol}")
    with no_grad():
        close = E.eq(input, other)
        if equal_nan and _float(input):
            close = E.logical_or(close, E.logical_and(isnan(input), isnan(other)))
        if rtol == 0 and atol == 0:
            return close
        if not _float(input):  # (integers compare in the default float dtype)
            input = input.to(_dt.get_default_dtype())
            other = other.to(_dt.get_default_dtype())
        allowed = E.add(E.abs(E.mul(other, rtol)), atol)
        actual = E.abs(E.sub(input, other))
        return E.logical_or(close, E.logical_and(isfinite(actual), E.le(actual, allowed)))


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether ``isclose`` holds everywhere (a Python bool).

    Example::

        >>> import nbgrad
        >>> nbgrad.allclose(nbgrad.ones(3), nbgrad.ones(3) + 1e-9)
        True
    """
    return bool(all(isclose(input, other, rtol, atol, equal_nan)).item())


def equal(input, other):
    """Whether the two tensors have one shape and equal values (a Python bool)."""
    if tuple(input.shape) != tuple(other.shape):
        return False
    with no_grad():
        return bool(all(E.eq(input, other)).item())


def _count(input, dim, keepdim):
    from .reduce import sum as _sum

    nz = E.ne(input, 0) if input._dtype is not _dt.bool_ else input
    if dim is None:
        return _sum(nz)
    return _sum(nz, dim, keepdim=keepdim)


def any(input, dim=None, keepdim=False):  # noqa: A001
    """Whether any element (along ``dim``: an int or a tuple of them) is nonzero; a bool
    tensor.

    Example::

        >>> import nbgrad
        >>> nbgrad.tensor([[0, 1], [0, 0]]).any(dim=1)
        tensor([ True, False])
    """
    with no_grad():
        return E.gt(_count(input, dim, keepdim), 0)


def all(input, dim=None, keepdim=False):  # noqa: A001
    """Whether every element (along ``dim``) is nonzero; a bool tensor.

    Example::

        >>> import nbgrad
        >>> nbgrad.tensor([[1, 1], [0, 1]]).all()
        tensor(False)
    """
    with no_grad():
        n = input.numel() if dim is None else _size(input, dim)
        return E.eq(_count(input, dim, keepdim), n)


def _size(input, dim):
    dims = dim if isinstance(dim, (tuple, list)) else (dim,)
    n = 1
    for d in dims:
        n *= input.shape[d]
    return n


__all__ = ["isnan", "isinf", "isfinite", "isclose", "allclose", "equal", "any", "all"]
