"""Margin, embedding and count losses (ops/margin_loss.py) and their layers: values and
gradients against PyTorch, finite differences in float64, reprs."""

import doctest

import numpy as np
import pytest

import nbgrad
import nbgrad.nn.functional as F
from nbgrad.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(0)
X1, X2, X3 = (RNG.standard_normal((4, 5)) for _ in range(3))
Y = np.array([1.0, -1.0, 1.0, -1.0])
SIGNS = np.sign(RNG.standard_normal((4, 5)))
BITS = (RNG.random((4, 5)) > 0.5).astype(float)
COUNTS = RNG.integers(0, 5, (4, 5)).astype(float)

CALLS = [
    lambda m, a, b, c: m.nn.MarginRankingLoss(0.3)(a[:, 0], b[:, 0], m.tensor(Y)),
    lambda m, a, b, c: m.nn.HingeEmbeddingLoss(0.5)(a, m.tensor(SIGNS)),
    lambda m, a, b, c: m.nn.SoftMarginLoss(reduction="sum")(a, m.tensor(SIGNS)),
    lambda m, a, b, c: m.nn.CosineEmbeddingLoss(0.1)(a, b, m.tensor(Y)),
    lambda m, a, b, c: m.nn.TripletMarginLoss(margin=2.0)(a, b, c),
    lambda m, a, b, c: m.nn.TripletMarginLoss(p=1, swap=True, reduction="none")(a, b, c),
    lambda m, a, b, c: m.nn.MultiLabelSoftMarginLoss()(a, m.tensor(BITS)),
    lambda m, a, b, c: m.nn.MultiLabelSoftMarginLoss(weight=m.arange(5.0))(a, m.tensor(BITS)),
    lambda m, a, b, c: m.nn.PoissonNLLLoss()(a, m.tensor(COUNTS)),
    lambda m, a, b, c: m.nn.PoissonNLLLoss(log_input=False, full=True)(a.abs() + 0.1,
                                                                       m.tensor(COUNTS)),
    lambda m, a, b, c: m.nn.functional.cosine_embedding_loss(a[0], b[0], m.tensor(1.0)),
]


@pytest.mark.parametrize("call", CALLS)
def test_losses_match_pytorch(call):
    got = []
    for m in (nbgrad, torch):
        xs = [m.tensor(v, requires_grad=True) for v in (X1, X2, X3)]
        out = call(m, *xs)
        out.sum().backward()
        got.append([out] + [x.grad if x.grad is not None else m.zeros(1) for x in xs])
    for a, b in zip(*got):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12,
                                   atol=1e-14)


def test_finite_differences():
    xs = [nbgrad.tensor(v, requires_grad=True) for v in (X1, X2, X3)]
    for f in [lambda a, b, c: F.triplet_margin_loss(a, b, c, margin=3.0),
              lambda a, b, c: F.cosine_embedding_loss(a, b, nbgrad.tensor(Y)),
              lambda a, b, c: F.multilabel_soft_margin_loss(a, nbgrad.tensor(BITS)) + b.sum()
              + c.sum()]:
        assert gradcheck(f, xs) and gradgradcheck(f, xs)


def test_reprs_and_docstrings():
    for name in ("MarginRankingLoss", "TripletMarginLoss", "PoissonNLLLoss"):
        assert repr(getattr(nbgrad.nn, name)()) == repr(getattr(torch.nn, name)())
    from nbgrad.ops import margin_loss

    res = doctest.testmod(margin_loss,
                          optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert res.attempted and not res.failed
