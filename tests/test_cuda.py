"""CUDA backend tests, compared with the CPU results.

They need a CUDA device or Numba's simulator, which must be switched on before
``numba.cuda`` is first imported: ``.ci/run`` runs this file in its own process with
``NUMBA_ENABLE_CUDASIM=1``. Sizes stay tiny because the simulator runs one Python thread
per CUDA thread.
"""

import os

import numpy as np
import pytest

import nbgrad
import nbgrad.nn.functional as F

if not (os.environ.get("NUMBA_ENABLE_CUDASIM") == "1" or nbgrad.cuda.is_available()):
    pytest.skip(
        "needs a GPU or NUMBA_ENABLE_CUDASIM=1 (run by .ci/run in its own process)",
        allow_module_level=True,
    )

DEV = "cuda"


def pair(*shape, dtype=nbgrad.float64, low=None, unit=False):
    """The same random values as a CPU and a CUDA leaf tensor (``low``: at least that;
    ``unit``: inside (-0.9, 0.9))."""
    a = np.random.default_rng(sum(shape) + len(shape)).standard_normal(shape)
    if low is not None:
        a = np.abs(a) + low
    if unit:
        a = np.tanh(a) * 0.9
    c = nbgrad.tensor(a, dtype=dtype, requires_grad=True)
    g = nbgrad.tensor(a, dtype=dtype, device=DEV, requires_grad=True)
    return c, g


def host(t):
    return t.detach().cpu().numpy()


OPS = {
    "add_bcast": (lambda a, b: a + b, [(2, 3), (3,)]),
    "sub_scalar": (lambda a: 2.0 - a, [(2, 3)]),
    "mul_bcast": (lambda a, b: a * b, [(2, 1, 3), (4, 1)]),
    "div": (lambda a, b: a / b, [(2, 3), (2, 3)], 0.5),
    "pow_scalar": (lambda a: a ** 3, [(4,)]),
    "pow_tensor": (lambda a, b: a ** b, [(3,), (3,)], 0.5),
    "exp_log": (lambda a: a.exp().log1p(), [(2, 3)]),
    "sqrt_abs": (lambda a: a.abs().sqrt(), [(5,)], 0.1),
    "tanh_sigmoid_relu": (lambda a: a.tanh() + a.sigmoid() * a.relu(), [(2, 4)]),
    "trig_erf": (lambda a: a.sin() * a.cos() + a.erf() + nbgrad.clamp(a, -0.5, 0.5), [(6,)]),
    "where_cmp": (lambda a, b: nbgrad.where(a > b, a, b * 2), [(2, 3), (2, 3)]),
    "sum_dims": (lambda a: a.sum((0, 2), keepdim=True), [(2, 3, 4)]),
    "sum_all": (lambda a: a.sum(), [(3, 5)]),
    "mean_dim": (lambda a: a.mean(-1), [(3, 4)]),
    "amax": (lambda a: a.amax(1), [(3, 4)]),
    "max_dim": (lambda a: a.max(0).values, [(3, 4)]),
    "min_all": (lambda a: a.min(), [(3, 4)]),
    "matmul_2d": (lambda a, b: a @ b, [(3, 4), (4, 2)]),
    "matmul_batched": (lambda a, b: a @ b, [(2, 3, 4), (4, 5)]),
    "matmul_vec": (lambda a, b: a @ b, [(3, 4), (4,)]),
    "matmul_T": (lambda a, b: a.t() @ b, [(4, 3), (4, 2)]),
    "views": (lambda a: a.t()[1:, None, ::2].reshape(-1).expand(2, -1).unsqueeze(0).squeeze(0), [(3, 4)]),
    "permute_contig": (lambda a: a.permute(2, 0, 1).contiguous() * 1.5, [(2, 3, 4)]),
    "cat_stack": (lambda a, b: nbgrad.cat([a, b], 1) * nbgrad.stack([a, b], 2).sum(2).repeat(1, 2), [(2, 3), (2, 3)]),
    "softmax": (lambda a: F.softmax(a, 1), [(3, 4)]),
    "log_softmax0": (lambda a: F.log_softmax(a, 0), [(3, 4)]),
    "cross_entropy": (lambda a: F.cross_entropy(a, nbgrad.tensor([0, 3, 1], device=a.device)), [(3, 4)]),
    "layer_norm": (lambda a: F.layer_norm(a, (4,)), [(2, 4)]),
    "layer_norm_affine": (lambda a, w, b: F.layer_norm(a, (2, 3), w, b), [(2, 2, 3), (2, 3), (2, 3)]),
    "cross_entropy_weight_ignore": (lambda a: F.cross_entropy(
        a, _ix([0, 3, 1, 3, 2], a), weight=_w([0.5, 2.0, 1.5, 0.7], a), ignore_index=3), [(5, 4)]),
    "cross_entropy_sum": (lambda a: F.cross_entropy(
        a, _ix([0, 3, 1, 3, 2], a), weight=_w([0.5, 2.0, 1.5, 0.7], a), ignore_index=3,
        reduction="sum"), [(5, 4)]),
    "cross_entropy_kdim_none": (lambda a: F.cross_entropy(
        a, _ix([[2, 0], [1, 1]], a), weight=_w([0.5, 2.0, 1.5], a), reduction="none"),
        [(2, 3, 2)]),
    "nll_loss": (lambda a: F.nll_loss(a, _ix([0, 3, 1], a)), [(3, 4)]),
    "nll_loss_weight_ignore_sum": (lambda a: F.nll_loss(
        a, _ix([0, 3, 1, 3, 2], a), weight=_w([0.5, 2.0, 1.5, 0.7], a), ignore_index=3,
        reduction="sum"), [(5, 4)]),
    "nll_loss_kdim_none": (lambda a: F.nll_loss(
        a, _ix([[2, 0], [1, 1]], a), weight=_w([0.5, 2.0, 1.5], a), reduction="none"),
        [(2, 3, 2)]),
    "interpolate_bicubic": (lambda a: F.interpolate(a, size=(3, 4), mode="bicubic"),
                            [(1, 1, 2, 3)]),
    "interpolate_trilinear": (lambda a: F.interpolate(a, scale_factor=1.5, mode="trilinear"),
                              [(1, 1, 2, 2, 2)]),
    "interpolate_area": (lambda a: F.interpolate(a, size=(2, 1), mode="area"), [(1, 1, 3, 2)]),
    "interpolate_antialias": (lambda a: F.interpolate(a, size=(2, 2), mode="bilinear",
                                                      antialias=True), [(1, 1, 5, 3)]),
    "setitem": (lambda a: _setitem(a), [(3, 4)]),
    # indexing (duplicate indices: their gradients accumulate)
    "index_select": (lambda a: a.index_select(1, _ix([2, 0, 2], a)), [(3, 4)]),
    "gather": (lambda a: nbgrad.gather(a, 1, _ix([[0, 3, 3], [1, 1, 0], [2, 0, 2]], a)), [(3, 4)]),
    "scatter_add": (lambda a, b: nbgrad.scatter_add(a, 0, _ix([[0, 2, 2, 1], [2, 2, 0, 1]], a), b),
                    [(3, 4), (2, 4)]),
    "index_add": (lambda a, b: nbgrad.index_add(a, 1, _ix([1, 1, 3], a), b), [(2, 4), (2, 3)]),
    "getitem_index": (lambda a: a[_ix([[0, 2], [2, 2]], a)], [(3, 4)]),
    "getitem_index_split": (lambda a: a[_ix([1, 0, 1], a), :, _ix([0, 1, 1], a)], [(2, 3, 2)]),
    "getitem_mask": (lambda a: a[a > 0.2], [(3, 4)]),
    "setitem_index_mask": (lambda a, b: _setitem_adv(a, b), [(4, 3), (2, 3)]),
    "index_put_acc": (lambda a, b: nbgrad.index_put(a, (_ix([0, 2, 0], a),), b, accumulate=True),
                      [(3, 2), (3, 2)]),
    "embedding": (lambda w: F.embedding(_ix([[1, 3, 1], [0, 4, 3]], w), w, padding_idx=3),
                  [(5, 3)]),
    # convolution and pooling
    "conv2d": (lambda x, w, b: F.conv2d(x, w, b, stride=(2, 1), padding=1, groups=2),
               [(1, 4, 4, 5), (2, 2, 3, 2), (2,)]),
    "conv2d_dilated": (lambda x, w: F.conv2d(x, w, dilation=2, padding="same"),
                       [(2, 1, 5, 4), (2, 1, 2, 3)]),
    "max_pool2d": (lambda x: F.max_pool2d(x, 3, stride=2, padding=1), [(1, 2, 5, 5)]),
    # more reductions
    "var": (lambda a: a.var(1), [(3, 4)]),
    "var_all_c0": (lambda a: nbgrad.var(a, correction=0), [(2, 3, 2)]),
    "std_dims": (lambda a: a.std((0, 2), keepdim=True), [(2, 3, 2)]),
    "prod": (lambda a: a.prod(1), [(3, 4)]),
    "prod_zero": (lambda a: nbgrad.where(a > 0.5, 0.0, a).prod(0), [(3, 4)]),
    "logsumexp": (lambda a: a.logsumexp(0), [(3, 4)]),
    "norm": (lambda a: a.norm(dim=1) + a.norm(1, dim=1) + a.norm(3.0, dim=1), [(3, 4)]),
    "norm_inf": (lambda a: a.norm(float("inf")) + a.norm(float("-inf"), 0).sum(), [(3, 4)]),
}


def _ix(values, like):
    return nbgrad.tensor(values, device=like.device)


def _w(values, like):
    return nbgrad.tensor(values, dtype=like.dtype, device=like.device)


def _setitem_adv(a, b):
    y = a * 1.0
    y[_ix([3, 0], a)] = b
    y[y > 1.0] = 0.5
    y[_ix([1, 1], a), _ix([2, 0], a)] = 7.0
    return y * y


def _setitem(a):
    y = a * 1.0
    y[1, 1:3] = 5.0
    return y * y


@pytest.mark.parametrize("name", sorted(OPS))
def test_op_matches_cpu(name):
    fn, shapes, *low = OPS[name]
    low = low[0] if low else None
    pairs = [pair(*s, low=low) for s in shapes]
    cpu_in = [p[0] for p in pairs]
    gpu_in = [p[1] for p in pairs]
    yc = fn(*cpu_in)
    yg = fn(*gpu_in)
    assert yg.device == nbgrad.device("cuda:0")
    assert tuple(yg.shape) == tuple(yc.shape) and yg.dtype is yc.dtype
    np.testing.assert_allclose(host(yg), host(yc), rtol=1e-6, atol=1e-8)
    seed = np.random.default_rng(0).standard_normal(tuple(yc.shape))
    gc = nbgrad.autograd.grad(yc, cpu_in, nbgrad.tensor(seed), allow_unused=True)
    gg = nbgrad.autograd.grad(yg, gpu_in, nbgrad.tensor(seed, device=DEV), allow_unused=True)
    for a, b in zip(gc, gg):
        assert (a is None) == (b is None)
        if a is not None:
            assert b.device.type == "cuda"
            np.testing.assert_allclose(host(b), host(a), rtol=1e-6, atol=1e-8)


def test_double_backward_on_device():
    c, g = pair(4)
    (d1c,) = nbgrad.autograd.grad((c.tanh() ** 2).sum(), c, create_graph=True)
    (d2c,) = nbgrad.autograd.grad(d1c.sum(), c)
    (d1g,) = nbgrad.autograd.grad((g.tanh() ** 2).sum(), g, create_graph=True)
    (d2g,) = nbgrad.autograd.grad(d1g.sum(), g)
    np.testing.assert_allclose(host(d2g), host(d2c), rtol=1e-6)


def test_fused_nn_double_backward_and_bad_target_on_device():
    """layer_norm and cross_entropy: second derivatives on the device match the CPU's; a bad
    target raises PyTorch's IndexError (found by the device kernel)."""
    def second(x, w, b):
        t = _ix([1, 0], x)
        y = F.layer_norm(x, (3,), w, b) * F.cross_entropy(x, t, weight=w, reduction="none")[:, None]
        gs = nbgrad.autograd.grad((y ** 2).sum(), [x, w, b], create_graph=True)
        s = sum((g * g).sum() for g in gs)
        return gs + nbgrad.autograd.grad(s, [x, w])

    ins = [pair(2, 3), pair(3, low=0.5), pair(3)]
    for a, b in zip(second(*[p[0] for p in ins]), second(*[p[1] for p in ins])):
        assert b.device.type == "cuda"
        np.testing.assert_allclose(host(b), host(a), rtol=1e-6, atol=1e-8)
    _, g = pair(3, 4)
    with pytest.raises(IndexError, match=r"^Target 7 is out of bounds\.$"):
        F.cross_entropy(g, _ix([0, 7, 9], g))
    with pytest.raises(IndexError, match=r"^Target -2 is out of bounds\.$"):
        F.cross_entropy(g, _ix([1, 1, -2], g), ignore_index=1)
    with pytest.raises(IndexError, match=r"^Target 7 is out of bounds\.$"):
        F.nll_loss(g, _ix([0, 7, 9], g))
    # nll_loss's double backward on the device: the gradient's derivative in grad_output
    c, g = pair(3, 4)
    outs = []
    for x in (c, g):
        t = _ix([2, 0, 1], x)
        loss = F.nll_loss(x, t, weight=_w([0.5, 2.0, 1.5, 1.0], x))
        go = (loss * 0 + 2.0).detach().requires_grad_()
        (gx,) = nbgrad.autograd.grad(loss, x, go, create_graph=True)
        outs.append(nbgrad.autograd.grad((gx * x.detach()).sum(), go)[0])
    np.testing.assert_allclose(host(outs[1]), host(outs[0]), rtol=1e-6)


def test_backward_accumulates_on_device_and_second_backward_errors():
    c, g = pair(3)
    y = (g * g).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert g.grad.device.type == "cuda"
    np.testing.assert_allclose(host(g.grad), 4 * host(g))
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()


def test_hooks_and_retain_grad_on_device():
    _, g = pair(3)
    mid = g * 2
    mid.retain_grad()
    h = g.register_hook(lambda t: t * 10)
    (mid * mid).sum().backward()
    np.testing.assert_allclose(host(mid.grad), 2 * host(mid))
    np.testing.assert_allclose(host(g.grad), 10 * 4 * host(mid))
    h.remove()


def test_device_errors_and_conversions():
    c, g = pair(2, 2)
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        c + g
    with pytest.raises(TypeError, match="Use Tensor.cpu"):
        g.detach().numpy()
    assert g.cpu().device.type == "cpu"
    assert g.to("cpu").to("cuda").device.type == "cuda"
    z = nbgrad.zeros(2, 3, device="cuda")
    assert z.device.type == "cuda" and host(z).sum() == 0
    assert "device='cuda:0'" in repr(z)
    assert nbgrad.ones(2, device="cuda").sum().item() == 2.0
    assert nbgrad.cuda.device_count() >= 1
    nbgrad.cuda.synchronize()


def test_inplace_and_version_on_device():
    _, g = pair(3)
    y = g * 1
    y.add_(1.0)
    assert y._version == 1
    y.sum().backward()
    np.testing.assert_allclose(host(g.grad), np.ones(3))


def test_every_registered_op_has_a_cuda_kernel():
    from nbgrad.kernels.table import load, registered_ops

    load("cpu")  # the built-in kernels of each target
    load("cuda")
    ops = registered_ops()
    missing = sorted(n for n, devs in ops.items() if "cuda" not in devs)
    assert not missing, f"ops registered for the CPU without a CUDA kernel: {missing}"
    assert len(ops) > 40


@pytest.mark.parametrize("make", [
    lambda ps: nbgrad.optim.SGD(ps, lr=0.1, weight_decay=0.05),
    lambda ps: nbgrad.optim.SGD(ps, lr=0.1, momentum=0.9, dampening=0.2, maximize=True),
    lambda ps: nbgrad.optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.1),
    lambda ps: nbgrad.optim.Adam(ps, lr=0.05, weight_decay=0.1, amsgrad=True),
    lambda ps: nbgrad.optim.AdamW(ps, lr=0.05, betas=(0.3, 0.9)),
    lambda ps: nbgrad.optim.Adadelta(ps, lr=0.9, rho=0.8, weight_decay=0.1, maximize=True),
    lambda ps: nbgrad.optim.RMSprop(ps, lr=0.05, momentum=0.5, centered=True, weight_decay=0.1),
    lambda ps: nbgrad.optim.Adagrad(ps, lr=0.3, lr_decay=0.1, initial_accumulator_value=0.2),
    lambda ps: nbgrad.optim.Adamax(ps, lr=0.1, weight_decay=0.1, maximize=True),
    lambda ps: nbgrad.optim.NAdam(ps, lr=0.1, weight_decay=0.1, decoupled_weight_decay=True),
    lambda ps: nbgrad.optim.RAdam(ps, lr=0.1, betas=(0.3, 0.9), weight_decay=0.1),
    lambda ps: nbgrad.optim.ASGD(ps, lr=0.1, lambd=0.1, t0=1, weight_decay=0.1),
    lambda ps: nbgrad.optim.Rprop(ps, lr=0.1, etas=(0.3, 1.5), step_sizes=(0.05, 0.2)),
], ids=["sgd", "sgd_momentum", "sgd_nesterov", "adam_amsgrad", "adamw", "adadelta", "rmsprop",
        "adagrad", "adamax", "nadam", "radam", "asgd", "rprop"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_optimizer_steps_match_cpu(make, dtype):
    """Both targets run kernels/updates.py's bodies: the same numbers, in the parameter's
    dtype (float32 hyperparameters for a float32 parameter)."""
    rng = np.random.default_rng(1)
    p0 = rng.standard_normal((2, 3)).astype(dtype)
    pc = nbgrad.tensor(p0, requires_grad=True)
    pg = nbgrad.tensor(p0, device=DEV, requires_grad=True)
    # a non-contiguous parameter view exercises the copy-back path
    qc = nbgrad.tensor(p0.T.copy(), requires_grad=True)
    qg = nbgrad.tensor(p0.T.copy(), device=DEV, requires_grad=True)
    oc, og = make([pc, qc]), make([pg, qg])
    tol = dict(rtol=1e-12, atol=1e-14) if dtype == np.float64 else dict(rtol=1e-6, atol=1e-7)
    for _ in range(3):
        g = rng.standard_normal((2, 3)).astype(dtype)
        pc.grad, pg.grad = nbgrad.tensor(g), nbgrad.tensor(g, device=DEV)
        qc.grad, qg.grad = nbgrad.tensor(g.T), nbgrad.tensor(g.T, device=DEV)
        oc.step()
        og.step()
    for c, g in ((pc, pg), (qc, qg)):
        assert g.device.type == "cuda"
        assert host(g).dtype == host(c).dtype == dtype
        np.testing.assert_allclose(host(g), host(c), **tol)
    for sc, sg in zip(oc.state.values(), og.state.values()):
        for k, v in sc.items():
            if k != "step":
                np.testing.assert_allclose(host(sg[k]), host(v), **tol)


@pytest.mark.parametrize("spread", [False, True])
def test_scatters_with_duplicates(monkeypatch, spread):
    """Duplicate targets add up (or the last write wins) as on the CPU, both in the
    one-thread-per-lane kernels and, forced here, in the atomic / claim kernels that few
    lanes with long duplicate runs take."""
    from nbgrad.kernels.cuda import index as IX

    def run(dev):
        x = nbgrad.tensor(np.arange(6.0), device=dev, requires_grad=True)
        idx = nbgrad.tensor([4, 1, 4, 4, 0, 1, 4], device=dev)
        src = nbgrad.tensor(np.linspace(-1, 2, 7), device=dev)
        a = nbgrad.scatter_add(x, 0, idx, src)
        y = x * 1.0
        y[idx] = src  # duplicates: the last write wins
        z = nbgrad.index_put(x * 0, (idx,), src, accumulate=True)
        p = F.max_pool2d(x.reshape(1, 2, 3), (2, 2), stride=1, padding=1)
        (gx,) = nbgrad.autograd.grad((a + y + z).sum() + (p * p).sum(), x)
        return [host(t) for t in (a, y, z, p, gx)]

    want = run("cpu")
    monkeypatch.setattr(IX, "DEPTH_MAX", 0 if spread else 1 << 30)
    for w, g in zip(want, run(DEV)):
        np.testing.assert_allclose(g, w, rtol=1e-12)


# the simulator runs the kernels' scalar math in Python, where 0/0 warns (a GPU does not)
@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
def test_special_values_and_empty_reductions_as_cpu():
    """NaN, ±inf and ±0.0 through the elementwise kernels (scalar.py, shared) and the CUDA
    reduction kernels give the CPU's results (tests/test_special_values.py checks those
    against torch); reductions over empty tensors give the same empty results."""
    nan, inf = np.nan, np.inf
    a = np.array([[nan, 1.0, -0.0, inf], [0.0, -inf, 2.0, -1.0], [nan, nan, 0.5, -0.0]])
    b = np.array([[0.0, nan, 0.0, -inf], [-0.0, 3.0, nan, -1.0], [1.0, nan, -2.0, 0.0]])

    def run(dev):
        x = nbgrad.tensor(a, device=dev, requires_grad=True)
        y = nbgrad.tensor(b, device=dev, requires_grad=True)
        outs = [nbgrad.maximum(x, y), nbgrad.minimum(x, y), x.clamp(min=nan),
                nbgrad.clamp(x, y, 1.0), x.relu(), x.sign(), x.abs(), x.rsqrt(), x**0.5,
                x.amax(1), x.amin(0), x.max(), y.min(), x.max(1).values, y.min(0).values]
        idx = [x.max(1).indices, y.argmin(0), x.argmax(), y.argmin(1)]
        loss = sum(((o * (i + 1.5)).sum() for i, o in enumerate(outs)), x.sum() * 0)
        gx, gy = nbgrad.autograd.grad(loss, (x, y))
        e = nbgrad.zeros(0, 3, device=dev)
        empty = [e.max(1).values, e.argmax(1), e.amax(1, keepdim=True), e.sum(0), e.min(1)[1]]
        return [host(t) for t in outs + idx + [gx, gy] + empty]

    want = run("cpu")
    with np.errstate(invalid="ignore", divide="ignore"):  # the simulator's NumPy scalars
        got = run(DEV)
    for w, g in zip(want, got):
        assert w.shape == g.shape and w.dtype == g.dtype
        np.testing.assert_array_equal(g, w)
        num = ~np.isnan(w)  # a NaN's sign bit means nothing
        np.testing.assert_array_equal(np.signbit(g[num]), np.signbit(w[num]))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # (the simulator threads' NumPy scalars)
def test_rounding_division_and_remainder_of_special_values_as_cpu():
    # the bodies of floor, ceil, trunc, round, frac, // and % on the device (Python's
    # semantics under the simulator, CUDA's on a GPU) give the CPU's bits, zeros' signs too
    v = np.array([5.0, -7.0, 3.5, -0.0, 0.0, np.inf, -np.inf, np.nan, 1e300, -2.5, 2.5, -0.5,
                  1.5, 4503599627370495.5])
    a, b = (x.ravel() for x in np.meshgrid(v, v))
    ints = np.array([7, -7, 5, 0, 2**62]), np.array([2, -2, 3, -1, 5])

    def run(dev):
        x, y = nbgrad.tensor(a, device=dev), nbgrad.tensor(b, device=dev)
        i, j = (nbgrad.tensor(k, device=dev) for k in ints)
        outs = [x.floor(), x.ceil(), x.trunc(), x.round(), x.frac(), x // y, x % y,
                x.div(y, rounding_mode="trunc"), i // j, i % j, i.div(j, rounding_mode="trunc")]
        return [host(t) for t in outs]

    want = run("cpu")
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        got = run(DEV)
    for w, g in zip(want, got):
        assert w.dtype == g.dtype
        np.testing.assert_array_equal(g, w)
        num = ~np.isnan(w)
        np.testing.assert_array_equal(np.signbit(g[num]), np.signbit(w[num]))


def test_masks_scans_sorts_and_rolls_on_the_device_as_cpu():
    # masked_fill, tril / triu, cumsum / cumprod (rows.scan_line on the device), fmod, sort / topk /
    # kthvalue (a host round trip), roll and multinomial: values, indices and gradients
    v = np.random.default_rng(6).standard_normal((3, 4))
    v[0, 1] = v[0, 2]  # a tie

    def run(dev):
        x = nbgrad.tensor(v, device=dev, requires_grad=True)
        outs = [x.masked_fill(x > 0.2, -1.0), nbgrad.tril(x, 1), x.triu(), x.cumsum(1),
                nbgrad.cumsum(x, 0), x.sort(1).values, x.sort(0, descending=True).values,
                nbgrad.topk(x, 2).values, x.kthvalue(2, 0).values, x.roll((1, -1), (0, 1)),
                nbgrad.square(x), x.cumprod(1), nbgrad.fmod(x * 5, 0.7)]
        outs += [nbgrad.diag(x, 1), nbgrad.masked_select(x, x > 0)]
        idx = [x.sort(1).indices, x.topk(2, 0).indices, x.argsort(1, descending=True),
               nbgrad.cumsum(nbgrad.tensor([[1, 2], [3, 4]], device=dev), 1),
               nbgrad.cumprod(nbgrad.tensor([[1, 2], [3, 4]], device=dev), 1),
               nbgrad.fmod(nbgrad.tensor([-7, 7], device=dev), 3),
               nbgrad.nonzero(x > 0)]
        loss = sum(((o * (i + 1.5)).sum() for i, o in enumerate(outs)), x.sum() * 0)
        (g,) = nbgrad.autograd.grad(loss, (x,))
        return [host(t) for t in outs + idx + [g]]

    for w, g in zip(run("cpu"), run(DEV)):
        assert w.dtype == g.dtype
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-14)
    nbgrad.manual_seed(0)
    m = nbgrad.multinomial(nbgrad.tensor([[0.0, 1.0], [1.0, 0.0]], device=DEV), 2,
                           replacement=True)
    assert m.device == nbgrad.device("cuda:0") and host(m).tolist() == [[1, 1], [0, 0]]


def test_composed_layers_on_the_device_as_cpu():
    # issue #16's composites: batch norm, average pooling, pads, attention, activations and
    # losses, built of ops with device kernels; values and gradients as on the CPU
    rng = np.random.default_rng(8)
    v = rng.standard_normal((1, 2, 3, 3))
    p = rng.uniform(0.1, 0.9, (2, 3))

    def run(dev):
        x = nbgrad.tensor(v, device=dev, requires_grad=True)
        q = nbgrad.tensor(p, device=dev, requires_grad=True)
        bn = nbgrad.nn.BatchNorm2d(2).double().to(dev)
        # (the composites of elementwise rows alone, leaky_relu and the like, are the rows'
        # device kernels, tested above; these add reductions, pads, products, host indices)
        outs = [bn(x), F.avg_pool2d(x, 2), F.adaptive_avg_pool2d(x, (1, 2)),
                F.pad(x, (1, 2, 2, 1), mode="reflect"),
                F.scaled_dot_product_attention(x, x, x, is_causal=True), F.normalize(x),
                F.binary_cross_entropy(q, q * 0.5), F.kl_div(q.log(), q.flip(0), reduction="sum")]
        loss = sum(((o * (i + 1.5)).sum() for i, o in enumerate(outs)), x.sum() * 0)
        gx, gq = nbgrad.autograd.grad(loss, (x, q))
        hot = F.one_hot(nbgrad.tensor([0, 2, 1], device=dev), 3)
        return [host(t) for t in outs + [gx, gq, hot, bn.running_var]]

    for w, g in zip(run("cpu"), run(DEV)):
        assert w.dtype == g.dtype
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)


def test_an_lstm_on_the_device_as_cpu():
    # the recurrent layers are composed of ops with device kernels: an LSTM's outputs,
    # final states and gradients on the device equal the CPU's
    nbgrad.manual_seed(0)
    cpu = nbgrad.nn.LSTM(2, 2).double()
    dev = nbgrad.nn.LSTM(2, 2).double().to(DEV)
    dev.load_state_dict(cpu.state_dict())
    v = np.random.default_rng(9).standard_normal((2, 1, 2))
    outs = []
    for layer, d in ((cpu, "cpu"), (dev, DEV)):
        x = nbgrad.tensor(v, device=d, requires_grad=True)
        out, (h, c) = layer(x)
        (gx,) = nbgrad.autograd.grad((out * 1.5).sum() + c.sum(), (x,))
        outs.append([host(t) for t in (out, h, c, gx, layer.weight_hh_l0)])
    for w, g in zip(*outs):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)


def test_inplace_through_views_as_cpu():
    # CopySlices and the views' regenerated history (ops/view_inplace.py) on the device
    def run(dev):
        x = nbgrad.tensor([0.7, 0.2, 0.4], dtype=nbgrad.float64, device=dev, requires_grad=True)
        a = x * 1.5
        v = a[0:2]
        a.mul_(2.0)
        a[1:].mul_(x[:2])
        (v * nbgrad.tensor([0.04, 0.21], dtype=nbgrad.float64, device=dev)).sum().backward()
        return x.grad.cpu().numpy()

    got = run(DEV)
    np.testing.assert_allclose(got, run("cpu"), rtol=1e-12)
    # by hand: v = (3 x0, 3 x1 x0), so the gradient is (0.12 + 0.63 x1, 0.63 x0, 0) (torch's)
    np.testing.assert_allclose(got, [0.246, 0.441, 0.0], rtol=1e-12)


def _table_rows():
    from nbgrad.ops.opdef import TABLE

    return [n for n, op in TABLE.items() if op.body is not None]


@pytest.mark.parametrize("name", _table_rows())
def test_elementwise_table_row_on_device_matches_cpu(name):
    # every row of the elementwise table: its CUDA kernel (the same scalar body as the CPU
    # loops) and its backward on device, against the CPU; a broadcast and a number operand
    from nbgrad.ops.opdef import TABLE

    op = TABLE[name]
    # (inside each body's domain: the simulator's math functions raise outside it)
    low = {"log": 0.5, "sqrt": 0.5, "rsqrt": 0.5, "log1p": 0.5, "pow": 0.5, "acosh": 1.2,
           "lgamma": 0.5, "digamma": 0.5, "polygamma": 0.5, "log10": 0.5, "log2": 0.5}
    shapes = [(2, 3)] if op.arity == 1 else [(2, 3), (3,)]
    pairs = [pair(*s, low=low.get(name), unit=name in ("asin", "acos", "atanh", "erfinv"))
             for s in shapes]
    cpu_in = [p[0] for p in pairs]
    gpu_in = [p[1] for p in pairs]
    if op.arity == 2 and "not_implemented" in ((op.grads or (None,))[0] or ""):
        # (an input PyTorch gives no derivative: zeta's x, igamma's a)
        cpu_in[0], gpu_in[0] = cpu_in[0].detach(), gpu_in[0].detach()
    calls = [lambda *a: op(*a)]
    # (those take tensors only; a number operand makes another kernel, which the simulator
    # runs in Python: of torch.special's functions, whose kernels take the same path, one)
    special = op.body.__module__ == "nbgrad.kernels.special" or name == "polygamma"
    if op.arity == 2 and name not in ("maximum", "minimum", "atan2", "fmax", "fmin") and (
            not special or name == "special_hermite_polynomial_he"):
        calls.append(lambda a, b: op(a, 1.5))
    for call in calls:
        yc, yg = call(*cpu_in), call(*gpu_in)
        assert yg.device == nbgrad.device("cuda:0") and yg.dtype is yc.dtype
        assert tuple(yg.shape) == tuple(yc.shape)
        np.testing.assert_allclose(host(yg), host(yc), rtol=1e-12, atol=1e-14)
        if op.node is None or op.node.__name__ == "NotImplemented" or not yc.requires_grad:
            continue  # (no derivative, or none for the operands that require grad)
        seed = np.random.default_rng(1).standard_normal(tuple(yc.shape))
        gc = nbgrad.autograd.grad(yc, [t for t in cpu_in if t.requires_grad],
                                  nbgrad.tensor(seed), allow_unused=True)
        gg = nbgrad.autograd.grad(yg, [t for t in gpu_in if t.requires_grad],
                                  nbgrad.tensor(seed, device=DEV), allow_unused=True)
        for a, b in zip(gc, gg):
            assert (a is None) == (b is None)
            if a is not None:
                np.testing.assert_allclose(host(b), host(a), rtol=1e-12, atol=1e-14)


def test_linear_and_matmul_backward_ops_and_their_double_backward_match_cpu():
    """linear's and matmul's backward run as one op on the device's storage (reshapes,
    permutes, products, column sums), and their double-backward nodes too: the same
    numbers as the CPU's."""
    rng = np.random.default_rng(5)
    arrays = [rng.standard_normal(s) for s in ((2, 3, 5), (4, 5), (4,), (2, 3, 4))]

    def run(dev):
        x, w, b, a = (nbgrad.tensor(v, device=dev, requires_grad=True) for v in arrays)
        y = (nbgrad.tanh(F.linear(x, w, b)) ** 2).sum() + (nbgrad.tanh(a @ a.transpose(1, 2))).sum()
        g = nbgrad.autograd.grad(y, (x, w, b, a), create_graph=True)
        g2 = nbgrad.autograd.grad(sum((t * t).sum() for t in g), (x, w, b, a))
        return [host(t) for t in (*g, *g2)]

    for c, d in zip(run("cpu"), run(DEV)):
        np.testing.assert_allclose(d, c, rtol=1e-10, atol=1e-12)


def test_fused_kernel_equals_eager_on_the_device():
    # nbgrad.compiler.fuse's CUDA kernel calls the rows' bodies as eager's CUDA loops do
    from numba import cuda

    from nbgrad.compiler import Program

    p = Program()
    x, y, s = p.input(nbgrad.float32), p.input(nbgrad.float32), p.number(float)
    t = p.apply("tanh", p.apply("add", p.apply("mul", x, s), y))
    p.output(t)
    p.output(p.apply("gt", p.apply("exp", t), y))
    rng = np.random.default_rng(3)
    a, b = (rng.standard_normal(12).astype(np.float32) for _ in range(2))
    got = [o.copy_to_host() for o in p.kernel("cuda")(cuda.to_device(a), cuda.to_device(b), 0.5)]
    X, Y = (nbgrad.tensor(v, device=DEV) for v in (a, b))
    T = nbgrad.tanh(X * 0.5 + Y)
    want = [host(T), host(nbgrad.exp(T) > Y)]
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)
    cpu = p.kernel()(a, b, 0.5)  # the CPU's bodies (vectorizable float32 math): a few ulp
    np.testing.assert_allclose(got[0], cpu[0], rtol=1e-6, atol=1e-6)


def test_a_compiled_function_on_the_device_equals_eager():
    # nbgrad.compile on CUDA tensors: fused CUDA kernels (an operand that broadcasts is
    # expanded first), row calls between them, and the compiled backward
    def fn(x, w, b):
        h = F.linear(x, w) + b
        return (nbgrad.tanh(h) * nbgrad.sigmoid(h)).sum()

    f = nbgrad.compile(fn)

    def leaves():
        rng = np.random.default_rng(5)
        return [nbgrad.tensor(rng.standard_normal(s), dtype=nbgrad.float32, device=DEV,
                              requires_grad=rg) for s, rg in (((3, 4), False), ((2, 4), True),
                                                              ((2,), True))]

    for call in range(3):
        xs, ref = leaves(), leaves()
        y, z = f(*xs), fn(*ref)
        y.backward()
        z.backward()
        assert y.device.type == "cuda"
        np.testing.assert_array_equal(host(y), host(z))
        for a, b in zip(xs[1:], ref[1:]):
            assert a.grad.device.type == "cuda"
            np.testing.assert_array_equal(host(a.grad), host(b.grad))
        if call:
            assert type(y.grad_fn).__name__ == "CompiledFunctionBackward"
    out = nbgrad.compiler.explain(fn, *leaves())
    assert out.calls[0] == "linear.no_bias" and out.regions and out.graph_break_count == 0


def test_a_compiled_function_with_a_graph_break_on_the_device_equals_eager():
    # compiler/lazy.py on CUDA tensors: pending tensors, a flush at the value read, two
    # compiled segments (fused CUDA kernels) and their backward
    seen = []

    def fn(x, w):
        h = nbgrad.tanh(x * w) + 1
        seen.append(float(h.sum()))  # a graph break
        return (h * h - 0.5).sum()

    f = nbgrad.compile(fn)

    def leaves():
        rng = np.random.default_rng(7)
        return [nbgrad.tensor(rng.standard_normal(6), dtype=nbgrad.float32, device=DEV,
                              requires_grad=rg) for rg in (False, True)]

    for call in range(3):
        xs, ref = leaves(), leaves()
        y, z = f(*xs), fn(*ref)
        y.backward()
        z.backward()
        assert y.device.type == "cuda" and xs[1].grad.device.type == "cuda"
        np.testing.assert_array_equal(host(y), host(z))
        np.testing.assert_array_equal(host(xs[1].grad), host(ref[1].grad))
    assert len(seen) == 6 and seen[0::2] == seen[1::2]
    from nbgrad.compiler.trace import Trace

    entries = [e for hit in f._segments.values() for e in hit[0]._cache.values()]
    assert len(entries) == 2 and all(isinstance(e, Trace) for e in entries)


def test_a_compiled_function_takes_a_float_argument_on_the_device():
    # the float is the fused CUDA kernel's number argument: one trace for every value
    def fn(x, w, lr):
        return (nbgrad.tanh(x * w) * lr + lr).sum()

    f = nbgrad.compile(fn)
    rng = np.random.default_rng(3)
    x = nbgrad.tensor(rng.standard_normal(8), dtype=nbgrad.float32, device=DEV)
    for lr in (0.5, -2.0, 0.125):
        w, w2 = (nbgrad.tensor(rng.standard_normal(8) * 0 + 0.3, dtype=nbgrad.float32,
                               device=DEV, requires_grad=True) for _ in range(2))
        y, z = f(x, w, lr), fn(x, w2, lr)
        y.backward()
        z.backward()
        np.testing.assert_array_equal(host(y), host(z))
        np.testing.assert_array_equal(host(w.grad), host(w2.grad))
    assert len(f._cache) == 1


def test_random_numbers_on_the_device_are_the_cpu_generators():
    # CUDA tensors draw on the host from the same generator: the CPU's (PyTorch's) numbers
    nbgrad.manual_seed(0)
    cpu = [nbgrad.rand(3), nbgrad.randn(2, 2), nbgrad.empty(4).uniform_(-1, 1),
           F.dropout(nbgrad.ones(6), 0.5)]
    nbgrad.manual_seed(0)
    dev = [nbgrad.rand(3, device=DEV), nbgrad.randn(2, 2, device=DEV),
           nbgrad.empty(4, device=DEV).uniform_(-1, 1), F.dropout(nbgrad.ones(6, device=DEV), 0.5)]
    for c, g in zip(cpu, dev):
        assert g.device.type == "cuda" and np.array_equal(host(c), host(g))
    g = nbgrad.Generator(DEV).manual_seed(1)
    assert np.array_equal(host(nbgrad.randn(2, device=DEV, generator=g)),
                          host(nbgrad.randn(2, generator=nbgrad.Generator().manual_seed(1))))
    with pytest.raises(RuntimeError, match="Expected a 'cuda' device type for generator"):
        nbgrad.rand(2, device=DEV, generator=nbgrad.Generator())
    with nbgrad.inference_mode():
        t = nbgrad.ones(2, device=DEV) * 2
    assert t.is_inference()
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor"):
        t.add_(1)


def test_gamma_dirichlet_and_binomial_samples_on_the_device_are_the_cpus():
    # the rejection samplers draw on the host too; the gamma's implicit gradient as well
    res = []
    for dev in ("cpu", DEV):
        nbgrad.manual_seed(0)
        a = nbgrad.tensor([0.5, 2.0, 9.0], device=dev, requires_grad=True)
        d = nbgrad.distributions.Dirichlet(a)
        s = nbgrad._standard_gamma(a)
        s.sum().backward()
        r = d.rsample()
        (r * nbgrad.tensor([1.0, 2.0, 3.0], device=dev)).sum().backward()
        b = nbgrad.binomial(nbgrad.tensor([10.0, 100.0], device=dev),
                            nbgrad.tensor([0.5, 0.2], device=dev))
        assert s.device.type == r.device.type == b.device.type == dev.split(":")[0]
        res.append([host(s), host(r), host(b), host(a.grad)])
    for c, g in zip(*res):
        np.testing.assert_array_equal(c, g)


def test_fractional_max_pool_on_the_device_matches_cpu():
    x = np.random.default_rng(1).standard_normal((2, 2, 7, 6))
    res = []
    for dev in ("cpu", DEV):
        nbgrad.manual_seed(0)
        t = nbgrad.tensor(x, device=dev, requires_grad=True)
        v, i = F.fractional_max_pool2d(t, 2, output_size=(3, 4), return_indices=True)
        (v * v).sum().backward()
        assert v.device.type == dev.split(":")[0]
        res.append([host(v), host(i), host(t.grad)])
    for a, b in zip(*res):
        np.testing.assert_array_equal(a, b)


def test_data_parallel_runs_the_module_on_the_first_device():
    net = nbgrad.nn.DataParallel(nbgrad.nn.Linear(3, 2))
    assert net.device_ids == [0] and net.module.weight.device.type == "cuda"
    y = net(nbgrad.ones(2, 3))  # (a host input goes to the device)
    y.sum().backward()
    assert y.device.type == "cuda" and net.module.weight.grad.device.type == "cuda"
    net.module.cpu()
    with pytest.raises(RuntimeError, match=r"module must have its parameters and buffers on "
                                           r"device cuda:0 \(device_ids\[0\]\)"):
        net(nbgrad.ones(2, 3))


def test_diagonal_and_unfold_views_on_the_device_match_cpu():
    c, g = pair(3, 4)
    for f in (lambda a: a.diagonal(1), lambda a: a.unfold(1, 2, 2)):
        yc, yg = f(c), f(g)
        assert yg._base is g and np.array_equal(host(yc), host(yg))
        (yc * yc).sum().backward()
        (yg * yg).sum().backward()
    assert np.allclose(host(c.grad), host(g.grad))
    d = nbgrad.zeros(3, 3, device=DEV)
    d.diagonal().fill_(1.0)  # a write through the view reaches the base
    assert np.array_equal(host(d), np.eye(3))


def test_a_packed_sequence_through_a_gru_on_the_device_matches_cpu():
    from nbgrad.nn.utils import rnn as R

    res = []
    for dev in ("cpu", DEV):
        nbgrad.manual_seed(0)
        net = nbgrad.nn.GRU(2, 2).double().to(dev)
        x = nbgrad.tensor(np.random.default_rng(0).standard_normal((3, 2, 2)), device=dev,
                          requires_grad=True)
        out, h = net(R.pack_padded_sequence(x, [3, 1]))
        (R.pad_packed_sequence(out)[0].sum() + h.sum()).backward()
        res.append([host(out.data), host(h), host(x.grad)])
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_conv_variants_and_group_norms_on_the_device_match_cpu():
    res = []
    for dev in ("cpu", DEV):
        x = nbgrad.tensor(np.random.default_rng(1).standard_normal((1, 2, 3, 3)), device=dev,
                          requires_grad=True)
        w = nbgrad.tensor(np.random.default_rng(2).standard_normal((2, 1, 2, 2)), device=dev,
                          requires_grad=True)
        outs = [F.conv_transpose2d(x, w, stride=2), F.group_norm(x, 2), F.rms_norm(x, (3,)),
                F.conv1d(x[0, 0, :1], w[:, :, 0])]
        (sum((o * o).sum() for o in outs)).backward()
        res.append([host(o) for o in outs] + [host(x.grad), host(w.grad)])
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_float16_and_bfloat16_on_the_device_match_cpu():
    """16-bit tensors on the device: stored, cast, computed in float32 and rounded, with
    gradients, to the same bits as on the CPU (the casts run through the host)."""
    res = []
    for dev in ("cpu", DEV):
        out = []
        for dt in (nbgrad.float16, nbgrad.bfloat16):
            x = nbgrad.tensor([[1.1, -2.5, 3.3], [0.1, 7.0, -1e-3]], device=dev).to(dt)
            x.requires_grad_()
            y = (x * 3).exp() + x.t().sum()
            y.sum().backward()
            assert y.dtype is dt and x.grad.dtype is dt and y.device.type == dev.split(":")[0]
            out += [host(y.double()), host(x.grad.double()), host(x[:, ::2].contiguous().float())]
        res.append(out)
    for a, b in zip(*res):
        np.testing.assert_array_equal(a, b)


def test_cuda_autocast_uses_pytorchs_cuda_lists():
    """``autocast("cuda")``: products in float16 on the device, exp and sum of float16 in
    float32 (CUDA's lists, not the CPU's), CPU tensors untouched, binary_cross_entropy
    refused with PyTorch's message."""
    m = nbgrad.ones(2, 2, device=DEV)
    h = m.half()
    c = nbgrad.ones(2, 2)
    with nbgrad.autocast("cuda"):
        assert nbgrad.is_autocast_enabled() and not nbgrad.is_autocast_enabled("cpu")
        p = m @ m
        assert p.dtype is nbgrad.float16 and host(p.float()).tolist() == [[2.0, 2.0]] * 2
        assert h.exp().dtype is nbgrad.float32 and h.sum().dtype is nbgrad.float32
        assert (c @ c).dtype is nbgrad.float32
        with pytest.raises(RuntimeError, match="are unsafe to autocast"):
            F.binary_cross_entropy(m.sigmoid(), m)


def test_diag_embed_on_the_device_matches_cpu():
    x = np.arange(6.0).reshape(2, 3)
    res = []
    for dev in ("cpu", DEV):
        t = nbgrad.tensor(x, device=dev, requires_grad=True)
        y = nbgrad.diag_embed(t, 1)
        (y * y).sum().backward()
        res.append((host(y), host(t.grad)))
    for a, b in zip(*res):
        np.testing.assert_array_equal(a, b)


def test_decompositions_on_the_device_match_cpu():
    # (LAPACK on the host for both; the backward's products and triangles on the device)
    a = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, -0.2], [0.5, -0.2, 2.0]])
    res = []
    for dev in ("cpu", DEV):
        t = nbgrad.tensor(a, device=dev, requires_grad=True)
        L = nbgrad.linalg.cholesky(t)
        S = nbgrad.linalg.svdvals(t)
        (L.sum() + S.sum()).backward()
        assert L.device.type == S.device.type == dev
        res.append((host(L), host(S), host(t.grad)))
    for x, y in zip(*res):
        np.testing.assert_allclose(x, y, rtol=1e-12)


def test_scatter_reduce_and_masked_scatter_on_the_device_match_cpu():
    x = np.array([[1.0, 2.0, 2.0], [3.0, 0.0, -1.0]])
    s = np.array([[2.0, 5.0, 1.0]])
    res = []
    for dev in ("cpu", DEV):
        t = nbgrad.tensor(x, device=dev, requires_grad=True)
        src = nbgrad.tensor(s, device=dev, requires_grad=True)
        i = nbgrad.tensor([[1, 0, 0]], device=dev)
        y = t.scatter_reduce(0, i, src, "amax") + t.masked_scatter(t > 1.5, src.expand(2, 3))
        (y * y).sum().backward()
        assert y.device.type == dev
        res.append((host(y), host(t.grad), host(src.grad)))
    for a, b in zip(*res):
        np.testing.assert_array_equal(a, b)


def test_grid_sample_and_affine_grid_on_the_device_match_cpu():
    rng = np.random.default_rng(3)
    x, th = rng.standard_normal((1, 2, 3, 3)), rng.standard_normal((1, 2, 3))
    res = []
    for dev in ("cpu", DEV):
        t = nbgrad.tensor(x, device=dev, requires_grad=True)
        theta = nbgrad.tensor(th, device=dev, requires_grad=True)
        grid = F.affine_grid(theta, (1, 2, 2, 2), align_corners=False)
        # (one mode: under the simulator each of the composite's ops compiles a kernel)
        y = F.grid_sample(t, grid, padding_mode="border", align_corners=False)
        (y * y).sum().backward()
        assert y.device.type == dev.split(":")[0]
        res.append((host(y), host(t.grad), host(theta.grad)))
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


def test_conv3d_and_3d_pools_on_the_device_match_cpu():
    rng = np.random.default_rng(4)
    x, w = rng.standard_normal((1, 2, 3, 3, 3)), rng.standard_normal((2, 2, 2, 2, 2))
    res = []
    for dev in ("cpu", DEV):
        t = nbgrad.tensor(x, device=dev, requires_grad=True)
        k = nbgrad.tensor(w, device=dev, requires_grad=True)
        # (the 3-d ops are compositions of 2-d rows; one conv and one pool: under the
        # simulator each kernel they run compiles)
        y = F.conv3d(t, k)
        F.max_pool3d(y, 2).sum().backward()
        assert y.device.type == dev.split(":")[0]
        res.append((host(y), host(t.grad), host(k.grad)))
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-13)


def test_ctc_loss_on_the_device_matches_cpu():
    # (the recursions run on the host: a round trip for a device tensor)
    x = np.random.default_rng(5).standard_normal((4, 2, 3))
    res = []
    for dev in ("cpu", DEV):
        t = nbgrad.tensor(x, device=dev, requires_grad=True)
        loss = F.ctc_loss(t.log_softmax(2), nbgrad.tensor([[1, 2], [2, 2]], device=dev),
                          [4, 4], [2, 1])
        loss.backward()
        assert loss.device.type == dev.split(":")[0]
        res.append((host(loss), host(t.grad)))
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


def test_lu_factor_on_the_device_matches_cpu():
    # (the factorization on the host, a round trip; its backward's solves on the device)
    a = np.array([[1.0, 2.0], [3.0, 4.0]])
    res = []
    for dev in ("cpu", DEV):
        t = nbgrad.tensor(a, device=dev, requires_grad=True)
        LU, pivots = nbgrad.linalg.lu_factor(t)
        LU.sum().backward()
        assert LU.device.type == dev.split(":")[0]
        res.append((host(LU), host(pivots), host(t.grad)))
    for p, q in zip(*res):
        np.testing.assert_allclose(p, q, rtol=1e-12, atol=1e-13)


def test_the_default_device_makes_factories_and_layers_on_the_device():
    with nbgrad.device(DEV):
        made = [nbgrad.zeros(2), nbgrad.tensor([1.0, 2.0]), nbgrad.randn(2), nbgrad.arange(3),
                nbgrad.empty(1), nbgrad.nn.Linear(2, 1).weight]
    assert all(t.device.type == "cuda" for t in made)
    assert nbgrad.zeros(1).device.type == "cpu"
    nbgrad.set_default_device(DEV)
    try:
        nbgrad.manual_seed(0)
        x = nbgrad.rand(3)
        assert x.device.type == "cuda" and nbgrad.full((2,), 1.5).device.type == "cuda"
    finally:
        nbgrad.set_default_device(None)
    nbgrad.manual_seed(0)
    np.testing.assert_array_equal(host(x), nbgrad.rand(3).numpy())  # the host's draws


def test_channels_last_on_the_device_matches_cpu():
    c, g = pair(1, 2, 2, 3)
    yc, yg = (t.contiguous(memory_format=nbgrad.channels_last) for t in (c, g))
    assert yg.stride() == yc.stride() == (12, 1, 6, 2)
    np.testing.assert_array_equal(host(yg), host(yc))


def test_as_strided_on_the_device_matches_cpu():
    c, g = pair(6)
    outs = [(t * 1)[1:].as_strided((2, 3), (1, 1), 2) for t in (c, g)]
    np.testing.assert_array_equal(host(outs[1]), host(outs[0]))
    for o in outs:
        o.sum().backward()
    np.testing.assert_array_equal(host(g.grad), host(c.grad))
    with pytest.raises(NotImplementedError, match="before its input's first element"):
        g[2:].as_strided((2,), (1,), 0)


def test_special_functions_on_the_device_match_cpu():
    c, g = pair(5, low=0.1)
    for fn in (nbgrad.special.i1e, nbgrad.special.erfcx, nbgrad.special.bessel_j0,
               lambda t: nbgrad.special.chebyshev_polynomial_t(t, 3),
               lambda t: nbgrad.special.gammainc(t, t * 2)):
        np.testing.assert_allclose(host(fn(g)), host(fn(c)), rtol=1e-14)
    for t in (c, g):
        nbgrad.special.i1(t).sum().backward()
    np.testing.assert_allclose(host(g.grad), host(c.grad), rtol=1e-14)


def test_collectives_and_ddp_on_device_tensors():
    """Device tensors go through host buffers (the pip MPI builds cannot read GPU memory):
    in a world of one, the values come back into the device memory, strided views too, and
    DDP puts the gradients on the parameters' device."""
    import nbgrad.distributed as dist
    from nbgrad.nn.parallel import DistributedDataParallel as DDP

    was = dist.is_initialized()
    if not was:
        dist.init_process_group("mpi")
    try:
        t = nbgrad.tensor([[1.0, 2.0], [3.0, 4.0]], device=DEV)
        dist.all_reduce(t.t(), op=dist.ReduceOp.MAX)
        dist.broadcast(t, src=0)
        assert t.device.type == "cuda" and t.tolist() == [[1.0, 2.0], [3.0, 4.0]]
        b = nbgrad.tensor([True, False], device=DEV)
        dist.all_reduce(b)
        assert b.tolist() == [True, False]
        nbgrad.manual_seed(0)
        net = nbgrad.nn.Linear(3, 2).to(DEV)
        ddp = DDP(net)
        x = nbgrad.tensor(np.arange(6.0).reshape(2, 3), dtype=nbgrad.float32, device=DEV)
        ddp(x).sum().backward()
        assert net.weight.grad.device.type == "cuda"
        np.testing.assert_allclose(host(net.weight.grad), [[3.0, 5.0, 7.0]] * 2)
    finally:
        if not was:
            dist.destroy_process_group()


@pytest.mark.parametrize("dtype", [nbgrad.float32, nbgrad.float64])
def test_matmul_of_every_layout_matches_cpu(dtype):
    """Products over the layouts the library passes (transposed and sliced views, batches
    broadcast or of one, expanded and flipped operands, degenerate dims), forward and
    backward: cuBLAS on a GPU (kernels/cuda/cublas.py; it reads transposed and sliced
    operands in place, copies the others), the tiled kernel under the simulator."""
    rng = np.random.default_rng(11)

    def both(*shape):
        a = rng.standard_normal(shape)
        return (nbgrad.tensor(a, dtype=dtype, requires_grad=True),
                nbgrad.tensor(a, dtype=dtype, device=DEV, requires_grad=True))

    cases = [
        lambda a, b, w, v: a @ w.t(),  # linear's x @ W^T
        lambda a, b, w, v: a.t() @ a,  # a gradient's X^T @ G
        lambda a, b, w, v: a[:, 1:4] @ w[:, 1:4].t(),  # sliced rows
        lambda a, b, w, v: b @ w.t(),  # a batch times a matrix
        lambda a, b, w, v: b @ b.transpose(1, 2),  # batched, transposed
        lambda a, b, w, v: b[:1] @ b.transpose(1, 2),  # a batch of one, broadcast
        lambda a, b, w, v: a[:1].expand(3, 5) @ w.t(),  # an expanded operand
        lambda a, b, w, v: a.flip(0) @ w.t(),  # a flipped one
        lambda a, b, w, v: v @ a.t() + (a @ v) + (v[None] @ w.t()).sum(),  # vectors
        lambda a, b, w, v: a[:, :1] @ v[None, :1],  # k = 1
    ]
    a, b, w, v = both(3, 5), both(2, 3, 5), both(4, 5), both(5)
    for i, f in enumerate(cases):
        yc, yg = f(a[0], b[0], w[0], v[0]), f(a[1], b[1], w[1], v[1])
        tol = dict(rtol=1e-5, atol=1e-6) if dtype is nbgrad.float32 else dict(rtol=1e-12)
        np.testing.assert_allclose(host(yg), host(yc), err_msg=f"case {i}", **tol)
        seed = rng.standard_normal(tuple(yc.shape))
        gc = nbgrad.autograd.grad(yc, [a[0], b[0], w[0], v[0]], nbgrad.tensor(seed, dtype=dtype),
                                  allow_unused=True)
        gg = nbgrad.autograd.grad(yg, [a[1], b[1], w[1], v[1]],
                                  nbgrad.tensor(seed, dtype=dtype, device=DEV), allow_unused=True)
        for c, g in zip(gc, gg):
            assert (c is None) == (g is None)
            if c is not None:
                np.testing.assert_allclose(host(g), host(c), err_msg=f"case {i} grad", **tol)


def test_view_as_another_dtype_on_the_device_matches_cpu():
    a = np.arange(8, dtype=np.float32).reshape(2, 4) + 0.5
    for dt in (nbgrad.int32, nbgrad.int16, nbgrad.float64, nbgrad.uint8):
        c = nbgrad.tensor(a).view(dt)
        g = nbgrad.tensor(a, device=DEV).view(dt)
        assert g.device.type == "cuda" and g.dtype is c.dtype and g.shape == c.shape
        np.testing.assert_array_equal(host(g), host(c))
    x = nbgrad.tensor(a, device=DEV)
    x.view(nbgrad.int32).add_(1)  # the same memory
    np.testing.assert_array_equal(host(x), (nbgrad.tensor(a).view(nbgrad.int32) + 1)
                                  .view(nbgrad.float32).numpy())
