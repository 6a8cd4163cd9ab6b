"""``as_strided`` (and ``Tensor.as_strided_``) against PyTorch: views anywhere in the
storage (overlapping windows, offsets before and after a view's start, transposed and
expanded inputs, empty results), writes through the view, gradients (shared storage
added up, an expanded input's share divided), finite differences to second order, and
PyTorch's errors."""

import doctest

import numpy as np
import pytest

import nbgrad
from nbgrad.autograd import gradcheck, gradgradcheck
from tests._errors import assert_same_error

torch = pytest.importorskip("torch")

A = np.random.default_rng(0).standard_normal(16)

CASES = [
    lambda x: x.as_strided((3, 4), (2, 1)),  # overlapping windows
    lambda x: x.as_strided((2, 2), (1, 1), 3),
    lambda x: x[4:].as_strided((2, 3), (1, 2)),  # the view's own offset by default
    lambda x: x[4:].as_strided((2, 2), (1, 1), 1),  # before the view's start
    lambda x: x.view(4, 4).t().as_strided((3,), (5,)),
    lambda x: x[:4].expand(2, 4).as_strided((2, 2), (1, 1)),  # an expanded input
    lambda x: x.view(4, 4)[:, 1].as_strided((2, 2), (4, 1), 2),
    lambda x: x.as_strided((0, 3), (100, 100), 100),
    lambda x: x.as_strided((), (), 5),
]


@pytest.mark.parametrize("k", range(len(CASES)))
def test_values_strides_and_gradients_match_pytorch(k):
    res = []
    for m in (nbgrad, torch):
        t = m.tensor(A, requires_grad=True)
        y = CASES[k](t * 1)
        w = m.tensor(np.arange(y.numel(), dtype=np.float64).reshape(tuple(y.shape)))
        (y * w).sum().backward()
        res.append((y.detach().numpy(), y.stride(), t.grad.numpy()))
    (a, sa, ga), (b, sb, gb) = res
    assert sa == sb and a.shape == b.shape
    np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(ga, gb, rtol=1e-15, atol=0)


def test_finite_differences_to_second_order():
    t = nbgrad.tensor(A[:8].copy(), requires_grad=True)
    for f in (lambda x: (x * 1).as_strided((3, 3), (1, 2), 1),
              lambda x: ((x * 1)[:4].expand(3, 4).as_strided((2, 3), (1, 1)) ** 2)):
        assert gradcheck(f, (t,)) and gradgradcheck(f, (t,))


def test_a_write_through_the_view_reaches_the_input_and_as_strided_in_place():
    for m in (nbgrad, torch):
        w = m.zeros(6)
        w[1:].as_strided((2,), (2,), 2).fill_(5.0)
        assert w.tolist() == [0.0, 0.0, 5.0, 0.0, 5.0, 0.0]
        v = w.as_strided_((2, 3), (3, 1))
        assert v is w and w.shape == (2, 3) and w.stride() == (3, 1)
        assert w.storage_offset() == 0 and w[1, 1].item() == 5.0


@pytest.mark.parametrize("call", [
    lambda m: m.as_strided(m.arange(16.), (3, 3), (1,)),
    lambda m: m.arange(16.).as_strided((2, 2), (-1, 1)),
    lambda m: m.arange(16.).as_strided((-1, 2), (1, 1)),
    lambda m: m.arange(16.).as_strided((2, 2), (1, 1), -1),
    lambda m: m.arange(16.).as_strided((3, 3), (5, 1), 6),
    lambda m: m.arange(16.)[8:].as_strided((3, 3), (4, 1)),
])
def test_errors_are_pytorchs(call):
    assert_same_error(call, torch, nbgrad)


def test_docstring_example_runs():
    from nbgrad.ops import strided

    res = doctest.testmod(strided)
    assert res.attempted and not res.failed


def test_empty_strided_and_new_empty_strided_match_pytorch():
    for size, stride in (((2, 3), (1, 2)), ((2, 2), (0, 1)), ((0, 3), (5, 5)), ((), ())):
        got, want = nbgrad.empty_strided(size, stride), torch.empty_strided(size, stride)
        assert got.stride() == want.stride() and tuple(got.shape) == tuple(want.shape)
    x = nbgrad.ones(2, dtype=nbgrad.float64)
    e = x.new_empty_strided((2, 3), (1, 2), requires_grad=True)
    assert e.dtype == nbgrad.float64 and e.requires_grad and e.stride() == (1, 2)
    e.detach().fill_(2.0)
    assert e.sum().item() == 12.0
    for call in (lambda m: m.empty_strided((2, 3), (1,)), lambda m: m.empty_strided((2,), (-1,)),
                 lambda m: m.empty_strided((-2,), (1,))):
        assert_same_error(call, torch, nbgrad)
