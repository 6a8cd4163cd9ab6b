"""Anomaly detection (``detect_anomaly`` / ``set_detect_anomaly``) and the higher-level
derivatives of ``nbgrad.autograd.functional`` against ``torch.autograd.functional``."""

import warnings

import numpy as np
import pytest

import nbgrad
from nbgrad.autograd import anomaly_mode
from nbgrad.autograd import functional as AF

torch = pytest.importorskip("torch")
TAF = torch.autograd.functional


def anomaly_on(lib):
    return lib.autograd.is_anomaly_enabled() if lib is nbgrad else torch.is_anomaly_enabled()


@pytest.fixture(autouse=True)
def _anomaly_off():
    """Whatever a test does, anomaly mode is off before and after it."""
    nbgrad.autograd.set_detect_anomaly(False)
    torch.autograd.set_detect_anomaly(False)
    yield
    nbgrad.autograd.set_detect_anomaly(False)
    torch.autograd.set_detect_anomaly(False)


# ----- anomaly detection -------------------------------------------------------------------
def _nan_backward(lib):
    """sqrt at 0 has an infinite derivative; times a zero gradient it is NaN."""
    x = lib.tensor([0.0, 1.0], requires_grad=True)
    y = x.sqrt()  # FORWARD-MARKER
    (y * 0).sum().backward()
    return x


@pytest.mark.parametrize("lib", [nbgrad, torch], ids=["nbgrad", "torch"])
def test_detect_anomaly_names_node_and_forward_line(lib):
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        with pytest.raises(RuntimeError, match=r"Function 'SqrtBackward0' returned nan values in "
                                               r"its 0th output\."):
            with lib.autograd.detect_anomaly():
                assert anomaly_on(lib)
                _nan_backward(lib)
    assert not anomaly_on(lib)  # restored on exit, even after the error
    msgs = [str(w.message) for w in rec if issubclass(w.category, UserWarning)]
    assert any("Anomaly Detection has been enabled" in m for m in msgs)
    fwd = [m for m in msgs if "Error detected in SqrtBackward0" in m]
    assert len(fwd) == 1
    assert "Traceback of forward call that caused the error" in fwd[0]
    assert "y = x.sqrt()  # FORWARD-MARKER" in fwd[0]  # this file's own source line
    assert __file__ in fwd[0] and "_nan_backward" in fwd[0]


def test_anomaly_off_by_default():
    assert not nbgrad.autograd.is_anomaly_enabled()
    x = _nan_backward(nbgrad)  # no error: NaN just lands in .grad, as in torch
    tx = _nan_backward(torch)
    assert np.isnan(x.grad.numpy()[0]) and np.isnan(tx.grad.numpy()[0])
    np.testing.assert_array_equal(x.grad.numpy()[1:], tx.grad.numpy()[1:])


def test_set_detect_anomaly_function_and_context_manager():
    nbgrad.autograd.set_detect_anomaly(True)
    assert nbgrad.autograd.is_anomaly_enabled()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match="Function 'SqrtBackward0' returned nan values"):
            _nan_backward(nbgrad)
    nbgrad.autograd.set_detect_anomaly(False)
    assert not nbgrad.autograd.is_anomaly_enabled()
    _nan_backward(nbgrad)  # off again: no error
    with nbgrad.autograd.set_detect_anomaly(True):
        assert nbgrad.autograd.is_anomaly_enabled()
    assert not nbgrad.autograd.is_anomaly_enabled()
    # nesting restores the outer state
    with nbgrad.autograd.set_detect_anomaly(True):
        with nbgrad.autograd.set_detect_anomaly(False):
            assert not nbgrad.autograd.is_anomaly_enabled()
        assert nbgrad.autograd.is_anomaly_enabled()


def test_check_nan_false_and_finite_backward():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with nbgrad.autograd.detect_anomaly(check_nan=False):
            assert nbgrad.autograd.is_anomaly_enabled()
            x = _nan_backward(nbgrad)
        assert np.isnan(x.grad.numpy()[0])
        # a finite backward under anomaly mode is unaffected and matches the plain one
        with nbgrad.autograd.detect_anomaly():
            x = nbgrad.tensor([1.0, 4.0], requires_grad=True)
            (x.sqrt() * x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 1.5 * np.sqrt([1.0, 4.0]))


def test_nan_in_forward_is_not_an_anomaly():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with nbgrad.autograd.detect_anomaly():
            x = nbgrad.tensor([-1.0, 1.0], requires_grad=True)
            y = x.log()
            assert np.isnan(y.detach().numpy()[0])
            y.sum().backward()  # the gradient 1/x is finite
    np.testing.assert_allclose(x.grad.numpy(), [-1.0, 1.0])


def test_detect_anomaly_as_decorator():
    @nbgrad.autograd.detect_anomaly()
    def f():
        return nbgrad.autograd.is_anomaly_enabled()

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert f() is True
    assert not nbgrad.autograd.is_anomaly_enabled()
    assert anomaly_mode.ENABLED[0] is False


# ----- autograd.functional -------------------------------------------------------------------
def rnd(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


A, B = rnd(3, seed=1), rnd(3, seed=2)
V3, V3b, V2 = rnd(3, seed=3), rnd(3, seed=4), rnd(2, seed=5)


def T(lib, a, rg=False):
    return lib.tensor(np.asarray(a, dtype=np.float64), dtype=lib.float64, requires_grad=rg)


def _flat(r):
    if isinstance(r, (tuple, list)):
        return [q for item in r for q in _flat(item)]
    return [r]


def _same_structure(r, tr):
    if isinstance(tr, tuple):
        assert isinstance(r, tuple) and len(r) == len(tr)
        for u, v in zip(r, tr):
            _same_structure(u, v)
    else:
        assert isinstance(r, nbgrad.Tensor)


def f_cube(lib):
    return lambda x: (x ** 3).sum()


def f_vec(lib):
    return lambda x: x.exp() * x[0]


def g_two(lib):
    return lambda x, y: (x * y.sin()).sum() + (x * x * y).sum()


def h_two(lib):
    return lambda x, y: (x * y, x.exp()[:2])


CASES = {
    "vjp_scalar": lambda L, F: F.vjp(f_cube(L), T(L, A)),
    "vjp_vector": lambda L, F: F.vjp(f_vec(L), T(L, A), T(L, V3)),
    "vjp_tuple": lambda L, F: F.vjp(h_two(L), (T(L, A), T(L, B)), (T(L, V3), T(L, V2))),
    "jvp": lambda L, F: F.jvp(f_vec(L), T(L, A), T(L, V3)),
    "jvp_tuple": lambda L, F: F.jvp(h_two(L), (T(L, A), T(L, B)), (T(L, V3), T(L, V3b))),
    "jacobian": lambda L, F: F.jacobian(f_vec(L), T(L, A)),
    "jacobian_tuple": lambda L, F: F.jacobian(h_two(L), (T(L, A), T(L, B))),
    "jacobian_tuple_in": lambda L, F: F.jacobian(lambda x, y: x * y, (T(L, A), T(L, B))),
    "jacobian_tuple_out": lambda L, F: F.jacobian(lambda x: (x * 2, x.sum()), T(L, A)),
    "jacobian_2d": lambda L, F: F.jacobian(lambda x: x @ x.t(), T(L, rnd(2, 3))),
    "hessian": lambda L, F: F.hessian(f_cube(L), T(L, A)),
    "hessian_tuple": lambda L, F: F.hessian(g_two(L), (T(L, A), T(L, B))),
    "hvp": lambda L, F: F.hvp(f_cube(L), T(L, A), T(L, V3)),
    "vhp": lambda L, F: F.vhp(f_cube(L), T(L, A), T(L, V3)),
    "hvp_tuple": lambda L, F: F.hvp(g_two(L), (T(L, A), T(L, B)), (T(L, V3), T(L, V3b))),
    "vhp_tuple": lambda L, F: F.vhp(g_two(L), (T(L, A), T(L, B)), (T(L, V3), T(L, V3b))),
    "hvp_scalar_v_none": lambda L, F: F.hvp(f_cube(L), T(L, [2.0])),
    "jvp_scalar_v_none": lambda L, F: F.jvp(lambda x: x * 3, T(L, [2.0])),
}


@pytest.mark.parametrize("name", list(CASES))
def test_functional_matches_torch(name):
    r = CASES[name](nbgrad, AF)
    tr = CASES[name](torch, TAF)
    _same_structure(r, tr)
    for u, v in zip(_flat(r), _flat(tr)):
        assert tuple(u.shape) == tuple(v.shape)
        assert u.dtype == nbgrad.float64
        assert not u.requires_grad and not v.requires_grad
        np.testing.assert_allclose(u.numpy(), v.numpy(), rtol=1e-12, atol=1e-14)


CG_CASES = {
    "vjp": lambda L, F, x: F.vjp(f_vec(L), x, T(L, V3), create_graph=True),
    "jvp": lambda L, F, x: F.jvp(f_vec(L), x, T(L, V3), create_graph=True),
    "jacobian": lambda L, F, x: F.jacobian(f_vec(L), x, create_graph=True),
    "hessian": lambda L, F, x: F.hessian(f_cube(L), x, create_graph=True),
    "hvp": lambda L, F, x: F.hvp(f_cube(L), x, T(L, V3), create_graph=True),
    "vhp": lambda L, F, x: F.vhp(f_cube(L), x, T(L, V3), create_graph=True),
}


@pytest.mark.parametrize("name", list(CG_CASES))
def test_create_graph_results_are_differentiable(name):
    x, tx = T(nbgrad, A, True), T(torch, A, True)
    r, tr = CG_CASES[name](nbgrad, AF, x), CG_CASES[name](torch, TAF, tx)
    last, tlast = _flat(r)[-1], _flat(tr)[-1]
    assert last.requires_grad and tlast.requires_grad
    np.testing.assert_allclose(last.detach().numpy(), tlast.detach().numpy(), rtol=1e-12)
    (last * last).sum().backward()
    (tlast * tlast).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-10)


def test_inputs_are_left_alone():
    x = T(nbgrad, A, True)
    out, g = AF.vjp(f_cube(nbgrad), x)
    assert x.grad is None and not g.requires_grad and not out.requires_grad
    H = AF.hessian(f_cube(nbgrad), T(nbgrad, A))  # inputs need not require grad
    np.testing.assert_allclose(H.numpy(), np.diag(6 * A), rtol=1e-12)


def test_independent_output_gives_zeros_unless_strict():
    def indep(x, y):
        return x * 2

    _, (gx, gy) = AF.vjp(indep, (T(nbgrad, A), T(nbgrad, B)), T(nbgrad, V3))
    assert gy.numpy().tolist() == [0.0, 0.0, 0.0] and gy.shape == (3,)
    J = AF.jacobian(indep, (T(nbgrad, A), T(nbgrad, B)))
    assert J[1].shape == (3, 3) and not J[1].numpy().any()
    tJ = TAF.jacobian(indep, (T(torch, A), T(torch, B)))
    np.testing.assert_array_equal(J[0].numpy(), tJ[0].numpy())


@pytest.mark.parametrize("call", [
    lambda L, F: F.vjp(lambda x, y: x * 2, (T(L, A), T(L, B)), T(L, V3), strict=True),
    lambda L, F: F.jvp(lambda x, y: x * 2, (T(L, A), T(L, B)), (T(L, V3), T(L, V3)), strict=True),
    lambda L, F: F.jacobian(lambda x, y: x * 2, (T(L, A), T(L, B)), strict=True),
    lambda L, F: F.hessian(lambda x, y: (x * x).sum(), (T(L, A), T(L, B)), strict=True),
    lambda L, F: F.hvp(lambda x, y: (x * x).sum(), (T(L, A), T(L, B)), (T(L, V3), T(L, V3)),
                       strict=True),
], ids=["vjp", "jvp", "jacobian", "hessian", "hvp"])
def test_strict_raises_for_independent_output(call):
    with pytest.raises(RuntimeError, match="input 1.* strict mode") as ours:
        call(nbgrad, AF)
    with pytest.raises(RuntimeError) as theirs:
        call(torch, TAF)
    assert str(ours.value) == str(theirs.value)  # PyTorch's message, stage by stage


@pytest.mark.parametrize("call,msg", [
    (lambda L, F: F.vjp(f_vec(L), T(L, A)),
     "The vector v can only be None if the user-provided function returns a single Tensor "
     "with a single element."),
    (lambda L, F: F.jvp(f_vec(L), T(L, A)),
     "The vector v can only be None if the input to the user-provided function is a single "
     "Tensor with a single element."),
    (lambda L, F: F.hvp(f_cube(L), T(L, A)),
     "The vector v can only be None if the input to the user-provided function is a single "
     "Tensor with a single element."),
    (lambda L, F: F.vhp(g_two(L), (T(L, [1.0]), T(L, [2.0]))),
     "The vector v can only be None if the input to the user-provided function is a single "
     "Tensor with a single element."),
    (lambda L, F: F.hessian(f_vec(L), T(L, A)),
     "The Tensor returned by the function given to hessian should contain a single element"),
], ids=["vjp", "jvp", "hvp", "vhp_tuple", "hessian_non_scalar"])
def test_v_none_errors(call, msg):
    with pytest.raises(RuntimeError, match=msg.replace(".", r"\.")):
        call(nbgrad, AF)
    with pytest.raises(RuntimeError, match=msg.replace(".", r"\.")):
        call(torch, TAF)
