"""Every Tensor method and operator that runs an op, bound from one table.

``tensor.py`` defines what a Tensor is (storage, dtype, device, its place in the graph,
conversion to host values) and imports no op; each method that computes is a row of
``METHODS`` below, bound onto ``Tensor`` by the loop at the end. Add a method here, as a row.
"""

import numpy as np

from . import dtypes as _dt
from .device import as_device
from .ops import advanced_index as AIx
from .ops import concat as C
from .ops import convert
from .ops import elementwise as E
from .ops import index as Ix
from .ops import inplace as I
from .ops import linalg as L
from .ops import math as M
from .ops import reduce as R
from .ops import shape as S
from .ops import stats as St
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


def _inplace_alpha(op, fn):
    def method(self, other, *, alpha=1):
        if alpha != 1:
            return I.inplace_binary(op, lambda a, b: fn(a, b, alpha=alpha), self, other)
        return I.inplace_binary(op, fn, self, other)

    method.__name__ = op
    method.__doc__ = f"In-place ``{fn.__name__}``; bumps ``_version``."
    return method


def _inplace(op, fn):
    return lambda self, other: I.inplace_binary(op, fn, self, other)


def _clamp_(self, min=None, max=None):
    bound = min if min is not None else (max if max is not None else 0)  # decides the dtype check
    return I.inplace_binary("clamp_", lambda a, _b: M.clamp(a, min, max), self, bound)


def _to(self, *args, **kwargs):
    """A copy on another device and/or dtype (``self`` when nothing changes)."""
    return convert.to(self, *args, **kwargs)


def _cuda(self, device=None):
    return self.to("cuda" if device is None else as_device(device if not isinstance(device, int) else f"cuda:{device}"))


def _contiguous(self):
    """``self`` if C-contiguous, else a contiguous copy."""
    if self.is_contiguous():
        return self
    return convert.clone(self)


def _converter(dt):
    return lambda self: self.to(dt)


_add_ = _inplace_alpha("add_", E.add)
_sub_ = _inplace_alpha("sub_", E.sub)
_mul_ = _inplace("mul_", E.mul)
_div_ = _inplace("div_", E.div)

# name -> function (or property), bound onto Tensor as is
METHODS = {
    # operators
    "__add__": E.add, "__radd__": _r(E.add),
    "__sub__": E.sub, "__rsub__": lambda self, other: E.rsub(self, other),
    "__mul__": E.mul, "__rmul__": _r(E.mul),
    "__truediv__": E.div, "__rtruediv__": _r(E.div),
    "__pow__": E.pow, "__rpow__": _r(E.pow),
    "__matmul__": L.matmul, "__rmatmul__": _r(L.matmul),
    "__neg__": E.neg, "__abs__": E.abs,
    "__eq__": _cmp_or_identity(E.eq, False), "__ne__": _cmp_or_identity(E.ne, True),
    "__lt__": E.lt, "__le__": E.le, "__gt__": E.gt, "__ge__": E.ge,
    "__getitem__": S.getitem, "__setitem__": I.setitem,
    "__iadd__": _add_, "__isub__": _sub_, "__imul__": _mul_, "__itruediv__": _div_,
    # elementwise
    **{n: getattr(E, n) for n in (
        "add", "sub", "mul", "div", "pow", "neg", "exp", "log", "sqrt", "abs", "sign", "tanh",
        "sigmoid", "relu", "eq", "ne", "lt", "le", "gt", "ge", "rsub")},
    "multiply": E.mul, "divide": E.div, "subtract": E.sub, "negative": E.neg,
    "where": lambda self, condition, other: E.where(condition, self, other),
    **{n: getattr(M, n) for n in (
        "log1p", "expm1", "rsqrt", "sin", "cos", "tan", "erf", "clamp", "clamp_min",
        "clamp_max")},
    "clip": M.clamp,
    # in place
    "add_": _add_, "sub_": _sub_, "mul_": _mul_, "div_": _div_, "pow_": _inplace("pow_", E.pow),
    "clamp_": _clamp_, "zero_": I.zero_, "fill_": I.fill_, "copy_": I.copy_,
    # reductions
    **{n: getattr(R, n) for n in (
        "sum", "mean", "amax", "amin", "max", "min", "argmax", "argmin", "maximum", "minimum")},
    "var": St.var, "std": St.std, "prod": R.prod, "logsumexp": R.logsumexp,
    "norm": L._norm_method,
    # linear algebra
    "matmul": L.matmul, "mm": L.mm, "bmm": L.bmm, "dot": L.dot, "outer": L.outer,
    "ger": L.outer,
    # shape and views
    **{n: getattr(S, n) for n in (
        "reshape", "view", "flatten", "transpose", "permute", "t", "expand", "expand_as",
        "squeeze", "unsqueeze")},
    "view_as": lambda self, other: S.view(self, tuple(other.shape)),
    "reshape_as": lambda self, other: S.reshape(self, tuple(other.shape)),
    "swapaxes": S.transpose,
    "T": property(lambda self: S.permute(self, tuple(range(self.ndim - 1, -1, -1)))),
    "mT": property(lambda self: S.transpose(self, -2, -1)),
    "split": C.split, "chunk": C.chunk,
    "repeat": S.repeat, "tile": S._tile_method, "flip": S._flip_method,
    # indexing
    **{n: getattr(Ix, n) for n in (
        "index_select", "index_add", "index_add_", "gather", "scatter_add", "scatter_add_",
        "take_along_dim")},
    "index_put": AIx.index_put, "index_put_": AIx.index_put_,
    # copies and conversions
    "clone": convert.clone, "contiguous": _contiguous, "to": _to,
    "cpu": lambda self: self.to("cpu"), "cuda": _cuda,
    "type_as": lambda self, other: self.to(other._dtype),
    "float": _converter(_dt.float32), "double": _converter(_dt.float64),
    "long": _converter(_dt.int64), "int": _converter(_dt.int32), "bool": _converter(_dt.bool_),
}

for _name, _fn in METHODS.items():
    setattr(Tensor, _name, _fn)
