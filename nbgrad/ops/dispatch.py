"""The one path from a call of an elementwise op to its kernel, and the launch plans.

Every call goes through ``apply1`` / ``apply2``: the operands' layout keys (an interned
``SmallKey`` cached on the tensor, else a key tuple) pick a launch plan from the op's plan
cache; on a miss ``_plan2`` / ``_plan1`` builds one (type promotion, broadcasting, strides,
device). A plan for small C-contiguous CPU operands is the serial loop's compiled entry point,
called directly (no Numba dispatch: that is most of a 16-element op's cost); every other plan
runs the general path. What an op is (its body, dtype rule, formulas, names) is its ``OpDef``
(``ops/opdef.py``); this module only runs it.

Gradient ownership: while the backward engine runs a node whose rule uses its gradient once
(``_grad_once``), ``grad_mode.STATE.owned`` is that gradient. ``apply2`` is the one place that
reads it: the binary op whose first operand it is writes into it when the shapes and dtypes
allow, and clears it either way; a generated node whose two formulas both need the gradient
clears it before using it.
"""

import numpy as np

from .. import _recording
from .. import dtypes as _dt
from ..autograd import graph as _graph
from ..autograd.grad_mode import ACTIVE as _INFER
from ..autograd.grad_mode import STATE as _STATE
from ..autograd.grad_mode import version_counter as _version_counter
from ..device import CPU as _CPU_DEV
from ..storage._cpupool import empty as _pool_empty
from ..storage.layout import copy_data
from ..tensor import Tensor, _fresh
from ._core import small_key, small_key_of, type_name

_FLOAT, _BOOL = "float", "bool"
_np_empty = np.empty
_new = object.__new__
_MAX_PLANS = 4096
# the compiler's tracer is recording (nbgrad/compiler/trace.py): every op application goes to
# it (_traced); a module global, the cheapest test to make on every op
_TRACING = False


# serial loop slots of kernels/cpu/elementwise's factories (flat, flat_s, s_flat, into)
_FLAT, _FLAT_S, _S_FLAT, _INTO = 0, 2, 4, 10


def _entry(op, slot, *types):
    """The serial loop ``slot`` of ``op`` compiled for NumPy dtypes ``types`` ("s" suffix:
    a scalar of that dtype, else a 1-d C array), as its bare entry point."""
    key = (slot,) + types
    f = op.entries.get(key)
    if f is None:
        from numba import from_dtype
        from numba import types as nbt

        argtypes = []
        for t in types:
            if t[-1] == "s":
                argtypes.append(from_dtype(np.dtype(t[:-1])))
            else:
                argtypes.append(nbt.Array(from_dtype(np.dtype(t)), 1, "C"))
        f = op.entries[key] = op.kernel.entry(slot, *argtypes)
    return f


class _Compile:
    """A small plan's loop until its first call, which compiles it (``_entry``), puts it in
    the plan in its place and runs it. A binary op's plan has two loops (out of place, and
    in place for a lent gradient) and a program often runs only one of them: compiling each
    when first run saves a cold start ~0.1 s a loop it never runs."""

    __slots__ = ("plan", "attr", "op", "slot", "types")

    def __init__(self, plan, attr, op, slot, *types):
        self.plan, self.attr, self.op, self.slot, self.types = plan, attr, op, slot, types

    def __call__(self, *args):
        f = _entry(self.op, self.slot, *self.types)
        setattr(self.plan, self.attr, f)
        return f(*args)


# ----- launch plans ---------------------------------------------------------------------
# plan kinds: small contiguous operands of one layout (``SMALL``: the loop's entry point,
# ``SMALL_S`` / ``S_SMALL``: with a number operand), same-layout contiguous CPU arrays of
# any size (``CONTIG``: serial or parallel loop, pooled output; ``CONTIG_S`` / ``S_CONTIG``:
# with a number operand), contiguous CPU arrays that broadcast (``BCAST``: the broadcasting
# loop, the operands' 3-d views worked out once), a float operand that is one value
# expanded (every stride 0, as a sum's gradient is: ``VALUE``, read as a number and run by
# the number's plan), anything else (``GENERAL``). Each runs the loop the general path
# would pick for that layout, so results agree to the bit.
SMALL, SMALL_S, S_SMALL, CONTIG, GENERAL, CONTIG_S, S_CONTIG, BCAST, VALUE = range(9)
_KIND_NAMES = ("SMALL", "SMALL_S", "S_SMALL", "CONTIG", "GENERAL", "CONTIG_S", "S_CONTIG",
               "BCAST", "VALUE")
# what may stand for a number operand in a number plan: Python's, and NumPy's floats (a
# VALUE operand's element), which promote as Python's float does
_NUMBERS = (int, float, np.float32, np.float64)


class Plan:
    """How one op runs for one operand layout: ``kind``, the loop ``f`` (an entry point for
    the small kinds), the output's NumPy dtype, nbgrad dtype and ``SmallKey`` (``out_key``),
    ``into`` (the in-place loop, for a lent gradient), ``reshape`` (operands are n-d and
    must be raveled), whether the node must undo broadcasting (``bcast``), the output's
    ``shape``, the number operand's NumPy scalar type (``stype``) and, for ``BCAST``,
    ``views``: the shapes the two operands and the output are read as (the output's None
    when one operand is read as one value) and the output's element count."""

    __slots__ = ("kind", "f", "np", "dt", "out_key", "into", "reshape", "bcast", "shape",
                 "stype", "views")

    def __repr__(self):
        return f"Plan({_KIND_NAMES[self.kind]})"


def _plan(kind, f=None, out_key=None, dt=None, into=None, reshape=False, bcast=False,
          shape=None):
    p = object.__new__(Plan)
    p.kind, p.f, p.out_key, p.into, p.reshape, p.bcast = kind, f, out_key, into, reshape, bcast
    p.dt = dt
    p.np = np.dtype(dt.np) if dt is not None else None
    p.shape = shape
    p.stype = None
    p.views = None
    return p


def _key(x):
    """Operand ``x``'s layout key: its interned ``SmallKey``, a tuple (dtype, device type,
    device index, shape, contiguity, one value expanded) for any other tensor, or a
    number's type. (The device by its type and index: a device's own hash is Python's.)"""
    if x.__class__ is Tensor:
        k = x._sk
        if k is None:
            k = small_key(x)
        if k:
            return k
        d = x._data
        if d.__class__ is np.ndarray:
            c = d.flags.c_contiguous
            dv = x._device
            return (x._dtype, dv.type, dv.index, d.shape, c,
                    not c and d.size > 0 and not any(d.strides))
        dv = x._device
        return (x._dtype, dv.type, dv.index, d.shape, None, False)
    return x.__class__


def _out_dtype(op, cdt):
    if op.dtype == _BOOL:
        return _dt.bool_
    if op.dtype == _FLOAT and cdt._cat != 2:
        return _dt.get_default_dtype()
    return cdt


def promote(a, b):
    """PyTorch's result dtype of operands ``a`` and ``b`` (Tensors or numbers)."""
    ts = [t for t in (a, b) if t.__class__ is Tensor]
    ss = [s for s in (a, b) if s.__class__ is not Tensor]
    for s in ss:
        if not isinstance(s, (bool, int, float, np.number)):
            raise TypeError(
                f"unsupported operand type: expected a Tensor or a Number, got {type(s).__name__}"
            )
    return _dt.result_type(ts, ss)


def _operand_types(op, a, b):
    # PyTorch's argument parser's TypeError (position as in the function's form)
    for pos, x in enumerate((a, b)):
        if x.__class__ is not Tensor and not isinstance(x, (bool, int, float, np.number)):
            raise TypeError(f"{op.name}(): argument '{op.params[pos]}' (position {pos + 1}) "
                            f"must be Tensor, not {type_name(x)}")


def _plan2(op, a, b):
    """Build the plan of binary ``op`` for the layouts of ``a`` and ``b`` (validating them)."""
    _operand_types(op, a, b)
    if op.check is not None:
        op.check(a, b)
    ta, tb = a.__class__ is Tensor, b.__class__ is Tensor
    cdt = promote(a, b)
    if ta and tb and a._device != b._device:
        from ._core import same_device

        same_device(op.name, a, b)
    if cdt.low:  # float16 / bfloat16: the general path computes in float32
        return _plan(GENERAL, bcast=ta and tb and (a._data.shape != b._data.shape
                                                   or a._dtype is not b._dtype))
    odt = _out_dtype(op, cdt)
    ka, kb = _key(a), _key(b)
    cpu_same = op.dtype == _BOOL or odt is cdt
    if ta and tb:
        bcast = a._data.shape != b._data.shape
        if ka and ka is kb and a._dtype is cdt and cpu_same and ka.__class__ is not tuple:
            npd = ka.np.str
            ok = small_key_of(odt, ka.shape)
            p = _plan(SMALL, None, ok, odt, None, not ka.flat)
            p.f = _Compile(p, "f", op, _FLAT, npd, npd, np.dtype(odt.np).str)
            if odt is cdt:
                p.into = _Compile(p, "into", op, _INTO, npd, npd)
            return p
        if (ka.__class__ is tuple and ka == kb and ka[4] and a._dtype is cdt
                and cpu_same and a._data.size):
            return _plan(CONTIG, dt=odt, bcast=False, shape=ka[3])
        if bcast and a._dtype is cdt and b._dtype is cdt and cpu_same:
            p = _bcast_plan(odt, a, b)
            if p is not None:
                return p
        va = ka.__class__ is tuple and ka[5]
        vb = kb.__class__ is tuple and kb[5]
        if (va != vb and not bcast and a._dtype is cdt and b._dtype is cdt and cdt._cat == 2
                and op.check is None):  # (a check may refuse the number it would see)
            p = _plan(VALUE, dt=odt)
            p.views = (va, (0,) * a._data.ndim)
            return p
        # (a node records the operands' shapes and dtypes when they differ: see nodegen)
        return _plan(GENERAL, dt=None, bcast=bcast or a._dtype is not b._dtype)
    t, first = (a, False) if ta else (b, True)
    kt = ka if ta else kb
    if (kt.__class__ is tuple and kt[4] and kt[1] == "cpu" and t._dtype is cdt
            and cpu_same and t._data.size
            and (b.__class__ if ta else a.__class__) in _NUMBERS):
        p = _plan(S_CONTIG if first else CONTIG_S, dt=odt, shape=kt[3])
        p.stype = cdt.number  # (a number out of a narrow int type's range wraps)
        return p
    if (kt and kt.__class__ is not tuple and t._dtype is cdt and cpu_same
            and (b.__class__ if ta else a.__class__) in _NUMBERS):
        npd = kt.np.str
        ok = small_key_of(odt, kt.shape)
        out_np = np.dtype(odt.np).str
        if first:
            p = _plan(S_SMALL, _entry(op, _S_FLAT, npd + "s", npd, out_np), ok, odt, None,
                      not kt.flat)
        else:
            p = _plan(SMALL_S, _entry(op, _FLAT_S, npd, npd + "s", out_np), ok, odt, None,
                      not kt.flat)
        p.stype = kt.dt.number
        return p
    return _plan(GENERAL, bcast=False)


def _bcast_plan(odt, a, b):
    """The ``BCAST`` plan of C-contiguous CPU arrays ``a`` and ``b`` of the compute dtype
    whose shapes differ, or None where the general path would not use a broadcasting loop
    on them (mirrors ``elementwise.binary_data``)."""
    from ..storage.layout import bcast3
    from ._core import broadcast_shapes

    ad, bd = a._data, b._data
    if (ad.__class__ is not np.ndarray or bd.__class__ is not np.ndarray
            or not (ad.flags.c_contiguous and bd.flags.c_contiguous)):
        return None
    shape = broadcast_shapes(ad.shape, bd.shape)
    n = 1
    for d in shape:
        n *= d
    if n == 0 or (ad.size == 1 and bd.size == 1):
        return None
    if bd.size == 1 and ad.shape == shape:
        views = (-1, (), None, n)
    elif ad.size == 1 and bd.shape == shape:
        views = ((), -1, None, n)
    else:
        b3 = bcast3(shape, (ad, bd))
        if b3 is None:
            return None
        views = (b3[1][0].shape, b3[1][1].shape, b3[0], n)
    p = _plan(BCAST, dt=odt, bcast=True, shape=shape)
    p.views = views
    return p


def _plan1(op, x):
    if x.__class__ is not Tensor:
        raise TypeError(f"{op.name}(): argument 'input' must be Tensor, not {type(x).__name__}")
    if op.check is not None:
        op.check(x)
    if x._dtype.low:  # float16 / bfloat16: the general path computes in float32
        return _plan(GENERAL)
    odt = _out_dtype(op, x._dtype)
    k = _key(x)
    if k and k.__class__ is not tuple and odt is x._dtype:
        f = _entry(op, _FLAT, k.np.str, np.dtype(odt.np).str)
        return _plan(SMALL, f, k, odt, None, not k.flat)
    if k.__class__ is tuple and k[4] and odt is x._dtype and x._data.size:
        return _plan(CONTIG, dt=odt, shape=k[3])
    return _plan(GENERAL)


# ----- the dispatch path ------------------------------------------------------------------
def apply2(op, a, b, extra=None, inputs=None, rec=True):
    """Binary ``op`` of ``a`` and ``b`` (Tensors or numbers), recorded for autograd.

    ``extra``: the values of ``op.kwargs`` (a tuple, None for the defaults); ``inputs``:
    the tensors the node's edges point to when ``a`` / ``b`` were derived from them (add's
    scaled ``other``); ``rec=False``: compute only.
    """
    if _TRACING:
        return _traced(apply2, op, (a, b), extra, inputs, rec)
    if a.__class__ is Tensor:
        ka = a._sk
        if not ka:
            ka = _key(a)
    else:
        ka = a.__class__
    if b.__class__ is Tensor:
        kb = b._sk
        if not kb:
            kb = _key(b)
    else:
        kb = b.__class__
    plan = op.plans.get((ka, kb))
    if plan is None:
        plan = _miss2(op, a, b, (ka, kb))
    kind = plan.kind
    if kind <= S_SMALL:
        if kind == SMALL:
            if a is _STATE.owned:  # a gradient the engine lent: written into (see module doc)
                _STATE.owned = None
                if not _STATE.enabled and plan.into is not None:
                    if plan.reshape:
                        plan.into(a._data.reshape(-1), b._data.reshape(-1))
                    else:
                        plan.into(a._data, b._data)
                    return a
            k = plan.out_key
            o = _np_empty(k.shape, plan.np)
            if plan.reshape:
                plan.f(a._data.reshape(-1), b._data.reshape(-1), o.reshape(-1))
            else:
                plan.f(a._data, b._data, o)
        elif kind == SMALL_S:
            if a is _STATE.owned:
                _STATE.owned = None
            k = plan.out_key
            o = _np_empty(k.shape, plan.np)
            if plan.reshape:
                plan.f(a._data.reshape(-1), plan.stype(b), o.reshape(-1))
            else:
                plan.f(a._data, plan.stype(b), o)
        else:
            k = plan.out_key
            o = _np_empty(k.shape, plan.np)
            if plan.reshape:
                plan.f(plan.stype(a), b._data.reshape(-1), o.reshape(-1))
            else:
                plan.f(plan.stype(a), b._data, o)
        # tensor._fresh's stores, inline: a frame less on every small op
        out = _new(Tensor)
        out._data = o
        out._dtype = plan.dt
        out._device = _CPU_DEV
        out._rg = False
        out._grad = None
        out._grad_fn = None
        out._output_nr = 0
        out._vc = [0] if not _INFER[0] else _version_counter()
        out._base = None
        out._hooks = None
        out._acc = None
        out._retains_grad = False
        out._sk = k
        out._owner = _graph.OWNER
    else:
        if kind == VALUE:
            return _apply_value(op, plan, a, b, extra, inputs, rec)
        out = _run2(op, plan, a, b)
        if out is a:
            return a
    if inputs is not None:
        a, b = inputs
    if _STATE.enabled and rec and op.record is not None and (
            (a.__class__ is Tensor and a._rg) or (b.__class__ is Tensor and b._rg)):
        bcast = plan.bcast
        if inputs is not None:
            bcast = (a.__class__ is Tensor and b.__class__ is Tensor
                     and (a._data.shape != b._data.shape or a._dtype is not b._dtype))
        op.record(out, a, b, bcast, extra)
    return out


def _apply_value(op, plan, a, b, extra, inputs, rec):
    """A ``VALUE`` plan: the operand that is one value expanded, read as a number, then the
    op through the number's plan, its node's edges still pointing at the tensors."""
    if a is _STATE.owned:
        _STATE.owned = None
    first, index = plan.views
    if inputs is None:
        inputs = (a, b)
    if first:
        return apply2(op, a._data[index], b, extra, inputs, rec)
    return apply2(op, a, b._data[index], extra, inputs, rec)


def _miss2(op, a, b, key):
    plan = _plan2(op, a, b)
    if len(op.plans) >= _MAX_PLANS:  # many layouts (e.g. varying lengths): start over
        op.plans.clear()
    op.plans[key] = plan
    return plan


def _run2(op, plan, a, b):
    """The non-small plans: contiguous arrays (same layout, with a number, broadcasting),
    then the general path."""
    kind = plan.kind
    if kind >= CONTIG_S:
        if a is _STATE.owned:
            _STATE.owned = None
        dt = plan.dt
        shape = plan.shape
        k = op.kernel
        if kind == BCAST:
            ad, bd = a._data, b._data
            va, vb, vo, n = plan.views
            out = _pool_empty(shape, dt.np, n * dt.itemsize)
            if vo is not None:
                k.broadcast(ad.reshape(va), bd.reshape(vb), out.reshape(vo))
            else:
                k(ad.reshape(va), bd.reshape(vb), out.reshape(-1))
            return _fresh(out, dt, a._device)
        if kind == CONTIG_S:
            ad = a._data
            out = _pool_empty(shape, dt.np, ad.size * dt.itemsize)
            k.flat_s(ad.reshape(-1), plan.stype(b), out.reshape(-1))
            return _fresh(out, dt, a._device)
        bd = b._data
        out = _pool_empty(shape, dt.np, bd.size * dt.itemsize)
        k.s_flat(plan.stype(a), bd.reshape(-1), out.reshape(-1))
        return _fresh(out, dt, b._device)
    if kind == CONTIG:
        ad, bd = a._data, b._data
        k = op.kernel
        if a is _STATE.owned:
            _STATE.owned = None
            if not _STATE.enabled and plan.dt is a._dtype:
                k.into(ad.reshape(-1), bd.reshape(-1))
                return a
        dt = plan.dt
        out = _pool_empty(ad.shape, dt.np, ad.size * dt.itemsize)
        if ad.ndim == 1:
            k.flat(ad, bd, out)
        else:
            k.flat(ad.reshape(-1), bd.reshape(-1), out.reshape(-1))
        return _fresh(out, dt, a._device)
    if a is _STATE.owned:
        _STATE.owned = None
    return general2(op, a, b)


def general2(op, a, b):
    """Binary ``op`` through the general path (promotion, broadcasting, strides, devices),
    not recorded: what every plan must agree with bit for bit."""
    from ._core import same_device
    from .elementwise_data import binary_data

    if op.check is not None:
        op.check(a, b)
    dev = same_device(op.name, a, b)
    cdt = promote(a, b)
    odt = _out_dtype(op, cdt)
    if op.dtype == _FLOAT:
        cdt = odt
    if cdt.low:  # PyTorch's "opmath": computed in float32, rounded once to 16 bits; a
        # number operand is first rounded to the 16-bit dtype, as PyTorch casts it to the
        # common dtype (``half(2) == 2.0001`` is True there)
        a = a if a.__class__ is Tensor else _in_dtype(a, cdt)
        b = b if b.__class__ is Tensor else _in_dtype(b, cdt)
        data = binary_data(op.name, a, b, _dt.float32, _dt.float32 if odt.low else odt, dev)
        return _fresh(copy_data(data, odt, dev) if odt.low else data, odt, dev)
    data = binary_data(op.name, a, b, cdt, odt, dev)
    return _fresh(data, _dt._FROM_NP[data.dtype], dev)


def _in_dtype(v, dt):
    """Number ``v`` rounded to 16-bit dtype ``dt`` (through float32, as C++'s Half and
    BFloat16 constructors take a float), as a float; a bool stays itself."""
    if isinstance(v, (bool, np.bool_)):
        return v
    low = copy_data(np.array([v], np.float32), dt, _CPU_DEV)
    return float(copy_data(low, _dt.float32, _CPU_DEV)[0])


def apply1(op, x, rec=True):
    """Unary ``op`` of Tensor ``x``, recorded for autograd (``rec=False``: compute only)."""
    if _TRACING:
        return _traced(apply1, op, (x,), rec)
    if x.__class__ is Tensor:
        k = x._sk
        if not k:
            k = _key(x)
    else:
        k = None
    plan = op.plans.get(k)
    if plan is None:
        plan = _plan1(op, x)
        if len(op.plans) >= _MAX_PLANS:
            op.plans.clear()
        op.plans[k] = plan
    if plan.kind == SMALL:
        k = plan.out_key
        o = _np_empty(k.shape, plan.np)
        if plan.reshape:
            plan.f(x._data.reshape(-1), o.reshape(-1))
        else:
            plan.f(x._data, o)
        out = _new(Tensor)  # (tensor._fresh's stores, as in apply2)
        out._data = o
        out._dtype = plan.dt
        out._device = _CPU_DEV
        out._rg = False
        out._grad = None
        out._grad_fn = None
        out._output_nr = 0
        out._vc = [0] if not _INFER[0] else _version_counter()
        out._base = None
        out._hooks = None
        out._acc = None
        out._retains_grad = False
        out._sk = k
        out._owner = _graph.OWNER
    elif plan.kind == CONTIG:
        xd, dt = x._data, plan.dt
        out = _pool_empty(xd.shape, dt.np, xd.size * dt.itemsize)
        if xd.ndim == 1:
            op.kernel.flat(xd, out)
        else:
            op.kernel.flat(xd.reshape(-1), out.reshape(-1))
        out = _fresh(out, dt, x._device)
    else:
        out = general1(op, x)
    if x._rg and _STATE.enabled and rec and op.record is not None:
        op.record(out, x)
    return out


def general1(op, x):
    """Unary ``op`` of ``x`` through the general path, not recorded."""
    from .elementwise_data import unary_data

    if op.check is not None:
        op.check(x)
    odt = _out_dtype(op, x._dtype)
    if odt.low:  # PyTorch's "opmath": computed in float32, rounded once to 16 bits
        data = unary_data(op.name, x, _dt.float32, x._device)
        return _fresh(copy_data(data, odt, x._device), odt, x._device)
    data = unary_data(op.name, x, odt, x._device)
    return _fresh(data, _dt._FROM_NP[data.dtype], x._device)


def _traced(apply, op, operands, *rest):
    """``apply(op, *operands, *rest)`` while the tracer records: the recorder runs it (or
    defers it: compiler/lazy.py) and sees the row, its operands and its result. An op of
    another thread meanwhile ends the trace (its flag is the process's)."""
    global _TRACING
    rec = _recording.RECORDER[0]
    if rec is None or not rec.mine():
        if rec is not None:
            rec.end("an op on another thread")
        _TRACING = False
        try:
            return apply(op, *operands, *rest)
        finally:
            _TRACING = _recording.RECORDER[0] is not None
    return rec.elementwise(apply, op, operands, rest)


def _shaped(op, operands):
    """A tensor of the dtype, shape and device that ``op`` of ``operands`` gives, its
    values not computed (what the compiler's recording of a backward pass takes from an
    elementwise op: no kernel compiled or run for a pass whose values it drops)."""
    ts = [x for x in operands if x.__class__ is Tensor]
    odt = _out_dtype(op, ts[0]._dtype if len(operands) == 1 else promote(*operands))
    from ..creation import full, zeros

    shape = np.broadcast_shapes(*[t._data.shape for t in ts])
    if odt.is_floating_point:  # (nan: a value that leaked anywhere would show)
        out = full(shape, float("nan"), dtype=odt, device=ts[0]._device)
        # requiring grad where eager's would (the recording builds a graph): formulas that
        # take another path for a gradient that needs none must take eager's; a row with
        # no derivative (no record) makes none
        out._rg = _STATE.enabled and op.record is not None and any(t._rg for t in ts)
        return out
    # (zeros: an integer value may index a row's read, where garbage would read anywhere)
    return zeros(shape, dtype=odt, device=ts[0]._device)


def general(op, *args):
    """``op(*args)`` computed by the general path, never a cached plan, not recorded."""
    return (general1 if op.arity == 1 else general2)(op, *args)
