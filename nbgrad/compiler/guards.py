"""What a traced call assumes, and where it finds its tensors: the guard key of a call's
arguments (``_guard_key``: dtypes, shapes, devices, ``requires_grad``, aliasing, numbers
and strings by value, grad mode), keyword arguments made positional, floats made ``Sym``s
for a segment's trace, and the tensors a function reaches by name (``_sources``: its
arguments, closure cells, globals, a module's parameters and buffers), found again at
each call (``_resolve``).
"""

import functools
import math

from ..amp.policy import STATE as _AUTOCAST
from ..autograd.grad_mode import is_grad_enabled
from ..tensor import Tensor
from .trace import Sym


def _positional(fn, args, kwargs):
    """``fn`` and ``args`` for a call with ``kwargs`` made positional (their values last,
    guarded as arguments, ``_call_kw`` passing them on by name)."""
    if not kwargs:
        return fn, args
    return functools.partial(_call_kw, fn, list(kwargs)), args + tuple(kwargs.values())


def _call_kw(fn, names, *args):
    n = len(names)
    return fn(*args[:-n], **dict(zip(names, args[-n:])))


_NUMBERS = (bool, int, float)


def _guard_key(args, floats=True):
    """What a trace of a call with ``args`` assumes, or None when an argument is of a kind
    the guards cannot check. ``floats=False``: float arguments by their type only."""
    key = [is_grad_enabled()]
    ac = _AUTOCAST
    if ac.on:  # (a trace holds the casts its autocast region made)
        key.append((tuple(ac.enabled.values()), tuple(ac.dtype.values())))
    first = {}
    for i, a in enumerate(args):
        k = _guard(a, (i,), first, floats)
        if k is None:
            return None
        key.append(k)
    return tuple(key)


def _guard(a, path, first, floats=True):
    """The guard of argument ``a`` (at ``path`` in the arguments; tuples and lists are
    guarded item by item), or None."""
    if a.__class__ is Tensor:
        # (and which argument it is the same tensor as: f(x, x) traces one input)
        return (a._dtype, a._data.shape, a._device, a._rg, first.setdefault(id(a), path))
    if a is None or type(a) in _NUMBERS or type(a) is str:
        if type(a) is float:
            if not floats:
                return (float,)
            if a == 0.0:  # (-0.0 == 0.0, but x * -0.0 is another zero)
                return (float, a, math.copysign(1.0, a))
        return (type(a), a)
    if type(a) in (tuple, list):
        ks = tuple(_guard(x, path + (j,), first, floats) for j, x in enumerate(a))
        return None if any(k is None for k in ks) else (type(a), ks)
    return None


def _symbolic(args, state):
    """``args`` with each float (in tuples and lists too) a ``Sym`` numbered in order, and
    each one's path in the arguments."""
    paths = []

    def walk(items, path):
        out = []
        for i, a in enumerate(items):
            if type(a) is float:
                paths.append(path + (i,))
                a = Sym(a, len(paths) - 1, state)
            elif type(a) in (tuple, list):
                a = type(a)(walk(a, path + (i,)))
            out.append(a)
        return out

    return tuple(walk(args, ())), paths


def _has_float(args):
    return any(type(a) is float or (type(a) in (tuple, list) and _has_float(a))
               for a in args)


def _numbers(trace, args):
    """The float arguments a trace's graph takes, from the call's ``args``."""
    nums = []
    for p in trace.numbers:
        obj = args
        for i in p:
            obj = obj[i]
        nums.append(obj)
    return nums


def _tensor_args(args, path=()):
    """(path, tensor) of each tensor in ``args``, in tuples and lists too."""
    for i, a in enumerate(args):
        if a.__class__ is Tensor:
            yield path + (i,), a
        elif type(a) in (tuple, list):
            yield from _tensor_args(a, path + (i,))


def _sources(fn, args):
    """id(tensor) -> where ``fn`` reaches it: its arguments, and the tensors its code names
    (closure cells, globals; a bound method's module parameters and buffers)."""
    src = {}
    for path, a in _tensor_args(args):
        src.setdefault(id(a), ("arg", path))
    f = fn
    while isinstance(f, functools.partial):
        # (a call with keywords: the user's function is _call_kw's first argument)
        f = f.args[0] if f.func is _call_kw else f.func
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
            elif hasattr(v, "named_parameters"):
                _module_sources(src, ("cell", cell), v)
        g = getattr(f, "__globals__", {})
        for name in code.co_names:
            v = g.get(name)
            if v.__class__ is Tensor:
                src.setdefault(id(v), ("global", g, name))
            elif hasattr(v, "named_parameters"):
                _module_sources(src, ("global", g, name), v)
    return src


def _module_sources(src, where, module):
    """The parameters and buffers of a module the function names (a global or closure
    cell ``where``): read through it at every call."""
    for name, t in list(module.named_parameters()) + list(module.named_buffers()):
        src.setdefault(id(t), ("in", where, name))


def _reached(sources, args):
    """The tensors of ``sources`` (as ``_sources`` found them)."""
    return [t for t in (_resolve(s, args) for s in sources.values()) if t.__class__ is Tensor]


def _resolve(src, args):
    kind = src[0]
    if kind == "arg":
        obj = args
        for i in src[1]:
            obj = obj[i] if type(obj) in (tuple, list) and i < len(obj) else None
        return obj
    if kind == "cell":
        try:
            return src[1].cell_contents
        except ValueError:
            return None
    if kind == "global":
        return src[1].get(src[2])
    obj = src[1] if kind == "attr" else _resolve(src[1], args)
    for part in src[2].split("."):
        obj = getattr(obj, part, None)
    return obj
