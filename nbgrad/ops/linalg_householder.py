"""QR in LAPACK's packed form and its Householder reflectors: ``torch.geqrf`` (a row: the
factorization on the host, no derivative, as PyTorch's), ``linalg.householder_product``
(``orgqr``) and ``ormqr``, composed of products so that they differentiate (to any order).

``geqrf`` stores ``R`` in the upper triangle and the reflectors' vectors below it: reflector
``i`` is ``H_i = I - tau_i v_i v_i^T`` with ``v_i`` zero above row ``i``, one at row ``i``
and the column below the diagonal under it; ``Q = H_1 H_2 ... H_k``.
"""


import numpy as np

from .. import return_types as RT
from ._core import SCALAR_TYPE, check_tensor
from .elementwise import add, mul, sub
from .funcdef import deffunc, surface
from .linalg import matmul
from .linalg_solve import host_lapack, mT
from .selection import tril
from .shape import unsqueeze


def _geqrf(h):
    raw, tau = np.linalg.qr(h, mode="raw")  # (LAPACK's geqrf; its matrix comes transposed)
    return np.swapaxes(raw, -1, -2), tau


def _geqrf_shape(s):
    return tuple(s), tuple(s[:-2]) + (min(s[-2], s[-1]),)


def geqrf_backward():
    raise NotImplementedError("the derivative for 'geqrf' is not implemented.")


GEQRF = deffunc("geqrf", kernels=(), forward=host_lapack(_geqrf, _geqrf_shape),
                dtype=lambda dt: (dt, dt), shape=_geqrf_shape, outputs=("a", "tau"),
                differentiable=2, node="GeqrfBackward0", grads=("geqrf_backward()",),
                torch_names={}, fn=False, method=False)


def _lapack_dtype(A, kernel):
    if not A._dtype.is_floating_point or A._dtype.low:
        raise NotImplementedError(f'"{kernel}_{A.device.type}" not implemented for '
                                  f"'{SCALAR_TYPE[A._dtype.name]}'")


@surface(GEQRF)
def geqrf(input):
    """``(a, tau)``: the QR factorization of each matrix of ``input`` (..., m, n) in
    LAPACK's packed form: ``R`` in the upper triangle of ``a``, the Householder vectors
    below it, their scale factors in ``tau`` (..., min(m, n)). ``householder_product``
    makes ``Q`` of them; ``ormqr`` multiplies by it. No derivative (as PyTorch's).

    Example::

        >>> import nbgrad
        >>> a, tau = nbgrad.geqrf(nbgrad.tensor([[3.0, 1.0], [4.0, 2.0]]))
        >>> a.triu()
        tensor([[-5.0000, -2.2000],
                [ 0.0000,  0.4000]])
    """
    check_tensor(input, "geqrf")
    if input.ndim < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    _lapack_dtype(input, "geqrf")
    return RT.geqrf(*GEQRF.call(input))


def _check_tau(fname, input, tau, dims_message):
    check_tensor(tau, fname)
    if tau.dtype is not input.dtype:
        raise RuntimeError(f"torch.{fname}: tau dtype {SCALAR_TYPE[tau._dtype.name]} does not "
                           f"match input dtype {SCALAR_TYPE[input._dtype.name]}"
                           if dims_message else
                           f"torch.{fname}: Expected input and tau to have the same dtype, "
                           f"but input has dtype{SCALAR_TYPE[input._dtype.name]} and tau has "
                           f"dtype {SCALAR_TYPE[tau._dtype.name]}")
    if tau.ndim != input.ndim - 1 or tuple(tau.shape[:-1]) != tuple(input.shape[:-2]):
        raise RuntimeError(f"torch.{fname}: Expected batch dimensions of tau to be equal to "
                           f"input.shape[:-2], but got {list(tau.shape[:-1])}")


def _reflectors(input, k):
    """The Householder vectors of packed ``input`` (..., m, n) as the columns of a
    (..., m, k) matrix: ones on the diagonal, the packed entries below, zeros above."""
    from ..creation import eye

    m = input.shape[-2]
    v = tril(input, -1)[..., :k]
    return add(v, eye(m, k, dtype=input.dtype, device=input.device))


def _apply(C, V, tau, order, left):
    """``H_i`` applied to ``C`` for ``i`` in ``order``: from the left, ``C - tau_i v_i
    (v_i^T C)``; from the right, ``C - tau_i (C v_i) v_i^T``."""
    for i in order:
        v = V[..., :, i:i + 1]
        t = unsqueeze(unsqueeze(tau[..., i], -1), -1)
        if left:
            C = sub(C, mul(t, matmul(v, matmul(mT(v), C))))
        else:
            C = sub(C, mul(t, matmul(matmul(C, v), mT(v))))
    return C


def householder_product(input, tau):
    """The first ``n`` columns of ``Q = H_1 ... H_k`` for the Householder reflectors packed
    in each matrix of ``input`` (..., m, n), m >= n, and their scale factors ``tau``
    (..., k), k <= n: ``geqrf``'s ``Q``. Composed of products: differentiable in both.

    Example::

        >>> import nbgrad
        >>> a, tau = nbgrad.geqrf(nbgrad.tensor([[3.0, 1.0], [4.0, 2.0]]))
        >>> nbgrad.linalg.householder_product(a, tau)
        tensor([[-0.6000, -0.8000],
                [-0.8000,  0.6000]])
    """
    from ..creation import eye

    fname = "linalg.householder_product"
    check_tensor(input, fname)
    if input.ndim < 2:
        raise RuntimeError(f"torch.{fname}: input must have at least 2 dimensions.")
    m, n = input.shape[-2:]
    if m < n:
        raise RuntimeError(f"torch.{fname}: input.shape[-2] must be greater than or equal to "
                           "input.shape[-1]")
    check_tensor(tau, fname)
    if tau.ndim >= 1 and tau.shape[-1] > n:
        raise RuntimeError(f"torch.{fname}: input.shape[-1] must be greater than or equal to "
                           "tau.shape[-1]")
    _check_tau(fname, input, tau, True)
    _lapack_dtype(input, "orgqr")
    k = tau.shape[-1]
    Q = eye(m, n, dtype=input.dtype, device=input.device)
    Q = Q.expand(tuple(input.shape[:-2]) + (m, n))
    return _apply(Q, _reflectors(input, k), tau, range(k - 1, -1, -1), True)


def ormqr(input, tau, other, left=True, transpose=False):
    """``other`` multiplied by the full ``Q`` (m x m) of ``geqrf``'s packed reflectors
    ``(input, tau)``: ``Q @ other`` (``left``) or ``other @ Q``, with ``Q^T`` in its place
    when ``transpose``. Composed of products: differentiable in all three.

    Example::

        >>> import nbgrad
        >>> a, tau = nbgrad.geqrf(nbgrad.tensor([[3.0, 1.0], [4.0, 2.0]]))
        >>> nbgrad.ormqr(a, tau, nbgrad.eye(2), transpose=True)
        tensor([[-0.6000, -0.8000],
                [-0.8000,  0.6000]])
    """
    for t in (input, tau, other):
        check_tensor(t, "ormqr")
    if input.ndim < 2:
        raise RuntimeError("torch.ormqr: input must have at least 2 dimensions.")
    if other.ndim < 2:
        raise RuntimeError("torch.ormqr: other must have at least 2 dimensions.")
    side = -2 if left else -1
    if other.shape[side] != input.shape[-2]:
        raise RuntimeError(f"torch.ormqr: other.shape[{side}] must be equal to "
                           "input.shape[-2]")
    if other.dtype is not input.dtype:
        raise RuntimeError("torch.ormqr: Expected input and other to have the same dtype, but "
                           f"input has dtype{SCALAR_TYPE[input._dtype.name]} and other has "
                           f"dtype {SCALAR_TYPE[other._dtype.name]}")
    _check_tau("ormqr", input, tau, False)
    if other.ndim != input.ndim:
        raise RuntimeError("torch.ormqr: Expected other to have the same number of dimensions "
                           f"as input, but got other.ndim equal to {other.ndim} and input.ndim "
                           f"is equal to {input.ndim}")
    if tuple(other.shape[:-2]) != tuple(input.shape[:-2]):
        raise RuntimeError("torch.ormqr: Expected batch dimensions of other to be equal to "
                           f"input.shape[:-2], but got {list(other.shape[:-2])}")
    k = tau.shape[-1]
    if k != min(other.shape[side], input.shape[-1]):
        raise RuntimeError(f"torch.ormqr: tau.shape[-1] must be equal to min(other.shape"
                           f"[{side}], input.shape[-1])")
    _lapack_dtype(input, "ormqr")
    # Q = H_1 ... H_k: Q C applies H_k first; Q^T C (= H_k ... H_1 C) H_1 first; C Q H_1
    # first; C Q^T H_k first.
    forward = range(k)
    backward = range(k - 1, -1, -1)
    order = (backward if not transpose else forward) if left else \
        (forward if not transpose else backward)
    return _apply(other, _reflectors(input, k), tau, order, left)
