"""Shared fixtures for the nbgrad test suite."""

import os

# Tiny test grids are expected; on a real GPU Numba would warn about occupancy, and the
# suite turns NumbaPerformanceWarning (which also flags implicit host copies) into errors.
os.environ.setdefault("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS", "0")
# A kernel takes its parallel variant at its first big call, here and in the processes
# tests start (by default it waits until its serial variant has run a while; test_tiering
# tests that delay), so that tests sized for the parallel variants exercise them.
os.environ.setdefault("NBGRAD_TIER_UP", "0")

# The kernel cache (on by default) goes to a folder of this run's own, shared by the xdist
# workers and every process the tests start, removed at the end: each kernel compiles once
# per run, and no test reads machine code left by an earlier run (or leaves any in the
# user's cache). NBGRAD_TEST_CACHE_DIR names a folder to keep instead.
_OWN_CACHE = "NBGRAD_TEST_CACHE_DIR" not in os.environ
if _OWN_CACHE:  # (the xdist controller, or a run without workers; workers inherit it)
    import tempfile

    os.environ["NBGRAD_TEST_CACHE_DIR"] = tempfile.mkdtemp(prefix="nbgrad-test-cache-")
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


def pytest_unconfigure(config):
    if _OWN_CACHE and not hasattr(config, "workerinput"):
        import shutil

        shutil.rmtree(os.environ["NBGRAD_TEST_CACHE_DIR"], ignore_errors=True)
