"""Tracing: run a function once, eagerly, while recording the elementwise ops it applies,
and turn the recording into a ``fuse.Program`` with the recipe to replay it.

The recorder sees every application of an elementwise table row (the dispatch path hands
them over while ``ops/dispatch._TRACING`` is set) and nothing else. So a trace is kept only
when the recording provably is the whole computation: every tensor an op reads is an
argument of the function, a leaf tensor the function reaches by name (a closure cell, a
global, a module's parameter or buffer), or the result of a recorded op; every tensor the
function returns is a recorded result; no tensor the trace knows was modified in place
(version counters); nothing read a tensor's values into Python (``item``, ``numpy``,
printing, ...). Anything else is a graph break: the reason, with the user's source line,
is kept and the function runs eagerly.
"""

import sys
import threading

import numpy as np

from .. import _recording
from ..ops import dispatch as _dispatch
from ..tensor import Tensor
from .fuse import Program


class GraphBreak(Exception):
    """Why a traced region ended (the op or read, and the user's source line)."""


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
    """The recording of one traced call (``dispatch._traced`` and Tensor's value reads
    report to it)."""

    def __init__(self, sources, watched=()):
        self.thread = threading.get_ident()
        self.sources = sources  # id(tensor) -> where the function reaches it
        # every tensor the function reaches, with its version: an in-place change by an op
        # the trace does not see (a counter's add_) would be lost on replay
        self.watched = [(t, t._vc[0]) for t in watched]
        self.program = Program()
        # id(tensor._data) -> its Ref: by the array, because a saved result comes back from
        # a node as a new Tensor around the same array (the tensors stay alive in self.seen)
        self.refs = {}
        self.seen = []
        self.inputs = []  # per program input: its source
        self.versions = []  # (tensor, its version when the trace first saw it)
        self.shape = None
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

    def backward_starts(self):
        if not self.backward_ok:
            self.end("a backward pass inside the function")

    def _see(self, t):
        self.seen.append(t)
        self.versions.append((t, t._vc[0]))

    def _operand(self, x, op):
        if x.__class__ is not Tensor:
            if isinstance(x, (bool, np.bool_)):
                return self.program.constant(bool(x))
            if isinstance(x, (int, np.integer)):
                return self.program.constant(int(x))
            return self.program.constant(float(x))
        ref = self.refs.get(id(x._data))
        if ref is not None:
            return ref
        src = self.sources.get(id(x))
        if src is None:
            raise GraphBreak(f"{op.name} reads a tensor made by an op the compiler does not "
                             "trace (a view, a reduction, a creation, ...)")
        if x._device.type != "cpu":
            raise GraphBreak(f"{op.name} on a {x._device.type} tensor (the tracer fuses CPU "
                             "ops only)")
        shape = x._data.shape
        if self.shape is not None and shape != self.shape and x._data.size != 1:
            raise GraphBreak(f"{op.name} broadcasts shapes {self.shape} and {shape}")
        value = x._data.size == 1 and shape != self.shape
        ref = self.program.input(x._dtype, value=value, dim=len(shape) > 0)
        self.inputs.append(src)
        self.refs[id(x._data)] = ref
        self._see(x)
        return ref

    def record(self, op, operands, out):
        if self.error is not None:
            return
        try:
            if op.body is None:
                raise GraphBreak(f"{op.name} has no per-element body")
            if out.__class__ is not Tensor:
                raise GraphBreak(f"{op.name} returned {type(out).__name__}")
            shape = out._data.shape
            if self.shape is None:
                self.shape = shape
            elif shape != self.shape:
                raise GraphBreak(f"{op.name}'s result has shape {shape}, the region's is "
                                 f"{self.shape}")
            refs = [self._operand(x, op) for x in operands]
            ref = self.program.apply(op, *refs)
            if ref.dtype is not out._dtype:  # (a row whose dtype rule the program misreads)
                raise GraphBreak(f"{op.name}: dtype {out._dtype} where the program has "
                                 f"{ref.dtype}")
        except GraphBreak as e:
            self.error = GraphBreak(f"{e} (at {_user_line()})")
            return
        except Exception as e:  # nothing the recorder does may fail the user's call
            self.error = GraphBreak(f"{op.name} could not be recorded: {e!r} "
                                    f"(at {_user_line()})")
            return
        self.refs[id(out._data)] = ref
        self._see(out)

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
                             "fuses functions that return tensors")
        for o in outs:
            ref = self.refs.get(id(o._data)) if o.__class__ is Tensor else None
            if ref is None or ref.step is None:
                raise GraphBreak("the function returns a value that is not the result of a "
                                 "traced elementwise op")
            self.program.output(ref)
        kind = None if single else type(outs)
        trace = Trace(self.program, self.inputs, kind, [o._dtype for o in outs], self.shape)
        trace.recorder = self  # (record_backward reads its refs)
        return trace


class Trace:
    """A traced call: its program, where each program input comes from (``("arg", i)`` or
    ``("ref", obj)``, a tensor reached by name), how to return the outputs (a lone tensor:
    ``kind`` None, else tuple or list), their dtypes and the region's shape."""

    def __init__(self, program, inputs, kind, dtypes, shape):
        self.program, self.inputs, self.kind = program, inputs, kind
        self.dtypes, self.shape = dtypes, shape
        self.kernel = program.kernel()
        self.recorder = None
        self.backward = None  # a BackwardTrace, when calls need gradients


def record(fn, args, sources, watched=()):
    """Call ``fn(*args)`` eagerly while recording: ``(result, trace or GraphBreak)``.
    ``sources``: id(tensor) -> source of each tensor the function may read; ``watched``:
    those tensors (their versions must not change)."""
    rec = Recorder(sources, watched)
    _recording.RECORDER[0] = rec
    _dispatch._TRACING = True
    try:
        result = fn(*args)
    finally:
        _dispatch._TRACING = False
        _recording.RECORDER[0] = None
    try:
        return result, rec.finish(result)
    except GraphBreak as e:
        return result, e


class BackwardTrace:
    """The fused backward of a ``Trace``: ``program`` takes the forward program's inputs
    and one gradient per output of ``outs`` (positions); it outputs the gradients of the
    forward inputs at positions ``wrt`` (recomputing the forward values it reads)."""

    def __init__(self, program, outs, wrt):
        self.program, self.outs, self.wrt = program, outs, wrt
        # (no kernel when no gradient reaches an input: e.g. through a comparison)
        self.kernel = program.kernel() if program.outputs else None


def record_backward(trace, result, wrt):
    """Record the eager backward of the traced call that returned ``result`` (its graph is
    still there): ``autograd.grad`` of the outputs that require grad with respect to the
    program inputs at positions ``wrt`` (tensors that require grad), seeded with ones, with
    the recorder on. Runs with ``create_graph`` so that the engine lends no buffer (a lent
    buffer is written by a loop that no op call shows). Returns a ``BackwardTrace`` or
    raises ``GraphBreak``."""
    from ..autograd import grad as _grad
    from ..creation import ones_like

    fwd = trace.recorder
    outs = (result,) if trace.kind is None else tuple(result)
    out_pos = [m for m, o in enumerate(outs) if o._rg]
    p = trace.program
    bp = Program()
    ins = [bp.input(t, kind == "value", ref.dim) for (kind, t), ref in
           zip(p.inputs, _input_refs(p, fwd))]
    mapped = {}  # forward Ref key -> bp Ref
    for r, b in zip(_input_refs(p, fwd), ins):
        mapped[r._key()] = b
    for k, (op, args, cdt, odt) in enumerate(p.steps):
        bargs = [mapped[a._key()] if a._key() in mapped else bp.constant(a.value) for a in args]
        mapped[(None, k)] = bp.apply(op, *bargs)
    rec = Recorder({})
    rec.program, rec.shape, rec.backward_ok = bp, trace.shape, True
    for data_id, r in fwd.refs.items():
        rec.refs[data_id] = mapped[r._key()]
    rec.seen = list(fwd.seen)
    seeds = [ones_like(outs[m]) for m in out_pos]
    for m, g in zip(out_pos, seeds):
        rec.refs[id(g._data)] = bp.input(g._dtype)
        rec.seen.append(g)
    leaves = [_leaf_of(fwd, j) for j in wrt]
    _recording.RECORDER[0] = rec
    _dispatch._TRACING = True
    try:
        grads = _grad([outs[m] for m in out_pos], leaves, seeds, retain_graph=True,
                      create_graph=True, allow_unused=True) if out_pos else [None] * len(wrt)
    finally:
        _dispatch._TRACING = False
        _recording.RECORDER[0] = None
    if rec.error is not None:
        raise rec.error
    kept = []
    for j, g in zip(wrt, grads):
        if g is None:
            continue
        ref = rec.refs.get(id(g._data))
        if ref is None:
            raise GraphBreak("a gradient the backward pass made with an op the compiler "
                             "does not trace")
        if ref.step is None or ref.dtype is not p.inputs[j][1]:
            ref = bp.cast(ref, p.inputs[j][1])  # an input passed through, or a dtype change
        bp.output(ref)
        kept.append(j)
    return BackwardTrace(bp, out_pos, kept)


def _input_refs(p, fwd):
    """The forward program's input Refs, in input order."""
    refs = {r.index: r for r in fwd.refs.values() if r.step is None and r.index is not None}
    return [refs[j] for j in range(len(p.inputs))]


def _leaf_of(fwd, j):
    """The tensor the forward trace saw as program input ``j``."""
    for t in fwd.seen:
        r = fwd.refs.get(id(t._data))
        if r is not None and r.step is None and r.index == j:
            return t
    raise KeyError(j)
