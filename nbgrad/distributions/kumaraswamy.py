"""The Kumaraswamy distribution."""

import math

from ..creation import full_like
from ..ops.selection import where
from . import constraints
from .gumbel import euler_constant
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, PowerTransform
from .uniform import Uniform
from .utils import broadcast_all


def _moment(a, b, n):
    """``E[X ** n]`` of Kumaraswamy(a, b): ``b B(1 + n / a, b)``, by log-gammas."""
    arg = 1 + n / a
    return b * (arg.lgamma() + b.lgamma() - (arg + b).lgamma()).exp()


class Kumaraswamy(TransformedDistribution):
    """The Kumaraswamy distribution on (0, 1), of density ``a b x^(a-1) (1 - x^a)^(b-1)``
    (``a = concentration1``, ``b = concentration0``): like a beta distribution, but with a
    closed-form CDF, so sampled as ``(1 - U ** (1 / b)) ** (1 / a)`` for a uniform ``U``.

    Example::

        >>> import nbgrad
        >>> from nbgrad.distributions.kumaraswamy import Kumaraswamy
        >>> _ = nbgrad.manual_seed(0)
        >>> m = Kumaraswamy(nbgrad.tensor([2.0]), nbgrad.tensor([3.0]))
        >>> m.sample()
        tensor([0.4564])
        >>> m.log_prob(nbgrad.tensor([0.5])), m.mean
        (tensor([0.5232]), tensor([0.4571]))
    """

    arg_constraints = {"concentration1": constraints.positive,
                       "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        base_dist = Uniform(full_like(self.concentration0, 0), full_like(self.concentration0, 1),
                            validate_args=validate_args)
        transforms = [PowerTransform(exponent=self.concentration0.reciprocal()),
                      AffineTransform(loc=1.0, scale=-1.0),
                      PowerTransform(exponent=self.concentration1.reciprocal())]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expand_base(Kumaraswamy, batch_shape, _instance)
        new.concentration1 = self.concentration1.expand(batch_shape)
        new.concentration0 = self.concentration0.expand(batch_shape)
        return new

    @property
    def mean(self):
        return _moment(self.concentration1, self.concentration0, 1)

    @property
    def mode(self):
        a, b = self.concentration1, self.concentration0
        log_mode = b.reciprocal() * (-b).log1p() - (-b * a).log1p()
        # (no interior mode when either concentration is below 1; PyTorch assigns through
        # the mask)
        log_mode = where((b < 1).logical_or(a < 1), math.nan, log_mode)
        return log_mode.exp()

    @property
    def variance(self):
        return _moment(self.concentration1, self.concentration0, 2) - self.mean.pow(2)

    def entropy(self):
        a, b = self.concentration1, self.concentration0
        t1 = 1 - a.reciprocal()
        t0 = 1 - b.reciprocal()
        harmonic = (b + 1).digamma() + euler_constant  # (the harmonic number H_b)
        return t0 + t1 * harmonic - a.log() - b.log()
