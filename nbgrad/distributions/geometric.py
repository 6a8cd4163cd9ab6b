"""The geometric distribution: failures before the first success."""

import numbers

from .. import dtypes as _dt
from ..autograd.grad_mode import no_grad
from ..nn import functional as F
from ..tensor import Size
from . import constraints
from .distribution import Distribution
from .utils import BinaryProbsLogits, broadcast_all


class Geometric(BinaryProbsLogits, Distribution):
    """The number of failures before the first success of Bernoulli trials that succeed
    with probability ``probs`` (or ``sigmoid(logits)``).

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> nbgrad.distributions.Geometric(nbgrad.tensor([0.3])).sample()
        tensor([1.])
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
        else:
            (self.logits,) = broadcast_all(logits)
        given = probs if probs is not None else logits
        batch_shape = Size() if isinstance(given, numbers.Number) else given.size()
        super().__init__(batch_shape, validate_args=validate_args)
        if self._validate_args and probs is not None:
            value = self.probs
            valid = value > 0
            if not bool(valid.all()):
                raise ValueError(
                    f"Expected parameter probs ({type(value).__name__} of shape "
                    f"{tuple(value.shape)}) of distribution {self!r} to be positive but "
                    f"found invalid values:\n{value.detach()[~valid]}")

    def expand(self, batch_shape, _instance=None):
        return self._expanded(Geometric, batch_shape, _instance, ("probs", "logits"))

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        return self.probs.new_zeros(tuple(self.probs.shape))

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        tiny = _dt.finfo(self.probs.dtype).tiny
        with no_grad():
            u = self.probs.new_empty(tuple(shape)).uniform_(tiny, 1)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        probs = probs.clone()
        probs[(probs == 1) & (value == 0)] = 0
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self):
        return F.binary_cross_entropy_with_logits(self.logits, self.probs,
                                                  reduction="none") / self.probs
