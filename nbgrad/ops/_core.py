"""What every op shares: wrapping results, recording nodes, operands, iteration layout."""

import functools

import numpy as np

from .. import _config
from .. import dtypes as _dt
from ..autograd import anomaly_mode as _anomaly_mode
from ..autograd import grad_mode as _gm
from ..autograd import graph as _graph
from ..autograd.graph import (
    Node,
    edge_item,
    edge_of,
    pack_edges,
    saved_input,
    saved_output,
)
from ..kernels.table import kernel
from ..storage import for_device as backend  # (the ops' name for a device's storage)
from ..storage._cpupool import MIN_BYTES
from ..storage.layout import copy_data, is_c
from ..tensor import Tensor, _fresh

_STATE = _gm.STATE
_ANOMALY = _anomaly_mode.ENABLED
_SEQ = _graph._seq
_new = object.__new__
_FROM_NP = _dt._FROM_NP


# Below this many elements a CPU op runs its serial loop and gets a plain np.empty output
# (no buffer pool: its threshold is MIN_BYTES, and float64 is 8 bytes)
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
        return _attach_plain(node_cls, out, pack_edges(edges), saved, attrs)
    node = node_cls(edges, saved, attrs)
    out._grad_fn = node
    out._rg = True
    return node


def _attach_plain(node_cls, out, nf, saved, attrs=None):
    """``attach`` for a node class built without ``__init__`` (``_plain_init``), with its
    edges already as ``Node._next`` holds them (``nf``): its stores, without the call."""
    node = _new(node_cls)
    node._next = nf
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
    if node_cls._plain_init:
        items = tuple([edge_item(t) if t.__class__ is Tensor else None for t in inputs])
        return _attach_plain(node_cls, out, items[0] if len(items) == 1 else items, saved,
                             attrs)
    return attach(node_cls, out, tuple([edge_of(t) if t.__class__ is Tensor else (None, 0)
                                        for t in inputs]), saved, attrs)


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


# ScalarType names PyTorch prints, as in "expected scalar type Float but found Double"
SCALAR_TYPE = {d.name: d.scalar_type for d in _dt.ALL}


def no_kernel_for(kernel, dtype):
    """PyTorch's error for a ``kernel`` that has no loop for ``dtype`` (to raise)."""
    return NotImplementedError(f"\"{kernel}\" not implemented for '{dtype.scalar_type}'")


def write_out(name, result, out, stacklevel=4):
    """Write ``result`` into ``out`` as PyTorch's ``out=`` forms do: cast to ``out``'s dtype
    where PyTorch's casting rule allows, resized to the result's shape (warning, as PyTorch,
    when ``out`` had elements), in place (under no_grad: out= records no graph).
    ``stacklevel`` of the warning counts from this function."""
    import warnings

    from ..autograd.grad_mode import no_grad

    if out.__class__ is not Tensor:
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type_name(out)}")
    rt, ot = result._dtype, out._dtype
    if rt is not ot and (rt._cat > ot._cat or (ot is _dt.bool_ and rt is not _dt.bool_)):
        raise RuntimeError(f"result type {rt.scalar_type} can't be cast to the desired "
                           f"output type {ot.scalar_type}")
    if out.device != result.device:
        raise RuntimeError(f"Expected out tensor to be on {result.device} like the result, "
                           f"but got {out.device}")
    with no_grad():
        if tuple(out.shape) != tuple(result.shape):
            if out.numel():
                warnings.warn(
                    f"An output with one or more elements was resized since it had shape "
                    f"{list(out.shape)}, which does not match the required output shape "
                    f"{list(result.shape)}. This behavior is deprecated, and in a future "
                    "PyTorch release outputs will not be resized unless they have zero "
                    "elements. You can explicitly reuse an out tensor t by resizing it, "
                    "inplace, to zero elements with t.resize_(0).", UserWarning,
                    stacklevel=stacklevel)
            out.resize_(tuple(result.shape))
        out.copy_(result)
    return out


def type_name(x):
    """The type of ``x`` as PyTorch's argument parser names it (``str``,
    ``numpy.ndarray``)."""
    t = type(x)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__name__}"


def check_tensor(x, op):
    """TypeError, as PyTorch's argument parser, when ``input`` of ``op`` is not a Tensor."""
    if x.__class__ is not Tensor:
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not {type_name(x)}")


def mixed_norm_dtypes(input, *params):
    """PyTorch's rule for a normalization's parameters (weight, bias, running statistics:
    None for those not given) of another dtype than ``input``'s: a float16 / bfloat16 input
    may come with float32 ones (it is computed in float32, and the result has the input's
    dtype: True); any other mix is refused, with PyTorch's messages."""
    ps = [p for p in params if p is not None]
    dt = input._dtype
    if all(p._dtype is dt for p in ps) or not dt.is_floating_point:
        return False
    if dt.low and all(p._dtype is _dt.float32 for p in ps):
        return True
    if dt is not _dt.float64:
        raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
    raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")


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


def to_dtype_data(x, dt, device):
    """``x``'s storage converted to dtype ``dt`` (no copy when it already is)."""
    d = x._data
    if x._dtype is dt:
        return d
    return copy_data(d, dt, device)


def in_float32(fn):
    """``fn`` (a function of Tensors that runs kernels on their storage itself, such as a
    backward step) when its first argument is a float16 / bfloat16 Tensor, which no kernel
    takes: its 16-bit Tensor arguments are widened to float32 (PyTorch's "opmath" type on
    the CPU) and every float32 Tensor ``fn`` returns (alone, or in a tuple) is rounded back
    to that dtype. (One test of the first argument: the common call pays no more.)"""

    @functools.wraps(fn)
    def run(*args, **kwargs):
        first = args[0]
        if first.__class__ is not Tensor or not first._dtype.low:
            return fn(*args, **kwargs)
        low = first._dtype
        from .convert import to

        def wide(a):
            return to(a, _dt.float32) if a.__class__ is Tensor and a._dtype.low else a

        r = fn(*[wide(a) for a in args], **{k: wide(a) for k, a in kwargs.items()})
        if r.__class__ is tuple:
            return tuple([to(x, low) if x.__class__ is Tensor and x._dtype is _dt.float32
                          else x for x in r])
        return to(r, low) if r.__class__ is Tensor and r._dtype is _dt.float32 else r

    return run


def contiguous_data(t):
    """Tensor ``t``'s storage as a C-contiguous array (a copy only when it is not one)."""
    d = t._data
    return d if is_c(d) else copy_data(d, t._dtype, t._device)


__all__ = [
    "Node", "Tensor", "wrap", "needs_grad", "record", "record_multi", "save", "save_output",
    "same_device", "check_tensor", "broadcast_shapes", "backend", "kernel", "to_dtype_data",
    "is_c", "contiguous_data", "SCALAR_TYPE", "no_kernel_for",
]

