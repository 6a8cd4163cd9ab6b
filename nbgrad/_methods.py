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


def _install_elementwise():
    """Tensor methods, operators and in-place methods of the elementwise ops, from the
    flags of their rows (ops/elementwise.py)."""
    from .ops import inplace as I
    from .ops.opdef import TABLE

    T = Tensor
    for op in TABLE.values():
        fn = getattr(E, op.name)
        if op.method:
            for name in (op.name,) + tuple(op.aliases):
                setattr(T, name, fn)
        for d in op.dunders:
            if d in ("__eq__", "__ne__"):
                f = _cmp_or_identity(fn, d == "__ne__")
            elif d.startswith("__r") and d != f"__{op.name}__":
                f = _r(fn)
            else:
                f = fn
            setattr(T, d, f)
        if op.inplace:
            method = _inplace_method(I, op.name + "_", fn, "alpha" in op.kwargs)
            setattr(T, op.name + "_", method)
            if op.inplace == "operator":
                setattr(T, "__i" + op.dunders[0][2:], method)

    def clamp_(self, min=None, max=None):
        bound = min if min is not None else (max if max is not None else 0)  # decides the dtype check
        return I.inplace_binary("clamp_", lambda a, _b: E.clamp(a, min, max), self, bound)

    T.clamp = T.clip = E.clamp
    T.clamp_ = clamp_
    T.where = lambda self, condition, other: E.where(condition, self, other)


def _inplace_method(I, name, fn, has_alpha):
    if has_alpha:
        def method(self, other, *, alpha=1):
            if alpha != 1:
                return I.inplace_binary(name, lambda a, b: fn(a, b, alpha=alpha), self, other)
            return I.inplace_binary(name, fn, self, other)
    else:
        def method(self, other):
            return I.inplace_binary(name, fn, self, other)

    method.__name__ = name
    method.__doc__ = f"In-place ``{fn.__name__}``; bumps ``_version``."
    return method


def _install():
    T = Tensor
    _install_elementwise()
    T.__matmul__ = L.matmul
    T.__rmatmul__ = _r(L.matmul)
    T.__getitem__ = S.getitem
    T.__hash__ = object.__hash__
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
    from .ops import inplace as I

    T = Tensor
    T.zero_ = I.zero_
    T.fill_ = I.fill_
    T.copy_ = I.copy_


_install_inplace()


def _setitem(self, key, value):
    from .ops.inplace import setitem

    setitem(self, key, value)


Tensor.__setitem__ = _setitem


def _install_concat():
    from .ops import concat as C

    Tensor.split = C.split
    Tensor.chunk = C.chunk


_install_concat()


def _install_modules():
    from .ops import conv, extra, index

    for mod in (index, conv, extra):
        for name, fn in mod.METHODS.items():
            setattr(Tensor, name, fn)


_install_modules()
