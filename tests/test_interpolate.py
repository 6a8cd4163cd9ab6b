"""interpolate / Upsample (ops/interpolate.py): nearest, nearest-exact, linear, bilinear,
bicubic (also antialiased), trilinear and area resizing by size or scale factor (with align_corners, recompute_scale_factor), values and
gradients against PyTorch in float32 and float64, finite differences, errors, reprs."""

import doctest

import numpy as np
import pytest

import nbgrad
import nbgrad.nn.functional as F
from nbgrad.autograd import gradcheck, gradgradcheck
from tests._errors import error_of

torch = pytest.importorskip("torch")

SIZES = [dict(size=(8, 11)), dict(size=(3, 4)), dict(scale_factor=2), dict(scale_factor=1.7),
         dict(scale_factor=(0.5, 2.5)), dict(scale_factor=1.3, recompute_scale_factor=True)]
MODES = [((2, 3, 5, 7), "nearest", None), ((2, 3, 5, 7), "nearest-exact", None),
         ((2, 3, 5, 7), "bilinear", False), ((2, 3, 5, 7), "bilinear", True),
         ((2, 3, 9), "linear", False), ((2, 3, 9), "linear", True), ((1, 2, 6), "nearest", None),
         ((2, 3, 5, 7), "bicubic", False), ((2, 3, 5, 7), "bicubic", True),
         ((2, 2, 3, 4, 5), "trilinear", False), ((2, 2, 3, 4, 5), "trilinear", True),
         ((2, 3, 9), "area", None), ((2, 3, 5, 7), "area", None), ((1, 2, 4, 5, 6), "area", None)]


def _one_d(kw):
    k = dict(kw)
    if "size" in k:
        k["size"] = k["size"][0]
    if isinstance(k.get("scale_factor"), tuple):
        k["scale_factor"] = k["scale_factor"][1]
    return k


def _three_d(kw):
    k = dict(kw)
    if "size" in k:
        k["size"] = k["size"] + (4,)
    if isinstance(k.get("scale_factor"), tuple):
        k["scale_factor"] = k["scale_factor"] + (1.5,)
    return k


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape, mode, corners", MODES)
def test_interpolate_matches_pytorch(dtype, shape, mode, corners):
    x = np.random.default_rng(0).standard_normal(shape).astype(dtype)
    for kw in SIZES:
        kw = _one_d(kw) if len(shape) == 3 else _three_d(kw) if len(shape) == 5 else kw
        res = []
        for m in (nbgrad, torch):
            t = m.tensor(x, requires_grad=True)
            y = m.nn.functional.interpolate(t, mode=mode, align_corners=corners, **kw)
            (y * y).sum().backward()
            res.append((y.detach().numpy(), t.grad.numpy()))
        (a, ga), (b, gb) = res
        assert a.shape == b.shape, kw
        tol = 2e-6 if dtype == "float32" else 1e-12
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)
        np.testing.assert_allclose(ga, gb, rtol=10 * tol, atol=10 * tol)
        if mode.startswith("nearest"):
            np.testing.assert_array_equal(a, b)


def test_gradients_by_finite_differences():
    x = nbgrad.tensor(np.random.default_rng(1).standard_normal((1, 2, 3, 4)), requires_grad=True)
    for kw in [dict(scale_factor=2, mode="bilinear"), dict(size=(5, 3), mode="bilinear",
                                                           align_corners=True),
               dict(size=(6, 7), mode="nearest"), dict(size=(5, 6), mode="bicubic"),
               dict(size=(2, 3), mode="bicubic", align_corners=True),
               dict(size=(2, 3), mode="area")]:
        assert gradcheck(lambda t: F.interpolate(t, **kw), (x,))
        assert gradgradcheck(lambda t: F.interpolate(t, **kw) ** 2, (x,))


def test_layers_and_errors_match_pytorch():
    for make in [lambda m: m.nn.Upsample(scale_factor=2),
                 lambda m: m.nn.Upsample(size=(4, 4), mode="bilinear", align_corners=True),
                 lambda m: m.nn.UpsamplingNearest2d(scale_factor=2),
                 lambda m: m.nn.UpsamplingBilinear2d(size=(3, 5))]:
        layer, tlayer = make(nbgrad), make(torch)
        assert repr(layer) == repr(tlayer)
        x = np.random.default_rng(2).standard_normal((1, 2, 3, 4))
        np.testing.assert_allclose(layer(nbgrad.tensor(x)).numpy(),
                                   tlayer(torch.tensor(x)).numpy(), rtol=1e-12)
    for call in [lambda m: m.nn.functional.interpolate(m.ones(1, 1, 2, 2), size=(2, 2),
                                                       scale_factor=2),
                 lambda m: m.nn.functional.interpolate(m.ones(1, 1, 2, 2), scale_factor=2,
                                                       align_corners=True),
                 lambda m: m.nn.functional.interpolate(m.ones(1, 1, 2, 2)),
                 lambda m: m.nn.functional.interpolate(m.ones(1, 1, 2, 2), size=(2, 2, 2))]:
        ours = error_of(lambda: call(nbgrad))
        assert ours is not None and ours == error_of(lambda: call(torch))
    for call in [lambda m: m.nn.functional.interpolate(m.ones(1, 1, 2), scale_factor=2,
                                                       mode="bicubic"),
                 lambda m: m.nn.functional.interpolate(m.ones(1, 1, 2, 2), scale_factor=2,
                                                       mode="trilinear"),
                 lambda m: m.nn.functional.interpolate(m.ones(1, 1, 2, 2), scale_factor=2,
                                                       mode="cubic"),
                 lambda m: m.nn.functional.interpolate(m.ones(1, 2), scale_factor=2),
                 lambda m: m.nn.functional.interpolate(m.ones(1, 1, 2, 2), scale_factor=2,
                                                       mode="lanczos"),
                 lambda m: m.nn.functional.interpolate(m.ones(1, 1, 2), scale_factor=2,
                                                       mode="area", align_corners=False),
                 lambda m: m.nn.functional.interpolate(m.ones(1, 1, 2), scale_factor=2,
                                                       mode="linear", antialias=True)]:
        ours = error_of(lambda: call(nbgrad))
        assert ours is not None and ours == error_of(lambda: call(torch))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_antialias_matches_pytorch(dtype, mode):
    """Shrinking (the filter widened), growing, one dim unchanged, align_corners: values
    and gradients as PyTorch's."""
    x = np.random.default_rng(5).standard_normal((2, 3, 13, 17)).astype(dtype)
    for kw in (dict(size=(5, 4)), dict(size=(3, 17)), dict(scale_factor=0.3),
               dict(scale_factor=1.7), dict(size=(20, 6))):
        for corners in (False, True):
            res = []
            for m in (nbgrad, torch):
                t = m.tensor(x, requires_grad=True)
                y = m.nn.functional.interpolate(t, mode=mode, align_corners=corners,
                                                antialias=True, **kw)
                (y * y).sum().backward()
                res.append((y.detach().numpy(), t.grad.numpy()))
            (a, ga), (b, gb) = res
            tol = 1e-5 if dtype == "float32" else 1e-12
            np.testing.assert_allclose(a, b, rtol=tol, atol=tol)
            np.testing.assert_allclose(ga, gb, rtol=10 * tol, atol=10 * tol)
    img = np.ones((1, 1, 6, 9), dtype)
    img[0, 0, 0, 0] = np.inf  # an input pixel a tap does not reach stays out of the sum
    got = F.interpolate(nbgrad.tensor(img), size=(2, 3), mode=mode, antialias=True)
    want = torch.nn.functional.interpolate(torch.tensor(img), size=(2, 3), mode=mode,
                                           antialias=True)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5)
    xg = nbgrad.tensor(x[:1, :1, :5, :6].astype(np.float64), requires_grad=True)
    assert gradcheck(lambda t: F.interpolate(t, size=(2, 4), mode=mode, antialias=True), (xg,))


def test_trilinear_and_area_by_finite_differences():
    x = nbgrad.tensor(np.random.default_rng(3).standard_normal((1, 1, 2, 3, 2)),
                      requires_grad=True)
    for kw in [dict(size=(3, 2, 3), mode="trilinear"),
               dict(scale_factor=1.5, mode="trilinear", align_corners=True),
               dict(size=(1, 2, 1), mode="area")]:
        assert gradcheck(lambda t: F.interpolate(t, **kw), (x,))
        assert gradgradcheck(lambda t: F.interpolate(t, **kw) ** 2, (x,))


def test_upsample_layer_takes_the_new_modes():
    x = np.random.default_rng(4).standard_normal((1, 2, 3, 4)).astype(np.float32)
    for make in [lambda m: m.nn.Upsample(scale_factor=2, mode="bicubic"),
                 lambda m: m.nn.Upsample(size=(2, 2), mode="area")]:
        np.testing.assert_allclose(make(nbgrad)(nbgrad.tensor(x)).numpy(),
                                   make(torch)(torch.tensor(x)).numpy(), rtol=2e-6, atol=2e-6)


def test_docstring_examples_run():
    from nbgrad.ops import interpolate

    res = doctest.testmod(interpolate,
                          optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert res.attempted and not res.failed




def test_upsample_warns_as_pytorchs_and_is_interpolate():
    for m, G in ((nbgrad, F), (torch, torch.nn.functional)):
        with pytest.warns(UserWarning) as w:
            y = G.upsample(m.ones(1, 1, 2), scale_factor=2)
        assert tuple(y.shape) == (1, 1, 4)
        assert [str(x.message) for x in w] == [
            "`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead."]
