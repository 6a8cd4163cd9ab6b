"""Tracing: run a function once, eagerly, while recording the ops it applies; the
recording becomes a ``graph.Graph`` (fused elementwise regions and calls of the other rows).

The recorder sees every application of an elementwise table row (the dispatch path hands
them over while ``ops/dispatch._TRACING`` is set) and every call of a ``FuncDef`` row (a
reduction, a view, ``linear``, ``matmul``, softmax, ...: while a trace records, each row's
``call`` is a recording wrapper). So a trace is kept only when the recording provably is
the whole computation: every tensor an op reads is an argument of the function, a leaf
tensor the function reaches by name (a closure cell, a global, a module's parameter or
buffer), or the result of a recorded op; every tensor the function returns is a recorded
result; no tensor the trace knows was modified in place (version counters); nothing read a
tensor's values into Python (``item``, ``numpy``, printing, ...). Anything else is a graph
break: the reason, with the user's source line, is kept, and calls of that signature run
lazily (``lazy.py``: compiled segments between the breaks).

A backward pass is recorded the same way (``backward.py``).
"""

import sys
import threading

import numpy as np

from .. import _recording
from ..device import device as _Device
from ..dtypes import dtype as _DType
from ..kernels.cpu import _par
from ..ops import dispatch as _dispatch
from ..tensor import Tensor
from .graph import Graph, GraphBreak, Num, Op


def _user_line():
    """``file:line`` of the innermost frame outside nbgrad (where the user's code is)."""
    f = sys._getframe(1)
    root = __name__.split(".")[0]
    while f is not None:
        mod = f.f_globals.get("__name__", "")
        if mod != root and not mod.startswith(root + "."):
            return f"{f.f_code.co_filename}:{f.f_lineno}"
        f = f.f_back
    return "<unknown>"


class Recorder:
    """The recording of one traced call (``dispatch._traced``, the rows' recording calls
    and Tensor's value reads report to it).

    Values are numbered (``meta[v]``: dtype, shape and device) and known by their arrays
    (``id(tensor._data)``): a node's saved result comes back as a new Tensor around the
    same array (the tensors stay alive in ``seen``). ``inputs``: (value, source) of each
    value the function reads from outside; ``outer``: id(array) -> source of values made
    before the recording (a backward pass's forward values)."""

    counting = False  # a Counter (below)
    # elementwise ops are recorded with outputs of the right dtype and shape but run
    # nothing (dispatch._shaped): a recorded backward, whose values nobody reads, or a
    # segment of a lazy call (whose results come from its compiled graph); ``nodes``:
    # with their autograd nodes (a forward whose backward is recorded next)
    shapes_only = False
    nodes = False

    def __init__(self, sources, watched=(), outer=None):
        self.thread = threading.get_ident()
        self.sources = sources  # id(tensor) -> where the function reaches it
        self.outer = outer or {}
        # every tensor the function reaches, with its version: an in-place change by an op
        # the trace does not see (a counter's add_) would be lost on replay
        self.watched = [(t, t._vc[0]) for t in watched]
        self.vids = {}
        self.by_input = {}  # id(tensor) -> value, for the inputs in ``sources``
        self.meta = []
        self.inputs = []
        self.ops = []
        self.seen = []
        self.versions = []  # (tensor, its version when the trace first saw it)
        self.error = None
        self.inside = 0  # > 0 while a recorded op runs (reads inside it are its own)
        self.backward_ok = False  # recording a backward pass (record_backward)

    def mine(self):
        return threading.get_ident() == self.thread

    def fail(self, why):
        if self.error is None:
            self.error = GraphBreak(f"{why} (at {_user_line()})")

    def end(self, why):
        if not self.inside or not self.mine():  # (what a recorded op does inside is its own)
            self.fail(why)

    def backward_pass(self, execute, *args):
        """The autograd engine's ``execute(*args)``, a backward pass the function runs: it
        ends the trace (unless this recorder records that pass: ``record_backward``)."""
        if not self.backward_ok:
            self.end("a backward pass inside the function")
        return execute(*args)

    def new(self, t):
        """A new value: tensor ``t``, made by a recorded op (or an input)."""
        v = len(self.meta)
        self.meta.append((t._dtype, t._data.shape, t._device))
        self.vids.setdefault(id(t._data), v)
        self.seen.append(t)
        self.versions.append((t, t._vc[0]))
        return v

    def value(self, x, name):
        """The value of tensor ``x``, an operand of op ``name``."""
        src = self.sources.get(id(x))
        if src is not None:
            # (an input is known by the tensor: two inputs may share an array, as x and
            # x.detach() do, and only one of them require grad)
            v = self.by_input.get(id(x))
            if v is None:
                v = self.by_input[id(x)] = self.new(x)
                self.inputs.append((v, src))
            return v
        v = self.vids.get(id(x._data))
        if v is not None:
            return v
        src = self.outer.get(id(x._data))
        if src is None:
            raise GraphBreak(f"{name} reads a tensor made by an op the compiler does not "
                             "trace (a creation, an in-place op, ...)")
        v = self.new(x)
        self.inputs.append((v, src))
        return v

    def _record(self, name, make):
        if self.error is not None:
            return
        try:
            self.ops.append(make())
        except GraphBreak as e:
            self.error = GraphBreak(f"{e} (at {_user_line()})")
        except Exception as e:  # nothing the recorder does may fail the user's call
            self.error = GraphBreak(f"{name} could not be recorded: {e!r} (at {_user_line()})")

    def unrecorded(self, fn, *args, **kwargs):
        """``fn(*args, **kwargs)``, nothing it does recorded (a recorded op's own work)."""
        self.inside += 1
        was, _dispatch._TRACING = _dispatch._TRACING, False
        try:
            return fn(*args, **kwargs)
        finally:
            self.inside -= 1
            _dispatch._TRACING = was

    def creation(self, public, fn, args, kwargs):
        """Run creation function ``fn`` (``public``: its decorated form) on ``args``,
        ``kwargs``, recorded as a call that a replay makes again (a random one draws
        again, as eager does); tensor arguments (``zeros_like``'s) are its operands."""
        if self.inside or not self.mine():
            if not self.mine():
                self.end("an op on another thread")
            return fn(*args, **kwargs)
        out = self.unrecorded(fn, *args, **kwargs)
        name = public.__name__

        def make():
            _bake(list(args) + list(kwargs.values()))
            places = [i for i, a in enumerate(args) if a.__class__ is Tensor]
            rest = [a for a in args if a.__class__ is not Tensor] + list(kwargs.values())
            bad = _unchecked(rest)
            if bad is not None:
                raise GraphBreak(f"{name}'s arguments hold a {bad} (the trace keeps numbers, "
                                 "strings, dtypes and tuples of them)")
            if kwargs.get("requires_grad"):
                raise GraphBreak(f"{name} makes a tensor that requires grad")
            ins = [self.value(args[i], name) for i in places]
            row = _Creation(public, args, kwargs, places)
            return Op(row, False, ins, (), [self.new(out)])

        self._record(name, make)
        return out

    def elementwise(self, apply, op, operands, rest):
        """Elementwise row ``op`` of ``operands`` (``apply(op, *operands, *rest)``, the
        dispatch path's call), run and recorded."""
        if self.shapes_only:  # (values nobody reads: a recorded backward, a segment)
            if op.check is not None:  # (but the operands eager refuses are refused)
                op.check(*operands)
            out = self.unrecorded(_dispatch._shaped, op, operands)
            if self.nodes:
                _node(op, operands, out)
        else:
            out = self.unrecorded(apply, op, *operands, *rest)
        self.record(op, operands, out)
        return out

    def row_call(self, row, real, values):
        """``FuncDef`` row ``row`` called with ``values`` (``real``: its call), run and
        recorded."""
        out = self.unrecorded(real, *values)
        self.record_call(row, values, out)
        return out

    def record(self, op, operands, out):
        """Elementwise row ``op`` applied to ``operands`` (tensors and numbers) gave ``out``."""
        def make():
            if op.body is None:
                raise GraphBreak(f"{op.name} has no per-element body")
            if out.__class__ is not Tensor:
                raise GraphBreak(f"{op.name} returned {type(out).__name__}")
            ins = [self.value(x, op.name) if x.__class__ is Tensor
                   else Num(float.__float__(x), x.index) if x.__class__ is Sym
                   else Num(_number(x))
                   for x in operands]
            return Op(op, True, ins, (), [self.new(out)])

        self._record(op.name, make)

    def record_call(self, row, values, out):
        """``FuncDef`` row ``row`` called with ``values`` (its operands, then its
        arguments) returned ``out`` (a tensor, or a tuple of them)."""
        def make():
            n = len(row.params)
            operands, args = values[:n], values[n:]
            if row.inplace:
                raise GraphBreak(f"{row.name} writes into its operand")
            _bake(args)
            bad = _unchecked(args)
            if bad is not None:
                # (an index plan holds arrays computed from an index tensor's values: a
                # replay would reuse them)
                raise GraphBreak(f"{row.name}'s arguments hold a {bad} (the trace keeps "
                                 "numbers, strings, dtypes and tuples of them)")
            ins = []
            for x in operands:
                if x is None:
                    ins.append(None)
                elif row.listed:
                    ins.append([self.value(t, row.name) for t in x])
                elif x.__class__ is Tensor:
                    ins.append(self.value(x, row.name))
                else:
                    raise GraphBreak(f"{row.name} of a {type(x).__name__}")
            outs = out if isinstance(out, tuple) else (out,)
            return Op(row, False, ins, args, [None if o is None else self.new(o) for o in outs])

        self._record(row.name, make)

    def finish(self, result):
        """The ``Trace`` of the recorded call that returned ``result``, or raise
        ``GraphBreak``."""
        if self.error is not None:
            raise self.error
        for t, version in self.versions + self.watched:
            if t._vc[0] != version:
                raise GraphBreak("a tensor the trace read or made was modified in place")
        single = result.__class__ is Tensor
        outs = (result,) if single else result
        if not isinstance(outs, (tuple, list)) or not outs:
            raise GraphBreak(f"the function returned {type(result).__name__}: the compiler "
                             "compiles functions that return tensors")
        made = {v for op in self.ops for v in op.outs}
        vids = []
        for o in outs:
            v = self.vids.get(id(o._data)) if o.__class__ is Tensor else None
            if v is None or v not in made:
                raise GraphBreak("the function returns a value that is not the result of a "
                                 "traced op")
            if o._base is not None:
                raise GraphBreak("the function returns a view")
            vids.append(v)
        try:
            graph = Graph(self.meta, [v for v, _ in self.inputs], self.ops, vids)
        except GraphBreak:
            raise
        except Exception as e:  # (a kernel that does not compile: eager, not a failure)
            raise GraphBreak(f"the traced ops could not be compiled: {e!r}") from None
        return Trace(self, graph, None if single else type(outs), [o._rg for o in outs])


def _node(op, operands, out):
    """The autograd node eager's dispatch path records for elementwise ``op`` of
    ``operands`` giving ``out`` (its values not computed: a shapes-only forward)."""
    from ..autograd.grad_mode import STATE

    if op.record is None or not out._rg or not STATE.enabled:
        return
    if len(operands) == 1:
        op.record(out, operands[0])
        return
    a, b = operands
    bcast = (a.__class__ is Tensor and b.__class__ is Tensor
             and (a._data.shape != b._data.shape or a._dtype is not b._dtype))
    op.record(out, a, b, bcast, None)


_RANDOM = {"rand", "randn", "randint", "rand_like", "randn_like"}


class _Creation:
    """A recorded creation as a graph's call: ``call(*tensors)`` calls the function again
    with the recorded arguments, ``tensors`` in the places tensors had."""

    inplace = listed = False

    def __init__(self, fn, args, kwargs, places):
        self.fn, self.args, self.kwargs, self.places = fn, args, kwargs, places
        self.name = self.qualname = fn.__name__
        self.random = self.name in _RANDOM  # (it draws from nbgrad's generator)

    def call(self, *tensors):
        args = list(self.args)
        for i, t in zip(self.places, tensors):
            args[i] = t
        return self.fn(*args, **self.kwargs)


class Sym(float):
    """A float argument of a traced call (``index``: which): it is its value everywhere,
    and it tells ``state`` when Python reads it outside a recorded op (arithmetic, a
    comparison, a conversion: ``state.used``), or a row or creation keeps it as an
    argument. An elementwise op records it as the graph's number argument ``index``; a
    trace whose numbers nothing else read then serves every value of them."""

    __slots__ = ("index", "state")

    def __new__(cls, value, index, state):
        self = float.__new__(cls, value)
        self.index, self.state = index, state
        return self


def _read(name):
    real = getattr(float, name)

    def method(self, *args):
        out = real(self, *args)
        # (NotImplemented: ``lr * x`` of a tensor x, which Tensor.__rmul__ records; a
        # recorded op's own work reads it freely)
        if out is not NotImplemented:
            rec = _recording.RECORDER[0]
            if rec is None or not rec.inside:
                self.state.used = True
        return out

    method.__name__ = name
    return method


for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
              "__truediv__", "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__",
              "__rmod__", "__divmod__", "__rdivmod__", "__pow__", "__rpow__", "__neg__",
              "__pos__", "__abs__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__",
              "__float__", "__int__", "__bool__", "__round__", "__trunc__", "__floor__",
              "__ceil__", "__repr__", "__str__", "__format__", "is_integer", "hex",
              "as_integer_ratio", "conjugate", "__getnewargs__", "__reduce__",
              "__reduce_ex__"):
    setattr(Sym, _name, _read(_name))
Sym.__hash__ = float.__hash__  # (hashing: as the float; dicts compare with __eq__)


class SymState:
    """What the ``Sym`` arguments of one traced call saw: ``used``, whether anything but
    an elementwise op's recording read one."""

    __slots__ = ("used",)

    def __init__(self):
        self.used = False


def _bake(args):
    """A row's or creation's arguments keep their values: a ``Sym`` among them is used."""
    for a in args:
        if a.__class__ is Sym:
            a.state.used = True
        elif isinstance(a, (tuple, list)):
            _bake(a)


def _number(x):
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    return float(x)


def _unchecked(args):
    """The type name of the first argument in ``args`` that is not a number, a string,
    None, a dtype, a device or a tuple of them (what a trace may keep as a constant), or
    None."""
    for a in args:
        if isinstance(a, slice):
            a = (a.start, a.stop, a.step)
        if isinstance(a, (tuple, list)):
            bad = _unchecked(a)
            if bad is not None:
                return bad
        elif not isinstance(a, _CONSTANTS):
            return type(a).__name__
    return None


_CONSTANTS = (type(None), type(Ellipsis), bool, int, float, str, np.bool_, np.integer, np.floating,
              _DType, _Device)


class Trace:
    """A traced call: its forward ``graph``, where each graph input comes from
    (``sources``: ``("arg", i)`` or a tensor reached by name), how to return the outputs (a
    lone tensor: ``kind`` None, else tuple or list) and which of them required grad."""

    def __init__(self, recorder, graph, kind, rg):
        self.recorder, self.graph, self.kind, self.rg = recorder, graph, kind, rg
        self.sources = [src for _, src in recorder.inputs]
        self.backward = None  # a BackwardTrace, when calls need gradients
        self.numbers = ()  # where in the arguments each number argument of the graph is


class Counter(Recorder):
    """Counts the kernels a call launches (``kernel_count``): each elementwise op and each
    row call that eager runs, each region a compiled function's graph runs (its calls
    count as row calls). It records nothing and nothing ends it."""

    counting = True

    def __init__(self):
        super().__init__({})
        self.count = 0
        self.backward_ok = True

    def record(self, op, operands, out):
        self.count += 1

    def record_call(self, row, values, out):
        self.count += 1

    def creation(self, public, fn, args, kwargs):
        self.count += 1
        return fn(*args, **kwargs)

    def end(self, why):
        pass


def kernel_count(fn, *args, **kwargs):
    """``(fn(*args, **kwargs), n)``: the call's result and ``n``, how many kernels it
    launched: one per elementwise op and per call of another row that eager ran (a
    reduction, a product; a view counts though it launches none), one per fused region and
    per call that a compiled function ran. Its backward passes count too; an optimizer's
    fused update (no table row) does not.

    Example::

        >>> import nbgrad
        >>> f = nbgrad.compile(lambda x: (nbgrad.exp(x) * 2 + 1).sum())
        >>> x = nbgrad.ones(3)
        >>> [nbgrad.compiler.kernel_count(g, x)[1] for g in (f, f, f.__wrapped__)]
        [5, 1, 4]

    (The first call traces, running the ops eagerly, then runs the compiled graph.)
    """
    with _Tracing(Counter()) as rec:
        result = fn(*args, **kwargs)
    return result, rec.count


class _Tracing:
    """The recorder active, elementwise dispatch reporting, and each row's ``call`` a
    recording wrapper, for the ``with`` block (which restores what was there: a count
    may hold a trace)."""

    def __init__(self, rec):
        self.rec = rec

    def __enter__(self):
        from ..ops.funcdef import TABLE

        self.rows = list(TABLE.values())
        self.calls = [row.call for row in self.rows]
        for row in self.rows:
            row.call = _recording_call(row)
        self.prev = _recording.RECORDER[0], _dispatch._TRACING
        _recording.RECORDER[0] = self.rec
        _dispatch._TRACING = True
        return self.rec

    def __exit__(self, *exc):
        _recording.RECORDER[0], _dispatch._TRACING = self.prev
        outer = self.prev[0]
        if outer is not None and outer.counting and not self.rec.counting:
            outer.count += len(self.rec.ops)  # (a trace inside a count: its ops ran eagerly)
        for row, call in zip(self.rows, self.calls):
            # (a call generated meanwhile replaces the first-call stub)
            row.call = (row.generated if call == row._first_call and row.generated is not None
                        else call)
        return False


def _recording_call(row):
    def call(*values):
        rec = _recording.RECORDER[0]
        real = row.generated_call()
        if rec is None or rec.inside:
            return real(*values)
        if not rec.mine():
            rec.end("an op on another thread")
            return real(*values)
        return rec.row_call(row, real, values)

    return call


def record(fn, args, sources, watched=(), shapes_only=False):
    """Call ``fn(*args)`` eagerly while recording: ``(result, trace or GraphBreak)``.
    ``sources``: id(tensor) -> source of each tensor the function may read; ``watched``:
    those tensors (their versions must not change). ``shapes_only``: elementwise ops
    compute no values (for a function that reads none: a lazy call's segment), so their
    eager kernels are not compiled for a call whose results the compiled graph gives."""
    rec = Recorder(sources, watched)
    rec.shapes_only = rec.nodes = shapes_only
    # (np.errstate: products of the shapes-only values, NaN, warn)
    with _Tracing(rec), _par.serial(), np.errstate(all="ignore"):
        result = fn(*args)
    try:
        return result, rec.finish(result)
    except GraphBreak as e:
        return result, e
