"""The relaxed (Concrete, Gumbel-softmax) one-hot categorical distribution and its log."""

from ..creation import full_like, rand
from ..tensor import Size
from . import constraints
from .categorical import Categorical
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform
from .utils import broadcast_all, clamp_probs


class ExpRelaxedCategorical(Distribution):
    """The log of a ``RelaxedOneHotCategorical`` point of ``temperature`` and ``probs``
    (or ``logits``; give one of them): ``log_softmax((logits + G) / temperature)`` for
    standard Gumbel noise ``G``. (Maddison et al., *The Concrete Distribution*, 2017;
    Jang et al., *Categorical Reparametrization with Gumbel-Softmax*, 2017.)

    Example::

        >>> import nbgrad
        >>> from nbgrad.distributions.relaxed_categorical import ExpRelaxedCategorical
        >>> _ = nbgrad.manual_seed(0)
        >>> m = ExpRelaxedCategorical(nbgrad.tensor(0.5), logits=nbgrad.tensor([0.0, 1.0, 2.0]))
        >>> m.sample()
        tensor([-4.0558, -0.1012, -2.5390])
        >>> m.log_prob(nbgrad.tensor([-1.0, -1.5, -0.7]))
        tensor(-4.7457)
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.real_vector  # (in fact a submanifold of it)
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        self.temperature = temperature
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(ExpRelaxedCategorical, _instance)
        batch_shape = Size(batch_shape)
        new.temperature = self.temperature
        new._categorical = self._categorical.expand(batch_shape)
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def param_shape(self):
        return self._categorical.param_shape

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def probs(self):
        return self._categorical.probs

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        uniforms = clamp_probs(rand(shape, dtype=self.logits.dtype, device=self.logits.device))
        gumbels = -((-(uniforms.log())).log())
        scores = (self.logits + gumbels) / self.temperature
        return scores - scores.logsumexp(dim=-1, keepdim=True)

    def log_prob(self, value):
        K = self._categorical._num_events
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        log_scale = (full_like(self.temperature, float(K)).lgamma()
                     - self.temperature.log().mul(-(K - 1)))
        score = logits - value.mul(self.temperature)
        score = (score - score.logsumexp(dim=-1, keepdim=True)).sum(-1)
        return score + log_scale


class RelaxedOneHotCategorical(TransformedDistribution):
    """A continuous relaxation of ``OneHotCategorical(probs)`` (or of ``logits``; give one
    of them) on the simplex: the ``exp`` of an ``ExpRelaxedCategorical`` of
    ``temperature``. Samples are reparameterized; they approach one-hot vectors as the
    temperature goes to zero.

    Example::

        >>> import nbgrad
        >>> from nbgrad.distributions.relaxed_categorical import RelaxedOneHotCategorical
        >>> _ = nbgrad.manual_seed(0)
        >>> m = RelaxedOneHotCategorical(nbgrad.tensor([2.2]),
        ...                              nbgrad.tensor([0.1, 0.2, 0.3, 0.4]))
        >>> m.sample()
        tensor([0.1911, 0.4083, 0.1791, 0.2215])
        >>> m.log_prob(nbgrad.tensor([0.1, 0.2, 0.3, 0.4]))
        tensor([3.8245])
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base_dist = ExpRelaxedCategorical(temperature, probs, logits,
                                          validate_args=validate_args)
        super().__init__(base_dist, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_base(RelaxedOneHotCategorical, batch_shape, _instance)

    @property
    def temperature(self):
        return self.base_dist.temperature

    @property
    def logits(self):
        return self.base_dist.logits

    @property
    def probs(self):
        return self.base_dist.probs
