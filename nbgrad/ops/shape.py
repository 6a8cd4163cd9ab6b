"""Shape ops. Views share storage and the version counter with their base; repeat, tile
and flip make copies."""

from weakref import ref as _wr

import numpy as np

from ..autograd.grad_mode import STATE as _STATE
from ..autograd.grad_mode import no_grad
from ..storage.layout import copy_data
from ..tensor import _wrap, _wrap_dim
from ._core import Node, Tensor, backend, check_tensor, needs_grad, record
from .elementwise import sum_to
from .view_inplace import _MULTI
from .view_inplace import Views as _Views
from .view_inplace import register as _register_view


def _view(x, arr):
    """A tensor that views ``arr``, a view of ``x``'s storage."""
    t = _wrap(arr, x._dtype, x._device)
    t._vc = x._vc
    x._owner = None  # its memory is now visible through the view (see nbgrad.tensor._fresh)
    b = x._base
    if b is None:
        b = x
    t._base = b
    if x._rg and b._grad_fn is not None and _STATE.enabled:
        # the view gets history: an in-place op on its base must keep it current
        lst = b._acc
        if lst.__class__ is _Views and len(lst) < lst.cap and not _MULTI:
            lst.append(_wr(t))
        else:
            _register_view(b, t, x)
    return t


def _shape_arg(shape, fname=None, arg="size"):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = shape[0]
    out = tuple(map(int, shape))
    if fname is not None and out and (max(out) >= 2**63 or min(out) < -(2**63)):
        for i, s in enumerate(out):
            if not -(2**63) <= s < 2**63:  # PyTorch's argument parser, before any shape logic
                raise TypeError(
                    f"{fname}(): argument '{arg}' failed to unpack the object at pos {i + 1} "
                    'with error "Overflow when unpacking long long"'
                )
    return out


def _infer(shape, numel):
    """Resolve one ``-1`` in ``shape`` against ``numel``; PyTorch's errors otherwise."""
    neg = None
    known = 1
    for i, s in enumerate(shape):
        if s == -1:
            if neg is not None:
                raise RuntimeError("only one dimension can be inferred")
            neg = i
        elif s < -1:
            raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape {list(shape)}")
        else:
            known *= s
    if neg is not None:
        if known == 0:
            if numel == 0:
                raise RuntimeError(
                    f"cannot reshape tensor of 0 elements into shape {list(shape)} because the "
                    "unspecified dimension size -1 can be any value and is ambiguous"
                )
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        if numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape = list(shape)
        shape[neg] = numel // known
        return tuple(shape)
    if known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return shape


class ViewBackward0(Node):
    __slots__ = ()

    def backward(self, saved, g):
        return (reshape(g, self.attrs),)


def view(input, *shape):
    """A view with a new shape (no copy; errors when the strides do not allow it)."""
    shape = _infer(_shape_arg(shape, "view"), input._data.size)
    arr = backend(input._device).reshape_view(input._data, shape)
    if arr is None:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
        )
    out = _view(input, arr)
    if needs_grad(input):
        record(ViewBackward0, out, (input,), (), tuple(input.shape))
    return out


def reshape(input, *shape):
    """A tensor with a new shape: a view when possible, else a copy."""
    shape = _infer(_shape_arg(shape, "reshape", "shape"), input._data.size)
    if tuple(input._data.shape) == shape:
        arr = input._data
    else:
        arr = backend(input._device).reshape_view(input._data, shape)
    if arr is not None:
        out = _view(input, arr)
    else:
        data = copy_data(input._data, input._dtype, input._device).reshape(shape)
        out = _wrap(data, input._dtype, input._device)
    if needs_grad(input):
        record(ViewBackward0, out, (input,), (), tuple(input.shape))
    return out


def flatten(input, start_dim=0, end_dim=-1):
    """Merge dims ``start_dim..end_dim`` into one."""
    n = input.ndim
    if n == 0:
        return reshape(input, (1,))
    s, e = _wrap_dim(start_dim, n), _wrap_dim(end_dim, n)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    shp = tuple(input.shape)
    m = 1
    for d in shp[s : e + 1]:
        m *= d
    return reshape(input, shp[:s] + (m,) + shp[e + 1 :])


class PermuteBackward0(Node):
    __slots__ = ()

    def backward(self, saved, g):
        return (permute(g, tuple(np.argsort(self.attrs).tolist())),)


def permute(input, *dims):
    """A view with dims reordered."""
    dims = _shape_arg(dims)
    n = input.ndim
    if len(dims) != n:
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the "
            f"length of the desired ordering of dimensions i.e. input.dim() = {n} is not equal "
            f"to len(dims) = {len(dims)}"
        )
    dims = tuple(_wrap_dim(d, n) for d in dims)
    if len(set(dims)) != n:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    out = _view(input, backend(input._device).permute(input._data, dims))
    if needs_grad(input):
        record(PermuteBackward0, out, (input,), (), dims)
    return out


class TransposeBackward0(Node):
    __slots__ = ()

    def backward(self, saved, g):
        return (transpose(g, *self.attrs),)


def transpose(input, dim0, dim1):
    """A view with ``dim0`` and ``dim1`` swapped."""
    n = input.ndim
    d0, d1 = _wrap_dim(dim0, n), _wrap_dim(dim1, n)
    perm = list(range(n))
    perm[d0], perm[d1] = perm[d1], perm[d0]
    out = _view(input, backend(input._device).permute(input._data, tuple(perm)))
    if needs_grad(input):
        record(TransposeBackward0, out, (input,), (), (d0, d1))
    return out


def t(input):
    """Transpose of a tensor with at most 2 dims."""
    if input.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input.ndim}D")
    if input.ndim < 2:
        return input if not needs_grad(input) else reshape(input, tuple(input.shape))
    return transpose(input, 0, 1)


class ExpandBackward0(Node):
    __slots__ = ()

    def backward(self, saved, g):
        return (sum_to(g, self.attrs),)


def expand(input, *sizes):
    """A view broadcast to ``sizes`` (``-1`` keeps a dim); no memory is copied."""
    sizes = _shape_arg(sizes, "expand")
    n = input.ndim
    if len(sizes) < n:
        raise RuntimeError(
            f"expand(nbgrad.{input._dtype.name}{{{list(input.shape)}}}, size={list(sizes)}): "
            "the number of sizes provided "
            f"({len(sizes)}) must be greater or equal to the number of dimensions in the tensor ({n})"
        )
    lead = len(sizes) - n
    shp = input._data.shape
    st = input._data.strides
    new_shape, new_st = [], []
    for i, s in enumerate(sizes):
        if i < lead:
            if s == -1:
                raise RuntimeError(
                    f"The expanded size of the tensor ({s}) isn't allowed in a leading, "
                    f"non-existing dimension {i}"
                )
            new_shape.append(s)
            new_st.append(0)
            continue
        d = shp[i - lead]
        if s == -1:
            s = d
        if d == s:
            new_shape.append(d)
            new_st.append(st[i - lead])
        elif d == 1:
            new_shape.append(s)
            new_st.append(0)
        else:
            raise RuntimeError(
                f"The expanded size of the tensor ({s}) must match the existing size ({d}) at "
                f"non-singleton dimension {i}.  Target sizes: {list(sizes)}.  "
                f"Tensor sizes: {list(shp)}"
            )
    new_shape = tuple(new_shape)
    numel = 1
    if any(s < 0 for s in new_shape) and 0 in new_shape:
        # PyTorch makes a tensor with a negative size here; refuse it
        raise RuntimeError(
            f"Trying to create tensor with negative dimension {min(new_shape)}: {list(new_shape)}"
        )
    for s in new_shape:
        # PyTorch multiplies the sizes as unsigned: any size below -1 overflows
        numel *= s if s >= 0 else 2**64 + s
    if numel >= 2**63:
        raise RuntimeError("numel: integer multiplication overflow")
    if new_shape == tuple(shp):
        arr = input._data
    else:
        try:
            arr = backend(input._device).expand(input._data, new_shape, tuple(new_st))
        except ValueError:
            # NumPy caps even a stride-0 view at int64 bytes; PyTorch does not
            raise RuntimeError(
                f"expand: nbgrad cannot represent a view of shape {list(new_shape)}: its size in "
                "bytes exceeds the int64 range (a limit of its NumPy storage)"
            ) from None
    out = _view(input, arr)
    if needs_grad(input):
        record(ExpandBackward0, out, (input,), (), tuple(shp))
    return out


def expand_as(input, other):
    """``input.expand(other.shape)``."""
    return expand(input, tuple(other.shape))


class SqueezeBackward0(Node):
    __slots__ = ()

    def backward(self, saved, g):
        return (reshape(g, self.attrs),)


class SqueezeBackward1(SqueezeBackward0):
    __slots__ = ()


def squeeze(input, dim=None):
    """Drop dims of size 1 (all of them, or those in ``dim``)."""
    shp = tuple(input.shape)
    n = len(shp)
    if dim is None:
        new = tuple(s for s in shp if s != 1)
        cls = SqueezeBackward0
    else:
        ds = dim if isinstance(dim, (tuple, list)) else (dim,)
        ds = {_wrap_dim(d, n) for d in ds}
        new = tuple(s for i, s in enumerate(shp) if not (i in ds and s == 1))
        cls = SqueezeBackward1
    out = _view(input, backend(input._device).reshape_view(input._data, new))
    if needs_grad(input):
        record(cls, out, (input,), (), shp)
    return out


class UnsqueezeBackward0(Node):
    __slots__ = ()

    def backward(self, saved, g):
        return (reshape(g, self.attrs),)


def unsqueeze(input, dim):
    """Insert a dim of size 1 at ``dim``."""
    shp = tuple(input.shape)
    d = _wrap_dim(dim, len(shp) + 1)
    new = shp[:d] + (1,) + shp[d:]
    out = _view(input, backend(input._device).reshape_view(input._data, new))
    if needs_grad(input):
        record(UnsqueezeBackward0, out, (input,), (), shp)
    return out


# ----- basic indexing ----------------------------------------------------------------
def _adv_key(key):
    """True for keys that need advanced indexing: index tensors, lists, masks, bools."""
    for k in key if key.__class__ is tuple else (key,):
        if isinstance(k, Tensor):
            if k.ndim != 0 or k._dtype._cat != 1:
                return True
        elif isinstance(k, (list, tuple, np.ndarray, bool, np.bool_)):
            return True
    return False


def _check_key(x, key):
    """Validate a basic-indexing key (ints, slices, None, Ellipsis) and normalise it."""
    if not isinstance(key, tuple):
        key = (key,)
    out = []
    n_dims = 0
    for k in key:
        if isinstance(k, Tensor):
            if k.ndim == 0 and not k._dtype.is_floating_point and k._dtype.name != "bool":
                k = int(k.item())
            else:
                raise NotImplementedError(
                    "indexing with tensors (advanced indexing) is not supported by nbgrad yet; "
                    "use ints, slices, None and ..."
                )
        if isinstance(k, (bool, np.bool_)):
            raise NotImplementedError("indexing with a bool is not supported by nbgrad yet")
        if isinstance(k, (int, np.integer)):
            out.append(int(k))
            n_dims += 1
        elif isinstance(k, slice):
            if k.step is not None and int(k.step) <= 0:
                raise ValueError("step must be greater than zero")
            out.append(k)
            n_dims += 1
        elif k is None or k is Ellipsis:
            out.append(k)
        else:
            raise NotImplementedError(
                f"indexing with {type(k).__name__} (advanced indexing) is not supported by "
                "nbgrad yet; use ints, slices, None and ..."
            )
    if sum(1 for k in out if k is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if n_dims > x.ndim:
        raise IndexError(f"too many indices for tensor of dimension {x.ndim}")
    # bounds check ints in PyTorch's words
    dim = 0
    for i, k in enumerate(out):
        if k is Ellipsis:
            dim += x.ndim - n_dims
            continue
        if k is None:
            continue
        if isinstance(k, int):
            size = x._data.shape[dim]
            if not -size <= k < size:
                raise IndexError(
                    f"index {k} is out of bounds for dimension {dim} with size {size}"
                )
        dim += 1
    return tuple(out)


class SelectBackward0(Node):
    __slots__ = ()

    def backward(self, saved, g):
        shape, key = self.attrs
        return (index_backward(g, shape, key),)


class SliceBackward0(SelectBackward0):
    __slots__ = ()


def getitem(input, key):
    """Basic indexing (ints, slices, None, ...) as a view; advanced keys (index tensors,
    lists, bool masks) go to ``ops/advanced_index.py`` and give a copy."""
    if _adv_key(key):
        from .advanced_index import advanced_getitem

        return advanced_getitem(input, key)
    key = _check_key(input, key)
    arr = backend(input._device).getitem(input._data, key)
    out = _view(input, arr)
    if needs_grad(input):
        cls = SelectBackward0 if any(isinstance(k, int) for k in key) else SliceBackward0
        record(cls, out, (input,), (), (tuple(input.shape), key))
    return out


class SplitBackward0(Node):
    """``split``'s one node for all its outputs: the input's gradient is one buffer with each
    output's gradient copied into its region (zeros where an output got none)."""

    __slots__ = ()
    materialize_grads = False  # a missing output gradient is a zero region, not a tensor

    def backward(self, saved, *grads):
        d, sizes, shape, dt, dev = self.attrs
        if any(g is not None and needs_grad(g) for g in grads):  # create_graph: differentiable
            from .concat import cat

            parts = [g if g is not None else _zeros_of(shape, d, n, dt, dev)
                     for g, n in zip(grads, sizes)]
            return (cat(parts, d),)
        be = backend(dev)
        data = be.empty(shape, dt.np) if all(g is not None for g in grads) \
            else be.zeros(shape, dt.np)
        lead = (slice(None),) * d
        start = 0
        for g, n in zip(grads, sizes):
            if g is not None and n:
                copy_data(g._data, dt, dev, out=be.getitem(data, lead + (slice(start, start + n),)))
            start += n
        return (_wrap(data, dt, dev),)


class SplitWithSizesBackward0(SplitBackward0):
    __slots__ = ()


def _zeros_of(shape, d, n, dt, dev):
    from ..creation import zeros

    s = list(shape)
    s[d] = n
    return zeros(tuple(s), dtype=dt, device=dev)


def split_views(input, d, sizes, with_sizes):
    """The views of ``input`` split along dim ``d`` into ``sizes``, recorded as PyTorch does:
    one ``SplitBackward0`` (``SplitWithSizesBackward0`` for explicit sizes) for all of them,
    outputs that may not be modified in place."""
    be = backend(input._device)
    arr = input._data
    lead = (slice(None),) * d
    out = []
    start = 0
    for n in sizes:
        out.append(_view(input, be.getitem(arr, lead + (slice(start, start + n),))))
        start += n
    if needs_grad(input):
        from ._core import record_multi
        from .view_inplace import mark_multi

        cls = SplitWithSizesBackward0 if with_sizes else SplitBackward0
        record_multi(cls, out, (input,), (),
                     (d, tuple(sizes), tuple(arr.shape), input._dtype, input._device))
        mark_multi(out, "SplitWithSizes" if with_sizes else "Split")
    return tuple(out)


class IndexBackwardBackward0(Node):
    __slots__ = ()

    def backward(self, saved, gg):
        return (getitem(gg, self.attrs),)


def index_backward(grad, shape, key):
    """A zero tensor of ``shape`` with ``grad`` written at ``key`` (getitem's backward)."""
    be = backend(grad._device)
    data = be.zeros(shape, grad._dtype.np)
    dst = be.getitem(data, key)
    copy_data(grad._data, grad._dtype, grad._device, out=dst)
    out = _wrap(data, grad._dtype, grad._device)
    if needs_grad(grad):
        record(IndexBackwardBackward0, out, (grad,), (), key)
    return out


# ----- repeat / tile / flip ---------------------------------------------------------------
class RepeatBackward0(Node):
    __slots__ = ()

    def backward(self, saved, g):
        from .reduce import sum as _sum  # (reduce imports this module)

        inter, rdims, shape = self.attrs
        return (reshape(_sum(reshape(g, inter), rdims), shape),)


def repeat(input, *sizes):
    """``Tensor.repeat``: tile ``input`` ``sizes[i]`` times along dim ``i`` (leading new
    dims when ``sizes`` is longer than ``input.ndim``). Always a new tensor."""
    sizes = _shape_arg(sizes)
    n = input.ndim
    if len(sizes) < n:
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor"
        )
    pad = len(sizes) - n
    xs = (1,) * pad + tuple(input.shape)
    out_shape = tuple(r * s for r, s in zip(sizes, xs))
    for s in sizes:
        if s < 0:
            raise RuntimeError(
                f"Trying to create tensor with negative dimension {s}: {list(out_shape)}"
            )
    inter1, inter2 = [], []
    for r, s in zip(sizes, xs):
        inter1 += [1, s]
        inter2 += [r, s]
    with no_grad():
        e = expand(reshape(input, tuple(inter1)), tuple(inter2))
    data = copy_data(e._data, input._dtype, input._device).reshape(out_shape)
    out = _wrap(data, input._dtype, input._device)
    if needs_grad(input):
        record(RepeatBackward0, out, (input,), (),
               (tuple(inter2), tuple(range(0, 2 * len(sizes), 2)), tuple(input.shape)))
    return out


def tile(input, dims):
    """``repeat`` with ``dims`` padded by leading ones to ``input.ndim``."""
    dims = tuple(dims) if isinstance(dims, (tuple, list)) else (dims,)
    if len(dims) < input.ndim:
        dims = (1,) * (input.ndim - len(dims)) + dims
    return repeat(input, dims)


def _tile_method(self, *dims):
    return tile(self, _shape_arg(dims))


class FlipBackward0(Node):
    __slots__ = ()

    def backward(self, saved, g):
        return (flip(g, self.attrs),)


def flip(input, dims):
    """A copy of ``input`` with the order of elements reversed along ``dims``."""
    check_tensor(input, "flip")
    ds = dims if isinstance(dims, (tuple, list)) else (dims,)
    n = input.ndim
    seen = []
    for d in ds:
        d = _wrap_dim(int(d), n)
        if d in seen:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        seen.append(d)
    key = tuple(slice(None, None, -1) if i in seen else slice(None) for i in range(n))
    be = backend(input._device)
    src = be.getitem(input._data, key) if seen else input._data
    out = _wrap(copy_data(src, input._dtype, input._device), input._dtype, input._device)
    if needs_grad(input):
        record(FlipBackward0, out, (input,), (), tuple(seen))
    return out


def _flip_method(self, *dims):
    return flip(self, _shape_arg(dims))
