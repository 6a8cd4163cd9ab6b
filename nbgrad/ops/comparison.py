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
    """Where ``input`` is NaN (not a number), as a bool tensor.

    An integer or bool tensor has no NaN: the result is all ``False``.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> import nbgrad
        >>> nbgrad.isnan(nbgrad.tensor([1.0, float("nan")]))
        tensor([False,  True])
    """
    with no_grad():
        return E.ne(input, input)


def isinf(input):
    """Where ``input`` is positive or negative infinity, as a bool tensor.

    An integer or bool tensor has no infinity: the result is all ``False``.
    :func:`nbgrad.isposinf` and :func:`nbgrad.isneginf` test one sign.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> import nbgrad
        >>> nbgrad.isinf(nbgrad.tensor([1.0, float("inf"), -float("inf"), float("nan")]))
        tensor([False,  True,  True, False])
    """
    with no_grad():
        if not _float(input):
            return E.ne(input, input)  # (all False)
        return E.eq(E.abs(input), math.inf)


def isfinite(input):
    """Where ``input`` is finite (neither infinite nor NaN), as a bool tensor.

    An integer or bool tensor is finite everywhere: the result is all ``True``.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> import nbgrad
        >>> nbgrad.isfinite(nbgrad.tensor([1.0, float("inf"), -float("inf"), float("nan")]))
        tensor([ True, False, False, False])
    """
    with no_grad():
        if not _float(input):
            return E.eq(input, input)  # (all True)
        return E.eq(E.sub(input, input), 0.0)


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    r"""Where ``input`` and ``other`` are close to each other, as a bool tensor.

    Two elements are close when

    .. math::
        |\text{input}_i - \text{other}_i| \leq \texttt{atol} + \texttt{rtol} \times
        |\text{other}_i|

    or when they are equal (infinities of one sign included). Two NaNs are close only with
    ``equal_nan=True``. The tensors must have the same dtype, and broadcast together. Note
    the test is not symmetric: the relative tolerance scales ``other``.

    Args:
        input (Tensor): the first tensor.
        other (Tensor): the second tensor, of ``input``'s dtype.
        rtol (float, optional): the relative tolerance. Default: ``1e-05``.
        atol (float, optional): the absolute tolerance. Default: ``1e-08``.
        equal_nan (bool, optional): count two NaNs as close. Default: ``False``.

    Example::

        >>> import nbgrad
        >>> nbgrad.isclose(nbgrad.tensor([1.0, 2.0]), nbgrad.tensor([1.0 + 1e-7, 2.1]))
        tensor([ True, False])
        >>> nan = float("nan")
        >>> nbgrad.isclose(nbgrad.tensor([nan, 1.0]), nbgrad.tensor([nan, 1.5]), atol=0.5,
        ...                equal_nan=True)
        tensor([True, True])
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
    r"""Whether all elements of ``input`` and ``other`` are close, as a Python bool.

    It is ``isclose(input, other, rtol, atol, equal_nan).all()``: every pair satisfies

    .. math::
        |\text{input}_i - \text{other}_i| \leq \texttt{atol} + \texttt{rtol} \times
        |\text{other}_i|

    (see :func:`nbgrad.isclose`).

    Args:
        input (Tensor): the first tensor.
        other (Tensor): the second tensor, of ``input``'s dtype.
        rtol (float, optional): the relative tolerance. Default: ``1e-05``.
        atol (float, optional): the absolute tolerance. Default: ``1e-08``.
        equal_nan (bool, optional): count two NaNs as close. Default: ``False``.

    Returns:
        bool: whether every pair of elements is close.

    Example::

        >>> import nbgrad
        >>> nbgrad.allclose(nbgrad.ones(3), nbgrad.ones(3) + 1e-9)
        True
        >>> nbgrad.allclose(nbgrad.tensor([1.0, 2.0]), nbgrad.tensor([1.0, 2.1]), atol=0.01)
        False
    """
    return bool(all(isclose(input, other, rtol, atol, equal_nan)).item())


def equal(input, other):
    """Whether ``input`` and ``other`` have the same shape and the same elements, as a
    Python bool.

    The elements are compared as by :func:`nbgrad.eq` (so a NaN is never equal to
    anything); tensors of different shapes are not equal.

    Args:
        input (Tensor): the first tensor.
        other (Tensor): the second tensor.

    Returns:
        bool: ``True`` if the shapes and all the elements are equal.

    Example::

        >>> import nbgrad
        >>> nbgrad.equal(nbgrad.tensor([1, 2]), nbgrad.tensor([1, 2]))
        True
        >>> nbgrad.equal(nbgrad.tensor([1, 2]), nbgrad.tensor([[1, 2]]))
        False
    """
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
    """Whether any element of ``input`` is nonzero (true), over all of them or along
    ``dim``, as a bool tensor (uint8 for a uint8 input, as PyTorch's).

    The ``any`` of an empty selection is ``False``.

    Args:
        input (Tensor): the input tensor.
        dim (int or tuple of ints, optional): the dimension or dimensions to reduce.
            Default: ``None``, all of them.
        keepdim (bool, optional): keep the reduced dimensions, with size 1. Default:
            ``False``.

    Example::

        >>> import nbgrad
        >>> a = nbgrad.tensor([[0, 1], [0, 0]])
        >>> nbgrad.any(a), nbgrad.any(a, dim=1)
        (tensor(True), tensor([ True, False]))
    """
    with no_grad():
        return _as_input(E.gt(_count(input, dim, keepdim), 0), input)


def all(input, dim=None, keepdim=False):  # noqa: A001
    """Whether all elements of ``input`` are nonzero (true), over all of them or along
    ``dim``, as a bool tensor (uint8 for a uint8 input, as PyTorch's).

    The ``all`` of an empty selection is ``True``.

    Args:
        input (Tensor): the input tensor.
        dim (int or tuple of ints, optional): the dimension or dimensions to reduce.
            Default: ``None``, all of them.
        keepdim (bool, optional): keep the reduced dimensions, with size 1. Default:
            ``False``.

    Example::

        >>> import nbgrad
        >>> a = nbgrad.tensor([[1, 1], [0, 1]])
        >>> nbgrad.all(a), nbgrad.all(a, dim=1), nbgrad.all(a, dim=0)
        (tensor(False), tensor([ True, False]), tensor([False,  True]))
    """
    with no_grad():
        c = _count(input, dim, keepdim)  # (checks the dims first)
        n = input.numel() if dim is None or input.ndim == 0 else _size(input, dim)
        return _as_input(E.eq(c, n), input)


def _as_input(r, input):
    # PyTorch's all / any keep a uint8 input's dtype (their result before bool existed)
    return r.to(_dt.uint8) if input._dtype is _dt.uint8 else r


def _size(input, dim):
    dims = dim if isinstance(dim, (tuple, list)) else (dim,)
    n = 1
    for d in dims:
        n *= input.shape[d]
    return n


__all__ = ["isnan", "isinf", "isfinite", "isclose", "allclose", "equal", "any", "all"]
