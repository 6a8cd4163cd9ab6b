"""nbgrad dtypes and PyTorch's type-promotion rules for them."""

import numpy as np


class dtype:
    """A tensor element type, e.g. ``nbgrad.float32``."""

    __slots__ = ("name", "np", "is_floating_point", "itemsize", "_rank", "_cat")

    def __init__(self, name, np_dtype, rank, cat):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.itemsize = self.np.itemsize
        self.is_floating_point = cat == 2
        self._rank = rank  # position in the promotion lattice
        self._cat = cat  # 0 bool, 1 integer, 2 floating

    def __repr__(self):
        return "nbgrad." + self.name

    def __reduce__(self):
        return (_by_name, (self.name,))


bool_ = dtype("bool", np.bool_, 0, 0)
int32 = dtype("int32", np.int32, 1, 1)
int64 = dtype("int64", np.int64, 2, 1)
float32 = dtype("float32", np.float32, 3, 2)
float64 = dtype("float64", np.float64, 4, 2)

ALL = (bool_, int32, int64, float32, float64)
_FROM_NP = {d.np: d for d in ALL}
_NAMES = {d.name: d for d in ALL}
_NAMES.update({"float": float32, "double": float64, "long": int64, "int": int32})
_BY_RANK = sorted(ALL, key=lambda d: d._rank)

_default = [float32]


def _by_name(name):
    return _NAMES[name]


def get_default_dtype():
    """Return the default floating dtype (``nbgrad.float32`` unless changed)."""
    return _default[0]


def set_default_dtype(d):
    """Set the default floating dtype; only float32 and float64 are allowed."""
    d = as_dtype(d)
    if not d.is_floating_point:
        raise TypeError(f"only floating-point types are supported as the default type, got {d}")
    _default[0] = d


def as_dtype(d):
    """Turn an nbgrad dtype, NumPy dtype, Python type or name into an nbgrad dtype."""
    if isinstance(d, dtype):
        return d
    if d is float:
        return _default[0]
    if d is int:
        return int64
    if d is bool:
        return bool_
    if isinstance(d, str) and d in _NAMES:
        return _NAMES[d]
    try:
        nd = np.dtype(d)
    except TypeError:
        raise TypeError(f"unsupported dtype {d!r}") from None
    r = _FROM_NP.get(nd)
    if r is None:
        raise TypeError(
            f"unsupported dtype {nd}: nbgrad supports float32, float64, int64, int32 and bool"
        )
    return r


def from_numpy_dtype(nd):
    """nbgrad dtype of a NumPy dtype; float16 and other types raise TypeError."""
    r = _FROM_NP.get(nd)
    if r is None:
        return as_dtype(nd)
    return r


def promote_types(a, b):
    """The smallest dtype both ``a`` and ``b`` convert to, as ``torch.promote_types``."""
    return a if a._rank >= b._rank else b


def result_type(tensors, scalars=()):
    """PyTorch's result type: dimensioned tensors, then 0-dim tensors, then Python scalars.

    A lower priority participant only changes the result when its category (bool <
    integer < floating) is higher than the result so far.
    """
    dim_t = None
    zero_t = None
    for t in tensors:
        d = t.dtype
        if t.ndim:
            dim_t = d if dim_t is None else promote_types(dim_t, d)
        else:
            zero_t = d if zero_t is None else promote_types(zero_t, d)
    res = dim_t
    if zero_t is not None:
        if res is None:
            res = zero_t
        elif zero_t._cat > res._cat:
            res = zero_t
    for s in scalars:
        if isinstance(s, bool):
            sd = bool_
        elif isinstance(s, int):
            sd = int64
        else:
            sd = _default[0]
        if res is None:
            res = sd
        elif sd._cat > res._cat:
            res = sd
    return res
