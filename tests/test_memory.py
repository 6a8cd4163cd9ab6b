"""Memory that backward frees goes back to the system: the CPU buffer pool is bounded and
gives idle buffers back (storage/_cpupool.py)."""

import gc
import os
import sys
import time

import numpy as np
import pytest

import nbgrad
from nbgrad.storage import _cpupool

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="reads /proc/self/statm")

N = 1 << 23  # float32: 32 MiB a tensor


def _rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _graph(n):
    x = nbgrad.tensor(np.linspace(-1, 1, n, dtype=np.float32), requires_grad=True)
    y = x
    for _ in range(8):
        y = (y * 1.01).tanh()  # 16 results of n floats, the 8 tanh's saved for backward
    y.sum().backward()
    return x, y


def _settle():
    gc.collect()
    time.sleep(getattr(_cpupool, "DECAY_S", 1.0) + 0.5)  # idle buffers go back by then


def test_rss_drops_after_backward_of_a_large_graph_is_deleted():
    _graph(1 << 20)  # compiles what the big graph runs, at a small size
    _settle()
    before = _rss()
    x, y = _graph(N)
    grew = _rss() - before
    assert grew > 8 * 4 * N  # (the graph did take its few hundred MB)
    del x, y
    _settle()
    assert _rss() - before < 48 << 20


def test_a_buffer_is_reused_within_a_step_and_let_go_when_idle():
    x = nbgrad.ones(N // 8)  # 4 MiB
    (x * 2.0).sum()
    before = nbgrad.cpu.pooled_bytes()
    assert before >= 4 * (N // 8)  # the freed product's buffer waits for reuse
    ptr = (x * 3.0)._data.__array_interface__["data"][0]
    assert (x * 4.0)._data.__array_interface__["data"][0] == ptr  # same buffer again
    _settle()
    assert nbgrad.cpu.pooled_bytes() == 0  # (x itself is not on a pooled buffer)


def test_the_idle_limit_comes_from_nbgrad_pool_bytes():
    import subprocess

    code = ("from nbgrad.storage import _cpupool as P; import nbgrad; x = nbgrad.ones(1 << 19); "
            "x * 2.0; print(P._state['limit'], nbgrad.cpu.pooled_bytes())")
    env = dict(os.environ, NBGRAD_POOL_BYTES=str(3 << 20))
    env.pop("NBGRAD_CPU_POOL_MB", None)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == [str(3 << 20), str(2 << 20)]  # the freed 2 MiB product waits for reuse


_HEAP_CODE = """
import os
import numpy as np
import nbgrad
from nbgrad import _config
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
a = [np.ones(1 << 16) for _ in range(48)]  # 24 MiB in 512 KiB buffers
r = rss()
del a
print(_config.MALLOC_TUNED, (r - rss()) >> 20)
"""


@pytest.mark.parametrize("trim,tuned", [(None, True), ("0", False)])
def test_freed_small_buffers_stay_in_the_heap_up_to_nbgrad_heap_trim_bytes(trim, tuned):
    """Buffers under the pool's size that a step frees stay in malloc's heap for the next
    step (up to NBGRAD_HEAP_TRIM_BYTES, default 32 MiB) instead of being unmapped and
    faulted in again; NBGRAD_HEAP_TRIM_BYTES=0 leaves glibc's own behaviour."""
    import subprocess

    if not os.confstr("CS_GNU_LIBC_VERSION"):
        pytest.skip("glibc's malloc only")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("MALLOC_") and k != "GLIBC_TUNABLES"}
    if trim is not None:
        env["NBGRAD_HEAP_TRIM_BYTES"] = trim
    else:
        env.pop("NBGRAD_HEAP_TRIM_BYTES", None)
    out = subprocess.run([sys.executable, "-c", _HEAP_CODE], env=env, capture_output=True,
                         text=True, check=True).stdout.split()
    assert out[0] == str(tuned)
    returned_mib = int(out[1])
    if tuned:
        assert returned_mib < 4  # kept for reuse
    else:
        assert returned_mib > 16  # glibc unmaps each buffer as it is freed
