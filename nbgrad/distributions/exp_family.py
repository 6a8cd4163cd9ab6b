"""The base of the exponential-family distributions."""

from ..autograd import grad as _grad
from .distribution import Distribution


class ExponentialFamily(Distribution):
    """A distribution whose density is ``exp(<t(x), theta> - F(theta) + k(x))``: natural
    parameters ``theta`` (``_natural_params``), log normalizer ``F`` (``_log_normalizer``)
    and carrier measure ``k`` (its mean: ``_mean_carrier_measure``). Its default entropy
    is ``F(theta) - <theta, grad F(theta)> - E[k]``, the gradient taken by autograd.
    """

    @property
    def _natural_params(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        result = -self._mean_carrier_measure
        nparams = [p.detach().requires_grad_() for p in self._natural_params]
        lg_normal = self._log_normalizer(*nparams)
        gradients = _grad(lg_normal.sum(), nparams, create_graph=True)
        result = result + lg_normal
        for p, g in zip(nparams, gradients):
            result = result - (p * g).reshape(tuple(self._batch_shape) + (-1,)).sum(-1)
        return result
