"""What is computed from the decompositions (issue #16): ``linalg.eigvalsh svdvals pinv
matrix_rank lstsq cond``, the spectral and nuclear matrix norms, ``cholesky_solve
cholesky_inverse``, PyTorch's older ``torch.svd / qr / cholesky``, ``multi_dot vecdot
diagonal cross``; values, gradients and errors against PyTorch, gradcheck and gradgradcheck
in float64. (The decomposition rows themselves are in tests/test_func_rows.py's table.)"""

import numpy as np
import pytest

import nbgrad
from nbgrad.autograd import gradcheck, gradgradcheck
from tests._errors import assert_same_error

torch = pytest.importorskip("torch")

_R = np.random.default_rng(11)
_SQ = _R.standard_normal((2, 3, 3))
_TALL = _R.standard_normal((4, 3))
_WIDE = _R.standard_normal((2, 3, 5))
_LOW_RANK = np.outer([1.0, 2.0, -1.0], [0.5, 1.0, 3.0])
_SPD = _SQ @ np.swapaxes(_SQ, -1, -2) + 2 * np.eye(3)
_B = _R.standard_normal((4, 2))


def _sym(m, x):
    return (x + x.mT) / 2


def _chol(m, x):
    return m.linalg.cholesky(_sym(m, x))


# (name, fn(lib, *tensors), inputs); the outputs must not depend on the vectors' signs
_CASES = [
    ("eigvalsh", lambda m, a: m.linalg.eigvalsh(_sym(m, a)), [_SPD]),
    ("eigvalsh_U", lambda m, a: m.linalg.eigvalsh(_sym(m, a), UPLO="U"), [_SPD[0]]),
    ("svdvals", lambda m, a: m.linalg.svdvals(a), [_WIDE]),
    ("pinv_tall", lambda m, a: m.linalg.pinv(a), [_TALL]),
    ("pinv_wide", lambda m, a: a.pinverse(), [_WIDE]),
    ("pinv_hermitian", lambda m, a: m.linalg.pinv(_sym(m, a), hermitian=True), [_SPD]),
    ("pinv_rtol", lambda m, a: m.linalg.pinv(a, rtol=0.5), [_TALL]),
    ("pinv_atol", lambda m, a: m.linalg.pinv(a, atol=1.0), [_TALL]),
    ("lstsq", lambda m, a, b: m.linalg.lstsq(a, b).solution, [_TALL, _B]),
    ("lstsq_vector", lambda m, a, b: m.linalg.lstsq(a, b[:, 0], driver="gelsd").solution,
     [_TALL, _B]),
    ("lstsq_residuals", lambda m, a, b: m.linalg.lstsq(a, b, driver="gelss").residuals,
     [_TALL, _B]),
    ("cond", lambda m, a: m.linalg.cond(a), [_SQ]),
    ("cond_m2", lambda m, a: m.linalg.cond(a, -2), [_WIDE]),
    # (torch 2.13 cannot differentiate these: its inverse is modified in place)
    ("cond_fro", lambda m, a: m.linalg.cond(a, "fro"), [_SQ], "values"),
    ("cond_inf", lambda m, a: m.linalg.cond(a, float("inf")), [_SQ], "values"),
    ("norm2", lambda m, a: m.linalg.matrix_norm(a, 2), [_WIDE]),
    ("norm_m2_keepdim", lambda m, a: m.linalg.matrix_norm(a, -2, keepdim=True), [_WIDE]),
    ("nuc_dims", lambda m, a: m.linalg.matrix_norm(a, "nuc", dim=(2, 0)), [_WIDE]),
    ("norm_nuc", lambda m, a: m.linalg.norm(a[0], "nuc"), [_WIDE]),
    ("cholesky_solve", lambda m, a, b: m.cholesky_solve(b[:3], _chol(m, a[0])), [_SPD, _B]),
    ("cholesky_solve_upper", lambda m, a, b: b[:3].cholesky_solve(
        m.linalg.cholesky(_sym(m, a[1]), upper=True), upper=True), [_SPD, _B]),
    ("cholesky_inverse", lambda m, a: m.cholesky_inverse(_chol(m, a)), [_SPD]),
    ("svd_old_S", lambda m, a: m.svd(a).S, [_TALL]),
    ("svd_old_U", lambda m, a: a.svd(some=True).U.abs(), [_TALL]),
    ("svd_old_V", lambda m, a: m.svd(a, some=False).V.abs(), [_TALL]),
    ("qr_old", lambda m, a: m.qr(a, some=False)[1], [_WIDE[0]]),
    ("cholesky_old", lambda m, a: _sym(m, a).cholesky(upper=True), [_SPD]),
    ("multi_dot", lambda m, a, b, c: m.linalg.multi_dot([a[0], b, c[0]]),
     [_SQ, _TALL[:3], _R.standard_normal((3, 3))]),
    ("vecdot", lambda m, a, b: m.linalg.vecdot(a, b, dim=0), [_TALL, _TALL[::-1].copy()]),
    ("diagonal", lambda m, a: m.linalg.diagonal(a, offset=1), [_WIDE]),
    ("cross", lambda m, a, b: m.linalg.cross(a, b), [_TALL, _TALL[::-1].copy()]),
]


@pytest.mark.parametrize("case", _CASES, ids=[c[0] for c in _CASES])
def test_values_and_gradients_match_torch(case):
    _name, fn, inputs = case[:3]
    xs = [nbgrad.tensor(a, requires_grad=True) for a in inputs]
    txs = [torch.tensor(a, requires_grad=True) for a in inputs]
    y, ty = fn(nbgrad, *xs), fn(torch, *txs)
    assert y.dtype == nbgrad.float64 and tuple(y.shape) == tuple(ty.shape)
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-9, atol=1e-11)
    if case[3:] == ("values",):
        assert gradcheck(lambda *t: fn(nbgrad, *t), tuple(xs))
        return
    w = np.random.default_rng(2).standard_normal(tuple(y.shape))
    gs = nbgrad.autograd.grad((y * nbgrad.tensor(w)).sum(), xs, allow_unused=True)
    tgs = torch.autograd.grad((ty * torch.tensor(w)).sum(), txs, allow_unused=True)
    for g, tg in zip(gs, tgs):
        assert (g is None) == (tg is None)
        if g is not None:
            np.testing.assert_allclose(g.numpy(), tg.numpy(), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("name", ["svdvals", "pinv_wide", "lstsq", "nuc_dims", "cond",
                                  "cholesky_solve", "eigvalsh", "pinv_hermitian"])
def test_gradcheck_and_gradgradcheck(name):
    _name, fn, inputs = next(c for c in _CASES if c[0] == name)[:3]
    xs = tuple(nbgrad.tensor(a, requires_grad=True) for a in inputs)
    f = lambda *t: fn(nbgrad, *t)  # noqa: E731
    assert gradcheck(f, xs)
    assert gradgradcheck(f, xs)


def test_rank_lstsq_outputs_and_float32():
    for A in (_TALL, _LOW_RANK, _WIDE, _SPD):
        for kw in ({}, {"atol": 0.5}, {"rtol": 0.3}, {"hermitian": True}):
            if kw.get("hermitian") and A.shape[-1] != A.shape[-2]:
                continue
            a = np.asarray(A, np.float32)
            got = nbgrad.linalg.matrix_rank(nbgrad.tensor(a), **kw)
            want = torch.linalg.matrix_rank(torch.tensor(a), **kw)
            assert got.dtype == nbgrad.int64 and got.tolist() == want.tolist()
    for driver in ("gels", "gelsy", "gelsd", "gelss", None):
        # (gels refuses a matrix without full rank: LAPACK's error, not reproduced)
        low = () if driver == "gels" else ((_LOW_RANK, _B[:3]),)
        for A, B in ((_TALL, _B), (_TALL, _B[:, 0]), *low,
                     (_R.standard_normal((2, 4, 2)), _R.standard_normal((2, 4, 3)))):
            got = nbgrad.linalg.lstsq(nbgrad.tensor(A), nbgrad.tensor(B), driver=driver)
            want = torch.linalg.lstsq(torch.tensor(A), torch.tensor(B), driver=driver)
            assert type(got).__name__ == "linalg_lstsq"
            for g, t in zip(got, want):
                assert g.dtype.is_floating_point == t.dtype.is_floating_point
                assert tuple(g.shape) == tuple(t.shape), (driver, A.shape, B.shape)
            np.testing.assert_allclose(got.solution.numpy(), want.solution.numpy(), atol=1e-10)
            np.testing.assert_allclose(got.residuals.numpy(), want.residuals.numpy(),
                                       rtol=1e-10)
            np.testing.assert_allclose(got.singular_values.numpy(),
                                       want.singular_values.numpy(), rtol=1e-10, atol=1e-14)
            assert got.rank.tolist() == want.rank.tolist()
    a = _TALL.astype(np.float32)
    U, S, Vh = nbgrad.linalg.svd(nbgrad.tensor(a), full_matrices=False)
    assert U.dtype == S.dtype == Vh.dtype == nbgrad.float32
    np.testing.assert_allclose((U * S[None]) @ Vh, a, atol=1e-5)
    s = nbgrad.svd(nbgrad.tensor(a), compute_uv=False)
    ts = torch.svd(torch.tensor(a), compute_uv=False)
    assert type(s).__name__ == "svd" and not s.U.any() and tuple(s.V.shape) == (3, 3)
    assert tuple(s.U.shape) == tuple(ts.U.shape)
    q = nbgrad.linalg.qr(nbgrad.tensor(a), mode="r")
    assert tuple(q.Q.shape) == (0,) and tuple(q.R.shape) == (3, 3)


@pytest.mark.parametrize("call", [
    lambda m: m.linalg.cholesky(m.tensor([[1.0, 2.0], [2.0, 1.0]])),
    lambda m: m.linalg.cholesky(m.stack([m.eye(3), m.tensor(-_SPD[0])])),
    lambda m: m.linalg.cholesky(m.ones(2, 3)),
    lambda m: m.linalg.cholesky(m.ones(3)),
    lambda m: m.linalg.cholesky(m.ones(2, 2, dtype=m.long)),
    lambda m: m.linalg.eigh(m.ones(2, 3)),
    lambda m: m.linalg.eigh(m.eye(2), UPLO="X"),
    lambda m: m.linalg.qr(m.ones(2, 3), mode="x"),
    lambda m: m.linalg.qr(m.ones(3)),
    lambda m: m.linalg.svd(m.ones(3)),
    lambda m: m.linalg.svdvals(m.ones(2, 2, dtype=m.long)),
    lambda m: m.linalg.svd(m.eye(2, dtype=m.bfloat16)),
    lambda m: m.linalg.solve_triangular(m.eye(2), m.ones(2), upper=True),
    lambda m: m.linalg.solve_triangular(m.eye(2), m.ones(3, 1), upper=True),
    lambda m: m.linalg.solve_triangular(m.ones(2, 3), m.ones(2, 1), upper=True),
    lambda m: m.cholesky_solve(m.ones(2, 1, dtype=m.float64), m.eye(2)),
    lambda m: m.linalg.pinv(m.ones(3)),
    lambda m: m.linalg.svd(m.full((2, 2), float("nan"))),
    lambda m: m.linalg.pinv(m.eye(2) / 0),
    lambda m: m.linalg.matrix_rank(m.full((2, 3), float("nan"))),
    lambda m: m.linalg.pinv(m.eye(2, dtype=m.float16)),
    lambda m: m.linalg.matrix_rank(m.ones(3)),
    lambda m: m.linalg.matrix_norm(m.ones(3, 3), ord=3),
    lambda m: m.linalg.cond(m.ones(3, 3), p=3),
    lambda m: m.linalg.cond(m.ones(2, 3), "fro"),
    lambda m: m.linalg.lstsq(m.ones(3, 2), m.ones(4, 1)),
    lambda m: m.linalg.lstsq(m.ones(3, 2), m.ones(3, 1), driver="x"),
    lambda m: m.linalg.lstsq(m.ones(2, 3, 2), m.ones(3)),
    lambda m: m.linalg.qr(m.ones(3, 3, requires_grad=True), mode="r")[1].sum().backward(),
    lambda m: m.linalg.qr(m.ones(4, 3, requires_grad=True), mode="complete")[0].sum()
    .backward(),
])
def test_errors_match_torch(call):
    assert_same_error(call, torch, nbgrad)
    with pytest.raises(TypeError):  # (``upper`` has no default)
        nbgrad.linalg.solve_triangular(nbgrad.eye(2), nbgrad.ones(2, 1))


def test_older_names_warn_once_as_pytorch():
    """PyTorch's deprecation warnings (its text, to the "(Triggered internally" it adds),
    once per process."""
    import warnings

    from nbgrad import _warnings

    for name, call, text in (
            ("qr", lambda: nbgrad.qr(nbgrad.tensor(_TALL)),
             "torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a "
             "future PyTorch release.\nThe boolean parameter 'some' has been replaced"),
            ("cholesky", lambda: nbgrad.cholesky(nbgrad.tensor(_SPD[0])),
             "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be "
             "removed in a future PyTorch release.\nL = torch.cholesky(A)\nshould be")):
        _warnings._GIVEN.discard(name)
        with pytest.warns(UserWarning) as got:
            call()
        assert str(got[0].message).startswith(text) and got[0].filename == __file__
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            call()


def test_docstring_examples_run():
    import doctest

    from nbgrad.ops import linalg_decomp, linalg_spectral

    for mod in (linalg_decomp, linalg_spectral):
        res = doctest.testmod(mod)
        assert res.attempted > 5 and res.failed == 0, mod.__name__


def test_eigh_of_nan_and_a_compiled_function_through_the_decompositions():
    with pytest.raises(RuntimeError, match="^linalg.eigh: The algorithm failed to converge "
                       "because the input matrix is ill-conditioned"):
        nbgrad.linalg.eigh(nbgrad.full((3, 3), float("nan")))

    # (the compiler records the rows on stand-ins, NaN, which LAPACK would refuse)
    def f(x):
        U, S, Vh = nbgrad.linalg.svd(x * 2.0, full_matrices=False)
        Q, R = nbgrad.linalg.qr(x + 1.0)
        return (nbgrad.linalg.cholesky(x).tanh().sum() + S.sum() + (U * U).sum()
                + nbgrad.linalg.pinv(x).sum() + (Q * Q * R).sum()
                + nbgrad.linalg.eigh(x)[0].sum())

    cf = nbgrad.compile(f)
    for k in range(3):
        x, x2 = (nbgrad.tensor(_SPD[0] + k * 0.1, requires_grad=True) for _ in range(2))
        y, y2 = cf(x), f(x2)
        y.backward()
        y2.backward()
        # (the compiled backward fuses the elementwise steps: last-bit differences)
        np.testing.assert_allclose(y.item(), y2.item(), rtol=1e-14)
        np.testing.assert_allclose(x.grad.numpy(), x2.grad.numpy(), rtol=1e-13, atol=1e-15)
    with pytest.raises(RuntimeError, match="not positive-definite"):
        cf(nbgrad.tensor(-_SPD[0]))
