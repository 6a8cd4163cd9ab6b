"""``diagonal`` and ``Tensor.unfold`` (ops/strided.py): views of their input, values and
gradients against PyTorch, finite differences in float64 (first and second order), writes
through the views with autograd, and PyTorch's errors."""

import doctest

import numpy as np
import pytest

import nbgrad
from nbgrad.autograd import gradcheck, gradgradcheck
from tests._errors import error_of

torch = pytest.importorskip("torch")

DIAGONALS = [((3, 3), 0, 0, 1), ((3, 4), 1, 0, 1), ((4, 3), -2, 0, 1), ((2, 3, 4), 0, 1, 2),
             ((2, 3, 4), -1, 2, 0), ((2, 3, 4), 1, -1, -3), ((3, 3), 5, 0, 1),
             ((2, 0, 3), 0, 1, 2)]
UNFOLDS = [((10,), 0, 3, 2), ((2, 3, 5), 2, 2, 1), ((2, 3, 5), -1, 5, 5), ((4, 6), 0, 2, 3),
           ((2, 7, 3), 1, 1, 2), ((), 0, 1, 1), ((3, 4), 1, 0, 1)]


def _pair(shape, seed=0):
    a = np.random.default_rng(seed).standard_normal(shape)
    return (nbgrad.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True))


@pytest.mark.parametrize("shape, offset, d1, d2", DIAGONALS)
def test_diagonal_matches_pytorch(shape, offset, d1, d2):
    x, t = _pair(shape)
    y, u = x.diagonal(offset, d1, d2), t.diagonal(offset, d1, d2)
    assert tuple(y.shape) == tuple(u.shape)
    np.testing.assert_array_equal(y.detach().numpy(), u.detach().numpy())
    assert y._base is x and y.grad_fn.name() == "DiagonalBackward0"
    w = np.random.default_rng(1).standard_normal(tuple(u.shape))
    (y * nbgrad.tensor(w)).sum().backward()
    (u * torch.tensor(w)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), t.grad.numpy())
    assert np.array_equal(nbgrad.diagonal(x.detach(), offset, d1, d2).numpy(),
                          torch.diagonal(t.detach(), offset, d1, d2).numpy())
    if x.numel():
        f = lambda a: (a.diagonal(offset, d1, d2) ** 2).sum()  # noqa: E731
        assert gradcheck(lambda a: a.diagonal(offset, d1, d2), (x,))
        assert gradgradcheck(f, (x,))


@pytest.mark.parametrize("shape, dim, size, step", UNFOLDS)
def test_unfold_matches_pytorch(shape, dim, size, step):
    x, t = _pair(shape)
    y, u = x.unfold(dim, size, step), t.unfold(dim, size, step)
    assert tuple(y.shape) == tuple(u.shape)
    np.testing.assert_array_equal(y.detach().numpy(), u.detach().numpy())
    assert y._base is x and y.grad_fn.name() == "UnfoldBackward0"
    w = np.random.default_rng(1).standard_normal(tuple(u.shape))
    (y * nbgrad.tensor(w)).sum().backward()
    (u * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-14, atol=1e-14)
    if y.numel():
        assert gradcheck(lambda a: a.unfold(dim, size, step), (x,))
        assert gradgradcheck(lambda a: (a.unfold(dim, size, step) ** 3).sum(), (x,))


def test_views_share_storage_and_take_writes_with_autograd():
    for m in (nbgrad, torch):
        a = m.arange(9.0).reshape(3, 3)
        a.diagonal().zero_()
        a.unfold(1, 2, 1)[0, 0, 1] = 7.0  # (writes a[0, 1])
        assert a.tolist() == [[0.0, 7.0, 2.0], [3.0, 0.0, 5.0], [6.0, 7.0, 0.0]]
    got = []
    for m in (nbgrad, torch):
        w = m.arange(1.0, 10.0, dtype=m.float64).reshape(3, 3).requires_grad_()
        c = m.tensor([0.5, -2.0], dtype=m.float64, requires_grad=True)
        b = w * 2
        b.diagonal(1).mul_(c)  # in place through views: CopySlices
        b.unfold(0, 2, 1)[1, :2, 0].add_(c.exp())
        (b ** 2).sum().backward()
        got.append((b.detach().numpy().copy(), w.grad.numpy().copy(), b.grad_fn.name(),
                    c.grad.numpy().copy()))
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            b2 = w * 2  # (PyTorch's error too: mul_ saved the other view, then wrote it)
            b2.diagonal(1).mul_(b2.diagonal(-1))
            b2.sum().backward()
    np.testing.assert_array_equal(got[0][0], got[1][0])
    np.testing.assert_array_equal(got[0][1], got[1][1])
    assert got[0][2] == got[1][2]
    np.testing.assert_array_equal(got[0][3], got[1][3])


def test_errors_match_pytorch():
    for call in [lambda m: m.ones(3, 3).diagonal(0, 1, 1),
                 lambda m: m.ones(3, 3).diagonal(0, 0, 2),
                 lambda m: m.ones(3).diagonal(),
                 lambda m: m.ones(5).unfold(0, 6, 1),
                 lambda m: m.ones(5).unfold(0, 2, 0),
                 lambda m: m.ones(5).unfold(0, -1, 1),
                 lambda m: m.ones(5).unfold(1, 2, 1),
                 lambda m: m.diagonal([1, 2])]:
        ours, theirs = error_of(lambda: call(nbgrad)), error_of(lambda: call(torch))
        assert ours[0] is theirs[0], (ours, theirs)
        if "argument 'input'" not in theirs[1]:
            assert ours[1] == theirs[1]


def test_docstring_examples_run():
    from nbgrad.ops import strided

    res = doctest.testmod(strided, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert res.attempted and not res.failed
