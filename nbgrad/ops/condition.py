"""Selecting by a condition or a diagonal, composed of ops that have rows: ``nonzero`` /
``argwhere`` (the indices, found on the host; no gradient), ``masked_select`` (boolean
indexing of the broadcast operands) and ``diag`` (a diagonal read by advanced indexing, or
written into zeros with ``index_put``). Every device; gradients through the parts."""

import numpy as np

from .. import dtypes as _dt
from ._core import backend, broadcast_shapes, check_tensor


def nonzero(input, *, as_tuple=False):
    """The indices of ``input``'s nonzero elements: an int64 ``(count, ndim)`` tensor, in
    row-major order; with ``as_tuple``, one 1-d tensor per dim.

    Example::

        >>> import nbgrad
        >>> nbgrad.nonzero(nbgrad.tensor([[0, 1], [2, 0]]))
        tensor([[0, 1],
                [1, 0]])
    """
    from ..creation import tensor

    check_tensor(input, "nonzero")
    h = np.asarray(backend(input._device).to_host(input.detach()._data))
    dev = input._device
    if as_tuple:
        where = np.nonzero(h) if h.ndim else (np.nonzero(h.reshape(1))[0],)
        return tuple(tensor(np.ascontiguousarray(w, np.int64), device=dev) for w in where)
    idx = np.argwhere(h) if h.ndim else np.zeros((int(h != 0), 0), np.int64)
    return tensor(np.ascontiguousarray(idx, np.int64), device=dev)


def argwhere(input):
    """``nonzero(input)``: the ``(count, ndim)`` indices of the nonzero elements."""
    return nonzero(input)


def masked_select(input, mask):
    """The elements of ``input`` where the bool ``mask`` holds (the two broadcast together),
    as a 1-d tensor in row-major order.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([[1.0, -2.0], [3.0, -4.0]])
        >>> nbgrad.masked_select(x, x > 0)
        tensor([1., 3.])
    """
    check_tensor(input, "masked_select")
    if mask.__class__ is not input.__class__ or mask._dtype is not _dt.bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    shape = broadcast_shapes(tuple(input.shape), tuple(mask.shape))
    return input.expand(shape)[mask.expand(shape)]


def diag(input, diagonal=0):
    """A 1-d ``input`` as the ``diagonal``-th diagonal of a square matrix of zeros; a 2-d
    ``input``'s ``diagonal``-th diagonal as a 1-d tensor (0 the main one, > 0 above it).

    Example::

        >>> import nbgrad
        >>> nbgrad.diag(nbgrad.tensor([1, 2]))
        tensor([[1, 0],
                [0, 2]])
    """
    from ..creation import arange, zeros

    check_tensor(input, "diag")
    k = int(diagonal)
    dev = input._device
    if input.ndim == 1:
        n = input.shape[0]
        m = n + abs(k)
        i = arange(n, device=dev)
        rows, cols = (i, i + k) if k >= 0 else (i - k, i)
        out = zeros(m, m, dtype=input.dtype, device=dev)
        return out.index_put((rows, cols), input)
    if input.ndim != 2:
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")
    r, c = input.shape
    n = max(min(r, c - k) if k >= 0 else min(r + k, c), 0)
    i = arange(n, device=dev)
    rows, cols = (i, i + k) if k >= 0 else (i - k, i)
    return input[rows, cols]

