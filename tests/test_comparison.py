"""isnan / isinf / isfinite / isclose / allclose / equal / any / all, Tensor.new_*, unbind,
narrow and is_tensor / is_floating_point / numel, against PyTorch."""

import doctest
import warnings

import numpy as np
import pytest

import nbgrad

torch = pytest.importorskip("torch")

VALUES = {
    "float32": np.array([[0.0, 1.5, -np.inf], [np.nan, 2.0, 0.0]], np.float32),
    "float64": np.array([[np.inf, -0.0, 3.0], [1e-300, np.nan, -2.0]]),
    "int64": np.array([[0, 3, -1], [5, 0, 0]], np.int64),
    "int32": np.array([[1, 1, 1], [1, 0, 1]], np.int32),
    "bool": np.array([[True, False, True], [True, True, True]]),
    "empty": np.zeros((0, 3), np.float32),
}


def _both(a):
    return nbgrad.from_numpy(a.copy()), torch.from_numpy(a.copy())


def _same(got, want):
    if isinstance(want, torch.Tensor):
        assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
        assert tuple(got.shape) == tuple(want.shape)
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    else:
        assert got == want and type(got) is type(want)


@pytest.mark.parametrize("kind", sorted(VALUES))
@pytest.mark.parametrize("call", [
    lambda m, x: m.isnan(x), lambda m, x: m.isinf(x), lambda m, x: m.isfinite(x),
    lambda m, x: x.any(), lambda m, x: x.all(), lambda m, x: m.any(x, 1),
    lambda m, x: x.all(dim=0, keepdim=True), lambda m, x: x.any(dim=(0, 1)),
    lambda m, x: m.all(x, -1), lambda m, x: m.equal(x, x), lambda m, x: m.equal(x, x[:1]),
    lambda m, x: m.numel(x), lambda m, x: m.is_floating_point(x), lambda m, x: m.is_tensor(x),
])
def test_tests_of_values_match_pytorch(kind, call):
    a, b = _both(VALUES[kind])
    _same(call(nbgrad, a), call(torch, b))


@pytest.mark.parametrize("kwargs", [{}, dict(rtol=0.1), dict(atol=0.5, rtol=0), dict(equal_nan=True),
                                    dict(rtol=0, atol=0)])
@pytest.mark.parametrize("kind", ["float32", "float64", "int64"])
def test_isclose_and_allclose_match_pytorch(kind, kwargs):
    x = VALUES[kind]
    y = (x + (x.dtype.type(1) if kind == "int64" else x.dtype.type(1e-6) * x)).astype(x.dtype)
    y[0, 1] = x[0, 1]
    for a_, b_ in ((x, y), (x, x), (y, x)):
        (a, ta), (b, tb) = _both(a_), _both(b_)
        _same(nbgrad.isclose(a, b, **kwargs), torch.isclose(ta, tb, **kwargs))
        _same(a.allclose(b, **kwargs), ta.allclose(tb, **kwargs))


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e).replace("torch.", "").replace("nbgrad.", "")
    return None


@pytest.mark.parametrize("call", [
    lambda m: m.isclose(m.ones(2), m.ones(2, dtype=m.float64)),
    lambda m: m.isclose(m.ones(2), m.ones(2), rtol=-1),
    lambda m: m.isclose(m.ones(2), m.ones(2), atol=-1),
    lambda m: m.arange(5).narrow(0, 6, 1),
    lambda m: m.arange(5).narrow(0, 3, 3),
    lambda m: m.tensor(1.0).narrow(0, 0, 1),
])
def test_errors_match_pytorch(call):
    ours = _error(lambda: call(nbgrad))
    assert ours is not None and ours == _error(lambda: call(torch))


def test_results_have_no_gradient():
    x = nbgrad.tensor([1.0, float("nan")], requires_grad=True)
    for r in (nbgrad.isnan(x), x.isfinite(), x.any(), x.all(0), nbgrad.isclose(x, x)):
        assert r.dtype is nbgrad.bool and not r.requires_grad


@pytest.mark.parametrize("call", [
    lambda x: x.new_zeros(2, 3), lambda x: x.new_zeros((2,)), lambda x: x.new_ones([1, 2]),
    lambda x: x.new_full((2, 2), 7), lambda x: x.new_tensor([1, 2]),
    lambda x: x.new_tensor([1.5], dtype=x.new_zeros(1, dtype=__import__("nbgrad").float64).dtype
                           if isinstance(x, nbgrad.Tensor) else torch.float64),
    lambda x: x.new_ones(2, requires_grad=True), lambda x: x.new_empty(0, 2).new_zeros(0),
])
@pytest.mark.parametrize("kind", ["float32", "int32", "bool"])
def test_new_creations_take_the_tensors_dtype(kind, call):
    a, b = _both(VALUES[kind])
    err = _error(lambda: call(a))
    if err is not None:
        # (an integer tensor cannot require gradients: both refuse)
        assert err is not None and _error(lambda: call(b)) is not None
        return
    got, want = call(a), call(b)
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    assert tuple(got.shape) == tuple(want.shape) and got.requires_grad == want.requires_grad
    if want.numel():
        np.testing.assert_array_equal(got.detach().numpy(), want.detach().numpy())
    with pytest.warns(UserWarning, match="To copy construct from a tensor"):
        a.new_tensor(a)


def test_the_like_creations_still_work_beside_the_new_ones():
    # (Tensor.new_*'s helper once shadowed the *_like functions' own, breaking them)
    x = nbgrad.ones(2, 3, dtype=nbgrad.float64)
    for make, value in ((nbgrad.zeros_like, 0.0), (nbgrad.ones_like, 1.0),
                        (lambda t: nbgrad.full_like(t, 7), 7.0)):
        r = make(x)
        assert r.shape == (2, 3) and r.dtype is nbgrad.float64
        assert r.tolist() == [[value] * 3] * 2
    assert nbgrad.empty_like(x).shape == (2, 3) and nbgrad.randn_like(x).dtype is nbgrad.float64
    assert x.new_zeros(1).dtype is nbgrad.float64


@pytest.mark.parametrize("call", [
    lambda m, x: m.unbind(x, 1), lambda m, x: x.unbind(), lambda m, x: x.unbind(-1),
    lambda m, x: (m.narrow(x, 1, 1, 2),), lambda m, x: (x.narrow(-1, -2, 2),),
    lambda m, x: (x.narrow(0, 2, 0),),
])
def test_unbind_and_narrow_values_and_gradients_match_pytorch(call):
    v = np.arange(12.0).reshape(3, 4)
    a = nbgrad.from_numpy(v.copy()).requires_grad_()
    ta = torch.from_numpy(v.copy()).requires_grad_()
    got, want = call(nbgrad, a), call(torch, ta)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.detach().numpy(), w.detach().numpy())
    sum(((g * (i + 1)) ** 2).sum() for i, g in enumerate(got)).backward()
    sum(((w * (i + 1)) ** 2).sum() for i, w in enumerate(want)).backward()
    np.testing.assert_array_equal(a.grad.numpy(), ta.grad.numpy())


def test_the_docstring_examples_run():
    from nbgrad.ops import comparison, concat

    with warnings.catch_warnings():
        for mod in (comparison, concat, nbgrad.creation):
            res = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
            assert res.attempted and not res.failed, mod.__name__
