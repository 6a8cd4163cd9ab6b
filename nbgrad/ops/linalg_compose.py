"""``torch.linalg`` functions composed of other ops (so every device, derivatives of any
order): ``matrix_exp`` (scaling and squaring with a degree-13 Padé approximant, Higham's
algorithm), ``vander``, ``tensorinv``, ``tensorsolve``."""

import math

import numpy as np

from ._core import check_tensor
from .concat import cat
from .index import _host
from .linalg import matmul
from .linalg_solve import _square, inv, solve
from .scan import cumprod

# Higham (2005): the Padé [13/13] coefficients, and the largest 1-norm for which it is
# accurate to the double unit roundoff (larger norms are scaled down by powers of two)
_PADE13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0,
           1187353796428800.0, 129060195264000.0, 10559470521600.0, 670442572800.0,
           33522128640.0, 1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0, 1.0)
_THETA13 = 5.371920351148152


def matrix_exp(A):
    r"""The matrix exponential of a square matrix (or of each matrix of a batch):
    :math:`e^A = \sum_{k=0}^\infty A^k / k!`.

    Computed, as PyTorch does, by a Padé approximant of :math:`A / 2^s`, squared :math:`s`
    times (:math:`s` chosen from the largest 1-norm in the batch). ``nbgrad.linalg.matrix_exp``
    and ``nbgrad.matrix_exp`` are this function.

    Args:
        A (Tensor): a square matrix or a batch of them, of shape :math:`(*, n, n)`, of a
            floating-point dtype.

    Returns:
        Tensor: of ``A``'s shape.

    Example::

        >>> import nbgrad
        >>> nbgrad.linalg.matrix_exp(nbgrad.tensor([[0.0, 1.0], [0.0, 0.0]]))
        tensor([[1., 1.],
                [0., 1.]])
        >>> nbgrad.matrix_exp(nbgrad.tensor([[1.0, 0.0], [0.0, 2.0]]))
        tensor([[2.7183, 0.0000],
                [0.0000, 7.3891]])
    """
    _square(A, "matrix_exp")
    n = A.shape[-1]
    if n == 0 or A.numel() == 0:
        return A.clone()
    norm = float(np.max(np.abs(_host(A)).sum(-2), initial=0.0))
    s = max(0, math.ceil(math.log2(norm / _THETA13))) if norm > _THETA13 else 0
    X = A / (2.0 ** s) if s else A
    from ..creation import eye

    ident = eye(n, dtype=A.dtype, device=A.device).expand(tuple(A.shape))
    b = _PADE13
    X2 = matmul(X, X)
    X4 = matmul(X2, X2)
    X6 = matmul(X4, X2)
    U = matmul(X, matmul(X6, b[13] * X6 + b[11] * X4 + b[9] * X2)
               + b[7] * X6 + b[5] * X4 + b[3] * X2 + b[1] * ident)
    V = matmul(X6, b[12] * X6 + b[10] * X4 + b[8] * X2) + b[6] * X6 + b[4] * X4 \
        + b[2] * X2 + b[0] * ident
    R = solve(V - U, V + U)
    for _ in range(s):
        R = matmul(R, R)
    return R


def vander(x, *, N=None):
    """The Vandermonde matrices of ``x`` (*, n): (*, n, N) with columns ``x^0, x^1, ...,
    x^(N-1)`` (increasing powers; ``N`` defaults to n).

    Example::

        >>> import nbgrad
        >>> nbgrad.linalg.vander(nbgrad.tensor([1, 2, 3]))
        tensor([[1, 1, 1],
                [1, 2, 4],
                [1, 3, 9]])
    """
    check_tensor(x, "linalg.vander")
    if x.ndim < 1:
        raise RuntimeError("linalg.vander: x must have at least one dimension")
    n = x.shape[-1] if N is None else int(N)
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    col = x.unsqueeze(-1)
    powers = cumprod(col.expand(tuple(x.shape) + (n - 1,)), -1)
    return cat([col.new_ones(tuple(col.shape)), powers], -1)


def tensorinv(A, ind=2):
    """The inverse of ``A`` read as a linear map from its last ``A.ndim - ind`` dims to its
    first ``ind``: the result, of shape ``A.shape[ind:] + A.shape[:ind]``, contracted with
    ``A`` over ``ind`` dims gives the identity.

    Example::

        >>> import nbgrad
        >>> A = nbgrad.eye(4).reshape(4, 2, 2) * 2
        >>> tuple(nbgrad.linalg.tensorinv(A, ind=1).shape)
        (2, 2, 4)
    """
    check_tensor(A, "linalg.tensorinv")
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    rows, cols = math.prod(A.shape[:ind]), math.prod(A.shape[ind:])
    if rows != cols:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {cols} != {rows}")
    return inv(A.reshape(rows, cols)).reshape(tuple(A.shape[ind:]) + tuple(A.shape[:ind]))


def tensorsolve(A, B, dims=None):
    """The ``X`` of shape ``A.shape[B.ndim:]`` with ``tensordot(A, X, X.ndim) == B``
    (``dims``: dims of ``A`` moved to its end first).

    Example::

        >>> import nbgrad
        >>> A = nbgrad.eye(6).reshape(2, 3, 6)
        >>> nbgrad.linalg.tensorsolve(A, nbgrad.ones(2, 3)).shape
        nbgrad.Size([6])
    """
    check_tensor(A, "linalg.tensorsolve")
    if dims is not None:
        dims = [d % A.ndim for d in dims]
        keep = [d for d in range(A.ndim) if d not in dims]
        A = A.permute(*keep, *dims)
    rest = tuple(A.shape[B.ndim:])
    rows, cols = B.numel(), math.prod(rest)
    if rows != cols:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[other.ndim:]) "
                           f"== prod(self.shape[:other.ndim]), but got {cols} != "
                           f"{math.prod(A.shape[:B.ndim])}")
    return solve(A.reshape(rows, cols), B.reshape(rows)).reshape(rest)
