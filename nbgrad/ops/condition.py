"""Selecting by a condition or a diagonal, composed of ops that have rows: ``nonzero`` /
``argwhere`` (the indices, found on the host; no gradient), ``masked_select`` (boolean
indexing of the broadcast operands) and ``diag`` (a diagonal read by advanced indexing, or
written into zeros with ``index_put``). Every device; gradients through the parts."""

import numpy as np

from .. import dtypes as _dt
from ._core import backend, broadcast_shapes, check_tensor


def nonzero(input, *, as_tuple=False):
    """The indices of the elements of ``input`` that are not zero.

    The indices come in row-major (C) order.

    Args:
        input (Tensor): the input.
        as_tuple (bool, optional): return one 1-d tensor of indices per dim (usable to index
            ``input``: ``input[nbgrad.nonzero(input, as_tuple=True)]``) instead of one 2-d
            tensor. Default: ``False``.

    Returns:
        LongTensor or tuple of LongTensor: a tensor of shape :math:`(z, n)` for :math:`z`
        non-zero elements of an :math:`n`-d ``input``, or a tuple of :math:`n` tensors of
        size :math:`z`.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([[0, 1], [2, 0]])
        >>> nbgrad.nonzero(x)
        tensor([[0, 1],
                [1, 0]])
        >>> nbgrad.nonzero(x, as_tuple=True)
        (tensor([0, 1]), tensor([1, 0]))
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
    """The indices of the elements of ``input`` that are not zero, one row each: the same as
    ``nbgrad.nonzero(input)``.

    Args:
        input (Tensor): the input.

    Returns:
        LongTensor: of shape :math:`(z, n)` for :math:`z` non-zero elements of an
        :math:`n`-d ``input``.

    Example::

        >>> import nbgrad
        >>> nbgrad.argwhere(nbgrad.tensor([[1.0, 0.0, 0.0], [0.0, 0.0, -2.0]]))
        tensor([[0, 0],
                [1, 2]])
    """
    return nonzero(input)


def masked_select(input, mask):
    """The elements of ``input`` where ``mask`` is True, as a new 1-d tensor.

    ``input`` and ``mask`` broadcast together; the elements come in row-major order.

    Args:
        input (Tensor): the input.
        mask (BoolTensor): where to select.

    Returns:
        Tensor: a 1-d tensor (a copy).

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([[1.0, -2.0], [3.0, -4.0]])
        >>> nbgrad.masked_select(x, x > 0)
        tensor([1., 3.])
        >>> nbgrad.masked_select(x, nbgrad.tensor([True, False]))
        tensor([1., 3.])
    """
    check_tensor(input, "masked_select")
    if mask.__class__ is not input.__class__ or mask._dtype is not _dt.bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    shape = broadcast_shapes(tuple(input.shape), tuple(mask.shape))
    return input.expand(shape)[mask.expand(shape)]


def diag(input, diagonal=0):
    """Make a diagonal matrix from a vector, or take a diagonal of a matrix.

    For a 1-d ``input`` of size :math:`n`, a square matrix of size :math:`n + |d|` with
    ``input`` on its diagonal :math:`d`, zeros elsewhere. For a 2-d ``input``, its diagonal
    :math:`d` as a 1-d tensor (a copy; see :func:`nbgrad.diagonal` for a view).

    Args:
        input (Tensor): a 1-d or 2-d tensor.
        diagonal (int, optional): which diagonal: 0 the main one, positive above it, negative
            below it. Default: ``0``.

    Example::

        >>> import nbgrad
        >>> nbgrad.diag(nbgrad.tensor([1, 2]))
        tensor([[1, 0],
                [0, 2]])
        >>> nbgrad.diag(nbgrad.tensor([1, 2]), 1)
        tensor([[0, 1, 0],
                [0, 0, 2],
                [0, 0, 0]])
        >>> nbgrad.diag(nbgrad.tensor([[1, 2, 3], [4, 5, 6]]), -1)
        tensor([4])
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

