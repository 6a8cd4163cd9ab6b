"""Samplers whose draws per element vary (rejection and inversion loops) and the
reparameterized gradients of their samples, as rows of the op table: PyTorch's
``_standard_gamma`` (with its gradient ``_standard_gamma_grad``), ``_sample_dirichlet``
(with ``_dirichlet_grad``, the gradient ``distributions.Dirichlet`` uses) and ``binomial``.

They draw on the host from the default generator or ``generator=``, as PyTorch's CPU
kernels do (``_distributions``, ``kernels/cpu/rejection.py``): after ``manual_seed`` the
samples are PyTorch's; results go back to the input's device.
"""

import numpy as np

from .. import _distributions as _D
from ..random import _check as _generator
from ._core import SCALAR_TYPE, backend, broadcast_shapes, check_tensor
from .elementwise import mul, not_implemented  # noqa: F401  (formulas)
from .funcdef import deffunc, same_dtype, same_shape, surface
from .special_functions import derivative_not_implemented  # noqa: F401  (formulas)

_F32 = np.dtype(np.float32)


def _host(be, x):
    """``x``'s values as a flat float64 host array, in row-major order (the order PyTorch's
    kernels visit a freshly allocated output's elements)."""
    return np.ascontiguousarray(be.to_host(x), np.float64).reshape(-1)


def _floating_only(kernel_name, *tensors):
    for t in tensors:
        if t._dtype.np not in (np.float32, np.float64):
            raise NotImplementedError(f"\"{kernel_name}\" not implemented for "
                                      f"'{SCALAR_TYPE[t._dtype.name]}'")


# ---- gamma -----------------------------------------------------------------------------
def _gamma_forward(alpha, odt, dev, gen):
    be = backend(dev)
    out = _D.standard_gamma(gen, _host(be, alpha), odt.np == _F32)
    return be.from_host(out.reshape(alpha.shape).astype(odt.np))


def _gamma_grad_forward(alpha, x, odt, dev):
    from ..kernels.cpu import rejection

    be = backend(dev)
    a, s = _host(be, alpha), _host(be, x)
    out = np.empty(a.size)
    rejection.standard_gamma_grad(a, s, odt.np == _F32, out)
    return be.from_host(out.reshape(alpha.shape).astype(odt.np))


STANDARD_GAMMA = deffunc(
    "_standard_gamma", forward=_gamma_forward, dtype=same_dtype, shape=same_shape,
    args=("generator",), node="StandardGammaBackward0",
    grads=("mul(grad, _standard_gamma_grad(input, result))",), method=False)
STANDARD_GAMMA_GRAD = deffunc(
    "_standard_gamma_grad", params=("input", "output"), forward=_gamma_grad_forward,
    dtype=same_dtype, shape=same_shape,
    grads=("derivative_not_implemented('_standard_gamma_grad')", None), method=False)


@surface(STANDARD_GAMMA)
def _standard_gamma(input, generator=None):
    """Samples of the standard gamma distributions of shapes ``input`` (elementwise;
    Marsaglia and Tsang's method, as PyTorch draws them), differentiable in ``input``
    through the implicit reparameterization (``_standard_gamma_grad``).

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> nbgrad._standard_gamma(nbgrad.tensor([0.5, 2.0, 9.0]))
        tensor([7.8936e-04, 6.3154e-01, 9.1474e+00])
    """
    check_tensor(input, "_standard_gamma")
    gen = _generator(generator, input._device, "_standard_gamma")
    _floating_only("gamma_cpu", input)
    return STANDARD_GAMMA.call(input, gen)


@surface(STANDARD_GAMMA_GRAD)
def _standard_gamma_grad(input, output):
    """The derivative of the standard gamma sample ``output`` with respect to its shape
    ``input``, ``-(dF/d input) / pdf`` (F the gamma CDF), elementwise, as PyTorch
    approximates it.

    Example::

        >>> import nbgrad
        >>> nbgrad._standard_gamma_grad(nbgrad.tensor([2.0]), nbgrad.tensor([1.5]))
        tensor([0.9366])
    """
    _check_same("_standard_gamma_grad", input, output)
    _floating_only("_standard_gamma_grad_cpu", input)
    return STANDARD_GAMMA_GRAD.call(input, output)


def _check_same(name, first, *others):
    check_tensor(first, name)
    for t in others:
        check_tensor(t, name)
        if tuple(t.shape) != tuple(first.shape):
            raise RuntimeError(f"{name}: expected tensors of one shape, got "
                               f"{list(first.shape)} and {list(t.shape)}")
        if t._dtype != first._dtype:
            raise RuntimeError(f"Found dtype {SCALAR_TYPE[t._dtype.name]} but expected "
                               f"{SCALAR_TYPE[first._dtype.name]}")


# ---- Dirichlet -------------------------------------------------------------------------
def _dirichlet_forward(alpha, odt, dev, gen):
    be = backend(dev)
    g = _D.dirichlet_gammas(gen, _host(be, alpha)).reshape(alpha.shape)
    if not g.size:
        return be.from_host(g.astype(odt.np))
    with np.errstate(invalid="ignore"):
        x = (g / g.sum(-1, keepdims=True)).astype(odt.np)
    t = odt.np.type
    x = np.minimum(np.nextafter(t(1), t(0)), np.maximum(np.finfo(odt.np).tiny, x))
    return be.from_host(x)


def _dirichlet_grad_forward(x, alpha, total, odt, dev):
    from ..kernels.cpu import rejection

    be = backend(dev)
    out = np.empty(int(np.prod(x.shape, dtype=np.int64)))
    rejection.dirichlet_grad(_host(be, x), _host(be, alpha), _host(be, total),
                             odt.np == _F32, out)
    return be.from_host(out.reshape(x.shape).astype(odt.np))


SAMPLE_DIRICHLET = deffunc(
    "_sample_dirichlet", forward=_dirichlet_forward, dtype=same_dtype, shape=same_shape,
    args=("generator",), node="NotImplemented",
    grads=("not_implemented('_sample_dirichlet')",), method=False)
DIRICHLET_GRAD = deffunc(
    "_dirichlet_grad", params=("x", "alpha", "total"), forward=_dirichlet_grad_forward,
    dtype=same_dtype, shape=same_shape, node="NotImplemented",
    grads=("not_implemented('_dirichlet_grad')",) * 3, method=False)


@surface(SAMPLE_DIRICHLET)
def _sample_dirichlet(input, generator=None):
    """Samples of the Dirichlet distributions of concentrations ``input`` (its last dim):
    float64 gamma samples normalized to sum to one, kept within ``(0, 1)`` of the dtype,
    as PyTorch draws them. No gradient (``distributions.Dirichlet.rsample`` has one).

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> nbgrad._sample_dirichlet(nbgrad.tensor([1.0, 2.0, 3.0]))
        tensor([0.5282, 0.2411, 0.2307])
    """
    check_tensor(input, "_sample_dirichlet")
    gen = _generator(generator, input._device, "_sample_dirichlet")
    _floating_only("dirichlet", input)
    return SAMPLE_DIRICHLET.call(input, gen)


@surface(DIRICHLET_GRAD)
def _dirichlet_grad(x, alpha, total):
    """The derivative of the Beta(``alpha``, ``total - alpha``) sample ``x`` with respect
    to ``alpha``, divided by ``1 - x`` (elementwise; PyTorch's approximations), from which
    a Dirichlet sample's gradient is built.

    Example::

        >>> import nbgrad
        >>> nbgrad._dirichlet_grad(nbgrad.tensor([0.3]), nbgrad.tensor([1.0]),
        ...                        nbgrad.tensor([3.0]))
        tensor([0.4123])
    """
    _check_same("_dirichlet_grad", x, alpha, total)
    _floating_only("_dirichlet_grad_cpu", x)
    return DIRICHLET_GRAD.call(x, alpha, total)


# ---- binomial --------------------------------------------------------------------------
def _binomial_forward(count, prob, odt, dev, gen):
    be = backend(dev)
    c, p = be.to_host(count), be.to_host(prob)
    shape = tuple(broadcast_shapes(np.shape(c), np.shape(p)))
    c = np.ascontiguousarray(np.broadcast_to(np.asarray(c, np.float64), shape)).reshape(-1)
    p = np.ascontiguousarray(np.broadcast_to(np.asarray(p, np.float64), shape)).reshape(-1)
    out = _D.binomial(gen, c, p, odt.np == _F32)
    return be.from_host(out.reshape(shape).astype(odt.np))


BINOMIAL = deffunc(
    "binomial", params=("count", "prob"), forward=_binomial_forward, dtype=same_dtype,
    shape=lambda a, b, *rest: tuple(broadcast_shapes(tuple(a), tuple(b))),
    args=("generator",), node="NotImplemented",
    grads=("not_implemented('binomial')",) * 2, method=False)


@surface(BINOMIAL)
def binomial(count, prob, generator=None):
    """Draw the number of successes of ``count`` trials of success probability ``prob``,
    elementwise.

    ``count`` and ``prob`` broadcast together. The draws are PyTorch's for the same seed
    (inversion for small means, Hoermann's BTRS rejection sampler otherwise). The result
    carries no gradient.

    Args:
        count (Tensor): the numbers of trials, of a floating-point dtype.
        prob (Tensor): the success probabilities, in :math:`[0, 1]`, of ``count``'s dtype.
        generator (nbgrad.Generator, optional): the generator to draw from. Default: ``None``
            (the default generator).

    Returns:
        Tensor: the counts of successes, as floats of ``count``'s dtype.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> nbgrad.binomial(nbgrad.tensor([10.0, 100.0]), nbgrad.tensor([0.5, 0.2]))
        tensor([ 7., 21.])
        >>> nbgrad.binomial(nbgrad.tensor([5.0, 5.0]), nbgrad.tensor([0.0, 1.0]))
        tensor([0., 5.])
    """
    check_tensor(count, "binomial")
    check_tensor(prob, "binomial")
    if not count._dtype.is_floating_point:
        raise ValueError("binomial only supports floating-point dtypes for count, got: "
                         f"{SCALAR_TYPE[count._dtype.name]}")
    if prob._dtype != count._dtype:
        raise RuntimeError(f"Found dtype {SCALAR_TYPE[prob._dtype.name]} but expected "
                           f"{SCALAR_TYPE[count._dtype.name]}")
    _floating_only("binomial_cpu", count)
    gen = _generator(generator, count._device, "binomial")
    if count.numel() and not bool(count.detach().isfinite().all()):
        # (PyTorch's sampler never returns for an infinite or NaN count)
        raise RuntimeError("binomial: expected every count to be finite")
    return BINOMIAL.call(count, prob, gen)


__all__ = ["_dirichlet_grad", "_sample_dirichlet", "_standard_gamma", "_standard_gamma_grad",
           "binomial"]
