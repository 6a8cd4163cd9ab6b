"""The negative binomial distribution."""

from ..autograd.grad_mode import no_grad
from ..nn.functional import logsigmoid
from ..ops.elementwise import exp, lgamma, sigmoid
from ..ops.sampling import poisson
from ..tensor import Size
from . import constraints
from .distribution import Distribution
from .gamma import Gamma
from .utils import BinaryProbsLogits, count_and_param, lazy_property


class NegativeBinomial(BinaryProbsLogits, Distribution):
    """The number of successes before ``total_count`` failures in independent trials,
    each a success with probability ``probs`` (or ``sigmoid(logits)``): give one of them.
    Sampled as a Poisson count of a gamma-distributed rate, as PyTorch does.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> m = nbgrad.distributions.NegativeBinomial(5.0, nbgrad.tensor([0.3, 0.7]))
        >>> m.sample()
        tensor([4., 9.])
    """

    arg_constraints = {"total_count": constraints.greater_than_eq(0),
                       "probs": constraints.half_open_interval(0.0, 1.0),
                       "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        count_and_param(self, total_count, probs, logits)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expanded(NegativeBinomial, batch_shape, _instance,
                             ("total_count", "probs", "logits"))
        new._param = new.__dict__.get("probs", new.__dict__.get("logits"))
        return new

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    @property
    def mean(self):
        return self.total_count * exp(self.logits)

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / sigmoid(-self.logits)

    @property
    def param_shape(self):
        return self._param.size()

    @lazy_property
    def _gamma(self):
        return Gamma(concentration=self.total_count, rate=exp(-self.logits),
                     validate_args=False)

    def sample(self, sample_shape=Size()):
        with no_grad():
            return poisson(self._gamma.sample(sample_shape=sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_unnormalized_prob = (self.total_count * logsigmoid(-self.logits)
                                 + value * logsigmoid(self.logits))
        log_normalization = (-lgamma(self.total_count + value) + lgamma(1.0 + value)
                             + lgamma(self.total_count))
        # (no normalization for the zero count of a zero total_count: its probability is 1)
        log_normalization = log_normalization.masked_fill(self.total_count + value == 0.0, 0.0)
        return log_unnormalized_prob - log_normalization
