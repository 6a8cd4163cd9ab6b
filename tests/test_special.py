"""torch.special's functions (issue #16): nbgrad.special against PyTorch (values,
gradients, errors), the gamma family to higher derivatives, and nn.init.trunc_normal_'s
samples for a seed."""

import doctest
import math

import numpy as np
import pytest

import nbgrad
from nbgrad.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

_X = np.array([0.3, 1.7, 4.2, 11.5, 25.0, -0.4, -2.5])
_P = np.array([1e-6, 0.02, 0.3, 0.5, 0.77, 0.999])

# (name, argument maker: (library module, float64 array) -> args, the inputs)
_CASES = [
    ("erfinv", np.array([-0.999, -0.5, 0.0, 1e-4, 0.3, 0.7, 0.7001, 0.95, 1.0, -1.0, 1.5])),
    ("gammaln", _X), ("digamma", _X), ("psi", np.array([0.0, -0.0, -3.0, 1e-8, 10.0, 1e18])),
    ("ndtr", np.array([-40.0, -5.0, -0.5, 0.0, 0.7, 3.0])),
    ("entr", np.array([0.0, 0.5, 2.0, -1.0])), ("expit", _X), ("logit", _P), ("sinc", _X),
    ("exp2", _X), ("expm1", _X), ("log1p", np.abs(_X)), ("erf", _X), ("erfc", _X),
    ("gammaln", np.array([-1.0, 0.0, 1e-30, 3e5])),
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name,x", [pytest.param(n, x, id=f"{n}{i}")
                                    for i, (n, x) in enumerate(_CASES)])
def test_special_function_values_match_pytorch(name, x, dtype):
    got = getattr(nbgrad.special, name)(nbgrad.tensor(x).to(getattr(nbgrad, dtype)))
    want = getattr(torch.special, name)(torch.tensor(x).to(getattr(torch, dtype)))
    assert str(got.dtype).split(".")[1] == str(want.dtype).split(".")[1]
    rtol = 1e-13 if dtype == "float64" else 4e-7
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=rtol, atol=rtol)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5])
def test_polygamma_values_and_gradients_match_pytorch(n):
    x = np.array([0.25, 1.0, 2.5, 9.75, 30.0, -0.5, -1.25])
    a = nbgrad.tensor(x, requires_grad=True)
    b = torch.tensor(x, requires_grad=True)
    ga, = nbgrad.autograd.grad(nbgrad.polygamma(n, a).sum(), a)
    gb, = torch.autograd.grad(torch.polygamma(n, b).sum(), b)
    np.testing.assert_allclose(nbgrad.special.polygamma(n, a).detach().numpy(),
                               torch.special.polygamma(n, b).detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(ga.numpy(), gb.numpy(), rtol=1e-11)
    assert nbgrad.polygamma(n, a).grad_fn.name() == "PolygammaBackward0"
    assert a.polygamma(n).tolist() == nbgrad.polygamma(n, a).tolist()


def test_gamma_family_and_erfinv_have_gradients_to_higher_orders():
    pos = nbgrad.tensor([0.6, 1.3, 3.2], dtype=nbgrad.float64, requires_grad=True)
    unit = nbgrad.tensor([-0.6, 0.1, 0.8], dtype=nbgrad.float64, requires_grad=True)
    for f, x in ((nbgrad.lgamma, pos), (nbgrad.digamma, pos), (nbgrad.erfinv, unit),
                 (lambda t: nbgrad.polygamma(2, t), pos), (nbgrad.special.ndtr, pos),
                 (nbgrad.special.entr, pos)):
        assert gradcheck(f, (x,)) and gradgradcheck(f, (x,))
    names = {nbgrad.lgamma(pos).grad_fn.name(), nbgrad.digamma(pos).grad_fn.name(),
             nbgrad.erfinv(unit).grad_fn.name()}
    assert names == {"LgammaBackward0", "DigammaBackward0", "ErfinvBackward0"}


def test_in_place_forms_and_errors():
    x = nbgrad.tensor([0.5, 0.25])
    for name in ("erfinv_", "lgamma_", "digamma_"):
        y = x.clone()
        assert getattr(y, name)() is y
        assert y.tolist() == getattr(nbgrad, name[:-1])(x).tolist()
    y = x.clone()
    assert y.polygamma_(1) is y and y.tolist() == nbgrad.polygamma(1, x).tolist()
    with pytest.raises(RuntimeError, match="polygamma\\(n, x\\) does not support negative n"):
        nbgrad.polygamma(-1, x)
    with pytest.raises(TypeError, match="argument 'n' \\(position 1\\) must be int"):
        nbgrad.polygamma(1.5, x)
    with pytest.raises(RuntimeError, match="result type Float can't be cast"):
        nbgrad.tensor([1, 2]).erfinv_()
    # integers compute in the default float dtype, as PyTorch's
    assert nbgrad.lgamma(nbgrad.tensor([3])).dtype is nbgrad.float32
    with pytest.raises(RuntimeError, match="All elements must be greater than \\(p-1\\)/2"):
        nbgrad.special.multigammaln(nbgrad.tensor([0.4]), 2)
    m = nbgrad.special.multigammaln(nbgrad.tensor([2.5, 4.0], dtype=nbgrad.float64), 3)
    w = torch.special.multigammaln(torch.tensor([2.5, 4.0], dtype=torch.float64), 3)
    np.testing.assert_allclose(m.numpy(), w.numpy(), rtol=1e-13)
    np.testing.assert_allclose(
        nbgrad.special.xlog1py(nbgrad.tensor([0.0, 2.0, 0.0]),
                               nbgrad.tensor([-1.0, 0.5, float("nan")])).numpy(),
        torch.special.xlog1py(torch.tensor([0.0, 2.0, 0.0]),
                              torch.tensor([-1.0, 0.5, float("nan")])).numpy())


def test_trunc_normal_draws_pytorchs_samples():
    for seed, (mean, std, a, b) in enumerate([(0.0, 1.0, -2.0, 2.0), (0.0, 0.02, -0.04, 0.04),
                                              (1.0, 3.0, 0.0, 5.0), (0.0, 1.0, 2.0, 3.0)]):
        nbgrad.manual_seed(seed)
        torch.manual_seed(seed)
        got = nbgrad.nn.init.trunc_normal_(nbgrad.empty(257), mean, std, a, b)
        want = torch.nn.init.trunc_normal_(torch.empty(257), mean, std, a, b)
        # (equal up to the float32 normal samples' last bit, as nbgrad's normal_ draws them)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, atol=std * 1e-7)
        assert float(got.min()) >= a and float(got.max()) <= b
    with pytest.warns(UserWarning, match="mean is more than 2 std from \\[a, b\\]"):
        nbgrad.nn.init.trunc_normal_(nbgrad.empty(3), mean=10.0)


def test_the_module_and_its_docs():
    assert set(nbgrad.special.__all__) <= set(dir(torch.special))
    assert doctest.testmod(nbgrad.special).failed == 0
    assert math.isclose(float(nbgrad.special.gammaln(nbgrad.tensor(0.5, dtype=nbgrad.float64))),
                        math.lgamma(0.5), rel_tol=1e-15)
