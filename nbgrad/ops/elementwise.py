"""Elementwise ops: the op table (the general path of PyTorch's broadcasting on storage,
which every launch plan is built from, is ``ops/elementwise_data.py``; rows: ``ops/opdef.py``).

Each op is one ``defop`` row: its per-element body from ``kernels/scalar.py`` (the same
function for the CPU loops and the CUDA kernels), its dtype rule, its derivative formulas in
nbgrad ops (what they read is what the node saves) and its public names. Ops with arguments
beyond their operands (``alpha``, ``rounding_mode``, a number exponent, ``min`` / ``max``)
have a ``front``: argument checks, then one call into the same dispatch path.
"""

import math

import numpy as np

from .. import dtypes as _dt
from ..autograd.grad_mode import STATE as _STATE
from ..autograd.grad_mode import no_grad
from ..kernels import scalar as S
from ..tensor import Tensor
from ._core import no_kernel_for, type_name, wrap
from .dispatch import _INTO as _INTO_SLOT
from .dispatch import _entry, apply1, apply2, promote
from .elementwise_data import binary_data
from .opdef import TABLE, defop

_FLOAT, _BOOL = "float", "bool"


_promote = promote


# ----- helpers for backward rules -----------------------------------------------------------
def sum_to(g, shape):
    """Reduce gradient ``g`` to ``shape`` by summing broadcast dims (differentiable)."""
    if g.__class__ is not Tensor or g._data.shape == shape or tuple(g._data.shape) == tuple(shape):
        return g
    from .reduce import sum as _sum

    lead = g.ndim - len(shape)
    dims = list(range(lead))
    gs = g.shape
    for i, s in enumerate(shape):
        if s == 1 and gs[i + lead] != 1:
            dims.append(i + lead)
    r = _sum(g, tuple(dims), keepdim=True) if dims else g
    if lead:
        from .shape import reshape

        r = reshape(r, tuple(shape))
    return r


def _shape(x):
    return x._data.shape if x.__class__ is Tensor else ()


def zeros_like(x):
    from ..creation import zeros_like as _zl

    return _zl(x)


def _is_bool(x):
    return x.__class__ is Tensor and x._dtype is _dt.bool_


def _no_bool(kernel):
    def check(input):
        if _is_bool(input):
            raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")

    return check


def _no_bool_relu(x):
    if _is_bool(x):
        raise RuntimeError("Boolean inputs not supported for relu")


def _no_bool_neg(x):
    if _is_bool(x):
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. "
            "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )


def _no_bool_sub(a, b):
    # (a Python bool counts as a bool tensor here, as PyTorch wraps it)
    a_bool, b_bool = _is_bool(a) or a is True or a is False, _is_bool(b) or b is True or b is False
    if a_bool and b_bool:
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. "
            "Use the `^` or `logical_xor()` operator instead."
        )
    if _is_bool(a) or _is_bool(b):
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. "
            "If you are trying to invert a mask, use the `~` or `logical_not()` operator "
            "instead."
        )


def _scaled(x, alpha, input=None):
    if input is not None and isinstance(alpha, (float, np.floating)) \
            and promote(input, x)._cat < 2:
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating "
                           "point number.")
    if x.__class__ is not Tensor:  # add(t, 1.0, alpha=3): a plain number
        return x * alpha
    with no_grad():
        return mul(x, alpha)


# ----- fronts: argument semantics, then the dispatch path ------------------------------------
def _add(input, other, *, alpha=1):
    """``input + alpha * other`` with broadcasting."""
    if alpha == 1:
        return apply2(_ADD, input, other)
    return apply2(_ADD, input, _scaled(other, alpha, input), (alpha,), (input, other))


def _sub(input, other, *, alpha=1):
    """``input - alpha * other`` with broadcasting."""
    if alpha == 1:
        return apply2(_SUB, input, other)
    _no_bool_sub(input, other)
    return apply2(_SUB, input, _scaled(other, alpha, input), (alpha,), (input, other))


def _rsub(input, other, *, alpha=1):
    """``other - alpha * input`` (the reflected ``-``)."""
    a = input if alpha == 1 else _scaled(input, alpha, other)
    return apply2(_RSUB, other, a, (alpha,) if alpha != 1 else None, (other, input))


def _div(input, other, *, rounding_mode=None):
    """Division with broadcasting: true division (integers divide to the default float
    dtype), or rounded: ``rounding_mode="trunc"`` towards zero, ``"floor"`` down, both in
    the operands' promoted dtype (integers stay integers)."""
    if rounding_mode is not None:
        return _rounded_div(input, other, rounding_mode)
    if input.__class__ is not Tensor and other.__class__ is Tensor:
        # ``number / t`` as PyTorch's __rtruediv__: reciprocal(t) * number, whose backward
        # reads the reciprocal (neither t nor the result)
        promote(input, other)
        return mul(reciprocal(other), input)
    return apply2(_DIV, input, other)


# ----- the table: arithmetic ---------------------------------------------------------------
add = defop("add", S.add, front=_add, kwargs={"alpha": 1},
            grads=("grad", "grad if alpha == 1 else mul(grad, alpha)"),
            inplace="operator", dunders=("__add__", "__radd__"))
_ADD = TABLE["add"]


def add_grads(a, b):
    """``a + b`` where either may be None (a gradient with no contribution yet)."""
    return b if a is None else (a if b is None else add(a, b))


sub = defop("sub", S.sub, front=_sub, kwargs={"alpha": 1}, check=_no_bool_sub,
            grads=("grad", "neg(grad) if alpha == 1 else mul(grad, -alpha)"),
            inplace="operator", dunders=("__sub__",), aliases=("subtract",))
_SUB = TABLE["sub"]
rsub = defop("rsub", S.sub, front=_rsub, kwargs={"alpha": 1}, check=_no_bool_sub,
             node="RsubBackward1", params=("other", "input"),
             grads=("grad", "neg(grad) if alpha == 1 else mul(grad, -alpha)"),
             dunders=("__rsub__",))
_RSUB = TABLE["rsub"]
mul = defop("mul", S.mul, grad_once=True, inplace="operator",
            grads=("mul(grad, other)", "mul(grad, input)"),
            dunders=("__mul__", "__rmul__"), aliases=("multiply",),
            doc="Elementwise product with broadcasting.")
div = defop("div", S.div, dtype=_FLOAT, front=_div, inplace="operator",
            grads=("div(grad, other)", "neg(div(mul(grad, input), mul(other, other)))"),
            dunders=("__truediv__", "__rtruediv__"), aliases=("divide",))
_DIV = TABLE["div"]


# ----- division with a rounding mode, remainder ---------------------------------------------
def not_implemented(name):
    """The derivative formula of an op PyTorch has none for: its backward raises."""
    raise RuntimeError(f"derivative for aten::{name} is not implemented")


def _no_bool_result(kernel):
    def check(input, other):
        if promote(input, other) is _dt.bool_:
            raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")

    return check


def _no_integer_zero(input, other):
    """PyTorch's error for an integer division by zero (floats give inf or nan); a data
    check, made only when the division is of integers."""
    if promote(input, other)._cat < 2 and (
            bool((other == 0).any()) if other.__class__ is Tensor else other == 0):
        raise RuntimeError("ZeroDivisionError")


def _rounded_div(input, other, rounding_mode):
    if rounding_mode not in ("trunc", "floor"):
        raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                           f"but found '{rounding_mode}'")
    _no_integer_zero(input, other)
    if rounding_mode == "floor":
        return apply2(_DIV_FLOOR, input, other)
    # floats: trunc(input / other), as PyTorch; integers: C's truncating division
    op = _DIV_TRUNC if promote(input, other)._cat == 2 else _DIV_TRUNC_INT
    return apply2(op, input, other)


def _floor_divide(input, other):
    """``input // other``: the quotient rounded down (``div(..., rounding_mode="floor")``),
    in the promoted dtype. PyTorch has no derivative for it: backward through it raises."""
    _no_integer_zero(input, other)
    return apply2(_FLOOR_DIVIDE, input, other)


def _remainder(input, other):
    """``input % other``: Python's modulus (the result has ``other``'s sign), in the
    promoted dtype."""
    _no_integer_zero(input, other)
    if input.__class__ is not Tensor:
        return apply2(_REMAINDER_SCALAR, input, other)
    return apply2(_REMAINDER if other.__class__ is Tensor else _REMAINDER_TENSOR_SCALAR,
                  input, other)


def _fmod(input, other):
    """``fmod(input, other)``: C's remainder, which has ``input``'s sign (``remainder``'s has
    ``other``'s), in the promoted dtype."""
    if input.__class__ is not Tensor:
        raise TypeError(f"fmod(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    _no_integer_zero(input, other)
    if promote(input, other)._cat < 2:
        return apply2(_FMOD_INT, input, other)
    return apply2(_FMOD if other.__class__ is Tensor else _FMOD_SCALAR, input, other)


def rounded_div_backward(grad, *operands):
    """Zero: div with a rounding mode is flat where it is differentiable. The formulas name
    the operands that PyTorch's DivBackward2 saves, so that changing one in place is caught
    as there."""
    return zeros_like(grad)


# div with a rounding mode has a zero derivative (PyTorch's DivBackward2); floor_divide none
_ZERO = ("rounded_div_backward(grad, other)", "rounded_div_backward(grad, input, other)")
div_floor = defop("div_floor", S.floordiv, fn=False, method=False, node="DivBackward2",
                  check=_no_bool_result("div_floor_cpu"), grads=_ZERO)
div_trunc = defop("div_trunc", S.div_trunc, fn=False, method=False, node="DivBackward2",
                  check=_no_bool_result("div_trunc_cpu"), grads=_ZERO)
div_trunc_int = defop("div_trunc_int", S.div_trunc_int, fn=False, method=False,
                      node="DivBackward2", check=_no_bool_result("div_trunc_cpu"), grads=_ZERO)
floor_divide = defop("floor_divide", S.floordiv, front=_floor_divide, node="NotImplemented",
                     check=_no_bool_result("div_floor_cpu"), inplace="operator",
                     grads=("not_implemented('floor_divide')",) * 2,
                     dunders=("__floordiv__", "__rfloordiv__"))
remainder = defop("remainder", S.remainder, front=_remainder, node="RemainderBackward1",
                  check=_no_bool_result("remainder_cpu"), inplace="operator",
                  grads=("grad", "neg(mul(grad, div_floor(input, other)))"),
                  dunders=("__mod__", "__rmod__"))
remainder_tensor_scalar = defop(
    "remainder_tensor_scalar", S.remainder, fn=False, method=False,
    node="RemainderBackward0", check=_no_bool_result("remainder_cpu"), grads=("grad", None))
remainder_scalar = defop(
    "remainder_scalar", S.remainder, fn=False, method=False, node="NotImplemented",
    check=_no_bool_result("remainder_cpu"), grads=(None, "not_implemented('remainder')"))
fmod = defop("fmod", S.fmod, front=_fmod, node="FmodBackward1",
             check=_no_bool_result("fmod_cpu"), inplace=True,
             grads=("grad", "neg(mul(grad, div_trunc(input, other)))"))
fmod_scalar = defop("fmod_scalar", S.fmod, fn=False, method=False, node="FmodBackward0",
                    check=_no_bool_result("fmod_cpu"), grads=("grad", None))
fmod_int = defop("fmod_int", S.fmod_int, fn=False, method=False, node="FmodBackward1",
                 check=_no_bool_result("fmod_cpu"), grads=(None, None))
_FMOD, _FMOD_SCALAR, _FMOD_INT = (TABLE[n] for n in ("fmod", "fmod_scalar", "fmod_int"))
_DIV_FLOOR, _DIV_TRUNC, _DIV_TRUNC_INT = (TABLE[n] for n in ("div_floor", "div_trunc",
                                                               "div_trunc_int"))
_FLOOR_DIVIDE, _REMAINDER = TABLE["floor_divide"], TABLE["remainder"]
_REMAINDER_TENSOR_SCALAR, _REMAINDER_SCALAR = (TABLE["remainder_tensor_scalar"],
                                               TABLE["remainder_scalar"])

neg = defop("neg", S.neg, inplace=True, check=_no_bool_neg, grads=("neg(grad)",),
            dunders=("__neg__",), aliases=("negative",), doc="``-input``.")
reciprocal = defop("reciprocal", S.reciprocal, inplace=True, dtype=_FLOAT, method=True,
                   grads=("neg(mul(grad, mul(result, result)))",),
                   doc="``1 / input`` elementwise (integers give the default float dtype).")

# ----- unary math --------------------------------------------------------------------------
exp = defop("exp", S.exp, inplace=True, cpu_body=S.exp_v, dtype=_FLOAT, grad_once=True,
            grads=("mul(grad, result)",), doc="Elementwise ``e ** input``.")
log = defop("log", S.log, inplace=True, cpu_body=S.log_v, dtype=_FLOAT,
            grads=("div(grad, input)",),
            doc="Natural logarithm (``-inf`` at 0, ``nan`` below).")
sqrt = defop("sqrt", S.sqrt, inplace=True, dtype=_FLOAT, grads=("div(grad, mul(result, 2))",),
             doc="Elementwise square root.")
abs = defop("abs", S.abs_, inplace=True, check=_no_bool("abs_cpu"), grads=("mul(grad, sign(input))",), dunders=("__abs__",),
            aliases=("absolute",), doc="Elementwise absolute value (gradient 0 at 0).")
sign = defop("sign", S.sign, inplace=True, grads=("mul(grad, 0)",), aliases=("sgn",),
             doc="-1, 0 or 1 by the sign of each element.")
tanh = defop("tanh", S.tanh, inplace=True, cpu_body=S.tanh_v, dtype=_FLOAT, grad_once=True, functional=True,
             grads=("tanh_backward(grad, result)",),
             doc="Elementwise hyperbolic tangent.")
sigmoid = defop("sigmoid", S.sigmoid, inplace=True, cpu_body=S.sigmoid_v, dtype=_FLOAT, grad_once=True,
                functional=True, grads=("sigmoid_backward(grad, result)",),
                doc="Elementwise logistic function ``1 / (1 + exp(-input))``, stable for "
                    "large ``|input|``.")
relu = defop("relu", S.relu, inplace=True, functional=True, check=_no_bool_relu,
             grads=("threshold_backward(grad, result)",),
             doc="``max(input, 0)`` elementwise (gradient 0 at 0).")
log1p = defop("log1p", S.log1p, inplace=True, cpu_body=S.log1p_v, dtype=_FLOAT, node="Log1PBackward0",
              grads=("div(grad, add(input, 1.0))",),
              doc="``log(1 + input)``, accurate near 0.")
expm1 = defop("expm1", S.expm1, inplace=True, cpu_body=S.expm1_v, dtype=_FLOAT,
              grads=("mul(grad, add(result, 1.0))",),
              doc="``exp(input) - 1``, accurate near 0.")
rsqrt = defop("rsqrt", S.rsqrt, inplace=True, dtype=_FLOAT,
              grads=("mul(grad, mul(mul(result, mul(result, result)), -0.5))",),
              doc="``1 / sqrt(input)``.")
sin = defop("sin", S.sin, inplace=True, dtype=_FLOAT, grads=("mul(grad, cos(input))",),
            doc="Elementwise sine.")
cos = defop("cos", S.cos, inplace=True, dtype=_FLOAT, grads=("mul(grad, neg(sin(input)))",),
            doc="Elementwise cosine.")
tan = defop("tan", S.tan, inplace=True, dtype=_FLOAT,
            grads=("mul(grad, add(mul(result, result), 1.0))",),
            doc="Elementwise tangent.")
log10 = defop("log10", S.log10, inplace=True, dtype=_FLOAT,
              grads=("div(grad, mul(input, _LN10))",), doc="Base-10 logarithm.")
log2 = defop("log2", S.log2, inplace=True, dtype=_FLOAT,
             grads=("div(grad, mul(input, _LN2))",), doc="Base-2 logarithm.")
_LN10, _LN2 = math.log(10.0), math.log(2.0)
erf = defop("erf", S.erf, inplace=True, cpu_body=S.erf_v, dtype=_FLOAT,
            grads=("mul(grad, mul(exp(neg(mul(input, input))), _TWO_OVER_SQRT_PI))",),
            doc="The error function.")
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
erfc = defop("erfc", S.erfc, inplace=True, dtype=_FLOAT,
             grads=("mul(grad, mul(exp(neg(mul(input, input))), -_TWO_OVER_SQRT_PI))",),
             doc="The complementary error function, ``1 - erf(input)``, accurate in the tails.")
erfinv = defop("erfinv", S.erfinv, inplace=True, dtype=_FLOAT,
               grads=("mul(grad, mul(exp(square(erfinv(input))), _HALF_SQRT_PI))",),
               doc="The inverse error function on [-1, 1]: ``erf(erfinv(y)) == y``.")
_HALF_SQRT_PI = 0.5 * math.sqrt(math.pi)
lgamma = defop("lgamma", S.lgamma, inplace=True, dtype=_FLOAT,
               grads=("mul(grad, digamma(input))",),
               doc="``log(abs(gamma(input)))``, the log of the gamma function's magnitude.")
digamma = defop("digamma", S.digamma, inplace=True, dtype=_FLOAT,
                grads=("mul(grad, _polygamma_next(input, 0))",),
                doc="The derivative of ``lgamma`` (-inf at 0, NaN at the negative integers).")


def _polygamma(n, input):
    """``polygamma(n, input)``: the ``n``-th derivative of ``digamma`` (``n`` = 0 is
    digamma itself)."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"polygamma(): argument 'n' (position 1) must be int, not "
                        f"{type(n).__name__}")
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    if input.__class__ is not Tensor:
        raise TypeError(f"polygamma(): argument 'input' (position 2) must be Tensor, not "
                        f"{type(input).__name__}")
    return apply2(_POLYGAMMA, input, int(n))


def _polygamma_next(input, n):
    # (n is a number through the public function; the row itself also takes a tensor)
    return apply2(_POLYGAMMA, input, add(n, 1) if n.__class__ is Tensor else int(n) + 1)


polygamma = defop("polygamma", S.polygamma, params=("input", "n"), dtype=_FLOAT,
                  front=_polygamma, method=False,
                  grads=("mul(grad, _polygamma_next(input, n))", None),
                  doc="The ``n``-th derivative of ``digamma``.")
_POLYGAMMA = TABLE["polygamma"]
# (1 - x**2 is written neg(x**2 - 1): a formula's operands are tensors first)
asin = defop("asin", S.asin, inplace=True, dtype=_FLOAT, aliases=("arcsin",),
             grads=("div(grad, sqrt(neg(sub(mul(input, input), 1.0))))",),
             doc="Elementwise arcsine.")
acos = defop("acos", S.acos, inplace=True, dtype=_FLOAT, aliases=("arccos",),
             grads=("neg(div(grad, sqrt(neg(sub(mul(input, input), 1.0)))))",),
             doc="Elementwise arccosine.")
atan = defop("atan", S.atan, inplace=True, dtype=_FLOAT, aliases=("arctan",),
             grads=("div(grad, add(mul(input, input), 1.0))",), doc="Elementwise arctangent.")
sinh = defop("sinh", S.sinh, inplace=True, dtype=_FLOAT, grads=("mul(grad, cosh(input))",),
             doc="Elementwise hyperbolic sine.")
cosh = defop("cosh", S.cosh, inplace=True, dtype=_FLOAT, grads=("mul(grad, sinh(input))",),
             doc="Elementwise hyperbolic cosine.")
asinh = defop("asinh", S.asinh, inplace=True, dtype=_FLOAT, aliases=("arcsinh",),
              grads=("div(grad, sqrt(add(mul(input, input), 1.0)))",),
              doc="Elementwise inverse hyperbolic sine.")
acosh = defop("acosh", S.acosh, inplace=True, dtype=_FLOAT, aliases=("arccosh",),
              grads=("div(grad, sqrt(sub(mul(input, input), 1.0)))",),
              doc="Elementwise inverse hyperbolic cosine.")
atanh = defop("atanh", S.atanh, inplace=True, dtype=_FLOAT, aliases=("arctanh",),
              grads=("div(grad, neg(sub(mul(input, input), 1.0)))",),
              doc="Elementwise inverse hyperbolic tangent.")
exp2 = defop("exp2", S.exp2, inplace=True, dtype=_FLOAT,
             grads=("mul(grad, mul(result, _LN2))",), doc="Elementwise ``2 ** input``.")
_LN2 = math.log(2.0)

def refuse_integers(input, kernel):
    """PyTorch's refusal of an integer or bool tensor ``input`` to a float-only op:
    ``NotImplementedError`` naming its ``kernel``, as PyTorch's message does."""
    if input.__class__ is Tensor and input._dtype._cat < 2:
        raise no_kernel_for(kernel, input._dtype)


def _softplus(input, beta=1.0, threshold=20.0):
    """``log(1 + exp(beta * input)) / beta``, the input itself where ``beta * input >
    threshold`` (PyTorch's ``nn.functional.softplus``)."""
    refuse_integers(input, "softplus_cpu")
    if beta == 1 and threshold == 20:
        return apply1(_SOFTPLUS, input)
    z = mul(input, beta)  # other beta / threshold: PyTorch's formula in nbgrad ops
    above = gt(z, threshold)
    # exp of the capped z: the branch not taken must not send inf * 0 = nan back
    soft = div(log1p(exp(where(above, threshold, z))), beta)
    return where(above, input, soft)


softplus = defop("softplus", S.softplus, dtype=_FLOAT, front=_softplus, fn=False, method=False,
                 functional=True, grads=("mul(grad, where(gt(input, 20.0), 1.0, sigmoid(input)))",))
_SOFTPLUS = TABLE["softplus"]


# ----- fused backward ops: one kernel per backward step, differentiable again ------------
twice_mul = defop("twice_mul", S.twice_mul, fn=False, method=False, grad_once=True,
                  grads=("twice_mul(grad, other)", "twice_mul(grad, input)"),
                  doc="``grad * (2 * input)`` as one kernel (the backward step of ``input ** 2``).")
neg_twice_mul = defop("neg_twice_mul", S.neg_twice_mul, fn=False, method=False, grad_once=True,
                      grads=("neg_twice_mul(grad, other)", "neg_twice_mul(grad, input)"),
                      doc="``grad * (-2 * input)`` as one kernel (tanh's second derivative step).")
tanh_backward = defop("tanh_backward", S.tanh_bwd, fn=False, method=False,
                      params=("grad_output", "output"),
                      grads=("tanh_backward(grad, output)",
                             "neg_twice_mul(mul(grad, grad_output), output)"),
                      doc="``grad * (1 - output**2)``: tanh's backward step as one kernel.")
sigmoid_backward = defop(
    "sigmoid_backward", S.sigmoid_bwd, fn=False, method=False, params=("grad_output", "output"),
    grads=("sigmoid_backward(grad, output)",
           "mul(mul(grad, grad_output), rsub(mul(output, 2.0), 1.0))"),
    doc="``grad * output * (1 - output)``: sigmoid's backward step as one kernel.")
# PyTorch's: d/d input is zero, but defined (a second derivative of zeros, not None)
threshold_backward = defop(
    "threshold_backward", S.relu_bwd, fn=False, method=False, params=("grad_output", "input"),
    grads=("threshold_backward(grad, input)", "zeros_like(input)"),
    doc="``grad`` where ``input > 0``, else 0: relu's backward step as one kernel.")

# ----- rounding: integers pass through, the derivative is zero (frac's is one) ----------
def _float_only(kernel):
    def check(input):
        refuse_integers(input, kernel)

    return check


def _round(input, *, decimals=None):
    """Round to the nearest integer, halves to even (as PyTorch); ``decimals`` digits after
    the point (before it, if negative) as ``round(input * 10**decimals) / 10**decimals``.
    (``decimals`` given at all is PyTorch's float-only overload, as ``decimals=0`` there.)"""
    if decimals is None:
        return apply1(_ROUND, input)
    refuse_integers(input, "round_cpu" if decimals else "round_vml_cpu")
    if decimals == 0:
        return apply1(_ROUND, input)
    with no_grad():
        scale = 10.0 ** (decimals if decimals > 0 else -decimals)
        # (16-bit floats: the three steps in float32, one rounding, as PyTorch's one kernel)
        x = input.to(_dt.float32) if input._dtype.low else input
        if decimals > 0:
            out = div(apply1(_ROUND, mul(x, scale)), scale)
        else:
            out = mul(apply1(_ROUND, div(x, scale)), scale)
        out = out.to(input._dtype)
    if input._rg and _STATE.enabled:
        _ROUND_DECIMALS.record(out, input)
    return out


floor = defop("floor", S.floor, inplace=True, check=_no_bool("floor_vml_cpu"), grads=("zeros_like(grad)",),
              doc="The largest integer not above each element (integers pass through).")
ceil = defop("ceil", S.ceil, inplace=True, check=_no_bool("ceil_vml_cpu"), grads=("zeros_like(grad)",),
             doc="The smallest integer not below each element (integers pass through).")
trunc = defop("trunc", S.trunc, inplace=True, check=_no_bool("trunc_vml_cpu"), grads=("zeros_like(grad)",),
              aliases=("fix",), doc="Each element rounded towards zero (integers pass through).")
round = defop("round", S.round_, inplace=True, front=_round, check=_no_bool("round_vml_cpu"),
              grads=("zeros_like(grad)",))
round_decimals = defop("round_decimals", S.round_, fn=False, method=False,
                       node="RoundBackward1", grads=("zeros_like(grad)",))
frac = defop("frac", S.frac, inplace=True, check=_float_only("frac_cpu"), grads=("grad",),
             doc="The fractional part, ``input - trunc(input)``, keeping the sign.")
_ROUND, _ROUND_DECIMALS = TABLE["round"], TABLE["round_decimals"]


# ----- comparisons (bool results, no gradient) ----------------------------------------------
eq = defop("eq", S.eq, dtype=_BOOL, dunders=("__eq__",), doc="Elementwise ``==`` as a bool tensor.")
ne = defop("ne", S.ne, dtype=_BOOL, aliases=("not_equal",), dunders=("__ne__",), doc="Elementwise ``!=`` as a bool tensor.")
lt = defop("lt", S.lt, dtype=_BOOL, aliases=("less",), dunders=("__lt__",), doc="Elementwise ``<`` as a bool tensor.")
le = defop("le", S.le, dtype=_BOOL, aliases=("less_equal",), dunders=("__le__",), doc="Elementwise ``<=`` as a bool tensor.")
gt = defop("gt", S.gt, dtype=_BOOL, aliases=("greater",), dunders=("__gt__",), doc="Elementwise ``>`` as a bool tensor.")
ge = defop("ge", S.ge, dtype=_BOOL, aliases=("greater_equal",), dunders=("__ge__",), doc="Elementwise ``>=`` as a bool tensor.")


def _truths(op, input, other):
    """Both operands of logical ``op`` as bool tensors (PyTorch takes tensors only)."""
    for pos, (name, x) in enumerate((("input", input), ("other", other))):
        if x.__class__ is not Tensor:
            raise TypeError(f"{op}(): argument '{name}' (position {pos + 1}) must be Tensor, "
                            f"not {type_name(x)}")
    return (input if input._dtype is _dt.bool_ else ne(input, 0),
            other if other._dtype is _dt.bool_ else ne(other, 0))


def logical_and(input, other):
    """The logical and of each pair of elements, as a bool tensor: nonzero is true.

    Args:
        input (Tensor): the first operand.
        other (Tensor): the second operand, broadcast with ``input`` (any dtype).

    Example::

        >>> import nbgrad
        >>> a, b = nbgrad.tensor([True, False, True]), nbgrad.tensor([1.0, 0.0, 0.0])
        >>> nbgrad.logical_and(a, b)
        tensor([ True, False, False])
    """
    a, b = _truths("logical_and", input, other)
    return wrap(binary_data("mul", a, b, _dt.bool_, _dt.bool_, a._device), a._device)


def logical_or(input, other):
    """The logical or of each pair of elements, as a bool tensor: nonzero is true.

    Args:
        input (Tensor): the first operand.
        other (Tensor): the second operand, broadcast with ``input`` (any dtype).

    Example::

        >>> import nbgrad
        >>> a, b = nbgrad.tensor([True, False, True]), nbgrad.tensor([1.0, 0.0, 0.0])
        >>> nbgrad.logical_or(a, b)
        tensor([ True, False,  True])
    """
    a, b = _truths("logical_or", input, other)
    return wrap(binary_data("add", a, b, _dt.bool_, _dt.bool_, a._device), a._device)


def logical_not(input):
    """The logical not of each element, as a bool tensor: true where the element is zero.

    Args:
        input (Tensor): the input tensor (any dtype).

    Example::

        >>> import nbgrad
        >>> nbgrad.logical_not(nbgrad.tensor([0.0, 2.0]))
        tensor([ True, False])
    """
    return eq(input, 0) if input._dtype is not _dt.bool_ else eq(input, False)


def logical_xor(input, other):
    """The logical exclusive or of each pair of elements, as a bool tensor: nonzero is
    true.

    Args:
        input (Tensor): the first operand.
        other (Tensor): the second operand, broadcast with ``input`` (any dtype).

    Example::

        >>> import nbgrad
        >>> a, b = nbgrad.tensor([True, False, True]), nbgrad.tensor([1.0, 0.0, 0.0])
        >>> nbgrad.logical_xor(a, b)
        tensor([False, False,  True])
    """
    a, b = _truths("logical_xor", input, other)
    return ne(a, b)


def _on_host(kernel_name, input, other, fn):
    """``fn(x, y, dt)`` of bool or integer operands (a tensor and a tensor or a number,
    either side) as NumPy arrays of their promoted dtype ``dt``, on the host; no gradient."""
    t = input if input.__class__ is Tensor else other
    for v in (input, other):
        if (v._dtype.is_floating_point if v.__class__ is Tensor else isinstance(v, float)):
            raise no_kernel_for(f"{kernel_name}_cpu",
                                  v._dtype if v.__class__ is Tensor else _dt.float32)
    from ..storage import for_device

    be = for_device(t._device)
    dt = promote(input, other)

    def host(v):  # (a number out of a narrow type's range wraps, as PyTorch's casts)
        return np.asarray(be.to_host(v._data) if v.__class__ is Tensor else v).astype(dt.np)

    out = np.asarray(fn(host(input), host(other), dt))
    # (ascontiguousarray makes a 0-d result 1-d: the shape is put back)
    return wrap(be.from_host(np.ascontiguousarray(out).reshape(out.shape)), t._device)


def _bitwise(name, symbol, np_fn):
    """``input <symbol> other`` of bool or integer tensors (or a tensor and a number), by
    NumPy's ufunc on the host: logical for bools, on the bits for integers; no gradient."""

    def op(input, other):
        return _on_host(name, input, other, lambda x, y, dt: np_fn(x, y))

    op.__name__ = name
    op.__doc__ = (f"Elementwise ``{symbol}``: logical for bools, on the bits for integers "
                  "(no gradient).")
    return op


bitwise_and = _bitwise("bitwise_and", "&", np.bitwise_and)
bitwise_or = _bitwise("bitwise_or", "|", np.bitwise_or)
bitwise_xor = _bitwise("bitwise_xor", "^", np.bitwise_xor)


def _shift(name, kernel_name, left):
    def shifted(x, s, dt):
        if dt is _dt.bool_:  # (two bools: PyTorch shifts them as int64 too)
            dt, x, s = _dt.int64, x.astype(np.int64), s.astype(np.int64)
        over = (s < 0) | (s >= 8 * dt.itemsize)  # all bits shifted out: 0, or the sign's
        s = np.where(over, 0, s).astype(dt.np)
        out = np.left_shift(x, s) if left else np.right_shift(x, s)
        fill = 0 if left else np.where(x < 0, -1, 0)
        return np.where(over, fill, out).astype(dt.np)

    def op(input, other):
        return _on_host(kernel_name, input, other, shifted)

    op.__name__ = name
    op.__doc__ = (f"Elementwise ``input {'<<' if left else '>>'} other`` of integer tensors "
                  f"(or a tensor and a number), {'left' if left else 'arithmetic right'} "
                  "shift in the promoted type; a shift by the type's width or more gives "
                  f"{'0' if left else '0 or -1 (the sign)'}, as PyTorch (no gradient).")
    return op


bitwise_left_shift = _shift("bitwise_left_shift", "lshift", True)
bitwise_right_shift = _shift("bitwise_right_shift", "rshift", False)


def bitwise_not(input):
    """The bitwise not of each element: the bits flipped (``-x - 1``) of an integer, the
    logical not of a bool (floating-point input is an error, as in PyTorch).

    Args:
        input (Tensor): the input tensor, of an integer or bool dtype.

    Example::

        >>> import nbgrad
        >>> nbgrad.bitwise_not(nbgrad.tensor([0, 5, -3]))
        tensor([-1, -6,  2])
        >>> nbgrad.bitwise_not(nbgrad.tensor([True, False]))
        tensor([False,  True])
    """
    if input._dtype is _dt.bool_:
        return logical_not(input)
    if input._dtype.is_floating_point:
        raise no_kernel_for("bitwise_not_cpu", input._dtype)
    return sub(neg(input), 1)


def invert(input):
    """``~input``: :func:`bitwise_not`, but a floating-point input is PyTorch's
    ``TypeError`` of the operator."""
    if input._dtype.is_floating_point:
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type "
                        "tensors")
    return bitwise_not(input)


# ----- pow: three rows (PyTorch's overloads and nodes) by which side is a number ---------
def pow_backward(grad, input, exponent):
    """``grad * exponent * input ** (exponent - 1)`` for a number exponent (pow.Tensor_Scalar's
    derivative; ``input ** 2``'s is one kernel)."""
    if exponent.__class__ is Tensor:
        return pow_backward_self(grad, input, exponent)
    if exponent == 0:
        return mul(grad, 0.0)
    if exponent == 2:
        return twice_mul(grad, input)
    return mul(grad, mul(pow(input, exponent - 1), exponent))


def pow_backward_self(grad, input, exponent):
    """d/d input of ``input ** exponent`` for a tensor exponent; as PyTorch, none where the
    exponent is 0 (``nan ** 0`` is 1)."""
    if exponent.__class__ is not Tensor:
        return pow_backward(grad, input, exponent)
    return where(eq(exponent, 0), 0.0, mul(grad, mul(exponent, pow(input, sub(exponent, 1)))))


def pow_backward_exponent(grad, input, exponent, result):
    """d/d exponent of ``input ** exponent``: ``grad * result * log(input)``, 0 where
    ``input`` is 0 and the exponent is not negative (PyTorch's convention, no nan)."""
    if input.__class__ is not Tensor:  # a number base (pow.Scalar)
        if input == 0:
            return mul(grad, where(ge(exponent, 0), 0.0, mul(result, -math.inf)))
        return mul(grad, mul(result, math.log(input) if input > 0 else math.nan))
    if input._dtype is not result._dtype:  # as PyTorch: the log in the promoted dtype
        from .convert import to

        input = to(input, dtype=result._dtype)
    safe = where(logical_and(eq(input, 0), ge(exponent, 0)), 0.0, mul(result, log(input)))
    return mul(grad, safe)


def _pow(input, exponent):
    """``input ** exponent``; either may be a number."""
    if input.__class__ is not Tensor:
        return apply2(_POW_SCALAR, input, exponent)
    if exponent.__class__ is not Tensor:
        if not isinstance(exponent, (bool, int, float, np.number)):
            raise TypeError(f"pow(): argument 'exponent' (position 2) must be Tensor, not "
                            f"{type_name(exponent)}")
        floating = input._dtype._cat == 2
        if not floating and isinstance(exponent, (int, np.integer)) and exponent < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        if exponent == 2 and floating:
            out = apply2(_MUL, input, input, rec=False)
        elif (exponent == 0.5 or exponent == -0.5) and floating:
            # as PyTorch: sqrt / rsqrt, so (-inf) ** 0.5 is nan and (-0.0) ** -0.5 is -inf
            out = apply1(TABLE["sqrt" if exponent > 0 else "rsqrt"], input, rec=False)
        else:
            return apply2(_POW_TENSOR_SCALAR, input, exponent)
        if input._rg and _STATE.enabled:  # the same node as the row's own call records
            _POW_TENSOR_SCALAR.record(out, input, exponent)
        return out
    out = apply2(_POW, input, exponent)
    if out._dtype._cat < 2 and out._dtype is not _dt.bool_:
        # integer 0 to a negative power is 0, as PyTorch's (compiled integer power divides
        # by zero there); 1 and -1 and other bases already come out as PyTorch's
        with no_grad():
            bad = logical_and(eq(input, 0), lt(exponent, 0))
            if bad.any():
                out = where(bad, 0, out)
    return out


pow = defop("pow", S.pow_, front=_pow, inplace=True, dunders=("__pow__", "__rpow__"),
            params=("input", "exponent"), node="PowBackward1",
            grads=("pow_backward_self(grad, input, exponent)",
                   "pow_backward_exponent(grad, input, exponent, result)"))
# the overloads with a number: pow.Tensor_Scalar (number exponent) and pow.Scalar (number
# base), the same body, each its own PyTorch node
pow_tensor_scalar = defop(
    "pow_tensor_scalar", S.pow_, fn=False, method=False, params=("input", "exponent"),
    node="PowBackward0", grads=("pow_backward(grad, input, exponent)", None))
pow_scalar = defop(
    "pow_scalar", S.pow_, fn=False, method=False, params=("input", "exponent"),
    node="PowBackward2", grads=(None, "pow_backward_exponent(grad, input, exponent, result)"))
_POW, _MUL = TABLE["pow"], TABLE["mul"]
_POW_TENSOR_SCALAR, _POW_SCALAR = TABLE["pow_tensor_scalar"], TABLE["pow_scalar"]


def _clamp_min(input, min):
    """``clamp(input, min=min)``."""
    return clamp(input, min=min)


def _clamp_max(input, max):
    """``clamp(input, max=max)``."""
    return clamp(input, max=max)


clamp_min = defop("clamp_min", S.clamp_min, front=_clamp_min)
clamp_max = defop("clamp_max", S.clamp_max, front=_clamp_max)
_CLAMP_MIN, _CLAMP_MAX = TABLE["clamp_min"], TABLE["clamp_max"]


def _tensor_operands(name):
    def check(input, other):
        for i, (arg, x) in enumerate((("input", input), ("other", other))):
            if x.__class__ is not Tensor:
                raise TypeError(f"{name}(): argument '{arg}' (position {i + 1}) must be "
                                f"Tensor, not {type(x).__name__}")

    return check


# maximum(a, b) runs clamp_min's body (NaN on either side wins, a tie keeps a); PyTorch's
# rule: a tie splits the gradient in half, the side that lost gets none
def atan2_recip(input, other):
    """``1 / (input**2 + other**2)``, 0 where that is 0 (atan2's gradient is 0 at the origin,
    as PyTorch's)."""
    d = add(mul(input, input), mul(other, other))
    return where(eq(d, 0.0), 0.0, reciprocal(d))


atan2 = defop("atan2", S.atan2, inplace=True, dtype=_FLOAT, aliases=("arctan2",),
              check=_tensor_operands("atan2"),
              grads=("mul(mul(grad, other), atan2_recip(input, other))",
                     "mul(mul(grad, neg(input)), atan2_recip(input, other))"),
              doc="The angle of the point (``other``, ``input``): ``atan(input / other)`` "
                  "in the right quadrant.")
fmax = defop("fmax", S.fmax, check=_tensor_operands("fmax"), grads=(
    "where(logical_or(ge(input, other), ne(other, other)), grad, 0.0)",
    "where(logical_or(ge(input, other), ne(other, other)), 0.0, grad)"),
    doc="Elementwise maximum that ignores a NaN (NaN only where both are; a tie's gradient "
        "goes to ``input``).")
fmin = defop("fmin", S.fmin, check=_tensor_operands("fmin"), grads=(
    "where(logical_or(le(input, other), ne(other, other)), grad, 0.0)",
    "where(logical_or(le(input, other), ne(other, other)), 0.0, grad)"),
    doc="Elementwise minimum that ignores a NaN (NaN only where both are; a tie's gradient "
        "goes to ``input``).")
maximum = defop("maximum", S.clamp_min, check=_tensor_operands("maximum"), grads=(
    "where(lt(input, other), 0.0, where(eq(input, other), mul(grad, 0.5), grad))",
    "where(gt(input, other), 0.0, where(eq(input, other), mul(grad, 0.5), grad))"),
    doc="Elementwise maximum; NaN on either side gives NaN (ties share the gradient).")
minimum = defop("minimum", S.clamp_max, check=_tensor_operands("minimum"), grads=(
    "where(gt(input, other), 0.0, where(eq(input, other), mul(grad, 0.5), grad))",
    "where(lt(input, other), 0.0, where(eq(input, other), mul(grad, 0.5), grad))"),
    doc="Elementwise minimum; NaN on either side gives NaN (ties share the gradient).")


def square(input):
    """The square of each element, ``input * input`` (PyTorch's ``pow(input, 2)``: its
    node is ``PowBackward0``), in ``input``'s dtype.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> import nbgrad
        >>> nbgrad.square(nbgrad.tensor([-2.0, 3.0]))
        tensor([4., 9.])
    """
    return pow(input, 2)


# ----- compute-only entry points for other op modules (no recording) -------------------------
def _binary(kname, a, b, float_only=False):
    """Table op ``kname`` of ``a`` and ``b`` through the dispatch path, not recorded."""
    return apply2(TABLE[kname], a, b, rec=False)


def _unary(kname, x, float_only=False):
    """Table op ``kname`` of ``x`` through the dispatch path, not recorded."""
    return apply1(TABLE[kname], x, rec=False)


class _CpuKernels(dict):
    """The CPU loops of the table's ops by name (ops/inplace.py writes through them)."""

    def __missing__(self, name):
        return TABLE[name].kernel


_CPU = _CpuKernels()


class _IntoEntries(dict):
    """``_INTO[name][dtype]``: the serial in-place loop's entry point, ``out = f(out, b)`` on
    1-d C arrays of that dtype (ops/inplace.py accumulates gradients through it)."""

    def __missing__(self, name):
        op = TABLE[name]

        class _ByDtype(dict):
            def __missing__(self, dt):
                npd = np.dtype(dt.np).str
                f = self[dt] = _entry(op, _INTO_SLOT, npd, npd)
                return f

        d = self[name] = _ByDtype()
        return d


_INTO = _IntoEntries()

# where and clamp: rows of the other kind (ops/selection.py), imported last (their formulas
# and helpers call this module's ops; this table's formulas call where)
from .selection import clamp, clamp_grad, where  # noqa: E402, F401

# the public surface of this module, from the table's flags (plus the ops with no row)
PUBLIC = [op.name for op in TABLE.values() if op.fn] + [
    n for op in TABLE.values() if op.fn for n in op.aliases] + [
    "where", "logical_and", "logical_or", "logical_not", "clamp", "square", "bitwise_not",
    "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
    "bitwise_right_shift"]
for _op in TABLE.values():
    for _alias in _op.aliases:
        globals()[_alias] = globals()[_op.name]
__all__ = PUBLIC
