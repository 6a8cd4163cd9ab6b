"""nbgrad.utils.checkpoint against torch.utils.checkpoint: gradients of inputs and of a
module's parameters (an input that needs no gradient too), the random state kept for the
second run (dropout), checkpoint_sequential, the warning without use_reentrant, no_grad."""

import warnings
from importlib import import_module

import pytest

import nbgrad


def _round(ts):
    return [round(v, 5) for v in ts]


def _checkpointed(L):
    out = {}
    ck = import_module(L.__name__ + ".utils.checkpoint")
    nn = L.nn
    x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
    for ur in (True, False):
        x.grad = None
        y = ck.checkpoint(lambda a: a.sin() * a, x, use_reentrant=ur)
        y.sum().backward()
        out[f"fn{ur}"] = _round(x.grad.tolist())
    # a module's parameters, its input needing no gradient: PyTorch's reentrant variant
    # gives none, the other does
    for ur in (True, False):
        L.manual_seed(0)
        m = nn.Sequential(nn.Linear(3, 4), nn.Dropout(0.5), nn.Linear(4, 1))
        inp = L.ones(2, 3)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            L.manual_seed(1)
            y = ck.checkpoint(m, inp, use_reentrant=ur)
        out[f"rg{ur}"] = y.requires_grad
        if y.requires_grad:
            y.sum().backward()
        w = m[0].weight.grad
        out[f"wgrad{ur}"] = None if w is None else _round(w.flatten().tolist())
    # the second run draws the same dropout masks
    L.manual_seed(0)
    m = nn.Sequential(nn.Linear(3, 4), nn.Dropout(0.5), nn.Linear(4, 1))
    inp = L.ones(2, 3, requires_grad=True)
    L.manual_seed(1)
    y = ck.checkpoint(m, inp, use_reentrant=True)
    y.sum().backward()
    out["dropout"] = _round(m[0].weight.grad.flatten().tolist() + inp.grad.flatten().tolist())
    L.manual_seed(0)
    m = nn.Sequential(nn.Linear(3, 3), nn.ReLU(), nn.Linear(3, 3), nn.Tanh(), nn.Linear(3, 1))
    inp = L.ones(2, 3, requires_grad=True)
    y = ck.checkpoint_sequential(m, 2, inp, use_reentrant=False)
    y.sum().backward()
    out["seq"] = [_round(t.flatten().tolist()) for t in (y, inp.grad, m[0].weight.grad)]
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        ck.checkpoint(lambda a: a * 2, x)
    out["warn"] = [str(v.message)[:40] for v in w]
    with L.no_grad():
        out["nograd"] = ck.checkpoint(lambda a: a * 2, x, use_reentrant=False).requires_grad
    return out


def test_checkpoint_as_pytorch():
    got = _checkpointed(nbgrad)
    assert got["fnTrue"] == got["fnFalse"] == [1.38177, 0.077, -2.82886]
    assert got["rgTrue"] is False and got["wgradTrue"] is None and got["rgFalse"] is True
    assert got["warn"] == ["nbgrad.utils.checkpoint: the use_reentra"]
    torch = pytest.importorskip("torch")
    want = _checkpointed(torch)
    want["warn"] = [w.replace("torch", "nbgrad")[:40] for w in want["warn"]]
    assert got == want


@pytest.mark.parametrize("reentrant", [True, False])
def test_checkpoint_refuses_grad_and_backward_inputs(reentrant):
    from nbgrad.utils.checkpoint import checkpoint

    x = nbgrad.ones(2, requires_grad=True)
    words = "use_reentrant=True, torch.utils" if reentrant else "recomputes in backward"
    with pytest.raises(RuntimeError, match=words):
        nbgrad.autograd.grad(checkpoint(lambda a: a * 2, x, use_reentrant=reentrant).sum(), x)
    with pytest.raises(RuntimeError, match="passing an `inputs` parameter to .backward()"):
        checkpoint(lambda a: a * 2, x, use_reentrant=reentrant).sum().backward(inputs=[x])
    assert x.grad is None
    checkpoint(lambda a: a * 2, x, use_reentrant=reentrant).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]
