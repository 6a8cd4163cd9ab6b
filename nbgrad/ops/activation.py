"""Activations: gelu (exact and tanh-approximated) as elementwise rows with fused backward
steps, whose per-element bodies live in ``kernels/scalar.py``; silu and the rest (leaky_relu,
elu, hardtanh, ...) composed of ops."""

import math

from ..amp.policy import autocast_op
from ..kernels import scalar as S
from .dispatch import apply1
from .elementwise import (
    abs,  # noqa: A004
    add,
    div,
    exp,
    expm1,
    ge,
    gt,
    le,
    log1p,
    mul,
    neg,
    rsub,
    sigmoid,
    sub,
    tanh,
    where,
)
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


# ----- activations composed of table ops (their nodes are the parts'; the gradients at the
# kinks are PyTorch's: the ``where`` picks the branch PyTorch's backward takes there) ------
def leaky_relu(input, negative_slope=0.01, inplace=False):
    """``input`` where positive, else ``negative_slope * input``."""
    return where(gt(input, 0), input, mul(input, negative_slope))


def elu(input, alpha=1.0, inplace=False):
    """``input`` where positive, else ``alpha * (exp(input) - 1)``."""
    return where(gt(input, 0), input, mul(expm1(input), alpha))


def celu(input, alpha=1.0, inplace=False):
    """``input`` where positive, else ``alpha * (exp(input / alpha) - 1)``."""
    return where(gt(input, 0), input, mul(expm1(div(input, alpha)), alpha))


_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def selu(input, inplace=False):
    """``scale * elu(input, alpha)`` with the self-normalizing constants."""
    return mul(elu(input, _SELU_ALPHA), _SELU_SCALE)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """``input`` clipped to ``[min_val, max_val]`` (no gradient at the bounds, as PyTorch)."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return where(le(input, min_val), min_val, where(ge(input, max_val), max_val, input))


def relu6(input, inplace=False):
    """``hardtanh(input, 0, 6)``."""
    return hardtanh(input, 0.0, 6.0)


def hardsigmoid(input, inplace=False):
    """0 below -3, 1 above 3, ``input / 6 + 1/2`` between."""
    return where(le(input, -3.0), 0.0, where(ge(input, 3.0), 1.0, add(div(input, 6.0), 0.5)))


def hardswish(input, inplace=False):
    """0 below -3, ``input`` above 3, ``input (input + 3) / 6`` between."""
    return where(le(input, -3.0), 0.0,
                 where(ge(input, 3.0), input, div(mul(input, add(input, 3.0)), 6.0)))


def logsigmoid(input):
    """``log(sigmoid(input))``, finite for any input: ``-softplus(-input)``."""
    ax = abs(input)
    return neg(add(log1p(exp(neg(ax))), mul(sub(ax, input), 0.5)))


def softsign(input):
    """``input / (1 + |input|)``."""
    return div(input, add(abs(input), 1.0))


def tanhshrink(input):
    """``input - tanh(input)``."""
    return sub(input, tanh(input))


def mish(input, inplace=False):
    """``input * tanh(softplus(input))``."""
    from .elementwise import softplus

    return mul(input, tanh(softplus(input)))


def threshold(input, threshold, value, inplace=False):
    """``input`` where above ``threshold``, else ``value``."""
    return where(gt(input, threshold), input, value)


def glu(input, dim=-1):
    """Gated linear unit: the first half of ``input`` along ``dim`` times the sigmoid of the
    second."""
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    n = input.shape[dim]
    if n % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {dim % input.ndim} "
                           f"is size {n}")
    a, b = input.chunk(2, dim)
    return mul(a, sigmoid(b))


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """``softmax(-input, dim)``."""
    from .softmax import softmax

    return softmax(neg(input), dim, dtype=dtype)


@autocast_op("prelu")
def prelu(input, weight):
    """``input`` where positive, else ``weight * input``, ``weight`` one value or one per
    channel (dim 1)."""
    if input.dtype is not weight.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got "
                           f"{input.dtype.scalar_type} and {weight.dtype.scalar_type}")
    w = weight
    if weight.numel() > 1:
        w = weight.reshape((1, -1) + (1,) * max(input.ndim - 2, 0))
    return where(gt(input, 0), input, mul(w, input))


def hardshrink(input, lambd=0.5):
    """``input`` where ``|input| > lambd``, else 0 (NaN stays NaN)."""
    return where(ge(input, -lambd) & le(input, lambd), 0.0, input)


def softshrink(input, lambd=0.5):
    """``input`` moved ``lambd`` towards 0, 0 within ``[-lambd, lambd]``."""
    import numpy as np

    if lambd < 0:
        fmax = np.finfo(np.float32 if input.dtype.low else input.dtype.np).max
        raise RuntimeError(f"lambda must be in range [0, {fmax:g}] for input dtype "
                           f"{input.dtype.scalar_type}, but found {lambd:g}")
    from .elementwise import sign

    return where(ge(input, -lambd) & le(input, lambd), 0.0,
                 sub(input, mul(sign(input), lambd)))


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Randomized leaky ReLU: while training, each non-positive element times its own slope
    drawn from U(lower, upper); else the mean slope ``(lower + upper) / 2``."""
    if not training:
        return leaky_relu(input, (lower + upper) / 2)
    from ..autograd.grad_mode import no_grad

    with no_grad():
        slopes = input.new_empty(tuple(input.shape)).uniform_(lower, upper)
    return where(gt(input, 0), input, mul(input, slopes))
