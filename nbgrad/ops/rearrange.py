"""Rearranging tensors, PyTorch's names for compositions of views, concatenation and
indexing (so each is differentiable through its parts, on every device): ``meshgrid``,
``broadcast_tensors`` / ``broadcast_to``, ``movedim`` / ``moveaxis``, ``swapdims``,
``unflatten``, ``vstack`` / ``hstack`` / ``dstack`` / ``column_stack``, ``atleast_1d/2d/3d``,
``fliplr`` / ``flipud`` / ``rot90``, ``tensor_split`` / ``hsplit`` / ``vsplit``,
``select``, ``take`` and ``repeat_interleave``."""

import numpy as np

from ..creation import tensor
from ..dtypes import int64
from ..tensor import Tensor, _wrap_dim
from ._core import broadcast_shapes, check_tensor
from .concat import cat
from .shape import expand, flip, permute, reshape, transpose


def broadcast_to(input, size):
    """``input`` expanded to ``size`` (a view), as ``expand``.

    Example::

        >>> import nbgrad
        >>> nbgrad.broadcast_to(nbgrad.tensor([1, 2]), (2, 2))
        tensor([[1, 2],
                [1, 2]])
    """
    return expand(input, tuple(size))


def broadcast_tensors(*tensors):
    """The tensors expanded to their common broadcast shape (views)."""
    shape = ()
    for t in tensors:
        shape = broadcast_shapes(shape, tuple(t.shape))
    return tuple(expand(t, shape) for t in tensors)


def meshgrid(*tensors, indexing="ij"):
    """Coordinate grids of 1-d tensors: ``indexing="ij"`` (matrix, the default) or ``"xy"``
    (Cartesian: the first two dims swapped).

    Example::

        >>> import nbgrad
        >>> gx, gy = nbgrad.meshgrid(nbgrad.tensor([1, 2]), nbgrad.tensor([3, 4, 5]))
        >>> gx.shape, gy[0]
        (nbgrad.Size([2, 3]), tensor([3, 4, 5]))
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but "
                           f"received: {indexing}")
    for t in tensors:
        if t.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list "
                               f"but got: {t.ndim}D")
    ts = [reshape(t, (-1,)) for t in tensors]
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    shape = tuple(t.shape[0] for t in ts)
    n = len(ts)
    grids = [expand(reshape(t, tuple(-1 if j == i else 1 for j in range(n))), shape)
             for i, t in enumerate(ts)]
    if swap:  # (the grids of the first two, made swapped, given back in the input order)
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def movedim(input, source, destination):
    """``input`` with dims ``source`` moved to ``destination`` (a view)."""
    n = input.ndim
    src = [_wrap_dim(d, n) for d in (source if isinstance(source, (tuple, list)) else [source])]
    dst = [_wrap_dim(d, n) for d in (destination if isinstance(destination, (tuple, list))
                                     else [destination])]
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({src} dims)"
                           f" should contain the same number of dims as destination ({dst} "
                           "dims)")
    order = [d for d in range(n) if d not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return permute(input, tuple(order))


moveaxis = movedim


def swapdims(input, dim0, dim1):
    """``transpose`` by its NumPy-style name."""
    return transpose(input, dim0, dim1)


def unflatten(input, dim, sizes):
    """Dim ``dim`` of ``input`` split into ``sizes`` (one may be -1).

    Example::

        >>> import nbgrad
        >>> nbgrad.arange(6).unflatten(0, (2, 3)).shape
        nbgrad.Size([2, 3])
    """
    d = _wrap_dim(dim, input.ndim)
    sizes = tuple(sizes)
    if -1 in sizes:
        known = int(np.prod([s for s in sizes if s != -1]))
        sizes = tuple(input.shape[d] // known if s == -1 else s for s in sizes)
    if int(np.prod(sizes)) != input.shape[d]:
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the "
                           f"size of dim {dim} ({input.shape[d]}) in the input tensor")
    return reshape(input, tuple(input.shape[:d]) + sizes + tuple(input.shape[d + 1:]))


def atleast_1d(*tensors):
    return _atleast(tensors, 1)


def atleast_2d(*tensors):
    return _atleast(tensors, 2)


def atleast_3d(*tensors):
    return _atleast(tensors, 3)


def _at(t, n):
    if t.ndim >= n:
        return t
    if n == 1:
        return reshape(t, (1,))
    if n == 2:
        return reshape(t, (1, -1) if t.ndim == 1 else (1, 1))
    if t.ndim == 2:
        return reshape(t, tuple(t.shape) + (1,))
    return reshape(t, (1, -1, 1) if t.ndim == 1 else (1, 1, 1))


def _atleast(tensors, n):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return tuple(_at(t, n) for t in tensors[0])
    if len(tensors) == 1:
        return _at(tensors[0], n)
    return tuple(_at(t, n) for t in tensors)


def vstack(tensors):
    """Concatenated along dim 0, 1-d tensors as rows."""
    return cat([_at(t, 2) for t in tensors], 0)


def hstack(tensors):
    """Concatenated along dim 1 (dim 0 for 1-d tensors)."""
    ts = [_at(t, 1) for t in tensors]
    return cat(ts, 0 if ts[0].ndim == 1 else 1)


def dstack(tensors):
    """Concatenated along dim 2, each made at least 3-d."""
    return cat([_at(t, 3) for t in tensors], 2)


def column_stack(tensors):
    """1-d tensors as columns (and 2-d ones as they are), side by side."""
    return cat([reshape(t, (-1, 1)) if t.ndim <= 1 else t for t in tensors], 1)


def fliplr(input):
    """Columns (dim 1) reversed."""
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, (1,))


def flipud(input):
    """Rows (dim 0) reversed."""
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, (0,))


def rot90(input, k=1, dims=(0, 1)):
    """Rotated by 90 degrees ``k`` times in the plane of ``dims`` (from the first towards
    the second)."""
    d0, d1 = (_wrap_dim(d, input.ndim) for d in dims)
    if len(dims) != 2 or d0 == d1:
        raise RuntimeError(f"expected total rotation dims == 2 and different, but got dims = "
                           f"{list(dims)}")
    k %= 4
    if k == 1:
        return transpose(flip(input, (d1,)), d0, d1)
    if k == 2:
        return flip(input, (d0, d1))
    if k == 3:
        return flip(transpose(input, d0, d1), (d1,))
    return input.clone()


def tensor_split(input, indices_or_sections, dim=0):
    """Views split at ``indices`` (a list) or into ``sections`` parts as equal as can be
    (the first ``n % sections`` one longer)."""
    d = _wrap_dim(dim, input.ndim)
    n = input.shape[d]
    if isinstance(indices_or_sections, Tensor):
        indices_or_sections = indices_or_sections.tolist()
    if isinstance(indices_or_sections, (list, tuple)):
        cuts = [min(max(i, 0), n) for i in indices_or_sections]
        bounds = list(zip([0] + cuts, cuts + [n]))
    else:
        s = int(indices_or_sections)
        if s <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {s}")
        sizes = [n // s + (1 if i < n % s else 0) for i in range(s)]
        starts = np.cumsum([0] + sizes[:-1]).tolist()
        bounds = [(a, a + m) for a, m in zip(starts, sizes)]
    key = [slice(None)] * input.ndim

    def part(a, b):
        key[d] = slice(a, max(a, b))
        return input[tuple(key)]

    return tuple(part(a, b) for a, b in bounds)


def _split_along(name, input, indices_or_sections, dim, min_ndim):
    """``tensor_split`` for hsplit / vsplit / dsplit, with their checks: enough dims, and
    a number of sections that divides the dim."""
    check_tensor(input, name)
    if input.ndim < min_ndim:
        raise RuntimeError(f"nbgrad.{name} requires a tensor with at least {min_ndim} "
                           f"dimension, but got a tensor with {input.ndim} dimensions!")
    if not isinstance(indices_or_sections, (list, tuple, Tensor)):
        s, n = int(indices_or_sections), input.shape[dim]
        if s == 0 or n % s:
            raise RuntimeError(f"nbgrad.{name} attempted to split along dimension {dim}, but "
                               f"the size of the dimension {n} is not divisible by the "
                               f"split_size {s}!")
    return tensor_split(input, indices_or_sections, dim)


def hsplit(input, indices_or_sections):
    """Views split along dim 1 (dim 0 of a 1-d tensor): at ``indices`` or into equal
    ``sections``."""
    return _split_along("hsplit", input, indices_or_sections, 1 if input.ndim > 1 else 0, 1)


def vsplit(input, indices_or_sections):
    """Views split along dim 0 of a tensor of 2 or more dims."""
    return _split_along("vsplit", input, indices_or_sections, 0, 2)


def dsplit(input, indices_or_sections):
    """Views split along dim 2 (depth) of a tensor of 3 or more dims.

    Example::

        >>> import nbgrad
        >>> [p.shape for p in nbgrad.zeros(2, 3, 4).dsplit([1, 3])]
        [nbgrad.Size([2, 3, 1]), nbgrad.Size([2, 3, 2]), nbgrad.Size([2, 3, 1])]
    """
    return _split_along("dsplit", input, indices_or_sections, 2, 3)


def select(input, dim, index):
    """The slice at ``index`` of dim ``dim`` (a view, that dim gone)."""
    key = [slice(None)] * input.ndim
    d = _wrap_dim(dim, input.ndim)
    size = input.shape[d]
    if isinstance(index, int) and not -size <= index < size:  # (PyTorch's select message)
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(input.shape)} at dimension {d}")
    key[d] = index
    return input[tuple(key)]


def take(input, index):
    """Elements of ``input`` (read as flat) at ``index``, shaped as ``index``."""
    check_tensor(input, "take")
    n = input.numel()
    idx = index.reshape(-1)
    if idx.numel() and (int(idx.max()) >= n or int(idx.min()) < -n):
        bad = int(idx.max()) if int(idx.max()) >= n else int(idx.min())
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} "
                         "elements.")
    idx = idx.remainder(n) if n else idx
    return reshape(input, (-1,)).index_select(0, idx).reshape(tuple(index.shape))


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Each element (or each slice along ``dim``) repeated ``repeats`` times (an int or a
    tensor of counts); with only a tensor of counts, the indices repeated.

    Example::

        >>> import nbgrad
        >>> nbgrad.repeat_interleave(nbgrad.tensor([1, 2]), 2)
        tensor([1, 1, 2, 2])
    """
    if repeats is None:  # repeat_interleave(counts): 0, 1, ... each its count times
        counts = np.asarray(input.cpu().numpy(), np.int64)
        return tensor(np.repeat(np.arange(counts.size), counts), dtype=int64,
                      device=input.device)
    x = input if dim is not None else reshape(input, (-1,))
    d = _wrap_dim(dim, x.ndim) if dim is not None else 0
    n = x.shape[d]
    if isinstance(repeats, Tensor):
        reps = np.asarray(repeats.cpu().numpy(), np.int64).reshape(-1)
        if reps.size == 1:
            reps = np.full(n, int(reps[0]))
    else:
        reps = np.full(n, int(repeats))
    if reps.size != n:
        raise RuntimeError("repeats must have the same size as input along dim, but got "
                           f"repeats.size(0) = {reps.size} and input.size({d}) = {n}")
    if (reps < 0).any():
        raise RuntimeError("repeats can not be negative")
    idx = tensor(np.repeat(np.arange(n), reps), dtype=int64, device=input.device)
    return x.index_select(d, idx)


def cartesian_prod(*tensors):
    """The rows of every combination of one element of each 1-d tensor (``itertools.product``
    order); one tensor is returned as it is."""
    for t in tensors:
        check_tensor(t, "cartesian_prod")
        if t.ndim != 1:
            raise RuntimeError("Expect a 1D vector, but got shape "
                               f"{list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    from .concat import stack

    grids = meshgrid(*tensors, indexing="ij")
    return stack([reshape(g, (-1,)) for g in grids], 1)


def combinations(input, r=2, with_replacement=False):
    """The rows of every length-``r`` combination of the 1-d ``input``'s elements
    (``itertools.combinations`` order; ``with_replacement`` as its namesake)."""
    import itertools

    from .index import index_select

    check_tensor(input, "combinations")
    if input.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    pick = itertools.combinations_with_replacement if with_replacement else (
        itertools.combinations)
    idx = list(pick(range(input.shape[0]), r))
    if r == 0:
        return input.new_empty((0,))
    flat = tensor([i for row in idx for i in row], dtype=int64, device=input.device)
    return reshape(index_select(input, 0, flat), (len(idx), r))


def block_diag(*tensors):
    """The tensors (0-, 1- or 2-d; a 1-d one as a row) along the diagonal of one matrix,
    zeros elsewhere, in their promoted dtype."""
    from ..creation import zeros
    from ..dtypes import result_type

    mats = []
    for t in tensors:
        check_tensor(t, "block_diag")
        if t.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer "
                               f"dimensions. Input {len(mats)} has {t.ndim} dimensions")
        mats.append(reshape(t, (1, 1)) if t.ndim == 0 else reshape(t, (1, -1)) if t.ndim == 1
                    else t)
    if not mats:
        return zeros((0, 0))
    dt = result_type(mats)
    dev = mats[0].device
    width = sum(m.shape[1] for m in mats)
    rows, left = [], 0
    for m in mats:
        r, c = m.shape
        parts = [zeros((r, left), dtype=dt, device=dev), m.to(dt),
                 zeros((r, width - left - c), dtype=dt, device=dev)]
        rows.append(cat(parts, 1))
        left += c
    return cat(rows, 0)


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """A tensor whose diagonals (``offset`` of the planes of output dims ``dim1``,
    ``dim2``) are ``input``'s last dim; zeros elsewhere (PyTorch's ``diag_embed``).

    Example::

        >>> import nbgrad
        >>> nbgrad.diag_embed(nbgrad.tensor([1.0, 2.0]))
        tensor([[1., 0.],
                [0., 2.]])
    """
    check_tensor(input, "diag_embed")
    nd = input.ndim + 1
    d1, d2 = _wrap_dim(dim1, nd), _wrap_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    if input.ndim == 0:
        raise RuntimeError("diag_embed(): input must be at least 1-dimensional")
    n = input.shape[-1]
    m = n + abs(offset)
    lead = tuple(input.shape[:-1])
    flat = reshape(input, (-1, n))
    from ..creation import arange

    dev = input.device  # (the index on the input's device, as index_put takes it)
    k = arange(n, device=dev)
    index = (arange(flat.shape[0], device=dev)[:, None], (k + max(-offset, 0))[None],
             (k + max(offset, 0))[None])
    out = flat.new_zeros((flat.shape[0], m, m)).index_put(index, flat)
    out = reshape(out, lead + (m, m))
    if (d1, d2) != (nd - 2, nd - 1):
        rest = [i for i in range(nd) if i not in (d1, d2)]
        order = [0] * nd
        for src, dst in zip(range(nd - 2), rest):
            order[dst] = src
        order[d1], order[d2] = nd - 2, nd - 1
        out = permute(out, order)
    return out


def diagflat(input, offset=0):
    """The 2-d matrix with ``input`` (flattened) on its ``offset`` diagonal."""
    from .condition import diag

    check_tensor(input, "diagflat")
    return diag(reshape(input, (-1,)), offset)
