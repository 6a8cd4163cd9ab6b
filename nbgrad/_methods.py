"""Tensor methods and operators, bound to the functional ops."""

import numpy as np

from .ops import convert
from .ops import elementwise as E
from .ops import linalg as L
from .ops import reduce as R
from .ops import shape as S
from .tensor import Tensor


def _r(f):
    def reflected(self, other):
        return f(other, self)

    return reflected


def _cmp_or_identity(fn, default):
    # like torch: comparing with a non-number (None, a string) is plain Python equality
    def op(self, other):
        if isinstance(other, (Tensor, bool, int, float, np.number)):
            return fn(self, other)
        return default

    return op


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
    T.__eq__ = _cmp_or_identity(E.eq, False)
    T.__ne__ = _cmp_or_identity(E.ne, True)
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


def _install_inplace():
    from .ops import elementwise as E
    from .ops import inplace as I

    T = Tensor

    def mk(op, fn):
        def method(self, other, *, alpha=1):
            if alpha != 1:
                return I.inplace_binary(op, lambda a, b: fn(a, b, alpha=alpha), self, other)
            return I.inplace_binary(op, fn, self, other)

        method.__name__ = op
        method.__doc__ = f"In-place ``{fn.__name__}``; bumps ``_version``."
        return method

    T.add_ = mk("add_", E.add)
    T.sub_ = mk("sub_", E.sub)
    T.mul_ = lambda self, other: I.inplace_binary("mul_", E.mul, self, other)
    T.div_ = lambda self, other: I.inplace_binary("div_", E.div, self, other)
    T.pow_ = lambda self, other: I.inplace_binary("pow_", E.pow, self, other)
    T.__iadd__ = T.add_
    T.__isub__ = T.sub_
    T.__imul__ = T.mul_
    T.__itruediv__ = T.div_
    T.zero_ = I.zero_
    T.fill_ = I.fill_
    T.copy_ = I.copy_


_install_inplace()


def _setitem(self, key, value):
    from .ops.inplace import setitem

    setitem(self, key, value)


Tensor.__setitem__ = _setitem


def _install_math():
    from .ops import inplace as I
    from .ops import math as M

    for name in ("log1p", "expm1", "rsqrt", "sin", "cos", "tan", "erf", "clamp", "clamp_min",
                 "clamp_max"):
        setattr(Tensor, name, getattr(M, name))
    Tensor.clip = M.clamp

    def clamp_(self, min=None, max=None):
        bound = min if min is not None else (max if max is not None else 0)  # decides the dtype check
        return I.inplace_binary("clamp_", lambda a, _b: M.clamp(a, min, max), self, bound)

    Tensor.clamp_ = clamp_


_install_math()


def _install_concat():
    from .ops import concat as C

    Tensor.split = C.split
    Tensor.chunk = C.chunk


_install_concat()


def _install_modules():
    from .ops import advanced_index, conv, index, linalg, reduce, shape, stats

    for mod in (index, advanced_index, conv, reduce, stats, linalg, shape):
        for name, fn in mod.METHODS.items():
            setattr(Tensor, name, fn)


_install_modules()
