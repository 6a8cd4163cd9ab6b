"""The Wishart distribution over symmetric positive-definite matrices."""

import math
import warnings

from .. import dtypes as _dt
from .. import linalg
from .._torch_names import broadcast_shapes
from ..autograd.function import Function
from ..creation import arange, eye, randn, tensor, tril_indices
from ..ops.elementwise import digamma, sum_to
from ..ops.linalg_decomp import cholesky_solve
from ..special import multigammaln
from ..tensor import Size
from . import constraints
from .chi2 import Chi2
from .exp_family import ExponentialFamily
from .multivariate_normal import _precision_to_scale_tril
from .utils import lazy_property

__all__ = ["Wishart"]

_LOG_2 = math.log(2)


def _mvdigamma(x, p):
    """The multivariate digamma function of dimension ``p``: the sum of
    ``digamma(x - i / 2)`` over ``i < p`` (the derivative of ``mvlgamma(x, p)``)."""
    if not bool(x.gt((p - 1) / 2).all()):
        raise AssertionError("Wrong domain for multivariate digamma function.")
    halves = arange(p, dtype=x.dtype, device=x.device).div(2)
    return digamma(x.unsqueeze(-1) - halves.expand(tuple(x.shape) + (-1,))).sum(-1)


class _CholeskySolve(Function):
    """``cholesky_solve(B, L)`` with PyTorch's gradient for ``L``: that of ``(L L^T)^-1 B``
    taken over all of ``L``, its upper triangle too (nbgrad's op, two triangular solves,
    gives that triangle none), so that the gradients of the scale are PyTorch's."""

    @staticmethod
    def forward(ctx, B, L):
        X = cholesky_solve(B, L)
        ctx.save_for_backward(B, L, X)
        return X

    @staticmethod
    def backward(ctx, grad):
        B, L, X = ctx.saved_tensors
        grad_B = cholesky_solve(grad, L)
        grad_L = None
        if ctx.needs_input_grad[1]:
            common = grad_B @ X.mT
            grad_L = sum_to(-((common + common.mT) @ L), tuple(L.shape))
        return sum_to(grad_B, tuple(B.shape)) if ctx.needs_input_grad[0] else None, grad_L


def _chi2_of_bartlett(df, p, batch_shape, like):
    """The chi-squared distribution of the Bartlett factor's squared diagonal: ``df - i``
    degrees of freedom for row ``i``."""
    rows = arange(p, dtype=like.dtype, device=like.device).expand(tuple(batch_shape) + (-1,))
    return Chi2(df=df.unsqueeze(-1) - rows)


class Wishart(ExponentialFamily):
    r"""The Wishart distribution of ``df`` degrees of freedom over symmetric positive-definite
    matrices, of scale :math:`\Sigma` given as ``covariance_matrix``, ``precision_matrix``
    (:math:`\Sigma^{-1}`) or the lower Cholesky factor ``scale_tril`` of
    :math:`\Sigma = L L^\top` (exactly one of them; ``scale_tril`` is used as it is, the
    others through a Cholesky factorization). ``df`` must exceed the dimension less one.

    Samples are drawn by the Bartlett decomposition and reparameterized (``rsample``), with
    PyTorch's correction loop: as in PyTorch 2.13 it warns ``Singular sample detected.`` and
    draws again the samples that pass the positive-definite check (not those that fail it),
    so that a seed gives PyTorch's matrices. ``LKJCholesky`` is a restricted Wishart.

    Example::

        >>> import warnings
        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> W = nbgrad.distributions.Wishart
        >>> m = W(nbgrad.tensor(4.0), covariance_matrix=nbgrad.eye(2))
        >>> m.mean
        tensor([[4., 0.],
                [0., 4.]])
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")  # (PyTorch's warning, on every draw)
        ...     m.sample()
        tensor([[0.8693, 0.9903],
                [0.9903, 2.1458]])
        >>> m.log_prob(nbgrad.eye(2))
        tensor(-4.2242)
    """

    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self):
        return {"covariance_matrix": constraints.positive_definite,
                "precision_matrix": constraints.positive_definite,
                "scale_tril": constraints.lower_cholesky,
                "df": constraints.greater_than(self.event_shape[-1] - 1)}

    def __init__(self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        if (covariance_matrix is not None) + (scale_tril is not None) + (
                precision_matrix is not None) != 1:
            raise AssertionError("Exactly one of covariance_matrix or precision_matrix or "
                                 "scale_tril may be specified.")
        given = next(m for m in (covariance_matrix, precision_matrix, scale_tril)
                     if m is not None)
        if given.dim() < 2:
            raise ValueError("scale_tril must be at least two-dimensional, with optional "
                             "leading batch dimensions")
        if isinstance(df, (bool, int, float)):
            batch_shape = Size(given.shape[:-2])
            # (a number stays a 0-dim tensor, not expanded to the batch: PyTorch's, whose
            # mean, mode and variance then fail for batched matrices)
            self.df = tensor(df, dtype=given.dtype, device=given.device)
        else:
            batch_shape = broadcast_shapes(given.shape[:-2], df.shape)
            self.df = df.expand(batch_shape)
        event_shape = Size(given.shape[-2:])
        p = event_shape[-1]
        if bool(self.df.le(p - 1).any()):
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = {p - 1}.")
        full = tuple(batch_shape) + (-1, -1)
        if scale_tril is not None:
            self.scale_tril = given.expand(full)
        elif covariance_matrix is not None:
            self.covariance_matrix = given.expand(full)
        else:
            self.precision_matrix = given.expand(full)
        if bool(self.df.lt(p).any()):
            warnings.warn("Low df values detected. Singular samples are highly likely to "
                          "occur for ndim - 1 < df < ndim.", stacklevel=2)
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        self._batch_dims = [-(k + 1) for k in range(len(self._batch_shape))]
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)
        self._dist_chi2 = _chi2_of_bartlett(self.df, p, batch_shape,
                                            self._unbroadcasted_scale_tril)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Wishart, _instance)
        batch_shape = Size(batch_shape)
        cov_shape = tuple(batch_shape) + tuple(self.event_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril.expand(cov_shape)
        new.df = self.df.expand(batch_shape)
        new._batch_dims = [-(k + 1) for k in range(len(batch_shape))]
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(cov_shape))
        new._dist_chi2 = _chi2_of_bartlett(new.df, self.event_shape[-1], batch_shape,
                                           new._unbroadcasted_scale_tril)
        super(Wishart, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(
            tuple(self._batch_shape) + tuple(self._event_shape))

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return (L @ L.mT).expand(tuple(self._batch_shape) + tuple(self._event_shape))

    @lazy_property
    def precision_matrix(self):
        L = self._unbroadcasted_scale_tril
        identity = eye(self._event_shape[-1], dtype=L.dtype, device=L.device)
        return _CholeskySolve.apply(identity, L).expand(
            tuple(self._batch_shape) + tuple(self._event_shape))

    @property
    def mean(self):
        return self.df.view(tuple(self._batch_shape) + (1, 1)) * self.covariance_matrix

    @property
    def mode(self):
        factor = self.df - self.covariance_matrix.shape[-1] - 1
        factor[factor <= 0] = math.nan
        return factor.view(tuple(self._batch_shape) + (1, 1)) * self.covariance_matrix

    @property
    def variance(self):
        V = self.covariance_matrix
        d = V.diagonal(dim1=-2, dim2=-1)
        return self.df.view(tuple(self._batch_shape) + (1, 1)) * (
            V.pow(2) + d.unsqueeze(-1) * d.unsqueeze(-2))

    def _bartlett_sampling(self, sample_shape=Size()):
        """``L A A^T L^T`` for the Bartlett factor ``A``: chi-distributed diagonal (kept at
        least eps), standard normal entries below it (drawn after the diagonal, PyTorch's
        order)."""
        p = self._event_shape[-1]
        diag = self._dist_chi2.rsample(sample_shape).sqrt()
        noise = diag.clamp(min=_dt.finfo(diag.dtype).eps).diag_embed(dim1=-2, dim2=-1)
        i, j = tril_indices(p, p, offset=-1)
        noise[..., i, j] = randn(tuple(sample_shape) + tuple(self._batch_shape)
                                 + (p * (p - 1) // 2,), dtype=noise.dtype, device=noise.device)
        chol = self._unbroadcasted_scale_tril @ noise
        return chol @ chol.mT

    def rsample(self, sample_shape=Size(), max_try_correction=None):
        """Reparameterized samples by the Bartlett decomposition, then PyTorch 2.13's
        correction: the samples it flags are drawn again (up to ``max_try_correction``
        times, 10 by default) until none is flagged.

        .. warning::
            PyTorch's flag is the positive-definite check itself, so its warning
            ``Singular sample detected.`` comes with every valid sample and those are drawn
            a second time, while singular ones are kept (a ``log_prob`` of ``-inf``).
            nbgrad does the same so that samples for a seed are PyTorch's.
        """
        if max_try_correction is None:
            max_try_correction = 10
        sample_shape = Size(sample_shape)
        sample = self._bartlett_sampling(sample_shape)
        flagged = self.support.check(sample)
        if self._batch_shape:
            flagged = flagged.amax(self._batch_dims)
        if bool(flagged.any()):
            warnings.warn("Singular sample detected.", stacklevel=2)
            for _ in range(max_try_correction):
                redrawn = self._bartlett_sampling(flagged[flagged].shape)
                sample[flagged] = redrawn
                still = ~self.support.check(redrawn)
                if self._batch_shape:
                    still = still.amax(self._batch_dims)
                flagged[flagged.clone()] = still
                if not bool(flagged.any()):
                    break
        return sample

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        nu = self.df
        p = self._event_shape[-1]
        L = self._unbroadcasted_scale_tril
        half_log_det = L.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        trace = _CholeskySolve.apply(value, L).diagonal(dim1=-2, dim2=-1).sum(dim=-1)
        return (-nu * (p * _LOG_2 / 2 + half_log_det) - multigammaln(nu / 2, p)
                + (nu - p - 1) / 2 * linalg.slogdet(value).logabsdet - trace / 2)

    def entropy(self):
        nu = self.df
        p = self._event_shape[-1]
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return ((p + 1) * (p * _LOG_2 / 2 + half_log_det) + multigammaln(nu / 2, p)
                - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p) + nu * p / 2)

    @property
    def _natural_params(self):
        p = self._event_shape[-1]
        return -self.precision_matrix / 2, (self.df - p - 1) / 2

    def _log_normalizer(self, x, y):
        p = self._event_shape[-1]
        return (y + (p + 1) / 2) * (-linalg.slogdet(-2 * x).logabsdet + _LOG_2 * p) \
            + multigammaln(y + (p + 1) / 2, p)
