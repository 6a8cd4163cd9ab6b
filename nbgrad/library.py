"""User-defined ops through the registry that the built-in ops use.

An op is a shape/dtype rule, a CPU kernel (a plain ``@numba.njit`` function that writes its
output into a preallocated array), optionally a CUDA kernel, and a backward rule written
in nbgrad ops. The op then dispatches by device, supports double backward (its backward is
made of differentiable ops) and passes ``gradcheck``::

    import numba, nbgrad
    from nbgrad.library import defop

    @numba.njit
    def softplus_cpu(x, out):          # contiguous inputs, then the output, all 1-d views
        for i in range(out.size):
            out[i] = max(x[i], 0.0) + numpy.log1p(numpy.exp(-abs(x[i])))

    softplus = defop(
        "mylib::softplus",
        shape=lambda x: (x.shape, x.dtype),          # output shape and dtype
        cpu=softplus_cpu,
        backward=lambda g, x, out: (g * nbgrad.sigmoid(x),),
    )
    y = softplus(nbgrad.randn(5, requires_grad=True))

Elementwise ops take the path of nbgrad's own (``nbgrad/ops/elementwise.py``): a scalar
``@njit`` function as ``body``, compiled into the CPU loops and the CUDA grid-stride kernel,
derivative formulas as nbgrad expressions, and the same dispatch path with cached launch
plans (see ``nbgrad.ops.opdef.OpDef`` for every field)::

    @numba.njit
    def softsign(x):
        return x / (1 + abs(x))

    softsign = defop("mylib::softsign", body=softsign, dtype="float",
                     grads=("div(grad, mul(add(abs(input), 1), add(abs(input), 1)))",))

Any other op can be a row as nbgrad's reductions, softmax and layer norm are
(``nbgrad.ops.funcdef.FuncDef`` for every field): a ``forward`` on the operands' arrays
that runs the kernels registered under its names, the dtype and shape rules, and
derivative formulas as nbgrad expressions of ``grad``, the operands, ``result`` and the
arguments. Calling it runs the forward and records the generated node::

    @numba.njit
    def row_scale_cpu(x, s, out):          # out[i, j] = x[i, j] * s[i]
        for i in range(x.shape[0]):
            for j in range(x.shape[1]):
                out[i, j] = x[i, j] * s[i]

    def row_scale_forward(x, s, odt, device, _):
        out = numpy.empty(x.shape, odt.np)
        row_scale_cpu(numpy.ascontiguousarray(x), numpy.ascontiguousarray(s), out)
        return out

    row_scale = defop("mylib::row_scale", params=("input", "scale"),
                      forward=row_scale_forward, dtype=lambda a, b, _: a,
                      shape=lambda a, b, _: tuple(a), args=("unused",),
                      grads=("mul(grad, unsqueeze(scale, 1))",
                             "sum(mul(grad, input), 1)"))
    y = row_scale(x, s, None)

Kernel calling convention (the ``cpu=`` form): every Tensor input is converted to the output dtype (unless
``cast_inputs=False``) and made C-contiguous; the kernel receives the arrays in their own
shapes (``flat=False``, the default) or raveled to 1-d (``flat=True``) followed by the
output array, and returns nothing. Non-tensor arguments are passed to ``shape`` and
``backward`` but not to the kernel unless ``kernel_args`` says so.
"""

import re
import sys

from . import dtypes as _dt
from .autograd.graph import Node
from .kernels.table import _KERNELS, kernel, register_kernel
from .ops._core import needs_grad, record, same_device, save, save_output
from .storage import for_device as backend
from .storage.layout import copy_data, is_c
from .tensor import Tensor, _wrap

__all__ = ["defop", "CustomOp"]


def _node_name(name):
    base = name.split("::")[-1]
    camel = "".join(p[:1].upper() + p[1:] for p in re.split(r"[_\W]+", base) if p)
    return (camel or "Custom") + "Backward0"


class CustomOp:
    """A registered user op; call it like a function of Tensors (and other arguments)."""

    def __init__(self, name, shape, backward, flat, cast_inputs, kernel_args):
        self.name = name
        self.shape_rule = shape
        self.backward_rule = backward
        self.flat = flat
        self.cast_inputs = cast_inputs
        self.kernel_args = kernel_args
        op = self

        class _Backward(Node):
            __slots__ = ()
            _builtin = False  # the user's rule: the engine owns nothing it returns

            def backward(self, saved, g):
                *ins, out = saved
                grads = op.backward_rule(g, *ins, out, **(self.attrs or {}))
                if not isinstance(grads, tuple):
                    grads = (grads,)
                n = len(self.next_functions)
                if len(grads) != n:
                    raise RuntimeError(
                        f"backward of op '{op.name}' returned {len(grads)} gradients for {n} inputs"
                    )
                return tuple(
                    None if f is None else gr for (f, _), gr in zip(self.next_functions, grads)
                )

        _Backward.__name__ = _Backward.__qualname__ = _node_name(name)
        self.node_cls = _Backward

    def __repr__(self):
        devs = ", ".join(sorted(_KERNELS.get(self.name, {})))
        return f"<nbgrad op '{self.name}' on {devs}>"

    def __call__(self, *args, **kwargs):
        tensors = [a for a in args if isinstance(a, Tensor)]
        if not tensors:
            raise TypeError(f"op '{self.name}' needs at least one Tensor argument")
        dev = same_device(self.name, *tensors)
        shape, dt = self.shape_rule(*args, **kwargs)
        dt = _dt.as_dtype(dt)
        be = backend(dev)
        arrays = []
        for a in args:
            if isinstance(a, Tensor):
                d = copy_data(a._data, dt if self.cast_inputs else a._dtype, dev) if (
                    (self.cast_inputs and a._dtype is not dt) or not is_c(a._data)
                ) else a._data
                arrays.append(d.reshape(-1) if self.flat else d)
            elif self.kernel_args:
                arrays.append(a)
        out = be.empty(tuple(shape), dt.np)
        k = kernel(self.name, dev)
        k(*arrays, out.reshape(-1) if self.flat else out, **(kwargs if self.kernel_args else {}))
        res = _wrap(out, dt, dev)
        if needs_grad(*tensors) and dt.is_floating_point:
            saved = tuple(save(a) for a in args) + (save_output(res),)
            record(self.node_cls, res, args, saved, kwargs or None)
        return res


def _cuda_launcher(k, flat):
    """Launch a ``@cuda.jit`` kernel with one thread per output element (grid-stride safe)."""

    def launch(*arrays, **kw):
        out = arrays[-1]
        n = max(1, out.size)
        threads = 128
        blocks = min(1024, (n + threads - 1) // threads)
        k[blocks, threads](*arrays, **kw)

    return launch


def defop(name, *, shape=None, cpu=None, backward=None, cuda=None, flat=False,
          cast_inputs=True, kernel_args=False, body=None, forward=None, **fields):
    """Register a user-defined operation and return the function that calls it.

    The op joins the registry nbgrad's built-in ops use: it dispatches by device, records a
    backward node (named ``<Name>Backward0`` after the part of ``name`` after ``::``),
    supports double backward when its derivative is written in nbgrad ops, and passes
    :func:`~nbgrad.autograd.gradcheck`. There are three forms, chosen by the arguments:

    - **kernel form** (``cpu=``, the usual one): a Numba kernel that writes the output
      into a preallocated array, a ``shape`` rule, and a ``backward`` rule;
    - **elementwise form** (``body=``): a scalar function, compiled into nbgrad's own
      elementwise loops (broadcasting, type promotion, CPU and CUDA) with derivative
      formulas, exactly as the built-in elementwise ops are defined;
    - **row form** (``forward=``): a forward on arrays with dtype and shape rules and
      derivative formulas, as nbgrad's reductions, softmax and layer norm are defined.

    Args:
        name (str): the op's name, conventionally ``"namespace::op"``; the key of its
            kernels in the registry. Registering a name again replaces the kernels given.
        shape (callable): kernel form: ``shape(*args, **kwargs) -> (shape, dtype)``, the
            output's shape (a tuple) and dtype (an nbgrad dtype or its name) from the
            call's arguments, without computing anything. Row form: ``FuncDef``'s shape
            rule ``shape(*operand_shapes, *args)`` (see below).
        cpu (callable): kernel form, required: an ``@numba.njit`` function
            ``cpu(*arrays, out)`` that fills ``out`` and returns nothing. It gets one array
            per tensor argument, in order (non-tensor arguments only with
            ``kernel_args=True``), then the output array.
        backward (callable): kernel form: ``backward(grad, *args, out, **kwargs)``, where
            ``grad`` is the gradient with respect to the output, ``args`` the call's
            arguments (tensors as saved by the forward) and ``out`` the output. It returns
            a tuple with one gradient per positional argument of the call, each a tensor of
            that argument's shape or ``None`` (non-tensor arguments, or no gradient).
            Write it with nbgrad ops: then it is differentiable itself. Default: ``None``,
            for an op that is never differentiated.
        cuda (callable, optional): kernel form: a ``@numba.cuda.jit`` kernel with the
            same arguments as ``cpu``, run for CUDA tensors. It is launched on a 1-d grid
            of up to 1024 blocks of 128 threads, so loop over the output with a grid
            stride. Default: ``None`` (the op then runs on the CPU only).
        flat (bool, optional): kernel form: pass every array raveled to 1-d (index them
            as ``x[i]`` for ``i in range(out.size)``); otherwise they keep their shapes.
            Default: ``False``.
        cast_inputs (bool, optional): kernel form: convert each tensor argument to the
            output dtype before the call, so the kernel sees one dtype. With ``False``
            they keep their own dtypes (still made C-contiguous). Default: ``True``.
        kernel_args (bool, optional): kernel form: also pass the non-tensor positional
            arguments to the kernel, in their places among the arrays, and the call's
            keyword arguments as the kernel's keyword arguments. Default: ``False`` (they
            reach only ``shape`` and ``backward``).
        body (callable, optional): elementwise form: an ``@numba.njit`` function of one or
            two scalars returning a scalar. Default: ``None``.
        forward (callable, optional): row form: ``forward(*arrays, out_dtype, device,
            *args)`` returning the output array from the operands' arrays. Default:
            ``None``.
        **fields: the elementwise and row forms' other settings, passed to
            ``nbgrad.ops.opdef.OpDef`` or ``nbgrad.ops.funcdef.FuncDef`` (their docstrings
            list them all). The main ones: ``grads``, one derivative formula per operand as
            a string of nbgrad ops reading ``grad``, the operands by name, ``result`` and
            the arguments (``"mul(grad, cos(input))"``); ``dtype`` (elementwise:
            ``"promote"``, ``"float"`` or ``"bool"``; row form: a function of the operand
            dtypes and the arguments); ``params``, the operands' names; ``args``, the row
            form's argument names. Names in the formulas resolve in the calling module,
            then among nbgrad's ops.

    Returns:
        callable: kernel form, a ``CustomOp`` called with the op's arguments (at least one
        tensor; all tensors on one device); elementwise form, ``fn(input)`` or
        ``fn(input, other)``; row form, ``fn(*operands, *args)``, all positional. A result
        gets a ``grad_fn`` when grad mode is on, a tensor argument requires grad, and its
        dtype is floating point.

    Raises:
        TypeError: in the kernel form, ``cpu`` is not callable.

    .. note::
        The kernel receives C-contiguous arrays (non-contiguous tensors are copied first)
        and a fresh, uninitialized output: it must write every element. Calling the op
        compiles the kernel for the argument types on first use (Numba's lazy
        compilation), like any ``@njit`` function.

    Example::

        >>> import numba
        >>> from nbgrad.library import defop
        >>> @numba.njit
        ... def cube_cpu(x, out):
        ...     for i in range(out.size):
        ...         out[i] = x[i] * x[i] * x[i]
        >>> cube = defop("demo::cube", shape=lambda x: (x.shape, x.dtype), cpu=cube_cpu,
        ...              backward=lambda g, x, out: (3 * x ** 2 * g,), flat=True)
        >>> x = nbgrad.tensor([1.0, 2.0], dtype=nbgrad.float64, requires_grad=True)
        >>> y = cube(x)
        >>> y
        tensor([1., 8.], dtype=nbgrad.float64, grad_fn=<CubeBackward0>)
        >>> y.sum().backward()
        >>> x.grad
        tensor([ 3., 12.], dtype=nbgrad.float64)
        >>> nbgrad.autograd.gradgradcheck(cube, (x,))
        True

    The elementwise form, for comparison (formulas as nbgrad's own ops write them)::

        @numba.njit
        def softsign_body(x):
            return x / (1 + abs(x))

        softsign = defop("demo::softsign", body=softsign_body, dtype="float",
                         grads=("div(grad, mul(add(abs(input), 1), add(abs(input), 1)))",))
    """
    if body is not None:
        return _elementwise(name, body, sys._getframe(1).f_globals, fields)
    if forward is not None:
        return _function(name, forward, shape, sys._getframe(1).f_globals, fields)
    if not callable(cpu):
        raise TypeError(f"defop('{name}'): cpu must be an @njit function, got {type(cpu).__name__}")
    register_kernel(name, "cpu", cpu)
    if cuda is not None:
        register_kernel(name, "cuda", _cuda_launcher(cuda, flat))
    return CustomOp(name, shape, backward, flat, cast_inputs, kernel_args)


def _elementwise(name, body, caller_globals, fields):
    from .ops import elementwise as _builtin
    from .ops.opdef import OpDef, public_function

    # the formulas see nbgrad's elementwise ops (mul, where, ...) unless the caller's module
    # defines the name; the row is not added to nbgrad's own table or public surface
    names = dict(vars(_builtin))
    names.update(caller_globals)
    fields.setdefault("node", _node_name(name))
    op = OpDef(name, body, fn=False, method=False, module_globals=names, **fields)
    fn = public_function(op)
    fn.__name__ = fn.__qualname__ = name.split("::")[-1]
    return fn


def _function(name, forward, shape, caller_globals, fields):
    from .ops import elementwise, reduce
    from .ops import shape as shape_ops
    from .ops.funcdef import FuncDef, _make_call

    names = {**vars(elementwise), **vars(reduce), **vars(shape_ops), **caller_globals}
    fields.setdefault("node", _node_name(name))
    short = name.split("::")[-1]
    op = FuncDef(short, forward=forward, shape=shape, fn=False, method=False,
                 module_globals=names, **fields)
    n = len(op.params)
    call = op.call = _make_call(op)  # (generated now: ``fn`` keeps it)

    def fn(*operands_and_args):
        if len(operands_and_args) != n + len(op.args):
            raise TypeError(f"{short}() takes {n} operands ({', '.join(op.params)}) and "
                            f"{len(op.args)} arguments ({', '.join(op.args)}), got "
                            f"{len(operands_and_args)}")
        operands = operands_and_args[:n]
        for p, t in zip(op.params, operands):
            if not isinstance(t, Tensor) and not (t is None and p in op.optional):
                raise TypeError(f"{short}(): argument '{p}' must be Tensor, not "
                                f"{type(t).__name__}")
        same_device(short, *operands)
        return call(*operands_and_args)

    fn.__name__ = fn.__qualname__ = short
    fn.op = op
    return fn
