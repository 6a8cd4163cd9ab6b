"""The LKJ distribution over Cholesky factors of correlation matrices (as PyTorch's, which
follows NumPyro's)."""

import math

from .. import dtypes as _dt
from ..creation import arange, randn
from ..ops.concat import cat
from ..ops.elementwise import lgamma
from ..ops.rearrange import diag_embed
from ..special import multigammaln
from ..tensor import Size
from . import constraints
from .beta import Beta
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    r"""The LKJ distribution over lower Cholesky factors ``L`` of ``dim`` x ``dim``
    correlation matrices, of ``concentration`` :math:`\eta`: the correlation matrix
    :math:`M = L L^\top` has a density proportional to :math:`\det(M)^{\eta - 1}`, so that
    ``concentration == 1`` is uniform over correlation matrices. It is a distribution of the
    factors, not of the matrices (Lewandowski, Kurowicka and Joe's ``LKJCorr``); samples
    come from their onion method (2009, Sec. 3.2), vectorized over rows and over batches of
    concentrations.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> m = nbgrad.distributions.LKJCholesky(3, 0.5)
        >>> L = m.sample()
        >>> L
        tensor([[ 1.0000,  0.0000,  0.0000],
                [ 0.2073,  0.9783,  0.0000],
                [-0.3881, -0.7827,  0.4865]])
        >>> m.log_prob(L)
        tensor(-1.8106)
    """

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if dim < 2:
            raise ValueError(
                f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        batch_shape = self.concentration.size()
        event_shape = Size((dim, dim))
        # The onion method's beta draws of all rows at once: row i (i >= 1) takes
        # Beta(i / 2, eta + (dim - 1 - i) / 2); row 0's draw is unused (its row is e_0).
        marginal_conc = self.concentration + 0.5 * (self.dim - 2)
        offset = arange(self.dim - 1, dtype=self.concentration.dtype,
                        device=self.concentration.device)
        offset = cat([offset.new_zeros((1,)), offset])
        self._beta = Beta(offset + 0.5, marginal_conc.unsqueeze(-1) - 0.5 * offset)
        super().__init__(batch_shape, event_shape, validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(batch_shape)
        new._beta = self._beta.expand(tuple(batch_shape) + (self.dim,))
        super(LKJCholesky, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=Size()):
        # Each row below the first is sqrt(y) times a uniform direction over its first i
        # coordinates, the diagonal completing the row to unit length: the factor is drawn
        # directly, never the correlation matrix.
        y = self._beta.sample(sample_shape).unsqueeze(-1)
        u_normal = randn(self._extended_shape(sample_shape), dtype=y.dtype,
                         device=y.device).tril(-1)
        u_hypersphere = u_normal / u_normal.norm(dim=-1, keepdim=True)
        # (row 0 is all zeros, 0 / 0 above)
        u_hypersphere[..., 0, :].fill_(0.0)
        w = y.sqrt() * u_hypersphere
        # (clamped: rounding could leave 1 - |w|^2 at or below zero)
        tiny = _dt.finfo(w.dtype).tiny
        diag = (1 - (w ** 2).sum(dim=-1)).clamp(min=tiny).sqrt()
        w += diag_embed(diag)
        return w

    def log_prob(self, value):
        # The density of M = L L^T is proportional to det(M)^(eta - 1) = prod L_ii^(2 eta - 2)
        # and the map L -> M has Jacobian prod L_ii^(dim - i) (1-based i, Stan's Cholesky
        # LKJ), so that of L is prod over i >= 2 of L_ii^(2 eta - 2 + dim - i).
        if self._validate_args:
            self._validate_sample(value)
        diag_elems = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = arange(2, self.dim + 1, device=self.concentration.device)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized_log_pdf = (order * diag_elems.log()).sum(dim=-1)
        # The normalizer of Lewandowski et al. (p. 1999): its pi term is dim (dim - 1) / 4
        # log(pi), of which mvlgamma(., dim - 1) holds (dim - 1)(dim - 2) / 4 log(pi).
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        denominator = lgamma(alpha) * dm1
        numerator = multigammaln(alpha - 0.5, dm1)
        pi_constant = 0.5 * dm1 * math.log(math.pi)
        return unnormalized_log_pdf - (pi_constant + numerator - denominator)
