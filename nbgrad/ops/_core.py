"""What every op shares: wrapping results, recording nodes, operands, iteration layout."""

import numpy as np

from .. import _config
from .. import dtypes as _dt
from ..autograd import anomaly_mode as _anomaly_mode
from ..autograd import grad_mode as _gm
from ..autograd import graph as _graph
from ..autograd.graph import Node, edge_of, grad_accumulator, saved_input, saved_output
from ..backends._cpupool import MIN_BYTES
from ..tensor import Tensor, _fresh
from .registry import backend, kernel

_STATE = _gm.STATE
_ANOMALY = _anomaly_mode.ENABLED
_SEQ = _graph._seq
_new = object.__new__
_FROM_NP = _dt._FROM_NP


# Below this many elements a CPU op runs its serial loop and gets a plain np.empty output
# (no buffer pool: its threshold is 1 MiB, and float64 is 8 bytes)
SMALL_N = min(_config.PARALLEL_MIN, MIN_BYTES // 8)


class SmallKey:
    """What the small-op fast paths must know of a tensor's storage, worked out once per
    tensor (``small_key``): a C-contiguous CPU ndarray of 1 to ``SMALL_N - 1`` elements, of
    dtype ``dt`` and ``shape``. Keys are interned, so equal keys are the same object and one
    ``is`` tells that two tensors fit one small kernel call."""

    __slots__ = ("dt", "np", "shape", "flat", "float")

    def __repr__(self):
        return f"SmallKey({self.dt}, {self.shape})"


_KEYS = {}


def small_key(t):
    """Tensor ``t``'s ``SmallKey``, or False when its storage is not one (cached in ``t``)."""
    d = t._data
    k = False
    if d.__class__ is np.ndarray and 0 < d.size < SMALL_N and d.flags.c_contiguous:
        k = small_key_of(t._dtype, d.shape)
    t._sk = k
    return k


def small_key_of(dt, shape):
    """The interned ``SmallKey`` of dtype ``dt`` and ``shape``."""
    k = _KEYS.get((dt, shape))
    if k is None:
        k = _new(SmallKey)
        # np.empty takes a dtype instance faster than a scalar type (~40 ns a call)
        k.dt, k.np, k.shape = dt, np.dtype(dt.np), shape
        k.flat = len(shape) == 1
        k.float = dt._cat == 2
        if len(_KEYS) >= 4096:  # many shapes (e.g. varying lengths): start over
            _KEYS.clear()
        k = _KEYS.setdefault((dt, shape), k)
    return k


def wrap(data, device):
    """A result tensor around freshly computed ``data`` (memory allocated for it)."""
    return _fresh(data, _FROM_NP[data.dtype], device)


def needs_grad(*ts):
    """True when grad mode is on and some Tensor among ``ts`` requires grad."""
    if not _STATE.enabled:
        return False
    for t in ts:
        if t.__class__ is Tensor and t._rg:
            return True
    return False


def attach(node_cls, out, edges, saved=(), attrs=None):
    """Make a ``node_cls`` node with ``edges`` (its next_functions) the grad_fn of ``out``."""
    if node_cls._plain_init:
        return _attach_plain(node_cls, out, edges, saved, attrs)
    node = node_cls(edges, saved, attrs)
    out._grad_fn = node
    out._rg = True
    return node


def _attach_plain(node_cls, out, edges, saved, attrs=None):
    """``attach`` for a node class built without ``__init__`` (``_plain_init``): its
    stores, without the call; the elementwise ops call it directly."""
    node = _new(node_cls)
    node.next_functions = edges
    node._saved = saved
    node._seq = next(_SEQ)
    node.attrs = attrs
    if _ANOMALY[0]:
        _anomaly_mode.remember(node)
    out._grad_fn = node
    out._rg = True
    return node


def record(node_cls, out, inputs, saved=(), attrs=None):
    """Attach a new ``node_cls`` node as ``out``'s grad_fn; ``inputs`` give its edges."""
    if len(inputs) == 2:  # the common binary op, without the loop and list
        a, b = inputs
        if a.__class__ is Tensor and (a._grad_fn is not None or a._rg):
            ea = (a._grad_fn, a._output_nr) if a._grad_fn is not None else (grad_accumulator(a), 0)
        else:
            ea = _NO_EDGE
        if b.__class__ is Tensor and (b._grad_fn is not None or b._rg):
            eb = (b._grad_fn, b._output_nr) if b._grad_fn is not None else (grad_accumulator(b), 0)
        else:
            eb = _NO_EDGE
        return attach(node_cls, out, (ea, eb), saved, attrs)
    edges = []
    for t in inputs:
        if t.__class__ is Tensor:
            fn = t._grad_fn
            if fn is not None:
                edges.append((fn, t._output_nr))
            elif t._rg:
                edges.append((grad_accumulator(t), 0))
            else:
                edges.append(_NO_EDGE)
        else:
            edges.append(_NO_EDGE)
    return attach(node_cls, out, tuple(edges), saved, attrs)


_NO_EDGE = (None, 0)


def record_multi(node_cls, outs, inputs, saved=(), attrs=None):
    """Like ``record`` for a node with several outputs (e.g. values and indices)."""
    node = node_cls(
        tuple(edge_of(t) if t.__class__ is Tensor else (None, 0) for t in inputs), saved,
        attrs, n_out=len(outs),
    )
    node._out_meta = tuple((o.shape, o._dtype, o._device) for o in outs)
    for i, o in enumerate(outs):
        if o._dtype.is_floating_point:
            o._grad_fn = node
            o._output_nr = i
            o._rg = True
    return node


def save(t):
    """Save an input tensor (or pass a non-tensor through) for backward."""
    return saved_input(t) if t.__class__ is Tensor else t


save_output = saved_output  # an op's own output, without a reference cycle


def same_device(op, *ts):
    """The common device of the Tensors among ``ts``, or PyTorch's device error."""
    dev = None
    for t in ts:
        if t.__class__ is Tensor:
            if dev is None:
                dev = t._device
            elif t._device != dev:
                raise RuntimeError(
                    "Expected all tensors to be on the same device, but found at least two "
                    f"devices, {dev} and {t._device}! (when checking arguments for {op})"
                )
    return dev


def check_number(x, op):
    if isinstance(x, (bool, int, float, np.number)) and not isinstance(x, complex):
        return x
    raise TypeError(
        f"{op}(): argument 'other' must be Tensor or Number, not {type(x).__name__}"
    )


def broadcast_shapes(a, b):
    """NumPy/PyTorch broadcasting of two shapes; RuntimeError in PyTorch's words."""
    if a == b:
        return a
    na, nb = len(a), len(b)
    n = max(na, nb)
    out = []
    for i in range(n):
        da = a[i - n + na] if i - n + na >= 0 else 1
        db = b[i - n + nb] if i - n + nb >= 0 else 1
        if da == db or db == 1:
            out.append(da)
        elif da == 1:
            out.append(db)
        else:
            raise RuntimeError(
                f"The size of tensor a ({da}) must match the size of tensor b ({db}) at "
                f"non-singleton dimension {i}"
            )
    return tuple(out)


def _bstrides(arr, shape):
    """Byte strides of ``arr`` broadcast to ``shape`` (zero where broadcast)."""
    n = len(shape)
    pad = n - arr.ndim
    st = [0] * pad
    for s, d in zip(arr.strides, arr.shape):
        st.append(0 if d == 1 else s)
    return st


def layout3(be, shape, arrays):
    """Views of ``arrays`` broadcast to ``shape`` and collapsed to 3 dims.

    Adjacent dims merge where every array steps through them as one; the result is
    padded with leading ones. Returns None when more than 3 dims remain.
    """
    strides = [_bstrides(a, shape) for a in arrays]
    dims = [i for i, d in enumerate(shape) if d != 1]
    cshape = []
    cstr = [[] for _ in arrays]
    for i in dims:
        d = shape[i]
        if cshape and all(
            cs[-1] == st[i] * d for cs, st in zip(cstr, strides)
        ):
            cshape[-1] *= d
            for cs, st in zip(cstr, strides):
                cs[-1] = st[i]
        else:
            cshape.append(d)
            for cs, st in zip(cstr, strides):
                cs.append(st[i])
    if len(cshape) > 3:
        return None
    pad = 3 - len(cshape)
    cshape = (1,) * pad + tuple(cshape)
    return [be.as_strided(a, cshape, (0,) * pad + tuple(cs)) for a, cs in zip(arrays, cstr)]


def unexpand(x):
    """``x`` without its expanded dims: each stride-0 dim of size > 1 becomes size 1 (a view
    that broadcasts back to ``x``), so an expanded operand reads as the small array it is."""
    st = x.strides
    if 0 not in st:
        return x
    return x[tuple(slice(0, 1) if s == 0 and d > 1 else _ALL for s, d in zip(st, x.shape))]


_ALL = slice(None)


def bcast3(shape, arrs):
    """C-contiguous ``arrs`` broadcasting to ``shape``, reshaped (as views) to 3 dims for a
    broadcasting kernel: ``(out_shape3, [views])``, or None past 3 dims.

    Adjacent dims merge when every operand is either whole or broadcast across both.
    """
    n = len(shape)
    padded = [(1,) * (n - a.ndim) + a.shape for a in arrs]
    out3 = []
    sizes = [[] for _ in arrs]
    last = None
    for i, d in enumerate(shape):
        if d == 1:
            continue
        pat = tuple(p[i] != 1 for p in padded)
        if pat == last:
            out3[-1] *= d
            for sz, on in zip(sizes, pat):
                if on:
                    sz[-1] *= d
        else:
            if len(out3) == 3:
                return None
            out3.append(d)
            for sz, on in zip(sizes, pat):
                sz.append(d if on else 1)
            last = pat
    pad = (1,) * (3 - len(out3))
    return pad + tuple(out3), [a.reshape(pad + tuple(sz)) for a, sz in zip(arrs, sizes)]


def to_dtype_data(x, dt, device):
    """``x``'s storage converted to dtype ``dt`` (no copy when it already is)."""
    d = x._data
    if x._dtype is dt:
        return d
    return copy_data(d, dt, device)


def copy_data(src, dt, device, out=None):
    """A C-contiguous copy of array ``src`` as dtype ``dt`` (into ``out`` if given)."""
    be = backend(device)
    if out is None:
        out = be.empty(src.shape, dt.np)
    k = kernel("copy", device)
    if src.size == 0:
        return out
    if _is_c(src, be) and _is_c(out, be):
        k(src.reshape(-1), out.reshape(-1))
        return out
    if src.__class__ is np.ndarray and out.flags.c_contiguous:
        u = unexpand(src)  # an expanded source: read each element once
        if u.flags.c_contiguous:
            b3 = bcast3(src.shape, (u,))
            if b3 is not None:
                k.broadcast(b3[1][0], out.reshape(b3[0]))
                return out
    views = layout3(be, src.shape, [src, out])
    if views is None:
        for i in range(src.shape[0]):
            copy_data(src[i], dt, device, out[i])
        return out
    k(views[0], views[1])
    return out


def _is_c(a, be):
    return a.flags.c_contiguous if a.__class__ is np.ndarray else be.is_contiguous(a)


__all__ = [
    "Node", "Tensor", "wrap", "needs_grad", "record", "record_multi", "save", "save_output",
    "same_device", "broadcast_shapes", "layout3", "backend", "kernel", "to_dtype_data",
    "copy_data", "unexpand", "bcast3",
]

