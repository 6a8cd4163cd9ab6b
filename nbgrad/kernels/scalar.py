"""Per-element math as ``@njit`` functions, shared by the CPU loops and device kernels.

Each forward op has a function here, and each fused backward op (``tanh_bwd(g, y)``)
too, so one kernel computes a whole backward step.
"""

import math

from numba import njit
from numpy import float32 as _np_f32
from numpy import float64 as _np_f64
from numpy import nextafter as _np_nextafter

_jit = njit(inline="always", nogil=True)


@_jit
def add(a, b):
    return a + b


@_jit
def sub(a, b):
    return a - b


@_jit
def mul(a, b):
    return a * b


@_jit
def div(a, b):
    return a / b


@_jit
def pow_(a, b):
    return a**b


@_jit
def reciprocal(a):
    return 1 / a


@_jit
def neg(a):
    return -a


@_jit
def ident(a):
    return a


@_jit
def exp(a):
    return math.exp(a)


@_jit
def log(a):
    # math.log raises on 0 and negatives in Numba; PyTorch returns -inf / nan.
    if a > 0:
        return math.log(a)
    if a == 0:
        return -math.inf
    return math.nan


@_jit
def sqrt(a):
    if a >= 0:
        return math.sqrt(a)
    return math.nan


@_jit
def abs_(a):
    return abs(a)


@_jit
def sign(a):
    # PyTorch: sign(nan) and sign(-0.0) are +0 (so abs's gradient at nan is 0)
    if a > 0:
        return 1
    if a < 0:
        return -1
    return 0


@_jit
def tanh(a):
    return math.tanh(a)


@_jit
def sigmoid(a):
    if a >= 0:
        return 1.0 / (1.0 + math.exp(-a))
    e = math.exp(a)
    return e / (1.0 + e)


@_jit
def relu(a):
    # PyTorch's clamp_min(a, 0): nan and -0.0 pass through
    if a < 0:
        return 0
    return a


@_jit
def softplus(a):
    # PyTorch's threshold 20: above it log1p(exp(a)) rounds to a, and exp could overflow
    if a > 20:
        return a
    return math.log1p(math.exp(a))


# ----- rounding and the division with a rounding mode ------------------------------------
# PyTorch's div_floor and remainder: Python's // and % (Numba's, floats and integers alike),
# except that a zero remainder keeps fmod's sign (a's), where Python gives it b's
@_jit
def floordiv(a, b):
    return a // b


@_jit
def remainder(a, b):
    r = a % b
    if r == 0:
        r = 0 * a
    return r


@_jit
def fmod(a, b):
    # floats: C's fmod. Of magnitudes Python's % is exact (it needs no sign fix-up, the
    # step that rounds), and the result takes a's sign
    return math.copysign(abs(a) % abs(b), a)


@_jit
def fmod_int(a, b):
    # integers: the remainder of the truncating division, a's sign
    r = a % b
    if r != 0 and (r < 0) != (a < 0):
        r -= b
    return r


@_jit
def div_trunc_int(a, b):
    # integers: C's truncating division (a float quotient would round large int64s)
    q = a // b
    if q < 0 and q * b != a:
        q += 1
    return q


# math.floor and friends give integers: values that are already whole (|a| >= 2**52, inf,
# nan) pass through, and a zero result takes a's sign as C's floor(-0.5) = -0.0 does
def _to_whole(name, to_int):
    def body(a):
        if not abs(a) < 4503599627370496.0:
            return a
        r = a - a + to_int(a)
        if r == 0:
            r = 0 * a
        return r

    body.__name__ = body.__qualname__ = name
    return _jit(body)


floor = _to_whole("floor", math.floor)
ceil = _to_whole("ceil", math.ceil)
trunc = _to_whole("trunc", math.trunc)
round_ = _to_whole("round_", round)  # Python's round: halves to even, as nearbyint


@_jit
def div_trunc(a, b):
    # floats: the rounded quotient truncated, as PyTorch's trunc(a / b)
    return trunc(a / b)


@_jit
def frac(a):
    return a - trunc(a)


@_jit
def eq(a, b):
    return a == b


@_jit
def ne(a, b):
    return a != b


@_jit
def lt(a, b):
    return a < b


@_jit
def le(a, b):
    return a <= b


@_jit
def gt(a, b):
    return a > b


@_jit
def ge(a, b):
    return a >= b


# fused backward steps: (incoming gradient, saved value) -> gradient of the input
@_jit
def tanh_bwd(g, y):
    return g * (1 - y * y)


@_jit
def twice_mul(g, a):
    # g * (2 * a) bit for bit: a + a is 2 * a without rounding
    return g * (a + a)


@_jit
def neg_twice_mul(g, a):
    return g * -(a + a)


@_jit
def sigmoid_bwd(g, y):
    return g * (y * (1 - y))


@_jit
def relu_bwd(g, x):
    # PyTorch's threshold_backward: zero where x <= 0, so the gradient passes at nan
    if x <= 0:
        return 0
    return g


@_jit
def where(c, a, b):
    return a if c else b


# clamp's backward in one pass (PyTorch's clamp_backward: the gradient passes where
# ``x >= min`` / ``x <= max``, so a NaN in ``x`` or in the bound stops it)
@_jit
def clamp_min_bwd(g, x, lo):
    if x >= lo:
        return g
    return 0


@_jit
def clamp_max_bwd(g, x, hi):
    if x <= hi:
        return g
    return 0


@_jit
def log1p(a):
    if a > -1:
        return math.log1p(a)
    if a == -1:
        return -math.inf
    return math.nan


@_jit
def expm1(a):
    return math.expm1(a)


@_jit
def rsqrt(a):
    if a > 0:
        return 1.0 / math.sqrt(a)
    if a == 0:
        return math.copysign(math.inf, a)  # 1 / sqrt(-0.0) is -inf
    return math.nan


@_jit
def sin(a):
    return math.sin(a)


@_jit
def cos(a):
    return math.cos(a)


@_jit
def tan(a):
    return math.tan(a)


@_jit
def erf(a):
    return math.erf(a)


@_jit
def erfc(a):
    return math.erfc(a)


@_jit
def asin(a):
    return math.asin(a)


@_jit
def acos(a):
    return math.acos(a)


@_jit
def atan(a):
    return math.atan(a)


@_jit
def atan2(a, b):
    return math.atan2(a, b)


@_jit
def sinh(a):
    return math.sinh(a)


@_jit
def cosh(a):
    return math.cosh(a)


@_jit
def asinh(a):
    return math.asinh(a)


@_jit
def acosh(a):
    return math.acosh(a)


@_jit
def atanh(a):
    return math.atanh(a)


@_jit
def exp2(a):
    return 2.0 ** a


# fmax / fmin: a NaN on one side gives the other (maximum / minimum propagate it)
@_jit
def fmax(a, b):
    if a != a or b > a:
        return b
    return a


@_jit
def fmin(a, b):
    if a != a or b < a:
        return b
    return a


# clamp_min(a, b) is also maximum(a, b): NaN on either side propagates, a tie keeps a
@_jit
def clamp_min(a, lo):
    if a < lo or lo != lo:
        return lo
    return a


@_jit
def clamp_max(a, hi):
    if a > hi or hi != hi:
        return hi
    return a


# Vectorizable float32 versions for the CPU loops (float64 falls back to libm inside
# vmath). CUDA kernels keep the math.* versions above, which map to CUDA's libdevice.
from . import vmath as _vm  # noqa: E402


@_jit
def exp_v(a):
    return _vm.exp(a)


@_jit
def log_v(a):
    return _vm.log(a)


@_jit
def log1p_v(a):
    return _vm.log1p(a)


@_jit
def expm1_v(a):
    return _vm.expm1(a)


@_jit
def tanh_v(a):
    return _vm.tanh(a)


@_jit
def sigmoid_v(a):
    return _vm.sigmoid(a)


@_jit
def erf_v(a):
    return _vm.erf(a)


# ----- GELU: each body written once, compiled around math.* (both targets: libm on the
# CPU's float64 path and in CUDA, libdevice) and around vmath (the CPU's loops). Constants
# are float32 sums ``hi + mid + lo`` (``_c3``) applied as ``x*hi + x*mid + x*lo``: a float
# literal would turn float32 math into float64 (which vmath leaves to libm, unvectorized),
# and the three parts carry a float64 constant to its last bit.
def _c3(c):
    # hi and mid rounded toward zero: all three parts nonzero and of c's sign, so that an
    # infinite x gives x*hi + x*mid + x*lo = x*c, not inf - inf
    def trunc(v):
        f = _np_f32(v)
        return f if abs(float(f)) <= abs(v) else _np_nextafter(f, _np_f32(0))

    hi = trunc(c)
    mid = trunc(c - float(hi))
    lo = _np_f32(c - float(hi) - float(mid))
    assert hi * c > 0 and mid * c > 0 and lo * c > 0, c
    return hi, mid, lo


_SQ1_2 = _c3(0.7071067811865476)  # M_SQRT1_2
_INV_SQ2PI = _c3(0.3989422804014327)  # M_2_SQRTPI * M_SQRT1_2 * 0.5 = 1/sqrt(2 pi)
_BETA = _c3(0.7978845608028654)  # M_SQRT2 * M_2_SQRTPI * 0.5 = sqrt(2/pi)
_KAPPA = _c3(0.044715)
_KAPPA3 = _c3(3 * 0.044715)


def _gelu_bodies(erf, tanh, exp, ftype):
    # PyTorch's formulas (aten/src/ATen/native/cpu/Activation.cpp), as it writes them.
    # ``ftype``: the constants' type, float32 for vmath's build; float64 for the math.*
    # build (the device's: the CUDA simulator runs it as Python, where a float32 constant
    # would round math.erf's Python float to float32)
    s1, s2, s3 = map(ftype, _SQ1_2)
    p1, p2, p3 = map(ftype, _INV_SQ2PI)
    b1, b2, b3 = map(ftype, _BETA)
    k1, k2, k3 = map(ftype, _KAPPA)
    q1, q2, q3 = map(ftype, _KAPPA3)
    one, half = ftype(1.0), ftype(0.5)

    @_jit
    def gelu(a):
        return a * half * (one + erf(a * s1 + a * s2 + a * s3))

    @_jit
    def gelu_tanh(a):
        c = a * a * a
        u = a + (c * k1 + c * k2 + c * k3)
        return half * a * (one + tanh(u * b1 + u * b2 + u * b3))

    @_jit
    def gelu_bwd(g, x):
        cdf = half * (one + erf(x * s1 + x * s2 + x * s3))
        e = exp(x * x * -half)
        pdf = e * p1 + e * p2 + e * p3
        return g * (cdf + x * pdf)

    @_jit
    def gelu_tanh_bwd(g, x):
        x2 = x * x
        c = x2 * x
        u = x + (c * k1 + c * k2 + c * k3)
        t = tanh(u * b1 + u * b2 + u * b3)
        left = half * x
        right = one + t
        d = one + (x2 * q1 + x2 * q2 + x2 * q3)
        d = d * b1 + d * b2 + d * b3
        return g * (half * right + left * (one - t * t) * d)

    return gelu, gelu_tanh, gelu_bwd, gelu_tanh_bwd


gelu, gelu_tanh, gelu_bwd, gelu_tanh_bwd = _gelu_bodies(math.erf, math.tanh, math.exp,
                                                        _np_f64)
gelu_v, gelu_tanh_v, gelu_bwd_v, gelu_tanh_bwd_v = _gelu_bodies(_vm.erf, _vm.tanh, _vm.exp,
                                                                _np_f32)


@_jit
def stable_row_max(x, a, b):
    """Max of ``x[a, :, b]`` for a stable softmax: nan if any is nan, 0 if all are -inf."""
    m = -math.inf
    for r in range(x.shape[1]):
        v = x[a, r, b]
        if v > m or v != v:
            m = v
    if m == -math.inf:
        m = 0.0
    return m
