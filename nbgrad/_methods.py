"""Tensor methods and operators, bound to the functional ops."""

from .ops import convert, elementwise as E, linalg as L, reduce as R, shape as S
from .tensor import Tensor


def _r(f):
    def reflected(self, other):
        return f(other, self)

    return reflected


def _install():
    T = Tensor
    T.__add__ = E.add
    T.__radd__ = _r(E.add)
    T.__sub__ = E.sub
    T.__rsub__ = lambda self, other: E.rsub(self, other)
    T.__mul__ = E.mul
    T.__rmul__ = _r(E.mul)
    T.__truediv__ = E.div
    T.__rtruediv__ = _r(E.div)
    T.__pow__ = E.pow
    T.__rpow__ = _r(E.pow)
    T.__matmul__ = L.matmul
    T.__rmatmul__ = _r(L.matmul)
    T.__neg__ = E.neg
    T.__abs__ = E.abs
    T.__eq__ = E.eq
    T.__ne__ = E.ne
    T.__lt__ = E.lt
    T.__le__ = E.le
    T.__gt__ = E.gt
    T.__ge__ = E.ge
    T.__getitem__ = S.getitem
    T.__hash__ = object.__hash__
    for name in ("add", "sub", "mul", "div", "pow", "neg", "exp", "log", "sqrt", "abs",
                 "sign", "tanh", "sigmoid", "relu", "eq", "ne", "lt", "le", "gt", "ge",
                 "rsub"):
        setattr(T, name, getattr(E, name))
    T.multiply = E.mul
    T.divide = E.div
    T.subtract = E.sub
    T.negative = E.neg
    T.where = lambda self, condition, other: E.where(condition, self, other)
    for name in ("sum", "mean", "amax", "amin", "max", "min", "argmax", "argmin",
                 "maximum", "minimum"):
        setattr(T, name, getattr(R, name))
    for name in ("matmul", "mm", "bmm", "dot"):
        setattr(T, name, getattr(L, name))
    for name in ("reshape", "view", "flatten", "transpose", "permute", "t", "expand",
                 "expand_as", "squeeze", "unsqueeze"):
        setattr(T, name, getattr(S, name))
    T.view_as = lambda self, other: S.view(self, tuple(other.shape))
    T.reshape_as = lambda self, other: S.reshape(self, tuple(other.shape))
    T.swapaxes = S.transpose
    T.clone = convert.clone


_install()
