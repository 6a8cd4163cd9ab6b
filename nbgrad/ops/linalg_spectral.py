"""What is computed from singular values (or a symmetric matrix's eigenvalues):
``linalg.pinv matrix_rank lstsq cond`` and the spectral and nuclear matrix norms, composed
of the decomposition rows (ops/linalg_decomp.py), so they differentiate through them."""


import numpy as np

from .. import dtypes as _dt
from .. import return_types as RT
from ..amp.policy import autocast_op
from ._core import SCALAR_TYPE, check_tensor
from .elementwise import add, div, mul, sub
from .funcdef import deffunc, surface
from .linalg import matmul
from .linalg_decomp import _eigh, finite_for_svd, svdvals
from .linalg_solve import _square, host_lapack, mT
from .shape import unsqueeze


def _host_value(v):
    """A tolerance argument on the host: None, a number, or a tensor's values."""
    if v is None or not hasattr(v, "shape"):
        return v
    from .index import _host

    return np.asarray(_host(v), np.float64)


def _tolerance(s, atol, rtol, m, n):
    """PyTorch's cut-off for "zero" singular values ``s`` (host, descending or not):
    ``max(atol, rtol * largest)``, ``rtol = eps * max(m, n)`` when it is not given (0 when
    a positive ``atol`` is); a tensor ``atol`` / ``rtol`` holds one value per matrix."""
    atol, rtol = _host_value(atol), _host_value(rtol)
    if rtol is None:
        positive = atol is not None and np.all(np.asarray(atol) > 0)
        rtol = 0.0 if positive else np.finfo(s.dtype).eps * max(m, n)
    per_matrix = lambda v: np.asarray(v)[..., None] if np.ndim(v) else v  # noqa: E731
    largest = s.max(-1, keepdims=True) if s.shape[-1] else np.zeros(s.shape[:-1] + (1,))
    tol = largest * per_matrix(rtol)
    return tol if atol is None else np.maximum(tol, per_matrix(atol))


def _spectrum(h, hermitian):
    """The singular values of host matrices ``h`` (their eigenvalues' magnitudes if
    ``hermitian``)."""
    if hermitian:
        return np.abs(_eigh(h, "L")[0])
    finite_for_svd(h)
    return np.linalg.svd(h, compute_uv=False)


def _pinv(h, atol, rtol, hermitian):
    m, n = h.shape[-2], h.shape[-1]
    if hermitian:
        w, v = np.linalg.eigh(h)
        keep = np.abs(w) > _tolerance(np.abs(w), atol, rtol, m, n)
        inv_w = np.where(keep, 1.0 / np.where(keep, w, 1.0), 0.0)
        return (v * inv_w[..., None, :]) @ np.swapaxes(v, -1, -2)
    finite_for_svd(h)
    u, s, vh = np.linalg.svd(h, full_matrices=False)
    keep = s > _tolerance(s, atol, rtol, m, n)
    inv_s = np.where(keep, 1.0 / np.where(keep, s, 1.0), 0.0)
    return (np.swapaxes(vh, -1, -2) * inv_s[..., None, :]) @ np.swapaxes(u, -1, -2)


def _pinv_shape(s, *args):
    return tuple(s[:-2]) + (s[-1], s[-2])


PINV = deffunc("pinv", kernels=(), forward=host_lapack(_pinv, _pinv_shape),
               args=("atol", "rtol", "hermitian"), dtype=lambda dt, *args: dt, shape=_pinv_shape,
               node="LinalgPinvBackward0", grads=("pinv_backward(grad, result, input)",),
               fn=False, method=False)


def pinv_backward(grad, pinvA, A):
    """PyTorch's ``pinv_backward``: the derivative of the pseudo-inverse at constant rank
    (the products ordered so that the smaller of m, n is inner)."""
    m, n = A.shape[-2], A.shape[-1]
    pinvAh, gradh = mT(pinvA), mT(grad)
    if m <= n:
        K = matmul(gradh, pinvA)
        KpinvAh = matmul(K, pinvAh)
        return add(sub(sub(KpinvAh, mT(matmul(pinvA, K))), matmul(matmul(A, pinvA), KpinvAh)),
                   matmul(matmul(pinvAh, pinvA), sub(gradh, matmul(K, A))))
    K = matmul(pinvA, gradh)
    pinvAhK = matmul(pinvAh, K)
    return add(sub(matmul(matmul(sub(gradh, matmul(A, K)), pinvA), pinvAh),
                   mT(matmul(K, pinvA))),
               sub(pinvAhK, matmul(matmul(pinvAhK, pinvA), A)))


@surface(PINV)
def pinv(A, *, atol=None, rtol=None, hermitian=False):
    """The Moore-Penrose pseudo-inverse of each matrix of ``A`` (..., m, n), from its
    singular values above ``max(atol, rtol * largest)`` (default ``rtol``: eps * max(m, n));
    ``hermitian``: of a symmetric matrix, from its eigenvalues (its lower triangle read).

    Example::

        >>> import nbgrad
        >>> nbgrad.linalg.pinv(nbgrad.tensor([[1.0, 0.0], [0.0, 0.0]]))
        tensor([[1., 0.],
                [0., 0.]])
    """
    check_tensor(A, "linalg.pinv")
    if A.ndim < 2 or not A.dtype.is_floating_point or A._dtype.low:
        raise RuntimeError(f"linalg.pinv({SCALAR_TYPE[A._dtype.name]}{{{list(A.shape)}}}): "
                           "expected a tensor with 2 or more dimensions of float, double, "
                           "cfloat or cdouble types")
    return PINV.call(A, atol, rtol, bool(hermitian))


@autocast_op("pinverse")
def pinverse(input, rcond=1e-15):
    """The pseudo-inverse (Moore-Penrose inverse) of a matrix, or of each matrix of a batch:
    PyTorch's older name of ``nbgrad.linalg.pinv``.

    Computed from the singular value decomposition; singular values below ``rcond`` times
    the largest one are taken as 0.

    Args:
        input (Tensor): a matrix or a batch of them, of shape :math:`(*, m, n)`, of a
            floating-point dtype.
        rcond (float, optional): the relative tolerance (``linalg.pinv``'s ``rtol``).
            Default: ``1e-15``.

    Returns:
        Tensor: of shape :math:`(*, n, m)`.

    Example::

        >>> import nbgrad
        >>> nbgrad.pinverse(nbgrad.tensor([[1.0, 0.0], [0.0, 0.0]]))
        tensor([[1., 0.],
                [0., 0.]])
        >>> nbgrad.pinverse(nbgrad.tensor([[1.0, 2.0]]))
        tensor([[0.2000],
                [0.4000]])
    """
    return pinv(input, rtol=rcond)


def matrix_rank(A, *, atol=None, rtol=None, hermitian=False):
    """The number of singular values of each matrix of ``A`` above ``max(atol, rtol *
    largest)`` (default ``rtol``: eps * max(m, n)), as int64.

    Example::

        >>> import nbgrad
        >>> nbgrad.linalg.matrix_rank(nbgrad.tensor([[1.0, 2.0], [2.0, 4.0]]))
        tensor(1)
    """
    check_tensor(A, "linalg.matrix_rank")
    if A.ndim < 2:
        raise RuntimeError("torch.linalg.matrix_rank: The input tensor input must have at "
                           "least 2 dimensions.")
    from ..creation import tensor

    s = _spectrum(_host_value(A).astype(A._dtype.np), hermitian)
    rank = (s > _tolerance(s, atol, rtol, A.shape[-2], A.shape[-1])).sum(-1)
    return tensor(rank, dtype=_dt.int64, device=A.device)


_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


@autocast_op("linalg_lstsq")
def lstsq(A, B, rcond=None, *, driver=None):
    """The least-squares solutions ``X`` minimizing ``||A X - B||`` for each matrix of ``A``
    (..., m, n) and ``B`` (..., m, k) or (..., m): ``(solution, residuals, rank,
    singular_values)``, the last three as LAPACK's ``driver`` gives them (default
    ``"gelsy"``: residuals and singular values empty; ``"gelsd"`` / ``"gelss"``: the
    squared residuals when m > n and A has full rank, and the singular values).

    Example::

        >>> import nbgrad
        >>> A = nbgrad.tensor([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
        >>> nbgrad.linalg.lstsq(A, nbgrad.tensor([[1.0], [2.0], [3.0]])).solution
        tensor([[1.],
                [2.]])
    """
    from ..creation import empty, tensor

    check_tensor(A, "linalg.lstsq")
    check_tensor(B, "linalg.lstsq")
    driver = "gelsy" if driver is None else driver
    if driver not in _DRIVERS:
        raise RuntimeError("torch.linalg.lstsq: parameter `driver` should be one of (gels, "
                           "gelsy, gelsd, gelss)")
    if A.ndim < 2:
        raise RuntimeError("torch.linalg.lstsq: input must have at least 2 dimensions.")
    if not (A.ndim >= B.ndim and A.ndim - B.ndim <= 1):
        raise RuntimeError("torch.linalg.lstsq: input.dim() must be greater or equal to "
                           "other.dim() and (input.dim() - other.dim()) <= 1")
    if A.dtype is not B.dtype:
        raise RuntimeError(f"torch.linalg.lstsq: Expected input and other to have the same "
                           f"dtype, but got input's dtype {SCALAR_TYPE[A._dtype.name]} and "
                           f"other's dtype {SCALAR_TYPE[B._dtype.name]}")
    vector = B.ndim == A.ndim - 1
    Bm = unsqueeze(B, -1) if vector else B
    if Bm.shape[-2] != A.shape[-2]:
        raise RuntimeError("torch.linalg.lstsq: input.size(-2) should match other.size(-2)")
    m, n = A.shape[-2], A.shape[-1]
    X = matmul(pinv(A, rtol=rcond), Bm)
    s = _spectrum(_host_value(A).astype(A._dtype.np), False)
    rank = (s > _tolerance(s, None, rcond, m, n)).sum(-1)
    nothing = empty((0,), dtype=A.dtype, device=A.device)
    residuals = nothing  # (differentiable, as PyTorch's; the rank and values are not)
    if driver != "gelsy" and m > n and (rank == n).all():
        residuals = matmul(A, X).sub(Bm).square().sum(-2)
    z = dict(dtype=_dt.int64, device=A.device)
    rank = tensor([], **z) if driver == "gels" else tensor(rank, **z)
    sv = tensor(s, dtype=A.dtype, device=A.device) if driver in ("gelsd", "gelss") else nothing
    return RT.linalg_lstsq(X.squeeze(-1) if vector else X, residuals, rank, sv)


def cond(A, p=None):
    """The condition number of each matrix of ``A`` in norm ``p``: ``None`` / ``2`` the
    ratio of its largest to its smallest singular value, ``-2`` the inverse; ``"fro"``,
    ``"nuc"``, ``inf``, ``-inf``, ``1``, ``-1`` (square matrices): ``norm(A) * norm(A^-1)``.

    Example::

        >>> import nbgrad
        >>> nbgrad.linalg.cond(nbgrad.tensor([[2.0, 0.0], [0.0, 0.5]]))
        tensor(4.)
    """
    from ..linalg import matrix_norm
    from .linalg_solve import inv

    check_tensor(A, "linalg.cond")
    inf = float("inf")
    if p in (None, 2, -2):
        if A.ndim < 2:
            raise RuntimeError("linalg.cond: The input tensor A must have at least 2 "
                               "dimensions.")
        S = svdvals(A)
        hi, lo = S.select(-1, 0), S.select(-1, -1)
        return div(lo, hi) if p == -2 else div(hi, lo)
    if p not in ("fro", "nuc", inf, -inf, 1, -1):
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    _square(A, f"cond(ord={p})")
    return mul(matrix_norm(A, p), matrix_norm(inv(A), p))


def spectral_norms(A, ord, d0, d1, keepdim):
    """``matrix_norm`` for ``ord`` 2 (largest singular value), -2 (smallest) or ``"nuc"``
    (their sum), over dims ``d0``, ``d1``."""
    from .rearrange import movedim
    from .reduce import amax, amin

    S = svdvals(movedim(A, (d0, d1), (-2, -1)))
    out = {2: amax, -2: amin, "nuc": lambda s, d: s.sum(d)}[ord](S, -1)
    if keepdim:
        out = unsqueeze(unsqueeze(out, min(d0, d1)), max(d0, d1))
    return out
