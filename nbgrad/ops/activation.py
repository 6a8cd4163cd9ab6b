"""Activations composed of elementwise ops with a backward rule of their own: gelu, silu."""

import math

from ..autograd.grad_mode import no_grad
from ._core import Node, needs_grad, record, save
from .elementwise import add, erf, exp, mul, rsub, sigmoid, tanh


def gelu(input, approximate="none"):
    """Gaussian error linear unit, exact (erf) or ``approximate='tanh'``."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError(f"approximate argument must be either none or tanh, got {approximate!r}")
    with no_grad():
        if approximate == "none":
            out = mul(mul(input, 0.5), add(erf(mul(input, 1 / math.sqrt(2))), 1.0))
        else:
            inner = mul(add(input, mul(mul(mul(input, input), input), 0.044715)),
                        math.sqrt(2 / math.pi))
            out = mul(mul(input, 0.5), add(tanh(inner), 1.0))
    if needs_grad(input):
        record(GeluBackward0, out, (input,), (save(input),), approximate)
    return out


class GeluBackward0(Node):
    """gelu's derivative from the saved input (PyTorch saves the input, not intermediates)."""

    __slots__ = ()

    def backward(self, saved, g):
        (x,) = saved
        if self.attrs == "none":
            cdf = mul(add(erf(mul(x, 1 / math.sqrt(2))), 1.0), 0.5)
            pdf = mul(exp(mul(mul(x, x), -0.5)), 1 / math.sqrt(2 * math.pi))
            return (mul(g, add(cdf, mul(x, pdf))),)
        k = math.sqrt(2 / math.pi)
        x2 = mul(x, x)
        t = tanh(mul(add(x, mul(mul(x2, x), 0.044715)), k))
        dinner = mul(add(mul(x2, 3 * 0.044715), 1.0), k)
        d = add(mul(add(t, 1.0), 0.5), mul(mul(mul(x, 0.5), rsub(mul(t, t), 1.0)), dinner))
        return (mul(g, d),)


def silu(input, inplace=False):
    """``input * sigmoid(input)``."""
    return mul(input, sigmoid(input))
