"""nll_loss as one forward kernel and one backward kernel: values and gradients against
PyTorch for 1-d, 2-d and k-d input, every reduction, weights and ignored rows; float64
gradcheck / gradgradcheck; PyTorch's node and errors."""

import numpy as np
import pytest

import nbgrad
from nbgrad.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")
F, G = torch.nn.functional, nbgrad.nn.functional

SHAPES = [((5, 4), (5,)), ((2, 4, 3), (2, 3)), ((2, 3, 2, 2), (2, 2, 2)), ((4,), ())]


def _case(shape, tshape, seed=0):
    rng = np.random.default_rng(seed)
    C = shape[1] if len(shape) > 1 else shape[0]
    x = rng.standard_normal(shape)
    t = rng.integers(0, C, tshape)
    if t.size > 1:
        t.reshape(-1)[1] = -100
    return x, t, rng.random(C)


@pytest.mark.parametrize("shape,tshape", SHAPES)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
def test_nll_loss_matches_torch(shape, tshape, reduction, weighted):
    x, t, w = _case(shape, tshape)
    a = torch.tensor(x, requires_grad=True)
    b = nbgrad.tensor(x, requires_grad=True)
    ka, kb = {"reduction": reduction}, {"reduction": reduction}
    if weighted:
        ka["weight"], kb["weight"] = torch.tensor(w), nbgrad.tensor(w)
    la = F.nll_loss(a, torch.tensor(t), **ka)
    lb = G.nll_loss(b, nbgrad.tensor(t), **kb)
    assert lb.grad_fn.name() == "NllLossBackward0"
    assert tuple(lb.shape) == tuple(la.shape)
    np.testing.assert_allclose(lb.detach().numpy(), la.detach().numpy(), rtol=1e-12)
    ga = torch.full_like(la, 1.3)
    la.backward(ga)
    lb.backward(nbgrad.tensor(ga.numpy()))
    np.testing.assert_allclose(b.grad.numpy(), a.grad.numpy(), rtol=1e-12)
    tt = nbgrad.tensor(t)

    def f(z):
        return G.nll_loss(z, tt, **kb)

    z = nbgrad.tensor(x, requires_grad=True)
    assert gradcheck(f, (z,))
    assert gradgradcheck(f, (z,))


def test_nll_loss_float32_and_all_ignored():
    x = np.random.default_rng(1).standard_normal((6, 5)).astype(np.float32)
    t = np.array([0, 4, 2, 1, 3, 0])
    la = F.nll_loss(torch.tensor(x), torch.tensor(t))
    lb = G.nll_loss(nbgrad.tensor(x), nbgrad.tensor(t))
    assert lb.dtype == nbgrad.float32
    np.testing.assert_allclose(lb.numpy(), la.numpy(), rtol=1e-6)
    # every row ignored: the mean is 0/0 = nan, the gradient zeros (as PyTorch)
    b = nbgrad.tensor(x, requires_grad=True)
    lb = G.nll_loss(b, nbgrad.full((6,), -100, dtype=nbgrad.int64))
    assert np.isnan(lb.item())
    lb.backward()
    a = torch.tensor(x, requires_grad=True)
    F.nll_loss(a, torch.full((6,), -100)).backward()
    np.testing.assert_array_equal(b.grad.numpy(), a.grad.numpy())


def test_nll_loss_double_backward_grad_of_grad_output():
    x, t, w = _case((4, 3), (4,))
    outs = []
    for m in (torch, nbgrad):
        a = m.tensor(x, requires_grad=True)
        loss = m.nn.functional.nll_loss(a, m.tensor(t), weight=m.tensor(w))
        g = m.tensor(2.0, requires_grad=True)
        (gx,) = m.autograd.grad(loss, a, g, create_graph=True)
        (gg,) = m.autograd.grad((gx * m.tensor(x)).sum(), g)
        outs.append((gx.grad_fn.name(), gg.detach().numpy()))
    assert outs[1][0] == outs[0][0] == "NllLossBackwardBackward0"
    np.testing.assert_allclose(outs[1][1], outs[0][1], rtol=1e-12)


@pytest.mark.parametrize("shape,tshape,tval", [
    ((4, 3), (4,), 3), ((4, 3), (4,), -1), ((4, 3), (4, 2), 0), ((2, 3, 4), (2, 5), 0),
    ((4, 3), (5,), 0),
])
def test_nll_loss_errors_match_torch(shape, tshape, tval):
    x = np.zeros(shape)
    t = np.full(tshape, tval)
    with pytest.raises(Exception) as ea:
        F.nll_loss(torch.tensor(x), torch.tensor(t))
    with pytest.raises(type(ea.value)) as eb:
        G.nll_loss(nbgrad.tensor(x), nbgrad.tensor(t))
    assert str(eb.value) == str(ea.value)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_nll_loss_saved_attributes_match_torch(reduction):
    x, t, w = _case((4, 3), (4,))
    nodes = []
    for m in (torch, nbgrad):
        a = m.tensor(x, requires_grad=True)
        nodes.append(m.nn.functional.nll_loss(a * 1, m.tensor(t), weight=m.tensor(w),
                                              reduction=reduction).grad_fn)
    nt, nb = nodes
    for name in ("self", "target", "weight", "total_weight"):
        np.testing.assert_allclose(getattr(nb, "_saved_" + name).detach().numpy(),
                                   getattr(nt, "_saved_" + name).detach().numpy(), rtol=1e-12)
    assert nb._saved_reduction == nt._saved_reduction
    # (PyTorch 2.13 shows its int64 ignore_index as unsigned: 2**64 - 100)
    assert nb._saved_ignore_index == -100 and nt._saved_ignore_index % 2**64 == 2**64 - 100
