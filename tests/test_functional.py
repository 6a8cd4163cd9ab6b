"""``nbgrad.nn.functional`` against ``torch.nn.functional``: values, shapes, dtypes, errors,
first and second derivatives (float64 gradcheck / gradgradcheck) and numerical stability."""

import warnings

import numpy as np
import pytest

import nbgrad
import nbgrad.nn.functional as F
from nbgrad.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")
TF = torch.nn.functional


# ----- helpers ---------------------------------------------------------------------------
def rnd(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def N(a, rg=False, dtype=nbgrad.float64):
    """nbgrad tensor (float64 by default) from an array."""
    a = np.asarray(a)
    if a.dtype.kind in "iu":
        return nbgrad.tensor(a.astype(np.int64))
    return nbgrad.tensor(a.astype(np.float64), dtype=dtype, requires_grad=rg)


def T(a, rg=False, dtype=None):
    a = np.asarray(a)
    if a.dtype.kind in "iu":
        return torch.tensor(a.astype(np.int64))
    return torch.tensor(a.astype(np.float64), dtype=dtype or torch.float64, requires_grad=rg)


def val(t):
    return np.asarray(t.detach().numpy(), dtype=np.float64)


def close(a, b, rtol=1e-10, atol=1e-12):
    assert tuple(a.shape) == tuple(b.shape), (tuple(a.shape), tuple(b.shape))
    np.testing.assert_allclose(val(a), val(b), rtol=rtol, atol=atol)


def both(fn_nb, fn_th, arrays, rg_mask=None, rtol=1e-10, atol=1e-12, seed=7):
    """Run the same function on nbgrad and torch float64 inputs; compare values and grads."""
    rg_mask = rg_mask or [np.asarray(a).dtype.kind == "f" for a in arrays]
    xs = [N(a, rg) for a, rg in zip(arrays, rg_mask)]
    ts = [T(a, rg) for a, rg in zip(arrays, rg_mask)]
    y, ty = fn_nb(*xs), fn_th(*ts)
    close(y, ty, rtol, atol)
    assert y.dtype == nbgrad.float64
    if y.requires_grad:
        go = rnd(*y.shape, seed=seed)
        y.backward(N(go))
        ty.backward(T(go))
        for x, t, rg in zip(xs, ts, rg_mask):
            if rg:
                close(x.grad, t.grad, rtol=1e-9, atol=1e-11)
    return y


def ggcheck(fn, arrays, rg_mask=None):
    rg_mask = rg_mask or [np.asarray(a).dtype.kind == "f" for a in arrays]
    xs = tuple(N(a, rg) for a, rg in zip(arrays, rg_mask))
    assert gradcheck(fn, xs)
    assert gradgradcheck(fn, xs)


# ----- softmax / log_softmax --------------------------------------------------------------
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dim", [0, 1, 2, -1, -2])
def test_softmax_family_values_and_grads(name, dim):
    a = rnd(3, 4, 5, seed=1)
    y = both(lambda x: getattr(F, name)(x, dim), lambda x: getattr(TF, name)(x, dim), [a])
    assert y.grad_fn.name() == ("SoftmaxBackward0" if name == "softmax" else "LogSoftmaxBackward0")
    if name == "softmax":
        np.testing.assert_allclose(val(y).sum(dim), 1.0, rtol=1e-12)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_softmax_family_dtypes(name, dtype):
    a = rnd(4, 6, seed=2).astype(dtype)
    x = nbgrad.tensor(a, requires_grad=True)
    y = getattr(F, name)(x, 1)
    ty = getattr(TF, name)(torch.tensor(a), 1)
    assert y.dtype == getattr(nbgrad, dtype) and y.shape == (4, 6)
    tol = 1e-6 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(val(y), val(ty), rtol=tol, atol=tol)
    y.sum().backward()
    assert x.grad.dtype == getattr(nbgrad, dtype)
    # dtype= casts before the op, like torch
    y64 = getattr(F, name)(nbgrad.tensor(a), 1, dtype=nbgrad.float64)
    assert y64.dtype == nbgrad.float64


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("shape", [(5,), (2, 5), (2, 3, 4), (2, 3, 4, 2)])
def test_softmax_legacy_implicit_dim(name, shape):
    # torch picks dim 0 for 0-, 1- and 3-d inputs, else dim 1 (and warns)
    a = rnd(*shape, seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ty = getattr(TF, name)(T(a), dim=None)
    with pytest.warns(UserWarning, match=f"Implicit dimension choice for {name} has been deprecated"):
        y = getattr(F, name)(N(a))
    close(y, ty)


def test_softmax_errors():
    with pytest.raises(IndexError, match="Dimension out of range"):
        F.softmax(N(rnd(2, 3)), 2)
    with pytest.raises((RuntimeError, NotImplementedError), match="not implemented for"):
        F.softmax(nbgrad.tensor([1, 2]), 0)
    # an integer input with dtype= is fine
    y = F.log_softmax(nbgrad.tensor([1, 2]), 0, dtype=nbgrad.float64)
    close(y, TF.log_softmax(torch.tensor([1, 2]), 0, dtype=torch.float64))


def test_softmax_family_double_backward():
    a = rnd(3, 4, seed=4)
    for fn in (lambda x: F.softmax(x, 1), lambda x: F.log_softmax(x, 0),
               lambda x: F.softmax(x, -1) * F.log_softmax(x, -1)):
        ggcheck(fn, [a])
    # second derivatives vs torch
    x, tx = N(a, True), T(a, True)
    (g,) = nbgrad.autograd.grad((F.softmax(x, 1) ** 2).sum(), x, create_graph=True)
    (tg,) = torch.autograd.grad((TF.softmax(tx, 1) ** 2).sum(), tx, create_graph=True)
    close(g, tg)
    (gg,) = nbgrad.autograd.grad((g * g).sum(), x)
    (tgg,) = torch.autograd.grad((tg * tg).sum(), tx)
    close(gg, tgg, rtol=1e-9)


# ----- extreme logits ----------------------------------------------------------------------
BIG = np.array([[1e4, -1e4, 0.0, 1e4], [-1e4, -1e4, -1e4, 3.0]])


def _finite(t):
    return np.isfinite(val(t)).all()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["softmax", "log_softmax", "logsumexp", "cross_entropy",
                                  "cross_entropy_smooth", "bce"])
def test_extreme_logits_are_finite(name, dtype):
    nd, td = getattr(nbgrad, dtype), getattr(torch, dtype)
    x = nbgrad.tensor(BIG, dtype=nd, requires_grad=True)
    tx = torch.tensor(BIG, dtype=td, requires_grad=True)
    fns = {
        "softmax": (lambda m, f, t: f.softmax(t, 1)),
        "log_softmax": (lambda m, f, t: f.log_softmax(t, 1)),
        "logsumexp": (lambda m, f, t: t.logsumexp(1)),
        "cross_entropy": (lambda m, f, t: f.cross_entropy(t, m.tensor([1, 0]), reduction="none")),
        "cross_entropy_smooth": (lambda m, f, t: f.cross_entropy(
            t, m.tensor([1, 2]), label_smoothing=0.1, reduction="none")),
        "bce": (lambda m, f, t: f.binary_cross_entropy_with_logits(
            t, m.tensor([[1.0, 0.0, 1.0, 0.5], [1.0, 1.0, 0.0, 0.0]], dtype=t.dtype),
            reduction="none")),
    }
    y = fns[name](nbgrad, F, x)
    ty = fns[name](torch, TF, tx)
    assert y.dtype == nd and _finite(y)
    np.testing.assert_allclose(val(y), val(ty), rtol=1e-5, atol=1e-5)
    go = np.linspace(0.5, 1.5, ty.numel()).reshape(tuple(ty.shape))
    y.backward(nbgrad.tensor(go, dtype=nd))
    ty.backward(torch.tensor(go, dtype=td))
    assert x.grad.dtype == nd and _finite(x.grad)
    np.testing.assert_allclose(val(x.grad), val(tx.grad), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("fn", [
    lambda x: F.softmax(x, 1),
    lambda x: F.log_softmax(x, 1),
    lambda x: x.logsumexp(1),
    lambda x: F.cross_entropy(x, nbgrad.tensor([1, 0])),
    lambda x: F.binary_cross_entropy_with_logits(x, nbgrad.full((2, 4), 0.25, dtype=x.dtype)),
], ids=["softmax", "log_softmax", "logsumexp", "cross_entropy", "bce"])
def test_extreme_logits_second_order_finite(fn):
    x = N(BIG, True)
    y = fn(x)
    (g,) = nbgrad.autograd.grad(y.sum(), x, create_graph=True)
    (gg,) = nbgrad.autograd.grad((g * g).sum(), x)
    assert _finite(g) and _finite(gg)


# ----- cross_entropy / nll_loss ------------------------------------------------------------
def _ce_kwargs(lib, kw):
    return {k: (lib.tensor(v) if k == "weight" else v) for k, v in kw.items()}


CE_CASES = [
    {},
    {"weight": np.array([0.2, 1.0, 2.5, 0.7])},
    {"ignore_index": 1},
    {"weight": np.array([0.2, 1.0, 2.5, 0.7]), "ignore_index": 2},
    {"label_smoothing": 0.15},
    {"label_smoothing": 0.15, "weight": np.array([0.2, 1.0, 2.5, 0.7])},
    {"label_smoothing": 0.3, "ignore_index": 0},
    {"label_smoothing": 0.3, "ignore_index": 0, "weight": np.array([0.2, 1.0, 2.5, 0.7])},
]


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("kw", CE_CASES, ids=lambda kw: "-".join(kw) or "plain")
def test_cross_entropy_class_indices(kw, reduction):
    logits = rnd(6, 4, seed=10)
    target = np.array([0, 1, 2, 3, 2, 0])
    y = both(lambda x: F.cross_entropy(x, N(target), reduction=reduction, **_ce_kwargs(nbgrad, kw)),
             lambda x: TF.cross_entropy(x, T(target), reduction=reduction, **_ce_kwargs(torch, kw)),
             [logits])
    assert y.shape == ((6,) if reduction == "none" else ())


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("kw", [{}, {"label_smoothing": 0.2},
                                {"weight": np.array([0.5, 2.0, 1.5])},
                                {"weight": np.array([0.5, 2.0, 1.5]), "label_smoothing": 0.25}],
                         ids=["plain", "smooth", "weight", "weight-smooth"])
def test_cross_entropy_probability_targets(kw, reduction):
    logits = rnd(5, 3, seed=11)
    p = np.random.default_rng(12).random((5, 3))
    p /= p.sum(1, keepdims=True)
    y = both(lambda x, t: F.cross_entropy(x, t, reduction=reduction, **_ce_kwargs(nbgrad, kw)),
             lambda x, t: TF.cross_entropy(x, t, reduction=reduction, **_ce_kwargs(torch, kw)),
             [logits, p], rg_mask=[True, True])
    assert y.shape == ((5,) if reduction == "none" else ())


@pytest.mark.parametrize("reduction", ["none", "mean"])
@pytest.mark.parametrize("kw", [{}, {"weight": np.array([0.5, 2.0, 1.5]), "ignore_index": 1,
                                      "label_smoothing": 0.1}], ids=["plain", "all"])
def test_cross_entropy_kdim(kw, reduction):
    logits = rnd(2, 3, 4, 5, seed=13)
    target = np.random.default_rng(14).integers(0, 3, (2, 4, 5))
    y = both(lambda x: F.cross_entropy(x, N(target), reduction=reduction, **_ce_kwargs(nbgrad, kw)),
             lambda x: TF.cross_entropy(x, T(target), reduction=reduction, **_ce_kwargs(torch, kw)),
             [logits])
    assert y.shape == ((2, 4, 5) if reduction == "none" else ())
    # probability targets over the class dim of a K-dim input
    p = np.random.default_rng(15).random((2, 3, 4, 5))
    p /= p.sum(1, keepdims=True)
    both(lambda x: F.cross_entropy(x, N(p), reduction=reduction),
         lambda x: TF.cross_entropy(x, T(p), reduction=reduction), [logits])


def test_cross_entropy_unbatched():
    logits = rnd(5, seed=16)
    y = both(lambda x: F.cross_entropy(x, nbgrad.tensor(3)),
             lambda x: TF.cross_entropy(x, torch.tensor(3)), [logits])
    assert y.shape == ()
    both(lambda x: F.cross_entropy(x, nbgrad.tensor(1), label_smoothing=0.2, reduction="none"),
         lambda x: TF.cross_entropy(x, torch.tensor(1), label_smoothing=0.2, reduction="none"),
         [logits])
    p = np.random.default_rng(17).random(5)
    p /= p.sum()
    both(lambda x: F.cross_entropy(x, N(p)), lambda x: TF.cross_entropy(x, T(p)), [logits])


def test_cross_entropy_dtype_float32():
    logits = rnd(4, 3, seed=18).astype(np.float32)
    x = nbgrad.tensor(logits, requires_grad=True)
    y = F.cross_entropy(x, nbgrad.tensor([0, 2, 1, 1]))
    ty = TF.cross_entropy(torch.tensor(logits), torch.tensor([0, 2, 1, 1]))
    assert y.dtype == nbgrad.float32 and y.shape == ()
    np.testing.assert_allclose(y.item(), ty.item(), rtol=1e-6)
    y.backward()
    assert x.grad.dtype == nbgrad.float32


@pytest.mark.parametrize("C", [1, 10, 16, 17, 40])  # short rows take plain loops (<= 16)
def test_cross_entropy_row_lengths_with_inf_and_nan(C):
    logits = (rnd(6, C, seed=19) * 30).astype(np.float32)
    logits[1, 0] = np.inf
    logits[2, C - 1] = -np.inf
    logits[3, C // 2] = np.nan
    logits[4, :] = -np.inf
    target = np.arange(6) % C
    x = nbgrad.tensor(logits, requires_grad=True)
    tx = torch.tensor(logits, requires_grad=True)
    y = F.cross_entropy(x, nbgrad.tensor(target), reduction="none")
    ty = TF.cross_entropy(tx, torch.tensor(target), reduction="none")
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-5, atol=1e-5)
    y.backward(nbgrad.ones(6))
    ty.backward(torch.ones(6))
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_cross_entropy_errors():
    x = N(rnd(4, 5))
    with pytest.raises(IndexError, match=r"^Target 7 is out of bounds\.$"):
        F.cross_entropy(x, nbgrad.tensor([0, 1, 7, 2]))
    with pytest.raises(IndexError, match="Target -3 is out of bounds."):
        F.cross_entropy(x, nbgrad.tensor([0, 1, -3, 2]))
    with pytest.raises(IndexError, match="Target 7 is out of bounds."):
        TF.cross_entropy(T(rnd(4, 5)), torch.tensor([0, 1, 7, 2]))
    with pytest.raises(RuntimeError, match="label_smoothing must be between 0.0 and 1.0. Got: 1.5"):
        F.cross_entropy(x, nbgrad.tensor([0, 1, 2, 3]), label_smoothing=1.5)
    with pytest.raises(ValueError, match=r"Expected input batch_size \(4\) to match target batch_size \(3\)"):
        F.cross_entropy(x, nbgrad.tensor([0, 1, 2]))
    # a float target of another shape is read as class indices (PyTorch's reading)
    with pytest.raises(RuntimeError, match="^0D or 1D target tensor expected, multi-target "
                       "not supported$"):
        F.cross_entropy(x, N(rnd(4, 3)))
    with pytest.raises(ValueError, match="foo is not a valid value for reduction"):
        F.cross_entropy(x, nbgrad.tensor([0, 1, 2, 3]), reduction="foo")


def test_cross_entropy_all_ignored_mean_is_nan():
    x = N(rnd(2, 3), True)
    y = F.cross_entropy(x, nbgrad.tensor([1, 1]), ignore_index=1)
    ty = TF.cross_entropy(T(rnd(2, 3)), torch.tensor([1, 1]), ignore_index=1)
    assert np.isnan(y.item()) and np.isnan(ty.item())
    s = F.cross_entropy(x, nbgrad.tensor([1, 1]), ignore_index=1, reduction="sum")
    assert s.item() == 0.0


@pytest.mark.parametrize("kw", [{}, {"weight": np.array([0.5, 2.0, 1.5])}, {"ignore_index": 0},
                                {"label_smoothing": 0.2}, {"prob": True},
                                {"prob": True, "label_smoothing": 0.2,
                                 "weight": np.array([0.5, 2.0, 1.5])}],
                         ids=["plain", "weight", "ignore", "smooth", "prob", "prob-all"])
def test_cross_entropy_gradgradcheck(kw):
    kw = dict(kw)
    logits = rnd(3, 3, seed=19)
    if kw.pop("prob", False):
        p = np.random.default_rng(20).random((3, 3))
        p /= p.sum(1, keepdims=True)
        ggcheck(lambda x, t: F.cross_entropy(x, t, **_ce_kwargs(nbgrad, kw)), [logits, p])
    else:
        tgt = nbgrad.tensor([0, 2, 1])
        ggcheck(lambda x: F.cross_entropy(x, tgt, **_ce_kwargs(nbgrad, kw)), [logits])


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("kw", [{}, {"weight": np.array([0.3, 1.0, 2.0, 0.5])},
                                {"ignore_index": 3},
                                {"weight": np.array([0.3, 1.0, 2.0, 0.5]), "ignore_index": 0}],
                         ids=["plain", "weight", "ignore", "weight-ignore"])
def test_nll_loss(kw, reduction):
    logp = rnd(5, 4, seed=21)
    target = np.array([0, 3, 1, 0, 2])
    y = both(lambda x: F.nll_loss(x, N(target), reduction=reduction, **_ce_kwargs(nbgrad, kw)),
             lambda x: TF.nll_loss(x, T(target), reduction=reduction, **_ce_kwargs(torch, kw)),
             [logp])
    assert y.shape == ((5,) if reduction == "none" else ())


def test_nll_loss_kdim_unbatched_and_gradgrad():
    a = rnd(2, 3, 4, seed=22)
    t = np.array([[0, 1, 2, 2], [1, 1, 0, 2]])
    both(lambda x: F.nll_loss(x, N(t), reduction="none"),
         lambda x: TF.nll_loss(x, T(t), reduction="none"), [a])
    both(lambda x: F.nll_loss(x, nbgrad.tensor(2)), lambda x: TF.nll_loss(x, torch.tensor(2)),
         [rnd(3, seed=23)])
    tgt = nbgrad.tensor([[0, 1, 2, 2], [1, 1, 0, 2]])
    ggcheck(lambda x: F.nll_loss(x, tgt, weight=N([1.0, 2.0, 0.5])), [a])


def test_nll_loss_errors():
    with pytest.raises(RuntimeError):
        F.nll_loss(N(rnd(3, 4)), N([1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match=r"Expected input batch_size \(3\) to match target batch_size \(2\)"):
        F.nll_loss(N(rnd(3, 4)), nbgrad.tensor([1, 2]))
    with pytest.raises(IndexError, match="Target 4 is out of bounds."):
        F.nll_loss(N(rnd(3, 4)), nbgrad.tensor([1, 4, 0]))


# ----- mse / bce -----------------------------------------------------------------------------
@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
def test_mse_loss(reduction):
    a, b = rnd(3, 4, seed=24), rnd(3, 4, seed=25)
    y = both(lambda x, t: F.mse_loss(x, t, reduction=reduction),
             lambda x, t: TF.mse_loss(x, t, reduction=reduction), [a, b])
    assert y.shape == ((3, 4) if reduction == "none" else ())
    ggcheck(lambda x, t: F.mse_loss(x, t, reduction=reduction), [a[:2, :2], b[:2, :2]])
    with pytest.raises(ValueError, match="foo is not a valid value for reduction"):
        F.mse_loss(N(a), N(b), reduction="foo")


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("kw", ["plain", "weight", "pos_weight", "both"])
def test_bce_with_logits(kw, reduction):
    rng = np.random.default_rng(26)
    x, t = rnd(4, 3, seed=27) * 3, rng.random((4, 3))
    w, pw = rng.random((4, 3)) + 0.1, rng.random(3) + 0.5
    extra = {"plain": {}, "weight": {"weight": w}, "pos_weight": {"pos_weight": pw},
             "both": {"weight": w, "pos_weight": pw}}[kw]
    names = list(extra)

    def fn(lib, f):
        def g(x, t, *ws):
            return f.binary_cross_entropy_with_logits(x, t, reduction=reduction,
                                                      **dict(zip(names, ws)))
        return g

    arrays = [x, t] + [extra[k] for k in names]
    # torch refuses requires_grad on weight / pos_weight; input and target are differentiable
    mask = [True, True] + [False] * len(names)
    y = both(fn(nbgrad, F), fn(torch, TF), arrays, rg_mask=mask)
    assert y.shape == ((4, 3) if reduction == "none" else ())
    small = [a[:2] if a.ndim == 2 else a for a in arrays]
    ggcheck(fn(nbgrad, F), small, rg_mask=mask)


def test_bce_with_logits_smooth_at_zero():
    # logits exactly 0 (e.g. a zero-initialised last layer): sigmoid(0) - t, and sigma'(0) = 1/4
    t = np.array([1.0, 0.0, 0.3])
    x, tx = N(np.zeros(3), True), T(np.zeros(3), True)
    for lib, f, inp in [(nbgrad, F, x), (torch, TF, tx)]:
        (g,) = lib.autograd.grad(f.binary_cross_entropy_with_logits(inp, lib.tensor(t), reduction="sum"),
                                 inp, create_graph=True)
        np.testing.assert_allclose(val(g), 0.5 - t, atol=1e-15)
        (gg,) = lib.autograd.grad(g.sum(), inp)
        np.testing.assert_allclose(val(gg), 0.25, atol=1e-15)
    ggcheck(lambda x: F.binary_cross_entropy_with_logits(x, N(t), pos_weight=N([2.0, 0.5, 1.0])),
            [np.zeros(3)])


def test_bce_with_logits_errors_and_dtype():
    with pytest.raises(ValueError, match="must be the same as input size"):
        F.binary_cross_entropy_with_logits(N(rnd(3)), N(rnd(4)))
    x = nbgrad.tensor([0.5, -2.0], requires_grad=True)
    y = F.binary_cross_entropy_with_logits(x, nbgrad.tensor([1.0, 0.0]))
    assert y.dtype == nbgrad.float32
    ty = TF.binary_cross_entropy_with_logits(torch.tensor([0.5, -2.0]), torch.tensor([1.0, 0.0]))
    np.testing.assert_allclose(y.item(), ty.item(), rtol=1e-6)


# ----- linear ---------------------------------------------------------------------------------
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("shape", [(5,), (2, 5), (2, 3, 5)])
def test_linear(shape, bias):
    w, b = rnd(4, 5, seed=28), rnd(4, seed=29)
    arrays = [rnd(*shape, seed=30), w] + ([b] if bias else [])
    y = both(lambda x, w, *b: F.linear(x, w, *b), lambda x, w, *b: TF.linear(x, w, *b), arrays)
    assert y.shape == shape[:-1] + (4,)
    if len(shape) == 2:
        ty = TF.linear(*[T(a, True) for a in arrays])
        assert y.grad_fn.name() == ty.grad_fn.name() == ("AddmmBackward0" if bias else "MmBackward0")
    ggcheck(lambda x, w, *b: F.linear(x, w, *b), [arrays[0], w[:2]] + ([b[:2]] if bias else []))


def _third_order_vs_torch(fn, tfn, arrays, rg):
    """First, second and third derivatives of a loss through ``tanh(fn(*arrays))`` with
    respect to the arrays marked in ``rg``, against torch."""
    res = []
    for lib, mk, f in ((nbgrad, N, fn), (torch, T, tfn)):
        xs = [mk(a, r) for a, r in zip(arrays, rg)]
        want = [x for x, r in zip(xs, rg) if r]
        loss = (lib.tanh(f(*xs)) ** 2).sum()
        g1 = lib.autograd.grad(loss, want, create_graph=True)
        s2 = sum((g * g * g).sum() for g in g1)
        g2 = lib.autograd.grad(s2, want, create_graph=True)
        s3 = sum((g * g).sum() for g in g2)
        g3 = lib.autograd.grad(s3, want)
        res.append([val(g) for g in (*g1, *g2, *g3)])
    for a, b in zip(*res):
        assert a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("rg", [(True, True, True), (True, False, False), (False, True, True),
                                (False, False, True), (True, True, False)],
                         ids=["all", "input", "weight_bias", "bias", "no_bias"])
@pytest.mark.parametrize("shape", [(5,), (3, 5), (2, 3, 5)])
def test_linear_derivatives_up_to_third_order_match_torch(shape, rg):
    """linear's backward is one op (two products and a column sum over the flattened rows)
    whose own node is differentiable: first, second and third derivatives of a loss through
    ``tanh(linear(...))`` against torch, for every subset of inputs needing gradients."""
    arrays = [rnd(*shape, seed=31), rnd(4, 5, seed=32), rnd(4, seed=33)]
    if rg == (True, True, False):  # no bias at all
        arrays, rg = arrays[:2], rg[:2]
    _third_order_vs_torch(F.linear, TF.linear, arrays, rg)


@pytest.mark.parametrize("reduce", ["sum", "mean"])
def test_linear_backward_of_an_expanded_gradient(reduce):
    """A loss's sum or mean gives linear an expanded (zero-stride) gradient: made whole once
    for its products and column sum; values as torch."""
    arrays = [rnd(2, 3, 5, seed=34), rnd(4, 5, seed=35), rnd(4, seed=36)]
    both(lambda *a: getattr(F.linear(*a), reduce)(), lambda *a: getattr(TF.linear(*a), reduce)(),
         arrays)


@pytest.mark.parametrize("rg", [(True, True), (True, False), (False, True)],
                         ids=["both", "a", "b"])
@pytest.mark.parametrize("sa,sb", [((3, 4), (4, 5)), ((2, 3, 4), (4, 5)), ((2, 3, 4), (2, 4, 5)),
                                   ((1, 3, 4), (2, 4, 5)), ((2, 1, 3, 4), (3, 4, 2)),
                                   ((4,), (2, 4, 3)), ((2, 3, 4), (4,))])
def test_matmul_derivatives_up_to_third_order_match_torch(sa, sb, rg):
    """matmul's backward is one op (two products on storage, each summed over the batch
    dims broadcasting added, 1-d operands promoted) whose own node is differentiable: first,
    second and third derivatives of a loss through ``tanh(a @ b)`` against torch."""
    arrays = [rnd(*sa, seed=41), rnd(*sb, seed=42)]
    _third_order_vs_torch(nbgrad.matmul, torch.matmul, arrays, rg)


def test_matmul_backward_of_an_expanded_gradient():
    """A batched product under a sum: its gradient is expanded (zero strides), made whole
    once for both products; values as torch."""
    both(lambda a, b: (a @ b).sum(), lambda a, b: (a @ b).sum(),
         [rnd(2, 3, 4, seed=43), rnd(2, 4, 5, seed=44)])


def test_linear_float32_and_errors():
    x = nbgrad.randn(2, 5)
    w = nbgrad.randn(3, 5, requires_grad=True)
    y = F.linear(x, w, nbgrad.zeros(3))
    assert y.dtype == nbgrad.float32 and y.shape == (2, 3)
    for xs, ws in [((2, 4), (3, 5)), ((2, 6, 4), (3, 5)), ((4,), (3, 5))]:
        with pytest.raises(RuntimeError, match="mat1 and mat2 shapes cannot be multiplied") as e:
            F.linear(nbgrad.randn(*xs), nbgrad.randn(*ws))
        with pytest.raises(RuntimeError) as te:
            TF.linear(torch.randn(*xs), torch.randn(*ws))
        assert str(e.value) == str(te.value)
    with pytest.raises(RuntimeError, match="mat1 and mat2 shapes cannot be multiplied \\(2x4 and 5x3\\)"):
        F.linear(nbgrad.randn(2, 4), nbgrad.randn(3, 5))
    with pytest.raises(RuntimeError, match="to have the same dtype, but got: float != double"):
        F.linear(nbgrad.randn(2, 5), nbgrad.randn(3, 5, dtype=nbgrad.float64))


# ----- dropout ----------------------------------------------------------------------------------
def test_dropout_identity_cases():
    x = nbgrad.randn(4, 5, requires_grad=True)
    assert F.dropout(x, 0.5, training=False) is x
    assert F.dropout(x, 0.0) is x
    y = F.dropout(x, 1.0)
    assert y.shape == (4, 5) and (y.detach().numpy() == 0).all() and y.requires_grad
    y.sum().backward()
    assert (x.grad.numpy() == 0).all()
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        F.dropout(x, 1.5)
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1"):
        F.dropout(x, -0.1)


@pytest.mark.parametrize("p", [0.2, 0.5, 0.8])
def test_dropout_statistics_and_gradient(p):
    n = 20000
    nbgrad.manual_seed(123)
    x = nbgrad.ones(n, dtype=nbgrad.float64, requires_grad=True)
    y = F.dropout(x, p)
    yv = y.detach().numpy()
    assert y.dtype == nbgrad.float64 and y.shape == (n,)
    kept = yv != 0
    # kept values are scaled by 1/(1-p); the fraction dropped is p within 5 sigma
    np.testing.assert_allclose(yv[kept], 1.0 / (1.0 - p), rtol=1e-12)
    assert abs((~kept).mean() - p) < 5 * np.sqrt(p * (1 - p) / n)
    assert abs(yv.mean() - 1.0) < 0.05
    # the gradient is the mask
    y.backward(nbgrad.ones(n, dtype=nbgrad.float64))
    np.testing.assert_array_equal(x.grad.numpy(), yv)
    # same seed -> same mask; another draw differs
    nbgrad.manual_seed(123)
    np.testing.assert_array_equal(F.dropout(x.detach(), p).numpy(), yv)
    assert not np.array_equal(F.dropout(x.detach(), p).numpy(), yv)


def test_dropout_float32():
    nbgrad.manual_seed(0)
    y = F.dropout(nbgrad.ones(1000), 0.25)
    assert y.dtype == nbgrad.float32
    u = np.unique(y.numpy())
    assert len(u) == 2 and u[0] == 0 and u[1] == np.float32(1 / 0.75)


# ----- activations --------------------------------------------------------------------------
AWAY_FROM_ZERO = np.array([[-2.0, -0.7, -0.05, 0.3], [0.05, 1.1, 2.5, -3.0]])


@pytest.mark.parametrize("name,fn,tfn", [
    ("gelu", lambda x: F.gelu(x), lambda x: TF.gelu(x)),
    ("gelu_tanh", lambda x: F.gelu(x, approximate="tanh"), lambda x: TF.gelu(x, approximate="tanh")),
    ("silu", F.silu, TF.silu),
    ("relu", F.relu, TF.relu),
])
def test_activations(name, fn, tfn):
    y = both(fn, tfn, [AWAY_FROM_ZERO])
    assert y.shape == (2, 4)
    ggcheck(fn, [AWAY_FROM_ZERO])
    a32 = AWAY_FROM_ZERO.astype(np.float32)
    y32 = fn(nbgrad.tensor(a32))
    assert y32.dtype == nbgrad.float32
    np.testing.assert_allclose(val(y32), val(tfn(torch.tensor(a32))), rtol=1e-5, atol=1e-6)


def test_activation_errors_and_relu_at_zero():
    with pytest.raises(RuntimeError, match="approximate argument must be either none or tanh"):
        F.gelu(nbgrad.randn(3), approximate="foo")
    x, tx = N([0.0, -1.0, 2.0], True), T([0.0, -1.0, 2.0], True)
    F.relu(x).sum().backward()
    TF.relu(tx).sum().backward()
    close(x.grad, tx.grad)


# ----- layer_norm -----------------------------------------------------------------------------
@pytest.mark.parametrize("affine", [False, True])
@pytest.mark.parametrize("nshape", [(4,), (3, 4)])
def test_layer_norm(nshape, affine):
    a = rnd(2, 3, 4, seed=31) * 2 + 1
    ws = [rnd(*nshape, seed=32), rnd(*nshape, seed=33)] if affine else []
    y = both(lambda x, *wb: F.layer_norm(x, nshape, *wb, eps=1e-5),
             lambda x, *wb: TF.layer_norm(x, nshape, *wb, eps=1e-5), [a] + ws, rtol=1e-9)
    assert y.shape == (2, 3, 4)
    if not affine:
        m = val(y).reshape(-1, int(np.prod(nshape)))
        np.testing.assert_allclose(m.mean(1), 0, atol=1e-12)
    small = [a[:1, :, :] if len(nshape) == 2 else a[:1, :2]] + ws
    ggcheck(lambda x, *wb: F.layer_norm(x, nshape, *wb), small)


def test_layer_norm_int_shape_float32_and_errors():
    a = rnd(3, 5, seed=34).astype(np.float32)
    y = F.layer_norm(nbgrad.tensor(a), 5)
    assert y.dtype == nbgrad.float32
    np.testing.assert_allclose(val(y), val(TF.layer_norm(torch.tensor(a), (5,))), rtol=1e-5, atol=1e-5)
    msg = (r"Given normalized_shape=\[3, 5\], expected input with shape \[\*, 3, 5\], "
           r"but got input of size\[2, 3, 4\]")
    with pytest.raises(RuntimeError, match=msg):
        F.layer_norm(nbgrad.randn(2, 3, 4), (3, 5))
    with pytest.raises(RuntimeError, match=msg):
        TF.layer_norm(torch.randn(2, 3, 4), (3, 5))
    with pytest.raises(RuntimeError, match="Expected weight to be of same shape as normalized_shape"):
        F.layer_norm(nbgrad.randn(2, 3, 4), [4], nbgrad.randn(5))
    with pytest.raises(RuntimeError, match="Expected bias to be of same shape as normalized_shape"):
        F.layer_norm(nbgrad.randn(2, 3, 4), [4], nbgrad.randn(4), nbgrad.randn(3))


# ----- embedding -----------------------------------------------------------------------------
def test_embedding():
    E = rnd(6, 3, seed=35)
    idx = np.array([[0, 2, 5], [2, 2, 1]])
    y = both(lambda w: F.embedding(N(idx), w), lambda w: TF.embedding(T(idx), w), [E])
    assert y.shape == (2, 3, 3) and y.grad_fn.name() == "EmbeddingBackward0"
    y = both(lambda w: F.embedding(N(idx), w, padding_idx=2),
             lambda w: TF.embedding(T(idx), w, padding_idx=2), [E])
    ggcheck(lambda w: F.embedding(nbgrad.tensor([1, 3, 1]), w) ** 2, [E[:4]])
    assert F.embedding(nbgrad.tensor([1, 0]), nbgrad.randn(3, 2)).dtype == nbgrad.float32
    assert F.embedding(nbgrad.tensor(4), N(E)).shape == (3,)
    with pytest.raises(IndexError, match="index out of range in self"):
        F.embedding(nbgrad.tensor([6]), N(E))
    with pytest.raises(RuntimeError, match="Expected tensor for argument #1 'indices' to have one of"):
        F.embedding(nbgrad.tensor([1.0]), N(E))


# ----- fused layer_norm / cross_entropy kernels ------------------------------------------------
from nbgrad.ops.loss import cross_entropy_backward  # noqa: E402
from nbgrad.ops.normalization import native_layer_norm, native_layer_norm_backward  # noqa: E402

PAR_N = 131072  # NBGRAD_PARALLEL_MIN's default: inputs this big take the parallel kernels


def test_fused_grad_fn_names_match_torch():
    a = rnd(3, 4, seed=40)
    y, ty = F.layer_norm(N(a, True), (4,)), TF.layer_norm(T(a, True), (4,))
    assert y.grad_fn.name() == ty.grad_fn.name() == "NativeLayerNormBackward0"
    w = N([1.0, 2.0, 0.5, 1.5])
    y = F.layer_norm(N(a), (4,), weight=w.requires_grad_())
    assert y.grad_fn.name() == "NativeLayerNormBackward0"
    for red in ("none", "sum", "mean"):
        y = F.cross_entropy(N(a, True), nbgrad.tensor([0, 3, 1]), reduction=red)
        ty = TF.cross_entropy(T(a, True), torch.tensor([0, 3, 1]), reduction=red)
        assert y.grad_fn.name() == ty.grad_fn.name() == "NllLossBackward0"
    # without requires_grad: no node
    assert F.layer_norm(N(a), (4,)).grad_fn is None
    assert F.cross_entropy(N(a), nbgrad.tensor([0, 3, 1])).grad_fn is None


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_saved_attributes_match_torch(reduction):
    # (PyTorch's node is nll_loss's, over log_softmax's output: what ours saves as "self")
    a, tgt, w = rnd(4, 3, seed=73), np.array([2, 0, 1, 1]), np.array([0.5, 2.0, 1.5])
    nodes = [f.cross_entropy(x, m.tensor(tgt), weight=m.tensor(w), reduction=reduction).grad_fn
             for m, f, x in ((nbgrad, F, N(a, True)), (torch, TF, T(a, True)))]
    nb, nt = nodes
    for name in ("self", "target", "weight", "total_weight"):
        np.testing.assert_allclose(val(getattr(nb, "_saved_" + name)),
                                   val(getattr(nt, "_saved_" + name)), rtol=1e-12)
    assert nb._saved_reduction == nt._saved_reduction
    assert nb._saved_ignore_index == -100 == nt._saved_ignore_index - 2**64


def _ln_vs_torch(shape, nshape, dtype, seed, rtol):
    a = rnd(*shape, seed=seed) * 3 + 2
    w, b = rnd(*nshape, seed=seed + 1), rnd(*nshape, seed=seed + 2)
    go = rnd(*shape, seed=seed + 3)
    nd = getattr(nbgrad, dtype)
    xs = [nbgrad.tensor(v, dtype=nd, requires_grad=True) for v in (a, w, b)]
    ts = [T(v, True) for v in (a, w, b)]  # float64 reference
    y = F.layer_norm(xs[0], nshape, xs[1], xs[2])
    ty = TF.layer_norm(ts[0], nshape, ts[1], ts[2])
    assert y.dtype == nd
    np.testing.assert_allclose(val(y), val(ty), rtol=rtol, atol=rtol)
    y.backward(nbgrad.tensor(go, dtype=nd))
    ty.backward(T(go))
    for x, t in zip(xs, ts):
        assert x.grad.dtype == nd
        scale = np.abs(val(t.grad)).max()
        np.testing.assert_allclose(val(x.grad), val(t.grad), rtol=rtol, atol=rtol * scale)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_layer_norm_parallel_size(dtype):
    rtol = 1e-4 if dtype == "float32" else 1e-10
    _ln_vs_torch((136, 1000), (1000,), dtype, 41, rtol)  # 136000 elements
    _ln_vs_torch((3, 50, 20, 50), (20, 50), dtype, 42, rtol)  # 150000 elements, 2 normalized dims
    assert 136 * 1000 >= PAR_N and 3 * 50 * 20 * 50 >= PAR_N


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cross_entropy_parallel_size(dtype):
    nd = getattr(nbgrad, dtype)
    rtol = 2e-5 if dtype == "float32" else 1e-10
    rng = np.random.default_rng(43)
    wt = rng.random(1000) + 0.5
    cases = [((160, 1000), (160,), {"weight": wt, "ignore_index": 7}, "mean"),
             ((4, 1000, 40), (4, 40), {"weight": wt}, "none"),
             ((200, 700), (200,), {}, "sum")]
    for shape, tshape, kw, red in cases:
        assert int(np.prod(shape)) >= PAR_N
        a = rnd(*shape, seed=44) * 4
        tgt = rng.integers(0, shape[1], tshape)
        tgt.reshape(-1)[::5] = 7
        x = nbgrad.tensor(a, dtype=nd, requires_grad=True)
        tx = T(a, True)
        y = F.cross_entropy(x, N(tgt), reduction=red, **_ce_kwargs(nbgrad, kw))
        ty = TF.cross_entropy(tx, T(tgt), reduction=red, **_ce_kwargs(torch, kw))
        assert y.dtype == nd and tuple(y.shape) == tuple(ty.shape)
        np.testing.assert_allclose(val(y), val(ty), rtol=rtol, atol=rtol)
        go = rnd(*tuple(ty.shape), seed=45)
        y.backward(nbgrad.tensor(go, dtype=nd))
        ty.backward(T(go))
        np.testing.assert_allclose(val(x.grad), val(tx.grad), rtol=rtol,
                                   atol=rtol * np.abs(val(tx.grad)).max())


def test_fused_kernels_forced_parallel_small(monkeypatch):
    # the parallel variants on tiny inputs (and the chunked column sums of layer norm)
    from nbgrad.kernels.cpu import _par

    monkeypatch.setattr(_par, "PARALLEL_MIN", 1)
    ggcheck(lambda x, w, b: F.layer_norm(x, (4,), w, b), [rnd(5, 4, seed=46), rnd(4, seed=47),
                                                          rnd(4, seed=48)])
    tgt = nbgrad.tensor([0, 2, 1, 2, 0])
    ggcheck(lambda x: F.cross_entropy(x, tgt, weight=N([0.5, 2.0, 1.5]), ignore_index=1),
            [rnd(5, 3, seed=49)])
    _ln_vs_torch((7, 6), (6,), "float64", 50, 1e-10)


def test_layer_norm_backward_op_matches_torch():
    a, go = rnd(3, 2, 5, seed=51) * 2 + 1, rnd(3, 2, 5, seed=52)
    w, b = rnd(2, 5, seed=53), rnd(2, 5, seed=54)
    ta, tw, tb = T(a), T(w), T(b)
    _, tm, tr = torch.ops.aten.native_layer_norm(ta, [2, 5], tw, tb, 1e-5)
    want = torch.ops.aten.native_layer_norm_backward(T(go), ta, [2, 5], tm, tr, tw, tb,
                                                     [True, True, True])
    m, r = N(tm.numpy()), N(tr.numpy())
    got = native_layer_norm_backward(N(go), N(a), (2, 5), m, r, N(w), N(b), (True, True, True))
    for g, t in zip(got, want):
        close(g, t, rtol=1e-10, atol=1e-12)
    gx, gw, gb = native_layer_norm_backward(N(go), N(a), [2, 5], m, r, N(w), None,
                                            (False, True, False))
    assert gx is None and gb is None
    close(gw, want[1], rtol=1e-10, atol=1e-12)
    want = torch.ops.aten.native_layer_norm_backward(T(go), ta, [2, 5], tm, tr, None, None,
                                                     [True, False, False])
    got = native_layer_norm_backward(N(go), N(a), (2, 5), m, r, None, None, (True, False, False))
    assert got[1] is None and got[2] is None
    close(got[0], want[0], rtol=1e-10, atol=1e-12)
    # the forward's three outputs, as aten's: only the first has a node
    outs = native_layer_norm(N(a, True), (2, 5), N(w), N(b), 1e-5)
    touts = torch.ops.aten.native_layer_norm(T(a, True), [2, 5], tw, tb, 1e-5)
    for o, t in zip(outs, touts):
        close(o, t, rtol=1e-10, atol=1e-12)
        assert (o.grad_fn is None) == (t.grad_fn is None)


def _ln_stats(x, eps=1e-5):
    m = x.mean(-1, keepdim=True)
    return m, (((x - m) ** 2).mean(-1, keepdim=True) + eps).rsqrt()


def test_layer_norm_backward_op_grads_third_order():
    # layer_norm_backward's own derivatives (second order of layer_norm), and theirs (third)
    def f(g, x, w):
        m, r = _ln_stats(x)
        return native_layer_norm_backward(g, x, x.shape[-1:], m, r, w, None, (True, True, True))

    ggcheck(f, [rnd(2, 4, seed=55), rnd(2, 4, seed=56), rnd(4, seed=57)])
    ggcheck(lambda g, x: f(g, x, None)[0], [rnd(3, 3, seed=58), rnd(3, 3, seed=59)])


@pytest.mark.parametrize("affine", ["none", "weight", "bias", "both"])
def test_layer_norm_second_derivatives_vs_torch(affine):
    a = rnd(3, 5, seed=60) * 2 - 1
    ps = {"weight": rnd(5, seed=61), "bias": rnd(5, seed=62)}
    names = {"none": [], "weight": ["weight"], "bias": ["bias"], "both": ["weight", "bias"]}[affine]
    xs = [N(a, True)] + [N(ps[n], True) for n in names]
    ts = [T(a, True)] + [T(ps[n], True) for n in names]
    outs = []
    # (torch 2.13's own double backward fails for a bias without a weight)
    libs = ((nbgrad, F, xs), (torch, TF, ts)) if affine != "bias" else ((nbgrad, F, xs),) * 2
    for lib, f, ins in libs:
        y = f.layer_norm(ins[0], (5,), **dict(zip(names, ins[1:])))
        gs = lib.autograd.grad((y ** 3).sum(), ins, create_graph=True)
        s = sum((g * g).sum() for g in gs)
        outs.append(list(gs) + list(lib.autograd.grad(s, ins, allow_unused=True)))
    for g, t in zip(*outs):
        assert (g is None) == (t is None)
        if g is not None:
            close(g, t, rtol=1e-9, atol=1e-10)
    ggcheck(lambda x, *p: F.layer_norm(x, (5,), **dict(zip(names, p))),
            [a[:2]] + [ps[n] for n in names])


def test_layer_norm_layouts_and_edge_cases():
    a = rnd(4, 6, seed=63)
    # a non-contiguous input (a transpose) and a broadcast (stride-0) gradient
    both(lambda x: F.layer_norm(x.t(), (4,)), lambda x: TF.layer_norm(x.t(), (4,)), [a])
    x, tx = N(a, True), T(a, True)
    F.layer_norm(x.t(), (4,)).sum().backward()
    TF.layer_norm(tx.t(), (4,)).sum().backward()
    close(x.grad, tx.grad, rtol=1e-9, atol=1e-11)
    # no leading dims, and every dim normalized
    both(lambda x, w: F.layer_norm(x, (4, 6), w), lambda x, w: TF.layer_norm(x, (4, 6), w),
         [a, rnd(4, 6, seed=64)])
    ggcheck(lambda x: F.layer_norm(x, (2, 3)), [a[:2, :3]])
    # constant rows: xhat 0, finite gradients, as torch
    c = np.ones((2, 3))
    both(lambda x: F.layer_norm(x, (3,)), lambda x: TF.layer_norm(x, (3,)), [c])
    # empty inputs
    for shape, ns in (((0, 4), (4,)), ((3, 0), (0,))):
        x = nbgrad.zeros(*shape, dtype=nbgrad.float64, requires_grad=True)
        y = F.layer_norm(x, ns, nbgrad.ones(*ns, dtype=nbgrad.float64, requires_grad=True))
        assert y.shape == shape
        y.sum().backward()
        assert x.grad.shape == shape
    # float32 keeps precision for rows far from zero (float64 statistics)
    big = (rnd(8, 512, seed=65) * 1e-2 + 1e3).astype(np.float32)
    y = F.layer_norm(nbgrad.tensor(big), (512,))
    np.testing.assert_allclose(val(y), val(TF.layer_norm(T(big.astype(np.float64)), (512,))),
                               rtol=0, atol=2e-3)
    # mixed dtypes: PyTorch's CPU rule (a 16-bit input with float32 parameters only)
    with pytest.raises(RuntimeError, match="expect parameter to have scalar type of Float"):
        F.layer_norm(nbgrad.tensor(a.astype(np.float32)), (6,), N(rnd(6, seed=66)))
    y = F.layer_norm(nbgrad.tensor(a).bfloat16(), (6,), N(rnd(6, seed=66)).float())
    assert y.dtype == nbgrad.bfloat16


def test_cross_entropy_backward_op():
    a, go = rnd(4, 3, seed=67), rnd(4, seed=68)
    tgt, w = np.array([2, 0, 1, 1]), np.array([0.5, 2.0, 1.5])
    got = cross_entropy_backward(N(go), N(a), N(tgt), N(w), ignore_index=1)
    tx = T(a, True)
    TF.cross_entropy(tx, T(tgt), weight=T(w), ignore_index=1, reduction="none").backward(T(go))
    close(got, tx.grad)
    ggcheck(lambda g, x: cross_entropy_backward(g, x, N(tgt), N(w), 1), [go, a])
    ggcheck(lambda g, x: cross_entropy_backward(g, x, nbgrad.tensor(2)), [np.array(0.7), a[0]])
    with pytest.raises(IndexError, match=r"^Target 3 is out of bounds\.$"):
        cross_entropy_backward(N(go), N(a), nbgrad.tensor([0, 3, 1, 1]))


@pytest.mark.parametrize("kind", ["2d", "kdim", "unbatched"])
def test_cross_entropy_second_derivatives_vs_torch(kind):
    w = np.array([0.5, 2.0, 1.5])
    a, tgt = {"2d": (rnd(4, 3, seed=69), np.array([2, 0, 1, 1])),
              "kdim": (rnd(2, 3, 2, 2, seed=70), np.array([[[0, 1], [2, 1]], [[1, 1], [0, 2]]])),
              "unbatched": (rnd(3, seed=71), np.array(2))}[kind]
    outs = []
    for lib, f, x in ((nbgrad, F, N(a, True)), (torch, TF, T(a, True))):
        y = f.cross_entropy(x, lib.tensor(tgt), weight=lib.tensor(w), ignore_index=1)
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        (gg,) = lib.autograd.grad((g ** 3).sum(), x)
        outs.append((y, g, gg))
    for u, v in zip(*outs):
        close(u, v, rtol=1e-9, atol=1e-12)


def test_cross_entropy_fused_layouts_and_edges():
    a = rnd(3, 5, seed=72)
    tgt = np.array([4, 0, 2])
    # non-contiguous logits
    both(lambda x: F.cross_entropy(x.t(), N(tgt[:1].repeat(5) % 3)),
         lambda x: TF.cross_entropy(x.t(), T(tgt[:1].repeat(5) % 3)), [a])
    # class indices are int64 or uint8, as PyTorch's
    with pytest.raises(RuntimeError, match="^expected target dtype to be Long or Byte, but "
                       "got Int$"):
        F.cross_entropy(N(a), nbgrad.tensor(tgt.astype(np.int32), dtype=nbgrad.int32))
    y = F.cross_entropy(N(a), nbgrad.tensor(tgt.astype(np.uint8), dtype=nbgrad.uint8))
    close(y, TF.cross_entropy(T(a), T(tgt)))
    # all rows ignored: the mean is nan and the gradient 0, as torch
    x, tx = N(a, True), T(a, True)
    F.cross_entropy(x, nbgrad.tensor([1, 1, 1]), ignore_index=1).backward()
    TF.cross_entropy(tx, torch.tensor([1, 1, 1]), ignore_index=1).backward()
    close(x.grad, tx.grad)
    # an empty batch
    e = nbgrad.zeros(0, 5, dtype=nbgrad.float64, requires_grad=True)
    assert np.isnan(F.cross_entropy(e, nbgrad.tensor(np.zeros(0, np.int64))).item())
    assert F.cross_entropy(e, nbgrad.tensor(np.zeros(0, np.int64)), reduction="sum").item() == 0
    # errors in torch's words, before any kernel runs
    with pytest.raises(RuntimeError, match=r"^Expected target size \[2, 4\], got \[2, 5\]$"):
        F.cross_entropy(N(rnd(2, 3, 4)), nbgrad.tensor(np.zeros((2, 5), np.int64)))
    with pytest.raises(RuntimeError, match="weight tensor should be defined either for all 5 "
                                           r"classes or no classes but got weight tensor of shape: \[2\]"):
        F.cross_entropy(N(a), N(tgt), weight=N([1.0, 2.0]))
    with pytest.raises(IndexError, match=r"^Target 5 is out of bounds\.$"):
        F.cross_entropy(N(a), nbgrad.tensor([0, 5, 9]))
    with pytest.raises(IndexError, match=r"^Target -1 is out of bounds\.$"):
        F.cross_entropy(N(rnd(2, 3, 2)), nbgrad.tensor([[0, 1], [-1, 2]]))
    # nan logits give nan in that row only
    b = a.copy()
    b[1, 3] = np.nan
    y = F.cross_entropy(N(b), N(tgt), reduction="none")
    ty = TF.cross_entropy(T(b), T(tgt), reduction="none")
    np.testing.assert_array_equal(np.isnan(val(y)), np.isnan(val(ty)))
