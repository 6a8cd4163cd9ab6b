"""The rest of 1-d / 2-d pooling and its layers (issue #16): adaptive_avg_pool1d,
adaptive_max_pool1d/2d (with indices), lp_pool1d/2d, max_unpool1d/2d, fold / unfold,
local_response_norm, Softmax2d, the in-place functional forms (relu_ ... threshold_,
``F.relu(inplace=True)``) and the ``*_with_indices`` names; values, indices, gradients,
layer reprs and errors against PyTorch, gradcheck in float64."""

import numpy as np
import pytest

import nbgrad
from nbgrad.autograd import gradcheck, gradgradcheck
from tests._errors import assert_same_error

torch = pytest.importorskip("torch")

_R = np.random.default_rng(12)
_IMG = _R.standard_normal((2, 3, 7, 6))
_SEQ = _R.standard_normal((2, 3, 10))


def F(m):
    return m.nn.functional


_CALLS = [
    (lambda m, x: F(m).adaptive_avg_pool1d(x, 4), _SEQ),
    (lambda m, x: F(m).adaptive_avg_pool1d(x[0], (5,)), _SEQ),
    (lambda m, x: F(m).adaptive_max_pool2d(x, (3, 4)), _IMG),
    (lambda m, x: F(m).adaptive_max_pool2d(x, 2, return_indices=True), _IMG[:, :, :6]),
    (lambda m, x: F(m).adaptive_max_pool2d_with_indices(x[0], (4, None)), _IMG),
    (lambda m, x: F(m).adaptive_max_pool1d(x, 3, True), _SEQ),
    (lambda m, x: F(m).adaptive_max_pool1d_with_indices(x, 5), _SEQ),
    (lambda m, x: F(m).max_pool2d_with_indices(x, 2), _IMG),
    (lambda m, x: F(m).max_pool1d_with_indices(x, 3, 2), _SEQ),
    (lambda m, x: F(m).lp_pool2d(x, 2.0, 2), _IMG),
    (lambda m, x: F(m).lp_pool2d(x.abs(), 3.0, (3, 2), stride=2, ceil_mode=True), _IMG),
    (lambda m, x: F(m).lp_pool1d(x.abs(), 1.5, 3), _SEQ),
    (lambda m, x: F(m).max_unpool2d(*F(m).max_pool2d(x, 2, return_indices=True), 2), _IMG),
    (lambda m, x: F(m).max_unpool2d(*F(m).max_pool2d(x, 3, 2, return_indices=True), 3, 2,
                                    output_size=(7, 6)), _IMG),
    (lambda m, x: F(m).max_unpool1d(*F(m).max_pool1d(x, 2, return_indices=True), 2), _SEQ),
    (lambda m, x: F(m).unfold(x, 3), _IMG),
    (lambda m, x: F(m).unfold(x[0], (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)), _IMG),
    (lambda m, x: F(m).fold(F(m).unfold(x, 3, padding=1), (7, 6), 3, padding=1), _IMG),
    (lambda m, x: F(m).fold(x.reshape(-1)[:24].reshape(6, 4), (4, 8), (2, 3), stride=(2, 3)),
     _IMG),
    (lambda m, x: F(m).local_response_norm(x, 2), _IMG),
    (lambda m, x: F(m).local_response_norm(x, 3, alpha=0.1, beta=0.5, k=2.0), _SEQ),
    (lambda m, x: F(m).local_response_norm(x[None], 5), _IMG),
    (lambda m, x: m.nn.Softmax2d()(x), _IMG),
    (lambda m, x: F(m).relu(x * 1, inplace=True) + F(m).relu_(x * 1), _SEQ),
    (lambda m, x: F(m).elu_(x * 1) + F(m).leaky_relu_(x * 1, 0.2) + F(m).hardtanh_(x * 1)
     + F(m).celu_(x * 1) + F(m).selu_(x * 1) + F(m).threshold_(x * 1, 0.1, 2.0), _SEQ),
]


@pytest.mark.parametrize("k", range(len(_CALLS)))
def test_matches_torch(k):
    fn, data = _CALLS[k]
    x, tx = nbgrad.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    y, ty = fn(nbgrad, x), fn(torch, tx)
    ys, tys = (y, ty) if isinstance(y, tuple) else ((y,), (ty,))
    for o, t in zip(ys, tys):
        assert str(o.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
        np.testing.assert_allclose(o.detach().numpy(), t.detach().numpy(), rtol=1e-12,
                                   atol=1e-12)
    w = np.random.default_rng(1).standard_normal(tuple(ys[0].shape))
    (g,) = nbgrad.autograd.grad((ys[0] * nbgrad.tensor(w)).sum(), x)
    (tg,) = torch.autograd.grad((tys[0] * torch.tensor(w)).sum(), tx)
    np.testing.assert_allclose(g.numpy(), tg.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("k", [2, 10, 12, 16, 17, 19])
def test_gradcheck_and_gradgradcheck(k):
    fn, data = _CALLS[k]
    x = nbgrad.tensor(data[:1, :2], requires_grad=True)
    f = lambda t: fn(nbgrad, t)  # noqa: E731
    assert gradcheck(f, (x,))
    if k not in (2, 12):  # (max: zero second derivative almost everywhere)
        assert gradgradcheck(f, (x,))


def test_layers_match_torch():
    for make, data in [
        (lambda m: m.nn.AdaptiveAvgPool1d(3), _SEQ),
        (lambda m: m.nn.AdaptiveMaxPool1d(4), _SEQ),
        (lambda m: m.nn.AdaptiveMaxPool2d((2, 3)), _IMG),
        (lambda m: m.nn.LPPool1d(2, 3), _SEQ),
        (lambda m: m.nn.LPPool2d(2, (2, 3), stride=1), _IMG),
        (lambda m: m.nn.Unfold(2, padding=1), _IMG),
        (lambda m: m.nn.LocalResponseNorm(3), _IMG),
        (lambda m: m.nn.Softmax2d(), _IMG),
    ]:
        layer, tlayer = make(nbgrad), make(torch)
        assert repr(layer) == repr(tlayer)
        np.testing.assert_allclose(layer(nbgrad.tensor(data)).numpy(),
                                   tlayer(torch.tensor(data)).numpy(), rtol=1e-12)
    pool, tpool = nbgrad.nn.MaxPool2d(2, return_indices=True), torch.nn.MaxPool2d(
        2, return_indices=True)
    un, tun = nbgrad.nn.MaxUnpool2d(2), torch.nn.MaxUnpool2d(2)
    assert repr(un) == repr(tun)
    assert repr(nbgrad.nn.MaxUnpool1d(2)) == repr(torch.nn.MaxUnpool1d(2))
    got = un(*pool(nbgrad.tensor(_IMG)), output_size=(7, 6))
    want = tun(*tpool(torch.tensor(_IMG)), output_size=(7, 6))
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    cols = torch.nn.Unfold(2)(torch.tensor(_IMG))
    fold, tfold = nbgrad.nn.Fold((7, 6), 2), torch.nn.Fold((7, 6), 2)
    assert repr(fold) == repr(tfold)
    np.testing.assert_allclose(fold(nbgrad.tensor(cols.numpy())).numpy(),
                               tfold(cols).numpy(), rtol=1e-12)


@pytest.mark.parametrize("call", [
    lambda m: F(m).adaptive_max_pool2d(m.ones(5), 2),
    lambda m: F(m).adaptive_avg_pool1d(m.ones(5), 2),
    lambda m: F(m).fold(m.ones(1, 4, 5), (3, 3), 2),
    lambda m: F(m).local_response_norm(m.ones(2, 3), 2),
    lambda m: m.nn.Softmax2d()(m.ones(2, 3)),
])
def test_errors_match_torch(call):
    assert_same_error(call, torch, nbgrad)


def test_docstring_examples_run():
    import doctest

    from nbgrad.ops import pooling_more

    res = doctest.testmod(pooling_more, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert res.attempted >= 6 and not res.failed
