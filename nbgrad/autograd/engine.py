"""The backward engine: dependency counting and a ready queue, never recursion.

Each node runs once, after every gradient flowing into it has been summed. Only nodes on
a path from the roots to a wanted input run. Ready nodes run newest first (by creation
order), as in PyTorch, so hooks fire in the same order.

Ownership. The engine may write into a gradient (lend it to a backward rule, see
``grad_mode._State.owned``) or keep it as a leaf's ``.grad`` without a copy only while
nobody else can see its memory. It knows that from where the tensor came, never from
reference counts: each run that builds no graph has a token (``graph.OWNER``) with which
ops stamp the results whose memory they allocate (``nbgrad.tensor._fresh``). A stamped
tensor reaches the engine as a sum it made or as what one of nbgrad's own backward rules
returned (``Node._builtin``), and the engine wipes the stamp as soon as the tensor becomes
visible elsewhere: handed to two edges, to a hook or a user's rule, captured for
``autograd.grad``, kept as ``.grad``. Views never carry a stamp, and making one wipes its
base's (``ops/shape._view``). Seeds, hooks' results and a user rule's results are never
the engine's.
"""

import gc
import heapq
import operator
import threading
from heapq import heappop, heappush

from .. import _recording
from . import anomaly_mode, grad_mode
from . import graph as _graph
from .graph import _FREED, _NOTHING, AccumulateGrad, Edge, edge_of

_STATE = grad_mode.STATE
# ops the engine calls, bound on first use (the ops import this module)
_add = _clone = _add_into = None


def _bind_ops():
    global _add, _clone, _add_into
    from ..ops.convert import clone
    from ..ops.elementwise import add
    from ..ops.inplace import add_into

    _clone, _add_into = clone, add_into
    _add = add  # last: execute binds again while it is None


_ANOMALY = anomaly_mode.ENABLED
# Per thread, one list per backward run in progress (runs nest: a hook may call backward):
# the callbacks ``queue_callback`` adds, run when that run's graph is done.
_final = threading.local()


class _RunCallbacks(list):
    """A run's final callbacks, and whether the run is a plain ``backward()`` (every leaf
    accumulates: no ``inputs=``, not ``autograd.grad``)."""

    __slots__ = ("plain_backward",)


def checkpoint_valid():
    """Whether a backward inside the current backward run (a checkpoint's recomputation)
    gives the right gradients: the run is a plain ``backward()`` (PyTorch's
    ``_is_checkpoint_valid``)."""
    stack = getattr(_final, "stack", None)
    return not stack or stack[-1].plain_backward


def queue_callback(callback):
    """Run ``callback()`` once the backward pass in progress has computed every gradient,
    before it returns (PyTorch's ``Variable._execution_engine.queue_callback``; what
    DistributedDataParallel uses to wait for its gradient reductions). Callbacks run in the
    order queued, and one may queue another.

    Example::

        >>> import nbgrad
        >>> from nbgrad.autograd.engine import queue_callback
        >>> w = nbgrad.ones(2, requires_grad=True)
        >>> log = []
        >>> _ = w.register_post_accumulate_grad_hook(
        ...     lambda p: queue_callback(lambda: log.append(p.grad.tolist())))
        >>> (w * 3).sum().backward()
        >>> log
        [[3.0, 3.0]]
    """
    stack = getattr(_final, "stack", None)
    if not stack:
        raise RuntimeError("Final callbacks can only be installed during backward pass.")
    stack[-1].append(callback)


def _graph_deps(roots):
    """Dependency count of every node reachable from ``roots``; the nodes in the order a
    breadth-first walk found them; whether any node was reached twice (else the graph is
    a tree: each node found from the one node that leads to it)."""
    deps = {}
    nodes = []
    for node, _ in roots:
        if node is not None and node not in deps:
            deps[node] = 0
            nodes.append(node)
    get = deps.get
    joined = False
    for node in nodes:  # (the list grows as the walk finds nodes: a queue)
        nf = node._next
        if nf.__class__ is not tuple:
            nf = (nf,)
        for nxt in nf:
            if nxt is None:
                continue
            if nxt.__class__ is Edge:
                nxt = nxt[0]
            c = get(nxt)
            if c is None:
                deps[nxt] = 1
                nodes.append(nxt)
            else:
                deps[nxt] = c + 1
                joined = True
    return deps, nodes, joined


def _graph_deps_needed(roots, targets):
    """``_graph_deps`` and the nodes that lead to a node of ``targets`` (the only ones that
    must run), decided for each node after the nodes it leads to. In a tree the walk found
    every node after the one that leads to it, so its reverse order serves. Otherwise a
    node's inputs are older than it (their ``_seq`` is smaller: they existed when it was
    made), so one pass from the oldest node up does; a node given newer inputs later
    (``next_functions`` set by hand) makes the pass repeat until nothing changes."""
    deps, nodes, joined = _graph_deps(roots)
    needed = set()
    if joined:
        order = sorted(deps, key=_seq_of)
    else:
        order = nodes
        order.reverse()
    while True:
        grew = out_of_order = False
        for node in order:
            if node in needed:
                continue
            s = node._seq
            nf = node._next
            if nf.__class__ is not tuple:
                nf = (nf,)
            for nxt in nf:
                if nxt is None:
                    continue
                if nxt.__class__ is Edge:
                    nxt = nxt[0]
                if nxt._seq > s and nxt._next:
                    out_of_order = True
                if nxt in needed or nxt in targets:
                    needed.add(node)
                    grew = True
                    break
        if not (out_of_order and grew):
            return deps, needed


_seq_of = operator.attrgetter("_seq")


def _call_hooks(hooks, g):
    """Run tensor hooks on ``g``; a hook may keep what it sees or returns: none of it is the
    engine's any more."""
    for h in tuple(hooks.values()):
        g._owner = None
        r = h(g)
        if r is not None:
            _check_hook_value(h, g, r)
            g = r
    g._owner = None
    return g


def _hook_name(h):
    return getattr(h, "__name__", "<unknown>")


def _check_hook_value(h, old, new):
    """PyTorch's checks of what a hook returned in place of gradient ``old``."""
    if new is None:
        return
    if old is None:
        raise RuntimeError("can't replace a None gradient with a non-None value")
    from ..tensor import Tensor

    if not isinstance(new, Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(new).__name__}'")
    if new._dtype is not old._dtype or new._device != old._device:
        raise RuntimeError(f"hook '{_hook_name(h)}' has changed the type of value "
                           f"(was {old._type_name()} got {new._type_name()})")
    if new._data.shape != old._data.shape:
        raise RuntimeError(f"hook '{_hook_name(h)}' has changed the size of value")


def _check_hook_values(h, old, new):
    """The checks of a node hook's result: a tuple of one value per gradient in ``old``."""
    if not isinstance(new, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(new).__name__}'")
    if len(new) != len(old):
        raise RuntimeError(f"hook '{_hook_name(h)}' has returned an incorrect number of "
                           f"values (got {len(new)}, but expected {len(old)})")
    for o, n in zip(old, new):
        _check_hook_value(h, o, n)


def execute(roots, seeds, keep_graph, create_graph, inputs=None, accumulate=True):
    """Run backward from ``roots`` (edges) seeded with ``seeds``.

    ``inputs`` None: accumulate into every reachable leaf. Otherwise ``inputs`` is a list of
    tensors: with ``accumulate`` their ``.grad`` is accumulated, else their gradients are
    returned (a list with None for unreached inputs) and no ``.grad`` is touched.
    """
    rec = _recording.RECORDER[0]
    if rec is not None:  # the compiler records the function that runs this backward pass
        return rec.backward_pass(_execute, roots, seeds, keep_graph, create_graph, inputs,
                                 accumulate)
    return _execute(roots, seeds, keep_graph, create_graph, inputs, accumulate)


def _execute(roots, seeds, keep_graph, create_graph, inputs, accumulate):
    # Each state change is made inside the ``try`` and undone by its ``finally``: an
    # exception anywhere (a KeyboardInterrupt) leaves grad mode and the collector as they were.
    prev = _STATE.enabled
    entry = stack = callbacks = None
    gc_was = gc.isenabled()
    gc_off = False
    try:
        _STATE.enabled = create_graph  # (the seeds' sums too are recorded only with it)
        callbacks = _RunCallbacks()
        callbacks.plain_backward = inputs is None and accumulate
        stack = getattr(_final, "stack", None)
        if stack is None:
            stack = _final.stack = []
        stack.append(callbacks)
        if _add is None:
            _bind_ops()
        add = _add
        # this run's token (see Ownership above); a run that builds a graph owns nothing:
        # the gradients it makes may be saved by the graph it records
        run = object()
        entry = _graph.open_run(None if create_graph else run)
        deps, targets, needed, captured, buffers, heap = _start(roots, seeds, inputs,
                                                                accumulate)
        # The cyclic collector would rescan every live node and tensor of a big graph many
        # times over while backward allocates; backward makes no cycles it must collect.
        if gc_was and len(deps) > 256:
            gc_off = True  # before the call: the finally must not miss it
            gc.disable()
        plain = not _ANOMALY[0]
        # with inputs: the nodes that only pass gradients on toward them take the plain path
        inner = None if needed is None else needed.difference(targets)
        # ``nxt_run``: a node made ready by the last one that would also top the heap
        # (newest first), run next without a trip through the heap: a chain's common case
        nxt_run = None
        run_g = None  # nxt_run's gradient when it has one output and this is all it gets
        while True:
            if nxt_run is not None:
                node = nxt_run
                nxt_run = None
                if run_g is not None:
                    buf = run_g
                    run_g = None
                else:
                    buf = buffers.pop(node, None)
            elif heap:
                node = heappop(heap)[1]
                buf = buffers.pop(node, None)
            else:
                break
            if plain and not node._hooked and (inner is None or node in inner):
                # the common node: one output (``buf`` is its gradient), no hooks, not a leaf
                if buf is None:
                    outs = _NONES
                else:
                    sv = node._saved
                    if node._gen:  # a table row's node (see Node._gen)
                        # ``lent``: as below, but the node sets ``_STATE.owned`` itself,
                        # and only when it runs a formula
                        outs = node._run(buf, node._grad_once and buf._owner is run)
                        # (``sv``: (), a tuple, or the one thing saved, which may be falsy)
                        if sv is not _NOTHING and not keep_graph:
                            node._saved = _FREED
                    elif not node._std_apply:  # a user's rule, which may keep ``buf``
                        buf._owner = None
                        outs = _checked(node, node.apply([buf]))
                        if sv and not keep_graph:
                            node._saved = _FREED
                    elif sv:
                        # the engine's own gradient, to a rule that uses it once: lent
                        if node._grad_once and buf._owner is run:
                            _STATE.owned = buf
                        outs = _checked(node, node.backward(node.unpack_saved(), buf))
                        _STATE.owned = None
                        if not keep_graph:
                            node._saved = _FREED
                    else:  # a hand-written rule that saved nothing
                        outs = _checked(node, node.backward((), buf))
            else:
                if needed is not None and node not in needed and node not in targets:
                    continue  # off every path to an input: no hooks, no work (as torch)
                if node._n_out == 1:
                    buf = [buf]
                elif buf is None:
                    buf = [None] * node._n_out
                if node._tensor_hooks:
                    for nr, hooks in tuple(node._tensor_hooks.items()):
                        if buf[nr] is not None and hooks:
                            buf[nr] = _call_hooks(hooks, buf[nr])
                if node._retain:
                    for nr, ref in tuple(node._retain.items()):
                        t = ref()
                        if t is not None and buf[nr] is not None:
                            _retain(t, buf[nr])
                is_acc = node.__class__ is AccumulateGrad
                if is_acc:
                    var = node.variable
                    if var._hooks and buf[0] is not None:
                        buf[0] = _call_hooks(var._hooks, buf[0])
                    if node._pre_hooks and buf[0] is not None:  # (the node's own, then)
                        buf = _run_pre_hooks(node, buf)
                if targets is not None:
                    tg = targets.get(node)
                    if tg is not None:
                        for nr, i in tg:
                            g = buf[nr]
                            if accumulate:
                                if g is not None:
                                    t = inputs[i]
                                    if is_acc:
                                        buf[0] = None
                                        _accumulate(node, g, create_graph, run)
                                        if _graph.POST_ACCUMULATE:
                                            _post_accumulate(node.variable)
                                        if node._post_hooks:
                                            _run_acc_post_hooks(node, g)
                                        g = None
                                    elif not t._retains_grad:  # else populated above
                                        _retain(t, g)
                            else:
                                if g is not None:
                                    g._owner = None  # the caller's now
                                captured[i] = g
                    if node not in needed:
                        continue
                if is_acc:
                    if targets is None and buf[0] is not None:
                        g = buf[0]
                        buf = None
                        _accumulate(node, g, create_graph, run)
                        if _graph.POST_ACCUMULATE:
                            _post_accumulate(node.variable)
                        if node._post_hooks:
                            _run_acc_post_hooks(node, g)
                    continue
                outs = _run_node(node, buf)
                if not keep_graph:
                    node.release()
            # hand each input's gradient to the node that produced it; run it when complete
            trusted = node._builtin
            if trusted and len(outs) > 2:
                _unshare(outs, run)
            last = None
            nf = node._next
            if nf.__class__ is not tuple:
                nf = (nf,)
            for nxt, g in zip(nf, outs):
                if nxt is None:
                    continue
                if nxt.__class__ is Edge:
                    nxt, nr = nxt
                else:
                    nr = 0
                if (g is last or not trusted) and g is not None and g._owner is run:
                    g._owner = None  # handed to two edges, or by a user's rule
                last = g
                c = deps[nxt] - 1
                deps[nxt] = c
                if c == 0 and nxt_run is None and (not heap or nxt._seq > -heap[0][0]):
                    # ready, and the newest ready node: it runs next
                    nxt_run = nxt
                    if g is not None:
                        if nxt._n_out == 1 and nxt not in buffers:
                            run_g = g  # its only gradient: handed over directly
                        else:
                            _deliver(buffers, nxt, nr, g, add)
                    continue
                if g is not None:
                    if nxt._n_out == 1:
                        b = buffers.get(nxt)
                        buffers[nxt] = g if b is None else add(b, g)
                    else:
                        _deliver(buffers, nxt, nr, g, add)
                if c == 0:
                    sq = nxt._seq
                    if nxt_run is None:
                        heappush(heap, (-sq, nxt))
                    elif sq > nxt_run._seq:
                        if run_g is not None:  # it waits in the heap after all
                            buffers[nxt_run] = run_g
                            run_g = None
                        heappush(heap, (-nxt_run._seq, nxt_run))
                        nxt_run = nxt
                    else:
                        heappush(heap, (-sq, nxt))
            # drop this node's results and saved tensors now: their memory can go back
            # before the next node allocates
            outs = g = b = sv = last = None
        for cb in callbacks:  # (the list may grow while it runs)
            cb()
    finally:
        if stack is not None and stack and stack[-1] is callbacks:
            stack.pop()
        _STATE.enabled = prev
        _STATE.owned = None
        if entry is not None:
            _graph.close_run(entry)
        if gc_off:
            gc.enable()
    return captured


def _start(roots, seeds, inputs, accumulate):
    """What ``execute`` starts from: each node's dependency count; with ``inputs``, the
    nodes that hold them (``targets``: node -> [(output_nr, index in inputs)]), the nodes
    that lead to one (``needed``) and the list of their gradients (``captured``); the
    seeds delivered to the roots (``buffers``); the heap of nodes ready to run."""
    targets = needed = captured = None
    if inputs is None:
        deps = _graph_deps(roots)[0]
    else:
        targets = {}
        for i, t in enumerate(inputs):
            node, nr = edge_of(t)
            tg = targets.setdefault(node, [])
            if not (accumulate and any(inputs[j] is t for _, j in tg)):  # listed twice: once
                tg.append((nr, i))
        captured = [None] * len(inputs)
        deps, needed = _graph_deps_needed(roots, targets)
    # gradients waiting for each node: the tensor itself for a node with one output,
    # else a list with one slot per output
    buffers = {}
    for (node, nr), g in zip(roots, seeds):
        if node is not None and g is not None:
            _deliver(buffers, node, nr, g, _add)
    heap = [(-n._seq, n) for n, c in deps.items() if c == 0]
    heapq.heapify(heap)
    return deps, targets, needed, captured, buffers, heap


def _deliver(buffers, node, nr, g, add):
    """Add gradient ``g`` for output ``nr`` of ``node`` to what waits for it."""
    if node._n_out == 1:
        b = buffers.get(node)
        buffers[node] = g if b is None else add(b, g)
        return
    b = buffers.get(node)
    if b is None:
        b = buffers[node] = [None] * node._n_out
    b[nr] = g if b[nr] is None else add(b[nr], g)


class _Nones:
    """Stands in for "no gradient for any input" (zip stops at next_functions' length)."""

    def __iter__(self):
        while True:
            yield None

    def __len__(self):
        return 0


_NONES = _Nones()


def _checked(node, outs):
    """A backward rule's result as a tuple of one gradient per input edge."""
    if outs.__class__ is not tuple:
        outs = tuple(outs) if isinstance(outs, list) else (outs,)
    if len(outs) != _n_edges(node):
        _count_error(node, outs)
    return outs


def _n_edges(node):
    nf = node._next
    n = len(nf) if nf.__class__ is tuple else 1
    return n if n >= node._arity else node._arity


def _count_error(node, outs):
    n_in = _n_edges(node)
    raise RuntimeError(
        f"function {node.name()} returned an incorrect number of gradients "
        f"(expected {n_in}, got {len(outs)})"
    )


def _unshare(outs, run):
    """Wipe the stamp of a tensor that a rule returned for two of its inputs (the delivery
    loop catches two in a row; this, any two of three or more)."""
    seen = set()
    for g in outs:
        if g is not None and g._owner is run:
            if id(g) in seen:
                g._owner = None
            seen.add(id(g))


def _disown(ts):
    """Hooks may keep what they see: none of ``ts`` is the engine's any more."""
    for g in ts:
        if g is not None:
            g._owner = None


def _run_node(node, buf):
    if node._pre_hooks:
        buf = _run_pre_hooks(node, buf)
    n_in = _n_edges(node)
    if all(g is None for g in buf):
        outs = (None,) * n_in
    else:
        if node._n_out > 1 and getattr(node, "materialize_grads", True) and any(
                g is None for g in buf):  # a Function's set_materialize_grads(False) opts out
            buf = _materialize(node, buf)
        if not node._builtin:  # a user's rule may keep what it gets
            _disown(buf)
        outs = node.apply(buf)
        if outs.__class__ is not tuple:
            outs = tuple(outs) if isinstance(outs, list) else (outs,)
        if _ANOMALY[0]:
            anomaly_mode.check(node, outs)
        if len(outs) != n_in:
            _count_error(node, outs)
    if node._post_hooks:
        _disown(outs)
        _disown(buf)
        for h in tuple(node._post_hooks.values()):
            r = h(outs, tuple(buf))
            if r is not None:
                _check_hook_values(h, outs, r)
                outs = tuple(r)
                _disown(outs)
    return outs


def _run_pre_hooks(node, buf):
    """``node``'s pre-hooks: ``hook(grad_outputs)``, which may return others to use (for
    an AccumulateGrad node, the gradient to accumulate)."""
    _disown(buf)
    for h in tuple(node._pre_hooks.values()):
        r = h(tuple(buf))
        if r is not None:
            _check_hook_values(h, buf, r)
            buf = list(r)
            _disown(buf)
    return buf


def _run_acc_post_hooks(node, g):
    """An AccumulateGrad node's post-hooks, after ``.grad`` has the gradient, as PyTorch
    calls them: ``hook((), (grad,))``."""
    g._owner = None
    for h in tuple(node._post_hooks.values()):
        h((), (g,))


def _materialize(node, buf):
    from ..creation import zeros

    out = list(buf)
    for i, g in enumerate(out):
        if g is None and node._out_meta is not None and node._out_meta[i] is not None:
            shape, dt, dev = node._out_meta[i]  # (an output that is no tensor gets None)
            if dt.is_floating_point:
                out[i] = zeros(tuple(shape), dtype=dt, device=dev)
    return out


def _accumulate(acc, g, create_graph, run):
    """Add ``g`` into ``.grad`` of the leaf of AccumulateGrad node ``acc``, under the node's
    lock: another thread's backward may be adding into the same ``.grad``. ``g`` is kept
    as it is only when it is this run's (``run``, see Ownership above): else someone else
    may see it (a user's seed, a hook's tensor, a view) and ``.grad`` gets a private copy."""
    var = acc.variable
    with acc.lock:
        old = var._grad
        if old is None:
            if create_graph:
                var._grad = g
            elif g._owner is run:
                var._grad = g
            else:  # (grad mode is off: the engine turns it off when it builds no graph)
                var._grad = _clone(g)
        elif create_graph or old._rg:
            var._grad = _add(old, g)
        else:
            _add_into(old, g)
        var._grad._owner = None  # the user's now


def _post_accumulate(var):
    """Run leaf ``var``'s post-accumulate hooks (each gets the leaf; must return None)."""
    hooks = _graph.post_accumulate_hooks(var)
    if hooks:
        for h in tuple(hooks.values()):
            r = h(var)
            if r is not None:  # (PyTorch's two messages: a tensor, or anything else)
                if hasattr(r, "grad_fn"):  # (a tensor; the engine imports no Tensor)
                    raise RuntimeError("Tensor post accumulate grad hooks should return None.")
                raise TypeError(f"expected Variable, but hook returned '{type(r).__name__}'")


# serializes updates of a retained non-leaf ``.grad`` (a rare path: one lock for all)
_retain_lock = threading.Lock()


def _retain(t, g):
    """``.grad`` of a non-leaf that called ``retain_grad()`` (or was named in ``inputs``)."""
    with _retain_lock:
        if t._grad is None:
            t._grad = _clone(g)  # (recorded only with create_graph: grad mode is that flag)
        else:
            t._grad = _add(t._grad, g)
        t._grad._owner = None
