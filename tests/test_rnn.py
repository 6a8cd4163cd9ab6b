"""RNN, LSTM, GRU and their cells: PyTorch's parameter names, shapes, reprs and errors, and
(given PyTorch's weights through state_dict) its outputs, final states and gradients; finite
differences in float64; dropout between layers; a small language model trains."""


import numpy as np
import pytest
from _errors import error_of

import nbgrad
from nbgrad.autograd import gradcheck, gradgradcheck

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="needs torch")

LAYERS = [
    ("RNN", {}, (5, 2, 3), None),
    ("RNN", dict(num_layers=2, nonlinearity="relu", bias=False), (5, 2, 3), None),
    ("LSTM", dict(num_layers=2, bidirectional=True, batch_first=True), (2, 5, 3), None),
    ("LSTM", {}, (5, 3), "hc"),  # unbatched, with initial states
    ("GRU", dict(bidirectional=True), (5, 2, 3), "h"),
    ("GRU", dict(num_layers=3, batch_first=True), (2, 4, 3), None),
]


def _states(m, cls, kw, shape, which, rng):
    layers = (2 if kw.get("bidirectional") else 1) * kw.get("num_layers", 1)
    if len(shape) == 2:
        hs = (layers, 4)
    else:
        hs = (layers, shape[0] if kw.get("batch_first") else shape[1], 4)
    if which is None:
        return (), hs
    arrays = [rng.standard_normal(hs) for _ in which]
    ts = [m.tensor(a) for a in arrays]
    return ((tuple(ts),) if cls == "LSTM" else (ts[0],)), hs


@needs_torch
@pytest.mark.parametrize("cls,kw,shape,hx", LAYERS)
def test_layers_match_pytorch(cls, kw, shape, hx):
    theirs = getattr(torch.nn, cls)(3, 4, **kw).double()
    ours = getattr(nbgrad.nn, cls)(3, 4, **kw).double()
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert repr(ours) == repr(theirs)
    ours.load_state_dict({k: nbgrad.tensor(v.detach().numpy())
                          for k, v in theirs.state_dict().items()})
    rng = np.random.default_rng(0)
    v = rng.standard_normal(shape)
    a, hs = _states(nbgrad, cls, kw, shape, hx, np.random.default_rng(1))
    b, _ = _states(torch, cls, kw, shape, hx, np.random.default_rng(1))
    x, tx = nbgrad.tensor(v, requires_grad=True), torch.tensor(v, requires_grad=True)
    (out, h), (tout, th) = ours(x, *a), theirs(tx, *b)
    finals = h if cls == "LSTM" else (h,)
    tfinals = th if cls == "LSTM" else (th,)
    assert tuple(out.shape) == tuple(tout.shape)
    for f, tf in zip(finals, tfinals):
        assert tuple(f.shape) == tuple(tf.shape) == hs
        np.testing.assert_allclose(f.detach().numpy(), tf.detach().numpy(), rtol=1e-12,
                                   atol=1e-13)
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-12,
                               atol=1e-13)
    g = rng.standard_normal(tuple(tout.shape))
    (out * nbgrad.tensor(g)).sum().add(finals[-1].sum()).backward()
    (tout * torch.tensor(g)).sum().add(tfinals[-1].sum()).backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)
    for p, q in zip(ours.parameters(), theirs.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-10, atol=1e-12)


@needs_torch
@pytest.mark.parametrize("cls,kw", [("RNNCell", {}), ("RNNCell", dict(nonlinearity="relu")),
                                    ("LSTMCell", {}), ("GRUCell", dict(bias=False))])
def test_cells_match_pytorch(cls, kw):
    theirs = getattr(torch.nn, cls)(3, 4, **kw).double()
    ours = getattr(nbgrad.nn, cls)(3, 4, **kw).double()
    assert repr(ours) == repr(theirs)
    ours.load_state_dict({k: nbgrad.tensor(v.detach().numpy())
                          for k, v in theirs.state_dict().items()})
    v = np.random.default_rng(2).standard_normal((2, 3))
    for batch in (v, v[0]):
        got, want = ours(nbgrad.tensor(batch)), theirs(torch.tensor(batch))
        for a, b in zip(got if isinstance(got, tuple) else (got,),
                        want if isinstance(want, tuple) else (want,)):
            assert tuple(a.shape) == tuple(b.shape)
            np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12)


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
def test_gradients_by_finite_differences(cls):
    nbgrad.manual_seed(0)
    layer = getattr(nbgrad.nn, cls)(2, 3, num_layers=2, bidirectional=True).double()
    x = nbgrad.randn(3, 1, 2, dtype=nbgrad.float64, requires_grad=True)
    assert gradcheck(lambda x: layer(x)[0], (x,))
    assert gradgradcheck(lambda x: layer(x)[0], (x,))
    # and of a weight: the last layer's reverse direction's hidden-to-hidden product
    w = layer.weight_hh_l1_reverse
    assert tuple(w.shape) == ({"RNN": 3, "GRU": 9, "LSTM": 12}[cls], 3)
    v = w.detach().clone().requires_grad_()
    assert gradcheck(lambda v: _through(layer, w, v, x), (v,))


def _through(layer, w, v, x):
    """``layer(x)``'s output with parameter ``w`` replaced by tensor ``v`` (differentiable
    in ``v``)."""
    name = next(n for n, p in layer.named_parameters() if p is w)
    saved = layer._parameters[name]
    layer._parameters[name] = v
    try:
        return layer(x.detach())[0]
    finally:
        layer._parameters[name] = saved


def test_initialisation_and_parameter_shapes():
    nbgrad.manual_seed(0)
    lstm = nbgrad.nn.LSTM(3, 4, num_layers=2, bidirectional=True)
    shapes = {n: tuple(p.shape) for n, p in lstm.named_parameters()}
    assert shapes["weight_ih_l0"] == (16, 3) and shapes["weight_ih_l1"] == (16, 8)
    assert shapes["weight_hh_l1_reverse"] == (16, 4) and shapes["bias_hh_l0"] == (16,)
    for p in lstm.parameters():
        assert float(p.abs().max()) <= 0.5  # U(-1/sqrt(4), 1/sqrt(4))
    assert len(list(nbgrad.nn.GRU(3, 4, bias=False).parameters())) == 2


def test_dropout_between_layers():
    nbgrad.manual_seed(0)
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
        nbgrad.nn.RNN(3, 4, dropout=0.5)
    layer = nbgrad.nn.GRU(3, 4, num_layers=2, dropout=0.5)
    x = nbgrad.randn(6, 2, 3)
    with nbgrad.no_grad():
        a, b = layer(x)[0], layer(x)[0]
        assert not np.allclose(a.numpy(), b.numpy())  # a new mask each call while training
        layer.eval()
        np.testing.assert_array_equal(layer(x)[0].numpy(), layer(x)[0].numpy())


ERRORS = [
    lambda m: m.nn.RNN(3, 4)(m.ones(2, 2, 2, 2)),
    lambda m: m.nn.RNN(3, 4)(m.ones(5, 2, 2)),
    lambda m: m.nn.LSTM(3, 4)(m.ones(5, 2, 3), (m.zeros(1, 3, 4), m.zeros(1, 2, 4))),
    lambda m: m.nn.GRU(3, 4)(m.ones(5, 2, 3), m.zeros(2, 2, 4)),
    lambda m: m.nn.RNN(3, 4, nonlinearity="sigmoid"),
    lambda m: m.nn.GRUCell(3, 4)(m.ones(2, 5)),
    lambda m: m.nn.RNN(3, 0),
]


@pytest.mark.parametrize("call", ERRORS)
def test_errors_are_pytorchs(call):
    def error(m):
        return error_of(lambda: call(m))

    got = error(nbgrad)
    assert got is not None
    if torch is not None:
        assert got == error(torch)


def test_a_character_language_model_trains():
    # an LSTM language model on a repeating string: the loss must fall well below chance
    text = "hello world, hello nbgrad! " * 8 + "h"  # (8 rows of 27 steps, and one more)
    chars = sorted(set(text))
    ids = nbgrad.tensor([chars.index(c) for c in text])
    nbgrad.manual_seed(0)
    emb, lstm = nbgrad.nn.Embedding(len(chars), 8), nbgrad.nn.LSTM(8, 16, batch_first=True)
    head = nbgrad.nn.Linear(16, len(chars))
    params = list(emb.parameters()) + list(lstm.parameters()) + list(head.parameters())
    opt = nbgrad.optim.Adam(params, lr=0.05)
    x, y = ids[:-1].reshape(8, -1), ids[1:].reshape(8, -1)
    losses = []
    for _ in range(30):
        out, _ = lstm(emb(x))
        loss = nbgrad.nn.functional.cross_entropy(head(out).reshape(-1, len(chars)),
                                                  y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.5 * np.log(len(chars)) and losses[-1] < losses[0] / 3


@pytest.mark.parametrize("kw", [dict(num_layers=2, bidirectional=True), dict(bias=False),
                                dict(proj_size=2)])
def test_flatten_parameters_and_all_weights_as_pytorch(kw):
    torch = pytest.importorskip("torch")
    got = []
    for L in (nbgrad, torch):
        m = L.nn.LSTM(2, 4, **kw)
        assert m.flatten_parameters() is None
        got.append(([[tuple(p.shape) for p in ws] for ws in m.all_weights],
                    list(m._flat_weights_names), len(m._flat_weights)))
    assert got[0] == got[1]
