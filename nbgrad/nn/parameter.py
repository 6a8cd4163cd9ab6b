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

__all__ = ["Parameter", "is_parameter", "mark"]


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

