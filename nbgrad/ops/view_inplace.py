"""Autograd of in-place writes that go through views, as PyTorch records them.

A view shares its base's storage, so writing into one changes the others. When autograd
records an in-place op on a view ``t`` of base ``B`` (``t._base`` is always the root base),
``B`` takes a ``CopySlices`` node: the gradient of ``B`` outside ``t``'s region flows to
``B``'s old history, the region flows to the op's history (which ``t`` holds after the op).
Every view of ``B`` that has autograd history must then see ``B``'s new history: it gets an
``AsStridedBackward0`` node over it (PyTorch regenerates lazily when a view's grad_fn is
read; nbgrad's ops read ``_grad_fn`` directly, so this is done eagerly, when the in-place op
records). A base knows its views only when they were made while grad mode was on, the
viewed tensor required grad and the base was not a leaf (``register``): nothing is kept
otherwise.

Views from functions returning several views (``split``, ``chunk``) may not be modified in
place, nor used after their base was: PyTorch's errors (the latter when an op in grad mode
reads the view's ``_rg``, see ``Stale``, or when the gradient reaches it in backward).
"""

import weakref

import numpy as np

from ..autograd.grad_mode import STATE as _STATE
from ..autograd.graph import Node, grad_accumulator
from ..dtypes import _FROM_NP
from ..tensor import _wrap


class Views(list):
    """A base's registry: weakrefs to its views that have history. It lives in the base's
    ``_acc`` slot, which only a leaf uses (for its grad accumulator): only non-leaf bases
    keep views (a view of a leaf that requires grad may not be written in place). Called, it
    reads as a dead weakref, so a base made a leaf again (``detach_``) gets an accumulator."""

    __slots__ = ("cap",)

    def __call__(self):
        return None


# id(view) -> (weakref to the view, name of the multi-view function or None, output nr)
_MULTI = {}

# id(view) -> weakref to it: the views made with grad mode off of a base that requires
# grad, which PyTorch refuses to change in place with grad mode on (see made_without_grad)
_NOGRAD = {}
_NOGRAD_ERROR = (
    "A view was created in no_grad mode and is being modified inplace with grad mode enabled. "
    "Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify "
    "your code by moving both the view and the inplace either both inside the no_grad block "
    "(if you don't want the inplace to be tracked) or both outside (if you want the inplace "
    "to be tracked).")


def made_without_grad(view):
    """Remember that ``view`` was made with grad mode off of a base that requires grad."""
    k = id(view)
    _NOGRAD[k] = weakref.ref(view, lambda _r, k=k: _NOGRAD.pop(k, None))


def check_made_without_grad(view):
    """PyTorch's error before changing in place, with grad mode on, a view remembered by
    :func:`made_without_grad`."""
    r = _NOGRAD.get(id(view))
    if r is not None and r() is view:
        raise RuntimeError(_NOGRAD_ERROR)


_MULTI_TAIL = (
    "This view is the output of a function that returns multiple views. Such functions do "
    "not allow the output views to be modified inplace. You should replace the inplace "
    "operation by an out-of-place one."
)


def register(base, view, src):
    """Remember ``view`` (of root ``base``, made from ``src``) so that an in-place op on the
    base or on another of its views updates its history (``shape._view`` inlines the common
    case)."""
    lst = base._acc
    if lst.__class__ is not Views:
        lst = base._acc = Views()
        lst.cap = 32
    lst.append(weakref.ref(view))
    if len(lst) >= lst.cap:  # drop dead views, amortised over the appends
        lst[:] = [r for r in lst if r() is not None]
        lst.cap = 2 * len(lst) + 32
    if _MULTI:
        m = _MULTI.get(id(src))
        if m is not None and m[0]() is src:
            _mark(view, None, 0)  # a view of a multi-view output inherits the restriction


def _mark(view, name, nr):
    k = id(view)
    _MULTI[k] = (weakref.ref(view, lambda _r, k=k: _MULTI.pop(k, None)), name, nr)


def mark_multi(outs, name):
    """Mark ``outs``, the views returned by the multi-view function ``name``."""
    for i, v in enumerate(outs):
        if v._base is not None:
            _mark(v, name, i)


def _multi_entry(t):
    m = _MULTI.get(id(t))
    return m if m is not None and m[0]() is t else None


def _short(fn):
    n = type(fn).__name__ if fn is not None else "View"
    for suffix in ("Backward0", "Backward1", "Backward"):
        if n.endswith(suffix):
            return n[: -len(suffix)]
    return n


def _who(t, m):
    return (m[1], m[2]) if m[1] is not None else (_short(t._grad_fn), t._output_nr)


def before_inplace(t):
    """Before an in-place op that grad mode may record on ``t``: PyTorch's error for a
    multi-view output, and a view whose base got history since it was made (so it has none)
    takes that history first, so the op sees (and records) the current value's history."""
    if _MULTI:
        m = _multi_entry(t)
        if m is not None:
            fn = t._grad_fn
            if fn.__class__ is MultiViewError:
                raise RuntimeError(fn.attrs)
            name, nr = _who(t, m)
            raise RuntimeError(f"Output {nr} of {name} is a view and is being modified inplace. "
                               + _MULTI_TAIL)
    base = t._base
    if base is not None and t._grad_fn is None and base._grad_fn is not None:
        register(base, t, base)
        _refresh(t, base, (base._grad_fn, base._output_nr))


def after_inplace(t):
    """After an in-place op recorded its node on ``t``: when ``t`` is a view, its base takes
    a ``CopySlices`` node; then every registered view of the base is given the base's new
    history."""
    base = t._base
    if base is None:
        if t._acc.__class__ is Views:
            _regenerate(t)
        return
    fn = base._grad_fn
    if fn is not None:
        old = (fn, base._output_nr)
    elif base._rg:
        old = (grad_accumulator(base), 0)
    else:
        old = (None, 0)
    base._grad_fn = CopySlices((old, (t._grad_fn, t._output_nr)), (), _geometry(base, t))
    base._output_nr = 0
    base._rg = True
    lst = base._acc
    if lst.__class__ is not Views or not any(r() is t for r in lst):
        register(base, t, base)
    _regenerate(base)


def _regenerate(base):
    lst = base._acc
    if lst.__class__ is not Views:
        return
    edge = (base._grad_fn, base._output_nr)
    live = []
    for r in lst:
        v = r()
        if v is not None:
            live.append(r)
            _refresh(v, base, edge)
    lst[:] = live


def _refresh(v, base, edge):
    m = _multi_entry(v) if _MULTI else None
    if m is not None:
        if v._grad_fn.__class__ is not MultiViewError:
            name, nr = _who(v, m)
            msg = (f"Output {nr} of {name} is a view and its base or another view of its base "
                   "has been modified inplace. " + _MULTI_TAIL)
            v._grad_fn = MultiViewError(((None, 0),), (), msg)
            v._rg = Stale(msg)
    else:
        v._grad_fn = AsStridedBackward0((edge,), (), _geometry(base, v))
        v._rg = True
    v._output_nr = 0


# ----- geometry ----------------------------------------------------------------------------
def _ptr(a):
    i = getattr(a, "__cuda_array_interface__", None)
    if i is None:
        i = a.__array_interface__
    return i["data"][0]


def _geometry(base, v):
    """``(base shape, base strides, view shape, view strides, view offset)`` in elements,
    offsets relative to the base's data pointer."""
    bd, vd = base._data, v._data
    isz = bd.dtype.itemsize
    off = (_ptr(vd) - _ptr(bd)) // isz if vd.size else 0
    return (tuple(bd.shape), tuple(s // isz for s in bd.strides), tuple(vd.shape),
            tuple(s // isz for s in vd.strides), off)


def _positions(shape, strides, off=0):
    p = np.full((), off, np.int64)
    for n, s in zip(shape, strides):
        p = p[..., None] + np.arange(n, dtype=np.int64) * s
    return p.reshape(-1)


def _flat_index(geo):
    """For each element of the view (C order), its index in the flattened base."""
    bshape, bst, vshape, vst, off = geo
    vpos = _positions(vshape, vst, off)
    c = 1
    contiguous = True
    for n, s in zip(reversed(bshape), reversed(bst)):
        if n != 1 and s != c:
            contiguous = False
        c *= n
    if contiguous:
        return vpos
    bpos = _positions(bshape, bst)
    lo = int(bpos.min())
    table = np.full(int(bpos.max()) - lo + 1, -1, np.int64)
    table[bpos - lo] = np.arange(bpos.size, dtype=np.int64)
    return table[vpos - lo]


def _const(arr, like):
    """``arr`` (host) as a tensor on ``like``'s device."""
    from ..device import device as _device

    t = _wrap(arr, _FROM_NP[arr.dtype], _device("cpu"))
    return t if like._device.type == "cpu" else t.to(like._device)


class _Geo(Node):
    """A node whose attrs are a view's geometry; caches the flat index per device."""

    __slots__ = ()

    def _index(self, g):
        cache = self.__dict__.setdefault("_cache", {})
        key = ("idx", str(g._device))
        idx = cache.get(key)
        if idx is None:
            idx = cache[key] = _const(_flat_index(self.attrs), g)
        return idx


class AsStridedBackward0(_Geo):
    """A view's history over its base's: the view's gradient, scattered (summed where the
    view repeats an element) into zeros of the base's shape."""

    __slots__ = ()

    def backward(self, saved, g):
        from .index import index_add
        from .shape import reshape

        bshape = self.attrs[0]
        n = int(np.prod(bshape, dtype=np.int64))
        zeros = _wrap(np.zeros(n, g._dtype.np), g._dtype, g._device) \
            if g._device.type == "cpu" else _const(np.zeros(n, g._dtype.np), g)
        return (reshape(index_add(zeros, 0, self._index(g), reshape(g, (-1,))), bshape),)


class CopySlices(_Geo):
    """An in-place op on a view of the base: the base's old history gets the gradient
    outside the view's region, the op's history (the second edge) the region."""

    __slots__ = ()

    @classmethod
    def name(cls):
        return "torch::autograd::CopySlices"  # (PyTorch's C++ name; repr shows the short one)

    def backward(self, saved, g):
        from .elementwise import mul
        from .index import index_select
        from .shape import reshape

        (f_old, _), (f_new, _) = self.next_functions
        bshape, vshape = self.attrs[0], self.attrs[2]
        idx = self._index(g)
        g_old = g_new = None
        if f_old is not None:
            cache = self.__dict__.setdefault("_cache", {})
            key = ("mask", str(g._device), g._dtype.name)
            mask = cache.get(key)
            if mask is None:
                m = np.ones(int(np.prod(bshape, dtype=np.int64)), g._dtype.np)
                m[_flat_index(self.attrs)] = 0
                mask = cache[key] = _const(m.reshape(bshape), g)
            g_old = mul(g, mask)
        if f_new is not None:
            g_new = reshape(index_select(reshape(g, (-1,)), 0, idx), vshape)
        return g_old, g_new


class Stale:
    """``_rg`` of a multi-view output whose base was modified in place. Every op reads
    ``_rg`` before it records: while grad mode is on, that raises PyTorch's error (torch
    raises when an op reads the view's grad_fn); under no_grad it reads as False."""

    __slots__ = ("msg",)

    def __init__(self, msg):
        self.msg = msg

    def __bool__(self):
        if _STATE.enabled:
            raise RuntimeError(self.msg)
        return False


class MultiViewError(Node):
    """The history of a multi-view output whose base was modified in place: PyTorch's
    error when the gradient reaches it."""

    __slots__ = ()
    _stale_view = True

    def backward(self, saved, g):
        raise RuntimeError(self.attrs)
