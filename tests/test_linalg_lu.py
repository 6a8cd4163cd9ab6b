"""linalg.lu_factor / lu / lu_solve and lu_unpack against PyTorch: factors, pivots,
gradients for square, tall and wide matrices, every solve form, finite differences to
second order, errors."""

import warnings

import numpy as np
import pytest

import nbgrad
from nbgrad.autograd import gradcheck, gradgradcheck
from tests._errors import assert_same_error

torch = pytest.importorskip("torch")
RNG = np.random.default_rng(0)


@pytest.mark.parametrize("shape", [(4, 4), (2, 5, 3), (3, 4, 6)])
def test_lu_factor_and_lu_match_torch(shape):
    A = RNG.standard_normal(shape)
    w = RNG.standard_normal(shape)
    res = []
    for m in (nbgrad, torch):
        a = m.tensor(A, requires_grad=True)
        LU, piv = m.linalg.lu_factor(a)
        (LU * m.tensor(w)).sum().backward()
        P, L, U = m.linalg.lu(m.tensor(A))
        res.append((LU.detach().numpy(), piv.numpy(), a.grad.numpy(), P.numpy(), L.numpy(),
                    U.numpy()))
    for x, y in zip(*res):
        assert x.shape == y.shape and x.dtype == y.dtype
        np.testing.assert_allclose(x, y, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [True, False])
def test_lu_solve_matches_torch(left, adjoint):
    A, B = RNG.standard_normal((2, 3, 3)), RNG.standard_normal((2, 3, 2))
    B = B if left else np.swapaxes(B, -1, -2)
    res = []
    for m in (nbgrad, torch):
        a, b = m.tensor(A, requires_grad=True), m.tensor(B, requires_grad=True)
        x = m.linalg.lu_solve(*m.linalg.lu_factor(a), b, left=left, adjoint=adjoint)
        (x * x).sum().backward()
        res.append((x.detach().numpy(), a.grad.numpy(), b.grad.numpy()))
    for x, y in zip(*res):
        np.testing.assert_allclose(x, y, rtol=1e-11, atol=1e-12)


def test_the_older_lu_and_lu_solve_match_torch():
    from nbgrad import _warnings

    # (nbgrad warns once per process, as PyTorch's TORCH_WARN_ONCE: another test in this
    # process may have had the warning already)
    _warnings._GIVEN.difference_update({"lu", "lu_solve"})
    A, B = RNG.standard_normal((2, 3, 3)), RNG.standard_normal((2, 3, 2))
    res = []
    for m in (nbgrad, torch):
        a, b = m.tensor(A, requires_grad=True), m.tensor(B, requires_grad=True)
        with pytest.warns(UserWarning, match="torch.lu is deprecated"):
            warnings.simplefilter("always")
            LU, piv = a.lu()
        LU2, piv2, info = m.lu(a, get_infos=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            x = m.lu_solve(b, LU, piv)
        assert "torch.lu_solve is deprecated" in str(caught[0].message)
        assert info.tolist() == [0, 0] and piv.dtype == m.int32
        np.testing.assert_array_equal(LU.detach().numpy(), LU2.detach().numpy())
        np.testing.assert_array_equal(x.detach().numpy(), b.lu_solve(LU2, piv2).detach().numpy())
        (x * x).sum().backward()
        res.append((LU.detach().numpy(), piv.numpy(), x.detach().numpy(), a.grad.numpy(),
                    b.grad.numpy()))
    for x, y in zip(*res):
        np.testing.assert_allclose(x, y, rtol=1e-11, atol=1e-12)
    for m in (nbgrad, torch):  # a singular matrix: its info, no error
        assert m.lu(m.zeros(2, 2), get_infos=True)[2].item() == 1


def test_finite_differences_and_unpack():
    for shape in ((3, 3), (4, 2), (2, 4)):
        a = nbgrad.tensor(RNG.standard_normal(shape), requires_grad=True)
        assert gradcheck(lambda t: nbgrad.linalg.lu_factor(t)[0], (a,))
        assert gradgradcheck(lambda t: nbgrad.linalg.lu(t)[2], (a,))
    A = RNG.standard_normal((3, 3))
    for m in (nbgrad, torch):
        P, L, U = m.lu_unpack(*m.linalg.lu_factor(m.tensor(A)))
        np.testing.assert_allclose((P @ L @ U).numpy(), A, rtol=1e-12, atol=1e-14)
    a = nbgrad.tensor(A, requires_grad=True)
    assert nbgrad.linalg.lu_factor(a)[0].grad_fn.name() == "LinalgLuFactorExBackward0"
    z = np.zeros((2, 2, 3))
    z[0] = np.eye(2, 3)
    for m in (nbgrad, torch):
        LU, piv, info = m.linalg.lu_factor_ex(m.tensor(z))
        assert info.tolist() == [0, 1] and info.dtype == m.int32 and LU.shape == (2, 2, 3)


@pytest.mark.parametrize("call", [
    lambda m: m.linalg.lu_factor(m.zeros(3)),
    lambda m: m.linalg.lu_factor(m.zeros(2, 2, dtype=m.int64)),
    lambda m: m.linalg.lu_factor(m.zeros(2, 2, dtype=m.float16)),
    lambda m: m.linalg.lu_factor(m.zeros(2, 3)),
    lambda m: m.linalg.lu_factor(m.stack([m.eye(2, 3), m.zeros(2, 3)])),
    lambda m: m.linalg.lu_factor_ex(m.zeros(2, 2), check_errors=True),
])
def test_errors_match_torch(call):
    assert_same_error(call, torch, nbgrad, lambda text: text.replace("torch.", "nbgrad."))


def test_docstring_examples_run():
    import doctest

    import nbgrad.ops.linalg_lu as mod

    res = doctest.testmod(mod)
    assert res.attempted >= 6 and res.failed == 0
