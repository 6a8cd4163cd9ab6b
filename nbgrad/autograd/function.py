"""Custom autograd functions: ``nbgrad.autograd.Function`` with ``forward``/``backward``."""

import functools

from .. import tensor as _tensor  # the module (nbgrad.tensor the function comes later)
from . import grad_mode
from .graph import _FREED, ERR_FREED, Node, SavedTensor, edge_of, saved_input, saved_output


class FunctionCtx(Node):
    """The ``ctx`` of a custom Function; it is also the backward node (its ``grad_fn``)."""

    __slots__ = ("_to_save", "_non_diff", "_dirty", "materialize_grads", "needs_input_grad",
                 "_fn_cls", "_input_meta")

    def save_for_backward(self, *tensors):
        """Keep tensors for ``backward``; read them back as ``ctx.saved_tensors``."""
        for i, t in enumerate(tensors):  # (tensors.index(t) would compare tensors by ==)
            if t is not None and not isinstance(t, _tensor.Tensor):
                raise TypeError(
                    "save_for_backward can only save variables, but argument "
                    f"{i} is of type {type(t).__name__}"
                )
        self._to_save = tensors

    @property
    def saved_tensors(self):
        s = self._saved
        if s is _FREED:
            raise RuntimeError(ERR_FREED)
        return tuple(v.unpack(self) if isinstance(v, SavedTensor) else v for v in s)

    def mark_non_differentiable(self, *tensors):
        """Outputs that get no gradient (e.g. indices)."""
        self._non_diff = tensors

    def mark_dirty(self, *tensors):
        """Inputs that ``forward`` modified in place."""
        self._dirty = tensors

    def set_materialize_grads(self, value):
        """With False, ``backward`` receives None (not zeros) for unused outputs."""
        self.materialize_grads = bool(value)

    def unpack_saved(self):
        return ()

    def apply(self, grads):
        cls = self._fn_cls
        if self.materialize_grads:
            from ..creation import zeros

            grads = [
                zeros(tuple(m[0]), dtype=m[1], device=m[2]) if g is None and m is not None else g
                for g, m in zip(grads, self._out_meta)
            ]
        res = cls.backward(self, *grads)
        if not isinstance(res, tuple):
            res = (res,)
        n = len(self.next_functions)
        if len(res) > n:
            if any(r is not None for r in res[n:]):
                raise RuntimeError(
                    f"function {self.name()} returned an incorrect number of gradients "
                    f"(expected {n}, got {len(res)})"
                )
            res = res[:n]
        if len(res) < n:
            raise RuntimeError(
                f"function {self.name()} returned an incorrect number of gradients "
                f"(expected {n}, got {len(res)})"
            )
        cast = None
        for i, (g, meta) in enumerate(zip(res, self._input_meta)):
            if g is None:
                continue
            if meta is None:
                raise RuntimeError(
                    f"function {self.name()} returned a gradient different than None at "
                    f"position {i + 1}, but the corresponding forward input was not a Variable"
                )
            if not isinstance(g, _tensor.Tensor):
                raise RuntimeError(f"expected Variable or None (got {type(g).__name__})")
            shape, dt = meta
            if tuple(g.shape) != shape:
                raise RuntimeError(
                    f"Function {self.name()} returned an invalid gradient at index {i} - got "
                    f"{list(g.shape)} but expected shape compatible with {list(shape)}"
                )
            if g._dtype is not dt:  # PyTorch's engine casts it to the input's dtype
                from ..ops.convert import to

                cast = list(res) if cast is None else cast
                cast[i] = to(g, dtype=dt)
        return res if cast is None else tuple(cast)


class _FunctionMeta(type):
    """Gives each Function subclass its own backward-node class, named ``<Name>Backward``."""

    def __init__(cls, name, bases, attrs):
        super().__init__(name, bases, attrs)
        cls._backward_cls = type(name + "Backward", (FunctionCtx,), {"__slots__": ()})


class Function(metaclass=_FunctionMeta):
    """Base class of custom differentiable ops.

    >>> class Square(nbgrad.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x)
    ...         return x * x
    ...     @staticmethod
    ...     def backward(ctx, g):
    ...         (x,) = ctx.saved_tensors
    ...         return 2 * x * g
    >>> y = Square.apply(nbgrad.tensor(3.0, requires_grad=True))
    """

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grads):
        raise NotImplementedError("You must implement the backward function for custom autograd.Function.")

    @classmethod
    def apply(cls, *args, **kwargs):
        T = _tensor.Tensor
        is_t = [isinstance(a, T) for a in args]
        ctx = cls._backward_cls(tuple(edge_of(a) if t and a._rg else (None, 0)
                                      for a, t in zip(args, is_t)))
        ctx._fn_cls = cls
        ctx._to_save = ()
        ctx._non_diff = ()
        ctx._dirty = ()
        ctx.materialize_grads = True
        ctx.needs_input_grad = tuple(t and a._rg for a, t in zip(args, is_t))
        ctx._input_meta = tuple((tuple(a.shape), a._dtype) if t else None
                                for a, t in zip(args, is_t))
        with grad_mode.no_grad():
            out = cls.forward(ctx, *args, **kwargs)
        single = not isinstance(out, tuple)
        outs = (out,) if single else out
        record = grad_mode.STATE.enabled and any(ctx.needs_input_grad)
        dirty_ids = {id(t) for t in ctx._dirty}
        non_diff = {id(t) for t in ctx._non_diff}
        result = []
        for o in outs:
            if isinstance(o, T):
                if id(o) in dirty_ids:
                    o._vc[0] += 1
                    if record and o._rg and o._grad_fn is None:
                        raise RuntimeError(
                            "a leaf Variable that requires grad has been used in an in-place "
                            "operation."
                        )
                elif any(o is a for a in args):
                    o = o._detached_alias()  # an input returned as is: a new output tensor
            result.append(o)
        ctx._n_out = len(result)
        if ctx._n_out != 1:
            ctx._hooked = True  # multi-output nodes take the engine's full path
        ctx._out_meta = tuple(
            (tuple(o.shape), o._dtype, o._device) if isinstance(o, T) else None for o in result
        )
        if record:
            for i, o in enumerate(result):
                if isinstance(o, T) and id(o) not in non_diff and o._dtype.is_floating_point:
                    o._grad_fn = ctx
                    o._output_nr = i
                    o._rg = True
        out_ids = {id(o) for o in result if isinstance(o, T)}
        if record:
            ctx._saved = tuple(
                None if t is None else (saved_output(t) if id(t) in out_ids else saved_input(t))
                for t in ctx._to_save
            )
        else:
            ctx._saved = tuple(ctx._to_save)
        ctx._to_save = ()
        if not record:
            ctx._saved = tuple(saved_input(t) if t is not None else None for t in ctx._saved)
        return result[0] if single else tuple(result)


def once_differentiable(fn):
    """Decorate a Function's ``backward`` that cannot itself be differentiated."""

    @functools.wraps(fn)
    def wrapper(ctx, *grads):
        with grad_mode.no_grad():
            out = fn(ctx, *grads)
        if not grad_mode.is_grad_enabled():
            return out
        if not any(isinstance(g, _tensor.Tensor) and g._rg for g in grads):
            return out
        outs = out if isinstance(out, tuple) else (out,)
        marked = []
        for o in outs:
            if isinstance(o, _tensor.Tensor):
                o = o._detached_alias()
                node = _OnceDifferentiableBackward(tuple(edge_of(g) if isinstance(g, _tensor.Tensor) and g._rg else (None, 0) for g in grads))
                o._grad_fn = node
                o._rg = True
            marked.append(o)
        return tuple(marked) if isinstance(out, tuple) else marked[0]

    return wrapper


class _OnceDifferentiableBackward(Node):
    __slots__ = ()

    @classmethod
    def name(cls):
        return "DelayedError"

    def backward(self, saved, *grads):
        raise RuntimeError(
            "trying to differentiate twice a function that was marked with @once_differentiable"
        )
