"""Out-of-place writes of one tensor into a copy of another, as PyTorch names them:
``select_scatter slice_scatter diagonal_scatter`` (``src`` into one view of ``input``),
``masked_scatter`` (``source``'s leading values where ``mask`` is True) and ``put`` (at flat
indices). Each is a copy and an in-place write through a view, so autograd records it
as such (``CopySlices``) and gradients reach both operands."""

from ..tensor import Tensor
from ._core import SCALAR_TYPE, check_tensor


def _into(input, view_of, src):
    out = input.clone()
    view = view_of(out)
    if tuple(view.shape) != tuple(src.shape):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size "
                           f"= {list(src.shape)}, slice size = {list(view.shape)}")
    view.copy_(src)
    return out


def select_scatter(input, src, dim, index):
    """A copy of ``input`` with ``src`` written into the slice ``input.select(dim, index)``.

    Args:
        input (Tensor): the input.
        src (Tensor): the values to write, of the shape of the slice (``input``'s shape
            without ``dim``).
        dim (int): the dim to index.
        index (int): the index along ``dim``.

    Example::

        >>> import nbgrad
        >>> nbgrad.select_scatter(nbgrad.zeros(2, 2), nbgrad.ones(2), 0, 0)
        tensor([[1., 1.],
                [0., 0.]])
        >>> nbgrad.select_scatter(nbgrad.zeros(2, 3), nbgrad.tensor([1.0, 2.0]), 1, -1)
        tensor([[0., 0., 1.],
                [0., 0., 2.]])
    """
    check_tensor(input, "select_scatter")
    return _into(input, lambda t: t.select(dim, index), src)


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """A copy of ``input`` with ``src`` written into its slice ``start:end:step`` along ``dim``.

    Args:
        input (Tensor): the input.
        src (Tensor): the values to write, of the shape of the slice.
        dim (int, optional): the dim to slice. Default: ``0``.
        start (int, optional): the first index of the slice. Default: ``None`` (0).
        end (int, optional): the index past the slice. Default: ``None`` (the end).
        step (int, optional): the step between the indices. Default: ``1``.

    Example::

        >>> import nbgrad
        >>> nbgrad.slice_scatter(nbgrad.zeros(2, 3), nbgrad.ones(2, 1), 1, 1, None, 2)
        tensor([[0., 1., 0.],
                [0., 1., 0.]])
        >>> nbgrad.slice_scatter(nbgrad.zeros(4), nbgrad.tensor([1.0, 2.0]), start=2)
        tensor([0., 0., 1., 2.])
    """
    check_tensor(input, "slice_scatter")
    key = (slice(None),) * (dim % max(input.ndim, 1)) + (slice(start, end, step),)
    return _into(input, lambda t: t[key], src)


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """A copy of ``input`` with ``src`` written into its diagonal ``diagonal(offset, dim1,
    dim2)`` (see :func:`nbgrad.diagonal`).

    Args:
        input (Tensor): the input, at least 2-d.
        src (Tensor): the values to write, of the shape of the diagonal.
        offset (int, optional): which diagonal: 0 the main one, positive above it, negative
            below it. Default: ``0``.
        dim1 (int, optional): the first dim of the planes. Default: ``0``.
        dim2 (int, optional): the second dim of the planes. Default: ``1``.

    Example::

        >>> import nbgrad
        >>> nbgrad.diagonal_scatter(nbgrad.zeros(2, 2), nbgrad.ones(2))
        tensor([[1., 0.],
                [0., 1.]])
        >>> nbgrad.diagonal_scatter(nbgrad.zeros(3, 3), nbgrad.tensor([1.0, 2.0]), offset=-1)
        tensor([[0., 0., 0.],
                [1., 0., 0.],
                [0., 2., 0.]])
    """
    check_tensor(input, "diagonal_scatter")
    return _into(input, lambda t: t.diagonal(offset, dim1, dim2), src)


def masked_scatter(input, mask, source):
    """A copy of ``input`` in which the elements where ``mask`` is True take the values of
    ``source``, in order.

    ``mask`` broadcasts to ``input``'s shape. The ``k``-th True element of ``mask`` (in
    row-major order) gets the ``k``-th element of ``source``; ``source`` must have at least
    as many elements as ``mask`` has True ones, and ``input``'s dtype.

    Args:
        input (Tensor): the input.
        mask (BoolTensor): where to write.
        source (Tensor): the values to write.

    Example::

        >>> import nbgrad
        >>> mask = nbgrad.tensor([True, False, True])
        >>> nbgrad.masked_scatter(nbgrad.zeros(3), mask, nbgrad.tensor([5.0, 6.0, 7.0]))
        tensor([5., 0., 6.])
        >>> nbgrad.masked_scatter(nbgrad.zeros(2, 3), mask, nbgrad.arange(1.0, 7.0))
        tensor([[1., 0., 2.],
                [3., 0., 4.]])
    """
    check_tensor(input, "masked_scatter")
    if mask.__class__ is not Tensor or mask.dtype.name != "bool":
        dt = SCALAR_TYPE[mask._dtype.name] if mask.__class__ is Tensor else type(mask).__name__
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with "
                           f"dtype {dt}")
    if source.dtype is not input.dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but "
                           f"got{SCALAR_TYPE[input._dtype.name]} and "
                           f"{SCALAR_TYPE[source._dtype.name]}")
    from .rearrange import broadcast_to

    out = input.clone()
    full = broadcast_to(mask, tuple(out.shape))
    n = int(full.sum().item())
    if n > source.numel():
        raise RuntimeError("Number of elements of source < number of ones in mask")
    out[full] = source.reshape(-1)[:n]
    return out


def put(input, index, source, accumulate=False):
    """A copy of ``input`` with the values of ``source`` written at the flat indices ``index``.

    ``input`` is treated as if it were flattened (1-d); negative indices count from the end.

    Args:
        input (Tensor): the input.
        index (LongTensor): the flat indices.
        source (Tensor): the values, as many as the indices.
        accumulate (bool, optional): add the values to those already there instead of
            replacing them (indices may then repeat). Default: ``False``.

    Example::

        >>> import nbgrad
        >>> nbgrad.put(nbgrad.zeros(2, 2), nbgrad.tensor([0, 3]), nbgrad.tensor([1.0, 2.0]))
        tensor([[1., 0.],
                [0., 2.]])
        >>> idx = nbgrad.tensor([0, 0, -1])
        >>> nbgrad.put(nbgrad.ones(3), idx, nbgrad.tensor([1.0, 2.0, 3.0]), accumulate=True)
        tensor([4., 1., 4.])
    """
    check_tensor(input, "put")
    if index.numel() != source.numel():
        raise IndexError(f"put_(): Expected source and index to have the same number of "
                         f"elements, but got source.numel() = {source.numel()}, "
                         f"index.numel() = {index.numel()}")
    n = input.numel()
    flat_index = index.reshape(-1)
    if flat_index.numel():
        lo, hi = int(flat_index.min().item()), int(flat_index.max().item())
        bad = hi if hi >= n else (lo if lo < -n else None)
        if bad is not None:
            raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} "
                             "elements.")
    out = input.clone()
    flat = out.view(-1)
    flat.index_put_((flat_index % max(n, 1),), source.reshape(-1), accumulate=accumulate)
    return out


def masked_scatter_(input, mask, source):
    """In-place ``masked_scatter``."""
    from .inplace import inplace_binary

    return inplace_binary("masked_scatter_", lambda a, b: masked_scatter(a, mask, b), input,
                          source)


def put_(input, index, source, accumulate=False):
    """In-place ``put``."""
    from .inplace import inplace_binary

    return inplace_binary("put_", lambda a, b: put(a, index, b, accumulate), input, source)
