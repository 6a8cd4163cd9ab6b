"""geqrf / householder_product (orgqr) / ormqr and the ``*_ex`` forms of cholesky, inv and
solve, against PyTorch: values, info, PyTorch's partial results and errors, gradients by
finite differences to second order."""

import doctest

import numpy as np
import pytest

import nbgrad
from nbgrad.autograd import gradcheck, gradgradcheck
from tests._errors import assert_same_error

torch = pytest.importorskip("torch")
RNG = np.random.default_rng(0)


@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (2, 5, 3), (3, 5)])
def test_geqrf_householder_product_ormqr_match_torch(shape):
    A = RNG.standard_normal(shape)
    m = shape[-2]
    cs = {left: RNG.standard_normal(shape[:-2] + ((m, 2) if left else (2, m)))
          for left in (True, False)}
    res = []
    for mod in (nbgrad, torch):
        a, tau = mod.geqrf(mod.tensor(A))
        out = [a.numpy(), tau.numpy()]
        if shape[-2] >= shape[-1]:
            out.append(mod.linalg.householder_product(a, tau).numpy())
            out.append(mod.orgqr(a, tau[..., :1]).numpy())  # fewer reflectors than columns
        for left in (True, False):
            for transpose in (True, False):
                out.append(mod.ormqr(a, tau, mod.tensor(cs[left]), left, transpose).numpy())
        res.append(out)
    for x, y in zip(*res):
        assert x.shape == y.shape and x.dtype == y.dtype
        np.testing.assert_allclose(x, y, rtol=1e-12, atol=1e-13)


def test_householder_product_and_ormqr_differentiate():
    a = nbgrad.tensor(RNG.standard_normal((2, 4, 3)), requires_grad=True)
    tau = nbgrad.tensor(RNG.standard_normal((2, 3)), requires_grad=True)
    c = nbgrad.tensor(RNG.standard_normal((2, 4, 2)), requires_grad=True)
    assert gradcheck(nbgrad.linalg.householder_product, (a, tau))
    assert gradgradcheck(nbgrad.linalg.householder_product, (a, tau))
    for left, transpose in ((True, True), (True, False)):
        assert gradcheck(lambda x, t, y: nbgrad.ormqr(x, t, y, left, transpose), (a, tau, c))
    cr = nbgrad.tensor(RNG.standard_normal((2, 2, 4)), requires_grad=True)
    assert gradcheck(lambda x, t, y: nbgrad.ormqr(x, t, y, False, True), (a, tau, cr))
    # against torch's gradients, in float32 too
    A, T, W = RNG.standard_normal((4, 3)), RNG.standard_normal(3), RNG.standard_normal((4, 3))
    for dt in ("float32", "float64"):
        grads = []
        for mod in (nbgrad, torch):
            x = mod.tensor(A, dtype=getattr(mod, dt), requires_grad=True)
            t = mod.tensor(T, dtype=getattr(mod, dt), requires_grad=True)
            (mod.linalg.householder_product(x, t) * mod.tensor(W, dtype=getattr(mod, dt))
             ).sum().backward()
            grads.append((x.grad.numpy(), t.grad.numpy()))
        for g, h in zip(*grads):
            np.testing.assert_allclose(g, h, rtol=1e-4 if dt == "float32" else 1e-11,
                                       atol=1e-5 if dt == "float32" else 1e-12)


def test_geqrf_has_no_derivative():
    x = nbgrad.randn(3, 2, requires_grad=True)
    a, tau = nbgrad.geqrf(x)
    assert type(a.grad_fn).__name__ == "GeqrfBackward0"
    with pytest.raises(NotImplementedError, match="the derivative for 'geqrf' is not "
                                                  "implemented."):
        a.sum().backward()


@pytest.mark.parametrize("call", [
    lambda m: m.linalg.householder_product(m.randn(3, 4), m.randn(2)),
    lambda m: m.linalg.householder_product(m.randn(4, 3), m.randn(4)),
    lambda m: m.linalg.householder_product(m.randn(4), m.randn(1)),
    lambda m: m.linalg.householder_product(m.randn(4, 3), m.randn(2, dtype=m.float64)),
    lambda m: m.linalg.householder_product(m.randn(2, 4, 3), m.randn(3, 3)),
    lambda m: m.linalg.householder_product(m.ones(4, 3, dtype=m.int64),
                                           m.ones(2, dtype=m.int64)),
    lambda m: m.geqrf(m.randn(3)),
    lambda m: m.geqrf(m.ones(2, 3, dtype=m.int64)),
    lambda m: m.ormqr(m.randn(4, 3), m.randn(3), m.randn(4)),
    lambda m: m.ormqr(m.randn(4, 3), m.randn(3), m.randn(2, 3), left=False),
    lambda m: m.ormqr(m.randn(4, 3), m.randn(3), m.randn(3, 2)),
    lambda m: m.ormqr(m.randn(4, 3), m.randn(3), m.randn(4, 2, dtype=m.float64)),
    lambda m: m.ormqr(m.randn(4, 3), m.randn(3, dtype=m.float64), m.randn(4, 2)),
    lambda m: m.ormqr(m.randn(4, 3), m.randn(2), m.randn(4, 2)),
    lambda m: m.ormqr(m.randn(2, 4, 3), m.randn(3, 3), m.randn(2, 4, 2)),
    lambda m: m.ormqr(m.randn(2, 4, 3), m.randn(2, 3), m.randn(4, 2)),
    lambda m: m.ormqr(m.randn(2, 4, 3), m.randn(2, 3), m.randn(3, 4, 2)),
])
def test_householder_errors_match_torch(call):
    assert_same_error(call, torch, nbgrad)


_NOT_PD = np.array([[[4.0, 2, 1], [2, 1, 3], [1, 3, 5]], [[4.0, 2, 0], [2, 5, 0], [0, 0, 1]]])
_SINGULAR = np.array([[1.0, 2.0], [2.0, 4.0]])


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_ex_matches_torch(upper):
    for A in (_NOT_PD, np.array([[4.0, 2], [2, 5]]), _NOT_PD[1]):
        res = [m.linalg.cholesky_ex(m.tensor(A), upper=upper) for m in (nbgrad, torch)]
        np.testing.assert_array_equal(res[0].L.numpy(), res[1].L.numpy())
        assert res[0].info.tolist() == res[1].info.tolist()
        assert res[0].info.dtype == nbgrad.int32 and res[0].info.shape == A.shape[:-2]
    x = nbgrad.tensor([[4.0, 2], [2, 5]], dtype=nbgrad.float64, requires_grad=True)
    L = nbgrad.linalg.cholesky_ex(x).L
    assert type(L.grad_fn).__name__ == "LinalgCholeskyExBackward0"
    spd = lambda a: nbgrad.linalg.cholesky_ex(a @ a.mT + nbgrad.eye(2, dtype=a.dtype)).L
    assert gradcheck(spd, (x,)) and gradgradcheck(spd, (x,))


def test_inv_ex_and_solve_ex_match_torch():
    for A in (_SINGULAR, np.array([[0.0, 1], [1, 0]]), np.stack([np.eye(2), _SINGULAR])):
        res = [m.linalg.inv_ex(m.tensor(A)) for m in (nbgrad, torch)]
        np.testing.assert_array_equal(res[0].inverse.numpy(), res[1].inverse.numpy())
        assert res[0].info.tolist() == res[1].info.tolist()
        B = np.arange(6.0).reshape(3, 2)
        more = np.ones((3, 2, 1) if A.ndim == 2 else (2, 1))
        for b, left in ((B[0], True), (B.T, True), (B, False), (more, True)):
            res = [m.linalg.solve_ex(m.tensor(A), m.tensor(b), left=left)
                   for m in (nbgrad, torch)]
            np.testing.assert_allclose(res[0].result.numpy(), res[1].result.numpy(),
                                       rtol=1e-13)
            assert res[0].info.tolist() == res[1].info.tolist()
    x = nbgrad.tensor([[2.0, 1], [1, 3]], dtype=nbgrad.float64, requires_grad=True)
    assert type(nbgrad.linalg.inv_ex(x).inverse.grad_fn).__name__ == "LinalgInvExBackward0"
    assert gradcheck(lambda a: nbgrad.linalg.inv_ex(a).inverse, (x,))
    assert gradcheck(lambda a: nbgrad.linalg.solve_ex(a, a[0]).result, (x,))


@pytest.mark.parametrize("call", [
    lambda m: m.linalg.cholesky_ex(m.tensor(_NOT_PD), check_errors=True),
    lambda m: m.linalg.cholesky_ex(m.ones(2, 3)),
    lambda m: m.linalg.inv_ex(m.tensor(_SINGULAR).expand(3, 2, 2), check_errors=True),
    lambda m: m.linalg.inv_ex(m.tensor(_SINGULAR), check_errors=True),
    lambda m: m.linalg.inv_ex(m.ones(2, 3)),
    lambda m: m.linalg.solve_ex(m.tensor(_SINGULAR), m.ones(2, dtype=m.float64),
                                check_errors=True),
    lambda m: m.linalg.solve_ex(m.tensor(_SINGULAR).expand(2, 2, 2),
                                m.ones(2, dtype=m.float64), check_errors=True),
    lambda m: m.linalg.solve_ex(m.ones(2, 3), m.ones(2)),
])
def test_ex_errors_match_torch(call):
    assert_same_error(call, torch, nbgrad)


def test_docstring_examples_run():
    from nbgrad.ops import linalg_decomp, linalg_householder, linalg_lu

    for mod in (linalg_householder, linalg_lu, linalg_decomp):
        res = doctest.testmod(mod, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        assert res.attempted and not res.failed
