"""How tensors print (``nbgrad/_repr.py``, a port of PyTorch's algorithm): ``repr`` of
floats, integers, bools, empty and 0-dim tensors, summaries and suffixes, under each
``set_printoptions`` setting, against PyTorch's strings."""

import doctest

import numpy as np
import pytest

import nbgrad

torch = pytest.importorskip("torch")

VALUES = [[1.123456789, 2.5, -3.0], [1.0, 2.0, 30.0], [1e-5, 1.0], [1.0, 2000.0],
          [1.0, 2000.5], [0.0, 0.5], [float("nan"), 1.0, float("inf")], [1e9, 1.0],
          [123456.0, 1.0], [-0.25, 7.125], list(range(2000)), [[0.5, 1.5], [2.25, -1.0]],
          [3.0], [0.0], [1e-3, 5e-3], [-0.0, 0.0], 4.5]
SETTINGS = [{}, dict(precision=2), dict(sci_mode=True), dict(sci_mode=False),
            dict(profile="short"), dict(threshold=5, edgeitems=1), dict(profile="full"),
            dict(linewidth=30), dict(precision=6, sci_mode=False), dict(edgeitems=0,
                                                                        threshold=3)]


def _other(rng):
    return [lambda m: m.arange(10), lambda m: m.tensor([True, False]),
            lambda m: m.tensor(7), lambda m: m.zeros(0), lambda m: m.zeros(2, 0),
            lambda m: m.zeros(0, dtype=m.int64), lambda m: m.arange(3000).reshape(10, 300),
            lambda m: m.tensor(rng.standard_normal((3, 4, 5))),
            lambda m: m.ones(2, 3, requires_grad=True),
            lambda m: m.tensor(np.linspace(-1e5, 1e5, 50), dtype=m.float64,
                               requires_grad=True) * 3,
            lambda m: m.arange(40.0).reshape(2, 20) / 3, lambda m: m.tensor([1, -2],
                                                                            dtype=m.int32),
            lambda m: m.full((2, 2), float("nan"))]


def _same(got, want):
    """Equal strings; where a dtype is shown, the line breaks may differ: "nbgrad.int64"
    is a character longer than "torch.int64" (PyTorch's rule wraps on the length)."""
    assert got == want or ("dtype=" in want and got.split() == want.split()), (got, want)


@pytest.fixture(autouse=True)
def _default_options():
    yield
    nbgrad.set_printoptions(profile="default")
    torch.set_printoptions(profile="default")


@pytest.mark.parametrize("setting", SETTINGS, ids=str)
def test_repr_matches_pytorch(setting):
    for m in (nbgrad, torch):
        m.set_printoptions(profile="default")
        m.set_printoptions(**setting)
    for v in VALUES:
        for dt in ("float32", "float64"):
            want = repr(torch.tensor(v, dtype=getattr(torch, dt))).replace("torch.", "")
            got = repr(nbgrad.tensor(v, dtype=getattr(nbgrad, dt))).replace("nbgrad.", "")
            _same(got, want)
    rng = np.random.default_rng(0)
    for a, b in zip(_other(rng), _other(np.random.default_rng(0))):
        want = repr(a(torch)).replace("torch.", "")
        _same(repr(b(nbgrad)).replace("nbgrad.", ""), want)


def test_options_persist_until_changed_and_sci_mode_resets():
    nbgrad.set_printoptions(precision=2)
    nbgrad.set_printoptions(sci_mode=True)
    assert repr(nbgrad.tensor([1.5, 2.0])) == "tensor([1.50e+00, 2.00e+00])"
    nbgrad.set_printoptions(threshold=10)  # (sci_mode back to None; precision stays 2)
    assert repr(nbgrad.tensor([1.5, 2.0])) == "tensor([1.50, 2.00])"
    nbgrad.set_printoptions(profile="nonsense")  # an unknown profile changes nothing (PyTorch)
    assert repr(nbgrad.tensor([1.5, 2.0])) == "tensor([1.50, 2.00])"


def test_docstring_examples_run():
    from nbgrad import _repr

    res = doctest.testmod(_repr, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert res.attempted and not res.failed
