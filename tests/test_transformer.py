"""MultiheadAttention and the Transformer layers: PyTorch's state_dict keys, reprs, masks,
``batch_first``, ``norm_first`` and (given PyTorch's weights) its outputs, attention weights
and gradients; finite differences in float64; errors."""

import warnings

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
E, H = 8, 2


def _load(ours, theirs):
    ours.load_state_dict({k: nbgrad.tensor(v.detach().numpy())
                          for k, v in theirs.state_dict().items()})
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert repr(ours) == repr(theirs)


def _compare(ours, theirs, n_inputs, t_inputs, n_kw, t_kw):
    got, want = ours(*n_inputs, **n_kw), theirs(*t_inputs, **t_kw)
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    for a, b in zip(got, want):
        if b is None:
            assert a is None
            continue
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-11,
                                   atol=1e-12)
    (got[0] * 1.3).sum().backward()
    (want[0] * 1.3).sum().backward()
    for (name, p), q in zip(ours.named_parameters(), theirs.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-10, atol=1e-12,
                                   err_msg=name)


MHA_CASES = ["plain", "float_mask", "bool_mask_and_padding", "per_head", "no_weights",
             "unbatched"]


@needs_torch
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("case", MHA_CASES)
def test_multihead_attention_matches_pytorch(case, batch_first):
    theirs = torch.nn.MultiheadAttention(E, H, batch_first=batch_first).double()
    ours = nbgrad.nn.MultiheadAttention(E, H, batch_first=batch_first).double()
    _load(ours, theirs)
    rng = np.random.default_rng(0)
    L, S, N = 3, 4, 2
    q = rng.standard_normal((N, L, E) if batch_first else (L, N, E))
    k = rng.standard_normal((N, S, E) if batch_first else (S, N, E))
    padding = np.zeros((N, S), bool)
    padding[0, -1] = True
    masked = np.zeros((L, S), bool)
    masked[0, 1] = True
    extra = {"plain": {}, "float_mask": dict(attn_mask=rng.standard_normal((L, S))),
             "bool_mask_and_padding": dict(attn_mask=masked, key_padding_mask=padding),
             "per_head": dict(average_attn_weights=False),
             "no_weights": dict(need_weights=False), "unbatched": {}}[case]
    if case == "unbatched":
        q = k = q[0] if batch_first else q[:, 0]
    n_kw = {key: nbgrad.tensor(v) if isinstance(v, np.ndarray) else v for key, v in extra.items()}
    t_kw = {key: torch.tensor(v) if isinstance(v, np.ndarray) else v for key, v in extra.items()}
    _compare(ours, theirs, [nbgrad.tensor(q), nbgrad.tensor(k), nbgrad.tensor(k)],
             [torch.tensor(q), torch.tensor(k), torch.tensor(k)], n_kw, t_kw)


@needs_torch
@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
def test_encoder_layer_matches_pytorch(norm_first, activation):
    kw = dict(dropout=0.0, activation=activation, norm_first=norm_first, batch_first=True)
    theirs = torch.nn.TransformerEncoderLayer(E, H, 16, **kw).double()
    ours = nbgrad.nn.TransformerEncoderLayer(E, H, 16, **kw).double()
    _load(ours, theirs)
    x = np.random.default_rng(1).standard_normal((2, 5, E))
    mask = nbgrad.nn.Transformer.generate_square_subsequent_mask(5, dtype=nbgrad.float64)
    _compare(ours, theirs, [nbgrad.tensor(x)], [torch.tensor(x)],
             dict(src_mask=mask, is_causal=True),
             dict(src_mask=torch.tensor(mask.numpy()), is_causal=True))


@needs_torch
def test_transformer_matches_pytorch():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (PyTorch's nested-tensor note)
        theirs = torch.nn.Transformer(E, H, 2, 2, 16, dropout=0.0).double()
    ours = nbgrad.nn.Transformer(E, H, 2, 2, 16, dropout=0.0).double()
    _load(ours, theirs)
    rng = np.random.default_rng(2)
    src, tgt = rng.standard_normal((6, 2, E)), rng.standard_normal((4, 2, E))
    mask = nbgrad.nn.Transformer.generate_square_subsequent_mask(4, dtype=nbgrad.float64)
    padding = np.zeros((2, 6), bool)
    padding[1, :2] = True
    _compare(ours, theirs, [nbgrad.tensor(src), nbgrad.tensor(tgt)],
             [torch.tensor(src), torch.tensor(tgt)],
             dict(tgt_mask=mask, src_key_padding_mask=nbgrad.tensor(padding)),
             dict(tgt_mask=torch.tensor(mask.numpy()),
                  src_key_padding_mask=torch.tensor(padding)))


def test_shapes_masks_and_initialisation():
    nbgrad.manual_seed(0)
    mha = nbgrad.nn.MultiheadAttention(E, H, batch_first=True)
    assert [n for n, _ in mha.named_parameters()] == [
        "in_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias"]
    assert mha.in_proj_bias.abs().sum().item() == 0 and mha.out_proj.bias.abs().sum().item() == 0
    bound = (6 / (3 * E + E)) ** 0.5  # Xavier-uniform of the (3E, E) projection
    assert mha.in_proj_weight.abs().max().item() <= bound
    x = nbgrad.randn(2, 5, E)
    out, w = mha(x, x, x)
    assert tuple(out.shape) == (2, 5, E) and tuple(w.shape) == (2, 5, 5)
    np.testing.assert_allclose(w.sum(-1).detach().numpy(), np.ones((2, 5)), rtol=1e-6)
    causal = nbgrad.nn.Transformer.generate_square_subsequent_mask(5)
    assert causal.tolist()[0] == [0.0] + [float("-inf")] * 4
    _, w = mha(x, x, x, attn_mask=causal)
    assert w.detach().numpy()[:, 0, 1:].max() == 0.0  # nothing attends to the future
    layer = nbgrad.nn.TransformerEncoderLayer(E, H, 16, batch_first=True)
    stack = nbgrad.nn.TransformerEncoder(layer, 3, norm=nbgrad.nn.LayerNorm(E))
    assert len(stack.layers) == 3 and stack.layers[0] is not layer
    assert stack.layers[0].linear1.weight is not stack.layers[1].linear1.weight
    assert tuple(stack(x, mask=causal, is_causal=True).shape) == (2, 5, E)


def test_gradients_by_finite_differences():
    nbgrad.manual_seed(0)
    mha = nbgrad.nn.MultiheadAttention(4, 2).double()
    q = nbgrad.randn(3, 1, 4, dtype=nbgrad.float64, requires_grad=True)
    mask = nbgrad.tensor([[False, True, False]] * 3)
    assert gradcheck(lambda q: mha(q, q, q, attn_mask=mask)[0], (q,))
    assert gradgradcheck(lambda q: mha(q, q, q)[0], (q,))


MHA_OPTIONS = [dict(add_bias_kv=True), dict(add_zero_attn=True), dict(kdim=5, vdim=3),
               dict(kdim=5, vdim=3, add_bias_kv=True, add_zero_attn=True, batch_first=True),
               dict(add_bias_kv=True, bias=False)]


@pytest.mark.skipif(torch is None, reason="compares with PyTorch")
@pytest.mark.parametrize("kw", MHA_OPTIONS, ids=str)
def test_attention_options_match_pytorch(kw):
    # learned extra key/value (add_bias_kv), a zero key/value (add_zero_attn), keys and values
    # of other widths (kdim / vdim: separate projections): the same seed gives the same
    # parameters (names and values), outputs, weights and gradients, under masks
    rng = np.random.default_rng(0)
    L, S, N, bf = 4, 6, 2, kw.get("batch_first", False)
    shape = (lambda T, d: (N, T, d) if bf else (T, N, d))
    data = [rng.standard_normal(shape(L, 8)), rng.standard_normal(shape(S, kw.get("kdim", 8))),
            rng.standard_normal(shape(S, kw.get("vdim", 8)))]
    masks = [(None, None), (np.triu(np.ones((L, S), bool), 1), None),
             (rng.standard_normal((L, S)), np.array([[False] * 5 + [True], [False] * 6]))]
    for attn_mask, kpm in masks:
        got = []
        for m in (nbgrad, torch):
            m.manual_seed(3)
            mha = m.nn.MultiheadAttention(8, 2, **kw).double()
            q, k, v = (m.tensor(d, requires_grad=True) for d in data)
            out, w = mha(q, k, v, attn_mask=None if attn_mask is None else m.tensor(attn_mask),
                         key_padding_mask=None if kpm is None else m.tensor(kpm),
                         average_attn_weights=False)
            ((out ** 2).sum() + w.sum()).backward()
            got.append(([n for n, _ in mha.named_parameters()],
                        [out, w, q.grad, k.grad, v.grad] + [p.grad for p in mha.parameters()]))
        assert got[0][0] == got[1][0]
        for a, b in zip(got[0][1], got[1][1]):
            np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10,
                                       atol=1e-12)
    nbgrad.manual_seed(0)
    mha = nbgrad.nn.MultiheadAttention(4, 2, **{**kw, "batch_first": False}).double()
    q = nbgrad.randn(3, 1, 4, dtype=nbgrad.float64, requires_grad=True)
    k = nbgrad.randn(2, 1, kw.get("kdim", 4), dtype=nbgrad.float64, requires_grad=True)
    vv = nbgrad.randn(2, 1, kw.get("vdim", 4), dtype=nbgrad.float64, requires_grad=True)
    assert gradcheck(lambda q, k, v: mha(q, k, v)[0], (q, k, vv))


ERRORS = [
    lambda m: m.nn.MultiheadAttention(7, 2),
    lambda m: m.nn.MultiheadAttention(0, 2),
    lambda m: m.nn.MultiheadAttention(4, 2)(m.ones(3, 1, 4), m.ones(3, 1, 4), m.ones(3, 1, 4),
                                            is_causal=True),
    lambda m: m.nn.MultiheadAttention(4, 2)(m.ones(3, 1, 4), m.ones(3, 1, 4), m.ones(3, 1, 4),
                                            attn_mask=m.zeros(2, 3)),
    lambda m: m.nn.TransformerEncoderLayer(4, 2, activation="tanh"),
]


@pytest.mark.parametrize("call", ERRORS)
def test_errors_are_pytorchs(call):
    def error(m):
        return error_of(lambda: call(m))

    got = error(nbgrad)
    assert got is not None
    if torch is not None:
        want = error(torch)
        assert got[0] is want[0]
        assert got[1].replace("nbgrad.Size", "torch.Size") == want[1]
