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
    """``Parameter(data=None, requires_grad=True)``: a leaf tensor sharing ``data``'s storage
    (and version counter), with ``requires_grad`` set, that modules register as a parameter.

    The result's class is ``nbgrad.Tensor``; ``isinstance(p, nn.Parameter)`` is True.
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
    """``Buffer(data, *, persistent=True)``: ``data`` (detached, sharing its storage) marked
    so that assigning it to a Module's attribute registers it as a buffer (in
    ``state_dict`` unless ``persistent=False``), as ``register_buffer`` does.

    The result's class is ``nbgrad.Tensor``; ``isinstance(b, nn.Buffer)`` is True.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.Module()
        >>> m.scale = nbgrad.nn.Buffer(nbgrad.ones(2))
        >>> list(m.state_dict())
        ['scale']
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
    """``UninitializedParameter(requires_grad=True, device=None, dtype=None)``: a parameter
    whose shape is not known yet (a lazy module's, until its first call), holding no
    elements; ``materialize(shape)`` gives it storage of that shape in place — the same
    object, so an optimizer made before the first call updates it."""

    _parameter = True

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        from ..creation import empty

        return _lazy(Parameter(empty(0, dtype=dtype, device=device), requires_grad))


class UninitializedBuffer(metaclass=_LazyMeta):
    """``UninitializedBuffer(requires_grad=False, device=None, dtype=None)``: a buffer whose
    shape is not known yet; ``materialize(shape)`` as for ``UninitializedParameter``."""

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
