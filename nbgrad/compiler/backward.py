"""Recording a traced call's backward: the eager engine runs the backward of the traced
call with a ``Recorder`` on, and the forward values its formulas read become inputs of the
backward graph, or are recomputed in it when they are cheap elementwise values that the
forward never stored (``Graph.remat``). For a call whose one differentiable output is a
scalar, the forward and its backward also become one graph (``_joint``).
"""

import numpy as np

from ..autograd import anomaly_mode as _anomaly
from ..kernels.cpu import _par
from .graph import Graph, GraphBreak, Num, Op
from .trace import Recorder, _Tracing


class BackwardTrace:
    """The compiled backward of a ``Trace``: ``graph`` takes the forward values ``saved``
    (forward value ids, the forward stores them) and one gradient per output at positions
    ``outs``; it returns the gradients of the forward inputs at positions ``wrt``."""

    def __init__(self, graph, saved, outs, wrt):
        self.graph, self.saved, self.outs, self.wrt = graph, saved, outs, wrt
        # the forward and this backward in one graph (``_joint``), or None
        self.joint = None


def record_backward(trace, result, wrt):
    """Record the eager backward of the traced call that returned ``result`` (its graph is
    still there): ``autograd.grad`` of the outputs that require grad with respect to the
    forward inputs at positions ``wrt`` (tensors that require grad), seeded with ones, with
    the recorder on. Runs with ``create_graph`` so that the engine lends no buffer (a lent
    buffer is written by a loop that no op call shows). Returns a ``BackwardTrace`` or
    raises ``GraphBreak``."""
    from ..autograd import grad as _grad
    from ..creation import ones_like

    fwd = trace.recorder
    outs = (result,) if trace.kind is None else tuple(result)
    out_pos = [m for m, o in enumerate(outs) if o._rg]
    outer = {d: ("fwd", v) for d, v in fwd.vids.items()}
    rec = Recorder({}, outer=outer)
    rec.backward_ok = True
    # (anomaly mode checks the values a backward makes: then they are computed)
    rec.shapes_only = not _anomaly.ENABLED[0]
    rec.alive = fwd.seen  # (the forward's tensors, whose arrays ``outer`` names)
    seeds = [ones_like(outs[m]) for m in out_pos]
    for m, g in zip(out_pos, seeds):
        rec.inputs.append((rec.new(g), ("grad", m)))
    leaves = [fwd.seen[fwd.inputs[j][0]] for j in wrt]  # (seen[v]: value v's tensor)
    # (np.errstate: the shapes-only values are garbage, and NumPy's products of them warn)
    with _Tracing(rec), _Quiet(leaves), _par.serial(), np.errstate(all="ignore"):
        try:
            grads = _grad([outs[m] for m in out_pos], leaves, seeds, retain_graph=True,
                          create_graph=True, allow_unused=True) if out_pos else [None] * len(wrt)
        except RuntimeError as e:
            # an op with no derivative (floor_divide): the forward runs, and backward
            # raises as eager's does, when it is called
            raise GraphBreak(f"the backward pass raises: {e}") from None
    if rec.error is not None:
        raise rec.error
    kept, gvids = [], []
    for j, g in zip(wrt, grads):
        if g is None:
            continue
        v = rec.vids.get(id(g._data))
        if v is None:
            raise GraphBreak("a gradient the backward pass made with an op the compiler "
                             "does not trace")
        kept.append(j)
        gvids.append(v)
    fg = trace.graph
    ops, inputs = fg.remat(rec.ops, rec.inputs, rec.meta)
    saved = [src[1] for _, src in inputs if src[0] == "fwd"]
    lost = [v for v in saved if v not in fg.stored]
    if lost:
        raise GraphBreak("the backward pass reads a forward value the forward does not keep")
    order = [v for v, src in inputs if src[0] == "fwd"] + [v for v, src in inputs
                                                           if src[0] == "grad"]
    try:
        bg = Graph(rec.meta, order, ops, gvids)
    except GraphBreak:
        raise
    except Exception as e:
        raise GraphBreak(f"the backward's ops could not be compiled: {e!r}") from None
    bt = BackwardTrace(bg, saved, out_pos, kept)
    loss = fwd.meta[fg.outputs[out_pos[0]]] if len(out_pos) == 1 else None
    # (on the CPU only: reading a CUDA seed's value would wait for the device)
    if loss is not None and loss[1] == () and loss[2].type == "cpu" and gvids:
        bt.joint = _joint(fg, rec, gvids, saved)
    return bt


class _Quiet:
    """The hooks of ``tensors`` (a leaf's, a non-leaf's on its producer) and their retained
    ``.grad`` switched off for the ``with`` block: a recorded backward must not run them
    (the engine runs them, on the compiled backward's gradients, at every backward). And a
    non-leaf's producer cut from its own inputs: the recorded backward gives the gradients
    of the traced ops alone (with an input that another input was made from, the engine
    would otherwise run the producer too, and its path would count twice: once in the
    compiled backward, once when the engine runs it after)."""

    def __init__(self, tensors):
        self.tensors = tensors

    def __enter__(self):
        self.saved = []
        for t in self.tensors:
            fn = t._grad_fn
            self.saved.append((t, t._hooks, fn, fn and fn._tensor_hooks, fn and fn._retain,
                               fn and fn._next))
            t._hooks = None
            if fn is not None:
                fn._tensor_hooks = fn._retain = None
                fn._next = ()

    def __exit__(self, *exc):
        for t, hooks, fn, tensor_hooks, retain, nxt in reversed(self.saved):
            t._hooks = hooks
            if fn is not None:
                fn._tensor_hooks, fn._retain, fn._next = tensor_hooks, retain, nxt
        return False


def _joint(fg, rec, gvids, saved):
    """The forward graph ``fg`` and its recorded backward (``rec``, gradients ``gvids``)
    as one graph, or None: its inputs are the forward's and the seed, its outputs the
    forward's and the gradients. For a call whose one differentiable output is a scalar (a
    loss), the forward computes the gradients that ``loss.backward()`` (a seed of 1) asks
    for in the same loops, reading the inputs once; another seed runs the backward graph.
    Backward values are the forward's where the backward read them (nothing recomputed)."""
    meta = list(fg.meta)
    new = {}
    seed = None
    for b, src in rec.inputs:
        if src[0] == "fwd":
            new[b] = src[1]
        else:
            seed = new[b] = len(meta)
            meta.append(rec.meta[b])

    def value(b):
        v = new.get(b)
        if v is None:
            v = new[b] = len(meta)
            meta.append(rec.meta[b])
        return v

    ops = list(fg.ops)
    for op in rec.ops:
        ins = [a if a is None or a.__class__ is Num else [value(x) for x in a]
               if isinstance(a, list) else value(a) for a in op.operands]
        ops.append(Op(op.row, op.elem, ins, op.args, [None if o is None else value(o)
                                                      for o in op.outs]))
    try:
        g = Graph(meta, fg.inputs + [seed], ops, fg.outputs + [value(b) for b in gvids])
    except Exception:  # (the separate graphs stand)
        return None
    return g if set(saved) <= g.stored else None

