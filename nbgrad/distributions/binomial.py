"""The binomial distribution."""

from ..autograd.grad_mode import no_grad
from ..creation import arange
from ..ops.elementwise import exp, lgamma, log1p
from ..ops.gamma_sampling import binomial as _binomial
from ..tensor import Size
from . import constraints
from .distribution import Distribution
from .utils import BinaryProbsLogits, count_and_param


def _clamp_by_zero(x):
    # max(x, 0) whose gradient at 0 is 1/2 (PyTorch's)
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


class Binomial(BinaryProbsLogits, Distribution):
    """The number of successes in ``total_count`` independent trials, each a success with
    probability ``probs`` (or ``sigmoid(logits)``): give one of them.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> m = nbgrad.distributions.Binomial(100, nbgrad.tensor([0, 0.2, 0.8, 1]))
        >>> m.sample()
        tensor([  0.,  20.,  78., 100.])
    """

    arg_constraints = {"total_count": constraints.nonnegative_integer,
                       "probs": constraints.unit_interval, "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        count_and_param(self, total_count, probs, logits)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expanded(Binomial, batch_shape, _instance,
                             ("total_count", "probs", "logits"))
        new._param = new.__dict__.get("probs", new.__dict__.get("logits"))
        return new

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def mode(self):
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    @property
    def param_shape(self):
        return self._param.size()

    def sample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        with no_grad():
            return _binomial(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_factorial_n = lgamma(self.total_count + 1)
        log_factorial_k = lgamma(value + 1)
        log_factorial_nmk = lgamma(self.total_count - value + 1)
        # (log(1 + exp(logits)) * n, stable for either sign of the logits)
        normalize_term = (self.total_count * _clamp_by_zero(self.logits)
                          + self.total_count * log1p(exp(-self.logits.abs()))
                          - log_factorial_n)
        return value * self.logits - log_factorial_k - log_factorial_nmk - normalize_term

    def _homogeneous_count(self, what):
        total_count = int(self.total_count.max())
        if not self.total_count.min() == total_count:
            raise NotImplementedError(f"Inhomogeneous total count not supported by `{what}`.")
        return total_count

    def entropy(self):
        self._homogeneous_count("entropy")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(exp(log_prob) * log_prob).sum(0)

    def enumerate_support(self, expand=True):
        total_count = self._homogeneous_count("enumerate_support")
        values = arange(1 + total_count, dtype=self._param.dtype, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values
