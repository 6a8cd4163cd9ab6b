"""The two-parameter Weibull distribution."""

from ..creation import ones_like
from ..tensor import Size
from . import constraints
from .exponential import Exponential
from .gumbel import euler_constant
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, PowerTransform
from .utils import broadcast_all


class Weibull(TransformedDistribution):
    """The Weibull distribution of scale ``scale`` (lambda) and shape ``concentration``
    (k): ``scale * E ** (1 / concentration)`` for a standard exponential ``E``.

    Example::

        >>> import nbgrad
        >>> from nbgrad.distributions.weibull import Weibull
        >>> _ = nbgrad.manual_seed(0)
        >>> m = Weibull(nbgrad.tensor([1.0]), nbgrad.tensor([1.5]))
        >>> m.sample()
        tensor([2.3089])
        >>> m.log_prob(nbgrad.tensor([0.5])), m.mean
        (tensor([-0.2947]), tensor([0.9027]))
    """

    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive

    def __init__(self, scale, concentration, validate_args=None):
        self.scale, self.concentration = broadcast_all(scale, concentration)
        self.concentration_reciprocal = self.concentration.reciprocal()
        base_dist = Exponential(ones_like(self.scale), validate_args=validate_args)
        super().__init__(base_dist, self._transforms(), validate_args=validate_args)

    def _transforms(self):
        return [PowerTransform(exponent=self.concentration_reciprocal),
                AffineTransform(loc=0, scale=self.scale)]

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Weibull, _instance)
        new.scale = self.scale.expand(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        new.concentration_reciprocal = new.concentration.reciprocal()
        base_dist = self.base_dist.expand(Size(batch_shape))
        TransformedDistribution.__init__(new, base_dist, new._transforms(), validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.scale * (1 + self.concentration_reciprocal).lgamma().exp()

    @property
    def mode(self):
        k = self.concentration
        return self.scale * ((k - 1) / k) ** k.reciprocal()

    @property
    def variance(self):
        return self.scale.pow(2) * ((1 + 2 * self.concentration_reciprocal).lgamma().exp()
                                    - (2 * (1 + self.concentration_reciprocal).lgamma()).exp())

    def entropy(self):
        return (euler_constant * (1 - self.concentration_reciprocal)
                + (self.scale * self.concentration_reciprocal).log() + 1)
