"""``nbgrad.special``: PyTorch's ``torch.special`` functions. The gamma family, ``erfinv``,
the Bessel functions, ``ndtri`` / ``log_ndtr`` / ``erfcx``, ``zeta``, the incomplete gamma
functions and the orthogonal polynomials are rows of the op table (one scalar body for CPU
and CUDA, PyTorch's algorithms and derivative formulas, so gradients to any order; those
PyTorch does not differentiate give results that do not require grad); the rest are
nbgrad's ops under SciPy's names, or composed of them (differentiable through their
parts).

Example::

    >>> import nbgrad
    >>> nbgrad.special.gammaln(nbgrad.tensor([1.0, 5.0]))
    tensor([0.0000, 3.1781])
    >>> nbgrad.special.ndtr(nbgrad.tensor([0.0, 1.96]))
    tensor([0.5000, 0.9750])
"""

import math

from .creation import full_like, zeros_like
from .ops import special_functions as _sf
from .ops.comparison import isnan
from .ops.compound import as_floating, logit, sinc, xlogy
from .ops.elementwise import (
    digamma,
    erf,
    erfc,
    erfinv,
    exp2,
    expm1,
    lgamma,
    log,
    log1p,
    polygamma,
    round,  # noqa: A004  (torch.special.round)
    sigmoid,
)
from .ops.reduce import logsumexp
from .ops.selection import where
from .ops.softmax import log_softmax, softmax

expit = sigmoid
i0 = _sf.i0
# the rows named ``special_<name>`` in the op table, here under their own names
_SPECIAL = ("i0e", "i1", "i1e", "ndtri", "log_ndtr", "erfcx", "zeta", "gammainc", "gammaincc",
            *_sf._NO_GRAD)
globals().update({n: getattr(_sf, "special_" + n) for n in _SPECIAL})
gammaln = lgamma
psi = digamma


def ndtr(input):
    """The standard normal distribution's CDF, ``(1 + erf(input / sqrt(2))) / 2``."""
    return 0.5 * erfc(input * -math.sqrt(0.5))


def entr(input):
    """Elementwise entropy term: ``-x log x`` for ``x > 0``, 0 at 0, ``-inf`` below."""
    input = as_floating(input)
    pos = input > 0
    safe = where(pos, input, full_like(input, 1.0))  # (no log of 0 on the unused side)
    out = where(pos, -safe * log(safe), where(input == 0, zeros_like(input),
                                              full_like(input, -math.inf)))
    return where(isnan(input), input, out)


def xlog1py(input, other):
    """``input * log1p(other)``, 0 where ``input`` is 0 (unless ``other`` is NaN)."""
    out = input * log1p(other)
    return where((input == 0) & ~isnan(other + input * 0), zeros_like(out), out)


def multigammaln(input, p):
    r"""multigammaln(input, p) -> Tensor

    The logarithm of the multivariate gamma function of dimension ``p``, elementwise
    (``nbgrad.mvlgamma`` is this function):

    .. math::
        \log \Gamma_p(x) = \frac{p (p - 1)}{4} \log \pi + \sum_{j=0}^{p-1}
        \log \Gamma\left(x - \frac{j}{2}\right)

    Every element must be greater than ``(p - 1) / 2`` (``RuntimeError`` otherwise).

    Args:
        input (Tensor): the input tensor.
        p (int): the dimension, at least 1.

    Example::

        >>> import nbgrad
        >>> nbgrad.mvlgamma(nbgrad.tensor([2.5, 3.0]), 2)
        tensor([0.8570, 1.5502])
        >>> nbgrad.special.multigammaln(nbgrad.tensor([2.5, 3.0]), 1)
        tensor([0.2847, 0.6931])
    """
    if not bool(((input > (p - 1) / 2)).all()):
        raise RuntimeError(f"All elements must be greater than (p-1)/2, where p is {p}")
    out = lgamma(input)
    for j in range(1, p):
        out = out + lgamma(input - j / 2)
    return out + p * (p - 1) / 4 * math.log(math.pi)


__all__ = ["digamma", "entr", "erf", "erfc", "erfinv", "exp2", "expit", "expm1", "gammaln",
           "i0", "log1p", "log_softmax", "logit", "logsumexp", "multigammaln", "ndtr",
           "polygamma", "psi", "round", "sinc", "softmax", "xlog1py", "xlogy", *_SPECIAL]
