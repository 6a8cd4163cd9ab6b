"""Lazy layers against PyTorch's: reprs before and after the first call, the class they
become, the shapes and (same seed) values their parameters get, outputs; an optimizer made
before the first call; load_state_dict into an uninitialized module; errors."""

import numpy as np
import pytest

import nbgrad

torch = pytest.importorskip("torch")

CASES = [
    ("LazyLinear", (3,), (2, 5)), ("LazyLinear", (3, False), (4, 2, 5)),
    ("LazyConv1d", (4, 3), (3, 7)), ("LazyConv2d", (4, 3), (2, 3, 6, 6)),
    ("LazyConv2d", (4, 3, 1, 1, 1, 1, False), (2, 4, 5, 5)), ("LazyConv3d", (2, 2), (1, 3, 4, 4, 4)),
    ("LazyConvTranspose1d", (2, 3), (2, 3, 4)), ("LazyConvTranspose2d", (4, 3, 2), (2, 3, 5, 5)),
    ("LazyConvTranspose3d", (2, 2), (1, 3, 2, 3, 2)),
    ("LazyBatchNorm1d", (), (4, 3)), ("LazyBatchNorm2d", (), (2, 3, 4, 4)),
    ("LazyBatchNorm3d", (1e-3, 0.2, True, False), (2, 3, 2, 2, 2)),
    ("LazyInstanceNorm1d", (), (2, 3, 5)), ("LazyInstanceNorm2d", (), (2, 3, 4, 4)),
    ("LazyInstanceNorm3d", (), (2, 3, 2, 3, 2)),
]


@pytest.mark.parametrize("name,args,shape", CASES, ids=[c[0] for c in CASES])
def test_lazy_layers_match_torch(name, args, shape):
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    res = []
    for m in (nbgrad, torch):
        m.manual_seed(0)
        mod = getattr(m.nn, name)(*args)
        before = repr(mod), mod.has_uninitialized_params()
        assert any(isinstance(p, m.nn.UninitializedParameter) for p in mod.parameters()) or \
            not list(mod.parameters())
        y = mod(m.tensor(x))
        y.sum().backward()
        res.append((before, repr(mod), type(mod).__name__, mod.has_uninitialized_params()
                    if hasattr(mod, "has_uninitialized_params") else False,
                    y.detach().numpy(),
                    {k: v.detach().numpy() for k, v in mod.state_dict().items()},
                    [p.grad.numpy() for p in mod.parameters()]))
    ours, theirs = res
    assert ours[:4] == theirs[:4]
    assert ours[2] == name[4:]  # (the ordinary layer, and no longer lazy)
    np.testing.assert_allclose(ours[4], theirs[4], rtol=1e-5, atol=1e-6)
    assert list(ours[5]) == list(theirs[5])
    for k in theirs[5]:
        np.testing.assert_allclose(ours[5][k], theirs[5][k], rtol=1e-5, atol=1e-6, err_msg=k)
    for a, b in zip(ours[6], theirs[6]):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def test_an_optimizer_made_before_the_first_call_trains_the_parameters():
    x = np.random.default_rng(1).standard_normal((8, 5)).astype(np.float32)
    losses = []
    for m in (nbgrad, torch):
        m.manual_seed(0)
        model = m.nn.Sequential(m.nn.LazyLinear(4), m.nn.ReLU(), m.nn.LazyLinear(1))
        opt = m.optim.Adam(model.parameters(), lr=0.05)
        out = []
        for _ in range(4):
            opt.zero_grad()
            loss = (model(m.tensor(x)) ** 2).mean()
            loss.backward()
            opt.step()
            out.append(loss.item())
        assert type(model[0]).__name__ == "Linear" and tuple(model[0].weight.shape) == (4, 5)
        losses.append(out)
    np.testing.assert_allclose(losses[0], losses[1], rtol=1e-5)


def test_load_state_dict_shapes_an_uninitialized_module():
    src = nbgrad.nn.Linear(5, 3)
    lazy = nbgrad.nn.LazyLinear(3)
    w = lazy.weight
    assert isinstance(w, nbgrad.nn.UninitializedParameter)
    assert isinstance(w, nbgrad.nn.Parameter)
    assert not isinstance(w, nbgrad.nn.UninitializedBuffer)
    lazy.load_state_dict(src.state_dict())
    assert lazy.weight is w and not isinstance(w, nbgrad.nn.UninitializedParameter)
    assert not lazy.has_uninitialized_params()
    np.testing.assert_array_equal(w.detach().numpy(), src.weight.detach().numpy())
    x = nbgrad.ones(2, 5)
    np.testing.assert_array_equal(lazy(x).detach().numpy(), src(x).detach().numpy())
    assert type(lazy) is nbgrad.nn.Linear and lazy.in_features == 5
    bn = nbgrad.nn.LazyBatchNorm1d()
    assert isinstance(bn.running_mean, nbgrad.nn.UninitializedBuffer)


def test_errors_match_torch():
    from tests._errors import assert_same_error

    def ours(text):
        return text.replace("torch.", "nbgrad.")

    assert_same_error(lambda m: m.nn.LazyConv2d(4, 3)(m.zeros(2, 3, 4, 4, 4)), torch, nbgrad,
                      ours)
    assert_same_error(lambda m: m.nn.LazyConv1d(4, 3)(m.zeros(2)), torch, nbgrad, ours)


def test_docstring_examples_run():
    import doctest

    runner = doctest.DocTestRunner()
    for test in doctest.DocTestFinder().find(nbgrad.nn.LazyLinear, "LazyLinear"):
        runner.run(test)
    assert runner.tries >= 2 and runner.failures == 0
