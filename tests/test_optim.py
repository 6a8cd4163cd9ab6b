"""nbgrad.optim against torch.optim: same updates over several steps, state dicts, groups."""

import numpy as np
import pytest

import nbgrad
import nbgrad.nn as nn
from nbgrad.kernels.cpu import optim as OPT

torch = pytest.importorskip("torch")

SHAPES = [(3, 4), (5,), ()]


def _problem(dtype, seed=0):
    """Parameters and a fixed quadratic-ish loss, built identically in nbgrad and torch."""
    rng = np.random.default_rng(seed)
    init = [rng.standard_normal(s).astype(dtype) for s in SHAPES]
    targets = [rng.standard_normal(s).astype(dtype) for s in SHAPES]
    nb = [nn.Parameter(nbgrad.tensor(a.copy())) for a in init]
    tp = [torch.nn.Parameter(torch.tensor(a.copy())) for a in init]
    return nb, tp, targets


def _loss_nb(params, targets, k):
    total = None
    for p, t in zip(params, targets):
        d = p - nbgrad.tensor(t)
        term = (d * d * (1.0 + 0.1 * k)).sum() + (p * p * p).sum() * 0.01
        total = term if total is None else total + term
    return total


def _loss_t(params, targets, k):
    total = None
    for p, t in zip(params, targets):
        d = p - torch.tensor(t)
        term = (d * d * (1.0 + 0.1 * k)).sum() + (p * p * p).sum() * 0.01
        total = term if total is None else total + term
    return total


def _run(nb_cls, t_cls, kwargs, dtype=np.float64, steps=5, maximize_skip=None):
    nb, tp, targets = _problem(dtype)
    o1 = nb_cls(nb, **kwargs)
    o2 = t_cls(tp, **kwargs)
    for k in range(steps):
        o1.zero_grad()
        o2.zero_grad()
        _loss_nb(nb, targets, k).backward()
        _loss_t(tp, targets, k).backward()
        o1.step()
        o2.step()
    return nb, tp, o1, o2


def _check(nb, tp, dtype):
    rtol, atol = (1e-12, 1e-12) if dtype == np.float64 else (2e-5, 2e-6)
    for a, b in zip(nb, tp):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=rtol, atol=atol)


SGD_CASES = [
    dict(lr=0.1),
    dict(lr=0.05, weight_decay=0.1),
    dict(lr=0.05, momentum=0.9),
    dict(lr=0.05, momentum=0.9, dampening=0.3, weight_decay=0.01),
    dict(lr=0.05, momentum=0.8, nesterov=True),
    dict(lr=0.05, momentum=0.8, nesterov=True, weight_decay=0.05, maximize=True),
    dict(lr=0.05, maximize=True),
]


@pytest.mark.parametrize("kwargs", SGD_CASES)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_sgd_matches_torch(kwargs, dtype):
    nb, tp, o1, o2 = _run(nbgrad.optim.SGD, torch.optim.SGD, kwargs, dtype)
    _check(nb, tp, dtype)
    if kwargs.get("momentum"):
        for p, q in zip(nb, tp):
            np.testing.assert_allclose(o1.state[p]["momentum_buffer"].numpy(),
                                       o2.state[q]["momentum_buffer"].numpy(),
                                       rtol=1e-5, atol=1e-6)


ADAM_CASES = [
    dict(lr=0.1),
    dict(lr=0.05, betas=(0.8, 0.99), eps=1e-6),
    dict(lr=0.05, weight_decay=0.1),
    dict(lr=0.05, amsgrad=True),
    dict(lr=0.05, amsgrad=True, weight_decay=0.05, maximize=True),
    dict(lr=0.05, betas=(0.3, 0.9)),  # lerp weight >= 0.5 branch
]


@pytest.mark.parametrize("kwargs", [dict(lr=0.05), dict(lr=0.05, weight_decay=0.3, amsgrad=True),
                                    dict(lr=0.1, weight_decay=0.0)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_adamw_matches_torch(kwargs, dtype):
    nb, tp, o1, o2 = _run(nbgrad.optim.AdamW, torch.optim.AdamW, kwargs, dtype)
    _check(nb, tp, dtype)
    assert o1.defaults["weight_decay"] == 1e-2 or "weight_decay" in kwargs


ADADELTA_CASES = [
    dict(),  # lr=1.0, rho=0.9, eps=1e-6
    dict(lr=0.5, rho=0.8, eps=1e-4),
    dict(lr=1.0, weight_decay=0.1),
    dict(lr=0.7, weight_decay=0.05, maximize=True),
    dict(lr=1.0, rho=0.0),  # the bounds of rho
    dict(lr=1.0, rho=1.0),
]


RMSPROP_CASES = [
    dict(),  # lr=1e-2, alpha=0.99, eps=1e-8
    dict(lr=0.05, alpha=0.3),  # lerp weight >= 0.5 branch (centered)
    dict(lr=0.05, momentum=0.9),
    dict(lr=0.05, centered=True),
    dict(lr=0.05, alpha=0.3, centered=True, momentum=0.5, weight_decay=0.1, maximize=True),
]
ADAGRAD_CASES = [
    dict(),  # lr=1e-2, eps=1e-10
    dict(lr=0.3, lr_decay=0.1, weight_decay=0.05, initial_accumulator_value=0.2),
    dict(lr=0.3, eps=1e-3, maximize=True),
]


@pytest.mark.parametrize("name,kwargs", [("Adam", k) for k in ADAM_CASES]
                         + [("Adadelta", k) for k in ADADELTA_CASES]
                         + [("RMSprop", k) for k in RMSPROP_CASES]
                         + [("Adagrad", k) for k in ADAGRAD_CASES])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_stateful_optimizers_match_torch(name, kwargs, dtype):
    nb, tp, o1, o2 = _run(getattr(nbgrad.optim, name), getattr(torch.optim, name), kwargs,
                          dtype)
    _check(nb, tp, dtype)
    for p, q in zip(nb, tp):
        s1, s2 = o1.state[p], o2.state[q]
        assert list(s1) == list(s2)  # PyTorch's keys, in its order ("step" first)
        assert s1["step"].item() == s2["step"].item() == 5.0
        assert s1["step"].dtype == nbgrad.float32
        for k in list(s1)[1:]:
            assert s1[k].dtype == p.dtype and s1[k].shape == p.shape
            np.testing.assert_allclose(s1[k].numpy(), s2[k].numpy(), rtol=1e-5, atol=1e-7)


def test_parallel_kernel_variants_match_serial():
    """The parallel=True variants (used from _par.PARALLEL_MIN elements) compute the same,
    in float64 and float32 (hyperparameters cast to the parameter's dtype)."""
    from nbgrad.kernels import updates

    rng = np.random.default_rng(0)
    n = 1000
    for dt in (np.float64, np.float32):
        p, g, m, v, vm = (rng.standard_normal(n).astype(dt) for _ in range(5))
        v, vm = np.abs(v), np.abs(vm)
        cases = [
            (updates.adam_amsgrad, (m, v, vm),
             updates.adam_scalars(dt, 0.1, 0.9, 0.99, 1e-8, 0.1, 0.2, 0.3, False, True)),
            (updates.adam, (m, v),
             updates.adam_scalars(dt, 0.1, 0.3, 0.99, 1e-8, 0.1, 0.2, 0.3, True, False)),
            (updates.sgd_momentum, (m,),
             updates.sgd_momentum_scalars(dt, 0.1, 0.01, 0.9, 0.0, True, False, False)),
            (updates.sgd, (), updates.sgd_scalars(dt, 0.1, 0.01, True)),
            (updates.adadelta, (v, vm), updates.adadelta_scalars(dt, 0.9, 0.8, 1e-6, 0.1, True)),
            (updates.rmsprop_centered_momentum, (v, m, vm),
             updates.rmsprop_scalars(dt, 0.1, 0.9, 1e-8, 0.1, 0.5, True)),
            (updates.rmsprop, (v,), updates.rmsprop_scalars(dt, 0.1, 0.3, 1e-8, 0.0, 0.0, False)),
            (updates.adagrad, (v,), updates.adagrad_scalars(dt, 0.1, 1e-10, 0.1, True)),
        ]
        for body, state, scalars in cases:
            outs = []
            for variant in OPT.loops(body):
                a = [x.copy() for x in (p, *state)]
                variant(a[0], g, tuple(a[1:]), scalars)
                outs.append(a)
            for x, y, x0 in zip(*outs, (p, *state)):
                assert x.dtype == dt
                assert not np.array_equal(x, x0)
                np.testing.assert_array_equal(x, y)


def test_float32_update_is_float32_arithmetic():
    """A float32 parameter is updated in float32, as torch does: the hyperparameters are
    cast to the parameter's dtype, not kept in float64."""
    from nbgrad.kernels import updates

    assert all(type(x) is np.float32 for x in updates.adam_scalars(
        np.float32, 0.1, 0.9, 0.99, 1e-8, 0.1, 0.2, 0.3, True, False)[:3])
    rng = np.random.default_rng(3)
    p = rng.standard_normal(64).astype(np.float32)
    g = rng.standard_normal(64).astype(np.float32)
    q = p.copy()
    OPT.update(updates.sgd, q, g, (), updates.sgd_scalars(q.dtype, 0.1, 0.0, False))
    want = p - np.float32(0.1) * g  # float32 throughout
    np.testing.assert_array_equal(q, want)


def test_params_without_grad_are_skipped_and_versions_bump():
    a = nn.Parameter(nbgrad.ones(3))
    b = nn.Parameter(nbgrad.ones(3))
    opt = nbgrad.optim.Adam([a, b], lr=0.1)
    (a * 2).sum().backward()
    va, vb = a._version, b._version
    opt.step()
    assert a._version > va and b._version == vb
    assert b.tolist() == [1.0, 1.0, 1.0] and b not in opt.state
    assert a.detach().numpy().max() < 1.0


def test_non_contiguous_parameter():
    base = nbgrad.tensor(np.arange(12.0).reshape(3, 4))
    p = base.t().requires_grad_()  # a non-contiguous leaf sharing base's storage
    assert not p.is_contiguous()
    tq = torch.tensor(np.arange(12.0).reshape(3, 4)).t().detach().requires_grad_()
    o1 = nbgrad.optim.SGD([p], lr=0.1, momentum=0.5)
    o2 = torch.optim.SGD([tq], lr=0.1, momentum=0.5)
    for _ in range(3):
        o1.zero_grad()
        o2.zero_grad()
        (p * p).sum().backward()
        (tq * tq).sum().backward()
        o1.step()
        o2.step()
    np.testing.assert_allclose(p.detach().numpy(), tq.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(base.numpy(), tq.detach().numpy().T, rtol=1e-12)  # written through


def test_closure_and_param_groups():
    m1 = nn.Linear(3, 2)
    m2 = nn.Linear(2, 1)
    opt = nbgrad.optim.SGD([{"params": m1.parameters()}, {"params": m2.parameters(), "lr": 0.02}],
                           lr=0.01, momentum=0.9)
    assert opt.param_groups[0]["lr"] == 0.01 and opt.param_groups[1]["lr"] == 0.02
    assert opt.param_groups[1]["momentum"] == 0.9
    x = nbgrad.randn(4, 3)

    def closure():
        opt.zero_grad()
        loss = m2(m1(x)).pow(2).sum()
        loss.backward()
        return loss

    l0 = opt.step(closure).item()
    for _ in range(5):
        last = opt.step(closure).item()
    assert last < l0
    extra = nn.Parameter(nbgrad.zeros(2))
    opt.add_param_group({"params": [extra], "lr": 1.0})
    assert opt.param_groups[2]["momentum"] == 0.9 and opt.param_groups[2]["params"] == [extra]
    with pytest.raises(ValueError, match="more than one parameter group"):
        opt.add_param_group({"params": [extra]})


def test_errors():
    p = nn.Parameter(nbgrad.ones(2))
    with pytest.raises(ValueError, match="empty parameter list"):
        nbgrad.optim.SGD([], lr=0.1)
    with pytest.raises(TypeError, match="iterable of Tensors or dicts"):
        nbgrad.optim.SGD(p, lr=0.1)
    with pytest.raises(ValueError, match="Invalid learning rate"):
        nbgrad.optim.Adam([p], lr=-1)
    with pytest.raises(ValueError, match="Invalid beta parameter at index 1"):
        nbgrad.optim.Adam([p], betas=(0.9, 1.0))
    with pytest.raises(ValueError, match="Nesterov momentum requires"):
        nbgrad.optim.SGD([p], lr=0.1, nesterov=True)
    with pytest.raises(ValueError, match="non-leaf"):
        nbgrad.optim.SGD([p * 2], lr=0.1)
    with pytest.raises(TypeError, match="only optimize Tensors"):
        nbgrad.optim.SGD([1.0], lr=0.1)
    with pytest.raises(TypeError, match="ordered collections"):
        nbgrad.optim.SGD([{"params": {p}}], lr=0.1)
    with pytest.raises(NotImplementedError):
        nbgrad.optim.Adam([p], differentiable=True)
    with pytest.raises(ValueError, match=r"Invalid rho value: 1\.5"):
        nbgrad.optim.Adadelta([p], rho=1.5)
    with pytest.raises(ValueError, match=r"Invalid epsilon value: -1"):
        nbgrad.optim.Adadelta([p], eps=-1)
    with pytest.raises(ValueError, match="Invalid weight_decay value"):
        nbgrad.optim.Adadelta([p], weight_decay=-0.1)
    with pytest.raises(ValueError, match="Invalid learning rate"):
        nbgrad.optim.Adadelta([p], lr=-0.1)


def test_zero_grad():
    p = nn.Parameter(nbgrad.ones(2))
    opt = nbgrad.optim.SGD([p], lr=0.1)
    (p * 3).sum().backward()
    opt.zero_grad(set_to_none=False)
    assert p.grad.tolist() == [0.0, 0.0]
    opt.zero_grad()
    assert p.grad is None


def test_repr_matches_torch_layout():
    p = nn.Parameter(nbgrad.ones(2))
    r = repr(nbgrad.optim.SGD([p], lr=0.1, momentum=0.9))
    assert r.startswith("SGD (\nParameter Group 0\n    dampening: 0\n    differentiable: "
                        "False\n    foreach: None\n    fused: None\n    lr: 0.1\n")
    assert r.endswith(")")
    torch = pytest.importorskip("torch")
    for name in ("SGD", "Adam", "AdamW", "Adadelta", "RMSprop", "Adagrad", "Adamax", "NAdam",
                 "RAdam", "ASGD", "Rprop", "LBFGS"):
        reprs = [repr(getattr(lib.optim, name)([lib.nn.Parameter(lib.ones(2))], lr=0.1))
                 for lib in (nbgrad, torch)]
        assert reprs[0] == reprs[1], name


@pytest.mark.parametrize("cls,kwargs", [(nbgrad.optim.SGD, dict(lr=0.05, momentum=0.9)),
                                        (nbgrad.optim.Adam, dict(lr=0.05, amsgrad=True)),
                                        (nbgrad.optim.AdamW, dict(lr=0.05)),
                                        (nbgrad.optim.Adadelta, dict(lr=0.5, rho=0.8))])
def test_state_dict_resume_is_exact(cls, kwargs):
    """Train 3 steps, save the optimizer state, load into a fresh optimizer on copies of the
    parameters, train 2 more: identical to 5 uninterrupted steps."""
    nb, _, targets = _problem(np.float64)
    ref = [nn.Parameter(p.detach().clone()) for p in nb]
    o_ref = cls(ref, **kwargs)
    o = cls(nb, **kwargs)
    for k in range(3):
        for params, opt in ((nb, o), (ref, o_ref)):
            opt.zero_grad()
            _loss_nb(params, targets, k).backward()
            opt.step()
    sd = o.state_dict()
    assert sorted(sd["state"]) == [0, 1, 2]
    assert sd["param_groups"][0]["params"] == [0, 1, 2]
    resumed = [nn.Parameter(p.detach().clone()) for p in nb]
    o2 = cls(resumed, lr=123.0)  # hyperparameters come from the state dict
    o2.load_state_dict(sd)
    assert o2.param_groups[0]["lr"] == kwargs["lr"] and o2.param_groups[0]["params"] == resumed
    key = {nbgrad.optim.SGD: "momentum_buffer",
           nbgrad.optim.Adadelta: "square_avg"}.get(cls, "exp_avg")
    assert o2.state[resumed[0]][key]._data is not o.state[nb[0]][key]._data  # copied
    for k in range(3, 5):
        for params, opt in ((resumed, o2), (ref, o_ref)):
            opt.zero_grad()
            _loss_nb(params, targets, k).backward()
            opt.step()
    for a, b in zip(resumed, ref):
        assert np.array_equal(a.detach().numpy(), b.detach().numpy())


def test_load_state_dict_validation_and_casting():
    p = nn.Parameter(nbgrad.ones(2))
    o = nbgrad.optim.Adam([p], lr=0.1)
    p.grad = nbgrad.ones(2)
    o.step()
    sd = o.state_dict()
    with pytest.raises(ValueError, match="different number of parameter groups"):
        nbgrad.optim.Adam([{"params": [nn.Parameter(nbgrad.ones(2))]},
                           {"params": [nn.Parameter(nbgrad.ones(2))]}]).load_state_dict(sd)
    with pytest.raises(ValueError, match="doesn't match the size"):
        nbgrad.optim.Adam([nn.Parameter(nbgrad.ones(2)), nn.Parameter(nbgrad.ones(2))]).load_state_dict(sd)
    q = nn.Parameter(nbgrad.ones(2, dtype=nbgrad.float64))
    o2 = nbgrad.optim.Adam([q])
    o2.load_state_dict(sd)
    st = o2.state[q]
    assert st["exp_avg"].dtype == nbgrad.float64 and st["step"].dtype == nbgrad.float32
    q.grad = nbgrad.ones(2, dtype=nbgrad.float64)
    o2.step()
    assert st["step"].item() == 2.0


def test_model_to_after_optimizer_keeps_working():
    m = nn.Linear(3, 1)
    opt = nbgrad.optim.Adam(m.parameters(), lr=0.01)
    m(nbgrad.randn(2, 3)).sum().backward()
    opt.step()
    m.double()
    opt.zero_grad()
    m(nbgrad.randn(2, 3, dtype=nbgrad.float64)).sum().backward()
    opt.step()  # float32 state is converted to the parameter's new dtype
    assert opt.state[m.weight]["exp_avg"].dtype == nbgrad.float64


def _numpy_rmsprop(p, grads, lr, alpha, eps, wd, momentum, centered):
    """RMSprop as its paper and PyTorch's docs state it, in float64 NumPy."""
    sq, buf, ga = np.zeros_like(p), np.zeros_like(p), np.zeros_like(p)
    for g in grads:
        g = g + wd * p
        sq = alpha * sq + (1 - alpha) * g * g
        if centered:
            ga = alpha * ga + (1 - alpha) * g
            avg = np.sqrt(sq - ga * ga) + eps
        else:
            avg = np.sqrt(sq) + eps
        if momentum:
            buf = momentum * buf + g / avg
            p = p - lr * buf
        else:
            p = p - lr * g / avg
    return p


def _numpy_adagrad(p, grads, lr, lr_decay, wd, init, eps):
    acc = np.full_like(p, init)
    for step, g in enumerate(grads, 1):
        g = g + wd * p
        acc = acc + g * g
        p = p - lr / (1 + (step - 1) * lr_decay) * g / (np.sqrt(acc) + eps)
    return p


@pytest.mark.parametrize("centered", [False, True])
@pytest.mark.parametrize("momentum", [0.0, 0.7])
def test_rmsprop_and_adagrad_match_their_numpy_definitions(centered, momentum):
    rng = np.random.default_rng(5)
    p0 = rng.standard_normal(6)
    grads = [rng.standard_normal(6) for _ in range(4)]
    for cls, kwargs, ref in [
        (nbgrad.optim.RMSprop, dict(lr=0.05, alpha=0.8, eps=1e-6, weight_decay=0.1,
                                    momentum=momentum, centered=centered),
         lambda: _numpy_rmsprop(p0, grads, 0.05, 0.8, 1e-6, 0.1, momentum, centered)),
        (nbgrad.optim.Adagrad, dict(lr=0.2, lr_decay=0.05 + momentum, weight_decay=0.1,
                                    initial_accumulator_value=0.3, eps=1e-8),
         lambda: _numpy_adagrad(p0, grads, 0.2, 0.05 + momentum, 0.1, 0.3, 1e-8)),
    ]:
        p = nn.Parameter(nbgrad.tensor(p0.copy()))
        opt = cls([p], **kwargs)
        for g in grads:
            p.grad = nbgrad.tensor(g)
            opt.step()
        np.testing.assert_allclose(p.detach().numpy(), ref(), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name,kwargs", [
    ("RMSprop", dict(lr=-1.0)), ("RMSprop", dict(alpha=-0.1)), ("RMSprop", dict(momentum=-1)),
    ("RMSprop", dict(eps=-1.0)), ("Adagrad", dict(lr_decay=-1)), ("Adagrad", dict(eps=-1.0)),
    ("Adagrad", dict(initial_accumulator_value=-1.0)), ("Adagrad", dict(weight_decay=-1.0)),
])
def test_rmsprop_and_adagrad_refuse_bad_hyperparameters_as_pytorch(name, kwargs):
    with pytest.raises(ValueError) as ours:
        getattr(nbgrad.optim, name)([nn.Parameter(nbgrad.ones(2))], **kwargs)
    with pytest.raises(ValueError) as theirs:
        getattr(torch.optim, name)([torch.nn.Parameter(torch.ones(2))], **kwargs)
    assert str(ours.value) == str(theirs.value)


def test_docstring_examples_run():
    import doctest

    from nbgrad.optim import adadelta, adagrad, rmsprop

    for mod in (adadelta, adagrad, rmsprop):
        res = doctest.testmod(mod)
        assert res.attempted and not res.failed, mod.__name__
