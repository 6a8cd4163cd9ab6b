"""``nbgrad.linalg``: PyTorch's ``torch.linalg`` norms (``vector_norm``, ``matrix_norm``,
``norm``), composed of the vector-norm row, reductions and singular values, so they
differentiate as those do; ``inv``, ``det``, ``slogdet``, ``solve`` (ops/linalg_solve.py);
the decompositions ``cholesky qr eigh svd`` and ``solve_triangular`` (ops/linalg_decomp.py)
and what is computed from them (ops/linalg_spectral.py); LU (ops/linalg_lu.py), with the
``*_ex`` forms that report failures in ``info``; ``householder_product``
(ops/linalg_householder.py)."""

from . import return_types as _RT
from .amp.policy import autocast_op
from .ops import reduce as _reduce
from .ops._core import check_tensor
from .ops.compound import cross as _cross
from .ops.linalg import matmul
from .ops.linalg_compose import matrix_exp, tensorinv, tensorsolve, vander
from .ops.linalg_decomp import (
    cholesky,
    cholesky_ex,
    eigh,
    eigvalsh,
    qr,
    solve_triangular,
    svd,
    svdvals,
)
from .ops.linalg_householder import householder_product
from .ops.linalg_lu import inv_ex, lu, lu_factor, lu_factor_ex, lu_solve, solve_ex
from .ops.linalg_solve import LinAlgError, det, inv, matrix_power, solve
from .ops.linalg_solve import slogdet as _slogdet
from .ops.linalg_spectral import cond, lstsq, matrix_rank, pinv, spectral_norms
from .ops.norm import linalg_vector_norm as vector_norm
from .ops.strided import diagonal as _diagonal
from .tensor import _wrap_dim

__all__ = ["vector_norm", "matrix_norm", "norm", "inv", "det", "slogdet", "solve",
           "LinAlgError", "cholesky", "eigh", "eigvalsh", "qr", "solve_triangular", "svd",
           "svdvals", "cond", "lstsq", "matrix_rank", "pinv", "matmul", "matrix_power",
           "multi_dot", "vecdot", "diagonal", "cross", "matrix_exp", "vander", "tensorinv",
           "tensorsolve", "lu", "lu_factor", "lu_factor_ex", "lu_solve", "cholesky_ex", "inv_ex",
           "solve_ex", "householder_product"]


def slogdet(A):
    """The sign and the log of the absolute determinant of square matrices ``A``
    :math:`(*, n, n)`: :func:`nbgrad.slogdet`'s, as PyTorch's named tuple
    ``linalg_slogdet(sign, logabsdet)``.

    Example::

        >>> import nbgrad
        >>> nbgrad.linalg.slogdet(nbgrad.tensor([[1.0, 2.0], [3.0, 4.0]]))
        nbgrad.return_types.linalg_slogdet(
        sign=tensor(-1.),
        logabsdet=tensor(0.6931))
    """
    return _RT.linalg_slogdet(*_slogdet(A))


def multi_dot(tensors):
    """The product of a chain of matrices; the first may be a vector (a row) and the last
    a vector (a column).

    Example::

        >>> import nbgrad
        >>> nbgrad.linalg.multi_dot([nbgrad.ones(2, 3), nbgrad.ones(3, 4), nbgrad.ones(4)])
        tensor([12., 12.])
    """
    tensors = list(tensors)
    if len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    for i, t in enumerate(tensors):
        check_tensor(t, "linalg.multi_dot")
        inner = 0 < i < len(tensors) - 1
        if t.ndim != 2 and (inner or t.ndim != 1):
            where = "first" if i == 0 else ("last" if not inner else None)
            raise RuntimeError(
                f"multi_dot(): the {where} tensor must be 1D or 2D but got {t.ndim}D"
                if where else
                f"multi_dot(): tensor {i} must be 2D but got {t.ndim}D")
    out = tensors[0]
    for t in tensors[1:]:
        out = matmul(out, t)
    return out


def vecdot(x, y, *, dim=-1):
    """The dot products of the vectors of ``x`` and ``y`` along ``dim`` (broadcast).

    Example::

        >>> import nbgrad
        >>> nbgrad.linalg.vecdot(nbgrad.tensor([[1.0, 2.0]]), nbgrad.tensor([3.0, 4.0]))
        tensor([11.])
    """
    return (x * y).sum(dim)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """``torch.diagonal`` with the last two dims as default.

    Example::

        >>> import nbgrad
        >>> nbgrad.linalg.diagonal(nbgrad.eye(2))
        tensor([1., 1.])
    """
    return _diagonal(A, offset, dim1, dim2)


def cross(input, other, *, dim=-1):
    """``torch.cross`` along ``dim`` (default the last).

    Example::

        >>> import nbgrad
        >>> nbgrad.linalg.cross(nbgrad.tensor([1.0, 0.0, 0.0]), nbgrad.tensor([0.0, 1.0, 0.0]))
        tensor([0., 0., 1.])
    """
    return _cross(input, other, dim)


def _two_dims(A, dim, fname):
    if A.ndim < 2:
        raise RuntimeError(f"linalg.{fname}: The input tensor A must have at least 2 "
                           "dimensions.")
    if len(dim) != 2:
        raise RuntimeError(f"linalg.{fname}: dim must be a 2-tuple. Got "
                           f"{' '.join(map(str, dim))}")
    d0, d1 = (_wrap_dim(d, A.ndim) for d in dim)
    if d0 == d1:
        raise RuntimeError(f"linalg.{fname}: dims must be different. Got ({dim[0]}, {dim[1]})")
    return d0, d1


@autocast_op("linalg_matrix_norm")
def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """The matrix norm of the matrices in ``dim`` of ``A``: ``"fro"`` (Frobenius), ``1`` /
    ``-1`` (largest / smallest column sum of absolute values), ``inf`` / ``-inf`` (rows),
    ``2`` / ``-2`` (largest / smallest singular value), ``"nuc"`` (their sum).

    Example::

        >>> import nbgrad
        >>> nbgrad.linalg.matrix_norm(nbgrad.tensor([[1.0, -2.0], [3.0, 4.0]]), ord=1)
        tensor(6.)
    """
    check_tensor(A, "linalg.matrix_norm")
    if isinstance(dim, int):
        raise TypeError("linalg_matrix_norm(): argument 'dim' must be tuple of ints, not int")
    d0, d1 = _two_dims(A, tuple(dim), "matrix_norm")
    if dtype is not None:
        A = A.to(dtype)
    if ord == "fro":
        return vector_norm(A, 2, (d0, d1), keepdim)
    if ord in (2, -2, "nuc"):
        return spectral_norms(A, ord, d0, d1, keepdim)
    inf = float("inf")
    if ord not in (1, -1, inf, -inf):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    summed, kept = (d0, d1) if ord in (1, -1) else (d1, d0)  # column sums, then over columns
    sums = A.abs().sum(summed, keepdim=True)
    pick = _reduce.amax if ord > 0 else _reduce.amin
    out = pick(sums, kept, keepdim=True)
    if not keepdim:
        out = out.squeeze(max(d0, d1)).squeeze(min(d0, d1))
    return out


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """PyTorch's ``linalg.norm``: with ``dim`` an int (or ``ord=None`` and no ``dim``) a
    vector norm (of the flattened input when ``dim`` is None), with ``dim`` a pair or a 2-d
    input and an ``ord``, a matrix norm.

    Example::

        >>> import nbgrad
        >>> nbgrad.linalg.norm(nbgrad.tensor([3.0, 4.0]))
        tensor(5.)
    """
    check_tensor(A, "linalg.norm")
    if isinstance(dim, int):
        dim = (dim,)
    if dim is not None and len(dim) == 2 and ord is not None:
        return matrix_norm(A, ord, dim, keepdim, dtype=dtype)
    if ord is None:
        return vector_norm(A, 2, dim, keepdim, dtype=dtype)
    if dim is None:
        if A.ndim == 2:
            return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype)
        if A.ndim != 1:
            raise RuntimeError("linalg.norm: If dim is not specified but ord is, the input must "
                               f"be 1D or 2D. Got {A.ndim}D.")
    return vector_norm(A, ord, dim, keepdim, dtype=dtype)
