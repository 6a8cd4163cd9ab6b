"""The node classes generated from op table rows (``ops/opdef.py``'s elementwise rows and
``ops/funcdef.py``'s others): their ``backward`` and the engine's ``_run``, compiled from the
rows' derivative formulas on first use, and the code that records an elementwise row's node.

A formula is a Python expression in nbgrad ops (``"mul(grad, other)"``); what it reads is
what the node saves. ``_backward_source`` writes an elementwise row's node's methods,
``_general_source`` any other row's; ``_compile_backward`` compiles them in the namespace of
the module that defined the row (a formula may name an op defined after its row).
"""

import ast

from ..autograd.grad_mode import STATE as _STATE
from ..autograd.graph import (
    _FREED,
    ERR_FREED,
    Edge,
    Node,
    SavedTensor,
    grad_accumulator,
    not_saved,
)
from ..tensor import Tensor
from .dispatch import apply1, apply2

# the generated code's expression for the ``Node._next`` item of the edge to operand ``{p}``
# (a Tensor that requires grad; ``fn`` holds its grad_fn): graph.edge_item's body, inline
EDGE_ITEM = ("(fn if not {p}._output_nr else _Edge((fn, {p}._output_nr))) if fn is not None "
             "else _acc({p})")


def _table():
    # the op table, read when a formula is compiled (opdef imports this module)
    from .opdef import TABLE

    return TABLE


def _reads(formula, op):
    """The operand names, ``result`` and keyword arguments a derivative formula reads (and,
    for a row of another family, the other names it may save: ``op.values``)."""
    names = []
    extra = getattr(op, "values", ())
    for n in ast.walk(ast.parse(formula, mode="eval")):
        if (n.__class__ is ast.Name and n.id not in names
                and (n.id in op.params or n.id == "result" or n.id in op.kwargs
                     or n.id in extra)):
            names.append(n.id)
    return names


def _saved_names(op):
    """What the node can save, in order of first use by the formulas: operand names and
    ``result``."""
    names = []
    for f in op.grads:
        if f is not None:
            for n in _reads(f, op):
                if n not in names and n not in op.kwargs:
                    names.append(n)
    return tuple(names)


class _DirectCalls(ast.NodeTransformer):
    """``mul(a, b)`` of a table op without a front becomes ``_A2(_OP_mul, a, b)``: the
    formula calls the dispatch path without the public function's frame."""

    def __init__(self):
        self.ops = {}

    def visit_Call(self, node):
        self.generic_visit(node)
        f = node.func
        op = _table().get(f.id) if f.__class__ is ast.Name else None
        if (op is not None and op.front is None and not node.keywords
                and len(node.args) == op.arity):
            self.ops["_OP_" + op.name] = op
            node.func = ast.Name("_A1" if op.arity == 1 else "_A2", ast.Load())
            node.args = [ast.Name("_OP_" + op.name, ast.Load())] + node.args
        return node


def _in_place_formula(op, f):
    """``(op2, name)`` when formula ``f`` is one call of a table op ``op2(grad, name)`` on a
    saved value ``name`` (``mul(grad, other)``), else None."""
    node = ast.parse(f, mode="eval").body
    if node.__class__ is not ast.Call or node.func.__class__ is not ast.Name or node.keywords:
        return None
    op2 = _table().get(node.func.id)
    if op2 is None or op2.front is not None or op2.arity != 2 or len(node.args) != 2:
        return None
    g, x = node.args
    if (g.__class__ is not ast.Name or g.id != "grad" or x.__class__ is not ast.Name
            or x.id not in op.saves):
        return None
    return op2, x.id


def _edges_source(pad, fa, fb):
    """Lines that set ``fa`` / ``fb`` to a binary row's node's two edge items (its ``_next``
    is the first alone when the second operand has no edge, see ``_make_record``)."""
    return [pad + f"{fa} = self._next",
            pad + f"if {fa}.__class__ is tuple:",
            pad + f"    {fa}, {fb} = {fa}",
            pad + "else:",
            pad + f"    {fb} = None"]


def _lent_source(op):
    """The first lines of ``_run``: when the engine lent the gradient and the one input that
    needs a gradient has a formula ``op2(grad, saved)`` whose cached plan writes in place (a
    small plan with an ``into`` loop, as ``apply2`` would pick), run that loop on the saved
    storage and return the gradient itself. Any other case (a graph being built, a saved
    value modified in place, a layout without such a plan, broadcasting) falls through to
    the formulas."""
    if not op.grad_once or not op.saves:
        return []
    src = ["    if lent:",
           "        saved_ = self._saved",
           "        if saved_ is not _FREED:"]
    cases = []
    for i, f in enumerate(op.grads):
        hit = None if f is None else _in_place_formula(op, f)
        if hit is None:
            if f is not None:
                return []  # a gradient this shortcut cannot make: leave it to the formulas
            continue
        cases.append((i, hit))
    if not cases:
        return []
    pad = "            "
    if op.arity == 2:
        src += _edges_source(pad, "fa_", "fb_") + [pad + "if self.attrs is None:"]
        pad += "    "
    for i, (op2, name) in cases:
        body = []
        k = op.saves.index(name)
        body += [f"x_ = saved_[{k}]" if len(op.saves) > 1 else "x_ = saved_",
                 "if x_.__class__ is _ST:"]
        if name == "result":
            body += ["    ok_ = x_.vc[0] == x_.version",
                     "    xk_, xd_ = x_.sk, x_.data"]
        else:
            body += ["    t_ = x_.t",
                     "    ok_ = t_._vc[0] == x_.version",
                     "    xk_, xd_ = t_._sk, t_._data"]
        body += [f"    p_ = _OP_{op2.name}.plans.get((grad._sk, xk_)) if ok_ else None",
                 "    if p_ is not None and p_.into is not None:",
                 "        if p_.reshape:",
                 "            p_.into(grad._data.reshape(-1), xd_.reshape(-1))",
                 "        else:",
                 "            p_.into(grad._data, xd_)"]
        if op.arity == 1:
            body.append("        return (grad,)")
            src += [pad + line for line in body]
        else:
            mine, other = ("fa_", "fb_") if i == 0 else ("fb_", "fa_")
            body.append("        return (grad, None)" if i == 0 else "        return (None, grad)")
            src.append(pad + f"if {mine} is not None and {other} is None:")
            src += [pad + "    " + line for line in body]
    return src


def _backward_source(op, run=False):
    """The source of ``op``'s node ``backward``: each formula evaluated only for an input
    that needs a gradient, then broadcasting undone once by ``sum_to``.

    ``run``: the source of the node's ``_run(self, grad, lent)`` instead, the engine's call
    (``lent``: the engine lends ``grad``, which the node then offers its formulas through
    ``_STATE.owned``, only around them: the in-place shortcut needs no thread-local): the
    same formulas, reading what was saved straight from ``self._saved`` (``unpack_saved``'s
    checks and ``SavedTensor.unpack``'s tensor inline, its slow path only for an error or an
    unusual saved tensor), and the result always a tuple of one gradient per edge."""
    names = op.saves
    if op.arity is None:
        return _general_source(op, run)
    if not run:
        src = ["def backward(self, saved, grad):"]
        if names:
            src.append(f"    {''.join(n + ', ' for n in names)}= saved")
    else:
        src = ["def _run(self, grad, lent):"]
        if names:
            src += ["    saved = self._saved",
                    "    if saved is _FREED:",
                    "        raise RuntimeError(_ERR_FREED)",
                    f"    {''.join(n + ', ' for n in names)}= saved" if len(names) > 1 else
                    f"    {names[0]} = saved"]
        for n in names:
            if n == "result":
                # always saved_output's (None where no input needs it): a new tensor on its
                # storage, as SavedTensor.unpack makes it (which raises PyTorch's error when
                # the output was modified in place since)
                if op.arity == 2:
                    src.append(f"    if {n} is not None:")
                start = len(src)
                src += [f"    {n}_ = {n}",
                        f"    if {n}_.vc[0] == {n}_.version:",
                        f"        {n} = t_ = _new(_Tensor)",
                        f"        t_._data = {n}_.data",
                        f"        t_._dtype = {n}_.dtype",
                        f"        t_._device = {n}_.device",
                        "        t_._rg = True",
                        "        t_._grad = None",
                        "        t_._grad_fn = self",
                        f"        t_._output_nr = {n}_.output_nr",
                        f"        t_._vc = {n}_.vc",
                        "        t_._base = None",
                        "        t_._hooks = None",
                        "        t_._acc = None",
                        "        t_._retains_grad = False",
                        f"        t_._sk = {n}_.sk",
                        "        t_._owner = None",
                        "    else:",
                        f"        {n} = {n}_.unpack(self)"]
                if op.arity == 2:
                    src[start:] = ["    " + line for line in src[start:]]
            else:  # a saved input: the tensor itself, unless modified in place since
                src += [f"    if {n}.__class__ is _ST:",
                        f"        t_ = {n}.t",
                        f"        if t_._vc[0] == {n}.version:",
                        f"            {n} = t_",
                        "        else:",
                        f"            {n} = {n}.unpack(self)"]
    if run:
        src[1:1] = _lent_source(op)
    if op.arity == 1:
        if run and op.grad_once:  # lent to the formula (see the module doc of dispatch)
            src += ["    if lent:",
                    "        _STATE.owned = grad",
                    f"        r_ = ({op.grads[0]},)",
                    "        _STATE.owned = None",
                    "        return r_"]
        src.append(f"    return ({op.grads[0]},)")
        return src
    src += _edges_source("    ", "fa", "fb") + [
            "    na = fa is not None",
            "    nb = fb is not None",
            "    at = self.attrs"]
    for i, n in enumerate(op.kwargs):
        src.append(f"    {n} = {op.kwargs[n]!r} if at is None else at[{2 + i}]")
    both = all(f is not None for f in op.grads)
    if run:
        if op.grad_once:  # lent to the formulas, unless two of them read it
            src += ["    if lent:",
                    "        _STATE.owned = None if na and nb else grad" if both else
                    "        _STATE.owned = grad"]
    elif both:
        # the gradient goes to two formulas: not to be written into (see module doc)
        src += ["    if na and nb:", "        _STATE.owned = None"]
    for v, f in zip(("ga", "gb"), op.grads):
        src.append(f"    {v} = None" if f is None else f"    {v} = ({f}) if n{v[1]} else None")
    if run and op.grad_once:
        src += ["    if lent:", "        _STATE.owned = None"]
    k = 2 + len(op.kwargs)  # where the operands' dtypes are, when they differ
    src += ["    if at is not None:",
            "        if ga is not None:",
            "            ga = _sum_to(ga, at[0])",
            "        if gb is not None:",
            "            gb = _sum_to(gb, at[1])",
            f"        if len(at) > {k}:",
            f"            ga = _cast(ga, at[{k}])",
            f"            gb = _cast(gb, at[{k + 1}])",
            "    return ga, gb"]
    return src


def _general_source(op, run=False):
    """``backward`` of a row that is not elementwise (``ops/funcdef.py``): the saved
    tensors unpacked by name, the row's arguments and the sizes the formulas read from
    ``self.attrs`` (in ``op.recorded`` order), and each formula run only for an input that
    needs a gradient. ``run``: the node's ``_run(self, grad, lent)`` (rows of one output
    and one tensor per operand, see ``_runs_inline``), which unpacks what was saved itself
    and lends nothing (no such row has ``grad_once``)."""
    if run:
        src = ["def _run(self, grad, lent):"] + _unpack_source(op)
    elif op.differentiable > 1:
        src = ["def backward(self, saved, *grads):", "    grad = grads[0]"]
    else:
        src = ["def backward(self, saved, grad):"]
    if op.saves and not (run and _plain_saves(op)):
        src.append(f"    {''.join(n + ', ' for n in op.saves)}= saved")
    if op.recorded:
        src.append(f"    {''.join(n + ', ' for n in op.recorded)}= self.attrs")
    grads = [f for f in op.grads if f is not None]  # one per edge
    if getattr(op, "listed", False):  # a list operand: an edge, and a gradient, per tensor
        src += ["    grad_input_mask = self.needs_input_grad",
                f"    r_ = tuple({grads[0]})",
                "    return r_ if self._casts is None else _recast(r_, self._casts)"]
        return src
    if len(grads) == 1:  # a node exists only when its one edge needs a gradient
        src += [f"    r_ = ({grads[0]},)",
                "    return r_ if self._casts is None else _recast(r_, self._casts)"]
        return src
    src.append("    nf_ = self._next")  # (a tuple: the node has several edges)
    done = set()
    joint = getattr(op, "joint", {})
    for i, f in enumerate(grads):
        if f in done:
            continue
        if f not in joint:
            src.append(f"    g{i}_ = ({f}) if nf_[{i}] is not None else None")
            continue
        # one formula for several edges: run once, for those of them that are needed
        done.add(f)
        edges = [op.edges.index(n) for n in joint[f]]  # in the formula's order
        outs = "".join(f"g{k}_, " for k in edges)
        src += ["    grad_input_mask = (" + "".join(f"nf_[{k}] is not None, " for k in edges)
                + ")",
                "    if True in grad_input_mask:",
                f"        {outs}= {f}",
                "    else:",
                f"        {outs}= {'None, ' * len(edges)}"]
    src += ["    r_ = (" + "".join(f"g{i}_, " for i in range(len(grads))) + ")",
            # operands of several dtypes (funcdef's call sets ``_casts``)
            "    return r_ if self._casts is None else _recast(r_, self._casts)"]
    return src


def _saved_as_is(op, n):
    """Whether a row's node saves formula name ``n`` as the operand tensor itself
    (``saved_input``): an operand, not an output, not optional, not in a list."""
    return (n != "result" and n in op.params and n not in op.optional
            and n not in op.outputs[:op.differentiable] and not getattr(op, "listed", False))


def _plain_saves(op):
    """Whether every tensor a row's node saves is one of its operands, saved as it is."""
    return all(_saved_as_is(op, n) for n in op.saves)


def _unpack_source(op):
    """The first lines of a row's ``_run``: what its node saved, unpacked. Nothing for a
    node that saved nothing; operands saved as they are, inline (``SavedTensor.unpack``'s
    common case: the tensor itself, unless modified in place since); else
    ``unpack_saved``."""
    if not op.saves:
        return []
    if not _plain_saves(op):
        return ["    saved = self.unpack_saved()"]
    src = ["    saved = self._saved",
           "    if saved is _FREED:",
           "        raise RuntimeError(_ERR_FREED)",
           f"    {''.join(n + ', ' for n in op.saves)}= saved"]
    for n in op.saves:
        src += [f"    t_ = {n}.t",
                f"    {n} = t_ if t_._vc[0] == {n}.version else {n}.unpack(self)"]
    return src


def _compile_backward(cls, run=False):
    """Compile ``cls.backward`` (``run``: ``cls._run``) from its row, on its first call (when
    every op a formula names is defined), in the namespace of the module that defined the
    row."""
    op = cls.op
    name = "_run" if run else "backward"
    tree = ast.parse("\n".join(_backward_source(op, run)))
    calls = _DirectCalls()
    tree = ast.fix_missing_locations(calls.visit(tree))
    free = ["_STATE", "_sum_to", "_cast", "_recast", "_A1", "_A2", "_FREED", "_ERR_FREED", "_ST", "_new",
            "_Tensor"] + sorted(calls.ops)
    outer = ast.parse(f"def _make({', '.join(free)}):\n    return {name}")
    outer.body[0].body.insert(0, tree.body[0])
    ns = {}
    # globals: the defining module's, live (a formula may name an op defined after its row)
    exec(compile(ast.fix_missing_locations(outer), f"<{cls.__name__}>", "exec"),  # noqa: S102
         op.module_globals, ns)
    env = {"_STATE": _STATE, "_sum_to": _sum_to, "_cast": _cast, "_recast": _recast,
           "_A1": apply1, "_A2": apply2,
           "_FREED": _FREED, "_ERR_FREED": ERR_FREED, "_ST": SavedTensor,
           "_new": object.__new__, "_Tensor": Tensor, **calls.ops}
    f = ns["_make"](*[env[n] for n in free])
    setattr(cls, name, f)
    return f


def _make_node(op, cls_name):
    """The node class of ``op``, named as PyTorch names it; its ``backward`` is generated
    from the derivative formulas (``_backward_source``)."""
    op.saves = _saved_names(op)

    def backward(self, saved, *grads):
        return _compile_backward(type(self))(self, saved, *grads)

    def _run(self, grad, lent):
        return _compile_backward(type(self), True)(self, grad, lent)

    ns = {"__slots__": (), "backward": backward, "_grad_once": op.grad_once, "op": op,
          "__module__": op.module_globals.get("__name__")}
    if getattr(op, "differentiable", 1) > 1:  # outputs without a gradient get None
        ns["materialize_grads"] = False
    if op.arity is not None:  # an elementwise row: the engine's inline call (``_run``)
        ns["_run"] = _run
        ns["_saved1"] = len(op.saves) == 1  # its record stores the one thing bare
        ns["_arity"] = op.arity
    elif _runs_inline(op):
        ns["_run"] = _run
    return type(cls_name, (Node,), ns)


def _runs_inline(op):
    """Whether the engine calls a non-elementwise row's node through ``_run`` (no checks of
    its result): a row of one output whose backward returns a tuple of one gradient per
    edge by construction (a list operand's count is its formula's)."""
    return op.differentiable == 1 and not op.listed


def _sum_to(g, shape):
    from .elementwise import sum_to

    return sum_to(g, shape)


def _cast(g, dt):
    """Gradient ``g`` in its operand's dtype ``dt``: an op that promoted its operands
    hands each one a gradient of its own dtype (as PyTorch's engine does)."""
    if g is None or g._dtype is dt:
        return g
    from .convert import to

    return to(g, dtype=dt)


def _recast(grads, dtypes):
    """A rule's gradients, each in its operand's dtype (``_cast``)."""
    return tuple([_cast(g, dt) for g, dt in zip(grads, dtypes)])


def _make_record(op):
    """``record(out, a[, b], bcast, extra)``: attach ``op.node`` to ``out`` with the edges
    of the inputs and what the formulas of the inputs that need a gradient read."""
    names = op.saves
    from . import _core

    env = {"_acc": grad_accumulator, "_ST": SavedTensor, "_Edge": Edge, "Tensor": Tensor,
           "node": op.node, "_new": object.__new__, "_SEQ": _core._SEQ, "_ANOMALY": _core._ANOMALY,
           "_not_saved": not_saved,
           "_remember": _core._anomaly_mode.remember}
    params = op.params

    def saver(n, i, pad):
        """Statements that set ``s<i>`` to what is saved of ``n``: saved_output's and
        saved_input's stores, inline (a frame less on every recorded op)."""
        if n == "result":
            lines = ["s_ = _new(_ST)",
                     "vc_ = s_.vc = out._vc",
                     "s_.version = vc_[0]",
                     "s_.t = None",
                     "s_.data = out._data",
                     "s_.dtype = out._dtype",
                     "s_.device = out._device",
                     "s_.sk = out._sk",
                     "s_.output_nr = out._output_nr",
                     "s_.rg = True",
                     f"s{i} = s_"]
        else:
            v = "a" if n == params[0] else "b"
            lines = [f"if {v}.__class__ is Tensor:",
                     f"    if {v}._vc.__class__ is not list:",
                     "        _not_saved()",
                     "    s_ = _new(_ST)",
                     f"    s_.version = {v}._vc[0]",
                     f"    s_.t = {v}",
                     "    s_.data = None",
                     f"    s{i} = s_",
                     "else:",
                     f"    s{i} = {v}"]
        return [pad + line for line in lines]

    # _core.attach's stores, inline: one frame less on every recorded op
    attach = ["    node_ = _new(node)",
              "    node_._next = edges",
              "    node_._saved = sv",
              "    node_._seq = next(_SEQ)",
              "    node_.attrs = at",
              "    if _ANOMALY[0]:",
              "        _remember(node_)",
              "    out._grad_fn = node_",
              "    out._rg = True",
              "    return node_"]

    if op.arity == 1:
        # (the edge items of Node._next: the producer itself for its output 0)
        src = ["def record(out, a, bcast=False, extra=None):",
               "    fn = a._grad_fn",
               "    edges = " + EDGE_ITEM.format(p="a")]
        for i, n in enumerate(names):
            src += saver(n, i, "    ")
        src += [f"    sv = {_saved_tuple(names)}", "    at = None"]
        src += attach
    else:
        src = ["def record(out, a, b, bcast=False, extra=None):"]
        for v in "ab":
            src += [f"    if {v}.__class__ is Tensor and ({v}._grad_fn is not None or {v}._rg):",
                    f"        fn = {v}._grad_fn",
                    f"        e{v} = " + EDGE_ITEM.format(p=v),
                    f"        r{v} = True",
                    "    else:",
                    f"        e{v} = None",
                    f"        r{v} = False"]
        for i, n in enumerate(names):
            conds = [("ra" if j == 0 else "rb") for j, f in enumerate(op.grads)
                     if f is not None and n in _reads(f, op)]
            src.append(f"    if {' or '.join(conds)}:")
            src += saver(n, i, "        ")
            src += ["    else:", f"        s{i} = None"]
        src.append(f"    sv = {_saved_tuple(names)}")
        defaults = tuple(op.kwargs.values())
        env["_DEFAULTS"] = defaults
        # ``bcast``: the operands differ in shape or dtype (the rare case: a node that
        # undoes broadcasting or promotion in its backward)
        src += ["    if bcast or (extra is not None and extra != _DEFAULTS):",
                "        at = (_shape(a), _shape(b)) + (extra if extra is not None else _DEFAULTS)",
                "        if (a.__class__ is Tensor and b.__class__ is Tensor",
                "                and a._dtype is not b._dtype):",
                "            at += (a._dtype, b._dtype)",
                "    else:",
                "        at = None",
                # the first operand's edge alone is kept bare (a tuple less: y * 2.0)
                "    edges = ea if eb is None else (ea, eb)"] + attach
        env["_shape"] = _shape
    exec("\n".join(src), env)  # noqa: S102
    return env["record"]


def _saved_tuple(names):
    """What a row's record stores as ``_saved`` for saved values ``s0``, ``s1``, ...: one
    of them bare (the node's ``_saved1``), else their tuple."""
    if len(names) == 1:
        return "s0"
    return "(" + "".join(f"s{i}, " for i in range(len(names))) + ")"


def _shape(x):
    return x._data.shape if x.__class__ is Tensor else ()
