"""Lazy calls: how ``nbgrad.compile`` runs a function whose trace hit a graph break.

A trace is replayed without running the function's Python, so it must hold the whole call.
A call that reads a value into Python (``item``, printing, ``if loss > 0``), runs a
backward pass, writes in place or calls an op the tracer does not see cannot be replayed.
Such calls run their Python every time, with the ops deferred: each recorded op (an
elementwise row, a ``FuncDef`` row) returns a *pending* tensor, whose dtype, shape,
device and ``requires_grad`` are known but whose values are not, and joins a queue. The
queue is flushed when something needs a pending tensor's values or autograd history (any
read of its storage, its ``grad_fn``, ..., a backward pass, an in-place op, a change of
grad mode, the end of the call): the queued ops, a *segment*, run as one compiled graph
(``api.CompiledFunction`` of the segment, cached by the segment's ops, arguments, input
metadata and live outputs), and the pending tensors still referenced get its results. The
code between segments runs eagerly. So a break ends a compiled region and the next region
starts after it, as the issue of graph breaks asks. The numbers the ops read are seen at
every call, never baked in unseen: a float operand of an elementwise op is an argument of
the segment (its kernels take it), an int or bool is part of the segment's key.

A pending tensor is a ``Tensor`` to every test nbgrad makes (``x.__class__ is Tensor``),
of class ``_Pending`` underneath: its storage and autograd slots are properties that
flush the queue before they are read or written, so code that is not recorded (an op
outside the tables, a hook, NumPy) always sees values; after the flush it is a plain
Tensor again.
"""

import weakref

import numpy as np

from .. import _recording
from ..autograd.grad_mode import STATE as _STATE
from ..autograd.grad_mode import set_grad_enabled
from ..ops import dispatch as _dispatch
from ..tensor import Size, Tensor, _wrap_dim
from .graph import Num, Op, bind_numbers
from .trace import Recorder, _number, _Tracing, _unchecked, _user_line

_SLOT = {n: Tensor.__dict__[n] for n in Tensor.__slots__ if n != "__weakref__"}
_DATA, _SK, _OWNER = _SLOT["_data"], _SLOT["_sk"], _SLOT["_owner"]
# (object's own ``__class__`` setter: _Pending's ``__class__`` is a read-only property)
_SET_CLASS = object.__dict__["__class__"].__set__
_ref = weakref.ref
_LAZY = ("_data", "_grad", "_grad_fn", "_output_nr", "_vc", "_base", "_hooks", "_acc",
         "_retains_grad", "_sk", "_owner")


_END = "the end of the call"
_READ = {"_data": "code the compiler does not record (an op outside its tables, NumPy) read "
                  "a tensor's values",
         "_grad_fn": "a tensor's autograd history was read (a backward pass, a hook, "
                     "grad_fn)"}
_OTHER = "a tensor's autograd state was read"


def _ready(t, name="_data"):
    """Flush the queue that makes pending tensor ``t`` (its slot ``name`` is read); then
    ``t`` is a plain Tensor."""
    rec = _OWNER.__get__(t)
    if rec.__class__ is LazyRecorder and rec.active:
        rec.flush(_READ.get(name, _OTHER))
    if type(t) is _Pending:  # (its call failed before the queue ran)
        raise RuntimeError("nbgrad.compile: this tensor has no values: the compiled call "
                           "that made it raised before they were computed")


def _lazy_slot(name):
    slot = _SLOT[name]

    def get(self):
        _ready(self, name)
        return slot.__get__(self)

    def put(self, value):
        _ready(self, name)
        slot.__set__(self, value)

    return property(get, put)


class _Pending(Tensor):
    """A tensor whose values a queued op will compute (see the module's doc)."""

    __slots__ = ()
    __class__ = property(lambda self: Tensor)  # (nbgrad's ``x.__class__ is Tensor``)

    # what a pending tensor knows without its values
    @property
    def _meta(self):
        return _DATA.__get__(self)

    @property
    def shape(self):
        return Size(_DATA.__get__(self).shape)

    def size(self, dim=None):
        shape = _DATA.__get__(self).shape
        return Size(shape) if dim is None else shape[_wrap_dim(dim, len(shape))]

    @property
    def ndim(self):
        return _DATA.__get__(self).ndim

    def dim(self):
        return _DATA.__get__(self).ndim

    def numel(self):
        return _DATA.__get__(self).size

    def __len__(self):
        shape = _DATA.__get__(self).shape
        if not shape:
            raise TypeError("len() of a 0-d tensor")
        return shape[0]


for _name in _LAZY:
    setattr(_Pending, _name, _lazy_slot(_name))


class _Meta:
    """What a value is without its values: ``dt``, ``shape``, ``device``, ``rg``
    (requires_grad); ``fake``, a zero-strided array of that dtype and shape (no memory),
    a pending tensor's storage slot. Interned (``_meta``): compared and hashed by
    identity."""

    __slots__ = ("dt", "shape", "device", "rg", "fake")

    def __init__(self, dt, shape, device, rg):
        self.dt, self.shape, self.device, self.rg = dt, shape, device, rg
        self.fake = np.broadcast_to(np.empty((), dt.np), shape)


_METAS = {}


def _meta(dt, shape, device, rg):
    key = (dt, shape, device, rg)
    m = _METAS.get(key)
    if m is None:
        if len(_METAS) >= _META_LIMIT:
            _METAS.clear()
            _META.clear()  # (its keys hold the metas dropped here)
        m = _METAS[key] = _Meta(dt, shape, device, rg)
    return m


def _meta_of(t):
    return _meta(t._dtype, t._data.shape, t._device, t._rg)


def _placeholder(rec, v, m):
    """A pending tensor of value ``v`` of ``rec``'s queue, of metadata ``m``: its storage
    slot ``m.fake``, its ``_sk`` slot the value, its ``_owner`` slot the queue."""
    t = _new(_Pending)
    _DATA.__set__(t, m.fake)
    t._dtype = m.dt
    t._device = m.device
    t._rg = m.rg
    _SK.__set__(t, v)
    _OWNER.__set__(t, rec)
    return t


_new = object.__new__


def _fill(p, r):
    """Pending tensor ``p`` becomes tensor ``r`` (its values and history)."""
    for slot in _SLOT.values():
        slot.__set__(p, slot.__get__(r))
    _SET_CLASS(p, Tensor)


# (op, operand metadata, arguments, grad mode) -> the metadata of its output (a list of
# them for a row of several outputs, None for one it did not make), or False (an op to
# run eagerly)
_META = {}
_META_LIMIT = 20000  # (then it starts again: shapes that a long run saw once)


def _remember(key, meta):
    if len(_META) >= _META_LIMIT:
        _META.clear()
    _META[key] = meta
    return meta


def _dummy(m, values):
    """A tensor of metadata ``m``: zeros when the op reads ``values``, else one on
    ``m.fake`` (only its dtype and shape are read)."""
    from ..creation import zeros

    if values:
        t = zeros(m.shape, dtype=m.dt, device=m.device)
    else:
        t = object.__new__(Tensor)
        for slot in _SLOT.values():
            slot.__set__(t, None)
        t._data = m.fake
        t._dtype, t._device, t._vc, t._output_nr = m.dt, m.device, [0], 0
    t._rg = m.rg
    return t


class Segment:
    """The queued ops of a flush as a function of the tensors they read (``inputs``, in
    order) and of the float operands of its elementwise ops (after the tensors: the
    compiled function makes them kernel arguments), returning the values ``outs``: what
    ``CompiledFunction`` traces and replays."""

    def __init__(self, ops, inputs, outs):
        self.ops, self.inputs, self.outs = ops, inputs, outs

    def __call__(self, *args):
        n = len(self.inputs)
        env = dict(zip(self.inputs, args[:n]))
        bind_numbers(env, args[n:])
        for op in self.ops:
            op.run(env)
        return tuple(env[v] for v in self.outs)


# the most segments kept for one compiled function; a flush of a new one after that runs
# its ops eagerly
SEGMENT_LIMIT = 64
# the most values of its int and bool operands one segment is compiled for
NUMBER_VARIANTS = 2


class Segments(dict):
    """A compiled function's segments: key -> (CompiledFunction, views to make after it,
    its output values); ``variants``: how many of them each segment's ops without their
    numbers' values have."""

    __slots__ = ("variants",)

    def __init__(self):
        super().__init__()
        self.variants = {}

    def clear(self):
        super().clear()
        self.variants.clear()


class LazyRecorder(Recorder):
    """The queue of a lazy call: recorded ops become pending tensors (``elementwise``,
    ``row_call``); ``flush`` runs them. ``segments``: the compiled function's cache of
    segments; ``outer``: the recorder that was active (a kernel ``Counter``) or None."""

    def __init__(self, segments, outer):
        super().__init__({})
        self.backward_ok = True
        self.segments, self.outer = segments, outer
        self.active = True
        self.explaining = False  # (explain: keep each flush's reason and segment)
        self.breaks = []  # why each flush came (for explain)
        self.graphs = []  # each flush's CompiledFunction (for explain)
        self._reset()

    def _reset(self):
        self.meta = []  # value -> its _Meta
        # each op: (row, elementwise?, operands: values, number keys, None, tuples of
        # values for a list, hashable arguments, output values); hashable: the key
        self.ops = []
        self.args = []  # each op's arguments as the row takes them
        self.ext = {}  # id(tensor) -> the value of a tensor the ops read from outside
        self.inputs = []  # those tensors, in the order first read
        self.versions = []  # and their versions when read
        self.pending = []  # (value, weakref to its pending tensor)
        self.numbers = []  # the float operands, the segment's number arguments
        self.n_elem = 0  # how many of the ops are elementwise (two or more: fused)
        self.grad = None  # the grad mode the ops were queued in

    # ----- what the hooks of eager code call --------------------------------------
    def end(self, why):
        if not self.inside and self.mine():
            self.flush(why)

    def backward_pass(self, execute, *args):
        # (the pass's own ops run eagerly: gradients are read as they are made)
        if self.mine():
            self.end("a backward pass")
        with self._outer():
            return execute(*args)

    def _outer(self):
        """For a ``with`` block: the recorder that was active before this queue (a kernel
        counter, or none) active again, so that what runs in the block runs eagerly."""
        return _Outer(self.outer)

    def creation(self, public, fn, args, kwargs):
        # (run now: a random one draws in program order; reading a pending tensor's
        # shape flushes nothing, its values flush the queue)
        return self.unrecorded(fn, *args, **kwargs)

    def elementwise(self, apply, op, operands, rest):
        enabled = _STATE.enabled
        if enabled is not self.grad and self.grad is not None:
            self.flush("grad mode changed")
        # (rest: apply's options; another than the defaults is an internal call: eager)
        if op.body is None or rest[-1] is not True:
            return self.unrecorded(apply, op, *operands, *rest)
        meta = self.meta
        ins, mk = [], [op, enabled]
        for x in operands:
            if x.__class__ is Tensor:
                v = self._value(x)
                ins.append(v)
                mk.append(meta[v])
            else:
                tx = x.__class__
                if tx is not float and tx is not int and tx is not bool:
                    x = _python_number(x)
                    if x is None:
                        return self.unrecorded(apply, op, *operands, *rest)
                    tx = x.__class__
                if tx is float:  # (an argument of the segment: any value, one compile)
                    n = (float, len(self.numbers))
                    self.numbers.append(x)
                else:
                    n = (tx, x)
                ins.append(n)
                mk.append(tx)
        mkey = tuple(mk)
        out = _META.get(mkey)
        if out is None:
            out = _remember(mkey, _elementwise_meta(op, operands, mk[2:]))
        if out is False:
            return self.unrecorded(apply, op, *operands, *rest)
        self.grad = enabled
        v = len(meta)
        meta.append(out)
        t = _placeholder(self, v, out)
        self.pending.append((v, _ref(t)))
        self.ops.append((op, True, tuple(ins), (), (v,)))
        self.args.append(())
        self.n_elem += 1
        return t

    def row_call(self, row, real, values):
        n = len(row.params)
        operands, args = values[:n], values[n:]
        if row.inplace:  # (the ops queued before it read what it writes)
            self.flush(f"{row.name} writes in place")
            return self.unrecorded(real, *values)
        enabled = _STATE.enabled
        if enabled is not self.grad and self.grad is not None:
            self.flush("grad mode changed")
        if row.multi or row.device is not None or _unchecked(args) is not None:
            return self.unrecorded(real, *values)
        meta = self.meta
        akey = _hashable(args)
        ins, mk = [], [row, enabled, akey]
        for x in operands:
            if x is None:
                ins.append(None)
                mk.append(None)
            elif row.listed and isinstance(x, (list, tuple)) and all(
                    t.__class__ is Tensor for t in x):
                vs = tuple(self._value(t) for t in x)
                ins.append(vs)
                mk.append(tuple(meta[v] for v in vs))
            elif x.__class__ is Tensor and not row.listed:
                v = self._value(x)
                ins.append(v)
                mk.append(meta[v])
            else:
                return self.unrecorded(real, *values)
        mkey = tuple(mk)
        outs = _META.get(mkey)
        if outs is None:
            outs = _remember(mkey, _row_meta(self, real, row, operands, args, mk[3:]))
        if outs is False:
            return self.unrecorded(real, *values)
        self.grad = enabled
        vids, made = [], []
        for m in outs if outs.__class__ is list else (outs,):
            if m is None:
                vids.append(None)
                made.append(None)
                continue
            v = len(meta)
            meta.append(m)
            t = _placeholder(self, v, m)
            self.pending.append((v, _ref(t)))
            vids.append(v)
            made.append(t)
        self.ops.append((row, False, tuple(ins), akey, tuple(vids)))
        self.args.append(args)
        return tuple(made) if outs.__class__ is list else made[0]

    # ----- the queue ----------------------------------------------------------------
    def _value(self, x):
        """The value of tensor operand ``x``: a pending tensor of this queue, or a tensor
        read from outside (the segment's input)."""
        if type(x) is _Pending and _OWNER.__get__(x) is self:
            return _SK.__get__(x)
        return self._input(x)

    def _input(self, x):
        v = self.ext.get(id(x))
        if v is None:
            v = self.ext[id(x)] = len(self.meta)
            self.meta.append(_meta_of(x))
            self.inputs.append(x)
            self.versions.append(x._vc[0])
        return v

    def flush(self, why=_END):
        """Run the queued ops (a compiled segment) and give the pending tensors still
        referenced their values and history."""
        if not self.ops:
            return
        alive = [(v, t) for v, t in ((v, r()) for v, r in self.pending) if t is not None]
        recs, all_args, inputs, versions = self.ops, self.args, self.inputs, self.versions
        numbers = self.numbers
        grad = self.grad
        n_elem = self.n_elem
        in_vids = list(self.ext.values())
        meta = self.meta
        self._reset()
        if not alive:
            return  # (nothing can read the results)
        for t, version in zip(inputs, versions):
            if t._vc[0] != version:
                raise RuntimeError(
                    "nbgrad.compile: a tensor that deferred ops read was modified in place "
                    "before they ran (by code the compiler does not see); run this function "
                    "eagerly")
        if self.explaining and why is not _END:
            self.breaks.append(f"{why} (at {_user_line()})")
        if n_elem < 2:
            # nothing to fuse: the ops run as eager runs them, no segment looked up or kept
            # (an optimizer's per-parameter update makes many such queues)
            with self._outer(), set_grad_enabled(grad):
                _run_eagerly(recs, all_args, dict(zip(in_vids, inputs)), numbers, alive)
            return
        key = (tuple(recs), tuple(meta[v] for v in in_vids), grad,
               tuple(v for v, _ in alive))
        segments = self.segments
        hit = segments.get(key)
        if hit is None:
            from .api import CompiledFunction

            ops = [Op(row, elem, [_operand(a) for a in ins], args, list(outs))
                   for (row, elem, ins, _, outs), args in zip(recs, all_args)]
            post, outs = _views_after(ops, alive)
            # (the views made after it are made inside it too, where its ops read them)
            seg = Segment(ops, in_vids, outs)
            # a segment compiled for two values of its numbers already: a number that
            # changes at every call (a decaying rate), whose every value would compile
            # anew; its later values run eagerly
            skeleton = (tuple((row, elem, tuple(_skeleton(a) for a in ins), akey, o)
                              for row, elem, ins, akey, o in recs),) + key[1:]
            seen = segments.variants.get(skeleton, 0)
            keep = len(segments) < SEGMENT_LIMIT and seen < NUMBER_VARIANTS
            if keep:
                segments.variants[skeleton] = seen + 1
            entry = CompiledFunction(seg, False, split=False) if keep else seg
            hit = (entry, [op for op in ops if id(op) in post], outs)
            if keep:
                segments[key] = hit
        entry, post, outs = hit
        if self.explaining:
            self.graphs.append(entry)
        with self._outer(), set_grad_enabled(grad):
            results = entry(*inputs, *numbers)
            env = dict(zip(in_vids, inputs))
            env.update(zip(outs, results))
            for v, t in alive:
                if v in env:
                    _fill(t, env[v])
                    env[v] = t  # (a view made below has the user's tensor as base)
            for op in post:
                op.run(env)
            for v, t in alive:
                if type(t) is _Pending:
                    _fill(t, env[v])


def _run_eagerly(recs, all_args, env, numbers, alive):
    """Run queued ops ``recs`` eagerly on ``env`` (value -> tensor: the inputs), each
    alive pending tensor filled as soon as its op has run (so that a view made after it
    has the user's tensor as its base)."""
    waiting = dict(alive)
    bind_numbers(env, numbers)
    for (row, elem, ins, _, outs), args in zip(recs, all_args):
        Op(row, elem, [_operand(a) for a in ins], args, outs).run(env)
        for v in outs:
            t = waiting.get(v)
            if t is not None:
                _fill(t, env[v])
                env[v] = t


class _Outer:
    def __init__(self, rec):
        self.rec = rec

    def __enter__(self):
        self.saved = _recording.RECORDER[0], _dispatch._TRACING
        _recording.RECORDER[0] = self.rec
        _dispatch._TRACING = self.rec is not None

    def __exit__(self, *exc):
        _recording.RECORDER[0], _dispatch._TRACING = self.saved
        return False


def _python_number(x):
    """A NumPy number operand as a Python one, or None for something else."""
    if not isinstance(x, (bool, int, float, np.bool_, np.integer, np.floating)):
        return None
    return _number(x)


def _skeleton(a):
    """A queued operand without a number's value."""
    return a[:1] if a.__class__ is tuple and a and a[0].__class__ is type else a


def _operand(a):
    """An ``Op`` operand from a queued op's: a number's key is a ``Num`` (a float's: the
    segment's number argument)."""
    if a.__class__ is tuple and a and a[0].__class__ is type:
        return Num(0.0, a[1]) if a[0] is float else Num(a[1])
    return list(a) if a.__class__ is tuple else a


def _views_after(ops, alive):
    """The ops of views to make after a segment runs (``post``: ids of the ``view`` rows'
    ops whose results are alive or read by such an op), and the values the segment returns:
    the other alive values and the operands of those views that the segment makes."""
    producer = {v: op for op in ops for v in op.outs if v is not None}
    need = [v for v, _ in alive]
    post = set()
    outs = []
    seen = set()
    while need:
        v = need.pop()
        if v in seen:
            continue
        seen.add(v)
        op = producer.get(v)
        if op is None:  # an input of the segment
            continue
        if not op.elem and op.row.view is not None:
            post.add(id(op))
            need.extend(op.values())
        else:
            outs.append(v)
    outs.sort()
    return post, outs


def _hashable(args):
    out = []
    for a in args:
        if isinstance(a, slice):
            out.append(("slice", a.start, a.stop, a.step))
        elif isinstance(a, (list, tuple)):
            out.append((type(a).__name__,) + _hashable(a))
        else:
            out.append((type(a).__name__, a))
    return tuple(out)


def _elementwise_meta(op, operands, metas):
    """The metadata of elementwise ``op``'s result, from its operands' (``metas``: a
    tensor's (dtype, shape, device, requires_grad), a number's type), or False."""
    try:
        dummies = [_dummy(m, False) if m.__class__ is _Meta else x
                   for x, m in zip(operands, metas)]
        out = _dispatch._shaped(op, dummies)
    except Exception:  # (the op raises for these operands: eager raises it)
        return False
    return _meta(out._dtype, out._data.shape, out._device,
                 bool(out._rg) and op.record is not None)


def _row_meta(rec, real, row, operands, args, metas):
    """The metadata of row ``row``'s outputs (``real``: its call) for operands of
    ``metas``, found by calling it on zeros of those metadata, or False."""
    def dummy(x, m):
        if x is None:
            return None
        if m.__class__ is tuple:
            return type(x)(_dummy(mm, True) for mm in m)
        return _dummy(m, True)

    try:
        out = rec.unrecorded(real, *[dummy(x, m) for x, m in zip(operands, metas)], *args)
    except Exception:
        return False
    if isinstance(out, tuple):
        return [None if o is None else _meta_of(o) for o in out]  # (a list: several)
    if out.__class__ is not Tensor:
        return False
    return _meta_of(out)



def run(segments, fn, args, explaining=False):
    """``fn(*args)`` with its recorded ops deferred and flushed as compiled segments
    (``segments``: the compiled function's cache of them). Returns ``(result, recorder)``;
    with ``explaining``, the recorder keeps each break's reason and each segment."""
    outer = _recording.RECORDER[0]
    rec = LazyRecorder(segments, outer)
    rec.explaining = explaining
    try:
        with _Tracing(rec):
            try:
                result = fn(*args)
            except BaseException:
                # (what the function stored before it raised gets its values; the
                # function's exception is the one that propagates)
                try:
                    rec.flush()
                except Exception:  # noqa: S110
                    pass
                raise
            rec.flush()
    finally:
        rec.active = False
    return result, rec
