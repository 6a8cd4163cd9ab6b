"""The Cauchy distribution."""

import math

from ..tensor import Size
from .distribution import LocationScale


class Cauchy(LocationScale):
    """The Cauchy (Lorentz) distribution of median ``loc`` and half width ``scale``.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> nbgrad.distributions.Cauchy(nbgrad.tensor([0.0]), nbgrad.tensor([1.0])).sample()
        tensor([10.5977])
    """


    def expand(self, batch_shape, _instance=None):
        return self._expanded(Cauchy, batch_shape, _instance, ("loc", "scale"))

    @property
    def mean(self):
        return self.loc.new_full(tuple(self._extended_shape()), math.nan)

    @property
    def variance(self):
        return self.loc.new_full(tuple(self._extended_shape()), math.inf)

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        eps = self.loc.new_empty(tuple(shape)).cauchy_()
        return self.loc + eps * self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -math.log(math.pi) - self.scale.log() - (
            ((value - self.loc) / self.scale) ** 2).log1p()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.loc) / self.scale).atan() / math.pi + 0.5

    def icdf(self, value):
        return ((value - 0.5) * math.pi).tan() * self.scale + self.loc

    def entropy(self):
        return math.log(4 * math.pi) + self.scale.log()
