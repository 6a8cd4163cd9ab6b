"""Shared fixtures for the nbgrad test suite."""

import pytest

from nbgrad.autograd import grad_mode


@pytest.fixture(autouse=True)
def _restore_grad_mode():
    """Every test starts with grad mode on and leaves it as it found it, even on failure."""
    state = grad_mode.STATE
    state.enabled, state.inference = True, False
    yield
    state.enabled, state.inference = True, False
