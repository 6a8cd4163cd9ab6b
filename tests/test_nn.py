"""nn.Module, Parameter, the standard layers and nn.init, against PyTorch."""

import copy
import math
from collections import OrderedDict

import numpy as np
import pytest

import nbgrad
import nbgrad.nn as nn
import nbgrad.nn.functional as F
from nbgrad.nn import init

torch = pytest.importorskip("torch")


def T(t):
    """nbgrad tensor -> torch tensor (copy)."""
    return torch.from_numpy(np.array(t.detach().numpy()))


def N(a, requires_grad=False):
    """numpy/torch -> nbgrad tensor (copy)."""
    if isinstance(a, torch.Tensor):
        a = a.detach().numpy()
    return nbgrad.tensor(np.array(a), requires_grad=requires_grad)


def copy_weights(src_nb, dst_torch):
    """Copy every parameter and buffer of an nbgrad module into a matching torch module."""
    sd = {k: T(v) for k, v in src_nb.state_dict().items()}
    dst_torch.load_state_dict(sd)


def close(a, b, rtol=1e-5, atol=1e-6):
    a = a.detach().numpy() if hasattr(a, "detach") else a
    b = b.detach().numpy() if hasattr(b, "detach") else b
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=atol)


# ----- Parameter -------------------------------------------------------------------------------
def test_parameter_basics():
    t = nbgrad.zeros(3)
    p = nn.Parameter(t)
    assert isinstance(p, nn.Parameter) and isinstance(p, nbgrad.Tensor)
    assert p.requires_grad and p.is_leaf and p.grad_fn is None
    assert not isinstance(t, nn.Parameter)
    assert not isinstance(p * 2, nn.Parameter)
    assert not isinstance(p.detach(), nn.Parameter)
    assert not isinstance(3.0, nn.Parameter)
    # shares storage with its data
    with nbgrad.no_grad():
        p.add_(1.0)
    assert t.tolist() == [1.0, 1.0, 1.0]
    q = nn.Parameter(nbgrad.ones(2), requires_grad=False)
    assert isinstance(q, nn.Parameter) and not q.requires_grad
    # a non-leaf becomes a leaf parameter
    x = nbgrad.ones(2, requires_grad=True)
    r = nn.Parameter(x * 3)
    assert r.is_leaf and r.requires_grad
    with pytest.raises(TypeError):
        nn.Parameter([1.0, 2.0])
    with pytest.raises(RuntimeError):
        nn.Parameter(nbgrad.tensor([1, 2]))


def test_parameter_in_ops_gets_grad():
    p = nn.Parameter(nbgrad.tensor([1.0, 2.0]))
    (p * p + p).sum().backward()
    assert p.grad.tolist() == [3.0, 5.0]


# ----- Module mechanics -----------------------------------------------------------------------
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.act = nn.GELU()
        self.blocks = nn.ModuleList([nn.Linear(8, 8), nn.Tanh()])
        self.norm = nn.LayerNorm(8)
        self.head = nn.Sequential(nn.Dropout(0.25), nn.Linear(8, 3))
        self.scale = nn.Parameter(nbgrad.ones(1))
        self.register_buffer("running", nbgrad.zeros(3))
        self.register_buffer("scratch", nbgrad.zeros(2), persistent=False)

    def forward(self, x):
        x = self.act(self.fc1(x))
        for b in self.blocks:
            x = b(x)
        return self.head(self.norm(x)) * self.scale + self.running


class TNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(4, 8)
        self.act = torch.nn.GELU()
        self.blocks = torch.nn.ModuleList([torch.nn.Linear(8, 8), torch.nn.Tanh()])
        self.norm = torch.nn.LayerNorm(8)
        self.head = torch.nn.Sequential(torch.nn.Dropout(0.25), torch.nn.Linear(8, 3))
        self.scale = torch.nn.Parameter(torch.ones(1))
        self.register_buffer("running", torch.zeros(3))
        self.register_buffer("scratch", torch.zeros(2), persistent=False)

    def forward(self, x):
        x = self.act(self.fc1(x))
        for b in self.blocks:
            x = b(x)
        return self.head(self.norm(x)) * self.scale + self.running


def test_names_match_torch():
    m, tm = Net(), TNet()
    assert [n for n, _ in m.named_parameters()] == [n for n, _ in tm.named_parameters()]
    assert [n for n, _ in m.named_buffers()] == [n for n, _ in tm.named_buffers()]
    assert list(m.state_dict()) == list(tm.state_dict())
    assert [n for n, _ in m.named_modules()] == [n for n, _ in tm.named_modules()]
    assert [n for n, _ in m.named_children()] == [n for n, _ in tm.named_children()]
    assert [type(c).__name__ for c in m.children()] == [type(c).__name__ for c in tm.children()]
    assert len(list(m.modules())) == len(list(tm.modules()))
    assert [tuple(p.shape) for p in m.parameters()] == [tuple(p.shape) for p in tm.parameters()]
    assert [n for n, _ in m.named_parameters(recurse=False)] == ["scale"]
    assert repr(m) == repr(tm)[1:]  # "TNet(" vs "Net("


def test_repr_matches_torch():
    cases = [
        (nn.Linear(3, 4, bias=False), torch.nn.Linear(3, 4, bias=False)),
        (nn.ReLU(), torch.nn.ReLU()),
        (nn.ReLU(inplace=True), torch.nn.ReLU(inplace=True)),
        (nn.GELU(approximate="tanh"), torch.nn.GELU(approximate="tanh")),
        (nn.Dropout(0.1), torch.nn.Dropout(0.1)),
        (nn.LayerNorm((2, 3), eps=1e-6), torch.nn.LayerNorm((2, 3), eps=1e-6)),
        (nn.Embedding(10, 3, padding_idx=0), torch.nn.Embedding(10, 3, padding_idx=0)),
        (nn.Conv2d(2, 4, 3, stride=2, padding=1, bias=False),
         torch.nn.Conv2d(2, 4, 3, stride=2, padding=1, bias=False)),
        (nn.Conv2d(4, 4, (3, 1), groups=2, dilation=2),
         torch.nn.Conv2d(4, 4, (3, 1), groups=2, dilation=2)),
        (nn.MSELoss(), torch.nn.MSELoss()),
        (nn.CrossEntropyLoss(), torch.nn.CrossEntropyLoss()),
        (nn.Flatten(), torch.nn.Flatten()),
        (nn.Sequential(OrderedDict(a=nn.Linear(1, 2), b=nn.Sequential(nn.Tanh()))),
         torch.nn.Sequential(OrderedDict(a=torch.nn.Linear(1, 2), b=torch.nn.Sequential(torch.nn.Tanh())))),
    ]
    for a, b in cases:
        assert repr(a) == repr(b)


def test_forward_and_backward_match_torch():
    nbgrad.manual_seed(0)
    m, tm = Net(), TNet()
    with nbgrad.no_grad():
        m.running.copy_(nbgrad.tensor([0.1, -0.2, 0.3]))
    copy_weights(m, tm)
    m.eval()
    tm.eval()
    x = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    y = m(N(x))
    ty = tm(torch.from_numpy(x))
    close(y, ty)
    y.sum().backward()
    ty.sum().backward()
    tparams = dict(tm.named_parameters())
    for name, p in m.named_parameters():
        close(p.grad, tparams[name].grad, rtol=1e-4, atol=1e-5)


def test_train_eval_and_dropout():
    m = Net()
    assert m.training and m.head[0].training
    m.eval()
    assert not m.training and not m.head[0].training and not m.blocks[1].training
    x = nbgrad.randn(4, 4)
    assert np.array_equal(m(x).detach().numpy(), m(x).detach().numpy())
    m.train()
    assert m.head[0].training
    with pytest.raises(ValueError):
        m.train("yes")
    d = nn.Dropout(0.5)
    z = d(nbgrad.ones(1000))
    vals = set(np.unique(z.numpy()).tolist())
    assert vals <= {0.0, 2.0} and len(vals) == 2
    with pytest.raises(ValueError):
        nn.Dropout(1.5)


def test_state_dict_roundtrip_and_sharing():
    m1, m2 = Net(), Net()
    sd = m1.state_dict()
    assert "scratch" not in sd and "running" in sd
    assert all(not v.requires_grad for v in sd.values())
    assert sd["fc1.weight"]._data is m1.fc1.weight._data  # shares storage
    keep = m1.state_dict(keep_vars=True)
    assert keep["fc1.weight"] is m1.fc1.weight
    res = m2.load_state_dict(sd)
    assert res.missing_keys == [] and res.unexpected_keys == []
    assert repr(res) == "<All keys matched successfully>"
    for (k, a), (_, b) in zip(m1.state_dict().items(), m2.state_dict().items()):
        assert np.array_equal(a.numpy(), b.numpy()), k
    # load copies into the existing parameters (identity and storage kept)
    w = m2.fc1.weight
    m2.load_state_dict(Net().state_dict())
    assert m2.fc1.weight is w and isinstance(w, nn.Parameter) and w.requires_grad
    assert w._version > 0


def test_load_state_dict_strict_and_non_strict():
    m = Net()
    sd = OrderedDict(m.state_dict())
    del sd["fc1.bias"]
    sd["extra.weight"] = nbgrad.zeros(1)
    sd["fc1.nope"] = nbgrad.zeros(1)
    with pytest.raises(RuntimeError) as e:
        Net().load_state_dict(sd)
    msg = str(e.value)
    assert msg.startswith("Error(s) in loading state_dict for Net:")
    assert 'Missing key(s) in state_dict: "fc1.bias".' in msg
    assert '"extra.weight"' in msg and '"fc1.nope"' in msg
    res = Net().load_state_dict(sd, strict=False)
    assert res.missing_keys == ["fc1.bias"]
    assert sorted(res.unexpected_keys) == ["extra.weight", "fc1.nope"]
    # torch reports the same keys
    tm = TNet()
    tsd = {k: T(v) for k, v in sd.items()}
    tres = tm.load_state_dict(tsd, strict=False)
    assert tres.missing_keys == res.missing_keys
    assert sorted(tres.unexpected_keys) == sorted(res.unexpected_keys)
    # shape mismatches raise even when not strict, in torch's words
    bad = m.state_dict()
    bad["fc1.weight"] = nbgrad.zeros(2, 2)
    with pytest.raises(RuntimeError, match=r"size mismatch for fc1.weight: copying a param with "
                                           r"shape nbgrad.Size\(\[2, 2\]\) from checkpoint, the "
                                           r"shape in current model is nbgrad.Size\(\[8, 4\]\)"):
        Net().load_state_dict(bad, strict=False)


def test_load_state_dict_assign():
    m = nn.Linear(2, 3)
    w = nbgrad.randn(3, 2)
    b = nbgrad.randn(3)
    m.load_state_dict({"weight": w, "bias": b}, assign=True)
    assert isinstance(m.weight, nn.Parameter) and m.weight.requires_grad
    assert m.weight._data is w._data


def test_load_torch_state_dict_values():
    tm = TNet()
    m = Net()
    m.load_state_dict({k: N(v) for k, v in tm.state_dict().items()})
    for (k, a), (_, b) in zip(m.state_dict().items(), tm.state_dict().items()):
        close(a, b, rtol=0, atol=0)


def test_zero_grad_and_requires_grad():
    m = nn.Linear(3, 2)
    m(nbgrad.randn(4, 3)).sum().backward()
    assert m.weight.grad is not None
    m.zero_grad(set_to_none=False)
    assert m.weight.grad is not None and not m.weight.grad.numpy().any()
    m.zero_grad()
    assert m.weight.grad is None and m.bias.grad is None
    m.requires_grad_(False)
    assert not any(p.requires_grad for p in m.parameters())
    assert not m(nbgrad.randn(1, 3)).requires_grad


def test_setattr_rules():
    m = nn.Module()
    m.w = nn.Parameter(nbgrad.ones(2))
    assert "w" in m._parameters and list(m.parameters())[0] is m.w
    with pytest.raises(TypeError, match="cannot assign"):
        m.w = nbgrad.ones(2)  # a plain tensor onto a parameter slot
    m.w = None
    assert m.w is None and list(m.parameters()) == []
    m.sub = nn.Linear(1, 1)
    assert list(dict(m.named_children())) == ["sub"]
    m.register_buffer("b", nbgrad.zeros(1))
    m.b = nbgrad.ones(1)
    assert m.b.tolist() == [1.0] and "b" in m.state_dict()
    with pytest.raises(TypeError):
        m.b = 3
    with pytest.raises(KeyError):
        m.register_buffer("sub", nbgrad.zeros(1))
    with pytest.raises(KeyError):
        m.register_parameter("a.b", None)
    with pytest.raises(AttributeError, match="'Module' object has no attribute 'nope'"):
        m.nope
    del m.sub
    assert list(m.children()) == []

    class Early(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(nbgrad.ones(1))

    with pytest.raises(AttributeError, match="before Module.__init__"):
        Early()
    with pytest.raises(NotImplementedError):
        nn.Module()(1)


def test_shared_parameters_counted_once():
    lin = nn.Linear(2, 2)
    m = nn.Sequential(lin, nn.ReLU(), lin)
    assert len(list(m.parameters())) == 2
    assert list(dict(m.named_parameters())) == ["0.weight", "0.bias"]
    assert len(list(m.named_parameters(remove_duplicate=False))) == 4


def test_apply_to_dtype_and_identity():
    m = Net()
    seen = []
    m.apply(lambda mod: seen.append(type(mod).__name__))
    assert seen[-1] == "Net" and seen[0] == "Linear"
    w = m.fc1.weight
    m(nbgrad.randn(2, 4)).sum().backward()
    m.to(nbgrad.float64)
    assert m.fc1.weight is w and w.dtype == nbgrad.float64 and w.grad.dtype == nbgrad.float64
    assert m.running.dtype == nbgrad.float64
    assert m(nbgrad.randn(2, 4, dtype=nbgrad.float64)).dtype == nbgrad.float64
    m.float()
    assert w.dtype == nbgrad.float32
    assert m.to("cpu") is m
    with pytest.raises(TypeError):
        m.to(nbgrad.int64)


def test_deepcopy_module():
    m = Net()
    m2 = copy.deepcopy(m)
    assert m2.fc1.weight is not m.fc1.weight
    assert isinstance(m2.fc1.weight, nn.Parameter) and m2.fc1.weight.requires_grad
    assert np.array_equal(m2.fc1.weight.detach().numpy(), m.fc1.weight.detach().numpy())
    with nbgrad.no_grad():
        m2.fc1.weight.fill_(0.0)
    assert m.fc1.weight.detach().numpy().any()
    assert m2.blocks[0] is not m.blocks[0] and m2.running is not m.running


def test_forward_hooks():
    m = nn.Linear(2, 2)
    calls = []
    h1 = m.register_forward_pre_hook(lambda mod, args: calls.append("pre"))
    h2 = m.register_forward_hook(lambda mod, args, out: out * 0)
    out = m(nbgrad.ones(1, 2))
    assert calls == ["pre"] and not out.detach().numpy().any()
    h1.remove()
    h2.remove()
    assert m(nbgrad.ones(1, 2)).detach().numpy().any()


def test_containers():
    seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    assert len(seq) == 3 and isinstance(seq[-1], nn.Linear)
    sub = seq[:2]
    assert isinstance(sub, nn.Sequential) and len(sub) == 2 and sub[0] is seq[0]
    seq.append(nn.Tanh())
    assert list(seq._modules) == ["0", "1", "2", "3"]
    del seq[1]
    assert list(seq._modules) == ["0", "1", "2"] and isinstance(seq[1], nn.Linear)
    assert seq(nbgrad.randn(4, 2)).shape == (4, 1)
    ml = nn.ModuleList([nn.ReLU()])
    ml.append(nn.Tanh())
    ml += [nn.GELU()]
    ml.insert(0, nn.Identity())
    assert [type(x).__name__ for x in ml] == ["Identity", "ReLU", "Tanh", "GELU"]
    assert isinstance(ml[-1], nn.GELU) and len(ml[1:]) == 3
    with pytest.raises(IndexError):
        ml[10]
    assert repr(nn.ModuleList([nn.ReLU()])) == repr(torch.nn.ModuleList([torch.nn.ReLU()]))


# ----- layers vs torch -------------------------------------------------------------------------
@pytest.mark.parametrize("bias", [True, False])
def test_linear_matches_torch(bias):
    m = nn.Linear(5, 3, bias=bias)
    tm = torch.nn.Linear(5, 3, bias=bias)
    copy_weights(m, tm)
    x = np.random.default_rng(1).standard_normal((2, 7, 5)).astype(np.float32)
    xn, xt = N(x, True), torch.from_numpy(x).requires_grad_()
    y, ty = m(xn), tm(xt)
    close(y, ty)
    y.pow(2).sum().backward()
    ty.pow(2).sum().backward()
    close(xn.grad, xt.grad, rtol=1e-4)
    close(m.weight.grad, tm.weight.grad, rtol=1e-4)


def test_layernorm_and_activations_match_torch():
    x = np.random.default_rng(2).standard_normal((3, 4, 6)).astype(np.float32)
    ln, tln = nn.LayerNorm(6), torch.nn.LayerNorm(6)
    assert ln.weight.tolist() == [1.0] * 6 and ln.bias.tolist() == [0.0] * 6
    with nbgrad.no_grad():
        init.normal_(ln.weight)
        init.normal_(ln.bias)
    copy_weights(ln, tln)
    close(ln(N(x)), tln(torch.from_numpy(x)), rtol=1e-4, atol=1e-5)
    assert nn.LayerNorm(6, elementwise_affine=False).weight is None
    for a, b in [(nn.ReLU(), torch.nn.ReLU()), (nn.GELU(), torch.nn.GELU()),
                 (nn.GELU("tanh"), torch.nn.GELU("tanh")), (nn.Tanh(), torch.nn.Tanh()),
                 (nn.Sigmoid(), torch.nn.Sigmoid()), (nn.Flatten(), torch.nn.Flatten()),
                 (nn.Identity(), torch.nn.Identity())]:
        close(a(N(x)), b(torch.from_numpy(x)), rtol=1e-5, atol=1e-6)


def test_losses_match_torch():
    rng = np.random.default_rng(3)
    logits = rng.standard_normal((6, 5)).astype(np.float32)
    target = rng.integers(0, 5, 6)
    w = rng.random(5).astype(np.float32)
    for kw in [{}, {"reduction": "sum"}, {"label_smoothing": 0.1}, {"ignore_index": 2}]:
        a = nn.CrossEntropyLoss(**kw)(N(logits), nbgrad.tensor(target))
        b = torch.nn.CrossEntropyLoss(**kw)(torch.from_numpy(logits), torch.from_numpy(target))
        close(a, b, rtol=1e-5)
    ce = nn.CrossEntropyLoss(weight=N(w))
    assert list(ce.state_dict()) == ["weight"] == list(torch.nn.CrossEntropyLoss(weight=torch.from_numpy(w)).state_dict())
    close(ce(N(logits), nbgrad.tensor(target)),
          torch.nn.CrossEntropyLoss(weight=torch.from_numpy(w))(torch.from_numpy(logits), torch.from_numpy(target)))
    assert list(nn.CrossEntropyLoss().state_dict()) == []
    y = rng.standard_normal((6, 5)).astype(np.float32)
    for red in ["mean", "sum", "none"]:
        close(nn.MSELoss(reduction=red)(N(logits), N(y)),
              torch.nn.MSELoss(reduction=red)(torch.from_numpy(logits), torch.from_numpy(y)))
    with pytest.warns(UserWarning):
        assert nn.MSELoss(size_average=False).reduction == "sum"


def test_conv2d_module():
    if not hasattr(F, "conv2d"):
        pytest.skip("nbgrad.nn.functional.conv2d not available yet")
    for kw in [dict(), dict(stride=2, padding=1), dict(padding="same", dilation=2),
               dict(groups=2, bias=False)]:
        m = nn.Conv2d(4, 6, 3, **kw)
        tm = torch.nn.Conv2d(4, 6, 3, **kw)
        assert tuple(m.weight.shape) == tuple(tm.weight.shape)
        copy_weights(m, tm)
        x = np.random.default_rng(4).standard_normal((2, 4, 9, 8)).astype(np.float32)
        xn, xt = N(x, True), torch.from_numpy(x).requires_grad_()
        y, ty = m(xn), tm(xt)
        close(y, ty, rtol=1e-4, atol=1e-5)
        y.sum().backward()
        ty.sum().backward()
        close(m.weight.grad, tm.weight.grad, rtol=1e-4, atol=1e-4)
        close(xn.grad, xt.grad, rtol=1e-4, atol=1e-4)
    with pytest.raises(ValueError):
        nn.Conv2d(3, 4, 3, groups=2)
    with pytest.raises(ValueError):
        nn.Conv2d(4, 4, 3, padding="same", stride=2)
    with pytest.raises(ValueError, match="padding_mode must be one of"):
        nn.Conv2d(4, 4, 3, padding_mode="mirror")
    assert "padding_mode=reflect" in repr(nn.Conv2d(4, 4, 3, padding_mode="reflect"))


def test_embedding_module():
    m = nn.Embedding(10, 4, padding_idx=1)
    assert m.weight[1].tolist() == [0.0] * 4
    assert nn.Embedding(10, 4, padding_idx=-1).padding_idx == 9
    with pytest.raises(AssertionError):
        nn.Embedding(10, 4, padding_idx=10)
    pre = nn.Embedding.from_pretrained(nbgrad.ones(3, 2))
    assert not pre.weight.requires_grad and isinstance(pre.weight, nn.Parameter)
    if not hasattr(F, "embedding"):
        pytest.skip("nbgrad.nn.functional.embedding not available yet")
    tm = torch.nn.Embedding(10, 4, padding_idx=1)
    copy_weights(m, tm)
    idx = np.array([[1, 2, 3], [9, 1, 0]])
    y, ty = m(nbgrad.tensor(idx)), tm(torch.from_numpy(idx))
    close(y, ty)
    y.sum().backward()
    ty.sum().backward()
    close(m.weight.grad, tm.weight.grad)


# ----- init ------------------------------------------------------------------------------------
def test_default_init_statistics():
    nbgrad.manual_seed(0)
    lin = nn.Linear(400, 300)
    bound = 1 / math.sqrt(400)  # kaiming_uniform_(a=sqrt(5)) gives the same bound
    w = lin.weight.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.98 * bound
    assert abs(w.std() - bound / math.sqrt(3)) < 0.01 * bound
    b = lin.bias.detach().numpy()
    assert np.abs(b).max() <= bound
    emb = nn.Embedding(200, 100)
    e = emb.weight.detach().numpy()
    assert abs(e.mean()) < 0.02 and abs(e.std() - 1) < 0.02
    conv = nn.Conv2d(8, 16, 3)
    cb = 1 / math.sqrt(8 * 9)
    assert np.abs(conv.weight.detach().numpy()).max() <= cb
    assert np.abs(conv.bias.detach().numpy()).max() <= cb
    assert lin.weight.dtype == nbgrad.float32
    assert nn.Linear(2, 2, dtype=nbgrad.float64).weight.dtype == nbgrad.float64


def test_seeded_init_is_reproducible():
    nbgrad.manual_seed(7)
    a = nn.Linear(3, 3).weight.detach().numpy().copy()
    nbgrad.manual_seed(7)
    b = nn.Linear(3, 3).weight.detach().numpy()
    assert np.array_equal(a, b)


def test_init_functions():
    t = nbgrad.empty(50, 60)
    v0 = t._version
    assert init.zeros_(t) is t and not t.numpy().any() and t._version > v0
    init.ones_(t)
    assert (t.numpy() == 1).all()
    init.constant_(t, 2.5)
    assert (t.numpy() == 2.5).all()
    init.uniform_(t, -2, 3)
    assert t.numpy().min() >= -2 and t.numpy().max() < 3
    init.normal_(t, 1.0, 0.5)
    assert abs(t.numpy().mean() - 1) < 0.05 and abs(t.numpy().std() - 0.5) < 0.05
    init.xavier_uniform_(t, gain=2.0)
    a = 2.0 * math.sqrt(6 / 110)
    assert np.abs(t.numpy()).max() <= a and np.abs(t.numpy()).max() > 0.95 * a
    init.kaiming_uniform_(t, mode="fan_out", nonlinearity="relu")
    assert np.abs(t.numpy()).max() <= math.sqrt(2) * math.sqrt(3 / 50)
    init.kaiming_normal_(t)
    init.xavier_normal_(t)
    init.eye_(t)
    assert t.numpy().trace() == 50
    # works on parameters that require grad, outside any graph
    p = nn.Parameter(nbgrad.zeros(2, 2))
    init.normal_(p)
    assert p.is_leaf and p.grad_fn is None
    for name, param in [("linear", None), ("tanh", None), ("relu", None), ("leaky_relu", 0.2),
                        ("selu", None), ("sigmoid", None), ("conv2d", None)]:
        assert init.calculate_gain(name, param) == pytest.approx(torch.nn.init.calculate_gain(name, param))
    with pytest.raises(ValueError):
        init.calculate_gain("nope")
    with pytest.raises(ValueError):
        init.xavier_uniform_(nbgrad.zeros(3))
    with pytest.warns(UserWarning):
        init.kaiming_uniform_(nbgrad.zeros(0, 3))
    gen = nbgrad.Generator().manual_seed(3)
    x = init.uniform_(nbgrad.empty(4), generator=gen).numpy().copy()
    assert np.array_equal(x, nbgrad.rand(4, generator=nbgrad.Generator().manual_seed(3)).numpy())


# ----- training ---------------------------------------------------------------------------------
def test_tiny_mlp_trains():
    nbgrad.manual_seed(0)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 2)).astype(np.float32)
    y = ((x[:, 0] * x[:, 1]) > 0).astype(np.int64)  # XOR-like quadrants
    model = nn.Sequential(nn.Linear(2, 32), nn.Tanh(), nn.Linear(32, 2))
    opt = nbgrad.optim.Adam(model.parameters(), lr=0.05)
    xs, ys = nbgrad.tensor(x), nbgrad.tensor(y)
    losses = []
    for _ in range(60):
        opt.zero_grad()
        loss = F.cross_entropy(model(xs), ys)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.5 * losses[0]
    acc = (model(xs).argmax(1).numpy() == y).mean()
    assert acc > 0.9


def test_parameter_repr_matches_torch():
    p = nn.Parameter(nbgrad.tensor([1.0, 2.0]))
    tp = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
    assert repr(p) == repr(tp).replace("torch", "nbgrad")
    assert repr(p * 1.0).startswith("tensor(")  # results of ops are plain tensors


def test_layer_submodules_mirror_torch():
    # every layer lives where torch keeps it (torch.nn.modules.linear.Linear, ...) and is
    # the same class under nbgrad.nn and nbgrad.nn.modules
    import importlib

    for name in nn.modules.__all__:
        tcls = getattr(torch.nn, name)
        sub = tcls.__module__.rsplit(".", 1)[1]
        ours = importlib.import_module(f"nbgrad.nn.modules.{sub}")
        assert getattr(ours, name) is getattr(nn, name) is getattr(nn.modules, name), name
        assert getattr(nn, name).__module__ == f"nbgrad.nn.modules.{sub}"
