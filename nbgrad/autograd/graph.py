"""Graph nodes: ``Node`` (a ``grad_fn``), ``AccumulateGrad`` for leaves, and saved tensors.

A node holds its inputs' edges (``next_functions``) and what its backward rule needs. It
never holds its own output tensor: an output saved for backward is kept as storage plus
version (as PyTorch's SavedVariable does), so a graph is freed by reference counting.
"""

import itertools
import re
import threading
import weakref

from . import anomaly_mode as _anomaly_mode
from . import grad_mode

_ANOMALY = _anomaly_mode.ENABLED

_seq = itertools.count()
_ACCUMULATE_FIRST = 1 << 62  # (added to an AccumulateGrad's _seq: see AccumulateGrad)
WRAP = None  # nbgrad.tensor._wrap, set when nbgrad.tensor is imported
_FREED = object()
_NOTHING = ()  # what a node that saved nothing holds (the one empty tuple)
# The token of the backward run now running its nodes' rules (None outside one, and in a
# run that builds a graph): ops stamp the results whose memory they allocate with it
# (``Tensor._owner``, see nbgrad.tensor._fresh), and the engine treats a tensor so stamped
# as its own (see autograd/engine.py). A module global, not a thread-local, because ops
# read it on every result; two threads running backward at once only cost each other
# ownership (a stamp of the other run's token is never honoured), never correctness.
OWNER = None
# the active runs, oldest first, each ``[token]``: when one ends, OWNER becomes the newest
# token still active. (Restoring the value a run saw when it began would leave a finished
# run's token behind when runs in two threads end in another order than they began.)
_runs = []
_runs_lock = threading.Lock()


def open_run(token):
    """A backward run starts: ops stamp their results with ``token`` (None: nothing)."""
    global OWNER
    entry = [token]
    with _runs_lock:
        _runs.append(entry)
        OWNER = token
    return entry


def close_run(entry):
    """The run of ``entry`` (from ``open_run``) ends."""
    global OWNER
    with _runs_lock:
        i = len(_runs) - 1  # newest first: in one thread, the run ending is the last
        while _runs[i] is not entry:
            i -= 1
        del _runs[i]
        OWNER = _runs[-1][0] if _runs else None


ERR_FREED = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)


class RemovableHandle:
    """Returned by ``register_hook``; ``remove()`` unregisters the hook."""

    __slots__ = ("_d", "_k")
    _ids = itertools.count()

    def __init__(self, d):
        self._d = weakref.ref(d) if _weakrefable(d) else (lambda d=d: d)
        self._k = next(RemovableHandle._ids)

    @property
    def id(self):
        """The hook's key in its table (PyTorch's ``RemovableHandle.id``)."""
        return self._k

    def remove(self):
        d = self._d()
        if d is not None:
            d.pop(self._k, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def _weakrefable(d):
    try:
        weakref.ref(d)
        return True
    except TypeError:
        return False


class _HookDict(dict):
    """A dict that can be weakly referenced by hook handles."""

    __slots__ = ("__weakref__",)


# The hooks that run after a leaf's ``.grad`` was accumulated
# (``Tensor.register_post_accumulate_grad_hook``): id(leaf) -> (weakref to it, its hooks).
# Few tensors have them, so they live aside rather than in a slot of every tensor.
POST_ACCUMULATE = {}


def post_accumulate_hooks(t, create=False):
    """Leaf ``t``'s post-accumulate hooks (a ``_HookDict``), made when ``create``, or None."""
    k = id(t)
    entry = POST_ACCUMULATE.get(k)
    if entry is not None and entry[0]() is t:
        return entry[1]
    if not create:
        return None

    table = POST_ACCUMULATE  # (bound here: at interpreter exit the module's globals are gone)

    def forget(ref):
        if table.get(k, (None,))[0] is ref:
            del table[k]

    hooks = _HookDict()
    table[k] = (weakref.ref(t, forget), hooks)
    return hooks


class SavedTensor:
    """A tensor saved for backward, with the version it had when saved (made by
    ``saved_input`` or ``saved_output``)."""

    __slots__ = ("t", "version", "data", "dtype", "device", "vc", "node_ref", "output_nr", "rg",
                 "sk")

    def unpack(self, node):
        t = self.t
        if t is None:
            vc = self.vc
            t = WRAP(self.data, self.dtype, self.device)
            t._vc = vc
            t._sk = self.sk  # its layout key, known when saved: the dispatch path's plan key
            if vc[0] != self.version:
                where = f"output {self.output_nr} of {_op_name(node)}"
                raise _version_error(t, where, vc[0], self.version)
            if self.rg:
                t._grad_fn = node
                t._output_nr = self.output_nr
                t._rg = True
            return t
        vc = t._vc
        if vc[0] != self.version:
            fn = t._grad_fn
            if fn is not None and fn._stale_view:  # its message is PyTorch's error
                raise RuntimeError(fn.attrs)
            where = f"output {t._output_nr} of {_op_name(fn)}" if fn is not None else None
            raise _version_error(t, where, vc[0], self.version)
        return t


_new = object.__new__


def saved_input(t):
    """Save tensor ``t`` (an op's input) for backward."""
    if t._vc.__class__ is not list:  # an inference tensor's counter
        not_saved()
    s = _new(SavedTensor)
    s.version = t._vc[0]
    s.t = t
    s.data = None
    return s


def not_saved():
    from .grad_mode import SAVED_ERROR

    raise RuntimeError(SAVED_ERROR)


def saved_output(t):
    """Save an op's output ``t``: its storage only, since holding the output would make a
    cycle through its grad_fn."""
    s = _new(SavedTensor)
    vc = s.vc = t._vc
    s.version = vc[0]
    s.t = None
    s.data = t._data
    s.dtype = t._dtype
    s.device = t._device
    s.sk = t._sk  # its launch-plan key, restored on unpack (ops/dispatch.py)
    s.output_nr = t._output_nr
    s.rg = True  # saved while recording: the output is about to require grad
    return s


def _op_name(node):
    """The forward op's name, as torch prints it: ``ExpBackward0`` -> ``Exp``."""
    return re.sub(r"Backward\d*$", "", node.name())


def _version_error(t, where, now, saved):
    return RuntimeError(
        "one of the variables needed for gradient computation has been modified by an "
        f"inplace operation: [{t._type_name()} {list(t.shape)}]"
        f"{f', which is {where},' if where else ''} is at "
        f"version {now}; expected version {saved} instead. Hint: enable anomaly detection to "
        "find the operation that failed to compute its gradient, with "
        "nbgrad.autograd.set_detect_anomaly(True, check_nan=False)."
    )


class Edge(tuple):
    """An edge ``(node, output_nr)`` to an output other than a node's first, as ``_next``
    holds it (see ``Node``). A class of its own so that one tells it from a tuple of edges."""

    __slots__ = ()


def pack_edges(edges):
    """``Node._next`` for ``edges``, a sequence of ``(node, output_nr)`` pairs."""
    items = tuple([None if f is None else f if nr == 0 else Edge((f, nr)) for f, nr in edges])
    return items[0] if len(items) == 1 else items


def edge_items(nf, n=0):
    """The items of ``_next`` value ``nf`` of a node with at least ``n`` edges (its
    ``_arity``), one per edge (a tuple): what ``nf`` leaves out has no edge."""
    items = nf if nf.__class__ is tuple else (nf,)
    if len(items) < n:
        items += (None,) * (n - len(items))
    return items


def unpack_edge(e):
    """Edge item ``e`` of ``_next`` as PyTorch's ``(node, output_nr)`` pair."""
    if e is None:
        return (None, 0)
    if e.__class__ is Edge:
        return tuple(e)
    return (e, 0)


class Node:
    """A backward function (``grad_fn``). Subclasses implement ``backward(ctx, *grads)``.

    ``next_functions`` is a tuple of ``(node, input_nr)`` pairs, one per differentiable
    input, with ``(None, 0)`` where that input needs no gradient.
    """

    # A graph keeps its nodes until backward, and CPython's cyclic collector scans them
    # again in every full collection, which a graph of more than about two collector-tracked
    # objects per op triggers on every 20,000 ops or so. So a node holds its edges as
    # ``_next``: for one edge the item itself, else a tuple of items, each None (no edge),
    # the node whose output 0 it is, or an ``Edge`` (node, output_nr); ``next_functions``
    # builds PyTorch's pairs from it when asked. Rarely set attributes live in the instance
    # __dict__ (created only when set), with class-level defaults, so making a node costs
    # four attribute stores.
    __slots__ = ("_next", "_saved", "_seq", "attrs", "__dict__", "__weakref__")
    _n_out = 1
    _out_meta = None
    _tensor_hooks = None
    _retain = None
    _pre_hooks = None
    _post_hooks = None
    _anomaly = None
    _hooked = False  # True once any hook or retain_grad is attached: the engine's slow path
    _plain_init = True
    # backward() passes the gradient to at most one op, as its first operand (or clears
    # grad_mode.STATE.owned before using it again): the engine may lend it for reuse
    _grad_once = False
    # the history of a split/chunk output whose base changed in place (ops/view_inplace):
    # using the view is PyTorch's error, and ``attrs`` holds its message
    _stale_view = False
    # the operands' dtypes, when a row's operands differ in dtype: its backward casts each
    # gradient to its operand's (ops/funcdef.py)
    _casts = None
    _std_apply = True  # apply() is unpack_saved() then backward(): the engine may inline it
    # nbgrad's own backward rule (std-apply, defined in nbgrad): it returns the incoming
    # gradients, views of them or results of ops it ran, and keeps none of them, so a
    # result stamped with the engine's token is the engine's alone. False for user rules
    # (custom Functions, library.defop, Node subclasses outside nbgrad): the engine takes
    # nothing they return as its own.
    _builtin = True
    # a node generated from an op table row (ops/opdef.py): its ``_run(grad, lent)`` is apply()
    # with the saved tensors unpacked inline, and returns a tuple of one gradient per edge,
    # so the engine calls it without the result checks a hand-written rule needs
    _gen = False
    # a table row's node that saves one thing: ``_saved`` is that thing itself, no tuple
    # (a tracked object less per recorded op; see the slots' comment)
    _saved1 = False
    # a table row's node has an edge per operand, but keeps a binary row's first edge
    # alone (bare) when the second operand has none: ``_arity`` says how many there are
    _arity = 0

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        cls._std_apply = cls.apply is Node.apply and cls.unpack_saved is Node.unpack_saved
        cls._gen = cls._std_apply and "_run" in cls.__dict__
        if "_builtin" not in cls.__dict__:
            cls._builtin = cls._std_apply and cls.__module__.startswith("nbgrad.")
        cls._plain_init = cls.__init__ is Node.__init__  # ops may build it attribute by attribute

    def __init__(self, next_functions, saved=(), attrs=None, n_out=1):
        self._next = pack_edges(next_functions)
        self._saved = saved
        self._seq = next(_seq)
        self.attrs = attrs
        if n_out != 1:
            self._n_out = n_out
            self._hooked = True
        if _ANOMALY[0]:
            _anomaly_mode.remember(self)

    @classmethod
    def name(cls):
        return cls.__name__

    def __repr__(self):
        return f"<{self.name().rsplit('::', 1)[-1]} object at {id(self):#x}>"

    def __call__(self, *grads):
        return self.apply(list(grads))

    @property
    def next_functions(self):
        return tuple([unpack_edge(e) for e in edge_items(self._next, self._arity)])

    @next_functions.setter
    def next_functions(self, edges):
        self._next = pack_edges(edges)

    @property
    def needs_input_grad(self):
        return tuple(e is not None for e in edge_items(self._next, self._arity))

    @property
    def saved_tensors(self):
        return self.unpack_saved()

    def unpack_saved(self):
        s = self._saved
        if s is _FREED:
            raise RuntimeError(ERR_FREED)
        if self._saved1:
            return (s.unpack(self) if s.__class__ is SavedTensor else s,)
        if not s:
            return ()
        if len(s) == 2:  # the common cases, without a comprehension
            a, b = s
            return (a.unpack(self) if a.__class__ is SavedTensor else a,
                    b.unpack(self) if b.__class__ is SavedTensor else b)
        if len(s) == 1:
            a = s[0]
            return (a.unpack(self) if a.__class__ is SavedTensor else a,)
        return tuple([v.unpack(self) if v.__class__ is SavedTensor else v for v in s])

    def release(self):
        """Drop what was saved for backward (after a backward without retain_graph)."""
        s = self._saved
        if s is not _NOTHING and (self._saved1 or s):  # (a row's one saved value may be 0)
            self._saved = _FREED

    def apply(self, grads):
        """Gradients for each input edge, given gradients for each output."""
        saved = self.unpack_saved()
        return self.backward(saved, *grads)

    def backward(self, saved, *grads):
        raise NotImplementedError

    def register_hook(self, fn):
        """``fn(grad_inputs, grad_outputs)`` runs after this node; may return new grad_inputs."""
        self._hooked = True
        if self._post_hooks is None:
            self._post_hooks = _HookDict()
        h = RemovableHandle(self._post_hooks)
        self._post_hooks[h._k] = fn
        return h

    def register_prehook(self, fn):
        """``fn(grad_outputs)`` runs before this node; may return new grad_outputs."""
        self._hooked = True
        if self._pre_hooks is None:
            self._pre_hooks = _HookDict()
        h = RemovableHandle(self._pre_hooks)
        self._pre_hooks[h._k] = fn
        return h

    def _add_tensor_hook(self, output_nr, fn):
        self._hooked = True
        if self._tensor_hooks is None:
            self._tensor_hooks = {}
        d = self._tensor_hooks.get(output_nr)
        if d is None:
            d = self._tensor_hooks[output_nr] = _HookDict()
        h = RemovableHandle(d)
        d[h._k] = fn
        return h


class AccumulateGrad(Node):
    """The node of a leaf that requires grad: adds incoming gradients into ``.grad``.

    ``lock`` makes that addition atomic: backward may run in several threads at once
    (PyTorch's AccumulateGrad holds a mutex too)."""

    __slots__ = ("variable", "lock")

    @classmethod
    def name(cls):
        return "torch::autograd::AccumulateGrad"  # (PyTorch's C++ name; repr shows the short one)
    _hooked = True  # always takes the engine's full path

    def __init__(self, variable):
        super().__init__(())
        # Ready nodes run newest first; a leaf's accumulation runs as soon as it is ready,
        # whatever its age (PyTorch gives AccumulateGrad the largest sequence number): so a
        # parameter's ``.grad`` and its post-accumulate hooks come while the rest of backward
        # still runs, which DistributedDataParallel's overlap needs. Among themselves the
        # older runs first: PyTorch's are tied and leave its queue in the order they were
        # pushed, which is the order of their first use where a node makes several ready.
        self._seq = _ACCUMULATE_FIRST - self._seq
        self.variable = variable
        self.lock = threading.Lock()

    def unpack_saved(self):
        return ()

    def apply(self, grads):
        return ()


# held while a leaf's AccumulateGrad is made, so that two threads never make two (each with
# its own lock) for one leaf
_new_accumulator = threading.Lock()


def grad_accumulator(t):
    """The unique AccumulateGrad of leaf ``t`` (made on first use, held weakly by ``t``)."""
    ref = t._acc
    acc = ref() if ref is not None else None
    if acc is None:
        with _new_accumulator:
            ref = t._acc  # another thread may have made it meanwhile
            acc = ref() if ref is not None else None
            if acc is None:
                acc = AccumulateGrad(t)
                t._acc = weakref.ref(acc)
    return acc


def edge_item(t):
    """The ``Node._next`` item of the edge to Tensor ``t`` (None: no edge); the generated
    records inline it (``ops/nodegen.EDGE_ITEM``)."""
    fn = t._grad_fn
    if fn is not None:
        return fn if t._output_nr == 0 else Edge((fn, t._output_nr))
    if t._rg:
        return grad_accumulator(t)
    return None


def edge_of(t):
    """``(node, output_nr)`` through which a gradient reaches tensor ``t``."""
    fn = t._grad_fn
    if fn is not None:
        return (fn, t._output_nr)
    if t._rg:
        return (grad_accumulator(t), 0)
    return (None, 0)


def grad_enabled():
    return grad_mode.STATE.enabled
