"""Searching, counting and set functions, PyTorch's, computed on the host with NumPy (a CUDA
tensor makes a round trip; none has a gradient): ``searchsorted bucketize bincount histc
unique unique_consecutive isin``."""

import math

import numpy as np

from .. import dtypes as _dt
from .. import return_types as RT
from ..storage import for_device
from ..tensor import Tensor, _wrap_dim
from ._core import check_tensor, no_kernel_for, wrap
from .index import _host


def _out(arr, like, dtype=None):
    """``arr`` as a tensor on ``like``'s device (of ``dtype`` when given)."""
    arr = np.array(arr, dtype=None if dtype is None else dtype.np, order="C")  # (0-d kept)
    return wrap(for_device(like._device).from_host(arr), like._device)


def _wide(a):
    """Values to compare: 16-bit floats widened (NumPy orders bfloat16 as a plain dtype
    too, but searchsorted's kernels want one common type)."""
    return a.astype(np.float32) if a.dtype.char in "eE" else a


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,
                 sorter=None):
    """Find the indices where values would be inserted into a sorted sequence to keep it
    sorted.

    For a value ``v`` and the sorted row ``s``, the result is the first index ``i`` with
    ``v <= s[i]`` (``right=True``: the first with ``v < s[i]``), ``len(s)`` if there is
    none. A 1-d ``sorted_sequence`` serves every value; a multi-dim one is searched row by row
    (along its last dim), its leading dims matching ``input``'s.

    Args:
        sorted_sequence (Tensor): the sequence(s), sorted along the last dim (unless
            ``sorter`` is given).
        input (Tensor or Number): the values to place.
        out_int32 (bool, optional): return int32 indices instead of int64. Default:
            ``False``.
        right (bool, optional): for values equal to elements of the sequence, place them
            after those (the last suitable index) instead of before. Default: ``False``.
        side (str, optional): ``"left"`` or ``"right"``, the same as ``right``; it must agree
            with ``right`` when both are given. Default: ``None``.
        sorter (LongTensor, optional): the indices that sort an unsorted
            ``sorted_sequence`` along its last dim (as :func:`nbgrad.argsort` gives). Default:
            ``None``.

    Returns:
        LongTensor: the indices, of ``input``'s shape.

    Example::

        >>> import nbgrad
        >>> seq = nbgrad.tensor([1, 3, 5, 7])
        >>> nbgrad.searchsorted(seq, nbgrad.tensor([3, 6]))
        tensor([1, 3])
        >>> nbgrad.searchsorted(seq, nbgrad.tensor([3, 6]), right=True)
        tensor([2, 3])
        >>> rows = nbgrad.tensor([[1, 3, 5], [2, 4, 6]])
        >>> nbgrad.searchsorted(rows, nbgrad.tensor([[4], [4]]))
        tensor([[2],
                [1]])
    """
    check_tensor(sorted_sequence, "searchsorted")
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but "
                               f"got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to "
                               "opposites, got side of left while right was True")
        right = side == "right"
    seq = _wide(_host(sorted_sequence))
    scalar = not isinstance(input, Tensor)
    vals = np.asarray(input) if scalar else _wide(_host(input))
    if sorter is not None:
        seq = np.take_along_axis(seq, _host(sorter).astype(np.int64), -1)
    how = "right" if right else "left"
    if seq.ndim <= 1:
        res = np.searchsorted(seq, vals, side=how)
    else:
        if vals.shape[:-1] != seq.shape[:-1]:
            raise RuntimeError(
                "torch.searchsorted(): boundaries tensor should be 1 dimension or the first "
                "N-1 dimensions of boundaries tensor and input value tensor must match, but we "
                f"got boundaries tensor {list(seq.shape)} and input value tensor "
                f"{list(vals.shape)}")
        lead = seq.reshape(-1, seq.shape[-1])
        res = np.stack([np.searchsorted(s, v, side=how) for s, v in
                        zip(lead, vals.reshape(len(lead), -1))]).reshape(vals.shape)
    return _out(np.asarray(res), sorted_sequence, _dt.int32 if out_int32 else _dt.int64)


def bucketize(input, boundaries, *, out_int32=False, right=False):
    """The bucket of each value of ``input`` among sorted ``boundaries``.

    Value ``x`` goes to bucket ``i`` with ``boundaries[i-1] < x <= boundaries[i]``
    (``right=True``: ``boundaries[i-1] <= x < boundaries[i]``); values below every boundary
    go to 0 and above every one to ``len(boundaries)``. (The same as
    :func:`nbgrad.searchsorted` with the arguments swapped.)

    Args:
        input (Tensor or Number): the values.
        boundaries (Tensor): a 1-d tensor of increasing boundaries.
        out_int32 (bool, optional): return int32 indices instead of int64. Default:
            ``False``.
        right (bool, optional): which side of a bucket includes a value equal to a boundary
            (see above). Default: ``False``.

    Returns:
        LongTensor: the buckets, of ``input``'s shape.

    Example::

        >>> import nbgrad
        >>> boundaries = nbgrad.tensor([1.0, 3.0, 5.0])
        >>> nbgrad.bucketize(nbgrad.tensor([0.5, 3.0, 9.0]), boundaries)
        tensor([0, 1, 3])
        >>> nbgrad.bucketize(nbgrad.tensor([0.5, 3.0, 9.0]), boundaries, right=True)
        tensor([0, 2, 3])
    """
    check_tensor(boundaries, "bucketize")
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim("
                           f"{boundaries.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


def bincount(input, weights=None, minlength=0):
    """Count how often each value 0, 1, 2, ... occurs in a 1-d tensor of non-negative integers.

    With ``weights``, element ``i`` adds ``weights[i]`` to the bin of its value instead of 1.

    Args:
        input (Tensor): a 1-d tensor of non-negative integers.
        weights (Tensor, optional): a weight for each element of ``input``. Default:
            ``None``.
        minlength (int, optional): the least number of bins. Default: ``0``.

    Returns:
        Tensor: ``max(input.max() + 1, minlength)`` counts (int64), or sums of weights
        (float64, or float32 for float32 weights).

    Example::

        >>> import nbgrad
        >>> nbgrad.bincount(nbgrad.tensor([1, 3, 1]))
        tensor([0, 2, 0, 1])
        >>> nbgrad.bincount(nbgrad.tensor([1, 3, 1]), minlength=6)
        tensor([0, 2, 0, 1, 0, 0])
        >>> nbgrad.bincount(nbgrad.tensor([0, 1, 1]), weights=nbgrad.tensor([0.5, 1.0, 2.0]))
        tensor([0.5000, 3.0000])
    """
    check_tensor(input, "bincount")
    if input._dtype.is_floating_point:
        raise no_kernel_for("bincount_cpu", input._dtype)
    x = _host(input)
    if x.ndim != 1 or (x.size and x.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if weights is None:
        return _out(np.bincount(x.astype(np.int64), minlength=minlength), input, _dt.int64)
    w = _host(weights)
    if w.shape != x.shape:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    dt = _dt.float32 if weights._dtype is _dt.float32 else _dt.float64
    return _out(np.bincount(x.astype(np.int64), w.astype(np.float64), minlength), input, dt)


def histc(input, bins=100, min=0, max=0):  # noqa: A002  (PyTorch's argument names)
    """A histogram of the values of ``input``, in ``bins`` bins of equal width.

    The bins span ``[min, max]``; when ``min`` and ``max`` are equal (as by default), the
    smallest and largest values of ``input`` are used instead. Values outside that range
    are not counted.

    Args:
        input (Tensor): the input (its elements, flattened), of a floating-point dtype.
        bins (int, optional): the number of bins. Default: ``100``.
        min (Number, optional): the lower end of the range. Default: ``0``.
        max (Number, optional): the upper end of the range. Default: ``0``.

    Returns:
        Tensor: the counts, a 1-d tensor of ``bins`` elements of ``input``'s dtype.

    Example::

        >>> import nbgrad
        >>> nbgrad.histc(nbgrad.tensor([1.0, 2.0, 1.0]), bins=4, min=0, max=3)
        tensor([0., 2., 1., 0.])
        >>> nbgrad.histc(nbgrad.tensor([1.0, 2.0, 1.0, 4.0]), bins=3)
        tensor([2., 1., 1.])
    """
    check_tensor(input, "histc")
    if not input._dtype.is_floating_point:
        raise no_kernel_for("histogram_cpu", input._dtype)
    if bins <= 0:
        raise RuntimeError(f"torch.histc(): bins must be > 0, but got {bins} for dimension 0")
    x = _host(input).astype(np.float64).reshape(-1)
    lo, hi = float(min), float(max)
    if lo > hi:
        raise RuntimeError(f"torch.histc(): max must be larger than min, but got min {lo} "
                           f"max {hi}")
    if lo == hi and x.size:
        lo, hi = float(x.min()), float(x.max())
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError(f"torch.histc: range of [{lo:g}, {hi:g}] is not finite")
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    counts, _ = np.histogram(x[(x >= lo) & (x <= hi)], bins=bins, range=(lo, hi))
    return _out(counts, input, input._dtype)


def histogram(input, bins, *, range=None, weight=None, density=False):  # noqa: A002
    """A histogram of the values of ``input``, with its bin edges.

    ``bins`` is a number of equal bins over ``range`` (by default, from the smallest to the
    largest value), or a 1-d tensor of increasing bin edges. Each bin holds its left edge; the
    last bin holds its right edge too. Values outside the edges are not counted.

    Args:
        input (Tensor): the input (its elements, flattened), of a floating-point dtype.
        bins (int or Tensor): the number of bins, or their edges.
        range (tuple of float, optional): ``(min, max)``, the range of equal bins. Default:
            ``None`` (the range of the values).
        weight (Tensor, optional): a weight for each element of ``input``, summed instead of
            counting 1. Default: ``None``.
        density (bool, optional): divide the counts by their total times the bin widths, so
            that the histogram integrates to 1. Default: ``False``.

    Returns:
        (Tensor, Tensor): a named tuple ``(hist, bin_edges)``.

    Example::

        >>> import nbgrad
        >>> hist, edges = nbgrad.histogram(nbgrad.tensor([1.0, 2.0, 1.0]), bins=4, range=(0.0, 3.0))
        >>> hist
        tensor([0., 2., 1., 0.])
        >>> edges
        tensor([0.0000, 0.7500, 1.5000, 2.2500, 3.0000])
        >>> nbgrad.histogram(nbgrad.tensor([1.0, 2.0, 1.0]), nbgrad.tensor([0.0, 1.5, 4.0])).hist
        tensor([2., 1.])
    """

    from ..creation import linspace

    check_tensor(input, "histogram")
    if not input._dtype.is_floating_point:
        raise no_kernel_for("histogramdd", input._dtype)
    dt = input._dtype.np
    x = _host(input).reshape(-1)
    if isinstance(bins, Tensor):
        edges_t = bins
        edges = _host(bins).astype(dt)
    else:
        if bins <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for "
                               "dimension 0")
        if range is not None:
            lo, hi = float(range[0]), float(range[1])
        elif x.size:
            lo, hi = float(x.min()), float(x.max())
        else:
            lo = hi = 0.0
        if lo > hi:
            raise RuntimeError(f"torch.histogram(): min should not exceed max, but got min "
                               f"{lo} max {hi} for dimension 0")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges_t = linspace(lo, hi, int(bins) + 1, dtype=input.dtype, device=input.device)
        edges = _host(edges_t)
    n = edges.size - 1
    w = None if weight is None else _host(weight).reshape(-1).astype(dt)
    inside = (x >= edges[0]) & (x <= edges[-1])
    xs = x[inside]
    if isinstance(bins, Tensor):  # (given edges: a binary search)
        pos = np.searchsorted(edges, xs, side="right") - 1
    else:  # (equal bins: PyTorch's linear guess, corrected by one either way)
        pos = ((xs - edges[0]) * dt.type(n) / (edges[-1] - edges[0])).astype(np.int64)
        pos = np.clip(pos, 0, n)
        pos[(pos < n) & (xs < edges[np.minimum(pos, n)])] -= 1
        up = (pos < n - 1) & (xs >= edges[np.minimum(pos + 1, n)])
        pos[up] += 1
    pos = np.minimum(pos, n - 1)  # (the right edge belongs to the last bin)
    hist = np.zeros(n, dt)
    np.add.at(hist, pos, 1 if w is None else w[inside])
    if density:
        with np.errstate(divide="ignore", invalid="ignore"):
            hist = hist / (hist.sum() * np.diff(edges))
    return RT.histogram(_out(hist, input, input._dtype), edges_t)


def _inverse_shape(inv, input, dim):
    return inv.reshape(tuple(input.shape) if dim is None else (input.shape[dim],))


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    """The distinct elements of ``input``, in ascending order.

    With ``dim``, the distinct slices along that dim instead (sorted as rows are, element by
    element). The values are sorted whatever ``sorted`` says, as by PyTorch on the CPU.

    Args:
        input (Tensor): the input.
        sorted (bool, optional): whether to sort the values (they always are). Default:
            ``True``.
        return_inverse (bool, optional): also return, for each element of ``input``, the
            index of its value in the output. Default: ``False``.
        return_counts (bool, optional): also return how often each value occurs. Default:
            ``False``.
        dim (int, optional): the dim whose slices to compare. Default: ``None`` (the
            elements of the flattened tensor).

    Returns:
        Tensor or tuple of Tensor: the values, followed by the inverse indices and the counts
        when they are asked for.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([3, 1, 3, 2])
        >>> nbgrad.unique(x)
        tensor([1, 2, 3])
        >>> nbgrad.unique(x, return_inverse=True, return_counts=True)
        (tensor([1, 2, 3]), tensor([2, 0, 2, 1]), tensor([1, 1, 2]))
        >>> nbgrad.unique(nbgrad.tensor([[1, 2], [0, 5], [1, 2]]), dim=0)
        tensor([[0, 5],
                [1, 2]])
    """
    check_tensor(input, "unique")
    x = _host(input)
    if dim is not None and x.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = None if dim is None else _wrap_dim(int(dim), x.ndim)
    if d is None:
        # (each NaN its own value, as PyTorch's sort-based unique keeps them)
        vals, inv, counts = np.unique(_wide(x).reshape(-1), return_inverse=True,
                                      return_counts=True, equal_nan=False)
    else:
        vals, inv, counts = np.unique(_wide(x), return_inverse=True, return_counts=True,
                                      axis=d)
    out = [_out(vals, input, input._dtype)]
    if return_inverse:
        out.append(_out(_inverse_shape(inv, input, d), input, _dt.int64))
    if return_counts:
        out.append(_out(counts, input, _dt.int64))
    return out[0] if len(out) == 1 else tuple(out)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Keep one element of each run of equal consecutive elements of ``input``.

    Unlike :func:`nbgrad.unique`, values equal but not adjacent are kept apart and nothing is
    sorted. With ``dim``, runs of equal slices along that dim are collapsed.

    Args:
        input (Tensor): the input.
        return_inverse (bool, optional): also return, for each element of ``input``, the
            index of its run in the output. Default: ``False``.
        return_counts (bool, optional): also return the length of each run. Default:
            ``False``.
        dim (int, optional): the dim whose slices to compare. Default: ``None`` (the
            elements of the flattened tensor).

    Returns:
        Tensor or tuple of Tensor: the values, followed by the inverse indices and the counts
        when they are asked for.

    Example::

        >>> import nbgrad
        >>> nbgrad.unique_consecutive(nbgrad.tensor([1, 1, 2, 2, 3, 1]))
        tensor([1, 2, 3, 1])
        >>> nbgrad.unique_consecutive(nbgrad.tensor([1, 1, 2, 1]), return_counts=True)
        (tensor([1, 2, 1]), tensor([2, 1, 1]))
    """
    check_tensor(input, "unique_consecutive")
    x = _host(input)
    d = None if dim is None else _wrap_dim(int(dim), x.ndim)
    seq = x.reshape(-1) if d is None else np.moveaxis(x, d, 0)
    n = len(seq)
    if n:
        flat = seq.reshape(n, -1)
        new = np.concatenate([[True], np.any(flat[1:] != flat[:-1], axis=1)])
    else:
        new = np.zeros(0, bool)
    starts = np.flatnonzero(new)
    vals = seq[starts] if d is None else np.moveaxis(seq[starts], 0, d)
    out = [_out(vals, input, input._dtype)]
    if return_inverse:
        out.append(_out(_inverse_shape(np.cumsum(new) - 1, input, d), input, _dt.int64))
    if return_counts:
        out.append(_out(np.diff(np.append(starts, n)), input, _dt.int64))
    return out[0] if len(out) == 1 else tuple(out)


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """Whether each element of ``elements`` is among ``test_elements``, as a bool tensor.

    Args:
        elements (Tensor or Number): the values to look up.
        test_elements (Tensor or Number): the values to look for.
        assume_unique (bool, optional): a promise that both hold distinct values, which
            PyTorch may use to go faster; it does not change the result. Default: ``False``.
        invert (bool, optional): return whether each element is *not* among them. Default:
            ``False``.

    Returns:
        BoolTensor: of the shape of ``elements``.

    Example::

        >>> import nbgrad
        >>> nbgrad.isin(nbgrad.tensor([1, 2, 3]), nbgrad.tensor([2, 5]))
        tensor([False,  True, False])
        >>> nbgrad.isin(nbgrad.tensor([[1, 2], [3, 4]]), 3, invert=True)
        tensor([[ True,  True],
                [False,  True]])
    """
    like = elements if isinstance(elements, Tensor) else test_elements
    check_tensor(like, "isin")
    a = _wide(_host(elements)) if isinstance(elements, Tensor) else np.asarray(elements)
    b = _wide(_host(test_elements)) if isinstance(test_elements, Tensor) else np.asarray(
        test_elements)
    return _out(np.isin(a, b, assume_unique=assume_unique, invert=invert), like, _dt.bool_)


__all__ = ["searchsorted", "bucketize", "bincount", "histc", "histogram", "unique", "unique_consecutive",
           "isin"]
