"""scatter_reduce / index_reduce (their forms in place too), masked_scatter, select_scatter,
slice_scatter, diagonal_scatter, put, mode, histogram and addr / addr_ / addmv_ / addbmm_
(issue #16):
values, dtypes, gradients (PyTorch's rule for amax / amin ties included) and errors against
PyTorch; gradcheck and gradgradcheck in float64."""

import numpy as np
import pytest

import nbgrad
from nbgrad.autograd import gradcheck, gradgradcheck
from tests._errors import assert_same_error

torch = pytest.importorskip("torch")

_R = np.random.default_rng(8)
_X = _R.standard_normal((3, 4))
_S = _R.standard_normal((2, 4))
_I = np.array([[0, 2, 0, 1], [2, 2, 1, 0]])
# (ties: the input and the source share values, so amax / amin split their gradient)
_XT = np.array([[1.0, 2.0, 2.0, 0.0], [3.0, 3.0, -1.0, 5.0], [0.0, 4.0, 4.0, 4.0]])
_ST = np.array([[1.0, 4.0, 2.0, 5.0], [0.0, 4.0, 2.0, 4.0]])
_M = np.array([[True, False, True, False], [False, True, True, True], [False] * 4])


def _compare(fn, arrays, grads=True, tol=1e-12):
    xs = [nbgrad.tensor(a, requires_grad=grads and a.dtype == np.float64) for a in arrays]
    txs = [torch.tensor(a, requires_grad=grads and a.dtype == np.float64) for a in arrays]
    y, ty = fn(nbgrad, *xs), fn(torch, *txs)
    ys, tys = (y, ty) if isinstance(y, tuple) else ((y,), (ty,))
    for o, t in zip(ys, tys):
        assert str(o.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
        np.testing.assert_allclose(o.detach().numpy(), t.detach().numpy(), rtol=tol, atol=tol)
    want = [x for x in xs if x.requires_grad]
    if not want:
        return
    w = np.random.default_rng(3).standard_normal(tuple(ys[0].shape))
    gs = nbgrad.autograd.grad((ys[0] * nbgrad.tensor(w)).sum(), want, allow_unused=True)
    tgs = torch.autograd.grad((tys[0] * torch.tensor(w)).sum(),
                              [t for t in txs if t.requires_grad], allow_unused=True)
    for g, tg in zip(gs, tgs):
        assert (g is None) == (tg is None)
        if g is not None:
            np.testing.assert_allclose(g.numpy(), tg.numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_matches_torch(reduce, include_self):
    for x, s in ((_X, _S), (_XT, _ST)):
        _compare(lambda m, a, b: a.scatter_reduce(0, m.tensor(_I), b, reduce,
                                                  include_self=include_self), [x, s])
        # (an index smaller than src: torch 2.13 cannot differentiate it, so values only,
        # and gradcheck below)
        _compare(lambda m, a, b: m.scatter_reduce(a, 1, m.tensor(_I[:, :3]), b, reduce,
                                                  include_self=include_self), [x, s],
                 grads=False)
    # integers (mean: floor division), and a zero in a product
    xi, si = (_XT * 3).astype(np.int64), (_ST * 2 - 3).astype(np.int64)
    _compare(lambda m, a, b: a.scatter_reduce(0, m.tensor(_I), b, reduce,
                                              include_self=include_self), [xi, si])
    zero = _S.copy()
    zero[0, 0] = 0.0
    _compare(lambda m, a, b: a.scatter_reduce(0, m.tensor(_I), b, reduce,
                                              include_self=include_self), [_X, zero])


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
def test_index_reduce_and_the_in_place_forms(reduce):
    idx = np.array([2, 0, 2])
    src = _R.standard_normal((3, 4))
    for inc in (True, False):
        _compare(lambda m, a, b: a.index_reduce(0, m.tensor(idx), b, reduce, include_self=inc),
                 [_X, src])
        _compare(lambda m, a, b: m.index_reduce(a, 1, m.tensor(idx), b.mT, reduce,
                                                include_self=inc), [_X, src[:, :3].copy()])
    _compare(lambda m, a, b: (a * 1).index_reduce_(0, m.tensor(idx), b, reduce), [_X, src])
    _compare(lambda m, a, b: (a * 1).scatter_reduce_(0, m.tensor(_I), b, reduce), [_X, _S])


def test_gradcheck_and_gradgradcheck():
    i = nbgrad.tensor(_I)
    for reduce in ("sum", "prod", "mean", "amax"):
        xs = (nbgrad.tensor(_X, requires_grad=True), nbgrad.tensor(_S, requires_grad=True))
        f = lambda a, b: a.scatter_reduce(0, i, b, reduce, include_self=False)  # noqa: E731
        assert gradcheck(f, xs)
        assert gradcheck(lambda a, b: a.scatter_reduce(1, i[:, :3], b, reduce), xs)
        if reduce != "amax":  # (amax's second derivative is zero almost everywhere)
            assert gradgradcheck(f, xs)
    m = nbgrad.tensor(_M)
    xs = (nbgrad.tensor(_X, requires_grad=True), nbgrad.tensor(_S, requires_grad=True))
    assert gradcheck(lambda a, b: a.masked_scatter(m, b), xs)
    assert gradcheck(lambda a, b: a.put(nbgrad.tensor([0, -1, 5]), b[0, :3], True), xs)
    assert gradgradcheck(lambda a, b: nbgrad.addr(a, b[0], b[1, :3]).sum() * a, (xs[0].mT,
                                                                                 xs[1]))


_CALLS = [
    lambda m, x, s: x.masked_scatter(m.tensor(_M), s),
    lambda m, x, s: m.masked_scatter(x, m.tensor(_M[0]), s),
    lambda m, x, s: (x * 1).masked_scatter_(m.tensor(_M), s),
    lambda m, x, s: m.select_scatter(x, s[0], 0, 1),
    lambda m, x, s: m.select_scatter(x, s[1, :3], 1, -1),
    lambda m, x, s: m.slice_scatter(x, s, 0, 1),
    lambda m, x, s: m.slice_scatter(x, s[:, :3].mT, 1, 1, 4, 2),
    lambda m, x, s: m.diagonal_scatter(x, s[0, :3]),
    lambda m, x, s: x.diagonal_scatter(s[0, :3], 1),
    lambda m, x, s: x.put(m.tensor([0, 11, -2]), s[0, :3]),
    lambda m, x, s: x.put(m.tensor([[0, 0], [3, 0]]), s[:, :2], accumulate=True),
    lambda m, x, s: (x * 1).put_(m.tensor([1, 4]), s[1, :2]),
    lambda m, x, s: m.addr(x, s[0, :3], s[1], beta=0.5, alpha=2.0),
    lambda m, x, s: (x * 1).addr_(s[0, :3], s[1]),
    lambda m, x, s: (x[0] * 1).addmv_(x.mT, s[0, :3]),
    lambda m, x, s: (x * 1).addbmm_(x[None].expand(2, 3, 4)[:, :, :2],
                                    s[:, None, :].expand(2, 2, 4), beta=2.0),
    lambda m, x, s: m.mode(x.round()),
    lambda m, x, s: m.mode(x.round(), 0, keepdim=True),
    lambda m, x, s: x.round().mode(-1),
]


@pytest.mark.parametrize("k", range(len(_CALLS)))
def test_writes_modes_and_products_match_torch(k):
    _compare(_CALLS[k], [_X, _S])


def test_mode_of_integers_nan_and_scalars():
    for v in ([[1, 2, 2, 3], [3, 3, 1, 1]], [[1.0, float("nan"), float("nan")]], 3.0,
              [[5, 5], [4, 4]]):
        got, want = nbgrad.mode(nbgrad.tensor(v)), torch.mode(torch.tensor(v))
        assert type(got).__name__ == "mode"
        np.testing.assert_array_equal(got.values.numpy(), want.values.numpy())
        np.testing.assert_array_equal(got.indices.numpy(), want.indices.numpy())
        assert str(got.values.dtype).split(".")[-1] == str(want.values.dtype).split(".")[-1]


@pytest.mark.parametrize("call", [
    lambda m: m.zeros(3).scatter_reduce(0, m.tensor([0]), m.ones(1), "foo"),
    lambda m: m.zeros(3).index_reduce(0, m.tensor([0]), m.ones(1), "sum"),
    lambda m: m.zeros(3).masked_scatter(m.ones(3), m.ones(3)),
    lambda m: m.zeros(3).masked_scatter(m.ones(3, dtype=m.bool), m.ones(2)),
    lambda m: m.zeros(3).masked_scatter(m.ones(3, dtype=m.bool), m.ones(3, dtype=m.float64)),
    lambda m: m.select_scatter(m.zeros(2, 3), m.ones(3), 0, 5),
    lambda m: m.diagonal_scatter(m.zeros(2, 3), m.ones(3)),
    lambda m: m.zeros(2, 3).put(m.tensor([7]), m.ones(1)),
    lambda m: m.zeros(2, 3).put(m.tensor([0, 1]), m.ones(1)),
    lambda m: m.mode(m.ones(2, 0), 1),
    lambda m: m.addr(m.ones(2, 2), m.ones(2, 1), m.ones(2)),
])
def test_errors_match_torch(call):
    assert_same_error(call, torch, nbgrad)


def test_docstring_examples_run():
    import doctest

    from nbgrad.ops import scatter_into, scatter_reduce

    for mod in (scatter_into, scatter_reduce):
        res = doctest.testmod(mod, optionflags=doctest.NORMALIZE_WHITESPACE)
        assert res.attempted and not res.failed, mod.__name__


def test_histogram_matches_torch():
    rng = np.random.default_rng(0)
    for dt in ("float32", "float64"):
        for trial in range(12):
            x = rng.standard_normal(int(rng.integers(1, 200))).astype(dt)
            if trial % 3 == 0:
                x = np.round(x * 4) / 4  # (values on the edges)
            w = rng.random(x.size).astype(dt)
            edges = np.sort(rng.standard_normal(5)).astype(dt)
            for kw in ({"bins": 7}, {"bins": 10, "range": (-1.0, 1.0)},
                       {"bins": 5, "weight": w}, {"bins": 6, "density": True},
                       {"bins": edges}, {"bins": edges, "weight": w, "density": True}):
                got, want = (m.histogram(m.tensor(x), **{
                    k: m.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()})
                    for m in (nbgrad, torch))
                assert type(got).__name__ == "histogram" and got.hist.dtype == got.bin_edges.dtype
                np.testing.assert_allclose(got.hist.numpy(), want.hist.numpy(), rtol=1e-6)
                # (PyTorch's linspace rounds by vector chunks: edges to an ulp)
                tol = 1e-6 if dt == "float32" else 1e-15
                np.testing.assert_allclose(got.bin_edges.numpy(), want.bin_edges.numpy(),
                                           rtol=tol, atol=tol)
    got = nbgrad.tensor([1.0, 1.0]).histogram(2)
    assert got.hist.tolist() == [0.0, 2.0] and got.bin_edges.tolist() == [0.5, 1.0, 1.5]
    assert_same_error(lambda m: m.histogram(m.tensor([1, 2]), 2), torch, nbgrad)
