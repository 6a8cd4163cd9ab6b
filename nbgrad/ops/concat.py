"""Joining and splitting: cat, stack, split, chunk, unbind, narrow; and roll (a tensor's
pieces put back together shifted)."""

import functools

from .. import dtypes as _dt
from ..amp.policy import autocast_op
from ..creation import zeros
from ..storage.layout import copy_data
from ._core import Tensor, backend, same_device
from .funcdef import deffunc, same_dtype, same_shape, surface
from .shape import SPLIT, SPLIT_WITH_SIZES, _wrap_dim, getitem, split_views


def _skipped(shape, ndim):
    # PyTorch's legacy rule: an empty 1-d tensor beside tensors of other ranks is skipped
    return len(shape) == 1 and shape[0] == 0 and ndim != 1


def _reference(items):
    """The operand whose rank the others must have: the first that is not a skipped empty
    1-d tensor (``cat([tensor([]), x])`` is ``x``, as in PyTorch)."""
    ranked = [a for a in items if a.ndim > 0]
    return next((a for a in ranked if a.shape != (0,)), ranked[0] if ranked else items[0])


def _cat_forward(arrays, odt, dev, dim):
    ref = _reference(arrays)
    parts = [a for a in arrays if not _skipped(a.shape, ref.ndim)]
    shape = list(ref.shape)
    shape[dim] = sum(a.shape[dim] for a in parts)
    be = backend(dev)
    data = be.empty(tuple(shape), odt.np)
    start = 0
    for a in parts:
        n = a.shape[dim]
        if n:
            copy_data(a, odt, dev, out=be.getitem(data, (slice(None),) * dim + (slice(start, start + n),)))
        start += n
    return data


def _cat_shape(shapes, dim):
    ref = next((s for s in shapes if len(s) > 0), shapes[0])
    out = list(ref)
    out[dim] = sum(s[dim] for s in shapes if not _skipped(s, len(ref)))
    return tuple(out)


def cat_backward(grad, sizes, dim, mask):
    """The gradient of each of ``cat``'s tensors (of shapes ``sizes``): its slice of
    ``grad`` along ``dim`` (None where ``mask`` says none is needed)."""
    out = []
    start = 0
    nd = grad.ndim
    for shape, need in zip(sizes, mask):
        if _skipped(shape, nd):
            out.append(zeros(shape, dtype=grad.dtype, device=grad.device) if need else None)
            continue
        n = shape[dim]
        out.append(getitem(grad, (slice(None),) * dim + (slice(start, start + n),))
                   if need else None)
        start += n
    return out


CAT = deffunc("cat", params=("tensors",), listed=True, kernels=("copy",), forward=_cat_forward,
              dtype=lambda dts, dim: functools.reduce(_dt.promote_types, dts), shape=_cat_shape,
              args=("dim",),
              grads=("cat_backward(grad, tensors_shape, dim, grad_input_mask)",),
              fn=False, method=False)


@surface(CAT)
@autocast_op("cat")
def cat(tensors, dim=0):
    """Concatenate ``tensors`` along the existing dimension ``dim``.

    The tensors must have the same shape except along ``dim``; their dtypes are promoted.
    :func:`nbgrad.concat` and :func:`nbgrad.concatenate` are other names for it;
    :func:`nbgrad.stack` joins along a new dimension.

    Args:
        tensors (sequence of Tensor): the tensors to join, on one device.
        dim (int, optional): the dimension to join along. Default: ``0``.

    Example::

        >>> import nbgrad
        >>> nbgrad.cat([nbgrad.tensor([1.0, 2.0]), nbgrad.tensor([3.0])])
        tensor([1., 2., 3.])
        >>> x = nbgrad.tensor([[1, 2], [3, 4]])
        >>> nbgrad.cat((x, x), dim=1)
        tensor([[1, 2, 1, 2],
                [3, 4, 3, 4]])
    """
    tensors = list(tensors)
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element in argument 0, but got {type(t).__name__}")
    same_device("cat", *tensors)
    ref = _reference(tensors)
    if ref.ndim == 0:
        raise RuntimeError("zero-dimensional tensor (at position 0) cannot be concatenated")
    d = _wrap_dim(dim, ref.ndim)
    shape = list(ref.shape)
    for i, t in enumerate(tensors):
        if _skipped(t._data.shape, ref.ndim):
            continue
        if t.ndim != ref.ndim:
            raise RuntimeError(
                f"Tensors must have same number of dimensions: got {ref.ndim} and {t.ndim}"
            )
        for k in range(ref.ndim):
            if k != d and t.shape[k] != shape[k]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size "
                    f"{shape[k]} but got size {t.shape[k]} for tensor number {i} in the list."
                )
    return CAT.call(tensors, d)


def _stack_forward(arrays, odt, dev, dim):
    shape = list(arrays[0].shape)
    shape.insert(dim, len(arrays))
    be = backend(dev)
    data = be.empty(tuple(shape), odt.np)
    if data.size:
        for i, a in enumerate(arrays):
            copy_data(a, odt, dev, out=be.getitem(data, (slice(None),) * dim + (i,)))
    return data


def _stack_shape(shapes, dim):
    out = list(shapes[0])
    out.insert(dim, len(shapes))
    return tuple(out)


def stack_backward(grad, dim, mask):
    """The gradient of each of ``stack``'s tensors: its index along ``dim`` of ``grad``
    (None where ``mask`` says none is needed)."""
    lead = (slice(None),) * dim
    return [getitem(grad, lead + (i,)) if need else None for i, need in enumerate(mask)]


# stack(tensors, dim): one node with an edge per tensor, as PyTorch's StackBackward0
STACK = deffunc("stack", params=("tensors",), listed=True, kernels=("copy",),
                forward=_stack_forward,
                dtype=lambda dts, dim: functools.reduce(_dt.promote_types, dts),
                shape=_stack_shape, args=("dim",),
                grads=("stack_backward(grad, dim, grad_input_mask)",), fn=False,
                method=False)


@surface(STACK)
@autocast_op("stack")
def stack(tensors, dim=0):
    """Join ``tensors`` of one shape along a new dimension ``dim``.

    The result has one more dimension than the tensors, of size ``len(tensors)``, inserted
    at ``dim``; their dtypes are promoted. :func:`nbgrad.cat` joins along an existing
    dimension.

    Args:
        tensors (sequence of Tensor): the tensors to join, all of one shape.
        dim (int, optional): where the new dimension is, in the result (from
            ``-input.ndim - 1`` to ``input.ndim``). Default: ``0``.

    Example::

        >>> import nbgrad
        >>> nbgrad.stack([nbgrad.tensor([1.0, 2.0]), nbgrad.tensor([3.0, 4.0])], 1)
        tensor([[1., 3.],
                [2., 4.]])
    """
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    for t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element in argument 0, but got {type(t).__name__}")
    s0 = tuple(tensors[0].shape)
    for i, t in enumerate(tensors):
        if tuple(t.shape) != s0:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(s0)} at entry 0 "
                f"and {list(t.shape)} at entry {i}"
            )
    same_device("stack", *tensors)
    return STACK.call(tensors, _wrap_dim(dim, len(s0) + 1))


@surface(SPLIT, SPLIT_WITH_SIZES)
def split(tensor, split_size_or_sections, dim=0):
    """Split ``tensor`` along ``dim`` into chunks, as a tuple of views.

    With an int ``split_size_or_sections``, each chunk has that size along ``dim`` (the
    last one smaller if the size does not divide evenly); with a list, the chunks have the
    sizes listed, which must add up to the size of ``dim``.

    Args:
        tensor (Tensor): the tensor to split.
        split_size_or_sections (int or list of ints): the size of each chunk, or the list
            of their sizes.
        dim (int, optional): the dimension to split along. Default: ``0``.

    Returns:
        tuple of Tensor: the chunks, views of ``tensor``.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.arange(5)
        >>> nbgrad.split(x, 2)
        (tensor([0, 1]), tensor([2, 3]), tensor([4]))
        >>> nbgrad.split(x, [1, 4])
        (tensor([0]), tensor([1, 2, 3, 4]))
        >>> [c.shape for c in nbgrad.split(nbgrad.zeros(2, 6), 3, dim=1)]
        [nbgrad.Size([2, 3]), nbgrad.Size([2, 3])]
    """
    d = _wrap_dim(dim, tensor.ndim)
    n = tensor.shape[d]
    if isinstance(split_size_or_sections, int):
        s = split_size_or_sections
        if s <= 0 and n:
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {n}")
        sizes = [min(s, n - i) for i in range(0, n, s)] if n else [0]
    else:
        sizes = list(split_size_or_sections)
        if sum(sizes) != n:
            raise RuntimeError(
                f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's "
                f"size at dimension {d}), but got split_sizes={sizes}"
            )
    return split_views(tensor, d, sizes, not isinstance(split_size_or_sections, int))


def chunk(input, chunks, dim=0):
    """Split ``input`` along ``dim`` into ``chunks`` views of nearly equal size.

    Each chunk has ``ceil(size / chunks)`` elements along ``dim``, the last one fewer;
    so there may be fewer than ``chunks`` of them (6 elements in 4 chunks give 3 chunks of
    2). :func:`nbgrad.tensor_split` always gives ``chunks`` of them.

    Args:
        input (Tensor): the tensor to split.
        chunks (int): the number of chunks wanted.
        dim (int, optional): the dimension to split along. Default: ``0``.

    Returns:
        tuple of Tensor: the chunks, views of ``input``.

    Example::

        >>> import nbgrad
        >>> nbgrad.chunk(nbgrad.arange(5), 2)
        (tensor([0, 1, 2]), tensor([3, 4]))
        >>> nbgrad.chunk(nbgrad.arange(6), 4)
        (tensor([0, 1]), tensor([2, 3]), tensor([4, 5]))
    """
    if chunks <= 0:
        raise RuntimeError("chunk expects `chunks` to be greater than 0, got: " + str(chunks))
    d = _wrap_dim(dim, input.ndim)
    n = input.shape[d]
    size = -(-n // chunks) if n else 0
    return split(input, size if size else 1, d) if n else (input,)


def unbind(input, dim=0):
    """The slices of ``input`` along ``dim``, that dimension removed, as a tuple of views.

    Args:
        input (Tensor): the tensor to take apart.
        dim (int, optional): the dimension to remove. Default: ``0``.

    Returns:
        tuple of Tensor: ``input.shape[dim]`` tensors of one dimension less.

    Example::

        >>> import nbgrad
        >>> [t.tolist() for t in nbgrad.tensor([[1, 2], [3, 4]]).unbind(1)]
        [[1, 3], [2, 4]]
        >>> nbgrad.unbind(nbgrad.tensor([[1, 2], [3, 4]]))
        (tensor([1, 2]), tensor([3, 4]))
    """
    d = _wrap_dim(dim, input.ndim)
    return tuple(t.squeeze(d) for t in split(input, 1, d)) if input.shape[d] else ()


def narrow(input, dim, start, length):
    """A view of ``input`` narrowed to ``length`` elements along ``dim``, from ``start``.

    The same as ``input[..., start:start + length, ...]`` with the slice at ``dim``; a
    negative ``start`` counts from the end.

    Args:
        input (Tensor): the tensor to narrow (at least 1-d).
        dim (int): the dimension to narrow.
        start (int): the first element kept along ``dim``.
        length (int): the number of elements kept.

    Example::

        >>> import nbgrad
        >>> nbgrad.arange(6).narrow(0, 2, 3)
        tensor([2, 3, 4])
        >>> nbgrad.narrow(nbgrad.tensor([[1, 2, 3], [4, 5, 6]]), 1, -2, 2)
        tensor([[2, 3],
                [5, 6]])
    """
    if input.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    d = _wrap_dim(dim, input.ndim)
    n = input.shape[d]
    if not -n <= start <= n:
        raise IndexError(f"start out of range (expected to be in range of [{-n}, {n}], but "
                         f"got {start})")
    if start < 0:
        start += n
    if start + length > n:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({n}).")
    return input[(slice(None),) * d + (slice(start, start + length),)]



def _roll_forward(x, odt, dev, shifts, dims):
    be = backend(dev)
    if not dims:  # the flattened tensor rolled, then its shape again
        flat = copy_data(x, odt, dev).reshape(-1)
        return _roll_forward(flat, odt, dev, shifts, (0,)).reshape(x.shape)
    out = copy_data(x, odt, dev)  # (a new array even when nothing moves)
    for s, d in zip(shifts, dims):
        n = out.shape[d]
        s = s % n if n else 0
        if s:
            src, out = out, be.empty(tuple(out.shape), odt.np)
            head = (slice(None),) * d
            copy_data(be.getitem(src, head + (slice(0, n - s),)), odt, dev,
                      out=be.getitem(out, head + (slice(s, n),)))
            copy_data(be.getitem(src, head + (slice(n - s, n),)), odt, dev,
                      out=be.getitem(out, head + (slice(0, s),)))
    return out


ROLL = deffunc("roll", kernels=("copy",), forward=_roll_forward, dtype=same_dtype,
               shape=same_shape, args=("shifts", "dims"),
               grads=("roll(grad, tuple(-s for s in shifts), dims)",), fn=False,
               method=False)


@surface(ROLL)
def roll(input, shifts, dims=None):
    """``input`` with its elements shifted ``shifts`` places along ``dims``, those shifted
    past the end coming back at the start.

    ``shifts`` and ``dims`` may be tuples of equal length (each shift along its dim);
    without ``dims`` the tensor is rolled as if flattened, then given its shape again.

    Args:
        input (Tensor): the input tensor.
        shifts (int or tuple of ints): the number of places to shift (negative: towards
            the start).
        dims (int or tuple of ints, optional): the dimensions to roll along. Default:
            ``None``, the flattened tensor.

    Example::

        >>> import nbgrad
        >>> nbgrad.roll(nbgrad.tensor([1, 2, 3, 4]), 1)
        tensor([4, 1, 2, 3])
    """
    shifts = tuple(shifts) if isinstance(shifts, (tuple, list)) else (shifts,)
    if dims is None or (isinstance(dims, (tuple, list)) and not dims):
        if not shifts:
            raise RuntimeError("`shifts` required")
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, "
                               "dims:0")
        return ROLL.call(input, (int(shifts[0]),), ())
    dims = tuple(dims) if isinstance(dims, (tuple, list)) else (dims,)
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, "
                           f"dims:{len(dims)}")
    n = max(input.ndim, 1)
    return ROLL.call(input, tuple(int(s) for s in shifts), tuple(_wrap_dim(d, n) for d in dims))
