"""Differential test: random op programs run under nbgrad and PyTorch in float64 give the same
values, gradients (``autograd.grad``, ``.backward()`` accumulating into ``.grad``) and
second-order gradients (``create_graph=True``), and the same refusals (in-place ops PyTorch
rejects, saved tensors modified in place).

The programs (tests/_programs.py) mix elementwise, broadcasting, reduction, view, indexing,
concatenation, matrix, nn and in-place ops, with values kept away from kinks and ties, so a
mismatch is a bug. A failure prints the shrunk program as source: paste it after
``import nbgrad as torch`` to reproduce.

CI runs a fixed, derandomized set of examples. For a soak run, set
``NBGRAD_HYPOTHESIS_EXAMPLES`` (e.g. 3000): the examples are then drawn at random.
"""

import os

import numpy as np
import pytest
from _programs import programs
from hypothesis import HealthCheck, given, settings

torch = pytest.importorskip("torch")

import nbgrad  # noqa: E402

_SOAK = os.environ.get("NBGRAD_HYPOTHESIS_EXAMPLES")
_EXAMPLES = int(_SOAK) if _SOAK else 200

# float64 throughout: both libraries round each op correctly to ~1e-16, and values stay
# below 1e4, so differences beyond these mean a different result, not rounding
RTOL = 1e-9
ATOL = 1e-9


def _close(name, got, want):
    if want is None:
        assert got is None, f"{name}: torch gives None, nbgrad gives {got!r}"
        return
    assert got is not None, f"{name}: torch gives {want!r}, nbgrad gives None"
    assert got.dtype == nbgrad.float64, f"{name}: dtype {got.dtype}"
    assert tuple(got.shape) == want.shape, f"{name}: shape {tuple(got.shape)} != {want.shape}"
    scale = max(1.0, float(np.max(np.abs(want)))) if want.size else 1.0
    np.testing.assert_allclose(got.detach().numpy(), want, rtol=RTOL, atol=ATOL * scale,
                               err_msg=name)


def check_program(prog):
    """Run ``prog`` under nbgrad and compare with PyTorch's recorded results."""
    ns = prog.run(nbgrad)
    want = prog.expected
    if "raises" in want:
        return  # the program's last statement already checked nbgrad raised the same
    _close("loss", ns["loss"], want["loss"])
    for key in ("grads", "grads2"):
        if key in want:
            got = ns[key]
            assert len(got) == len(want[key])
            for k, (g, w) in enumerate(zip(got, want[key])):
                _close(f"{key}[{k}] ({prog.leaves[k]})", g, w)


@pytest.mark.slow
@settings(max_examples=_EXAMPLES, deadline=None, derandomize=not _SOAK, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.filter_too_much])
@given(prog=programs(torch))
def test_random_programs_match_torch(prog):
    check_program(prog)
