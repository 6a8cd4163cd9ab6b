"""A kernel takes its parallel variant only once its serial variant has run TIER_UP seconds
on inputs big enough for it (kernels/cpu/_par.py): a first step compiles no parallel loop."""

import os
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import nbgrad
from nbgrad.kernels.cpu import _background, _par, blas


@pytest.fixture
def tiers(monkeypatch):
    """A fresh record of earned kernels, with the default's kind of delay (20 ms here)."""
    monkeypatch.setattr(_par, "TIER_UP", 0.02)
    monkeypatch.setattr(_par, "_hot", set())
    monkeypatch.setattr(_par, "_spent", {})
    monkeypatch.setattr(_par, "_ahead", set())
    return _par


class _Variants:
    """A serial and a parallel stand-in that record which ran; the serial one sleeps."""

    def __init__(self, nap=0.0):
        self.ran = []
        self.nap = nap

    def serial(self, x):
        self.ran.append("serial")
        time.sleep(self.nap)
        return x + 1

    def parallel(self, x):
        self.ran.append("parallel")
        return x + 1


def test_first_calls_run_serially_until_the_serial_time_is_spent(tiers):
    v = _Variants(nap=0.008)
    big = _par.PARALLEL_MIN
    for _ in range(6):
        assert _par.run(v.serial, v.parallel, big, 1) == 2
    # the first call is not counted (it compiles); three more of 8 ms pass 20 ms (fewer
    # when a loaded machine oversleeps: a nap never ends early)
    serial = v.ran.count("serial")
    assert 2 <= serial <= 4 and v.ran == ["serial"] * serial + ["parallel"] * (6 - serial)
    assert v.parallel in tiers._hot
    assert tiers._spent[v.parallel] >= 0.02


def test_a_call_whose_work_alone_would_take_the_budget_goes_parallel_at_once(tiers):
    v = _Variants()
    big = round(tiers.AT_ONCE_S / tiers._UNIT_S)  # 1G units: ~1 s serially
    _par.run(v.serial, v.parallel, big - 1, 1)
    _par.run(v.serial, v.parallel, big, 1)
    assert v.ran == ["serial", "parallel"]
    w = _Variants()
    _par.run(w.serial, w.parallel, big, 1)  # (its first call too)
    assert w.ran == ["parallel"]


def test_a_call_worth_less_than_a_compile_starts_serially(tiers):
    # 200M units (~0.2 s serially, ten times the tier-up budget): compiling a parallel
    # convolution loop first would cost seconds to save a fraction of that
    v = _Variants()
    _par.run(v.serial, v.parallel, int(10 * tiers.TIER_UP / tiers._UNIT_S), 1)
    assert v.ran == ["serial"] and v.parallel not in tiers._hot
    assert tiers.TIER_UP < 10 * tiers.TIER_UP < tiers.AT_ONCE_S


def test_small_inputs_neither_count_nor_tier_up(tiers):
    v = _Variants(nap=0.03)
    for _ in range(3):
        _par.run(v.serial, v.parallel, _par.PARALLEL_MIN - 1, 1)
    assert v.ran == ["serial"] * 3
    assert v.parallel not in tiers._spent and v.parallel not in tiers._hot


def test_kernels_earn_their_parallel_variant_each_on_its_own(tiers):
    a, b = _Variants(nap=0.015), _Variants(nap=0.015)
    for _ in range(3):
        _par.run(a.serial, a.parallel, _par.PARALLEL_MIN, 1)
    _par.run(a.serial, a.parallel, _par.PARALLEL_MIN, 1)
    _par.run(b.serial, b.parallel, _par.PARALLEL_MIN, 1)
    assert a.ran[-1] == "parallel" and b.ran == ["serial"]


def test_tier_up_zero_takes_the_parallel_variant_at_once(tiers, monkeypatch):
    monkeypatch.setattr(_par, "TIER_UP", 0.0)
    v = _Variants()
    _par.run(v.serial, v.parallel, _par.PARALLEL_MIN, 1)
    assert v.ran == ["parallel"]


def test_inside_serial_nothing_is_counted(tiers):
    v = _Variants(nap=0.03)
    with _par.serial():
        for _ in range(3):
            _par.run(v.serial, v.parallel, _par.PARALLEL_MIN, 1)
    assert v.ran == ["serial"] * 3 and not tiers._spent


def test_the_serial_variants_exception_propagates_and_is_counted(tiers):
    calls = []

    def serial(x):
        calls.append(x)
        time.sleep(0.025)
        raise ValueError("bad row")

    for _ in range(2):
        with pytest.raises(ValueError, match="bad row"):
            _par.run(serial, None, _par.PARALLEL_MIN, 1)
    assert tiers._spent[None] >= 0.02 and len(calls) == 2


class _Compiled(_Variants):
    """Stand-ins whose parallel variant must be compiled first (a Numba dispatcher's
    ``typeof_pyval`` and ``compile``); the compile records its thread and takes a while."""

    def __init__(self, nap=0.0, compile_s=0.2):
        super().__init__(nap)
        self.compile_s = compile_s
        self.compiled_on = []
        outer = self

        class Parallel:
            def __call__(self, x):
                if not outer.compiled_on:  # (a dispatcher compiles at its first call)
                    self.compile((self.typeof_pyval(x),))
                return outer.parallel(x)

            @staticmethod
            def typeof_pyval(x):
                return type(x).__name__

            @staticmethod
            def compile(sig):
                time.sleep(outer.compile_s)
                outer.compiled_on.append((threading.current_thread().name, sig))

        self.kernel = Parallel()


def test_an_earned_parallel_variant_compiles_in_the_background(tiers):
    v = _Compiled(nap=0.008)
    big = _par.PARALLEL_MIN
    for _ in range(5):  # the first not counted; three of 8 ms earn it
        assert _par.run(v.serial, v.kernel, big, 1) == 2
    # earned, but compiling: the calls go on serially, without waiting for it
    t = time.perf_counter()
    assert _par.run(v.serial, v.kernel, big, 1) == 2
    assert time.perf_counter() - t < v.compile_s / 2
    assert v.ran == ["serial"] * 6 and not v.compiled_on
    assert _background.wait(timeout=30)
    assert v.compiled_on == [("nbgrad-compile", ("int",))]
    assert _par.run(v.serial, v.kernel, big, 1) == 2
    assert v.ran[-1] == "parallel" and v.kernel in tiers._hot


def test_a_big_call_compiles_its_parallel_variant_in_the_callers_thread(tiers):
    v = _Compiled()
    assert _par.run(v.serial, v.kernel, round(tiers.AT_ONCE_S / tiers._UNIT_S), 1) == 2
    assert v.ran == ["parallel"] and not tiers._ahead
    assert v.compiled_on == [(threading.current_thread().name, ("int",))]


def test_a_real_kernel_switches_to_its_parallel_variant_and_agrees(tiers):
    from numba import njit, prange

    @njit
    def serial(x, out):
        for i in range(x.size):
            out[i] = np.sqrt(x[i]) * 2.0

    @njit(parallel=True)
    def parallel(x, out):
        for i in prange(x.size):
            out[i] = np.sqrt(x[i]) * 2.0

    x = np.linspace(0, 9, _par.PARALLEL_MIN)
    outs = []
    # (until its serial calls have run TIER_UP, however fast they are: 200 calls of ~0.1 ms
    # were that budget only just, and fell short once beside another test process)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        out = np.empty_like(x)
        _par.run(serial, parallel, x.size, x, out)
        if len(outs) < 8:  # (the first calls' results, and the last one's below)
            outs.append(out)
        if parallel in tiers._ahead:
            break
        time.sleep(0.001)
    outs.append(out)
    assert parallel in tiers._ahead, "the serial variant never earned the parallel one"
    assert not parallel.signatures or not _background.idle()
    assert _background.wait(timeout=120)
    assert len(parallel.signatures) == 1 and parallel in tiers._hot
    out = np.empty_like(x)
    _par.run(serial, parallel, x.size, x, out)
    for o in outs + [out]:
        np.testing.assert_array_equal(o, np.sqrt(x) * 2.0)


def test_a_failed_background_compile_raises_at_the_next_call(tiers):
    v = _Compiled(nap=0.008)

    def broken(sig):
        raise TypeError("cannot type this")

    v.kernel.compile = broken
    assert _background.wait(timeout=120)  # (no other test's job ahead of this one)
    # (until it is earned, however a loaded machine stretches or shortens the naps)
    for _ in range(200):
        _par.run(v.serial, v.kernel, _par.PARALLEL_MIN, 1)
        if v.kernel in tiers._ahead:
            break
    assert v.kernel in tiers._ahead
    assert _background.wait(timeout=120)
    # hot: its next call compiles it in the caller's thread, which is where errors belong
    assert v.kernel in tiers._hot


_EXIT_CODE = """
import sys, time
from nbgrad.kernels.cpu import _background

def job():
    time.sleep(0.5)
    open(sys.argv[1], "w").write("done")

_background.submit(job, lambda: None)
time.sleep(0.05)  # (the job has started)
"""


def test_exit_waits_for_the_compile_in_progress(tmp_path):
    mark = tmp_path / "mark"
    r = subprocess.run([sys.executable, "-c", _EXIT_CODE, str(mark)], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert mark.read_text() == "done"


_FORK_CODE = """
import os, threading, time
from nbgrad.kernels.cpu import _background

started = threading.Event()
handed = []

def slow():
    started.set()
    time.sleep(0.3)

_background.submit(slow, lambda: None)
started.wait()
_background.submit(lambda: None, lambda: handed.append("queued"))
t = time.perf_counter()
pid = os.fork()
if pid == 0:  # the child: no job running, the queued one handed to its done
    ok = handed == ["queued"] and _background.idle() and not _background._busy.locked()
    os._exit(0 if ok else 3)
waited = time.perf_counter() - t
_, status = os.waitpid(pid, 0)
assert os.waitstatus_to_exitcode(status) == 0, status
assert waited > 0.2, waited  # fork waited for the job in progress
assert _background.wait(timeout=30) and handed == ["queued"]
print("ok")
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork")
def test_fork_waits_for_the_compile_in_progress_and_the_child_compiles_its_own():
    r = subprocess.run([sys.executable, "-c", _FORK_CODE], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr


@pytest.mark.skipif(not blas.AVAILABLE, reason="no BLAS entry points for the pool")
def test_big_products_start_on_this_thread_then_take_the_pool(tiers, monkeypatch):
    pooled = []
    real = blas._parallel
    monkeypatch.setattr(blas, "_parallel", lambda *a: pooled.append(1) or real(*a))
    rng = np.random.default_rng(0)
    a = rng.standard_normal((256, 512)).astype(np.float32)
    b = rng.standard_normal((512, 256)).astype(np.float32)  # 33.5M multiply-adds
    want = a @ b
    ta, tb = nbgrad.tensor(a), nbgrad.tensor(b)
    first = (ta @ tb).numpy()
    assert not pooled, "the first big product went to the pool"
    got = []
    for _ in range(400):
        got.append((ta @ tb).numpy())
        if pooled:
            break
        if "matmul float32" in tiers._ahead:
            assert _background.wait(timeout=120)
    assert pooled, "the products never earned the pool"
    assert tiers.earned("matmul float32") and not tiers.earned("matmul float64")
    for r in [first] + got:
        np.testing.assert_allclose(r, want, rtol=1e-4, atol=1e-3)


def test_a_compiled_functions_fused_kernels_earn_their_parallel_variant_too(tiers):
    seen = []
    real = _par.run
    f = nbgrad.compile(lambda x, y: ((x * y).tanh() + x.exp() * 0.5).sum())
    n = _par.PARALLEL_MIN
    x = nbgrad.tensor(np.linspace(-1, 1, n), dtype=nbgrad.float32, requires_grad=True)
    y = nbgrad.tensor(np.linspace(1, 2, n), dtype=nbgrad.float32)
    f(x, y).backward()
    assert not tiers._hot and not tiers._ahead, "the first call compiled a parallel loop"
    xv, yv = x.detach().numpy(), y.numpy()
    want = (np.tanh(xv * yv) + np.exp(xv) * 0.5).sum()
    for _ in range(2000):
        out = f(x, y)
        assert float(out.item()) == pytest.approx(float(want), rel=1e-5)
        if tiers._ahead:
            break
    assert tiers._ahead, "the fused kernel never earned its parallel variant"
    assert _background.wait(timeout=120)
    try:
        _par.run = lambda s, p, size, *a: seen.append(p in tiers._hot) or real(s, p, size, *a)
        out = f(x, y)
    finally:
        _par.run = real
    assert seen and all(seen), "a fused kernel did not take its compiled parallel variant"
    assert float(out.item()) == pytest.approx(float(want), rel=1e-5)


@pytest.mark.parametrize("bad", ["soon", "-1", "nan"])
def test_a_bad_nbgrad_tier_up_is_refused_at_import(bad):
    env = dict(os.environ, NBGRAD_TIER_UP=bad)
    r = subprocess.run([sys.executable, "-c", "import nbgrad"], env=env, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode != 0
    assert (f"ValueError: NBGRAD_TIER_UP must be a number of seconds, 0 or more, not '{bad}'"
            in r.stderr)
