"""The Bernoulli distribution."""

import numbers

from ..autograd.grad_mode import no_grad
from ..nn import functional as F
from ..ops.sampling import bernoulli as _bernoulli
from ..tensor import Size
from . import constraints
from .distribution import Distribution
from .utils import BinaryProbsLogits, broadcast_all


class Bernoulli(BinaryProbsLogits, Distribution):
    """1 with probability ``probs`` (or ``sigmoid(logits)``), else 0: give one of them.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> nbgrad.distributions.Bernoulli(probs=nbgrad.tensor([0.3, 0.9])).sample()
        tensor([0., 1.])
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            is_scalar = isinstance(probs, numbers.Number)
            (self.probs,) = broadcast_all(probs)
        else:
            is_scalar = isinstance(logits, numbers.Number)
            (self.logits,) = broadcast_all(logits)
        self._param = self.probs if probs is not None else self.logits
        batch_shape = Size() if is_scalar else self._param.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expanded(Bernoulli, batch_shape, _instance, ("probs", "logits"))
        new._param = new.__dict__.get("probs", new.__dict__.get("logits"))
        return new

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        mode = (self.probs >= 0.5).to(self.probs)
        mode[self.probs == 0.5] = float("nan")
        return mode

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    @property
    def param_shape(self):
        return self._param.size()

    def sample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        with no_grad():
            return _bernoulli(self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -F.binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self):
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")
