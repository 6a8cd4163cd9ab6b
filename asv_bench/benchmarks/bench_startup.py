"""Start-up costs, each measured in a fresh ``python`` subprocess.

- ``FirstCall.track_first_call_s``: the first forward/backward of a small expression
  (``x*y + x/y - y``, tanh, exp, sum) on a dtype the process has not used: what compiling
  its kernels with Numba costs. ``track_second_call_s`` is the same call once compiled.
- ``Import.track_import_s``: ``import nbgrad``.
- ``ColdStart.track_cold_start_s``: PERF.md's cold_start, the wall time of a process that
  imports nbgrad, builds the MLP and runs the first mlp_step; with an empty Numba cache and
  with the cache the previous run left (``NUMBA_CACHE_DIR`` points at a fresh directory).
"""

import json
import os
import subprocess
import sys
import tempfile
import time

from .workloads import COLD_START_CODE, FIRST_CALL_CODE

_BENCH_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _python(code, cache_dir):
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=600)
    wall = time.perf_counter() - t0
    if r.returncode != 0:
        raise RuntimeError(f"subprocess failed ({r.returncode}):\n{r.stderr}")
    return wall, r.stdout


def _first_call(dtype):
    with tempfile.TemporaryDirectory() as cache:
        _, out = _python(FIRST_CALL_CODE.format(lib="nbgrad", dtype=dtype), cache)
    return json.loads(out.strip().splitlines()[-1])


class FirstCall:
    params = ["float32", "float64"]
    param_names = ["dtype"]
    timeout = 600

    def track_first_call_s(self, dtype):
        return _first_call(dtype)["first"]

    track_first_call_s.unit = "s"

    def track_second_call_s(self, dtype):
        return _first_call(dtype)["second"]

    track_second_call_s.unit = "s"


class Import:
    timeout = 300

    def track_import_s(self):
        return _first_call("float32")["import"]

    track_import_s.unit = "s"


class ColdStart:
    params = ["empty cache", "warm cache"]
    param_names = ["numba_cache"]
    timeout = 600

    def track_cold_start_s(self, numba_cache):
        code = COLD_START_CODE.format(lib="nbgrad", bench_dir=_BENCH_ROOT, setup="")
        with tempfile.TemporaryDirectory() as cache:
            if numba_cache == "warm cache":
                _python(code, cache)  # fills the cache (when nbgrad caches kernels)
            wall, _ = _python(code, cache)
        return wall

    track_cold_start_s.unit = "s"
