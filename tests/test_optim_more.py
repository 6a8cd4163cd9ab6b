"""nbgrad.optim's Adamax, NAdam, RAdam, ASGD, Rprop and LBFGS against torch.optim: the same
parameters and state over several steps, state dicts (PyTorch's contents; a round trip
resumes exactly), PyTorch's argument errors, and the docstring examples."""

import copy
import doctest
import itertools

import numpy as np
import pytest

import nbgrad
import nbgrad.nn as nn
from nbgrad.kernels.cpu import optim as OPT
from tests._errors import assert_same_error

torch = pytest.importorskip("torch")

SHAPES = [(3, 4), (5,), ()]


def _problem(dtype, seed=0):
    rng = np.random.default_rng(seed)
    init = [rng.standard_normal(s).astype(dtype) for s in SHAPES]
    targets = [rng.standard_normal(s).astype(dtype) for s in SHAPES]
    return init, targets


def _loss(lib, params, targets, k):
    """A quadratic with a small cubic term, changing with the step ``k`` (so the gradients'
    signs change too, which Rprop's rule depends on)."""
    total = 0
    for p, t in zip(params, targets):
        d = p - lib.tensor(t)
        total = total + (d * d * (1.0 + 0.1 * k)).sum() + (p * p * p).sum() * (0.3 - 0.1 * k)
    return total


def _steps(lib, opt, params, targets, ks):
    for k in ks:
        opt.zero_grad()
        _loss(lib, params, targets, k).backward()
        opt.step()


def _pair(name, kwargs, dtype, seed=0):
    init, targets = _problem(dtype, seed)
    nb = [nn.Parameter(nbgrad.tensor(a.copy())) for a in init]
    tp = [torch.nn.Parameter(torch.tensor(a.copy())) for a in init]
    return (nb, getattr(nbgrad.optim, name)(nb, **kwargs),
            tp, getattr(torch.optim, name)(tp, **kwargs), targets)


def _tol(dtype):
    return dict(rtol=1e-12, atol=1e-13) if dtype == np.float64 else dict(rtol=1e-6, atol=2e-6)


def _same_value(a, b, tol, where=""):
    """A state value of nbgrad's equals PyTorch's: tensors (dtype, shape, values), lists
    element by element, Python numbers by type and value."""
    if isinstance(b, torch.Tensor):
        assert isinstance(a, nbgrad.Tensor), where
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1], where
        assert tuple(a.shape) == tuple(b.shape), where
        np.testing.assert_allclose(a.detach().cpu().numpy(), b.detach().numpy(), **tol,
                                   err_msg=where)
    elif isinstance(b, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            _same_value(x, y, tol, f"{where}[{i}]")
    else:
        assert type(a) is type(b), (where, a, b)
        if isinstance(b, float):
            np.testing.assert_allclose(a, b, **tol, err_msg=where)
        else:
            assert a == b, where


def _same_state(o1, nb, o2, tp, tol):
    for p, q in zip(nb, tp):
        s1, s2 = o1.state[p], o2.state[q]
        assert list(s1) == list(s2)  # PyTorch's keys, in its order
        for k in s2:
            _same_value(s1[k], s2[k], tol, k)


CASES = [
    ("Adamax", dict()),
    ("Adamax", dict(lr=0.1, weight_decay=0.1, foreach=None)),
    ("Adamax", dict(lr=0.1, betas=(0.3, 0.5), eps=1e-3, maximize=True)),  # lerp's other side
    ("NAdam", dict()),
    ("NAdam", dict(lr=0.1, weight_decay=0.1, foreach=None)),
    ("NAdam", dict(lr=0.1, weight_decay=0.1, decoupled_weight_decay=True)),
    ("NAdam", dict(lr=0.1, momentum_decay=0.1, betas=(0.4, 0.9), maximize=True)),
    ("RAdam", dict()),
    ("RAdam", dict(lr=0.1, weight_decay=0.1, foreach=None)),
    ("RAdam", dict(lr=0.1, betas=(0.3, 0.9))),  # lerp's other side
    ("RAdam", dict(lr=0.1, betas=(0.4, 0.7), weight_decay=0.1, decoupled_weight_decay=True,
                   maximize=True)),
    ("ASGD", dict()),
    ("ASGD", dict(lr=0.1, lambd=0.1, t0=2, weight_decay=0.1, foreach=None)),  # averaging
    ("ASGD", dict(lr=0.1, alpha=0.5, t0=0, maximize=True)),
    ("Rprop", dict()),
    ("Rprop", dict(lr=0.1, etas=(0.3, 1.5), step_sizes=(0.05, 0.2), foreach=None)),
    ("Rprop", dict(lr=0.1, maximize=True)),
]


# (float64 and float32 by turns: every optimizer has cases in both; each dtype compiles its
# update bodies again, which doubled the file's time)
@pytest.mark.parametrize("name,kwargs,dtype", [
    (n, kw, dt) for (n, kw), dt in zip(CASES, itertools.cycle([np.float64, np.float32]))])
def test_steps_and_state_match_torch(name, kwargs, dtype):
    # RAdam's rectified step starts at step 6 at the soonest (rho_t > 5)
    n = 8 if name == "RAdam" else 5
    nb, o1, tp, o2, targets = _pair(name, kwargs, dtype)
    _steps(nbgrad, o1, nb, targets, range(n))
    _steps(torch, o2, tp, targets, range(n))
    for a, b in zip(nb, tp):
        assert a.dtype == getattr(nbgrad, str(b.dtype).split(".")[-1])
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), **_tol(dtype))
    _same_state(o1, nb, o2, tp, _tol(dtype))
    assert o1.state[nb[0]]["step"].item() == n


@pytest.mark.parametrize("name,kwargs", [CASES[1], CASES[5], CASES[9], CASES[12], CASES[15]])
def test_state_dict_matches_torch_and_resumes(name, kwargs):
    """After 3 steps the state dicts hold PyTorch's contents; then nbgrad's optimizer loaded
    from its own state dict, and one loaded from PyTorch's, take 2 more steps as PyTorch's
    loaded one does."""
    nb, o1, tp, o2, targets = _pair(name, kwargs, np.float64)
    _steps(nbgrad, o1, nb, targets, range(3))
    _steps(torch, o2, tp, targets, range(3))
    sd, tsd = o1.state_dict(), copy.deepcopy(o2.state_dict())
    assert list(sd["state"]) == list(tsd["state"]) == [0, 1, 2]
    for i in tsd["state"]:
        assert list(sd["state"][i]) == list(tsd["state"][i])
        for k, v in tsd["state"][i].items():
            _same_value(sd["state"][i][k], v, _tol(np.float64), k)
    (g1,), (g2,) = sd["param_groups"], tsd["param_groups"]
    # (PyTorch's foreach / fused / capturable / differentiable switches included)
    assert set(g1) == set(g2)
    assert all(g1[k] == g2[k] for k in g1)

    def fresh(lib, params):
        copies = [lib.nn.Parameter(p.detach().clone()) for p in params]
        return copies, getattr(lib.optim, name)(copies, lr=123.0)

    def to_nb(v):
        if isinstance(v, torch.Tensor):
            return nbgrad.tensor(v.detach().numpy().copy())
        return {k: to_nb(x) for k, x in v.items()} if isinstance(v, dict) else v

    (nb_r, o3), (t_r, o4), (nb_t, o5) = fresh(nbgrad, nb), fresh(torch, tp), fresh(nbgrad, nb)
    o3.load_state_dict(sd)
    o4.load_state_dict(copy.deepcopy(tsd))
    o5.load_state_dict({"state": to_nb(tsd["state"]), "param_groups": tsd["param_groups"]})
    assert o3.param_groups[0]["lr"] == o5.param_groups[0]["lr"] == kwargs.get("lr", 1e-2)
    for lib, opt, params in ((nbgrad, o1, nb), (torch, o2, tp), (nbgrad, o3, nb_r),
                             (torch, o4, t_r), (nbgrad, o5, nb_t)):
        _steps(lib, opt, params, targets, range(3, 5))
    tol = _tol(np.float64)
    for a, b, c, d, e in zip(nb, tp, nb_r, t_r, nb_t):
        for x, y in ((a, b), (c, d), (e, d)):
            np.testing.assert_allclose(x.detach().numpy(), y.detach().numpy(), **tol)
        if name not in ("NAdam", "ASGD"):
            # (their float32 scalar state, cast to the parameter's dtype by loading as in
            # PyTorch, goes on in float64: a resumed run differs in the last bits)
            assert np.array_equal(a.detach().numpy(), c.detach().numpy())
    _same_state(o3, nb_r, o4, t_r, tol)
    _same_state(o5, nb_t, o4, t_r, tol)


def _p(lib):
    return [lib.nn.Parameter(lib.ones(2))]


@pytest.mark.parametrize("call", [
    lambda L: L.optim.Adamax(_p(L), lr=-1.0),
    lambda L: L.optim.Adamax(_p(L), lr=L.tensor([0.1, 0.2])),
    lambda L: L.optim.Adamax(_p(L), eps=-1e-8),
    lambda L: L.optim.Adamax(_p(L), betas=(1.0, 0.9)),
    lambda L: L.optim.Adamax(_p(L), betas=(0.9, -0.1)),
    lambda L: L.optim.Adamax(_p(L), weight_decay=-0.5),
    lambda L: L.optim.NAdam(_p(L), lr=-0.1),
    lambda L: L.optim.NAdam(_p(L), betas=(0.9, 1.5)),
    lambda L: L.optim.NAdam(_p(L), momentum_decay=-1e-3),
    lambda L: L.optim.NAdam(_p(L), weight_decay=-1),
    lambda L: L.optim.RAdam(_p(L), eps=-1.0),
    lambda L: L.optim.RAdam(_p(L), betas=(-0.1, 0.9)),
    lambda L: L.optim.RAdam(_p(L), weight_decay=-0.1),
    lambda L: L.optim.ASGD(_p(L), lr=-0.01),
    lambda L: L.optim.ASGD(_p(L), weight_decay=-0.01),
    lambda L: L.optim.Rprop(_p(L), lr=-0.01),
    lambda L: L.optim.Rprop(_p(L), etas=(1.5, 2.0)),
    lambda L: L.optim.Rprop(_p(L), etas=(0.5, 0.9)),
    lambda L: L.optim.Rprop(_p(L), etas=(0.0, 1.2)),
    lambda L: L.optim.LBFGS(_p(L), lr=-1),
    lambda L: L.optim.LBFGS([{"params": _p(L)}, {"params": _p(L), "lr": 0.1}]),
    lambda L: L.optim.Rprop([]),
    lambda L: L.optim.NAdam(L.ones(2)),
])
def test_argument_errors_are_pytorchs(call):
    assert_same_error(call, torch, nbgrad, expected=lambda s: s.replace("torch.", "nbgrad."))


def test_lbfgs_refuses_unknown_line_search_at_step():
    def run(lib):
        w = lib.nn.Parameter(lib.ones(2))
        opt = lib.optim.LBFGS([w], line_search_fn="backtracking")

        def closure():
            opt.zero_grad()
            loss = (w * w).sum()
            loss.backward()
            return loss

        opt.step(closure)

    assert_same_error(run, torch, nbgrad)


# ----- LBFGS ----------------------------------------------------------------------------------


def _rosenbrock(lib, x, data):
    return (100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2).sum()


def _least_squares(lib, x, data):
    a, b = data
    r = lib.matmul(lib.tensor(a), x) - lib.tensor(b)
    return (r * r).sum()


def _lbfgs_runs(problem, kwargs, dtype, calls, split=None):
    """``calls`` LBFGS steps in nbgrad and in torch from the same start; with ``split``,
    nbgrad's optimizer is rebuilt from its state dict after that many steps."""
    rng = np.random.default_rng(0)
    x0 = rng.standard_normal(6).astype(dtype)
    data = (rng.standard_normal((8, 6)).astype(dtype), rng.standard_normal(8).astype(dtype))
    out = []
    for lib in (nbgrad, torch):
        x = lib.tensor(x0.copy(), requires_grad=True)
        opt = lib.optim.LBFGS([x], **kwargs)

        def closure():
            opt.zero_grad()
            loss = problem(lib, x, data)
            loss.backward()
            return loss

        losses = []
        for i in range(calls):
            if lib is nbgrad and i == split:
                sd = opt.state_dict()
                x = nn.Parameter(x.detach().clone())
                opt = nbgrad.optim.LBFGS([x])
                opt.load_state_dict(sd)
            losses.append(opt.step(closure).item())
        out.append((x, opt, losses))
    return out


@pytest.mark.parametrize("problem", [_least_squares, _rosenbrock])
@pytest.mark.parametrize("kwargs", [
    dict(),
    dict(line_search_fn="strong_wolfe"),
    dict(lr=0.5, max_iter=7, history_size=3, line_search_fn="strong_wolfe"),
    dict(lr=0.2, max_iter=5, max_eval=4, history_size=2),
    dict(max_iter=50, tolerance_grad=1e-3, tolerance_change=1e-6,
         line_search_fn="strong_wolfe"),
])
def test_lbfgs_matches_torch(problem, kwargs):
    (x, o1, l1), (y, o2, l2) = _lbfgs_runs(problem, kwargs, np.float64, 3)
    np.testing.assert_allclose(l1, l2, rtol=1e-9, atol=1e-14)
    np.testing.assert_allclose(x.detach().numpy(), y.detach().numpy(), rtol=1e-10,
                               atol=1e-12)
    s1, s2 = o1.state[x], o2.state[y]
    assert list(s1) == list(s2)
    for k in s2:
        _same_value(s1[k], s2[k], dict(rtol=1e-6, atol=1e-9), k)


def test_lbfgs_float32_and_state_dict_resume():
    (x, o1, l1), (y, o2, l2) = _lbfgs_runs(_rosenbrock, dict(line_search_fn="strong_wolfe"),
                                           np.float32, 1)
    assert x.dtype == nbgrad.float32 and o1.state[x]["d"].dtype == nbgrad.float32
    np.testing.assert_allclose(l1, l2, rtol=1e-6)
    np.testing.assert_allclose(x.detach().numpy(), y.detach().numpy(), rtol=1e-4, atol=1e-4)
    kw = dict(max_iter=4, history_size=3, line_search_fn="strong_wolfe")
    (a, _, la), _ = _lbfgs_runs(_least_squares, kw, np.float64, 3)
    (b, _, lb), _ = _lbfgs_runs(_least_squares, kw, np.float64, 3, split=1)
    assert la == lb and np.array_equal(a.detach().numpy(), b.detach().numpy())


def test_lbfgs_optimal_start_returns_at_once():
    w = nn.Parameter(nbgrad.tensor([3.0, 4.0]))
    opt = nbgrad.optim.LBFGS([w])
    calls = []

    def closure():
        calls.append(1)
        opt.zero_grad()
        loss = ((w - nbgrad.tensor([3.0, 4.0])) ** 2).sum()
        loss.backward()
        return loss

    assert opt.step(closure).item() == 0.0
    assert len(calls) == 1 and dict(opt.state[w]) == {"func_evals": 1, "n_iter": 0}


# ----- kernels and docs -----------------------------------------------------------------------


def test_parallel_kernel_variants_match_serial():
    """The parallel loops (used from _par.PARALLEL_MIN elements) compute what the serial ones
    do. (float32 only: each parallel loop takes seconds to compile, and float32 is where the
    loops vectorize.)"""
    from nbgrad.kernels import updates as U

    rng = np.random.default_rng(0)
    n = 1000
    for dt in (np.float32,):
        p, g, m, v = (rng.standard_normal(n).astype(dt) for _ in range(4))
        v = np.abs(v) + dt(0.1)
        cases = [
            (U.adamax, (m, v), U.adamax_scalars(dt, 0.1, 0.9, 0.99, 1e-8, 0.1, True)),
            (U.nadam, (m, v), U.nadam_scalars(dt, 0.1, 0.9, 0.99, 1e-8, 0.1, 0.5, -0.1, -0.2,
                                              True, False)),
            (U.radam, (m, v), U.radam_scalars(dt, 0.1, 0.9, 0.99, 1e-8, 0.1, 0.5, 0.3, 0.8,
                                              True, False, True)),
            (U.asgd, (m,), U.asgd_scalars(dt, 0.1, 1e-2, 0.1, 0.5, False)),
            (U.rprop, (m, v), U.rprop_scalars(dt, 0.5, 1.2, 1e-6, 50.0, False)),
        ]
        for body, state, scalars in cases:
            outs = []
            for variant in OPT.loops(body):
                a = [x.copy() for x in (p, *state)]
                variant(a[0], g, tuple(a[1:]), scalars)
                outs.append(a)
            for x, y, x0 in zip(*outs, (p, *state)):
                assert x.dtype == dt and not np.array_equal(x, x0)
                np.testing.assert_array_equal(x, y)


def test_rprop_nan_and_clamp_edges_follow_torch():
    """A NaN gradient (torch.sign(NaN) is 0 on the CPU: factor 1, no move) and step-size
    bounds given the wrong way round (clamp gives the upper one)."""
    for kwargs in (dict(lr=0.1), dict(lr=0.1, step_sizes=(0.3, 0.2))):
        ps = []
        for lib in (nbgrad, torch):
            w = lib.nn.Parameter(lib.tensor([1.0, -2.0, 0.5]))
            opt = lib.optim.Rprop([w], **kwargs)
            for g in ([1.0, float("nan"), 0.0], [-1.0, 2.0, 3.0], [-1.0, float("nan"), 3.0]):
                w.grad = lib.tensor(g)
                opt.step()
            ps.append((w.detach().numpy().copy(), opt.state[w]["step_size"].numpy(),
                       opt.state[w]["prev"].numpy()))
        for a, b in zip(*ps):
            np.testing.assert_array_equal(a, b)


def test_docstring_examples_run():
    from nbgrad.optim import adamax, asgd, lbfgs, nadam, radam, rprop

    for mod in (adamax, nadam, radam, asgd, rprop, lbfgs):
        res = doctest.testmod(mod)
        assert res.attempted and not res.failed, mod.__name__
