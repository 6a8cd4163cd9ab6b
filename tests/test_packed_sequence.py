"""``nn.utils.rnn`` (PackedSequence, packing and padding) and the recurrent layers on packed
input: values, lengths, orders, gradients and errors against PyTorch (the layers start
from PyTorch's weights: the same seed gives the same initialisation), finite differences
in float64."""

import doctest
from importlib import import_module

import numpy as np
import pytest

import nbgrad
from nbgrad.autograd import gradcheck, gradgradcheck
from nbgrad.nn.utils import rnn as R
from tests._errors import error_of

torch = pytest.importorskip("torch")


def _rnn(m):
    return import_module(m.__name__ + ".nn.utils.rnn")


def _seqs(m, lengths, feat=3, grad=True):
    return [m.tensor(np.random.default_rng(i).standard_normal((n, feat)), requires_grad=grad)
            for i, n in enumerate(lengths)]


def _np(x):
    return x.detach().numpy() if hasattr(x, "detach") else np.asarray(x)


def _assert_packed_equal(p, q):
    for a, b in zip(p, q):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(_np(a), _np(b), rtol=1e-14, atol=1e-14)
            assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]


@pytest.mark.parametrize("lengths, enforce", [([4, 2, 1], True), ([2, 4, 1, 4], False),
                                              ([3], True), ([1, 3, 2], False)])
@pytest.mark.parametrize("batch_first", [False, True])
def test_packing_and_padding_match_pytorch(lengths, enforce, batch_first):
    out = []
    for m in (nbgrad, torch):
        r = _rnn(m)
        xs = _seqs(m, lengths)
        padded = r.pad_sequence(xs, batch_first=batch_first, padding_value=-1.5)
        p = r.pack_padded_sequence(padded, lengths, batch_first=batch_first,
                                   enforce_sorted=enforce)
        q = r.pack_sequence(xs, enforce_sorted=enforce)
        back, lens = r.pad_packed_sequence(p, batch_first=batch_first, padding_value=7.0,
                                           total_length=max(lengths) + 2)
        (back * back).sum().backward()
        left = r.pad_sequence(xs, padding_side="left")
        unpacked = r.unpack_sequence(q)
        # (a clone: PyTorch's unpad_sequence transposes its argument in place; nbgrad's not)
        unpadded = r.unpad_sequence(padded.clone(), m.tensor(lengths), batch_first=batch_first)
        out.append((padded, p, q, back, lens, [x.grad for x in xs], left, unpacked, unpadded))
    ours, theirs = out
    for k in (0, 3, 4, 6):
        np.testing.assert_array_equal(_np(ours[k]), _np(theirs[k]))
        assert tuple(ours[k].shape) == tuple(theirs[k].shape)
    _assert_packed_equal(ours[1], theirs[1])
    _assert_packed_equal(ours[2], theirs[2])
    for k in (5, 7, 8):
        for a, b in zip(ours[k], theirs[k]):
            np.testing.assert_array_equal(_np(a), _np(b))


def test_packing_is_differentiable_by_finite_differences():
    x = nbgrad.tensor(np.random.default_rng(0).standard_normal((4, 3, 2)), requires_grad=True)

    def round_trip(a):
        p = R.pack_padded_sequence(a, [2, 4, 3], enforce_sorted=False)
        return R.pad_packed_sequence(p, padding_value=0.5)[0] * 2

    assert gradcheck(round_trip, (x,))
    assert gradgradcheck(lambda a: round_trip(a) ** 2, (x,))


@pytest.mark.parametrize("kind, kw", [
    ("LSTM", dict(num_layers=2, bidirectional=True)), ("GRU", dict(batch_first=True)),
    ("RNN", dict(num_layers=2, nonlinearity="relu")), ("LSTM", dict(batch_first=True)),
    ("GRU", dict(bidirectional=True, num_layers=2, dropout=0.3))])
@pytest.mark.parametrize("with_hx", [False, True])
def test_recurrent_layers_on_packed_input_match_pytorch(kind, kw, with_hx):
    lengths = [2, 5, 3, 5]
    got = []
    for m in (nbgrad, torch):
        r = _rnn(m)
        m.manual_seed(0)  # the same initial weights, and the same dropout masks
        net = getattr(m.nn, kind)(3, 4, **kw).double()
        xs = _seqs(m, lengths)
        bf = kw.get("batch_first", False)
        p = r.pack_padded_sequence(r.pad_sequence(xs, batch_first=bf), lengths,
                                   batch_first=bf, enforce_sorted=False)
        hx = None
        if with_hx:
            dirs = 2 if kw.get("bidirectional") else 1
            shape = (kw.get("num_layers", 1) * dirs, len(lengths), 4)
            h0 = m.tensor(np.random.default_rng(9).standard_normal(shape), requires_grad=True)
            hx = (h0, h0 * 0.5) if kind == "LSTM" else h0
        out, h = net(p, hx)
        assert type(out).__name__ == "PackedSequence"
        o, lens = r.pad_packed_sequence(out, batch_first=bf)
        hs = h if isinstance(h, tuple) else (h,)
        (o.sum() * 2 + sum((t ** 2).sum() for t in hs)).backward()
        got.append([o, *hs, lens, out.data, xs[0].grad, xs[1].grad, net.weight_hh_l0.grad]
                   + ([h0.grad] if with_hx else []))
    for a, b in zip(*got):
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-10, atol=1e-12)


def test_packed_lstm_gradients_by_finite_differences():
    nbgrad.manual_seed(0)
    net = nbgrad.nn.LSTM(2, 3, bidirectional=True).double()
    x = nbgrad.tensor(np.random.default_rng(1).standard_normal((3, 2, 2)), requires_grad=True)

    def f(a):
        p = R.pack_padded_sequence(a, [3, 2])
        out, (h, c) = net(p)
        return R.pad_packed_sequence(out)[0].sum() + h.sum() + c.sum()

    assert gradcheck(f, (x,))


def test_packed_sequence_object():
    p = R.pack_sequence([nbgrad.tensor([1.0, 2.0]), nbgrad.tensor([3.0])])
    assert p._fields == ("data", "batch_sizes", "sorted_indices", "unsorted_indices")
    data, sizes, s, u = p
    assert sizes.dtype is nbgrad.int64 and s is None and u is None and not p.is_cuda
    q = p.double()
    assert q.data.dtype is nbgrad.float64 and q.batch_sizes is p.batch_sizes
    assert p.to("cpu") is p
    r = R.PackedSequence(data, sizes, nbgrad.tensor([1, 0]))
    assert r.unsorted_indices.tolist() == [1, 0]
    assert R.invert_permutation(nbgrad.tensor([2, 0, 1])).tolist() == [1, 2, 0]
    assert nbgrad.nn.utils.rnn is R


def test_errors_match_pytorch():
    for call in [lambda m: _rnn(m).pack_padded_sequence(m.zeros(3, 2, 1), [1, 3]),
                 lambda m: _rnn(m).pack_padded_sequence(m.zeros(3, 2, 1), [3, 0]),
                 lambda m: _rnn(m).pad_packed_sequence(
                     _rnn(m).pack_sequence([m.ones(3), m.ones(2)]), total_length=2),
                 lambda m: _rnn(m).pad_sequence([m.ones(2)], padding_side="middle")]:
        assert error_of(lambda: call(nbgrad)) == error_of(lambda: call(torch))
    with pytest.raises(RuntimeError, match="longer than the input's 3 steps"):
        R.pack_padded_sequence(nbgrad.zeros(3, 2, 1), [4, 1])
    with pytest.raises(RuntimeError, match="1D CPU int64 tensor"):
        R.pack_padded_sequence(nbgrad.zeros(3, 2, 1), nbgrad.tensor([3.0, 1.0]))


def test_docstring_examples_run():
    res = doctest.testmod(R, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert res.attempted and not res.failed


@pytest.mark.parametrize("kw", [dict(proj_size=2), dict(proj_size=2, num_layers=2,
                                                        bidirectional=True),
                                dict(proj_size=3, batch_first=True)], ids=str)
@pytest.mark.parametrize("packed", [False, True])
def test_lstm_with_projections_matches_pytorch(kw, packed):
    # proj_size: h_t = W_hr (o * tanh(c_t)), so h has proj_size features (c keeps
    # hidden_size); PyTorch's parameter names, shapes, initialisation, repr and values
    res = []
    for m in (nbgrad, torch):
        r = _rnn(m)
        m.manual_seed(1)
        net = m.nn.LSTM(3, 4, **kw).double()
        bf = kw.get("batch_first", False)
        x = m.tensor(np.random.default_rng(0).standard_normal((2, 5, 3) if bf else (5, 2, 3)),
                     requires_grad=True)
        dirs, layers = (2 if kw.get("bidirectional") else 1), kw.get("num_layers", 1)
        hx = (m.tensor(np.random.default_rng(1).standard_normal((layers * dirs, 2,
                                                                 kw["proj_size"]))),
              m.tensor(np.random.default_rng(2).standard_normal((layers * dirs, 2, 4))))
        out, (h, c) = net(r.pack_padded_sequence(x, [5, 3], batch_first=bf) if packed else x,
                          hx)
        if packed:
            out = r.pad_packed_sequence(out, batch_first=bf)[0]
        ((out ** 2).sum() + h.sum() + c.sum()).backward()
        res.append(([n for n, _ in net.named_parameters()], repr(net).replace("torch.", ""),
                    [out, h, c, x.grad] + [p.grad for p in net.parameters()]))
    assert res[0][:2] == res[1][:2]
    for a, b in zip(res[0][2], res[1][2]):
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-10, atol=1e-12)


def test_projection_errors_match_pytorch():
    for call in [lambda m: m.nn.LSTM(3, 4, proj_size=4), lambda m: m.nn.LSTM(3, 4, proj_size=-1),
                 lambda m: m.nn.LSTM(3, 4, proj_size=2)(m.zeros(5, 1, 3),
                                                        (m.zeros(1, 1, 4), m.zeros(1, 1, 4)))]:
        assert error_of(lambda: call(nbgrad)) == error_of(lambda: call(torch))
