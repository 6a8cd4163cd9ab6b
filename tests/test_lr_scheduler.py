"""nbgrad.optim.lr_scheduler against torch.optim.lr_scheduler: the same rates (and momenta)
epoch by epoch, bit for bit; state_dict round trips; PyTorch's errors and warnings."""

import math
import warnings

import numpy as np
import pytest

import nbgrad
from nbgrad.optim import lr_scheduler as S

torch = pytest.importorskip("torch")
TS = torch.optim.lr_scheduler


def _opt(lib, kind="sgd", groups=2):
    ps = [lib.nn.Parameter(lib.ones(2)) for _ in range(groups)]
    pg = [{"params": [p], "lr": 0.1 * (i + 1)} for i, p in enumerate(ps)]
    if kind == "adam":
        return lib.optim.Adam(pg, lr=0.01)
    return lib.optim.SGD(pg, lr=0.1, momentum=0.9)


SCHEDULES = {
    "StepLR": (lambda m, o: m.StepLR(o, step_size=3, gamma=0.3), "sgd"),
    "MultiStepLR": (lambda m, o: m.MultiStepLR(o, milestones=[2, 5, 5, 9], gamma=0.5), "sgd"),
    "ExponentialLR": (lambda m, o: m.ExponentialLR(o, gamma=0.9), "sgd"),
    "CosineAnnealingLR": (lambda m, o: m.CosineAnnealingLR(o, T_max=4, eta_min=0.001), "sgd"),
    "LinearLR": (lambda m, o: m.LinearLR(o, start_factor=0.25, total_iters=4), "sgd"),
    "LambdaLR": (lambda m, o: m.LambdaLR(o, lambda e: 1.0 / (1 + e)), "sgd"),
    "LambdaLR per group": (lambda m, o: m.LambdaLR(o, [lambda e: 0.9 ** e,
                                                       lambda e: 1 + e % 3]), "sgd"),
    "MultiplicativeLR": (lambda m, o: m.MultiplicativeLR(o, lambda e: 0.95), "sgd"),
    "OneCycleLR cos": (lambda m, o: m.OneCycleLR(o, max_lr=[1.0, 0.5], total_steps=12), "sgd"),
    "OneCycleLR linear 3-phase adam": (
        lambda m, o: m.OneCycleLR(o, max_lr=0.3, epochs=3, steps_per_epoch=4,
                                  anneal_strategy="linear", three_phase=True), "adam"),
}


def _trace(lib, mod, make, kind, steps):
    opt = _opt(lib, kind)
    sched = make(mod, opt)
    out = [sched.get_last_lr()]
    for _ in range(steps):
        opt.step()
        sched.step()
        g = opt.param_groups[0]
        out.append((sched.get_last_lr(), [x["lr"] for x in opt.param_groups],
                    g.get("momentum"), g.get("betas")))
    return out


@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_rates_equal_pytorchs_bit_for_bit(name):
    make, kind = SCHEDULES[name]
    steps = 12 if name.startswith("OneCycle") else 14
    ours = _trace(nbgrad, S, make, kind, steps)
    theirs = _trace(torch, TS, make, kind, steps)
    assert ours == theirs


def test_a_schedule_trains_as_pytorchs_does():
    # (the rate and momentum a schedule writes are what the optimizer's next step reads)
    rng = np.random.default_rng(0)
    w0, x = rng.standard_normal(4).astype(np.float32), rng.standard_normal((8, 4)).astype(np.float32)
    res = []
    for lib, mod in ((nbgrad, S), (torch, TS)):
        w = lib.nn.Parameter(lib.from_numpy(w0.copy()))
        xs = lib.from_numpy(x)
        opt = lib.optim.SGD([w], lr=0.1, momentum=0.9)
        sched = mod.OneCycleLR(opt, max_lr=0.5, total_steps=10)
        for _ in range(10):
            opt.zero_grad()
            ((xs @ w).tanh() ** 2).mean().backward()
            opt.step()
            sched.step()
        res.append(w.detach().numpy())
    np.testing.assert_allclose(res[0], res[1], rtol=2e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["StepLR", "CosineAnnealingLR", "LambdaLR", "OneCycleLR cos"])
def test_state_dict_resumes_the_schedule(name):
    make, kind = SCHEDULES[name]
    opt = _opt(nbgrad, kind)
    sched = make(S, opt)
    for _ in range(5):
        opt.step()
        sched.step()
    state = sched.state_dict()
    assert "optimizer" not in state and state["last_epoch"] == 5
    want = []
    for _ in range(4):
        opt.step()
        sched.step()
        want.append(sched.get_last_lr())
    # a new optimizer and schedule, restored
    opt2 = _opt(nbgrad, kind)
    for g, g1 in zip(opt2.param_groups, opt.param_groups):
        g.update({k: v for k, v in g1.items() if k != "params"})
    sched2 = make(S, opt2)
    sched2.load_state_dict(state)
    for g, lr in zip(opt2.param_groups, state["_last_lr"]):
        g["lr"] = lr
    got = []
    for _ in range(4):
        opt2.step()
        sched2.step()
        got.append(sched2.get_last_lr())
    assert got == want


def test_the_deprecated_epoch_argument_takes_the_closed_form():
    for lib, mod in ((nbgrad, S), (torch, TS)):
        opt = _opt(lib)
        sched = mod.StepLR(opt, step_size=2, gamma=0.5)
        opt.step()
        with pytest.warns(UserWarning, match=r"The epoch parameter in `scheduler\.step\(\)`"):
            sched.step(5)
        assert sched.get_last_lr() == pytest.approx([0.1 * 0.25, 0.2 * 0.25])


@pytest.mark.parametrize("mode, threshold_mode", [("min", "rel"), ("max", "abs")])
def test_reduce_on_plateau_matches_pytorch(mode, threshold_mode):
    metrics = [1.0, 0.9, 0.95, 0.95, 0.95, 0.89, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9]
    if mode == "max":
        metrics = [-m for m in metrics]
    out = []
    for lib, mod in ((nbgrad, S), (torch, TS)):
        opt = _opt(lib)
        sched = mod.ReduceLROnPlateau(opt, mode=mode, factor=0.5, patience=2, cooldown=1,
                                      threshold_mode=threshold_mode, min_lr=[0.02, 0.0])
        seq = []
        for m in metrics:
            opt.step()
            sched.step(m)
            seq.append((sched.get_last_lr(), sched.num_bad_epochs, sched.best))
        out.append(seq)
    assert out[0] == out[1]
    sched = S.ReduceLROnPlateau(_opt(nbgrad))
    sched.step(nbgrad.tensor(0.5))  # (a loss tensor as the metric)
    assert sched.best == pytest.approx(0.5)


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return type(e), str(e)
    return None


@pytest.mark.parametrize("make", [
    lambda m, o: m.LinearLR(o, start_factor=0),
    lambda m, o: m.LinearLR(o, end_factor=1.5),
    lambda m, o: m.LambdaLR(o, [lambda e: 1.0]),
    lambda m, o: m.OneCycleLR(o, max_lr=1.0),
    lambda m, o: m.OneCycleLR(o, max_lr=1.0, total_steps=0),
    lambda m, o: m.OneCycleLR(o, max_lr=1.0, total_steps=5, pct_start=1),
    lambda m, o: m.OneCycleLR(o, max_lr=[1.0], total_steps=5),
    lambda m, o: m.OneCycleLR(o, max_lr=1.0, total_steps=5, anneal_strategy="exp"),
    lambda m, o: m.ReduceLROnPlateau(o, factor=1.0),
    lambda m, o: m.ReduceLROnPlateau(o, mode="up"),
    lambda m, o: m.ReduceLROnPlateau(o, min_lr=[0.1]),
    lambda m, o: m.StepLR(o, step_size=2, last_epoch=3),
    lambda m, o: m.StepLR(object(), step_size=2),
])
def test_bad_arguments_raise_pytorchs_errors(make):
    assert _error(lambda: make(S, _opt(nbgrad))) == _error(lambda: make(TS, _opt(torch)))
    assert _error(lambda: make(S, _opt(nbgrad))) is not None


def test_one_cycle_refuses_a_step_past_its_end_and_plain_sgd_without_momentum():
    opt = _opt(nbgrad)
    sched = S.OneCycleLR(opt, max_lr=1.0, total_steps=3)
    for _ in range(3):
        opt.step()
        sched.step()
    with pytest.raises(ValueError, match="Tried to step 4 times. The specified number of "
                                         "total steps is 3"):
        sched.step()
    plain = nbgrad.optim.Adadelta([nbgrad.nn.Parameter(nbgrad.ones(1))])
    with pytest.raises(ValueError, match="optimizer must support momentum or beta1"):
        S.OneCycleLR(plain, max_lr=1.0, total_steps=3)


def test_the_warnings_of_a_misordered_or_misread_schedule():
    opt = _opt(nbgrad)
    sched = S.ExponentialLR(opt, gamma=0.5)
    with pytest.warns(UserWarning, match="Detected call of `lr_scheduler.step\\(\\)` before"):
        sched.step()
    with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
        sched.get_lr()
    opt.step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sched.step()  # (in order: no warning)
    assert sched.get_last_lr() == [0.1 * 0.25, 0.2 * 0.25]
    assert math.isclose(opt.param_groups[0]["initial_lr"], 0.1)


def test_compat_serves_torch_optim_lr_scheduler():
    import subprocess
    import sys

    code = ("import nbgrad, nbgrad.compat\nnbgrad.compat.install()\n"
            "from torch.optim import lr_scheduler\nimport torch.optim.lr_scheduler as L\n"
            "assert lr_scheduler is L and L.StepLR is nbgrad.optim.lr_scheduler.StepLR\n"
            "print('ok')")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=120)
    assert r.stdout.strip() == "ok", r.stderr
