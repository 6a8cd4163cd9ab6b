"""ConstantLR, PolynomialLR, CosineAnnealingWarmRestarts, CyclicLR, SequentialLR and
ChainedScheduler against torch.optim.lr_scheduler: the same rates (and momenta) step by
step, state_dict round trips, PyTorch's errors and warnings."""

import copy
import doctest
import math
import warnings

import pytest

import nbgrad
from nbgrad.optim import lr_scheduler as S
from tests._errors import assert_same_error

torch = pytest.importorskip("torch")
TS = torch.optim.lr_scheduler
STEPS = 30


def _opt(lib, kind="sgd", groups=2):
    ps = [lib.nn.Parameter(lib.ones(2)) for _ in range(groups)]
    pg = [{"params": [p], "lr": 0.1 * (i + 1)} for i, p in enumerate(ps)]
    if kind == "adam":
        return lib.optim.Adam(pg, lr=0.01)
    if kind == "adagrad":
        return lib.optim.Adagrad(pg, lr=0.01)
    return lib.optim.SGD(pg, lr=0.1, momentum=0.9)


class _Halving:
    """A callable object as CyclicLR's scale_fn (its __dict__ is saved in state_dict)."""

    def __init__(self):
        self.base = 0.5

    def __call__(self, x):
        return self.base ** (x - 1)


SCHEDULES = {
    "ConstantLR": (lambda m, o: m.ConstantLR(o, factor=0.25, total_iters=4), "sgd"),
    "ConstantLR defaults": (lambda m, o: m.ConstantLR(o), "sgd"),
    "PolynomialLR": (lambda m, o: m.PolynomialLR(o, total_iters=20, power=0.9), "sgd"),
    "PolynomialLR past its end": (lambda m, o: m.PolynomialLR(o, total_iters=7, power=2.0),
                                  "sgd"),
    "WarmRestarts": (lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=4, eta_min=0.01), "sgd"),
    "WarmRestarts T_mult": (lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=3),
                            "sgd"),
    "CyclicLR triangular": (lambda m, o: m.CyclicLR(o, base_lr=0.01, max_lr=[0.1, 0.3],
                                                    step_size_up=4, step_size_down=3), "sgd"),
    "CyclicLR triangular2": (lambda m, o: m.CyclicLR(o, base_lr=[0.01, 0.02], max_lr=0.2,
                                                     step_size_up=3, mode="triangular2"),
                             "sgd"),
    "CyclicLR exp_range": (lambda m, o: m.CyclicLR(o, base_lr=0.01, max_lr=0.2, step_size_up=5,
                                                   mode="exp_range", gamma=0.95), "sgd"),
    "CyclicLR scale_fn cycle": (lambda m, o: m.CyclicLR(o, 0.01, 0.1, step_size_up=2,
                                                        scale_fn=lambda c: 1 / (c + 1.0)),
                                "sgd"),
    "CyclicLR scale_fn iterations": (
        lambda m, o: m.CyclicLR(o, 0.01, 0.1, step_size_up=3, step_size_down=5,
                                scale_fn=lambda i: 0.97 ** i, scale_mode="iterations"), "sgd"),
    "CyclicLR Adam betas": (lambda m, o: m.CyclicLR(o, 0.001, 0.01, step_size_up=4,
                                                    base_momentum=[0.8, 0.85],
                                                    max_momentum=0.95), "adam"),
    "CyclicLR without momentum": (lambda m, o: m.CyclicLR(o, 0.001, 0.01, step_size_up=4,
                                                          cycle_momentum=False), "adagrad"),
    "SequentialLR": (lambda m, o: m.SequentialLR(
        o, [m.ConstantLR(o, factor=0.1, total_iters=5), m.ExponentialLR(o, gamma=0.9),
            m.CosineAnnealingLR(o, T_max=5, eta_min=0.001)], milestones=[5, 12]), "sgd"),
    "SequentialLR warmup": (lambda m, o: m.SequentialLR(
        o, [m.LinearLR(o, start_factor=0.2, total_iters=4), m.PolynomialLR(o, 10, 1.5),
            m.CosineAnnealingWarmRestarts(o, T_0=3)], milestones=[4, 16]), "sgd"),
    "SequentialLR of a chain": (lambda m, o: m.SequentialLR(
        o, [m.ChainedScheduler([m.ConstantLR(o, factor=0.5, total_iters=3),
                                m.ExponentialLR(o, gamma=0.8)]),
            m.StepLR(o, step_size=4, gamma=0.5)], milestones=[6]), "sgd"),
    "ChainedScheduler": (lambda m, o: m.ChainedScheduler(
        [m.ConstantLR(o, factor=0.1, total_iters=10), m.ExponentialLR(o, gamma=0.9)],
        optimizer=o), "sgd"),
    "ChainedScheduler without optimizer": (lambda m, o: m.ChainedScheduler(
        [m.LinearLR(o, start_factor=0.5, total_iters=6), m.MultiStepLR(o, [3, 9], 0.5),
         m.PolynomialLR(o, total_iters=25)]), "sgd"),
}


def _assert_close(ours, theirs, where=()):
    """The same nested structure; floats within 1e-12, everything else equal."""
    if isinstance(theirs, float):
        assert isinstance(ours, float) and abs(ours - theirs) <= 1e-12, (where, ours, theirs)
    elif isinstance(theirs, (list, tuple)):
        assert type(ours) is type(theirs) and len(ours) == len(theirs), (where, ours, theirs)
        for i, (a, b) in enumerate(zip(ours, theirs)):
            _assert_close(a, b, where + (i,))
    else:
        assert ours == theirs, (where, ours, theirs)


def _groups(opt):
    return [(g["lr"], g.get("momentum"), g.get("betas")) for g in opt.param_groups]


def _trace(lib, mod, make, kind, steps=STEPS):
    opt = _opt(lib, kind)
    sched = make(mod, opt)
    out = [(sched.get_last_lr(), _groups(opt))]
    for _ in range(steps):
        opt.step()
        sched.step()
        out.append((sched.get_last_lr(), _groups(opt)))
    return out


@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_rates_and_momenta_equal_pytorchs_at_every_step(name):
    make, kind = SCHEDULES[name]
    out = []
    ours = _warnings_of(nbgrad, S, lambda lib, mod: out.append(_trace(lib, mod, make, kind)))
    theirs = _warnings_of(torch, TS, lambda lib, mod: out.append(_trace(lib, mod, make, kind)))
    _assert_close(out[0], out[1])
    # (a chain's schedules step twice when SequentialLR starts it, before optimizer.step())
    assert ours == theirs and bool(ours) == (name == "SequentialLR of a chain")


@pytest.mark.parametrize("name", sorted(SCHEDULES))
@pytest.mark.filterwarnings("ignore:Detected call of")
def test_state_dict_has_pytorchs_keys_and_resumes_the_schedule(name):
    make, kind = SCHEDULES[name]
    opt = _opt(nbgrad, kind)
    sched = make(S, opt)
    for _ in range(9):
        opt.step()
        sched.step()
    state = copy.deepcopy(sched.state_dict())
    groups = copy.deepcopy([{k: v for k, v in g.items() if k != "params"}
                            for g in opt.param_groups])
    topt = _opt(torch, kind)
    assert set(state) == set(make(TS, topt).state_dict())
    assert "optimizer" not in state
    want = []
    for _ in range(12):
        opt.step()
        sched.step()
        want.append((sched.get_last_lr(), _groups(opt)))
    opt2 = _opt(nbgrad, kind)
    sched2 = make(S, opt2)
    for g, saved in zip(opt2.param_groups, groups):
        g.update(saved)
    sched2.load_state_dict(state)
    got = []
    for _ in range(12):
        opt2.step()
        sched2.step()
        got.append((sched2.get_last_lr(), _groups(opt2)))
    assert got == want


def test_cyclic_lr_saves_a_callable_objects_state_not_a_functions():
    opt = _opt(nbgrad)
    fn = _Halving()
    sched = S.CyclicLR(opt, 0.01, 0.1, step_size_up=2, scale_fn=fn)
    fn.base = 0.25
    state = sched.state_dict()
    assert state["_scale_fn_custom"] == {"base": 0.25}
    fn2 = _Halving()
    sched2 = S.CyclicLR(_opt(nbgrad), 0.01, 0.1, step_size_up=2, scale_fn=fn2)
    sched2.load_state_dict(state)
    assert fn2.base == 0.25 and "_scale_fn_custom" in state  # (the dict is left as it was)
    plain = S.CyclicLR(_opt(nbgrad), 0.01, 0.1, scale_fn=lambda x: 1.0)
    assert plain.state_dict()["_scale_fn_custom"] is None
    tsched = TS.CyclicLR(_opt(torch), 0.01, 0.1, scale_fn=lambda x: 1.0)
    assert tsched.state_dict()["_scale_fn_custom"] is None


def _run_with_epochs(lib, mod, epochs, make=None):
    opt = _opt(lib)
    sched = (make or (lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2,
                                                                  eta_min=0.001)))(mod, opt)
    out = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for e in epochs:
            opt.step()
            sched.step(e) if e is not None else sched.step()
            out.append((sched.get_last_lr(), sched.last_epoch,
                        getattr(sched, "T_cur", None), getattr(sched, "T_i", None)))
    return out, [str(w.message) for w in caught]


@pytest.mark.parametrize("epochs", [
    [e + i / 4 for e in range(12) for i in range(4)],  # once per batch, 4 batches an epoch
    [None] * 5 + [26, None, None, 2.5, 0, None, 40.75],  # interleaved
])
def test_warm_restarts_takes_fractional_and_interleaved_epochs_as_pytorch(epochs):
    ours, our_warnings = _run_with_epochs(nbgrad, S, epochs)
    theirs, their_warnings = _run_with_epochs(torch, TS, epochs)
    _assert_close(ours, theirs)
    assert our_warnings == their_warnings == []
    ours, _ = _run_with_epochs(nbgrad, S, epochs, lambda m, o: m.CosineAnnealingWarmRestarts(
        o, T_0=5))
    theirs, _ = _run_with_epochs(torch, TS, epochs, lambda m, o: m.CosineAnnealingWarmRestarts(
        o, T_0=5))
    _assert_close(ours, theirs)


@pytest.mark.parametrize("make", [
    lambda m, o: m.ConstantLR(o, factor=0.5, total_iters=4),
    lambda m, o: m.PolynomialLR(o, total_iters=6, power=0.7),
])
def test_an_epoch_argument_takes_the_closed_form_with_pytorchs_warning(make):
    epochs = [None, 3, 4, None, 9, 2, None]
    ours, our_warnings = _run_with_epochs(nbgrad, S, epochs, make)
    theirs, their_warnings = _run_with_epochs(torch, TS, epochs, make)
    _assert_close(ours, theirs)
    assert our_warnings == their_warnings and len(our_warnings) == 4
    assert our_warnings[0].startswith("The epoch parameter in `scheduler.step()`")


def _warnings_of(lib, mod, scenario):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scenario(lib, mod)
    return [(w.category, str(w.message)) for w in caught]


def _get_lr_outside_step(lib, mod):
    opt = _opt(lib)
    for sched in (mod.ConstantLR(opt), mod.PolynomialLR(opt),
                  mod.CosineAnnealingWarmRestarts(opt, T_0=2), mod.CyclicLR(opt, 0.1, 0.2)):
        sched.get_lr()


def _step_before_optimizer(lib, mod):
    opt = _opt(lib)
    sched = mod.CyclicLR(opt, 0.1, 0.2, step_size_up=3)
    sched.step()
    sched.step()
    opt2 = _opt(lib)
    seq = mod.SequentialLR(opt2, [mod.ConstantLR(opt2), mod.PolynomialLR(opt2)], [2])
    for _ in range(4):
        seq.step()


def _step_after_optimizer(lib, mod):
    for name in sorted(set(SCHEDULES) - {"SequentialLR of a chain"}):
        make, kind = SCHEDULES[name]
        opt = _opt(lib, kind)
        sched = make(mod, opt)
        for _ in range(3):
            opt.step()
            sched.step()


@pytest.mark.parametrize("scenario", [_get_lr_outside_step, _step_before_optimizer,
                                      _step_after_optimizer])
def test_warnings_are_pytorchs(scenario):
    ours = _warnings_of(nbgrad, S, scenario)
    assert ours == _warnings_of(torch, TS, scenario)
    assert bool(ours) == (scenario is not _step_after_optimizer)


BAD = [
    lambda m, o: m.ConstantLR(o, factor=1.5),
    lambda m, o: m.ConstantLR(o, factor=-0.1),
    lambda m, o: m.ConstantLR(o, total_iters=2, last_epoch=4),
    lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=0),
    lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=2.0),
    lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=0),
    lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=1.5),
    lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=2, eta_min="0"),
    lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=2).step(-1),
    lambda m, o: m.CyclicLR(o, 0.01, 0.1, mode="sawtooth"),
    lambda m, o: m.CyclicLR(o, [0.01], 0.1),
    lambda m, o: m.CyclicLR(o, 0.01, [0.1, 0.2, 0.3]),
    lambda m, o: m.CyclicLR(o, 0.01, 0.1, base_momentum=[0.8]),
    lambda m, o: m.CyclicLR(object(), 0.01, 0.1),
    lambda m, o: m.SequentialLR(o, [], milestones=[]),
    lambda m, o: m.SequentialLR(o, [m.ConstantLR(o), m.ExponentialLR(o, 0.9)], []),
    lambda m, o: m.SequentialLR(o, [m.ConstantLR(o), m.ReduceLROnPlateau(o)], [3]),
    lambda m, o: m.SequentialLR(o, [m.ConstantLR(o), object()], [3]),
    lambda m, o: m.ChainedScheduler([]),
    lambda m, o: m.ChainedScheduler([m.ConstantLR(o), m.ReduceLROnPlateau(o)]),
    lambda m, o: m.ChainedScheduler([m.ConstantLR(o), object()]),
    lambda m, o: m.ChainedScheduler([object()]),
]


@pytest.mark.parametrize("make", BAD)
def test_bad_arguments_raise_pytorchs_errors(make):
    assert_same_error(lambda lib: make(S if lib is nbgrad else TS, _opt(lib)), torch, nbgrad)


def test_cycling_momentum_needs_an_optimizer_with_one():
    assert_same_error(lambda lib: (S if lib is nbgrad else TS).CyclicLR(
        _opt(lib, "adagrad"), 0.01, 0.1), torch, nbgrad)


@pytest.mark.parametrize("kind", ["SequentialLR", "ChainedScheduler"])
def test_schedules_of_another_optimizer_are_refused_with_pytorchs_message(kind):
    made = {}

    def call(lib):
        mod = S if lib is nbgrad else TS
        o1, o2 = _opt(lib), _opt(lib)
        made[lib] = o2
        scheds = [mod.ConstantLR(o1), mod.ExponentialLR(o2, gamma=0.9)]
        if kind == "SequentialLR":
            return mod.SequentialLR(o1, scheds, milestones=[2])
        return mod.ChainedScheduler(scheds)

    # (the message shows the other optimizer's repr, each library's own)
    assert_same_error(call, torch, nbgrad,
                      expected=lambda text: text.replace(repr(made[torch]), repr(made[nbgrad])))


def test_warm_restarts_counts_no_steps_and_sequential_restarts_at_milestones():
    opt = _opt(nbgrad)
    sched = S.CosineAnnealingWarmRestarts(opt, T_0=3)
    opt.step()
    sched.step()
    assert sched._step_count == 0 and sched.last_epoch == 1
    assert math.isclose(sched.get_last_lr()[0], 0.1 * (1 + math.cos(math.pi / 3)) / 2)
    opt = _opt(nbgrad)
    decay = S.ExponentialLR(opt, gamma=0.5)
    seq = S.SequentialLR(opt, [S.ConstantLR(opt, factor=0.5, total_iters=1), decay], [3])
    for _ in range(3):
        opt.step()
        seq.step()
    assert decay.last_epoch == 0 and seq.get_last_lr() == [0.1, 0.2]


def test_docstring_examples_run():
    res = doctest.testmod(S, optionflags=doctest.ELLIPSIS)
    assert res.attempted and not res.failed
