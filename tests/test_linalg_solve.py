"""linalg.inv, det, slogdet, solve (ops/linalg_solve.py): values, gradients and nodes
against PyTorch, finite differences of first and second order in float64, PyTorch's
errors for singular and misshapen input."""

import doctest

import numpy as np
import pytest

import nbgrad
from nbgrad.autograd import gradcheck, gradgradcheck
from tests._errors import error_of

torch = pytest.importorskip("torch")


def _calls(m, a, b, v):
    L = m.linalg
    return [L.inv(a), L.det(a), L.slogdet(a)[1], L.slogdet(a)[0], L.solve(a, b),
            L.solve(a, v), L.solve(a[0], b[0]), L.solve(a[0], b[0].T, left=False),
            m.inverse(a), m.det(a[1]), a.inverse(), a.det()]


def test_values_gradients_and_nodes_match_pytorch():
    rng = np.random.default_rng(0)
    A, B, v = (rng.standard_normal(s) for s in ((2, 3, 3), (2, 3, 2), (2, 3)))
    got = []
    for m in (nbgrad, torch):
        a, b, w = (m.tensor(x, requires_grad=True) for x in (A, B, v))
        outs = _calls(m, a, b, w)
        sum((o * o).sum() for o in outs).backward()
        got.append(([o.detach().numpy() for o in outs] + [a.grad, b.grad, w.grad],
                    [o.grad_fn.name() if o.grad_fn is not None else None for o in outs[:6]]))
    assert got[0][1] == got[1][1]
    for x, y in zip(got[0][0], got[1][0]):
        x, y = (t.numpy() if hasattr(t, "numpy") else t for t in (x, y))
        np.testing.assert_allclose(x, y, rtol=1e-10, atol=1e-12)


def test_finite_differences():
    rng = np.random.default_rng(1)
    a = nbgrad.tensor(rng.standard_normal((3, 3)), requires_grad=True)
    b = nbgrad.tensor(rng.standard_normal((3, 2)), requires_grad=True)
    L = nbgrad.linalg
    for f, xs in [(L.inv, (a,)), (L.det, (a,)), (lambda t: L.slogdet(t)[1], (a,)),
                  (L.solve, (a, b)), (lambda t, u: L.solve(t, u[:, 0]), (a, b))]:
        assert gradcheck(f, xs) and gradgradcheck(f, xs)


def test_errors_match_pytorch():
    for call in [lambda m: m.linalg.inv(m.zeros(3, 3)),
                 lambda m: m.linalg.inv(m.tensor([[[1.0, 2.0], [2.0, 4.0]], [[1.0, 0.0],
                                                                           [0.0, 1.0]]])),
                 lambda m: m.linalg.inv(m.ones(2, 3)), lambda m: m.linalg.det(m.ones(3)),
                 lambda m: m.linalg.solve(m.eye(3), m.ones(2, 2)),
                 lambda m: m.linalg.solve(m.tensor([[1.0, 2.0], [2.0, 4.0]]), m.ones(2))]:
        ours, theirs = error_of(lambda: call(nbgrad)), error_of(lambda: call(torch))
        assert ours is not None and issubclass(ours[0], RuntimeError)
        assert ours[1] == theirs[1]
    assert issubclass(nbgrad.linalg.LinAlgError, RuntimeError)


def test_docstring_examples_run():
    from nbgrad.ops import linalg_solve

    res = doctest.testmod(linalg_solve,
                          optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert res.attempted and not res.failed


@pytest.mark.parametrize("rows", [
    [[1.0, 2.0], [2.0, 4.0]],
    [[[1.0, 2.0], [2.0, 4.0]], [[2.0, 1.0], [0.0, 3.0]]],  # (one singular in the batch)
    [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]],
    [[0.0, 0.0, 0.0]] * 3,
])
def test_det_gradient_of_singular_matrices_is_the_adjugate(rows):
    """A singular matrix's det gradient is its adjugate transposed (from the SVD), checked
    by finite differences (det is a polynomial: they are exact here), not the inverse's
    LinAlgError. (PyTorch 2.13 gives zeros for a rank n-1 matrix, which finite differences
    refute: d det([[1, 2], [2, 4]]) / d a11 is 4.)"""
    A = nbgrad.tensor(rows, dtype=nbgrad.float64, requires_grad=True)
    assert gradcheck(lambda a: nbgrad.linalg.det(a), (A,))
    nbgrad.linalg.det(A).sum().backward()
    if len(rows) == 2 and not isinstance(rows[0][0], list):
        np.testing.assert_allclose(A.grad.numpy(), [[4.0, -2.0], [-2.0, 1.0]], atol=1e-12)
