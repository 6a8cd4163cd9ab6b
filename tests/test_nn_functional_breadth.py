"""The layers and functions of issue #16 composed of nbgrad ops: activations (leaky_relu,
elu, ..., prelu), F.pad, one_hot, normalize, cosine_similarity, scaled_dot_product_attention,
the l1 / smooth l1 / huber / bce / kl losses, batch norm, average pooling, dropout2d, and
their nn layers. Values and gradients against PyTorch on the same inputs (where installed),
finite differences in float64, PyTorch's errors and reprs."""

import warnings

import numpy as np
import pytest
from _errors import error_of

import nbgrad
import nbgrad.nn.functional as F
from nbgrad.autograd import gradcheck, gradgradcheck

try:
    import torch
    import torch.nn.functional as TF
except ImportError:  # the finite differences and fixed expectations still run
    torch = TF = None

needs_torch = pytest.mark.skipif(torch is None, reason="needs torch")
RNG = np.random.default_rng(0)
V = RNG.standard_normal((3, 4)) * 4
V[0] = [-3.0, 3.0, 0.0, -1.0]  # the kinks: gradients there are PyTorch's
X4 = RNG.standard_normal((2, 3, 4, 5))

# name -> (call(F, *tensors), inputs, float64 gradient tolerance vs PyTorch)
CALLS = {
    "leaky_relu": (lambda f, x: f.leaky_relu(x, 0.2), [V], 0),
    "elu": (lambda f, x: f.elu(x, 0.7), [V], 0),
    # (PyTorch's float64 celu and hardsigmoid gradients use float32 constants)
    "celu": (lambda f, x: f.celu(x, 1.3), [V], 1e-7),
    "selu": (lambda f, x: f.selu(x), [V], 0),
    "hardtanh": (lambda f, x: f.hardtanh(x, -1.0, 1.0), [V], 0),
    "relu6": (lambda f, x: f.relu6(x), [V], 0),
    "hardsigmoid": (lambda f, x: f.hardsigmoid(x), [V], 1e-7),
    "hardswish": (lambda f, x: f.hardswish(x), [V], 0),
    "logsigmoid": (lambda f, x: f.logsigmoid(x), [V], 0),
    "softsign": (lambda f, x: f.softsign(x), [V], 0),
    "tanhshrink": (lambda f, x: f.tanhshrink(x), [V], 0),
    "mish": (lambda f, x: f.mish(x), [V], 0),
    "threshold": (lambda f, x: f.threshold(x, 1.0, -2.0), [V], 0),
    "glu": (lambda f, x: f.glu(x, -1), [V], 0),
    "softmin": (lambda f, x: f.softmin(x, 1), [V], 0),
    "prelu": (lambda f, x, w: f.prelu(x.reshape(1, 3, 4), w), [V, np.array([0.1, 0.2, 0.3])],
              0),
    "pad_constant": (lambda f, x: f.pad(x, (1, 2, 0, 1), value=3.0), [X4], 0),
    "pad_crop": (lambda f, x: f.pad(x, (-1, 2)), [X4], 0),
    "pad_reflect": (lambda f, x: f.pad(x, (2, 1, 1, 3), mode="reflect"), [X4], 0),
    "pad_reflect_1d": (lambda f, x: f.pad(x, (2, 1), mode="reflect"), [X4[0]], 0),
    "pad_replicate": (lambda f, x: f.pad(x, (1, 2, 2, 1), mode="replicate"), [X4], 0),
    "pad_circular": (lambda f, x: f.pad(x, (3, 2, 1, 1), mode="circular"), [X4], 0),
    "normalize": (lambda f, x: f.normalize(x), [X4], 0),
    "normalize_p1": (lambda f, x: f.normalize(x, 1, 0), [X4], 0),
    "cosine_similarity": (lambda f, a, b: f.cosine_similarity(a, b), [X4, X4[::-1]], 0),
    "cosine_broadcast": (lambda f, a, b: f.cosine_similarity(a, b, dim=-1),
                         [X4, RNG.standard_normal(5)], 0),
    "avg_pool2d": (lambda f, x: f.avg_pool2d(x, 2), [X4], 0),
    "avg_pool2d_pad": (lambda f, x: f.avg_pool2d(x, (3, 2), (2, 1), (1, 0)), [X4], 0),
    "avg_pool2d_no_pad_count": (lambda f, x: f.avg_pool2d(x, 3, 2, 1, False, False), [X4], 0),
    "avg_pool2d_divisor": (lambda f, x: f.avg_pool2d(x, 3, 2, 1, divisor_override=5), [X4], 0),
    # ceil_mode: the last windows run past the padding (what they see there does not count)
    "avg_pool2d_ceil": (lambda f, x: f.avg_pool2d(x, 2, ceil_mode=True), [X4], 0),
    "avg_pool2d_ceil_pad": (lambda f, x: f.avg_pool2d(x, 3, 2, 1, ceil_mode=True), [X4], 0),
    "avg_pool2d_ceil_no_count": (lambda f, x: f.avg_pool2d(x, (3, 2), (2, 3), (1, 1), True,
                                                           False), [X4], 0),
    "avg_pool2d_ceil_divisor": (lambda f, x: f.avg_pool2d(x, 2, 3, ceil_mode=True,
                                                          divisor_override=3), [X4], 0),
    "adaptive_avg_pool2d": (lambda f, x: f.adaptive_avg_pool2d(x, (3, 2)), [X4], 0),
    "adaptive_avg_pool2d_1": (lambda f, x: f.adaptive_avg_pool2d(x, 1), [X4], 0),
    "sdpa": (lambda f, q, k, v: f.scaled_dot_product_attention(q, k, v),
             [RNG.standard_normal((2, 2, 4, 3)), RNG.standard_normal((2, 2, 5, 3)),
              RNG.standard_normal((2, 2, 5, 2))], 0),
    "sdpa_causal": (lambda f, q, k, v: f.scaled_dot_product_attention(
        q, k, v, is_causal=True, scale=0.3),
        [RNG.standard_normal((2, 4, 3)), RNG.standard_normal((2, 4, 3)),
         RNG.standard_normal((2, 4, 2))], 0),
    "sdpa_gqa": (lambda f, q, k, v: f.scaled_dot_product_attention(q, k, v, enable_gqa=True),
                 [RNG.standard_normal((1, 4, 3, 2)), RNG.standard_normal((1, 2, 3, 2)),
                  RNG.standard_normal((1, 2, 3, 2))], 0),
    "l1_loss": (lambda f, x, t: f.l1_loss(x, t), [V, V.T.reshape(3, 4)], 0),
    "smooth_l1_loss": (lambda f, x, t: f.smooth_l1_loss(x, t, beta=0.5, reduction="sum"),
                       [V, V.T.reshape(3, 4)], 0),
    "huber_loss": (lambda f, x, t: f.huber_loss(x, t, reduction="none", delta=2.0),
                   [V, V.T.reshape(3, 4)], 0),
    "binary_cross_entropy": (lambda f, x, t: f.binary_cross_entropy(x, t),
                             [RNG.uniform(0.05, 0.95, (3, 4)), RNG.uniform(0, 1, (3, 4))], 0),
    "kl_div": (lambda f, x, t: f.kl_div(x, t, reduction="batchmean"),
               [np.log(RNG.uniform(0.1, 1, (3, 4))), RNG.uniform(0, 1, (3, 4))], 0),
    "kl_div_log_target": (lambda f, x, t: f.kl_div(x, t, reduction="sum", log_target=True),
                          [RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4))], 0),
    "batch_norm": (lambda f, x, w, b: f.batch_norm(x, None, None, w, b, True),
                   [X4, RNG.standard_normal(3), RNG.standard_normal(3)], 0),
}


@needs_torch
@pytest.mark.parametrize("name", list(CALLS))
def test_values_and_gradients_match_pytorch(name):
    call, arrays, gtol = CALLS[name]
    ours = [nbgrad.tensor(np.ascontiguousarray(a), requires_grad=True) for a in arrays]
    theirs = [torch.tensor(np.ascontiguousarray(a), requires_grad=True) for a in arrays]
    got, want = call(F, *ours), call(TF, *theirs)
    assert tuple(got.shape) == tuple(want.shape) and str(got.dtype)[7:] == str(want.dtype)[6:]
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-12,
                               atol=1e-14)
    seed = np.random.default_rng(1).standard_normal(tuple(want.shape))
    got.backward(nbgrad.tensor(seed))
    want.backward(torch.tensor(seed))
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=gtol or 1e-10,
                                   atol=gtol or 1e-12)


# (pooling and pads read the grid; the small cases keep finite differences quick)
_FD = [n for n in CALLS if n not in ("hardtanh", "relu6", "hardsigmoid", "hardswish",
                                     "threshold")]


@pytest.mark.parametrize("name", _FD)
def test_gradients_by_finite_differences(name):
    call, arrays, _ = CALLS[name]
    arrays = [a + 0.37 if a is V else a for a in arrays]  # (off the kinks)
    small = [np.ascontiguousarray(a[:1] if a.ndim == 4 else a) for a in arrays]
    ts = [nbgrad.tensor(a, requires_grad=True) for a in small]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert gradcheck(lambda *xs: call(F, *xs), ts)
        assert gradgradcheck(lambda *xs: call(F, *xs), ts)


def test_fixed_expectations():
    x = nbgrad.tensor([-2.0, 0.0, 3.0])
    assert F.leaky_relu(x, 0.5).tolist() == [-1.0, 0.0, 3.0]
    assert F.hardtanh(x).tolist() == [-1.0, 0.0, 1.0] and F.relu6(x * 3).tolist() == [0, 0, 6]
    assert F.one_hot(nbgrad.tensor([0, 2]), 3).tolist() == [[1, 0, 0], [0, 0, 1]]
    assert F.one_hot(nbgrad.tensor([1, 0])).dtype is nbgrad.int64
    assert F.pad(nbgrad.tensor([[1, 2, 3]]), (1, 2), value=9).tolist() == [[9, 1, 2, 3, 9, 9]]
    assert F.pad(nbgrad.tensor([[1, 2, 3]]), (2, 1), mode="reflect").tolist() == [
        [3, 2, 1, 2, 3, 2]]
    assert F.pad(nbgrad.tensor([[1, 2, 3]]), (2, 1), mode="replicate").tolist() == [
        [1, 1, 1, 2, 3, 3]]
    assert F.pad(nbgrad.tensor([[1, 2, 3]]), (2, 1), mode="circular").tolist() == [
        [2, 3, 1, 2, 3, 1]]
    np.testing.assert_allclose(F.normalize(nbgrad.tensor([[3.0, 4.0]])).numpy(), [[0.6, 0.8]])
    q = nbgrad.ones(1, 2, 3)
    out = F.scaled_dot_product_attention(q, q, nbgrad.tensor([[[1.0, 0, 0], [0, 1.0, 0]]]),
                                         is_causal=True)
    assert out.tolist() == [[[1, 0, 0], [0.5, 0.5, 0]]]
    # a query that may attend nowhere gets zeros (PyTorch's), not NaN
    none = nbgrad.zeros(2, 2, dtype=nbgrad.bool)
    assert F.scaled_dot_product_attention(q, q, q, attn_mask=none).tolist() == [[[0] * 3] * 2]
    assert F.binary_cross_entropy(nbgrad.tensor([0.0, 1.0]), nbgrad.tensor([1.0, 0.0])).item() \
        == 100.0  # each log clamped at -100
    p = nbgrad.tensor([0.0, 0.5, 1.0], requires_grad=True)
    F.binary_cross_entropy(p, nbgrad.tensor([1.0, 0.0, 0.0])).backward()
    np.testing.assert_allclose(p.grad.numpy(), [-1 / 3e-12, 2 / 3, 1 / 3e-12], rtol=1e-6)


def test_batch_norm_layers_train_and_eval_as_pytorch():
    rng = np.random.default_rng(3)
    for dt in ("float32", "float64"):
        for cls, shape in (("BatchNorm2d", (4, 3, 5, 6)), ("BatchNorm1d", (8, 3)),
                           ("BatchNorm1d", (4, 3, 7))):
            for momentum in (0.1, None):
                ours = getattr(nbgrad.nn, cls)(3, momentum=momentum).to(getattr(nbgrad, dt))
                steps = [rng.standard_normal(shape).astype(dt) * 2 + 1 for _ in range(3)]
                for v in steps:
                    x = nbgrad.tensor(v, requires_grad=True)
                    ours(x).sum().backward()
                assert ours.num_batches_tracked.item() == 3
                n = int(np.prod(shape)) // 3
                axes = (0,) + tuple(range(2, len(shape)))
                mean, var = np.zeros(3), np.ones(3)
                for i, v in enumerate(steps):
                    m = 1 / (i + 1) if momentum is None else momentum
                    mean = (1 - m) * mean + m * v.astype(np.float64).mean(axes)
                    var = (1 - m) * var + m * v.astype(np.float64).var(axes) * n / (n - 1)
                tol = 1e-5 if dt == "float32" else 1e-12
                np.testing.assert_allclose(ours.running_mean.numpy(), mean, rtol=tol)
                np.testing.assert_allclose(ours.running_var.numpy(), var, rtol=tol)
                ours.eval()
                v = rng.standard_normal(shape).astype(dt)
                got = ours(nbgrad.tensor(v)).detach().numpy()
                bshape = (1, 3) + (1,) * (len(shape) - 2)
                want = (v - mean.reshape(bshape)) / np.sqrt(var.reshape(bshape) + 1e-5)
                np.testing.assert_allclose(got, want, rtol=tol * 10, atol=tol * 10)
                assert list(ours.state_dict()) == ["weight", "bias", "running_mean",
                                                   "running_var", "num_batches_tracked"]


@needs_torch
def test_batch_norm_layer_gradients_match_pytorch():
    rng = np.random.default_rng(4)
    ours, theirs = nbgrad.nn.BatchNorm2d(3).double(), torch.nn.BatchNorm2d(3).double()
    for _ in range(2):
        v = rng.standard_normal((4, 3, 2, 3))
        x, tx = nbgrad.tensor(v, requires_grad=True), torch.tensor(v, requires_grad=True)
        g = rng.standard_normal(v.shape)
        ours(x).backward(nbgrad.tensor(g))
        theirs(tx).backward(torch.tensor(g))
        np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)
    for a, b in ((ours.weight.grad, theirs.weight.grad), (ours.bias.grad, theirs.bias.grad),
                 (ours.running_var, theirs.running_var)):
        np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=1e-10)


def test_dropout2d_zeroes_whole_channels():
    nbgrad.manual_seed(0)
    x = nbgrad.ones(50, 8, 3, 3)
    y = F.dropout2d(x, 0.25)
    per_channel = y.numpy().reshape(50, 8, 9)
    assert set(np.unique(per_channel).tolist()) <= {0.0, float(np.float32(1 / 0.75))}
    assert (per_channel.min(-1) == per_channel.max(-1)).all()  # a channel is kept or not
    assert abs((per_channel[..., 0] == 0).mean() - 0.25) < 0.06
    layer = nbgrad.nn.Dropout2d(0.5)
    layer.eval()
    assert layer(x) is x


LAYERS = [
    lambda m: m.LeakyReLU(0.2), lambda m: m.ELU(), lambda m: m.CELU(0.5), lambda m: m.SELU(),
    lambda m: m.SiLU(), lambda m: m.Mish(), lambda m: m.Hardtanh(-2.0, 2.0), lambda m: m.ReLU6(),
    lambda m: m.Hardsigmoid(), lambda m: m.Hardswish(), lambda m: m.LogSigmoid(),
    lambda m: m.Softsign(), lambda m: m.Tanhshrink(), lambda m: m.Softplus(2.0),
    lambda m: m.Threshold(0.5, -1.0), lambda m: m.GLU(), lambda m: m.Softmin(1),
    lambda m: m.PReLU(), lambda m: m.MaxPool2d(2), lambda m: m.AvgPool2d(2),
    lambda m: m.AdaptiveAvgPool2d((1, 1)), lambda m: m.BatchNorm2d(3),
    lambda m: m.BatchNorm1d(4, momentum=None), lambda m: m.Dropout2d(0.3), lambda m: m.L1Loss(),
    lambda m: m.SmoothL1Loss(beta=0.5), lambda m: m.HuberLoss(), lambda m: m.BCELoss(),
    lambda m: m.BCEWithLogitsLoss(), lambda m: m.KLDivLoss(reduction="batchmean"),
]


@pytest.mark.parametrize("make", LAYERS)
def test_layers_call_their_functions(make):
    layer = make(nbgrad.nn)
    x = nbgrad.tensor(RNG.uniform(0.1, 0.9, (2, 4, 4, 4)).astype(np.float32))
    if "Loss" in type(layer).__name__:
        out = layer(x, x * 0.5)
        assert out.ndim == 0
    else:
        out = layer(x[:, :3] if "BatchNorm2d" in repr(layer) else
                    x[:, :, 0, 0] if "BatchNorm1d" in repr(layer) else x)
        assert out.dtype is nbgrad.float32
    if torch is not None:
        assert repr(layer) == repr(make(torch.nn))


ERRORS = [
    lambda f, m: f.pad(m.ones(2, 3), (1,)),
    lambda f, m: f.pad(m.ones(2, 3), (1, 1, 1, 1, 1, 1)),
    lambda f, m: f.pad(m.ones(2, 3, 4), (4, 0), mode="reflect"),
    lambda f, m: f.pad(m.ones(2, 3, 4, 5), (1, 1), mode="reflect"),
    lambda f, m: f.one_hot(m.tensor([0, 3]), 3), lambda f, m: f.one_hot(m.tensor([-1, 1])),
    lambda f, m: f.one_hot(m.tensor([1.0])),
    lambda f, m: f.one_hot(m.tensor([], dtype=m.int64)),
    lambda f, m: f.scaled_dot_product_attention(m.ones(2, 3), m.ones(2, 3), m.ones(2, 3),
                                                attn_mask=m.ones(2, 2, dtype=m.bool),
                                                is_causal=True),
    lambda f, m: f.binary_cross_entropy(m.ones(2) * 2, m.ones(2)),
    lambda f, m: f.binary_cross_entropy(m.ones(2, 2) * 0.5, m.ones(2)),
    lambda f, m: f.smooth_l1_loss(m.ones(2), m.ones(2), beta=-1.0),
    lambda f, m: f.huber_loss(m.ones(2), m.ones(2), delta=0.0),
    lambda f, m: f.glu(m.ones(3)),
    lambda f, m: f.avg_pool2d(m.ones(1, 1, 4, 4), 3, padding=2),
    lambda f, m: f.avg_pool2d(m.ones(3, 4), 2),
    lambda f, m: f.avg_pool2d(m.ones(1, 1, 4, 4, dtype=m.int32), 2),
    lambda f, m: f.adaptive_avg_pool2d(m.ones(3, 4), 2),
    lambda f, m: m.nn.BatchNorm2d(3)(m.ones(3, 4, 4)),
    lambda f, m: m.nn.BatchNorm1d(3)(m.ones(1, 3)),
    lambda f, m: m.nn.BatchNorm1d(3)(m.ones(2, 3, 4, 5)),
]



@pytest.mark.parametrize("call", ERRORS)
def test_errors_are_pytorchs(call):
    got = error_of(lambda: call(F, nbgrad))
    assert got is not None and "numba" not in got[1].lower()
    if torch is not None:
        want = error_of(lambda: call(TF, torch))
        assert got[0] is want[0]
        assert got[1].replace("nbgrad.Size", "Size") == want[1].replace("torch.Size", "Size")


def test_docstring_examples_run():
    import doctest

    from nbgrad.ops import attention, batch_norm, index, norm, pad, pooling

    for mod in (pooling, batch_norm, pad, norm, attention, index):
        res = doctest.testmod(mod, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        assert res.attempted and not res.failed, mod.__name__


@needs_torch
def test_avg_pool2d_of_integers_matches_pytorch():
    # int64 windows: summed exactly, divided toward zero (as C's integer division)
    v = np.random.default_rng(3).integers(-50, 50, (2, 3, 5, 5))
    for kw in [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
               dict(kernel_size=2, stride=1, count_include_pad=False, divisor_override=3)]:
        got = F.avg_pool2d(nbgrad.tensor(v), **kw)
        want = TF.avg_pool2d(torch.tensor(v), **kw)
        assert got.dtype is nbgrad.int64 and got.tolist() == want.tolist()


def test_normalize_writes_into_out_as_torch():
    torch = pytest.importorskip("torch")
    for m in (nbgrad, torch):
        o = m.empty(1, 2)
        r = m.nn.functional.normalize(m.tensor([[3.0, 4.0]]), out=o)
        assert r is o and o.tolist() == [[0.6000000238418579, 0.800000011920929]]
        small = m.empty(3)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            m.nn.functional.normalize(m.tensor([[3.0, 4.0]]), out=small)
        assert tuple(small.shape) == (1, 2) and "was resized" in str(w[0].message)
        x = m.ones(1, 2, requires_grad=True)
        with pytest.raises(RuntimeError, match="functions with out=... arguments don't support "
                                               "automatic differentiation"):
            m.nn.functional.normalize(x, out=m.empty(1, 2))
        with m.no_grad():
            assert m.nn.functional.normalize(x, out=m.empty(0)).shape == (1, 2)


@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 4), (2, 3, 2, 2), (2, 3, 2, 2, 2)])
def test_dropout2d_masks_and_warnings_are_pytorchs(shape):
    """dropout2d draws one keep value per (dim 0, dim 1) pair at every rank, as PyTorch's
    feature dropout: a 3-d input is (N, C, L), a 2-d one is dropped element by element;
    ranks other than 3 and 4 warn, and 3-d warns that it is read as (N, C, L)."""
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    with warnings.catch_warnings(record=True) as theirs:
        warnings.simplefilter("always")
        want = torch.nn.functional.dropout2d(torch.ones(*shape), 0.5)
    nbgrad.manual_seed(0)
    with warnings.catch_warnings(record=True) as ours:
        warnings.simplefilter("always")
        got = F.dropout2d(nbgrad.ones(*shape), 0.5)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert [str(w.message) for w in ours] == [str(w.message) for w in theirs]
    assert len(ours) == (0 if len(shape) == 4 else 1)


def test_dropout2d_one_dim_input_raises_when_it_draws():
    x = nbgrad.ones(3)
    with pytest.warns(UserWarning, match="Received a 1-D input to dropout2d"):
        with pytest.raises(RuntimeError, match="Feature dropout requires at least 2 "
                                               "dimensions in the input"):
            F.dropout2d(x, 0.5)
    with pytest.warns(UserWarning):
        assert F.dropout2d(x, 0.5, training=False) is x


FLOAT_ONLY = ["elu", "celu", "selu", "leaky_relu", "rrelu", "silu", "hardswish", "hardsigmoid",
              "mish", "gelu", "softplus", "logsigmoid", "hardshrink", "softshrink", "glu",
              "elu_", "leaky_relu_", "rrelu_", "celu_", "selu_"]


@pytest.mark.parametrize("name", FLOAT_ONLY)
@pytest.mark.parametrize("dtype", ["int64", "int32", "bool"])
def test_float_only_activations_refuse_integers_as_pytorch(name, dtype):
    """PyTorch has no integer kernel for these: NotImplementedError naming its kernel, for
    the in-place forms and ``inplace=True`` too (not a float result, or a cast error)."""
    torch = pytest.importorskip("torch")

    def call(m):
        x = m.tensor([1, 0, 3, 1]).to(getattr(m, dtype))
        return getattr(m.nn.functional, name)(x)

    want, got = error_of(lambda: call(torch)), error_of(lambda: call(nbgrad))
    assert want is not None and want[0] is NotImplementedError
    assert got == want
    if name in ("silu", "elu", "hardswish", "mish"):
        assert error_of(lambda: getattr(F, name)(nbgrad.tensor([1, 2]), inplace=True)) == \
            error_of(lambda: getattr(torch.nn.functional, name)(torch.tensor([1, 2]),
                                                                inplace=True))


def test_softmax_family_and_prelu_refuse_integers_as_pytorch():
    torch = pytest.importorskip("torch")
    for call in (lambda m: m.nn.functional.softmax(m.tensor([1, 2]), 0),
                 lambda m: m.nn.functional.log_softmax(m.tensor([[True, False]]), 1),
                 lambda m: m.nn.functional.softmin(m.tensor([1, 2]), 0),
                 lambda m: m.nn.functional.prelu(m.tensor([1, -2]), m.tensor([1]))):
        want = error_of(lambda: call(torch))
        assert want is not None and want == error_of(lambda: call(nbgrad))
    assert F.softmax(nbgrad.tensor([1, 2]), 0, dtype=nbgrad.float32).dtype is nbgrad.float32
