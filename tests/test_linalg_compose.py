"""torch.linalg's matrix_exp, vander, tensorinv and tensorsolve against PyTorch: values and
gradients (finite differences to second order), errors; Tensor.matrix_exp and the
top-level torch.matrix_exp."""

import numpy as np
import pytest

import nbgrad
from nbgrad.autograd import gradcheck, gradgradcheck
from tests._errors import assert_same_error

torch = pytest.importorskip("torch")
RNG = np.random.default_rng(0)


def _both(fn, arrays, rtol=1e-12, atol=1e-13):
    res = []
    w = None
    for m in (nbgrad, torch):
        xs = [m.tensor(a, requires_grad=True) for a in arrays]
        y = fn(m, *xs)
        if w is None:
            w = RNG.standard_normal(tuple(y.shape)).astype(arrays[0].dtype)
        (y * m.tensor(w)).sum().backward()
        res.append([y.detach().numpy()] + [x.grad.numpy() for x in xs])
    for a, b in zip(*res):
        assert a.shape == b.shape and a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol * max(1.0, np.abs(b).max()))


@pytest.mark.parametrize("scale", [0.05, 1.0, 6.0, 25.0])
def test_matrix_exp_matches_torch(scale):
    # (norms below and far above the Padé approximant's bound: several squarings)
    A = RNG.standard_normal((3, 4, 4)) * scale / 2
    _both(lambda m, a: m.linalg.matrix_exp(a), [A], rtol=1e-12, atol=1e-13)


def test_matrix_exp_forms_float32_and_special_matrices():
    A = RNG.standard_normal((4, 4)).astype(np.float32)
    _both(lambda m, a: a.matrix_exp(), [A], rtol=2e-5, atol=2e-6)
    _both(lambda m, a: m.matrix_exp(a), [A.astype(np.float64)])
    nil = nbgrad.tensor([[0.0, 2.0, 1.0], [0.0, 0.0, 3.0], [0.0, 0.0, 0.0]])
    np.testing.assert_allclose(nbgrad.linalg.matrix_exp(nil).numpy(),  # I + N + N^2/2
                               [[1.0, 2.0, 4.0], [0.0, 1.0, 3.0], [0.0, 0.0, 1.0]], rtol=1e-6)
    assert nbgrad.linalg.matrix_exp(nbgrad.zeros(2, 0, 0)).shape == (2, 0, 0)
    x = nbgrad.tensor(RNG.standard_normal((3, 3)) / 3, requires_grad=True)
    assert gradcheck(nbgrad.linalg.matrix_exp, (x,))
    assert gradgradcheck(nbgrad.linalg.matrix_exp, (x,))


def test_vander_tensorinv_tensorsolve_match_torch():
    _both(lambda m, x: m.linalg.vander(x, N=4), [RNG.standard_normal((2, 3))])
    _both(lambda m, x: m.linalg.vander(x), [RNG.standard_normal(5)])
    assert nbgrad.linalg.vander(nbgrad.tensor([1, 2, 3])).dtype == nbgrad.int64
    _both(lambda m, a: m.linalg.tensorinv(a, ind=1), [RNG.standard_normal((4, 2, 2))])
    _both(lambda m, a: m.linalg.tensorinv(a), [RNG.standard_normal((2, 3, 6))])
    _both(lambda m, a, b: m.linalg.tensorsolve(a, b),
          [RNG.standard_normal((2, 3, 6)), RNG.standard_normal((2, 3))])
    _both(lambda m, a, b: m.linalg.tensorsolve(a, b, dims=(0,)),
          [RNG.standard_normal((6, 2, 3)), RNG.standard_normal((2, 3))])
    x = nbgrad.tensor(RNG.standard_normal((2, 2, 4)), requires_grad=True)
    assert gradgradcheck(lambda a: nbgrad.linalg.tensorinv(a, ind=2), (x,))


@pytest.mark.parametrize("call", [
    lambda m: m.linalg.matrix_exp(m.zeros(2, 3)),
    lambda m: m.linalg.matrix_exp(m.zeros(2, 2, dtype=m.int64)),
    lambda m: m.linalg.matrix_exp(m.zeros(3)),
    lambda m: m.linalg.matrix_exp(m.zeros(2, 3, dtype=m.int64)),
    lambda m: m.linalg.vander(m.tensor([1.0]), N=1),
    lambda m: m.linalg.tensorinv(m.zeros(2, 3, 4), ind=1),
    lambda m: m.linalg.tensorinv(m.zeros(2, 2), ind=0),
    lambda m: m.linalg.tensorsolve(m.zeros(2, 3, 5), m.zeros(2, 3)),
])
def test_errors_match_torch(call):
    assert_same_error(call, torch, nbgrad)


def test_docstring_examples_run():
    import doctest

    import nbgrad.ops.linalg_compose as mod

    res = doctest.testmod(mod)
    assert res.attempted >= 8 and res.failed == 0
