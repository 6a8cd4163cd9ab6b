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
from ..storage.layout import cast_data
from ..tensor import Tensor
from ._core import (
    backend,
    broadcast_shapes,
    same_device,
    wrap,
)
from .dispatch import _INTO as _INTO_SLOT
from .dispatch import _entry, apply1, apply2, promote
from .elementwise_data import binary_data, ternary_data
from .funcdef import deffunc, surface
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


def _no_bool_neg(x):
    if _is_bool(x):
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. "
            "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )


def _no_bool_sub(a, b):
    if _is_bool(a) or _is_bool(b):
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. "
            "Use the `^` or `logical_xor()` operator instead."
        )


def _scaled(x, alpha):
    if x.__class__ is not Tensor:  # add(t, 1.0, alpha=3): a plain number
        return x * alpha
    with no_grad():
        return mul(x, alpha)


# ----- fronts: argument semantics, then the dispatch path ------------------------------------
def _add(input, other, *, alpha=1):
    """``input + alpha * other`` with broadcasting."""
    if alpha == 1:
        return apply2(_ADD, input, other)
    return apply2(_ADD, input, _scaled(other, alpha), (alpha,), (input, other))


def _sub(input, other, *, alpha=1):
    """``input - alpha * other`` with broadcasting."""
    if alpha == 1:
        return apply2(_SUB, input, other)
    _no_bool_sub(input, other)
    return apply2(_SUB, input, _scaled(other, alpha), (alpha,), (input, other))


def _rsub(input, other, *, alpha=1):
    """``other - alpha * input`` (the reflected ``-``)."""
    a = input if alpha == 1 else _scaled(input, alpha)
    return apply2(_RSUB, other, a, (alpha,) if alpha != 1 else None, (other, input))


def _div(input, other, *, rounding_mode=None):
    """True division with broadcasting (integers divide to the default float dtype)."""
    if rounding_mode is not None:
        raise NotImplementedError(f"div(): rounding_mode={rounding_mode!r} is not supported by nbgrad yet")
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
neg = defop("neg", S.neg, check=_no_bool_neg, grads=("neg(grad)",),
            dunders=("__neg__",), aliases=("negative",), doc="``-input``.")
reciprocal = defop("reciprocal", S.reciprocal, dtype=_FLOAT, method=True,
                   grads=("neg(mul(grad, mul(result, result)))",),
                   doc="``1 / input`` elementwise (integers give the default float dtype).")

# ----- unary math --------------------------------------------------------------------------
exp = defop("exp", S.exp, cpu_body=S.exp_v, dtype=_FLOAT, grad_once=True,
            grads=("mul(grad, result)",), doc="Elementwise ``e ** input``.")
log = defop("log", S.log, cpu_body=S.log_v, dtype=_FLOAT,
            grads=("div(grad, input)",),
            doc="Natural logarithm (``-inf`` at 0, ``nan`` below).")
sqrt = defop("sqrt", S.sqrt, dtype=_FLOAT, grads=("div(grad, mul(result, 2))",),
             doc="Elementwise square root.")
abs = defop("abs", S.abs_, grads=("mul(grad, sign(input))",), dunders=("__abs__",),
            doc="Elementwise absolute value (gradient 0 at 0).")
sign = defop("sign", S.sign, grads=("mul(grad, 0)",),
             doc="-1, 0 or 1 by the sign of each element.")
tanh = defop("tanh", S.tanh, cpu_body=S.tanh_v, dtype=_FLOAT, grad_once=True, functional=True,
             grads=("tanh_backward(grad, result)",),
             doc="Elementwise hyperbolic tangent.")
sigmoid = defop("sigmoid", S.sigmoid, cpu_body=S.sigmoid_v, dtype=_FLOAT, grad_once=True,
                functional=True, grads=("sigmoid_backward(grad, result)",),
                doc="Elementwise logistic function ``1 / (1 + exp(-input))``, stable for "
                    "large |input|.")
relu = defop("relu", S.relu, functional=True,
             grads=("threshold_backward(grad, result)",),
             doc="``max(input, 0)`` elementwise (gradient 0 at 0).")
log1p = defop("log1p", S.log1p, cpu_body=S.log1p_v, dtype=_FLOAT, node="Log1PBackward0",
              grads=("div(grad, add(input, 1.0))",),
              doc="``log(1 + input)``, accurate near 0.")
expm1 = defop("expm1", S.expm1, cpu_body=S.expm1_v, dtype=_FLOAT,
              grads=("mul(grad, add(result, 1.0))",),
              doc="``exp(input) - 1``, accurate near 0.")
rsqrt = defop("rsqrt", S.rsqrt, dtype=_FLOAT,
              grads=("mul(grad, mul(mul(result, mul(result, result)), -0.5))",),
              doc="``1 / sqrt(input)``.")
sin = defop("sin", S.sin, dtype=_FLOAT, grads=("mul(grad, cos(input))",),
            doc="Elementwise sine.")
cos = defop("cos", S.cos, dtype=_FLOAT, grads=("mul(grad, neg(sin(input)))",),
            doc="Elementwise cosine.")
tan = defop("tan", S.tan, dtype=_FLOAT,
            grads=("mul(grad, add(mul(result, result), 1.0))",),
            doc="Elementwise tangent.")
erf = defop("erf", S.erf, cpu_body=S.erf_v, dtype=_FLOAT,
            grads=("mul(grad, mul(exp(neg(mul(input, input))), _TWO_OVER_SQRT_PI))",),
            doc="The error function.")
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)

def _softplus(input, beta=1.0, threshold=20.0):
    """``log(1 + exp(beta * input)) / beta``, the input itself where ``beta * input >
    threshold`` (PyTorch's ``nn.functional.softplus``)."""
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

# ----- comparisons (bool results, no gradient) ----------------------------------------------
eq = defop("eq", S.eq, dtype=_BOOL, dunders=("__eq__",), doc="Elementwise ``==`` as a bool tensor.")
ne = defop("ne", S.ne, dtype=_BOOL, dunders=("__ne__",), doc="Elementwise ``!=`` as a bool tensor.")
lt = defop("lt", S.lt, dtype=_BOOL, dunders=("__lt__",), doc="Elementwise ``<`` as a bool tensor.")
le = defop("le", S.le, dtype=_BOOL, dunders=("__le__",), doc="Elementwise ``<=`` as a bool tensor.")
gt = defop("gt", S.gt, dtype=_BOOL, dunders=("__gt__",), doc="Elementwise ``>`` as a bool tensor.")
ge = defop("ge", S.ge, dtype=_BOOL, dunders=("__ge__",), doc="Elementwise ``>=`` as a bool tensor.")


def logical_and(input, other):
    """Elementwise logical and, as a bool tensor."""
    a = input if input._dtype is _dt.bool_ else ne(input, 0)
    b = other if other._dtype is _dt.bool_ else ne(other, 0)
    return wrap(binary_data("mul", a, b, _dt.bool_, _dt.bool_, a._device), a._device)


def logical_or(input, other):
    """Elementwise logical or, as a bool tensor."""
    a = input if input._dtype is _dt.bool_ else ne(input, 0)
    b = other if other._dtype is _dt.bool_ else ne(other, 0)
    return wrap(binary_data("add", a, b, _dt.bool_, _dt.bool_, a._device), a._device)


def logical_not(input):
    """Elementwise logical not, as a bool tensor."""
    return eq(input, 0) if input._dtype is not _dt.bool_ else eq(input, False)


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
    safe = where(logical_and(eq(input, 0), ge(exponent, 0)), 0.0, mul(result, log(input)))
    return mul(grad, safe)


def _pow(input, exponent):
    """``input ** exponent``; either may be a number."""
    if input.__class__ is not Tensor:
        return apply2(_POW_SCALAR, input, exponent)
    if exponent.__class__ is not Tensor:
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
    return apply2(_POW, input, exponent)


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


# ----- selection: where, one row per PyTorch overload (which of input / other is a number) --
def _where_data(c, x, y, odt, dev, x_num=False, y_num=False):
    """``where`` on storage: ``c`` a bool array, ``x`` / ``y`` arrays, or numbers where
    ``x_num`` / ``y_num`` say so; the result (broadcast shape) in ``odt``."""
    be = backend(dev)
    shape = tuple(c.shape)
    for v, num in ((x, x_num), (y, y_num)):
        if not num:
            shape = broadcast_shapes(shape, tuple(v.shape))
    xs = be.full((), x, odt.np) if x_num else cast_data(x, odt, dev)
    ys = be.full((), y, odt.np) if y_num else cast_data(y, odt, dev)
    return ternary_data("where", [c, xs, ys], shape, odt, be, dev, y if y_num else None)


def _where_shape(*shapes):
    out = ()
    for s in shapes:
        out = broadcast_shapes(out, tuple(s))
    return tuple(out)


def _where_dtype(*dtypes_and_args):
    return dtypes_and_args[-1]  # the front's promotion of input and other (its argument)


_WHERE_GRADS = {"input": "sum_to(where(condition, grad, 0.0), input_shape)",
                "other": "sum_to(where(condition, 0.0, grad), other_shape)"}
WHERE = deffunc("where", overload="self", params=("condition", "input", "other"),
                kernels=("where",),
                forward=lambda c, x, y, odt, dev, dtype: _where_data(c, x, y, odt, dev),
                dtype=_where_dtype,
                shape=lambda c, x, y, dtype: _where_shape(c, x, y), args=("dtype",),
                grads={"condition": None, **_WHERE_GRADS}, node="WhereBackward0",
                fn=False, method=False)


def _where_scalar_row(overload, tensor, number):
    # one of input / other a tensor operand, the other a number (an argument)
    x_num = number == "input"

    def forward(c, t, odt, dev, v, dtype):
        x, y = (v, t) if x_num else (t, v)
        return _where_data(c, x, y, odt, dev, x_num, not x_num)

    return deffunc("where", overload=overload, params=("condition", tensor), kernels=("where",),
                   forward=forward, dtype=_where_dtype,
                   shape=lambda c, t, v, dtype: _where_shape(c, t), args=(number, "dtype"),
                   grads={"condition": None, tensor: _WHERE_GRADS[tensor]},
                   node="WhereBackward0", fn=False, method=False)


WHERE_SCALAR_OTHER = _where_scalar_row("ScalarOther", "input", "other")
WHERE_SCALAR_SELF = _where_scalar_row("ScalarSelf", "other", "input")
WHERE_SCALAR = deffunc(
    "where", overload="Scalar", params=("condition",), kernels=("where",),
    forward=lambda c, odt, dev, x, y, dtype: _where_data(c, x, y, odt, dev, True, True),
    dtype=_where_dtype, shape=lambda c, x, y, dtype: tuple(c), args=("input", "other", "dtype"),
    fn=False, method=False)


@surface(WHERE, WHERE_SCALAR_OTHER, WHERE_SCALAR_SELF, WHERE_SCALAR)
def where(condition, input, other):
    """Elements of ``input`` where ``condition`` holds, else of ``other`` (either may be a
    number), broadcast together.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([-1.0, 2.0])
        >>> nbgrad.where(x > 0, x, 0.0)
        tensor([0., 2.])
    """
    if condition.__class__ is not Tensor or condition._dtype is not _dt.bool_:
        raise RuntimeError("where expected condition to be a boolean tensor")
    same_device("where", condition, input, other)
    dt = promote(input, other)
    if input.__class__ is Tensor:
        if other.__class__ is Tensor:
            return WHERE.call(condition, input, other, dt)
        return WHERE_SCALAR_OTHER.call(condition, input, other, dt)
    if other.__class__ is Tensor:
        return WHERE_SCALAR_SELF.call(condition, other, input, dt)
    return WHERE_SCALAR.call(condition, input, other, dt)


# ----- clamp: PyTorch's clamp (number bounds, ClampBackward1) and clamp.Tensor (tensor
# bounds, ClampBackward0); the backward step per bound is one fused pass (clamp_grad) ------
def clamp_backward(grad, input, min, max):
    """d/d input of clamp: ``grad`` where ``min <= input <= max``, else 0 (nothing where a
    NaN is involved): one ``clamp_grad`` pass per bound."""
    if min is not None:
        grad = clamp_grad(grad, input, min, "min")
    if max is not None:
        grad = clamp_grad(grad, input, max, "max")
    return grad


def clamp_backward_min(grad, input, min, max):
    """d/d min of clamp.Tensor: ``grad`` where ``input < min`` (and ``min < max``)."""
    to_lo = lt(input, min) if max is None else logical_and(lt(input, min), lt(min, max))
    return sum_to(where(to_lo, grad, 0.0), min.shape)


def clamp_backward_max(grad, input, min, max):
    """d/d max of clamp.Tensor: ``grad`` where ``input > max`` (or ``max < min``)."""
    to_hi = gt(input, max) if min is None else logical_or(gt(input, max), lt(max, min))
    return sum_to(where(to_hi, grad, 0.0), max.shape)


def _clamp_data(x, lo, hi, odt, dev):
    out = x
    if lo is not None:
        out = binary_data("clamp_min", out, lo, odt, odt, dev)
    if hi is not None:
        out = binary_data("clamp_max", out, hi, odt, odt, dev)
    return out if out is not x else cast_data(x, odt, dev).copy()


def _clamp_shape(*shapes):
    return _where_shape(*[s for s in shapes if s is not None])


CLAMP = deffunc("clamp", kernels=("clamp_min", "clamp_max"),
                forward=lambda x, odt, dev, lo, hi, dtype: _clamp_data(x, lo, hi, odt, dev),
                dtype=lambda x, lo, hi, dtype: dtype, shape=lambda s, lo, hi, dtype: tuple(s),
                args=("min", "max", "dtype"), grads=("clamp_backward(grad, input, min, max)",),
                node="ClampBackward1", fn=False, method=False)
CLAMP_TENSOR = deffunc(
    "clamp", overload="Tensor", params=("input", "min", "max"), optional=("min", "max"),
    kernels=("clamp_min", "clamp_max"),
    forward=lambda x, lo, hi, odt, dev, dtype: _clamp_data(x, lo, hi, odt, dev),
    dtype=lambda x, lo, hi, dtype: dtype,
    shape=lambda s, lo, hi, dtype: _clamp_shape(s, lo, hi), args=("dtype",),
    grads={"input": "clamp_backward(grad, input, min, max)",
           "min": "clamp_backward_min(grad, input, min, max)",
           "max": "clamp_backward_max(grad, input, min, max)"},
    node="ClampBackward0", fn=False, method=False)


@surface(CLAMP, CLAMP_TENSOR)
def clamp(input, min=None, max=None):
    """Limit values to ``[min, max]`` (either may be None, a number or a tensor; where
    ``min > max`` the result is ``max``).

    Example::

        >>> import nbgrad
        >>> nbgrad.clamp(nbgrad.tensor([-2.0, 0.5, 3.0]), min=0.0, max=1.0)
        tensor([0.0000, 0.5000, 1.0000])
    """
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    t_lo, t_hi = min.__class__ is Tensor, max.__class__ is Tensor
    dt = _dt.result_type([t for t in (input, min, max) if t.__class__ is Tensor],
                         [v for v in (min, max) if v is not None and v.__class__ is not Tensor])
    if not (t_lo or t_hi):
        for v in (min, max):
            if v is not None:
                promote(input, v)  # (PyTorch's TypeError for a bound that is no number)
        return CLAMP.call(input, min, max, dt)
    same_device("clamp", input, min, max)
    # a number beside a tensor bound becomes a 0-d tensor, as PyTorch's clamp.Tensor takes it
    lo = min if t_lo or min is None else _wrap_number(min, input)
    hi = max if t_hi or max is None else _wrap_number(max, input)
    return CLAMP_TENSOR.call(input, lo, hi, dt)


def _wrap_number(v, like):
    from ..creation import tensor

    return tensor(v, device=like._device)


def _clamp_grad_data(g, x, bound, odt, dev, dtype, side, num):
    # input and bound compared in their promoted dtype (``dtype``), grad passed through in
    # it; the result in grad's dtype (``odt``)
    be = backend(dev)
    shape = tuple(g.shape)
    for v in (x,) if num else (x, bound):
        shape = broadcast_shapes(shape, tuple(v.shape))
    arrs = [cast_data(g, dtype, dev), cast_data(x, dtype, dev),
            be.full((), bound, dtype.np) if num else cast_data(bound, dtype, dev)]
    res = ternary_data("clamp_min_backward" if side == "min" else "clamp_max_backward", arrs,
                       shape, dtype, be, dev, bound if num else None)
    return cast_data(res, odt, dev)


def _clamp_grad_rows(side):
    kname = f"clamp_{side}_backward"
    grads = {"grad_output": f"clamp_grad(grad, input, bound, {side!r})"}
    tensor = deffunc(
        "clamp_grad", overload=side, params=("grad_output", "input", "bound"),
        kernels=(kname,), forward=lambda g, x, b, odt, dev, dtype: _clamp_grad_data(
            g, x, b, odt, dev, dtype, side, False),
        dtype=lambda g, x, b, dtype: g, shape=lambda g, x, b, dtype: _where_shape(g, x, b),
        args=("dtype",), grads=grads, node="WhereBackward0", torch_names={}, fn=False,
        method=False)
    scalar = deffunc(
        "clamp_grad", overload=side + "_Scalar", params=("grad_output", "input"),
        kernels=(kname,), forward=lambda g, x, odt, dev, b, dtype: _clamp_grad_data(
            g, x, b, odt, dev, dtype, side, True),
        dtype=lambda g, x, b, dtype: g, shape=lambda g, x, b, dtype: _where_shape(g, x),
        args=("bound", "dtype"), grads=grads, node="WhereBackward0", torch_names={},
        fn=False, method=False)
    return tensor, scalar


CLAMP_GRAD = {side: _clamp_grad_rows(side) for side in ("min", "max")}


@surface(*[row for pair in CLAMP_GRAD.values() for row in pair])
def clamp_grad(grad, input, bound, side):
    """``grad`` where ``input >= bound`` (``side='min'``) or ``input <= bound`` (``'max'``),
    else 0, in one pass: clamp's backward step (its derivative in ``grad`` is itself; its
    node is named as PyTorch's there, whose clamp_backward is a ``where``)."""
    dt = promote(input, bound)
    tensor, scalar = CLAMP_GRAD[side]
    if bound.__class__ is Tensor:
        return tensor.call(grad, input, bound, dt)
    return scalar.call(grad, input, bound, dt)


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
maximum = defop("maximum", S.clamp_min, check=_tensor_operands("maximum"), grads=(
    "where(lt(input, other), 0.0, where(eq(input, other), mul(grad, 0.5), grad))",
    "where(gt(input, other), 0.0, where(eq(input, other), mul(grad, 0.5), grad))"),
    doc="Elementwise maximum; NaN on either side gives NaN (ties share the gradient).")
minimum = defop("minimum", S.clamp_max, check=_tensor_operands("minimum"), grads=(
    "where(gt(input, other), 0.0, where(eq(input, other), mul(grad, 0.5), grad))",
    "where(lt(input, other), 0.0, where(eq(input, other), mul(grad, 0.5), grad))"),
    doc="Elementwise minimum; NaN on either side gives NaN (ties share the gradient).")


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

# the public surface of this module, from the table's flags (plus the ops with no row)
PUBLIC = [op.name for op in TABLE.values() if op.fn] + [
    n for op in TABLE.values() if op.fn for n in op.aliases] + [
    "where", "logical_and", "logical_or", "logical_not", "clamp"]
for _op in TABLE.values():
    for _alias in _op.aliases:
        globals()[_alias] = globals()[_op.name]
__all__ = PUBLIC
