"""Indexing along a dim, with gradients: ``index_select gather scatter_add index_add
take_along_dim`` and ``embedding`` (advanced indexing, ``x[idx]``, is in
ops/advanced_index.py, which shares the offset helpers here).

Every backward rule is written with these same ops, so double backward works:
``index_select`` <-> ``index_add``, ``gather`` <-> ``scatter_add``. Duplicate indices
accumulate their gradients.
"""

import warnings

import numpy as np

from .. import dtypes as _dt
from ..amp.policy import autocast_op
from ..storage.layout import c_data, copy_data
from ..tensor import _wrap
from ._core import (
    SCALAR_TYPE,
    Tensor,
    backend,
    broadcast_shapes,
    in_float32,
    kernel,
    needs_grad,
    same_device,
)
from .funcdef import deffunc, surface
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
    # (nbgrad.zeros: a creation the compiler's tracer records, as a backward formula's)
    from ..creation import zeros

    return zeros(tuple(shape), dtype=like._dtype, device=like._device)


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


def _abk(be, ix, A, K, B, vector):
    """Index array ``ix`` (C-contiguous) over the ``(A, K, B)`` grid: as it is, or, when
    ``vector``, its 1-d values applied along the middle at every position."""
    if vector:
        return be.as_strided(ix.reshape(-1), (A, K, B), (0, ix.dtype.itemsize, 0))
    return ix.reshape(A, K, B)


def _gather_data(x, d, idx, ishape, vector, dev):
    """``out[..., k, ...] = x[..., idx[...k...], ...]`` over the grid ``ishape``, on
    storage arrays.

    ``idx`` is the index array: of shape ``ishape`` (gather) or, when ``vector``, 1-d
    and applied along dim ``d`` at every position (index_select).
    """
    be = backend(dev)
    out = be.empty(tuple(ishape), x.dtype)
    if out.size == 0:
        return out
    offa, offb, sdim = _grid(tuple(x.shape), d, ishape)
    A, K, B = offa.size, ishape[d], offb.size
    kernel("index_gather", dev)(
        c_data(x, dev).reshape(-1), _abk(be, c_data(idx, dev), A, K, B, vector), be.from_host(offa),
        be.from_host(offb), sdim, out.reshape(A, K, B),
    )
    return out


def _scatter_into(out, dev, d, idx, src, vector):
    """Add array ``src`` at ``idx`` along ``d`` into C-contiguous array ``out``; returns
    it."""
    be = backend(dev)
    ishape = tuple(src.shape)
    if src.size == 0:
        return out
    offa, offb, sdim = _grid(tuple(out.shape), d, ishape)
    A, K, B = offa.size, ishape[d], offb.size
    kernel("index_scatter_add", dev)(
        out.reshape(-1), _abk(be, c_data(idx, dev), A, K, B, vector), be.from_host(offa),
        be.from_host(offb), sdim, c_data(src, dev).reshape(A, K, B)
    )
    return out


def _check_bounds_rt(index, d, size):
    bad = _first_bad(_host(index), size)
    if bad is not None:
        raise RuntimeError(f"index {bad} is out of bounds for dimension {d} with size {size}")


def _as_1d(x):
    return x if x.ndim else reshape(x, (1,))


# ----- index_select / index_add ---------------------------------------------------------------
@in_float32
def index_select_backward(grad, sizes, dim, index):
    """``index_add(zeros(sizes), dim, index, grad)``, the backward of a read of rows
    ``index`` (index_select, embedding): a fresh zero buffer takes ``grad`` directly (no
    copy of the zeros, and ``index`` was checked when the rows were read) unless the
    result must be differentiable itself."""
    if needs_grad(grad):
        return index_add(_zeros(sizes, grad), dim, index, grad)
    dt, dev = grad._dtype, grad._device
    out = backend(dev).zeros(tuple(sizes), dt.np)
    return _wrap(_scatter_into(out, dev, dim, index._data, grad._data, True), dt, dev)


def gather_backward(grad, sizes, dim, index):
    """``scatter_add(zeros(sizes), dim, index, grad)``: gather's backward."""
    return scatter_add(_zeros(sizes, grad), dim, index, grad)


def _select_forward(x, idx, odt, dev, dim):
    ishape = list(x.shape)
    ishape[dim] = idx.size
    return _gather_data(x, dim, idx, tuple(ishape), True, dev)


def _gather_forward(x, idx, odt, dev, dim):
    return _gather_data(x, dim, idx, tuple(idx.shape), False, dev)


def _scatter_forward(vector):
    def forward(x, idx, src, odt, dev, dim):
        return _scatter_into(copy_data(x, odt, dev), dev, dim, idx, src, vector)

    return forward


def _first(dt, *rest):
    return dt


def _select_shape(sx, si, dim):
    s = list(sx)
    s[dim] = si[0] if si else 1  # (a 0-d index picks one)
    return tuple(s)


# the index is an operand without a derivative (no edge), read by the formulas
INDEX_SELECT = deffunc("index_select", params=("input", "index"), kernels=("index_gather",),
                       forward=_select_forward, dtype=_first, shape=_select_shape,
                       args=("dim",), grads=("index_select_backward(grad, input_shape, dim, "
                                            "index)", None))
INDEX_ADD = deffunc("index_add", params=("input", "index", "source"),
                    kernels=("copy", "index_scatter_add"), forward=_scatter_forward(True),
                    dtype=_first, shape=lambda sx, si, ss, dim: tuple(sx), args=("dim",),
                    grads=("grad", None, "index_select(grad, dim, index)"))
GATHER = deffunc("gather", params=("input", "index"), kernels=("index_gather",),
                 forward=_gather_forward, dtype=_first, shape=lambda sx, si, dim: tuple(si),
                 args=("dim",), grads=("gather_backward(grad, input_shape, dim, index)", None))
SCATTER_ADD = deffunc("scatter_add", params=("input", "index", "src"),
                      kernels=("copy", "index_scatter_add"), forward=_scatter_forward(False),
                      dtype=_first, shape=lambda sx, si, ss, dim: tuple(sx), args=("dim",),
                      grads=("grad", None, "gather(grad, dim, index)"))


def _host_write(write, operand):
    """A forward that copies ``x`` and lets ``write(out, index, value, dim)`` set some of
    its elements on the host with NumPy (CUDA storage makes a round trip): the assigning
    ops (scatter, index_fill, index_copy), which no kernel of the table does. The values
    are a tensor operand (``operand``) or a number argument."""

    def forward(x, idx, *rest):
        if operand:  # (x, idx, src, odt, dev, dim)
            value, odt, dev, dim = rest
        else:  # (x, idx, odt, dev, value, dim)
            odt, dev, value, dim = rest
        be = backend(dev)
        out = np.array(be.to_host(x), dtype=odt.np)
        i = np.asarray(be.to_host(idx)).astype(np.int64)
        if not isinstance(value, (bool, int, float)):
            value = np.asarray(be.to_host(value)).astype(odt.np)
        write(out, i, value, dim)
        return be.from_host(out)

    return forward


def _scatter_write(out, i, value, dim):
    # (the corner of out that the index spans off ``dim``: NumPy's put_along_axis spans
    # all of out; and of src, the index's own shape)
    corner = tuple(slice(None) if a == dim else slice(0, n) for a, n in enumerate(i.shape))
    if isinstance(value, np.ndarray):
        value = value[tuple(slice(0, n) for n in i.shape)]
    np.put_along_axis(out[corner], i, value, axis=dim)


def _index_write(out, i, value, dim):
    out[(slice(None),) * dim + (i,)] = value


_SCATTER_SHAPE = {"shape": lambda sx, si, *rest: tuple(sx), "dtype": _first}
SCATTER = deffunc("scatter", overload="src", params=("input", "index", "src"),
                  kernels=(), forward=_host_write(_scatter_write, True), args=("dim",),
                  node="ScatterBackward0", **_SCATTER_SHAPE,
                  grads=("scatter(grad, dim, index, 0.0)", None, "gather(grad, dim, index)"))
SCATTER_VALUE = deffunc("scatter", overload="value", params=("input", "index"),
                        kernels=(), forward=_host_write(_scatter_write, False), args=("value", "dim"),
                        node="ScatterBackward1", **_SCATTER_SHAPE,
                        grads=("scatter(grad, dim, index, 0.0)", None))
INDEX_FILL = deffunc("index_fill", params=("input", "index"), kernels=(),
                     forward=_host_write(_index_write, False), args=("value", "dim"),
                     node="IndexFillBackward0", **_SCATTER_SHAPE,
                     grads=("index_fill(grad, dim, index, 0.0)", None))
INDEX_COPY = deffunc("index_copy", params=("input", "index", "source"), kernels=(),
                     forward=_host_write(_index_write, True), args=("dim",), **_SCATTER_SHAPE,
                     grads=("index_fill(grad, dim, index, 0.0)", None,
                            "index_select(grad, dim, index)"))


def _check_select(input, dim, index, op):
    _need_tensor(input, op, "input", 1)
    _int_index(index, op, f"{op}(): Expected dtype int32 or int64 for index")
    same_device(op, input, index)
    if index.ndim > 1:
        raise IndexError(f"{op}(): Index is supposed to be a vector")
    return _wrap_dim(int(dim), input.ndim)


@surface(INDEX_SELECT)
def index_select(input, dim, index):
    """The slices of ``input`` along ``dim`` at the positions listed in ``index``, as a new
    tensor.

    The result has ``input``'s shape, except along ``dim`` where its size is
    ``len(index)``; positions may repeat. The gradient is added back to the slices read.

    Args:
        input (Tensor): the input tensor.
        dim (int): the dimension to index along.
        index (Tensor): a 1-d ``int64`` or ``int32`` tensor of positions.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([[1, 2, 3], [4, 5, 6]])
        >>> nbgrad.index_select(x, 1, nbgrad.tensor([2, 0, 2]))
        tensor([[3, 1, 3],
                [6, 4, 6]])
        >>> nbgrad.index_select(x, 0, nbgrad.tensor([1]))
        tensor([[4, 5, 6]])
    """
    d = _check_select(input, dim, index, "index_select")
    if input.ndim == 0:
        return reshape(index_select(reshape(input, (1,)), 0, index), ())
    n = input.shape[d]
    if _first_bad(_host(index), n) is not None:
        raise IndexError("index out of range in self")
    return INDEX_SELECT.call(input, index, d)


@surface(INDEX_ADD)
def index_add(input, dim, index, source, *, alpha=1):
    """A copy of ``input`` with the slices of ``source``, times ``alpha``, added along
    ``dim`` at the positions ``index``.

    Slice ``i`` of ``source`` along ``dim`` is added to slice ``index[i]`` of the copy; a
    position listed several times gets every one of its slices added. ``input.index_add_``
    adds in place.

    Args:
        input (Tensor): the input tensor.
        dim (int): the dimension to index along.
        index (Tensor): a 1-d ``int64`` or ``int32`` tensor of positions, one per slice of
            ``source``.
        source (Tensor): the slices to add: ``input``'s shape, except ``len(index)`` along
            ``dim``.
        alpha (Number, optional): the multiplier of ``source``. Default: ``1``.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.zeros(3, 2)
        >>> src = nbgrad.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        >>> nbgrad.index_add(x, 0, nbgrad.tensor([0, 2, 0]), src)
        tensor([[6., 8.],
                [0., 0.],
                [3., 4.]])
        >>> nbgrad.index_add(x, 0, nbgrad.tensor([1, 1, 1]), src, alpha=-1)
        tensor([[  0.,   0.],
                [ -9., -12.],
                [  0.,   0.]])
    """
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
    return INDEX_ADD.call(input, index, src, d)


# ----- gather / scatter_add / take_along_dim --------------------------------------------------
@surface(GATHER)
def gather(input, dim, index, *, sparse_grad=False):
    """Gather the values of ``input`` along ``dim`` at the positions ``index``.

    For a 3-d tensor and ``dim=0`` this is

    .. code-block:: text

        out[i][j][k] = input[index[i][j][k]][j][k]  # dim == 0
        out[i][j][k] = input[i][index[i][j][k]][k]  # dim == 1
        out[i][j][k] = input[i][j][index[i][j][k]]  # dim == 2

    ``index`` has as many dimensions as ``input`` and the result has ``index``'s shape;
    along the other dimensions ``index`` may not be larger than ``input``. The gradient is
    added back to the positions read (:func:`nbgrad.scatter_add`).

    Args:
        input (Tensor): the source tensor.
        dim (int): the dimension to index along.
        index (Tensor): an ``int64`` tensor of positions.
        sparse_grad (bool, optional): PyTorch's sparse gradient, which nbgrad does not
            have: ``True`` raises ``NotImplementedError``. Default: ``False``.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([[1, 2], [3, 4]])
        >>> nbgrad.gather(x, 1, nbgrad.tensor([[0, 0], [1, 0]]))
        tensor([[1, 1],
                [4, 3]])
        >>> nbgrad.gather(x, 0, nbgrad.tensor([[1, 0]]))
        tensor([[3, 2]])
    """
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
    return GATHER.call(input, index, d)


def _scatter_args(op, input, dim, index, src):
    """PyTorch's checks of a scatter's operands (``src`` None: a number); the dim, and the
    index-shaped corner of ``src`` (a view: gradients flow), as the rows take them."""
    _need_tensor(input, op, "input", 1)
    _int_index(index, op, "scatter(): Expected dtype int64 for index")
    if src is not None:
        _need_tensor(src, op, "src", 4)
        same_device(op, input, index, src)
        if src._dtype is not input._dtype:
            raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    else:
        same_device(op, input, index)
    d = _wrap_dim(int(dim), max(input.ndim, 1))
    xs, ishape = tuple(input.shape) or (1,), tuple(index.shape) or (1,)
    ss = ishape if src is None else (tuple(src.shape) or (1,))
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
    if src is not None and ss != ishape:
        src = getitem(src, tuple(slice(0, n) for n in ishape))
    return d, src


def _zero_dim(fn, input, index, *rest):
    """``fn`` of 0-dim operands, run on their 1-element forms (PyTorch takes them as such)."""
    r = fn(_as_1d(input), 0, _as_1d(index),
           *[_as_1d(x) if isinstance(x, Tensor) else x for x in rest])
    return r if input.ndim else reshape(r, ())


@surface(SCATTER_ADD)
@autocast_op("scatter_add")
def scatter_add(input, dim, index, src):
    """A copy of ``input`` with the values of ``src`` added at the positions ``index``
    along ``dim``: the reverse of :func:`nbgrad.gather`.

    For a 3-d tensor and ``dim=0`` this is

    .. code-block:: text

        out[index[i][j][k]][j][k] += src[i][j][k]  # dim == 0
        out[i][index[i][j][k]][k] += src[i][j][k]  # dim == 1
        out[i][j][index[i][j][k]] += src[i][j][k]  # dim == 2

    A position listed several times gets all its values added. ``index`` and ``src`` have
    as many dimensions as ``input``; only the part of ``src`` of ``index``'s shape is read.
    ``input.scatter_add_`` adds in place.

    Args:
        input (Tensor): the tensor to add into.
        dim (int): the dimension to index along.
        index (Tensor): an ``int64`` tensor of positions.
        src (Tensor): the values to add.

    Example::

        >>> import nbgrad
        >>> src = nbgrad.tensor([[1.0, 2.0, 3.0, 4.0]])
        >>> nbgrad.scatter_add(nbgrad.zeros(1, 3), 1, nbgrad.tensor([[0, 2, 0, 2]]), src)
        tensor([[4., 0., 6.]])
    """
    if isinstance(input, Tensor) and (input.ndim == 0 or index.ndim == 0 or src.ndim == 0):
        return _zero_dim(scatter_add, input, index, src)
    d, src = _scatter_args("scatter_add", input, dim, index, src)
    return SCATTER_ADD.call(input, index, src, d)


@surface(SCATTER, SCATTER_VALUE)
def scatter(input, dim, index, src=None, value=None, *, reduce=None):
    """A copy of ``input`` with the values of ``src`` (or the number ``value``) written at
    the positions ``index`` along ``dim``.

    For a 3-d tensor and ``dim=0`` this is

    .. code-block:: text

        out[index[i][j][k]][j][k] = src[i][j][k]  # dim == 0
        out[i][index[i][j][k]][k] = src[i][j][k]  # dim == 1
        out[i][j][index[i][j][k]] = src[i][j][k]  # dim == 2

    Of a position listed several times, one of the writes is kept (which one is not
    defined).
    ``input.scatter_`` writes in place.

    Args:
        input (Tensor): the tensor to write into.
        dim (int): the dimension to index along.
        index (Tensor): an ``int64`` tensor of positions.
        src (Tensor or Number, optional): the values to write (a number is taken as
            ``value``). Default: ``None``.
        value (Number, optional): the one value to write, when ``src`` is not given.
            Default: ``None``.
        reduce (str, optional): ``"add"`` (with a ``src``) to add the values to those
            there rather than replace them, as :func:`nbgrad.scatter_add` (deprecated, as
            in PyTorch); PyTorch's ``"multiply"``, and a ``reduce`` with a ``value``, are
            not supported by nbgrad yet. Default: ``None``.

    Example::

        >>> import nbgrad
        >>> nbgrad.zeros(2, 4).scatter(1, nbgrad.tensor([[1], [3]]), 1.0)
        tensor([[0., 1., 0., 0.],
                [0., 0., 0., 1.]])
        >>> nbgrad.scatter(nbgrad.zeros(2, 2), 0, nbgrad.tensor([[1, 0]]),
        ...                nbgrad.tensor([[5.0, 6.0]]))
        tensor([[0., 6.],
                [5., 0.]])
    """
    if src is not None and not isinstance(src, Tensor):
        src, value = None, src  # (PyTorch's overload with a number in src's place)
    if (src is None) == (value is None):
        raise TypeError("scatter() takes a src tensor or a value, one of them")
    if reduce is not None:
        if reduce not in ("add", "multiply"):
            raise RuntimeError("reduce argument must be either add or multiply.")
        if reduce == "multiply" or src is None:
            raise NotImplementedError(f"scatter(reduce={reduce!r}) with a "
                                      f"{'value' if src is None else 'src'} is not "
                                      "supported by nbgrad yet")
        warnings.warn("The reduce argument of scatter with Tensor src is deprecated, as in "
                      "PyTorch: use scatter_add", UserWarning, stacklevel=2)
        return scatter_add(input, dim, index, src)
    if isinstance(input, Tensor) and (input.ndim == 0 or index.ndim == 0):
        return _zero_dim(scatter, input, index, src, value)
    d, src = _scatter_args("scatter", input, dim, index, src)
    if src is None:
        return SCATTER_VALUE.call(input, index, value, d)
    return SCATTER.call(input, index, src, d)


def _index_args(op, input, dim, index, source=None):
    _need_tensor(input, op, "input", 1)
    _int_index(index, op, f"{op}(): Expected a long tensor for index, but got "
                          f"{SCALAR_TYPE.get(index._dtype.name, index._dtype.name)}")
    same_device(op, input, index)
    if index.ndim > 1:
        raise IndexError(f"{op}(): Index is supposed to be a vector")
    d = _wrap_dim(int(dim), max(input.ndim, 1))
    size = (tuple(input.shape) or (1,))[d]
    bad = _first_bad(_host(index), size)
    if bad is not None:  # (an IndexError here, as PyTorch's)
        raise IndexError(f"index {bad} is out of bounds for dimension {d} with size {size}")
    return d


@surface(INDEX_FILL)
def index_fill(input, dim, index, value):
    """A copy of ``input`` with the slices at the positions ``index`` along ``dim`` filled
    with ``value``.

    ``input.index_fill_`` fills in place.

    Args:
        input (Tensor): the input tensor.
        dim (int): the dimension to index along.
        index (Tensor): a 1-d ``int64`` tensor of positions.
        value (Number or Tensor): the value to write (a number or a 0-dim tensor).

    Example::

        >>> import nbgrad
        >>> nbgrad.index_fill(nbgrad.zeros(2, 3), 1, nbgrad.tensor([0, 2]), -1.0)
        tensor([[-1.,  0., -1.],
                [-1.,  0., -1.]])
    """
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError("index_fill_ only supports a 0-dimensional value tensor, but "
                               f"got tensor with {value.ndim} dimension(s).")
        value = value.item()
    if isinstance(input, Tensor) and input.ndim == 0:
        return _zero_dim(index_fill, input, index, value)
    d = _index_args("index_fill", input, dim, index)
    return INDEX_FILL.call(input, index, value, d)


@surface(INDEX_COPY)
@autocast_op("index_copy")
def index_copy(input, dim, index, source):
    """A copy of ``input`` with the slices at the positions ``index`` along ``dim``
    replaced by the slices of ``source``, in order.

    Slice ``i`` of ``source`` along ``dim`` is copied to slice ``index[i]``; of a position
    listed several times, one copy is kept. ``source`` must have ``input``'s dtype.
    ``input.index_copy_`` copies in place.

    Args:
        input (Tensor): the input tensor.
        dim (int): the dimension to index along.
        index (Tensor): a 1-d ``int64`` tensor of positions, one per slice of ``source``.
        source (Tensor): the slices to copy: ``input``'s shape, except ``len(index)``
            along ``dim``.

    Example::

        >>> import nbgrad
        >>> src = nbgrad.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> nbgrad.index_copy(nbgrad.zeros(3, 2), 0, nbgrad.tensor([2, 0]), src)
        tensor([[3., 4.],
                [0., 0.],
                [1., 2.]])
    """
    d = _index_args("index_copy", input, dim, index)
    _need_tensor(source, "index_copy", "source", 4)
    same_device("index_copy", input, source)
    if source._dtype is not input._dtype:
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, "
                           f"but got (self) {SCALAR_TYPE[input._dtype.name]} and (source) "
                           f"{SCALAR_TYPE[source._dtype.name]}")
    want = list(input.shape)
    if want:
        want[d] = index.numel()
    if list(source.shape) != want:
        raise RuntimeError(f"index_copy_(): Source/destination tensor must have same slice "
                           f"shapes. Destination slice shape: {want}, source slice shape: "
                           f"{list(source.shape)}")
    return INDEX_COPY.call(input, index, source, d)


def take_along_dim(input, indices, dim=None):
    """The values of ``input`` at the positions ``indices`` along ``dim``, as NumPy's
    ``take_along_axis``.

    Like :func:`nbgrad.gather`, but ``input`` and ``indices`` broadcast together along the
    other dimensions. Without ``dim``, ``input`` is flattened and ``indices`` index it.
    It is the natural partner of :func:`nbgrad.argmax`, :func:`nbgrad.argsort` and
    :func:`nbgrad.topk`'s indices.

    Args:
        input (Tensor): the input tensor.
        indices (Tensor): an ``int64`` tensor of positions, of ``input``'s number of
            dimensions (any shape with ``dim=None``).
        dim (int, optional): the dimension to index along. Default: ``None``, the
            flattened tensor.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([[10, 30, 20], [60, 40, 50]])
        >>> nbgrad.take_along_dim(x, nbgrad.argsort(x, dim=1), dim=1)
        tensor([[10, 20, 30],
                [40, 50, 60]])
        >>> nbgrad.take_along_dim(x, nbgrad.tensor([0, 5]))
        tensor([10, 50])
    """
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


def scatter_(input, dim, index, src=None, value=None, *, reduce=None):
    """In-place ``scatter``."""
    from .inplace import inplace_binary

    if src is not None and not isinstance(src, Tensor):
        src, value = None, src
    other = src if src is not None else value
    return inplace_binary("scatter_", lambda a, b: scatter(
        a, dim, index, b if src is not None else None, None if src is not None else b,
        reduce=reduce), input, other)


def index_fill_(input, dim, index, value):
    """In-place ``index_fill``."""
    from .inplace import inplace_binary

    return inplace_binary("index_fill_", lambda a, b: index_fill(a, dim, index, b), input,
                          value)


def index_copy_(input, dim, index, source):
    """In-place ``index_copy``."""
    from .inplace import inplace_binary

    return inplace_binary("index_copy_", lambda a, b: index_copy(a, dim, index, b), input,
                          source)


def index_add_(input, dim, index, source, *, alpha=1):
    """In-place ``index_add``."""
    from .inplace import inplace_binary

    return inplace_binary(
        "index_add_", lambda a, b: index_add(a, dim, index, b, alpha=alpha), input, source
    )


# ----- embedding ------------------------------------------------------------------------------
def embedding_backward(grad, indices, num_weights, padding_idx, scale_grad_by_freq):
    """The weight's gradient of ``embedding``: ``grad``'s rows added at ``indices`` into
    zeros, none for ``padding_idx`` (-1: none), each divided by its index's count with
    ``scale_grad_by_freq``."""
    g2 = reshape(grad, (-1, grad.shape[-1]))
    if padding_idx >= 0 or scale_grad_by_freq:
        from .elementwise import mul

        h = _host(indices).reshape(-1)
        scale = np.ones(h.size)
        if scale_grad_by_freq:
            scale /= np.bincount(h, minlength=num_weights)[h]
        if padding_idx >= 0:
            scale[h == padding_idx] = 0.0
        g2 = mul(g2, _wrap(backend(grad._device).from_host(scale[:, None].astype(grad._dtype.np)),
                           grad._dtype, grad._device))
    return index_select_backward(g2, (num_weights, grad.shape[-1]), 0, reshape(indices, (-1,)))


def _embedding_forward(w, idx, odt, dev, padding_idx, scale_grad_by_freq):
    flat = c_data(idx, dev).reshape(-1)
    return _gather_data(w, 0, flat, (flat.size, w.shape[1]), True, dev).reshape(
        tuple(idx.shape) + (w.shape[1],))


EMBEDDING = deffunc("embedding", params=("weight", "indices"), kernels=("index_gather",),
                    forward=_embedding_forward, dtype=_first,
                    shape=lambda sw, si, *args: tuple(si) + (sw[1],),
                    args=("padding_idx", "scale_grad_by_freq"), torch_names={},
                    grads=("embedding_backward(grad, indices, weight_shape[0], padding_idx, "
                           "scale_grad_by_freq)", None), fn=False, method=False)


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


@surface(EMBEDDING)
def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    r"""The rows of ``weight`` at the indices in ``input``: a lookup table, the functional
    form of :class:`nbgrad.nn.Embedding`.

    Args:
        input (Tensor): int64 or int32 indices into the rows of ``weight``, any shape.
        weight (Tensor): the table, of shape ``(num_embeddings, embedding_dim)``.
        padding_idx (int, optional): a row that gets no gradient (negative counts from
            the end). Default: ``None``.
        max_norm (float, optional): first renormalize, in place, each row of ``weight``
            that ``input`` uses and whose norm is larger, to this norm. Default: ``None``.
        norm_type (float, optional): the p of the p-norm for ``max_norm``. Default: ``2.0``.
        scale_grad_by_freq (bool, optional): divide each row's gradient by how often
            ``input`` uses it. Default: ``False``.
        sparse (bool, optional): sparse gradients; not supported (``True`` raises).
            Default: ``False``.

    Shape:
        - Input: any shape :math:`(*)`.
        - Output: :math:`(*, \text{embedding\_dim})`.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> w = nbgrad.arange(6.0).reshape(3, 2)
        >>> F.embedding(nbgrad.tensor([[2, 0]]), w)
        tensor([[[4., 5.],
                 [0., 1.]]])
    """
    _need_tensor(input, "embedding", "input", 1)
    _need_tensor(weight, "embedding", "weight", 2)
    if input._dtype not in (_dt.int64, _dt.int32):
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar "
            f"types: Long, Int; but got nbgrad.{SCALAR_TYPE[input._dtype.name]}Tensor instead (while "
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
    h = _host(input).reshape(-1)
    if _first_bad(h, n) is not None:
        raise IndexError("index out of range in self")
    if max_norm is not None:
        _renorm_(weight, h, float(max_norm), float(norm_type))
    return EMBEDDING.call(weight, input, -1 if padding_idx is None else padding_idx,
                          bool(scale_grad_by_freq))


__all__ = ["index_select", "index_add", "gather", "scatter_add", "scatter", "index_fill",
           "index_copy", "take_along_dim", "unravel_index"]


def unravel_index(indices, shape):
    """The coordinates in a tensor of ``shape`` of the flat (row-major) ``indices``: one
    int64 tensor per dim, each shaped as ``indices``. Indices outside ``[0, prod(shape))``
    wrap around, as in PyTorch.

    Args:
        indices (Tensor): integer flat indices, any shape.
        shape (int or tuple of ints): the shape the indices index into.

    Returns:
        tuple of Tensor: one int64 tensor per dimension of ``shape``.

    Example::

        >>> import nbgrad
        >>> nbgrad.unravel_index(nbgrad.tensor([4, 1, 7]), (3, 3))
        (tensor([1, 0, 2]), tensor([1, 1, 1]))
    """
    from ..creation import tensor
    from .concat import unbind
    from .elementwise import floor_divide, remainder
    from .shape import unsqueeze

    if indices.__class__ is not Tensor:
        raise TypeError(f"expected 'indices' to be a tensor, but got {type(indices)}")
    if indices.dtype.is_floating_point or indices.dtype is _dt.bool_:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    shape = (int(shape),) if isinstance(shape, int) else tuple(int(n) for n in shape)
    if any(n < 0 for n in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    if not shape:
        return ()
    # the elements each coordinate counts for: the products of the dims after it
    steps = np.cumprod((1,) + shape[:0:-1])[::-1].tolist()
    dev = indices.device
    idx = unsqueeze(indices, -1)
    coords = remainder(floor_divide(idx, tensor(steps, dtype=_dt.int64, device=dev)),
                       tensor(list(shape), dtype=_dt.int64, device=dev))
    return unbind(coords, -1)


def one_hot(tensor, num_classes=-1):
    """int64 ``(*tensor.shape, num_classes)``: 1 at each class index of ``tensor``, 0
    elsewhere (``num_classes=-1``: one more than the largest index).

    Args:
        tensor (Tensor): int64 class indices, any shape, none negative.
        num_classes (int, optional): the number of classes; ``-1`` takes one more than
            the largest index. Default: ``-1``.

    Example::

        >>> import nbgrad
        >>> nbgrad.nn.functional.one_hot(nbgrad.tensor([0, 2]), 3)
        tensor([[1, 0, 0],
                [0, 0, 1]])
    """
    from .. import dtypes as _dt
    from ..creation import arange
    from .elementwise import eq

    if tensor.__class__ is not Tensor or tensor._dtype is not _dt.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    h = _host(tensor)
    if num_classes == -1:
        if not h.size:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(h.max()) + 1
    if h.size and h.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if h.size and h.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    classes = arange(num_classes, device=tensor.device)
    return eq(tensor.unsqueeze(-1), classes).to(_dt.int64)
