"""Vectorizable float32 elementwise math for Numba loops.

The PyPI llvmlite has no SVML, so ``math.exp``/``math.tanh`` in a Numba loop are scalar
libm calls and the loop does not vectorize. The float32 functions here use only adds,
multiplies, fused multiply-adds (``llvm.fmuladd``, fused where the CPU has FMA), one
division at most, compare/selects and integer bit tricks: no calls and no branches
that depend on the data, so LLVM vectorizes a loop that calls them.

Public API (callable from ``@njit`` code, and from Python for one scalar)::

    vmath.exp(x)  vmath.log(x)  vmath.log1p(x)  vmath.expm1(x)
    vmath.tanh(x) vmath.sigmoid(x)  vmath.erf(x)  vmath.fmax(a, b)

* float32 argument -> float32 result from the vectorizable code here. Checked on all
  2**32 float32 inputs against float64 libm rounded to float32: at most 1 ulp from the
  correctly rounded result for exp, log, log1p, expm1, tanh and erf, 2 ulp for sigmoid
  (with and without FMA hardware); denormal arguments and results are handled. Special
  values are NumPy's: nan -> nan, exp(-inf) = 0, exp(inf) = inf, log(0) = -inf,
  log(x < 0) = nan, log1p(-1) = -inf, expm1(-inf) = -1, tanh/erf(+-inf) = +-1,
  sigmoid(+-inf) = 1/0, and the odd functions (tanh, erf, expm1, log1p) keep the sign
  of zero. (Nan payloads are not preserved.)
* float64 argument -> float64 result from ``math`` (libm); integer or bool argument ->
  converted to float64 first (as NumPy does).

``fmax(a, b)`` (floats of one type) is IEEE's maxNum: a nan operand is ignored; a loop
carrying it as a running max vectorizes, where one of ``max`` (a compare and select) does
not.

The float32 versions are also public as ``exp_f32``... and the float64 ones as
``exp_f64``..., to call directly when the type is known.

The implementations are compiled as their own functions with ``fastmath=False`` and
``error_model='numpy'``; LLVM inlines them into the calling loop but keeps their
instructions free of fast-math flags, so a ``fastmath=True`` caller cannot break the
range reductions or the inf/nan handling. (Numba-level ``inline='always'`` would merge
them into the caller's IR and hand them the caller's flags, so it is not used for them.)
Results are the same bits in a fastmath loop. Under flush-to-zero / denormals-are-zero
(MXCSR FTZ/DAZ, which nothing here sets) denormal results become 0.

Importing this module compiles nothing; each function compiles when a caller does.
"""

import math

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic, overload

from ._linked import inner

__all__ = [
    "exp", "log", "log1p", "expm1", "tanh", "sigmoid", "erf",
    "exp_f32", "log_f32", "log1p_f32", "expm1_f32", "tanh_f32", "sigmoid_f32", "erf_f32",
    "exp_f64", "log_f64", "log1p_f64", "expm1_f64", "tanh_f64", "sigmoid_f64", "erf_f64",
    "fmax",
]

# Explicit flags: set here, they are not inherited from a fastmath / python-error-model
# caller (Numba inherits only options a function leaves unset).
# (no_cfunc_wrapper: nothing takes them as first-class function values, and the C wrapper
# costs compile time; the private helpers, and the twins of the public functions that
# ``exp``... call, are only called from compiled code, so they are compiled only inside
# their callers: kernels/_linked.py)
_jit = njit(nogil=True, fastmath=False, error_model="numpy", no_cfunc_wrapper=True)
_jit_inner = njit(**inner(dict(nogil=True, fastmath=False, error_model="numpy")))

# --------------------------------------------------------------------------- intrinsics
_F32 = ir.FloatType()
_I32 = ir.IntType(32)


@intrinsic
def _bits(typingctx, x):
    """The bit pattern of a float32 as an int32."""
    if x != types.float32:
        return None

    def codegen(context, builder, sig, args):
        return builder.bitcast(args[0], _I32)

    return types.int32(types.float32), codegen


@intrinsic
def _from_bits(typingctx, i):
    """The float32 whose bit pattern is the low 32 bits of the integer ``i``."""
    if not isinstance(i, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        return builder.bitcast(_as_i32(builder, args[0]), _F32)

    return types.float32(i), codegen


def _as_i32(builder, v):
    if v.type.width > 32:
        return builder.trunc(v, _I32)
    if v.type.width < 32:
        return builder.sext(v, _I32)
    return v


def _int32_binop(opname, doc):
    """An int32 operation on two integers. Numba types int32 arithmetic as int64, and
    64-bit lanes halve the vector width (AVX2 has no 64-bit arithmetic shift at all)."""

    @intrinsic
    def op(typingctx, a, b):
        if not (isinstance(a, types.Integer) and isinstance(b, types.Integer)):
            return None

        def codegen(context, builder, sig, args):
            return getattr(builder, opname)(_as_i32(builder, args[0]), _as_i32(builder, args[1]))

        return types.int32(a, b), codegen

    op.__doc__ = doc
    return op


_iadd = _int32_binop("add", "a + b in int32 (wrapping)")
_isub = _int32_binop("sub", "a - b in int32 (wrapping)")
_ishl = _int32_binop("shl", "a << b in int32")
_isra = _int32_binop("ashr", "a >> b in int32, arithmetic")
_iand = _int32_binop("and_", "a & b in int32")


def _call_f32_intrinsic(builder, name, args):
    fnty = ir.FunctionType(_F32, [_F32] * len(args))
    return builder.call(cgutils.get_or_insert_function(builder.module, fnty, name), args)


@intrinsic
def _fma(typingctx, a, b, c):
    """a*b + c, fused where the target has FMA (llvm.fmuladd: never a libm call)."""
    if not (a == b == c == types.float32):
        return None

    def codegen(context, builder, sig, args):
        return _call_f32_intrinsic(builder, "llvm.fmuladd.f32", args)

    return types.float32(a, b, c), codegen


@intrinsic
def _fabs(typingctx, a):
    if a != types.float32:
        return None

    def codegen(context, builder, sig, args):
        return _call_f32_intrinsic(builder, "llvm.fabs.f32", args)

    return types.float32(a), codegen


@intrinsic
def _copysign(typingctx, a, b):
    """|a| with the sign bit of b."""
    if not (a == b == types.float32):
        return None

    def codegen(context, builder, sig, args):
        return _call_f32_intrinsic(builder, "llvm.copysign.f32", args)

    return types.float32(a, b), codegen


@intrinsic
def _maxnum(typingctx, a, b):
    """llvm.maxnum: the larger of two floats of one type, a nan operand ignored."""
    if not (isinstance(a, types.Float) and a == b):
        return None

    def codegen(context, builder, sig, args):
        lt = context.get_value_type(sig.args[0])
        fnty = ir.FunctionType(lt, [lt, lt])
        name = f"llvm.maxnum.f{sig.args[0].bitwidth}"
        return builder.call(cgutils.get_or_insert_function(builder.module, fnty, name), args)

    return a(a, b), codegen


@njit(inline="always", nogil=True, no_cfunc_wrapper=True)
def fmax(a, b):
    """The larger of ``a`` and ``b`` (floats of one type), a nan operand ignored (``a``
    when ``b`` is nan, ``b`` when ``a`` is; IEEE's maxNum, NumPy's ``fmax``). Unlike a
    compare and select, a loop that carries it as a running max vectorizes (LLVM turns it
    into a vector max reduction), at no cost in compile time."""
    return _maxnum(a, b)


# --------------------------------------------------------------------------- constants
_f = np.float32
_ONE = _f(1.0)
_TWO = _f(2.0)
_HALF = _f(0.5)
_NHALF = _f(-0.5)
_ZERO = _f(0.0)
_INF = _f(np.inf)
_NINF = _f(-np.inf)
_NAN = _f(np.nan)

# Rounding to an integer by adding 1.5 * 2**23: the integer ends up in the low mantissa
# bits, readable both as a float (t - SHIFT) and as an int (bits(t) - bits(SHIFT)).
_SHIFT = _f(12582912.0)
_SHIFT_BITS = np.int32(0x4B400000)

_LOG2E = _f(1.4426950408889634)
# ln 2 = LN2_HI + LN2_LO; LN2_HI has 9 significant bits, so k * LN2_HI is exact for
# |k| < 2**15 (Cody-Waite).
_LN2_HI = _f(0.693359375)
_LN2_LO = _f(-2.12194440e-4)
_NLN2_HI = _f(-0.693359375)
_NLN2_LO = _f(2.12194440e-4)

# exp(r) = 1 + r + r^2 * P(r), |r| <= ln2/2 (minimax, relative error 3e-9).
_EXP_P0 = _f(0.4999999403953552)
_EXP_P1 = _f(0.1666652113199234)
_EXP_P2 = _f(0.04166828468441963)
_EXP_P3 = _f(0.00836869515478611)
_EXP_P4 = _f(0.0013819205341860652)

# expm1(r) = r + r^2 * Q(r), |r| <= ln2/2 (minimax, relative error 5e-10).
_EM_Q0 = _f(0.5)
_EM_Q1 = _f(0.1666666567325592)
_EM_Q2 = _f(0.04166649281978607)
_EM_Q3 = _f(0.008333543315529823)
_EM_Q4 = _f(0.0013932354049757123)
_EM_Q5 = _f(0.00019764293392654508)

# exp overflows above 88.72283935546875 and is 0 below -103.97208; clamping the argument
# to this range keeps 2**n within two normal factors.
_EXP_HI = _f(88.8)
_EXP_LO = _f(-104.0)
# expm1(x) rounds to -1 below about -17.33.
_EM_LO = _f(-20.0)
_EM_TINY = _f(2.0**-25)  # |x| below this: expm1(x) and log1p(x) round to x

# log(1 + f) = f - f^2/2 + f^3 * L(f), sqrt(1/2) - 1 <= f < sqrt(2) - 1
# (minimax, relative error 8e-10).
_LOG_L0 = _f(0.3333331346511841)
_LOG_L1 = _f(-0.25000008940696716)
_LOG_L2 = _f(0.20002073049545288)
_LOG_L3 = _f(-0.16667991876602173)
_LOG_L4 = _f(0.14220310747623444)
_LOG_L5 = _f(-0.12406114488840103)
_LOG_L6 = _f(0.11883873492479324)
_LOG_L7 = _f(-0.11671175807714462)
_LOG_L8 = _f(0.0674985721707344)
_SQRTH_BITS = np.int32(0x3F3504F3)  # bits of sqrt(1/2)
_ONE_MINUS_SQRTH_BITS = np.int32(0x3F800000 - 0x3F3504F3)
_MANT_MASK = np.int32(0x007FFFFF)
_FLT_MIN = _f(1.1754943508222875e-38)
_TWO23 = _f(8388608.0)

# tanh(x) = x + x^3 * T(x^2) for |x| < 0.55 (minimax, relative error 1.2e-9);
# 1 - 2 / (exp(2|x|) + 1) above; 1 from |x| = 9.02 on.
_TANH_T0 = _f(-0.33333316445350647)
_TANH_T1 = _f(0.13332544267177582)
_TANH_T2 = _f(-0.0538475476205349)
_TANH_T3 = _f(0.02105071395635605)
_TANH_T4 = _f(-0.00624284939840436)
_TANH_SMALL = _f(0.55)
_TANH_CLAMP = _f(10.0)

# erf(x) = x + x * S(x^2) for |x| < 1 (minimax, relative error 1.5e-9);
# erf(x) = 1 - exp(-x^2) * erfcx(x) above, erfcx(x) = R(x - 2.5) for 1 <= x <= 4
# (absolute error of the product 3e-9); erf is 1 from 3.92 on.
_ERF_S0 = _f(0.12837916612625122)
_ERF_S1 = _f(-0.3761262595653534)
_ERF_S2 = _f(0.11283578723669052)
_ERF_S3 = _f(-0.026853347197175026)
_ERF_S4 = _f(0.005187162198126316)
_ERF_S5 = _f(-0.0007997853099368513)
_ERF_S6 = _f(7.806903886375949e-05)
_ERF_R0 = _f(0.21080760657787323)
_ERF_R1 = _f(-0.07434217631816864)
_ERF_R2 = _f(0.024914653971791267)
_ERF_R3 = _f(-0.008132237009704113)
_ERF_R4 = _f(0.00230244523845613)
_ERF_R5 = _f(-0.0006612410070374608)
_ERF_R6 = _f(0.0005432195612229407)
_ERF_R7 = _f(0.0002250226680189371)
_ERF_R8 = _f(0.00010683687287382782)
_ERF_MID = _f(2.5)
_ERF_CLAMP = _f(4.0)


# --------------------------------------------------------------------------- float32
@_jit_inner
def _pow2(n):
    """2.0**n as float32 for an integer -126 <= n <= 127."""
    return _from_bits(_ishl(_iadd(n, 127), 23))


@_jit_inner
def _exp_reduce(x):
    """x = n*ln2 + r with |r| <= ln2/2 (about); returns (r, n as float, n as int)."""
    t = _fma(x, _LOG2E, _SHIFT)
    nf = t - _SHIFT
    n = _isub(_bits(t), _SHIFT_BITS)
    r = _fma(nf, _NLN2_HI, x)  # exact: nf * LN2_HI is exact and cancels against x
    r = _fma(nf, _NLN2_LO, r)
    return r, nf, n


@_jit_inner
def _exp_poly(r):
    """exp(r) for |r| <= ln2/2."""
    p = _fma(_EXP_P4, r, _EXP_P3)
    p = _fma(p, r, _EXP_P2)
    p = _fma(p, r, _EXP_P1)
    p = _fma(p, r, _EXP_P0)
    return _fma(p, r * r, r) + _ONE


@_jit_inner
def _exp_mid(x):
    """exp(x) for -87 <= x <= 88 (normal results; no clamping, no special values)."""
    r, nf, n = _exp_reduce(x)
    return _exp_poly(r) * _pow2(n)


@_jit
def exp_f32(x):
    """exp(x) for float32, within 1 ulp; denormal results, overflow to inf, nan kept."""
    # Clamp the argument (comparisons with nan are false, so nan passes through);
    # 2**n is applied as two normal factors so denormal results round once. Below _EXP_LO
    # (-inf: a causal mask's entries) the second factor is 0, not 2**-75: rounding a
    # product down to 0 takes a microcode assist on Intel CPUs, and a masked softmax ran
    # 2.5x slower than an unmasked one
    xc = _EXP_HI if x > _EXP_HI else x
    xc = _EXP_LO if xc < _EXP_LO else xc
    r, nf, n = _exp_reduce(xc)
    n1 = _isra(n, 1)
    scale = _ZERO if x < _EXP_LO else _pow2(_isub(n, n1))
    return _exp_poly(r) * _pow2(n1) * scale


@_jit
def expm1_f32(x):
    """exp(x) - 1 for float32, accurate near 0."""
    xc = _EXP_HI if x > _EXP_HI else x
    xc = _EM_LO if xc < _EM_LO else xc
    r, nf, n = _exp_reduce(xc)
    q = _fma(_EM_Q5, r, _EM_Q4)
    q = _fma(q, r, _EM_Q3)
    q = _fma(q, r, _EM_Q2)
    q = _fma(q, r, _EM_Q1)
    q = _fma(q, r, _EM_Q0)
    em = _fma(q, r * r, r)  # expm1(r)
    # expm1(x) = 2**n * (em + 1) - 1 = 2 * (s*em + (s - 1/2)), s = 2**(n-1): s - 1/2 is
    # exact for the n that matter and 2**128 (x up to 88.72) is never formed.
    s = _pow2(_isub(n, 1))
    res = _TWO * _fma(s, em, s - _HALF)
    res = em if nf == _ZERO else res
    # keeps the sign of zero and the last bit of denormal arguments
    return x if _fabs(x) < _EM_TINY else res


@_jit_inner
def _log_core(f, kf):
    """k*ln2 + log(1 + f) for sqrt(1/2) - 1 <= f < sqrt(2) - 1, k = kf (a float)."""
    z = f * f
    p = _fma(_LOG_L8, f, _LOG_L7)
    p = _fma(p, f, _LOG_L6)
    p = _fma(p, f, _LOG_L5)
    p = _fma(p, f, _LOG_L4)
    p = _fma(p, f, _LOG_L3)
    p = _fma(p, f, _LOG_L2)
    p = _fma(p, f, _LOG_L1)
    p = _fma(p, f, _LOG_L0)
    y = p * f * z
    y = _fma(kf, _LN2_LO, y)
    y = _fma(_NHALF, z, y)
    return _fma(kf, _LN2_HI, f + y)


@_jit_inner
def _int_to_f32(k):
    """float32(k) for |k| < 2**22 without an int->float conversion instruction."""
    return _from_bits(_iadd(k, _SHIFT_BITS)) - _SHIFT


@_jit
def log_f32(x):
    """Natural log for float32; log(0) = -inf, log(x < 0) = nan, log(inf) = inf."""
    sub = x < _FLT_MIN  # denormals (and 0, negatives: fixed below): scale by 2**23
    xs = x * _TWO23 if sub else x
    ix = _bits(xs)
    k = _isra(_isub(ix, _SQRTH_BITS), 23)  # xs = 2**k * m, sqrt(1/2) <= m < sqrt(2)
    m = _from_bits(_isub(ix, _ishl(k, 23)))
    k = _isub(k, 23) if sub else k
    res = _log_core(m - _ONE, _int_to_f32(k))
    res = res if x < _INF else x + x  # inf -> inf, nan -> nan
    res = res if x >= _ZERO else _NAN
    return res if x != _ZERO else _NINF


@_jit
def log1p_f32(x):
    """log(1 + x) for float32, accurate near 0; log1p(-1) = -inf, log1p(x < -1) = nan."""
    u = _ONE + x
    iu = _iadd(_bits(u), _ONE_MINUS_SQRTH_BITS)
    k = _isub(_isra(iu, 23), 127)  # u = 2**k * m, sqrt(1/2) <= m < sqrt(2)
    m = _from_bits(_iadd(_iand(iu, _MANT_MASK), _SQRTH_BITS))
    # 1 + x = u + c exactly; log(1 + x) = log(u) + c/u to first order.
    c = (_ONE - (u - x)) if k >= 2 else (x - (u - _ONE))
    c = c / u if k < 25 else _ZERO
    f = m - _ONE
    f = x if k == 0 else f  # 1 + x in [sqrt(1/2), sqrt(2)): take f = x exactly
    c = _ZERO if k == 0 else c
    kf = _int_to_f32(k)
    res = _log_core(f, kf) + c
    res = x if _fabs(x) < _EM_TINY else res  # signed zeros, denormals
    res = res if x < _INF else x + x  # inf -> inf, nan -> nan
    res = res if x >= -_ONE else _NAN
    return res if x != -_ONE else _NINF


@_jit
def tanh_f32(x):
    """tanh for float32; odd, saturates to +-1, nan kept."""
    a = _fabs(x)
    z = a * a
    p = _fma(_TANH_T4, z, _TANH_T3)
    p = _fma(p, z, _TANH_T2)
    p = _fma(p, z, _TANH_T1)
    p = _fma(p, z, _TANH_T0)
    small = _fma(a * z, p, a)
    ac = _TANH_CLAMP if a > _TANH_CLAMP else a
    e = _exp_mid(ac + ac)
    large = _ONE - _TWO / (e + _ONE)
    t = small if a < _TANH_SMALL else large  # nan: large is nan
    return _copysign(t, x)


@_jit
def sigmoid_f32(x):
    """1 / (1 + exp(-x)) for float32, without overflow; denormal results kept."""
    e = exp_f32(-_fabs(x))
    num = _ONE if x >= _ZERO else e
    return num / (_ONE + e)


@_jit
def erf_f32(x):
    """The error function for float32; odd, saturates to +-1, nan kept."""
    a = _fabs(x)
    z = a * a
    s = _fma(_ERF_S6, z, _ERF_S5)
    s = _fma(s, z, _ERF_S4)
    s = _fma(s, z, _ERF_S3)
    s = _fma(s, z, _ERF_S2)
    s = _fma(s, z, _ERF_S1)
    s = _fma(s, z, _ERF_S0)
    small = _fma(a, s, a)
    ac = _ERF_CLAMP if a > _ERF_CLAMP else a
    t = ac - _ERF_MID
    p = _fma(_ERF_R8, t, _ERF_R7)
    p = _fma(p, t, _ERF_R6)
    p = _fma(p, t, _ERF_R5)
    p = _fma(p, t, _ERF_R4)
    p = _fma(p, t, _ERF_R3)
    p = _fma(p, t, _ERF_R2)
    p = _fma(p, t, _ERF_R1)
    p = _fma(p, t, _ERF_R0)
    e = _exp_mid(-(ac * ac))
    large = _fma(-e, p, _ONE)
    r = small if a < _ONE else large  # nan: large is nan
    return _copysign(r, x)


# --------------------------------------------------------------------------- float64
@_jit
def exp_f64(x):
    return math.exp(x)


@_jit
def log_f64(x):
    return math.log(x)


@_jit
def log1p_f64(x):
    return math.log1p(x)


@_jit
def expm1_f64(x):
    return math.expm1(x)


@_jit
def tanh_f64(x):
    return math.tanh(x)


@_jit
def sigmoid_f64(x):
    e = math.exp(-abs(x))
    num = 1.0 if x >= 0.0 else e
    return num / (1.0 + e)


@_jit
def erf_f64(x):
    return math.erf(x)


# --------------------------------------------------------------------------- public API
def _make(name, f32, f64):
    def stub(x):
        return _scalar_call(name, x)

    stub.__name__ = stub.__qualname__ = name
    stub.__doc__ = (
        f"{name}(x) for @njit code: vectorizable float32 code for a float32 ``x``, "
        f"``math`` for float64; integers and bools go through float64."
    )

    @overload(stub, inline="always", jit_options=inner({}))
    def _ov(x):
        if x == types.float32:
            return lambda x: f32(x)
        if x == types.float64:
            return lambda x: f64(x)
        if isinstance(x, types.Integer):
            return lambda x: f64(float(x))
        if isinstance(x, types.Boolean):
            return lambda x: f64(1.0 if x else 0.0)
        return None

    return stub


_scalar_calls = {}


def _scalar_call(name, x):
    """Interpreter call of a public function on one scalar: the same compiled code."""
    fn = _scalar_calls.get(name)
    if fn is None:
        stub = globals()[name]
        fn = _scalar_calls[name] = njit(lambda v: stub(v))
    return fn(x)


def _in_kernels(f):
    # the same function for calls from kernels: compiled only inside them (_linked.py)
    return _jit_inner(f.py_func)


exp = _make("exp", _in_kernels(exp_f32), _in_kernels(exp_f64))
log = _make("log", _in_kernels(log_f32), _in_kernels(log_f64))
log1p = _make("log1p", _in_kernels(log1p_f32), _in_kernels(log1p_f64))
expm1 = _make("expm1", _in_kernels(expm1_f32), _in_kernels(expm1_f64))
tanh = _make("tanh", _in_kernels(tanh_f32), _in_kernels(tanh_f64))
sigmoid = _make("sigmoid", _in_kernels(sigmoid_f32), _in_kernels(sigmoid_f64))
erf = _make("erf", _in_kernels(erf_f32), _in_kernels(erf_f64))
