"""The half-Cauchy distribution."""

import math

from ..creation import as_tensor, full, zeros_like
from ..ops.selection import where
from . import constraints
from .cauchy import Cauchy
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform


class HalfCauchy(TransformedDistribution):
    """``|X|`` for a Cauchy ``X`` of median 0 and half width ``scale``.

    Example::

        >>> import nbgrad
        >>> from nbgrad.distributions.half_cauchy import HalfCauchy
        >>> _ = nbgrad.manual_seed(0)
        >>> m = HalfCauchy(nbgrad.tensor([1.0]))
        >>> m.sample()
        tensor([10.5977])
        >>> m.log_prob(nbgrad.tensor([0.5])), m.cdf(nbgrad.tensor([1.0]))
        (tensor([-0.6747]), tensor([0.5000]))
    """

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale, validate_args=None):
        base_dist = Cauchy(0, scale, validate_args=False)
        super().__init__(base_dist, AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_base(HalfCauchy, batch_shape, _instance)

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mean(self):
        return full(tuple(self._extended_shape()), math.inf, dtype=self.scale.dtype,
                    device=self.scale.device)

    @property
    def mode(self):
        return zeros_like(self.scale)

    @property
    def variance(self):
        return self.base_dist.variance

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = as_tensor(value, dtype=self.scale.dtype, device=self.scale.device)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return where(value >= 0, log_prob, -math.inf)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)
