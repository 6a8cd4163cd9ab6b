"""``asarray`` (memory sharing, dtype and copy rules, requires_grad) and ``unravel_index``
(coordinates, wrap-around, dtypes, errors) against PyTorch."""

import doctest

import numpy as np
import pytest

import nbgrad
from tests._errors import assert_same_error

torch = pytest.importorskip("torch")


def test_asarray_shares_or_copies_as_pytorch():
    for m in (nbgrad, torch):
        a = np.arange(3.0)
        t = m.asarray(a)
        a[0] = 9.0  # shared
        assert t.tolist() == [9.0, 1.0, 2.0] and t.dtype == m.float64
        c = m.asarray(a, copy=True)
        a[1] = 7.0
        assert c.tolist() == [9.0, 1.0, 2.0]
        f = m.asarray(a, dtype=m.float32)  # another dtype: a copy
        a[2] = 5.0
        assert f.tolist() == [9.0, 7.0, 2.0] and f.dtype == m.float32
        assert [m.asarray(v).dtype for v in ([1, 2], [1.0, 2.0], 3.0, np.float32(2), True)] == [
            m.int64, m.float32, m.float32, m.float32, m.bool]
        x = m.ones(2)
        assert m.asarray(x) is x and m.asarray(x, copy=True) is not x
        assert m.asarray(x, dtype=m.float64).dtype == m.float64
        g = m.asarray([1.0, 2.0], requires_grad=True)
        assert g.requires_grad and g.is_leaf
        assert m.asarray(x, requires_grad=True) is x and x.requires_grad


@pytest.mark.parametrize("call", [
    lambda m: m.asarray(np.arange(3.0), copy=False, dtype=m.float32),
    lambda m: m.asarray(m.ones(2), copy=False, dtype=m.float64),
    lambda m: m.asarray([1, 2], copy=False), lambda m: m.asarray(3.0, copy=False),
    lambda m: m.unravel_index(m.tensor([1.0]), (3, 3)),
    lambda m: m.unravel_index(m.tensor([1]), (3, -1)),
])
def test_errors_are_pytorchs(call):
    assert_same_error(call, torch, nbgrad, lambda text: text.replace("torch.", "nbgrad."))


def test_asarray_of_integers_cannot_require_grad():
    with pytest.raises(RuntimeError, match="floating point"):
        nbgrad.asarray([1, 2], requires_grad=True)


@pytest.mark.parametrize("args", [
    (lambda m: m.tensor([4, 1, 7]), (3, 3)), (lambda m: m.tensor(5), (2, 3)),
    (lambda m: m.tensor([9, -1, -10]), (3, 3)), (lambda m: m.tensor([1]), ()),
    (lambda m: m.tensor([[1, 2]], dtype=m.int32), (2, 2)), (lambda m: m.tensor([5]), 4),
    (lambda m: m.arange(24).reshape(2, 12), (2, 3, 4)),
])
def test_unravel_index_matches_pytorch(args):
    make, shape = args
    got, want = (m.unravel_index(make(m), shape) for m in (nbgrad, torch))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == nbgrad.int64 and g.shape == w.shape
        np.testing.assert_array_equal(g.numpy(), w.numpy())


def test_docstring_examples_run():
    from nbgrad import creation
    from nbgrad.ops import index

    for mod in (creation, index):
        res = doctest.testmod(mod, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        assert res.attempted and not res.failed


def test_the_legacy_tensor_new_matches_pytorch():
    for m in (nbgrad, torch):
        x = m.ones(2, dtype=m.float64)
        assert tuple(x.new(3).shape) == (3,) and x.new(2, 3).dtype == m.float64
        assert tuple(x.new(m.Size([2, 2])).shape) == (2, 2) and tuple(x.new().shape) == (0,)
        assert x.new([1, 2]).tolist() == [1.0, 2.0] and x.new((1, 2)).dtype == m.float64
        y = m.zeros(2, dtype=m.float64)
        assert x.new(y).tolist() == [0.0, 0.0]
    assert_same_error(lambda m: m.ones(2, dtype=m.float64).new(m.ones(2)), torch, nbgrad)
