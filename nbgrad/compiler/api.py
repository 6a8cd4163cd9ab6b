"""``nbgrad.compile``: a function (or module) whose elementwise work runs as one fused
kernel per traced call signature.

This first version fuses functions whose whole tensor computation is elementwise table ops
on CPU tensors of one shape (one-element tensors and numbers may join in), computing no
gradient: a call that autograd would record (grad mode on and a tensor that requires grad)
runs eagerly, and so does a call whose trace hit a graph break (see ``trace.py``). Guards:
each tensor argument's dtype, shape, device and ``requires_grad``, each number argument's
type and value (a new value traces again), other arguments by equality, and grad mode.
"""

import functools
import warnings

from .. import _recording
from ..autograd.grad_mode import is_grad_enabled
from ..device import CPU as _CPU
from ..tensor import Tensor, _fresh
from .trace import GraphBreak, record

# the most call signatures one function is traced for; later ones run eagerly
CACHE_LIMIT = 8
_COMPILED = []  # every CompiledFunction (for reset)
_MODES = (None, "default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")


def compile(fn=None, *, fullgraph=False, dynamic=False, mode=None, disable=False):  # noqa: A001
    """Compile a function (or an ``nn.Module``) with nbgrad's compiler.

    Args:
        fn: the function or module; omitted, ``compile`` returns a decorator.
        fullgraph (bool): raise ``RuntimeError`` at a graph break (naming the op or read
            and the source line) instead of running that call eagerly.
        dynamic (bool): accepted for PyTorch compatibility; shapes are always
            specialized (a new shape traces again).
        mode (str or None): accepted for PyTorch compatibility (``"default"``,
            ``"reduce-overhead"``, ``"max-autotune"``, ...); all compile the same way.
        disable (bool): return ``fn`` unchanged.

    Returns:
        A callable with ``fn``'s signature. On the first call with a new signature it runs
        ``fn`` eagerly while tracing it; when the trace is an elementwise program,
        later calls with that signature run one generated kernel. Python side effects of
        ``fn`` (prints, list appends) happen only on the traced call, and a Python
        number it reads from anywhere but its arguments (a global, a closure, an
        attribute) is a constant of the trace, as in ``jax.jit``: after changing one, call
        ``nbgrad.compiler.reset()``. Tensors it reaches by name (closures, globals, a
        module's parameters and buffers) are read afresh at every call. An argument other
        than a tensor, a number, a string or None (``self`` of a method) makes the call
        eager.

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
    """What ``explain`` found: ``graph_count`` fused regions, ``ops`` (each region's rows in
    order), ``graph_break_count`` and ``break_reasons`` (each with its source line), and
    ``sources`` (each region's generated kernel source)."""

    def __init__(self, ops, breaks, sources):
        self.ops, self.break_reasons, self.sources = ops, breaks, sources
        self.graph_count = len(ops)
        self.graph_break_count = len(breaks)

    def __str__(self):
        lines = [f"Graph Count: {self.graph_count}",
                 f"Graph Break Count: {self.graph_break_count}"]
        for i, ops in enumerate(self.ops):
            lines.append(f"Graph {i}: {len(ops)} ops fused into one kernel: {', '.join(ops)}")
        lines += [f"Break Reason: {r}" for r in self.break_reasons]
        for i, src in enumerate(self.sources):
            lines += [f"Kernel source of graph {i}:", src]
        return "\n".join(lines)

    __repr__ = __str__


def explain(fn, *args, **kwargs):
    """Trace ``fn(*args, **kwargs)`` once (running it eagerly) and report what
    ``nbgrad.compile`` makes of the call: the fused region and its rows, or the graph break
    that makes it eager, and the generated kernel's source.

    Example::

        >>> import nbgrad
        >>> out = nbgrad.compiler.explain(lambda x: nbgrad.exp(x) * 2, nbgrad.ones(3))
        >>> out.graph_count, out.graph_break_count, out.ops
        (1, 0, [['exp', 'mul']])
    """
    if kwargs:
        args = args + tuple(kwargs.values())
        fn = functools.partial(_call_kw, fn, list(kwargs))
    src = _sources(fn, args)
    _, entry = record(fn, args, src, _reached(src, args))
    if isinstance(entry, GraphBreak):
        return ExplainOutput([], [str(entry)], [])
    p = entry.program
    return ExplainOutput([[op.name for op, *_ in p.steps]], [], [p.source()[0]])


def reset():
    """Forget every trace of every compiled function (the next call of each traces again)."""
    for ref in _COMPILED:
        f = ref()
        if f is not None:
            f._cache.clear()
            f._warned = False


class CompiledFunction:
    """What ``nbgrad.compile`` returns: calls ``fn`` through its traces."""

    def __init__(self, fn, fullgraph):
        import weakref

        functools.update_wrapper(self, fn, updated=())
        self._orig = fn
        self._fullgraph = fullgraph
        self._cache = {}  # guard key -> Trace, or the GraphBreak that made it eager
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
        if _recording.RECORDER[0] is not None:  # inside another function's trace: inline
            return self._orig(*args, **kwargs)
        if kwargs:
            args = args + tuple(kwargs.values())
            fn = functools.partial(_call_kw, self._orig, list(kwargs))
        else:
            fn = self._orig
        key = _guard_key(args)
        if key is None:
            return self._eager(fn, args, GraphBreak("an argument the guards do not cover"))
        entry = self._cache.get(key)
        if entry is None:
            if len(self._cache) >= CACHE_LIMIT:
                if not self._warned:
                    self._warned = True
                    warnings.warn(f"nbgrad.compile: {self._orig!r} was traced for "
                                  f"{CACHE_LIMIT} call signatures; new ones run eagerly",
                                  stacklevel=2)
                return fn(*args)
            if is_grad_enabled() and any(a.__class__ is Tensor and a._rg for a in args):
                entry = GraphBreak("a call autograd records (gradients are not compiled yet)")
                self._cache[key] = entry
                return self._eager(fn, args, entry)
            src = _sources(fn, args)
            result, entry = record(fn, args, src, _reached(src, args))
            if isinstance(entry, GraphBreak) and self._fullgraph:
                raise RuntimeError(f"nbgrad.compile(fullgraph=True): graph break: {entry}")
            self._cache[key] = entry
            return result
        if isinstance(entry, GraphBreak):
            return self._eager(fn, args, entry)
        return _replay(entry, fn, args)

    def _eager(self, fn, args, why):
        if self._fullgraph:
            raise RuntimeError(f"nbgrad.compile(fullgraph=True): graph break: {why}")
        return fn(*args)


def _call_kw(fn, names, *args):
    n = len(names)
    return fn(*args[:-n], **dict(zip(names, args[-n:])))


_NUMBERS = (bool, int, float)


def _guard_key(args):
    """What a trace of a call with ``args`` assumes, or None when an argument is of a kind
    the guards cannot check."""
    key = [is_grad_enabled()]
    first = {}
    for i, a in enumerate(args):
        if a.__class__ is Tensor:
            # (and which argument it is the same tensor as: f(x, x) traces one input)
            key.append((a._dtype, a._data.shape, a._device, a._rg, first.setdefault(id(a), i)))
        elif a is None or type(a) in _NUMBERS or type(a) is str:
            key.append((type(a), a))
        else:
            return None
    return tuple(key)


def _sources(fn, args):
    """id(tensor) -> where ``fn`` reaches it: its arguments, and the tensors its code names
    (closure cells, globals; a bound method's module parameters and buffers)."""
    src = {}
    for i, a in enumerate(args):
        if a.__class__ is Tensor:
            src.setdefault(id(a), ("arg", i))
    f = fn
    while isinstance(f, functools.partial):
        f = f.func
    if hasattr(f, "named_parameters"):  # a module: its forward's code and its tensors
        owner, f = f, getattr(f, "forward", f)
    else:
        owner = getattr(f, "__self__", None)
    f = getattr(f, "__func__", f)
    if hasattr(owner, "named_parameters"):
        for name, t in list(owner.named_parameters()) + list(owner.named_buffers()):
            src.setdefault(id(t), ("attr", owner, name))
    code = getattr(f, "__code__", None)
    if code is not None:
        for name, cell in zip(code.co_freevars, f.__closure__ or ()):
            try:
                v = cell.cell_contents
            except ValueError:  # an empty cell
                continue
            if v.__class__ is Tensor:
                src.setdefault(id(v), ("cell", cell))
        g = getattr(f, "__globals__", {})
        for name in code.co_names:
            v = g.get(name)
            if v.__class__ is Tensor:
                src.setdefault(id(v), ("global", g, name))
    return src


def _reached(sources, args):
    """The tensors of ``sources`` (as ``_sources`` found them)."""
    return [t for t in (_resolve(s, args) for s in sources.values()) if t.__class__ is Tensor]


def _resolve(src, args):
    kind = src[0]
    if kind == "arg":
        return args[src[1]]
    if kind == "cell":
        try:
            return src[1].cell_contents
        except ValueError:
            return None
    if kind == "global":
        return src[1].get(src[2])
    obj = src[1]
    for part in src[2].split("."):
        obj = getattr(obj, part, None)
    return obj


def _replay(trace, fn, args):
    operands = []
    grad = is_grad_enabled()
    for (kind, dt), src in zip(trace.program.inputs, trace.inputs):
        t = _resolve(src, args)
        if (t.__class__ is not Tensor or t._dtype is not dt or t._device.type != "cpu"
                or (kind == "array" and t._data.shape != trace.shape)
                or (kind == "value" and t._data.size != 1) or (grad and t._rg)):
            # a tensor reached by name was replaced, or now needs a gradient: eager
            return fn(*args)
        operands.append(t._data)
    outs = trace.kernel(*operands)
    ts = [_fresh(o, dt, _CPU) for o, dt in zip(outs, trace.dtypes)]
    return ts[0] if trace.kind is None else trace.kind(ts)

