"""``nbgrad.testing.assert_close`` against ``torch.testing.assert_close``: the same
outcome, exception type and message (library names aside) on tensors of each dtype,
NumPy arrays, numbers, booleans, None, nested sequences and mappings, tolerances given or
by dtype, ``equal_nan``, ``check_dtype``, ``check_stride`` and ``msg``."""

import doctest

import numpy as np
import pytest

import nbgrad

torch = pytest.importorskip("torch")


def _cases(m):
    t = m.tensor
    ac = m.testing.assert_close
    nan, inf = float("nan"), float("inf")
    return [
        lambda: ac(t([1., 2., 3.]), t([1., 2.5, 3.])),
        lambda: ac(t([1., 2., 3.]), t([1., 2. + 1e-6, 3.])),
        lambda: ac(t([[1., 2.], [3., 4.]]), t([[1., 2.], [3., 5.]])),
        lambda: ac(t([1., 2.]), t([1., 2.], dtype=m.float64)),
        lambda: ac(t([1., 2.]), t([1., 2., 3.])),
        lambda: ac(t([1, 2]), t([1, 3])),
        lambda: ac(t([True, False]), t([True, True])),
        lambda: ac(t([nan]), t([nan])),
        lambda: ac(t([nan, 1.]), t([nan, 1.]), equal_nan=True),
        lambda: ac(t([1., inf]), t([1., -inf])),
        lambda: ac(t([1., inf]), t([1., inf])),
        lambda: ac(t([1.0, 0.]), t([0.0, 0.])),
        lambda: ac(t(1.0), t(2.0)),
        lambda: ac(t(1.0), t(0.0)),
        lambda: ac(t(2), t(3)),
        lambda: ac(1.0, 1.5),
        lambda: ac(1.0, 1.0 + 1e-9),
        lambda: ac(2.0, 0.0),
        lambda: ac(1, 2),
        lambda: ac(1, 1.0),
        lambda: ac(True, False),
        lambda: ac(None, None),
        lambda: ac([t(1.), t(2.)], [t(1.), t(3.)]),
        lambda: ac({"a": t(1.)}, {"a": t(3.)}),
        lambda: ac({"a": 1., "c": [1, 2]}, {"a": 1., "c": [1, 3]}),
        lambda: ac([1., 2.], (1., 2.)),
        lambda: ac([1.], [1., 2.]),
        lambda: ac({"a": 1.}, {"b": 1.}),
        lambda: ac(t([1.]), t([1.5]), rtol=1e-3),
        lambda: ac(t([1., 2.]), t([1., 2.]), rtol=None, atol=1e-3),
        lambda: ac(t([1., 2.]), t([1., 2.1]), atol=0.05, rtol=0),
        lambda: ac(t([1., 2.]), t([1., 2.1]), atol=0.2, rtol=0),
        lambda: ac(t([1.]), t([2.]), msg="custom"),
        lambda: ac(t([1., 2.]), t([1., 2.1]), msg=lambda s: "pre " + s),
        lambda: ac(m.zeros(2, 2), m.zeros(2, 2).t(), check_stride=True),
        lambda: ac(m.zeros(2, 2), m.zeros(2, 2).t()),
        lambda: ac(t([1, 2]), t([1., 2.5]), check_dtype=False),
        lambda: ac(t([1., 2.]), t([1., 3.], dtype=m.float64), check_dtype=False),
        lambda: ac(t([1., 5.], requires_grad=True) * 2, t([2., 3.])),
        lambda: ac(t([1.], dtype=m.float16), t([1.001], dtype=m.float16)),
        lambda: ac(t([1.], dtype=m.float16), t([1.01], dtype=m.float16)),
        lambda: ac(t([1.], dtype=m.bfloat16), t([1.1], dtype=m.bfloat16)),
        lambda: ac(m.zeros(0), m.zeros(0)),
        lambda: ac(np.array([1., 2.]), np.array([1., 2.5])),
        lambda: ac(t([1.]), 1.0),
        lambda: ac(t([1.]), np.array([1.])),
        lambda: ac("a", "b"),
    ]


def _outcome(call):
    try:
        call()
    except Exception as e:  # noqa: BLE001  (the outcome compared)
        text = str(e).replace("torch.Tensor", "Tensor").replace("nbgrad.tensor.Tensor", "Tensor")
        return type(e), text.replace("torch.", "").replace("nbgrad.", "")
    return None


@pytest.mark.parametrize("k", range(len(_cases(nbgrad))))
def test_outcome_and_message_are_pytorchs(k):
    assert _outcome(_cases(nbgrad)[k]) == _outcome(_cases(torch)[k])


def test_reachable_after_import_and_its_example_runs():
    import nbgrad.testing._comparison as mod

    assert nbgrad.testing.assert_close is mod.assert_close
    res = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
    assert res.attempted and not res.failed
