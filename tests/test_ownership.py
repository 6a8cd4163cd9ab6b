"""The backward engine writes into a gradient, or keeps it as ``.grad`` without a copy, only
when nobody else can see its memory (autograd/engine.py, "Ownership").

Each test sets up a gradient that someone else holds (a seed, a hook's copy, a view, a
NumPy array, a saved tensor, a custom Function's result, a tensor handed to two edges) and
reaches a rule that would write into it (exp, tanh, mul: ``_grad_once`` rules) or a leaf
that would keep it: an engine that lent or kept it regardless would change a value the test
then checks.
"""

import numpy as np
import pytest

import nbgrad
from nbgrad.autograd.graph import OWNER

A = np.array([0.5, -1.0, 2.0, 0.25], np.float32)
SEED = np.array([1.0, 2.0, 3.0, 4.0], np.float32)


def _x():
    return nbgrad.tensor(A.copy(), requires_grad=True)


def test_a_user_seed_is_never_written_into():
    x = _x()
    seed = nbgrad.tensor(SEED)
    x.exp().backward(seed)  # exp's rule writes into a gradient lent to it
    np.testing.assert_array_equal(seed.numpy(), SEED)
    np.testing.assert_allclose(x.grad.numpy(), SEED * np.exp(A), rtol=1e-6)


def test_x_grad_never_aliases_a_user_seed():
    x = _x()
    seed = nbgrad.tensor(SEED)
    y = x.clone()  # its rule hands the seed on unchanged
    y.backward(seed)
    assert not np.shares_memory(x.grad.numpy(), seed.numpy())
    y2 = x.clone()
    y2.backward(seed)  # accumulates into x.grad in place
    np.testing.assert_array_equal(seed.numpy(), SEED)
    np.testing.assert_array_equal(x.grad.numpy(), 2 * SEED)


def test_a_from_numpy_seed_and_its_array_stay_untouched():
    arr = SEED.copy()
    x = _x()
    y = x * 1.0
    y.backward(nbgrad.from_numpy(arr))
    x.exp().backward(nbgrad.from_numpy(arr))  # into x.grad, in place
    np.testing.assert_array_equal(arr, SEED)
    np.testing.assert_allclose(x.grad.numpy(), SEED + SEED * np.exp(A), rtol=1e-6)


def test_a_view_of_a_seed_is_not_written_into():
    x = nbgrad.tensor(A.reshape(2, 2).copy(), requires_grad=True)
    seed = nbgrad.tensor(SEED)
    x.exp().reshape(4).backward(seed)  # reshape's rule passes a view of the seed to exp's
    np.testing.assert_array_equal(seed.numpy(), SEED)
    np.testing.assert_allclose(x.grad.numpy().ravel(), SEED * np.exp(A), rtol=1e-6)


def test_a_gradient_a_hook_kept_is_not_written_into():
    x = _x()
    c = nbgrad.tensor(SEED)
    kept = []
    h = x.exp() + 1.0  # add's rule hands the gradient on to exp's, which may write into it
    h.register_hook(lambda g: kept.append(g))
    (h * c).sum().backward()  # h's gradient: c * 1, freshly made by mul's rule
    np.testing.assert_array_equal(kept[0].numpy(), SEED)
    np.testing.assert_allclose(x.grad.numpy(), SEED * np.exp(A), rtol=1e-6)


def test_a_tensor_a_hook_returns_and_keeps_is_not_written_into():
    x = _x()
    kept = []

    def hook(g):
        r = g * 2.0
        kept.append(r)
        return r

    h = x.tanh() + 1.0
    h.register_hook(hook)
    (h * nbgrad.tensor(SEED)).sum().backward()
    np.testing.assert_array_equal(kept[0].numpy(), 2 * SEED)
    np.testing.assert_allclose(x.grad.numpy(), 2 * SEED * (1 - np.tanh(A) ** 2), rtol=1e-5)


def test_a_leaf_hook_kept_gradient_is_not_kept_as_grad():
    x = _x()
    kept = []
    x.register_hook(lambda g: kept.append(g))
    (x * nbgrad.tensor(SEED)).sum().backward()
    (x * nbgrad.tensor(SEED)).sum().backward()  # accumulates into x.grad in place
    np.testing.assert_array_equal(kept[0].numpy(), SEED)
    np.testing.assert_array_equal(x.grad.numpy(), 2 * SEED)


def test_a_retained_grad_is_not_written_into():
    x = _x()
    h = x.exp() + 1.0
    h.retain_grad()
    (h * nbgrad.tensor(SEED)).sum().backward(retain_graph=True)
    np.testing.assert_array_equal(h.grad.numpy(), SEED)
    (h * nbgrad.tensor(SEED)).sum().backward()  # adds into h.grad
    np.testing.assert_array_equal(h.grad.numpy(), 2 * SEED)
    np.testing.assert_allclose(x.grad.numpy(), 2 * SEED * np.exp(A), rtol=1e-6)


def test_a_captured_gradient_is_not_written_into():
    x = _x()
    h = x.exp() + 1.0  # h's gradient goes on to exp's rule too
    loss = (h * nbgrad.tensor(SEED)).sum()
    gh, gx = nbgrad.autograd.grad(loss, [h, x])
    np.testing.assert_array_equal(gh.numpy(), SEED)
    np.testing.assert_allclose(gx.numpy(), SEED * np.exp(A), rtol=1e-6)


def test_a_seed_that_is_also_saved_is_not_written_into():
    x = _x()
    s = nbgrad.tensor(SEED)
    u = x.exp()
    t = x * s  # saves s for x's gradient
    nbgrad.autograd.backward([u, t], [s, nbgrad.ones(4)])
    np.testing.assert_allclose(x.grad.numpy(), SEED * np.exp(A) + SEED, rtol=1e-6)
    np.testing.assert_array_equal(s.numpy(), SEED)


def test_a_gradient_handed_to_two_edges_is_not_written_into():
    x = _x()
    y = x.exp() + (x * 3.0).tanh()  # add's rule returns one tensor for both
    (y * nbgrad.tensor(SEED)).sum().backward()
    want = SEED * np.exp(A) + SEED * 3 * (1 - np.tanh(3 * A) ** 2)
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-5)


class _Stash(nbgrad.autograd.Function):
    kept = []

    @staticmethod
    def forward(ctx, x):
        return x * 1.0

    @staticmethod
    def backward(ctx, g):
        r = g * 2.0
        _Stash.kept.append(r)
        return r


def test_a_custom_functions_result_is_neither_written_into_nor_kept():
    _Stash.kept.clear()
    x = _x()
    _Stash.apply(x.exp()).sum().backward()  # exp's rule gets the Function's result
    _Stash.apply(x).sum().backward()  # x.grad (then added into) gets it
    np.testing.assert_array_equal(_Stash.kept[0].numpy(), np.full(4, 2.0, np.float32))
    np.testing.assert_array_equal(_Stash.kept[1].numpy(), np.full(4, 2.0, np.float32))
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.exp(A) + 2, rtol=1e-6)


def test_a_defop_rules_result_is_not_written_into():
    kept = []

    def rule(g, x, out):
        r = g * 3.0
        kept.append(r)
        return r

    from numba import njit

    from nbgrad.library import defop

    @njit(cache=False)
    def cpu(x, out):
        for i in range(x.shape[0]):
            out[i] = x[i] * 3.0

    triple = defop("own_test_triple", shape=lambda x: (x.shape, x.dtype), cpu=cpu,
                   backward=rule, flat=True)
    x = _x()
    triple(x.exp()).sum().backward()
    np.testing.assert_array_equal(kept[0].numpy(), np.full(4, 3.0, np.float32))
    np.testing.assert_allclose(x.grad.numpy(), 3 * np.exp(A), rtol=1e-6)


def test_the_engine_keeps_its_own_gradient_without_a_copy(monkeypatch):
    # the other side: a gradient only the engine has seen (mul's rule made it) becomes
    # .grad as it is, and no stamp survives the run
    from nbgrad.autograd import engine

    engine._bind_ops()
    copies = []
    clone = engine._clone
    monkeypatch.setattr(engine, "_clone", lambda g: copies.append(g) or clone(g))
    x = _x()
    (x * nbgrad.tensor(SEED)).sum().backward()
    assert copies == [] and x.grad._owner is None
    assert OWNER is None and nbgrad.autograd.graph.OWNER is None
    x.grad = None
    seed = nbgrad.tensor(SEED)
    x.clone().backward(seed)  # the user's seed: copied
    assert len(copies) == 1 and copies[0] is seed


@pytest.mark.parametrize("create_graph", [False, True])
def test_gradients_match_torch_through_lent_chains(create_graph):
    torch = pytest.importorskip("torch")
    a = np.linspace(-1, 1, 12).astype(np.float64)

    def run(lib):
        x = lib.tensor(a.copy(), requires_grad=True)
        y = x
        for i in range(6):
            y = (y * 1.5).tanh() + y.exp() * 0.1 if i % 2 else (y + 0.5).sigmoid() * y
        y.sum().backward(create_graph=create_graph)
        return x.grad.detach().numpy()

    np.testing.assert_allclose(run(nbgrad), run(torch), rtol=1e-12)


def test_no_token_is_left_behind_when_runs_in_two_threads_end_out_of_order():
    # thread A's run starts, then B's; A ends first, then B: no run is active, so no token
    # may stay (a stale one would stamp every later op's result)
    import threading

    from nbgrad.autograd import graph

    a_started, b_started, a_done = threading.Event(), threading.Event(), threading.Event()

    def hook_a(g):
        a_started.set()
        b_started.wait(10)
        return g

    def hook_b(g):
        b_started.set()
        a_done.wait(10)
        return g

    def run(hook, done=None):
        x = nbgrad.ones(4, requires_grad=True)
        y = x * 2.0
        y.register_hook(hook)
        y.sum().backward()
        if done is not None:
            done.set()

    ta = threading.Thread(target=run, args=(hook_a, a_done))
    tb = threading.Thread(target=lambda: (a_started.wait(10), run(hook_b)))
    ta.start()
    tb.start()
    ta.join(20)
    tb.join(20)
    assert graph.OWNER is None and graph._runs == []


def _chain(x, c, d, n=30):
    y = x
    for i in range(n):
        y = (y * d) if i % 3 == 0 else (nbgrad.tanh(y) if i % 3 == 1 else y / c)
    return y.sum()


def test_lent_in_place_rule_matches_the_formulas_bit_for_bit():
    # a node whose one needed gradient is ``op(grad, saved)`` runs op's in-place plan on the
    # lent gradient (ops/nodegen._lent_source); with create_graph the formulas run instead
    c = nbgrad.tensor(np.array([1.5, 0.75, 2.0, 1.25], np.float32))
    d = nbgrad.tensor(np.array([0.9, 1.1, -0.8, 1.05], np.float32))
    grads = []
    for create_graph in (False, True, False):
        x = _x()
        _chain(x, c, d).backward(create_graph=create_graph)
        grads.append(x.grad.detach().numpy().copy())
    np.testing.assert_array_equal(grads[0], grads[1])
    np.testing.assert_array_equal(grads[2], grads[1])


def test_lent_in_place_rule_runs_for_a_saved_output_and_returns_the_lent_buffer():
    from nbgrad.autograd.grad_mode import STATE

    x = _x()
    y = x.tanh()
    y.backward(nbgrad.ones(4), retain_graph=True)  # builds tanh_backward's plan
    g = nbgrad.tensor(SEED) * 1.0  # a fresh buffer, as the engine's own
    with nbgrad.no_grad():  # as the engine runs a rule when it builds no graph
        out = y.grad_fn._run(g, True)  # lent: nothing goes through the thread-local state
    assert STATE.owned is None
    assert out[0] is g
    np.testing.assert_allclose(g.numpy(), SEED * (1 - np.tanh(A) ** 2), rtol=1e-6)


def test_lent_in_place_rule_still_refuses_a_saved_tensor_modified_in_place():
    x = _x()
    d = nbgrad.tensor(np.array([0.9, 1.1, -0.8, 1.05], np.float32))
    y = (x * d).tanh()
    z = x * 1.0
    z.exp().sum()  # warm plans
    out = nbgrad.tanh(x)
    out.mul_(2.0)  # tanh's saved output changed
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        (out.sum() + y.sum()).backward()
