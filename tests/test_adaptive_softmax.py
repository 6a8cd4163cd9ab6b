"""nn.AdaptiveLogSoftmaxWithLoss against PyTorch: the same initial weights for a seed, the
targets' log-probabilities, the loss and every gradient, log_prob, predict, unbatched
input, errors."""

import numpy as np
import pytest

import nbgrad
from tests._errors import assert_same_error

torch = pytest.importorskip("torch")


def _pair(**kw):
    out = []
    for m in (nbgrad, torch):
        m.manual_seed(0)
        out.append(m.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4, 7], **kw).double())
    return out


@pytest.mark.parametrize("kw", [{}, {"div_value": 2.0, "head_bias": True}])
def test_matches_torch(kw):
    x = np.random.default_rng(0).standard_normal((6, 8))
    t = np.array([0, 3, 5, 9, 6, 2])
    res = []
    for m, asm in zip((nbgrad, torch), _pair(**kw)):
        xi = m.tensor(x, requires_grad=True)
        out = asm(xi, m.tensor(t))
        out.loss.backward()
        res.append([out.output.detach().numpy(), out.loss.detach().numpy(), xi.grad.numpy()]
                   + [p.grad.numpy() for p in asm.parameters()]
                   + [asm.log_prob(m.tensor(x)).detach().numpy(),
                      asm.predict(m.tensor(x)).numpy(),
                      asm(m.tensor(x[0]), m.tensor(t[0])).output.detach().numpy()])
    ours, theirs = res
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
    a, b = _pair(**kw)
    assert repr(a) == repr(b) and list(a.state_dict()) == list(b.state_dict())
    # (one sample's log_prob, which PyTorch 2.13's documents but refuses: the batch's row)
    np.testing.assert_array_equal(a.log_prob(nbgrad.tensor(x[1])).detach().numpy(),
                                  a.log_prob(nbgrad.tensor(x[1:2]))[0].detach().numpy())


@pytest.mark.parametrize("call", [
    lambda m: m.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4, 4]),
    lambda m: m.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [7, 4]),
    lambda m: m.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4, 10]),
    lambda m: m.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4])(m.zeros(3, 8), m.tensor([1, 2])),
    lambda m: m.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4])(m.zeros(3), m.tensor([1, 2, 3])),
    lambda m: m.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4])(m.zeros(3, 8), m.tensor(1)),
    lambda m: m.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4])(m.zeros(3, 8), m.zeros(3, 1).long()),
    lambda m: m.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4])(m.zeros(3, 8), m.tensor([1, 12, 3])),
])
def test_errors_match_torch(call):
    assert_same_error(call, torch, nbgrad, lambda text: text.replace("torch.", "nbgrad."))


def test_docstring_examples_run():
    import doctest
    import warnings

    import nbgrad.nn.modules.adaptive as mod

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (a zero-width cluster layer: PyTorch's warning)
        res = doctest.testmod(mod)
    assert res.attempted >= 3 and res.failed == 0
