"""The continuous uniform distribution."""

import numbers

from ..creation import rand
from ..tensor import Size
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all


class Uniform(Distribution):
    """Uniform on the half-open interval ``[low, high)``.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> nbgrad.distributions.Uniform(nbgrad.tensor([0.0]), nbgrad.tensor([5.0])).sample()
        tensor([2.4813])
    """

    has_rsample = True

    @property
    def arg_constraints(self):
        # (each bound constrained by the other, as PyTorch's)
        return {"low": constraints.less_than(self.high),
                "high": constraints.greater_than(self.low)}

    def __init__(self, low, high, validate_args=None):
        self.low, self.high = broadcast_all(low, high)
        scalar = isinstance(low, numbers.Number) and isinstance(high, numbers.Number)
        batch_shape = Size() if scalar else self.low.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(Uniform, batch_shape, _instance, ("low", "high"))

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.interval(self.low, self.high)

    @property
    def mean(self):
        return (self.high + self.low) / 2

    @property
    def mode(self):
        return self.high * float("nan")

    @property
    def stddev(self):
        return (self.high - self.low) / 12**0.5

    @property
    def variance(self):
        return (self.high - self.low).pow(2) / 12

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        u = rand(shape, dtype=self.low.dtype, device=self.low.device)
        return self.low + u * (self.high - self.low)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        lb = self.low.le(value).type_as(self.low)
        ub = self.high.gt(value).type_as(self.low)
        return (lb * ub).log() - (self.high - self.low).log()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        result = (value - self.low) / (self.high - self.low)
        return result.clamp(min=0, max=1)

    def icdf(self, value):
        return value * (self.high - self.low) + self.low

    def entropy(self):
        return (self.high - self.low).log()
