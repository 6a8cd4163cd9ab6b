"""nbgrad.kernels.vmath: accuracy sweeps over the float32 range, special values,
float64 passthrough, and the property it exists for (loops that call it vectorize)."""

import math
import re

import numpy as np
import pytest
from numba import njit

from nbgrad.kernels import vmath

NAMES = ["exp", "log", "log1p", "expm1", "tanh", "sigmoid", "erf"]

# Largest error allowed, in float32 ulps from the correctly rounded result. Measured
# (exhaustively, all 2**32 inputs, on an AVX-512 machine): 1 everywhere, sigmoid 2.
# One more is allowed where the CPU has no FMA and llvm.fmuladd does not fuse.
MAX_ULP = {"exp": 2, "log": 2, "log1p": 2, "expm1": 2, "tanh": 2, "sigmoid": 3, "erf": 2}

# Points whose neighbourhood is swept densely (consecutive float32 values both sides).
CRITICAL = [
    0.0, 1.1754944e-38,  # zero, denormal/normal boundary
    2.0**-25, 2.0**-24,  # expm1/log1p return x below these
    1.0, 0.5, 2.0, math.sqrt(0.5), math.sqrt(2.0),  # log reduction boundaries
    math.sqrt(0.5) - 1.0, math.sqrt(2.0) - 1.0, -1.0, -0.5,  # log1p: k == 0 range, pole
    math.log(2.0) / 2, 88.72283935546875, 88.7228, 89.0,  # exp reduction, overflow
    -87.33654, -103.97208, -103.28, -17.33, -17.0, 16.6, 17.4,  # underflow, expm1 -> -1
    0.55, 9.0, 9.02, 10.0,  # tanh: branch switch, saturation
    3.4651163, -1.0988191,  # sigmoid: worst cases seen
    0.921875, 2.5, 3.92, 4.0,  # erf: branch switch, saturation
    3.4028235e38,
]

SPECIALS = np.array(
    [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5,
     1e-45, -1e-45, 1.1754944e-38, -1.1754944e-38, 3.4028235e38, -3.4028235e38,
     88.72283935546875, 88.72284, 89.0, -87.33654, -103.97208, -103.972084, -104.0,
     -1.0000001, -0.99999994, 9.02, -9.02, 10.0, -10.0, 3.92, -3.92, 20.0, -20.0],
    dtype=np.float32,
)


def _sample():
    """About 3.6 million float32 values: every 2039th bit pattern of all 2**32 (all
    exponents and signs, denormals included), dense windows of 2*4096 consecutive values
    around each critical point and its negative, 1M uniform values in [-20, 20], specials."""
    parts = [np.arange(0, 2**32, 2039, dtype=np.uint64).astype(np.uint32).view(np.float32)]
    win = np.arange(-4096, 4096, dtype=np.int64)
    for p in CRITICAL:
        for s in (1.0, -1.0):
            b = np.int64(np.float32(s * p).view(np.uint32))
            parts.append(((b + win) % 2**32).astype(np.uint32).view(np.float32))
    parts.append(np.random.default_rng(0).uniform(-20, 20, 1 << 20).astype(np.float32))
    parts.append(SPECIALS)
    return np.concatenate(parts)


@njit
def _erf64(x):
    out = np.empty(x.size, np.float64)
    for i in range(x.size):
        out[i] = math.erf(x[i])
    return out


def _reference(name, x):
    """float64 result (NumPy / libm) rounded to float32."""
    with np.errstate(all="ignore"):
        d = x.astype(np.float64)  # signaling-nan patterns warn in the cast
        if name == "sigmoid":
            r = 1.0 / (1.0 + np.exp(-d))
        elif name == "erf":
            r = _erf64(d)
        else:
            r = getattr(np, name)(d)
        return r.astype(np.float32)


def _ordered(a):
    """float32 -> int64 with consecutive floats consecutive, +0 == -0."""
    b = a.view(np.int32).astype(np.int64)
    return np.where(b < 0, -(b & 0x7FFFFFFF), b)


def _ulps(got, ref):
    d = np.abs(_ordered(got) - _ordered(ref))
    gn, rn = np.isnan(got), np.isnan(ref)
    d[gn & rn] = 0
    d[gn ^ rn] = 1 << 40
    return d


def _loop(fn, fastmath=False):
    @njit(fastmath=fastmath)
    def run(x):
        out = np.empty_like(x)
        for i in range(x.size):
            out[i] = fn(x[i])
        return out

    return run


_LOOPS = {}


def _apply(name, x):
    run = _LOOPS.get(name)
    if run is None:
        run = _LOOPS[name] = _loop(getattr(vmath, name))
    return run(x)


@pytest.fixture(scope="module")
def sample():
    return _sample()


@pytest.mark.parametrize("name", NAMES)
def test_ulp_sweep(name, sample):
    got = _apply(name, sample)
    assert got.dtype == np.float32
    ref = _reference(name, sample)
    d = _ulps(got, ref)
    worst = int(np.argmax(d))
    assert d[worst] <= MAX_ULP[name], (
        f"{name}({sample[worst]!r}) = {got[worst]!r}, expected {ref[worst]!r}: {d[worst]} ulp"
    )


@pytest.mark.parametrize("name", NAMES)
def test_special_values(name):
    x = SPECIALS
    got = _apply(name, x)
    ref = _reference(name, x)
    assert np.array_equal(np.isnan(got), np.isnan(ref))
    # for +-0, +-inf and far-out arguments, the infinities, zeros (with their sign) and
    # saturated +-1 that NumPy gives are matched exactly
    far = ~np.isfinite(x) | (x == 0) | (np.abs(x) >= 20)
    exact = far & ~np.isnan(ref) & (np.isinf(ref) | (ref == 0) | (np.abs(ref) == 1))
    assert exact.sum() >= 3
    assert np.array_equal(got[exact], ref[exact])
    assert np.array_equal(np.signbit(got[exact]), np.signbit(ref[exact]))


def test_special_values_explicit():
    f = np.float32
    inf, nan = f(np.inf), f(np.nan)
    assert vmath.exp(-inf) == 0 and vmath.exp(inf) == inf and vmath.exp(f(0)) == 1
    assert vmath.exp(f(89)) == inf and vmath.exp(f(-104)) == 0
    assert vmath.exp(f(-103)) > 0  # denormal result
    assert vmath.log(f(0)) == -inf and vmath.log(f(-0.0)) == -inf
    assert math.isnan(vmath.log(f(-1))) and math.isnan(vmath.log(-inf))
    assert vmath.log(inf) == inf and vmath.log(f(1)) == 0
    assert vmath.log1p(f(-1)) == -inf and math.isnan(vmath.log1p(f(-2)))
    assert vmath.log1p(inf) == inf and math.isnan(vmath.log1p(-inf))
    assert vmath.expm1(-inf) == -1 and vmath.expm1(inf) == inf
    assert vmath.tanh(inf) == 1 and vmath.tanh(-inf) == -1
    assert vmath.sigmoid(inf) == 1 and vmath.sigmoid(-inf) == 0 and vmath.sigmoid(f(0)) == 0.5
    assert vmath.sigmoid(f(-100)) > 0  # denormal result, no overflow of exp(-x)
    assert vmath.erf(inf) == 1 and vmath.erf(-inf) == -1
    for name in NAMES:
        assert math.isnan(getattr(vmath, name)(nan)), name
    for name in ("tanh", "erf", "expm1", "log1p"):  # odd at 0: keep the sign of zero
        r = getattr(vmath, name)(f(-0.0))
        assert r == 0 and math.copysign(1.0, r) == -1.0, name
        tiny = f(-1e-45)
        assert getattr(vmath, name)(tiny) == tiny, name


def test_python_scalar_calls():
    for name in NAMES:
        fn = getattr(vmath, name)
        assert isinstance(fn(np.float32(0.5)), (float, np.floating))
    r32 = _apply("exp", np.array([0.5], np.float32))[0]
    assert vmath.exp(np.float32(0.5)) == r32


@pytest.mark.parametrize("name", NAMES)
def test_fastmath_caller_same_bits(name, sample):
    """A fastmath=True loop gets the same results (nan/inf handling included): the
    implementation keeps its own strict flags."""
    x = sample[::7]
    a = _apply(name, x)
    b = _loop(getattr(vmath, name), fastmath=True)(x)
    same = (a.view(np.int32) == b.view(np.int32)) | (np.isnan(a) & np.isnan(b))
    assert same.all()


def _math_ref(name, v):
    if name == "sigmoid":
        return 1.0 / (1.0 + math.exp(-v)) if v >= 0 else math.exp(v) / (1.0 + math.exp(v))
    return getattr(math, name)(v)


@pytest.mark.parametrize("name", NAMES)
def test_float64_passthrough(name):
    vals = [-30.0, -3.7, -1.0 + 1e-9, -0.5, -1e-300, 0.0, 1e-300, 1e-8, 0.3, 1.0, 2.5, 7.0,
            40.0, 700.0]
    if name in ("log",):
        vals = [v for v in vals if v > 0]
    if name == "log1p":
        vals = [v for v in vals if v > -1]
    run = _loop(getattr(vmath, name))
    got = run(np.array(vals, np.float64))
    assert got.dtype == np.float64
    for v, g in zip(vals, got):
        if name == "sigmoid":
            assert g == pytest.approx(_math_ref(name, v), rel=1e-15, abs=0), v
        else:
            assert g == _math_ref(name, v), v  # the libm function itself
        assert getattr(vmath, name)(v) == g  # interpreter call: same compiled code


def test_float64_special_values_match_numpy():
    x = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, -1.0, -2.0, 800.0, -800.0])
    for name in NAMES:
        got = _loop(getattr(vmath, name))(x)
        with np.errstate(all="ignore"):
            ref = 1.0 / (1.0 + np.exp(-x)) if name == "sigmoid" else (
                _erf64(x) if name == "erf" else getattr(np, name)(x))
        assert np.array_equal(got, ref, equal_nan=True), name


def test_integer_and_bool_arguments_use_float64():
    @njit
    def f(i, b):
        return vmath.exp(i), vmath.log(i), vmath.tanh(b), vmath.sigmoid(i)

    e, lg, t, s = f(3, True)
    assert e == math.exp(3.0) and lg == math.log(3.0) and t == math.tanh(1.0)
    assert s == pytest.approx(1 / (1 + math.exp(-3.0)), rel=1e-15)


def test_loops_vectorize():
    """The point of the module: a loop calling the float32 functions is vectorized
    (LLVM IR has <N x float> operations) and calls no libm function."""
    for name in NAMES:
        run = _loop(getattr(vmath, name))
        run(np.ones(4, np.float32))
        llvm = run.inspect_llvm(run.signatures[0])
        assert re.search(r"<\d+ x float>", llvm), name
        calls = set(re.findall(r"call [^@]*@([\w.]+)\(", llvm))
        libm = {c for c in calls if re.fullmatch(r"(exp|log|tanh|erf|expm1|log1p)f?", c)}
        assert not libm, (name, libm)


@njit
def _running_fmax(x):
    m = x[0]
    for i in range(1, x.size):
        m = vmath.fmax(m, x[i])
    return m


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_fmax_ignores_nans_and_vectorizes(dt):
    """fmax is IEEE's maxNum (NumPy's fmax): a nan operand is ignored, two nans give nan;
    a running max over it is a vector reduction in LLVM IR and equals NumPy's nanmax."""
    nan, inf = dt(np.nan), dt(np.inf)
    f = njit(lambda a, b: vmath.fmax(a, b))
    for a, b in [(1, 2), (2, 1), (-inf, 3), (inf, -1), (nan, 5), (5, nan), (-0.5, -0.25)]:
        assert f(dt(a), dt(b)) == np.fmax(dt(a), dt(b)), (a, b)
    assert np.isnan(f(nan, nan))
    assert vmath.fmax(dt(1), nan) == 1.0  # from Python too
    x = np.random.default_rng(0).standard_normal(1001).astype(dt)
    x[[0, 7, 500]] = nan  # a leading nan too: skipped
    assert _running_fmax(x) == np.nanmax(x)
    assert _running_fmax(np.full(40, -inf, dt)) == -inf
    llvm = _running_fmax.inspect_llvm(_running_fmax.signatures[-1])
    width = "float" if dt == np.float32 else "double"
    assert re.search(rf"<\d+ x {width}>", llvm)
