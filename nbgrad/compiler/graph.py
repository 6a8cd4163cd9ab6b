"""The graph of a traced call: the recorded ops, partitioned into fused elementwise regions
(one generated kernel each, ``fuse.py``) and calls of the other rows between them, and
replayed over new tensors.

Values are numbered; ``meta[v]`` is value ``v``'s dtype, shape and device. A recorded ``Op`` is an
elementwise row applied to values and numbers, or a ``FuncDef`` row (a reduction, a view,
``linear``, ``mm``, softmax, ...) called with values and its other arguments. Partitioning
keeps the recorded order: consecutive elementwise ops whose results have one shape form a
region (their operands may broadcast to it); a call ends the region before it. A region
stores only the values that something after it reads.
"""

import math

from .. import _recording
from ..tensor import _fresh
from .fuse import Program


class GraphBreak(Exception):
    """Why a traced region ended (the op or read, and the user's source line)."""


class Num:
    """A number operand of an elementwise op: a constant of the trace, or (``index`` not
    None) the graph's number argument ``index``, which each run gives (``Graph.run``'s
    ``numbers``; ``value``: the traced call's)."""

    __slots__ = ("value", "index")

    def __init__(self, value, index=None):
        self.value, self.index = value, index

    def __repr__(self):
        return repr(self.value) if self.index is None else f"<number {self.index}>"

    def of(self, env):
        """The number in a run whose values are ``env``."""
        return self.value if self.index is None else env[("n", self.index)]


def bind_numbers(env, numbers):
    """Put a run's number arguments into its values ``env`` (where ``Num.of`` reads
    them)."""
    for i, n in enumerate(numbers):
        env[("n", i)] = n


class Op:
    """One recorded op: ``row`` (an elementwise ``TABLE`` row when ``elem``, else a
    ``FuncDef`` row), its ``operands`` (values, ``Num``s, None for an absent optional
    operand, a list of values for a list operand), the row's other arguments ``args`` (a
    call's, normalized as the row takes them) and the values of its ``outs`` (None where
    the row returned none)."""

    __slots__ = ("row", "elem", "operands", "args", "outs")

    def __init__(self, row, elem, operands, args, outs):
        self.row, self.elem, self.operands, self.args, self.outs = row, elem, operands, args, outs

    def run(self, env):
        """Run the op as eager runs it (recording autograd nodes when grad mode is on) on
        the tensors ``env`` maps its values to; its results go into ``env``."""
        ins = [a.of(env) if a.__class__ is Num else None if a is None
               else [env[v] for v in a] if isinstance(a, list) else env[a]
               for a in self.operands]
        r = self.row(*ins) if self.elem else self.row.call(*ins, *self.args)
        for v, t in zip(self.outs, r if isinstance(r, tuple) else (r,)):
            if v is not None:
                env[v] = t

    def values(self):
        """The values the op reads."""
        for a in self.operands:
            if a is None or a.__class__ is Num:
                continue
            if isinstance(a, list):
                yield from a
            else:
                yield a


class Fused:
    """A region: ``kernel`` over values ``ins`` stores values ``outs``, all of ``shape``;
    ``names``: its rows' names, in order."""

    def __init__(self, kernel, ins, outs, shape, names):
        self.kernel, self.ins, self.outs, self.shape, self.names = kernel, ins, outs, shape, names
        self.cpu = kernel.target == "cpu"

    def run(self, env, meta):
        # (an input ("n", i): the graph's number argument i, passed as it is)
        if self.cpu:
            res = self.kernel(*[env[v] if v.__class__ is tuple else env[v]._data
                                for v in self.ins], shape=self.shape)
        else:  # (a CUDA kernel reads its operands at the region's shape, contiguous)
            res = self.kernel(*[env[v] if v.__class__ is tuple else
                                _full(env[v], self.shape)._data for v in self.ins],
                              shape=self.shape)
        for v, o in zip(self.outs, res):
            env[v] = _fresh(o, meta[v][0], meta[v][2])


def _full(t, shape):
    """``t`` at ``shape``, C-contiguous (a copy when it broadcasts or is strided); a
    one-element ``t`` as it is (read as a value)."""
    if t._data.size == 1:
        return t
    if tuple(t._data.shape) != tuple(shape):
        t = t.expand(shape)
    return t.contiguous()


class Call:
    """A row called as eager calls it (a matmul, a reduction, a view, ...; an elementwise
    op with nothing to fuse)."""

    def __init__(self, op):
        self.op = op
        self.name = op.row.name if op.elem else op.row.qualname

    def run(self, env, meta):
        self.op.run(env)


class Graph:
    """Recorded ``ops`` over values (``meta``) from ``inputs`` (the caller's tensors, in
    order) to ``outputs``, ready to run: ops nothing reads dropped, the rest partitioned
    into ``steps`` (``Fused`` regions and ``Call``s). ``stored``: the values a run holds
    as tensors (inputs, calls' results, regions' stored values)."""

    def __init__(self, meta, inputs, ops, outputs):
        self.meta, self.inputs, self.outputs = meta, list(inputs), list(outputs)
        needed = set(outputs)
        live = []
        for op in reversed(ops):
            if any(v is not None and v in needed for v in op.outs):
                live.append(op)
                needed.update(op.values())
        live.reverse()
        self.ops = live
        # (a random creation: a replay draws again, so the traced call's values stand)
        self.random = any(getattr(op.row, "random", False) for op in live)
        self.steps = self._partition(live)
        self.stored = set(self.inputs)
        for s in self.steps:
            self.stored.update(v for v in (s.outs if s.__class__ is Fused else s.op.outs)
                               if v is not None)
        self.producer = {v: (i, op) for i, op in enumerate(live) for v in op.outs
                         if v is not None}
        self._drops = {}  # keep -> _last_reads(keep)

    def _partition(self, ops):
        last = {}  # value -> index of the last op that reads it
        for i, op in enumerate(ops):
            for v in op.values():
                last[v] = i
        for v in self.outputs:
            last[v] = len(ops)
        steps, region, made = [], [], set()
        # (value, its sum's value, where in the region): a sum the open region computes
        total = []

        def close(i):  # the region ends before op i: it stores what ops from i on read
            if len(region) == 1 and not total:
                # nothing to fuse: the op's eager kernel (~1 µs to enter, a generated
                # kernel's launch ~7 µs: an MLP's ReLUs and their backward)
                steps.append(Call(region[0]))
            elif region:
                steps.append(_fuse(region, self.meta, lambda v: last.get(v, -1) >= i,
                                   total[0] if total else None))
            if region:
                region.clear()
                made.clear()
                total.clear()

        for i, op in enumerate(ops):
            if op.elem and not self._low(op):
                if region and (self.meta[region[0].outs[0]][1:] != self.meta[op.outs[0]][1:]
                               or (total and not self._flat(op, made, total))):
                    close(i)
                region.append(op)
                made.add(op.outs[0])
            elif not total and self._sums_region(op, made, region, last, i):
                # a sum of one of the region's values: computed in its loop, and the region
                # goes on (a forward's loss, then the backward that a loss.backward() runs)
                total.append((op.operands[0], op.outs[0], len(region)))
            elif made.isdisjoint(op.values()) and not (total and total[0][1] in op.values()):
                # a call that reads nothing of the open region runs before it (the region's
                # ops, recorded before the call, cannot read its results): the region goes
                # on past it (a backward's expand of the seed, between the forward values
                # it recomputes and the formulas that read them)
                steps.append(Call(op))
            else:
                close(i)
                steps.append(Call(op))
        close(len(ops))
        return steps

    def _low(self, op):
        """Whether ``op`` reads or makes a float16 / bfloat16 value: no generated kernel
        takes one, so it runs as its eager call (which computes in float32)."""
        meta = self.meta
        return any(meta[v][0].low for v in op.values()) or any(meta[v][0].low for v in op.outs)

    def _flat(self, op, made, total):
        """Whether elementwise ``op`` may join a region that sums a value (``total``): it
        reads neither that sum nor an operand that broadcasts to the region."""
        shape = self.meta[op.outs[0]][1]
        for a in op.values():
            if a == total[0][1]:
                return False
            if a not in made:
                sh = self.meta[a][1]
                if sh != shape and math.prod(sh) != 1:
                    return False
        return True

    def _sums_region(self, op, made, region, last, i):
        """Whether call ``op`` (the ``i``-th) is a sum of all of a floating value of the open
        ``region`` that nothing else reads, over operands of the region's shape (or one
        value): then the region's kernel computes it."""
        if op.row.qualname != "sum" or op.args != (None,):
            return False
        v = op.operands[0]
        if (v not in made or last.get(v) != i or not self.meta[v][0].is_floating_point
                or self.meta[v][0].low or self.meta[v][2].type != "cpu"):  # (CPU loops only)
            return False
        shape = self.meta[region[0].outs[0]][1]
        for o in region:
            for a in o.values():
                if a not in made:
                    sh = self.meta[a][1]
                    if sh != shape and math.prod(sh) != 1:
                        return False
        return True

    def run(self, tensors, keep=(), numbers=()):
        """The output tensors for input ``tensors`` (and number arguments ``numbers``), and
        the tensors of values ``keep``."""
        env = dict(zip(self.inputs, tensors))
        bind_numbers(env, numbers)
        meta = self.meta
        rec = _recording.RECORDER[0]
        if rec is not None and rec.counting:  # (kernel_count: the calls count themselves)
            rec.count += len(self.steps) - len(self.calls())
        key = tuple(keep)
        drops = self._drops.get(key)
        if drops is None:
            drops = self._drops[key] = self._last_reads(key)
        pop = env.pop
        for s, drop in zip(self.steps, drops):
            s.run(env, meta)
            for v in drop:
                pop(v, None)
        return [env[v] for v in self.outputs], [env[v] for v in keep]

    def _last_reads(self, keep):
        """For each step, the values no later step reads and the run does not return
        (``keep``, the outputs): dropped once it has run, so that their buffers go back to
        the pool for the steps after it (as eager's engine frees a backward's values),
        rather than at the end of the run."""
        last = {}
        for i, s in enumerate(self.steps):
            for v in (s.outs if s.__class__ is Fused else s.op.outs):
                if v is not None:
                    last[v] = i  # (made and never read: dropped at once)
            for v in (s.ins if s.__class__ is Fused else s.op.values()):
                if v.__class__ is not tuple:  # (not a number argument)
                    last[v] = i
        held = set(self.outputs) | set(keep) | set(self.inputs)
        drops = [[] for _ in self.steps]
        for v, i in last.items():
            if v not in held:
                drops[i].append(v)
        return drops

    def regions(self):
        return [s for s in self.steps if s.__class__ is Fused]

    def calls(self):
        return [s.name for s in self.steps if s.__class__ is Call]

    def kernel_count(self):
        """Kernels a run launches: one per region, one per call (a row's forward may
        launch more than one; a view launches none, counted here all the same)."""
        return len(self.steps)

    def remat(self, ops, inputs, meta):
        """A backward pass's ops and inputs (``inputs``: (value, source) in the backward's
        numbering ``meta``, a forward value's source ``("fwd", v)``) with each forward
        value that this graph does not store recomputed from the values it is made of
        (its elementwise ops copied in front of the backward's), so the forward stores
        nothing more for its backward than its inputs and the values it stores anyway."""
        holder = {src[1]: v for v, src in inputs if src[0] == "fwd"}
        kept = [(v, src) for v, src in inputs
                if src[0] != "fwd" or not self._recomputed(src[1])]
        pre = []
        done = {}

        def value(fv):  # the backward's value holding forward value fv (numbered once)
            b = done.get(fv)
            if b is None:
                b = holder.get(fv)
                if b is None:
                    b = len(meta)
                    meta.append(self.meta[fv])
                    if not self._recomputed(fv):
                        kept.append((b, ("fwd", fv)))
                done[fv] = b
            return b

        # (an explicit stack: a chain of thousands of ops is recomputed as deep)
        stack = [fv for fv in holder if self._recomputed(fv)]
        made = set()
        while stack:
            fv = stack[-1]
            if fv in made:
                stack.pop()
                continue
            i, op = self.producer[fv]
            todo = [a for a in op.operands if a.__class__ is not Num and a not in made
                    and self._recomputed(a)]
            if todo:
                stack.extend(todo)
                continue
            stack.pop()
            made.add(fv)
            ins = [a if a.__class__ is Num else value(a) for a in op.operands]
            pre.append((i, Op(op.row, True, ins, (), [value(fv)])))
        pre.sort(key=lambda p: p[0])
        return [op for _, op in pre] + list(ops), kept

    def _recomputed(self, fv):
        """Whether a backward recomputes forward value ``fv`` (a value of an elementwise op
        that no step stores)."""
        p = self.producer.get(fv)
        return fv not in self.stored and p is not None and p[1].elem


def _fuse(region, meta, stored, total=None):
    """The ``Fused`` step of elementwise ``region`` (its values that ``stored`` says are
    read later leave the kernel; ``total``: (value, its sum's value, the sum's place among
    the region's ops), a sum the kernel computes too)."""
    shape = meta[region[0].outs[0]][1]
    p = Program()
    refs = {}
    ins = []
    for op in region:
        args = []
        for a in op.operands:
            if a.__class__ is Num:
                if a.index is not None:  # (a number argument: a kernel argument)
                    key = ("n", a.index)
                    r = refs.get(key)
                    if r is None:
                        r = refs[key] = p.number(type(a.value))
                        ins.append(key)
                    args.append(r)
                    continue
                try:
                    args.append(p.constant(a.value))
                except TypeError as e:
                    raise GraphBreak(str(e)) from None
                continue
            r = refs.get(a)
            if r is None:
                dt, sh = meta[a][:2]
                r = refs[a] = p.input(dt, value=math.prod(sh) == 1 and sh != shape,
                                      dim=len(sh) > 0)
                ins.append(a)
            args.append(r)
        v = op.outs[0]
        r = refs[v] = p.apply(op.row, *args)
        if r.dtype is not meta[v][0]:  # (a row whose dtype rule the program misreads)
            raise GraphBreak(f"{op.row.name}: dtype {meta[v][0]} where the program has "
                             f"{r.dtype}")
    outs = [op.outs[0] for op in region if stored(op.outs[0])]
    for v in outs:
        p.output(refs[v])
    names = [op.row.name for op in region]
    if total is not None:
        p.sum_output(refs[total[0]])
        outs.append(total[1])
        names.insert(total[2], "sum")
    target = "cpu" if meta[region[0].outs[0]][2].type == "cpu" else "cuda"
    return Fused(p.kernel(target), ins, outs, shape, names)
