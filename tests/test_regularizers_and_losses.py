"""Layers and functions PyTorch programs use that nbgrad had not (issue #16): channel and
alpha dropout (PyTorch's masks for a seed), RReLU, gumbel_softmax, Bilinear,
GaussianNLLLoss, MultiMarginLoss; values, gradients and errors against PyTorch."""

import numpy as np
import pytest

import nbgrad
from nbgrad.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")
_X = np.random.default_rng(5).standard_normal((2, 3, 4, 5))


@pytest.mark.parametrize("name,shape", [("dropout1d", (2, 3, 5)), ("dropout1d", (3, 5)),
                                        ("dropout3d", (2, 3, 2, 2, 2)),
                                        ("alpha_dropout", (4, 6)),
                                        ("feature_alpha_dropout", (2, 3, 4))])
def test_dropouts_draw_pytorchs_masks(name, shape):
    x = np.random.default_rng(1).standard_normal(shape)
    outs = []
    for lib in (nbgrad, torch):
        lib.manual_seed(3)
        t = lib.tensor(x, requires_grad=True)
        y = getattr(lib.nn.functional, name)(t, 0.4, training=True)
        y.sum().backward()
        outs.append((y.detach().numpy(), t.grad.numpy()))
        if lib is nbgrad:
            assert getattr(lib.nn.functional, name)(t, 0.4, training=False) is t
    np.testing.assert_allclose(outs[0][0], outs[1][0], rtol=1e-12)
    np.testing.assert_allclose(outs[0][1], outs[1][1], rtol=1e-12)


def test_dropout_layers_follow_train_and_eval():
    x = nbgrad.ones(2, 3, 4)
    for layer in (nbgrad.nn.Dropout1d(0.5), nbgrad.nn.AlphaDropout(0.5),
                  nbgrad.nn.FeatureAlphaDropout(0.5), nbgrad.nn.RReLU()):
        layer.eval()
        assert layer(x).tolist() == x.tolist()
    drop3 = nbgrad.nn.Dropout3d(0.5)
    assert repr(drop3) == "Dropout3d(p=0.5, inplace=False)"
    with pytest.raises(RuntimeError, match="dropout1d: Expected 2D or 3D input"):
        nbgrad.nn.functional.dropout1d(nbgrad.ones(2, 3, 4, 5))


def test_rrelu_and_gumbel_softmax():
    x = nbgrad.tensor(_X[0, 0])
    ev = nbgrad.nn.functional.rrelu(x)
    np.testing.assert_allclose(ev.numpy(), torch.nn.functional.rrelu(torch.tensor(_X[0, 0]))
                               .numpy(), rtol=1e-12)
    nbgrad.manual_seed(0)
    t = nbgrad.tensor(_X[0, 0], requires_grad=True)
    y = nbgrad.nn.functional.rrelu(t, 0.1, 0.3, training=True)
    slope = (y / t).detach().numpy()
    neg = _X[0, 0] < 0
    assert np.all((slope[neg] >= 0.1) & (slope[neg] <= 0.3)) and np.all(slope[~neg] == 1)
    y.sum().backward()
    np.testing.assert_allclose(t.grad.numpy(), slope)
    logits = nbgrad.tensor(_X[0], requires_grad=True)
    soft = nbgrad.nn.functional.gumbel_softmax(logits, tau=0.5)
    np.testing.assert_allclose(soft.sum(-1).detach().numpy(), 1.0, rtol=1e-12)
    hard = nbgrad.nn.functional.gumbel_softmax(logits, hard=True, dim=0)
    assert sorted(set(hard.detach().numpy().ravel().tolist())) == [0.0, 1.0]
    assert (hard.detach().sum(0).numpy() == 1.0).all()
    (hard * nbgrad.tensor(_X[1])).sum().backward()  # (the soft sample's gradient)
    assert logits.grad is not None and float(logits.grad.abs().sum()) > 0


def test_bilinear_matches_pytorch():
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((4, 3)), rng.standard_normal((4, 2))
    res = []
    for lib in (nbgrad, torch):
        lib.manual_seed(0)
        layer = lib.nn.Bilinear(3, 2, 5).double()
        x1, x2 = lib.tensor(a, requires_grad=True), lib.tensor(b, requires_grad=True)
        y = layer(x1, x2)
        (y * y).sum().backward()
        res.append([y.detach().numpy(), x1.grad.numpy(), x2.grad.numpy(),
                    layer.weight.grad.numpy(), layer.bias.grad.numpy(),
                    layer.weight.detach().numpy()])
        assert repr(layer) == "Bilinear(in1_features=3, in2_features=2, out_features=5, " \
                              "bias=True)"
    for u, v in zip(*res):
        np.testing.assert_allclose(u, v, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("var_shape,full,reduction", [((4, 3), False, "mean"),
                                                      ((4,), True, "sum"),
                                                      ((4, 1), False, "none")])
def test_gaussian_nll_loss_matches_pytorch(var_shape, full, reduction):
    rng = np.random.default_rng(4)
    x, t = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    v = np.abs(rng.standard_normal(var_shape))
    v.flat[0] = 0.0  # (clamped to eps)
    res = []
    for lib in (nbgrad, torch):
        xs = [lib.tensor(a, requires_grad=True) for a in (x, t, v)]
        loss = lib.nn.GaussianNLLLoss(full=full, reduction=reduction)(*xs)
        loss.sum().backward()
        res.append([loss.detach().numpy()] + [a.grad.numpy() for a in xs])
    for u, w in zip(*res):
        np.testing.assert_allclose(u, w, rtol=1e-10)
    with pytest.raises(ValueError, match="var is of incorrect size"):
        nbgrad.nn.functional.gaussian_nll_loss(nbgrad.ones(4, 3), nbgrad.ones(4, 3),
                                               nbgrad.ones(3, 4))
    with pytest.raises(ValueError, match="var has negative entry"):
        nbgrad.nn.functional.gaussian_nll_loss(nbgrad.ones(2), nbgrad.ones(2), -nbgrad.ones(2))


@pytest.mark.parametrize("p,weighted,reduction", [(1, False, "mean"), (2, True, "none"),
                                                  (1, True, "sum")])
def test_multi_margin_loss_matches_pytorch(p, weighted, reduction):
    rng = np.random.default_rng(6)
    x, y = rng.standard_normal((5, 4)), np.array([0, 3, 1, 1, 2])
    w = np.abs(rng.standard_normal(4))
    res = []
    for lib in (nbgrad, torch):
        t = lib.tensor(x, requires_grad=True)
        crit = lib.nn.MultiMarginLoss(p=p, margin=0.7, weight=lib.tensor(w) if weighted else None,
                                      reduction=reduction)
        loss = crit(t, lib.tensor(y))
        loss.sum().backward()
        res.append((loss.detach().numpy(), t.grad.numpy()))
    np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-10)
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-10)
    one = nbgrad.nn.functional.multi_margin_loss(nbgrad.tensor(x[0]), nbgrad.tensor(1),
                                                 reduction="none")
    want = torch.nn.functional.multi_margin_loss(torch.tensor(x[0]), torch.tensor(1),
                                                 reduction="none")
    assert tuple(one.shape) == tuple(want.shape)
    np.testing.assert_allclose(one.numpy(), want.numpy(), rtol=1e-12)
    with pytest.raises(ValueError, match="only p == 1 and p == 2 supported"):
        nbgrad.nn.functional.multi_margin_loss(nbgrad.tensor(x), nbgrad.tensor(y), p=3)
    xs = nbgrad.tensor(x, requires_grad=True)
    assert gradgradcheck(lambda a: nbgrad.nn.functional.multi_margin_loss(
        a, nbgrad.tensor(y), p=2), (xs,))
    assert gradcheck(lambda a: nbgrad.nn.functional.bilinear(
        a, a[:, :2], nbgrad.ones(2, 4, 2, dtype=nbgrad.float64)), (xs,))
