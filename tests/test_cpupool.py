"""The pool of large CPU buffers: reused only when nothing refers to them."""

import gc
import threading

import numpy as np
import pytest

import nbgrad
from nbgrad.storage._cpupool import MIN_BYTES

N = MIN_BYTES // 4  # float32: exactly the pool's minimum


@pytest.fixture(autouse=True)
def _fresh_pool():
    gc.collect()  # (arrays an earlier test left in reference cycles go back first)
    nbgrad.cpu.set_pool_limit(1024)
    yield
    nbgrad.cpu.set_pool_limit(1024)


def _in_use():
    """Pool bytes that arrays alive outside this test hold (an earlier test's in this
    process): the tests count their own buffers above it."""
    from nbgrad.storage import _cpupool

    return _cpupool._state["used"]


def test_a_freed_result_is_reused_and_a_held_one_is_not():
    x = nbgrad.ones(N)
    y = x * 2.0
    held = y.numpy()
    view = (x + 1.0)[10:20]  # only a view of this result survives
    z = x * 3.0
    for a in (y._data, view._data):
        assert not np.shares_memory(a, z._data)
    assert np.all(held == 2.0) and np.all(view.numpy() == 2.0) and np.all(z.numpy() == 3.0)
    buf = z._data.__array_interface__["data"][0]  # (holding z's memory would keep it in use)
    del z
    w = x - 5.0  # same size: takes the buffer z left
    assert w._data.__array_interface__["data"][0] == buf
    assert np.all(w.numpy() == -4.0) and np.all(held == 2.0)


def test_small_arrays_and_a_zero_limit_bypass_the_pool():
    before = nbgrad.cpu.pooled_bytes()
    nbgrad.ones(N // 2) * 2.0
    assert nbgrad.cpu.pooled_bytes() == before
    nbgrad.cpu.set_pool_limit(0)
    others = _in_use()
    assert nbgrad.cpu.pooled_bytes() == others  # (no free buffer kept)
    r = nbgrad.ones(N) * 2.0
    assert nbgrad.cpu.pooled_bytes() == others and np.all(r.numpy() == 2.0)
    with pytest.raises(ValueError, match="must be >= 0"):
        nbgrad.cpu.set_pool_limit(-1)


def test_empty_cache_keeps_buffers_in_use():
    others = _in_use()
    x = nbgrad.ones(N)
    keep = x * 2.0
    x * 3.0  # freed at once
    assert nbgrad.cpu.pooled_bytes() >= 2 * 4 * N
    nbgrad.cpu.empty_cache()
    assert nbgrad.cpu.pooled_bytes() == others + 4 * N
    assert np.all(keep.numpy() == 2.0)


def test_threads_never_share_a_buffer():
    x = nbgrad.ones(N)
    bad = []

    def work(k):
        for _ in range(20):
            r = x * float(k)
            if not np.all(r.numpy() == k):
                bad.append(k)

    ts = [threading.Thread(target=work, args=(k,)) for k in range(1, 5)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not bad


def test_training_results_do_not_depend_on_the_pool():
    rng = np.random.default_rng(0)
    a = rng.standard_normal(N).astype(np.float32)

    def run():
        w = nbgrad.tensor(a, requires_grad=True)
        for _ in range(3):
            loss = (nbgrad.tanh(w * 1.5) * w).sum()
            loss.backward()
            with nbgrad.no_grad():
                w.sub_(w.grad * 0.1)
            w.grad = None
        return w.detach().numpy().copy()

    pooled = run()
    assert nbgrad.cpu.pooled_bytes() > 0  # (the first run did go through the pool)
    nbgrad.cpu.set_pool_limit(0)
    np.testing.assert_array_equal(pooled, run())


def test_mid_size_results_are_pooled():
    # arrays from glibc's mmap threshold (128 KiB) up: each fresh one would fault its pages in
    before = nbgrad.cpu.pooled_bytes()
    x = nbgrad.ones(1 << 16)  # 256 KiB of float32
    y = x * 2.0
    assert nbgrad.cpu.pooled_bytes() - before >= 4 << 16
    assert np.all(y.numpy() == 2.0)
