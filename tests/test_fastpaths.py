"""The op layer's shortcuts give the same results as the general path.

Elementwise ops take shortcuts for a tensor and a Python number, for expanded (stride-0)
operands, and for contiguous operands that broadcast; AccumulateGrad keeps a gradient no
one else holds instead of copying it. Each shortcut is checked against NumPy here.
"""

import numpy as np
import pytest

import nbgrad
from nbgrad.storage.layout import bcast3, unexpand

OPS = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide}
SHAPES = [
    ((3, 4), (4,)), ((3, 4), (3, 1)), ((2, 3, 4), (1, 3, 1)), ((2, 3, 4, 5), (1, 3, 1, 5)),
    ((2, 3, 4, 5), (2, 1, 4, 1)), ((2, 1, 4), (3, 1)), ((5,), ()), ((4, 1), (1, 5)),
    ((2, 3, 4, 5, 6), (3, 1, 5, 1)),  # five alternating dims: past 3, the general path
]


@pytest.mark.parametrize("op", sorted(OPS))
@pytest.mark.parametrize("sa,sb", SHAPES)
def test_broadcasting_contiguous_operands(op, sa, sb):
    rng = np.random.default_rng(0)
    a = rng.standard_normal(sa).astype(np.float32)
    b = rng.uniform(0.5, 2.0, sb).astype(np.float32)
    for x, y in ((a, b), (b, a)):
        got = getattr(nbgrad, op)(nbgrad.tensor(x), nbgrad.tensor(y))
        want = OPS[op](x, y)
        assert got.shape == want.shape and got.dtype == nbgrad.float32
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)


def _expanded(shape, full, rng):
    return nbgrad.tensor(rng.standard_normal(shape).astype(np.float64)).expand(*full)


@pytest.mark.parametrize("sa,sb", [((), ()), ((), (3, 4)), ((3, 1), (1, 4)), ((3, 1), (3, 1)),
                                   ((1, 4), ()), ((3, 4), (3, 1))])
@pytest.mark.parametrize("op", sorted(OPS))
def test_expanded_operands(op, sa, sb):
    rng = np.random.default_rng(1)
    a = _expanded(sa, (3, 4), rng)
    b = _expanded(sb, (3, 4), rng) if sb != (3, 4) else nbgrad.tensor(rng.random((3, 4)) + 0.5)
    for x, y in ((a, b), (b, a)):
        got = getattr(nbgrad, op)(x, y)
        np.testing.assert_allclose(got.numpy(), OPS[op](x.numpy(), y.numpy()), rtol=1e-12)
        assert got._data.flags.c_contiguous and got._data.strides != (0, 0)


def test_copy_of_an_expanded_tensor():
    base = nbgrad.tensor([[1.0], [2.0], [3.0]])
    e = base.expand(3, 5)
    c = e.contiguous()
    np.testing.assert_array_equal(c.numpy(), np.repeat([[1.0], [2.0], [3.0]], 5, axis=1))
    assert c._data.flags.c_contiguous
    c[0, 0] = 9.0  # a real copy: the base is untouched
    assert base[0, 0].item() == 1.0
    s = nbgrad.tensor(-0.0).expand(2, 3).contiguous()
    assert np.all(np.signbit(s.numpy()))


def test_unexpand_and_bcast3():
    x = np.broadcast_to(np.arange(3.0).reshape(3, 1), (3, 4))
    u = unexpand(x)
    assert u.shape == (3, 1) and np.shares_memory(u, x)
    shape3, views = bcast3((2, 3, 4, 5), (np.ones((2, 3, 4, 5)), np.ones((3, 1, 1))))
    assert shape3 == (2, 3, 20) and [v.shape for v in views] == [(2, 3, 20), (1, 3, 1)]
    assert bcast3((2, 3, 4, 5), (np.ones((2, 3, 4, 5)), np.ones((2, 1, 4, 1)))) is None


@pytest.mark.parametrize("dt", [nbgrad.float32, nbgrad.float64])
def test_number_operands_keep_the_tensor_dtype(dt):
    x = nbgrad.tensor([1.5, -2.0, 4.0], dtype=dt)
    for got, want in [(x * 2, [3.0, -4.0, 8.0]), (x + 0.25, [1.75, -1.75, 4.25]),
                      (1 - x, [-0.5, 3.0, -3.0]), (2 / x, [4 / 3, -1.0, 0.5]),
                      (x / 2, [0.75, -1.0, 2.0]), (x - 1, [0.5, -3.0, 3.0])]:
        assert got.dtype == dt
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)
    # an integer tensor with a float number still promotes to the default dtype
    i = nbgrad.tensor([1, 2])
    assert (i * 0.5).dtype == nbgrad.float32 and (i * 2).dtype == nbgrad.int64


def test_number_operand_gradients():
    x = nbgrad.tensor([1.0, 2.0], dtype=nbgrad.float64, requires_grad=True)
    ((3.0 - x) * 2.0 / 4 + x * x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [-0.5 + 2.0, -0.5 + 4.0])


def test_double_backward_through_expanded_gradients():
    # sum's backward hands on an expanded gradient; twice over both operands are expanded
    x = nbgrad.tensor([1.0, 2.0], dtype=nbgrad.float64, requires_grad=True)
    (g,) = nbgrad.autograd.grad((x * x * x).sum(), x, create_graph=True)
    (gg,) = nbgrad.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(gg.numpy(), [6.0, 12.0])


def test_accumulate_keeps_an_unshared_gradient(monkeypatch):
    from nbgrad.autograd import engine
    from nbgrad.ops import convert

    cloned = []
    real = convert.clone
    engine._bind_ops()  # (the engine binds its ops on first use)
    monkeypatch.setattr(engine, "_clone", lambda t, **kw: cloned.append(t.shape) or real(t, **kw))
    x = nbgrad.randn(1000)
    w = nbgrad.randn(1000, requires_grad=True)
    b = nbgrad.randn(1000, requires_grad=True)
    (nbgrad.tanh(x * w + b) * 2.0).sum().backward()
    # b's gradient is shared with the product's node (torch copies it too); w's is a fresh
    # result nobody else holds, so it becomes .grad as it is
    assert len(cloned) == 1
    want = 2.0 * (1 - np.tanh(x.numpy() * w.detach().numpy() + b.detach().numpy()) ** 2)
    np.testing.assert_allclose(b.grad.numpy(), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(w.grad.numpy(), want * x.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("op", sorted(OPS))
def test_expanded_operands_with_numbers(op):
    s = nbgrad.tensor(3.0, dtype=nbgrad.float64).expand(2, 3)
    r = nbgrad.tensor([[1.0], [2.0]], dtype=nbgrad.float64).expand(2, 3)
    for e in (s, r):
        for got, want in ((getattr(nbgrad, op)(e, 2.0), OPS[op](e.numpy(), 2.0)),
                          (getattr(nbgrad, op)(e, e), OPS[op](e.numpy(), e.numpy()))):
            np.testing.assert_allclose(got.numpy(), want, rtol=1e-15)
            assert got.shape == (2, 3) and got._data.flags.c_contiguous
            got[0, 0] = -7.0  # a whole result: writing one element changes only that one
            assert got[1, 2].item() == want[1, 2]


@pytest.mark.parametrize("dt", ["float32", "float64", "int64", "int32"])
@pytest.mark.parametrize("shape", [(7,), (3, 5), (2, 1, 3)])
def test_small_ops_call_compiled_loops_directly(dt, shape):
    # small contiguous operands skip Numba's dispatch: each dtype must get its own loop
    rng = np.random.default_rng(1)
    a = (rng.uniform(1, 9, shape)).astype(dt)
    b = (rng.uniform(1, 9, shape)).astype(dt)
    ta, tb = nbgrad.tensor(a), nbgrad.tensor(b)
    for op, ref in (("add", np.add), ("mul", np.multiply), ("sub", np.subtract)):
        got = getattr(nbgrad, op)(ta, tb)
        assert got.dtype == getattr(nbgrad, dt) and got.shape == shape
        np.testing.assert_array_equal(got.numpy(), ref(a, b))
        np.testing.assert_array_equal((ta + 3).numpy(), a + 3)
        np.testing.assert_array_equal((3 - ta).numpy(), 3 - a)
    if dt.startswith("float"):
        np.testing.assert_allclose(nbgrad.tanh(ta).numpy(), np.tanh(a), rtol=1e-6)
        np.testing.assert_allclose((ta * 0.5).numpy(), a * np.array(0.5, dt), rtol=0)


def test_small_ops_on_read_only_numpy_memory():
    a = np.arange(6, dtype=np.float32)
    a.flags.writeable = False
    with pytest.warns(UserWarning, match="The given NumPy array is not writable"):
        t = nbgrad.from_numpy(a)  # (as torch.from_numpy warns)
    np.testing.assert_array_equal((t * t).numpy(), a * a)
    np.testing.assert_allclose(nbgrad.exp(t).numpy(), np.exp(a), rtol=1e-6)
    np.testing.assert_array_equal((t - 1.0).numpy(), a - 1)


def test_chain_backward_runs_newest_first_through_a_fork():
    # the engine runs a just-readied node directly only when it is the newest ready one
    order = []
    x = nbgrad.tensor([1.0, 2.0], requires_grad=True)
    a = x * 2
    b = x * 3
    c = a.tanh()
    d = b.exp()
    for name, t in (("a", a), ("b", b), ("c", c), ("d", d)):
        t.grad_fn.register_prehook(lambda g, name=name: order.append(name))
    (c + d).sum().backward()
    assert order == ["d", "c", "b", "a"]
    want = 2 * (1 - np.tanh(2 * np.array([1.0, 2.0])) ** 2) + 3 * np.exp(3 * np.array([1.0, 2.0]))
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-6)


def _chain_grad_numpy(x0, n, c, d):
    """d(sum(chain))/dx for the +c, *d, tanh chain, by hand."""
    ys, y = [], x0
    for i in range(n):
        ys.append(y)
        y = (y + c, y * d, np.tanh(y))[i % 3]
    g = np.ones_like(x0)
    for i in reversed(range(n)):
        m = i % 3
        if m == 1:
            g = g * d
        elif m == 2:
            g = g * (1 - np.tanh(ys[i]) ** 2)
    return g


def test_backward_may_write_into_a_gradient_only_the_engine_holds():
    # the engine lends a private gradient to the next op of a node's backward rule
    rng = np.random.default_rng(3)
    x0, c = rng.standard_normal(16), 0.1 * rng.standard_normal(16)
    d = rng.uniform(0.9, 1.1, 16)
    x = nbgrad.tensor(x0, requires_grad=True)
    y = x
    tc, td = nbgrad.tensor(c), nbgrad.tensor(d)
    for i in range(30):
        y = (y + tc, y * td, nbgrad.tanh(y))[i % 3]
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), _chain_grad_numpy(x0, 30, c, d), rtol=1e-12)


def test_backward_leaves_gradients_others_hold_untouched():
    x = nbgrad.tensor([0.3, -0.7, 1.1], dtype=nbgrad.float64, requires_grad=True)
    seed = nbgrad.tensor([1.0, 2.0, 3.0], dtype=nbgrad.float64)
    seen = []
    h = x * 2.0
    h.register_hook(lambda g: seen.append(g))  # the hook keeps the gradient it saw
    t = nbgrad.tanh(h)
    e = nbgrad.exp(h)  # h's gradient arrives from two branches
    m = (t * 3.0) * nbgrad.tensor([1.0, 1.0, 1.0], dtype=nbgrad.float64)
    m.retain_grad()
    (m + e).backward(seed)
    s = np.array([1.0, 2.0, 3.0])
    hx = 2.0 * np.array([0.3, -0.7, 1.1])
    gh = s * 3.0 * (1 - np.tanh(hx) ** 2) + s * np.exp(hx)
    np.testing.assert_array_equal(seed.numpy(), s)  # the user's seed
    np.testing.assert_allclose(m.grad.numpy(), s)  # a retained gradient
    np.testing.assert_allclose(seen[0].numpy(), gh, rtol=1e-12)  # a hook's gradient
    np.testing.assert_allclose(x.grad.numpy(), 2.0 * gh, rtol=1e-12)
    old = x.grad.numpy().copy()
    nbgrad.tanh(x * 1.0).sum().backward()  # accumulates into x.grad, not into a lent one
    np.testing.assert_allclose(x.grad.numpy(), old + (1 - np.tanh(np.array([0.3, -0.7, 1.1])) ** 2))


def test_product_with_both_sides_requiring_grad_is_not_written_into():
    a0, b0 = np.array([0.5, -1.5, 2.0]), np.array([1.25, 0.75, -0.5])
    a = nbgrad.tensor(a0, requires_grad=True)
    b = nbgrad.tensor(b0, requires_grad=True)
    g = nbgrad.tanh(a * b)  # MulBackward0 uses its gradient twice
    (g * 1.0).sum().backward()
    dg = 1 - np.tanh(a0 * b0) ** 2
    np.testing.assert_allclose(a.grad.numpy(), dg * b0, rtol=1e-12)
    np.testing.assert_allclose(b.grad.numpy(), dg * a0, rtol=1e-12)


@pytest.mark.parametrize("op", sorted(OPS))
def test_one_value_expanded_against_a_contiguous_operand(op):
    rng = np.random.default_rng(4)
    a = rng.uniform(0.5, 2.0, (3, 4))
    s = nbgrad.tensor(1.75, dtype=nbgrad.float64).expand(3, 4)  # all strides 0
    t = nbgrad.tensor(a)
    for x, y, want in ((s, t, OPS[op](1.75, a)), (t, s, OPS[op](a, 1.75))):
        got = getattr(nbgrad, op)(x, y)
        assert got.shape == (3, 4) and got.dtype == nbgrad.float64 and got.is_contiguous()
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-15)


def test_small_op_results_set_every_tensor_slot():
    # every path of an op, the small-op one included, leaves no Tensor slot unset
    from nbgrad.tensor import Tensor, _wrap

    slots = [s for s in Tensor.__slots__ if s != "__weakref__"]
    x = nbgrad.tensor([1.0, 2.0], requires_grad=True)
    ref = _wrap(np.zeros(2, np.float32), nbgrad.float32, x.device)
    for t in (x * x, nbgrad.tanh(x), x.detach() + x.detach(), nbgrad.exp(x.detach())):
        for s in slots:
            getattr(t, s)  # AttributeError for a slot left unset
        for s in ("_grad", "_output_nr", "_vc", "_base", "_hooks", "_acc", "_retains_grad"):
            assert getattr(t, s) == getattr(ref, s), s
        assert t._rg == (t._grad_fn is not None)


def test_lent_gradients_on_pooled_buffers():
    # big gradients live in the CPU buffer pool; the engine lends them too
    n = 300_000  # float64: 2.4 MB per array, pooled
    rng = np.random.default_rng(5)
    x0, w0, b0 = (rng.standard_normal(n) for _ in range(3))
    x = nbgrad.tensor(x0)
    w = nbgrad.tensor(w0, requires_grad=True)
    b = nbgrad.tensor(b0, requires_grad=True)
    for _ in range(2):  # the second pass reuses pooled buffers
        w.grad = b.grad = None
        loss = (nbgrad.tanh(x * w + b) * nbgrad.sigmoid(x) + nbgrad.exp(-x * x)).sum()
        loss.backward()
        gb = (1 - np.tanh(x0 * w0 + b0) ** 2) / (1 + np.exp(-x0))
        np.testing.assert_allclose(b.grad.numpy(), gb, rtol=1e-9, atol=1e-15)
        np.testing.assert_allclose(w.grad.numpy(), gb * x0, rtol=1e-9, atol=1e-15)
    held = []
    t = nbgrad.tanh(x * w + b)
    t.register_hook(lambda g: held.append(g))
    (t * 2.0).sum().backward()
    np.testing.assert_array_equal(held[0].numpy(), np.full(n, 2.0))  # not written into
    seed = nbgrad.tensor(rng.standard_normal(n)) * 1.0  # a pooled result the caller holds
    before = seed.numpy().copy()
    w.grad = None
    nbgrad.tanh(x * w + b).backward(seed)
    np.testing.assert_array_equal(seed.numpy(), before)
    np.testing.assert_allclose(w.grad.numpy(), before * (1 - np.tanh(x0 * w0 + b0) ** 2) * x0,
                               rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("bshape", [(4, 3), (4,)])
@pytest.mark.parametrize("transposed", [False, True])
def test_cpu_matmul_fast_path(bshape, transposed):
    rng = np.random.default_rng(6)
    a0 = rng.standard_normal((4, 5) if transposed else (5, 4))
    b0 = rng.standard_normal(bshape)
    a = nbgrad.tensor(a0, requires_grad=True)
    b = nbgrad.tensor(b0, requires_grad=True)
    am, an = (a.T, a0.T) if transposed else (a, a0)  # a strided view goes to BLAS as is
    out = am @ b
    assert out.grad_fn.name() == ("MmBackward0" if len(bshape) == 2 else "MvBackward0")
    np.testing.assert_allclose(out.detach().numpy(), an @ b0, rtol=1e-12)
    g0 = rng.standard_normal(out.shape)
    out.backward(nbgrad.tensor(g0))
    ga = np.outer(g0, b0) if len(bshape) == 1 else g0 @ b0.T
    np.testing.assert_allclose(a.grad.numpy(), ga.T if transposed else ga, rtol=1e-12)
    gb = an.T @ g0
    np.testing.assert_allclose(b.grad.numpy(), gb, rtol=1e-12)
    with pytest.raises(RuntimeError, match="cannot be multiplied"):
        nbgrad.ones(2, 3) @ nbgrad.ones(4, 2)
    with pytest.raises(RuntimeError, match="same dtype"):
        nbgrad.ones(2, 3) @ nbgrad.ones(3, 2, dtype=nbgrad.float64)


def test_small_keys_follow_the_storage():
    from nbgrad.ops._core import SMALL_N, small_key

    t = nbgrad.tensor([1.0, 2.0, 3.0])
    np.testing.assert_array_equal((t * t).numpy(), [1.0, 4.0, 9.0])
    assert t._sk.shape == (3,) and t._sk.dt is nbgrad.float32
    t.data = nbgrad.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=nbgrad.float64)  # new storage
    got = t * t
    assert got.shape == (2, 2) and got.dtype == nbgrad.float64
    np.testing.assert_array_equal(got.numpy(), [[1.0, 4.0], [9.0, 16.0]])
    # equal keys are one object; empty, big or strided storage has none
    assert small_key(nbgrad.zeros(3)) is small_key(nbgrad.ones(3))
    assert small_key(nbgrad.zeros(3, dtype=nbgrad.float64)) is not small_key(nbgrad.zeros(3))
    assert small_key(nbgrad.zeros(0)) is False
    assert small_key(nbgrad.zeros(SMALL_N)) is False
    assert small_key(nbgrad.zeros(4, 3).t()) is False
    s = nbgrad.tensor(np.arange(12.0).reshape(4, 3)).t()
    np.testing.assert_array_equal((s * s).numpy(), np.arange(12.0).reshape(4, 3).T ** 2)


def test_numpy_arrays_reshaped_in_place_leave_the_tensor_alone():
    t = nbgrad.tensor(np.arange(16.0))
    t + t
    a = t.numpy()
    a.shape = (4, 4)
    assert t.shape == (16,) and (t + t).shape == (16,)
    a[0, 1] = 7.0  # still the same memory
    assert t[1].item() == 7.0
    b = np.arange(6.0)
    u = nbgrad.from_numpy(b)
    b.shape = (2, 3)
    assert u.shape == (6,) and (u * u).shape == (6,)
    b[1, 0] = -1.0
    assert u[3].item() == -1.0


def _grads_by_rules(make, x0):
    """x's gradient through the backward rules themselves (create_graph takes them)."""
    x = nbgrad.tensor(x0, requires_grad=True)
    (g,) = nbgrad.autograd.grad(make(x).sum(), x, create_graph=True)
    return g.detach().numpy()


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("op", ["tanh", "sigmoid", "exp", "mul", "rmul"])
def test_fast_backward_matches_the_rules(op, dt):
    rng = np.random.default_rng(5)
    x0 = rng.uniform(-1.0, 1.0, (3, 5)).astype(dt)
    d = nbgrad.tensor(rng.uniform(0.5, 1.5, (3, 5)).astype(dt))
    step = {"tanh": nbgrad.tanh, "sigmoid": nbgrad.sigmoid, "exp": nbgrad.exp,
            "mul": lambda y: y * d, "rmul": lambda y: d * y}[op]

    def make(x):
        y = x
        for _ in range(4):
            y = step(y) * 1.0  # the number product keeps each node's gradient private
        return y

    x = nbgrad.tensor(x0, requires_grad=True)
    make(x).sum().backward()
    assert x.grad.dtype == x.dtype and x.grad.shape == (3, 5)
    np.testing.assert_array_equal(x.grad.numpy(), _grads_by_rules(make, x0))
    y = make(x)
    y.backward(nbgrad.ones(3, 5, dtype=x.dtype), retain_graph=True)  # a seed the user holds
    y.backward(nbgrad.ones(3, 5, dtype=x.dtype))
    np.testing.assert_array_equal(x.grad.numpy(), 3 * _grads_by_rules(make, x0))


def test_fast_backward_still_checks_saved_tensors():
    x = nbgrad.tensor([0.5, -0.25, 1.0], requires_grad=True)
    y = nbgrad.tanh(x * 1.0)
    y.add_(1.0)  # the output tanh saved
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        (y * 1.0).sum().backward()  # (a contiguous gradient reaches tanh's node)
    d = nbgrad.tensor([2.0, 3.0, 4.0])
    z = (x * 1.0) * d
    d.mul_(2.0)  # the input the product saved
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        (z * 1.0).sum().backward()
    w = nbgrad.exp(x * 1.0) * 1.0
    w.sum().backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        w.sum().backward()


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(1,), (7,), (3, 5), (2, 300)])
def test_small_whole_sums_match_the_general_kernel(dt, shape):
    rng = np.random.default_rng(6)
    a = (rng.standard_normal(shape) * 1e3).astype(dt)
    t = nbgrad.tensor(a)
    got = t.sum()
    general = t.sum(dim=tuple(range(len(shape))))  # the (A, R, B) kernel
    assert got.shape == () and got.dtype == t.dtype
    assert got.item() == general.item()  # the same blocks, in the same order
    np.testing.assert_allclose(got.item(), a.astype(np.float64).sum(), rtol=1e-6)
    x = nbgrad.tensor(a, requires_grad=True)
    x.sum().backward()
    assert x.grad.dtype == x.dtype
    np.testing.assert_array_equal(x.grad.numpy(), np.ones(shape))
    # not the fast path: keepdim, a dtype, integers, a strided view
    assert t.sum(keepdim=True).shape == (1,) * len(shape)
    assert t.sum(dtype=nbgrad.float64).dtype == nbgrad.float64
    assert nbgrad.tensor(np.arange(5)).sum().item() == 10
    if len(shape) == 2:
        assert t.t().sum().item() == general.item() or np.isclose(
            t.t().sum().item(), general.item(), rtol=1e-6)


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "rsub", "rdiv"])
def test_numbers_with_one_value_expanded(op):
    s = nbgrad.tensor(1.75, dtype=nbgrad.float64).expand(3, 4)  # all strides 0
    f = {"add": lambda t: t + 2.5, "sub": lambda t: t - 2.5, "mul": lambda t: t * 2.5,
         "div": lambda t: t / 2.5, "rsub": lambda t: 2.5 - t, "rdiv": lambda t: 2.5 / t}[op]
    got = f(s)
    assert got.shape == (3, 4) and got.dtype == nbgrad.float64 and got.is_contiguous()
    # number / t is PyTorch's reciprocal(t) * number (a last bit off number / t)
    ref = (1 / np.full((3, 4), 1.75)) * 2.5 if op == "rdiv" else f(np.full((3, 4), 1.75))
    np.testing.assert_array_equal(got.numpy(), ref)


def test_accumulating_small_gradients():
    x = nbgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    for k in range(1, 4):
        (x * 2.0).sum().backward()  # clone on the first pass, in place after
        np.testing.assert_array_equal(x.grad.numpy(), [2.0 * k] * 3)
    g = x.grad
    (x * x).sum().backward()
    assert x.grad is g and x.grad._version == 3  # accumulated in place, version bumped
    np.testing.assert_array_equal(x.grad.numpy(), [8.0, 10.0, 12.0])
    c = nbgrad.tensor([4.0, 5.0]).clone()
    assert c.is_contiguous() and c.dtype == nbgrad.float32
    np.testing.assert_array_equal(c.numpy(), [4.0, 5.0])


def test_scalar_loss_gradient_expands_without_copies():
    x = nbgrad.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    (g,) = nbgrad.autograd.grad(x.sum(), x, create_graph=True)
    assert g.shape == (2, 3) and g.stride() == (0, 0)
    (gg,) = nbgrad.autograd.grad((g * x).sum(), x)
    np.testing.assert_array_equal(gg.numpy(), np.ones((2, 3)))
    m = nbgrad.tensor(np.arange(4.0), requires_grad=True)
    m.mean().backward()
    np.testing.assert_array_equal(m.grad.numpy(), [0.25] * 4)


def test_gradients_on_caller_memory_are_copied_before_accumulating():
    buf = np.ones(3, np.float32)
    x = nbgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x.register_hook(lambda g: nbgrad.from_numpy(buf))  # the gradient becomes buf's memory
    for k in (1, 2):
        (x * 2.0).sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), [k] * 3)
    np.testing.assert_array_equal(buf, [1.0, 1.0, 1.0])  # accumulated into a copy
    kept = []
    y = nbgrad.tensor([0.5, 1.5], requires_grad=True)
    h = y * 3.0
    h.register_hook(lambda g: kept.append(g.numpy()))  # a view of the gradient's array
    (nbgrad.tanh(h) + nbgrad.exp(h)).sum().backward()
    np.testing.assert_array_equal(kept[0], 1 - np.tanh(np.float32([1.5, 4.5])) ** 2
                                  + np.exp(np.float32([1.5, 4.5])))


def test_elementwise_nodes_are_built_without_init():
    # the table's generated nodes are made attribute by attribute (_core._attach_plain)
    from nbgrad.autograd.graph import Node
    from nbgrad.ops import elementwise
    from nbgrad.ops.opdef import TABLE

    classes = [op.node for op in TABLE.values() if op.node is not None]
    classes += [c for c in vars(elementwise).values()
                if isinstance(c, type) and issubclass(c, Node) and c.__module__ == elementwise.__name__]
    assert len(classes) > 20
    for c in classes:
        assert c._plain_init, c.__name__


@pytest.mark.parametrize("n", [6, 200_000])  # the small-key path and the pooled kernels
def test_fused_square_and_tanh_second_derivative_steps(n):
    # x ** 2's backward is one kernel g * 2x, and tanh's second derivative step one kernel
    # g * -2y; both must equal the products they replace, to the bit
    from nbgrad.ops.elementwise import neg_twice_mul, twice_mul

    rng = np.random.default_rng(8)
    for dt in (np.float32, np.float64):
        g = nbgrad.tensor(rng.standard_normal(n).astype(dt))
        a = nbgrad.tensor(rng.standard_normal(n).astype(dt))
        np.testing.assert_array_equal(twice_mul(g, a).numpy(), (g * (a * 2.0)).numpy())
        np.testing.assert_array_equal(neg_twice_mul(g, a).numpy(), (g * (a * -2.0)).numpy())
        one = nbgrad.tensor(1.5, dtype=g.dtype).expand(n)  # sum's gradient, all strides 0
        np.testing.assert_array_equal(twice_mul(one, a).numpy(), (a * 2.0 * 1.5).numpy())
        x = nbgrad.tensor(a.numpy(), requires_grad=True)
        (gx,) = nbgrad.autograd.grad((x ** 2).sum(), x, create_graph=True)
        np.testing.assert_array_equal(gx.detach().numpy(), (a * 2.0).numpy())
        (hx,) = nbgrad.autograd.grad(gx, x, grad_outputs=g)
        np.testing.assert_array_equal(hx.numpy(), (g * 2.0).numpy())


def test_fused_steps_differentiate_to_third_order():
    from nbgrad.autograd import gradcheck, gradgradcheck

    rng = np.random.default_rng(9)
    x = nbgrad.tensor(rng.uniform(-1, 1, 5), requires_grad=True)
    v = nbgrad.tensor(rng.uniform(-1, 1, 5), requires_grad=True)
    for f in (lambda t: t ** 2, lambda t: nbgrad.tanh(t), lambda t: nbgrad.tanh(t) ** 2):
        def g1(t, u, f=f):
            (g,) = nbgrad.autograd.grad(f(t), t, grad_outputs=u, create_graph=True)
            return g

        def g2(t, u, f=f):  # a Hessian-vector product: its gradient is a third derivative
            (g,) = nbgrad.autograd.grad(f(t).sum(), t, create_graph=True)
            (h,) = nbgrad.autograd.grad(g, t, grad_outputs=u, create_graph=True)
            return h

        assert gradcheck(g1, (x, v)) and gradgradcheck(g1, (x, v))
        assert gradcheck(g2, (x, v))
    # the two sides' gradients of each fused step, against their closed forms
    from nbgrad.ops.elementwise import neg_twice_mul, twice_mul

    a = nbgrad.tensor(rng.uniform(-1, 1, 5), requires_grad=True)
    b = nbgrad.tensor(rng.uniform(-1, 1, 5), requires_grad=True)
    for op, c in ((twice_mul, 2.0), (neg_twice_mul, -2.0)):
        ga, gb = nbgrad.autograd.grad(op(a, b).sum(), (a, b))
        np.testing.assert_allclose(ga.numpy(), c * b.detach().numpy(), rtol=1e-15)
        np.testing.assert_allclose(gb.numpy(), c * a.detach().numpy(), rtol=1e-15)


def test_vector_matrix_products_take_blas_directly():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(10)
    v0 = rng.standard_normal(7).astype(np.float32)
    m0 = rng.standard_normal((7, 4)).astype(np.float32)
    v = nbgrad.tensor(v0, requires_grad=True)
    m = nbgrad.tensor(m0, requires_grad=True)
    out = v @ m
    assert out.shape == (4,) and out.dtype == nbgrad.float32
    np.testing.assert_array_equal(out.detach().numpy(), v0 @ m0)
    # the matrix-vector product's backward asks for g @ A: A.T @ g, bit for bit
    np.testing.assert_array_equal(out.detach().numpy(), (m0.T @ v0))
    out.backward(nbgrad.tensor([1.0, -2.0, 0.5, 3.0]))
    tv = torch.tensor(v0, requires_grad=True)
    tm = torch.tensor(m0, requires_grad=True)
    (tv @ tm).backward(torch.tensor([1.0, -2.0, 0.5, 3.0]))
    np.testing.assert_allclose(v.grad.numpy(), tv.grad.numpy(), rtol=1e-6)
    np.testing.assert_allclose(m.grad.numpy(), tm.grad.numpy(), rtol=1e-6)
    with pytest.raises(RuntimeError, match="cannot be multiplied|size mismatch|shapes"):
        nbgrad.randn(3) @ nbgrad.randn(4, 2)
    with pytest.raises(RuntimeError, match="dtype"):
        nbgrad.randn(4) @ nbgrad.randn(4, 2, dtype=nbgrad.float64)


def _table_nodes():
    from nbgrad.ops.opdef import TABLE

    return [op for op in TABLE.values() if op.node is not None]


def test_generated_run_matches_the_rule_on_unpacked_saved_values():
    # the engine calls a table row's node through _run (saved values unpacked inline);
    # it must give what the node's backward gives on unpack_saved(), bit for bit
    from nbgrad.autograd.grad_mode import STATE

    rng = np.random.default_rng(7)
    checked = 0
    for op in _table_nodes():
        a = nbgrad.tensor(rng.uniform(0.5, 1.5, (3, 4)), requires_grad=True)
        b = nbgrad.tensor(rng.uniform(0.5, 1.5, (3, 4)), requires_grad=True)
        if op.arity == 2 and "not_implemented" in (op.grads[0] or ""):
            a = a.detach()  # (an input PyTorch gives no derivative: zeta's, igamma's)
        try:
            out = op(a) if op.arity == 1 else op(a, b)
        except (RuntimeError, TypeError):
            continue  # a row that refuses floats
        node = out.grad_fn
        if node is None or type(node).__name__ == "NotImplemented":
            continue  # (no node, or one whose backward raises: floor_divide's)
        assert node._gen, op.name
        g = nbgrad.tensor(rng.uniform(0.5, 1.5, (3, 4)))
        prev = STATE.enabled
        STATE.enabled = False
        try:
            got = node._run(g, False)
            want = node.backward(node.unpack_saved(), g)
            # lent: the rule may write into its own copy of the gradient, same values
            lent = node._run(g * 1.0, True)
            assert STATE.owned is None, op.name
        finally:
            STATE.enabled = prev
        assert got.__class__ is tuple and len(got) == len(node.next_functions), op.name
        for x, y, z in zip(got, want, lent):
            if y is None:  # an operand the row gives no gradient (pow's number side)
                assert x is None and z is None, op.name
                continue
            np.testing.assert_array_equal(x.numpy(), y.numpy(), err_msg=op.name)
            np.testing.assert_array_equal(z.numpy(), y.numpy(), err_msg=op.name)
        checked += 1
    assert checked >= 20


def test_generated_run_checks_the_saved_output_version():
    x = nbgrad.tensor([0.5, -0.25, 1.0], requires_grad=True)
    y = nbgrad.sigmoid(x)
    node = y.grad_fn
    y.mul_(2.0)  # the output the node saved
    with pytest.raises(RuntimeError, match="is at version 1; expected version 0 instead"):
        node._run(nbgrad.ones(3, dtype=nbgrad.float32), False)


def test_a_subclass_of_a_generated_node_runs_its_own_backward():
    # only the generated class itself takes the engine's _run call; a subclass that
    # overrides backward is a hand-written rule again
    x = nbgrad.tensor([1.0, 2.0], requires_grad=True)
    cls = type(nbgrad.exp(x).grad_fn)

    class Twice(cls):
        __slots__ = ()

        def backward(self, saved, grad):
            return (grad * 2.0,)

    assert cls._gen and not Twice._gen
    y = nbgrad.exp(x)
    y.grad_fn.__class__ = Twice
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0])
