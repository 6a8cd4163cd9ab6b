"""Shared fixtures for the nbgrad test suite."""

import os

# Tiny test grids are expected; on a real GPU Numba would warn about occupancy, and the
# suite turns NumbaPerformanceWarning (which also flags implicit host copies) into errors.
os.environ.setdefault("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS", "0")
# A kernel takes its parallel variant at its first big call, here and in the processes
# tests start (by default it waits until its serial variant has run a while; test_tiering
# tests that delay), so that tests sized for the parallel variants exercise them.
os.environ.setdefault("NBGRAD_TIER_UP", "0")

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
