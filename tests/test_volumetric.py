"""3-d convolution, pooling and normalization against PyTorch: values, gradients and
indices (F.conv3d conv_transpose3d max_pool3d avg_pool3d adaptive_avg_pool3d
adaptive_max_pool3d), finite differences to second order, PyTorch's errors, the layers
(Conv3d ConvTranspose3d MaxPool3d AvgPool3d AdaptiveAvgPool3d AdaptiveMaxPool3d BatchNorm3d
InstanceNorm3d) in a training step."""

import numpy as np
import pytest

import nbgrad
import nbgrad.nn.functional as F
from nbgrad.autograd import gradcheck, gradgradcheck
from tests._errors import assert_same_error

torch = pytest.importorskip("torch")
TF = torch.nn.functional


def _both(fn, arrays, rtol=1e-10, atol=1e-12, seed=0):
    """``fn(lib, *tensors)`` in both libraries: values, indices (a second output) and the
    gradients of a weighted sum, equal."""
    res = []
    w = None
    for m in (nbgrad, torch):
        xs = [m.tensor(a, requires_grad=np.issubdtype(a.dtype, np.floating)) for a in arrays]
        y = fn(m, *xs)
        idx = None
        if isinstance(y, tuple):
            y, idx = y
        if w is None:
            w = np.random.default_rng(seed).standard_normal(tuple(y.shape)).astype(arrays[0].dtype)
        (y * m.tensor(w)).sum().backward()
        res.append([y.detach().numpy()] + [None if idx is None else idx.numpy()]
                   + [x.grad.numpy() for x in xs if x.requires_grad])
    for a, b in zip(*res):
        if a is None or b is None:
            assert a is None and b is None
        elif np.issubdtype(b.dtype, np.integer):
            np.testing.assert_array_equal(a, b)
        else:
            assert a.shape == b.shape and a.dtype == b.dtype
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


RNG = np.random.default_rng(0)
X = RNG.standard_normal((2, 4, 5, 6, 7))
XR = np.maximum(RNG.standard_normal((2, 3, 5, 6, 7)), 0)  # zeros: ties the maxima break


@pytest.mark.parametrize("kw", [
    {}, {"stride": (2, 1, 2), "padding": (1, 0, 1)}, {"dilation": (2, 1, 1), "padding": 1},
    {"padding": "same"}, {"padding": "valid", "stride": 2},
])
def test_conv3d_matches_torch(kw):
    w, b = RNG.standard_normal((6, 2, 2, 3, 2)), RNG.standard_normal(6)
    _both(lambda m, x, w, b: m.nn.functional.conv3d(x, w, b, groups=2, **kw), [X, w, b])


def test_conv3d_unbatched_float32_and_top_level():
    w = RNG.standard_normal((3, 4, 2, 2, 2))
    _both(lambda m, x, w: m.conv3d(x, w, padding=1), [X[0], w])
    _both(lambda m, x, w: m.nn.functional.conv3d(x, w), [X.astype(np.float32),
                                                          w.astype(np.float32)],
          rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("kw", [
    {}, {"stride": 2, "output_padding": (1, 0, 1)},
    {"stride": (3, 1, 2), "padding": (1, 1, 0), "dilation": (2, 1, 1)},
    {"groups": 2, "stride": (2, 2, 1), "padding": 1},
])
def test_conv_transpose3d_matches_torch(kw):
    x, w = RNG.standard_normal((2, 4, 3, 4, 5)), RNG.standard_normal((4, 3, 2, 3, 2))
    b = RNG.standard_normal(3 * kw.get("groups", 1))
    _both(lambda m, x, w, b: m.nn.functional.conv_transpose3d(x, w, b, **kw), [x, w, b])
    _both(lambda m, x, w: m.conv_transpose3d(x, w, **kw), [x[0], w])


def test_conv_transpose3d_layer_output_size():
    for m in (nbgrad, torch):
        m.manual_seed(0)
    ours, theirs = nbgrad.nn.ConvTranspose3d(2, 3, 3, stride=2), torch.nn.ConvTranspose3d(2, 3, 3,
                                                                                     stride=2)
    ours.load_state_dict({k: nbgrad.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    assert repr(ours) == repr(theirs)
    x = RNG.standard_normal((1, 2, 2, 3, 2)).astype(np.float32)
    y = ours(nbgrad.tensor(x), output_size=(6, 7, 5))
    ty = theirs(torch.tensor(x), output_size=(6, 7, 5))
    assert tuple(y.shape) == tuple(ty.shape) == (1, 3, 6, 7, 5)
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kw", [
    {"kernel_size": 2}, {"kernel_size": (3, 2, 2), "stride": (2, 1, 2), "padding": (1, 1, 0)},
    {"kernel_size": 2, "dilation": (2, 1, 2), "ceil_mode": True},
    {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True},
])
def test_max_pool3d_values_indices_and_ties_match_torch(kw):
    _both(lambda m, x: m.nn.functional.max_pool3d(x, return_indices=True, **kw), [XR])
    _both(lambda m, x: m.nn.functional.max_pool3d_with_indices(x[0], **kw), [XR])


@pytest.mark.parametrize("kw", [
    {"kernel_size": 2}, {"kernel_size": (3, 2, 2), "stride": (2, 1, 2), "padding": (1, 1, 0)},
    {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True},
    {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True, "count_include_pad": False},
    {"kernel_size": 2, "divisor_override": 3},
])
def test_avg_pool3d_matches_torch(kw):
    _both(lambda m, x: m.nn.functional.avg_pool3d(x, **kw), [X])


@pytest.mark.parametrize("size", [1, (2, 3, 4), (3, None, 5), (5, 6, 7)])
def test_adaptive_pools_3d_match_torch(size):
    _both(lambda m, x: m.nn.functional.adaptive_avg_pool3d(x, size), [X])
    _both(lambda m, x: m.nn.functional.adaptive_max_pool3d(x, size, return_indices=True), [XR])


def test_finite_differences_to_second_order():
    rng = np.random.default_rng(1)
    x = nbgrad.tensor(rng.standard_normal((1, 2, 2, 3, 3)), requires_grad=True)
    w = nbgrad.tensor(rng.standard_normal((2, 1, 2, 2, 2)), requires_grad=True)
    b = nbgrad.tensor(rng.standard_normal(2), requires_grad=True)

    def f(x, w, b):
        y = F.conv3d(x, w, b, padding=(1, 0, 1), groups=2)
        y = F.conv_transpose3d(y, w, stride=(2, 1, 1), groups=2)
        return (F.max_pool3d(y, 2, ceil_mode=True), F.avg_pool3d(y, 2, padding=1),
                F.adaptive_avg_pool3d(y, (2, 1, 2)), F.adaptive_max_pool3d(y, 2))

    assert gradcheck(f, (x, w, b))
    assert gradgradcheck(f, (x, w, b))


def _net(lib):
    nn = lib.nn
    return nn.Sequential(nn.Conv3d(2, 4, 3, padding=1), nn.BatchNorm3d(4), nn.ReLU(),
                         nn.MaxPool3d(2), nn.Conv3d(4, 4, (1, 2, 2)), nn.InstanceNorm3d(4, affine=True),
                         nn.AvgPool3d(2, ceil_mode=True), nn.AdaptiveMaxPool3d((1, 2, 1)),
                         nn.AdaptiveAvgPool3d(1), nn.Flatten(), nn.Linear(4, 3))


def test_a_3d_cnn_trains_as_pytorchs():
    torch.manual_seed(0)
    theirs = _net(torch).double()
    ours = _net(nbgrad).double()
    ours.load_state_dict({k: nbgrad.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    assert repr(ours) == repr(theirs)
    rng = np.random.default_rng(2)
    x, y = rng.standard_normal((3, 2, 6, 7, 6)), rng.integers(0, 3, 3)
    losses = []
    for lib, model in ((nbgrad, ours), (torch, theirs)):
        opt = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        out = []
        for _ in range(3):
            opt.zero_grad()
            loss = lib.nn.functional.cross_entropy(model(lib.tensor(x)), lib.tensor(y))
            loss.backward()
            opt.step()
            out.append(loss.item())
        model.eval()
        out.append(model(lib.tensor(x)).detach().numpy())
        losses.append(out)
    np.testing.assert_allclose(losses[0][:3], losses[1][:3], rtol=1e-12)
    np.testing.assert_allclose(losses[0][3], losses[1][3], rtol=1e-10, atol=1e-12)
    for (k, a), (_, b) in zip(ours.state_dict().items(), theirs.state_dict().items()):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12, err_msg=k)


@pytest.mark.parametrize("call", [
    lambda m: m.nn.functional.conv3d(m.zeros(5, 6, 7), m.zeros(6, 5, 2, 3, 3)),
    lambda m: m.nn.functional.conv3d(m.zeros(2, 4, 5, 6, 7), m.zeros(6, 2, 2, 3, 3), groups=4),
    lambda m: m.nn.functional.conv3d(m.zeros(2, 4, 5, 6, 7), m.zeros(6, 2, 2, 3, 3), groups=3),
    lambda m: m.nn.functional.conv3d(m.zeros(2, 4, 5, 6, 7), m.zeros(6, 2, 2, 3, 3),
                                     m.zeros(5), groups=2),
    lambda m: m.nn.functional.conv3d(m.zeros(2, 4, 1, 6, 7), m.zeros(6, 2, 2, 3, 3), groups=2),
    lambda m: m.nn.functional.conv3d(m.zeros(2, 4, 5, 6, 7), m.zeros(6, 2, 2, 3, 3), groups=2,
                                     stride=(1, 2)),
    lambda m: m.nn.functional.conv3d(m.zeros(2, 4, 5, 6, 7), m.zeros(6, 2, 2, 3, 3), groups=2,
                                     padding=-1),
    lambda m: m.nn.functional.conv3d(m.zeros(2, 4, 5, 6, 7), m.zeros(6, 2, 2, 3, 3), groups=2,
                                     stride=0),
    lambda m: m.nn.functional.conv3d(m.zeros(2, 4, 5, 6, 7), m.zeros(6, 2, 2, 3, 3), groups=2,
                                     padding="same", stride=2),
    lambda m: m.nn.functional.conv3d(m.zeros(2, 4, 5, 6, 7), m.zeros(6, 2, 2, 3, 3), groups=2,
                                     padding="foo"),
    lambda m: m.nn.functional.conv3d(m.zeros(2, 4, 5, 6, 7), m.zeros(6, 2, 2, 3, 3), groups=2,
                                     dilation=0),
    lambda m: m.nn.functional.max_pool3d(m.zeros(2, 3, 4), 2),
    lambda m: m.nn.functional.avg_pool3d(m.zeros(2, 3, 4), 2),
    lambda m: m.nn.functional.adaptive_avg_pool3d(m.zeros(2, 3, 4), 2),
    lambda m: m.nn.functional.adaptive_max_pool3d(m.zeros(2, 3, 4), 2),
    lambda m: m.nn.functional.max_pool3d(m.zeros(1, 1, 4, 4, 4), 2, padding=2),
    lambda m: m.nn.functional.avg_pool3d(m.zeros(1, 1, 4, 4, 4), 2, padding=2),
    lambda m: m.nn.functional.max_pool3d(m.zeros(1, 1, 4, 4, 4), 5),
    lambda m: m.nn.functional.avg_pool3d(m.zeros(1, 1, 4, 4, 4), 5),
    lambda m: m.nn.functional.adaptive_avg_pool3d(m.zeros(1, 1, 4, 4, 4), (2, 2)),
    lambda m: m.nn.functional.max_pool3d(m.zeros(1, 1, 4, 4, 4), (2, 2)),
    lambda m: m.nn.functional.avg_pool3d(m.zeros(1, 1, 4, 4, 4), 2, stride=0),
    lambda m: m.nn.functional.conv_transpose3d(m.zeros(3, 4, 5), m.zeros(4, 3, 2, 3, 2)),
    lambda m: m.nn.functional.conv_transpose3d(m.zeros(2, 4, 3, 4, 5), m.zeros(4, 3, 2, 3)),
    lambda m: m.nn.functional.conv_transpose3d(m.zeros(2, 4, 3, 4, 5), m.zeros(4, 3, 2, 3, 2),
                                               output_padding=2),
    lambda m: m.nn.functional.conv_transpose3d(m.zeros(2, 4, 3, 4, 5), m.zeros(4, 3, 2, 3, 2),
                                               groups=3),
    lambda m: m.nn.functional.conv_transpose3d(m.zeros(2, 4, 3, 4, 5), m.zeros(4, 3, 2, 3, 2),
                                               m.zeros(5)),
    lambda m: m.nn.functional.conv_transpose2d(m.zeros(2, 3, 4, 5), m.zeros(4, 3, 3, 2)),
    lambda m: m.nn.functional.conv_transpose2d(m.zeros(2, 4, 4, 5), m.zeros(4, 3, 3, 2),
                                               stride=0),
    lambda m: m.nn.functional.conv_transpose2d(m.zeros(2, 4, 4, 5), m.zeros(4, 3, 3, 2),
                                               padding=-1),
    lambda m: m.nn.functional.conv_transpose2d(m.zeros(2, 4, 4, 5), m.zeros(4, 3, 3, 2),
                                               output_padding=-1),
    lambda m: m.nn.BatchNorm3d(2)(m.zeros(2, 2, 3, 3)),
    lambda m: m.nn.InstanceNorm3d(2)(m.zeros(2, 3, 3)),
])
def test_errors_match_torch(call):
    assert_same_error(call, torch, nbgrad)


def test_docstring_examples_run():
    import doctest

    import nbgrad.ops.volumetric as mod

    res = doctest.testmod(mod, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert res.attempted >= 10 and res.failed == 0


@pytest.mark.parametrize("kw", [{"norm_type": 2, "kernel_size": 2},
                                {"norm_type": 3, "kernel_size": (3, 2, 2), "stride": (1, 2, 1),
                                 "ceil_mode": True}])
def test_lp_pool3d_matches_torch(kw):
    _both(lambda m, x: m.nn.functional.lp_pool3d(x, **kw), [np.abs(X) + 0.1])


def test_max_unpool3d_and_the_layers_match_torch():
    res = []
    for m in (nbgrad, torch):
        x = m.tensor(XR, requires_grad=True)
        v, i = m.nn.MaxPool3d(2, return_indices=True)(x)
        y = m.nn.MaxUnpool3d(2)(v, i, output_size=XR.shape[-3:])
        z = m.nn.LPPool3d(2, (1, 2, 2))(y + 1)
        (z * z).sum().backward()
        res.append((y.detach().numpy(), z.detach().numpy(), x.grad.numpy(),
                    repr(m.nn.MaxUnpool3d(2)), repr(m.nn.LPPool3d(2, 2))))
    for a, b in zip(*res):
        if isinstance(a, str):
            assert a == b
        else:
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
