"""Fused elementwise kernels: a straight-line program of elementwise op table rows, turned
into one loop over the elements (serial and ``parallel=True`` on the CPU, grid-stride on
CUDA) that reads each input once and writes each output once.

A ``Program`` is built step by step: its inputs (arrays of the region's shape, one-value
arrays read as a value, Python numbers passed as arguments so that a new value does not
recompile), the rows applied to them (``ops/opdef.py``'s ``TABLE``), and which values leave
the kernel. Each step computes as eager does, so a fused result equals eager's bit for bit:
a unary row casts its operand to its output dtype and calls the row's body; a binary row
casts both operands to the promoted dtype (the output dtype for rows that always give
floats), calls the body and casts the result to the output dtype, the cast eager's store
into the output array makes. The CPU loops call each row's ``cpu_body`` and CUDA's its
``body``, the same functions eager's loops call.

The generated source goes to ``NBGRAD_CACHE_DIR`` when the kernel cache is on and every
body can be imported by name, so Numba's on-disk cache keeps the machine code for later
processes; otherwise it is compiled from memory.
"""

import copy
import math
import sys

import numpy as np

from .. import dtypes as _dt
from ..kernels import scalar as _scalar
from ..ops.dispatch import _FLOAT, _out_dtype
from ..ops.opdef import TABLE

ARRAY, VALUE, NUMBER = "array", "value", "number"


class Ref:
    """A value of a ``Program``: input ``index``, the result of step ``step``, or (both
    None) the constant ``value``; ``dtype`` its nbgrad dtype (None for a number) and
    ``pytype`` a number's Python type (bool, int or float)."""

    __slots__ = ("index", "step", "dtype", "pytype", "dim", "value")

    def __init__(self, index, step, dtype, pytype=None, dim=True, value=None):
        self.index, self.step, self.dtype, self.pytype, self.dim = index, step, dtype, pytype, dim
        self.value = value

    def __repr__(self):
        if self.step is not None:
            return f"t{self.step}"
        return f"x{self.index}" if self.index is not None else repr(self.value)

    def _key(self):
        return (self.index, self.step) if self.pytype is None or self.index is not None else (
            "c", self.pytype.__name__, repr(self.value))


class _Like:
    # what dtypes.result_type reads of a tensor operand
    __slots__ = ("dtype", "ndim")

    def __init__(self, dtype, dim):
        self.dtype, self.ndim = dtype, 1 if dim else 0


_REPRESENTATIVE = {bool: False, int: 0, float: 0.0}


class Program:
    """A straight-line elementwise program over inputs of one shape.

    >>> from nbgrad import float32
    >>> from nbgrad.compiler.fuse import Program
    >>> import numpy as np
    >>> p = Program()
    >>> x, s = p.input(float32), p.number(float)
    >>> p.output(p.apply("tanh", p.apply("mul", x, s)))
    >>> p.kernel()(np.zeros(3, np.float32), 2.0)[0]
    array([0., 0., 0.], dtype=float32)
    """

    def __init__(self):
        self.inputs = []  # (kind, dtype or Python type)
        self.steps = []  # (op, args, compute dtype, output dtype)
        self.outputs = []
        # the loop runs over rows and columns of 2-d views (a kernel variant for operands
        # that broadcast: see FusedKernel)
        self.grid = False
        self.total = None  # the step whose values the kernel also sums (sum_output)

    def input(self, dtype, value=False, dim=True):
        """An array input of nbgrad dtype ``dtype``: of the program's shape, or (``value``)
        one element read as a value wherever the program reads it. ``dim``: whether it
        counts as a dimensioned tensor in type promotion (a 0-dim tensor does not)."""
        self.inputs.append((VALUE if value else ARRAY, dtype))
        return Ref(len(self.inputs) - 1, None, dtype, dim=dim)

    def number(self, pytype):
        """A Python number input of type ``pytype`` (bool, int or float): an argument of the
        kernel, promoted as PyTorch promotes a Python scalar."""
        if pytype not in _REPRESENTATIVE:
            raise TypeError(f"a number input is a bool, int or float, got {pytype.__name__}")
        self.inputs.append((NUMBER, pytype))
        return Ref(len(self.inputs) - 1, None, None, pytype)

    def constant(self, value):
        """A number written into the kernel's source (a ``2`` or ``-0.5`` that never
        changes), promoted as a Python scalar: a bool, an int64 or a float."""
        t = type(value)
        if t not in _REPRESENTATIVE or (t is int and not -2**63 <= value < 2**63):
            raise TypeError(f"a constant is a bool, an int64 or a float, got {value!r}")
        return Ref(None, None, None, t, value=value)

    def cast(self, ref, dtype):
        """``ref`` converted to nbgrad dtype ``dtype`` (as ``Tensor.to(dtype)``)."""
        if ref.dtype is None:
            raise TypeError("cast of a number: only tensors reach a kernel")
        self.steps.append((_CAST, (ref,), dtype, dtype))
        return Ref(None, len(self.steps) - 1, dtype, dim=ref.dim)

    def apply(self, op, *args):
        """The value of elementwise row ``op`` (a ``TABLE`` row or its name) of ``args``, in
        the dtypes eager would use. The row's argument checks are the caller's: a program
        records ops that eager has run on values of the same dtypes."""
        op = TABLE[op] if isinstance(op, str) else op
        if op.body is None or op.arity != len(args):
            raise ValueError(f"{op.name} takes {op.arity} operands, got {len(args)}")
        for a in args:
            if not isinstance(a, Ref):
                raise TypeError(f"operands are values of this program, got {type(a).__name__}")
        if op.arity == 1:
            if args[0].dtype is None:
                raise TypeError(f"{op.name} of a number: only tensors reach a kernel")
            odt = _out_dtype(op, args[0].dtype)
            cdt = odt
        else:
            tensors = [_Like(a.dtype, a.dim) for a in args if a.dtype is not None]
            if not tensors:
                raise TypeError(f"{op.name} of two numbers: only tensors reach a kernel")
            numbers = [_REPRESENTATIVE[a.pytype] for a in args if a.dtype is None]
            cdt = _dt.result_type(tensors, numbers)
            odt = _out_dtype(op, cdt)
            if op.dtype == _FLOAT:
                cdt = odt
        self.steps.append((op, args, cdt, odt))
        dim = any(a.dim for a in args if a.dtype is not None)
        return Ref(None, len(self.steps) - 1, odt, dim=dim)

    def output(self, ref):
        """Make ``ref`` (a step's value) an output of the kernel."""
        if ref.step is None:
            raise ValueError("an output is the value of a step, not an input")
        self.outputs.append(ref.step)

    def sum_output(self, ref):
        """Make the sum of all of ``ref``'s values (a floating step's) the kernel's last
        output, a 0-d array of its dtype, summed in the order of eager's ``sum`` (blocks of
        256 in the dtype, added in float64; in chunks of 4096 in the parallel loop), so it
        equals eager's ``sum`` of those values bit for bit."""
        if ref.step is None or not ref.dtype.is_floating_point:
            raise ValueError("a summed output is a floating step's value")
        self.total = ref.step

    def key(self):
        """What the generated code depends on (rows, wiring, dtypes, input kinds)."""
        # (the row itself, not its name: a user's row may share a name with another)
        steps = tuple((op, tuple(a._key() for a in args), cdt.name, odt.name)
                      for op, args, cdt, odt in self.steps)
        inputs = tuple((k, t.name if k != NUMBER else t.__name__) for k, t in self.inputs)
        return inputs, steps, tuple(self.outputs), self.grid, self.total

    def source(self, target="cpu"):
        """The kernel's Python source for ``target`` and the functions it names: a module
        defining ``KERNELS`` (CPU: the serial and the parallel loop; CUDA: the kernel)."""
        return _source(self, target)

    def kernel(self, target="cpu"):
        """The compiled ``FusedKernel`` (one per program key and target in the process)."""
        if not self.outputs and self.total is None:
            raise ValueError("a program without outputs has no kernel")
        key = (self.key(), target)
        k = _KERNELS.get(key)
        if k is None:
            k = _KERNELS[key] = FusedKernel(self, target)
        return k


class _Cast:
    # a conversion step: the identity body, computed and stored in the target dtype
    name = "cast"
    arity = 1
    body = cpu_body = _scalar.ident


_CAST = _Cast()
_KERNELS = {}
# eager's sum of one row (kernels/cpu/reduce.py): blocks and parallel chunks
_SUM_BLOCK, _SUM_CHUNK = 256, 4096
_CASTS = {"bool": "np.bool_", "uint8": "np.uint8", "int8": "np.int8", "int16": "np.int16",
          "int32": "np.int32", "int64": "np.int64", "float32": "np.float32",
          "float64": "np.float64"}


def _source(p, target):
    funcs = {}  # body -> its name in the generated code

    def fname(f):
        if f not in funcs:
            funcs[f] = f"f{len(funcs)}"
        return funcs[f]

    def cast(dt, e):
        return f"{_CASTS[dt.name]}({e})"

    n_in = len(p.inputs)
    params = [f"x{j}" for j in range(n_in)] + [f"out{m}" for m in range(len(p.outputs))]
    if p.total is not None:
        if target != "cpu" or p.grid:
            raise ValueError("a summed output is computed by the CPU's flat loops only")
        params += ["tot", "n"]
    pre, body = [], []
    for j, (kind, _) in enumerate(p.inputs):
        if kind == VALUE:
            pre.append(f"v{j} = x{j}[0]")
        elif kind == NUMBER:
            pre.append(f"v{j} = x{j}")
        else:
            body.append(f"v{j} = x{j}[r, c]" if p.grid else f"v{j} = x{j}[i]")

    def name(r):
        if r.step is not None:
            return f"t{r.step}"
        if r.index is not None:
            return f"v{r.index}"
        v = r.value
        if r.pytype is float and not math.isfinite(v):  # (repr gives inf / nan: no names)
            return "np.nan" if v != v else ("np.inf" if v > 0 else "-np.inf")
        return repr(v)

    def operand(dt, r):
        # (a value of that dtype already is one: no cast, a call less for Numba to type)
        return name(r) if r.dtype is dt else cast(dt, name(r))

    for k, (op, args, cdt, odt) in enumerate(p.steps):
        f = fname(op.cpu_body if target == "cpu" else op.body)
        if op.arity == 1:
            body.append(f"t{k} = {cast(odt, f + '(' + operand(odt, args[0]) + ')')}")
        else:
            ops = ", ".join(operand(cdt, a) for a in args)
            body.append(f"t{k} = {cast(odt, f'{f}({ops})')}")
    at = "[r, c]" if p.grid else "[i]"
    body += [f"out{m}{at} = t{s}" for m, s in enumerate(p.outputs)]

    lines = []
    if p.total is not None:
        lines += _summing_source(p, params, pre, body)
    elif target == "cpu":
        for suffix, rng, par in (("", "range", ""), ("_p", "prange", "parallel=True, ")):
            lines += [f"@njit({par}**_opts)",
                      f"def kernel{suffix}({', '.join(params)}):"]
            lines += ["    " + ln for ln in pre]
            if p.grid:  # (rows in parallel, each row's columns one vectorized loop)
                lines += [f"    for r in {rng}(out0.shape[0]):",
                          "        for c in range(out0.shape[1]):"]
                lines += ["            " + ln for ln in body]
            else:
                lines += ["    for i in " + rng + "(out0.size):"]
                lines += ["        " + ln for ln in body]
            lines.append("")
        lines.append("KERNELS = (kernel, kernel_p)")
    else:
        lines += ["@cuda.jit", f"def kernel({', '.join(params)}):"]
        lines += ["    " + ln for ln in pre]
        lines += ["    i = cuda.grid(1)", "    step = cuda.gridsize(1)", "    while i < out0.size:"]
        if p.grid:
            lines += ["        r = i // out0.shape[1]", "        c = i - r * out0.shape[1]"]
        lines += ["        " + ln for ln in body]
        lines += ["        i += step", "", "KERNELS = (kernel,)"]
    names = {v: f for f, v in funcs.items()}
    return "\n".join(lines) + "\n", names


def _summing_source(p, params, pre, body):
    """The CPU loops of a program with a summed output (``Program.sum_output``): those of
    ``kernels/cpu/reduce.py``'s ``_sum_rows`` / ``_sum_rows_p`` for one row, the values
    made 256 at a time into a buffer that ``_block_sum`` adds up."""
    dt = _CASTS[p.steps[p.total][3].name]
    # the block's 1-d slices, indexed from 0 by the loop (an index from a runtime start
    # kept the loop scalar, as in reduce.py)
    arrays = [f"x{j}" for j, (kind, _) in enumerate(p.inputs) if kind == ARRAY]
    arrays += [f"out{m}" for m in range(len(p.outputs))]
    block = list(body)
    for a in arrays:
        block = [ln.replace(f"{a}[i]", f"{a}_[i]") for ln in block]
    fill = [f"    {a}_ = {a}[lo:hi]" for a in arrays] + ["    for i in range(hi - lo):"]
    fill += ["        " + ln for ln in block] + [f"        buf[i] = t{p.total}"]
    def summed(pad, start, end):  # s = the sum from start to end, block by block
        return [pad + ln for ln in [f"buf = np.empty({_SUM_BLOCK}, {dt})",
                                    "s = np.float64(0.0)",
                                    f"lo = {start}",
                                    f"while lo < {end}:",
                                    f"    hi = min({end}, lo + {_SUM_BLOCK})",
                                    *fill,
                                    f"    s += _bsum(buf[:hi - lo], {dt}(0))",
                                    "    lo = hi"]]

    lines = ["@njit(**_opts)", f"def kernel({', '.join(params)}):"]
    lines += ["    " + ln for ln in pre] + summed("    ", "0", "n")
    lines += ["    tot[0] = s", "",
              "@njit(parallel=True, **_opts)", f"def kernel_p({', '.join(params)}):"]
    lines += ["    " + ln for ln in pre]
    lines += [f"    m = (n + {_SUM_CHUNK - 1}) // {_SUM_CHUNK}",
              "    part = np.full(m, np.float64(0.0))",
              "    for ch in prange(m):",
              f"        end = min(n, (ch + 1) * {_SUM_CHUNK})"]
    lines += summed("        ", f"ch * {_SUM_CHUNK}", "end")
    lines += ["        part[ch] = s", "    tot[0] = part.sum()", "", "KERNELS = (kernel, kernel_p)"]
    return lines


def _importable(f):
    """``(module, name)`` under which ``f`` can be imported, or None."""
    py = getattr(f, "py_func", f)
    module, name = py.__module__, py.__name__
    if module in (None, "__main__") or getattr(sys.modules.get(module), name, None) is not f:
        return None
    return module, name


_BODY_OPTS = {"nogil": True, "error_model": "numpy"}
_OUTLINE_STEPS = 64  # programs of more steps call their bodies outlined
_OUTLINES = {}


def _outlined(f):
    """Row body ``f`` (a Numba function inlined where it is called) as one that is called."""
    g = _OUTLINES.get(f)
    if g is None:
        from numba import njit

        g = _OUTLINES[f] = njit(**_BODY_OPTS)(getattr(f, "py_func", f))
    return g


def _compile(p, target):
    src, names = _source(p, target)
    if target == "cpu":
        from ..kernels.cpu import _codegen

        header = ["import numpy as np", "from numba import njit, prange",
                  "from nbgrad.kernels.cpu.reduce import _block_sum as _bsum", ""]
        where = {n: _importable(f) for n, f in names.items()}
        # A long program calls the bodies as functions of their own (``_outlined``), not
        # inlined into the kernel's Numba IR as eager's loops (and short programs) inline
        # them: IR inlining runs Numba's passes again at each call site, which for a
        # region of 1,000 ops took 58 s to compile (19 s outlined); outlined calls ran a
        # 9-op loop over 4M floats ~25% slower, though.
        outline = len(p.steps) > _OUTLINE_STEPS
        if _codegen.caching() and all(where.values()):
            if outline:
                imports = [f"from {m} import {fn} as _{n}" for n, (m, fn) in
                           sorted(where.items())]
                imports += [f"{n} = njit(**_body_opts)(_{n}.py_func)" for n in sorted(where)]
            else:
                imports = [f"from {m} import {fn} as {n}" for n, (m, fn) in
                           sorted(where.items())]
            text = "\n".join(header + [_codegen.OPTS_LINE, f"_body_opts = {_BODY_OPTS!r}"]
                              + imports + [""]) + src
            mod = _codegen.import_source("fused", text, [m for m, _ in where.values()]
                                         + ["nbgrad.kernels.cpu.reduce"])
            return mod.KERNELS, mod.__file__
        from ..kernels.cpu.reduce import _block_sum

        ns = {"np": np, "_opts": _codegen.OPTS_MEMORY, "_bsum": _block_sum,
              **{n: _outlined(f) if outline else f for n, f in names.items()}}
        from numba import njit, prange

        ns.update(njit=njit, prange=prange)
        exec(compile(src, "<nbgrad fused kernel>", "exec"), ns)
        return ns["KERNELS"], None
    from numba import cuda

    from ..kernels.cuda._launch import device_fn

    ns = {"np": np, "cuda": cuda, **{n: device_fn(f) for n, f in names.items()}}
    exec(compile(src, "<nbgrad fused CUDA kernel>", "exec"), ns)
    return ns["KERNELS"], None


class FusedKernel:
    """A ``Program`` compiled for one target. Called with one operand per input (arrays of
    one shape, one-value arrays, numbers, in the order the inputs were made), it returns
    the outputs as new arrays of that shape."""

    def __init__(self, program, target="cpu"):
        self.target = target
        self.inputs = list(program.inputs)
        self.out_dtypes = [np.dtype(program.steps[s][3].np) for s in program.outputs]
        self.total_dtype = (None if program.total is None
                            else np.dtype(program.steps[program.total][3].np))
        self.source = _source(program, target)[0]
        # ``path``: the generated module's file in the cache folder (None: from memory)
        self._kernels, self.path = _compile(program, target)
        self.program = program
        self._variants = {}  # inputs read as one value -> the kernel of that variant

    def _variant(self, values, grid):
        """The kernel of this program with inputs ``values`` read as one value and, with
        ``grid``, its loop over 2-d views."""
        k = self._variants.get((values, grid))
        if k is None:
            q = copy.copy(self.program)
            q.inputs = [(VALUE, t) if j in values else (kind, t)
                        for j, (kind, t) in enumerate(q.inputs)]
            q.grid = grid
            k = self._variants[(values, grid)] = q.kernel(self.target)
        return k

    def __call__(self, *operands, shape=None):
        """The outputs for ``operands``. ``shape``: the region's shape (the outputs'); an
        array operand may then have any shape that broadcasts to it. Without it, the array
        operands have one shape, the region's."""
        if len(operands) != len(self.inputs):
            raise TypeError(f"the fused kernel takes {len(self.inputs)} operands, "
                            f"got {len(operands)}")
        region = None if shape is None else tuple(shape)
        args = []
        values = []  # arrays of one value expanded (a sum's gradient, a (1, 1) operand)
        broadcast = False
        for j, ((kind, t), x) in enumerate(zip(self.inputs, operands)):
            if kind == NUMBER:
                if not isinstance(x, (bool, int, float, np.number, np.bool_)):
                    raise TypeError(f"operand {j} is a number input, got {type(x).__name__}")
                args.append(x)
                continue
            if getattr(x, "dtype", None) != t.np or not hasattr(x, "reshape"):
                what = getattr(x, "dtype", type(x).__name__)
                raise TypeError(f"operand {j} is an array of {t.np}, got {what}")
            if kind == ARRAY:
                if region is None:
                    region = x.shape
                elif x.shape != region and (shape is None or not _broadcasts(x.shape, region)):
                    raise ValueError(f"operands of one fused kernel have one shape, got "
                                     f"{tuple(region)} and {tuple(x.shape)}")
                if ((x.size == 1 and x.shape != region)
                        or (x.size > 1 and isinstance(x, np.ndarray) and not any(x.strides))):
                    # one value (expanded: a sum's gradient): read as a value, no copy of
                    # the expansion, and the loop still vectorizes (a stride-0 operand kept
                    # it scalar: ~6x slower)
                    values.append(j)
                    args.append(np.lib.stride_tricks.as_strided(x, (1,), (x.itemsize,)))
                    continue
                broadcast = broadcast or x.shape != region
                args.append(x)
                continue
            if x.size != 1:
                raise ValueError(f"a value operand holds one element, got {x.size}")
            args.append(x.reshape(-1))
        if region is None:
            region = () if shape is None else shape
        if broadcast and self.program.total is not None:
            raise ValueError("a fused kernel with a summed output reads operands of the "
                             "region's shape (or one value)")
        if broadcast and self.target != "cpu":
            raise ValueError("operands that broadcast reach a fused CUDA kernel expanded "
                             "to the region's shape")
        if values or broadcast:
            return self._variant(tuple(values), broadcast)._run(args, region)
        return self._run(args, region)

    def _run(self, args, region):
        """Run the loop on ``args`` (arrays flattened, or of any broadcastable shape in a
        grid program) and return the outputs of shape ``region``."""
        grid = self.program.grid
        rc = None
        if grid:
            # rows and columns: the region's last dim and all others (a broadcast operand
            # is a strided view of that shape, copied only when no view can express it)
            rc = (math.prod(region[:-1]), region[-1])
        args = [(np.broadcast_to(x, region).reshape(rc) if grid else x.reshape(-1))
                if kind == ARRAY else x for (kind, _), x in zip(self.program.inputs, args)]
        if self.target == "cpu":
            from ..kernels.cpu import _par
            from ..storage._cpupool import empty

            # (from the pool eager ops allocate from: fresh pages cost as much as the loop)
            size = math.prod(region)
            outs = [empty(region, dt, size * dt.itemsize) for dt in self.out_dtypes]
            if self.program.total is not None:
                tot = np.empty(1, self.total_dtype)
                _par.run(self._kernels[0], self._kernels[1], size, *args,
                         *[o.reshape(-1) for o in outs], tot, size)
                return outs + [tot.reshape(())]
            if size:
                _par.run(self._kernels[0], self._kernels[1], size, *args,
                         *[o.reshape(rc or -1) for o in outs])
            return outs
        from numba import cuda

        from ..kernels.cuda._launch import grid as _launch

        outs = [cuda.device_array(region, dt) for dt in self.out_dtypes]
        n = outs[0].size
        if n:
            self._kernels[0][_launch(n)](*args, *[o.reshape(rc or -1) for o in outs])
        return outs


def _broadcasts(shape, region):
    """Whether an operand of ``shape`` broadcasts to ``region`` (as eager's ops did)."""
    if len(shape) > len(region):
        return False
    return all(s in (1, r) for s, r in zip(shape[::-1], region[::-1]))

