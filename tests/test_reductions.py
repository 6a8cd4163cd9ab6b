"""Tests of the reductions var, std, var_mean, std_mean (ops/stats.py), prod, logsumexp
(ops/reduce.py) and norm (ops/linalg.py), and the float32 accuracy of long sums."""

import math

import numpy as np
import pytest
from _gradrows import check_gradients, check_grads_match_torch
from hypothesis import given, settings
from hypothesis import strategies as st

import nbgrad
from nbgrad.autograd import gradcheck, gradgradcheck
from nbgrad.kernels.cpu import _par


def _rng(seed=0):
    return np.random.default_rng(seed)


def _t(a, rg=False):
    return nbgrad.tensor(a, requires_grad=rg)


def _np_lse(a, axis=None, keepdims=False):
    axis = tuple(range(a.ndim)) if axis is None else axis
    m = np.max(a, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    r = np.log(np.sum(np.exp(a - m), axis=axis, keepdims=True)) + m
    return r if keepdims else np.squeeze(r, axis=axis)


def _np_norm(a, p, axis=None, keepdims=False):
    x = np.abs(a.astype(np.float64))
    if p == math.inf:
        return np.max(x, axis=axis, keepdims=keepdims)
    if p == -math.inf:
        return np.min(x, axis=axis, keepdims=keepdims)
    if p == 0:
        return np.sum(x != 0, axis=axis, keepdims=keepdims).astype(np.float64)
    return np.sum(x ** p, axis=axis, keepdims=keepdims) ** (1.0 / p)


# ----- forward values against NumPy -----------------------------------------------------------
DIMS = [None, 0, 1, -1, (0, 2), (-1, 0), (0, 1, 2)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("dim", DIMS)
@pytest.mark.parametrize("keepdim", [False, True])
def test_reductions_values(dtype, dim, keepdim):
    a = _rng(1).standard_normal((3, 4, 5)).astype(dtype)
    x = _t(a)
    ax = dim if not isinstance(dim, int) else dim
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == "float32" else dict(rtol=1e-12, atol=1e-12)
    for c in (0, 1, 2):
        np.testing.assert_allclose(nbgrad.var(x, dim, keepdim=keepdim, correction=c).numpy(),
                                   np.var(a.astype(np.float64), axis=ax, ddof=c, keepdims=keepdim), **tol)
    np.testing.assert_allclose(x.std(dim, keepdim=keepdim).numpy(),
                               np.std(a.astype(np.float64), axis=ax, ddof=1, keepdims=keepdim), **tol)
    np.testing.assert_allclose(nbgrad.prod(x, dim, keepdim).numpy(),
                               np.prod(a.astype(np.float64), axis=ax, keepdims=keepdim), **tol)
    lse_dim = dim if dim is not None else (0, 1, 2)
    np.testing.assert_allclose(nbgrad.logsumexp(x, lse_dim, keepdim).numpy(),
                               _np_lse(a.astype(np.float64), ax, keepdim), **tol)
    for p in (2, "fro", 1, math.inf, -math.inf, 0, 3, 0.5, 1.5):
        ref = _np_norm(a, 2 if p == "fro" else p, ax, keepdim)
        np.testing.assert_allclose(x.norm(p, dim, keepdim).numpy(), ref, **tol)
    for r in (nbgrad.var(x, dim, keepdim=keepdim), nbgrad.prod(x, dim, keepdim)):
        assert r.dtype == x.dtype


def test_non_contiguous_inputs():
    a = _rng(2).standard_normal((4, 6))
    x = _t(a).t()  # (6, 4), not contiguous
    at = a.T
    np.testing.assert_allclose(x.var(1).numpy(), at.var(1, ddof=1))
    np.testing.assert_allclose(x.prod(0).numpy(), at.prod(0))
    np.testing.assert_allclose(nbgrad.logsumexp(x, 1).numpy(), _np_lse(at, 1))
    np.testing.assert_allclose(x.norm(dim=0).numpy(), np.linalg.norm(at, axis=0))
    s = _t(a)[:, ::2]
    np.testing.assert_allclose(s.var(0).numpy(), a[:, ::2].var(0, ddof=1))


def test_var_spellings():
    a = _rng(3).standard_normal((3, 5))
    x = _t(a)
    np.testing.assert_allclose(x.var(1, False).numpy(), a.var(1))  # unbiased positional
    np.testing.assert_allclose(nbgrad.var(x, unbiased=False).numpy(), a.var())
    np.testing.assert_allclose(nbgrad.var(x, False).numpy(), a.var())  # var(input, unbiased)
    np.testing.assert_allclose(nbgrad.var(x, 1, True, True).numpy(), a.var(1, ddof=1, keepdims=True))
    np.testing.assert_allclose(nbgrad.std(x, 0, correction=0).numpy(), a.std(0))
    np.testing.assert_allclose(nbgrad.var(x, 1, correction=1.5).numpy(),
                               ((a - a.mean(1, keepdims=True)) ** 2).sum(1) / 3.5)
    with pytest.raises(TypeError):
        nbgrad.var(x, unbiased=True, correction=1)
    with pytest.raises(RuntimeError, match="std and var only support floating point"):
        nbgrad.var(nbgrad.tensor([1, 2, 3]))
    assert math.isnan(nbgrad.var(nbgrad.ones(1)).item())  # no degrees of freedom
    assert nbgrad.var(nbgrad.tensor([1.0, 2.0]), correction=2).item() == math.inf
    v, m = nbgrad.var_mean(x, 1)
    np.testing.assert_allclose(v.numpy(), a.var(1, ddof=1))
    np.testing.assert_allclose(m.numpy(), a.mean(1))
    s, m = nbgrad.std_mean(x, (0, 1), keepdim=True)
    np.testing.assert_allclose(s.numpy(), a.std(ddof=1, keepdims=True))
    np.testing.assert_allclose(m.numpy(), a.mean(keepdims=True))


@pytest.mark.parametrize("name", ["var_mean", "std_mean"])
@pytest.mark.parametrize("kw", [dict(dim=1), dict(dim=(0, 1), keepdim=True),
                                dict(dim=1, correction=0), dict()])
def test_var_mean_is_one_node_like_torch(name, kw):
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(3).standard_normal((3, 4))
    for which in range(3):  # both outputs' gradients, the statistic's alone, the mean's alone
        x = nbgrad.tensor(a, requires_grad=True)
        tx = torch.tensor(a, requires_grad=True)
        s, m = getattr(nbgrad, name)(x, **kw)
        ts, tm = getattr(torch, name)(tx, **kw)
        assert s.grad_fn is m.grad_fn
        assert type(s.grad_fn).__name__ == type(ts.grad_fn).__name__
        assert (s._output_nr, m._output_nr) == (0, 1)
        [(s * 2 + m * 3).sum(), s.sum(), m.sum()][which].backward()
        [(ts * 2 + tm * 3).sum(), ts.sum(), tm.sum()][which].backward()
        np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(s.detach().numpy(), ts.detach().numpy(), rtol=1e-12)
        np.testing.assert_allclose(m.detach().numpy(), tm.detach().numpy(), rtol=1e-12)


def test_prod_dtypes_and_empty():
    assert nbgrad.prod(nbgrad.tensor([2, 3, 4])).item() == 24
    assert nbgrad.prod(nbgrad.tensor([2, 3, 4])).dtype == nbgrad.int64
    assert nbgrad.prod(nbgrad.tensor([True, True])).dtype == nbgrad.int64
    assert nbgrad.prod(nbgrad.tensor([2, 3]), dtype=nbgrad.float64).dtype == nbgrad.float64
    assert nbgrad.prod(nbgrad.zeros(0)).item() == 1.0
    np.testing.assert_array_equal(nbgrad.prod(nbgrad.ones(0, 3), 0).numpy(), np.ones(3))
    assert nbgrad.prod(nbgrad.tensor(3.0)).item() == 3.0


# ----- gradients (float64 finite differences) -----------------------------------------------
GRAD_FNS = [  # (name, fn(m, x) with m = nbgrad or torch, compare with torch)
    ("var", lambda m, x: m.var(x), True),
    ("var dim", lambda m, x: m.var(x, 1), True),
    ("var tuple keepdim", lambda m, x: m.var(x, (0, -1), keepdim=True), True),
    ("var correction0", lambda m, x: x.var(-1, correction=0), True),
    ("std", lambda m, x: m.std(x, 0), True),
    ("std tuple keepdim", lambda m, x: x.std((1, 2), keepdim=True), True),
    ("var_mean", lambda m, x: m.var_mean(x, 1), False),
    ("std_mean", lambda m, x: m.std_mean(x, -1, keepdim=True), False),
    ("prod", lambda m, x: m.prod(x), True),
    ("prod dim", lambda m, x: x.prod(-1), True),
    ("prod keepdim", lambda m, x: m.prod(x, 1, keepdim=True), True),
    ("prod tuple", lambda m, x: m.prod(x, (0, 2)), False),  # nbgrad only
    ("logsumexp", lambda m, x: m.logsumexp(x, 1), True),
    ("logsumexp tuple keepdim", lambda m, x: x.logsumexp((0, -1), keepdim=True), True),
    ("logsumexp all", lambda m, x: m.logsumexp(x, (0, 1, 2)), True),
    ("norm", lambda m, x: m.norm(x), True),
    ("norm fro dim", lambda m, x: x.norm("fro", (1, 2)), True),
    ("norm 1", lambda m, x: m.norm(x, 1, 0), True),
    ("norm inf", lambda m, x: m.norm(x, math.inf, -1, keepdim=True), True),
    ("norm -inf", lambda m, x: m.norm(x, -math.inf, 1), True),
    ("norm 3", lambda m, x: m.norm(x, 3, 1), True),
    ("norm 1.5", lambda m, x: m.norm(x, 1.5, (0, 1)), True),
    ("norm 0.5", lambda m, x: m.norm(x, 0.5, -1), True),
]


@pytest.mark.parametrize("name,fn,_", GRAD_FNS, ids=[n for n, _, _ in GRAD_FNS])
def test_gradcheck(name, fn, _):
    check_gradients(fn)


@pytest.mark.parametrize("name,fn", [(n, f) for n, f, ok in GRAD_FNS if ok],
                         ids=[n for n, _, ok in GRAD_FNS if ok])
def test_grads_match_torch(name, fn):
    check_grads_match_torch(fn)



# ----- prod with zeros -----------------------------------------------------------------------
@pytest.mark.parametrize("row", [[2.0, 3.0, 4.0], [2.0, 0.0, 4.0], [0.0, 3.0, 0.0], [0.0, 0.0, 0.0]],
                         ids=["no zero", "one zero", "two zeros", "all zeros"])
@pytest.mark.parametrize("dim", [None, 0, 1])
def test_prod_zeros(row, dim):
    a = np.array([row, [1.5, -2.0, 0.5]])

    def f(z):
        return nbgrad.prod(z) if dim is None else nbgrad.prod(z, dim)

    x = nbgrad.tensor(a, requires_grad=True)
    f(x).sum().backward()
    # reference: the product of the other elements of each slice
    ref = np.zeros_like(a)
    for idx in np.ndindex(*a.shape):
        b = a.copy()
        b[idx] = 1.0
        ref[idx] = np.prod(b) if dim is None else np.prod(b, axis=dim)[idx[1 - dim]]
    np.testing.assert_allclose(x.grad.numpy(), ref)
    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))


def test_prod_zeros_second_order_matches_torch():
    torch = pytest.importorskip("torch")
    a = np.array([[2.0, 0.0, 4.0, 1.5], [0.0, 3.0, 0.0, 2.0], [1.0, 2.0, 3.0, 4.0]])
    for dim in (None, 0, 1):
        x = nbgrad.tensor(a, requires_grad=True)
        t = torch.tensor(a, requires_grad=True)
        y = nbgrad.prod(x) if dim is None else nbgrad.prod(x, dim)
        yt = torch.prod(t) if dim is None else torch.prod(t, dim)
        g, = nbgrad.autograd.grad(y.sum(), x, create_graph=True)
        gt, = torch.autograd.grad(yt.sum(), t, create_graph=True)
        np.testing.assert_allclose(g.detach().numpy(), gt.detach().numpy())
        w = _rng(8).standard_normal(a.shape)
        h, = nbgrad.autograd.grad((g * nbgrad.tensor(w)).sum(), x)
        ht, = torch.autograd.grad((gt * torch.tensor(w)).sum(), t)
        np.testing.assert_allclose(h.numpy(), ht.numpy())


# ----- logsumexp edge cases ---------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [nbgrad.float32, nbgrad.float64])
def test_logsumexp_stable(dtype):
    x = nbgrad.tensor([1e4, -1e4, 1e4 - 1.0], dtype=dtype, requires_grad=True)
    y = nbgrad.logsumexp(x, 0)
    assert abs(y.item() - (1e4 + math.log(1 + math.exp(-1)))) < 1e-2
    y.backward()
    e = np.array([1.0, 0.0, math.exp(-1)])
    # float32 spacing at 1e4 is 1e-3: exp(x - y) carries that error, in PyTorch too
    tol = 2e-3 if dtype == nbgrad.float32 else 1e-12
    np.testing.assert_allclose(x.grad.numpy(), e / e.sum(), rtol=tol, atol=1e-12)
    y = nbgrad.logsumexp(nbgrad.tensor([[-1e4, -1e4]], dtype=dtype), 1)
    np.testing.assert_allclose(y.numpy(), [-1e4 + math.log(2)], rtol=1e-6)


def test_logsumexp_special_values():
    inf, nan = math.inf, math.nan
    assert nbgrad.logsumexp(nbgrad.tensor([-inf, -inf]), 0).item() == -inf
    assert nbgrad.logsumexp(nbgrad.tensor([inf, 1.0]), 0).item() == inf
    assert math.isnan(nbgrad.logsumexp(nbgrad.tensor([nan, 1.0]), 0).item())
    assert nbgrad.logsumexp(nbgrad.tensor([-inf, 0.0]), 0).item() == 0.0
    np.testing.assert_array_equal(nbgrad.logsumexp(nbgrad.zeros(0, 3), 0).numpy(), [-inf] * 3)
    assert nbgrad.logsumexp(nbgrad.tensor(2.0), 0).item() == 2.0
    r = nbgrad.logsumexp(nbgrad.tensor([1, 2]), 0)
    assert r.dtype == nbgrad.float32 and abs(r.item() - math.log(math.e + math.e ** 2)) < 1e-6
    with pytest.raises(TypeError):
        nbgrad.logsumexp(nbgrad.ones(3))  # dim is required, as in PyTorch
    x = nbgrad.tensor([-inf, 0.0], requires_grad=True)
    nbgrad.logsumexp(x, 0).backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 1.0])


# ----- norm edge cases ----------------------------------------------------------------------------
@pytest.mark.parametrize("p", [2, "fro", 1, math.inf, -math.inf, 3, 0.5, 1.5])
def test_norm_gradient_at_zero_is_zero(p):
    x = nbgrad.zeros(2, 3, dtype=nbgrad.float64, requires_grad=True)
    y = nbgrad.norm(x, p)
    assert y.item() == 0.0
    y.backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros((2, 3)))
    x = nbgrad.tensor([[0.0, 0.0], [3.0, 4.0]], requires_grad=True)
    nbgrad.norm(x, p, 1).sum().backward()
    assert np.all(np.isfinite(x.grad.numpy())) and np.all(x.grad.numpy()[0] == 0)


def test_norm_misc():
    x = nbgrad.tensor([3.0, -4.0, 0.0], requires_grad=True)
    assert nbgrad.norm(x).item() == 5.0
    assert nbgrad.norm(x, 0).item() == 2.0
    nbgrad.norm(x, 0).backward()
    assert x.grad is None or np.all(x.grad.numpy() == 0)
    x = nbgrad.tensor([3.0, -3.0, 1.0], requires_grad=True)
    nbgrad.norm(x, math.inf).backward()  # ties share the gradient, as in PyTorch
    np.testing.assert_allclose(x.grad.numpy(), [0.5, -0.5, 0.0])
    y = nbgrad.tensor([1e30, 1e30])  # float32 squares would overflow; the kernel is float64
    assert abs(nbgrad.norm(y).item() / (math.sqrt(2) * 1e30) - 1) < 1e-6
    assert nbgrad.norm(nbgrad.ones(2, 3), dim=1, dtype=nbgrad.float64).dtype == nbgrad.float64
    with pytest.raises(RuntimeError, match="floating point"):
        nbgrad.norm(nbgrad.tensor([1, 2]))
    assert nbgrad.norm(nbgrad.eye(2) * 3, "nuc").item() == 6.0  # (the singular values' sum)
    with pytest.raises(RuntimeError, match="inf norm on an empty tensor"):
        nbgrad.norm(nbgrad.zeros(0), math.inf)
    assert nbgrad.norm(nbgrad.zeros(0)).item() == 0.0


def test_std_gradient_at_zero_is_zero():
    x = nbgrad.zeros(3, 2, dtype=nbgrad.float64, requires_grad=True)
    nbgrad.std(x, 0).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros((3, 2)))



# ----- hypothesis properties vs NumPy ----------------------------------------------------------------
@st.composite
def _array_and_dims(draw):
    ndim = draw(st.integers(1, 4))
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=ndim, max_size=ndim)))
    dims = draw(st.lists(st.integers(-ndim, ndim - 1), min_size=1, max_size=ndim,
                         unique_by=lambda d: d % ndim))
    seed = draw(st.integers(0, 2 ** 16))
    scale = draw(st.sampled_from([1.0, 1e-3, 1e3]))
    a = np.random.default_rng(seed).standard_normal(shape) * scale
    return a, tuple(dims), draw(st.booleans())


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy: ddof >= n gives nan/inf
@settings(max_examples=25, deadline=None)
@given(_array_and_dims(), st.sampled_from([0, 1]))
def test_var_property(case, correction):
    a, dims, keepdim = case
    ref = np.var(a, axis=dims, ddof=correction, keepdims=keepdim)
    got = nbgrad.var(_t(a), dims, keepdim=keepdim, correction=correction).numpy()
    np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-300, equal_nan=True)
    got32 = nbgrad.var(_t(a.astype(np.float32)), dims, keepdim=keepdim, correction=correction).numpy()
    ref32 = np.var(a.astype(np.float32).astype(np.float64), axis=dims, ddof=correction, keepdims=keepdim)
    np.testing.assert_allclose(got32, ref32, rtol=1e-5, atol=0, equal_nan=True)


@settings(max_examples=25, deadline=None)
@given(_array_and_dims(), st.sampled_from([0.0, 30.0, -1e4, 1e4]))
def test_logsumexp_property(case, shift):
    a, dims, keepdim = case
    a = a + shift
    ref = _np_lse(a, dims, keepdim)
    np.testing.assert_allclose(nbgrad.logsumexp(_t(a), dims, keepdim).numpy(), ref, rtol=1e-12)


# ----- parallel kernel variants and float32 accuracy of long reductions -----------------------------
def test_parallel_variants(monkeypatch):
    monkeypatch.setattr(_par, "PARALLEL_MIN", 0)  # every call takes the parallel kernel
    a = _rng(14).standard_normal((3, 5000, 3))
    x = _t(a)
    for ax in (0, 1, 2, None):
        np.testing.assert_allclose(x.var(ax).numpy(), a.var(axis=ax, ddof=1), rtol=1e-10)
        np.testing.assert_allclose(nbgrad.norm(x, 3, ax).numpy(), _np_norm(a, 3, ax), rtol=1e-10)
        np.testing.assert_allclose(nbgrad.prod(x * 0 + 1.0001, ax).numpy(),
                                   np.prod(a * 0 + 1.0001, axis=ax), rtol=1e-10)
        d = ax if ax is not None else (0, 1, 2)
        np.testing.assert_allclose(nbgrad.logsumexp(x, d).numpy(), _np_lse(a, d), rtol=1e-12)
        np.testing.assert_allclose(x.sum(ax).numpy(), a.sum(axis=ax), rtol=1e-12)
    # sums over a middle or leading axis: blocks of columns per thread (tails of 64-column
    # blocks, few and many outer rows), float32 accumulated in float64
    for shape, ax in (((517, 389), 0), ((2, 50, 200), 1), ((40, 7, 130), 1), ((3, 9, 1), 1)):
        b = _rng(15).standard_normal(shape).astype(np.float32)
        got = _t(b).sum(ax).numpy()
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, b.astype(np.float64).sum(axis=ax), rtol=2e-6, atol=1e-5)


def test_var_large_float32():
    # long rows: float64 accumulation keeps float32 results exact to float32 precision
    a = (_rng(15).standard_normal(100_000) + 1000.0).astype(np.float32)
    ref = a.astype(np.float64).var(ddof=1)
    assert abs(nbgrad.from_numpy(a).var().item() - ref) / ref < 1e-6


def test_float32_sum_mean_ten_million():
    a = _rng(16).random(10_000_000, dtype=np.float32)
    x = nbgrad.from_numpy(a)
    ref = a.astype(np.float64).sum()
    assert abs(x.sum().item() - ref) / ref < 1e-6
    assert abs(x.mean().item() - ref / a.size) / (ref / a.size) < 1e-6
    b = a.reshape(1000, 10_000)
    y = nbgrad.from_numpy(b)
    for dim in (0, 1):
        r = b.astype(np.float64).sum(dim)
        assert np.max(np.abs(y.sum(dim).numpy() - r) / np.abs(r)) < 1e-6
