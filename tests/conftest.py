"""Shared fixtures for the nbgrad test suite."""

import os

# tests/mpi/ are collectives and DistributedDataParallel, run by every process of an
# mpiexec job (.ci/run starts them on 2 and on 3 processes); a plain run leaves them out.
collect_ignore = [] if "PMI_SIZE" in os.environ or "OMPI_COMM_WORLD_SIZE" in os.environ \
    else ["mpi"]

# Tiny test grids are expected; on a real GPU Numba would warn about occupancy, and the
# suite turns NumbaPerformanceWarning (which also flags implicit host copies) into errors.
os.environ.setdefault("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS", "0")
# A kernel takes its parallel variant at its first big call, here and in the processes
# tests start (by default it waits until its serial variant has run a while; test_tiering
# tests that delay), so that tests sized for the parallel variants exercise them.
os.environ.setdefault("NBGRAD_TIER_UP", "0")

# The kernel cache (on by default) goes to a folder of the tests' own, out of the user's
# cache, shared by the xdist workers, the processes the tests start, and the other pytest
# runs of the same session, a terminal or a CI job (CI's second run, the CUDA simulator's,
# compiles the same CPU kernels: 80 s -> 33 s for its slowest tests): the folder is named by
# the session's id (its leader's process id, robust to `timeout` and other wrappers), and a
# folder whose session has ended is removed by the next run. Reusing machine code
# from an earlier run is as safe as the user's cache (a folder per kernel source: see
# nbgrad/kernels/cpu/_disk.py). NBGRAD_TEST_CACHE_DIR names a folder instead.
if "NBGRAD_TEST_CACHE_DIR" not in os.environ:  # (the xdist controller; workers inherit it)
    import shutil
    import tempfile

    def _alive(pid):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except OSError:  # (another user's process)
            return True
        return True

    _tmp = tempfile.gettempdir()
    for _name in os.listdir(_tmp):
        _pid = _name.rpartition("-")[2]
        if _name.startswith("nbgrad-test-cache-") and _pid.isdigit() and not _alive(int(_pid)):
            shutil.rmtree(os.path.join(_tmp, _name), ignore_errors=True)
    os.environ["NBGRAD_TEST_CACHE_DIR"] = os.path.join(_tmp, f"nbgrad-test-cache-{os.getsid(0)}")
os.environ["NBGRAD_CACHE_DIR"] = os.environ["NBGRAD_TEST_CACHE_DIR"]
# Where PYTHONDONTWRITEBYTECODE is set, every process the tests start (~60, and the
# notebooks' kernels) would compile nbgrad's source to bytecode again (~0.7 s each): they
# share the run's folder for it instead.
if os.environ.pop("PYTHONDONTWRITEBYTECODE", None):
    os.environ.setdefault("PYTHONPYCACHEPREFIX",
                          os.path.join(os.environ["NBGRAD_TEST_CACHE_DIR"], "pycache"))

# the first-compile line on stderr (tested on its own in test_cache) stays out of the
# output of the processes tests start
os.environ.setdefault("NBGRAD_QUIET", "1")

import pytest  # noqa: E402

from nbgrad.autograd import grad_mode  # noqa: E402


@pytest.fixture(autouse=True)
def _restore_grad_mode():
    """Every test starts with grad mode on and leaves it as it found it, even on failure."""
    state = grad_mode.STATE
    state.enabled, state.inference = True, False
    yield
    state.enabled, state.inference = True, False


@pytest.fixture(autouse=True)
def _parallel_threshold(monkeypatch):
    """Tests size their "big" inputs around a 131072-element parallel threshold, so that the
    parallel kernel variants are exercised whatever the default (a performance knob) is."""
    from nbgrad.kernels.cpu import _par

    monkeypatch.setattr(_par, "PARALLEL_MIN", 131072)

