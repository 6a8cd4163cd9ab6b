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
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .chi2 import Chi2
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .fishersnedecor import FisherSnedecor
from .gamma import Gamma
from .geometric import Geometric
from .independent import Independent
from .inverse_gamma import InverseGamma
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .mixture_same_family import MixtureSameFamily
from .multinomial import Multinomial
from .multivariate_normal import MultivariateNormal
from .negative_binomial import NegativeBinomial
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .poisson import Poisson
from .studentT import StudentT
from .transformed_distribution import HalfNormal, LogNormal, TransformedDistribution
from .uniform import Uniform

__all__ = ["Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2", "Dirichlet",
           "Distribution", "Exponential", "ExponentialFamily", "FisherSnedecor", "Gamma",
           "Geometric", "HalfNormal", "Independent", "InverseGamma", "Laplace", "LogNormal",
           "MixtureSameFamily", "Multinomial", "MultivariateNormal", "NegativeBinomial",
           "Normal", "OneHotCategorical", "Poisson", "StudentT", "TransformedDistribution",
           "Uniform", "constraints", "kl_divergence", "register_kl", "transforms"]
