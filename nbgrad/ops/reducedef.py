"""Rows for ops that are not elementwise: ``ReduceDef`` and its table.

A ``ReduceDef`` is one overload of an op (PyTorch's ``sum`` and ``sum.dim_IntList`` are two
rows, with nodes ``SumBackward0`` and ``SumBackward1``), said declaratively: its forward (a
function from input arrays and the overload's arguments to the output array(s), running
kernels of the kernel table by name), its dtype and shape rules, its derivative formulas in
nbgrad ops, and its public surface. The node class, its ``backward`` and what it saves come
from the formula compiler of ``ops/opdef.py``, the same one that makes the elementwise
nodes: a row is all a compiler needs to know of the op.

The row's public function (``front``) parses PyTorch's arguments (overloads, ``dim`` as an
int or a tuple, error messages) and calls the row with the normalized arguments;
``op(input, *args)`` then runs the forward and records the node.
"""

import sys

from ..autograd.grad_mode import STATE as _STATE
from ..autograd.graph import grad_accumulator, saved_input, saved_output
from ..tensor import _fresh
from . import _core
from .opdef import _camel, _make_node, _reads

# a name a formula may read, beyond the row's operands, arguments and outputs: what is saved
# of operand ``p`` for ``p + suffix``: PyTorch's name of it (``grad_fn._saved_<name>``) and
# its expression in the generated call
_DERIVED = {"_shape": ("_sym_sizes", "{}._data.shape"),
            "_numel": ("_sym_numel", "{}._data.size")}
_TORCH_PARAM = {"input": "self"}


class ReduceDef:
    """One overload of an op that is not elementwise (a reduction, a statistic).

    Args:
        name: the public name (``nbgrad.<name>``); several overloads share it.
        overload: PyTorch's overload name (``"dim_IntList"``), ``""`` for the plain one.
        kernels: the kernel table names the forward runs (for each device; a compiler's
            list of what the op launches).
        forward: ``forward(x, odt, device, *args)``: the output array (or a tuple of them,
            one per name in ``outputs``) from the input's storage ``x``, the output dtype
            and the overload's arguments. Arrays in, arrays out: no Tensor, no graph.
        dtype: ``dtype(input_dtype, *args)``: the output's dtype (a tuple of them for
            several outputs); raises PyTorch's error for a dtype the op refuses.
        shape: ``shape(input_shape, *args)``: every output's shape, known without running.
        args: the names of the overload's arguments, in the order the front passes them
            normalized (``("dim", "keepdim", "dtype")``); the node records those its
            formulas read (as attrs), and the formulas read them by these names.
        outputs: the outputs' names; the first is the differentiable one (``result``),
            the others (``indices``) may be saved.
        grads: one derivative formula per input (None: not differentiable), in nbgrad ops
            of ``grad``, the operand name (``input``), the outputs, the arguments and
            ``input_shape`` / ``input_numel`` (the input's sizes or element count, saved
            instead of the input); other names resolve in the module of the row. The node
            saves what the formula reads, as PyTorch's derivatives.yaml.
        node: the node class name (PyTorch's: ``SumBackward1``; default
            ``<Name>Backward0``).
        fn, method, functional: the public surface (``nbgrad.<name>``, ``Tensor.<name>``,
            ``nn.functional.<name>``); ``front`` is that function, set by ``surface``.
    """

    __slots__ = ("name", "overload", "kernels", "forward", "dtype", "shape", "args", "outputs",
                 "grads", "params", "kwargs", "values", "arity", "saves", "node", "grad_once",
                 "fn", "method", "functional", "front", "module_globals",
                 "recorded", "call")

    def __init__(self, name, *, overload="", kernels=(), forward, dtype, shape, args=(),
                 outputs=("result",), grads=None, node=None, fn=True, method=True,
                 functional=False, module_globals=None):
        self.name, self.overload, self.kernels = name, overload, tuple(kernels)
        self.forward, self.dtype, self.shape = forward, dtype, shape
        self.args, self.outputs = tuple(args), tuple(outputs)
        self.params = ("input",)
        self.kwargs = dict.fromkeys(self.args)  # the formula compiler's name for arguments
        derivable = tuple(p + d for p in self.params for d in _DERIVED)
        self.values = self.outputs[1:] + derivable  # names a formula may read and save
        self.arity = None  # not elementwise: opdef's general backward source
        self.grads = grads
        self.grad_once = False
        self.fn, self.method, self.functional = fn, method, functional
        self.front = None
        self.module_globals = module_globals if module_globals is not None else globals()
        self.node = None
        self.saves = ()
        self.recorded = ()
        if grads is not None:
            # the node records the arguments the formulas read (as PyTorch saves them)
            read = {n for f in grads if f is not None for n in _reads(f, self)}
            self.kwargs = dict.fromkeys(a for a in self.args if a in read)
            self.node = _make_node(self, node or _camel(name) + "Backward0")
            # sizes and counts are no tensors: attrs (kept after backward frees the saved
            # tensors, as PyTorch keeps ``_saved_self_sym_sizes``), after the arguments
            derived = tuple(n for n in self.saves if n in derivable)
            self.saves = tuple(n for n in self.saves if n not in derived)
            self.recorded = tuple(self.kwargs) + derived
            _expose_saved(self)
        self.call = _make_call(self)

    @property
    def qualname(self):
        return self.name + ("." + self.overload if self.overload else "")

    def __repr__(self):
        return f"ReduceDef({self.qualname!r})"

    def __call__(self, input, *args):
        """Run the overload on Tensor ``input`` with normalized ``args`` and record its node;
        the output tensor, or a tuple of them for several outputs (``op.call``, generated
        from the row, is the same without this frame)."""
        return self.call(input, *args)


def _saver(op, name):
    """The expression of what the node saves for formula name ``name`` (the generated
    call's names: ``input``, ``out``, ``outs``)."""
    if name == "result":
        return "_so(out)"
    if name in op.params:
        return f"_si({name})"
    if name in op.outputs:  # another output (indices): not differentiable, no cycle
        return f"_si(outs[{op.outputs.index(name)}])"
    for suffix, (_, expr) in _DERIVED.items():
        if name.endswith(suffix):
            return expr.format(name[: -len(suffix)])
    raise AssertionError(name)


def _make_call(op):
    """The row's call, generated from it: the dtype rule and the forward on the input's
    storage, the output tensor(s), and (when grad mode is on and the input requires grad)
    the node, its edge, what it saves and the arguments it records, all inline: a
    reduction costs a call of its front and of this, not a frame per step."""
    args = "".join(", " + a for a in op.args)
    src = [f"def call(input{args}):",
           "    dev = input._device",
           f"    odt = _dtype(input._dtype{args})",
           f"    data = _forward(input._data, odt, dev{args})"]
    if len(op.outputs) > 1:
        src += ["    outs = (" + "".join(f"_fresh(data[{i}], odt[{i}], dev), "
                                        for i in range(len(op.outputs))) + ")",
                "    out = outs[0]"]
    else:
        src += ["    outs = out = _fresh(data, odt, dev)"]
    if op.node is not None:
        at = [a for a in op.kwargs] + [_saver(op, n) for n in op.recorded[len(op.kwargs):]]
        src += ["    if _STATE.enabled and input._rg and out._dtype._cat == 2:",
                "        fn = input._grad_fn",
                "        node_ = _new(_node)",
                "        node_.next_functions = ((fn, input._output_nr) if fn is not None "
                "else (_acc(input), 0),)",
                "        node_._saved = (" + "".join(_saver(op, n) + ", " for n in op.saves) + ")",
                "        node_._seq = next(_SEQ)",
                "        node_.attrs = (" + "".join(a + ", " for a in at) + ")",
                "        if _ANOMALY[0]:",
                "            _remember(node_)",
                "        out._grad_fn = node_",
                "        out._rg = True"]
    src.append("    return outs")
    env = {"_dtype": op.dtype, "_forward": op.forward, "_fresh": _fresh, "_STATE": _STATE,
           "_new": object.__new__, "_node": op.node, "_acc": grad_accumulator,
           "_SEQ": _core._SEQ, "_ANOMALY": _core._ANOMALY,
           "_remember": _core._anomaly_mode.remember, "_si": saved_input,
           "_so": saved_output}
    exec("\n".join(src), env)  # noqa: S102
    return env["call"]


def _expose_saved(op):
    """``grad_fn._saved_<name>`` with PyTorch's names (``_saved_self``, ``_saved_dim``,
    ``_saved_self_sym_sizes``): what the node saved and the arguments it recorded."""
    cls = op.node
    def torch_name(n):
        for p, tp in _TORCH_PARAM.items():
            if n == p:
                return tp
            for suffix, (tsuffix, _) in _DERIVED.items():
                if n == p + suffix:
                    return tp + tsuffix
        return n

    for i, n in enumerate(op.saves):
        setattr(cls, "_saved_" + torch_name(n), property(lambda self, i=i: self.unpack_saved()[i]))
    for i, n in enumerate(op.recorded):
        setattr(cls, "_saved_" + torch_name(n), property(lambda self, i=i: self.attrs[i]))


# ----- the table and the public surface ------------------------------------------------
TABLE = {}  # qualname ("sum.dim_IntList") -> ReduceDef, in definition order


def defreduce(name, **kw):
    """Define one overload of op ``name`` (see ``ReduceDef``), add it to the table and
    return it."""
    kw.setdefault("module_globals", sys._getframe(1).f_globals)
    op = ReduceDef(name, **kw)
    TABLE[op.qualname] = op
    return op


def surface(*ops):
    """Decorator: the function is the public front of the overloads ``ops`` (it parses
    PyTorch's arguments and calls one of them)."""
    def deco(fn):
        for op in ops:
            op.front = fn
        fn.ops = ops
        return fn

    return deco


def public(flag):
    """``{name: front}`` of the rows with surface flag ``flag`` (``"fn"``, ``"method"``,
    ``"functional"``)."""
    return {op.name: op.front for op in TABLE.values() if getattr(op, flag)}
