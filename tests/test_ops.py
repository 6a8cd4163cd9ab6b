"""Table-driven tests of nbgrad's differentiable ops (DESIGN.md, principle 7).

One table, ``OPS``, drives every check:

1. forward values, shapes and dtypes against NumPy in float32 and float64,
2. ``gradcheck`` and ``gradgradcheck`` (finite differences) in float64 on small shapes,
3. non-contiguous inputs (transposed and strided views) give the same values and gradients,
4. values and gradients against PyTorch on the same inputs, where torch is installed.

Each entry's ``fn(m, *tensors)`` is written once and runs with ``m = nbgrad`` or
``m = torch``; ``ref(*ndarrays)`` is the NumPy reference.
"""

import itertools
import math
import re
from dataclasses import dataclass
from typing import Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import nbgrad
from nbgrad.autograd import gradcheck, gradgradcheck
from nbgrad.ops import activation, elementwise
from nbgrad.ops.dispatch import general
from nbgrad.ops.opdef import TABLE, clear_plans

DTYPES = ("float32", "float64")


@dataclass(frozen=True)
class Op:
    name: str
    fn: Callable  # fn(m, *tensors) with m = nbgrad or torch
    ref: Callable  # ref(*ndarrays) -> ndarray, the NumPy reference
    shapes: tuple  # input shape tuples, one per case
    domain: object = "any"  # "any" | "pos" | "nz" (|x| >= 0.5) | "unit" | "gt1", or one per input
    out: str = None  # result dtype name; None means the inputs' float dtype
    grad: bool = True  # differentiable: gradients compared (non-contiguous, torch)
    check: bool = True  # run gradcheck / gradgradcheck


# ----- references without SciPy ---------------------------------------------------------
def _ref_erfinv(a):
    def one(y):
        x = 0.0
        for _ in range(60):  # Newton on erf(x) = y, from 0 (|y| <= 0.9 here)
            x -= (math.erf(x) - y) / (2 / math.sqrt(math.pi) * math.exp(-x * x))
        return x

    return np.vectorize(one)(a.astype(np.float64))


def _mp(fn):
    """An elementwise reference computed by mpmath (imported on use), in the input's dtype."""
    def ref(a):
        import mpmath

        one = np.vectorize(lambda v: float(fn(mpmath, mpmath.mpf(float(v)))))
        return one(a.astype(np.float64)).astype(a.dtype)

    return ref


def _poly(coeffs, shift=False):
    """A polynomial reference (coefficients lowest degree first), at ``2a - 1`` if ``shift``."""
    return lambda a: np.polynomial.polynomial.polyval(2 * a - 1 if shift else a,
                                                      coeffs).astype(a.dtype)


def _ref_polygamma(n, a):
    """digamma (n = 0) or its n-th derivative, for x > 0: the recurrence up to x >= 30,
    then the asymptotic series (Euler-Maclaurin), in float64."""
    def one(x):
        acc = 0.0
        while x < 30:
            acc += -1 / x if n == 0 else math.factorial(n) * x ** -(n + 1)
            x += 1
        if n == 0:
            tail = math.log(x) - 1 / (2 * x) - sum(
                b / (2 * k * x ** (2 * k)) for k, b in enumerate(_BERNOULLI, 1))
            return acc + tail
        s = n + 1  # sum over k >= 0 of (x + k) ** -s, then times n!
        tail = x ** (1 - s) / (s - 1) + x ** -s / 2
        rising = s
        for k, b in enumerate(_BERNOULLI, 1):
            tail += b / math.factorial(2 * k) * rising * x ** (-s - 2 * k + 1)
            rising *= (s + 2 * k - 1) * (s + 2 * k)
        return acc + math.factorial(n) * tail

    sign = 1.0 if n % 2 else (-1.0 if n else 1.0)
    return (sign * np.vectorize(one)(a.astype(np.float64))).astype(a.dtype)


_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730)


# ----- input shape sets ---------------------------------------------------------------
S = (((3, 4),),)
BINARY = (
    ((3, 4), (3, 4)),
    ((3, 4), (4,)),  # broadcast a trailing vector
    ((2, 1, 4), (3, 1)),  # broadcast both ways
    ((3, 1), (1, 4)),
    ((3, 4), ()),  # a 0-dim tensor operand
    ((), (3,)),
    ((), ()),
    ((2, 3, 1, 2), (3, 2, 2)),  # 4-d: as views these do not collapse to 3 dims
)
UNARY = (((3, 4),), ((2, 3, 2),), ((5,),), ((),), ((2, 3, 2, 2),))
R3 = (((2, 3, 4),),)


def _np_max(a, axis=None, keepdims=False):
    return np.max(a, axis=axis, keepdims=keepdims)


def _np_min(a, axis=None, keepdims=False):
    return np.min(a, axis=axis, keepdims=keepdims)


def _fused(m, name):
    """Fused backward op ``name`` of nbgrad, or its equivalent in PyTorch (``torch.ops.aten``)."""
    if m is nbgrad:
        return getattr(elementwise, name, None) or getattr(activation, name)
    if name == "gelu_tanh_backward":
        return lambda g, x: m.ops.aten.gelu_backward(g, x, approximate="tanh")
    if name == "threshold_backward":
        return lambda g, x: m.ops.aten.threshold_backward(g, x, 0)
    # no aten op: the same product, saving what nbgrad's saves (g and x)
    if name == "twice_mul":
        return lambda g, x: (g * x) * 2
    if name == "neg_twice_mul":
        return lambda g, x: (g * x) * -2
    return getattr(m.ops.aten, name)


def _np_gelu(x):
    """gelu and its derivative in float64, cast back to x's dtype."""
    v = np.asarray(x, np.float64)
    cdf = 0.5 * (1 + np.vectorize(math.erf, otypes=[float])(v / math.sqrt(2)))
    pdf = np.exp(-0.5 * v * v) / math.sqrt(2 * math.pi)
    return (v * cdf).astype(x.dtype), (cdf + v * pdf).astype(x.dtype)


def _np_gelu_tanh(x):
    v = np.asarray(x, np.float64)
    b, k = math.sqrt(2 / math.pi), 0.044715
    t = np.tanh(b * (v + k * v**3))
    d = 0.5 * (1 + t) + 0.5 * v * (1 - t * t) * b * (1 + 3 * k * v * v)
    return (0.5 * v * (1 + t)).astype(x.dtype), d.astype(x.dtype)


OPS = [
    # ----- arithmetic ------------------------------------------------------------------
    Op("add", lambda m, a, b: a + b, np.add, BINARY),
    Op("add_fn", lambda m, a, b: m.add(a, b), np.add, BINARY[:2]),
    Op("add_alpha", lambda m, a, b: m.add(a, b, alpha=2.5), lambda a, b: a + 2.5 * b, BINARY[:3]),
    Op("sub", lambda m, a, b: a - b, np.subtract, BINARY),
    Op("sub_fn_alpha", lambda m, a, b: m.sub(a, b, alpha=-2), lambda a, b: a + 2 * b, BINARY[:3]),
    Op("mul", lambda m, a, b: a * b, np.multiply, BINARY),
    Op("div", lambda m, a, b: a / b, np.divide, BINARY, domain=("any", "nz")),
    Op("div_fn", lambda m, a, b: m.div(a, b), np.divide, BINARY[:3], domain=("any", "nz")),
    Op("neg", lambda m, a: -a, np.negative, UNARY),
    Op("neg_fn", lambda m, a: m.neg(a), np.negative, S),
    # scalar operands, both sides
    Op("add_scalar", lambda m, a: a + 2.5, lambda a: a + 2.5, UNARY),
    Op("radd_scalar", lambda m, a: 3 + a, lambda a: 3 + a, UNARY[:1]),
    Op("sub_scalar", lambda m, a: a - 1.5, lambda a: a - 1.5, UNARY[:1]),
    Op("rsub_scalar", lambda m, a: 2.0 - a, lambda a: 2.0 - a, UNARY),
    Op("mul_scalar", lambda m, a: a * -3.0, lambda a: a * -3.0, UNARY),
    Op("rmul_int", lambda m, a: 2 * a, lambda a: 2 * a, UNARY[:1]),
    Op("div_scalar", lambda m, a: a / 4.0, lambda a: a / 4.0, UNARY[:1]),
    Op("rdiv_scalar", lambda m, a: 2.0 / a, lambda a: 2.0 / a, UNARY, domain="nz"),
    # pow: tensor ** number, tensor ** tensor, number ** tensor
    Op("pow_2", lambda m, a: a**2, lambda a: a**2, UNARY),
    Op("pow_3", lambda m, a: a**3, lambda a: a**3, UNARY),
    Op("pow_0", lambda m, a: a**0, lambda a: a**0, S),
    Op("pow_half", lambda m, a: a**0.5, np.sqrt, UNARY, domain="pos"),
    Op("pow_neg", lambda m, a: a**-1.5, lambda a: a**-1.5, S, domain="pos"),
    Op("pow_tensor_scalar_fn", lambda m, a: m.pow(a, 2.5), lambda a: a**2.5, S, domain="pos"),
    Op("pow_tt", lambda m, a, b: a**b, np.power, BINARY, domain=("pos", "any")),
    Op("rpow", lambda m, a: 2.0**a, lambda a: 2.0**a, UNARY),
    Op("pow_scalar_fn", lambda m, a: m.pow(3.0, a), lambda a: 3.0**a, S),
    # division with a rounding mode, remainder; integers as integers (floor_divide has no
    # derivative: its rows detach, test_floor_divide_has_no_derivative checks the node)
    Op("floor_divide", lambda m, a, b: (a // b).detach(), np.floor_divide, BINARY,
       domain=("any", "nz"), grad=False),
    Op("floor_divide_fn_scalar", lambda m, a: m.floor_divide(a, -0.75).detach(),
       lambda a: np.floor_divide(a, -0.75), UNARY[:2], grad=False),
    Op("floor_divide_r", lambda m, a: (3.0 // a).detach(), lambda a: np.floor_divide(3.0, a),
       S, domain="nz", grad=False),
    Op("floor_divide_int", lambda m, a, b: (a * 8).long() // (b * 3).long(),
       lambda a, b: np.floor_divide((a * 8).astype(np.int64), (b * 3).astype(np.int64)),
       BINARY[:5], domain=("any", "nz"), out="int64", grad=False),
    Op("div_floor", lambda m, a, b: m.div(a, b, rounding_mode="floor"), np.floor_divide,
       BINARY, domain=("any", "nz")),
    Op("div_trunc", lambda m, a, b: a.div(b, rounding_mode="trunc"),
       lambda a, b: np.trunc(a / b), BINARY, domain=("any", "nz")),
    Op("div_trunc_int", lambda m, a, b: m.div((a * 8).long(), (b * 3).long(),
                                              rounding_mode="trunc"),
       lambda a, b: np.fix((a * 8).astype(np.int64) / (b * 3).astype(np.int64)).astype(
           np.int64), BINARY[:5], domain=("any", "nz"), out="int64", grad=False),
    Op("remainder", lambda m, a, b: a % b, np.remainder, BINARY, domain=("any", "nz")),
    Op("fmod", lambda m, a, b: m.fmod(a, b), np.fmod, BINARY, domain=("any", "nz")),
    Op("fmod_scalar", lambda m, a: a.fmod(-1.25), lambda a: np.fmod(a, -1.25), UNARY),
    Op("fmod_int", lambda m, a, b: m.fmod((a * 8).long(), (b * 3).long()),
       lambda a, b: np.fmod((a * 8).astype(np.int64), (b * 3).astype(np.int64)),
       BINARY[:5], domain=("any", "nz"), out="int64", grad=False),
    Op("remainder_fn", lambda m, a, b: m.remainder(a, b), np.remainder, BINARY[:2],
       domain=("any", "nz")),
    Op("remainder_tensor_scalar", lambda m, a: a % -1.25, lambda a: np.remainder(a, -1.25),
       UNARY),
    Op("remainder_scalar", lambda m, a: (2.5 % a).detach(), lambda a: np.remainder(2.5, a),
       S, domain="nz", grad=False),
    Op("remainder_int", lambda m, a, b: (a * 8).long() % (b * 3).long(),
       lambda a, b: np.remainder((a * 8).astype(np.int64), (b * 3).astype(np.int64)),
       BINARY[:5], domain=("any", "nz"), out="int64", grad=False),
    # rounding: zero derivatives (frac's is one)
    Op("floor", lambda m, a: m.floor(a * 3), lambda a: np.floor(a * 3), UNARY),
    Op("ceil", lambda m, a: (a * 3).ceil(), lambda a: np.ceil(a * 3), UNARY),
    Op("trunc", lambda m, a: m.trunc(a * 3), lambda a: np.trunc(a * 3), UNARY),
    Op("fix", lambda m, a: m.fix(a * 3), lambda a: np.trunc(a * 3), S),
    Op("round", lambda m, a: m.round(a * 3), lambda a: np.round(a * 3), UNARY),
    Op("round_decimals", lambda m, a: m.round(a * 3, decimals=2),
       lambda a: np.round(a * 3, 2), UNARY[:2]),
    Op("round_decimals_neg", lambda m, a: a.mul(300).round(decimals=-1),
       lambda a: np.round(a * 300, -1), S),
    Op("frac", lambda m, a: m.frac(a * 3), lambda a: a * 3 - np.trunc(a * 3), UNARY),
    # ----- elementwise math ------------------------------------------------------------
    Op("exp", lambda m, a: m.exp(a), np.exp, UNARY),
    Op("exp_method", lambda m, a: a.exp(), np.exp, S),
    Op("log", lambda m, a: m.log(a), np.log, UNARY, domain="pos"),
    Op("sqrt", lambda m, a: m.sqrt(a), np.sqrt, UNARY, domain="pos"),
    Op("abs", lambda m, a: m.abs(a), np.abs, UNARY, domain="nz"),
    Op("abs_builtin", lambda m, a: abs(a), np.abs, S, domain="nz"),
    Op("sign", lambda m, a: m.sign(a), np.sign, UNARY, domain="nz"),
    Op("tanh", lambda m, a: m.tanh(a), np.tanh, UNARY),
    Op("sigmoid", lambda m, a: m.sigmoid(a), lambda a: 1 / (1 + np.exp(-a)), UNARY),
    Op("relu", lambda m, a: m.relu(a), lambda a: np.maximum(a, 0), UNARY, domain="nz"),
    Op("relu_method", lambda m, a: a.relu(), lambda a: np.maximum(a, 0), S, domain="nz"),
    Op("where", lambda m, a, b: m.where(a > 0, a, b), lambda a, b: np.where(a > 0, a, b),
       BINARY[:4], domain=("nz", "any")),
    Op("where_scalar", lambda m, a: m.where(a > 0, a, 0.0), lambda a: np.where(a > 0, a, 0.0),
       S, domain="nz"),
    Op("where_method", lambda m, a, b: a.where(b > 0, b), lambda a, b: np.where(b > 0, a, b),
       BINARY[:2], domain=("any", "nz")),
    Op("maximum", lambda m, a, b: m.maximum(a, b), np.maximum, BINARY[:5]),
    Op("minimum", lambda m, a, b: m.minimum(a, b), np.minimum, BINARY[:5]),
    Op("maximum_method", lambda m, a, b: a.maximum(b), np.maximum, BINARY[:1]),
    Op("max_binary", lambda m, a, b: m.max(a, b), np.maximum, BINARY[:2]),
    Op("min_binary", lambda m, a, b: m.min(a, b), np.minimum, BINARY[:2]),
    # the rest of the elementwise table (nbgrad/ops/elementwise.py)
    Op("log1p", lambda m, a: m.log1p(a), np.log1p, UNARY, domain="pos"),
    Op("expm1", lambda m, a: m.expm1(a), np.expm1, UNARY),
    Op("rsqrt", lambda m, a: m.rsqrt(a), lambda a: 1 / np.sqrt(a), UNARY, domain="pos"),
    Op("sin", lambda m, a: m.sin(a), np.sin, UNARY),
    Op("cos", lambda m, a: a.cos(), np.cos, UNARY),
    Op("tan", lambda m, a: m.tan(a), np.tan, UNARY),
    Op("erf", lambda m, a: m.erf(a), lambda a: np.vectorize(math.erf)(a).astype(a.dtype), UNARY),
    # (one shape each: the shared loops are covered by the ops above)
    Op("erfc", lambda m, a: m.erfc(a), lambda a: np.vectorize(math.erfc)(a).astype(a.dtype), S),
    Op("log10", lambda m, a: m.log10(a), np.log10, S, domain="pos"),
    Op("log2", lambda m, a: a.log2(), np.log2, S, domain="pos"),
    Op("erfinv", lambda m, a: m.erfinv(a), lambda a: _ref_erfinv(a).astype(a.dtype), S,
       domain="unit"),
    Op("lgamma", lambda m, a: m.lgamma(a), lambda a: np.vectorize(math.lgamma)(a).astype(
        a.dtype), S),
    Op("digamma", lambda m, a: a.digamma(), lambda a: _ref_polygamma(0, a), S, domain="pos"),
    Op("polygamma", lambda m, a: m.polygamma(2, a), lambda a: _ref_polygamma(2, a), S,
       domain="pos"),
    # ----- torch.special's Bessel, error-function, zeta and incomplete-gamma rows ---------
    Op("i0", lambda m, a: m.i0(a), lambda a: np.i0(a).astype(a.dtype), S),
    Op("special_i0e", lambda m, a: m.special.i0e(a),
       lambda a: (np.i0(a) * np.exp(-np.abs(a))).astype(a.dtype), S),
    Op("special_i1", lambda m, a: m.special.i1(a), _mp(lambda mp, v: mp.besseli(1, v)), S),
    Op("special_i1e", lambda m, a: m.special.i1e(a),
       _mp(lambda mp, v: mp.besseli(1, v) * mp.exp(-abs(v))), S),
    Op("special_ndtri", lambda m, a: m.special.ndtri(a * 0.5 + 0.5),
       _mp(lambda mp, v: mp.sqrt(2) * mp.erfinv(v)), S, domain="unit"),
    Op("special_erfcx", lambda m, a: m.special.erfcx(a),
       _mp(lambda mp, v: mp.exp(v * v) * mp.erfc(v)), S),
    Op("special_log_ndtr", lambda m, a: m.special.log_ndtr(a), _mp(lambda mp, v: mp.log(
        mp.ncdf(v))), S),
    Op("special_zeta", lambda m, a: m.special.zeta(3.0, a), _mp(lambda mp, v: mp.zeta(3, v)), S,
       domain="pos"),
    Op("igamma", lambda m, a: m.igamma(m.full_like(a, 2.5), a),
       _mp(lambda mp, v: mp.gammainc(2.5, 0, v, regularized=True)), S, domain="pos"),
    Op("igammac", lambda m, a: m.igammac(m.full_like(a, 1.5), a),
       _mp(lambda mp, v: mp.gammainc(1.5, v, regularized=True)), S, domain="pos"),
    # (no derivative in PyTorch: no node)
    *[Op("special_" + name, (lambda name: lambda m, a: getattr(m.special, name)(a))(name),
         _mp(ref), S, domain=dom, grad=False) for name, ref, dom in (
        ("bessel_j0", lambda mp, v: mp.besselj(0, v), "any"),
        ("bessel_j1", lambda mp, v: mp.besselj(1, v), "any"),
        ("bessel_y0", lambda mp, v: mp.bessely(0, v), "pos"),
        ("bessel_y1", lambda mp, v: mp.bessely(1, v), "pos"),
        ("modified_bessel_i0", lambda mp, v: mp.besseli(0, v), "any"),
        ("modified_bessel_i1", lambda mp, v: mp.besseli(1, v), "any"),
        ("modified_bessel_k0", lambda mp, v: mp.besselk(0, v), "pos"),
        ("modified_bessel_k1", lambda mp, v: mp.besselk(1, v), "pos"),
        ("scaled_modified_bessel_k0", lambda mp, v: mp.besselk(0, v) * mp.exp(v), "pos"),
        ("scaled_modified_bessel_k1", lambda mp, v: mp.besselk(1, v) * mp.exp(v), "pos"),
        ("airy_ai", lambda mp, v: mp.airyai(v), "any"),
        ("spherical_bessel_j0", lambda mp, v: mp.sin(v) / v, "nz"))],
    *[Op("special_" + name, (lambda name: lambda m, a: getattr(m.special, name)(a, 3))(name),
         _poly(c, shift), S, domain="unit", grad=False) for name, c, shift in (
        ("chebyshev_polynomial_t", [0, -3, 0, 4], False),
        ("chebyshev_polynomial_u", [0, -4, 0, 8], False),
        ("chebyshev_polynomial_v", [1, -4, -4, 8], False),
        ("chebyshev_polynomial_w", [-1, -4, 4, 8], False),
        ("shifted_chebyshev_polynomial_t", [0, -3, 0, 4], True),
        ("shifted_chebyshev_polynomial_u", [0, -4, 0, 8], True),
        ("shifted_chebyshev_polynomial_v", [1, -4, -4, 8], True),
        ("shifted_chebyshev_polynomial_w", [-1, -4, 4, 8], True),
        ("hermite_polynomial_h", [0, -12, 0, 8], False),
        ("hermite_polynomial_he", [0, -3, 0, 1], False),
        ("laguerre_polynomial_l", [1, -3, 1.5, -1 / 6], False),
        ("legendre_polynomial_p", [0, -1.5, 0, 2.5], False))],
    Op("asin", lambda m, a: m.asin(a), np.arcsin, S, domain="unit"),
    Op("acos", lambda m, a: a.acos(), np.arccos, S, domain="unit"),
    Op("atan", lambda m, a: m.arctan(a), np.arctan, S),
    Op("atan2", lambda m, a, b: m.atan2(a, b), np.arctan2, BINARY[1:2], domain=("any", "nz")),
    Op("sinh", lambda m, a: m.sinh(a), np.sinh, S),
    Op("cosh", lambda m, a: a.cosh(), np.cosh, S),
    Op("asinh", lambda m, a: m.asinh(a), np.arcsinh, S),
    Op("acosh", lambda m, a: m.acosh(a), np.arccosh, S, domain="gt1"),
    Op("atanh", lambda m, a: m.atanh(a), np.arctanh, S, domain="unit"),
    Op("exp2", lambda m, a: m.exp2(a), np.exp2, S),
    Op("fmax", lambda m, a, b: m.fmax(a, b), np.fmax, BINARY[1:2]),
    Op("fmin", lambda m, a, b: a.fmin(b), np.fmin, BINARY[1:2]),
    Op("reciprocal", lambda m, a: m.reciprocal(a), lambda a: 1 / a, UNARY, domain="nz"),
    Op("rsub", lambda m, a, b: m.rsub(a, b), lambda a, b: b - a, BINARY[:3]),
    Op("multiply", lambda m, a, b: m.multiply(a, b), np.multiply, BINARY[:2]),
    Op("clamp", lambda m, a: m.clamp(a, -0.5, 0.5), lambda a: np.clip(a, -0.5, 0.5), UNARY,
       domain="nz"),
    Op("clamp_min", lambda m, a: m.clamp_min(a, 0.1), lambda a: np.maximum(a, 0.1), S,
       domain="nz"),
    Op("clamp_max", lambda m, a: a.clamp_max(0.1), lambda a: np.minimum(a, 0.1), S,
       domain="nz"),
    Op("clamp_tensor", lambda m, a, lo, hi: m.clamp(a, lo, hi),
       lambda a, lo, hi: np.minimum(np.maximum(a, lo), hi), (((3, 4), (4,), (3, 1)),),
       domain=("nz", "any", "any"), check=False),
    Op("softplus", lambda m, a: m.nn.functional.softplus(a),
       lambda a: np.where(a > 20, a, np.log1p(np.exp(np.minimum(a, 20)))), UNARY),
    Op("softplus_beta", lambda m, a: m.nn.functional.softplus(a * 4, beta=2.0, threshold=3.0),
       lambda a: np.where(8 * a > 3, 4 * a, np.log1p(np.exp(np.minimum(8 * a, 3))) / 2), S),
    Op("gelu", lambda m, a: m.nn.functional.gelu(a), lambda a: _np_gelu(a)[0], UNARY),
    Op("gelu_tanh", lambda m, a: m.nn.functional.gelu(a, approximate="tanh"),
       lambda a: _np_gelu_tanh(a)[0], UNARY),
    # fused backward steps, against PyTorch's aten ops of the same name
    Op("gelu_backward", lambda m, g, x: _fused(m, "gelu_backward")(g, x),
       lambda g, x: g * _np_gelu(x)[1], BINARY[:1]),  # (aten's: no broadcasting)
    Op("gelu_tanh_backward", lambda m, g, x: _fused(m, "gelu_tanh_backward")(g, x),
       lambda g, x: g * _np_gelu_tanh(x)[1], BINARY[:1]),
    Op("tanh_backward", lambda m, g, y: _fused(m, "tanh_backward")(g, y),
       lambda g, y: g * (1 - y * y), BINARY[:3]),
    Op("sigmoid_backward", lambda m, g, y: _fused(m, "sigmoid_backward")(g, y),
       lambda g, y: g * y * (1 - y), BINARY[:3]),
    Op("threshold_backward", lambda m, g, x: _fused(m, "threshold_backward")(g, x),
       lambda g, x: np.where(x > 0, g, 0.0), BINARY[:3], domain=("any", "nz")),
    Op("twice_mul", lambda m, g, x: _fused(m, "twice_mul")(g, x), lambda g, x: g * (2 * x),
       BINARY[:3]),
    Op("neg_twice_mul", lambda m, g, x: _fused(m, "neg_twice_mul")(g, x),
       lambda g, x: g * (-2 * x), BINARY[:3]),
    # ----- comparisons: bool results, no gradient ----------------------------------------
    *[
        Op(n, f, r, BINARY[:5], out="bool", grad=False)
        for n, f, r in [
            ("eq", lambda m, a, b: a == b, np.equal),
            ("ne", lambda m, a, b: a != b, np.not_equal),
            ("lt", lambda m, a, b: a < b, np.less),
            ("le", lambda m, a, b: a <= b, np.less_equal),
            ("gt", lambda m, a, b: a > b, np.greater),
            ("ge", lambda m, a, b: a >= b, np.greater_equal),
            ("eq_fn", lambda m, a, b: m.eq(a, b), np.equal),
            ("lt_method", lambda m, a, b: a.lt(b), np.less),
            ("ge_fn", lambda m, a, b: m.ge(a, b), np.greater_equal),
        ]
    ],
    Op("eq_self", lambda m, a: a == a, lambda a: a == a, S, out="bool", grad=False),
    Op("gt_scalar", lambda m, a: a > 0.25, lambda a: a > 0.25, UNARY, out="bool", grad=False),
    Op("le_int", lambda m, a: a <= 0, lambda a: a <= 0, S, out="bool", grad=False),
    Op("rlt_scalar", lambda m, a: 0.5 < a, lambda a: 0.5 < a, S, out="bool", grad=False),
    # ----- reductions --------------------------------------------------------------------
    Op("sum", lambda m, a: a.sum(), np.sum, R3 + (((5,),), ((),))),
    Op("sum_fn", lambda m, a: m.sum(a), np.sum, R3),
    Op("sum_dim", lambda m, a: a.sum(1), lambda a: a.sum(1), R3),
    Op("sum_dim_neg", lambda m, a: a.sum(dim=-1), lambda a: a.sum(-1), R3),
    Op("sum_dim_tuple", lambda m, a: a.sum((0, 2)), lambda a: a.sum((0, 2)), R3),
    Op("sum_dim_tuple_neg", lambda m, a: m.sum(a, (-1, 0)), lambda a: a.sum((-1, 0)), R3),
    Op("sum_dims_apart", lambda m, a: a.sum((1, 3)), lambda a: a.sum((1, 3)), (((2, 3, 2, 2),),)),
    Op("sum_keepdim", lambda m, a: a.sum(1, keepdim=True), lambda a: a.sum(1, keepdims=True), R3),
    Op("sum_tuple_keepdim", lambda m, a: a.sum((0, 2), True),
       lambda a: a.sum((0, 2), keepdims=True), R3),
    Op("mean", lambda m, a: a.mean(), np.mean, R3 + (((5,),),)),
    Op("mean_dim", lambda m, a: m.mean(a, 0), lambda a: a.mean(0), R3),
    Op("mean_dim_tuple", lambda m, a: a.mean((1, -1)), lambda a: a.mean((1, -1)), R3),
    Op("mean_keepdim", lambda m, a: a.mean(-2, keepdim=True),
       lambda a: a.mean(-2, keepdims=True), R3),
    Op("amax", lambda m, a: a.amax(), _np_max, R3 + (((5,),),)),
    Op("amax_dim", lambda m, a: m.amax(a, 1), lambda a: _np_max(a, 1), R3),
    Op("amax_dim_tuple", lambda m, a: a.amax((0, 2)), lambda a: _np_max(a, (0, 2)), R3),
    Op("amax_keepdim", lambda m, a: a.amax(-1, keepdim=True),
       lambda a: _np_max(a, -1, True), R3),
    Op("amin", lambda m, a: m.amin(a), _np_min, R3),
    Op("amin_dim_tuple_keepdim", lambda m, a: a.amin((-1, 0), keepdim=True),
       lambda a: _np_min(a, (-1, 0), True), R3),
    Op("max", lambda m, a: a.max(), _np_max, R3 + (((5,),), ((),))),
    Op("min", lambda m, a: m.min(a), _np_min, R3),
    Op("max_dim", lambda m, a: a.max(dim=1).values, lambda a: _np_max(a, 1), R3),
    Op("max_dim_keepdim", lambda m, a: m.max(a, -1, keepdim=True)[0],
       lambda a: _np_max(a, -1, True), R3),
    Op("min_dim", lambda m, a: a.min(0).values, lambda a: _np_min(a, 0), R3),
    Op("min_dim_keepdim", lambda m, a: a.min(dim=2, keepdim=True).values,
       lambda a: _np_min(a, 2, True), R3),
    Op("max_dim_indices", lambda m, a: a.max(1).indices, lambda a: np.argmax(a, 1), R3,
       out="int64", grad=False),
    Op("min_dim_indices", lambda m, a: m.min(a, -1, True)[1],
       lambda a: np.argmin(a, -1, keepdims=True), R3, out="int64", grad=False),
    Op("argmax", lambda m, a: a.argmax(), np.argmax, R3 + (((5,),),), out="int64", grad=False),
    Op("argmax_dim", lambda m, a: m.argmax(a, 1), lambda a: np.argmax(a, 1), R3,
       out="int64", grad=False),
    Op("argmax_keepdim", lambda m, a: a.argmax(-1, keepdim=True),
       lambda a: np.argmax(a, -1, keepdims=True), R3, out="int64", grad=False),
    Op("argmin", lambda m, a: m.argmin(a), np.argmin, R3, out="int64", grad=False),
    Op("argmin_dim", lambda m, a: a.argmin(dim=0), lambda a: np.argmin(a, 0), R3,
       out="int64", grad=False),
    # ----- linear algebra ----------------------------------------------------------------
    Op("matmul", lambda m, a, b: a @ b, np.matmul, (
        ((3,), (3,)),  # dot
        ((2, 3), (3,)),  # matrix @ vector
        ((3,), (3, 2)),  # vector @ matrix
        ((2, 3), (3, 4)),
        ((2, 2, 3), (3, 4)),  # batched @ matrix
        ((2, 3, 2, 3), (3, 2)),  # batch of batches @ matrix (one flattened product)
        ((3,), (2, 3, 2)),  # vector @ batched
        ((2, 2, 3), (3,)),  # batched @ vector
        ((2, 2, 3), (2, 3, 2)),
        ((2, 1, 2, 3), (3, 3, 2)),  # broadcast batch (small enough for gradgradcheck)
        ((2, 1, 3, 4), (5, 4, 2)),  # broadcast batch
    )),
    Op("matmul_fn", lambda m, a, b: m.matmul(a, b), np.matmul, (((2, 3), (3, 4)),)),
    Op("mm", lambda m, a, b: m.mm(a, b), np.matmul, (((2, 3), (3, 4)),)),
    Op("mm_method", lambda m, a, b: a.mm(b), np.matmul, (((3, 2), (2, 2)),)),
    Op("bmm", lambda m, a, b: m.bmm(a, b), np.matmul, (((2, 2, 3), (2, 3, 2)),)),
    Op("dot", lambda m, a, b: m.dot(a, b), np.dot, (((4,), (4,)),)),
    Op("dot_method", lambda m, a, b: a.dot(b), np.dot, (((3,), (3,)),)),
    # ----- shape ops -----------------------------------------------------------------------
    Op("reshape", lambda m, a: a.reshape(4, 6), lambda a: a.reshape(4, 6), R3),
    Op("reshape_infer", lambda m, a: a.reshape(-1, 2), lambda a: a.reshape(-1, 2), R3),
    Op("reshape_tuple", lambda m, a: m.reshape(a, (3, -1)), lambda a: a.reshape(3, -1), R3),
    Op("reshape_0d", lambda m, a: a.reshape(1, 1), lambda a: a.reshape(1, 1), (((),),)),
    Op("view", lambda m, a: a.view(6, 4), lambda a: a.reshape(6, 4), R3),
    Op("view_flat", lambda m, a: a.view(-1), lambda a: a.reshape(-1), R3),
    Op("flatten", lambda m, a: a.flatten(), lambda a: a.reshape(-1), R3),
    Op("flatten_start", lambda m, a: m.flatten(a, 1), lambda a: a.reshape(2, 12), R3),
    Op("flatten_range", lambda m, a: a.flatten(0, 1), lambda a: a.reshape(6, 4), R3),
    Op("transpose", lambda m, a: a.transpose(0, 2), lambda a: a.transpose(2, 1, 0), R3),
    Op("transpose_neg", lambda m, a: m.transpose(a, -1, -2), lambda a: a.swapaxes(-1, -2), R3),
    Op("permute", lambda m, a: a.permute(2, 0, 1), lambda a: a.transpose(2, 0, 1), R3),
    Op("permute_tuple", lambda m, a: m.permute(a, (1, 2, 0)), lambda a: a.transpose(1, 2, 0), R3),
    Op("t", lambda m, a: a.t(), lambda a: a.T, (((3, 4),), ((4,),))),
    Op("t_fn", lambda m, a: m.t(a), lambda a: a.T, S),
    Op("T", lambda m, a: a.T, lambda a: a.T, S),
    Op("expand", lambda m, a: a.expand(2, 3, 4), lambda a: np.broadcast_to(a, (2, 3, 4)),
       (((3, 1),), ((4,),), ((),))),
    Op("expand_keep", lambda m, a: a.expand(-1, 5), lambda a: np.broadcast_to(a, (3, 5)),
       (((3, 1),),)),
    Op("expand_as", lambda m, a, b: a.expand_as(b), lambda a, b: np.broadcast_to(a, b.shape),
       (((3, 1), (2, 3, 4)),)),
    Op("squeeze", lambda m, a: a.squeeze(), lambda a: a.squeeze(), (((2, 1, 3, 1),),)),
    Op("squeeze_dim", lambda m, a: a.squeeze(1), lambda a: a.squeeze(1), (((2, 1, 3, 1),),)),
    Op("squeeze_neg", lambda m, a: m.squeeze(a, -1), lambda a: a.squeeze(-1), (((2, 1, 3, 1),),)),
    Op("squeeze_noop", lambda m, a: a.squeeze(0), lambda a: a, (((2, 1, 3, 1),),)),
    Op("unsqueeze", lambda m, a: a.unsqueeze(0), lambda a: a[None], S),
    Op("unsqueeze_mid", lambda m, a: m.unsqueeze(a, 1), lambda a: a[:, None], S),
    Op("unsqueeze_neg", lambda m, a: a.unsqueeze(-1), lambda a: a[..., None], S),
    # basic indexing: ints, slices with steps, None, Ellipsis
    *[
        Op(f"getitem[{n}]", (lambda k: lambda m, a: a[k])(k), (lambda k: lambda a: a[k])(k), R3)
        for n, k in [
            ("1", 1),
            ("-1", -1),
            ("0,2", (0, 2)),
            ("0,1,3", (0, 1, 3)),
            (":,1:3", (slice(None), slice(1, 3))),
            ("::2", slice(None, None, 2)),
            ("...,::3", (Ellipsis, slice(None, None, 3))),
            ("1:,::2,1::2", (slice(1, None), slice(None, None, 2), slice(1, None, 2))),
            ("None", None),
            ("None,1", (None, 1)),
            ("...,None", (Ellipsis, None)),
            ("1,...,2", (1, Ellipsis, 2)),
            (":,None,::2,-1", (slice(None), None, slice(None, None, 2), -1)),
            ("...", Ellipsis),
            ("5:", slice(5, None)),  # empty result
        ]
    ],
    # ----- copies ----------------------------------------------------------------------------
    Op("clone", lambda m, a: a.clone(), np.copy, UNARY[:2]),
    Op("clone_fn", lambda m, a: m.clone(a), np.copy, S),
    Op("contiguous", lambda m, a: a.contiguous(), np.copy, S),
    Op("to_float64", lambda m, a: a.to(m.float64), lambda a: a.astype(np.float64), S,
       out="float64"),
    Op("double", lambda m, a: a.double(), lambda a: a.astype(np.float64), S, out="float64"),
    # float32 output is too coarse for finite differences; gradients still compared
    Op("float", lambda m, a: a.float(), lambda a: a.astype(np.float32), S, out="float32",
       check=False),
    Op("to_int64", lambda m, a: a.to(m.int64), lambda a: a.astype(np.int64), S, out="int64",
       grad=False),
    # ----- compositions: several ops in one graph ----------------------------------------------
    Op("composite", lambda m, a, b: ((a * b).tanh() + m.exp(-a)).sum(-1) / 3.0,
       lambda a, b: (np.tanh(a * b) + np.exp(-a)).sum(-1) / 3.0, BINARY[:3]),
]


def _case_id(op, shapes):
    def fmt(s):
        return "x".join(map(str, s)) if s else "0d"

    return f"{op.name}-{'&'.join(fmt(s) for s in shapes)}"


CASES = [pytest.param(op, shapes, id=_case_id(op, shapes)) for op in OPS for shapes in op.shapes]


def _numel(shape):
    return int(np.prod(shape, dtype=np.int64))


def _out_numel(op, shapes):
    with np.errstate(all="ignore"):  # (ones may lie on a domain's edge: atanh's)
        return np.asarray(op.ref(*[np.ones(s) for s in shapes])).size


def _small(op, shapes, limit):
    """Inputs plus output small enough for finite differences (each input is perturbed)."""
    return sum(_numel(s) for s in shapes) + _out_numel(op, shapes) <= limit


GRAD_CASES = [
    pytest.param(op, shapes, id=_case_id(op, shapes))
    for op in OPS if op.grad and op.check for shapes in op.shapes if _small(op, shapes, 90)
]
GRADGRAD_CASES = [
    pytest.param(op, shapes, id=_case_id(op, shapes))
    for op in OPS if op.grad and op.check for shapes in op.shapes if _small(op, shapes, 60)
]


def _domain(op, i):
    return op.domain if isinstance(op.domain, str) else op.domain[i]


def _inputs(op, shapes, dtype, seed=0):
    """NumPy inputs for ``op``, honouring its domain, reproducible per seed."""
    rng = np.random.default_rng(seed)
    out = []
    for i, s in enumerate(shapes):
        d = _domain(op, i)
        if d == "pos":
            a = rng.uniform(0.5, 2.0, s)
        elif d == "nz":  # away from the kinks of abs/relu/sign and the pole of 1/x
            a = rng.uniform(0.5, 2.0, s) * rng.choice([-1.0, 1.0], s)
        elif d == "unit":  # inside asin's, acos's and atanh's domain, away from its ends
            a = rng.uniform(-0.9, 0.9, s)
        elif d == "gt1":  # inside acosh's
            a = rng.uniform(1.2, 3.0, s)
        else:
            a = rng.standard_normal(s)
        out.append(np.asarray(a, dtype=dtype))
    return out


def _expected_dtype(op, dtype):
    return getattr(nbgrad, op.out or dtype)


def _tol(dtype):
    return dict(rtol=1e-5, atol=1e-6) if dtype == "float32" else dict(rtol=1e-10, atol=1e-12)


def _leaves(arrs, requires_grad):
    return [nbgrad.tensor(a, requires_grad=requires_grad) for a in arrs]


def _grads(ts):
    return [None if t.grad is None else t.grad.numpy() for t in ts]


# ----- 1. forward values against NumPy ------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op,shapes", CASES)
def test_forward_matches_numpy(op, shapes, dtype):
    arrs = _inputs(op, shapes, dtype)
    out = op.fn(nbgrad, *_leaves(arrs, False))
    expected = np.asarray(op.ref(*arrs))
    assert isinstance(out, nbgrad.Tensor)
    assert tuple(out.shape) == expected.shape
    assert out.dtype == _expected_dtype(op, dtype)
    if op.out in ("bool", "int64"):
        np.testing.assert_array_equal(out.numpy(), expected)
    else:
        np.testing.assert_allclose(out.numpy(), expected, **_tol(dtype))


@pytest.mark.parametrize("op,shapes", CASES)
def test_requires_grad_propagates(op, shapes):
    ts = _leaves(_inputs(op, shapes, "float64"), True)
    out = op.fn(nbgrad, *ts)
    assert out.requires_grad is op.grad
    with nbgrad.no_grad():
        assert op.fn(nbgrad, *ts).grad_fn is None


# ----- 2. finite differences in float64 ------------------------------------------------------
@pytest.mark.parametrize("op,shapes", GRAD_CASES)
def test_gradcheck(op, shapes):
    ts = _leaves(_inputs(op, shapes, "float64"), True)
    assert gradcheck(lambda *xs: op.fn(nbgrad, *xs), ts)


@pytest.mark.parametrize("op,shapes", GRADGRAD_CASES)
def test_gradgradcheck(op, shapes):
    ts = _leaves(_inputs(op, shapes, "float64"), True)
    assert gradgradcheck(lambda *xs: op.fn(nbgrad, *xs), ts)


# ----- 3. non-contiguous inputs ---------------------------------------------------------------
def _noncontig(a, layout):
    """A tensor with ``a``'s values whose storage is not C-contiguous (a view leaf)."""
    if a.ndim == 0:
        return nbgrad.tensor(a)
    if layout == "transposed" and a.ndim >= 2:
        rev = tuple(range(a.ndim - 1, -1, -1))
        return nbgrad.tensor(np.ascontiguousarray(a.transpose(rev))).permute(rev)
    base = np.zeros(a.shape[:-1] + (2 * a.shape[-1],), a.dtype)
    base[..., ::2] = a
    return nbgrad.tensor(base)[..., ::2]


@pytest.mark.parametrize("layout", ["transposed", "strided"])
@pytest.mark.parametrize("op,shapes", CASES)
def test_noncontiguous_inputs(op, shapes, layout):
    arrs = _inputs(op, shapes, "float64")
    nc = [_noncontig(a, layout) for a in arrs]
    for a, t in zip(arrs, nc):
        np.testing.assert_array_equal(t.numpy(), a)
        big = sum(s > 1 for s in a.shape)  # size-1 dims do not count for contiguity
        if (layout == "strided" and a.ndim and a.shape[-1] > 1) or big >= 2:
            assert not t.is_contiguous()
    if layout == "transposed" and op.name.startswith("view") and arrs[0].ndim >= 2:
        with pytest.raises(RuntimeError, match="view size is not compatible"):
            op.fn(nbgrad, *nc)  # as in PyTorch: view needs compatible strides
        return
    if op.grad:
        nc = [t.requires_grad_() for t in nc]
    c = _leaves(arrs, op.grad)
    out_c, out_n = op.fn(nbgrad, *c), op.fn(nbgrad, *nc)
    assert out_n.shape == out_c.shape and out_n.dtype == out_c.dtype
    np.testing.assert_allclose(out_n.detach().numpy(), out_c.detach().numpy(), rtol=1e-12)
    if op.grad and out_c.numel():
        go = nbgrad.tensor(np.random.default_rng(1).standard_normal(tuple(out_c.shape)),
                           dtype=out_c.dtype)
        out_c.backward(go)
        out_n.backward(go)
        for gc, gn in zip(_grads(c), _grads(nc)):
            assert (gc is None) == (gn is None)
            if gc is not None:
                np.testing.assert_allclose(gn, gc, rtol=1e-12, atol=1e-14)


def _first_2d_case_per_op(cases):
    seen, out = set(), []
    for c in cases:
        op, shapes = c.values
        if op.name not in seen and any(len(s) >= 2 for s in shapes):
            seen.add(op.name)
            out.append(c)
    return out


@pytest.mark.parametrize("op,shapes", _first_2d_case_per_op(GRAD_CASES))
def test_gradcheck_noncontiguous(op, shapes):
    layout = "strided" if op.name.startswith("view") else "transposed"  # view needs strides
    ts = [_noncontig(a, layout).requires_grad_() for a in _inputs(op, shapes, "float64")]
    assert gradcheck(lambda *xs: op.fn(nbgrad, *xs), ts)


# ----- 4. PyTorch as a second oracle ---------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op,shapes", CASES)
def test_matches_torch(op, shapes, dtype):
    torch = pytest.importorskip("torch")
    arrs = _inputs(op, shapes, dtype, seed=2)
    nb = _leaves(arrs, op.grad)
    th = [torch.tensor(a, requires_grad=op.grad) for a in arrs]
    out_nb, out_th = op.fn(nbgrad, *nb), op.fn(torch, *th)
    assert tuple(out_nb.shape) == tuple(out_th.shape)
    assert out_nb.dtype.name == str(out_th.dtype).removeprefix("torch.")
    tol = _tol(dtype) if dtype == "float32" else dict(rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(out_nb.detach().numpy(), out_th.detach().numpy(), **tol)
    if op.grad and out_nb.numel():
        go = np.random.default_rng(3).standard_normal(tuple(out_nb.shape)).astype(out_nb.dtype.name)
        out_nb.backward(nbgrad.tensor(go))
        out_th.backward(torch.tensor(go))
        for t_nb, t_th in zip(nb, th):
            assert (t_nb.grad is None) == (t_th.grad is None)
            if t_th.grad is not None:
                assert t_nb.grad.dtype.name == str(t_th.grad.dtype).removeprefix("torch.")
                np.testing.assert_allclose(t_nb.grad.numpy(), t_th.grad.numpy(), **tol)


# ----- max(dim) and friends ------------------------------------------------------------------
def test_max_dim_returns_values_and_indices():
    x = nbgrad.tensor([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]])
    r = x.max(dim=1)
    assert type(r).__name__ == "max"
    values, indices = r
    assert r.values is values and r.indices is indices
    assert values.tolist() == [5.0, 7.0]
    assert indices.tolist() == [1, 0] and indices.dtype == nbgrad.int64
    r = nbgrad.min(x, 0, keepdim=True)
    assert type(r).__name__ == "min"
    assert r.values.tolist() == [[1.0, 0.0, 2.0]] and r.indices.tolist() == [[0, 1, 0]]
    assert r[0].shape == (1, 3)


def test_max_dim_indices_have_no_grad():
    x = nbgrad.tensor([[1.0, 5.0], [7.0, 0.0]], requires_grad=True)
    v, i = x.max(1)
    assert v.requires_grad and not i.requires_grad and i.grad_fn is None


# ----- comparisons: no gradient -------------------------------------------------------------------
@pytest.mark.parametrize("cmp", ["eq", "ne", "lt", "le", "gt", "ge"])
def test_comparison_has_no_grad(cmp):
    a = nbgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = nbgrad.tensor([3.0, 2.0, 1.0], requires_grad=True)
    out = getattr(nbgrad, cmp)(a, b)
    assert out.dtype == nbgrad.bool and not out.requires_grad and out.grad_fn is None
    assert out.tolist() == getattr(np, {"eq": "equal", "ne": "not_equal", "lt": "less",
                                        "le": "less_equal", "gt": "greater",
                                        "ge": "greater_equal"}[cmp])([1, 2, 3], [3, 2, 1]).tolist()


def test_integer_comparisons_and_mixed_dtypes():
    i = nbgrad.tensor([1, 2, 3])
    f = nbgrad.tensor([1.5, 2.0, 2.5])
    assert (i == f).tolist() == [False, True, False]
    assert (i < 2.5).tolist() == [True, True, False]
    assert (i >= 2).tolist() == [False, True, True]
    assert (nbgrad.tensor([True, False]) == True).tolist() == [True, False]  # noqa: E712


# ----- subgradient conventions (PyTorch's) --------------------------------------------------
def _grad_of(f, values, dtype=nbgrad.float64):
    x = nbgrad.tensor(values, dtype=dtype, requires_grad=True)
    f(x).sum().backward()
    return x.grad.tolist()


def test_relu_grad_at_zero_is_zero():
    assert _grad_of(nbgrad.relu, [-1.0, 0.0, 2.0]) == [0.0, 0.0, 1.0]


def test_abs_grad_at_zero_is_zero():
    assert _grad_of(nbgrad.abs, [-1.0, 0.0, 2.0]) == [-1.0, 0.0, 1.0]


def test_sign_grad_is_zero():
    assert _grad_of(nbgrad.sign, [-1.0, 0.0, 2.0]) == [0.0, 0.0, 0.0]


def test_sqrt_log_at_zero():
    x = nbgrad.tensor([0.0, 1.0], requires_grad=True)
    y = nbgrad.log(x)
    assert y.tolist()[0] == -np.inf
    y.sum().backward()
    assert x.grad.tolist()[0] == np.inf


@pytest.mark.parametrize("fn,values,expected", [
    (lambda x: x.amax(), [1.0, 3.0, 3.0, 0.0, 3.0], [0.0, 1 / 3, 1 / 3, 0.0, 1 / 3]),
    (lambda x: x.max(), [1.0, 3.0, 3.0, 0.0, 3.0], [0.0, 1 / 3, 1 / 3, 0.0, 1 / 3]),
    (lambda x: x.amin(), [1.0, 0.0, 2.0, 0.0], [0.0, 0.5, 0.0, 0.5]),
    (lambda x: x.min(), [1.0, 0.0, 2.0, 0.0], [0.0, 0.5, 0.0, 0.5]),
], ids=["amax", "max", "amin", "min"])
def test_full_reduction_ties_split_evenly(fn, values, expected):
    assert _grad_of(fn, values) == pytest.approx(expected, rel=1e-15)


def test_amax_dim_ties_split_evenly():
    x = nbgrad.tensor([[2.0, 2.0, 1.0], [0.0, 5.0, 5.0]], requires_grad=True)
    x.amax(dim=1).sum().backward()
    assert x.grad.tolist() == [[0.5, 0.5, 0.0], [0.0, 0.5, 0.5]]


def test_max_dim_grad_goes_to_selected_index():
    x = nbgrad.tensor([[2.0, 2.0, 1.0], [0.0, 5.0, 5.0]], requires_grad=True)
    v, idx = x.max(dim=1)
    v.sum().backward()
    expected = np.zeros((2, 3))
    expected[np.arange(2), idx.numpy()] = 1.0
    assert x.grad.tolist() == expected.tolist()
    assert x.grad.sum().item() == 2.0


def test_maximum_minimum_ties_split_evenly():
    a = nbgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = nbgrad.tensor([3.0, 2.0, 1.0], requires_grad=True)
    nbgrad.maximum(a, b).sum().backward()
    assert a.grad.tolist() == [0.0, 0.5, 1.0] and b.grad.tolist() == [1.0, 0.5, 0.0]
    a.grad = b.grad = None
    nbgrad.minimum(a, b).sum().backward()
    assert a.grad.tolist() == [1.0, 0.5, 0.0] and b.grad.tolist() == [0.0, 0.5, 1.0]


def test_subgradients_match_torch():
    torch = pytest.importorskip("torch")
    vals = [[2.0, 2.0, -1.0, 0.0], [0.0, 5.0, 5.0, 5.0]]
    other = [[2.0, 1.0, -1.0, 0.0], [1.0, 5.0, 4.0, 6.0]]
    fns = [
        lambda m, x, y: m.relu(x), lambda m, x, y: m.abs(x), lambda m, x, y: x.amax(),
        lambda m, x, y: x.max(), lambda m, x, y: x.amin(1), lambda m, x, y: x.max(1).values,
        lambda m, x, y: x.min(0).values, lambda m, x, y: m.maximum(x, y),
        lambda m, x, y: m.minimum(x, y), lambda m, x, y: x.amax((0, 1), keepdim=True),
        lambda m, x, y: m.where(x > 1, x, y), lambda m, x, y: m.sign(x),
    ]
    for i, f in enumerate(fns):
        xs = [nbgrad.tensor(v, dtype=nbgrad.float64, requires_grad=True) for v in (vals, other)]
        ts = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in (vals, other)]
        f(nbgrad, *xs).sum().backward()
        f(torch, *ts).sum().backward()
        for x, t in zip(xs, ts):
            got = None if x.grad is None else x.grad.tolist()
            want = None if t.grad is None else t.grad.tolist()
            assert got == want, f"fn #{i}"


# ----- views share storage and the version counter with their base --------------------------
VIEWS = [
    ("reshape", lambda x: x.reshape(6, 4)),
    ("view", lambda x: x.view(-1)),
    ("view_as", lambda x: x.view_as(nbgrad.zeros(4, 6))),
    ("flatten", lambda x: x.flatten(1)),
    ("transpose", lambda x: x.transpose(0, 2)),
    ("permute", lambda x: x.permute(1, 2, 0)),
    ("t", lambda x: x[0].t()),
    ("T", lambda x: x[1].T),
    ("expand", lambda x: x[:, :1].expand(2, 5, 4)),
    ("expand_as", lambda x: x[0, 0].expand_as(x)),
    ("squeeze", lambda x: x[:, :1].squeeze(1)),
    ("unsqueeze", lambda x: x.unsqueeze(1)),
    ("int", lambda x: x[1]),
    ("int_int", lambda x: x[1, -1]),
    ("int_int_int", lambda x: x[1, 2, -1]),  # 0-dim view
    ("slice_step", lambda x: x[:, ::2, 1:]),
    ("none_ellipsis", lambda x: x[None, ..., 2]),
    ("ellipsis", lambda x: x[...]),
    ("view_of_view", lambda x: x.transpose(0, 1)[1:].unsqueeze(0)[..., ::3]),
    ("detach", lambda x: x.detach()),
    ("data", lambda x: x.data),
    ("contiguous_noop", lambda x: x.contiguous()),
    ("to_same_dtype", lambda x: x.to(nbgrad.float32)),
]


@pytest.mark.parametrize("requires_grad", [False, True])
@pytest.mark.parametrize("name,fn", VIEWS, ids=[v[0] for v in VIEWS])
def test_views_share_storage(name, fn, requires_grad):
    x = nbgrad.tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4),
                      requires_grad=requires_grad)
    v = fn(x)
    base, arr = x.detach().numpy(), v.detach().numpy()
    assert np.shares_memory(arr, base)
    before = arr.copy()
    base *= 2  # write to the base's storage; the view must see it
    np.testing.assert_array_equal(v.detach().numpy(), 2 * before)
    if name == "data":  # (PyTorch's .data counts its own versions: writes hidden from autograd)
        assert v._vc is not x._vc
        return
    assert v._vc is x._vc
    x._vc[0] += 1  # what an in-place op does
    assert v._version == x._version == 1


def test_view_write_shows_in_base():
    x = nbgrad.zeros(3, 4)
    v = x[1:, ::2]
    v.numpy()[...] = 7.0
    assert x.tolist() == [[0.0] * 4, [7.0, 0.0, 7.0, 0.0], [7.0, 0.0, 7.0, 0.0]]


@pytest.mark.parametrize("name,fn", [
    ("clone", lambda x: x.clone()),
    ("reshape_noncontig", lambda x: x.transpose(0, 1).reshape(-1)),
    ("contiguous_noncontig", lambda x: x.transpose(0, 1).contiguous()),
    ("to_float64", lambda x: x.to(nbgrad.float64)),
    ("double", lambda x: x.double()),
    ("flatten_noncontig", lambda x: x.t().flatten()),
])
def test_copies_do_not_share_storage(name, fn):
    x = nbgrad.tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
    c = fn(x)
    assert not np.shares_memory(c.numpy(), x.numpy())
    assert c._vc is not x._vc
    assert c.is_contiguous()
    before = c.numpy().copy()
    x.numpy()[...] = -1
    np.testing.assert_array_equal(c.numpy(), before)


def test_view_of_noncontiguous_raises_and_reshape_copies():
    x = nbgrad.tensor(np.arange(12.0).reshape(3, 4)).t()
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        x.view(12)
    np.testing.assert_array_equal(x.reshape(12).numpy(), np.arange(12.0).reshape(3, 4).T.ravel())


def test_view_grad_flows_to_base():
    x = nbgrad.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    y = x[:, 1:].t().unsqueeze(0)
    assert y.grad_fn is not None and not y.is_leaf
    (y * 2).sum().backward()
    assert x.grad.tolist() == [[0.0, 2.0, 2.0], [0.0, 2.0, 2.0]]


def test_to_dtype_grad_comes_back_in_input_dtype():
    x = nbgrad.tensor([1.0, 2.0], dtype=nbgrad.float32, requires_grad=True)
    y = x.to(nbgrad.float64)
    assert y.dtype == nbgrad.float64 and y.requires_grad
    (y * 3).sum().backward()
    assert x.grad.dtype == nbgrad.float32 and x.grad.tolist() == [3.0, 3.0]
    assert x.to(nbgrad.float32) is x


def test_clone_grad_and_independence():
    x = nbgrad.tensor([1.0, 2.0], requires_grad=True)
    c = x.clone()
    assert c.grad_fn is not None and c.grad_fn.name() == "CloneBackward0"
    (c * c).sum().backward()
    assert x.grad.tolist() == [2.0, 4.0]


# ----- type promotion ----------------------------------------------------------------------------
PROMO_DTYPES = ["float32", "float64", "int64", "int32", "bool"]
_VALUES = {"float32": [1.5, -2.0, 0.25], "float64": [0.5, 3.0, -1.25], "int64": [3, -2, 0],
           "int32": [1, 7, -4], "bool": [True, False, True]}


def _pair(dt, zero_dim, lib):
    v = _VALUES[dt][0] if zero_dim else _VALUES[dt]
    return lib.tensor(v, dtype=getattr(lib, dt))


@pytest.mark.parametrize("kind", ["tensor-tensor", "tensor-0dim", "0dim-tensor", "0dim-0dim"])
@pytest.mark.parametrize("b", PROMO_DTYPES)
@pytest.mark.parametrize("a", PROMO_DTYPES)
def test_type_promotion_tensors(a, b, kind):
    torch = pytest.importorskip("torch")
    za, zb = kind.startswith("0dim"), kind.endswith("0dim")
    x, y = _pair(a, za, nbgrad), _pair(b, zb, nbgrad)
    tx, ty = _pair(a, za, torch), _pair(b, zb, torch)
    want = str(torch.result_type(tx, ty)).removeprefix("torch.")
    out = x + y
    assert out.dtype.name == want
    assert out.tolist() == (tx + ty).tolist()
    assert (x * y).dtype.name == want
    assert (x == y).dtype == nbgrad.bool
    assert nbgrad.promote_types(x.dtype, y.dtype).name == str(
        torch.promote_types(tx.dtype, ty.dtype)).removeprefix("torch.")


@pytest.mark.parametrize("scalar", [True, 2, 2.5], ids=["bool", "int", "float"])
@pytest.mark.parametrize("zero_dim", [False, True], ids=["tensor", "0dim"])
@pytest.mark.parametrize("a", PROMO_DTYPES)
def test_type_promotion_python_scalars(a, zero_dim, scalar):
    torch = pytest.importorskip("torch")
    x, tx = _pair(a, zero_dim, nbgrad), _pair(a, zero_dim, torch)
    want = str(torch.result_type(tx, scalar)).removeprefix("torch.")
    for out, tout in [(x + scalar, tx + scalar), (scalar + x, scalar + tx),
                      (x * scalar, tx * scalar)]:
        assert out.dtype.name == want
        assert out.tolist() == tout.tolist()


@pytest.mark.parametrize("a", ["int64", "int32", "bool"])
def test_integer_division_gives_default_float(a):
    x = nbgrad.tensor(_VALUES[a], dtype=getattr(nbgrad, a))
    assert (x / 2).dtype == nbgrad.float32
    assert (x / nbgrad.tensor([2], dtype=x.dtype)).dtype == nbgrad.float32
    old = nbgrad.get_default_dtype()
    try:
        nbgrad.set_default_dtype(nbgrad.float64)
        assert (x / 2).dtype == nbgrad.float64
        assert (x * 0.5).dtype == nbgrad.float64
        assert nbgrad.sqrt(x).dtype == nbgrad.float64
    finally:
        nbgrad.set_default_dtype(old)


def test_integer_ops_values():
    x = nbgrad.tensor([3, -2, 5])
    assert (x + 1).tolist() == [4, -1, 6] and (x + 1).dtype == nbgrad.int64
    assert (x * x).tolist() == [9, 4, 25]
    assert (x**2).tolist() == [9, 4, 25] and (x**2).dtype == nbgrad.int64
    assert x.sum().item() == 6 and x.sum().dtype == nbgrad.int64
    assert nbgrad.tensor([True, True, False]).sum().item() == 2
    assert x.abs().tolist() == [3, 2, 5] and x.sign().tolist() == [1, -1, 1]
    assert nbgrad.exp(nbgrad.tensor([0])).dtype == nbgrad.float32
    assert x.amax().item() == 5 and x.argmin().item() == 1


# ----- bad inputs: errors in PyTorch's words --------------------------------------------------
def _ones(m, *shape, **kw):
    return m.ones(*shape, **kw)


ERRORS = [
    # (id, fn(m), exception, regex, same message in torch)
    ("broadcast", lambda m: _ones(m, 3) + _ones(m, 4), RuntimeError,
     r"The size of tensor a \(3\) must match the size of tensor b \(4\) at non-singleton "
     r"dimension 0", True),
    ("broadcast_2d", lambda m: _ones(m, 2, 3) * _ones(m, 4, 1, 4), RuntimeError,
     r"The size of tensor a \(3\) must match the size of tensor b \(4\) at non-singleton "
     r"dimension 2", True),
    ("where_broadcast", lambda m: m.where(_ones(m, 3) > 0, _ones(m, 3), _ones(m, 4)),
     RuntimeError, "must match the size of tensor", False),
    ("matmul", lambda m: _ones(m, 2, 3) @ _ones(m, 4, 2), RuntimeError,
     re.escape("mat1 and mat2 shapes cannot be multiplied (2x3 and 4x2)"), True),
    ("mm", lambda m: m.mm(_ones(m, 2, 3), _ones(m, 4, 2)), RuntimeError,
     "mat1 and mat2 shapes cannot be multiplied", True),
    ("matmul_vec", lambda m: _ones(m, 2, 3) @ _ones(m, 4), RuntimeError, None, False),
    ("matmul_batched", lambda m: _ones(m, 2, 2, 3) @ _ones(m, 2, 4, 2), RuntimeError,
     re.escape("Expected size for first two dimensions of batch2 tensor to be: [2, 3] but "
               "got: [2, 4]."), True),
    ("dot_size", lambda m: _ones(m, 3) @ _ones(m, 4), RuntimeError, "inconsistent tensor size",
     True),
    ("dot_2d", lambda m: m.dot(_ones(m, 2, 3), _ones(m, 3)), RuntimeError,
     "1D tensors expected, but got 2D and 1D tensors", True),
    ("bmm_2d", lambda m: m.bmm(_ones(m, 2, 3), _ones(m, 2, 3)), RuntimeError,
     "batch1 must be a 3D tensor", True),
    ("bmm_batch", lambda m: m.bmm(_ones(m, 2, 2, 3), _ones(m, 3, 3, 2)), RuntimeError,
     "Expected size for first two dimensions of batch2 tensor", True),
    ("matmul_0d", lambda m: m.matmul(m.tensor(1.0), _ones(m, 3)), RuntimeError,
     "both arguments to matmul need to be at least 1D", True),
    ("view_incompatible", lambda m: _ones(m, 3, 4).t().view(12), RuntimeError,
     "view size is not compatible with input tensor's size and stride", True),
    ("reshape_invalid", lambda m: _ones(m, 3).reshape(-1, 2), RuntimeError,
     re.escape("shape '[-1, 2]' is invalid for input of size 3"), True),
    ("view_invalid", lambda m: _ones(m, 3).view(2, 2), RuntimeError,
     re.escape("shape '[2, 2]' is invalid for input of size 3"), True),
    ("two_inferred", lambda m: _ones(m, 4).view(-1, -1), RuntimeError,
     "only one dimension can be inferred", True),
    ("expand", lambda m: _ones(m, 2, 3).expand(2, 5), RuntimeError,
     re.escape("The expanded size of the tensor (5) must match the existing size (3) at "
               "non-singleton dimension 1"), True),
    ("flatten_order", lambda m: _ones(m, 2, 3).flatten(1, 0), RuntimeError,
     "start_dim cannot come after end_dim", True),
    *[
        (f"dim_{n}", f, IndexError, re.escape(msg), True)
        for n, f, msg in [
            ("sum", lambda m: _ones(m, 2, 3).sum(2), "Dimension out of range (expected to be in "
             "range of [-2, 1], but got 2)"),
            ("sum_tuple", lambda m: _ones(m, 2, 3).sum((0, -3)), "Dimension out of range"),
            ("mean", lambda m: _ones(m, 2, 3).mean(5), "Dimension out of range"),
            ("amax", lambda m: _ones(m, 2, 3).amax(-3), "but got -3)"),
            ("max", lambda m: _ones(m, 2, 3).max(2), "Dimension out of range"),
            ("argmax", lambda m: _ones(m, 2, 3).argmax(2), "Dimension out of range"),
            ("transpose", lambda m: _ones(m, 2, 3).transpose(0, 2), "Dimension out of range"),
            ("permute", lambda m: _ones(m, 2, 3).permute(0, 5), "Dimension out of range"),
            ("unsqueeze", lambda m: _ones(m, 2, 3).unsqueeze(3), "expected to be in range of "
             "[-3, 2], but got 3"),
            ("squeeze", lambda m: _ones(m, 2, 3).squeeze(3), "Dimension out of range"),
            ("size", lambda m: _ones(m, 2, 3).size(2), "Dimension out of range"),
            ("flatten", lambda m: _ones(m, 2, 3).flatten(0, 2), "Dimension out of range"),
        ]
    ],
    ("dim_repeated", lambda m: _ones(m, 2, 3).sum((0, 0)), RuntimeError,
     "dim 0 appears multiple times in the list of dims", True),
    ("index_oob", lambda m: _ones(m, 3)[3], IndexError,
     "index 3 is out of bounds for dimension 0 with size 3", True),
    ("index_oob_neg", lambda m: _ones(m, 2, 3)[:, -4], IndexError,
     "index -4 is out of bounds for dimension 1 with size 3", True),
    ("too_many_indices", lambda m: _ones(m, 3)[0, 0], IndexError,
     "too many indices for tensor of dimension 1", True),
    ("negative_step", lambda m: _ones(m, 3)[::-1], ValueError, "step must be greater than zero",
     True),
    ("numpy_requires_grad", lambda m: _ones(m, 2, requires_grad=True).numpy(), RuntimeError,
     re.escape("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
               "instead."), True),
    ("item_many", lambda m: _ones(m, 3).item(), RuntimeError,
     "a Tensor with 3 elements cannot be converted to Scalar", True),
    ("int_requires_grad", lambda m: m.tensor([1, 2], requires_grad=True), RuntimeError,
     "Tensors of floating point .*can require gradients", True),
    ("bool_sub", lambda m: m.tensor([True]) - m.tensor([False]), RuntimeError,
     "Subtraction, the `-` operator, with two bool tensors is not supported", True),
    ("bool_sub_number", lambda m: 1 - m.tensor([True]), RuntimeError,
     "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying "
     "to invert a mask", True),
    ("bool_exponent_backward",  # (its derivative subtracts 1 from the exponent)
     lambda m: (_ones(m, 2, requires_grad=True) ** m.tensor([True, False])).sum().backward(),
     RuntimeError, "Subtraction, the `-` operator, with a bool tensor is not supported", True),
    ("bool_neg", lambda m: -m.tensor([True]), RuntimeError,
     "Negation, the `-` operator, on a bool tensor is not supported", True),
    ("int_neg_pow", lambda m: m.tensor([1, 2]) ** -1, RuntimeError,
     "Integers to negative integer powers are not allowed", True),
    ("where_cond", lambda m: m.where(_ones(m, 2), _ones(m, 2), _ones(m, 2)), RuntimeError,
     "where expected condition to be a boolean tensor", True),
    ("mean_int", lambda m: m.tensor([1, 2]).mean(), RuntimeError,
     "mean\\(\\): could not infer output dtype", True),
    ("max_empty", lambda m: m.zeros(0).max(), RuntimeError,
     "Expected reduction dim to be specified for input.numel\\(\\) == 0", True),
    ("bool_ambiguous", lambda m: bool(_ones(m, 2)), RuntimeError,
     "Boolean value of Tensor with more than one value is ambiguous", True),
    ("leaf_requires_grad_false", lambda m: (_ones(m, 2, requires_grad=True) * 2)
     .requires_grad_(False), RuntimeError, "you can only change requires_grad flags of leaf "
     "variables", True),
]


@pytest.mark.parametrize("fn,exc,match,same_in_torch",
                         [pytest.param(*e[1:], id=e[0]) for e in ERRORS])
def test_errors(fn, exc, match, same_in_torch):
    with pytest.raises(exc, match=match) as info:
        fn(nbgrad)
    assert "numba" not in str(info.value).lower()
    if same_in_torch:
        torch = pytest.importorskip("torch")
        with pytest.raises(exc, match=match):
            fn(torch)


@pytest.mark.parametrize("key", [
    [0, 1], (0, [1, 2]), nbgrad.tensor([0, 1]), nbgrad.tensor([True, False, True]),
], ids=["list", "tuple_list", "int_tensor", "bool_tensor"])
def test_advanced_indexing_clear_error_or_numpy_result(key):
    a = np.arange(9.0).reshape(3, 3)
    x = nbgrad.tensor(a)
    try:
        out = x[key]
    except NotImplementedError as e:  # not supported (yet): the error must say so
        assert "advanced indexing" in str(e)
        return
    np_key = tuple(k.numpy() if isinstance(k, nbgrad.Tensor) else k for k in key) \
        if isinstance(key, tuple) else key.numpy() if isinstance(key, nbgrad.Tensor) else key
    np.testing.assert_array_equal(out.numpy(), a[np_key])


def test_zero_dim_integer_tensor_index():
    x = nbgrad.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert x[nbgrad.tensor(1)].tolist() == [3.0, 4.0]


BAD_OPERANDS = ["a", [1.0, 2.0], None, {"a": 1}]
BAD_CALLS = {
    "add": lambda x, o: x + o, "radd": lambda x, o: o + x, "sub": lambda x, o: x - o,
    "rsub": lambda x, o: o - x, "mul": lambda x, o: x * o, "rmul": lambda x, o: o * x,
    "div": lambda x, o: x / o, "rdiv": lambda x, o: o / x, "pow": lambda x, o: x**o,
    "rpow": lambda x, o: o**x, "matmul": lambda x, o: x @ o, "rmatmul": lambda x, o: o @ x,
    "lt": lambda x, o: x < o, "ge": lambda x, o: x >= o,
    "add_fn": lambda x, o: nbgrad.add(x, o), "mul_fn_first": lambda x, o: nbgrad.mul(o, x),
    "pow_fn": lambda x, o: nbgrad.pow(o, x), "matmul_fn": lambda x, o: nbgrad.matmul(x, o),
    "where_input": lambda x, o: nbgrad.where(x > 0, o, x),
    "where_other": lambda x, o: nbgrad.where(x > 0, x, o),
    "maximum": lambda x, o: nbgrad.maximum(x, o), "minimum": lambda x, o: nbgrad.minimum(o, x),
    "exp": lambda x, o: nbgrad.exp(o), "log": lambda x, o: nbgrad.log(o),
    "relu": lambda x, o: nbgrad.relu(o), "neg": lambda x, o: nbgrad.neg(o),
    "abs": lambda x, o: nbgrad.abs(o), "tanh": lambda x, o: nbgrad.tanh(o),
}


@pytest.mark.parametrize("operand", BAD_OPERANDS, ids=["str", "list", "None", "dict"])
@pytest.mark.parametrize("call", list(BAD_CALLS.values()), ids=list(BAD_CALLS))
def test_bad_operand_type_is_a_type_error(call, operand):
    x = nbgrad.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(TypeError) as info:
        call(x, operand)
    assert "numba" not in str(info.value).lower()
    assert "Typing" not in str(info.value)


# ----- property-based: random shapes against NumPy ----------------------------------------------
@settings(max_examples=30, deadline=None, database=None)
@given(shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=4, max_side=3),
       op=st.sampled_from(["add", "mul"]), seed=st.integers(0, 2**31 - 1))
def test_property_broadcast_binary(shapes, op, seed):
    sa, sb = shapes.input_shapes
    rng = np.random.default_rng(seed)
    a, b = rng.standard_normal(sa), rng.standard_normal(sb)
    x = nbgrad.tensor(a, requires_grad=True)
    y = nbgrad.tensor(b, requires_grad=True)
    out = getattr(nbgrad, op)(x, y)
    ref = getattr(np, {"add": "add", "mul": "multiply"}[op])(a, b)
    assert tuple(out.shape) == ref.shape == shapes.result_shape
    np.testing.assert_allclose(out.detach().numpy(), ref, rtol=1e-12)
    go = rng.standard_normal(ref.shape)
    out.backward(nbgrad.tensor(go))
    ga = go * b if op == "mul" else go
    gb = go * a if op == "mul" else go
    np.testing.assert_allclose(x.grad.numpy(), _unbroadcast(ga, sa), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(y.grad.numpy(), _unbroadcast(gb, sb), rtol=1e-10, atol=1e-12)


def _unbroadcast(g, shape):
    g = np.asarray(g)
    while g.ndim > len(shape):
        g = g.sum(0)
    for i, s in enumerate(shape):
        if s == 1 and g.shape[i] != 1:
            g = g.sum(i, keepdims=True)
    return g


@st.composite
def _shape_and_dims(draw):
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=4))
    n = len(shape)
    dims = draw(st.lists(st.integers(-n, n - 1), max_size=n, unique_by=lambda d: d % n))
    as_int = len(dims) == 1 and draw(st.booleans())
    return shape, (dims[0] if as_int else tuple(dims)), draw(st.booleans())


@settings(max_examples=30, deadline=None, database=None)
@given(sd=_shape_and_dims(), op=st.sampled_from(["sum", "amax", "mean", "amin"]),
       seed=st.integers(0, 2**31 - 1))
def test_property_reductions(sd, op, seed):
    shape, dim, keepdim = sd
    a = np.random.default_rng(seed).standard_normal(shape)
    axis = None if dim == () else dim
    ref = {"sum": np.sum, "amax": np.max, "mean": np.mean, "amin": np.min}[op](
        a, axis=axis, keepdims=keepdim)
    x = nbgrad.tensor(a, requires_grad=True)
    out = getattr(x, op)(dim, keepdim=keepdim)
    assert tuple(out.shape) == np.shape(ref)
    np.testing.assert_allclose(out.detach().numpy(), ref, rtol=1e-12, atol=1e-12)
    out.sum().backward()
    if op == "sum":
        np.testing.assert_array_equal(x.grad.numpy(), np.ones(shape))
    elif op == "mean":
        np.testing.assert_allclose(x.grad.numpy(), np.full(shape, np.size(ref) / a.size))
    else:  # one 1 per reduced slice (random values: no ties)
        assert x.grad.numpy().sum() == np.size(ref)
        keep = np.asarray(ref) if keepdim or axis is None else np.expand_dims(
            ref, tuple(d % len(shape) for d in np.atleast_1d(axis)))
        np.testing.assert_array_equal(x.grad.numpy(), (a == keep).astype(float))


# ----- the elementwise table (nbgrad/ops/elementwise.py) against this one -----------------------
def test_every_elementwise_row_has_a_test_row():
    names = {op.name for op in OPS}
    missing = [n for n in TABLE if n not in names and not any(m.startswith(n + "_") for m in names)]
    assert not missing, f"rows of the elementwise table without a row in OPS: {missing}"


def test_elementwise_nodes_keep_pytorchs_names():
    x = nbgrad.tensor([0.5, 2.0], requires_grad=True)
    for y, name in [(x * x, "MulBackward0"), (x.tanh(), "TanhBackward0"),
                    (x.log1p(), "Log1PBackward0"), (2.0 - x, "RsubBackward1"),
                    (x / x, "DivBackward0"), (x + 1, "AddBackward0"), (-x, "NegBackward0")]:
        assert y.grad_fn.name() == name and type(y.grad_fn).__name__ == name


def _layouts(rng, dt, arity):
    """Operand sets of every plan kind: small same-layout, a number on either side, large
    contiguous, broadcasting, strided and expanded operands, mixed dtypes."""
    def arr(*shape, dtype=dt):
        return nbgrad.tensor((rng.standard_normal(shape) * 2).astype(dtype))

    big = 140_000  # past the small-op plans (SMALL_N), below the parallel loops' threshold
    one = [(arr(16),), (arr(3, 5),), (arr(big),), (arr(4, 6).t(),), (arr(8)[::2],),
           (arr(1).expand(6),), (arr(0, 3),),
           (arr(2, 3, 4, 5).permute(0, 2, 1, 3),)]
    if arity == 1:
        return one
    return [(arr(16), arr(16)), (arr(3, 5), arr(3, 5)), (arr(16), 1.5), (2.5, arr(3, 5)),
            (arr(16), 3), (arr(big), arr(big)), (arr(3, 1), arr(4)), (arr(4, 6).t(), arr(6, 4)),
            (arr(1).expand(7), arr(7)), (arr(5), arr(5, dtype=np.float64)), (arr(0, 2), arr(2)),
            # large contiguous with a number, large broadcasting, one value against many,
            # 4-d strided operands that no merging brings to 3 dims
            (arr(big), 1.5), (0.5, arr(big)), (arr(70, 2000), arr(2000)),
            (arr(2, 1, 3, 4), arr(5, 1, 1)), (arr(1), arr(3, 4)), (arr(3, 4), arr(1, 1)),
            (arr(2, 3, 4, 5).permute(0, 2, 1, 3), arr(2, 4, 3, 5)),
            # one value expanded (a sum's gradient) on either side, small and large
            (arr(3, 5), arr(1, 1).expand(3, 5)), (arr(1).expand(big), arr(big)),
            (arr(big), arr().expand(big))]


def _plan_group(op):
    """What a plan depends on besides the operands' layouts: the arity, the dtype rule, a
    value check, number arguments, an in-place form. Ops alike in these get alike plans."""
    return (op.arity, repr(op.dtype), op.check is not None, bool(op.kwargs),
            bool(op.inplace))


def _representatives():
    """Per plan group, the op whose body is shortest (the quickest to compile), torch.special's
    last (a short body there calls series and recurrences that take seconds to compile:
    zeta's plan kinds took a minute)."""
    import inspect

    best = {}
    for n, op in TABLE.items():
        if op.body is not None:
            size = (op.body.__module__ == "nbgrad.kernels.special", len(inspect.getsource(op.body)))
            k = _plan_group(op)
            if k not in best or size < best[k][0]:
                best[k] = (size, n)
    return {n for _, n in best.values()}


_FULL = _representatives()


# (float32 and float64 by turns: the plans are chosen alike for both, and each dtype
# compiles every variant of every kernel again, which was 3.5 of the suite's 25 minutes)
@pytest.mark.parametrize("name,dtype", [
    pytest.param(n, dt, id=f"{n}-{dt.__name__}") for n, dt in zip(
        [n for n, op in TABLE.items() if op.body is not None],
        itertools.cycle([np.float32, np.float64]))])
def test_cached_plan_and_general_path_agree(name, dtype):
    # each op three ways: building its plan (cache cleared), from the cached plan, and
    # through the general path only: the results must be equal to the bit
    op = TABLE[name]
    rng = np.random.default_rng(sum(map(ord, name)))
    layouts = _layouts(rng, dtype, op.arity)
    # every plan kind for one op of each plan group; for the others a small operand, a
    # large one and (binary) a number operand: each kind compiles the op's body again, which
    # was the largest single cost of the suite
    if name not in _FULL:
        layouts = [layouts[i] for i in ((0, 2) if op.arity == 1 else (0, 2, 5))]
    for args in layouts:
        clear_plans([op])
        try:
            first = op(*args)
        except TypeError:  # operands the op refuses (maximum takes no number): so must
            with pytest.raises(TypeError):  # the general path
                general(op, *args)
            assert any(not isinstance(a, nbgrad.Tensor) for a in args)
            continue
        again = op(*args)
        ref = general(op, *args)
        for r in (first, again):
            assert r.dtype == ref.dtype and r.shape == ref.shape
            np.testing.assert_array_equal(r.numpy(), ref.numpy())


# ----- 5. float16 and bfloat16: computed in float32, rounded once, as PyTorch's CPU does ------
_LOW_EPS = {"float16": 2.0**-10, "bfloat16": 2.0**-7}


def _first_case_per_op():
    """Each op's first case, in float16 and bfloat16 by turns: both dtypes run the same
    float32 path, and their casts are tested bit for bit in tests/test_low_precision.py."""
    seen, out = set(), []
    for op in OPS:
        if op.name not in seen and (op.out is None or op.out == "bool"):
            seen.add(op.name)
            dtype = ("float16", "bfloat16")[len(out) % 2]
            out.append(pytest.param(op, op.shapes[0], dtype, id=f"{op.name}-{dtype}"))
    return out


@pytest.mark.parametrize("op,shapes,dtype", _first_case_per_op())
def test_low_precision_matches_torch(op, shapes, dtype):
    """Every elementwise op on float16 / bfloat16 tensors: the result's dtype and values
    (to one 16-bit rounding) and the gradients' dtype and values, against PyTorch's CPU
    (or, where PyTorch has no 16-bit kernel, its float32 result rounded)."""
    torch = pytest.importorskip("torch")
    arrs = _inputs(op, shapes, "float64", seed=4)
    tdt = getattr(torch, dtype)
    nb = [nbgrad.tensor(a).to(getattr(nbgrad, dtype)).requires_grad_(op.grad) for a in arrs]
    th = [torch.tensor(a).to(tdt).requires_grad_(op.grad) for a in arrs]
    out_nb = op.fn(nbgrad, *nb)
    try:
        out_th = op.fn(torch, *th)
    except (RuntimeError, NotImplementedError):  # no 16-bit kernel in PyTorch: float32's
        th = [t.detach().float().requires_grad_(op.grad) for t in th]
        out_th = op.fn(torch, *th)
        out_th = out_th if out_th.dtype == torch.bool else out_th.to(tdt)
    assert out_nb.dtype.name == str(out_th.dtype).removeprefix("torch.")
    eps = _LOW_EPS[dtype]
    tol = dict(rtol=2 * eps, atol=2 * eps)
    np.testing.assert_allclose(out_nb.detach().double().numpy(),
                               out_th.detach().double().numpy(), **tol)
    if op.grad and out_nb.numel():
        go = np.random.default_rng(3).standard_normal(tuple(out_nb.shape))
        out_nb.backward(nbgrad.tensor(go).to(out_nb.dtype))
        try:
            out_th.backward(torch.tensor(go).to(out_th.dtype))
            th_grads = [t.grad for t in th]
        except (RuntimeError, NotImplementedError):  # no 16-bit backward kernel: float32's
            wide = [t.detach().float().requires_grad_(op.grad) for t in th]
            op.fn(torch, *wide).backward(torch.tensor(go).float())
            th_grads = [None if w.grad is None else w.grad.to(tdt) for w in wide]
        for t_nb, g_th in zip(nb, th_grads):
            assert (t_nb.grad is None) == (g_th is None)
            if g_th is not None:
                assert t_nb.grad.dtype is getattr(nbgrad, dtype)
                np.testing.assert_allclose(t_nb.grad.double().numpy(),
                                           g_th.double().numpy(), rtol=8 * eps, atol=8 * eps)
