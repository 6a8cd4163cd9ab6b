"""nn containers (ModuleDict, ParameterList, ParameterDict), Softmax / LogSoftmax / NLLLoss /
Unflatten modules and nn.utils (gradient clipping, parameter vectors), against PyTorch."""

import doctest

import numpy as np
import pytest

import nbgrad

torch = pytest.importorskip("torch")


def _np(t):
    return t.detach().numpy()


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e)
    return None


def _model(lib):
    nn = lib.nn
    lib.manual_seed(0)
    m = nn.Module()
    m.heads = nn.ModuleDict({"b": nn.Linear(2, 3), "a": nn.Linear(3, 1)})
    m.heads["c"] = nn.Identity()
    m.scales = nn.ParameterList([lib.ones(2), nn.Parameter(lib.zeros(3))])
    m.scales.append(lib.full((1,), 2.0))
    m.extra = nn.ParameterDict({"w": lib.ones(2)})
    m.extra["v"] = lib.zeros(4)
    return m


def test_containers_register_what_pytorch_registers():
    ours, theirs = _model(nbgrad), _model(torch)
    names = [n for n, _ in ours.named_parameters()]
    assert names == [n for n, _ in theirs.named_parameters()]
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert all(p.requires_grad for p in ours.parameters())
    assert isinstance(ours.scales[0], nbgrad.nn.Parameter)
    assert list(ours.heads) == ["b", "a", "c"] and "a" in ours.heads and len(ours.heads) == 3
    assert list(ours.heads.keys()) == list(theirs.heads.keys())
    popped = ours.heads.pop("a")
    assert isinstance(popped, nbgrad.nn.Linear) and list(ours.heads) == ["b", "c"]
    assert [p.shape[0] for p in ours.scales] == [2, 3, 1] and len(ours.scales[1:]) == 2
    assert list(ours.extra) == ["w", "v"] and ours.extra.get("nope", 7) == 7
    assert ours.extra.pop("w").shape == (2,) and list(ours.extra) == ["v"]
    del ours.scales, ours.extra
    assert [n for n, _ in ours.named_parameters()] == ["heads.b.weight", "heads.b.bias"]


@pytest.mark.parametrize("make", [
    lambda nn: nn.ModuleDict(5),
    lambda nn: nn.ModuleDict([("a", nn.Identity()), 3]),
    lambda nn: nn.ModuleDict([("a", nn.Identity(), 1)]),
    lambda nn: nn.ModuleDict({"a": 3}),
    lambda nn: nn.ParameterDict(5),
    lambda nn: nn.ParameterDict([("a",)]),
    lambda nn: nn.ParameterList(5),
])
def test_container_errors_match_pytorch(make):
    ours, theirs = _error(lambda: make(nbgrad.nn)), _error(lambda: make(torch.nn))
    assert ours is not None
    assert ours[0] == theirs[0]
    assert ours[1].replace("nbgrad", "torch") == theirs[1]


def test_softmax_logsoftmax_nllloss_and_unflatten_modules():
    x = np.random.default_rng(0).standard_normal((4, 5)).astype(np.float32)
    y = np.array([0, 4, 2, 4])
    w = np.linspace(0.5, 1.5, 5).astype(np.float32)
    for name, make, args in [
        ("Softmax", lambda nn: nn.Softmax(dim=1), ()),
        ("LogSoftmax", lambda nn: nn.LogSoftmax(dim=0), ()),
        ("NLLLoss", lambda nn: nn.NLLLoss(weight=None), (y,)),
        ("NLLLoss weighted sum", lambda nn: nn.NLLLoss(reduction="sum", ignore_index=2), (y,)),
        ("Unflatten", lambda nn: nn.Unflatten(-1, (5, 1)), ()),
    ]:
        outs = []
        for lib in (nbgrad, torch):
            m = make(lib.nn)
            if "weighted" in name:
                m = lib.nn.NLLLoss(weight=lib.from_numpy(w), reduction="sum", ignore_index=2)
            xt = lib.from_numpy(x.copy()).requires_grad_()
            out = m(xt, *[lib.from_numpy(a) for a in args])
            out.sum().backward()
            outs.append((_np(out), _np(xt.grad), repr(m)))
        np.testing.assert_allclose(outs[0][0], outs[1][0], rtol=1e-6, atol=1e-6, err_msg=name)
        np.testing.assert_allclose(outs[0][1], outs[1][1], rtol=1e-6, atol=1e-6, err_msg=name)
        assert outs[0][2] == outs[1][2], name
    assert "weight" in nbgrad.nn.NLLLoss(weight=nbgrad.ones(3)).state_dict()
    assert _error(lambda: nbgrad.nn.Unflatten(1, 6)) == _error(lambda: torch.nn.Unflatten(1, 6))


def _grads_of(lib, scale):
    rng = np.random.default_rng(1)
    ps = [lib.nn.Parameter(lib.from_numpy(rng.standard_normal(s).astype(np.float32)))
          for s in ((3, 4), (4,), (2, 2))]
    loss = sum(((p * scale) ** 2).sum() for p in ps)
    loss.backward()
    return ps


@pytest.mark.parametrize("norm_type", [2.0, 1.0, float("inf"), 3])
@pytest.mark.parametrize("max_norm", [0.5, 1e6])
def test_clip_grad_norm_matches_pytorch(norm_type, max_norm):
    res = []
    for lib in (nbgrad, torch):
        ps = _grads_of(lib, 3.0)
        total = lib.nn.utils.clip_grad_norm_(ps, max_norm, norm_type=norm_type)
        res.append((float(total), [_np(p.grad) for p in ps]))
    assert res[0][0] == pytest.approx(res[1][0], rel=1e-5)
    for a, b in zip(res[0][1], res[1][1]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_clip_grad_edge_cases_match_pytorch():
    assert float(nbgrad.nn.utils.clip_grad_norm_([nbgrad.nn.Parameter(nbgrad.ones(2))], 1.0)) == 0
    msgs = []
    for lib in (nbgrad, torch):
        p = lib.nn.Parameter(lib.ones(2))
        p.grad = lib.tensor([float("inf"), 1.0])
        msgs.append(_error(lambda p=p, lib=lib: lib.nn.utils.clip_grad_norm_(
            p, 1.0, error_if_nonfinite=True)))
    assert msgs[0] == msgs[1] and msgs[0][0] == "RuntimeError"
    vals = []
    for lib in (nbgrad, torch):
        ps = _grads_of(lib, 2.0)
        lib.nn.utils.clip_grad_value_(ps, 1.5)
        vals.append([_np(p.grad) for p in ps])
    for a, b in zip(*vals):
        np.testing.assert_array_equal(a, b)


def test_parameters_to_vector_and_back_match_pytorch():
    out = []
    for lib in (nbgrad, torch):
        ps = [lib.nn.Parameter(lib.arange(6.0).reshape(2, 3)), lib.nn.Parameter(lib.ones(2))]
        v = lib.nn.utils.parameters_to_vector(ps)
        v.sum().backward()  # (part of the graph)
        lib.nn.utils.vector_to_parameters(v * 2, ps)
        out.append((_np(v), [_np(p) for p in ps], _np(ps[0].grad)))
    np.testing.assert_array_equal(out[0][0], out[1][0])
    for a, b in zip(out[0][1], out[1][1]):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(out[0][2], out[1][2])
    err = _error(lambda: nbgrad.nn.utils.vector_to_parameters([1.0], []))
    assert err == ("TypeError", "expected torch.Tensor, but got: list")


def test_the_docstring_examples_run():
    from nbgrad.nn.modules import activation, container, flatten
    from nbgrad.nn.utils import clip_grad, convert_parameters

    for mod in (activation, container, flatten, clip_grad, convert_parameters):
        res = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
        assert res.attempted and not res.failed, mod.__name__
