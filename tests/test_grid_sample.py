"""grid_sample and affine_grid against PyTorch: values and gradients (input, grid, theta)
for every mode, padding mode and align_corners, in 2-D and 3-D, float64 and float32;
finite differences to second order; PyTorch's errors and warnings."""

import itertools
import warnings

import numpy as np
import pytest

import nbgrad
import nbgrad.nn.functional as F
from nbgrad.autograd import gradcheck, gradgradcheck
from tests._errors import assert_same_error

torch = pytest.importorskip("torch")
TF = torch.nn.functional

CASES = [(k, mode, pad, ac)
         for k in (2, 3)
         for mode, pad, ac in itertools.product(("bilinear", "nearest", "bicubic"),
                                                ("zeros", "border", "reflection"), (False, True))
         if not (mode == "bicubic" and k == 3)]


def _data(k, seed, dtype=np.float64):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((2, 3) + (3, 4, 5)[3 - k:]).astype(dtype)
    # points inside, outside (padding) and beyond twice the span (several reflections)
    g = rng.uniform(-2.7, 2.7, (2,) + (2, 3, 4)[3 - k:] + (k,)).astype(dtype)
    return x, g


@pytest.mark.parametrize("k,mode,pad,ac", CASES)
def test_grid_sample_matches_torch(k, mode, pad, ac):
    x, g = _data(k, seed=k + len(mode) + len(pad) + ac)
    w = np.random.default_rng(7).standard_normal((2, 3) + g.shape[1:-1])
    outs = []
    for m, f in ((nbgrad, F), (torch, TF)):
        xs, gs = m.tensor(x, requires_grad=True), m.tensor(g, requires_grad=True)
        y = f.grid_sample(xs, gs, mode=mode, padding_mode=pad, align_corners=ac)
        (y * m.tensor(w)).sum().backward()
        outs.append([t.detach().numpy() for t in (y, xs.grad, gs.grad)])
    for a, b in zip(*outs):
        assert a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("k,mode,pad,ac", [c for c in CASES if c[1] != "nearest"][::3])
def test_grid_sample_gradcheck(k, mode, pad, ac):
    x, g = _data(k, seed=3)
    x, g = x[:1, :2], g[:1]
    xs = nbgrad.tensor(x, requires_grad=True)
    gs = nbgrad.tensor(g, requires_grad=True)

    def f(a, b):
        return F.grid_sample(a, b, mode=mode, padding_mode=pad, align_corners=ac)

    assert gradcheck(f, (xs, gs))
    assert gradgradcheck(f, (xs, gs))


def test_grid_sample_float32_and_nearest_grid_gradient():
    x, g = _data(2, seed=11, dtype=np.float32)
    ys = []
    for m, f in ((nbgrad, F), (torch, TF)):
        xs, gs = m.tensor(x, requires_grad=True), m.tensor(g, requires_grad=True)
        y = f.grid_sample(xs, gs, mode="nearest", align_corners=False)
        y.sum().backward()
        ys.append((y, gs.grad))
    (y, gg), (ty, tgg) = ys
    assert y.dtype == nbgrad.float32
    np.testing.assert_array_equal(y.detach().numpy(), ty.detach().numpy())
    # PyTorch's grid gradient in nearest mode is zeros, not None
    np.testing.assert_array_equal(gg.numpy(), tgg.numpy())
    assert not gg.numpy().any()
    xs, gs = nbgrad.tensor(x), nbgrad.tensor(g)
    np.testing.assert_allclose(F.grid_sample(xs, gs, align_corners=True).numpy(),
                               TF.grid_sample(torch.tensor(x), torch.tensor(g),
                                              align_corners=True).numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("ac", [False, True])
def test_affine_grid_matches_torch(k, ac):
    rng = np.random.default_rng(k)
    theta = rng.standard_normal((2, k, k + 1))
    size = (2, 3, 4, 5) if k == 2 else (2, 3, 4, 5, 6)
    w = rng.standard_normal(size[:1] + size[2:] + (k,))
    res = []
    for m, f in ((nbgrad, F), (torch, TF)):
        th = m.tensor(theta, requires_grad=True)
        grid = f.affine_grid(th, size, align_corners=ac)
        (grid * m.tensor(w)).sum().backward()
        res.append((grid.detach().numpy(), th.grad.numpy()))
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
    th = nbgrad.tensor(theta[:1], requires_grad=True)
    assert gradcheck(lambda t: F.affine_grid(t, (1, 1) + size[2:], align_corners=ac), (th,))


def test_a_spatial_transformer_step_matches_torch():
    # the affine grid of a learned theta, sampled bilinearly: PyTorch's tutorial's pattern
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 1, 6, 6)).astype(np.float32)
    theta = (np.array([[1.0, 0.1, 0.05], [-0.1, 0.9, 0.0]]) + rng.normal(0, 0.05, (2, 2, 3))
             ).astype(np.float32)
    res = []
    for m, f in ((nbgrad, F), (torch, TF)):
        th = m.tensor(theta, requires_grad=True)
        xs = m.tensor(x, requires_grad=True)
        y = f.grid_sample(xs, f.affine_grid(th, xs.size(), align_corners=False),
                          align_corners=False)
        (y ** 2).mean().backward()
        res.append([t.detach().numpy() for t in (y, th.grad, xs.grad)])
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-6)


def test_defaults_warn_as_torch():
    x, g = _data(2, seed=1)
    for m, f in ((nbgrad, F), (torch, TF)):
        with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
            f.grid_sample(m.tensor(x), m.tensor(g))
        with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
            f.affine_grid(m.tensor(np.eye(2, 3)[None]), (1, 1, 2, 2))
        with pytest.warns(UserWarning, match="unit-size grids when align_corners=True"):
            f.affine_grid(m.tensor(np.eye(2, 3)[None]), (1, 1, 1, 2), align_corners=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        F.grid_sample(nbgrad.tensor(x), nbgrad.tensor(g), align_corners=False)


@pytest.mark.parametrize("call", [
    lambda m: m.nn.functional.grid_sample(m.zeros(2, 3, 4, 5), m.zeros(2, 4, 5, 2), mode="cubic"),
    lambda m: m.nn.functional.grid_sample(m.zeros(2, 3, 4, 5), m.zeros(2, 4, 5, 2),
                                          padding_mode="wrap"),
    lambda m: m.nn.functional.grid_sample(m.zeros(2, 3, 4, 5), m.zeros(1, 4, 5, 2)),
    lambda m: m.nn.functional.grid_sample(m.zeros(2, 3, 4, 5), m.zeros(2, 4, 5, 3)),
    lambda m: m.nn.functional.grid_sample(m.zeros(3, 4, 5), m.zeros(4, 5, 2)),
    lambda m: m.nn.functional.grid_sample(m.zeros(2, 3, 0, 5), m.zeros(2, 4, 5, 2)),
    lambda m: m.nn.functional.grid_sample(m.zeros(2, 3, 4, 5, 6), m.zeros(2, 1, 2, 3, 3),
                                          mode="bicubic"),
    lambda m: m.nn.functional.grid_sample(m.zeros(2, 3, 4, 5, dtype=m.int32),
                                          m.zeros(2, 4, 5, 2, dtype=m.int32)),
    lambda m: m.nn.functional.grid_sample(m.zeros(2, 3, 4, 5, dtype=m.float64),
                                          m.zeros(2, 4, 5, 2)),
    lambda m: m.nn.functional.affine_grid(m.zeros(2, 2, 2), (2, 3, 4, 5)),
    lambda m: m.nn.functional.affine_grid(m.zeros(2, 2, 3), (2, 3, 4, 5, 6)),
    lambda m: m.nn.functional.affine_grid(m.zeros(2, 2, 3), (2, 3, 4)),
    lambda m: m.nn.functional.affine_grid(m.zeros(2, 2, 3, dtype=m.int32), (2, 3, 4, 5)),
    lambda m: m.nn.functional.affine_grid(m.zeros(2, 2, 3), (2, 3, 0, 5)),
    lambda m: m.nn.functional.affine_grid(m.zeros(2, 2, 3), (3, 3, 4, 5)),
])
def test_errors_match_torch(call):
    assert_same_error(call, torch, nbgrad, lambda text: text.replace("torch.", "nbgrad."))


def test_docstring_examples_run():
    import doctest

    import nbgrad.ops.grid_sample as mod

    res = doctest.testmod(mod, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert res.attempted >= 6 and res.failed == 0
