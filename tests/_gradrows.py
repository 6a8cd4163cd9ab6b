"""Gradient checks shared by the op tables of several test files: each row is
``fn(m, x)`` with ``m`` nbgrad or torch and ``x`` a float64 ``(2, 3, 2)``/``(3, 4, 2)`` tensor."""

import numpy as np
import pytest

import nbgrad
from nbgrad.autograd import gradcheck, gradgradcheck


def _rng(seed=0):
    return np.random.default_rng(seed)


def check_gradients(fn):
    """gradcheck and gradgradcheck of ``fn(nbgrad, x)`` in float64."""
    # away from zero and from ties (norm's inf rule, |x|^p at 0)
    a = _rng(4).uniform(0.5, 1.5, (2, 3, 2)) * _rng(5).choice([-1.0, 1.0], (2, 3, 2))
    a += np.arange(a.size).reshape(a.shape) * 1e-2
    x = nbgrad.tensor(a, dtype=nbgrad.float64, requires_grad=True)
    assert gradcheck(lambda t: fn(nbgrad, t), (x,))
    assert gradgradcheck(lambda t: fn(nbgrad, t), (x,))


def check_grads_match_torch(fn):
    """Values, gradients and second-order gradients of ``fn`` against torch's."""
    torch = pytest.importorskip("torch")
    a = _rng(6).standard_normal((3, 4, 2))
    x = nbgrad.tensor(a, requires_grad=True)
    t = torch.tensor(a, requires_grad=True)
    y, yt = fn(nbgrad, x), fn(torch, t)
    np.testing.assert_allclose(y.detach().numpy(), yt.detach().numpy(), rtol=1e-10)
    go = _rng(7).standard_normal(tuple(yt.shape))
    g, = nbgrad.autograd.grad(y, x, nbgrad.tensor(go), create_graph=True)
    gt, = torch.autograd.grad(yt, t, torch.tensor(go), create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), gt.detach().numpy(), rtol=1e-8, atol=1e-10)
    if gt.requires_grad:
        w = _rng(8).standard_normal(a.shape)
        h, = nbgrad.autograd.grad((g * nbgrad.tensor(w)).sum(), x)
        ht, = torch.autograd.grad((gt * torch.tensor(w)).sum(), t)
        np.testing.assert_allclose(h.numpy(), ht.numpy(force=True), rtol=1e-7, atol=1e-9)
