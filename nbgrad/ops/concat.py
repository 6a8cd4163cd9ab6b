"""Joining and splitting: cat, stack, split, chunk."""

from ..storage.layout import copy_data
from ..tensor import _wrap
from ._core import Node, Tensor, backend, needs_grad, record, same_device
from .shape import _wrap_dim, getitem, split_views, unsqueeze


class CatBackward0(Node):
    __slots__ = ()

    def backward(self, saved, g):
        dim, sizes = self.attrs
        out = []
        start = 0
        for (fn, _), n in zip(self.next_functions, sizes):
            key = (slice(None),) * dim + (slice(start, start + n),)
            out.append(getitem(g, key) if fn is not None else None)
            start += n
        return tuple(out)


def cat(tensors, dim=0):
    """Join tensors along an existing dim."""
    from .. import dtypes as _dt

    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("torch.cat(): expected a non-empty list of Tensors")
    for t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element in argument 0, but got {type(t).__name__}")
    dev = same_device("cat", *tensors)
    ref = next((t for t in tensors if t.ndim > 0), tensors[0])
    if ref.ndim == 0:
        raise RuntimeError("zero-dimensional tensor (at position 0) cannot be concatenated")
    d = _wrap_dim(dim, ref.ndim)
    dt = _dt.result_type([t for t in tensors])
    shape = list(ref.shape)
    total = 0
    used = []
    for i, t in enumerate(tensors):
        if t.ndim == 1 and t.shape[0] == 0 and ref.ndim != 1:
            used.append(0)
            continue  # legacy: empty 1-d tensors are skipped
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
        used.append(t.shape[d])
        total += t.shape[d]
    shape[d] = total
    be = backend(dev)
    data = be.empty(tuple(shape), dt.np)
    start = 0
    for t, n in zip(tensors, used):
        if n:
            key = (slice(None),) * d + (slice(start, start + n),)
            copy_data(t._data, dt, dev, out=be.getitem(data, key))
        start += n
    out = _wrap(data, dt, dev)
    if needs_grad(*tensors):
        record(CatBackward0, out, tensors, (), (d, used))
    return out


def stack(tensors, dim=0):
    """Join tensors along a new dim."""
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    s0 = tuple(tensors[0].shape)
    for i, t in enumerate(tensors):
        if tuple(t.shape) != s0:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(s0)} at entry 0 "
                f"and {list(t.shape)} at entry {i}"
            )
    d = _wrap_dim(dim, len(s0) + 1)
    return cat([unsqueeze(t, d) for t in tensors], d)


def split(tensor, split_size_or_sections, dim=0):
    """Views of ``tensor`` split along ``dim`` into chunks of a size or of given sizes."""
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
    """Split into ``chunks`` nearly equal views along ``dim``."""
    if chunks <= 0:
        raise RuntimeError("chunk expects `chunks` to be greater than 0, got: " + str(chunks))
    d = _wrap_dim(dim, input.ndim)
    n = input.shape[d]
    size = -(-n // chunks) if n else 0
    return split(input, size if size else 1, d) if n else (input,)
