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

# the Euler-Maclaurin tail's divisors (Cephes' zeta: (2k)! / B_2k)
_ZETA_A = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9,
           7.47242496e10, -2.950130727918164224e12, 1.1646782814350067249e14,
           -4.5979787224074726105e15, 1.8152105401943546773e17, -7.1661652561756670113e18)


# ----- special functions: the algorithms PyTorch's CPU kernels use (ATen's Math.h: an
# initial rational guess polished by Newton for erfinv, Cephes' digamma and Hurwitz zeta),
# so values agree to rounding; computed in float64 (literals), rounded once to the output
@_jit
def erfinv(y):
    ay = abs(y)
    if ay > 1.0:
        return math.nan
    if ay == 1.0:
        return math.copysign(math.inf, y)
    if ay <= 0.7:  # the central range: a rational function of y**2
        z = y * y
        num = ((-0.140543331 * z + 0.914624893) * z - 1.645349621) * z + 0.886226899
        den = (((0.012229801 * z - 0.329097515) * z + 1.442710462) * z - 2.118377725) * z + 1.0
        x = y * num / den
    else:  # the tails: a rational function of sqrt(-log((1 - |y|) / 2))
        z = math.sqrt(-math.log((1.0 - ay) / 2.0))
        num = ((1.641345311 * z + 3.429567803) * z - 1.624906493) * z - 1.970840454
        den = (1.637067800 * z + 3.543889200) * z + 1.0
        x = math.copysign(num, y) / den
    for _ in range(2):  # Newton on erf(x) = y (erf' = 2/sqrt(pi) exp(-x**2))
        x = x - (math.erf(x) - y) / (1.1283791670955126 * math.exp(-x * x))
    return x


@_jit
def lgamma(a):
    return math.lgamma(a)


@_jit
def _digamma_positive(x):
    # recurrence up to x >= 10, then the asymptotic series in 1/x**2
    acc = 0.0
    while x < 10.0:
        acc -= 1.0 / x
        x += 1.0
    if x == 10.0:
        return acc + 2.25175258906672110764  # digamma(10)
    tail = 0.0
    if x < 1.0e17:
        z = 1.0 / (x * x)
        tail = z * ((((((8.33333333333333333333e-2 * z - 2.10927960927960927961e-2) * z
                        + 7.57575757575757575758e-3) * z - 4.16666666666666666667e-3) * z
                      + 3.96825396825396825397e-3) * z - 8.33333333333333333333e-3) * z
                    + 8.33333333333333333333e-2)
    return acc + math.log(x) - 0.5 / x - tail


@_jit
def digamma(a):
    x = float(a)
    if x == 0.0:
        return math.copysign(math.inf, -x)  # (a pole: -inf from the right of +0)
    if x < 0.0:
        # (x % 1.0, not trunc: Numba's math.trunc and math.floor return integers)
        up = x % 1.0  # (x - floor(x): exact, NaN for -inf)
        if up == 0.0 or x == -math.inf:
            return math.nan
        # reflection, with tan of the fractional part x - trunc(x) (pi * x loses digits for
        # large |x|)
        return _digamma_positive(1.0 - x) - math.pi / math.tan(math.pi * (up - 1.0))
    return _digamma_positive(x)


@_jit
def _hurwitz_zeta(s, q):
    """sum over k >= 0 of (k + q) ** -s, for s > 1 (Cephes: a direct sum, then the
    Euler-Maclaurin tail)."""
    if s == 1.0:
        return math.inf
    if s < 1.0:
        return math.nan
    if q <= 0.0:  # (% 1.0: Numba's math.floor returns an integer; -inf is a pole too)
        if q == -math.inf or q % 1.0 == 0.0:
            return math.inf
        if s % 1.0 != 0.0:
            return math.nan
    eps = 1.11022302462515654042e-16
    total = q ** -s
    a = q
    i = 0
    b = 0.0
    while i < 9 or a <= 9.0:
        i += 1
        a += 1.0
        b = a ** -s
        total += b
        if -eps * total < b < eps * total:
            return total
    w = a
    total += b * w / (s - 1.0)
    total -= 0.5 * b
    fac = 1.0
    k = 0.0
    for j in range(12):
        fac *= s + k
        b /= w
        term = fac * b / _ZETA_A[j]
        total += term
        if abs(term / total) < eps:
            return total
        k += 1.0
        fac *= s + k
        b /= w
        k += 1.0
    return total


@_jit
def _trigamma(x):
    sign = 1.0
    acc = 0.0
    if x < 0.5:  # reflection
        sign = -1.0
        sp = math.sin(math.pi * x)
        acc -= math.pi * math.pi / (sp * sp)
        x = 1.0 - x
    for _ in range(6):
        acc += 1.0 / (x * x)
        x += 1.0
    ixx = 1.0 / (x * x)
    acc += (1.0 + 1.0 / (2.0 * x) + ixx * (1.0 / 6.0 - ixx * (1.0 / 30.0 - ixx * (1.0 / 42.0)))) / x
    return sign * acc


@_jit
def polygamma(a, n):
    """The ``n``-th derivative of digamma at ``a`` (``n`` a whole number >= 0)."""
    k = int(n)
    x = float(a)
    if k < 0:  # (the public function refuses it)
        return math.nan
    if k == 0:
        return digamma(x)
    if k == 1:
        return _trigamma(x)
    sign = 1.0 if k % 2 else -1.0
    return sign * math.exp(math.lgamma(k + 1.0)) * _hurwitz_zeta(k + 1.0, x)


@_jit
def log10(a):
    return math.log10(a)


@_jit
def log2(a):
    return math.log2(a)
