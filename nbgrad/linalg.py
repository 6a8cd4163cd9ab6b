"""``nbgrad.linalg``: PyTorch's ``torch.linalg`` norms (``vector_norm``, ``matrix_norm``,
``norm``), composed of the vector-norm row and reductions, so they differentiate as those
do, and ``inv``, ``det``, ``slogdet``, ``solve`` (ops/linalg_solve.py). Decompositions
(``svd``, ``qr``, ``cholesky``, ``eigh``) and the spectral / nuclear matrix norms are not
there yet."""

from .amp.policy import autocast_op
from .ops import reduce as _reduce
from .ops._core import check_tensor
from .ops.linalg_solve import LinAlgError, det, inv, slogdet, solve
from .ops.norm import linalg_vector_norm as vector_norm

__all__ = ["vector_norm", "matrix_norm", "norm", "inv", "det", "slogdet", "solve",
           "LinAlgError"]


def _two_dims(A, dim, fname):
    if A.ndim < 2:
        raise RuntimeError(f"linalg.{fname}: The input tensor A must have at least 2 "
                           "dimensions.")
    d0, d1 = (d % A.ndim for d in dim)
    if d0 == d1:
        raise RuntimeError(f"linalg.{fname}: dims must be different. Got ({dim[0]}, {dim[1]})")
    return d0, d1


@autocast_op("linalg_matrix_norm")
def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """The matrix norm of the matrices in ``dim`` of ``A``: ``"fro"`` (Frobenius), ``1`` /
    ``-1`` (largest / smallest column sum of absolute values), ``inf`` / ``-inf`` (rows).

    Example::

        >>> import nbgrad
        >>> nbgrad.linalg.matrix_norm(nbgrad.tensor([[1.0, -2.0], [3.0, 4.0]]), ord=1)
        tensor(6.)
    """
    check_tensor(A, "linalg.matrix_norm")
    d0, d1 = _two_dims(A, tuple(dim), "matrix_norm")
    if dtype is not None:
        A = A.to(dtype)
    if ord == "fro":
        return vector_norm(A, 2, (d0, d1), keepdim)
    inf = float("inf")
    if ord not in (1, -1, inf, -inf):
        raise NotImplementedError(f"linalg.matrix_norm(ord={ord!r}) is not supported by nbgrad "
                                  "yet (it needs a singular value decomposition)")
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
