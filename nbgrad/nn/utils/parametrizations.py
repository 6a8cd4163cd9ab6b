"""Ready-made parametrizations, as ``torch.nn.utils.parametrizations``: ``weight_norm``,
``spectral_norm`` and ``orthogonal``, registered with ``parametrize.register_parametrization``.
"""

from enum import Enum, auto

from ...autograd.grad_mode import no_grad
from ...tensor import Tensor
from ..modules.module import Module
from . import parametrize
from .spectral_norm import _default_dim
from .weight_norm import _norm_except_dim, _weight_norm

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


# ----- orthogonal ------------------------------------------------------------------------------
def _is_orthogonal(Q):
    from ... import allclose, eye, finfo

    n, k = Q.size(-2), Q.size(-1)
    Id = eye(k, dtype=Q.dtype, device=Q.device)
    # loose enough for rounding, tight enough to tell a merely well-conditioned matrix
    eps = 10.0 * n * finfo(Q.dtype).eps
    return allclose(Q.mH @ Q, Id, atol=eps)


def _make_orthogonal(A):
    """The Q of A = QR (A tall), with the signs making diag(R) non-negative."""
    from ... import geqrf, linalg

    X, tau = geqrf(A)
    Q = linalg.householder_product(X, tau)
    # diag(X) is diag(R): flipping Q's columns by its signs makes R's diagonal non-negative
    return Q * X.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


class _Orthogonal(Module):
    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        # complex reflectors cannot carry the n^2 real degrees of freedom of a unitary
        # matrix, and a free tau would not keep the product unitary
        if weight.is_complex() and orthogonal_map == _OrthMaps.householder:
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        from ... import cat, eye, linalg, matrix_exp

        n, k = X.size(-2), X.size(-1)
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            # only the lower triangle is free: n*k - k*(k-1)/2 numbers
            X = X.tril()
            if n != k:
                X = cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mH  # skew-symmetric (skew-Hermitian)
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                Q = matrix_exp(A)
            else:
                # the Cayley retraction (I + A/2)(I - A/2)^{-1}
                Id = eye(n, dtype=A.dtype, device=A.device)
                Q = linalg.solve(Id - 0.5 * A, Id + 0.5 * A)
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = linalg.householder_product(A, tau)
            # the diagonal of X holds signs +-1; as integers it is neither differentiated
            # through nor updated
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            Q = self.base @ Q
        if transposed:
            Q = Q.mT
        return Q

    def right_inverse(self, Q):
        with no_grad():
            return self._right_inverse(Q)

    def _right_inverse(self, Q):
        from ... import cat, geqrf, randn, zeros_like

        if Q.shape != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                             f"Got a tensor of shape {Q.shape}.")
        Q_init = Q
        n, k = Q.size(-2), Q.size(-1)
        transpose = n < k
        if transpose:
            Q = Q.mT
            n, k = k, n
        if not hasattr(self, "base"):
            # without a base only the Householder map has a known inverse (the QR
            # decomposition); the matrix exponential and Cayley maps have none
            if self.orthogonal_map in (_OrthMaps.cayley, _OrthMaps.matrix_exp):
                raise NotImplementedError(
                    "It is not possible to assign to the matrix exponential or the Cayley "
                    "parametrizations when use_trivialization=False.")
            A, tau = geqrf(Q)
            # diag(R) > 0 picks one of the QR decompositions (Q R = (-Q)(-R)); LAPACK's
            # tau is exactly zero where it skipped a reflection, whose sign then flips
            diag = A.diagonal(dim1=-2, dim2=-1)
            diag.sign_()
            diag[tau == 0.0] *= -1
            return A.mT if transpose else A
        if n == k:
            Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)
        else:
            # completed to a square orthogonal matrix with random columns
            N = randn(*(Q.size()[:-2] + (n, n - k)), dtype=Q.dtype, device=Q.device)
            Q = _make_orthogonal(cat([Q, N], dim=-1))
        self.base = Q
        # -Id: the Householder map sends it (its diagonal of signs) to the identity
        neg_Id = zeros_like(Q_init)
        neg_Id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
        return neg_Id


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """Make ``module.<name>`` (a matrix or a batch of matrices, ``(..., m, n)``) orthogonal
    (unitary if complex): orthonormal columns if ``m >= n``, orthonormal rows otherwise.

    ``orthogonal_map`` picks how the original tensor maps to it: ``"matrix_exp"`` (the
    exponential of a skew-symmetric matrix), ``"cayley"`` (the Cayley map
    ``(I + A/2)(I - A/2)^{-1}``) or ``"householder"`` (a product of Householder
    reflectors). Default: ``"matrix_exp"`` for a square or complex matrix, else
    ``"householder"``.

    With ``use_trivialization=True`` (default), a base matrix kept in
    ``module.parametrizations.<name>[0].base`` multiplies the map's result (the dynamic
    trivialization framework); the initial value is then the original tensor if it is
    orthogonal, else the Q of its QR decomposition (completed with random columns when the
    matrix is not square).

    Returns:
        The module, with the parametrization registered.

    Example::

        >>> import nbgrad
        >>> from nbgrad.nn.utils.parametrizations import orthogonal
        >>> m = orthogonal(nbgrad.nn.Linear(3, 5))
        >>> m
        ParametrizedLinear(
          in_features=3, out_features=5, bias=True
          (parametrizations): ModuleDict(
            (weight): ParametrizationList(
              (0): _Orthogonal()
            )
          )
        )
        >>> Q = m.weight
        >>> nbgrad.allclose(Q.T @ Q, nbgrad.eye(3), atol=1e-5)
        True
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    # the 1-d case would be the sphere: left out, as in PyTorch
    if weight.ndim < 2:
        raise ValueError("Expected a matrix or batch of matrices. "
                         f"Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        square = weight.size(-2) == weight.size(-1)
        orthogonal_map = "matrix_exp" if square or weight.is_complex() else "householder"
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", '
                         f'"householder". Got: {orthogonal_map}')
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module


# ----- weight norm -----------------------------------------------------------------------------
class _WeightNorm(Module):
    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return _norm_except_dim(weight, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    """Apply weight normalization to ``module.<name>``: ``w = g * v / ||v||``, the norm
    over every dimension but ``dim`` (over the whole tensor for ``dim=None``). The
    magnitude ``g`` is ``module.parametrizations.<name>.original0`` and the direction ``v``
    ``original1``. A ``state_dict`` of the deprecated ``nn.utils.weight_norm``
    (``<name>_g``, ``<name>_v``) loads into it.

    Args:
        module (Module): containing module.
        name (str, optional): name of the weight parameter. Default: ``"weight"``.
        dim (int, optional): dimension kept by the norm. Default: ``0``.

    Returns:
        The module, with the parametrization registered.

    Example::

        >>> import nbgrad
        >>> from nbgrad.nn.utils.parametrizations import weight_norm
        >>> m = weight_norm(nbgrad.nn.Linear(20, 40), name="weight")
        >>> m
        ParametrizedLinear(
          in_features=20, out_features=40, bias=True
          (parametrizations): ModuleDict(
            (weight): ParametrizationList(
              (0): _WeightNorm()
            )
          )
        )
        >>> m.parametrizations.weight.original0.size()
        nbgrad.Size([40, 1])
        >>> m.parametrizations.weight.original1.size()
        nbgrad.Size([40, 20])
    """
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def compat_hook(state_dict, prefix):
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            original0 = state_dict.pop(g_key)
            original1 = state_dict.pop(v_key)
            state_dict[f"{prefix}parametrizations.{name}.original0"] = original0
            state_dict[f"{prefix}parametrizations.{name}.original1"] = original1

    parametrize._register_load_hook(module, compat_hook)
    return module


# ----- spectral norm ---------------------------------------------------------------------------
class _SpectralNorm(Module):
    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        from .. import functional as F

        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError("Dimension out of range (expected to be in range of "
                             f"[-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but "
                             f"got n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            # (a vector is normalized exactly: nothing to estimate)
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            # start from a good estimate of the singular vectors, not the random ones
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        if weight.ndim <= 1:
            raise AssertionError(
                f"Expected weight to have more than 1 dimension, got {weight.ndim}")
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat, n_power_iterations):
        from ... import mv
        from .. import functional as F

        if weight_mat.ndim <= 1:
            raise AssertionError(
                f"Expected weight_mat to have more than 1 dimension, got {weight_mat.ndim}")
        # u and v are updated in place: whatever shares the buffers (a module replica)
        # sees the new estimate
        with no_grad():
            for _ in range(n_power_iterations):
                self._u.copy_(F.normalize(mv(weight_mat, self._v), dim=0, eps=self.eps))
                self._v.copy_(F.normalize(mv(weight_mat.H, self._u), dim=0, eps=self.eps))

    def forward(self, weight):
        from ... import mv, vdot
        from .. import functional as F

        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        # copies: a later forward's in-place update must not change what this graph saved
        # (two forwards before one backward, as in a GAN's loss)
        u = self._u.clone()
        v = self._v.clone()
        sigma = vdot(u, mv(weight_mat, v))
        return weight / sigma

    def right_inverse(self, value):
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Apply spectral normalization to ``module.<name>``: ``W / sigma(W)``, ``sigma`` the
    largest singular value of ``W`` (reshaped to a matrix with dimension ``dim`` first), or
    ``x / ||x||`` for a vector. ``sigma`` is estimated by the power method on the buffers
    ``module.parametrizations.<name>[0]._u`` and ``_v``: 15 iterations from random vectors
    at registration, then ``n_power_iterations`` at each access in training mode (none in
    eval mode, nor after it: set eval mode before ``remove_parametrizations`` to avoid one
    more).

    Args:
        module (nn.Module): containing module.
        name (str, optional): name of the weight parameter. Default: ``"weight"``.
        n_power_iterations (int, optional): power iterations per access. Default: ``1``.
        eps (float, optional): floor of the norms, for numerical stability.
            Default: ``1e-12``.
        dim (int, optional): the dimension of the outputs. Default: ``0``, except ``1``
            for ``ConvTranspose{1,2,3}d``.

    Returns:
        The module, with the parametrization registered.

    Example::

        >>> import nbgrad
        >>> from nbgrad.nn.utils.parametrizations import spectral_norm
        >>> snm = spectral_norm(nbgrad.nn.Linear(20, 40))
        >>> snm
        ParametrizedLinear(
          in_features=20, out_features=40, bias=True
          (parametrizations): ModuleDict(
            (weight): ParametrizationList(
              (0): _SpectralNorm()
            )
          )
        )
        >>> nbgrad.linalg.matrix_norm(snm.weight, 2).item() < 1.1
        True
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = _default_dim(module)
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
