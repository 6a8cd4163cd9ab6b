"""Rows for ops that are not elementwise: ``FuncDef`` and its table.

A ``FuncDef`` is one overload of an op whose forward is a function on whole arrays rather
than one per-element body: a reduction, a statistic, softmax along a dim, a backward step
(PyTorch's ``sum`` and ``sum.dim_IntList`` are two rows, with nodes ``SumBackward0`` and
``SumBackward1``). It is said declaratively: its tensor operands, its forward (a function
from the operands' arrays and the overload's arguments to the output array(s), running
kernels of the kernel table by name), its dtype and shape rules, its derivative formulas in
nbgrad ops, and its public surface. The node class, its ``backward`` and what it saves come
from the formula compiler of ``ops/nodegen.py``, the same one that makes the elementwise
nodes: a row is all a compiler needs to know of the op.

The row's public function (``front``) parses PyTorch's arguments (overloads, ``dim`` as an
int or a tuple, error messages) and calls the row with the normalized arguments;
``op(input, *args)`` then runs the forward and records the node.
"""

import sys

from .. import dtypes as _dt
from ..autograd import graph as _graph
from ..autograd.grad_mode import ACTIVE as _INFER
from ..autograd.grad_mode import STATE as _STATE
from ..autograd.grad_mode import version_counter as _version_counter
from ..autograd.graph import Edge, SavedTensor, grad_accumulator, saved_input, saved_output
from ..autograd.graph import not_saved as _not_saved
from ..storage.layout import _LOW_CHARS, copy_data
from ..tensor import Tensor, _fresh
from . import _core
from .nodegen import EDGE_ITEM, _make_node, _reads, _saved_as_is
from .opdef import _camel

# a name a formula may read, beyond the row's operands, arguments and outputs: what is saved
# of operand ``p`` for ``p + suffix``: PyTorch's name of it (``grad_fn._saved_<name>``) and
# its expression in the generated call
_DERIVED = {"_shape": ("_sym_sizes", "{}._data.shape"),
            "_numel": ("_sym_numel", "{}._data.size"),
            "_dtype": ("_dtype", "{}._dtype"),
            "_device": ("_device", "{}._device")}
_TORCH_PARAM = {"input": "self"}


class FuncDef:
    """One overload of an op that is not elementwise (a reduction, a statistic, a row op).

    Args:
        name: the public name (``nbgrad.<name>``); several overloads share it.
        overload: PyTorch's overload name (``"dim_IntList"``), ``""`` for the plain one.
        params: the tensor operands' names, PyTorch's (``("input",)``, the default, or
            ``("grad_output", "output")``); the first one's device is the op's.
        optional: those of ``params`` that may be None (an absent weight): the forward and
            the rules get None for them, and they get no edge.
        kernels: the kernel table names the forward runs (for each device; a compiler's
            list of what the op launches).
        forward: ``forward(*arrays, odt, device, *args)``: the output array (or a tuple of
            them, one per name in ``outputs``) from the operands' storage arrays (one per
            name in ``params``, any layout), the output dtype and the overload's arguments.
            Arrays in, arrays out: no Tensor, no graph.
        dtype: ``dtype(*dtypes, *args)``: the output's dtype (a tuple of them for several
            outputs) from the operands' dtypes; raises PyTorch's error for a dtype the op
            refuses.
        shape: ``shape(*shapes, *args)``: every output's shape from the operands' shapes,
            known without running.
        args: the names of the overload's arguments, in the order the front passes them
            normalized (``("dim", "keepdim", "dtype")``); the node records those its
            formulas read (as attrs), and the formulas read them by these names.
        outputs: the outputs' names; the first ``differentiable`` of them get the node
            (the first is ``result``; PyTorch's ``result1``, ``indices`` name others), and
            any may be saved. A forward may return None for an output it was told to skip.
        differentiable: how many leading outputs are differentiable (default 1); with
            more than one, the formulas read ``grads`` (one incoming gradient per output,
            None where none came) rather than ``grad``.
        grads: one derivative formula per operand (None: not differentiable, no edge;
            the formula ``"None"``: an edge that gets no gradient), in nbgrad ops of
            ``grad``, the operands' names, the outputs, the arguments and
            ``<operand>_shape`` / ``<operand>_numel`` / ``<operand>_dtype`` /
            ``<operand>_device`` (its sizes, element count, dtype or device, kept instead
            of the operand); other names resolve in the module of the row. Or, as
            PyTorch's derivatives.yaml, a dict from operand names to formulas, where one
            formula may give several operands' gradients as a tuple (key ``"input, weight,
            bias"``) and reads ``grad_input_mask``, which of them are needed. The node saves
            what the formulas read and has one edge per operand with a formula.
        torch_names: PyTorch's names of operands (or saved outputs) whose name differs
            (``{"input": "self"}``, the default), for ``grad_fn._saved_<name>``.
        node: the node class name (PyTorch's: ``SumBackward1``; default
            ``<Name>Backward0``).
        listed: the row's one operand is a list of tensors (PyTorch's ``Tensor[]``, as
            ``cat``'s): the forward gets a list of arrays, the dtype rule a list of dtypes,
            the shape rule a list of shapes, and the node an edge per tensor; its formula
            returns one gradient per tensor (None where ``grad_input_mask`` says none is
            needed) and may read ``<operand>_shape``, the tensors' sizes.
        inplace: an in-place op (PyTorch's ``fill_``, ``index_put_``): the forward writes
            into its first operand's array, whose version the call bumps; the first operand
            is the output and takes the node as its new history (edges to its old one).
            The front checks that the write is allowed (``ops/inplace.check_inplace``).
        multi: the forward returns a list of arrays, one output each, their number known
            only at the call (PyTorch's ``Tensor[]`` result, as ``split``'s): the row
            returns a tuple of tensors, one node for all of them, and its formula reads
            ``grads`` (one per output, None where none came).
        device: for a row whose output lives on another device than its first operand (a
            copy across devices), the name of the argument that holds the output's device.
        view: for a row whose output is a view of its first operand's storage (PyTorch's
            view ops: ``view``, ``permute``, ``expand``, basic indexing), the function that
            makes the output tensor from that operand and the forward's array, sharing its
            version counter and base (``ops/shape._view``); None (the default): the output
            is a new tensor on the forward's fresh array.
        fn, method, functional: the public surface (``nbgrad.<name>``, ``Tensor.<name>``,
            ``nn.functional.<name>``); ``front`` is that function, set by ``surface``.
    """

    __slots__ = ("name", "generated", "overload", "kernels", "forward", "dtype", "shape", "args", "outputs",
                 "grads", "params", "optional", "kwargs", "values", "arity", "saves", "node",
                 "grad_once", "fn", "method", "functional", "front", "module_globals",
                 "recorded", "call", "joint", "differentiable", "torch_names", "view",
                 "device", "listed", "multi", "inplace")

    def __init__(self, name, *, overload="", params=("input",), optional=(), kernels=(),
                 forward, dtype, shape, args=(), outputs=("result",), differentiable=1,
                 grads=None, node=None, torch_names=None, view=None, device=None,
                 listed=False, multi=False, inplace=False, fn=True, method=True,
                 functional=False, module_globals=None):
        self.name, self.overload, self.kernels = name, overload, tuple(kernels)
        self.view, self.device, self.listed, self.multi = view, device, listed, multi
        self.inplace = inplace
        if multi:  # every output differentiable, their gradients as ``grads``
            differentiable = 2
        if listed and len(params) != 1:
            raise ValueError(f"{name}: a list operand must be the row's only operand")
        self.forward, self.dtype, self.shape = forward, dtype, shape
        self.args, self.outputs = tuple(args), tuple(outputs)
        self.differentiable = differentiable
        self.params, self.optional = tuple(params), tuple(optional)
        self.torch_names = _TORCH_PARAM if torch_names is None else torch_names
        self.joint = {}  # formula -> the operands it gives gradients of, for a shared one
        if isinstance(grads, dict):
            per = dict.fromkeys(self.params)
            for key, f in grads.items():
                names = tuple(n.strip() for n in key.split(","))
                for n in names:
                    per[n] = f
                if len(names) > 1:
                    self.joint[f] = names
            grads = tuple(per.values())
        if grads is not None and differentiable == 1 and "grad" in self.params:
            raise ValueError(f"{name}: an operand named 'grad' would hide the incoming "
                             "gradient from the formulas (name it grad_output)")
        self.kwargs = dict.fromkeys(self.args)  # the formula compiler's name for arguments
        derivable = tuple(p + d for p in self.params for d in _DERIVED)
        # names a formula may read and save, beyond ``result`` and the operands
        self.values = tuple(n for n in self.outputs if n != "result") + derivable
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
        self.call = self._first_call  # generated on first use (see _first_call)
        self.generated = None

    @property
    def qualname(self):
        return self.name + ("." + self.overload if self.overload else "")

    def __repr__(self):
        return f"FuncDef({self.qualname!r})"

    @property
    def edges(self):
        """The operands that get an edge (those with a formula), in order."""
        return tuple(p for p, f in zip(self.params, self.grads or ()) if f is not None)

    def _first_call(self, *operands_and_args):
        """``call`` until the row first runs: generates the row's call (``_make_call``),
        keeps it as ``call`` and runs it. Generating every row's call at import took ~14 ms
        of ``import nbgrad``; a program runs a few of them."""
        self.call = self.generated_call()
        return self.call(*operands_and_args)

    def generated_call(self):
        """The row's generated call (``_make_call``), made on first use. (The compiler's
        tracer replaces ``call`` with a recording wrapper while it traces, and calls this.)"""
        if self.generated is None:
            self.generated = _make_call(self)
        return self.generated

    def __call__(self, *operands_and_args):
        """Run the overload on its Tensor operands (None for an absent optional one) and
        normalized arguments and record its node; the output tensor, or a tuple of them for
        several outputs (``op.call``, generated from the row, is the same without this
        frame)."""
        return self.call(*operands_and_args)


def _saver(op, name):
    """The expression of what the node saves for formula name ``name`` (the generated
    call's names: the operands', ``out``, ``outs``)."""
    if name == "result" or op.outputs == (name,):  # (a lone output, named as PyTorch does)
        return "_so(out)"
    if name in op.outputs[:op.differentiable]:  # an output with the node: no cycle
        return f"_so(outs[{op.outputs.index(name)}])"
    if name in op.optional:
        return f"(None if {name} is None else _si({name}))"
    if name in op.params:
        return f"_si({name})"
    if name in op.outputs:  # another output (indices): not differentiable, no cycle
        return f"_si(outs[{op.outputs.index(name)}])"
    for suffix, (_, expr) in _DERIVED.items():
        if name.endswith(suffix):
            p = name[: -len(suffix)]
            if op.listed:
                return f"tuple({expr.format('t_')} for t_ in {p})"
            return f"(None if {p} is None else {expr.format(p)})" if p in op.optional \
                else expr.format(p)
    raise AssertionError(name)


def _new_node(op, pad, edges):
    """Source lines that make the node ``node_`` with ``edges`` (an expression) and the
    arguments it records."""
    at = list(op.kwargs) + [_saver(op, n) for n in op.recorded[len(op.kwargs):]]
    return [pad + line for line in (
        "node_ = _new(_node)",
        f"node_._next = {edges}",
        "node_._seq = next(_SEQ)",
        "node_.attrs = (" + "".join(a + ", " for a in at) + ")",
        "if _ANOMALY[0]:",
        "    _remember(node_)")]


def _saved_lines(op, pad):
    """The lines that set ``node_._saved``, saved last (a saved output keeps its
    output_nr); an operand saved as it is gets ``saved_input``'s stores inline (a frame
    less per saved operand of every recorded call)."""
    lines, names = [], []
    for i, n in enumerate(op.saves):
        if _saved_as_is(op, n):
            lines += [f"if {n}._vc.__class__ is not list:",
                      "    _not_saved()",
                      f"s{i}_ = _new(_ST)",
                      f"s{i}_.version = {n}._vc[0]",
                      f"s{i}_.t = {n}",
                      f"s{i}_.data = None"]
            names.append(f"s{i}_")
        else:
            names.append(_saver(op, n))
    lines.append("node_._saved = (" + "".join(e + ", " for e in names) + ")")
    return [pad + line for line in lines]


def _fresh_lines(pad, dev):
    """``out = _fresh(data, odt, dev)``, its stores inline (a frame less on every call)."""
    return [pad + line for line in (
        "outs = out = _new(_Tensor)",
        "out._data = data",
        "out._dtype = odt",
        f"out._device = {dev}",
        "out._rg = False",
        "out._grad = None",
        "out._grad_fn = None",
        "out._output_nr = 0",
        "out._vc = [0] if not _INFER[0] else _version_counter()",
        "out._base = None",
        "out._hooks = None",
        "out._acc = None",
        "out._retains_grad = False",
        "out._sk = None",
        "out._owner = _graph.OWNER")]


def _low_test(op):
    """The generated test that some operand of ``op`` is float16 or bfloat16 (the row's
    forward then runs through ``_low_forward``), or None for a view (a view of a 16-bit
    array is one, and copies nothing)."""
    if op.view is not None:
        return None
    if op.listed:
        return f"any([t_._dtype.low for t_ in {op.params[0]}])"
    opt = set(op.optional)
    return " or ".join(f"({p} is not None and {p}._dtype.low)" if p in opt else f"{p}._dtype.low"
                       for p in op.params)


def _low_forward(op):
    """Row ``op``'s forward for operands of which some are float16 or bfloat16, which no
    kernel takes: they are widened to float32 (PyTorch's "opmath" type on the CPU), the
    forward computes in float32, and each output the dtype rule makes 16-bit is rounded
    back once (an in-place row's into its operand's own storage)."""
    n = 1 if op.listed else len(op.params)
    forward, listed, inplace = op.forward, op.listed, op.inplace

    def wide(a, dev):
        return a if a is None or a.dtype.char not in _LOW_CHARS else copy_data(a, _dt.float32, dev)

    def narrow(out, odt, dev):
        return out if out is None or not odt.low else copy_data(out, odt, dev)

    def run(*a):
        arrays, odt, dev, args = a[:n], a[n], a[n + 1], a[n + 2:]
        if listed:
            up = ([wide(x, dev) for x in arrays[0]],)
        else:
            up = [wide(x, dev) for x in arrays]
        multi = isinstance(odt, tuple)
        odt32 = (tuple(_dt.float32 if d is not None and d.low else d for d in odt) if multi
                 else _dt.float32 if odt.low else odt)
        # (a dtype argument, a compute dtype such as clamp_grad's, is widened too)
        args = [_dt.float32 if isinstance(a, _dt.dtype) and a.low else a for a in args]
        out = forward(*up, odt32, dev, *args)
        if inplace:
            copy_data(up[0], _dt.from_numpy_dtype(arrays[0].dtype), dev, out=arrays[0])
            return arrays[0]
        if multi:
            return tuple(narrow(o, d, dev) for o, d in zip(out, odt))
        if isinstance(out, (list, tuple)):  # a row with a list of outputs (split, unbind)
            return out.__class__(narrow(o, odt, dev) for o in out)
        return narrow(out, odt, dev)

    return run


def _compile_call(op, src):
    test = _low_test(op)
    if test is not None:
        src = [line.replace("data = _forward(", f"data = (_low if {test} else _forward)(", 1)
               for line in src]
    env = {"_dtype": op.dtype, "_forward": op.forward, "_fresh": _fresh, "_STATE": _STATE,
           "_low": _low_forward(op),
           "_new": object.__new__, "_node": op.node, "_acc": grad_accumulator,
           "_SEQ": _core._SEQ, "_ANOMALY": _core._ANOMALY,
           "_remember": _core._anomaly_mode.remember, "_si": saved_input,
           "_so": saved_output, "_Edge": Edge, "_view": op.view, "_ST": SavedTensor,
           "_Tensor": Tensor, "_graph": _graph, "_INFER": _INFER,
           "_version_counter": _version_counter, "_not_saved": _not_saved}
    exec("\n".join(src), env)  # noqa: S102
    return env["call"]


def _make_call(op):
    """The row's call, generated from it: the dtype rule and the forward on the operands'
    storage, the output tensor(s), and (when grad mode is on and an operand with a formula
    requires grad) the node, its edges, what it saves and the arguments it records, all
    inline: a reduction costs a call of its front and of this, not a frame per step."""
    ps = op.params
    opt = set(op.optional)

    def attr(p, a):
        return f"(None if {p} is None else {p}.{a})" if p in opt else f"{p}.{a}"

    args = "".join(", " + a for a in op.args)
    first = ps[0]
    if op.listed:
        return _make_listed_call(op, args)
    if op.multi:
        return _make_multi_call(op, args)
    src = [f"def call({', '.join(ps)}{args}):",
           f"    dev = {first}._device",
           # (a row whose output has its first operand's dtype reads it: no call)
           f"    odt = {attr(first, '_dtype')}" if op.dtype is same_dtype else
           f"    odt = _dtype({''.join(attr(p, '_dtype') + ', ' for p in ps)}{args[2:]})",
           f"    data = _forward({''.join(attr(p, '_data') + ', ' for p in ps)}odt, dev{args})"]
    if len(op.outputs) > 1:
        src += ["    outs = (" + "".join(
                    f"None if data[{i}] is None else _fresh(data[{i}], odt[{i}], dev), "
                    for i in range(len(op.outputs))) + ")",
                "    out = outs[0]",
                "    cat = odt[0]._cat"]
    elif op.inplace:
        src += [f"    {first}._vc[0] += 1",
                f"    outs = out = {first}",
                "    cat = odt._cat"]
    elif op.view is not None:
        src += [f"    outs = out = _view({first}, data)",
                "    cat = odt._cat"]
    else:
        src += _fresh_lines("    ", op.device or "dev") + ["    cat = odt._cat"]
    if op.node is not None:
        edged = op.edges
        rg = [f"({p} is not None and {p}._rg)" if p in opt else f"{p}._rg" for p in edged]
        src += [f"    if _STATE.enabled and ({' or '.join(rg)}) and cat == 2:"]
        if len(edged) == 1 and edged[0] not in opt:  # the one edge's operand requires grad
            p = edged[0]
            src += [f"        fn = {p}._grad_fn",
                    f"        e0 = {EDGE_ITEM.format(p=p)}"]
            edged_ifs = ()
        else:
            edged_ifs = edged
        for i, p in enumerate(edged_ifs):
            src += [f"        if {'' if p not in opt else p + ' is not None and '}{p}._rg:",
                    f"            fn = {p}._grad_fn",
                    f"            e{i} = {EDGE_ITEM.format(p=p)}",
                    "        else:",
                    f"            e{i} = None"]
        src += _new_node(op, "        ", "e0" if len(edged) == 1 else
                         "(" + "".join(f"e{i}, " for i in range(len(edged))) + ")")
        if len(edged) > 1:  # operands of several dtypes: each gets a gradient of its own
            d0 = attr(edged[0], "_dtype")
            differ = " or ".join(
                f"({p} is not None and {p}._dtype is not {d0})" if p in opt else
                f"{p}._dtype is not {d0}" for p in edged[1:])
            src += [f"        if {differ}:",
                    "            node_._casts = (" + "".join(
                        attr(p, "_dtype") + ", " for p in edged) + ")"]
        elif op.dtype is not same_dtype and not op.inplace:
            # an output of another dtype (``sum(x, dtype=...)``): the gradient goes back in
            # the operand's, as PyTorch's engine casts it to the input's metadata
            d = "odt[0]" if len(op.outputs) > 1 else "odt"
            src += [f"        if {edged[0]}._dtype is not {d}:",
                    f"            node_._casts = ({edged[0]}._dtype,)"]
        if op.differentiable == 1:
            src += ["        out._grad_fn = node_",
                    "        out._rg = True"]
            if op.inplace:  # a new history: its own output 0, no retained gradient
                src += ["        out._output_nr = 0",
                        "        out._retains_grad = False"]
        else:  # each output its own output_nr (an absent one never gets a gradient)
            src += [f"        node_._n_out = {op.differentiable}",
                    "        node_._hooked = True"]  # (the engine's path for several outputs)
            for i in range(op.differentiable):
                src += [f"        o_ = outs[{i}]",
                        "        if o_ is not None:",
                        "            o_._grad_fn = node_",
                        f"            o_._output_nr = {i}",
                        "            o_._rg = True"]
        src += _saved_lines(op, "        ")
    src.append("    return outs")
    return _compile_call(op, src)


def _one_operand_head(op, args):
    """The first lines of the call of a row with one operand (a list of tensors when
    ``op.listed``): its device, the dtype rule and the forward."""
    p = op.params[0]
    if op.listed:
        dev, of = f"{p}[0]._device", (lambda a: f"[t_.{a} for t_ in {p}]")
    else:
        dev, of = f"{p}._device", (lambda a: f"{p}.{a}")
    return p, [f"def call({p}{args}):",
               f"    dev = {dev}",
               f"    odt = _dtype({of('_dtype')}{args})",
               f"    data = _forward({of('_data')}, odt, dev{args})"]


def _make_listed_call(op, args):
    """``_make_call`` for a row whose operand is a list of tensors: an edge per tensor."""
    p, src = _one_operand_head(op, args)
    src.append("    out = _fresh(data, odt, dev)")
    if op.node is not None:
        src += ["    if _STATE.enabled and odt._cat == 2:",
                "        edges = []",
                "        rg = False",
                f"        for t_ in {p}:",
                "            fn = t_._grad_fn",
                "            if fn is not None or t_._rg:",
                f"                edges.append({EDGE_ITEM.format(p='t_')})",
                "                rg = True",
                "            else:",
                "                edges.append(None)",
                "        if rg:"]
        src += _new_node(op, "            ", "edges[0] if len(edges) == 1 else tuple(edges)")
        src += [f"            if any(t_._dtype is not odt for t_ in {p}):",  # (see above)
                f"                node_._casts = tuple([t_._dtype for t_ in {p}])"]
        src += ["            out._grad_fn = node_",
                "            out._rg = True"] + _saved_lines(op, "            ")
    src.append("    return out")
    return _compile_call(op, src)


def _make_multi_call(op, args):
    """``_make_call`` for a row with a list of outputs: one node, an output_nr each."""
    p, src = _one_operand_head(op, args)
    src.append("    outs = tuple(" + (f"_view({p}, d_)" if op.view is not None
                                      else "_fresh(d_, odt, dev)") + " for d_ in data)")
    if op.node is not None:
        src += [f"    if _STATE.enabled and {p}._rg and odt._cat == 2:",
                f"        fn = {p}._grad_fn",
                f"        e0 = {EDGE_ITEM.format(p=p)}"]
        src += _new_node(op, "        ", "e0")
        src += ["        node_._n_out = len(outs)",
                "        node_._hooked = True",
                "        for i_, o_ in enumerate(outs):",
                "            o_._grad_fn = node_",
                "            o_._output_nr = i_",
                "            o_._rg = True"] + _saved_lines(op, "        ")
    src.append("    return outs")
    return _compile_call(op, src)


def _expose_saved(op):
    """``grad_fn._saved_<name>`` with PyTorch's names (``_saved_self``, ``_saved_dim``,
    ``_saved_self_sym_sizes``): what the node saved and the arguments it recorded."""
    cls = op.node
    def torch_name(n):
        for p in op.params:
            tp = op.torch_names.get(p, p)
            if n == p:
                return tp
            for suffix, (tsuffix, _) in _DERIVED.items():
                if n == p + suffix:
                    return tp + tsuffix
        return op.torch_names.get(n, n)  # (an output saved under PyTorch's operand name)

    for i, n in enumerate(op.saves):
        setattr(cls, "_saved_" + torch_name(n), property(lambda self, i=i: self.unpack_saved()[i]))
    for i, n in enumerate(op.recorded):
        setattr(cls, "_saved_" + torch_name(n), property(lambda self, i=i: self.attrs[i]))


# ----- rules many rows share ------------------------------------------------------------
def same_dtype(dt, *rest):
    """Dtype rule of a row whose output has its first operand's dtype."""
    return dt


def same_shape(shape, *rest):
    """Shape rule of a row whose output has its first operand's shape."""
    return tuple(shape)


# ----- the table and the public surface ------------------------------------------------
TABLE = {}  # qualname ("sum.dim_IntList") -> FuncDef, in definition order


def deffunc(name, **kw):
    """Define one overload of op ``name`` (see ``FuncDef``), add it to the table and
    return it."""
    kw.setdefault("module_globals", sys._getframe(1).f_globals)
    op = FuncDef(name, **kw)
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
