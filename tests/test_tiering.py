"""A kernel takes its parallel variant only once its serial variant has run TIER_UP seconds
on inputs big enough for it (kernels/cpu/_par.py): a first step compiles no parallel loop."""

import os
import subprocess
import sys
import time

import numpy as np
import pytest

import nbgrad
from nbgrad.kernels.cpu import _par, blas


@pytest.fixture
def tiers(monkeypatch):
    """A fresh record of earned kernels, with the default's kind of delay (20 ms here)."""
    monkeypatch.setattr(_par, "TIER_UP", 0.02)
    monkeypatch.setattr(_par, "_hot", set())
    monkeypatch.setattr(_par, "_spent", {})
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
    # the first call is not counted (it compiles); three more of 8 ms pass 20 ms
    assert v.ran == ["serial"] * 4 + ["parallel"] * 2
    assert v.parallel in tiers._hot
    assert tiers._spent[v.parallel] >= 0.02


def test_a_call_whose_work_alone_would_take_the_budget_goes_parallel_at_once(tiers):
    v = _Variants()
    big = int(tiers.TIER_UP / tiers._UNIT_S)  # 20M units: ~20 ms serially
    _par.run(v.serial, v.parallel, big - 1, 1)
    _par.run(v.serial, v.parallel, big, 1)
    assert v.ran == ["serial", "parallel"]
    w = _Variants()
    _par.run(w.serial, w.parallel, big, 1)  # (its first call too)
    assert w.ran == ["parallel"]


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
    for _ in range(200):
        got.append((ta @ tb).numpy())
        if pooled:
            break
    assert pooled, "the products never earned the pool"
    assert tiers.earned("matmul float32") and not tiers.earned("matmul float64")
    for r in [first] + got:
        np.testing.assert_allclose(r, want, rtol=1e-4, atol=1e-3)


def test_a_compiled_functions_fused_kernel_takes_its_parallel_variant_at_once(tiers):
    seen = []
    real = _par.run
    f = nbgrad.compile(lambda x, y: ((x * y).tanh() + x.exp() * 0.5).sum())
    n = _par.PARALLEL_MIN
    x = nbgrad.tensor(np.linspace(-1, 1, n), dtype=nbgrad.float32, requires_grad=True)
    y = nbgrad.tensor(np.linspace(1, 2, n), dtype=nbgrad.float32)
    f(x, y).backward()
    assert tiers._hot, "no fused kernel was marked to run in parallel"
    try:
        _par.run = lambda s, p, size, *a: seen.append(p in tiers._hot) or real(s, p, size, *a)
        out = f(x, y)
    finally:
        _par.run = real
    assert seen and all(seen), "a fused kernel waited for its parallel variant"
    xv, yv = x.detach().numpy(), y.numpy()
    want = (np.tanh(xv * yv) + np.exp(xv) * 0.5).sum()
    assert float(out.item()) == pytest.approx(float(want), rel=1e-5)


@pytest.mark.parametrize("bad", ["soon", "-1", "nan"])
def test_a_bad_nbgrad_tier_up_is_refused_at_import(bad):
    env = dict(os.environ, NBGRAD_TIER_UP=bad)
    r = subprocess.run([sys.executable, "-c", "import nbgrad"], env=env, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode != 0
    assert (f"ValueError: NBGRAD_TIER_UP must be a number of seconds, 0 or more, not '{bad}'"
            in r.stderr)
