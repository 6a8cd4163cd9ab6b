"""The LU decomposition with partial pivoting (``linalg.lu_factor``, ``lu_factor_ex``,
``linalg.lu``, ``linalg.lu_solve``, ``lu_unpack``): the factorization is a row computed on the host with
NumPy (LAPACK's unblocked ``getf2``, vectorized over the batch: the same pivots, equal to a
rounding), its backward written in nbgrad ops for square, tall and wide matrices; the
rest is composed of triangular solves and products, so every derivative is exact."""


import numpy as np

from .. import return_types as RT
from ._core import check_tensor, no_kernel_for
from .concat import cat
from .funcdef import deffunc, surface
from .index import _host
from .linalg import matmul
from .linalg_decomp import _deprecated, solve_triangular
from .linalg_solve import LinAlgError, _singular, _square, host_lapack, inv, solve
from .selection import tril, triu


def _getf2(a):
    """LU with partial pivoting of host matrices ``a`` (*, m, n): the packed factors, the
    1-based int32 pivots (*, min(m, n)) and LAPACK's ``info`` per matrix (the 1-based place
    of the first zero pivot, which is left undivided, or 0), as LAPACK's ``getrf``."""
    lu = np.array(a, dtype=np.result_type(a.dtype, np.float32), copy=True)
    *batch, m, n = lu.shape
    k = min(m, n)
    flat = lu.reshape(-1, m, n)
    piv = np.zeros((flat.shape[0], k), np.int32)
    info = np.zeros(flat.shape[0], np.int32)
    rows = np.arange(flat.shape[0])
    for j in range(k):
        p = j + np.argmax(np.abs(flat[:, j:, j]), axis=1)
        piv[:, j] = p + 1
        top = flat[rows, j].copy()
        flat[rows, j] = flat[rows, p]
        flat[rows, p] = top
        d = flat[:, j, j]
        info = np.where((info == 0) & (d == 0), j + 1, info)
        safe = np.where(d == 0, 1, d)
        flat[:, j + 1:, j] = np.where((d == 0)[:, None], flat[:, j + 1:, j],
                                      flat[:, j + 1:, j] / safe[:, None])
        flat[:, j + 1:, j + 1:] -= flat[:, j + 1:, j:j + 1] * flat[:, j:j + 1, j + 1:]
    return flat.reshape(lu.shape), piv.reshape(tuple(batch) + (k,)), info.reshape(batch)


def _permutation(piv, m):
    """The row order (*, m) the pivots make: row i of ``P^T A`` is row ``order[i]`` of A."""
    flat = piv.reshape(-1, piv.shape[-1]) - 1
    order = np.tile(np.arange(m), (flat.shape[0], 1))
    rows = np.arange(flat.shape[0])
    for j in range(flat.shape[1]):
        p = flat[:, j]
        a, b = order[rows, j].copy(), order[rows, p].copy()
        order[rows, j], order[rows, p] = b, a
    return order.reshape(piv.shape[:-1] + (m,))


def _lu_shapes(sa):
    k = min(sa[-2], sa[-1])
    return tuple(sa), tuple(sa[:-2]) + (k,), tuple(sa[:-2])


def _lu_dtypes(dt):
    if not dt.is_floating_point or dt.low:
        raise no_kernel_for("lu_cpu", dt)
    from ..dtypes import int32

    return dt, int32, int32


LU_FACTOR = deffunc(
    "lu_factor_ex", params=("A",), kernels=(), forward=host_lapack(_getf2, _lu_shapes),
    dtype=_lu_dtypes, shape=_lu_shapes, outputs=("LU", "pivots", "info"),
    node="LinalgLuFactorExBackward0", torch_names={},
    grads=("lu_factor_backward(grad, LU, pivots)",), fn=False, method=False)


def _factors(LU, pivots):
    """``(P, L, U)`` of packed factors: P (*, m, m) a permutation matrix with A = P L U, L
    (*, m, k) unit lower trapezoidal, U (*, k, n) upper trapezoidal."""
    from ..creation import eye, tensor

    m, n = LU.shape[-2:]
    k = min(m, n)
    order = _permutation(_host(pivots), m)
    ident = np.eye(m)
    P = tensor(np.swapaxes(ident[order], -1, -2), dtype=LU.dtype, device=LU.device)
    L = tril(LU[..., :, :k], -1) + eye(m, k, dtype=LU.dtype, device=LU.device)
    U = triu(LU[..., :k, :])
    return P, L, U


def lu_factor_backward(grad, LU, pivots):
    """The input's gradient from the packed factors' (``L``'s below the diagonal, ``U``'s
    on and above it): for A = P L U with square L and U, ``P L^-H (tril(L^H gL, -1) +
    triu(gU U^H)) U^-H``; a tall matrix's extra rows of L and a wide one's extra columns of
    U first change the square part's gradient (their own is a triangular solve)."""
    P, L, U = _factors(LU, pivots)
    m, n = LU.shape[-2:]
    k = min(m, n)
    gL, gU = tril(grad[..., :, :k], -1), triu(grad[..., :k, :])
    L1, U1 = L[..., :k, :], U[..., :, :k]
    gL1, gU1 = gL[..., :k, :], gU[..., :, :k]
    inner_l = matmul(L1.mH, gL1)
    inner_u = matmul(gU1, U1.mH)
    if m > n:  # L2 = A2 U^-1
        L2, gL2 = L[..., k:, :], gL[..., k:, :]
        inner_u = inner_u - matmul(L2.mH, gL2)
    if n > m:  # U2 = L^-1 A2
        U2, gU2 = U[..., :, k:], gU[..., :, k:]
        inner_l = inner_l - matmul(gU2, U2.mH)
    phi = tril(inner_l, -1) + triu(inner_u)
    # L^-H phi U^-H, by two triangular solves
    g1 = solve_triangular(L1.mH, phi, upper=True, unitriangular=True)
    g1 = solve_triangular(U1.mH, g1, upper=False, left=False)
    if m > n:
        g = cat([g1, solve_triangular(U1.mH, gL2, upper=False, left=False)], -2)
    elif n > m:
        g = cat([g1, solve_triangular(L1.mH, gU2, upper=True, unitriangular=True)], -1)
    else:
        g = g1
    return matmul(P, g)


@surface(LU_FACTOR)
def lu_factor_ex(A, *, pivot=True, check_errors=False):
    """``(LU, pivots, info)``: ``lu_factor``'s factors and, per matrix, LAPACK's ``info``
    (the 1-based place of the first zero pivot, or 0); with ``check_errors``, a zero pivot
    raises as in ``lu_factor``.

    Example::

        >>> import nbgrad
        >>> nbgrad.linalg.lu_factor_ex(nbgrad.zeros(2, 2)).info
        tensor(1, dtype=nbgrad.int32)
    """
    check_tensor(A, "linalg.lu_factor_ex")
    if A.ndim < 2:
        raise RuntimeError("nbgrad.lu_factor: Expected tensor with 2 or more dimensions. Got "
                           f"size: {list(A.shape)} instead")
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the "
                           "CPU")
    LU, pivots, info = LU_FACTOR.call(A)
    if check_errors:
        _raise_zero_pivot(info, "lu_factor_ex")
    return RT.linalg_lu_factor_ex(LU, pivots, info)


def _raise_zero_pivot(info, fname):
    bad = _host(info).reshape(-1)
    for b, i in enumerate(bad):
        if i > 0:
            where = f"(Batch element {b}): " if info.ndim else ""
            raise RuntimeError(
                f"nbgrad.linalg.{fname}: {where}U[{i},{i}] is zero and using it on lu_solve "
                "would result in a division by zero. If you still want to perform the "
                "factorization, consider calling linalg.lu(A, pivot) or "
                "linalg.lu_factor_ex(A, pivot)")


def lu_factor(A, *, pivot=True):
    """The LU decomposition with partial pivoting of matrices ``A`` (*, m, n), packed:
    ``(LU, pivots)``, L's entries below the diagonal (its diagonal is ones) and U's on and
    above it, and the 1-based row swaps (LAPACK's ``getrf``).

    Example::

        >>> import nbgrad
        >>> LU, pivots = nbgrad.linalg.lu_factor(nbgrad.tensor([[1.0, 2.0], [3.0, 4.0]]))
        >>> LU, pivots
        (tensor([[3.0000, 4.0000],
                [0.3333, 0.6667]]), tensor([2, 2], dtype=nbgrad.int32))
    """
    LU, pivots, info = lu_factor_ex(A, pivot=pivot)
    _raise_zero_pivot(info, "lu_factor")
    return RT.linalg_lu_factor(LU, pivots)


def lu(A, *, pivot=True):
    """``(P, L, U)`` with ``A = P L U``: the LU decomposition with partial pivoting of
    ``A`` (*, m, n) unpacked (``lu_factor``'s, then ``lu_unpack``).

    Example::

        >>> import nbgrad
        >>> P, L, U = nbgrad.linalg.lu(nbgrad.tensor([[1.0, 2.0], [3.0, 4.0]]))
        >>> P @ L @ U
        tensor([[1., 2.],
                [3., 4.]])
    """
    LU, pivots, _ = lu_factor_ex(A, pivot=pivot)  # (a zero pivot is no error here)
    return RT.linalg_lu(*lu_unpack(LU, pivots))


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    r"""Unpack the ``P``, ``L`` and ``U`` of an LU decomposition from its packed form.

    The packed form is what ``nbgrad.linalg.lu_factor`` (or :func:`nbgrad.lu`) returns;
    ``A = P @ L @ U``.

    Args:
        LU_data (Tensor): the packed factors, of shape :math:`(*, m, n)`.
        LU_pivots (IntTensor): the 1-based pivots, of shape :math:`(*, \min(m, n))`.
        unpack_data (bool, optional): whether to return ``L`` and ``U`` (otherwise empty
            tensors). Default: ``True``.
        unpack_pivots (bool, optional): whether to return ``P`` (otherwise an empty tensor).
            Default: ``True``.

    Returns:
        (Tensor, Tensor, Tensor): ``(P, L, U)``.

    Example::

        >>> import nbgrad
        >>> A = nbgrad.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> P, L, U = nbgrad.lu_unpack(*nbgrad.linalg.lu_factor(A))
        >>> P
        tensor([[0., 1.],
                [1., 0.]])
        >>> L
        tensor([[1.0000, 0.0000],
                [0.3333, 1.0000]])
        >>> P @ L @ U
        tensor([[1., 2.],
                [3., 4.]])
    """
    P, L, U = _factors(LU_data, LU_pivots)
    empty = LU_data.new_empty((0,))
    return RT.lu_unpack(P if unpack_pivots else empty, L if unpack_data else empty,
                        U if unpack_data else empty)


def lu_solve(LU, pivots, B, *, left=True, adjoint=False):
    """The solution ``X`` of ``A X = B`` (``left=False``: ``X A = B``; ``adjoint``: with
    ``A^H``) from ``A``'s packed LU factors: triangular solves and the row order.

    Example::

        >>> import nbgrad
        >>> A = nbgrad.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> nbgrad.linalg.lu_solve(*nbgrad.linalg.lu_factor(A), nbgrad.tensor([[5.0], [6.0]]))
        tensor([[-4.0000],
                [ 4.5000]])
    """
    check_tensor(B, "linalg.lu_solve")
    if LU.shape[-1] != LU.shape[-2]:
        raise RuntimeError("linalg.lu_solve: Expected LU to be square, but got "
                           f"{LU.shape[-2]} by {LU.shape[-1]} matrices")
    P, L, U = _factors(LU, pivots)
    if left and not adjoint:  # P L U X = B
        y = solve_triangular(L, matmul(P.mT, B), upper=False, unitriangular=True)
        return solve_triangular(U, y, upper=True)
    if left:  # U^H L^H P^T X = B
        y = solve_triangular(U.mH, B, upper=False)
        return matmul(P, solve_triangular(L.mH, y, upper=True, unitriangular=True))
    if not adjoint:  # X P L U = B
        y = solve_triangular(U, B, upper=True, left=False)
        return matmul(solve_triangular(L, y, upper=False, left=False, unitriangular=True),
                      P.mT)
    # X U^H L^H P^T = B
    y = solve_triangular(L.mH, matmul(B, P), upper=True, left=False, unitriangular=True)
    return solve_triangular(U.mH, y, upper=False, left=False)


def lu_old(A, pivot=True, get_infos=False):
    """The LU decomposition with partial pivoting, packed: PyTorch's older (deprecated) form of
    ``nbgrad.linalg.lu_factor``.

    ``A = P L U`` with ``L`` unit lower triangular and ``U`` upper triangular; ``LU`` holds
    both (``L`` below the diagonal, its ones left out), and ``pivots`` the rows swapped (see
    :func:`nbgrad.lu_unpack` to get ``P``, ``L`` and ``U``). A singular matrix does not raise
    an error. It warns that it is deprecated, as PyTorch's does.

    Args:
        A (Tensor): a matrix or a batch of them, of shape :math:`(*, m, n)`.
        pivot (bool, optional): whether to pivot (nbgrad always pivots on the CPU, as
            PyTorch does). Default: ``True``.
        get_infos (bool, optional): also return LAPACK's ``info`` of each matrix (0, or the
            1-based place of the first zero pivot). Default: ``False``.

    Returns:
        (Tensor, IntTensor) or (Tensor, IntTensor, IntTensor): ``(LU, pivots)``, then
        ``infos`` when asked for; the pivots are 1-based, int32.

    Example::

        >>> import nbgrad
        >>> LU, pivots = nbgrad.lu(nbgrad.tensor([[1.0, 2.0], [3.0, 4.0]]))
        >>> LU
        tensor([[3.0000, 4.0000],
                [0.3333, 0.6667]])
        >>> pivots
        tensor([2, 2], dtype=nbgrad.int32)
        >>> nbgrad.lu(nbgrad.zeros(2, 2), get_infos=True)[2]
        tensor(1, dtype=nbgrad.int32)
    """
    _deprecated("lu")
    LU, pivots, info = lu_factor_ex(A, pivot=pivot)
    return (LU, pivots, info) if get_infos else (LU, pivots)


def lu_solve_old(b, LU_data, LU_pivots):
    """Solve ``A X = b`` from the packed LU decomposition of ``A``: PyTorch's older
    (deprecated) form of ``nbgrad.linalg.lu_solve``, with the right-hand side first.

    It warns that it is deprecated, as PyTorch's does.

    Args:
        b (Tensor): the right-hand sides, of shape :math:`(*, n, k)`.
        LU_data (Tensor): the packed LU factors of ``A``, of shape :math:`(*, n, n)`.
        LU_pivots (IntTensor): their pivots, of shape :math:`(*, n)`.

    Returns:
        Tensor: ``X``, of shape :math:`(*, n, k)`.

    Example::

        >>> import nbgrad
        >>> A = nbgrad.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> LU, pivots = nbgrad.linalg.lu_factor(A)
        >>> nbgrad.lu_solve(nbgrad.tensor([[5.0], [6.0]]), LU, pivots)
        tensor([[-4.0000],
                [ 4.5000]])
    """
    _deprecated("lu_solve")
    return lu_solve(LU_data, LU_pivots, b)


# ----- inv_ex, solve_ex: inv and solve that report a singular matrix in ``info`` -------------


def _getrs(lu, piv, b):
    """``X`` with ``A X = B`` from ``getf2``'s factors of host matrices, as LAPACK's
    ``getrs`` (row swaps, then unit-lower and upper substitutions): a zero pivot gives
    inf or NaN, as there."""
    x = np.array(np.broadcast_to(b, lu.shape[:-2] + b.shape[-2:]), dtype=lu.dtype)
    n = lu.shape[-1]
    flat, fx = lu.reshape(-1, n, n), x.reshape(-1, n, x.shape[-1])
    fp, rows = piv.reshape(-1, n) - 1, np.arange(flat.shape[0])
    for j in range(n):
        top = fx[rows, j].copy()
        fx[rows, j] = fx[rows, fp[:, j]]
        fx[rows, fp[:, j]] = top
    with np.errstate(divide="ignore", invalid="ignore"):
        for j in range(n):
            fx[:, j + 1:] -= flat[:, j + 1:, j:j + 1] * fx[:, j:j + 1]
        for j in range(n - 1, -1, -1):
            fx[:, j] /= flat[:, j, j:j + 1]
            fx[:, :j] -= flat[:, :j, j:j + 1] * fx[:, j:j + 1]
    return fx.reshape(x.shape)


def _failed(A, B, fname, check_errors):
    """A singular ``A``'s ``(X, info)`` for ``solve_ex``/``inv_ex``, without gradient (the
    factorization failed; ``info`` has A's batch shape), or PyTorch's error with
    ``check_errors``."""
    from ..creation import tensor

    h = _host(A)
    if check_errors and fname == "inv_ex":
        _singular(h, fname)
    lu, piv, info = _getf2(h)
    if check_errors:
        b = int(np.flatnonzero(info.reshape(-1))[0])
        where = f"(Batch element {b}): " if h.ndim > 2 else ""
        raise LinAlgError(f"torch.linalg.{fname}: {where}The solver failed because the input "
                          "matrix is singular.")
    hb = _host(B)
    batch = np.broadcast_shapes(h.shape[:-2], hb.shape[:-2])
    lu = np.broadcast_to(lu, batch + lu.shape[-2:])
    piv = np.broadcast_to(piv, batch + piv.shape[-1:])
    x = _getrs(lu, piv, np.broadcast_to(hb, batch + hb.shape[-2:]))
    return (tensor(x, dtype=A.dtype, device=A.device),
            tensor(info, dtype=_int32(), device=A.device))


def _int32():
    from ..dtypes import int32

    return int32


def _no_info(A):
    from ..creation import zeros

    return zeros(tuple(A.shape[:-2]), dtype=_int32(), device=A.device)


def inv_ex(A, *, check_errors=False):
    """``(inverse, info)``: ``linalg.inv`` that reports a singular matrix instead of
    raising: ``info`` per matrix is 0, or the 1-based place of LU's first zero pivot (the
    inverse of that matrix is then inf/NaN and has no gradient). With ``check_errors``
    a singular matrix raises as in ``inv``.

    Example::

        >>> import nbgrad
        >>> nbgrad.linalg.inv_ex(nbgrad.tensor([[1.0, 2.0], [2.0, 4.0]])).info
        tensor(2, dtype=nbgrad.int32)
    """
    _square(A, "inv")
    try:
        return RT.linalg_inv_ex(inv(A), _no_info(A))
    except LinAlgError:
        from ..creation import eye

        I_ = eye(A.shape[-1], dtype=A.dtype, device=A.device)
        return RT.linalg_inv_ex(*_failed(A, I_, "inv_ex", check_errors))


def solve_ex(A, B, *, left=True, check_errors=False):
    """``(result, info)``: ``linalg.solve`` that reports a singular ``A`` in ``info`` (0,
    or the 1-based place of LU's first zero pivot; that matrix's result is then inf/NaN
    and has no gradient) instead of raising, unless ``check_errors``.

    Example::

        >>> import nbgrad
        >>> nbgrad.linalg.solve_ex(nbgrad.eye(2), nbgrad.tensor([1.0, 2.0]))
        nbgrad.return_types.linalg_solve_ex(
        result=tensor([1., 2.]),
        info=tensor(0, dtype=nbgrad.int32))
    """
    _square(A, "solve")
    try:
        return RT.linalg_solve_ex(solve(A, B, left=left), _no_info(A))
    except LinAlgError:
        if not left:
            X, info = solve_ex(A.mT, B.mT, check_errors=check_errors)
            return RT.linalg_solve_ex(X.mT, info)
        vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
        X, info = _failed(A, B.unsqueeze(-1) if vector else B, "solve_ex", check_errors)
        return RT.linalg_solve_ex(X.squeeze(-1) if vector else X, info)
