"""``Tensor.register_post_accumulate_grad_hook`` against PyTorch: when it runs (after the
leaf's ``.grad`` was accumulated, only where backward accumulates), what it sees, grad
mode inside it, removal, and PyTorch's errors; the optimizer-in-backward idiom."""

import numpy as np
import pytest

import nbgrad
from tests._errors import assert_same_error

torch = pytest.importorskip("torch")


def _trace(m):
    w = m.zeros(3, requires_grad=True)
    calls = []
    h = w.register_post_accumulate_grad_hook(
        lambda p: calls.append((p is w, p.grad.tolist(), m.is_grad_enabled())))
    w.register_hook(lambda g: calls.append("pre"))
    (w * 2).sum().backward()
    m.autograd.grad((w * 3).sum(), w)  # accumulates nothing: no post hook
    (w * 3).sum().backward(create_graph=True)  # grad mode on inside
    w.grad = None
    (w * 3).sum().backward(inputs=[w])
    h.remove()
    (w * 3).sum().backward()
    y = m.ones(3, requires_grad=True)
    (w * y).sum().backward(inputs=[y])  # w accumulates nothing: no post hook
    return calls


def test_post_accumulate_hooks_run_as_torch():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (torch's create_graph=True warning)
        assert _trace(nbgrad) == _trace(torch)


def test_optimizer_in_backward():
    res = []
    for m in (nbgrad, torch):
        m.manual_seed(0)
        lin = m.nn.Linear(4, 2)
        opts = {p: m.optim.SGD([p], lr=0.1) for p in lin.parameters()}

        def step(p):
            opts[p].step()
            opts[p].zero_grad()

        for p in lin.parameters():
            p.register_post_accumulate_grad_hook(step)
        x = m.tensor(np.arange(8.0, dtype=np.float32).reshape(2, 4))
        for _ in range(3):
            lin(x).pow(2).sum().backward()
        res.append([p.detach().numpy().copy() for p in lin.parameters()]
                   + [p.grad for p in lin.parameters()])
    for a, b in zip(res[0][:2], res[1][:2]):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    assert res[0][2:] == [None, None] == res[1][2:]


@pytest.mark.parametrize("call", [
    lambda m: m.zeros(2).register_post_accumulate_grad_hook(print),
    lambda m: (m.zeros(2, requires_grad=True) * 2).register_post_accumulate_grad_hook(print),
])
def test_registration_errors_match_torch(call):
    assert_same_error(call, torch, nbgrad)


def test_a_hook_must_return_none():
    def run(m):
        v = m.zeros(3, requires_grad=True)
        v.register_post_accumulate_grad_hook(lambda p: 1)
        (v * 2).sum().backward()

    assert_same_error(run, torch, nbgrad)


def test_hooks_die_with_their_tensor():
    from nbgrad.autograd import graph

    before = len(graph.POST_ACCUMULATE)
    v = nbgrad.zeros(3, requires_grad=True)
    v.register_post_accumulate_grad_hook(lambda p: None)
    assert len(graph.POST_ACCUMULATE) == before + 1
    del v
    assert len(graph.POST_ACCUMULATE) == before


def test_a_post_accumulate_hook_that_returns_a_value_raises_as_torch():
    from _errors import assert_same_error

    def run(m):
        v = m.zeros(3, requires_grad=True)
        v.register_post_accumulate_grad_hook(lambda p: p.data.sub_(p.grad))
        (2 * v).sum().backward()

    torch = pytest.importorskip("torch")
    assert_same_error(run, torch, nbgrad)
    with pytest.raises(RuntimeError, match=r"^Tensor post accumulate grad hooks should return "
                       r"None\.$"):
        run(nbgrad)


def test_accumulation_runs_as_soon_as_ready_as_in_pytorch():
    """A leaf's gradient is accumulated (and its post-accumulate hooks run) as soon as it is
    ready, before older nodes of the graph run, as PyTorch's engine does (AccumulateGrad has
    the largest sequence number there): what DistributedDataParallel's overlap relies on."""
    torch = pytest.importorskip("torch")

    def events(lib):
        log = []
        w = lib.tensor([1.5, -2.0], requires_grad=True)   # used first: its node is oldest
        v = lib.tensor([0.5, 3.0], requires_grad=True)
        x = lib.tensor([2.0, 1.0], requires_grad=True)
        s = w * 2
        t = (x * v).exp()
        t.register_hook(lambda g: log.append("t"))
        s.register_hook(lambda g: log.append("s"))
        for name, leaf in (("w", w), ("v", v), ("x", x)):
            leaf.register_post_accumulate_grad_hook(lambda p, n=name: log.append(n))
        (s * t).sum().backward()
        return log

    assert events(nbgrad) == events(torch)
