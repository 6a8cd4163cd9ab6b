"""nbgrad.linalg's norms (vector_norm, matrix_norm, norm) against PyTorch and by finite
differences; torch.serialization's safe_globals as accepted no-ops."""

import numpy as np
import pytest

import nbgrad
from nbgrad.autograd import gradcheck, gradgradcheck

try:
    import torch
except ImportError:
    torch = None

INF = float("inf")
CALLS = [
    lambda m, x: m.linalg.norm(x), lambda m, x: m.linalg.norm(x[0]),
    lambda m, x: m.linalg.norm(x[0], 1), lambda m, x: m.linalg.norm(x[0], INF),
    lambda m, x: m.linalg.norm(x, 3, dim=1), lambda m, x: m.linalg.norm(x, -1, dim=(0, 2)),
    lambda m, x: m.linalg.norm(x[0, 0], 2), lambda m, x: m.linalg.matrix_norm(x),
    lambda m, x: m.linalg.matrix_norm(x, 1, keepdim=True),
    lambda m, x: m.linalg.matrix_norm(x, -INF, dim=(0, 2)),
    lambda m, x: m.linalg.matrix_norm(x, -1), lambda m, x: m.linalg.vector_norm(x, 0.5, dim=-1),
    lambda m, x: x.norm(p="nuc", dim=(0, 2), keepdim=True), lambda m, x: m.norm(x[1], p="nuc"),
]
V = np.random.default_rng(0).standard_normal((2, 3, 4))


@pytest.mark.parametrize("k", range(len(CALLS)))
def test_norms_by_finite_differences_and_against_pytorch(k):
    call = CALLS[k]
    a = nbgrad.tensor(V, requires_grad=True)
    assert gradcheck(lambda x: call(nbgrad, x), (a,))
    assert gradgradcheck(lambda x: call(nbgrad, x), (a,))
    if torch is None:
        return
    b = torch.tensor(V, requires_grad=True)
    got, want = call(nbgrad, a), call(torch, b)
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-12)
    got.sum().backward()
    want.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-12, atol=1e-14)


def test_by_hand_and_errors():
    A = nbgrad.tensor([[1.0, -2.0], [3.0, 4.0]])
    assert nbgrad.linalg.matrix_norm(A, 1).item() == 6.0
    assert nbgrad.linalg.matrix_norm(A, INF).item() == 7.0
    assert nbgrad.linalg.norm(nbgrad.tensor([3.0, 4.0])).item() == 5.0
    with pytest.raises(RuntimeError, match="must have at least 2 dimensions"):
        nbgrad.linalg.matrix_norm(nbgrad.ones(3))
    with pytest.raises(RuntimeError, match="the input must be 1D or 2D. Got 3D"):
        nbgrad.linalg.norm(nbgrad.ones(2, 2, 2), 1)
    # (the spectral and nuclear norms: tests/test_linalg_decomp.py)
    assert nbgrad.linalg.matrix_norm(nbgrad.tensor([[3.0, 0.0], [0.0, -4.0]]), "nuc").item() == 7.0
    with pytest.raises(RuntimeError, match="^linalg.matrix_norm: Order 3 not supported.$"):
        nbgrad.linalg.matrix_norm(A, 3)
    # Tensor.norm's "nuc": the matrix norm's, its errors PyTorch's
    assert nbgrad.tensor([[3.0, 0.0], [0.0, -4.0]]).norm(p="nuc").item() == 7.0
    for kw, msg in ((dict(p="nuc"), "dim must be a 2-tuple. Got 0 1 2"),
                    (dict(p="nuc", dim=1), "dim must be a 2-tuple. Got 1"),
                    (dict(p="nuc", dim=(1, 1)), r"dims must be different. Got \(1, 1\)"),
                    (dict(p="abc"), "Order abc not supported.")):
        with pytest.raises(RuntimeError, match=f"^linalg.matrix_norm: {msg}$"):
            nbgrad.ones(2, 2, 2).norm(**kw)
    with pytest.raises(IndexError, match=r"range of \[-3, 2\], but got 5"):
        nbgrad.linalg.matrix_norm(nbgrad.ones(2, 2, 2), dim=(1, 5))


def test_safe_globals_are_accepted():
    ser = nbgrad.serialization
    with ser.safe_globals([int, dict]):
        assert ser.get_safe_globals()[-2:] == [int, dict]
    assert int not in ser.get_safe_globals()
    ser.add_safe_globals([float])
    assert float in ser.get_safe_globals()
    ser.clear_safe_globals()
    assert ser.get_safe_globals() == []


def test_docstring_examples_run():
    import doctest

    res = doctest.testmod(nbgrad.linalg)
    assert res.attempted and not res.failed
