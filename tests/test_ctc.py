"""F.ctc_loss / nn.CTCLoss against PyTorch: losses and gradients for padded and
concatenated targets, every reduction, zero_infinity, unbatched input, float32; PyTorch's
saved values, its gradient formula for log-probabilities, its refusal of a second
derivative, its errors."""

import numpy as np
import pytest

import nbgrad
from tests._errors import assert_same_error

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(0)
T, N, C = 7, 3, 5
X = RNG.standard_normal((T, N, C))
TARGETS = np.array([[1, 2, 2, 0], [3, 1, 4, 4], [2, 0, 0, 0]])  # (repeats need a blank)
IL, TL = [7, 5, 6], [3, 4, 1]


def _run(m, x, targets, il, tl, dtype=np.float64, **kw):
    logits = m.tensor(x.astype(dtype), requires_grad=True)
    loss = m.nn.functional.ctc_loss(logits.log_softmax(-1), m.tensor(targets), il, tl, **kw)
    w = np.random.default_rng(1).standard_normal(tuple(loss.shape)).astype(dtype)
    (loss * m.tensor(w)).sum().backward()
    return loss.detach().numpy(), logits.grad.numpy()


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("zero_infinity", [False, True])
@pytest.mark.parametrize("concatenated", [False, True])
def test_ctc_loss_matches_torch(reduction, zero_infinity, concatenated):
    targets = (np.concatenate([TARGETS[n, :TL[n]] for n in range(N)]) if concatenated
               else TARGETS)
    kw = {"reduction": reduction, "zero_infinity": zero_infinity}
    for a, b in zip(_run(nbgrad, X, targets, IL, TL, **kw), _run(torch, X, targets, IL, TL, **kw)):
        assert a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


def test_lengths_as_tensors_unbatched_and_float32():
    tl = torch.tensor(TL)
    for a, b in zip(_run(nbgrad, X, TARGETS, nbgrad.tensor(IL), nbgrad.tensor(TL)),
                    _run(torch, X, TARGETS, torch.tensor(IL), tl)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
    for kw in ({"reduction": "none"}, {}):
        for a, b in zip(_run(nbgrad, X[:, 0], TARGETS[0, :3], [7], [3], **kw),
                        _run(torch, X[:, 0], TARGETS[0, :3], [7], [3], **kw)):
            assert a.shape == b.shape
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
    got, want = (_run(m, X, TARGETS, IL, TL, np.float32) for m in (nbgrad, torch))
    for a, b in zip(got, want):
        assert a.dtype == np.float32
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-6)


def test_impossible_alignments():
    # a target of 4 equal labels needs 7 steps; 3 are given: an infinite loss (nan
    # gradients), or 0 with zero_infinity (and zero gradients), as PyTorch's
    x, t = X[:3, :1], np.array([[1, 1, 1, 1]])
    for zi in (False, True):
        (la, ga), (lb, gb) = (_run(m, x, t, [3], [4], reduction="sum", zero_infinity=zi)
                              for m in (nbgrad, torch))
        np.testing.assert_array_equal(la, lb)
        np.testing.assert_array_equal(ga, gb)


def test_node_saved_values_and_no_second_derivative():
    lp = X.copy()
    lp -= np.log(np.exp(lp).sum(-1, keepdims=True))
    nodes, grads = [], []
    for m in (nbgrad, torch):
        x = m.tensor(lp, requires_grad=True)
        loss = m.nn.functional.ctc_loss(x, m.tensor(TARGETS), IL, TL, reduction="none")
        nodes.append(loss.grad_fn)
        (g,) = m.autograd.grad(loss.sum(), x, create_graph=True)
        grads.append(g)
        with pytest.raises(RuntimeError, match="derivative for aten::_ctc_loss_backward is not "
                                               "implemented"):
            g.sum().backward()
    nb, nt = nodes
    assert nb.name() == nt.name() == "CtcLossBackward0"
    assert tuple(nb._saved_input_lengths) == tuple(nt._saved_input_lengths)
    assert tuple(nb._saved_target_lengths) == tuple(nt._saved_target_lengths)
    assert nb._saved_blank == nt._saved_blank and nb._saved_zero_infinity is False
    np.testing.assert_allclose(nb._saved_result0.detach().numpy(),
                               nt._saved_result0.detach().numpy(),
                               rtol=1e-12)
    # (the gradient of the log-probabilities is PyTorch's exp(lp) - posterior)
    np.testing.assert_allclose(grads[0].detach().numpy(), grads[1].detach().numpy(),
                               rtol=1e-10, atol=1e-14)


def test_ctc_layer_and_top_level_form():
    lp = nbgrad.tensor(X).log_softmax(2)
    want = torch.nn.CTCLoss(blank=4, reduction="sum")(torch.tensor(X).log_softmax(2),
                                                      torch.tensor(TARGETS % 4), IL, TL)
    got = nbgrad.nn.CTCLoss(4, "sum")(lp, nbgrad.tensor(TARGETS % 4), IL, TL)
    np.testing.assert_allclose(got.item(), want.item(), rtol=1e-12)
    assert repr(nbgrad.nn.CTCLoss()) == "CTCLoss()"
    np.testing.assert_allclose(  # (PyTorch's top level: the reduction enum, none by default)
        nbgrad.ctc_loss(lp, nbgrad.tensor(TARGETS), IL, TL).numpy(),
        torch.ctc_loss(torch.tensor(X).log_softmax(2), torch.tensor(TARGETS), IL, TL).numpy(),
        rtol=1e-12)


@pytest.mark.parametrize("call", [
    lambda m: m.nn.functional.ctc_loss(m.zeros(7, 3, 5), m.tensor(TARGETS), IL, [4, 2, 5]),
    lambda m: m.nn.functional.ctc_loss(m.zeros(7, 3, 5), m.tensor(TARGETS), [8, 5, 6], TL),
    lambda m: m.nn.functional.ctc_loss(m.zeros(7, 3, 5), m.tensor(TARGETS), IL, TL, blank=5),
    lambda m: m.nn.functional.ctc_loss(m.zeros(7, 3, 5), m.tensor(TARGETS), IL, TL,
                                       reduction="avg"),
    lambda m: m.nn.functional.ctc_loss(m.zeros(7, 3, 5), m.tensor(TARGETS), IL[:2], TL),
    lambda m: m.nn.functional.ctc_loss(m.zeros(7, 3, 5), m.tensor(TARGETS), IL, TL[:2]),
    lambda m: m.nn.functional.ctc_loss(m.zeros(7, 3, 5), m.tensor([1, 2, 3]), IL, TL),
    lambda m: m.nn.functional.ctc_loss(m.zeros(7, 3, 5), m.tensor([1] * 9), IL, TL),
])
def test_errors_match_torch(call):
    assert_same_error(call, torch, nbgrad)


def test_docstring_examples_run():
    import doctest

    import nbgrad.ops.ctc as mod

    res = doctest.testmod(mod)
    assert res.attempted >= 3 and res.failed == 0
