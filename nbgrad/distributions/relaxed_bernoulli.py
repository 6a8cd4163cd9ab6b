"""The relaxed (Concrete, Gumbel-softmax) Bernoulli distribution and its logit."""

import numbers

from ..creation import rand
from ..tensor import Size
from . import constraints
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import SigmoidTransform
from .utils import BinaryProbsLogits, broadcast_all, clamp_probs


class LogitRelaxedBernoulli(BinaryProbsLogits, Distribution):
    """The logit of a ``RelaxedBernoulli`` variable of ``temperature`` and ``probs`` (or
    ``logits``; give one of them): ``(logit(U) + logits) / temperature`` for a uniform
    ``U``. (Maddison et al., *The Concrete Distribution*, 2017; Jang et al.,
    *Categorical Reparametrization with Gumbel-Softmax*, 2017.)

    Example::

        >>> import nbgrad
        >>> from nbgrad.distributions.relaxed_bernoulli import LogitRelaxedBernoulli
        >>> _ = nbgrad.manual_seed(0)
        >>> m = LogitRelaxedBernoulli(nbgrad.tensor(0.5), logits=nbgrad.tensor([0.0, 1.0]))
        >>> m.sample()
        tensor([-0.0299,  4.3966])
        >>> m.log_prob(nbgrad.tensor([0.0, 1.0]))
        tensor([-2.0794, -2.1413])
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self.temperature = temperature
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
        new = self._expanded(LogitRelaxedBernoulli, batch_shape, _instance, ("probs", "logits"))
        new.temperature = self.temperature
        new._param = new.__dict__.get("probs", new.__dict__.get("logits"))
        return new

    @property
    def param_shape(self):
        return self._param.size()

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        probs = clamp_probs(self.probs.expand(shape))
        uniforms = clamp_probs(rand(shape, dtype=probs.dtype, device=probs.device))
        return (uniforms.log() - (-uniforms).log1p() + probs.log() - (-probs).log1p()
                ) / self.temperature

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        diff = logits - value.mul(self.temperature)
        return self.temperature.log() + diff - 2 * diff.exp().log1p()


class RelaxedBernoulli(TransformedDistribution):
    """A continuous relaxation of ``Bernoulli(probs)`` (or of ``logits``; give one of them)
    on (0, 1): the sigmoid of a ``LogitRelaxedBernoulli`` of ``temperature``. Samples are
    reparameterized; they approach 0 or 1 as the temperature goes to zero.

    Example::

        >>> import nbgrad
        >>> from nbgrad.distributions.relaxed_bernoulli import RelaxedBernoulli
        >>> _ = nbgrad.manual_seed(0)
        >>> m = RelaxedBernoulli(nbgrad.tensor([2.2]), nbgrad.tensor([0.1, 0.2, 0.3, 0.99]))
        >>> m.sample()
        tensor([0.2679, 0.4786, 0.1907, 0.7743])
        >>> m.log_prob(nbgrad.tensor([0.5, 0.5, 0.5, 0.5]))
        tensor([-0.2332,  0.3422,  0.6141, -2.4405])
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base_dist = LogitRelaxedBernoulli(temperature, probs, logits)
        super().__init__(base_dist, SigmoidTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_base(RelaxedBernoulli, batch_shape, _instance)

    @property
    def temperature(self):
        return self.base_dist.temperature

    @property
    def logits(self):
        return self.base_dist.logits

    @property
    def probs(self):
        return self.base_dist.probs
