"""Ordering along a dim: ``sort``, ``argsort``, ``topk``, ``kthvalue``. Rows of
``ops/funcdef.py`` with values and int64 indices; their gradient scatters back to the
indices (PyTorch's ``value_selecting_reduction_backward``).

The order is NumPy's stable sort of the host array (a device tensor makes a round trip):
equal elements keep their order, NaN sorts above every number (last ascending, first
descending), as in PyTorch.
"""


import numpy as np

from .. import dtypes as _dt
from .. import return_types as RT
from ..amp.policy import autocast_op
from ..tensor import _wrap_dim
from ._core import backend, check_tensor
from .funcdef import deffunc, surface
from .shape import unsqueeze


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
    """Sort the elements of ``input`` along a dim, and say where each came from.

    The sort is stable: equal elements keep their order (``stable`` is accepted, for
    PyTorch's signature, and changes nothing). NaN sorts above every number (first with
    ``descending=True``). The gradient flows back to the positions the values came from.

    Args:
        input (Tensor): the input.
        dim (int, optional): the dim to sort along. Default: ``-1``.
        descending (bool, optional): whether to sort from largest to smallest. Default:
            ``False``.
        stable (bool, optional): ask for a stable sort (it always is). Default: ``False``.

    Returns:
        (Tensor, LongTensor): a named tuple ``(values, indices)``: the sorted values, and the
        index along ``dim`` in ``input`` of each.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, -1.0]])
        >>> values, indices = nbgrad.sort(x)
        >>> values
        tensor([[ 1.,  2.,  3.],
                [-1.,  0.,  5.]])
        >>> indices
        tensor([[1, 2, 0],
                [2, 0, 1]])
        >>> nbgrad.sort(nbgrad.tensor([3.0, 1.0, 2.0]), descending=True).indices
        tensor([0, 2, 1])
    """
    check_tensor(input, "sort")
    return RT.sort(*SORT.call(input, _dim(input, dim), bool(descending)))


def argsort(input, dim=-1, descending=False, stable=False):
    """The indices that sort ``input`` along a dim: ``nbgrad.sort(...).indices``.

    Args:
        input (Tensor): the input.
        dim (int, optional): the dim to sort along. Default: ``-1``.
        descending (bool, optional): whether to sort from largest to smallest. Default:
            ``False``.
        stable (bool, optional): ask for a stable sort (it always is). Default: ``False``.

    Returns:
        LongTensor: the indices, of ``input``'s shape.

    Example::

        >>> import nbgrad
        >>> nbgrad.argsort(nbgrad.tensor([3.0, 1.0, 2.0]))
        tensor([1, 2, 0])
        >>> nbgrad.argsort(nbgrad.tensor([[3, 1], [0, 2]]), dim=0, descending=True)
        tensor([[0, 1],
                [1, 0]])
    """
    return sort(input, dim, descending, stable=stable).indices


@surface(TOPK)
def topk(input, k, dim=-1, largest=True, sorted=True):
    """The ``k`` largest (or smallest) elements of ``input`` along a dim, with their indices.

    Args:
        input (Tensor): the input.
        k (int): how many elements to take.
        dim (int, optional): the dim to search along. Default: ``-1``.
        largest (bool, optional): take the largest elements (``False``: the smallest).
            Default: ``True``.
        sorted (bool, optional): whether the ``k`` elements come in sorted order (nbgrad
            always sorts them). Default: ``True``.

    Returns:
        (Tensor, LongTensor): a named tuple ``(values, indices)``, with ``k`` elements along
        ``dim``.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([1.0, 5.0, 3.0, 4.0])
        >>> nbgrad.topk(x, 2)
        nbgrad.return_types.topk(
        values=tensor([5., 4.]),
        indices=tensor([1, 3]))
        >>> nbgrad.topk(x, 2, largest=False).indices
        tensor([0, 2])
    """
    check_tensor(input, "topk")
    d = _dim(input, dim)
    if not 0 <= k <= _size(input, d):
        raise RuntimeError("selected index k out of range")
    return RT.topk(*TOPK.call(input, int(k), d, bool(largest)))


@surface(KTHVALUE)
def kthvalue(input, k, dim=-1, keepdim=False):
    """The ``k``-th smallest element of ``input`` along a dim, with its index.

    ``k`` counts from 1. Of equal values, the index is that of the first in ``input``'s
    order.

    Args:
        input (Tensor): the input.
        k (int): the rank of the element, from 1 to the size of ``dim``.
        dim (int, optional): the dim to search along. Default: ``-1``.
        keepdim (bool, optional): whether ``dim`` stays, of size 1. Default: ``False``.

    Returns:
        (Tensor, LongTensor): a named tuple ``(values, indices)``.

    Example::

        >>> import nbgrad
        >>> nbgrad.kthvalue(nbgrad.tensor([3.0, 1.0, 2.0]), 2)
        nbgrad.return_types.kthvalue(
        values=tensor(2.),
        indices=tensor(2))
        >>> nbgrad.kthvalue(nbgrad.tensor([[3, 1, 2], [6, 5, 4]]), 1, dim=1, keepdim=True).values
        tensor([[1],
                [4]])
    """
    check_tensor(input, "kthvalue")
    d = _dim(input, dim)
    if not 1 <= k <= _size(input, d):
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    return RT.kthvalue(*KTHVALUE.call(input, int(k), d, bool(keepdim)))




def median(input, dim=None, keepdim=False):
    """The median of the elements of ``input``: of the whole tensor, or along a dim.

    For an even number of elements it is the lower of the two middle ones (not their mean).
    A slice holding NaN has NaN for its median (see :func:`nbgrad.nanmedian` to ignore them).

    Args:
        input (Tensor): the input.
        dim (int, optional): the dim to reduce. Default: ``None`` (the whole tensor).
        keepdim (bool, optional): whether ``dim`` stays, of size 1. Default: ``False``.

    Returns:
        Tensor or (Tensor, LongTensor): without ``dim``, a 0-d tensor; with it, a named tuple
        ``(values, indices)``, the index of each median along ``dim``.

    Example::

        >>> import nbgrad
        >>> nbgrad.median(nbgrad.tensor([3.0, 1.0, 2.0, 5.0]))
        tensor(2.)
        >>> nbgrad.median(nbgrad.tensor([[3.0, 1.0, 2.0], [4.0, 6.0, 5.0]]), dim=1)
        nbgrad.return_types.median(
        values=tensor([2., 5.]),
        indices=tensor([2, 2]))
    """
    check_tensor(input, "median")
    if dim is None:
        if input.numel() == 0:
            return input.new_full((), float("nan"))
        return _spread(input, median(input.reshape(-1), 0).values)
    from .index import _host, gather

    d = _dim(input, dim)
    n = _size(input, d)
    if n == 0:
        raise IndexError(f"median(): Expected reduction dim {d} to have non-zero size.")
    values, idx = kthvalue(input, (n - 1) // 2 + 1, d, keepdim=True)
    if input._dtype.is_floating_point and input.ndim:
        nan = np.isnan(_host(input).astype(np.float64))
        if nan.any():  # (the first NaN's index; its value, through gather, keeps a gradient)
            at = np.where(nan.any(d, keepdims=True), np.expand_dims(nan.argmax(d), d),
                          _host(idx))
            idx = _int64(at, input)
            values = gather(input, d, idx)
    if not keepdim and input.ndim:
        values, idx = values.squeeze(d), idx.squeeze(d)
    return RT.median(values, idx)


def _spread(input, value):
    """``value`` (the median of all of ``input``) with PyTorch's gradient for it: spread
    evenly over the elements equal to it (over the NaNs, for a NaN)."""
    from ..autograd.grad_mode import is_grad_enabled, no_grad
    from .comparison import isnan
    from .elementwise import eq, logical_and, logical_or, where

    if not (input.requires_grad and is_grad_enabled()):
        return value
    with no_grad():
        v = value.detach()
        mask = logical_or(eq(input, v), logical_and(isnan(input), isnan(v)))
        count = mask.sum()
    picked = where(mask, input, 0.0)
    return v + (picked - picked.detach()).sum() / count  # (the value exactly: x - x is 0)


def nanmedian(input, dim=None, keepdim=False):
    """The median of the elements of ``input`` that are not NaN: of the whole tensor, or along a
    dim.

    As :func:`nbgrad.median` (the lower of the two middle values), with the NaNs left out; a
    slice holding only NaNs gives NaN.

    Args:
        input (Tensor): the input.
        dim (int, optional): the dim to reduce. Default: ``None`` (the whole tensor).
        keepdim (bool, optional): whether ``dim`` stays, of size 1. Default: ``False``.

    Returns:
        Tensor or (Tensor, LongTensor): without ``dim``, a 0-d tensor; with it, a named tuple
        ``(values, indices)``.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([[2.0, float("nan"), 1.0], [4.0, 3.0, 5.0]])
        >>> nbgrad.nanmedian(x)
        tensor(3.)
        >>> nbgrad.nanmedian(x, dim=1)
        nbgrad.return_types.nanmedian(
        values=tensor([1., 4.]),
        indices=tensor([2, 0]))
    """
    from .index import _host, gather

    check_tensor(input, "nanmedian")
    if dim is None:
        if input.numel() == 0:
            return input.new_full((), float("nan"))
        return _spread(input, nanmedian(input.reshape(-1), 0).values)
    d = _dim(input, dim)
    x = input if input.ndim else input.reshape(1)
    order = sort(x, d).indices  # (NaN last)
    count = (~np.isnan(_host(x).astype(np.float64))).sum(d, keepdims=True)
    k = np.where(count > 0, (count - 1) // 2, 0)  # (all NaN: the first, a NaN)
    idx = gather(order, d, _int64(k, input))
    values = gather(x, d, idx)
    if not input.ndim:
        values, idx = values.reshape(()), idx.reshape(())
    elif not keepdim:
        values, idx = values.squeeze(d), idx.squeeze(d)
    return RT.nanmedian(values, idx)


def _int64(arr, like):
    from ..creation import tensor

    return tensor(np.ascontiguousarray(arr), dtype=_dt.int64, device=like._device)


_QUANTILE_MODES = ("linear", "lower", "higher", "midpoint", "nearest")


@autocast_op("quantile")
def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """The ``q``-th quantiles of the elements of ``input``: of the whole tensor, or along a dim.

    The quantile ``q`` sits at position ``q * (n - 1)`` of the ``n`` sorted values; between
    two of them, ``interpolation`` picks the value: ``"linear"`` interpolates, ``"lower"``
    and ``"higher"`` take the lower or higher one, ``"nearest"`` the closer one (a tie to the
    even index), ``"midpoint"`` their mean. A slice holding NaN gives NaN (see
    :func:`nbgrad.nanquantile`).

    Args:
        input (Tensor): the input, of a floating-point dtype.
        q (float or Tensor): the quantile(s), in :math:`[0, 1]`: a number or a 1-d tensor.
        dim (int, optional): the dim to reduce. Default: ``None`` (the flattened tensor).
        keepdim (bool, optional): whether ``dim`` stays, of size 1. Default: ``False``.
        interpolation (str, optional): ``"linear"``, ``"lower"``, ``"higher"``,
            ``"nearest"`` or ``"midpoint"``. Default: ``"linear"``.

    Returns:
        Tensor: the quantiles; for a 1-d ``q``, a first dim of ``len(q)`` is added.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([1.0, 2.0, 3.0, 4.0])
        >>> nbgrad.quantile(x, 0.25)
        tensor(1.7500)
        >>> nbgrad.quantile(x, nbgrad.tensor([0.25, 0.5]), interpolation="lower")
        tensor([1., 2.])
        >>> nbgrad.quantile(nbgrad.tensor([[1.0, 3.0], [2.0, 8.0]]), 0.5, dim=1, keepdim=True)
        tensor([[2.],
                [5.]])
    """
    return _quantile("quantile", input, q, dim, keepdim, interpolation, False)


@autocast_op("nanquantile")
def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """The ``q``-th quantiles of the elements of ``input`` that are not NaN.

    As :func:`nbgrad.quantile`, with the NaNs left out; a slice holding only NaNs gives NaN.

    Args:
        input (Tensor): the input, of a floating-point dtype.
        q (float or Tensor): the quantile(s), in :math:`[0, 1]`: a number or a 1-d tensor.
        dim (int, optional): the dim to reduce. Default: ``None`` (the flattened tensor).
        keepdim (bool, optional): whether ``dim`` stays, of size 1. Default: ``False``.
        interpolation (str, optional): ``"linear"``, ``"lower"``, ``"higher"``,
            ``"nearest"`` or ``"midpoint"``. Default: ``"linear"``.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([1.0, float("nan"), 3.0, 2.0])
        >>> nbgrad.nanquantile(x, 0.5)
        tensor(2.)
        >>> nbgrad.quantile(x, 0.5)
        tensor(nan)
    """
    return _quantile("nanquantile", input, q, dim, keepdim, interpolation, True)


def _quantile(name, input, q, dim, keepdim, interpolation, skip_nan):
    from ..tensor import Tensor
    from .index import _host, gather
    from .rearrange import movedim

    check_tensor(input, name)
    if not input._dtype.is_floating_point or input._dtype.low:
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    if interpolation not in _QUANTILE_MODES:
        raise RuntimeError(f"{name}() interpolation must be one of linear, lower, higher, "
                           f"midpoint or nearest. Got {interpolation}")
    one = not isinstance(q, Tensor) or q.ndim == 0
    qs = np.atleast_1d(np.asarray(q.tolist() if isinstance(q, Tensor) else q,
                                  dtype=input._dtype.np))
    if isinstance(q, Tensor) and q.ndim > 1:
        raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
    if ((qs < 0) | (qs > 1)).any():
        raise RuntimeError(f"{name}() q must be in the range [0, 1] but got {q}"
                           if one and not isinstance(q, Tensor) else
                           f"{name}() q values must be in the range [0, 1]")
    if dim is not None and input.ndim == 0:  # (its one value, whatever keepdim: PyTorch's)
        _wrap_dim(dim, 1)
        return _quantile(name, input, q, None, False, interpolation, skip_nan)
    x = input.reshape(-1) if dim is None else movedim(input, _dim(input, dim), -1)
    if x.ndim == 0:
        x = x.reshape(1)
    n = x.shape[-1]
    if n == 0:
        raise IndexError(f"{name}() input tensor must be non-empty")
    s = sort(x, -1).values  # (NaN last)
    nan = np.isnan(_host(s))
    if skip_nan:  # over each slice's numbers (all NaN: the last, a NaN)
        count = (~nan).sum(-1, keepdims=True)
        ranks = np.where(count > 0, qs * (count - 1).astype(qs.dtype), n - 1)
    else:  # a slice with NaN: its last, a NaN
        ranks = np.where(nan.any(-1, keepdims=True), n - 1, qs * np.asarray(n - 1, qs.dtype))
    ranks = np.broadcast_to(ranks, tuple(s.shape[:-1]) + qs.shape)
    lo, hi = np.floor(ranks), np.ceil(ranks)
    if interpolation == "lower":
        hi = lo
    elif interpolation == "higher":
        lo = hi
    elif interpolation == "nearest":
        lo = hi = np.round(ranks)  # (half to even, as PyTorch)
    below = gather(s, -1, _int64(lo.astype(np.int64), input))
    above = gather(s, -1, _int64(hi.astype(np.int64), input))
    w = np.full(ranks.shape, 0.5, qs.dtype) if interpolation == "midpoint" else (
        (ranks - lo).astype(qs.dtype))
    from ..creation import tensor

    out = below + tensor(w, device=input._device) * (above - below)
    out = out.squeeze(-1) if one else movedim(out, -1, 0)
    if keepdim:
        if dim is None:
            shape = (1,) * input.ndim
            out = out.reshape(shape if one else (len(qs),) + shape)
        else:
            out = out.unsqueeze(_dim(input, dim) + (0 if one else 1))
    return out




def _modes(h):
    """Along the last axis of host array ``h``: the most frequent value (of equally
    frequent ones the smallest) and the index of its last occurrence, as PyTorch's CPU."""
    rows = h.reshape(-1, h.shape[-1])
    vals = np.empty(rows.shape[0], h.dtype)
    idx = np.empty(rows.shape[0], np.int64)
    for r, row in enumerate(rows):
        # (ascending: ties go to the least; each NaN its own value, as PyTorch counts them)
        uniq, counts = np.unique(row, return_counts=True, equal_nan=False)
        vals[r] = uniq[np.argmax(counts)]
        idx[r] = row.shape[0] - 1 - int(np.argmax((row == vals[r])[::-1]))
    return vals.reshape(h.shape[:-1]), idx.reshape(h.shape[:-1])


def mode(input, dim=-1, keepdim=False):
    """The most frequent value of ``input`` along a dim, with an index where it occurs.

    Of equally frequent values, the smallest is taken; the index is that of its last
    occurrence.

    Args:
        input (Tensor): the input.
        dim (int, optional): the dim to reduce. Default: ``-1``.
        keepdim (bool, optional): whether ``dim`` stays, of size 1. Default: ``False``.

    Returns:
        (Tensor, LongTensor): a named tuple ``(values, indices)``.

    Example::

        >>> import nbgrad
        >>> nbgrad.mode(nbgrad.tensor([[1, 2, 2, 3], [3, 3, 1, 1]]))
        nbgrad.return_types.mode(
        values=tensor([2, 1]),
        indices=tensor([2, 3]))
    """
    from .index import _host, gather

    check_tensor(input, "mode")
    d = _dim(input, dim)
    x = input if input.ndim else input.reshape(1)
    if x.shape[d] == 0:
        raise IndexError(f"mode(): Expected reduction dim {d} to have non-zero size.")
    _, at = _modes(np.moveaxis(_host(x), d, -1))
    idx = _int64(np.expand_dims(at, d), input)
    values = gather(x, d, idx)  # (through gather: the gradient goes to the chosen element)
    if not input.ndim:
        values, idx = values.reshape(()), idx.reshape(())
    elif not keepdim:
        values, idx = values.squeeze(d), idx.squeeze(d)
    return RT.mode(values, idx)
