"""The generalized Pareto distribution."""

import math
import numbers

from ..creation import ones_like, rand, zeros_like
from ..ops.comparison import isclose
from ..ops.rearrange import broadcast_to
from ..ops.selection import where
from ..tensor import Size
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all


class GeneralizedPareto(Distribution):
    """The generalized Pareto distribution of location ``loc``, scale ``scale`` and shape
    ``concentration`` (xi): the law of the excesses over a high threshold. It is the
    exponential for ``concentration = 0`` (and ``loc = 0``), a Pareto for
    ``concentration > 0`` (and ``loc = scale / concentration``), and uniform for
    ``concentration = -1``; for ``concentration < 0`` its support is bounded above by
    ``loc - scale / concentration``. Sampled by inverting its CDF (as TensorFlow
    Probability's).

    Example::

        >>> import nbgrad
        >>> from nbgrad.distributions.generalized_pareto import GeneralizedPareto
        >>> _ = nbgrad.manual_seed(0)
        >>> m = GeneralizedPareto(nbgrad.tensor([0.1]), nbgrad.tensor([2.0]),
        ...                       nbgrad.tensor([0.4]))
        >>> m.sample()
        tensor([1.6779])
        >>> m.log_prob(nbgrad.tensor([1.0])), m.cdf(nbgrad.tensor([1.0]))
        (tensor([-1.2724]), tensor([0.3389]))
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive,
                       "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        scalar = all(isinstance(v, numbers.Number) for v in (loc, scale, concentration))
        batch_shape = Size() if scalar else self.loc.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(GeneralizedPareto, batch_shape, _instance,
                              ("loc", "scale", "concentration"))

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        u = rand(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.icdf(u)

    def _z(self, x):
        return (x - self.loc) / self.scale

    def _safe_concentration(self):
        """Whether the concentration is (close to) 0, and the concentration with those
        replaced by 1 (so that the branch not taken stays finite)."""
        eq_zero = isclose(self.concentration, zeros_like(self.concentration))
        return eq_zero, where(eq_zero, ones_like(self.concentration), self.concentration)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero, safe_conc = self._safe_concentration()
        y = 1 / safe_conc + ones_like(z)
        where_nonzero = where(y == 0, y, y * (safe_conc * z).log1p())
        log_scale = (math.log(self.scale) if isinstance(self.scale, numbers.Real)
                     else self.scale.log())
        return -log_scale - where(eq_zero, z, where_nonzero)

    def log_survival_function(self, value):
        """``log(1 - cdf(value))``."""
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero, safe_conc = self._safe_concentration()
        where_nonzero = -(safe_conc * z).log1p() / safe_conc
        return where(eq_zero, -z, where_nonzero)

    def log_cdf(self, value):
        """``log(cdf(value))``."""
        return (-self.log_survival_function(value).exp()).log1p()

    def cdf(self, value):
        return self.log_cdf(value).exp()

    def icdf(self, value):
        loc, scale = self.loc, self.scale
        eq_zero, safe_conc = self._safe_concentration()
        logu = (-value).log1p()
        where_nonzero = loc + scale / safe_conc * (-safe_conc * logu).expm1()
        where_zero = loc - scale * logu
        return where(eq_zero, where_zero, where_nonzero)

    @property
    def mean(self):
        valid = self.concentration < 1  # (infinite otherwise: NaN, as PyTorch's)
        safe_conc = where(valid, self.concentration, 0.5)
        return where(valid, self.loc + self.scale / (1 - safe_conc), math.nan)

    @property
    def variance(self):
        valid = self.concentration < 0.5
        safe_conc = where(valid, self.concentration, 0.25)
        result = self.scale**2 / ((1 - safe_conc) ** 2 * (1 - 2 * safe_conc))
        return where(valid, result, math.nan)

    def entropy(self):
        ans = self.scale.log() + self.concentration + 1
        return broadcast_to(ans, tuple(self._batch_shape))

    @property
    def mode(self):
        return self.loc

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        lower = self.loc
        upper = where(self.concentration < 0, lower - self.scale / self.concentration,
                      math.inf)
        return constraints.interval(lower, upper)
