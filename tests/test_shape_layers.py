"""Padding layers, PixelShuffle / PixelUnshuffle (ops/pixel_shuffle.py), PairwiseDistance
and CosineSimilarity (F.pairwise_distance): values, gradients and reprs against PyTorch,
finite differences in float64, PyTorch's errors."""

import doctest

import numpy as np
import pytest

import nbgrad
import nbgrad.nn.functional as F
from nbgrad.autograd import gradcheck, gradgradcheck
from tests._errors import error_of

torch = pytest.importorskip("torch")

LAYERS = [
    (lambda m: m.nn.ZeroPad2d(2), (1, 2, 3, 4)), (lambda m: m.nn.ZeroPad2d((1, 0, 2, 1)), (2, 3, 4)),
    (lambda m: m.nn.ConstantPad1d((1, 2), 3.5), (2, 3, 4)),
    (lambda m: m.nn.ConstantPad2d(1, 0.5), (1, 2, 3, 4)),
    (lambda m: m.nn.ReflectionPad2d(1), (1, 2, 3, 4)),
    (lambda m: m.nn.ReflectionPad1d((2, 1)), (2, 3, 4)),
    (lambda m: m.nn.ReplicationPad1d(2), (2, 3, 4)),
    (lambda m: m.nn.ReplicationPad2d((1, 2, 0, 1)), (1, 2, 3, 4)),
    (lambda m: m.nn.CircularPad2d(1), (1, 2, 3, 4)), (lambda m: m.nn.ZeroPad1d(1), (2, 3)),
    (lambda m: m.nn.PixelShuffle(2), (2, 8, 3, 4)), (lambda m: m.nn.PixelUnshuffle(2), (2, 2, 4, 6)),
    (lambda m: m.nn.PixelShuffle(3), (9, 2, 2)),
]


@pytest.mark.parametrize("make, shape", LAYERS)
def test_layers_match_pytorch(make, shape):
    x = np.random.default_rng(0).standard_normal(shape)
    res = []
    for m in (nbgrad, torch):
        layer = make(m)
        t = m.tensor(x, requires_grad=True)
        y = layer(t)
        (y ** 2 * m.arange(y.numel(), dtype=m.float64).reshape(y.shape)).sum().backward()
        res.append((repr(layer), y.detach().numpy(), t.grad.numpy()))
    assert res[0][0] == res[1][0]
    np.testing.assert_array_equal(res[0][1], res[1][1])
    np.testing.assert_allclose(res[0][2], res[1][2], rtol=1e-12)


def test_distances_match_pytorch_and_differentiate():
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    got = []
    for m in (nbgrad, torch):
        x, y = m.tensor(a, requires_grad=True), m.tensor(b)
        outs = [m.nn.PairwiseDistance()(x, y), m.nn.PairwiseDistance(p=1, keepdim=True)(x, y),
                m.nn.CosineSimilarity(dim=0)(x, y), m.nn.functional.pairwise_distance(x[0], y[0])]
        sum(o.sum() for o in outs).backward()
        got.append([o.detach().numpy() for o in outs] + [x.grad.numpy()])
    for u, v in zip(*got):
        assert u.shape == v.shape
        np.testing.assert_allclose(u, v, rtol=1e-12)
    x = nbgrad.tensor(a, requires_grad=True)
    assert gradcheck(lambda t: F.pairwise_distance(t, nbgrad.tensor(b), 3.0), (x,))
    assert gradgradcheck(lambda t: F.pixel_shuffle(t.reshape(1, 4, 1, 3), 2) ** 2, (x,))


def test_errors_match_pytorch():
    for call in [lambda m: m.nn.functional.pixel_shuffle(m.ones(1, 3, 2, 2), 2),
                 lambda m: m.nn.functional.pixel_shuffle(m.ones(4, 2), 2),
                 lambda m: m.nn.functional.pixel_unshuffle(m.ones(1, 1, 3, 4), 2)]:
        ours = error_of(lambda: call(nbgrad))
        assert ours is not None and ours == error_of(lambda: call(torch))


def test_docstring_examples_run():
    from nbgrad.ops import norm, pixel_shuffle

    for mod in (pixel_shuffle, norm):
        res = doctest.testmod(mod, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        assert res.attempted and not res.failed, mod.__name__


def test_padding_layer_signatures_are_pytorchs():
    """ConstantPad's value is required, the other padding layers take the padding only:
    a wrong call is PyTorch's TypeError, word for word."""
    for name in ("ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ZeroPad2d",
                 "ReflectionPad1d", "ReplicationPad3d", "CircularPad2d"):
        ours, theirs = getattr(nbgrad.nn, name), getattr(torch.nn, name)
        args = (2,) if name.startswith("Constant") else (2, 0.5)
        with pytest.raises(TypeError) as e:
            ours(*args)
        with pytest.raises(TypeError) as t:
            theirs(*args)
        assert str(e.value) == str(t.value)
    assert nbgrad.nn.ConstantPad1d(2, value=1.5).value == 1.5
