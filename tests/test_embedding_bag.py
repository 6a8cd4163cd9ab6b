"""nn.functional.embedding_bag and nn.EmbeddingBag (issue #16): every mode, bags from a 2-d
input or from offsets (include_last_offset, empty bags), per-sample weights, padding_idx,
max_norm; values, gradients, the layer's initialisation and repr, and errors against
PyTorch."""

import numpy as np
import pytest

import nbgrad
from nbgrad.autograd import gradcheck
from tests._errors import assert_same_error

torch = pytest.importorskip("torch")

_W = np.random.default_rng(4).standard_normal((6, 3))
_IDX = np.array([0, 2, 4, 5, 4, 3, 1])
_OFF = np.array([0, 2, 2, 5])  # (bag 1 is empty)
_PSW = np.random.default_rng(5).standard_normal(7)


def F(m):
    return m.nn.functional


_CALLS = [
    lambda m, w, i, o, p: F(m).embedding_bag(i, w, o),
    lambda m, w, i, o, p: F(m).embedding_bag(i, w, o, mode="sum"),
    lambda m, w, i, o, p: F(m).embedding_bag(i, w, o, mode="max"),
    lambda m, w, i, o, p: F(m).embedding_bag(i[:6].reshape(2, 3), w, mode="mean"),
    lambda m, w, i, o, p: F(m).embedding_bag(i[:6].reshape(3, 2), w, mode="max"),
    lambda m, w, i, o, p: F(m).embedding_bag(i, w, o, mode="sum", per_sample_weights=p),
    lambda m, w, i, o, p: F(m).embedding_bag(i, w, m.cat([o, m.tensor([7])]),
                                             include_last_offset=True),
    lambda m, w, i, o, p: F(m).embedding_bag(i, w, o, padding_idx=4),
    lambda m, w, i, o, p: F(m).embedding_bag(i, w, o, mode="sum", padding_idx=-2),
    lambda m, w, i, o, p: F(m).embedding_bag(i, w * 1, o, max_norm=1.0, mode="sum"),
]


@pytest.mark.parametrize("k", range(len(_CALLS)))
def test_matches_torch(k):
    ins = {}
    for m in (nbgrad, torch):
        w = m.tensor(_W, requires_grad=True)
        p = m.tensor(_PSW, requires_grad=True)
        y = _CALLS[k](m, w, m.tensor(_IDX), m.tensor(_OFF), p)
        g = np.random.default_rng(2).standard_normal(tuple(y.shape))
        gw, gp = m.autograd.grad((y * m.tensor(g)).sum(), [w, p], allow_unused=True)
        ins[m.__name__] = (y.detach().numpy(), gw.numpy(), None if gp is None else gp.numpy())
    for a, b in zip(ins["nbgrad"], ins["torch"]):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_gradcheck_and_the_layer():
    w = nbgrad.tensor(_W, requires_grad=True)
    p = nbgrad.tensor(_PSW, requires_grad=True)
    i, o = nbgrad.tensor(_IDX), nbgrad.tensor(_OFF)
    assert gradcheck(lambda w, p: F(nbgrad).embedding_bag(i, w, o, mode="sum",
                                                          per_sample_weights=p), (w, p))
    for kw in ({}, {"mode": "max", "padding_idx": 1}, {"mode": "sum", "max_norm": 2.0}):
        nbgrad.manual_seed(3)
        torch.manual_seed(3)
        layer, tlayer = nbgrad.nn.EmbeddingBag(6, 3, **kw), torch.nn.EmbeddingBag(6, 3, **kw)
        assert repr(layer) == repr(tlayer)
        # (PyTorch's N(0, 1) draws; nbgrad's float32 normal_ can differ in the last bit)
        np.testing.assert_allclose(layer.weight.detach().numpy(),
                                   tlayer.weight.detach().numpy(), rtol=1e-6)
        np.testing.assert_allclose(layer(i, o).detach().numpy(),
                                   tlayer(torch.tensor(_IDX), torch.tensor(_OFF)).detach()
                                   .numpy(), rtol=1e-6)
    pre = nbgrad.nn.EmbeddingBag.from_pretrained(nbgrad.tensor(_W), mode="sum")
    assert not pre.weight.requires_grad
    np.testing.assert_allclose(pre(i, o).numpy(), torch.nn.EmbeddingBag.from_pretrained(
        torch.tensor(_W), mode="sum")(torch.tensor(_IDX), torch.tensor(_OFF)).numpy())


@pytest.mark.parametrize("call", [
    lambda m: F(m).embedding_bag(m.tensor([[0, 1]]), m.ones(3, 2), m.tensor([0])),
    lambda m: F(m).embedding_bag(m.tensor([0, 1]), m.ones(3, 2)),
    lambda m: F(m).embedding_bag(m.tensor([0, 1]), m.ones(3, 2), m.tensor([0]), mode="min"),
    lambda m: F(m).embedding_bag(m.tensor([0, 1]), m.ones(3, 2), m.tensor([0]), mode="max",
                                 per_sample_weights=m.ones(2)),
])
def test_errors_match_torch(call):
    assert_same_error(call, torch, nbgrad,
                      lambda text: text.replace("torch.Tensor", "nbgrad.tensor.Tensor"))


def test_docstring_example_runs():
    import doctest

    from nbgrad.ops import embedding_bag

    res = doctest.testmod(embedding_bag)
    assert res.attempted and not res.failed
