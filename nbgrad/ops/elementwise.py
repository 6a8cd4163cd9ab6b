"""Elementwise ops with broadcasting and PyTorch's type promotion."""

import math

import numpy as np

from .. import dtypes as _dt
from ..autograd.grad_mode import STATE as _STATE
from ..autograd.graph import SavedTensor, grad_accumulator, saved_input, saved_output
from ..device import CPU as _CPU_DEV
from ..storage._cpupool import empty as _empty
from ..storage.layout import bcast3, copy_data, is_c, layout3, unexpand
from ..tensor import _fresh
from ._core import (
    _NO_EDGE,
    SMALL_N,
    Node,
    Tensor,
    _attach_plain,
    backend,
    broadcast_shapes,
    kernel,
    needs_grad,
    record,
    same_device,
    save,
    save_output,
    small_key,
    to_dtype_data,
    wrap,
)

_FLOAT_CAT = 2


# ----- computing results ----------------------------------------------------------------
def _operand(x, dt, dev, be):
    """Storage of ``x`` as dtype ``dt``: an array, or a NumPy scalar for a Python number."""
    if x.__class__ is Tensor:
        return to_dtype_data(x, dt, dev)
    return dt.np.type(x)


def binary_data(kname, a, b, cdt, odt, dev):
    """Run binary kernel ``kname`` on ``a`` and ``b`` (Tensors or numbers) in dtype ``cdt``;
    the result array has dtype ``odt``."""
    be = backend(dev)
    k = kernel(kname, dev)
    ad = _operand(a, cdt, dev, be)
    bd = _operand(b, cdt, dev, be)
    a_arr = ad.__class__ is not cdt.np.type
    b_arr = bd.__class__ is not cdt.np.type
    if a_arr and b_arr:
        shape = broadcast_shapes(ad.shape, bd.shape)
    else:
        shape = ad.shape if a_arr else bd.shape
    out = be.empty(shape, odt.np)
    if out.size == 0:
        return out
    cpu = out.__class__ is np.ndarray
    if cpu:  # expanded operands read as the small arrays they are
        ad = unexpand(ad) if a_arr else ad
        bd = unexpand(bd) if b_arr else bd
    if a_arr and b_arr:
        if ad.shape == shape and bd.shape == shape and is_c(ad) and is_c(bd):
            k(ad.reshape(-1), bd.reshape(-1), out.reshape(-1))
            return out
        if bd.size == 1 and ad.shape == shape and is_c(ad):
            k(ad.reshape(-1), bd.reshape(()), out.reshape(-1))
            return out
        if ad.size == 1 and bd.shape == shape and is_c(bd):
            k(ad.reshape(()), bd.reshape(-1), out.reshape(-1))
            return out
    elif a_arr:
        if ad.shape == shape and is_c(ad):
            k(ad.reshape(-1), bd, out.reshape(-1))
            return out
    elif bd.shape == shape and is_c(bd):
        k(ad, bd.reshape(-1), out.reshape(-1))
        return out
    if cpu:  # contiguous operands that broadcast: one pass, no strided views
        arrs = [x if x.__class__ is not cdt.np.type else np.full((1,), x, cdt.np)
                for x in (ad, bd)]
        if arrs[0].size == 1 and arrs[1].size == 1:  # e.g. an expanded scalar gradient
            one = np.empty(1, odt.np)
            k(arrs[0].reshape(-1), arrs[1].reshape(-1), one)
            out.fill(one[0])
            return out
        if arrs[0].flags.c_contiguous and arrs[1].flags.c_contiguous:
            b3 = bcast3(shape, arrs)
            if b3 is not None:
                k.broadcast(b3[1][0], b3[1][1], out.reshape(b3[0]))
                return out
    arrs = [x if x.__class__ is not cdt.np.type else be.full((), x, cdt.np) for x in (ad, bd)]
    views = layout3(be, shape, arrs + [out])
    if views is None:
        arrs = [copy_data(be.as_strided(x, shape, _bst(x, shape)), cdt, dev) for x in arrs]
        k(arrs[0].reshape(-1), arrs[1].reshape(-1), out.reshape(-1))
        return out
    k(views[0], views[1], views[2])
    return out


def _bst(x, shape):
    from ..storage.layout import _bstrides

    return tuple(_bstrides(x, shape))


def unary_data(kname, x, odt, dev):
    """Run unary kernel ``kname`` on Tensor ``x`` (converted to ``odt``)."""
    be = backend(dev)
    k = kernel(kname, dev)
    xd = to_dtype_data(x, odt, dev)
    out = be.empty(xd.shape, odt.np)
    if out.size == 0:
        return out
    if is_c(xd):
        k(xd.reshape(-1), out.reshape(-1))
        return out
    views = layout3(be, xd.shape, [xd, out])
    if views is None:
        xd = copy_data(xd, odt, dev)
        k(xd.reshape(-1), out.reshape(-1))
        return out
    k(views[0], views[1])
    return out


def _promote(a, b):
    ts = [t for t in (a, b) if t.__class__ is Tensor]
    ss = [s for s in (a, b) if s.__class__ is not Tensor]
    for s in ss:
        if not isinstance(s, (bool, int, float, np.number)):
            raise TypeError(
                f"unsupported operand type: expected a Tensor or a Number, got {type(s).__name__}"
            )
    return _dt.result_type(ts, ss)


_np_empty = np.empty


class _Entries(dict):
    """dtype -> entry point of one serial flat loop of one op (see ``_Loops``)."""

    __slots__ = ("kname", "slot", "pattern")

    def __missing__(self, dt):
        from numba import from_dtype, types

        s = from_dtype(dt.np)
        a = types.Array(s, 1, "C")
        argtypes = tuple(a if p == "a" else s for p in self.pattern)
        f = self[dt] = _CPU[self.kname].entry(self.slot, *argtypes)
        return f


class _Loops(dict):
    """``loops[op][dtype]``: a serial flat loop's compiled entry point, called without Numba's
    dispatch. Only for 1-d C-contiguous arrays of exactly that dtype (and that dtype's NumPy
    scalar where ``pattern`` has an "s"), below ``_core.SMALL_N`` elements."""

    def __init__(self, slot, pattern):
        super().__init__()
        self.slot = slot
        self.pattern = pattern

    def __missing__(self, kname):
        d = self[kname] = _Entries()
        d.kname, d.slot, d.pattern = kname, self.slot, self.pattern
        return d


_FLAT1 = _Loops(0, "aa")  # unary: x, out
_FLAT2 = _Loops(0, "aaa")  # binary: a, b, out
_FLAT_S = _Loops(2, "asa")  # binary: a, number, out
_S_FLAT = _Loops(4, "saa")  # binary: number, b, out
_INTO = _Loops(10, "aa")  # binary in place: out (= a), b


class _CpuKernels(dict):
    """The CPU kernels by op name, for the fast path of NumPy-backed operands."""

    def __missing__(self, name):
        from ..device import CPU

        k = self[name] = kernel(name, CPU)
        return k


_CPU = _CpuKernels()


def _binary(kname, a, b, float_only=False):
    if a.__class__ is Tensor and b.__class__ is Tensor:
        sk = a._sk
        if sk is None:
            sk = small_key(a)
        if sk and (sk is b._sk or (b._sk is None and small_key(b) is sk)) and (
                sk.float or not float_only):
            return _small_out(_FLAT2[kname][sk.dt], a._data, b._data, sk)
        # fast path for the common case: same dtype, shape and device, contiguous
        ad, bd, dt = a._data, b._data, a._dtype
        if (dt is b._dtype and ad.__class__ is np.ndarray and bd.__class__ is np.ndarray
                and ad.shape == bd.shape and ad.flags.c_contiguous and bd.flags.c_contiguous
                and (dt._cat == _FLOAT_CAT or not float_only) and ad.size):
            k = _CPU[kname]
            if a is _STATE.owned and not _STATE.enabled:  # lent by the engine: in place
                _STATE.owned = None
                k.into(ad.reshape(-1), bd.reshape(-1))
                return a
            out = _empty(ad.shape, dt.np, ad.size * dt.itemsize)
            if ad.ndim == 1:
                k.flat(ad, bd, out)
            else:
                k.flat(ad.reshape(-1), bd.reshape(-1), out.reshape(-1))
            return _fresh(out, dt, a._device)
        if (dt is b._dtype and a._device is b._device and ad.__class__ is np.ndarray
                and bd.__class__ is np.ndarray and (dt._cat == _FLOAT_CAT or not float_only)):
            # same dtype on the CPU, broadcasting or strided: no promotion to work out
            if ad.shape == bd.shape and ad.size:
                out = _one_expanded(kname, ad, bd, dt)
                if out is not None:
                    return _fresh(out, dt, a._device)
            return _fresh(binary_data(kname, a, b, dt, dt, a._device), dt, a._device)
    else:
        # fast path: a float tensor and a Python number (the number takes the tensor's dtype)
        if a.__class__ is Tensor:
            t, s, first = a, b, False
        else:
            t, s, first = b, a, True
        sc = s.__class__
        if t.__class__ is Tensor and (sc is float or sc is int) and t._dtype._cat == _FLOAT_CAT:
            sk = t._sk
            if sk is None:
                sk = small_key(t)
            if sk:
                o = _np_empty(sk.shape, sk.np)
                td = t._data
                if sk.flat:
                    if first:
                        _S_FLAT[kname][sk.dt](sk.np.type(s), td, o)
                    else:
                        _FLAT_S[kname][sk.dt](td, sk.np.type(s), o)
                elif first:
                    _S_FLAT[kname][sk.dt](sk.np.type(s), td.reshape(-1), o.reshape(-1))
                else:
                    _FLAT_S[kname][sk.dt](td.reshape(-1), sk.np.type(s), o.reshape(-1))
                out = _fresh(o, sk.dt, t._device)
                out._sk = sk
                return out
            td, dt = t._data, t._dtype
            if td.__class__ is np.ndarray and td.flags.c_contiguous and td.size:
                out = _empty(td.shape, dt.np, td.size * dt.itemsize)
                k = _CPU[kname]
                flat = td if td.ndim == 1 else td.reshape(-1)
                o = out if td.ndim == 1 else out.reshape(-1)
                if first:
                    k.s_flat(dt.np.type(s), flat, o)
                else:
                    k.flat_s(flat, dt.np.type(s), o)
                return _fresh(out, dt, t._device)
            if td.__class__ is np.ndarray and td.size and 0 in td.strides:
                if not any(td.strides):  # one value everywhere (sum's expanded gradient)
                    return _fresh(_one_value_op(kname, td, dt.np.type(s), first, dt), dt,
                                  t._device)
                return _fresh(binary_data(kname, a, b, dt, dt, t._device), dt, t._device)
    dev = same_device(kname, a, b)
    cdt = _promote(a, b)
    if float_only and cdt._cat != _FLOAT_CAT:
        cdt = _dt.get_default_dtype()
    return wrap(binary_data(kname, a, b, cdt, cdt, dev), dev)


# what a fused small op saves for backward
SAVE_NONE, SAVE_IN, SAVE_OUT, SAVE_CROSS, SAVE_BOTH, SAVE_DIV = range(6)


def _small2(kname, a, b, node_cls, saves, float_only=False):
    """Binary op ``kname`` and its recording in one frame, for small contiguous CPU tensors
    of one dtype and shape (None otherwise: the caller takes the general path). ``saves``:
    SAVE_NONE, SAVE_CROSS (``b`` for ``a``'s gradient and ``a`` for ``b``'s, as a product
    needs), SAVE_BOTH or SAVE_DIV (``b``, and ``a`` only for ``b``'s gradient, as PyTorch's
    division)."""
    if a.__class__ is not Tensor or b.__class__ is not Tensor:
        return None
    sk = a._sk
    if sk is None:
        sk = small_key(a)
    if not sk or (sk is not b._sk and (b._sk is not None or small_key(b) is not sk)) or (
            float_only and not sk.float):
        return None
    if a is _STATE.owned and not _STATE.enabled:
        # a gradient the backward engine lent: write into it (see grad_mode._State; big
        # arrays are lent in _binary)
        _STATE.owned = None
        if sk.flat:
            _INTO[kname][sk.dt](a._data, b._data)
        else:
            _INTO[kname][sk.dt](a._data.reshape(-1), b._data.reshape(-1))
        return a
    out = _small_out(_FLAT2[kname][sk.dt], a._data, b._data, sk)
    ra, rb = a._rg, b._rg
    if (ra or rb) and _STATE.enabled:
        fn = a._grad_fn
        if fn is not None:
            ea = (fn, a._output_nr)
        else:
            ea = (grad_accumulator(a), 0) if ra else _NO_EDGE
        fn = b._grad_fn
        if fn is not None:
            eb = (fn, b._output_nr)
        else:
            eb = (grad_accumulator(b), 0) if rb else _NO_EDGE
        if saves == SAVE_CROSS:
            sv = (saved_input(b) if ra else None, saved_input(a) if rb else None)
        elif saves == SAVE_BOTH:
            sv = (saved_input(a), saved_input(b))
        elif saves == SAVE_DIV:
            sv = (saved_input(a) if rb else None, saved_input(b))
        else:
            sv = ()
        _attach_plain(node_cls, out, (ea, eb), sv)
    return out


def _small_out(f, ad, bd, sk):
    """A new tensor of key ``sk`` holding loop ``f`` of arrays ``ad`` and ``bd`` (of key
    ``sk``)."""
    o = _np_empty(sk.shape, sk.np)
    if sk.flat:
        f(ad, bd, o)
    else:
        f(ad.reshape(-1), bd.reshape(-1), o.reshape(-1))
    out = _fresh(o, sk.dt, _CPU_DEV)
    out._sk = sk
    return out


def _fast_step(kname, g, s, lent):
    """Binary kernel ``kname`` of gradient ``g`` and saved tensor ``s`` when both are of one
    small key (a node's ``_fast`` backward): in place when the engine ``lent`` ``g``. None when
    the fast path does not apply, or ``s`` was modified in place (the full rule then
    raises PyTorch's error)."""
    if s.__class__ is not SavedTensor:
        return None
    sk = g._sk
    if sk is None:
        sk = small_key(g)
    if not sk:
        return None
    t = s.t
    if t is None:  # a saved output: its storage and version counter
        if sk is not s.sk or s.vc[0] != s.version:
            return None
        sd = s.data
    else:
        tk = t._sk
        if tk is None:
            tk = small_key(t)
        if sk is not tk or t._vc[0] != s.version:
            return None
        sd = t._data
    if lent:
        if sk.flat:
            _INTO[kname][sk.dt](g._data, sd)
        else:
            _INTO[kname][sk.dt](g._data.reshape(-1), sd.reshape(-1))
        return g
    return _small_out(_FLAT2[kname][sk.dt], g._data, sd, sk)


class _FastUnary(Node):
    """A unary op's node whose backward is one binary kernel, ``_fast_k(g, saved)``: the
    engine runs it on small arrays through ``_fast`` when it builds no graph."""

    __slots__ = ()
    _fast_k = None

    def _fast(self, g, lent):
        r = _fast_step(self._fast_k, g, self._saved[0], lent)
        return None if r is None else (r,)


def _unary_op(kname, x, node_cls, saves, float_only=False):
    """Unary op ``kname`` recorded as ``node_cls``, which saves nothing, the input or the
    output (``saves``: SAVE_NONE, SAVE_IN or SAVE_OUT)."""
    out = _unary(kname, x, float_only)
    if x._rg and _STATE.enabled:  # (_unary checked that x is a Tensor)
        fn = x._grad_fn
        e = (fn, x._output_nr) if fn is not None else (grad_accumulator(x), 0)
        if saves == SAVE_OUT:
            _attach_plain(node_cls, out, (e,), (saved_output(out),))
        elif saves == SAVE_IN:
            _attach_plain(node_cls, out, (e,), (saved_input(x),))
        else:
            _attach_plain(node_cls, out, (e,), ())
    return out


def _one_expanded(kname, ad, bd, dt):
    """``kname`` of same-shape CPU arrays where one is a single value expanded (all strides
    0, as sum's gradient is) and the other contiguous: the number path; else None."""
    if bd.flags.c_contiguous:
        nd = ad.ndim
        if nd and not any(ad.strides):
            n = ad.size
            out = _empty(ad.shape, dt.np, n * dt.itemsize)
            v = ad[(0,) * nd]  # a NumPy scalar of the array's dtype
            o = out
            if nd > 1:
                bd, o = bd.reshape(-1), out.reshape(-1)
            if n < SMALL_N:
                _S_FLAT[kname][dt](v, bd, o)
            else:
                _CPU[kname].s_flat(v, bd, o)
            return out
    elif ad.flags.c_contiguous and bd.ndim and not any(bd.strides):
        nd = ad.ndim
        n = ad.size
        out = _empty(ad.shape, dt.np, n * dt.itemsize)
        v = bd[(0,) * nd]
        o = out
        if nd > 1:
            ad, o = ad.reshape(-1), out.reshape(-1)
        if n < SMALL_N:
            _FLAT_S[kname][dt](ad, v, o)
        else:
            _CPU[kname].flat_s(ad, v, o)
        return out
    return None


def _one_value_op(kname, td, s, first, dt):
    """``kname`` of CPU array ``td``, one value in every element (all strides 0), and
    number ``s`` of dtype ``dt``: the kernel runs on that one value, which then fills a
    contiguous result (as PyTorch's)."""
    one = _np_empty(1, dt.np)
    one[0] = td.item(0)
    if first:
        _S_FLAT[kname][dt](s, one, one)
    else:
        _FLAT_S[kname][dt](one, s, one)
    out = _empty(td.shape, dt.np, td.size * dt.itemsize)
    out.fill(one[0])
    return out


def _float_dtype(x):
    return x._dtype if x._dtype.is_floating_point else _dt.get_default_dtype()


def _unary(kname, x, float_only=False):
    if x.__class__ is Tensor:
        sk = x._sk
        if sk is None:
            sk = small_key(x)
        if sk and (sk.float or not float_only):
            o = _np_empty(sk.shape, sk.np)
            if sk.flat:
                _FLAT1[kname][sk.dt](x._data, o)
            else:
                _FLAT1[kname][sk.dt](x._data.reshape(-1), o.reshape(-1))
            out = _fresh(o, sk.dt, x._device)
            out._sk = sk
            return out
        xd, dt = x._data, x._dtype
        if (xd.__class__ is np.ndarray and xd.flags.c_contiguous and xd.size
                and (dt._cat == _FLOAT_CAT or not float_only)):
            out = _empty(xd.shape, dt.np, xd.size * dt.itemsize)
            k = _CPU[kname]
            if xd.ndim == 1:
                k.flat(xd, out)
            else:
                k.flat(xd.reshape(-1), out.reshape(-1))
            return _fresh(out, dt, x._device)
    if x.__class__ is not Tensor:
        raise TypeError(f"{kname}(): argument 'input' must be Tensor, not {type(x).__name__}")
    dt = _float_dtype(x) if float_only else x._dtype
    return wrap(unary_data(kname, x, dt, x._device), x._device)


# ----- helpers for backward rules -----------------------------------------------------------
def sum_to(g, shape):
    """Reduce gradient ``g`` to ``shape`` by summing broadcast dims (differentiable)."""
    if g.__class__ is not Tensor or g._data.shape == shape or tuple(g._data.shape) == tuple(shape):
        return g
    from .reduce import sum as _sum

    lead = g.ndim - len(shape)
    dims = list(range(lead))
    gs = g.shape
    for i, s in enumerate(shape):
        if s == 1 and gs[i + lead] != 1:
            dims.append(i + lead)
    r = _sum(g, tuple(dims), keepdim=True) if dims else g
    if lead:
        from .shape import reshape

        r = reshape(r, tuple(shape))
    return r


def _shape(x):
    return x._data.shape if x.__class__ is Tensor else ()


def _shapes(a, b, *more):
    """A binary node's attrs: the operand shapes (and ``more``) for ``sum_to`` in backward,
    or None when no gradient needs reducing (equal shapes, or a number, and alpha 1)."""
    if not more or more[0] == 1:
        if a.__class__ is not Tensor or b.__class__ is not Tensor:
            return None
        if a._data.shape == b._data.shape:
            return None
    return (_shape(a), _shape(b)) + more


# ----- arithmetic -----------------------------------------------------------------------
class AddBackward0(Node):
    __slots__ = ()

    def backward(self, saved, g):
        at = self.attrs
        fa, fb = self.next_functions
        if at is None:  # no broadcasting, alpha 1
            return (g if fa[0] is not None else None), (g if fb[0] is not None else None)
        sa, sb, alpha = at
        ga = sum_to(g, sa) if fa[0] is not None else None
        gb = None
        if fb[0] is not None:
            gb = sum_to(g if alpha == 1 else mul(g, alpha), sb)
        return ga, gb


class SubBackward0(Node):
    __slots__ = ()

    def backward(self, saved, g):
        at = self.attrs
        fa, fb = self.next_functions
        if at is None:  # no broadcasting, alpha 1
            return (g if fa[0] is not None else None), (neg(g) if fb[0] is not None else None)
        sa, sb, alpha = at
        ga = sum_to(g, sa) if fa[0] is not None else None
        gb = sum_to(neg(g) if alpha == 1 else mul(g, -alpha), sb) if fb[0] is not None else None
        return ga, gb


class RsubBackward1(SubBackward0):
    __slots__ = ()


def add(input, other, *, alpha=1):
    """``input + alpha * other`` with broadcasting."""
    if alpha == 1:
        out = _small2("add", input, other, AddBackward0, SAVE_NONE)
        if out is not None:
            return out
    b = other if alpha == 1 else _scaled(other, alpha)
    out = _binary("add", input, b)
    if _STATE.enabled and ((input.__class__ is Tensor and input._rg)
                           or (other.__class__ is Tensor and other._rg)):
        record(AddBackward0, out, (input, other), (), _shapes(input, other, alpha))
    return out


def sub(input, other, *, alpha=1):
    """``input - alpha * other`` with broadcasting."""
    if _is_bool(input) or _is_bool(other):
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. "
            "Use the `^` or `logical_xor()` operator instead."
        )
    if alpha == 1:
        out = _small2("sub", input, other, SubBackward0, SAVE_NONE)
        if out is not None:
            return out
    b = other if alpha == 1 else _scaled(other, alpha)
    out = _binary("sub", input, b)
    if needs_grad(input, other):
        record(SubBackward0, out, (input, other), (), _shapes(input, other, alpha))
    return out


def rsub(input, other, *, alpha=1):
    """``other - alpha * input`` (the reflected ``-``)."""
    a = input if alpha == 1 else _scaled(input, alpha)
    out = _binary("sub", other, a)
    if needs_grad(input, other):
        record(RsubBackward1, out, (other, input), (), _shapes(other, input, alpha))
    return out


def _is_bool(x):
    return x.__class__ is Tensor and x._dtype is _dt.bool_


def _scaled(x, alpha):
    from ..autograd.grad_mode import no_grad

    if x.__class__ is not Tensor:  # add(t, 1.0, alpha=3): a plain number
        return x * alpha
    with no_grad():
        return mul(x, alpha)


class MulBackward0(Node):
    __slots__ = ()
    _grad_once = True

    def _fast(self, g, lent):
        if self.attrs is not None:
            return None
        b, a = self._saved
        if a is None:  # only the first input needs its gradient
            r = _fast_step("mul", g, b, lent)
            return None if r is None else (r, None)
        if b is None:
            r = _fast_step("mul", g, a, lent)
            return None if r is None else (None, r)
        return None

    def backward(self, saved, g):
        b, a = saved  # each saved only when the other side needs its gradient
        fa, fb = self.next_functions
        if fa[0] is not None and fb[0] is not None:
            _STATE.owned = None  # g is used twice: not to be written into
        if self.attrs is None:  # no broadcasting
            return (mul(g, b) if fa[0] is not None else None), (
                mul(g, a) if fb[0] is not None else None)
        sa, sb = self.attrs
        ga = sum_to(mul(g, b), sa) if fa[0] is not None else None
        gb = sum_to(mul(g, a), sb) if fb[0] is not None else None
        return ga, gb


def mul(input, other):
    """Elementwise product with broadcasting."""
    out = _small2("mul", input, other, MulBackward0, SAVE_CROSS)
    if out is not None:
        return out
    out = _binary("mul", input, other)
    ia = input.__class__ is Tensor and input._rg
    ib = other.__class__ is Tensor and other._rg
    if (ia or ib) and _STATE.enabled:
        record(MulBackward0, out, (input, other),
               (save(other) if ia else None, save(input) if ib else None),
               _shapes(input, other))
    return out


class DivBackward0(Node):
    __slots__ = ()

    def backward(self, saved, g):
        a, b = saved  # a saved only when b needs its gradient (as PyTorch)
        fa, fb = self.next_functions
        if fa[0] is not None and fb[0] is not None:
            _STATE.owned = None  # g is used twice: not to be written into
        at = self.attrs
        ga = div(g, b) if fa[0] is not None else None
        gb = neg(div(mul(g, a), mul(b, b))) if fb[0] is not None else None
        if at is not None:
            ga = sum_to(ga, at[0]) if ga is not None else None
            gb = sum_to(gb, at[1]) if gb is not None else None
        return ga, gb


class ReciprocalBackward0(Node):
    __slots__ = ()

    def backward(self, saved, g):
        r = saved[0]
        return (neg(mul(g, mul(r, r))),)


def reciprocal(input):
    """``1 / input`` elementwise (integers give the default float dtype)."""
    out = _binary("div", 1.0, input, float_only=True)
    if needs_grad(input):
        record(ReciprocalBackward0, out, (input,), (save_output(out),))
    return out


def div(input, other, *, rounding_mode=None):
    """True division with broadcasting (integers divide to the default float dtype)."""
    if rounding_mode is not None:
        raise NotImplementedError(f"div(): rounding_mode={rounding_mode!r} is not supported by nbgrad yet")
    out = _small2("div", input, other, DivBackward0, SAVE_DIV, True)
    if out is not None:
        return out
    if input.__class__ is not Tensor and other.__class__ is Tensor:
        # ``number / t`` as PyTorch's __rtruediv__: reciprocal(t) * number, whose backward
        # reads the reciprocal (neither t nor the result)
        _promote(input, other)
        return mul(reciprocal(other), input)
    out = _binary("div", input, other, float_only=True)
    ia = input.__class__ is Tensor and input._rg
    ib = other.__class__ is Tensor and other._rg
    if (ia or ib) and _STATE.enabled:
        record(DivBackward0, out, (input, other), (save(input) if ib else None, save(other)),
               _shapes(input, other))
    return out


class NegBackward0(Node):
    __slots__ = ()

    def backward(self, saved, g):
        return (neg(g),)


def neg(input):
    """``-input``."""
    if _is_bool(input):
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. "
            "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )
    return _unary_op("neg", input, NegBackward0, SAVE_NONE)


class PowBackward0(Node):
    """Tensor base, number exponent."""

    __slots__ = ()

    def backward(self, saved, g):
        (a,) = saved
        p = self.attrs
        if p == 0:
            return mul(g, 0.0), None
        if p == 2:  # the common square: one kernel, no a ** 1
            return twice_mul(g, a), None
        return mul(g, mul(pow(a, p - 1), p)), None


class PowBackward1(Node):
    """Tensor base, tensor exponent."""

    __slots__ = ()

    def backward(self, saved, g):
        a, b, r = saved
        fa, fb = self.next_functions
        ga = gb = None
        if fa[0] is not None:
            # PyTorch's convention: no gradient where the exponent is 0 (nan ** 0 is 1)
            ga = mul(g, mul(b, pow(a, sub(b, 1))))
            ga = sum_to(where(eq(b, 0), 0.0, ga), _shape(a))
        if fb[0] is not None:
            # 0 ** b with b >= 0 has no log term (PyTorch's convention avoids nan there)
            safe = where(logical_and(eq(a, 0), ge(b, 0)), 0.0, mul(r, log(a)))
            gb = sum_to(mul(g, safe), _shape(b))
        return ga, gb


class PowBackward2(Node):
    """Number base, tensor exponent."""

    __slots__ = ()

    def backward(self, saved, g):
        r = saved[0]  # (the exponent, saved as PyTorch saves it, is not needed)
        base = self.attrs
        if base == 0:
            return (None, mul(g, where(ge(r, 0), 0.0, mul(r, math.log(base) if base > 0 else math.nan))))
        return (None, mul(g, mul(r, math.log(base) if base > 0 else math.nan)))


def pow(input, exponent):
    """``input ** exponent``; either may be a number."""
    if input.__class__ is not Tensor:
        out = _binary("pow", input, exponent)
        if needs_grad(exponent):
            record(PowBackward2, out, (input, exponent), (save_output(out), save(exponent)), input)
        return out
    if exponent.__class__ is not Tensor:
        if input._dtype._cat != _FLOAT_CAT and isinstance(exponent, (int, np.integer)) and exponent < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        if exponent == 2 and input._dtype._cat == _FLOAT_CAT:
            out = _binary("mul", input, input)
        elif (exponent == 0.5 or exponent == -0.5) and input._dtype._cat == _FLOAT_CAT:
            # as PyTorch: sqrt / rsqrt, so (-inf) ** 0.5 is nan and (-0.0) ** -0.5 is -inf
            out = _unary("sqrt" if exponent > 0 else "rsqrt", input)
        else:
            out = _binary("pow", input, exponent)
        if needs_grad(input):
            record(PowBackward0, out, (input, exponent), (save(input),), exponent)
        return out
    out = _binary("pow", input, exponent)
    if needs_grad(input, exponent):
        record(PowBackward1, out, (input, exponent), (save(input), save(exponent), save_output(out)))
    return out


# ----- unary math -----------------------------------------------------------------------
class ExpBackward0(_FastUnary):
    __slots__ = ()
    _grad_once = True
    _fast_k = "mul"

    def backward(self, saved, g):
        return (mul(g, saved[0]),)


def exp(input):
    """Elementwise ``e ** input``."""
    return _unary_op("exp", input, ExpBackward0, SAVE_OUT, True)


class LogBackward0(Node):
    __slots__ = ()

    def backward(self, saved, g):
        return (div(g, saved[0]),)


def log(input):
    """Natural logarithm (``-inf`` at 0, ``nan`` below)."""
    return _unary_op("log", input, LogBackward0, SAVE_IN, True)


class SqrtBackward0(Node):
    __slots__ = ()

    def backward(self, saved, g):
        return (div(g, mul(saved[0], 2)),)


def sqrt(input):
    """Elementwise square root."""
    return _unary_op("sqrt", input, SqrtBackward0, SAVE_OUT, True)


class AbsBackward0(Node):
    __slots__ = ()

    def backward(self, saved, g):
        return (mul(g, sign(saved[0])),)


def abs(input):
    """Elementwise absolute value (gradient 0 at 0)."""
    return _unary_op("abs", input, AbsBackward0, SAVE_IN)


class SignBackward0(Node):
    __slots__ = ()

    def backward(self, saved, g):
        return (mul(g, 0),)


def sign(input):
    """-1, 0 or 1 by the sign of each element."""
    return _unary_op("sign", input, SignBackward0, SAVE_NONE)


class TanhBackward0(_FastUnary):
    __slots__ = ()
    _grad_once = True
    _fast_k = "tanh_backward"

    def backward(self, saved, g):
        return (tanh_backward(g, saved[0]),)


def tanh(input):
    """Elementwise hyperbolic tangent."""
    return _unary_op("tanh", input, TanhBackward0, SAVE_OUT, True)


class SigmoidBackward0(_FastUnary):
    __slots__ = ()
    _grad_once = True
    _fast_k = "sigmoid_backward"

    def backward(self, saved, g):
        return (sigmoid_backward(g, saved[0]),)


def sigmoid(input):
    """Elementwise logistic function ``1 / (1 + exp(-input))``, stable for large |input|."""
    return _unary_op("sigmoid", input, SigmoidBackward0, SAVE_OUT, True)


class ReluBackward0(Node):
    __slots__ = ()

    def backward(self, saved, g):
        return (threshold_backward(g, saved[0]),)


def relu(input):
    """``max(input, 0)`` elementwise (gradient 0 at 0)."""
    return _unary_op("relu", input, ReluBackward0, SAVE_OUT)


# ----- fused backward ops: one kernel per backward step, differentiable again ------------
class TanhBackwardBackward0(Node):
    __slots__ = ()

    def backward(self, saved, gg):
        g, y = saved
        fg, fy = self.next_functions
        dg = tanh_backward(gg, y) if fg[0] is not None else None
        dy = neg_twice_mul(mul(gg, g), y) if fy[0] is not None else None
        return dg, dy


class TwiceMulBackward0(Node):
    """Backward of ``twice_mul`` (a subclass with another ``_k``: of ``neg_twice_mul``): a
    product scaled by a constant, so each side's gradient is the same op of ``gg`` and the
    other."""

    __slots__ = ()
    _k = "twice_mul"

    def backward(self, saved, gg):
        b, a = saved  # each saved only when the other side needs its gradient
        fa, fb = self.next_functions
        if fa[0] is not None and fb[0] is not None:
            _STATE.owned = None  # gg is used twice: not to be written into
        cls = self.__class__
        return (_scaled_mul(cls, gg, b) if fa[0] is not None else None,
                _scaled_mul(cls, gg, a) if fb[0] is not None else None)


class NegTwiceMulBackward0(TwiceMulBackward0):
    __slots__ = ()
    _k = "neg_twice_mul"


def _scaled_mul(node_cls, a, b):
    """``a * 2b`` (``twice_mul``) or ``a * -2b`` (``neg_twice_mul``) in one kernel, the op
    ``node_cls._k``, for tensors of one shape: the backward steps of ``x ** 2`` and of
    tanh's backward."""
    kname = node_cls._k
    out = _small2(kname, a, b, node_cls, SAVE_CROSS)
    if out is not None:
        return out
    out = _binary(kname, a, b)
    ia, ib = a._rg, b._rg
    if (ia or ib) and _STATE.enabled:
        record(node_cls, out, (a, b), (save(b) if ia else None, save(a) if ib else None))
    return out


def twice_mul(grad, input):
    """``grad * (2 * input)`` as one kernel (the backward step of ``input ** 2``)."""
    return _scaled_mul(TwiceMulBackward0, grad, input)


def neg_twice_mul(grad, input):
    """``grad * (-2 * input)`` as one kernel (tanh's second derivative step)."""
    return _scaled_mul(NegTwiceMulBackward0, grad, input)


def tanh_backward(grad, output):
    """``grad * (1 - output**2)``: tanh's backward step as one kernel."""
    out = _small2("tanh_backward", grad, output, TanhBackwardBackward0, SAVE_BOTH)
    if out is not None:
        return out
    out = _binary("tanh_backward", grad, output)
    if needs_grad(grad, output):
        record(TanhBackwardBackward0, out, (grad, output), (save(grad), save(output)))
    return out


class SigmoidBackwardBackward0(Node):
    __slots__ = ()

    def backward(self, saved, gg):
        g, y = saved
        fg, fy = self.next_functions
        dg = sigmoid_backward(gg, y) if fg[0] is not None else None
        dy = mul(mul(gg, g), rsub(mul(y, 2.0), 1.0)) if fy[0] is not None else None
        return dg, dy


def sigmoid_backward(grad, output):
    """``grad * output * (1 - output)``: sigmoid's backward step as one kernel."""
    out = _small2("sigmoid_backward", grad, output, SigmoidBackwardBackward0, SAVE_BOTH)
    if out is not None:
        return out
    out = _binary("sigmoid_backward", grad, output)
    if needs_grad(grad, output):
        record(SigmoidBackwardBackward0, out, (grad, output), (save(grad), save(output)))
    return out


class ThresholdBackwardBackward0(Node):
    __slots__ = ()

    def backward(self, saved, gg):
        (x,) = saved
        fg, fx = self.next_functions
        # PyTorch's: d/dx is zero, but defined (a second derivative of zeros, not None)
        return (threshold_backward(gg, x) if fg[0] is not None else None,
                zeros_like(x) if fx[0] is not None else None)


def threshold_backward(grad, input):
    """``grad`` where ``input > 0``, else 0: relu's backward step as one kernel."""
    out = _binary("relu_backward", grad, input)
    if needs_grad(grad, input):
        record(ThresholdBackwardBackward0, out, (grad, input), (save(input),))
    return out


def zeros_like(x):
    from ..creation import zeros_like as _zl

    return _zl(x)


# ----- selection and comparison --------------------------------------------------------------
class WhereBackward0(Node):
    __slots__ = ()

    def backward(self, saved, g):
        (c,) = saved
        sa, sb = self.attrs
        _, fa, fb = self.next_functions
        ga = sum_to(where(c, g, 0.0), sa) if fa[0] is not None else None
        gb = sum_to(where(c, 0.0, g), sb) if fb[0] is not None else None
        return None, ga, gb


def where(condition, input, other):
    """Elements of ``input`` where ``condition`` holds, else of ``other``."""
    if condition.__class__ is not Tensor or condition._dtype is not _dt.bool_:
        raise RuntimeError("where expected condition to be a boolean tensor")
    dev = same_device("where", condition, input, other)
    dt = _promote(input, other)
    be = backend(dev)
    ts = [condition, input, other]
    shape = condition.shape
    for t in (input, other):
        if t.__class__ is Tensor:
            shape = broadcast_shapes(tuple(shape), tuple(t.shape))
    shape = tuple(shape)
    arrs = [condition._data] + [
        to_dtype_data(t, dt, dev) if t.__class__ is Tensor else be.full((), t, dt.np)
        for t in (input, other)
    ]
    out = be.empty(shape, dt.np)
    if out.size:
        k = kernel("where", dev)
        if all(a.shape == shape and is_c(a) for a in arrs):
            k(*[a.reshape(-1) for a in arrs], out.reshape(-1))
        else:
            views = layout3(be, shape, arrs + [out])
            if views is None:
                arrs = [copy_data(be.as_strided(a, shape, _bst(a, shape)), _dt._FROM_NP[a.dtype], dev) for a in arrs]
                k(*[a.reshape(-1) for a in arrs], out.reshape(-1))
            else:
                k(*views)
    res = wrap(out, dev)
    if needs_grad(input, other):
        record(WhereBackward0, res, ts, (save(condition),), (_shape(input), _shape(other)))
    return res


def _compare(kname, a, b):
    dev = same_device(kname, a, b)
    cdt = _promote(a, b)
    return wrap(binary_data(kname, a, b, cdt, _dt.bool_, dev), dev)


def eq(input, other):
    """Elementwise ``==`` as a bool tensor."""
    return _compare("eq", input, other)


def ne(input, other):
    """Elementwise ``!=`` as a bool tensor."""
    return _compare("ne", input, other)


def lt(input, other):
    """Elementwise ``<`` as a bool tensor."""
    return _compare("lt", input, other)


def le(input, other):
    """Elementwise ``<=`` as a bool tensor."""
    return _compare("le", input, other)


def gt(input, other):
    """Elementwise ``>`` as a bool tensor."""
    return _compare("gt", input, other)


def ge(input, other):
    """Elementwise ``>=`` as a bool tensor."""
    return _compare("ge", input, other)


def logical_and(input, other):
    """Elementwise logical and, as a bool tensor."""
    a = input if input._dtype is _dt.bool_ else ne(input, 0)
    b = other if other._dtype is _dt.bool_ else ne(other, 0)
    return wrap(binary_data("mul", a, b, _dt.bool_, _dt.bool_, a._device), a._device)


def logical_or(input, other):
    """Elementwise logical or, as a bool tensor."""
    a = input if input._dtype is _dt.bool_ else ne(input, 0)
    b = other if other._dtype is _dt.bool_ else ne(other, 0)
    return wrap(binary_data("add", a, b, _dt.bool_, _dt.bool_, a._device), a._device)


def logical_not(input):
    """Elementwise logical not, as a bool tensor."""
    return eq(input, 0) if input._dtype is not _dt.bool_ else eq(input, False)
