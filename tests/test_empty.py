"""Reductions over empty tensors against PyTorch: every dim of shapes holding a zero-size
dim, keepdim both ways and the whole tensor; results (values, shape, dtype), the errors
(type and message) and the gradients."""

import numpy as np
import pytest

import nbgrad

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.filterwarnings("ignore:.*degrees of freedom:UserWarning")

SHAPES = ((0,), (0, 3), (3, 0), (2, 0, 3))


def _call(name, method):
    def fn(m, x, dim, keepdim):
        if dim is None:
            return getattr(x, method)() if name != "logsumexp" else m.logsumexp(x, ())
        if name == "logsumexp":
            return m.logsumexp(x, dim, keepdim=keepdim)
        if name == "norm":
            return x.norm(dim=dim, keepdim=keepdim)
        r = getattr(x, method)(dim, keepdim=keepdim)
        return r[1] if name.endswith("_indices") else r[0] if name in ("max", "min") else r

    return fn


REDUCTIONS = {
    n: _call(n, n.removesuffix("_indices"))
    for n in ("sum", "mean", "amax", "amin", "max", "min", "max_indices", "min_indices",
              "argmax", "argmin", "prod", "logsumexp", "norm", "var", "std")
}
DIFFERENTIABLE = {"sum", "mean", "amax", "amin", "max", "min", "prod", "logsumexp", "norm",
                  "var", "std"}

CASES = [
    pytest.param(name, shape, dim, keepdim,
                 id=f"{name}-{'x'.join(map(str, shape))}-{dim}-{'keep' if keepdim else 'drop'}")
    for name in REDUCTIONS for shape in SHAPES
    for dim in (None, *range(len(shape)), *((-1, (0, 1)) if len(shape) > 1 else ()))
    for keepdim in ((False,) if dim is None else (False, True))
    if not (isinstance(dim, tuple) and name in ("max", "min", "max_indices", "min_indices", "prod",
                                                "argmax", "argmin"))
]


def _run(m, name, shape, dim, keepdim, requires_grad):
    x = m.zeros(*shape, dtype=m.float64, requires_grad=requires_grad)
    try:
        return x, REDUCTIONS[name](m, x, dim, keepdim), None
    except Exception as e:  # noqa: BLE001 - the error itself is compared with torch's
        return x, None, e


@pytest.mark.parametrize("name,shape,dim,keepdim", CASES)
def test_empty_reduction_matches_torch(name, shape, dim, keepdim):
    grad = name in DIFFERENTIABLE
    x_th, r_th, e_th = _run(torch, name, shape, dim, keepdim, grad)
    x_nb, r_nb, e_nb = _run(nbgrad, name, shape, dim, keepdim, grad)
    if e_th is not None:
        assert e_nb is not None, f"torch raises {e_th!r}, nbgrad returns {r_nb}"
        assert type(e_nb) is type(e_th), (e_nb, e_th)
        assert str(e_nb) == str(e_th)
        return
    assert e_nb is None, f"nbgrad raises {e_nb!r}, torch returns {r_th}"
    assert tuple(r_nb.shape) == tuple(r_th.shape)
    assert r_nb.dtype.name == str(r_th.dtype).removeprefix("torch.")
    np.testing.assert_array_equal(r_nb.detach().numpy(), r_th.detach().numpy())
    if grad and r_th.requires_grad:
        assert r_nb.requires_grad
        go = np.linspace(0.5, 1.5, r_th.numel()).reshape(tuple(r_th.shape))
        r_th.backward(torch.tensor(go))
        r_nb.backward(nbgrad.tensor(go))
        assert tuple(x_nb.grad.shape) == tuple(x_th.grad.shape)
        np.testing.assert_array_equal(x_nb.grad.numpy(), x_th.grad.numpy())


def test_issue_13_max_over_nonempty_dim_of_empty_tensor():
    v, i = nbgrad.zeros(0, 3).max(1)
    assert v.shape == (0,) and i.shape == (0,) and i.dtype == nbgrad.int64
    assert nbgrad.zeros(0, 3).argmax(1).shape == (0,)
