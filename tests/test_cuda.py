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


def pair(*shape, dtype=nbgrad.float64, low=None):
    """The same random values as a CPU and a CUDA leaf tensor."""
    a = np.random.default_rng(sum(shape) + len(shape)).standard_normal(shape)
    if low is not None:
        a = np.abs(a) + low
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
    "setitem": (lambda a: _setitem(a), [(3, 4)]),
}


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
    from nbgrad.ops.registry import backend, registered_ops

    backend(nbgrad.device("cpu"))
    backend(nbgrad.device("cuda"))  # importing a backend registers its kernels
    ops = registered_ops()
    missing = sorted(n for n, devs in ops.items() if "cuda" not in devs)
    assert not missing, f"ops registered for the CPU without a CUDA kernel: {missing}"
    assert len(ops) > 40
