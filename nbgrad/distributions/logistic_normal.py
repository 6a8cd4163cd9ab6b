"""The logistic-normal distribution on the simplex."""

from ..tensor import Size
from . import constraints
from .distribution import Distribution
from .independent import Independent
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import StickBreakingTransform


class LogisticNormal(TransformedDistribution):
    """A normal vector of mean ``loc`` and standard deviations ``scale`` (independent
    coordinates), ``K`` long, mapped onto the simplex of ``K + 1`` probabilities by
    ``StickBreakingTransform``: ``log(X / (1 - X.cumsum(-1)))[..., :-1]`` of a sample ``X``
    is that normal vector. Scalar parameters give ``K = 1``.

    Example::

        >>> import nbgrad
        >>> from nbgrad.distributions.logistic_normal import LogisticNormal
        >>> _ = nbgrad.manual_seed(0)
        >>> m = LogisticNormal(nbgrad.zeros(3), nbgrad.ones(3))
        >>> m.sample()
        tensor([0.6088, 0.1062, 0.0290, 0.2560])
        >>> m.log_prob(nbgrad.tensor([0.1, 0.2, 0.3, 0.4]))
        tensor(2.4740)
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        base_dist = Normal(loc, scale, validate_args=validate_args)
        if not base_dist.batch_shape:
            base_dist = base_dist.expand([1])
        # (TransformedDistribution's construction, spelled out: the normal's last batch dim
        # becomes its event dim, which the transform lengthens by one)
        self.base_dist = Independent(base_dist, 1)
        self.transforms = [StickBreakingTransform()]
        shape = self.transforms[0].forward_shape(tuple(base_dist.batch_shape))
        Distribution.__init__(self, shape[:-1], shape[-1:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LogisticNormal, _instance)
        batch_shape = Size(batch_shape)
        new.base_dist = self.base_dist.expand(batch_shape)  # (an Independent: same batch)
        new.transforms = self.transforms
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def loc(self):
        return self.base_dist.base_dist.loc

    @property
    def scale(self):
        return self.base_dist.base_dist.scale
