"""Rearranging tensors, PyTorch's names for compositions of views, concatenation and
indexing (so each is differentiable through its parts, on every device): ``meshgrid``,
``broadcast_tensors`` / ``broadcast_to``, ``movedim`` / ``moveaxis``, ``swapdims``,
``unflatten``, ``vstack`` / ``hstack`` / ``dstack`` / ``column_stack``, ``atleast_1d/2d/3d``,
``fliplr`` / ``flipud`` / ``rot90``, ``tensor_split`` / ``hsplit`` / ``vsplit``,
``select``, ``take`` and ``repeat_interleave``."""


import numpy as np

from .._warnings import warn_once
from ..creation import tensor
from ..dtypes import int64
from ..tensor import Tensor, _wrap_dim
from ._core import broadcast_shapes, check_tensor
from .concat import cat
from .shape import expand, flip, permute, reshape, transpose


def broadcast_to(input, size):
    """Expand ``input`` to the shape ``size`` by broadcasting, as a view (as
    :meth:`nbgrad.Tensor.expand`).

    Dims of size 1 are repeated, and new leading dims added; no data is copied, so the result
    must not be written to.

    Args:
        input (Tensor): the input.
        size (tuple of ints): the new shape; ``-1`` keeps the size of that dim.

    Example::

        >>> import nbgrad
        >>> nbgrad.broadcast_to(nbgrad.tensor([1, 2]), (2, 2))
        tensor([[1, 2],
                [1, 2]])
        >>> nbgrad.broadcast_to(nbgrad.zeros(3, 1), (2, -1, 4)).shape
        nbgrad.Size([2, 3, 4])
    """
    return expand(input, tuple(size))


def broadcast_tensors(*tensors):
    """Expand the tensors to their common broadcast shape, as views.

    Args:
        *tensors (Tensor): the tensors, of broadcastable shapes.

    Returns:
        tuple of Tensor: one view of each tensor, all of the broadcast shape.

    Example::

        >>> import nbgrad
        >>> a, b = nbgrad.broadcast_tensors(nbgrad.tensor([[1], [2]]), nbgrad.tensor([10, 20, 30]))
        >>> a
        tensor([[1, 1, 1],
                [2, 2, 2]])
        >>> b.shape
        nbgrad.Size([2, 3])
    """
    shape = ()
    for t in tensors:
        shape = broadcast_shapes(shape, tuple(t.shape))
    return tuple(expand(t, shape) for t in tensors)




def meshgrid(*tensors, indexing=None):
    r"""Coordinate grids of 1-d tensors.

    With ``n`` tensors of sizes :math:`s_1, \dots, s_n`, each grid ``i`` has the shape
    :math:`(s_1, \dots, s_n)` and repeats tensor ``i`` along the other dims ("ij", matrix
    indexing). With ``indexing="xy"`` (Cartesian), the first two dims are swapped: shape
    :math:`(s_2, s_1, \dots)`. The tensors may also be given as one list.

    Args:
        *tensors (Tensor): 0-d or 1-d tensors.
        indexing (str, optional): ``"ij"`` or ``"xy"``. Default: ``None``, which means
            ``"ij"`` with PyTorch's warning (once) that it will have to be given.

    Returns:
        tuple of Tensor: the grids (views).

    Example::

        >>> import nbgrad
        >>> gx, gy = nbgrad.meshgrid(nbgrad.tensor([1, 2]), nbgrad.tensor([3, 4, 5]))
        >>> gx
        tensor([[1, 1, 1],
                [2, 2, 2]])
        >>> gy
        tensor([[3, 4, 5],
                [3, 4, 5]])
        >>> nbgrad.meshgrid(nbgrad.tensor([1, 2]), nbgrad.tensor([3, 4, 5]), indexing="xy")[0]
        tensor([[1, 2],
                [1, 2],
                [1, 2]])
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warn_once("meshgrid", "torch.meshgrid: in an upcoming release, it will be required "
                  "to pass the indexing argument.")
        indexing = "ij"
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
    """Move dims of ``input`` to new positions, as a view.

    The other dims keep their order. :func:`nbgrad.moveaxis` is another name of this
    function (NumPy's).

    Args:
        input (Tensor): the input.
        source (int or tuple of ints): the dims to move.
        destination (int or tuple of ints): their new positions (as many as ``source``).

    Example::

        >>> import nbgrad
        >>> x = nbgrad.zeros(2, 3, 4)
        >>> nbgrad.movedim(x, 0, -1).shape
        nbgrad.Size([3, 4, 2])
        >>> nbgrad.moveaxis(x, (0, 1), (2, 0)).shape
        nbgrad.Size([3, 4, 2])
    """
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
    """Swap two dims of ``input``, as a view: NumPy's name of :func:`nbgrad.transpose`.

    :func:`nbgrad.swapaxes` is another name of this function.

    Args:
        input (Tensor): the input.
        dim0 (int): the first dim.
        dim1 (int): the second dim.

    Example::

        >>> import nbgrad
        >>> nbgrad.swapdims(nbgrad.zeros(2, 3, 4), 0, 2).shape
        nbgrad.Size([4, 3, 2])
        >>> nbgrad.swapaxes(nbgrad.tensor([[1, 2, 3]]), 0, 1)
        tensor([[1],
                [2],
                [3]])
    """
    return transpose(input, dim0, dim1)


def unflatten(input, dim, sizes):
    """Split a dim of ``input`` into several, as :meth:`nbgrad.Tensor.view` would.

    Args:
        input (Tensor): the input.
        dim (int): the dim to split.
        sizes (tuple of ints): the new dims' sizes, whose product is the size of ``dim``; one
            of them may be ``-1``, inferred.

    Example::

        >>> import nbgrad
        >>> nbgrad.unflatten(nbgrad.zeros(2, 12), 1, (3, 4)).shape
        nbgrad.Size([2, 3, 4])
        >>> nbgrad.unflatten(nbgrad.arange(6), 0, (2, -1))
        tensor([[0, 1, 2],
                [3, 4, 5]])
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
    """Return the tensors with at least 1 dim (a 0-d tensor becomes of shape ``(1,)``).

    Args:
        *tensors (Tensor): one or more tensors (or one list of them).

    Returns:
        Tensor or tuple of Tensor: one tensor for one input, else a tuple.

    Example::

        >>> import nbgrad
        >>> nbgrad.atleast_1d(nbgrad.tensor(3.0))
        tensor([3.])
        >>> [t.shape for t in nbgrad.atleast_1d(nbgrad.tensor(1), nbgrad.zeros(2, 2))]
        [nbgrad.Size([1]), nbgrad.Size([2, 2])]
    """
    return _atleast(tensors, 1)


def atleast_2d(*tensors):
    """Return the tensors with at least 2 dims (a 1-d tensor of size ``n`` becomes a row,
    ``(1, n)``; a 0-d one ``(1, 1)``).

    Args:
        *tensors (Tensor): one or more tensors (or one list of them).

    Returns:
        Tensor or tuple of Tensor: one tensor for one input, else a tuple.

    Example::

        >>> import nbgrad
        >>> nbgrad.atleast_2d(nbgrad.tensor([1, 2]))
        tensor([[1, 2]])
        >>> [t.shape for t in nbgrad.atleast_2d(nbgrad.tensor(1), nbgrad.zeros(2, 2, 2))]
        [nbgrad.Size([1, 1]), nbgrad.Size([2, 2, 2])]
    """
    return _atleast(tensors, 2)


def atleast_3d(*tensors):
    """Return the tensors with at least 3 dims (``(n,)`` becomes ``(1, n, 1)``, ``(m, n)``
    becomes ``(m, n, 1)``, a 0-d tensor ``(1, 1, 1)``).

    Args:
        *tensors (Tensor): one or more tensors (or one list of them).

    Returns:
        Tensor or tuple of Tensor: one tensor for one input, else a tuple.

    Example::

        >>> import nbgrad
        >>> nbgrad.atleast_3d(nbgrad.tensor([1, 2])).shape
        nbgrad.Size([1, 2, 1])
        >>> [t.shape for t in nbgrad.atleast_3d(nbgrad.zeros(2, 3), nbgrad.tensor(1))]
        [nbgrad.Size([2, 3, 1]), nbgrad.Size([1, 1, 1])]
    """
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
    """Stack tensors vertically: concatenate them along dim 0, 1-d tensors taken as rows.

    Args:
        tensors (sequence of Tensor): the tensors (of matching sizes in the other dims).

    Example::

        >>> import nbgrad
        >>> nbgrad.vstack([nbgrad.tensor([1, 2]), nbgrad.tensor([3, 4])])
        tensor([[1, 2],
                [3, 4]])
        >>> nbgrad.vstack([nbgrad.zeros(2, 3), nbgrad.ones(1, 3)]).shape
        nbgrad.Size([3, 3])
    """
    return cat([_at(t, 2) for t in tensors], 0)


def hstack(tensors):
    """Stack tensors horizontally: concatenate them along dim 1 (along dim 0 for 1-d tensors).

    Args:
        tensors (sequence of Tensor): the tensors (of matching sizes in the other dims).

    Example::

        >>> import nbgrad
        >>> nbgrad.hstack([nbgrad.tensor([1, 2]), nbgrad.tensor([3])])
        tensor([1, 2, 3])
        >>> nbgrad.hstack([nbgrad.zeros(2, 1), nbgrad.ones(2, 2)])
        tensor([[0., 1., 1.],
                [0., 1., 1.]])
    """
    ts = [_at(t, 1) for t in tensors]
    return cat(ts, 0 if ts[0].ndim == 1 else 1)


def dstack(tensors):
    """Stack tensors in depth: concatenate them along dim 2, each made at least 3-d first (see
    :func:`nbgrad.atleast_3d`).

    Args:
        tensors (sequence of Tensor): the tensors.

    Example::

        >>> import nbgrad
        >>> nbgrad.dstack([nbgrad.tensor([1, 2]), nbgrad.tensor([3, 4])])
        tensor([[[1, 3],
                 [2, 4]]])
        >>> nbgrad.dstack([nbgrad.zeros(2, 3), nbgrad.ones(2, 3)]).shape
        nbgrad.Size([2, 3, 2])
    """
    return cat([_at(t, 3) for t in tensors], 2)


def column_stack(tensors):
    """Place tensors side by side as columns: 0-d and 1-d tensors become columns, 2-d ones are
    kept, and they are concatenated along dim 1.

    Args:
        tensors (sequence of Tensor): the tensors, all with the same number of rows.

    Example::

        >>> import nbgrad
        >>> nbgrad.column_stack([nbgrad.tensor([1, 2]), nbgrad.tensor([3, 4])])
        tensor([[1, 3],
                [2, 4]])
        >>> nbgrad.column_stack([nbgrad.tensor([1, 2]), nbgrad.zeros(2, 2, dtype=nbgrad.int64)])
        tensor([[1, 0, 0],
                [2, 0, 0]])
    """
    return cat([reshape(t, (-1, 1)) if t.ndim <= 1 else t for t in tensors], 1)


def fliplr(input):
    """Reverse the order of the columns (dim 1) of a tensor of at least 2 dims.

    Unlike NumPy's ``fliplr``, the result is a copy.

    Args:
        input (Tensor): the input, at least 2-d.

    Example::

        >>> import nbgrad
        >>> nbgrad.fliplr(nbgrad.tensor([[1, 2, 3], [4, 5, 6]]))
        tensor([[3, 2, 1],
                [6, 5, 4]])
    """
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, (1,))


def flipud(input):
    """Reverse the order of the rows (dim 0) of a tensor of at least 1 dim.

    Unlike NumPy's ``flipud``, the result is a copy.

    Args:
        input (Tensor): the input, at least 1-d.

    Example::

        >>> import nbgrad
        >>> nbgrad.flipud(nbgrad.tensor([[1, 2, 3], [4, 5, 6]]))
        tensor([[4, 5, 6],
                [1, 2, 3]])
    """
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, (0,))


def rot90(input, k=1, dims=(0, 1)):
    """Rotate a tensor by 90 degrees ``k`` times in the plane of two dims.

    The rotation goes from the first dim of ``dims`` towards the second; a negative ``k``
    rotates the other way.

    Args:
        input (Tensor): the input, at least 2-d.
        k (int, optional): the number of rotations. Default: ``1``.
        dims (tuple of two ints, optional): the dims of the plane. Default: ``(0, 1)``.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([[1, 2], [3, 4]])
        >>> nbgrad.rot90(x)
        tensor([[2, 4],
                [1, 3]])
        >>> nbgrad.rot90(x, k=-1)
        tensor([[3, 1],
                [4, 2]])
        >>> nbgrad.rot90(x, 2, dims=(1, 0))
        tensor([[4, 3],
                [2, 1]])
    """
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
    """Split a tensor into views along a dim, at given indices or into a number of parts.

    With an integer ``n``, the dim is split into ``n`` parts as equal as can be: with a size
    ``s``, the first ``s % n`` parts have ``s // n + 1`` elements and the others ``s // n``.
    With a list of indices, the parts are ``input[:i0]``, ``input[i0:i1]``, ... (along
    ``dim``), then the rest.

    Args:
        input (Tensor): the tensor to split.
        indices_or_sections (int or list of ints or Tensor): the number of parts, or the
            indices to split at (a 0-d tensor counts as a number, a 1-d one as indices).
        dim (int, optional): the dim to split along. Default: ``0``.

    Returns:
        tuple of Tensor: the parts.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.arange(7)
        >>> nbgrad.tensor_split(x, 3)
        (tensor([0, 1, 2]), tensor([3, 4]), tensor([5, 6]))
        >>> nbgrad.tensor_split(x, [1, 5])
        (tensor([0]), tensor([1, 2, 3, 4]), tensor([5, 6]))
        >>> [p.shape for p in nbgrad.tensor_split(nbgrad.zeros(2, 5), 2, dim=1)]
        [nbgrad.Size([2, 3]), nbgrad.Size([2, 2])]
    """
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
    """Split a tensor horizontally: along dim 1, or dim 0 for a 1-d tensor (see
    :func:`nbgrad.tensor_split`).

    Args:
        input (Tensor): the tensor to split, at least 1-d.
        indices_or_sections (int or list of ints): the number of equal parts (it must divide
            the size of the dim), or the indices to split at.

    Returns:
        tuple of Tensor: the parts (views).

    Example::

        >>> import nbgrad
        >>> x = nbgrad.arange(8).reshape(2, 4)
        >>> nbgrad.hsplit(x, 2)
        (tensor([[0, 1],
                [4, 5]]), tensor([[2, 3],
                [6, 7]]))
        >>> [p.shape for p in nbgrad.hsplit(x, [1])]
        [nbgrad.Size([2, 1]), nbgrad.Size([2, 3])]
    """
    return _split_along("hsplit", input, indices_or_sections, 1 if input.ndim > 1 else 0, 1)


def vsplit(input, indices_or_sections):
    """Split a tensor vertically: along dim 0 of a tensor of at least 2 dims (see
    :func:`nbgrad.tensor_split`).

    Args:
        input (Tensor): the tensor to split, at least 2-d.
        indices_or_sections (int or list of ints): the number of equal parts (it must divide
            the size of the dim), or the indices to split at.

    Returns:
        tuple of Tensor: the parts (views).

    Example::

        >>> import nbgrad
        >>> x = nbgrad.arange(8).reshape(4, 2)
        >>> nbgrad.vsplit(x, 2)
        (tensor([[0, 1],
                [2, 3]]), tensor([[4, 5],
                [6, 7]]))
        >>> [p.shape for p in nbgrad.vsplit(x, [3])]
        [nbgrad.Size([3, 2]), nbgrad.Size([1, 2])]
    """
    return _split_along("vsplit", input, indices_or_sections, 0, 2)


def dsplit(input, indices_or_sections):
    """Split a tensor in depth: along dim 2 of a tensor of at least 3 dims (see
    :func:`nbgrad.tensor_split`).

    Args:
        input (Tensor): the tensor to split, at least 3-d.
        indices_or_sections (int or list of ints): the number of equal parts (it must divide
            the size of the dim), or the indices to split at.

    Returns:
        tuple of Tensor: the parts (views).

    Example::

        >>> import nbgrad
        >>> [p.shape for p in nbgrad.dsplit(nbgrad.zeros(2, 3, 4), [1, 3])]
        [nbgrad.Size([2, 3, 1]), nbgrad.Size([2, 3, 2]), nbgrad.Size([2, 3, 1])]
        >>> [p.shape for p in nbgrad.dsplit(nbgrad.zeros(2, 3, 4), 2)]
        [nbgrad.Size([2, 3, 2]), nbgrad.Size([2, 3, 2])]
    """
    return _split_along("dsplit", input, indices_or_sections, 2, 3)


def select(input, dim, index):
    """The slice of ``input`` at ``index`` along ``dim``, as a view without that dim.

    ``nbgrad.select(x, 1, 2)`` is ``x[:, 2]``.

    Args:
        input (Tensor): the input.
        dim (int): the dim to index.
        index (int): the index along ``dim`` (negative counts from the end).

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([[1, 2, 3], [4, 5, 6]])
        >>> nbgrad.select(x, 1, 2)
        tensor([3, 6])
        >>> nbgrad.select(x, 0, -1)
        tensor([4, 5, 6])
    """
    key = [slice(None)] * input.ndim
    d = _wrap_dim(dim, input.ndim)
    size = input.shape[d]
    if isinstance(index, int) and not -size <= index < size:  # (PyTorch's select message)
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(input.shape)} at dimension {d}")
    key[d] = index
    return input[tuple(key)]


def take(input, index):
    """The elements of ``input``, read as a flat 1-d tensor, at the indices ``index``.

    The result has the shape of ``index``. Negative indices count from the end.

    Args:
        input (Tensor): the input.
        index (LongTensor): the flat indices.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([[4, 3, 5], [6, 7, 8]])
        >>> nbgrad.take(x, nbgrad.tensor([0, 2, 5]))
        tensor([4, 5, 8])
        >>> nbgrad.take(x, nbgrad.tensor([[-1, 1]]))
        tensor([[8, 3]])
    """
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
    """Repeat each element of a tensor (or each slice along ``dim``) a number of times.

    Without ``dim``, ``input`` is flattened first. ``repeats`` is one count for every element,
    or a tensor with a count for each. Called with only a tensor of counts, it returns the
    indices ``0, 1, ...``, each repeated its count times.

    Args:
        input (Tensor): the input (or, alone, the counts).
        repeats (int or Tensor, optional): the number(s) of repetitions. Default: ``None``.
        dim (int, optional): the dim along which to repeat. Default: ``None`` (the flattened
            input).
        output_size (int, optional): the total size of the result along ``dim``, which
            PyTorch takes to avoid a synchronization; accepted and not needed. Default:
            ``None``.

    Example::

        >>> import nbgrad
        >>> nbgrad.repeat_interleave(nbgrad.tensor([1, 2]), 2)
        tensor([1, 1, 2, 2])
        >>> x = nbgrad.tensor([[1, 2], [3, 4]])
        >>> nbgrad.repeat_interleave(x, nbgrad.tensor([1, 2]), dim=0)
        tensor([[1, 2],
                [3, 4],
                [3, 4]])
        >>> nbgrad.repeat_interleave(nbgrad.tensor([2, 0, 1]))
        tensor([0, 0, 2])
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
    r"""The Cartesian product of 1-d tensors: one row for each combination of one element of
    each (in the order of ``itertools.product``).

    Args:
        *tensors (Tensor): 1-d tensors.

    Returns:
        Tensor: a tensor of shape :math:`(\prod_i n_i, k)` for :math:`k` tensors of sizes
        :math:`n_i` (one tensor is returned as it is).

    Example::

        >>> import nbgrad
        >>> nbgrad.cartesian_prod(nbgrad.tensor([1, 2]), nbgrad.tensor([3, 4, 5]))
        tensor([[1, 3],
                [1, 4],
                [1, 5],
                [2, 3],
                [2, 4],
                [2, 5]])
    """
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
    """The combinations of ``r`` elements of a 1-d tensor, one a row (in the order of
    ``itertools.combinations``, or ``itertools.combinations_with_replacement``).

    Args:
        input (Tensor): a 1-d tensor.
        r (int, optional): the number of elements of each combination. Default: ``2``.
        with_replacement (bool, optional): whether an element may be taken more than once.
            Default: ``False``.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([1, 2, 3])
        >>> nbgrad.combinations(x)
        tensor([[1, 2],
                [1, 3],
                [2, 3]])
        >>> nbgrad.combinations(x, r=2, with_replacement=True).shape
        nbgrad.Size([6, 2])
    """
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
    """A block-diagonal matrix made of the given tensors, zeros elsewhere.

    A 0-d tensor counts as a 1-by-1 block, a 1-d one as a row. The result has the tensors'
    promoted dtype.

    Args:
        *tensors (Tensor): 0-, 1- or 2-d tensors.

    Example::

        >>> import nbgrad
        >>> a = nbgrad.tensor([[1, 2], [3, 4]])
        >>> nbgrad.block_diag(a, nbgrad.tensor(5), nbgrad.tensor([6, 7]))
        tensor([[1, 2, 0, 0, 0],
                [3, 4, 0, 0, 0],
                [0, 0, 5, 0, 0],
                [0, 0, 0, 6, 7]])
    """
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
    """Put the last dim of ``input`` on diagonals of new 2-d planes, zeros elsewhere.

    The result has one dim more than ``input``: its dims ``dim1`` and ``dim2`` hold square
    planes whose ``offset`` diagonal is ``input[..., :]`` (0: the main one; positive: above
    it; negative: below it).

    Args:
        input (Tensor): the input, at least 1-d.
        offset (int, optional): which diagonal to fill. Default: ``0``.
        dim1 (int, optional): the first dim of the planes (of the result). Default: ``-2``.
        dim2 (int, optional): the second dim of the planes. Default: ``-1``.

    Example::

        >>> import nbgrad
        >>> nbgrad.diag_embed(nbgrad.tensor([1.0, 2.0]))
        tensor([[1., 0.],
                [0., 2.]])
        >>> nbgrad.diag_embed(nbgrad.tensor([1, 2]), offset=1)
        tensor([[0, 1, 0],
                [0, 0, 2],
                [0, 0, 0]])
        >>> nbgrad.diag_embed(nbgrad.zeros(4, 3), dim1=0, dim2=2).shape
        nbgrad.Size([3, 4, 3])
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
    """A 2-d matrix with the (flattened) ``input`` on one of its diagonals, zeros elsewhere.

    Args:
        input (Tensor): the input, flattened first.
        offset (int, optional): which diagonal (0: the main one; positive: above it;
            negative: below it). Default: ``0``.

    Example::

        >>> import nbgrad
        >>> nbgrad.diagflat(nbgrad.tensor([[1, 2], [3, 4]]))
        tensor([[1, 0, 0, 0],
                [0, 2, 0, 0],
                [0, 0, 3, 0],
                [0, 0, 0, 4]])
        >>> nbgrad.diagflat(nbgrad.tensor([1, 2]), offset=-1)
        tensor([[0, 0, 0],
                [1, 0, 0],
                [0, 2, 0]])
    """
    from .condition import diag

    check_tensor(input, "diagflat")
    return diag(reshape(input, (-1,)), offset)
