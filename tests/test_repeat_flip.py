"""Tests of repeat, tile and flip (ops/shape.py): copies, not views."""

import numpy as np
import pytest
from _gradrows import check_gradients, check_grads_match_torch

import nbgrad


def _t(a, rg=False):
    return nbgrad.tensor(a, requires_grad=rg)


GRAD_FNS = [  # (name, fn(m, x) with m = nbgrad or torch)
    ("repeat", lambda m, x: x.repeat(2, 1, 3)),
    ("repeat new dims", lambda m, x: x[0].repeat(2, 1, 2)),
    ("tile", lambda m, x: m.tile(x, (2,))),
    ("flip", lambda m, x: m.flip(x, (0, -1))),
]


@pytest.mark.parametrize("name,fn", GRAD_FNS, ids=[n for n, _ in GRAD_FNS])
def test_gradcheck(name, fn):
    check_gradients(fn)


@pytest.mark.parametrize("name,fn", GRAD_FNS, ids=[n for n, _ in GRAD_FNS])
def test_grads_match_torch(name, fn):
    check_grads_match_torch(fn)


# ----- values and errors --------------------------------------------------------------------------
def test_repeat_tile_flip():
    a = np.arange(6.0).reshape(2, 3)
    x = _t(a)
    np.testing.assert_array_equal(x.repeat(2, 3).numpy(), np.tile(a, (2, 3)))
    np.testing.assert_array_equal(x.repeat(2, 1, 1).numpy(), np.tile(a, (2, 1, 1)))
    np.testing.assert_array_equal(x.repeat((1, 2)).numpy(), np.tile(a, (1, 2)))
    assert tuple(x.repeat(0, 2).shape) == (0, 6)
    np.testing.assert_array_equal(nbgrad.tile(x, (2,)).numpy(), np.tile(a, (2,)))
    np.testing.assert_array_equal(x.tile(2, 1, 2).numpy(), np.tile(a, (2, 1, 2)))
    np.testing.assert_array_equal(nbgrad.flip(x, (0, 1)).numpy(), a[::-1, ::-1])
    np.testing.assert_array_equal(x.flip(-1).numpy(), a[:, ::-1])
    np.testing.assert_array_equal(nbgrad.tensor([1, 2, 3]).repeat(2).numpy(), [1, 2, 3, 1, 2, 3])
    with pytest.raises(RuntimeError, match="can not be smaller than number of dimensions"):
        x.repeat(2)
    with pytest.raises(RuntimeError, match="appears multiple times"):
        nbgrad.flip(x, (0, 0))
    # repeat returns new storage even where a stride-0 view would do
    v = nbgrad.tensor([1.0])
    r = v.repeat(3)
    r[0] = 9.0
    assert v.item() == 1.0 and r.tolist() == [9.0, 1.0, 1.0]
