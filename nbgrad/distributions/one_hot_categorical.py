"""The categorical distribution with one-hot samples."""

from ..nn import functional as F
from ..tensor import Size
from . import constraints
from .categorical import Categorical
from .distribution import Distribution


class OneHotCategorical(Distribution):
    """``Categorical``'s distribution, its samples one-hot vectors of ``K`` entries.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> m = nbgrad.distributions.OneHotCategorical(nbgrad.tensor([0.25, 0.25, 0.25, 0.25]))
        >>> m.sample()
        tensor([0., 0., 1., 0.])
    """

    arg_constraints = {"probs": constraints.simplex,
                       "logits": constraints.independent(constraints.real, 1)}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(OneHotCategorical, _instance)
        batch_shape = Size(batch_shape)
        new._categorical = self._categorical.expand(batch_shape)
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def _param(self):
        return self._categorical._param

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def mean(self):
        return self._categorical.probs

    @property
    def mode(self):
        probs = self._categorical.probs
        return F.one_hot(probs.argmax(dim=-1), probs.shape[-1]).to(probs)

    @property
    def variance(self):
        return self._categorical.probs * (1 - self._categorical.probs)

    @property
    def param_shape(self):
        return self._categorical.param_shape

    def sample(self, sample_shape=Size()):
        probs = self._categorical.probs
        indices = self._categorical.sample(sample_shape)
        return F.one_hot(indices, probs.shape[-1]).to(probs)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        indices = value.max(-1)[1]
        return self._categorical.log_prob(indices)

    def entropy(self):
        return self._categorical.entropy()


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """``OneHotCategorical`` whose ``rsample`` passes gradients straight through: the sample
    is one-hot, its gradient that of the probabilities (Bengio et al., 2013).

    Example::

        >>> import nbgrad
        >>> from nbgrad.distributions import OneHotCategoricalStraightThrough
        >>> p = nbgrad.tensor([0.2, 0.8], requires_grad=True)
        >>> _ = nbgrad.manual_seed(0)
        >>> s = OneHotCategoricalStraightThrough(probs=p).rsample()
        >>> (s * nbgrad.tensor([1.0, 2.0])).sum().backward()
        >>> s.detach(), p.grad  # (the gradient through normalized probabilities)
        (tensor([0., 1.]), tensor([-0.8000,  0.2000]))
    """

    has_rsample = True

    def rsample(self, sample_shape=()):
        samples = self.sample(sample_shape)
        probs = self._categorical.probs
        return samples + (probs - probs.detach())
