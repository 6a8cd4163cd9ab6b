"""Ordering along a dim: ``sort``, ``argsort``, ``topk``, ``kthvalue``. Rows of
``ops/funcdef.py`` with values and int64 indices; their gradient scatters back to the
indices (PyTorch's ``value_selecting_reduction_backward``).

The order is NumPy's stable sort of the host array (a device tensor makes a round trip):
equal elements keep their order, NaN sorts above every number (last ascending, first
descending), as in PyTorch.
"""

from collections import namedtuple

import numpy as np

from .. import dtypes as _dt
from ..tensor import _wrap_dim
from ._core import backend, check_tensor
from .funcdef import deffunc, surface
from .shape import unsqueeze

sort_result = namedtuple("sort", ["values", "indices"])
topk_result = namedtuple("topk", ["values", "indices"])
kthvalue_result = namedtuple("kthvalue", ["values", "indices"])


def _order(h, dim, descending):
    """Indices that sort host array ``h`` along ``dim``, stably; descending by sorting the
    reversed array (so ties keep their order and NaN comes first)."""
    if not descending:
        return np.argsort(h, axis=dim, kind="stable")
    n = h.shape[dim]
    rev = np.flip(h, dim)
    return (n - 1) - np.flip(np.argsort(rev, axis=dim, kind="stable"), dim)


def _selected(x, dev, dim, descending, start, stop):
    """Values and indices of positions ``start:stop`` of ``x`` sorted along ``dim``."""
    be = backend(dev)
    h = be.to_host(x)
    if h.ndim == 0:
        return be.from_host(h.copy()), be.from_host(np.zeros((), np.int64))
    idx = _order(h, dim, descending)
    key = [slice(None)] * h.ndim
    key[dim] = slice(start, stop)
    idx = np.ascontiguousarray(idx[tuple(key)]).astype(np.int64, copy=False)
    vals = np.take_along_axis(h, idx, dim)
    return be.from_host(vals), be.from_host(idx)


def value_selecting_backward(grad, dim, indices, sizes, keepdim=True):
    """The gradient of values selected by ``indices`` along ``dim``: ``grad`` scattered
    back to those positions of zeros of ``sizes`` (differentiable again)."""
    from ..creation import zeros
    from .index import scatter_add

    if not sizes:
        return grad
    if not keepdim:
        grad, indices = unsqueeze(grad, dim), unsqueeze(indices, dim)
    return scatter_add(zeros(tuple(sizes), dtype=grad.dtype, device=grad.device), dim,
                       indices, grad)


def _pair(idt, *args):
    return idt, _dt.int64


def _sized(shape, dim, n):
    return tuple(n if i == dim else s for i, s in enumerate(shape))


_BACK = ("value_selecting_backward(grad, dim, indices, input_shape)",)
SORT = deffunc(
    "sort", kernels=(), args=("dim", "descending"), outputs=("values", "indices"),
    forward=lambda x, odt, dev, dim, descending: _selected(x, dev, dim, descending, 0, None),
    dtype=_pair, shape=lambda s, dim, descending: (tuple(s), tuple(s)), grads=_BACK,
    fn=False, method=False)
TOPK = deffunc(
    "topk", kernels=(), args=("k", "dim", "largest"), outputs=("values", "indices"),
    forward=lambda x, odt, dev, k, dim, largest: _selected(x, dev, dim, largest, 0, k),
    dtype=_pair, shape=lambda s, k, dim, largest: (_sized(s, dim, k),) * 2,
    grads=_BACK, fn=False, method=False)
KTHVALUE = deffunc(
    "kthvalue", kernels=(), args=("k", "dim", "keepdim"), outputs=("values", "indices"),
    forward=lambda x, odt, dev, k, dim, keepdim: _kth(x, dev, k, dim, keepdim),
    dtype=_pair, shape=lambda s, k, dim, keepdim: (_kth_shape(s, dim, keepdim),) * 2,
    grads=("value_selecting_backward(grad, dim, indices, input_shape, keepdim)",),
    fn=False, method=False)


def _kth(x, dev, k, dim, keepdim):
    vals, idx = _selected(x, dev, dim, False, k - 1, k)
    if keepdim or not x.ndim:
        return vals, idx
    shape = _kth_shape(x.shape, dim, False)
    return vals.reshape(shape), idx.reshape(shape)


def _kth_shape(shape, dim, keepdim):
    if not shape:
        return ()
    return _sized(shape, dim, 1) if keepdim else tuple(
        s for i, s in enumerate(shape) if i != dim)


def _dim(input, dim):
    return _wrap_dim(int(dim), max(input.ndim, 1))


def _size(input, d):
    return input.shape[d] if input.ndim else 1


@surface(SORT)
def sort(input, dim=-1, descending=False, *, stable=False):
    """``input``'s values in order along ``dim`` and where each came from: a
    ``(values, indices)`` named tuple. The sort is stable (``stable`` is accepted for
    PyTorch's signature); NaN sorts above every number.

    Example::

        >>> import nbgrad
        >>> nbgrad.sort(nbgrad.tensor([3.0, 1.0, 2.0]), descending=True).indices
        tensor([0, 2, 1])
    """
    check_tensor(input, "sort")
    return sort_result(*SORT.call(input, _dim(input, dim), bool(descending)))


def argsort(input, dim=-1, descending=False, stable=False):
    """The indices that sort ``input`` along ``dim`` (``sort(...).indices``).

    Example::

        >>> import nbgrad
        >>> nbgrad.argsort(nbgrad.tensor([3.0, 1.0, 2.0]))
        tensor([1, 2, 0])
    """
    return sort(input, dim, descending, stable=stable).indices


@surface(TOPK)
def topk(input, k, dim=-1, largest=True, sorted=True):
    """The ``k`` largest (``largest=False``: smallest) values along ``dim`` and their
    indices, in order, as a ``(values, indices)`` named tuple.

    Example::

        >>> import nbgrad
        >>> nbgrad.topk(nbgrad.tensor([1.0, 5.0, 3.0]), 2).values
        tensor([5., 3.])
    """
    check_tensor(input, "topk")
    d = _dim(input, dim)
    if not 0 <= k <= _size(input, d):
        raise RuntimeError("selected index k out of range")
    return topk_result(*TOPK.call(input, int(k), d, bool(largest)))


@surface(KTHVALUE)
def kthvalue(input, k, dim=-1, keepdim=False):
    """The ``k``-th smallest value along ``dim`` (``k`` from 1) and its index, as a
    ``(values, indices)`` named tuple (of equal values, the first in ``input``'s order).

    Example::

        >>> import nbgrad
        >>> nbgrad.kthvalue(nbgrad.tensor([3.0, 1.0, 2.0]), 2).values
        tensor(2.)
    """
    check_tensor(input, "kthvalue")
    d = _dim(input, dim)
    if not 1 <= k <= _size(input, d):
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    return kthvalue_result(*KTHVALUE.call(input, int(k), d, bool(keepdim)))
