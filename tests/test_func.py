"""``nbgrad.func`` against ``torch.func``: vmap (dims, nesting, structures, randomness),
grad / grad_and_value / vjp / jvp / jacrev / jacfwd / hessian (values, argnums, aux,
composition, gradients through them), functional_call and stack_module_state (per-sample
gradients and a vmapped ensemble), and PyTorch's errors."""

import numpy as np
import pytest

import nbgrad
from tests._errors import assert_same_error

torch = pytest.importorskip("torch")
RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 4))
Y = RNG.standard_normal((4, 3))
V = RNG.standard_normal(4)


def _np(t):
    if isinstance(t, (tuple, list)):
        return [_np(x) for x in t]
    if isinstance(t, dict):
        return {k: _np(v) for k, v in t.items()}
    return t.detach().numpy()


def _close(a, b, rtol=1e-12):
    if isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b)
        for x, y in zip(a, b):
            _close(x, y, rtol)
    elif isinstance(a, dict):
        assert a.keys() == b.keys()
        for k in a:
            _close(a[k], b[k], rtol)
    else:
        assert a.shape == b.shape and a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=rtol, atol=1e-13)


def _both(fn):
    res = [fn(m) for m in (nbgrad, torch)]
    _close(_np(res[0]), _np(res[1]))


@pytest.mark.parametrize("call", [
    lambda m: m.func.vmap(lambda a: (a * a).sum())(m.tensor(X)),
    lambda m: m.func.vmap(m.dot, in_dims=(1, None))(m.tensor(Y), m.tensor(Y[:, 0].copy())),
    lambda m: m.func.vmap(lambda a, b: a @ b, in_dims=(0, -1))(m.tensor(X), m.tensor(Y)),
    lambda m: m.func.vmap(lambda a: (a.exp(), a.sum()), out_dims=(1, 0))(m.tensor(X)),
    lambda m: m.func.vmap(lambda d: d["x"] * d["y"], in_dims=({"x": 0, "y": None},))(
        {"x": m.tensor(X), "y": m.tensor(V)}),
    lambda m: m.func.vmap(m.func.vmap(lambda a, b: a * b, in_dims=(0, None)),
                          in_dims=(None, 0))(m.tensor(V), m.tensor(X[:, :2].copy())),
    lambda m: m.func.vmap(lambda a: [a, a.T], out_dims=-1)(m.tensor(X.reshape(2, 3, 2))),
    lambda m: m.vmap(lambda a, s: a * s, in_dims=(0, None))(m.tensor(X), 2.0),
])
def test_vmap_matches_pytorch(call):
    _both(call)


def test_vmap_gradients_flow_to_the_inputs():
    res = []
    for m in (nbgrad, torch):
        x, w = m.tensor(X, requires_grad=True), m.tensor(V, requires_grad=True)
        y = m.func.vmap(lambda r: (r * w).tanh().sum())(x)
        (y * m.arange(3.0, dtype=m.float64)).sum().backward()
        res.append([y, x.grad, w.grad])
    _close(_np(res[0]), _np(res[1]))


def test_vmap_randomness():
    for m in (nbgrad, torch):
        with pytest.raises(RuntimeError, match="called random operation while in randomness "
                                               "error mode"):
            m.func.vmap(lambda a: m.rand(2) + a)(m.ones(3))
        with pytest.raises(RuntimeError, match="called random operation"):
            m.func.vmap(lambda a: m.nn.functional.dropout(a, 0.5))(m.ones(3, 2))
    res = []
    for m in (nbgrad, torch):
        m.manual_seed(0)
        same = m.func.vmap(lambda a: m.rand(2) + a, randomness="same")(m.zeros(3))
        after = m.rand(1)  # (the generator advanced by one draw of the function)
        diff = m.func.vmap(lambda a: m.rand(2) + a, randomness="different")(m.zeros(3))
        res.append([same, after, diff])
    _close(_np(res[0][:2]), _np(res[1][:2]))
    d = res[0][2].numpy()
    assert d.shape == (3, 2) and len({tuple(r) for r in d}) == 3  # each row its own draws


@pytest.mark.parametrize("call", [
    lambda m: m.func.grad(lambda a: (a ** 3).sum())(m.tensor(X)),
    lambda m: m.func.grad(lambda a, b: (a @ b).sin().sum(), argnums=(0, 1))(
        m.tensor(X), m.tensor(Y)),
    lambda m: m.func.grad(lambda a, b: (a @ b).sum(), argnums=-1)(m.tensor(X), m.tensor(Y)),
    lambda m: m.func.grad(lambda p: (p["w"] * p["b"]).sum())(
        {"w": m.tensor(V), "b": m.tensor(V[::-1].copy())}),
    lambda m: m.func.grad(lambda a: ((a ** 2).sum(), a.mean()), has_aux=True)(m.tensor(X)),
    lambda m: m.func.grad_and_value(lambda a: a.exp().sum())(m.tensor(V)),
    lambda m: m.func.grad(m.func.grad(lambda a: a.sin() * a))(m.tensor(0.7, dtype=m.float64)),
    lambda m: m.func.vmap(m.func.grad(lambda a: (a.tanh() ** 2).sum()))(m.tensor(X)),
    lambda m: m.func.vjp(lambda a, b: (a @ b, a.sum()), m.tensor(X), m.tensor(Y))[1](
        (m.tensor(np.ones((3, 3))), m.tensor(2.0, dtype=m.float64))),
    lambda m: m.func.jvp(lambda a, b: a.sin() * b, (m.tensor(V), m.tensor(V * 2)),
                         (m.tensor(V[::-1].copy()), m.tensor(np.ones(4)))),
    lambda m: m.func.jacrev(lambda a, b: (a @ b).tanh(), argnums=(0, 1))(m.tensor(X),
                                                                          m.tensor(Y)),
    lambda m: m.func.jacfwd(lambda a: a.exp().cumsum(0))(m.tensor(V)),
    lambda m: m.func.hessian(lambda a: (a.sin() ** 2).prod())(m.tensor(V)),
    lambda m: m.func.jacrev(lambda a: (a ** 2, a.sum()), has_aux=False)(m.tensor(V)),
])
def test_transforms_match_pytorch(call):
    _both(call)


def test_grad_is_differentiable_where_pytorchs_is():
    res = []
    for m in (nbgrad, torch):
        w = m.tensor(V, requires_grad=True)
        g = m.func.grad(lambda a: ((a * w) ** 2).sum())(m.tensor(V * 3))
        top = m.func.grad(lambda a: (a ** 2).sum())(m.tensor(V))
        assert g.requires_grad and not top.requires_grad
        g.sum().backward()
        res.append([g, w.grad, top])
    _close(_np(res[0]), _np(res[1]))


def test_per_sample_gradients_and_an_ensemble_with_functional_call():
    res = []
    for m in (nbgrad, torch):
        m.manual_seed(0)
        model = m.nn.Sequential(m.nn.Linear(4, 5), m.nn.Tanh(), m.nn.Linear(5, 2)).double()
        params = {k: v.detach() for k, v in model.named_parameters()}
        x, t = m.tensor(X), m.tensor([0, 1, 1])

        def loss(p, xi, ti):
            out = m.func.functional_call(model, p, (xi.unsqueeze(0),))
            return m.nn.functional.cross_entropy(out, ti.unsqueeze(0))

        per_sample = m.func.vmap(m.func.grad(loss), in_dims=(None, 0, 0))(params, x, t)
        models = [m.nn.Linear(4, 2).double() for _ in range(3)]
        p, b = m.func.stack_module_state(models)
        ens = m.func.vmap(lambda pp, bb, xx: m.func.functional_call(models[0], (pp, bb), (xx,)),
                          in_dims=(0, 0, None))(p, b, x)
        assert all(v.is_leaf and v.requires_grad for v in p.values())
        assert model[0].weight.grad is None  # (functional_call leaves the module alone)
        res.append([per_sample, ens, model(x)])
    _close(_np(res[0]), _np(res[1]))


def test_functional_call_with_buffers_ties_and_strict():
    res = []
    for m in (nbgrad, torch):
        bn = m.nn.BatchNorm1d(3).double()
        mean, var = m.zeros(3, dtype=m.float64), m.ones(3, dtype=m.float64)
        out = m.func.functional_call(bn, {"running_mean": mean, "running_var": var},
                                     m.tensor(X[:, :3].copy()))
        assert float(bn.running_mean.abs().sum()) == 0.0  # its own buffers untouched
        res.append([out, mean, var])
    _close(_np(res[0]), _np(res[1]))
    for m in (nbgrad, torch):
        lin = m.nn.Linear(2, 2)
        with pytest.raises(RuntimeError, match="Missing key"):
            m.func.functional_call(lin, {"weight": m.ones(2, 2)}, (m.ones(2),), strict=True)
        with pytest.raises(ValueError, match="appeared in multiple dictionaries"):
            m.func.functional_call(lin, ({"bias": m.ones(2)}, {"bias": m.ones(2)}),
                                   (m.ones(2),))


@pytest.mark.parametrize("call", [
    lambda m: m.func.vmap(lambda a: a.sum())(m.tensor(1.0)),
    lambda m: m.func.vmap(lambda a, b: a + b)(m.ones(3), m.ones(4)),
    lambda m: m.func.vmap(lambda a: a, in_dims=1)(m.ones(3)),
    lambda m: m.func.vmap(lambda a: a, in_dims=None)(m.ones(3)),
    lambda m: m.func.vmap(lambda a: a, in_dims=(None,))(m.ones(3)),
    lambda m: m.func.vmap(lambda a: a, in_dims=(0,))(3.0),
    lambda m: m.func.vmap(lambda a: a, randomness="bad")(m.ones(3)),
    lambda m: m.func.vmap(lambda: 1)(),
    lambda m: m.func.vmap(lambda a: 3)(m.ones(3)),
    lambda m: m.func.grad(lambda a: a * 2)(m.ones(3)),
    lambda m: m.func.grad(lambda a: a.sum(), argnums=1)(m.ones(3)),
    lambda m: m.func.grad(lambda a: (a.sum(), 1))(m.ones(3)),
    lambda m: m.func.grad(lambda a: a.sum(), has_aux=True)(m.ones(3)),
    lambda m: m.func.grad(lambda a: a.sum())(3.0),
    lambda m: m.func.jvp(lambda a: a, (m.ones(3),), (m.ones(2),)),
    lambda m: m.func.jvp(lambda a: a, m.ones(3), m.ones(3)),
])
def test_errors_are_pytorchs(call):
    assert_same_error(call, torch, nbgrad, lambda text: text)


def test_linearize_functionalize_and_batch_norm_replacement_as_torch():
    x = np.array([1.0, 2.0, 0.5])
    got = []
    for m in (nbgrad, torch):
        f = (lambda t: t.sin() * t + (t * t).sum())
        out, jvp_fn = m.func.linearize(f, m.tensor(x))
        got.append((out.numpy(), out.requires_grad, jvp_fn(m.ones(3, dtype=m.float64)).numpy(),
                    jvp_fn(m.tensor([0.0, 1.0, 0.0], dtype=m.float64)).numpy()))
        bn = m.nn.Sequential(m.nn.BatchNorm1d(3), m.nn.Linear(3, 2))
        m.func.replace_all_batch_norm_modules_(bn)
        assert bn[0].running_mean is None and not bn[0].track_running_stats

        def g(a):
            b = a.clone()
            b.add_(1)
            return b * 2
        assert m.func.functionalize(g)(m.tensor([1.0, 2.0])).tolist() == [4.0, 6.0]
    for a, b in zip(*got):
        np.testing.assert_allclose(a, b, rtol=1e-12) if isinstance(a, np.ndarray) else None
        assert not isinstance(a, np.ndarray) or a.dtype == b.dtype
    assert got[0][1] == got[1][1]
    for call in (lambda m: m.func.linearize(lambda t: t * 2, m.ones(2))[1](m.ones(3)),
                 lambda m: m.func.linearize(lambda t: t * 2, m.ones(2))[1](
                     m.ones(2, dtype=m.float64))):
        assert_same_error(call, torch, nbgrad, lambda t: t.replace("torch.", "nbgrad."))


def test_docstring_examples_run():
    import doctest

    from nbgrad import func

    res = doctest.testmod(func, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert res.attempted and not res.failed
