"""``Variable``: the wrapper that tensors needed before PyTorch 0.4 merged the two. Old
programs still write ``Variable(x, requires_grad=True)``; it gives a tensor, and every
tensor is an instance of it."""

import warnings

__all__ = ["Variable"]


class _VariableMeta(type):
    def __instancecheck__(cls, obj):
        from ..tensor import Tensor

        return isinstance(obj, Tensor)


class _ExecutionEngine:
    """``Variable._execution_engine``: the engine's one method that programs call."""

    @staticmethod
    def queue_callback(callback):
        from .engine import queue_callback

        queue_callback(callback)


class Variable(metaclass=_VariableMeta):
    """``Variable(data, requires_grad=False)``: a leaf tensor sharing ``data``'s memory, with
    ``requires_grad`` set (PyTorch's legacy constructor; ``volatile`` warns and does
    nothing, as there).

    Example::

        >>> import nbgrad
        >>> from nbgrad.autograd import Variable
        >>> v = Variable(nbgrad.ones(2), requires_grad=True)
        >>> v.requires_grad, v.is_leaf, isinstance(nbgrad.ones(1), Variable)
        (True, True, True)
    """

    _execution_engine = _ExecutionEngine()

    def __new__(cls, data=None, requires_grad=False, volatile=False):
        from ..creation import empty
        from ..tensor import Tensor

        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with "
                          "torch.no_grad():` instead.", UserWarning, stacklevel=2)
        if data is None:
            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got "
                            f"{type(data).__name__}")
        out = data.detach()
        if requires_grad:
            out.requires_grad_(True)
        return out
