"""Custom autograd functions: ``nbgrad.autograd.Function`` with ``forward``/``backward``."""

import functools

from .. import tensor as _tensor  # the module (nbgrad.tensor the function comes later)
from . import grad_mode
from .graph import _FREED, ERR_FREED, Node, SavedTensor, edge_of, saved_input, saved_output


class FunctionCtx(Node):
    """The ``ctx`` that a custom :class:`Function`'s ``forward`` and ``backward`` receive.

    The same object is the backward node recorded in the graph (the outputs' ``grad_fn``).
    Besides the methods below it has ``saved_tensors`` (what :meth:`save_for_backward`
    kept), ``needs_input_grad`` (one bool per argument of ``forward``: whether that
    argument is a tensor that requires grad, so ``backward`` can skip work) and
    ``materialize_grads``; any other attribute may be set on it to pass values (sizes,
    flags) from ``forward`` to ``backward``.
    """

    __slots__ = ("_to_save", "_non_diff", "_dirty", "materialize_grads", "needs_input_grad",
                 "_fn_cls", "_input_meta")

    def save_for_backward(self, *tensors):
        """Save tensors for ``backward``; read them back there as ``ctx.saved_tensors``.

        Call it at most once, in ``forward``, with the inputs or outputs that ``backward``
        needs (``None`` entries are kept as ``None``). Unlike attributes set on ``ctx``,
        saved tensors follow autograd's rules: they are freed after a backward pass that
        does not retain the graph (reading them then raises), and a saved tensor changed
        in place after it was saved makes backward raise ("modified by an inplace
        operation"). Intermediate tensors that are neither inputs nor outputs may be saved
        too.

        Args:
            *tensors (Tensor or None): the tensors to keep.

        Raises:
            TypeError: an argument is neither a tensor nor ``None``.

        Example::

            >>> class Mul(nbgrad.autograd.Function):
            ...     @staticmethod
            ...     def forward(ctx, a, b):
            ...         ctx.save_for_backward(a, b)
            ...         return a * b
            ...     @staticmethod
            ...     def backward(ctx, grad):
            ...         a, b = ctx.saved_tensors
            ...         return grad * b, grad * a
            >>> a = nbgrad.tensor(2.0, requires_grad=True)
            >>> b = nbgrad.tensor(5.0, requires_grad=True)
            >>> Mul.apply(a, b).backward()
            >>> a.grad, b.grad
            (tensor(5.), tensor(2.))
        """
        for i, t in enumerate(tensors):  # (tensors.index(t) would compare tensors by ==)
            if t is not None and not isinstance(t, _tensor.Tensor):
                raise TypeError(
                    "save_for_backward can only save variables, but argument "
                    f"{i} is of type {type(t).__name__}"
                )
        self._to_save = tensors

    @property
    def saved_tensors(self):
        """The tensors given to :meth:`save_for_backward`, as a tuple, in the same order.

        Raises ``RuntimeError`` once the graph has been freed (a second backward without
        ``retain_graph=True``) or when a saved tensor was modified in place after it was
        saved."""
        s = self._saved
        if s is _FREED:
            raise RuntimeError(ERR_FREED)
        return tuple(v.unpack(self) if isinstance(v, SavedTensor) else v for v in s)

    def mark_non_differentiable(self, *tensors):
        """Declare outputs of ``forward`` that are not differentiable (indices, masks).

        Call it in ``forward`` with the output tensors concerned. They come out with
        ``requires_grad=False`` and no ``grad_fn``; ``backward`` still receives an entry
        for each of them (zeros, or ``None`` after ``set_materialize_grads(False)``), which
        it should ignore. Integer and bool outputs are never differentiable anyway.

        Args:
            *tensors (Tensor): outputs of ``forward``.

        Example::

            >>> class ReluAndMask(nbgrad.autograd.Function):
            ...     @staticmethod
            ...     def forward(ctx, x):
            ...         mask = (x > 0).float()
            ...         ctx.save_for_backward(mask)
            ...         ctx.mark_non_differentiable(mask)
            ...         return x * mask, mask
            ...     @staticmethod
            ...     def backward(ctx, grad, grad_mask):
            ...         (mask,) = ctx.saved_tensors
            ...         return grad * mask
            >>> x = nbgrad.tensor([-1.0, 2.0], requires_grad=True)
            >>> y, mask = ReluAndMask.apply(x)
            >>> y.requires_grad, mask.requires_grad
            (True, False)
            >>> y.sum().backward()
            >>> x.grad
            tensor([0., 1.])
        """
        self._non_diff = tensors

    def mark_dirty(self, *tensors):
        """Declare the inputs that ``forward`` modified in place.

        Call it in ``forward`` with every tensor argument it wrote into; such a tensor
        must also be returned as an output. Its version counter is bumped (so saved copies
        of its old value are detected by backward), and it takes this function's node as
        its new ``grad_fn``. Modifying a leaf that requires grad in place is an error, as
        for built-in in-place ops.

        Args:
            *tensors (Tensor): the inputs modified in place.

        Example::

            >>> class Double_(nbgrad.autograd.Function):
            ...     @staticmethod
            ...     def forward(ctx, x):
            ...         x.mul_(2)
            ...         ctx.mark_dirty(x)
            ...         return x
            ...     @staticmethod
            ...     def backward(ctx, grad):
            ...         return grad * 2
            >>> w = nbgrad.tensor([1.0, 2.0], requires_grad=True)
            >>> h = w + 0                          # a non-leaf may be changed in place
            >>> out = Double_.apply(h)
            >>> out is h, h
            (True, tensor([2., 4.], grad_fn=<Double_Backward>))
            >>> h.sum().backward()
            >>> w.grad
            tensor([2., 2.])
        """
        self._dirty = tensors

    def set_materialize_grads(self, value):
        """Choose whether ``backward`` sees zeros or ``None`` for missing gradients.

        When only some outputs of ``forward`` are used, the others receive no gradient.
        By default (``True``) ``backward`` gets zero tensors of their shape in their place;
        after ``ctx.set_materialize_grads(False)`` (called in ``forward``) it gets
        ``None`` and must handle it, which saves allocating the zeros.

        Args:
            value (bool): ``True`` to pass zeros, ``False`` to pass ``None``.

        Example::

            >>> class Pair(nbgrad.autograd.Function):
            ...     @staticmethod
            ...     def forward(ctx, x):
            ...         ctx.set_materialize_grads(False)
            ...         return x * 2, x * 3
            ...     @staticmethod
            ...     def backward(ctx, g1, g2):
            ...         print(g1, g2)
            ...         return g1 * 2 if g2 is None else g1 * 2 + g2 * 3
            >>> x = nbgrad.tensor(1.0, requires_grad=True)
            >>> a, b = Pair.apply(x)
            >>> a.backward()
            tensor(1.) None
            >>> x.grad
            tensor(2.)
        """
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
    """Base class of differentiable operations with a hand-written backward.

    Subclass it and define two static methods:

    - ``forward(ctx, *args, **kwargs)`` computes the output (a tensor, or a tuple of
      them) from the arguments, which may be tensors or any other values. It runs with
      grad mode off, so its own ops are not recorded; it keeps what ``backward`` needs on
      ``ctx`` (see :class:`FunctionCtx`).
    - ``backward(ctx, *grad_outputs)`` receives one gradient per output of ``forward`` and
      returns one gradient per positional argument of ``forward`` (a tuple, or a single
      tensor when there is one argument): a tensor of that argument's shape, or ``None``
      for an argument that is not a tensor or needs no gradient.

    Run the operation with the class method ``apply(*args, **kwargs)``, not by calling
    ``forward``: ``apply`` calls ``forward`` and, when grad mode is on and a tensor
    argument requires grad, records a node named ``<ClassName>Backward`` as the
    ``grad_fn`` of the floating-point outputs. A gradient that ``backward`` returns in
    another floating dtype than its input's is cast to the input's dtype.

    .. note::
        A ``backward`` written with nbgrad ops is itself differentiable: double backward
        (``create_graph=True``, :func:`gradgradcheck`) goes through it. Decorate it with
        :func:`once_differentiable` when it is not (e.g. it uses NumPy).

    Example::

        >>> class Cube(nbgrad.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         ctx.save_for_backward(x)
        ...         return x ** 3
        ...     @staticmethod
        ...     def backward(ctx, grad):
        ...         (x,) = ctx.saved_tensors
        ...         return grad * 3 * x ** 2
        >>> x = nbgrad.tensor([1.0, 2.0], requires_grad=True)
        >>> y = Cube.apply(x)
        >>> y
        tensor([1., 8.], grad_fn=<CubeBackward>)
        >>> y.sum().backward()
        >>> x.grad
        tensor([ 3., 12.])
    """

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grads):
        raise NotImplementedError("You must implement the backward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        """PyTorch's second way of writing a Function: ``forward(*args)`` without ``ctx``,
        and this, called after it with the arguments and the output, fills ``ctx``. A
        Function that defines it is run that way by :meth:`apply`."""
        raise NotImplementedError("setup_context is not implemented.")

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run the operation on ``args``: call ``forward(ctx, *args, **kwargs)`` with grad
        mode off, then, when grad mode is on and a tensor argument requires grad, record
        ``ctx`` as the ``grad_fn`` of the floating-point outputs. Returns what ``forward``
        returned (an input returned unchanged comes back as a new tensor object, unless
        it was marked dirty)."""
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
            if cls.setup_context is not Function.setup_context:
                out = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, out)
            else:
                out = cls.forward(ctx, *args, **kwargs)
        single = not isinstance(out, tuple)
        outs = (out,) if single else out
        record = grad_mode.STATE.enabled and any(ctx.needs_input_grad)
        dirty_ids = {id(t) for t in ctx._dirty}
        non_diff = {id(t) for t in ctx._non_diff}
        result = []
        differentiable = []  # (decided on forward's objects: an input returned is replaced)
        for o in outs:
            differentiable.append(id(o) not in non_diff)
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
                if isinstance(o, T) and differentiable[i] and o._dtype.is_floating_point:
                    o._grad_fn = ctx
                    o._output_nr = i
                    o._rg = True
                    if id(o) in dirty_ids and (o._base is not None or o._acc is not None):
                        # a view changed in place: its base's history takes the change (and
                        # a base's views theirs), as for the built-in in-place ops
                        from ..ops.view_inplace import after_inplace

                        after_inplace(o)
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
    """Decorator for a :class:`Function`'s ``backward`` that cannot be differentiated.

    Use it when ``backward`` computes outside nbgrad's ops (with NumPy, or a kernel of
    its own), so that its result carries no graph. The decorated ``backward`` runs with
    grad mode off; when a double backward is requested (``create_graph=True`` and the
    incoming gradients require grad), its results are given a node that raises
    ``RuntimeError`` ("trying to differentiate twice a function that was marked with
    @once_differentiable") if something differentiates through it, instead of silently
    returning wrong (zero) second derivatives.

    Args:
        fn (callable): the ``backward(ctx, *grad_outputs)`` static method.

    Returns:
        callable: the wrapped ``backward``.

    Example::

        >>> import numpy as np
        >>> from nbgrad.autograd import Function, once_differentiable
        >>> class Exp(Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         y = nbgrad.from_numpy(np.exp(x.detach().numpy()))
        ...         ctx.save_for_backward(y)
        ...         return y
        ...     @staticmethod
        ...     @once_differentiable
        ...     def backward(ctx, grad):
        ...         (y,) = ctx.saved_tensors
        ...         return nbgrad.from_numpy(grad.detach().numpy() * y.detach().numpy())
        >>> x = nbgrad.zeros(2, requires_grad=True)
        >>> v = nbgrad.ones(2, requires_grad=True)   # a gradient that requires grad
        >>> (g,) = nbgrad.autograd.grad(Exp.apply(x), x, v, create_graph=True)
        >>> g
        tensor([1., 1.], grad_fn=<DelayedError>)
        >>> g.sum().backward()
        Traceback (most recent call last):
            ...
        RuntimeError: trying to differentiate twice a function that was marked with ...
    """

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
