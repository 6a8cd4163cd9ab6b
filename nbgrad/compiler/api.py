"""``nbgrad.compile``: a function (or module) traced once per call signature and replayed
as a compiled graph, forward and backward.

The first call of a signature runs the function eagerly while recording it
(``trace.record``) into a ``graph.Graph``: fused elementwise regions (one generated kernel
each) and calls of the other rows. When the call made an autograd graph, its backward is
recorded too (``backward.record_backward``), and later calls return outputs whose ``grad_fn``
is one ``CompiledFunctionBackward`` node running the backward graph (for a higher
derivative, the traced ops again eagerly; for a scalar loss seeded with 1, gradients the
forward computed in its own loops). A call that hit a graph break when traced runs its
Python at every call with its ops deferred (``lazy.py``): the ops between two breaks run
as one compiled segment, and the code at the break eagerly. Guards: each tensor
argument's dtype, shape, device, ``requires_grad`` and
aliasing (in tuples and lists too), each number argument's type and value (a new int
traces again; a new float runs the call lazily, whose segments take the floats that
elementwise ops read as kernel arguments), strings and None by value, and grad mode.
"""
import functools
import threading
import warnings

from .. import _recording
from ..autograd import graph as _graph
from ..autograd.function import Function
from ..autograd.grad_mode import enable_grad, is_grad_enabled
from ..tensor import Tensor
from . import lazy
from .backward import record_backward
from .graph import GraphBreak, bind_numbers
from .guards import (
    _guard_key,
    _has_float,
    _numbers,
    _positional,
    _reached,
    _resolve,
    _sources,
    _symbolic,
)
from .trace import SymState, record

# the most call signatures one function is traced for; later ones run eagerly
CACHE_LIMIT = 8
_COMPILED = []  # every CompiledFunction (for reset)
# (re-entrant: a lazy call holds it while it compiles its segments)
_TRACE_LOCK = threading.RLock()
_MODES = (None, "default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")


def compile(fn=None, *, fullgraph=False, dynamic=False, mode=None, disable=False):  # noqa: A001
    """Compile a function (or an ``nn.Module``) with nbgrad's compiler.

    Args:
        fn (callable or nn.Module, optional): the function or module to compile. When
            omitted, ``compile`` returns a decorator that takes the other arguments as
            given (``@nbgrad.compile(fullgraph=True)``). Default: ``None``.
        fullgraph (bool, optional): raise ``RuntimeError`` at a graph break (naming the op
            or read and the source line) instead of compiling the segments around it.
            Default: ``False``.
        dynamic (bool, optional): accepted for PyTorch compatibility; shapes are always
            specialized (a new shape traces again). Default: ``False``.
        mode (str or None, optional): accepted for PyTorch compatibility (``"default"``,
            ``"reduce-overhead"``, ``"max-autotune"``, ...); all compile the same way; an
            unknown name raises ``RuntimeError``. Default: ``None``.
        disable (bool, optional): return ``fn`` unchanged (a switch to turn compiling off
            without editing the code). Default: ``False``.

    Returns:
        A callable with ``fn``'s signature. On the first call with a new signature it runs
        ``fn`` eagerly while tracing it; later calls with that signature run the traced
        graph: each run of elementwise ops (broadcasting, ending in at most one sum) as one
        generated kernel, other ops (products, reductions, softmax, views) as calls
        between them, and their backward (when inputs require grad) compiled the same way.
        Python side effects of ``fn`` (prints, list appends) happen only on the traced
        call, and a Python number it reads from anywhere but its arguments (a global, a
        closure, an attribute) is a constant of the trace, as in ``jax.jit``: after
        changing one, call ``nbgrad.compiler.reset()``. Int arguments are guarded by
        value (a new value traces again). A new value of a float argument (a learning
        rate that changes every step) runs the call lazily (as a call with a graph
        break, below): the floats its elementwise ops read are arguments of the
        generated kernels, compiled once for every value.
        Tensors it reaches by name (closures, globals, the parameters and buffers of a
        module it names) are read afresh at every call.

        A graph break (reading values into Python: ``item``, printing, ``if`` on a
        tensor; a backward pass; an in-place write; an op the compiler does not record)
        ends a compiled region, and the next one starts after it: calls of such a
        signature run ``fn``'s Python every time (so its side effects happen every time)
        with the ops deferred; the ops between two breaks run as one compiled segment
        (forward and backward), cached by its ops, their number arguments and its inputs'
        shapes. An argument other than a tensor, a number, a string, None or a tuple or
        list of them (``self`` of a method) runs calls that way too.

    Example::

        >>> import nbgrad
        >>> @nbgrad.compile
        ... def f(x, y):
        ...     return nbgrad.tanh(x * y) + nbgrad.exp(-x)
        >>> x, y = nbgrad.ones(3), nbgrad.full((3,), 2.0)
        >>> f(x, y)  # traced
        tensor([1.3319, 1.3319, 1.3319])
        >>> f(x, y)  # one fused kernel
        tensor([1.3319, 1.3319, 1.3319])
    """
    if mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: "
                           + ", ".join(m for m in _MODES if m))
    if fn is None:
        return functools.partial(compile, fullgraph=fullgraph, dynamic=dynamic, mode=mode,
                                 disable=disable)
    if not callable(fn):
        raise TypeError(f"nbgrad.compile expects a callable, got {type(fn).__name__}")
    if disable:
        return fn
    return CompiledFunction(fn, fullgraph)


class ExplainOutput:
    """What ``explain`` found. As PyTorch's: ``graph_count`` (the compiled graphs of one
    call: 1 for a call traced whole; for a call with graph breaks, one per segment between
    them), ``graph_break_count`` and ``break_reasons`` (each with the op or read and its
    source line), ``ops_per_graph`` (each graph's recorded ops, in order). nbgrad's:
    ``regions`` (each fused region's rows, one generated kernel each, over all graphs),
    ``calls`` (the rows run between them: products, reductions, views, ...),
    ``kernel_count`` (the regions and calls one call runs), ``sources`` and ``paths``
    (each region kernel's generated source, and its file in nbgrad's cache folder, None
    when compiled from memory)."""

    def __init__(self, graphs=(), breaks=()):
        self._graphs = list(graphs)
        self.break_reasons = list(breaks)
        self.graph_break_count = len(self.break_reasons)
        self.graph_count = len(self._graphs)
        regions = [r for g in self._graphs for r in g.regions()]
        self.ops_per_graph = [[op.row.name if op.elem else op.row.qualname for op in g.ops]
                              for g in self._graphs]
        self.regions = [r.names for r in regions]
        self.calls = [c for g in self._graphs for c in g.calls()]
        self.kernel_count = sum(g.kernel_count() for g in self._graphs)
        self.sources = [r.kernel.source for r in regions]
        self.paths = [r.kernel.path for r in regions]

    def __str__(self):
        lines = [f"Graph Count: {self.graph_count}",
                 f"Graph Break Count: {self.graph_break_count}"]
        k = 0
        for i, g in enumerate(self._graphs):
            if len(self._graphs) > 1:
                lines.append(f"Graph {i}:")
            lines.append(f"Op Count: {len(self.ops_per_graph[i])}")
            lines.append(f"Kernels per call: {g.kernel_count()}")
            for s in g.steps:
                if hasattr(s, "names"):
                    lines.append(f"  region {k}: {len(s.names)} ops fused into one kernel: "
                                 f"{', '.join(s.names)}")
                    k += 1
                else:
                    lines.append(f"  call: {s.name}")
        lines += [f"Break Reason: {r}" for r in self.break_reasons]
        for i, (src, path) in enumerate(zip(self.sources, self.paths)):
            lines.append(f"Kernel source of region {i}" + (f" ({path}):" if path else ":"))
            lines.append(src)
        return "\n".join(lines)

    __repr__ = __str__


def explain(fn, *args, **kwargs):
    """Trace ``fn(*args, **kwargs)`` once (running it eagerly) and report what
    ``nbgrad.compile`` makes of the call: its fused regions and calls, and the generated
    kernels' sources. A call with graph breaks is run once more as compiled calls run it
    (its ops deferred, the segments between the breaks compiled): the report then lists
    each segment's graph and each break, with its source line.

    Example::

        >>> import nbgrad
        >>> out = nbgrad.compiler.explain(lambda x: (nbgrad.exp(x) * 2).mean(), nbgrad.ones(3))
        >>> out.graph_count, out.graph_break_count, out.regions, out.calls
        (1, 0, [['exp', 'mul']], ['mean'])
        >>> def f(x):
        ...     y = nbgrad.exp(x) * 2
        ...     print(y.sum().item())  # a graph break
        ...     return nbgrad.tanh(y) + 1
        >>> out = nbgrad.compiler.explain(f, nbgrad.ones(3))
        16.309690475463867
        16.309690475463867
        >>> out.graph_count, out.graph_break_count, out.regions, out.calls
        (2, 1, [['exp', 'mul'], ['tanh', 'add']], ['sum'])
    """
    fn, args = _positional(fn, args, kwargs)
    src = _sources(fn, args)
    _, entry = record(fn, args, src, _reached(src, args))
    if not isinstance(entry, GraphBreak):
        return ExplainOutput([entry.graph])
    if not _TRACE_LOCK.acquire(blocking=False):
        return ExplainOutput([], [str(entry)])
    try:
        rec = lazy.run(lazy.Segments(), fn, args, explaining=True)[1]
    finally:
        _TRACE_LOCK.release()
    graphs = [e.graph for cf in rec.graphs if isinstance(cf, CompiledFunction)
              for e in cf._cache.values() if not isinstance(e, GraphBreak)]
    return ExplainOutput(graphs, rec.breaks or [str(entry)])


def reset():
    """Forget every trace of every compiled function (the next call of each traces again)."""
    for ref in _COMPILED:
        f = ref()
        if f is not None:
            f._cache.clear()
            f._segments.clear()
            f._typed.clear()
            f._floats.clear()
            f._warned = False


class CompiledFunction:
    """What ``nbgrad.compile`` returns: calls ``fn`` through its traces."""

    def __init__(self, fn, fullgraph, split=True):
        import weakref

        functools.update_wrapper(self, fn, updated=())
        self._orig = fn
        self._fullgraph = fullgraph
        # (False: a call its trace cannot hold runs eagerly: a lazy call's segment)
        self._lazy_ok = split
        self._cache = {}  # guard key -> Trace, or the GraphBreak that made it lazy
        self._segments = lazy.Segments()  # the compiled segments of lazy calls
        # guard key without the float arguments' values -> a trace whose graph takes them
        # as arguments (a segment's, whose floats nothing but elementwise ops read); and
        # the keys of signatures traced for one value of their floats (others run lazily)
        self._typed = {}
        self._floats = set()
        self._warned = False
        _COMPILED.append(weakref.ref(self))

    def __repr__(self):
        return f"<compiled {self._orig!r}>"

    def __getattr__(self, name):  # a compiled module keeps its parameters(), train(), ...
        if name.startswith("__") or name in ("_orig", "_cache"):
            raise AttributeError(name)
        return getattr(self._orig, name)

    def __get__(self, obj, objtype=None):  # as a method: bound to the instance
        return self if obj is None else functools.partial(self, obj)

    def __call__(self, *args, **kwargs):
        rec = _recording.RECORDER[0]
        if rec is not None and not rec.counting:  # inside another function's trace: inline
            return self._orig(*args, **kwargs)
        fn, args = _positional(self._orig, args, kwargs)
        key = _guard_key(args)
        if key is None:
            return self._lazy(fn, args, GraphBreak("an argument the guards do not cover"))
        entry = self._cache.get(key)
        if entry is None and (self._typed or self._floats):
            tkey = _guard_key(args, False)
            entry = self._typed.get(tkey)  # (a segment's trace for any value of its floats)
            if entry is None and tkey in self._floats:
                # a signature traced for other values of its float arguments: run lazily,
                # its segments take the floats as kernel arguments (compiled once)
                return self._lazy(fn, args, None)
        if entry is None:
            if len(self._cache) >= CACHE_LIMIT:
                if not self._warned:
                    self._warned = True
                    warnings.warn(f"nbgrad.compile: {self._orig!r} was traced for "
                                  f"{CACHE_LIMIT} call signatures; new ones run eagerly",
                                  stacklevel=2)
                return fn(*args)
            # one trace at a time in the process (the recorder and the rows' recording
            # calls are the process's): a call that finds another thread tracing runs
            # eagerly, and a later call of its signature traces
            if not _TRACE_LOCK.acquire(blocking=False):
                return fn(*args)
            # (a lazy call's segment reads no values: traced shapes-only)
            shapes = not self._lazy_ok
            # a segment's float arguments go in as Syms: those only elementwise ops read
            # become the graph's number arguments, and the trace then serves any value of
            # them (a segment's own code; a user's function could read one in C, as
            # math.exp(lr) does, unseen: a new value of its floats runs lazily instead)
            state = SymState()
            sargs, paths = _symbolic(args, state) if shapes else (args, [])
            try:
                src = _sources(fn, args)
                result, entry = record(fn, sargs, src, _reached(src, args), shapes)
                if not isinstance(entry, GraphBreak) and is_grad_enabled():
                    entry = _with_backward(entry, result, sargs)
            finally:
                _TRACE_LOCK.release()
            if isinstance(entry, GraphBreak) and self._fullgraph:
                raise RuntimeError(f"nbgrad.compile(fullgraph=True): graph break: {entry}")
            self._cache[key] = entry
            if not isinstance(entry, GraphBreak):
                entry.numbers = paths
                if paths and not state.used:
                    self._typed[_guard_key(args, False)] = entry
                elif not shapes and not self._fullgraph and _has_float(args):
                    self._floats.add(_guard_key(args, False))
            if isinstance(entry, GraphBreak) and shapes:
                del result
                return fn(*args)  # (its values, eagerly: a segment has no side effects)
            if isinstance(entry, GraphBreak) or entry.graph.random:
                return result
            # the traced call's results come from the compiled graph too (equal to the
            # traced ones), so that its backward is the compiled one: the eager backward
            # would compile kernels (parallel variants) that no compiled call needs (unless
            # the graph draws random numbers: the generator must advance once a call)
            del result
            return _replay(entry, fn, args)
        if isinstance(entry, GraphBreak):
            return self._lazy(fn, args, entry)
        return _replay(entry, fn, args)

    def _lazy(self, fn, args, why):
        """A call that no trace can hold (``why``): its Python runs, its ops deferred and
        run as compiled segments between the breaks (lazy.py)."""
        if self._fullgraph:
            raise RuntimeError(f"nbgrad.compile(fullgraph=True): graph break: {why}")
        if not self._lazy_ok or not _TRACE_LOCK.acquire(blocking=False):
            return fn(*args)  # (or another thread traces: eager)
        try:
            return lazy.run(self._segments, fn, args)[0]
        finally:
            _TRACE_LOCK.release()


def _with_backward(trace, result, args):
    """``trace`` with its compiled backward when the traced call made a graph, else as is;
    or the GraphBreak that makes such calls lazy."""
    tensors = [_resolve(src, args) for src in trace.sources]
    wrt = [j for j, t in enumerate(tensors) if t._rg]
    if not wrt or not any(trace.rg):
        return trace
    try:
        trace.backward = record_backward(trace, result, wrt)
    except GraphBreak as e:
        return e
    trace.backward.requested = frozenset(wrt)
    trace.region = type("CompiledFunction", (_Region,), {"trace": trace})
    # its backward returns the incoming gradients or tensors its graph made and keeps
    # nowhere, as nbgrad's own rules do: the engine may adopt them as .grad (no copy)
    trace.region._backward_cls._builtin = True
    return trace


class _Region(Function):
    """A traced call as one autograd node (``CompiledFunctionBackward``): the forward graph,
    and a backward that runs the backward graph (or, building a graph for a higher
    derivative, the traced ops again eagerly)."""

    trace = None

    @staticmethod
    def forward(ctx, *tensors, numbers=()):
        trace = ctx._fn_cls.trace
        bt = trace.backward
        ctx.grads = None
        ctx.numbers = numbers
        if bt.joint is not None:  # the loss's gradients for a seed of 1, in the same loops
            n = len(trace.graph.outputs)
            seed = _ones(*trace.graph.meta[trace.graph.outputs[bt.outs[0]]][::2])
            outs, saved = bt.joint.run([*tensors, seed], bt.saved, numbers)
            outs, ctx.grads = outs[:n], outs[n:]
        else:
            outs, saved = trace.graph.run(tensors, bt.saved, numbers)
        ctx.mark_non_differentiable(*[o for o, rg in zip(outs, trace.rg) if not rg])
        # the values the backward reads that are not recomputed in it; and the inputs, for
        # a higher derivative, which runs the ops again (kept with their versions: a
        # backward that does not read one must not fail when it is changed in place)
        ctx.save_for_backward(*saved)
        ctx.inputs = tensors
        ctx.versions = [t._vc[0] for t in tensors]
        # (an output no gradient reaches: None, so that the inputs only it reads get none,
        # as eager's engine leaves them)
        ctx.set_materialize_grads(False)
        return tuple(outs)

    @staticmethod
    def backward(ctx, *grads):
        trace = ctx._fn_cls.trace
        bt = trace.backward
        values = ctx.saved_tensors
        tensors = ctx.inputs
        n = len(tensors)
        gs = [grads[m] for m in bt.outs]
        out = [None] * n
        if any(g is None for g in gs):
            # an output that gets no gradient: eager's engine runs none of its paths, where
            # a zero seed through the compiled backward could meet an inf or a NaN of a
            # value only it reads (0 * NaN): its ops are run again eagerly, and their
            # backward from the outputs that have gradients
            res = _eager_grads(trace, tensors, gs, ctx.numbers, is_grad_enabled())
            for j, g in zip(bt.wrt, res):
                out[j] = g
            return tuple(out)
        if is_grad_enabled():  # create_graph: a differentiable backward
            for t, version in zip(tensors, ctx.versions):
                if t._vc[0] != version:
                    raise _graph._version_error(t, "an input of a compiled function",
                                                t._vc[0], version)
            res = _eager_grads(trace, tensors, gs, ctx.numbers)
        elif ctx.grads is not None and float(gs[0]._data) == 1.0:
            # computed by the forward for this seed: handed over once, as results of this
            # run (the engine adopts them as .grad); a second backward recomputes
            res, ctx.grads = ctx.grads, None
            for g in res:
                g._owner = _graph.OWNER
        else:
            res = bt.graph.run([*values, *gs], (), ctx.numbers)[0]
        for j, g in zip(bt.wrt, res):
            out[j] = g
        return tuple(out)


_ONES = {}


def _ones(dt, device):
    """A 0-d tensor of 1 of dtype ``dt`` on ``device`` (a loss's seed), never written
    into."""
    t = _ONES.get((dt, device))
    if t is None:
        from ..creation import ones

        t = _ONES[(dt, device)] = ones((), dtype=dt, device=device)
    return t


def _eager_grads(trace, tensors, gs, numbers=(), create_graph=True):
    """The gradients of the traced call computed by its ops run eagerly (a graph for the
    next order with ``create_graph``), from the outputs whose gradient ``gs`` holds (None:
    an output that gets none)."""
    from ..autograd import grad as _grad

    g = trace.graph
    if not create_graph:  # (leaves of their own: this backward must not run, or free,
        # the nodes that made the inputs, which the engine runs after it)
        tensors = [t.detach().requires_grad_(t._rg) for t in tensors]
    env = dict(zip(g.inputs, tensors))
    bind_numbers(env, numbers)
    with enable_grad():  # (the engine runs a backward without a graph)
        for op in g.ops:
            op.run(env)
    pairs = [(env[g.outputs[m]], s) for m, s in zip(trace.backward.outs, gs) if s is not None]
    wrt = [tensors[j] for j in trace.backward.wrt]
    return _grad([o for o, _ in pairs], wrt, [s for _, s in pairs],
                 create_graph=create_graph, allow_unused=True)


def _replay(trace, fn, args):
    tensors = []
    grad = is_grad_enabled()
    needs = set()
    g = trace.graph
    for j, (src, v) in enumerate(zip(trace.sources, g.inputs)):
        t = _resolve(src, args)
        dt, shape, device = g.meta[v]
        if (t.__class__ is not Tensor or t._dtype is not dt or t._device != device
                or t._data.shape != shape):
            return fn(*args)  # a tensor reached by name was replaced: eager
        if grad and t._rg:
            needs.add(j)
        tensors.append(t)
    numbers = _numbers(trace, args) if trace.numbers else ()
    if needs:
        bt = trace.backward
        if bt is None or not needs <= bt.requested:
            return fn(*args)  # gradients this trace has no backward for: eager
        ts = trace.region.apply(*tensors, numbers=numbers)
    else:
        ts = g.run(tensors, (), numbers)[0]
    return ts[0] if trace.kind is None else trace.kind(ts)
