"""nbgrad dtypes and PyTorch's type-promotion rules for them.

float16 and bfloat16 are storage types: they are kept, copied, cast, printed and saved
as such, and an op on them computes in float32 (PyTorch's "opmath" type on the CPU) and
rounds its result back, as PyTorch's CPU kernels do. bfloat16 is ml_dtypes' NumPy dtype,
imported on first use (importing it takes ~0.5 s).
"""

import numpy as np


class dtype:
    """The element type of a tensor, such as ``nbgrad.float32`` or ``nbgrad.int64``.

    Each dtype is made once, when nbgrad is imported, and is a constant of the ``nbgrad``
    namespace (``nbgrad.float32``, ``nbgrad.float``, ``nbgrad.half``, ...): compare dtypes
    with ``is`` or ``==``; a program does not construct one.

    Args:
        name (str): the dtype's name (``"float32"``).
        np_dtype: the NumPy dtype its elements are stored as (``None``: looked up on first
            use, for bfloat16).
        rank (int): its place in the type-promotion order.
        cat (int): its category: ``0`` bool, ``1`` integer, ``2`` floating point.
        scalar_type (str): PyTorch's ScalarType name (``"Float"``).
        legacy (str): its legacy name (``"float"``: ``Tensor.float``, ``FloatTensor``).

    Attributes:
        is_floating_point (bool): a floating-point dtype.
        is_signed (bool): it holds negative numbers (floating dtypes and signed integers).
        itemsize (int): the size of one element, in bytes.

    Example::

        >>> import nbgrad
        >>> d = nbgrad.ones(2).dtype
        >>> d, d.is_floating_point, d.itemsize
        (nbgrad.float32, True, 4)
        >>> d is nbgrad.float
        True
    """

    __slots__ = ("name", "np", "is_floating_point", "itemsize", "is_signed", "low", "_rank",
                 "_cat", "scalar_type", "legacy", "_narrow", "number", "cpp")

    def __init__(self, name, np_dtype, rank, cat, scalar_type, legacy):
        self.name = name
        if np_dtype is not None:  # (None: a subclass's property gives it)
            self.np = np.dtype(np_dtype)
        self.itemsize = 2 if np_dtype is None else self.np.itemsize
        self.is_floating_point = cat == 2
        self.is_signed = cat == 2 or (cat == 1 and np.dtype(np_dtype).kind == "i")
        # a reduced-precision float: ops compute in float32 and round back (see above)
        self.low = name in ("float16", "bfloat16")
        self._rank = rank  # position in the promotion lattice
        self._cat = cat  # 0 bool, 1 integer, 2 floating
        self.scalar_type = scalar_type  # PyTorch's ScalarType name ("Float", "Half")
        self.legacy = legacy  # its legacy name ("float", "half"): Tensor.half, HalfTensor
        self.cpp = _CPP[name]  # C++'s name of the type ("long int"), in PyTorch's messages
        # an integer type narrower than 64 bits: a float becomes one through int64, and a
        # Python int wraps into its range, as C's casts in PyTorch do (300 -> 44 in uint8)
        self._narrow = cat == 1 and name != "int64"
        if np_dtype is not None:  # (bfloat16's: a property)
            nd = np.dtype(np_dtype)
            self.number = _wrapping(nd) if self._narrow else nd.type

    def __repr__(self):
        return "nbgrad." + self.name

    def __reduce__(self):
        return (_by_name, (self.name,))


def _wrapping(nd):
    """A converter of Python numbers to NumPy integers of ``nd`` that wraps out-of-range
    values (NumPy refuses them)."""
    t, info = nd.type, np.iinfo(nd)
    lo, hi, span = int(info.min), int(info.max), 1 << (8 * nd.itemsize)

    def number(v):
        if lo <= v <= hi:
            return t(v)
        return t((int(v) - lo) % span + lo)

    return number


class _BFloat16(dtype):
    """bfloat16, whose NumPy dtype (ml_dtypes') is imported when first asked for."""

    __slots__ = ()

    @property
    def number(self):
        return self.np.type

    @property
    def np(self):
        if not _BF16:
            import ml_dtypes

            _BF16.append(np.dtype(ml_dtypes.bfloat16))
            _FROM_NP[_BF16[0]] = self
        return _BF16[0]


_BF16 = []
_CPP = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int",
        "int32": "int", "int64": "long int", "float16": "c10::Half",
        "bfloat16": "c10::BFloat16", "float32": "float", "float64": "double"}
bool_ = dtype("bool", np.bool_, 0, 0, "Bool", "bool")
uint8 = dtype("uint8", np.uint8, 1, 1, "Byte", "byte")
int8 = dtype("int8", np.int8, 1, 1, "Char", "char")
int16 = dtype("int16", np.int16, 2, 1, "Short", "short")
int32 = dtype("int32", np.int32, 3, 1, "Int", "int")
int64 = dtype("int64", np.int64, 4, 1, "Long", "long")
float16 = dtype("float16", np.float16, 5, 2, "Half", "half")
bfloat16 = _BFloat16("bfloat16", None, 5, 2, "BFloat16", "bfloat16")
float32 = dtype("float32", np.float32, 6, 2, "Float", "float")
float64 = dtype("float64", np.float64, 7, 2, "Double", "double")

ALL = (bool_, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64)
LOW = (float16, bfloat16)
_FROM_NP = {d.np: d for d in ALL if d is not bfloat16}  # (bfloat16's: on first use)
_NAMES = {d.name: d for d in ALL}
_NAMES.update({d.legacy: d for d in ALL})
_BY_RANK = sorted(ALL, key=lambda d: d._rank)

_default = [float32]


def _by_name(name):
    return _NAMES[name]


def get_default_dtype():
    """get_default_dtype() -> nbgrad.dtype

    The default floating-point dtype: that of the tensors made from Python floats and of
    the factory functions' results (``zeros``, ``randn``, ...) when no ``dtype`` is given.
    ``nbgrad.float32`` unless changed by :func:`set_default_dtype`.

    Example::

        >>> import nbgrad
        >>> nbgrad.get_default_dtype()
        nbgrad.float32
        >>> nbgrad.tensor([1.5]).dtype
        nbgrad.float32
    """
    return _default[0]


def set_default_dtype(d):
    """set_default_dtype(d) -> None

    Set the default floating-point dtype (see :func:`get_default_dtype`): tensors made from
    Python floats and the factory functions' results then take it.

    Args:
        d (nbgrad.dtype): a floating-point dtype, ``nbgrad.float32`` or ``nbgrad.float64``
            (another dtype raises ``TypeError``).

    Example::

        >>> import nbgrad
        >>> nbgrad.set_default_dtype(nbgrad.float64)
        >>> nbgrad.tensor([1.5]).dtype
        nbgrad.float64
        >>> nbgrad.set_default_dtype(nbgrad.float32)
    """
    d = as_dtype(d)
    if not d.is_floating_point:
        raise TypeError(f"only floating-point types are supported as the default type, got {d}")
    _default[0] = d


def as_dtype(d):
    """Turn an nbgrad dtype, NumPy dtype, Python type or name into an nbgrad dtype."""
    if isinstance(d, dtype):
        return d
    if d is float:  # (Python's float is a double, as in PyTorch, whatever the default)
        return float64
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
    if nd.name == "bfloat16" and not _BF16:  # (ml_dtypes' dtype, before nbgrad asked for it)
        bfloat16.np  # noqa: B018
    r = _FROM_NP.get(nd)
    if r is None:
        raise TypeError(f"unsupported dtype {nd}: nbgrad supports "
                        f"{', '.join(d.name for d in ALL)}")
    return r


_C_INT = {"uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int",
          "int64": "int64_t"}


def checked_value(value, np_dtype):
    """Python number ``value`` as an integer dtype's value, as PyTorch converts a scalar
    (``fill_``, ``full``, ``where``'s number): an integer within range, or a negative one
    no larger than the maximum into an unsigned type (it wraps: -1 is 255 in uint8); a
    float truncated towards zero when in range. Anything else is PyTorch's RuntimeError.
    Values for other dtypes pass through."""
    nd = np.dtype(np_dtype)
    if nd.kind not in "iu" or isinstance(value, (bool, np.bool_)):
        return value
    info = np.iinfo(nd)
    v = value
    if isinstance(v, (float, np.floating)):
        ok = v == v and info.min <= v <= info.max  # (a negative float into uint8: never)
        v = int(v) if ok else v
    else:
        v = int(v)
        ok = info.min <= v <= info.max or (nd.kind == "u" and -info.max <= v < 0)
    if not ok:
        raise RuntimeError(f"value cannot be converted to type {_C_INT[nd.name]} without "
                           "overflow")
    return v % (info.max + 1) if v < 0 and nd.kind == "u" else v


def from_numpy_dtype(nd):
    """nbgrad dtype of a NumPy dtype; a type nbgrad lacks (uint8, complex64) raises
    TypeError."""
    r = _FROM_NP.get(nd)
    if r is None:
        return as_dtype(nd)
    return r


def promote_types(type1, type2):
    """promote_types(type1, type2) -> nbgrad.dtype

    The smallest dtype that both ``type1`` and ``type2`` convert to without losing their
    range or category (PyTorch's promotion lattice): ``int32`` and ``float16`` give
    ``float16``, ``uint8`` and ``int8`` give ``int16``, ``float16`` and ``bfloat16`` give
    ``float32``.

    Args:
        type1 (nbgrad.dtype): the first dtype.
        type2 (nbgrad.dtype): the second dtype.

    Example::

        >>> import nbgrad
        >>> nbgrad.promote_types(nbgrad.int32, nbgrad.float16)
        nbgrad.float16
        >>> nbgrad.promote_types(nbgrad.float16, nbgrad.bfloat16)
        nbgrad.float32
    """
    if type1._rank == type2._rank and type1 is not type2:  # neither holds the other: the
        # next type up (float16 and bfloat16: float32; uint8 and int8: int16)
        return float32 if type1._cat == 2 else int16
    return type1 if type1._rank >= type2._rank else type2


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


class finfo:  # noqa: N801  (PyTorch's name)
    """The numerical properties of a floating-point dtype, as PyTorch's ``torch.finfo``.

    Args:
        type (nbgrad.dtype, optional): a floating-point dtype. Default: ``None``, the default
            dtype.

    Attributes:
        bits (int): the number of bits of an element.
        eps (float): the difference between 1.0 and the next representable number.
        max (float): the largest finite number.
        min (float): the most negative finite number (``-max``).
        tiny (float): the smallest positive normal number (the same as ``smallest_normal``).
        smallest_normal (float): the smallest positive normal number.
        resolution (float): the approximate decimal resolution, ``10 ** -precision``.
        dtype (str): the dtype's name.

    Example::

        >>> import nbgrad
        >>> nbgrad.finfo(nbgrad.float16).max
        65504.0
        >>> nbgrad.finfo(nbgrad.bfloat16).eps
        0.0078125
        >>> nbgrad.finfo().bits
        32
    """

    def __init__(self, type=None):  # noqa: A002  (PyTorch's argument name)
        d = _default[0] if type is None else as_dtype(type)
        if not d.is_floating_point:
            raise TypeError("nbgrad.finfo() requires a floating point input type. Use "
                            "nbgrad.iinfo to handle 'nbgrad.finfo'")
        if d is bfloat16:
            import ml_dtypes

            f = ml_dtypes.finfo(d.np)
        else:
            f = np.finfo(d.np)
        self.bits, self.dtype = d.itemsize * 8, d.name
        self.eps, self.max, self.min = float(f.eps), float(f.max), float(f.min)
        self.tiny = self.smallest_normal = float(f.smallest_normal)
        self.resolution = 10.0 ** -int(f.precision)  # (exact: NumPy's is a 16-bit value)

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, "
                f"tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:  # noqa: N801  (PyTorch's name)
    """The range of an integer dtype, as PyTorch's ``torch.iinfo``.

    Args:
        type (nbgrad.dtype): an integer dtype (``uint8``, ``int8`` ... ``int64``).

    Attributes:
        bits (int): the number of bits of an element.
        max (int): the largest value.
        min (int): the smallest value.
        dtype (str): the dtype's name.

    Example::

        >>> import nbgrad
        >>> nbgrad.iinfo(nbgrad.int32).max
        2147483647
        >>> nbgrad.iinfo(nbgrad.int8)
        iinfo(min=-128, max=127, dtype=int8)
    """

    def __init__(self, type):  # noqa: A002  (PyTorch's argument name)
        d = as_dtype(type)
        if d._cat != 1:
            raise TypeError("nbgrad.iinfo() requires an integer input type. Use nbgrad.finfo "
                            "to handle 'nbgrad.iinfo'")
        i = np.iinfo(d.np)
        self.bits, self.dtype = d.itemsize * 8, d.name
        self.max, self.min = int(i.max), int(i.min)

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"
