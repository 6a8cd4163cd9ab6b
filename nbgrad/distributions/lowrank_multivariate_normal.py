"""The multivariate normal distribution of a low-rank-plus-diagonal covariance."""

import math

from .. import linalg
from ..creation import eye
from ..ops.rearrange import broadcast_tensors, diag_embed
from ..tensor import Size
from . import constraints
from .distribution import Distribution
from .multivariate_normal import _batch_mahalanobis, _batch_mv
from .utils import lazy_property, standard_normal


def _batch_capacitance_tril(W, D):
    """The Cholesky factor of the capacitance ``C = I + W^T D^-1 W`` (``m x m`` for a rank
    ``m`` factor ``W``), over the batch dims."""
    m = W.shape[-1]
    Wt_Dinv = W.mT / D.unsqueeze(-2)
    K = Wt_Dinv @ W + eye(m, dtype=W.dtype, device=W.device)
    return linalg.cholesky(K)


def _batch_lowrank_logdet(W, D, capacitance_tril):
    """``log det(W W^T + D)`` by the matrix determinant lemma: ``log det C + log det D``."""
    return 2 * capacitance_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1) + D.log().sum(-1)


def _batch_lowrank_mahalanobis(W, D, x, capacitance_tril):
    """``x^T (W W^T + D)^-1 x`` by the Woodbury identity,
    ``(W W^T + D)^-1 = D^-1 - D^-1 W C^-1 W^T D^-1``: only the capacitance ``C`` is
    factored."""
    Wt_Dinv = W.mT / D.unsqueeze(-2)
    Wt_Dinv_x = _batch_mv(Wt_Dinv, x)
    mahalanobis_term1 = (x.pow(2) / D).sum(-1)
    mahalanobis_term2 = _batch_mahalanobis(capacitance_tril, Wt_Dinv_x)
    return mahalanobis_term1 - mahalanobis_term2


class LowRankMultivariateNormal(Distribution):
    """The normal distribution over vectors of mean ``loc`` and covariance
    ``cov_factor @ cov_factor.mT + diag(cov_diag)``: ``cov_factor`` is ``n x m`` (with
    ``m`` often much smaller than ``n``), ``cov_diag`` positive of length ``n``, each with
    optional batch dims. Densities and entropies factor only the ``m x m`` capacitance
    matrix ``I + cov_factor^T diag(cov_diag)^-1 cov_factor`` (the Woodbury identity and the
    matrix determinant lemma), never the ``n x n`` covariance.

    Example::

        >>> import nbgrad
        >>> from nbgrad.distributions.lowrank_multivariate_normal import (
        ...     LowRankMultivariateNormal)
        >>> _ = nbgrad.manual_seed(0)
        >>> m = LowRankMultivariateNormal(nbgrad.zeros(2), nbgrad.tensor([[1.0], [0.0]]),
        ...                               nbgrad.ones(2))
        >>> m.sample()
        tensor([ 1.2476, -2.1788])
        >>> m.log_prob(nbgrad.tensor([0.5, 0.5])), m.entropy()
        (tensor(-2.3720), tensor(3.1845))
    """

    arg_constraints = {"loc": constraints.real_vector,
                       "cov_factor": constraints.independent(constraints.real, 2),
                       "cov_diag": constraints.independent(constraints.positive, 1)}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, cov_factor, cov_diag, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        event_shape = Size(tuple(loc.shape[-1:]))
        if cov_factor.dim() < 2:
            raise ValueError("cov_factor must be at least two-dimensional, with optional "
                             "leading batch dimensions")
        if tuple(cov_factor.shape[-2:-1]) != tuple(event_shape):
            raise ValueError(f"cov_factor must be a batch of matrices with shape "
                             f"{event_shape[0]} x m")
        if tuple(cov_diag.shape[-1:]) != tuple(event_shape):
            raise ValueError(f"cov_diag must be a batch of vectors with shape {event_shape}")
        try:
            loc_, self.cov_factor, cov_diag_ = broadcast_tensors(
                loc.unsqueeze(-1), cov_factor, cov_diag.unsqueeze(-1))
        except RuntimeError as e:
            raise ValueError(f"Incompatible batch shapes: loc {loc.shape}, cov_factor "
                             f"{cov_factor.shape}, cov_diag {cov_diag.shape}") from e
        self.loc = loc_[..., 0]
        self.cov_diag = cov_diag_[..., 0]
        batch_shape = self.loc.shape[:-1]
        self._unbroadcasted_cov_factor = cov_factor
        self._unbroadcasted_cov_diag = cov_diag
        self._capacitance_tril = _batch_capacitance_tril(cov_factor, cov_diag)
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LowRankMultivariateNormal, _instance)
        batch_shape = Size(batch_shape)
        loc_shape = tuple(batch_shape) + tuple(self.event_shape)
        new.loc = self.loc.expand(loc_shape)
        new.cov_diag = self.cov_diag.expand(loc_shape)
        new.cov_factor = self.cov_factor.expand(loc_shape + tuple(self.cov_factor.shape[-1:]))
        new._unbroadcasted_cov_factor = self._unbroadcasted_cov_factor
        new._unbroadcasted_cov_diag = self._unbroadcasted_cov_diag
        new._capacitance_tril = self._capacitance_tril
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _batch_event_event(self):
        return tuple(self._batch_shape) + tuple(self._event_shape) * 2

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        return (self._unbroadcasted_cov_factor.pow(2).sum(-1)
                + self._unbroadcasted_cov_diag).expand(
            tuple(self._batch_shape) + tuple(self._event_shape))

    @lazy_property
    def scale_tril(self):
        # (W W^T + D = D^1/2 (I + D^-1/2 W W^T D^-1/2) D^1/2: factor the middle term)
        n = self._event_shape[0]
        cov_diag_sqrt = self._unbroadcasted_cov_diag.sqrt().unsqueeze(-1)
        Dinvsqrt_W = self._unbroadcasted_cov_factor / cov_diag_sqrt
        K = Dinvsqrt_W @ Dinvsqrt_W.mT + eye(n, dtype=Dinvsqrt_W.dtype,
                                              device=Dinvsqrt_W.device)
        return (cov_diag_sqrt * linalg.cholesky(K)).expand(self._batch_event_event())

    @lazy_property
    def covariance_matrix(self):
        W = self._unbroadcasted_cov_factor
        return (W @ W.mT + diag_embed(self._unbroadcasted_cov_diag)).expand(
            self._batch_event_event())

    @lazy_property
    def precision_matrix(self):
        Wt_Dinv = self._unbroadcasted_cov_factor.mT / self._unbroadcasted_cov_diag.unsqueeze(-2)
        A = linalg.solve_triangular(self._capacitance_tril, Wt_Dinv, upper=False)
        precision = diag_embed(self._unbroadcasted_cov_diag.reciprocal()) - A.mT @ A
        return precision.expand(self._batch_event_event())

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        W_shape = tuple(shape[:-1]) + tuple(self.cov_factor.shape[-1:])
        eps_W = standard_normal(W_shape, dtype=self.loc.dtype, device=self.loc.device)
        eps_D = standard_normal(shape, dtype=self.loc.dtype, device=self.loc.device)
        return (self.loc + _batch_mv(self._unbroadcasted_cov_factor, eps_W)
                + self._unbroadcasted_cov_diag.sqrt() * eps_D)

    def _log_det(self):
        return _batch_lowrank_logdet(self._unbroadcasted_cov_factor,
                                     self._unbroadcasted_cov_diag, self._capacitance_tril)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        M = _batch_lowrank_mahalanobis(self._unbroadcasted_cov_factor,
                                       self._unbroadcasted_cov_diag, diff,
                                       self._capacitance_tril)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + self._log_det() + M)

    def entropy(self):
        H = 0.5 * (self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._log_det())
        if len(self._batch_shape) == 0:
            return H
        return H.expand(tuple(self._batch_shape))
