"""``nbgrad.distributions``: PyTorch's ``torch.distributions`` — parameterizable probability
distributions with sampling (reparameterized where PyTorch's is: gradients flow through
``rsample``), densities, moments and KL divergences, built of nbgrad ops so gradients reach
the parameters. After ``manual_seed`` the samples are PyTorch's for the same seed.

Example::

    >>> import nbgrad
    >>> from nbgrad.distributions import Categorical
    >>> logits = nbgrad.zeros(4, requires_grad=True)
    >>> m = Categorical(logits=logits)
    >>> loss = -m.log_prob(nbgrad.tensor(2))
    >>> loss.backward()
    >>> logits.grad
    tensor([ 0.2500,  0.2500, -0.7500,  0.2500])
"""

from . import constraints, transforms
from .bernoulli import Bernoulli
from .categorical import Categorical
from .cauchy import Cauchy
from .distribution import Distribution
from .exponential import Exponential
from .geometric import Geometric
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .mixture_same_family import MixtureSameFamily
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .poisson import Poisson
from .transformed_distribution import HalfNormal, LogNormal, TransformedDistribution
from .uniform import Uniform

__all__ = ["Bernoulli", "Categorical", "Cauchy", "Distribution", "Exponential", "Geometric",
           "HalfNormal", "Independent", "Laplace", "LogNormal", "MixtureSameFamily",
           "MultivariateNormal", "Normal",
           "OneHotCategorical", "Poisson", "TransformedDistribution", "Uniform", "constraints",
           "kl_divergence", "register_kl", "transforms"]
