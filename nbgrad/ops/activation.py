"""Activations: gelu (exact and tanh-approximated) as elementwise rows with fused backward
steps, whose per-element bodies live in ``kernels/scalar.py``; silu composed of ops."""

import math

from ..kernels import scalar as S
from .dispatch import apply1
from .elementwise import exp, mul, rsub, sigmoid, tanh
from .opdef import TABLE, defop

_FLOAT = "float"
_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)
_BETA = math.sqrt(2 / math.pi)
_KAPPA = 0.044715


def _gelu(input, approximate="none"):
    """Gaussian error linear unit, exact (erf) or ``approximate='tanh'``."""
    if approximate == "none":
        return apply1(_GELU, input)
    if approximate == "tanh":
        return apply1(_GELU_TANH, input)
    raise RuntimeError(f"approximate argument must be either none or tanh, got {approximate!r}")


def _gelu_dd(x):
    """d/dx of gelu's derivative ``cdf(x) + x * pdf(x)``: ``pdf(x) * (2 - x**2)``."""
    x2 = mul(x, x)
    return mul(mul(exp(mul(x2, -0.5)), _INV_SQRT_2PI), rsub(x2, 2.0))


def _gelu_tanh_dd(x):
    """d/dx of the tanh approximation's derivative: with ``u = b * (x + k * x**3)``,
    ``t = tanh(u)``: ``(1 - t**2) * (u' - x * t * u'**2 + 3 * b * k * x**2)``."""
    x2 = mul(x, x)
    t = tanh(mul(mul(rsub(mul(x2, -_KAPPA), 1.0), x), _BETA))
    du = mul(rsub(mul(x2, -3 * _KAPPA), 1.0), _BETA)
    inner = rsub(mul(mul(x, t), mul(du, du)), du)
    inner = rsub(mul(x2, -3 * _BETA * _KAPPA), inner)
    return mul(rsub(mul(t, t), 1.0), inner)


# PyTorch saves the input for both (not intermediates); both nodes are GeluBackward0
gelu = defop("gelu", S.gelu, cpu_body=S.gelu_v, dtype=_FLOAT, front=_gelu, grad_once=True,
             fn=False, method=False, node="GeluBackward0",
             grads=("gelu_backward(grad, input)",))
_GELU = TABLE["gelu"]
gelu_tanh = defop("gelu_tanh", S.gelu_tanh, cpu_body=S.gelu_tanh_v, dtype=_FLOAT,
                  grad_once=True, fn=False, method=False, node="GeluBackward0",
                  grads=("gelu_tanh_backward(grad, input)",),
                  doc="``gelu(input, approximate='tanh')``.")
_GELU_TANH = TABLE["gelu_tanh"]
gelu_backward = defop(
    "gelu_backward", S.gelu_bwd, cpu_body=S.gelu_bwd_v, dtype=_FLOAT, fn=False, method=False,
    params=("grad_output", "input"),
    grads=("gelu_backward(grad, input)", "mul(mul(grad, grad_output), _gelu_dd(input))"),
    doc="``grad_output * (cdf(input) + input * pdf(input))``: gelu's backward step as one "
        "kernel.")
gelu_tanh_backward = defop(
    "gelu_tanh_backward", S.gelu_tanh_bwd, cpu_body=S.gelu_tanh_bwd_v, dtype=_FLOAT,
    fn=False, method=False, params=("grad_output", "input"), node="GeluBackwardBackward0",
    grads=("gelu_tanh_backward(grad, input)",
           "mul(mul(grad, grad_output), _gelu_tanh_dd(input))"),
    doc="The tanh-approximated gelu's backward step as one kernel.")


def silu(input, inplace=False):
    """``input * sigmoid(input)``."""
    return mul(input, sigmoid(input))
