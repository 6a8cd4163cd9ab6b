"""The von Mises distribution on the circle."""

import math

from .. import dtypes as _dt
from ..autograd.grad_mode import no_grad
from ..creation import empty, rand, zeros
from ..ops.selection import where
from ..tensor import Size
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, lazy_property


def _eval_poly(y, coef):
    """``coef[0] + coef[1] y + coef[2] y^2 + ...`` by Horner's rule."""
    result = coef[-1]
    for c in reversed(coef[:-1]):
        result = c + y * result
    return result


# Polynomial approximations of the modified Bessel functions I0 and I1 (Abramowitz and
# Stegun 9.8.1-9.8.4): of (x / 3.75)^2 below 3.75, of 3.75 / x (scaled) above.
_I0_COEF_SMALL = [1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.360768e-1, 0.45813e-2]
_I0_COEF_LARGE = [0.39894228, 0.1328592e-1, 0.225319e-2, -0.157565e-2, 0.916281e-2,
                  -0.2057706e-1, 0.2635537e-1, -0.1647633e-1, 0.392377e-2]
_I1_COEF_SMALL = [0.5, 0.87890594, 0.51498869, 0.15084934, 0.2658733e-1, 0.301532e-2,
                  0.32411e-3]
_I1_COEF_LARGE = [0.39894228, -0.3988024e-1, -0.362018e-2, 0.163801e-2, -0.1031555e-1,
                  0.2282967e-1, -0.2895312e-1, 0.1787654e-1, -0.420059e-2]
_COEF_SMALL = [_I0_COEF_SMALL, _I1_COEF_SMALL]
_COEF_LARGE = [_I0_COEF_LARGE, _I1_COEF_LARGE]


def _log_modified_bessel_fn(x, order=0):
    """``log I_order(x)`` for ``x > 0`` and ``order`` 0 or 1."""
    if order not in (0, 1):
        raise AssertionError(f"order must be 0 or 1, got {order}")
    y = x / 3.75
    y = y * y
    small = _eval_poly(y, _COEF_SMALL[order])
    if order == 1:
        small = x.abs() * small
    small = small.log()
    y = 3.75 / x
    large = x - 0.5 * x.log() + _eval_poly(y, _COEF_LARGE[order]).log()
    return where(x < 3.75, small, large)


def _rejection_sample(loc, concentration, proposal_r, x):
    """Best and Fisher's rejection sampler: rounds of three uniforms per element (drawn
    for every element each round), until every element has accepted a proposal."""
    done = zeros(tuple(x.shape), dtype=_dt.bool_, device=loc.device)
    while not bool(done.all()):
        u = rand((3,) + tuple(x.shape), dtype=loc.dtype, device=loc.device)
        u1, u2, u3 = u.unbind()
        z = (math.pi * u1).cos()
        f = (1 + proposal_r * z) / (proposal_r + z)
        c = concentration * (proposal_r - f)
        accept = ((c * (2 - c) - u2) > 0).logical_or((c / u2).log() + 1 - c >= 0)
        if bool(accept.any()):
            x = where(accept, (u3 - 0.5).sign() * f.acos(), x)
            done = done.logical_or(accept)
    return (x + math.pi + loc) % (2 * math.pi) - math.pi


class VonMises(Distribution):
    """The von Mises (circular normal) distribution of mean direction ``loc`` and
    concentration ``concentration``, of density ``exp(k cos(x - loc)) / (2 pi I0(k))``.
    ``loc`` and values may be any real numbers, read as angles modulo 2 pi; samples lie in
    [-pi, pi). Sampled by Best and Fisher's rejection method (1979), in double precision
    whatever the parameters' dtype (single precision can loop for a long time at small
    concentrations); the samples carry no gradient.

    Example::

        >>> import nbgrad
        >>> from nbgrad.distributions.von_mises import VonMises
        >>> _ = nbgrad.manual_seed(0)
        >>> m = VonMises(nbgrad.tensor([1.0]), nbgrad.tensor([1.0]))
        >>> m.sample()
        tensor([1.2782])
        >>> m.log_prob(nbgrad.tensor([0.5])), m.variance
        (tensor([-1.1962]), tensor([0.5536]))
    """

    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None):
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, Size(), validate_args)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_prob = self.concentration * (value - self.loc).cos()
        return (log_prob - math.log(2 * math.pi)
                - _log_modified_bessel_fn(self.concentration, order=0))

    @lazy_property
    def _loc(self):
        return self.loc.to(_dt.float64)

    @lazy_property
    def _concentration(self):
        return self.concentration.to(_dt.float64)

    @lazy_property
    def _proposal_r(self):
        kappa = self._concentration
        tau = 1 + (1 + 4 * kappa**2).sqrt()
        rho = (tau - (2 * tau).sqrt()) / (2 * kappa)
        proposal_r = (1 + rho**2) / (2 * rho)
        proposal_r_taylor = 1 / kappa + kappa  # (the limit for small kappa)
        return where(kappa < 1e-5, proposal_r_taylor, proposal_r)

    def sample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        with no_grad():
            x = empty(tuple(shape), dtype=self._loc.dtype, device=self.loc.device)
            return _rejection_sample(self._loc, self._concentration, self._proposal_r,
                                     x).to(self.loc.dtype)

    def expand(self, batch_shape, _instance=None):
        # (PyTorch's: a new instance of the same type on the expanded parameters, with the
        # validation setting only if one was given)
        validate_args = self.__dict__.get("_validate_args")
        loc = self.loc.expand(batch_shape)
        concentration = self.concentration.expand(batch_shape)
        return type(self)(loc, concentration, validate_args=validate_args)

    @property
    def mean(self):
        """The circular mean: ``loc``."""
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        """The circular variance: ``1 - I1(k) / I0(k)``."""
        return 1 - (_log_modified_bessel_fn(self.concentration, order=1)
                    - _log_modified_bessel_fn(self.concentration, order=0)).exp()
