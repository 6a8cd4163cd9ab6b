"""The continuous Bernoulli distribution."""

import math
import numbers

from ..autograd.grad_mode import no_grad
from ..creation import ones_like, rand, zeros_like
from ..nn import functional as F
from ..ops.selection import where
from ..tensor import Size
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, clamp_probs, lazy_property, logits_to_probs, probs_to_logits


class ContinuousBernoulli(Distribution):
    """The continuous Bernoulli distribution on [0, 1], of density proportional to
    ``probs ** x * (1 - probs) ** (1 - x)``, given by ``probs`` in (0, 1) or by
    ``logits`` (one of them). Unlike the Bernoulli's, ``probs`` is not a probability nor
    ``logits`` a log-odds. Near ``probs = 1/2`` (within ``lims``) the normalizer, the
    moments and the CDF are taken from Taylor expansions, which are stable there.
    (Loaiza-Ganem and Cunningham, *The continuous Bernoulli: fixing a pervasive error in
    variational autoencoders*, 2019.)

    Example::

        >>> import nbgrad
        >>> from nbgrad.distributions.continuous_bernoulli import ContinuousBernoulli
        >>> _ = nbgrad.manual_seed(0)
        >>> m = ContinuousBernoulli(nbgrad.tensor([0.3, 0.5]))
        >>> m.sample()
        tensor([0.3936, 0.7682])
        >>> m.log_prob(nbgrad.tensor([0.2, 0.2])), m.mean
        (tensor([0.2245, 0.0000]), tensor([0.4302, 0.5000]))
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            is_scalar = isinstance(probs, numbers.Number)
            (self.probs,) = broadcast_all(probs)
            # (PyTorch checks probs whenever validate_args is given, even as False, then
            # clamps them into the open interval)
            if validate_args is not None and not bool(
                    self.arg_constraints["probs"].check(self.probs).all()):
                raise ValueError("The parameter probs has invalid values")
            self.probs = clamp_probs(self.probs)
        else:
            is_scalar = isinstance(logits, numbers.Number)
            (self.logits,) = broadcast_all(logits)
        self._param = self.probs if probs is not None else self.logits
        batch_shape = Size() if is_scalar else self._param.size()
        self._lims = lims
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expanded(ContinuousBernoulli, batch_shape, _instance, ("probs", "logits"))
        new._lims = self._lims
        new._param = new.__dict__.get("logits", new.__dict__.get("probs"))
        return new

    def _outside_unstable_region(self):
        return self.probs.le(self._lims[0]).logical_or(self.probs.gt(self._lims[1]))

    def _cut_probs(self):
        """``probs``, with those in the unstable region replaced by ``lims[0]`` (so that the
        branch not taken stays finite)."""
        return where(self._outside_unstable_region(), self.probs,
                     self._lims[0] * ones_like(self.probs))

    def _cont_bern_log_norm(self):
        """The log normalizer as a function of ``probs``."""
        cut_probs = self._cut_probs()
        below_half = where(cut_probs.le(0.5), cut_probs, zeros_like(cut_probs))
        above_half = where(cut_probs.ge(0.5), cut_probs, ones_like(cut_probs))
        log_norm = ((-cut_probs).log1p() - cut_probs.log()).abs().log() - where(
            cut_probs.le(0.5), (-2.0 * below_half).log1p(), (2.0 * above_half - 1.0).log())
        x = (self.probs - 0.5).pow(2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self):
        cut_probs = self._cut_probs()
        mus = cut_probs / (2.0 * cut_probs - 1.0) + 1.0 / (
            (-cut_probs).log1p() - cut_probs.log())
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x.pow(2)) * x
        return where(self._outside_unstable_region(), mus, taylor)

    @property
    def stddev(self):
        return self.variance.sqrt()

    @property
    def variance(self):
        cut_probs = self._cut_probs()
        variances = cut_probs * (cut_probs - 1.0) / (1.0 - 2.0 * cut_probs).pow(2) + 1.0 / (
            (-cut_probs).log1p() - cut_probs.log()).pow(2)
        x = (self.probs - 0.5).pow(2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return where(self._outside_unstable_region(), variances, taylor)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    @property
    def param_shape(self):
        return self._param.size()

    def sample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        u = rand(shape, dtype=self.probs.dtype, device=self.probs.device)
        with no_grad():
            return self.icdf(u)

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        u = rand(shape, dtype=self.probs.dtype, device=self.probs.device)
        return self.icdf(u)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return (-F.binary_cross_entropy_with_logits(logits, value, reduction="none")
                + self._cont_bern_log_norm())

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        cut_probs = self._cut_probs()
        cdfs = (cut_probs.pow(value) * (1.0 - cut_probs).pow(1.0 - value) + cut_probs - 1.0
                ) / (2.0 * cut_probs - 1.0)
        unbounded_cdfs = where(self._outside_unstable_region(), cdfs, value)
        return where(value.le(0.0), zeros_like(value),
                     where(value.ge(1.0), ones_like(value), unbounded_cdfs))

    def icdf(self, value):
        cut_probs = self._cut_probs()
        return where(self._outside_unstable_region(),
                     ((-cut_probs + value * (2.0 * cut_probs - 1.0)).log1p()
                      - (-cut_probs).log1p()) / (cut_probs.log() - (-cut_probs).log1p()),
                     value)

    def entropy(self):
        log_probs0 = (-self.probs).log1p()
        log_probs1 = self.probs.log()
        return self.mean * (log_probs0 - log_probs1) - self._cont_bern_log_norm() - log_probs0

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        """The log normalizer as a function of the natural parameter ``x`` (the logits)."""
        outside = x.le(self._lims[0] - 0.5).logical_or(x.gt(self._lims[1] - 0.5))
        cut_nat_params = where(outside, x, (self._lims[0] - 0.5) * ones_like(x))
        log_norm = cut_nat_params.expm1().abs().log() - cut_nat_params.abs().log()
        taylor = 0.5 * x + x.pow(2) / 24.0 - x.pow(4) / 2880.0
        return where(outside, log_norm, taylor)
