"""The Gumbel (type I extreme value) distribution."""

import math
import numbers

from .. import dtypes as _dt
from ..creation import full_like, ones_like
from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, ExpTransform
from .uniform import Uniform
from .utils import broadcast_all

euler_constant = 0.57721566490153286060  # (the Euler-Mascheroni constant)


class Gumbel(TransformedDistribution):
    """The Gumbel distribution of mode ``loc`` and scale ``scale``: the law of the maximum
    of many light-tailed variables, ``loc - scale * log(-log U)`` for a uniform ``U``
    (kept inside (0, 1) by the dtype's smallest steps).

    Example::

        >>> import nbgrad
        >>> from nbgrad.distributions.gumbel import Gumbel
        >>> _ = nbgrad.manual_seed(0)
        >>> m = Gumbel(nbgrad.tensor([1.0]), nbgrad.tensor([2.0]))
        >>> m.sample()
        tensor([1.7115])
        >>> m.log_prob(nbgrad.tensor([1.0])), m.mean
        (tensor([-1.6931]), tensor([2.1544]))
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        fi = _dt.finfo(self.loc.dtype)
        if isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number):
            base_dist = Uniform(fi.tiny, 1 - fi.eps, validate_args=validate_args)
        else:
            base_dist = Uniform(full_like(self.loc, fi.tiny), full_like(self.loc, 1 - fi.eps),
                                validate_args=validate_args)
        # u -> -log u -> log(-log u) -> loc - scale * log(-log u)
        transforms = [ExpTransform().inv, AffineTransform(loc=0, scale=-ones_like(self.scale)),
                      ExpTransform().inv, AffineTransform(loc=loc, scale=-self.scale)]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expand_base(Gumbel, batch_shape, _instance)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        return new

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (self.loc - value) / self.scale
        return (y - y.exp()) - self.scale.log()

    @property
    def mean(self):
        return self.loc + self.scale * euler_constant

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def entropy(self):
        return self.scale.log() + (1 + euler_constant)
