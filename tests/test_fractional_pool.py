"""Fractional max pooling (F.fractional_max_pool2d / 3d, nn.FractionalMaxPool2d / 3d)
against PyTorch: the offsets drawn for a seed, values, indices (ties and NaN included),
gradients in every float dtype, node names, the modules' arguments, errors; finite
differences in float64."""

import numpy as np
import pytest

import nbgrad
from nbgrad.autograd import gradcheck, gradgradcheck
from tests._errors import assert_same_error

torch = pytest.importorskip("torch")
RNG = np.random.default_rng(0)


@pytest.mark.parametrize("make, shape", [
    (lambda m: m.nn.FractionalMaxPool2d(2, output_size=(4, 3), return_indices=True),
     (2, 3, 9, 7)),
    (lambda m: m.nn.FractionalMaxPool2d((3, 2), output_ratio=0.5, return_indices=True),
     (3, 10, 10)),
    (lambda m: m.nn.FractionalMaxPool3d(2, output_size=(3, 3, 4), return_indices=True),
     (2, 2, 7, 6, 8)),
    (lambda m: m.nn.FractionalMaxPool3d((2, 1, 3), output_ratio=(0.5, 0.7, 0.4),
                                        return_indices=True), (2, 7, 6, 9)),
])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_pooling_matches_pytorch(make, shape, dtype):
    x = RNG.standard_normal(shape).round(1)  # (ties: the first maximum wins)
    x.flat[5] = np.nan
    g = RNG.standard_normal(shape)
    res = []
    for m in (nbgrad, torch):
        m.manual_seed(3)
        t = m.tensor(x).to(getattr(m, dtype)).requires_grad_()
        v, i = make(m)(t)
        v.backward(m.tensor(g[tuple(slice(0, n) for n in v.shape)]).to(v.dtype))
        res.append((v.grad_fn.name(), v.detach().float().numpy(), i.numpy(),
                    t.grad.float().numpy(), m.rand(1).numpy()))
    assert res[0][0] == res[1][0]
    np.testing.assert_array_equal(res[0][1], res[1][1])
    np.testing.assert_array_equal(res[0][2], res[1][2])
    tol = {"float16": 2e-3, "bfloat16": 2e-2}.get(dtype, 1e-6)  # (16-bit sums of overlaps)
    np.testing.assert_allclose(res[0][3], res[1][3], rtol=tol, atol=tol)
    np.testing.assert_array_equal(res[0][4], res[1][4])  # (the same draws were made)


def test_finite_differences():
    x = nbgrad.tensor(RNG.standard_normal((1, 2, 6, 5)), requires_grad=True)
    s = nbgrad.tensor([[[0.3, 0.7], [0.9, 0.2]]], dtype=nbgrad.float64)

    def f(a):
        return nbgrad.nn.functional.fractional_max_pool2d(a, 2, (3, 3), _random_samples=s)

    assert gradcheck(f, (x,)) and gradgradcheck(f, (x,))


@pytest.mark.parametrize("call", [
    lambda m: m.nn.functional.fractional_max_pool2d(m.randn(2, 5, 5), 2, output_size=5),
    lambda m: m.nn.functional.fractional_max_pool2d(m.randn(1, 0, 5, 5), 2, output_size=3),
    lambda m: m.nn.functional.fractional_max_pool2d(m.randn(1, 1, 5, 5), 2),
    lambda m: m.nn.FractionalMaxPool2d(2),
    lambda m: m.nn.FractionalMaxPool2d(2, output_size=2, output_ratio=0.5),
    lambda m: m.nn.FractionalMaxPool2d(2, output_ratio=1.5),
    lambda m: m.nn.FractionalMaxPool3d(2),
    lambda m: m.nn.functional.fractional_max_pool2d(m.randn(1, 1, 5, 5), 2, output_size=3,
                                                    _random_samples=m.rand(1, 2, 2)),
    lambda m: m.nn.functional.fractional_max_pool3d(m.randn(2, 5, 5, 5), 2, output_size=5),
    lambda m: m.nn.functional.fractional_max_pool2d(
        m.randn(1, 1, 5, 5, dtype=m.float64), 2, output_size=3,
        _random_samples=m.rand(1, 1, 2)),
    lambda m: m.nn.functional.fractional_max_pool2d(m.randn(1, 1, 5, 5), (2, 2, 2),
                                                    output_size=3),
    lambda m: m.nn.functional.fractional_max_pool2d(m.randn(1, 1, 5, 5), 2,
                                                    output_size=(3, 3, 3)),
])
def test_errors_are_pytorchs(call):
    assert_same_error(call, torch, nbgrad)
