"""The gamma distribution."""

from .. import dtypes as _dt
from ..creation import as_tensor
from ..ops.compound import xlogy
from ..ops.elementwise import digamma, lgamma, log
from ..ops.gamma_sampling import _standard_gamma
from ..ops.special_functions import special_gammainc
from ..tensor import Size
from . import constraints
from .exp_family import ExponentialFamily
from .utils import batch_shape_of, broadcast_all


class Gamma(ExponentialFamily):
    """The gamma distribution of shape ``concentration`` and ``rate`` (the inverse scale).
    Samples are reparameterized (``rsample``): their gradient with respect to
    ``concentration`` is the implicit one of PyTorch's ``_standard_gamma``.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> m = nbgrad.distributions.Gamma(nbgrad.tensor([2.0]), nbgrad.tensor([1.0]))
        >>> m.sample()
        tensor([4.5526])
        >>> m.log_prob(nbgrad.tensor([1.0]))
        tensor([-1.])
    """

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        super().__init__(batch_shape_of((concentration, rate), self.concentration),
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(Gamma, batch_shape, _instance, ("concentration", "rate"))

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        value = _standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        # (in place on the data, unrecorded: a gradient passes as if unclamped, as PyTorch's)
        value.detach().clamp_(min=_dt.finfo(value.dtype).tiny)
        return value

    def log_prob(self, value):
        value = as_tensor(value, dtype=self.rate.dtype, device=self.rate.device)
        if self._validate_args:
            self._validate_sample(value)
        return (xlogy(self.concentration, self.rate) + xlogy(self.concentration - 1, value)
                - self.rate * value - lgamma(self.concentration))

    def entropy(self):
        return (self.concentration - log(self.rate) + lgamma(self.concentration)
                + (1.0 - self.concentration) * digamma(self.concentration))

    @property
    def _natural_params(self):
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return lgamma(x + 1) + (x + 1) * log(-y.reciprocal())

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return special_gammainc(self.concentration, self.rate * value)
