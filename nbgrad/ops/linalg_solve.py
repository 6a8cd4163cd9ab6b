"""Inverses, determinants and linear solves of (batches of) square matrices: ``linalg.inv``,
``linalg.det``, ``linalg.slogdet``, ``linalg.solve``. The forward is LAPACK's through
NumPy, on the host (a round trip for device tensors); the backward rules are written in
nbgrad ops, these rows among them, so every order of derivative works."""


import numpy as np

from .. import return_types as RT
from .._recording import stand_ins
from ..amp.policy import autocast_op
from ._core import SCALAR_TYPE, backend, check_tensor
from .elementwise import mul
from .funcdef import deffunc, same_dtype, surface
from .linalg import matmul
from .shape import transpose, unsqueeze


class LinAlgError(RuntimeError):
    """A linear algebra routine failed on its input (a singular matrix), as
    ``torch.linalg.LinAlgError``."""


def mT(x):
    """The matrices of ``x`` transposed."""
    return transpose(x, -2, -1)


def _square(A, fname):
    check_tensor(A, f"linalg.{fname}")
    if A.ndim < 2:
        raise RuntimeError(f"linalg.{fname}: The input tensor A must have at least 2 "
                           "dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.{fname}: A must be batches of square matrices, but they "
                           f"are {A.shape[-2]} by {A.shape[-1]} matrices")
    if not A.dtype.is_floating_point:
        raise RuntimeError(f"linalg.{fname}: Expected a floating point or complex tensor as "
                           f"input. Got {SCALAR_TYPE[A._dtype.name]}")


def _singular(h, fname):
    """PyTorch's error for a singular matrix: the first zero pivot of LU with partial
    pivoting (LAPACK's getrf ``info``), in the first batch element that has one."""
    flat = h.reshape(-1, h.shape[-2], h.shape[-1]).astype(np.float64)
    for b, a in enumerate(flat):
        a = a.copy()
        n = a.shape[0]
        for k in range(n):
            p = k + int(np.argmax(np.abs(a[k:, k])))
            if a[p, k] == 0:
                where = f"(Batch element {b}): " if h.ndim > 2 else ""
                raise LinAlgError(f"linalg.{fname}: {where}The diagonal element {k + 1} is "
                                   "zero, the inversion could not be completed because the "
                                   "input matrix is singular.")
            a[[k, p]] = a[[p, k]]
            a[k + 1:] -= np.outer(a[k + 1:, k] / a[k, k], a[k])
    raise LinAlgError(f"linalg.{fname}: the input matrix is singular")


def host_lapack(fn, shape, arrays=1):
    """A row's forward from ``fn`` of the host arrays of its ``arrays`` operands and its
    arguments: the outputs (one, or a tuple) in the row's dtypes, on its device. On the
    compiler's stand-ins (a shape-only recording: NaN, never read), NaN of the row's
    ``shape`` rule instead, since LAPACK may refuse them."""
    def forward(*operands):
        odt, dev, args = operands[arrays], operands[arrays + 1], operands[arrays + 2:]
        be = backend(dev)
        hs = [np.asarray(be.to_host(a)) for a in operands[:arrays]]
        if stand_ins():
            out = shape(*[h.shape for h in hs], *args)
            out = tuple(np.full(s, np.nan) for s in out) if isinstance(odt, tuple) else \
                np.full(out, np.nan)
        else:
            out = fn(*hs, *args)
        dts = odt if isinstance(odt, tuple) else (odt,)
        outs = out if isinstance(out, tuple) else (out,)
        res = tuple(be.from_host(np.array(o, d.np, order="C")) for o, d in zip(outs, dts))
        return res if isinstance(odt, tuple) else res[0]

    return forward


def _or_singular(fn, fname):
    """``fn`` of a host matrix, PyTorch's singular-matrix error where LAPACK fails."""
    def call(h):
        try:
            return fn(h)
        except np.linalg.LinAlgError:
            _singular(h, fname)

    return call


def _same_shape(s, *args):
    return tuple(s)


INV = deffunc("inv", kernels=(), forward=host_lapack(_or_singular(np.linalg.inv, "inv"),
                                                      _same_shape),
              dtype=same_dtype, shape=_same_shape, node="LinalgInvExBackward0",
              grads=("neg(matmul(matmul(mT(result), grad), mT(result)))",), torch_names={},
              fn=False, method=False)
def _batch_shape(s):
    return tuple(s[:-2])


DET = deffunc("det", kernels=(), forward=host_lapack(_or_singular(np.linalg.det, "det"),
                                                      _batch_shape),
              dtype=same_dtype, shape=_batch_shape, node="LinalgDetBackward0",
              grads=("det_backward(grad, result, input)",),
              torch_names={}, fn=False, method=False)


def det_backward(grad, det, A):
    """``grad * adj(A)^T``: ``det A^{-T}`` where every matrix is invertible; else (as
    PyTorch's) the adjugate from the SVD ``A = U S V^T``, ``det(U) det(V^T) U diag(p) V^T``
    with ``p_i`` the product of the singular values but the ``i``-th."""
    g = unsqueeze(unsqueeze(grad, -1), -1)
    try:
        return mul(mul(g, unsqueeze(unsqueeze(det, -1), -1)), mT(inv(A)))
    except LinAlgError:
        pass
    from .concat import cat, stack
    from .linalg_decomp import svd
    from .reduce import prod

    U, S, Vh = svd(A)
    n = S.shape[-1]
    p = stack([prod(cat([S[..., :i], S[..., i + 1:]], -1), -1) for i in range(n)], -1)
    sign = unsqueeze(unsqueeze(mul(det_of(U), det_of(Vh)), -1), -1)
    return mul(mul(g, sign), matmul(mul(U, unsqueeze(p, -2)), Vh))


def det_of(A):
    """``det(A)`` through the op row (``det``'s front checks; this is for formulas)."""
    return DET.call(A)


def _slogdet(h):
    sign, logabs = np.linalg.slogdet(h)
    return sign, logabs


def _slogdet_shape(s):
    return (_batch_shape(s),) * 2


SLOGDET = deffunc("slogdet", kernels=(),
                  forward=host_lapack(_or_singular(_slogdet, "slogdet"), _slogdet_shape),
                  dtype=lambda idt: (idt, idt), shape=_slogdet_shape,
                  outputs=("sign", "logabsdet"), differentiable=2, node="LinalgSlogdetBackward0",
                  grads=("slogdet_backward(grads, input)",),
                  torch_names={}, fn=False, method=False)


def slogdet_backward(grads, A):
    """logabsdet's gradient ``g A^{-T}`` (the sign has none)."""
    g = grads[1]
    if g is None:
        from ..creation import zeros_like

        return zeros_like(A)
    return mul(unsqueeze(unsqueeze(g, -1), -1), mT(inv(A)))


def _solve(a, b, vector):
    if vector:
        return np.linalg.solve(a, b[..., None])[..., 0]
    return np.linalg.solve(a, b)


def _solve_or_raise(a, b, vector):
    try:
        return _solve(a, b, vector)
    except np.linalg.LinAlgError:
        raise LinAlgError("torch.linalg.solve: The solver failed because the input matrix is "
                          "singular.") from None


def _solve_shape(sa, sb, vector):
    batch = tuple(np.broadcast_shapes(tuple(sa[:-2]), tuple(sb[:-1] if vector else sb[:-2])))
    return batch + ((sa[-1],) if vector else (sa[-1], sb[-1]))


def solve_backward_a(grad_b, result, vector):
    """``-grad_B X^T``: the solution's gradient for ``A``."""
    if vector:
        return -matmul(unsqueeze(grad_b, -1), unsqueeze(result, -2))
    return -matmul(grad_b, mT(result))


SOLVE = deffunc("solve", params=("A", "B"), kernels=(),
                forward=host_lapack(_solve_or_raise, _solve_shape, 2),
                dtype=lambda a, b, vector: a, shape=_solve_shape,
                args=("vector",), node="LinalgSolveExBackward0",
                grads={"A, B": "solve_backward(grad, A, result, vector, grad_input_mask)"},
                torch_names={}, fn=False, method=False)


def solve_backward(grad, A, result, vector, mask):
    """``(grad_A, grad_B)`` of ``X = A^{-1} B``: ``grad_B = A^{-T} grad``, ``grad_A =
    -grad_B X^T``."""
    gb = solve(mT(A), grad)
    return (solve_backward_a(gb, result, vector) if mask[0] else None), (gb if mask[1]
                                                                           else None)


@surface(INV)
@autocast_op("linalg_inv")
def inv(A):
    """The inverse of a square matrix, or of each matrix of a batch.

    ``nbgrad.linalg.inv`` and ``nbgrad.inverse`` (PyTorch's older name, also
    :meth:`nbgrad.Tensor.inverse`) are this function. A singular matrix raises an error (see
    ``nbgrad.linalg.inv_ex`` to have it reported instead). To solve ``A X = B``,
    ``nbgrad.linalg.solve`` is faster and more accurate than multiplying by the inverse.

    Args:
        A (Tensor): a square matrix or a batch of them, of shape :math:`(*, n, n)`, of a
            floating-point dtype.

    Returns:
        Tensor: the inverses, of shape :math:`(*, n, n)`.

    Example::

        >>> import nbgrad
        >>> nbgrad.linalg.inv(nbgrad.tensor([[2.0, 0.0], [0.0, 4.0]]))
        tensor([[0.5000, 0.0000],
                [0.0000, 0.2500]])
        >>> A = nbgrad.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> nbgrad.inverse(A)
        tensor([[-2.0000,  1.0000],
                [ 1.5000, -0.5000]])
    """
    _square(A, "inv")
    return INV.call(A)


@surface(DET)
def det(A):
    """The determinant of a square matrix, or of each matrix of a batch.

    ``nbgrad.linalg.det`` and ``nbgrad.det`` are this function.

    Args:
        A (Tensor): a square matrix or a batch of them, of shape :math:`(*, n, n)`, of a
            floating-point dtype.

    Returns:
        Tensor: the determinants, of shape :math:`(*)`.

    Example::

        >>> import nbgrad
        >>> nbgrad.linalg.det(nbgrad.tensor([[1.0, 2.0], [3.0, 4.0]]))
        tensor(-2.)
        >>> nbgrad.det(nbgrad.eye(3).expand(2, 3, 3) * 2)
        tensor([8., 8.])
    """
    _square(A, "det")
    return DET.call(A)


@surface(SLOGDET)
def slogdet(A):
    """The sign and the logarithm of the absolute value of the determinant of square matrices.

    The determinant is ``sign * exp(logabsdet)``, and this form neither overflows nor
    underflows where the determinant itself would. A singular matrix has sign 0 and
    ``logabsdet`` ``-inf``. ``nbgrad.linalg.slogdet`` and ``nbgrad.slogdet`` are this
    function.

    Args:
        A (Tensor): a square matrix or a batch of them, of shape :math:`(*, n, n)`, of a
            floating-point dtype.

    Returns:
        (Tensor, Tensor): a named tuple ``(sign, logabsdet)``, each of shape :math:`(*)`.

    Example::

        >>> import nbgrad
        >>> sign, logabsdet = nbgrad.linalg.slogdet(nbgrad.tensor([[1.0, 2.0], [3.0, 4.0]]))
        >>> sign, logabsdet
        (tensor(-1.), tensor(0.6931))
        >>> nbgrad.slogdet(nbgrad.eye(50) * 100).logabsdet
        tensor(230.2585)
    """
    _square(A, "slogdet")
    return RT.slogdet(*SLOGDET.call(A))  # (the sign gets no gradient from the node)


@surface(SOLVE)
@autocast_op("linalg_solve")
def solve(A, B, *, left=True):
    """``X`` with ``A X = B`` for each square matrix of ``A``; ``B`` a matrix (..., n, k) or
    a vector (..., n).

    Example::

        >>> import nbgrad
        >>> nbgrad.linalg.solve(nbgrad.tensor([[2.0, 0.0], [0.0, 4.0]]), nbgrad.tensor([2.0, 2.0]))
        tensor([1.0000, 0.5000])
    """
    if not left:
        return mT(solve(mT(A), mT(B)))
    _square(A, "solve")
    check_tensor(B, "linalg.solve")
    if A.dtype is not B.dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found "
                           f"A of type {SCALAR_TYPE[A._dtype.name]} and B of type "
                           f"{SCALAR_TYPE[B._dtype.name]} instead")
    vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    if B.shape[-1 if vector else -2] != A.shape[-1]:
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation "
                           f"AX = B ({A.shape[-2]}x{A.shape[-1]} and "
                           f"{'x'.join(map(str, B.shape[-1 if vector else -2:]))})")
    return SOLVE.call(A, B, vector)


def matrix_power(A, n):
    """The ``n``-th power of a square matrix (or of each matrix of a batch).

    ``n = 0`` gives the identity, a negative ``n`` the power ``-n`` of the inverse. The power
    is computed by repeated squaring. ``nbgrad.linalg.matrix_power`` and
    ``nbgrad.matrix_power`` are this function.

    Args:
        A (Tensor): a square matrix or a batch of them, of shape :math:`(*, m, m)`.
        n (int): the exponent.

    Returns:
        Tensor: of ``A``'s shape.

    Example::

        >>> import nbgrad
        >>> A = nbgrad.tensor([[1.0, 1.0], [0.0, 1.0]])
        >>> nbgrad.matrix_power(A, 3)
        tensor([[1., 3.],
                [0., 1.]])
        >>> nbgrad.matrix_power(A, -2)
        tensor([[ 1., -2.],
                [ 0.,  1.]])
        >>> nbgrad.matrix_power(A, 0)
        tensor([[1., 0.],
                [0., 1.]])
    """
    from ..creation import eye

    check_tensor(A, "matrix_power")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"matrix_power(): argument 'n' (position 2) must be int, not "
                        f"{type(n).__name__}")
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        shape = tuple(A.shape[-2:]) if A.ndim >= 2 else (A.numel(), 1)
        raise RuntimeError("linalg.matrix_power: A must be batches of square matrices, but "
                           f"they are {shape[0]} by {shape[1]} matrices")
    n = int(n)
    if n == 0:
        return eye(A.shape[-1], dtype=A.dtype, device=A.device).expand(tuple(A.shape)).clone()
    if n < 0:
        A, n = inv(A), -n
    if n == 1:
        return A.clone()
    if n == 2:
        return matmul(A, A)
    if n == 3:
        return matmul(matmul(A, A), A)
    z = result = None
    while n > 0:
        bit, n = n % 2, n // 2
        z = A if z is None else matmul(z, z)
        if bit:
            result = z if result is None else matmul(result, z)
    return result


def logdet(A):
    """The logarithm of the determinant of a square matrix (or of each matrix of a batch).

    It is NaN where the determinant is negative and ``-inf`` where it is 0 (see
    :func:`nbgrad.slogdet` for the log of its absolute value).

    Args:
        A (Tensor): a square matrix or a batch of them, of shape :math:`(*, n, n)`, of a
            floating-point dtype.

    Returns:
        Tensor: of shape :math:`(*)`.

    Example::

        >>> import nbgrad
        >>> nbgrad.logdet(nbgrad.tensor([[2.0, 0.0], [0.0, 3.0]]))
        tensor(1.7918)
        >>> nbgrad.logdet(nbgrad.tensor([[1.0, 2.0], [3.0, 4.0]]))
        tensor(nan)
    """
    sign, logabs = slogdet(A)
    from .elementwise import lt, where

    return where(lt(sign, 0), float("nan"), logabs)
