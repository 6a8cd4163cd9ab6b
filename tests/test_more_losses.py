"""MultiLabelMarginLoss, TripletMarginWithDistanceLoss, pdist, channel_shuffle /
ChannelShuffle and F.upsample_nearest / upsample_bilinear (issue #16): values, gradients,
reprs and errors against PyTorch; gradcheck in float64."""

import numpy as np
import pytest

import nbgrad
from nbgrad.autograd import gradcheck, gradgradcheck
from tests._errors import assert_same_error

torch = pytest.importorskip("torch")

_R = np.random.default_rng(21)
_X = _R.standard_normal((3, 5))
_T = np.array([[3, 0, -1, 1, 4], [2, -1, 0, 0, 0], [-1, 1, 2, 3, 4]])
_IMG = _R.standard_normal((2, 6, 3, 2))


def F(m):
    return m.nn.functional


_CALLS = [
    (lambda m, x: F(m).multilabel_margin_loss(x, m.tensor(_T)), _X),
    (lambda m, x: F(m).multilabel_margin_loss(x, m.tensor(_T), reduction="none"), _X),
    (lambda m, x: F(m).multilabel_margin_loss(x[0], m.tensor(_T[0]), reduction="sum"), _X),
    (lambda m, x: m.nn.MultiLabelMarginLoss()(x, m.tensor(_T)), _X),
    (lambda m, x: F(m).triplet_margin_with_distance_loss(x, x.flip(0), x * 0.5), _X),
    (lambda m, x: F(m).triplet_margin_with_distance_loss(
        x, x.flip(0), x * 0.5, distance_function=lambda a, b: (a - b).abs().sum(-1),
        margin=0.5, swap=True, reduction="none"), _X),
    (lambda m, x: m.nn.TripletMarginWithDistanceLoss(margin=2.0)(x, x.flip(0), x.flip(1)), _X),
    (lambda m, x: m.pdist(x), _X),
    (lambda m, x: F(m).pdist(x, 1.0) + m.pdist(x, 3.5), _X),
    (lambda m, x: F(m).channel_shuffle(x, 3), _IMG),
    (lambda m, x: m.nn.ChannelShuffle(2)(x), _IMG),
    # (torch.native_channel_shuffle has no derivative in PyTorch: values below)
    (lambda m, x: m.channel_shuffle(x, 2), _IMG),
]


@pytest.mark.parametrize("k", range(len(_CALLS)))
def test_matches_torch(k):
    fn, data = _CALLS[k]
    x, tx = nbgrad.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    y, ty = fn(nbgrad, x), fn(torch, tx)
    assert tuple(y.shape) == tuple(ty.shape)
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-12,
                               atol=1e-12)
    w = np.random.default_rng(1).standard_normal(tuple(y.shape))
    (g,) = nbgrad.autograd.grad((y * nbgrad.tensor(w)).sum(), x)
    (tg,) = torch.autograd.grad((ty * torch.tensor(w)).sum(), tx)
    np.testing.assert_allclose(g.numpy(), tg.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("k", [0, 5, 7])
def test_gradcheck(k):
    fn, data = _CALLS[k]
    x = nbgrad.tensor(data, requires_grad=True)
    assert gradcheck(lambda t: fn(nbgrad, t), (x,))
    if k == 7:
        assert gradgradcheck(lambda t: fn(nbgrad, t), (x,))


def test_reprs_and_deprecated_upsampling():
    for make in (lambda m: m.nn.ChannelShuffle(3), lambda m: m.nn.MultiLabelMarginLoss(),
                 lambda m: m.nn.TripletMarginWithDistanceLoss()):
        assert repr(make(nbgrad)) == repr(make(torch))
    np.testing.assert_array_equal(nbgrad.native_channel_shuffle(nbgrad.tensor(_IMG), 3).numpy(),
                                  torch.native_channel_shuffle(torch.tensor(_IMG), 3).numpy())
    x = _IMG[:1, :2]
    for name in ("upsample_nearest", "upsample_bilinear"):
        with pytest.warns(UserWarning, match=f"`nn.functional.{name}` is deprecated"):
            got = getattr(F(nbgrad), name)(nbgrad.tensor(x), scale_factor=2)
        with pytest.warns(UserWarning):
            want = getattr(F(torch), name)(torch.tensor(x), scale_factor=2)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)


@pytest.mark.parametrize("call", [
    lambda m: F(m).multilabel_margin_loss(m.ones(2, 3), m.ones(2, 2, dtype=m.long)),
    lambda m: F(m).channel_shuffle(m.ones(1, 3, 2), 2),
    lambda m: F(m).channel_shuffle(m.ones(2, 4), 2),
    lambda m: m.pdist(m.ones(2, 2, 2)),
    lambda m: F(m).triplet_margin_with_distance_loss(m.ones(2), m.ones(2), m.ones(2),
                                                     margin=0.0),
])
def test_errors_match_torch(call):
    assert_same_error(call, torch, nbgrad)


def test_docstring_examples_run():
    import doctest

    from nbgrad.ops import margin_loss, norm, pixel_shuffle

    for mod in (margin_loss, norm, pixel_shuffle):
        res = doctest.testmod(mod, optionflags=doctest.NORMALIZE_WHITESPACE)
        assert res.attempted and not res.failed, mod.__name__


def test_nll_loss_2d_is_nll_loss_with_pytorchs_warning():
    for m in (nbgrad, torch):
        with pytest.warns(FutureWarning, match="`NLLLoss2d` has been deprecated"):
            layer = m.nn.NLLLoss2d(reduction="sum")
        assert isinstance(layer, m.nn.NLLLoss) and repr(layer) == "NLLLoss2d()"


@pytest.mark.parametrize("make,args,kwargs", [
    ("MarginRankingLoss", ([1.0, 0.2, -1.0],), dict(input2=[0.0, 0.5, -0.8],
                                                    target=[1.0, 1.0, -1.0])),
    ("TripletMarginLoss", (), dict(anchor=[[1.0, 0.2]], positive=[[0.0, 0.5]],
                                   negative=[[1.0, 1.0]])),
    ("PoissonNLLLoss", (), dict(log_input=[0.5, 1.0], target=[1.0, 2.0])),
    ("GaussianNLLLoss", ([0.5, 1.0],), dict(target=[1.0, 2.0], var=[1.0, 2.0])),
    ("CosineEmbeddingLoss", (), dict(input1=[[1.0, 2.0]], input2=[[1.0, 0.5]],
                                     target=[1.0])),
    ("SoftMarginLoss", ([0.5, 1.0],), dict(target=[1.0, -1.0])),
])
def test_loss_layers_take_their_tensors_by_name_as_pytorch(make, args, kwargs):
    torch = pytest.importorskip("torch")
    got = []
    for L in (nbgrad, torch):
        loss = getattr(L.nn, make)()
        got.append(loss(*(L.tensor(a) for a in args),
                        **{k: L.tensor(v) for k, v in kwargs.items()}).item())
    assert got[0] == pytest.approx(got[1], rel=1e-6)
