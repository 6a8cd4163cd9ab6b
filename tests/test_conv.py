"""conv2d and max_pool2d: values and gradients against PyTorch, finite-difference checks of
first and second derivatives, PyTorch's argument errors."""

import numpy as np
import pytest

import nbgrad
import nbgrad.nn.functional as F
from nbgrad.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")
TF = torch.nn.functional


def _pair(rng, shape, dtype):
    a = rng.standard_normal(shape).astype(dtype)
    return nbgrad.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)


def _close(a, t, tol):
    np.testing.assert_allclose(a.detach().numpy(), t.detach().numpy(), **tol)


TOL = {"float32": dict(rtol=1e-4, atol=1e-4), "float64": dict(rtol=1e-10, atol=1e-10)}

# (input shape, weight shape, bias, kwargs)
CONV_CASES = [
    ((2, 3, 7, 6), (4, 3, 3, 3), True, {}),
    ((2, 3, 7, 6), (4, 3, 3, 2), True, dict(stride=2, padding=1)),
    ((1, 3, 9, 8), (5, 3, 3, 3), False, dict(stride=(2, 3), padding=(2, 0))),
    ((2, 2, 8, 9), (3, 2, 3, 2), True, dict(dilation=(2, 1), padding=(1, 2))),
    ((2, 4, 7, 6), (6, 2, 3, 2), True, dict(stride=(2, 1), padding=1, dilation=2, groups=2)),
    ((2, 6, 7, 6), (6, 1, 3, 3), True, dict(groups=6, padding="valid")),  # depthwise
    ((2, 3, 7, 6), (4, 3, 3, 3), True, dict(padding="same")),
    ((2, 3, 7, 6), (4, 3, 2, 4), False, dict(padding="same")),  # even kernel: asymmetric pad
    ((2, 3, 7, 6), (4, 3, 2, 2), True, dict(padding="same", dilation=(1, 2))),
    ((2, 3, 7, 6), (4, 3, 1, 1), True, {}),  # 1x1: columns are the image itself
    ((2, 3, 7, 6), (4, 3, 1, 1), False, dict(stride=2)),
    ((3, 7, 6), (4, 3, 3, 3), True, dict(padding=1)),  # unbatched
    ((3, 5, 5), (2, 3, 5, 5), False, {}),  # kernel as large as the input: 1x1 output
]


@pytest.mark.filterwarnings("ignore:Using padding='same'")  # torch's note on even kernels
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("xs,ws,bias,kw", CONV_CASES)
def test_conv2d_vs_torch(xs, ws, bias, kw, dtype):
    rng = np.random.default_rng(0)
    x, tx = _pair(rng, xs, dtype)
    w, tw = _pair(rng, ws, dtype)
    b, tb = _pair(rng, (ws[0],), dtype) if bias else (None, None)
    y, ty = F.conv2d(x, w, b, **kw), TF.conv2d(tx, tw, tb, **kw)
    assert tuple(y.shape) == tuple(ty.shape) and y.dtype.name == dtype
    _close(y, ty, TOL[dtype])
    g = rng.standard_normal(tuple(ty.shape)).astype(dtype)
    y.backward(nbgrad.tensor(g))
    ty.backward(torch.tensor(g))
    for a, t in [(x, tx), (w, tw)] + ([(b, tb)] if bias else []):
        _close(a.grad, t.grad, TOL[dtype])


def test_conv2d_sum_backward_and_names():
    rng = np.random.default_rng(1)
    x, tx = _pair(rng, (2, 3, 6, 5), "float32")
    w, tw = _pair(rng, (4, 3, 3, 3), "float32")
    b, tb = _pair(rng, (4,), "float32")
    y = nbgrad.conv2d(x, w, b, padding=1)  # the top-level name, as torch.conv2d
    assert y.grad_fn.name() == "ConvolutionBackward0"
    y.sum().backward()  # an expanded (zero-stride) gradient
    TF.conv2d(tx, tw, tb, padding=1).sum().backward()
    for a, t in [(x, tx), (w, tw), (b, tb)]:
        _close(a.grad, t.grad, TOL["float32"])
    assert F.conv2d is nbgrad.conv2d and F.max_pool2d is nbgrad.max_pool2d


def test_conv2d_partial_requires_grad_and_no_grad():
    rng = np.random.default_rng(2)
    xa = rng.standard_normal((2, 3, 6, 5))
    wa = rng.standard_normal((4, 3, 3, 3))
    for x_rg, w_rg in [(True, False), (False, True)]:
        x = nbgrad.tensor(xa, requires_grad=x_rg)
        w = nbgrad.tensor(wa, requires_grad=w_rg)
        F.conv2d(x, w, stride=2).sum().backward()
        assert (x.grad is not None) == x_rg and (w.grad is not None) == w_rg
    x = nbgrad.tensor(xa)
    assert F.conv2d(x, nbgrad.tensor(wa)).grad_fn is None
    with nbgrad.no_grad():
        assert F.conv2d(x, nbgrad.tensor(wa, requires_grad=True)).grad_fn is None


def test_conv2d_noncontiguous_empty_integer():
    rng = np.random.default_rng(3)
    xa = rng.standard_normal((2, 3, 6, 7))
    wa = rng.standard_normal((4, 3, 3, 2))
    xt = nbgrad.tensor(xa.transpose(0, 1, 3, 2).copy()).transpose(2, 3)  # a strided view
    assert not xt._data.flags.c_contiguous
    np.testing.assert_allclose(
        F.conv2d(xt, nbgrad.tensor(wa), padding=1).numpy(),
        TF.conv2d(torch.tensor(xa), torch.tensor(wa), padding=1).numpy(), rtol=1e-10, atol=1e-12,
    )
    e = F.conv2d(nbgrad.zeros(0, 3, 6, 7), nbgrad.zeros(4, 3, 3, 3))
    assert tuple(e.shape) == (0, 4, 4, 5)
    xi = rng.integers(-5, 5, (1, 2, 5, 5))
    wi = rng.integers(-3, 3, (3, 2, 2, 2))
    bi = rng.integers(-3, 3, (3,))
    yi = F.conv2d(nbgrad.tensor(xi), nbgrad.tensor(wi), nbgrad.tensor(bi), stride=2, padding=1)
    ti = TF.conv2d(torch.tensor(xi), torch.tensor(wi), torch.tensor(bi), stride=2, padding=1)
    assert yi.dtype == nbgrad.int64
    np.testing.assert_array_equal(yi.numpy(), ti.numpy())


GC_CASES = [
    ((1, 2, 4, 4), (2, 2, 2, 2), True, dict(stride=2, padding=1)),
    ((2, 2, 4, 3), (2, 1, 2, 2), True, dict(groups=2, dilation=(1, 2), padding=(1, 1))),
    ((1, 2, 4, 4), (3, 2, 2, 3), False, dict(padding="same")),
    ((3, 3, 4), (2, 3, 2, 2), True, {}),  # unbatched
    ((1, 3, 3, 3), (2, 3, 1, 1), True, {}),  # 1x1
]


@pytest.mark.parametrize("xs,ws,bias,kw", GC_CASES)
def test_conv2d_gradcheck_gradgradcheck(xs, ws, bias, kw):
    nbgrad.manual_seed(0)
    ins = [nbgrad.randn(*xs, dtype=nbgrad.float64, requires_grad=True),
           nbgrad.randn(*ws, dtype=nbgrad.float64, requires_grad=True)]
    if bias:
        ins.append(nbgrad.randn(ws[0], dtype=nbgrad.float64, requires_grad=True))

    def fn(*a):
        return F.conv2d(*a, **kw)

    assert gradcheck(fn, tuple(ins))
    assert gradgradcheck(fn, tuple(ins))


def test_conv2d_double_backward_vs_torch():
    # d/dx of <grad_w(x), v>: the weight gradient's dependence on the input
    rng = np.random.default_rng(5)
    x, tx = _pair(rng, (2, 2, 5, 4), "float64")
    w, tw = _pair(rng, (3, 2, 2, 3), "float64")
    v = rng.standard_normal((3, 2, 2, 3))
    outs = []
    for m, f, a, b in [(nbgrad, F, x, w), (torch, TF, tx, tw)]:
        y = f.conv2d(a, b, stride=(1, 2), padding=1)
        (gw,) = m.autograd.grad((y * y).sum(), b, create_graph=True)
        (gx,) = m.autograd.grad((gw * m.tensor(v)).sum(), a)
        outs.append(gx)
    _close(outs[0], outs[1], TOL["float64"])


def test_conv2d_keeps_no_columns_and_a_double_backward_records_im2col(monkeypatch):
    # forward and backward make each image's columns inside their kernels: the graph keeps
    # no columns array (x and w only), and no im2col kernel runs on its own; with
    # create_graph and an input that needs a gradient the weight's gradient records im2col,
    # so the double backward reaches the input; an in-place change of the input still raises
    from nbgrad.kernels import table

    calls = []
    im2col = table.kernel("im2col", nbgrad.device("cpu"))
    monkeypatch.setitem(table._KERNELS["im2col"], "cpu",
                        lambda *a: (calls.append(1), im2col(*a))[1])
    rng = np.random.default_rng(7)
    x, tx = _pair(rng, (2, 3, 6, 5), "float64")
    w, tw = _pair(rng, (4, 3, 3, 2), "float64")
    y = F.conv2d(x, w, padding=1, stride=(1, 2))
    ty = TF.conv2d(tx, tw, padding=1, stride=(1, 2))
    assert len(y.grad_fn._saved) == 2  # the input and the weight, no columns
    (y * y).sum().backward()
    (ty * ty).sum().backward()
    assert not calls
    _close(w.grad, tw.grad, TOL["float64"])
    _close(x.grad, tx.grad, TOL["float64"])
    y = F.conv2d(x, w, padding=1, stride=(1, 2))
    (gw,) = nbgrad.autograd.grad((y * y).sum(), w, create_graph=True)
    assert len(calls) == 1 and gw.grad_fn is not None
    ty = TF.conv2d(tx, tw, padding=1, stride=(1, 2))
    (tgw,) = torch.autograd.grad((ty * ty).sum(), tw, create_graph=True)
    _close(gw, tgw, TOL["float64"])
    v = rng.standard_normal(tuple(w.shape))
    (gx,) = nbgrad.autograd.grad((gw * nbgrad.tensor(v)).sum(), x)
    (tgx,) = torch.autograd.grad((tgw * torch.tensor(v)).sum(), tx)
    _close(gx, tgx, TOL["float64"])
    h = x * 1.0
    y = F.conv2d(h, w)
    h.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


# ----- max_pool2d ----------------------------------------------------------------------------
POOL_CASES = [
    ((2, 3, 6, 6), dict(kernel_size=2)),
    ((2, 3, 7, 6), dict(kernel_size=3, stride=2, padding=1)),
    ((2, 3, 7, 6), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
    ((1, 2, 8, 7), dict(kernel_size=(3, 2), stride=(1, 2), padding=(1, 1), dilation=(2, 1))),
    ((1, 2, 9, 9), dict(kernel_size=3, stride=1)),  # overlapping windows: grads accumulate
    ((2, 5, 6), dict(kernel_size=2, stride=(2, 1), ceil_mode=True)),  # unbatched
    ((1, 1, 5, 5), dict(kernel_size=2, stride=2, dilation=2, padding=1)),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("xs,kw", POOL_CASES)
def test_max_pool2d_vs_torch(xs, kw, dtype):
    rng = np.random.default_rng(0)
    x, tx = _pair(rng, xs, dtype)
    y, i = F.max_pool2d(x, **kw, return_indices=True)
    ty, ti = TF.max_pool2d(tx, **kw, return_indices=True)
    assert tuple(y.shape) == tuple(ty.shape) and i.dtype == nbgrad.int64
    _close(y, ty, TOL[dtype])
    np.testing.assert_array_equal(i.numpy(), ti.numpy())
    assert y.grad_fn.name() == "MaxPool2DWithIndicesBackward0"
    g = rng.standard_normal(tuple(ty.shape)).astype(dtype)
    y.backward(nbgrad.tensor(g))
    ty.backward(torch.tensor(g))
    _close(x.grad, tx.grad, TOL[dtype])
    plain = F.max_pool2d(x, **kw)  # return_indices=False gives the tensor alone
    _close(plain, ty, TOL[dtype])


def test_max_pool2d_ties_nan_integers():
    # ties: the first maximum of the window wins; a NaN wins over everything
    a = np.zeros((1, 1, 4, 4))
    a[0, 0, 1, 2] = np.nan
    a[0, 0, 3, 3] = -np.inf
    for kw in [dict(kernel_size=2), dict(kernel_size=3, stride=1, padding=1)]:
        y, i = F.max_pool2d(nbgrad.tensor(a), **kw, return_indices=True)
        ty, ti = TF.max_pool2d(torch.tensor(a), **kw, return_indices=True)
        np.testing.assert_array_equal(y.numpy(), ty.numpy())
        np.testing.assert_array_equal(i.numpy(), ti.numpy())
    for dt in ("int64", "int32"):
        xi = np.random.default_rng(1).integers(-50, -1, (2, 3, 5, 5)).astype(dt)
        y = F.max_pool2d(nbgrad.tensor(xi), 2, padding=1)
        ty = TF.max_pool2d(torch.tensor(xi), 2, padding=1)
        assert y.dtype.name == dt
        np.testing.assert_array_equal(y.numpy(), ty.numpy())


@pytest.mark.parametrize("xs,kw", [
    ((1, 2, 4, 4), dict(kernel_size=2)),
    ((1, 1, 5, 4), dict(kernel_size=3, stride=1, padding=1)),  # overlapping windows
    ((2, 3, 3), dict(kernel_size=2, stride=1, dilation=(1, 2), ceil_mode=True)),
])
def test_max_pool2d_gradcheck_gradgradcheck(xs, kw):
    # distinct values, far apart, so that no finite-difference step changes the argmax
    n = int(np.prod(xs))
    a = np.random.default_rng(2).permutation(n).reshape(xs) * 0.1
    x = nbgrad.tensor(a, requires_grad=True)

    def fn(t):
        return F.max_pool2d(t, **kw)

    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def test_max_pool2d_double_backward_graph():
    x = nbgrad.randn(1, 2, 4, 4, dtype=nbgrad.float64, requires_grad=True)
    y = F.max_pool2d(x, 2)
    g = nbgrad.randn(*y.shape, dtype=nbgrad.float64, requires_grad=True)
    (gx,) = nbgrad.autograd.grad(y, x, g, create_graph=True)
    assert gx.grad_fn.name() == "MaxPool2DWithIndicesBackwardBackward0"
    (gg,) = nbgrad.autograd.grad((gx * gx).sum(), g)
    np.testing.assert_allclose(gg.numpy(), 2 * g.detach().numpy())  # scatter then gather


# ----- argument errors: the same type and message as PyTorch --------------------------------
def _c(xs, ws, bs=None, dt="float32", wdt=None, bdt=None, **kw):
    return ("conv2d", xs, ws, bs, dt, wdt or dt, bdt or dt, kw)


def _p(xs, dt="float32", **kw):
    return ("max_pool2d", xs, None, None, dt, None, None, kw)


ERRORS = [
    _c((2, 3), (4, 3, 3, 3)),
    _c((1, 2, 5, 5), (4, 3, 3, 3)),
    _c((2, 5, 5), (4, 3, 3, 3)),  # unbatched: torch prints the batched size
    _c((1, 4, 5, 5), (3, 2, 3, 3), groups=2),
    _c((1, 3, 5, 5), (4, 3, 3, 3), groups=8),
    _c((1, 3, 5, 5), (4, 3, 3, 3), groups=0),
    _c((1, 3, 5, 5), (4, 3, 3, 3), (3,)),
    _c((1, 3, 5, 5), (4, 3, 3, 3), (4, 1)),
    _c((1, 3, 5, 5), (4, 3, 3, 3), (4,), bdt="float64"),
    _c((1, 3, 5, 5), (4, 3, 3, 3), wdt="float64"),
    _c((1, 3, 5, 5), (4, 3, 3, 3), dt="float64", wdt="float32"),
    _c((1, 3, 2, 2), (4, 3, 3, 3)),
    _c((1, 3, 5, 5), (4, 3, 3, 3), dilation=3),
    _c((1, 3, 5, 5), (4, 3, 3, 3), stride=0),
    _c((1, 3, 5, 5), (4, 3, 3, 3), padding=-1),
    _c((1, 3, 5, 5), (4, 3, 3, 3), dilation=0),
    _c((1, 3, 5, 5), (4, 3, 3, 3), dilation=-1),
    _c((1, 3, 5, 5), (4, 3, 3, 3), padding="foo"),
    _c((1, 3, 5, 5), (4, 3, 3, 3), padding="same", stride=2),
    _c((1, 3, 5, 5), (4, 3, 3, 3), stride=(1, 2, 3)),
    _c((1, 3, 5, 5), (4, 3, 3, 3), padding=(1, 2, 3)),
    _c((1, 3, 5, 5), (4, 3, 3)),
    _c((1, 3, 5, 5), (4, 3)),
    _c((1, 3, 5, 5), (4, 3, 0, 3)),
    _c((1, 3, 5, 5), (4, 3, 3, 3), dt="bool"),
    _p((5, 5), kernel_size=2),
    _p((1, 1, 1, 5, 5), kernel_size=2),
    _p((1, 2, 5, 5), kernel_size=(1, 2, 3)),
    _p((1, 2, 5, 5), kernel_size=2, stride=(1, 2, 3)),
    _p((1, 2, 5, 5), kernel_size=2, padding=(1, 2, 3)),
    _p((1, 2, 5, 5), kernel_size=2, dilation=(1, 2, 3)),
    _p((1, 2, 5, 5), kernel_size=2, padding=2),
    _p((1, 2, 5, 5), kernel_size=2, padding=2, dilation=3),
    _p((1, 2, 5, 5), kernel_size=(2, 3), padding=(1, 2)),
    _p((1, 2, 5, 5), kernel_size=2, padding=-1),
    _p((1, 2, 5, 5), kernel_size=2, stride=0),
    _p((1, 2, 5, 5), kernel_size=0),
    _p((1, 2, 5, 5), kernel_size=0, stride=1),
    _p((1, 2, 5, 5), kernel_size=2, stride=-1),
    _p((1, 2, 5, 5), kernel_size=2, dilation=0),
    _p((1, 2, 1, 1), kernel_size=2),
    _p((1, 2, 5, 5), kernel_size=6),
    _p((1, 0, 4, 4), kernel_size=2),
    _p((0, 3, 5), kernel_size=2),
    _p((1, 2, 4, 4), dt="bool", kernel_size=2),
]


def _call(m, f, case):
    op, xs, ws, bs, dt, wdt, bdt, kw = case
    def mk(s, d):
        return m.zeros(*s, dtype=getattr(m, d))

    if op == "conv2d":
        return f.conv2d(mk(xs, dt), mk(ws, wdt), mk(bs, bdt) if bs else None, **kw)
    return f.max_pool2d(mk(xs, dt), **kw)


@pytest.mark.parametrize("case", ERRORS, ids=lambda c: f"{c[0]}{c[1]}{c[2] or ''}{c[7]}")
def test_errors_match_torch(case):
    with pytest.raises(Exception) as te:
        _call(torch, TF, case)
    with pytest.raises(type(te.value)) as ne:
        _call(nbgrad, F, case)
    assert str(ne.value) == str(te.value)


def test_type_errors():
    w = nbgrad.zeros(4, 3, 3, 3)
    with pytest.raises(TypeError):
        F.conv2d([1.0], w)
    with pytest.raises(TypeError):
        F.conv2d(nbgrad.zeros(1, 3, 5, 5), w, stride=1.5)
    with pytest.raises(TypeError):
        F.max_pool2d(nbgrad.zeros(1, 3, 5, 5), 2.0)


@pytest.mark.slow  # compiles three prange kernels (~10 s)
def test_parallel_kernels_match_serial():
    # the prange variants run only on large tensors; check them directly on small ones (the
    # other three kernels write plane p from plane p only, with no cross-plane hazards)
    from nbgrad.kernels.cpu import conv as K
    from nbgrad.kernels.cpu import conv_gemm as KG

    rng = np.random.default_rng(6)
    x = rng.standard_normal((2, 3, 7, 6))
    args = (3, 2, 2, 1, 1, 0, 1, 2, 4, 4)  # kh kw sh sw ph pw dh dw Ho Wo
    cols = [np.full((2, 18, 16), np.nan) for _ in range(2)]
    imgs = [np.full(x.shape, np.nan) for _ in range(2)]
    vals = [np.empty((6, 3, 3)) for _ in range(2)]
    idx = [np.empty((6, 3, 3), np.int64) for _ in range(2)]
    for impl, k in ((K._S, 0), (K._P, 1)):
        impl[0](x, cols[k], *args)
        impl[1](cols[k], imgs[k], *args)
        impl[3](x.reshape(6, 7, 6), vals[k], idx[k], 3, 2, 2, 2, 1, 0, 1, 1, -np.inf)
    # conv_mm: tails in positions (not a multiple of its 128 block), rows (of 4), products
    # (of its 4-step and 32-block), two groups
    a = rng.standard_normal((2, 7, 39))
    bm = rng.standard_normal((3, 2, 39, 150))
    mm = [np.full((3, 2, 7, 150), np.nan) for _ in range(2)]
    K._S[6](a, bm, mm[0])
    K._P[6](a, bm, mm[1])
    np.testing.assert_allclose(mm[0], np.matmul(a, bm), rtol=1e-12, atol=1e-12)
    for a, b in [(cols[0], cols[1]), (imgs[0], imgs[1]), (vals[0], vals[1]), (idx[0], idx[1]),
                 (mm[0], mm[1])]:
        np.testing.assert_array_equal(a, b)
    # the float GEMM: register tiles with partial ones in rows and positions, products in
    # two passes (K over the pass length), a transposed (strided) weight; the same sums as
    # the plain loop, bit for bit, serial and parallel alike
    for dt, K_ in ((np.float64, 39), (np.float32, KG._KC + 7)):
        a = rng.standard_normal((2, 7, K_)).astype(dt)
        at = np.ascontiguousarray(a.transpose(0, 2, 1)).transpose(0, 2, 1)
        bm = rng.standard_normal((3, 2, K_, 150)).astype(dt)
        mm = [np.full((3, 2, 7, 150), np.nan, dt) for _ in range(3)]
        K._S[6](a, bm, mm[0])
        K._GEMM[0](at, bm, mm[1])
        K._GEMM[1](a, bm, mm[2])
        np.testing.assert_array_equal(mm[0], mm[1])
        np.testing.assert_array_equal(mm[0], mm[2])
    # col2im is im2col's adjoint: <im2col(x), c> == <x, col2im(c)>
    c = rng.standard_normal(cols[0].shape)
    img = np.empty_like(x)
    K._S[1](c, img, *args)
    np.testing.assert_allclose((cols[0] * c).sum(), (x * img).sum(), rtol=1e-12)


@pytest.mark.slow  # compiles the image-by-image kernels twice each (~15 s)
@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_image_by_image_kernels_match_the_columns_path(dt):
    # the conv2d kernels make each image's columns in a buffer of their thread's own: the
    # values of one columns array through conv_mm / col2im / a batched product (serial and
    # parallel, groups, stride, dilation, padding, weights read through strides)
    from nbgrad.kernels.cpu import conv as K

    rng = np.random.default_rng(7)
    N, G, Og, Cg, kh, kw, H, W = 3, 2, 5, 3, 3, 2, 9, 8
    args = (kh, kw, 2, 1, 1, 0, 1, 2)  # kh kw sh sw ph pw dh dw
    Ho, Wo = (H + 2 - 3) // 2 + 1, (W - 3) // 1 + 1
    w = rng.standard_normal((G * Og, Cg, kh, kw)).astype(dt)
    a = w.reshape(G, Og, Cg * kh * kw).transpose(0, 2, 1)  # (G, Kg, Og), strided
    g = rng.standard_normal((N, G, Og, Ho * Wo)).astype(dt)
    cols = np.empty((N, G, Cg * kh * kw, Ho * Wo), dt)
    K.conv_mm(a, g, cols)
    ref = np.full((N, G * Cg, H, W), np.nan, dt)
    K.col2im(cols.reshape(N, -1, Ho * Wo), ref, *args, Ho, Wo)
    for impl in K._INPUT_GRAD:
        x = np.full_like(ref, np.nan)
        impl(a, g, x, *args, Ho, Wo)
        np.testing.assert_array_equal(x, ref)
    x = np.full_like(ref, np.nan)
    K.conv2d_input_grad(a, g[:1], x[:1], *args, Ho, Wo)  # fewer images than threads
    np.testing.assert_array_equal(x[:1], ref[:1])
    # forward: conv_mm of each image's columns, bit for bit; the weight gradient per image
    # (BLAS's sums, so to rounding)
    img = rng.standard_normal(ref.shape).astype(dt)
    K.im2col(img, cols.reshape(N, -1, Ho * Wo), *args, Ho, Wo)
    a_fwd = w.reshape(G, Og, Cg * kh * kw)[:, :, ::-1].copy()[:, :, ::-1]  # strided
    out_ref = np.empty((N, G, Og, Ho * Wo), dt)
    K.conv_mm(a_fwd, cols, out_ref)
    for impl in K._FORWARD:
        out = np.full_like(out_ref, np.nan)
        impl(img, a_fwd, out.reshape(N, G * Og, -1), *args, Ho, Wo)
        np.testing.assert_array_equal(out, out_ref)
    out = np.full_like(out_ref, np.nan)
    K.conv2d_forward(img[:1], a_fwd, out[:1].reshape(1, G * Og, -1), *args, Ho, Wo)
    np.testing.assert_array_equal(out[:1], out_ref[:1])
    gw_ref = np.matmul(g, cols.transpose(0, 1, 3, 2))
    tol = dict(rtol=1e-5, atol=1e-5) if dt == np.float32 else dict(rtol=1e-12, atol=1e-12)
    for impl in K._WEIGHT_GRAD or ():
        gw = np.full_like(gw_ref, np.nan)
        impl(img, g, gw, *args, Ho, Wo)
        np.testing.assert_allclose(gw, gw_ref, **tol)
    for n in (1, N):  # fewer images than threads, and the wrapper's own choice
        gw = np.full_like(gw_ref, np.nan)
        K.conv2d_weight_grad(img[:n], g[:n], gw[:n], *args, Ho, Wo)
        np.testing.assert_allclose(gw[:n], gw_ref[:n], **tol)


def test_conv2d_input_gradient_same_with_and_without_a_graph():
    # backward without a graph takes the one-kernel input gradient, with create_graph the
    # recorded conv_mm and col2im: the same numbers
    rng = np.random.default_rng(8)
    x = nbgrad.tensor(rng.standard_normal((4, 6, 10, 9)).astype(np.float32), requires_grad=True)
    w = nbgrad.tensor(rng.standard_normal((8, 3, 3, 3)).astype(np.float32), requires_grad=True)
    gy = nbgrad.tensor(rng.standard_normal((4, 8, 5, 5)).astype(np.float32))
    y = F.conv2d(x, w, stride=2, padding=1, groups=2)
    (plain,) = nbgrad.autograd.grad(y, x, gy, retain_graph=True)
    (graph,) = nbgrad.autograd.grad(y, x, gy, create_graph=True)
    assert graph.requires_grad and not plain.requires_grad
    np.testing.assert_array_equal(plain.numpy(), graph.detach().numpy())


# ----- every output position sums its products in the same order ------------------------
def _interior(n_out, k, s, p, n_in):
    """The output positions whose window lies inside the (unpadded) input."""
    o = np.arange(n_out)
    return (o * s - p >= 0) & (o * s - p + k - 1 <= n_in - 1)


# (C_in, C_out, H, W, padding, stride): MNIST-like shapes where BLAS's GEMM kernels give
# positions in different register blocks different rounding
CONST_CASES = [
    (1, 32, 28, 28, 0, 1),
    (32, 64, 26, 26, 0, 1),
    (4, 5, 11, 11, 0, 2),
    (3, 8, 10, 13, 1, 1),
    (16, 16, 12, 12, 1, 2),
    (7, 3, 9, 20, 2, 1),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("C,O,H,W,pad,st", CONST_CASES)
def test_conv2d_constant_image_is_position_independent(C, O, H, W, pad, st, dtype):
    # a constant image: every window that sees no padding holds the same values, so its
    # output must be bit-identical (PyTorch's is); max-pool ties depend on it
    rng = np.random.default_rng(1)
    x = np.full((2, C, H, W), 0.37, dtype)
    w = rng.standard_normal((O, C, 3, 3)).astype(dtype)
    b = rng.standard_normal(O).astype(dtype)
    y = F.conv2d(nbgrad.tensor(x), nbgrad.tensor(w), nbgrad.tensor(b), stride=st, padding=pad)
    ty = TF.conv2d(torch.tensor(x), torch.tensor(w), torch.tensor(b), stride=st, padding=pad)
    yn = y.numpy()
    np.testing.assert_allclose(yn, ty.numpy(), **TOL[dtype])
    Ho, Wo = yn.shape[2:]
    ih, iw = _interior(Ho, 3, st, pad, H), _interior(Wo, 3, st, pad, W)
    assert ih.any() and iw.any()
    inner = yn[:, :, ih][:, :, :, iw]
    for o in range(O):
        assert len(np.unique(inner[:, o])) == 1, (o, np.unique(inner[:, o]))
    # with padding, windows at the same place relative to the border see the same values:
    # the whole output is the same for both images and symmetric rows/columns agree
    np.testing.assert_array_equal(yn[0], yn[1])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("C,O,H,W,pad,st", [(32, 64, 26, 26, 0, 1), (8, 48, 20, 21, 1, 1),
                                            (16, 40, 17, 17, 0, 2)])
def test_conv2d_grad_input_of_constant_grad_is_position_independent(C, O, H, W, pad, st,
                                                                     dtype):
    # grad_input = col2im(W^T @ grad): a pixel every tap reaches gets the same sum in the
    # same order (with stride s the value repeats with period s)
    rng = np.random.default_rng(2)
    x = nbgrad.tensor(rng.standard_normal((2, C, H, W)).astype(dtype), requires_grad=True)
    w = rng.standard_normal((O, C, 3, 3)).astype(dtype)
    y = F.conv2d(x, nbgrad.tensor(w), stride=st, padding=pad)
    y.backward(nbgrad.full(tuple(y.shape), 0.37, dtype=getattr(nbgrad, dtype)))
    g = x.grad.numpy()
    tx = torch.tensor(x.detach().numpy(), requires_grad=True)
    ty = TF.conv2d(tx, torch.tensor(w), stride=st, padding=pad)
    ty.backward(torch.full(tuple(ty.shape), 0.37, dtype=ty.dtype))
    np.testing.assert_allclose(g, tx.grad.numpy(), **TOL[dtype])
    Ho, Wo = y.shape[2:]
    def full(n, n_out):  # pixels every tap that reaches them reaches from inside the output
        return [h for h in range(n) if all(
            0 <= (h + pad - i) // st < n_out for i in range(3) if (h + pad - i) % st == 0)]

    rows, cols = full(H, Ho), full(W, Wo)
    for ph in range(st):
        for pw in range(st):
            rs = [h for h in rows if h % st == ph]
            cs = [c for c in cols if c % st == pw]
            inner = g[:, :, rs][:, :, :, cs]
            for c in range(C):
                assert len(np.unique(inner[:, c])) == 1, (c, ph, pw, np.unique(inner[:, c]))


def test_max_pool2d_over_conv_of_constant_image_routes_like_torch():
    # all windows tie: the first position of each must win, as in PyTorch
    rng = np.random.default_rng(3)
    x = np.full((2, 1, 28, 28), -0.4242, np.float32)
    w = rng.standard_normal((32, 1, 3, 3)).astype(np.float32)
    wt = nbgrad.tensor(w, requires_grad=True)
    h = F.conv2d(nbgrad.tensor(x), wt)
    h.retain_grad()
    p, idx = F.max_pool2d(h, 2, return_indices=True)
    p.sum().backward()
    twt = torch.tensor(w, requires_grad=True)
    th = TF.conv2d(torch.tensor(x), twt)
    th.retain_grad()
    tp, tidx = TF.max_pool2d(th, 2, return_indices=True)
    tp.sum().backward()
    np.testing.assert_array_equal(idx.numpy(), tidx.numpy())
    np.testing.assert_array_equal(h.grad.numpy(), th.grad.numpy())
    np.testing.assert_allclose(wt.grad.numpy(), twt.grad.numpy(), rtol=1e-5, atol=1e-4)


def test_small_cnn_training_tracks_torch():
    # MNIST-like digits: a constant (normalized zero) background where max-pool windows
    # tie (positive biases keep the background through relu); conv-relu-maxpool-linear
    # with SGD from the same weights must pick PyTorch's maxima at every step and track its
    # losses (position-dependent rounding in conv2d broke the ties: the routing differed)
    rng = np.random.default_rng(4)
    N, H = 8, 20
    img = np.zeros((N, 1, H, H), np.float32)
    for n in range(N):  # a few random strokes per image
        for _ in range(3):
            r, c = rng.integers(3, H - 3, 2)
            img[n, 0, r - 2:r + 3, c] = 1.0
            img[n, 0, r, c - 2:c + 3] = rng.uniform(0.5, 1.0)
    x = (img - 0.1307) / 0.3081
    y = rng.integers(0, 10, N)
    params = [rng.standard_normal((32, 1, 3, 3)) / 3, rng.uniform(1.0, 2.0, 32),
              rng.standard_normal((10, 32 * 9 * 9)) / 500, rng.standard_normal(10) * 0.1]
    params = [p.astype(np.float32) for p in params]

    def run(lib, fn):
        ps = [lib.tensor(p, requires_grad=True) for p in params]
        xt, yt = lib.tensor(x), lib.tensor(y)
        losses, where = [], []
        for _ in range(6):
            h, idx = fn.max_pool2d(fn.relu(fn.conv2d(xt, ps[0], ps[1])), 2, return_indices=True)
            loss = fn.cross_entropy(fn.linear(h.reshape(N, -1), ps[2], ps[3]), yt)
            for p in ps:
                p.grad = None
            loss.backward()
            with lib.no_grad():
                for p in ps:
                    p -= 0.05 * p.grad
            losses.append(loss.item())
            where.append(idx.numpy())
        return np.array(losses), where

    (ours, oi), (theirs, ti) = run(nbgrad, F), run(torch, TF)
    for a, b in zip(oi, ti):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)


@pytest.mark.slow
def test_conv_mm_at_the_other_vector_width():
    # conv_mm's register tiles are sized by the vector width (512 bits on AVX-512, else
    # 256): the order and bit-for-bit tests again with NBGRAD_WIDE_VECTORS flipped, so
    # both widths run wherever the CPU has AVX-512 (their float32 cases: the tile logic is
    # the same for float64, and the subprocess compiles every kernel again)
    import os
    import subprocess
    import sys

    flipped = "0" if os.environ.get("NBGRAD_WIDE_VECTORS", "1") == "1" else "1"
    env = dict(os.environ, NBGRAD_WIDE_VECTORS=flipped)
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k",
                        "(position or routes or parallel_kernels_match_serial) and not "
                        "float64", __file__],
                       env=env, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
    assert " passed" in r.stdout and " failed" not in r.stdout
