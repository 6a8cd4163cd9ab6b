"""``nn.Parameter``: a leaf tensor that a ``Module`` registers as one of its parameters.

A parameter is an ordinary ``nbgrad.Tensor`` (its class stays ``Tensor``, so every op takes
its fast path) that is marked as a parameter. ``isinstance(p, nn.Parameter)`` reads that
mark; results of ops on parameters, ``detach()`` and ``.data`` are plain tensors, as in
PyTorch.

>>> p = nbgrad.nn.Parameter(nbgrad.zeros(3))
>>> isinstance(p, nbgrad.nn.Parameter), p.requires_grad, p.is_leaf
(True, True, True)
"""

from ..tensor import Tensor, is_parameter
from ..tensor import mark_parameter as mark

__all__ = ["Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer", "is_lazy",
           "is_parameter", "mark"]


class _ParameterMeta(type):
    def __instancecheck__(cls, obj):
        return is_parameter(obj)


class Parameter(metaclass=_ParameterMeta):
    """A tensor that is a module's learnable parameter.

    Assigning a ``Parameter`` to an attribute of a :class:`~nbgrad.nn.Module` registers
    it: it then appears in the module's ``parameters()`` (what an optimizer is given)
    and ``state_dict()``. A plain tensor assigned so is not registered. The parameter is
    a leaf sharing ``data``'s storage (and version counter), with ``requires_grad`` set.

    Unlike PyTorch's, the result's class is ``nbgrad.Tensor`` itself (so every op takes
    its fast path), marked as a parameter: ``isinstance(p, nn.Parameter)`` is ``True``,
    and the results of ops on it, ``detach()`` and ``.data`` are plain tensors.

    Args:
        data (Tensor, optional): the parameter's values. Default: ``None``, an empty
            tensor.
        requires_grad (bool, optional): whether the parameter requires a gradient.
            Default: ``True``.

    Example::

        >>> import nbgrad
        >>> p = nbgrad.nn.Parameter(nbgrad.tensor([1.0, 2.0]))
        >>> p
        Parameter containing:
        tensor([1., 2.], requires_grad=True)
        >>> isinstance(p, nbgrad.nn.Parameter), isinstance(p * 2, nbgrad.nn.Parameter)
        (True, False)
        >>> m = nbgrad.nn.Module()
        >>> m.w = p
        >>> [name for name, _ in m.named_parameters()]
        ['w']
    """

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            from ..creation import empty

            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(
                f"Parameter(): expected a Tensor as data, but got {type(data).__name__}"
            )
        p = data.detach()
        if requires_grad:
            if not p._dtype.is_floating_point:  # (PyTorch's factory's words)
                raise RuntimeError("Only Tensors of floating point and complex dtype can "
                                   "require gradients")
            p.requires_grad_(True)
        return mark(p)



# ----- nn.Buffer: a tensor a Module registers as a buffer when assigned to an attribute ------
_BUFFERS = {}  # id(tensor) -> (weakref to it, persistent), for every live marked buffer


def _forget_buffer(key):
    def callback(ref):
        if _BUFFERS.get(key, (None,))[0] is ref:
            del _BUFFERS[key]

    return callback


def buffer_mark(obj):
    """``(True, persistent)`` for a tensor made by ``nn.Buffer``, else ``(False, None)``."""
    entry = _BUFFERS.get(id(obj))
    if entry is not None and entry[0]() is obj:
        return True, entry[1]
    return False, None


class _BufferMeta(type):
    def __instancecheck__(cls, obj):
        return buffer_mark(obj)[0]


class Buffer(metaclass=_BufferMeta):
    """A tensor that is a module's buffer: state that is saved and moved, but not trained.

    Assigning a ``Buffer`` to an attribute of a :class:`~nbgrad.nn.Module` registers it
    as a buffer, as :meth:`~nbgrad.nn.Module.register_buffer` does: it is in the
    module's ``buffers()``, is moved by ``to()``, and is saved in ``state_dict()``
    unless ``persistent=False`` (batch norm's running statistics are buffers). The
    buffer is ``data`` detached, sharing its storage; its class is ``nbgrad.Tensor``,
    and ``isinstance(b, nn.Buffer)`` is ``True``.

    Args:
        data (Tensor, optional): the buffer's values. Default: ``None``, an empty tensor.
        persistent (bool, optional): whether the buffer is part of the module's
            ``state_dict`` (keyword only). Default: ``True``.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.Module()
        >>> m.scale = nbgrad.nn.Buffer(nbgrad.ones(2))
        >>> m.cache = nbgrad.nn.Buffer(nbgrad.zeros(2), persistent=False)
        >>> list(m.state_dict()), [name for name, _ in m.named_buffers()]
        (['scale'], ['scale', 'cache'])
    """

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            from ..creation import empty

            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Buffer(): expected a Tensor as data, but got "
                            f"{type(data).__name__}")
        import weakref

        b = data.detach()
        _BUFFERS[id(b)] = (weakref.ref(b, _forget_buffer(id(b))), bool(persistent))
        return b


# ----- uninitialized parameters and buffers (the lazy modules'), shaped at a first call --------
_LAZY = {}  # id(tensor) -> weakref to it, for every tensor not yet materialized


def is_lazy(obj):
    """Whether ``obj`` is an uninitialized parameter or buffer (not yet materialized)."""
    r = _LAZY.get(id(obj))
    return r is not None and r() is obj


def _lazy(t):
    import weakref

    key = id(t)

    def forget(ref):
        if _LAZY.get(key) is ref:
            del _LAZY[key]

    _LAZY[key] = weakref.ref(t, forget)
    return t


class _LazyMeta(type):
    def __instancecheck__(cls, obj):
        return is_lazy(obj) and (is_parameter(obj) == cls._parameter)


class UninitializedParameter(metaclass=_LazyMeta):
    """A parameter whose shape is not known yet: a lazy module's, until its first call.

    It holds no elements. The lazy module's first call gives it its shape in place
    (``nbgrad.nn.parameter.materialize(p, shape)``), after which it is an ordinary
    parameter; being the same object, an optimizer made before that call updates it.
    ``isinstance(p, nn.UninitializedParameter)`` is ``True`` until then.

    Args:
        requires_grad (bool, optional): whether the parameter requires a gradient.
            Default: ``True``.
        device (nbgrad.device, optional): its device. Default: the default device.
        dtype (nbgrad.dtype, optional): its dtype. Default: the default dtype.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.LazyLinear(3)
        >>> w = m.weight
        >>> isinstance(w, nbgrad.nn.UninitializedParameter), w.shape
        (True, nbgrad.Size([0]))
        >>> _ = m(nbgrad.ones(2, 5))
        >>> w is m.weight, isinstance(w, nbgrad.nn.UninitializedParameter), w.shape
        (True, False, nbgrad.Size([3, 5]))
    """

    _parameter = True

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        from ..creation import empty

        return _lazy(Parameter(empty(0, dtype=dtype, device=device), requires_grad))


class UninitializedBuffer(metaclass=_LazyMeta):
    """A buffer whose shape is not known yet: a lazy module's, until its first call.

    As :class:`UninitializedParameter`, for buffers (a lazy batch norm's running
    statistics): it holds no elements until the lazy module's first call shapes it.

    Args:
        requires_grad (bool, optional): whether the buffer requires a gradient.
            Default: ``False``.
        device (nbgrad.device, optional): its device. Default: the default device.
        dtype (nbgrad.dtype, optional): its dtype. Default: the default dtype.

    Example::

        >>> import nbgrad
        >>> bn = nbgrad.nn.LazyBatchNorm1d()
        >>> isinstance(bn.running_mean, nbgrad.nn.UninitializedBuffer)
        True
        >>> _ = bn(nbgrad.randn(4, 3))
        >>> bn.running_mean.shape
        nbgrad.Size([3])
    """

    _parameter = False

    def __new__(cls, requires_grad=False, device=None, dtype=None):
        from ..creation import empty

        return _lazy(empty(0, dtype=dtype, device=device, requires_grad=requires_grad))


def materialize(t, shape):
    """Give uninitialized ``t`` storage of ``shape`` (its dtype and device), uninitialized
    values, in place; it is then an ordinary parameter or buffer."""
    from ..creation import empty

    if not is_lazy(t):
        raise RuntimeError("materialize() expects an uninitialized parameter or buffer")
    t._data = empty(tuple(shape), dtype=t.dtype, device=t.device)._data
    t._vc[0] += 1
    del _LAZY[id(t)]
    return t
