"""Indexing along a dim, with gradients: ``index_select gather scatter_add index_add
take_along_dim`` and ``embedding`` (advanced indexing, ``x[idx]``, is in
ops/advanced_index.py, which shares the offset helpers here).

Every backward rule is written with these same ops, so double backward works:
``index_select`` <-> ``index_add``, ``gather`` <-> ``scatter_add``. Duplicate indices
accumulate their gradients.
"""

import numpy as np

from .. import dtypes as _dt
from ..storage.layout import copy_data
from ..tensor import _wrap
from ._core import (
    SCALAR_TYPE,
    Node,
    Tensor,
    backend,
    broadcast_shapes,
    contiguous_data,
    kernel,
    needs_grad,
    record,
    same_device,
    save,
)
from .shape import _wrap_dim, expand, getitem, reshape

_ERR_DTYPE = "tensors used as indices must be long, int, byte or bool tensors"


# ----- helpers ----------------------------------------------------------------------------
def _cstrides(shape):
    """Element strides of a C-contiguous array of ``shape``."""
    st = [1] * len(shape)
    acc = 1
    for i in range(len(shape) - 1, -1, -1):
        st[i] = acc
        acc *= int(shape[i])
    return st


def _offsets(sizes, strides):
    """Flat element offsets of every point of the grid ``sizes`` (C order), int64."""
    o = np.zeros((), np.int64)
    for n, s in zip(sizes, strides):
        o = o[..., None] + np.arange(n, dtype=np.int64) * s
    return np.ascontiguousarray(o).reshape(-1)


def _host(x):
    """Tensor ``x``'s values as a NumPy array (for validation and offset planning)."""
    return np.asarray(backend(x._device).to_host(x._data))


def _zeros(shape, like):
    dt, dev = like._dtype, like._device
    return _wrap(backend(dev).zeros(tuple(shape), dt.np), dt, dev)


def _first_bad(h, size, wrap=False):
    """The first value of int array ``h`` out of range for a dim of ``size``, or None."""
    if h.size == 0:
        return None
    lo = -size if wrap else 0
    if h.min() >= lo and h.max() < size:
        return None
    flat = h.reshape(-1)
    return int(flat[np.argmax((flat < lo) | (flat >= size))])


def _need_tensor(x, op, name, pos):
    if not isinstance(x, Tensor):
        raise TypeError(
            f"{op}(): argument '{name}' (position {pos}) must be Tensor, not {type(x).__name__}"
        )


def _int_index(index, op, msg=None):
    _need_tensor(index, op, "index", 3)
    if index._dtype not in (_dt.int64, _dt.int32):
        raise RuntimeError(msg or f"{op}(): Expected dtype int32/int64 for index")


_GRIDS = {}  # (shape, d, ishape) -> _grid's arrays (read-only: kernels only read them)


def _grid(shape, d, ishape):
    """Offsets for the ``(A, K, B)`` form: dims before/after ``d`` over ``ishape``, in an
    input of ``shape``; and the element stride of dim ``d``. Cached: a training loop
    indexes the same shapes every step."""
    key = (shape, d, tuple(ishape))
    r = _GRIDS.get(key)
    if r is None:
        cst = _cstrides(shape)
        offa = _offsets(ishape[:d], cst[:d])
        offb = _offsets(ishape[d + 1:], cst[d + 1:])
        offa.flags.writeable = offb.flags.writeable = False
        r = (offa, offb, np.int64(cst[d]))
        if len(_GRIDS) >= 1024:
            _GRIDS.clear()
        _GRIDS[key] = r
    return r


def _gather_data(x, d, idx, ishape, vector):
    """``out[..., k, ...] = x[..., idx[...k...], ...]`` over the grid ``ishape``.

    ``idx`` is the index tensor: of shape ``ishape`` (gather) or, when ``vector``, 1-d
    and applied along dim ``d`` at every position (index_select).
    """
    dev = x._device
    be = backend(dev)
    out = be.empty(tuple(ishape), x._dtype.np)
    if out.size == 0:
        return out
    offa, offb, sdim = _grid(tuple(x.shape), d, ishape)
    A, K, B = offa.size, ishape[d], offb.size
    ix = contiguous_data(idx)
    if vector:
        ix = be.as_strided(ix.reshape(-1), (A, K, B), (0, ix.dtype.itemsize, 0))
    else:
        ix = ix.reshape(A, K, B)
    kernel("index_gather", dev)(
        contiguous_data(x).reshape(-1), ix, be.from_host(offa), be.from_host(offb), sdim,
        out.reshape(A, K, B),
    )
    return out


def _scatter_data(x, d, idx, src, vector):
    """A contiguous copy of ``x`` with ``src`` added at ``idx`` along ``d`` (see above)."""
    return _scatter_into(copy_data(x._data, x._dtype, x._device), x._device, d, idx, src,
                         vector)


def _scatter_into(out, dev, d, idx, src, vector):
    """Add ``src`` at ``idx`` along ``d`` into C-contiguous array ``out``; returns it."""
    be = backend(dev)
    ishape = tuple(src.shape)
    if src._data.size == 0:
        return out
    offa, offb, sdim = _grid(tuple(out.shape), d, ishape)
    A, K, B = offa.size, ishape[d], offb.size
    ix = contiguous_data(idx)
    if vector:
        ix = be.as_strided(ix.reshape(-1), (A, K, B), (0, ix.dtype.itemsize, 0))
    else:
        ix = ix.reshape(A, K, B)
    sd = contiguous_data(src).reshape(A, K, B)
    kernel("index_scatter_add", dev)(
        out.reshape(-1), ix, be.from_host(offa), be.from_host(offb), sdim, sd
    )
    return out


def _check_bounds_rt(index, d, size):
    bad = _first_bad(_host(index), size)
    if bad is not None:
        raise RuntimeError(f"index {bad} is out of bounds for dimension {d} with size {size}")


def _as_1d(x):
    return x if x.ndim else reshape(x, (1,))


# ----- index_select / index_add ---------------------------------------------------------------
def _added_to_zeros(shape, d, index, g):
    """``index_add(zeros(shape), d, index, g)``, the backward of a read of rows ``index``
    (index_select, embedding): a fresh zero buffer takes ``g`` directly (no copy of the
    zeros, and ``index`` was checked when the rows were read) unless the result must be
    differentiable itself."""
    if needs_grad(g):
        return index_add(_zeros(shape, g), d, index, g)
    dt, dev = g._dtype, g._device
    out = backend(dev).zeros(tuple(shape), dt.np)
    return _wrap(_scatter_into(out, dev, d, index, g, True), dt, dev)


class IndexSelectBackward0(Node):
    __slots__ = ()

    def backward(self, saved, g):
        (index,) = saved
        d, shape = self.attrs
        return (_added_to_zeros(shape, d, index, g),)


def _check_select(input, dim, index, op):
    _need_tensor(input, op, "input", 1)
    _int_index(index, op, f"{op}(): Expected dtype int32 or int64 for index")
    same_device(op, input, index)
    if index.ndim > 1:
        raise IndexError(f"{op}(): Index is supposed to be a vector")
    return _wrap_dim(int(dim), input.ndim)


def index_select(input, dim, index):
    """The entries of ``input`` along ``dim`` at the positions in the 1-d ``index``."""
    d = _check_select(input, dim, index, "index_select")
    if input.ndim == 0:
        return reshape(index_select(reshape(input, (1,)), 0, index), ())
    n = input.shape[d]
    if _first_bad(_host(index), n) is not None:
        raise IndexError("index out of range in self")
    ishape = list(input.shape)
    ishape[d] = index.numel()
    out = _wrap(_gather_data(input, d, index, tuple(ishape), True), input._dtype, input._device)
    if needs_grad(input):
        record(IndexSelectBackward0, out, (input,), (save(index),), (d, tuple(input.shape)))
    return out


class IndexAddBackward0(Node):
    __slots__ = ()

    def backward(self, saved, g):
        (index,) = saved
        d = self.attrs
        fi, fs = self.next_functions
        gi = g if fi[0] is not None else None
        gs = index_select(g, d, index) if fs[0] is not None else None
        return gi, gs


def index_add(input, dim, index, source, *, alpha=1):
    """``input`` with ``alpha * source`` added along ``dim`` at rows ``index`` (out of
    place; duplicate indices add up)."""
    op = "index_add_"
    _need_tensor(input, op, "input", 1)
    _need_tensor(index, op, "index", 3)
    if index._dtype not in (_dt.int64, _dt.int32):
        raise RuntimeError(
            f"index_add_(): Expected dtype int32/int64 for index but got: "
            f"{SCALAR_TYPE[index._dtype.name]}"
        )
    _need_tensor(source, op, "source", 4)
    same_device(op, input, index, source)
    if index.ndim > 1:
        raise IndexError(
            f"index_add_(): Index is supposed to be a vector, but got dim: {index.ndim} with "
            f"type: {SCALAR_TYPE[index._dtype.name]} and size: {list(index.shape)}"
        )
    if input.ndim == 0:
        return reshape(index_add(reshape(input, (1,)), dim, index, _as_1d(source), alpha=alpha),
                       ())
    d = _wrap_dim(int(dim), input.ndim)
    if source._dtype is not input._dtype:
        raise RuntimeError(
            f"index_add_(): self ({SCALAR_TYPE[input._dtype.name]}) and source "
            f"({SCALAR_TYPE[source._dtype.name]}) must have the same scalar type"
        )
    src = _as_1d(source)
    xs, ss = tuple(input.shape), tuple(src.shape)
    if len(xs) != len(ss) or any(a != b for i, (a, b) in enumerate(zip(xs, ss)) if i != d):
        raise RuntimeError(
            "source tensor shape must match self tensor shape, excluding the specified "
            f"dimension. Got self.shape = {list(xs)} source.shape = {list(source.shape)}"
        )
    k = index.numel()
    if k != ss[d]:
        raise RuntimeError(
            f"index_add_(): Number of indices ({k}) should be equal to source.size(dim): "
            f"({ss[d]}), for dim: {d}"
        )
    _check_bounds_rt(index, d, xs[d])
    if alpha != 1:
        from .elementwise import mul

        src = mul(src, alpha)
    out = _wrap(_scatter_data(input, d, index, src, True), input._dtype, input._device)
    if needs_grad(input, src):
        record(IndexAddBackward0, out, (input, src), (save(index),), d)
    return out


# ----- gather / scatter_add / take_along_dim --------------------------------------------------
class GatherBackward0(Node):
    __slots__ = ()

    def backward(self, saved, g):
        (index,) = saved
        d, shape = self.attrs
        return (scatter_add(_zeros(shape, g), d, index, g),)


def gather(input, dim, index, *, sparse_grad=False):
    """``out[i][j] = input[index[i][j]][j]`` (for ``dim=0``; likewise for any dim)."""
    _need_tensor(input, "gather", "input", 1)
    _int_index(index, "gather")
    same_device("gather", input, index)
    if sparse_grad:
        raise NotImplementedError("gather(): sparse_grad=True is not supported by nbgrad")
    if input.ndim == 0 or index.ndim == 0:
        if max(input.ndim, 1) != max(index.ndim, 1):
            raise RuntimeError(
                "Index tensor must have the same number of dimensions as input tensor"
            )
        r = gather(_as_1d(input), dim, _as_1d(index))
        return r if index.ndim else reshape(r, ())
    d = _wrap_dim(int(dim), input.ndim)
    xs, ishape = tuple(input.shape), tuple(index.shape)
    if len(xs) != len(ishape):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    for i, (a, b) in enumerate(zip(xs, ishape)):
        if i != d and b > a:
            raise RuntimeError(
                f"Size does not match at dimension {i} expected index {list(ishape)} to be no "
                f"larger than self {list(xs)} apart from dimension {d}"
            )
    _check_bounds_rt(index, d, xs[d])
    out = _wrap(_gather_data(input, d, index, ishape, False), input._dtype, input._device)
    if needs_grad(input):
        record(GatherBackward0, out, (input,), (save(index),), (d, xs))
    return out


class ScatterAddBackward0(Node):
    __slots__ = ()

    def backward(self, saved, g):
        (index,) = saved
        d = self.attrs
        fi, fs = self.next_functions
        gi = g if fi[0] is not None else None
        gs = gather(g, d, index) if fs[0] is not None else None
        return gi, gs


def scatter_add(input, dim, index, src):
    """``input`` with ``src[i][j]`` added at ``[index[i][j]][j]`` (for ``dim=0``), out of
    place; duplicate indices add up."""
    op = "scatter_add"
    _need_tensor(input, op, "input", 1)
    _int_index(index, op, "scatter(): Expected dtype int64 for index")
    _need_tensor(src, op, "src", 4)
    same_device(op, input, index, src)
    if src._dtype is not input._dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    if input.ndim == 0 or index.ndim == 0 or src.ndim == 0:
        r = scatter_add(_as_1d(input), dim, _as_1d(index), _as_1d(src))
        return r if input.ndim else reshape(r, ())
    d = _wrap_dim(int(dim), input.ndim)
    xs, ishape, ss = tuple(input.shape), tuple(index.shape), tuple(src.shape)
    if len(ishape) != len(xs):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    if len(ishape) != len(ss):
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    if any(b > s for b, s in zip(ishape, ss)) or any(
        i != d and b > a for i, (a, b) in enumerate(zip(xs, ishape))
    ):
        raise RuntimeError(
            f"Expected index {list(ishape)} to be no larger than self {list(xs)} apart from "
            f"dimension {d} and to be no larger size than src {list(ss)}"
        )
    _check_bounds_rt(index, d, xs[d])
    if ss != ishape:  # only the index-shaped corner of src is used (a view: grads flow)
        src = getitem(src, tuple(slice(0, n) for n in ishape))
    out = _wrap(_scatter_data(input, d, index, src, False), input._dtype, input._device)
    if needs_grad(input, src):
        record(ScatterAddBackward0, out, (input, src), (save(index),), d)
    return out


def take_along_dim(input, indices, dim=None):
    """Values of ``input`` at ``indices`` along ``dim`` (broadcasting the other dims), or
    of the flattened ``input`` when ``dim`` is None."""
    _need_tensor(input, "take_along_dim", "input", 1)
    _need_tensor(indices, "take_along_dim", "indices", 2)
    if dim is None:
        return gather(reshape(input, (-1,)), 0, reshape(indices, (-1,)))
    if input.ndim != indices.ndim:
        raise RuntimeError(
            "torch.take_along_dim(): input and indices should have the same number of "
            f"dimensions, but got {input.ndim} dimensions for input, and {indices.ndim} "
            "dimensions for indices"
        )
    if input.ndim == 0:
        return gather(input, dim, indices)
    d = _wrap_dim(int(dim), input.ndim)
    a, b = list(input.shape), list(indices.shape)
    na, nb = a[d], b[d]
    a[d] = b[d] = 1
    bs = list(broadcast_shapes(tuple(a), tuple(b)))
    bs[d] = na
    x = expand(input, tuple(bs)) if tuple(bs) != tuple(input.shape) else input
    bs[d] = nb
    ix = expand(indices, tuple(bs)) if tuple(bs) != tuple(indices.shape) else indices
    return gather(x, d, ix)


# ----- in-place method forms -----------------------------------------------------------------
def scatter_add_(input, dim, index, src):
    """In-place ``scatter_add``."""
    from .inplace import inplace_binary

    return inplace_binary("scatter_add_", lambda a, b: scatter_add(a, dim, index, b), input, src)


def index_add_(input, dim, index, source, *, alpha=1):
    """In-place ``index_add``."""
    from .inplace import inplace_binary

    return inplace_binary(
        "index_add_", lambda a, b: index_add(a, dim, index, b, alpha=alpha), input, source
    )


# ----- embedding ------------------------------------------------------------------------------
class EmbeddingBackward0(Node):
    __slots__ = ()

    def backward(self, saved, g):
        (idx,) = saved
        n, scale = self.attrs
        g2 = reshape(g, (-1, g.shape[-1]))
        if scale is not None:
            from .elementwise import mul

            g2 = mul(g2, _wrap(backend(g._device).from_host(scale.astype(g._dtype.np)),
                               g._dtype, g._device))
        return (_added_to_zeros((n, g.shape[-1]), 0, idx, g2),)


def _renorm_(weight, h, max_norm, norm_type):
    """PyTorch's ``embedding_renorm_``: rows of ``weight`` used by ``h`` whose
    ``norm_type``-norm exceeds ``max_norm`` are scaled in place to norm ``max_norm``."""
    from ..autograd.grad_mode import no_grad
    from .elementwise import where

    rows_at = np.unique(h)
    with no_grad():
        rows = weight[rows_at]
        if norm_type == float("inf"):
            norms = rows.abs().amax(1, keepdim=True)
        else:
            norms = (rows.abs() ** norm_type).sum(1, keepdim=True) ** (1.0 / norm_type)
        scale = where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
        weight[rows_at] = rows * scale


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """Rows of ``weight`` at the integer ``input``; ``padding_idx``'s row gets no gradient,
    ``scale_grad_by_freq`` divides each row's gradient by its count in ``input``, and
    ``max_norm`` first renormalizes the used rows of ``weight`` in place (as PyTorch)."""
    _need_tensor(input, "embedding", "input", 1)
    _need_tensor(weight, "embedding", "weight", 2)
    if input._dtype not in (_dt.int64, _dt.int32):
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar "
            f"types: Long, Int; but got {SCALAR_TYPE[input._dtype.name]}Tensor instead (while "
            "checking arguments for embedding)"
        )
    if sparse:
        raise NotImplementedError("embedding(): sparse=True (sparse gradients) is not supported")
    if weight.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    same_device("embedding", input, weight)
    n, dd = weight.shape
    if padding_idx is not None:
        padding_idx = int(padding_idx)
        if not -n <= padding_idx < n:
            raise AssertionError("Padding_idx must be within num_embeddings")
        if padding_idx < 0:
            padding_idx += n
    flat = input if input.ndim == 1 else _wrap(contiguous_data(input).reshape(-1), input._dtype,
                                                input._device)
    h = _host(flat)
    if _first_bad(h, n) is not None:
        raise IndexError("index out of range in self")
    if max_norm is not None:
        _renorm_(weight, h, float(max_norm), float(norm_type))
    data = _gather_data(weight, 0, flat, (h.size, dd), True)
    out = _wrap(data.reshape(tuple(input.shape) + (dd,)), weight._dtype, weight._device)
    if needs_grad(weight):
        scale = None
        if padding_idx is not None or scale_grad_by_freq:
            scale = np.ones(h.size)
            if scale_grad_by_freq:
                scale /= np.bincount(h, minlength=n)[h]
            if padding_idx is not None:
                scale[h == padding_idx] = 0.0
            scale = scale[:, None]
        record(EmbeddingBackward0, out, (weight,), (save(flat),), (n, scale))
    return out


__all__ = ["index_select", "index_add", "gather", "scatter_add", "take_along_dim"]
