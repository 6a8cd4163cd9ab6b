"""Matrix decompositions: ``linalg.cholesky``, ``linalg.qr``, ``linalg.eigh``,
``linalg.svd`` and ``linalg.solve_triangular`` as rows, and what is composed of them
(``eigvalsh svdvals pinv matrix_rank lstsq cond cholesky_solve cholesky_inverse`` and the
spectral and nuclear matrix norms). The forward is LAPACK's through NumPy on the host (a
round trip for device tensors); the backward rules are PyTorch's (FunctionsManual.cpp),
written in nbgrad ops, so every order of derivative works."""


import numpy as np

from .. import return_types as RT
from .._warnings import warn_once
from ..amp.policy import autocast_op
from ._core import SCALAR_TYPE, check_tensor
from .elementwise import add, div, mul, sub, sum_to
from .funcdef import deffunc, surface
from .linalg import matmul
from .linalg_solve import LinAlgError, _same_shape, _square, host_lapack, mT
from .rearrange import diag_embed
from .selection import tril, triu
from .shape import unsqueeze
from .strided import diagonal


def _matrices(A, fname, kernel, square=True):
    """PyTorch's checks of a decomposition's input, in its order: matrices (square ones
    if ``square``) of a floating dtype that LAPACK has (none in 16 bits)."""
    if square:
        _square(A, fname)
    else:
        check_tensor(A, f"linalg.{fname}")
        if A.ndim < 2:
            raise RuntimeError(f"linalg.{fname}: The input tensor A must have at least 2 "
                               "dimensions.")
        if not A.dtype.is_floating_point:
            raise RuntimeError(f"linalg.{fname}: Expected a floating point or complex tensor "
                               f"as input. Got {SCALAR_TYPE[A._dtype.name]}")
    if A._dtype.low:
        raise NotImplementedError(f'"{kernel}_{A.device.type}" not implemented for '
                                  f"'{SCALAR_TYPE[A._dtype.name]}'")


# ----- Cholesky: A = L L^H ------------------------------------------------------------------
def _not_positive_definite(h, fname="cholesky"):
    """PyTorch's error: the first leading minor that is not positive-definite (potrf's
    ``info``), in the first batch element that has one."""
    flat = h.reshape(-1, h.shape[-2], h.shape[-1]).astype(np.float64)
    for b, a in enumerate(flat):
        for k in range(1, a.shape[0] + 1):
            try:
                np.linalg.cholesky(a[:k, :k])
            except np.linalg.LinAlgError:
                where = f"(Batch element {b}): " if h.ndim > 2 else ""
                raise LinAlgError(f"linalg.{fname}: {where}The factorization could not be "
                                  "completed because the input is not positive-definite (the "
                                  f"leading minor of order {k} is not positive-definite).")
    raise LinAlgError(f"linalg.{fname}: the input is not positive-definite")


def _cholesky(h, upper):
    try:
        low = np.linalg.cholesky(h)
    except np.linalg.LinAlgError:
        _not_positive_definite(h)
    return np.swapaxes(low, -1, -2) if upper else low


CHOLESKY = deffunc("cholesky", kernels=(), forward=host_lapack(_cholesky, _same_shape),
                   args=("upper",), dtype=lambda dt, upper: dt, shape=_same_shape,
                   node="LinalgCholeskyExBackward0", outputs=("L",),
                   grads=("cholesky_backward(grad, upper, L)",), torch_names={},
                   fn=False, method=False)


def cholesky_backward(gL, upper, L):
    """``L^{-H} sym(tril(L^H gL)) L^{-1}``, where ``sym(X) = (X + tril(X, -1)^H) / 2``."""
    if upper:
        L, gL = mT(L), mT(gL)
    gA = tril(matmul(mT(L), gL))
    gA = mul(add(gA, mT(tril(gA, -1))), 0.5)
    gA = solve_triangular(mT(L), gA, upper=True)
    return solve_triangular(L, gA, upper=False, left=False)


@surface(CHOLESKY)
@autocast_op("linalg_cholesky")
def cholesky(A, *, upper=False):
    """The Cholesky factor of each symmetric positive-definite matrix of ``A`` (..., n, n):
    lower triangular ``L`` with ``A = L L^T`` (``upper=True``: ``U = L^T``). Only the lower
    triangle of ``A`` is read.

    Example::

        >>> import nbgrad
        >>> nbgrad.linalg.cholesky(nbgrad.tensor([[4.0, 2.0], [2.0, 5.0]]))
        tensor([[2., 0.],
                [1., 2.]])
    """
    _matrices(A, "cholesky", "cholesky")
    return CHOLESKY.call(A, bool(upper))


def _potf2(h):
    """LAPACK's unblocked Cholesky (``potf2``, lower) of host matrices ``h`` (*, n, n),
    each as far as it gets: the factor's columns before the first non-positive pivot, that
    pivot's value, the input's lower triangle after it; and ``info`` per matrix (that
    pivot's 1-based place, or 0)."""
    a = np.tril(h).reshape(-1, h.shape[-2], h.shape[-1])
    info = np.zeros(a.shape[0], np.int32)
    for a_, b in zip(a, range(a.shape[0])):
        for j in range(a_.shape[0]):
            d = a_[j, j] - a_[j, :j] @ a_[j, :j]
            if not d > 0:  # (NaN too)
                a_[j, j] = d
                info[b] = j + 1
                break
            a_[j, j] = d = np.sqrt(d)
            a_[j + 1:, j] = (a_[j + 1:, j] - a_[j + 1:, :j] @ a_[j, :j]) / d
    return a.reshape(h.shape), info.reshape(h.shape[:-2])


def cholesky_ex(A, *, upper=False, check_errors=False):
    """``(L, info)``: ``linalg.cholesky`` that reports a matrix that is not positive-definite
    instead of raising: ``info`` per matrix is 0, or the order of the first leading minor
    that is not positive-definite (that matrix's ``L`` is then LAPACK's unfinished factor,
    without gradient). With ``check_errors`` such a matrix raises as in ``cholesky``.

    Example::

        >>> import nbgrad
        >>> nbgrad.linalg.cholesky_ex(nbgrad.tensor([[1.0, 2.0], [2.0, 1.0]])).info
        tensor(2, dtype=nbgrad.int32)
    """
    from ..creation import tensor, zeros
    from ..dtypes import int32
    from .index import _host

    _matrices(A, "cholesky", "cholesky")
    try:
        L = CHOLESKY.call(A, bool(upper))
    except LinAlgError:
        h = _host(A)
        if check_errors:
            _not_positive_definite(h, "cholesky_ex")
        L, info = _potf2(h)
        L = tensor(np.swapaxes(L, -1, -2) if upper else L, dtype=A.dtype, device=A.device)
        return RT.linalg_cholesky_ex(L, tensor(info, dtype=int32, device=A.device))
    return RT.linalg_cholesky_ex(L, zeros(tuple(A.shape[:-2]), dtype=int32, device=A.device))


# ----- triangular solves ----------------------------------------------------------------------
def _triangle(h, upper, unitriangular):
    t = np.triu(h) if upper else np.tril(h)
    if unitriangular:
        t = t.copy()
        idx = np.arange(t.shape[-1])
        t[..., idx, idx] = 1
    return t


def _solve_tri(a, b, upper, left, unitriangular):
    t = _triangle(a, upper, unitriangular)
    if not left:  # X A = B  <=>  A^T X^T = B^T
        t, b = np.swapaxes(t, -1, -2), np.swapaxes(b, -1, -2)
    batch = np.broadcast_shapes(t.shape[:-2], b.shape[:-2])
    t = np.broadcast_to(t, batch + t.shape[-2:])
    b = np.broadcast_to(b, batch + b.shape[-2:])
    with np.errstate(all="ignore"):  # (a zero on the diagonal gives inf / nan, as trsm)
        try:
            x = np.linalg.solve(t, b)
        except np.linalg.LinAlgError:
            x = np.full(np.broadcast_shapes(t.shape, b.shape), np.nan)
    return np.swapaxes(x, -1, -2) if not left else x


def _solve_tri_shape(sa, sb, *args):
    return tuple(np.broadcast_shapes(tuple(sa[:-2]), tuple(sb[:-2]))) + tuple(sb[-2:])


SOLVE_TRIANGULAR = deffunc(
    "solve_triangular", params=("A", "B"), kernels=(),
    forward=host_lapack(_solve_tri, _solve_tri_shape, 2), args=("upper", "left", "unitriangular"),
    dtype=lambda a, b, *args: a, shape=_solve_tri_shape, node="LinalgSolveTriangularBackward0", torch_names={"A": "self"},
    grads={"A, B": "solve_triangular_backward(grad, A, result, upper, left, unitriangular, "
                   "grad_input_mask, A_shape, B_shape)"}, fn=False, method=False)


def solve_triangular_backward(grad, A, X, upper, left, unitriangular, mask, a_shape,
                              b_shape):
    """``gB = A^{-H} grad`` (``grad A^{-H}`` on the right), ``gA = -gB X^H`` (``-X^H gB``)
    kept to A's triangle (its strict one for a unit diagonal), each summed over the batch
    dims it was broadcast along."""
    gB = solve_triangular(mT(A), grad, upper=not upper, left=left,
                          unitriangular=unitriangular)
    gA = None
    if mask[0]:
        gA = -(matmul(gB, mT(X)) if left else matmul(mT(X), gB))
        off = 1 if unitriangular else 0
        gA = sum_to(triu(gA, off) if upper else tril(gA, -off), a_shape)
    return gA, (sum_to(gB, b_shape) if mask[1] else None)


@surface(SOLVE_TRIANGULAR)
def solve_triangular(A, B, *, upper, left=True, unitriangular=False):
    """``X`` with ``A X = B`` (``left=False``: ``X A = B``) for a triangular ``A``
    (..., n, n): its upper triangle if ``upper``, else its lower one; ``unitriangular``
    takes its diagonal as ones. ``B`` is (..., n, k) (``left=False``: (..., k, n)).

    Example::

        >>> import nbgrad
        >>> A = nbgrad.tensor([[2.0, 0.0], [1.0, 1.0]])
        >>> nbgrad.linalg.solve_triangular(A, nbgrad.tensor([[2.0], [3.0]]), upper=False)
        tensor([[1.],
                [2.]])
    """
    _matrices(A, "solve_triangular", "triangular_solve")
    check_tensor(B, "linalg.solve_triangular")
    if B.ndim < 2:
        raise RuntimeError("linalg.solve_triangular: The input tensor B must have at least 2 "
                           "dimensions.")
    if A.dtype is not B.dtype:  # (PyTorch's result has A's dtype)
        B = B.to(A.dtype)
    n = A.shape[-1]
    if B.shape[-2 if left else -1] != n:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"linalg.solve_triangular: Incompatible shapes of A and B for the "
                           f"equation {eq} ({A.shape[-2]}x{n} and "
                           f"{B.shape[-2]}x{B.shape[-1]})")
    return SOLVE_TRIANGULAR.call(A, B, bool(upper), bool(left), bool(unitriangular))


# ----- QR: A = Q R ----------------------------------------------------------------------------
def _qr(h, mode):
    if mode == "r":
        return np.zeros((0,)), np.linalg.qr(h, mode="r")
    return np.linalg.qr(h, mode=mode)


def _qr_shape(s, mode):
    m, n = s[-2], s[-1]
    k = m if mode == "complete" else min(m, n)
    batch = tuple(s[:-2])
    q = (0,) if mode == "r" else batch + (m, k)
    return q, batch + ((m if mode == "complete" else k), n)


QR = deffunc("qr", kernels=(), forward=host_lapack(_qr, _qr_shape), args=("mode",),
             dtype=lambda dt, mode: (dt, dt), shape=_qr_shape, outputs=("Q", "R"),
             differentiable=2, node="LinalgQrBackward0", torch_names={},
             grads=("qr_backward(grads, Q, R, mode)",), fn=False, method=False)


def qr_backward(grads, Q, R, mode):
    """PyTorch's ``linalg_qr_backward``."""
    gQ, gR = grads
    if mode == "r":
        raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed "
                           "when mode='r'. Please use linalg.qr(A, mode='reduced') if you are "
                           "going to differentiate through linalg.qr.")
    m, n = Q.shape[-2], R.shape[-1]
    if mode == "complete" and m > n:
        raise RuntimeError("The QR decomposition is not differentiable when mode='complete' "
                           "and nrows > ncols.")
    if gQ is None and gR is None:
        return None
    gA = matmul(gR, mT(R)) if gR is not None else None
    if gQ is not None:
        QhgQ = matmul(mT(Q), gQ)
        gA = -QhgQ if gA is None else sub(gA, QhgQ)
    if m >= n:
        sym = triu(gA)
        sym = add(sym, mT(sym))
        sym = sub(sym, diag_embed(mul(diagonal(sym, 0, -2, -1), 0.5)))
        gA = matmul(Q, sym)
        if gQ is not None:
            gA = add(gA, gQ)
        return solve_triangular(mT(R), gA, upper=False, left=False)
    from .concat import cat, narrow

    skew = tril(sub(mT(gA), gA))  # (the lower part of X - X^H, X = -gA)
    gA = solve_triangular(mT(narrow(R, -1, 0, m)), matmul(Q, skew), upper=False, left=False)
    from ..creation import zeros

    gA = cat([gA, zeros(tuple(R.shape[:-1]) + (n - m,), dtype=gA.dtype, device=gA.device)],
             -1)
    if gR is not None:
        gA = add(gA, matmul(Q, gR))
    return gA


@surface(QR)
@autocast_op("linalg_qr")
def qr(A, mode="reduced"):
    """The QR decomposition ``A = Q R`` of each matrix of ``A`` (..., m, n): ``Q`` with
    orthonormal columns and upper triangular ``R``. ``mode``: ``"reduced"`` (k = min(m, n)
    columns of Q), ``"complete"`` (all m) or ``"r"`` (R only; Q is empty).

    Example::

        >>> import nbgrad
        >>> Q, R = nbgrad.linalg.qr(nbgrad.tensor([[3.0, 1.0], [4.0, 2.0]]))
        >>> R
        tensor([[-5.0000, -2.2000],
                [ 0.0000,  0.4000]])
    """
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                           "'reduced' (default), 'r', or 'complete'")
    _matrices(A, "qr", "geqrf", square=False)
    return RT.linalg_qr(*QR.call(A, mode))


# ----- symmetric eigendecomposition: A = V diag(L) V^H -------------------------------------------
def _eigh(h, uplo):
    try:
        return np.linalg.eigh(h, UPLO=uplo)
    except np.linalg.LinAlgError:
        raise LinAlgError("linalg.eigh: The algorithm failed to converge because the input "
                          "matrix is ill-conditioned or has too many repeated eigenvalues") \
            from None


def _eigh_shape(s, uplo):
    return tuple(s[:-1]), tuple(s)


EIGH = deffunc("eigh", kernels=(), forward=host_lapack(_eigh, _eigh_shape), args=("UPLO",),
               dtype=lambda dt, uplo: (dt, dt), shape=_eigh_shape,
               outputs=("eigenvalues", "eigenvectors"), differentiable=2,
               node="LinalgEighBackward0", torch_names={},
               grads=("eigh_backward(grads, eigenvalues, eigenvectors)",),
               fn=False, method=False)


def _gap(w):
    """``E[i, j] = w_j - w_i`` with ones on the diagonal (a safe divisor there)."""
    from ..creation import ones_like

    return add(sub(unsqueeze(w, -2), unsqueeze(w, -1)), diag_embed(ones_like(w)))


def eigh_backward(grads, L, V):
    """PyTorch's ``linalg_eig_backward`` for a Hermitian input: ``V (skew(V^H gV) / E +
    diag(gL)) V^H`` (skew: the antisymmetric half)."""
    gL, gV = grads
    if gV is None:
        if gL is None:
            return None
        return matmul(mul(V, unsqueeze(gL, -2)), mT(V))
    VhgV = matmul(mT(V), gV)
    gA = div(mul(sub(VhgV, mT(VhgV)), 0.5), _gap(L))
    if gL is not None:
        gA = add(sub(gA, diag_embed(diagonal(gA, 0, -2, -1))), diag_embed(gL))
    return matmul(V, matmul(gA, mT(V)))


def _uplo(UPLO):
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")


@surface(EIGH)
@autocast_op("linalg_eigh")
def eigh(A, UPLO="L"):
    """Eigenvalues (ascending) and orthonormal eigenvectors (columns) of each symmetric
    matrix of ``A`` (..., n, n), from its lower (``UPLO="L"``) or upper triangle.

    Example::

        >>> import nbgrad
        >>> nbgrad.linalg.eigh(nbgrad.tensor([[2.0, 0.0], [0.0, 1.0]])).eigenvalues
        tensor([1., 2.])
    """
    _uplo(UPLO)
    _matrices(A, "eigh", "linalg_eigh")
    return RT.linalg_eigh(*EIGH.call(A, UPLO))


def eigvalsh(A, UPLO="L"):
    """The eigenvalues (ascending) of each symmetric matrix of ``A`` (..., n, n).

    Example::

        >>> import nbgrad
        >>> nbgrad.linalg.eigvalsh(nbgrad.tensor([[2.0, 1.0], [1.0, 2.0]]))
        tensor([1., 3.])
    """
    _uplo(UPLO)
    _matrices(A, "eigvalsh", "linalg_eigh")
    return EIGH.call(A, UPLO)[0]  # (the eigenvectors come too: its gradient needs them)


# ----- singular value decomposition: A = U diag(S) Vh ---------------------------------------------
def finite_for_svd(h):
    """PyTorch's error for a matrix with NaN or infinity, which LAPACK's SVD refuses."""
    if not np.isfinite(h).all():
        raise LinAlgError("linalg.svd: The algorithm failed to converge because the input "
                          "matrix contained non-finite values.")


def _svd(h, full_matrices):
    finite_for_svd(h)
    return np.linalg.svd(h, full_matrices=full_matrices)


def _svd_shape(s, full):
    m, n, batch = s[-2], s[-1], tuple(s[:-2])
    k = min(m, n)
    return (batch + (m, m if full else k), batch + (k,), batch + ((n if full else k), n))


SVD = deffunc("svd", kernels=(), forward=host_lapack(_svd, _svd_shape), args=("full_matrices",),
              dtype=lambda dt, full: (dt, dt, dt), shape=_svd_shape, outputs=("U", "S", "Vh"),
              differentiable=3, node="LinalgSvdBackward0", torch_names={},
              grads=("svd_backward(grads, U, S, Vh, full_matrices)",), fn=False, method=False)


def svd_backward(grads, U, S, Vh, full_matrices):
    """PyTorch's ``svd_backward`` (a full decomposition's extra vectors dropped first)."""
    gU, gS, gVh = grads
    if gU is None and gS is None and gVh is None:
        return None
    k = S.shape[-1]
    if full_matrices:
        from .concat import narrow

        U, Vh = narrow(U, -1, 0, k), narrow(Vh, -2, 0, k)
        gU = None if gU is None else narrow(gU, -1, 0, k)
        gVh = None if gVh is None else narrow(gVh, -2, 0, k)
    m, n = U.shape[-2], Vh.shape[-1]
    if gU is None and gVh is None:
        if m >= n:
            return matmul(U, mul(unsqueeze(gS, -1), Vh))
        return matmul(mul(U, unsqueeze(gS, -2)), Vh)
    UhgU = None if gU is None else _skew(matmul(mT(U), gU))
    VhgV = None if gVh is None else _skew(matmul(Vh, mT(gVh)))
    E = _gap(mul(S, S))
    if UhgU is not None and VhgV is not None:
        gA = div(add(mul(UhgU, unsqueeze(S, -2)), mul(unsqueeze(S, -1), VhgV)), E)
    elif UhgU is not None:
        gA = mul(div(UhgU, E), unsqueeze(S, -2))
    else:
        gA = mul(unsqueeze(S, -1), div(VhgV, E))
    if gS is not None:
        gA = add(gA, diag_embed(gS))
    if m > n and gU is not None:
        gA = matmul(U, gA)
        gUSinv = div(gU, unsqueeze(S, -2))
        gA = sub(add(gA, gUSinv), matmul(U, matmul(mT(U), gUSinv)))
        return matmul(gA, Vh)
    if m < n and gVh is not None:
        gA = matmul(gA, Vh)
        SinvgVh = div(gVh, unsqueeze(S, -1))
        gA = sub(add(gA, SinvgVh), matmul(matmul(SinvgVh, mT(Vh)), Vh))
        return matmul(U, gA)
    return matmul(U, matmul(gA, Vh)) if m >= n else matmul(matmul(U, gA), Vh)


def _skew(X):
    return sub(X, mT(X))


@surface(SVD)
@autocast_op("linalg_svd")
def svd(A, full_matrices=True):
    """The singular value decomposition ``A = U diag(S) Vh`` of each matrix of ``A``
    (..., m, n): singular values ``S`` descending; ``full_matrices=False`` keeps k =
    min(m, n) columns of U and rows of Vh.

    Example::

        >>> import nbgrad
        >>> nbgrad.linalg.svd(nbgrad.tensor([[3.0, 0.0], [0.0, -4.0]])).S
        tensor([4., 3.])
    """
    _matrices(A, "svd", "linalg_svd", square=False)
    return RT.linalg_svd(*SVD.call(A, bool(full_matrices)))


def svdvals(A):
    """The singular values (descending) of each matrix of ``A`` (..., m, n).

    Example::

        >>> import nbgrad
        >>> nbgrad.linalg.svdvals(nbgrad.tensor([[3.0, 0.0], [0.0, -4.0]]))
        tensor([4., 3.])
    """
    _matrices(A, "svd", "linalg_svd", square=False)
    return SVD.call(A, False)[1]  # (the vectors come too: its gradient needs them)


# ----- composed of the rows above -----------------------------------------------------------------
def cholesky_solve(B, L, upper=False):
    """Solve ``A X = B`` for ``X``, given the Cholesky factor of the symmetric positive-definite
    ``A``.

    With ``A = L L^T`` (``upper=True``: ``A = U^T U``), two triangular solves give ``X``.
    The batch dims of ``B`` and ``L`` broadcast.

    Args:
        B (Tensor): the right-hand sides, of shape :math:`(*, n, k)`.
        L (Tensor): the Cholesky factor of ``A``, of shape :math:`(*, n, n)` (as
            ``nbgrad.linalg.cholesky`` gives it).
        upper (bool, optional): whether ``L`` is the upper factor. Default: ``False``.

    Returns:
        Tensor: ``X``, of shape :math:`(*, n, k)`.

    Example::

        >>> import nbgrad
        >>> A = nbgrad.tensor([[4.0, 2.0], [2.0, 2.0]])
        >>> L = nbgrad.linalg.cholesky(A)
        >>> X = nbgrad.cholesky_solve(nbgrad.tensor([[4.0], [3.0]]), L)
        >>> X
        tensor([[0.5000],
                [1.0000]])
        >>> A @ X
        tensor([[4.],
                [3.]])
    """
    check_tensor(B, "cholesky_solve")
    check_tensor(L, "cholesky_solve")
    if B.dtype is not L.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{SCALAR_TYPE[B._dtype.name]} and A of type "
                           f"{SCALAR_TYPE[L._dtype.name]} instead.")
    if upper:
        return solve_triangular(L, solve_triangular(mT(L), B, upper=False), upper=True)
    return solve_triangular(mT(L), solve_triangular(L, B, upper=False), upper=True)


def cholesky_inverse(L, upper=False):
    """The inverse of a symmetric positive-definite matrix ``A``, given its Cholesky factor.

    With ``A = L L^T`` (``upper=True``: ``A = U^T U``).

    Args:
        L (Tensor): the Cholesky factor of ``A``, of shape :math:`(*, n, n)`.
        upper (bool, optional): whether ``L`` is the upper factor. Default: ``False``.

    Returns:
        Tensor: the inverse of ``A``, of shape :math:`(*, n, n)`.

    Example::

        >>> import nbgrad
        >>> A = nbgrad.tensor([[4.0, 2.0], [2.0, 2.0]])
        >>> nbgrad.cholesky_inverse(nbgrad.linalg.cholesky(A))
        tensor([[ 0.5000, -0.5000],
                [-0.5000,  1.0000]])
        >>> nbgrad.cholesky_inverse(nbgrad.tensor([[2.0, 0.0], [0.0, 1.0]]))
        tensor([[0.2500, 0.0000],
                [0.0000, 1.0000]])
    """
    from ..creation import eye

    _square(L, "cholesky_inverse")
    n = L.shape[-1]
    return cholesky_solve(eye(n, dtype=L.dtype, device=L.device).expand(tuple(L.shape)), L,
                          upper)


def svd_old(input, some=True, compute_uv=True):
    r"""The singular value decomposition ``input = U diag(S) V^T``, PyTorch's older form.

    Unlike ``nbgrad.linalg.svd``, it returns ``V`` itself (not its transpose) and, by
    default, the reduced decomposition. The singular values come in descending order.

    Args:
        input (Tensor): a matrix or a batch of them, of shape :math:`(*, m, n)`.
        some (bool, optional): return the reduced decomposition (:math:`k = \min(m, n)`
            columns of ``U`` and ``V``); ``False``: all :math:`m` and :math:`n` columns.
            Default: ``True``.
        compute_uv (bool, optional): compute ``U`` and ``V``; ``False``: they are returned
            filled with zeros (of shapes :math:`(*, m, m)` and :math:`(*, n, n)`). Default:
            ``True``.

    Returns:
        (Tensor, Tensor, Tensor): a named tuple ``(U, S, V)``.

    Example::

        >>> import nbgrad
        >>> A = nbgrad.tensor([[3.0, 0.0], [0.0, -4.0], [0.0, 0.0]])
        >>> U, S, V = nbgrad.svd(A)
        >>> U.shape, S, V.shape
        (nbgrad.Size([3, 2]), tensor([4., 3.]), nbgrad.Size([2, 2]))
        >>> nbgrad.dist(U @ nbgrad.diag(S) @ V.T, A) < 1e-5
        tensor(True)
        >>> nbgrad.svd(A, some=False).U.shape
        nbgrad.Size([3, 3])
    """
    _matrices(input, "svd", "linalg_svd", square=False)
    if not compute_uv:
        from ..creation import zeros

        m, n, batch = input.shape[-2], input.shape[-1], tuple(input.shape[:-2])
        z = dict(dtype=input.dtype, device=input.device)
        return RT.svd(zeros(batch + (m, m), **z), svdvals(input), zeros(batch + (n, n), **z))
    U, S, Vh = svd(input, full_matrices=not some)
    return RT.svd(U, S, mT(Vh))


_DEPRECATED = {
    "qr": "torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a "
          "future PyTorch release.\nThe boolean parameter 'some' has been replaced with a "
          "string parameter 'mode'.\nQ, R = torch.qr(A, some)\nshould be replaced with\n"
          "Q, R = torch.linalg.qr(A, 'reduced' if some else 'complete')",
    "cholesky": "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be "
                "removed in a future PyTorch release.\nL = torch.cholesky(A)\nshould be "
                "replaced with\nL = torch.linalg.cholesky(A)\nand\nU = torch.cholesky(A, "
                "upper=True)\nshould be replaced with\nU = torch.linalg.cholesky(A).mH\n"
                "This transform will produce equivalent results for all valid (symmetric "
                "positive definite) inputs.",
    "lu": "torch.lu is deprecated in favor of torch.linalg.lu_factor / "
          "torch.linalg.lu_factor_ex and will be removed in a future PyTorch release.\n"
          "LU, pivots = torch.lu(A, compute_pivots)\nshould be replaced with\nLU, pivots = "
          "torch.linalg.lu_factor(A, compute_pivots)\nand\nLU, pivots, info = torch.lu(A, "
          "compute_pivots, get_infos=True)\nshould be replaced with\nLU, pivots, info = "
          "torch.linalg.lu_factor_ex(A, compute_pivots)",
    # (PyTorch's text, its missing space included)
    "lu_solve": "torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be "
                "removed in a future PyTorch release.\nNote that torch.linalg.lu_solve has its "
                "arguments reversed.\nX = torch.lu_solve(B, LU, pivots)\nshould be replaced "
                "with\nX = torch.linalg.lu_solve(LU, pivots, B)",
    "chain_matmul": "torch.chain_matmul is deprecated and will be removed in a future "
                    "PyTorch release. Use torch.linalg.multi_dot instead, which accepts a list "
                    "of two or more tensors rather than multiple parameters."}


def _deprecated(name, message=None):
    """PyTorch's warning for its older name (``message``, or this module's text for
    ``name``), once per process (as its ``TORCH_WARN_ONCE``)."""
    warn_once(name, message or _DEPRECATED[name], stacklevel=3)


def qr_old(input, some=True):
    r"""The QR decomposition ``input = Q R``, PyTorch's older (deprecated) form of
    ``nbgrad.linalg.qr``.

    ``Q`` has orthonormal columns and ``R`` is upper triangular. It warns that it is
    deprecated, as PyTorch's does.

    Args:
        input (Tensor): a matrix or a batch of them, of shape :math:`(*, m, n)`.
        some (bool, optional): the reduced decomposition (:math:`k = \min(m, n)` columns of
            ``Q``, ``linalg.qr``'s ``mode="reduced"``); ``False``: the complete one
            (``mode="complete"``). Default: ``True``.

    Returns:
        (Tensor, Tensor): a named tuple ``(Q, R)``.

    Example::

        >>> import nbgrad
        >>> Q, R = nbgrad.qr(nbgrad.tensor([[3.0, 1.0], [4.0, 2.0]]))
        >>> R
        tensor([[-5.0000, -2.2000],
                [ 0.0000,  0.4000]])
        >>> Q @ R
        tensor([[3.0000, 1.0000],
                [4.0000, 2.0000]])
    """
    _deprecated("qr")
    return RT.qr(*qr(input, "reduced" if some else "complete"))


def cholesky_old(input, upper=False):
    """The Cholesky factor of symmetric positive-definite matrices, PyTorch's older
    (deprecated) form of ``nbgrad.linalg.cholesky``.

    The lower triangular ``L`` with ``input = L L^T`` (``upper=True``: the upper triangular
    ``U = L^T``, with ``input = U^T U``). It warns that it is deprecated, as PyTorch's does.

    Args:
        input (Tensor): a matrix or a batch of them, of shape :math:`(*, n, n)`; only its
            lower triangle is read.
        upper (bool, optional): return the upper triangular factor. Default: ``False``.

    Example::

        >>> import nbgrad
        >>> A = nbgrad.tensor([[4.0, 2.0], [2.0, 5.0]])
        >>> nbgrad.cholesky(A)
        tensor([[2., 0.],
                [1., 2.]])
        >>> nbgrad.cholesky(A, upper=True)
        tensor([[2., 1.],
                [0., 2.]])
    """
    _deprecated("cholesky")
    return cholesky(input, upper=upper)
