"""``nn.Parameter``: a leaf tensor that a ``Module`` registers as one of its parameters.

A parameter is an ordinary ``nbgrad.Tensor`` (its class stays ``Tensor``, so every op takes
its fast path) that is marked as a parameter. ``isinstance(p, nn.Parameter)`` reads that
mark; results of ops on parameters, ``detach()`` and ``.data`` are plain tensors, as in
PyTorch.

>>> p = nbgrad.nn.Parameter(nbgrad.zeros(3))
>>> isinstance(p, nbgrad.nn.Parameter), p.requires_grad, p.is_leaf
(True, True, True)
"""

import weakref

from ..tensor import Tensor

_MARKED = {}  # id(tensor) -> weakref to it, for every live parameter


def _forget(key):
    def callback(ref):
        if _MARKED.get(key) is ref:
            del _MARKED[key]

    return callback


def mark(t):
    """Mark tensor ``t`` as a parameter (in place) and return it."""
    k = id(t)
    r = _MARKED.get(k)
    if r is None or r() is not t:
        _MARKED[k] = weakref.ref(t, _forget(k))
    return t


def is_parameter(obj):
    """True when ``obj`` is a tensor marked as a parameter."""
    r = _MARKED.get(id(obj))
    return r is not None and r() is obj


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

