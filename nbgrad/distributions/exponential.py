"""The exponential distribution."""

import numbers

from ..tensor import Size
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all


class Exponential(Distribution):
    """The exponential distribution of ``rate`` (mean ``1 / rate``).

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> nbgrad.distributions.Exponential(nbgrad.tensor([1.0])).sample()
        tensor([3.5083])
    """

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        batch_shape = Size() if isinstance(rate, numbers.Number) else self.rate.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(Exponential, batch_shape, _instance, ("rate",))

    @property
    def mean(self):
        return self.rate.reciprocal()

    @property
    def mode(self):
        return self.rate.new_zeros(tuple(self.rate.shape))

    @property
    def stddev(self):
        return self.rate.reciprocal()

    @property
    def variance(self):
        return self.rate.pow(-2)

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        return self.rate.new_empty(tuple(shape)).exponential_() / self.rate

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 1 - (-self.rate * value).exp()

    def icdf(self, value):
        return -(-value).log1p() / self.rate

    def entropy(self):
        return 1.0 - self.rate.log()
