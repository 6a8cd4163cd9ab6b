"""Searching, counting and set functions, PyTorch's, computed on the host with NumPy (a CUDA
tensor makes a round trip; none has a gradient): ``searchsorted bucketize bincount histc
unique unique_consecutive isin``."""

import numpy as np

from .. import dtypes as _dt
from ..storage import for_device
from ..tensor import Tensor, _wrap_dim
from ._core import SCALAR_TYPE, check_tensor, wrap
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
    """Indices at which ``input``'s values would be inserted into ``sorted_sequence`` (along
    its last dim) to keep it sorted: the first such place, or with ``right=True`` /
    ``side="right"`` the last.

    Example::

        >>> import nbgrad
        >>> nbgrad.searchsorted(nbgrad.tensor([1, 3, 5, 7]), nbgrad.tensor([3, 6]))
        tensor([1, 3])
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
    """The bucket of each of ``input``'s values among the sorted 1-d ``boundaries``: ``i``
    with ``boundaries[i-1] < x <= boundaries[i]`` (``right=True``: ``boundaries[i-1] <= x
    < boundaries[i]``).

    Example::

        >>> import nbgrad
        >>> nbgrad.bucketize(nbgrad.tensor([0.5, 3.0, 9.0]), nbgrad.tensor([1.0, 3.0, 5.0]))
        tensor([0, 1, 3])
    """
    check_tensor(boundaries, "bucketize")
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim("
                           f"{boundaries.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


def bincount(input, weights=None, minlength=0):
    """How often each value 0, 1, ... occurs in the 1-d non-negative integer ``input`` (at
    least ``minlength`` counts); with ``weights``, their sums instead (float64 unless they
    are float32).

    Example::

        >>> import nbgrad
        >>> nbgrad.bincount(nbgrad.tensor([1, 3, 1]))
        tensor([0, 2, 0, 1])
    """
    check_tensor(input, "bincount")
    if input._dtype.is_floating_point:
        raise NotImplementedError(
            f"\"bincount_cpu\" not implemented for '{SCALAR_TYPE[input._dtype.name]}'")
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
    """Counts of ``input``'s values in ``bins`` equal bins from ``min`` to ``max`` (the
    data's own range when they are equal); values outside are left out.

    Example::

        >>> import nbgrad
        >>> nbgrad.histc(nbgrad.tensor([1.0, 2.0, 1.0]), bins=4, min=0, max=3)
        tensor([0., 2., 1., 0.])
    """
    check_tensor(input, "histc")
    if not input._dtype.is_floating_point:
        raise NotImplementedError(
            f"\"histogram_cpu\" not implemented for '{SCALAR_TYPE[input._dtype.name]}'")
    if bins <= 0:
        raise RuntimeError(f"torch.histc(): bins must be > 0, but got {bins} for dimension 0")
    x = _host(input).astype(np.float64).reshape(-1)
    lo, hi = float(min), float(max)
    if lo > hi:
        raise RuntimeError(f"torch.histc(): max must be larger than min, but got min {lo} "
                           f"max {hi}")
    if lo == hi and x.size:
        lo, hi = float(x.min()), float(x.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    counts, _ = np.histogram(x[(x >= lo) & (x <= hi)], bins=bins, range=(lo, hi))
    return _out(counts, input, input._dtype)


def histogram(input, bins, *, range=None, weight=None, density=False):  # noqa: A002
    """Counts (or summed ``weight``, or a density with ``density``) of ``input``'s values in
    ``bins`` equal bins over ``range`` (the data's own by default), or between the edges of
    a 1-d tensor ``bins``; a ``(hist, bin_edges)`` named tuple. The last bin holds its right
    edge; values outside are left out.

    Example::

        >>> import nbgrad
        >>> nbgrad.histogram(nbgrad.tensor([1.0, 2.0, 1.0]), bins=4, range=(0.0, 3.0))
        histogram(hist=tensor([0., 2., 1., 0.]), bin_edges=tensor([0.0000, 0.7500, 1.5000, 2.2500, 3.0000]))
    """
    from collections import namedtuple

    from ..creation import linspace

    check_tensor(input, "histogram")
    if not input._dtype.is_floating_point:
        raise NotImplementedError(
            f"\"histogramdd\" not implemented for '{SCALAR_TYPE[input._dtype.name]}'")
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
    result = namedtuple("histogram", ["hist", "bin_edges"])
    return result(_out(hist, input, input._dtype), edges_t)


def _inverse_shape(inv, input, dim):
    return inv.reshape(tuple(input.shape) if dim is None else (input.shape[dim],))


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    """The distinct values of ``input`` in ascending order (or its distinct slices along
    ``dim``), with the index of each element's value (``return_inverse``) and each value's
    count (``return_counts``). (The values are sorted whatever ``sorted`` says, as on
    PyTorch's CPU.)

    Example::

        >>> import nbgrad
        >>> nbgrad.unique(nbgrad.tensor([3, 1, 3, 2]), return_counts=True)
        (tensor([1, 2, 3]), tensor([1, 1, 2]))
    """
    check_tensor(input, "unique")
    x = _host(input)
    d = None if dim is None else _wrap_dim(int(dim), x.ndim)
    if d is None:
        vals, inv, counts = np.unique(_wide(x).reshape(-1), return_inverse=True,
                                      return_counts=True)
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
    """``input`` with each run of equal consecutive values (or slices along ``dim``) kept
    once, with the run index of each element (``return_inverse``) and each run's length
    (``return_counts``).

    Example::

        >>> import nbgrad
        >>> nbgrad.unique_consecutive(nbgrad.tensor([1, 1, 2, 2, 3, 1]))
        tensor([1, 2, 3, 1])
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
    """Whether each of ``elements`` is among ``test_elements`` (a tensor or a number), as
    a bool tensor (``invert``: whether it is not).

    Example::

        >>> import nbgrad
        >>> nbgrad.isin(nbgrad.tensor([1, 2, 3]), nbgrad.tensor([2, 5]))
        tensor([False,  True, False])
    """
    like = elements if isinstance(elements, Tensor) else test_elements
    check_tensor(like, "isin")
    a = _wide(_host(elements)) if isinstance(elements, Tensor) else np.asarray(elements)
    b = _wide(_host(test_elements)) if isinstance(test_elements, Tensor) else np.asarray(
        test_elements)
    return _out(np.isin(a, b, assume_unique=assume_unique, invert=invert), like, _dt.bool_)


__all__ = ["searchsorted", "bucketize", "bincount", "histc", "histogram", "unique", "unique_consecutive",
           "isin"]
