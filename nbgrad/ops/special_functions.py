"""``torch.special``'s Bessel, error-function, zeta and incomplete-gamma functions as rows
of the op table: one body each (``kernels/special.py``) for the CPU and CUDA, PyTorch's
derivative formulas (written in nbgrad ops, so they differentiate again), and its
non-differentiable functions without a node (their results never require grad, as in
PyTorch)."""

import math

from ..dtypes import finfo
from ..kernels import special as K
from ..tensor import Tensor
from .elementwise import (  # noqa: F401  (formulas)
    abs,  # noqa: A004
    add,
    div,
    exp,
    gt,
    lgamma,
    log,
    mul,
    neg,
    reciprocal,
    sign,
    sub,
)
from .opdef import defop
from .selection import where

_FLOAT = "float"


def derivative_not_implemented(name):
    """The derivative formula of an input PyTorch has none for: its backward raises."""
    raise NotImplementedError(f"the derivative for '{name}' is not implemented.")


_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)

def _tiny_safe(input):
    """``(|input| > eps, input with eps where it is not)``: the Bessel derivatives' ``1/x``
    taken only where it is finite (their limit at 0 is 0.5)."""
    eps = finfo(input.dtype).eps
    big = gt(abs(input), eps)
    return big, where(big, input, eps)


def _i1_backward(grad, input, result):
    big, x = _tiny_safe(input)
    return mul(grad, where(big, sub(i0(x), div(result, x)), 0.5))


def _i1e_backward(grad, input, result):
    big, x = _tiny_safe(input)
    return mul(grad, where(big, sub(special_i0e(x), mul(result, add(sign(x), reciprocal(x)))),
                           0.5))


def _zeta_other_backward(grad, input, other):
    # d/dq zeta(x, q) = -x zeta(x + 1, q); ``input`` may be a number
    return mul(grad, mul(special_zeta(input + 1.0, other), -input))


i0 = defop("i0", K.i0, inplace=True, dtype=_FLOAT, grads=("mul(grad, special_i1(input))",),
           doc="The modified Bessel function of the first kind of order 0, ``I0``.")
special_i0e = defop(
    "special_i0e", K.i0e, dtype=_FLOAT, method=False, fn=False, node="SpecialI0EBackward0",
    grads=("mul(grad, sub(special_i1e(input), mul(sign(input), result)))",),
    doc="``exp(-|x|) I0(x)``, the exponentially scaled ``I0``.")
special_erfcx = defop(
    "special_erfcx", K.erfcx, dtype=_FLOAT, method=False, fn=False,
    grads=("mul(grad, sub(mul(mul(input, result), 2.0), _TWO_OVER_SQRT_PI))",),
    doc="The scaled complementary error function ``exp(x^2) erfc(x)``.")
special_log_ndtr = defop(
    "special_log_ndtr", K.log_ndtr, dtype=_FLOAT, method=False, fn=False,
    grads=("mul(grad, exp(sub(neg(add(mul(mul(input, input), 0.5), _LOG_SQRT_2PI)), "
           "result)))",),
    doc="The log of the standard normal CDF, accurate far into the lower tail.")
special_zeta = defop(
    "special_zeta", K.zeta, dtype=_FLOAT, method=False, fn=False,
    grads=("derivative_not_implemented('zeta')", "_zeta_other_backward(grad, input, other)"),
    doc="The Hurwitz zeta function ``sum over k >= 0 of (k + other) ** -input``.")
def _gamma_density(a, x):
    """``x^(a-1) exp(-x) / Gamma(a)``: the derivative of ``P(a, x)`` in ``x``."""
    return exp(sub(sub(mul(sub(a, 1.0), log(x)), x), lgamma(a)))


igamma = defop(
    "igamma", K.gammainc, inplace=True, dtype=_FLOAT,
    grads=("derivative_not_implemented('igamma: input')",
           "mul(grad, _gamma_density(input, other))"),
    doc="The regularized lower incomplete gamma function ``P(input, other)``.")
igammac = defop(
    "igammac", K.gammaincc, inplace=True, dtype=_FLOAT,
    grads=("derivative_not_implemented('igammac: input')",
           "neg(mul(grad, _gamma_density(input, other)))"),
    doc="The regularized upper incomplete gamma function ``Q(input, other)``.")
special_i1 = defop("special_i1", K.i1, dtype=_FLOAT, method=False, fn=False,
                   grads=("_i1_backward(grad, input, result)",),
                   doc="The modified Bessel function of the first kind of order 1, ``I1``.")
special_i1e = defop("special_i1e", K.i1e, dtype=_FLOAT, method=False, fn=False,
                    node="SpecialI1EBackward0",
                    grads=("_i1e_backward(grad, input, result)",),
                    doc="``exp(-|x|) I1(x)``, the exponentially scaled ``I1``.")
special_ndtri = defop(
    "special_ndtri", K.ndtri, dtype=_FLOAT, method=False, fn=False,
    grads=("mul(grad, mul(exp(mul(mul(result, result), 0.5)), _SQRT_2PI))",),
    doc="The inverse of the standard normal CDF: ``x`` with ``ndtr(x) = input``.")
_SQRT_2PI = math.sqrt(2.0 * math.pi)

# the functions PyTorch gives no derivative: no node, their results never require grad
_NO_GRAD = {
    "bessel_j0": "The Bessel function of the first kind of order 0.",
    "bessel_j1": "The Bessel function of the first kind of order 1.",
    "bessel_y0": "The Bessel function of the second kind of order 0.",
    "bessel_y1": "The Bessel function of the second kind of order 1.",
    "modified_bessel_i0": "The modified Bessel function of the first kind of order 0.",
    "modified_bessel_i1": "The modified Bessel function of the first kind of order 1.",
    "modified_bessel_k0": "The modified Bessel function of the second kind of order 0.",
    "modified_bessel_k1": "The modified Bessel function of the second kind of order 1.",
    "scaled_modified_bessel_k0": "``exp(x) K0(x)``.",
    "scaled_modified_bessel_k1": "``exp(x) K1(x)``.",
    "airy_ai": "The Airy function ``Ai``.",
    "spherical_bessel_j0": "The spherical Bessel function of the first kind of order 0, "
                           "``sin(x) / x``.",
    "chebyshev_polynomial_t": "The Chebyshev polynomial of the first kind ``T_n(input)``.",
    "chebyshev_polynomial_u": "The Chebyshev polynomial of the second kind ``U_n(input)``.",
    "chebyshev_polynomial_v": "The Chebyshev polynomial of the third kind ``V_n(input)``.",
    "chebyshev_polynomial_w": "The Chebyshev polynomial of the fourth kind ``W_n(input)``.",
    "shifted_chebyshev_polynomial_t": "``T_n(2 input - 1)``.",
    "shifted_chebyshev_polynomial_u": "``U_n(2 input - 1)``.",
    "shifted_chebyshev_polynomial_v": "``V_n(2 input - 1)``.",
    "shifted_chebyshev_polynomial_w": "``W_n(2 input - 1)``.",
    "hermite_polynomial_h": "The physicists' Hermite polynomial ``H_n(input)``.",
    "hermite_polynomial_he": "The probabilists' Hermite polynomial ``He_n(input)``.",
    "laguerre_polynomial_l": "The Laguerre polynomial ``L_n(input)``.",
    "legendre_polynomial_p": "The Legendre polynomial ``P_n(input)``.",
}
_BODIES = {"modified_bessel_i0": K.i0, "modified_bessel_i1": K.i1}
for _name, _doc in _NO_GRAD.items():
    _body = _BODIES.get(_name) or getattr(K, _name)
    _params = ("input", "n") if "polynomial" in _name else None
    globals()["special_" + _name] = defop("special_" + _name, _body, dtype=_FLOAT, fn=False,
                                          method=False, params=_params, doc=_doc)


def _tensors_only(fname, op):
    """igamma / igammac take two tensors (PyTorch's argument check)."""
    def front(input, other):
        for pos, (name, v) in enumerate((("input", input), ("other", other)), 1):
            if not isinstance(v, Tensor):
                raise TypeError(f"{fname}(): argument '{name}' (position {pos}) must be "
                                f"Tensor, not {type(v).__name__}")
        return op(input, other)

    front.__name__ = fname
    front.__doc__ = op.__doc__
    return front


special_gammainc = _tensors_only("special_gammainc", igamma)
special_gammaincc = _tensors_only("special_gammaincc", igammac)
igamma = _tensors_only("igamma", igamma)
igammac = _tensors_only("igammac", igammac)
__all__ = ["i0", "igamma", "igammac"]
