"""``embedding_bag``: the sums, means or maxima of bags of embedding rows, without
materializing the bags' rows beyond one lookup: the rows of every index (``embedding``),
weighted per sample for ``"sum"``, reduced into their bags (``index_add`` for sums and
means, ``scatter_reduce`` for maxima). Indices equal to ``padding_idx`` take no part; an
empty bag gives zeros, as PyTorch."""

import numpy as np

from .. import dtypes as _dt
from ._core import check_tensor


def _bags(input, offsets, include_last_offset):
    """Each index's bag (host array), the number of bags, and the flat indices."""
    from .index import _host

    if input.ndim == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated "
                             "is a mini-batch of fixed length sequences. However, found offsets "
                             f"of type {type(offsets)}")
        B, N = input.shape
        return np.repeat(np.arange(B), N), B, input.reshape(-1)
    if input.ndim != 1:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{input.ndim}")
    if offsets is None:
        raise ValueError("offsets has to be a 1D Tensor but got None")
    if offsets.ndim != 1:
        raise ValueError("offsets has to be a 1D Tensor")
    off = _host(offsets).astype(np.int64)
    if include_last_offset:
        off = off[:-1]
    n = input.shape[0]
    if off.size and off[0] != 0:
        raise RuntimeError(f"offsets[0] has to be 0, i.e., the first sequence in the "
                           f"mini-batch has to start from position 0. However, got {off[0]}")
    if off.size and off[-1] > n:
        raise RuntimeError(f"offsets[-1] can not be greater than input's length ({n}), but "
                           f"got offsets[-1] of {off[-1]}")
    return np.searchsorted(off, np.arange(n), side="right") - 1, off.size, input


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False,
                  mode="mean", sparse=False, per_sample_weights=None,
                  include_last_offset=False, padding_idx=None):
    """Reduce bags of embeddings: the sum, mean or maximum of the rows each bag indexes.

    A bag is a row of a 2-D ``input``, or, for a 1-D ``input``, the indices from one of
    ``offsets`` to the next. It computes what :func:`embedding` then a reduction would,
    without the intermediate.

    Args:
        input (Tensor): the indices into ``weight``: :math:`(B, N)` (B bags of N) or
            :math:`(L)` with ``offsets``.
        weight (Tensor): the embedding matrix, :math:`(V, D)`.
        offsets (Tensor, optional): for a 1-D ``input``, the start of each bag, :math:`(B)`,
            from 0. Default: ``None``.
        max_norm (float, optional): renormalize, in place in ``weight``, the rows looked up
            whose norm is above ``max_norm``, as :func:`embedding` does. Default: ``None``.
        norm_type (float, optional): the :math:`p` of the norm for ``max_norm``.
            Default: ``2``.
        scale_grad_by_freq (bool, optional): divide the gradient of each row by its count
            in the batch. Default: ``False``.
        mode (str, optional): ``"sum"``, ``"mean"`` or ``"max"``. Default: ``"mean"``.
        sparse (bool, optional): PyTorch's sparse gradient; accepted, but nbgrad's gradient
            of ``weight`` is always dense. Default: ``False``.
        per_sample_weights (Tensor, optional): a weight for each index, of ``input``'s shape
            (``mode="sum"`` only). Default: ``None``.
        include_last_offset (bool, optional): ``offsets`` has one more entry, the end of the
            last bag (CSR style). Default: ``False``.
        padding_idx (int, optional): an index left out of the bags (and of the means' counts).
            Default: ``None``.

    Shape:
        - Output: :math:`(B, D)`, one row per bag (zeros for an empty bag).

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> w = nbgrad.arange(6.0).reshape(3, 2)
        >>> idx, off = nbgrad.tensor([0, 2, 1]), nbgrad.tensor([0, 2])
        >>> F.embedding_bag(idx, w, off, mode="sum")
        tensor([[4., 6.],
                [2., 3.]])
        >>> F.embedding_bag(nbgrad.tensor([[0, 2], [1, 1]]), w)
        tensor([[2., 3.],
                [2., 3.]])
        >>> F.embedding_bag(idx, w, off, mode="max")
        tensor([[4., 5.],
                [2., 3.]])
    """
    from ..creation import tensor, zeros
    from .index import _host, embedding

    check_tensor(input, "embedding_bag")
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if per_sample_weights is not None:
        if mode != "sum":
            raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. "
                                      f"per_sample_weights is only supported for mode='sum' "
                                      f"(got mode='{mode}'). Please open a feature request on "
                                      "GitHub.")
        if tuple(per_sample_weights.shape) != tuple(input.shape):
            raise ValueError(f"embedding_bag: If per_sample_weights ({list(per_sample_weights.shape)}) "
                             f"is not None, then it must have the same shape as the input "
                             f"({list(input.shape)})")
    bag, B, flat = _bags(input, offsets, include_last_offset)
    D = weight.shape[1]
    keep = np.ones(bag.size, bool)
    if padding_idx is not None:
        padding_idx = padding_idx % weight.shape[0]
        keep = _host(flat).reshape(-1) != padding_idx
    dev = weight.device
    at = tensor(np.nonzero(keep)[0], dtype=_dt.int64, device=dev)
    rows = embedding(flat.reshape(-1).index_select(0, at), weight, max_norm=max_norm,
                     norm_type=norm_type, scale_grad_by_freq=scale_grad_by_freq)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.reshape(-1).index_select(0, at).unsqueeze(1)
    bags = tensor(bag[keep], dtype=_dt.int64, device=dev)
    out = zeros((B, D), dtype=weight.dtype, device=dev)
    if mode == "max":
        return out.scatter_reduce(0, bags.unsqueeze(1).expand(bags.shape[0], D), rows, "amax",
                                  include_self=False)
    out = out.index_add(0, bags, rows)
    if mode == "mean":
        count = np.maximum(np.bincount(bag[keep], minlength=B), 1)
        out = out / tensor(count[:, None], dtype=weight.dtype, device=dev)
    return out
