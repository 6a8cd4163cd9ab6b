"""``CatTransform``, ``StackTransform`` and ``CorrCholeskyTransform`` (with the ``cat`` and
``stack`` constraints and ``tril_matrix_to_vec`` / ``vec_to_tril_matrix``) against
PyTorch: values, inverses, log-Jacobians and their gradients, shapes, domains, caching,
equality and error messages."""

import doctest

import numpy as np
import pytest

import nbgrad
from nbgrad.distributions import constraints as nbC
from nbgrad.distributions import transforms as nbT
from nbgrad.distributions import utils as nbU
from tests._errors import assert_same_error, error_of

torch = pytest.importorskip("torch")
tT = torch.distributions.transforms
RNG = np.random.default_rng(0)


def _T(m):
    return nbT if m is nbgrad else tT


def _make(m, name):
    T = _T(m)
    if name == "cat_dim0":
        return T.CatTransform([T.ExpTransform(), T.AffineTransform(1.0, -2.0),
                               T.SigmoidTransform()], dim=0, lengths=[2, 1, 3])
    if name == "cat_last_dim":
        return T.CatTransform([T.ExpTransform(), T.TanhTransform()], dim=-1, lengths=[2, 3])
    if name == "cat_default_lengths":
        return T.CatTransform([T.ExpTransform(), T.SoftplusTransform(),
                               T.AffineTransform(0.5, 3.0)], dim=1)
    if name == "cat_events_batch_dim":  # (the dim is a batch dim: log-Jacobians joined)
        return T.CatTransform([T.IndependentTransform(T.ExpTransform(), 1),
                               T.AffineTransform(0.0, 2.0, event_dim=1)], dim=0, lengths=[2, 2])
    if name == "cat_mixed_event_dims":  # (the dim is in the events: log-Jacobians added)
        return T.CatTransform([T.IndependentTransform(T.ExpTransform(), 1),
                               T.TanhTransform()], dim=-1, lengths=[2, 2])
    if name == "cat_nested":
        inner = T.CatTransform([T.ExpTransform(), T.identity_transform], dim=0, lengths=[1, 2])
        return T.CatTransform([inner, inner], dim=0, lengths=[3, 3])
    if name == "stack_dim1":
        return T.StackTransform([T.ExpTransform(), T.identity_transform,
                                 T.AffineTransform(1.0, 2.0)], dim=1)
    if name == "stack_last_dim":
        return T.StackTransform([T.SigmoidTransform(), T.TanhTransform()], dim=-1)
    if name == "stack_stick_breaking":
        return T.StackTransform([T.StickBreakingTransform(), T.StickBreakingTransform()])
    if name.startswith("corr"):
        return T.CorrCholeskyTransform()
    raise KeyError(name)


_X = {"cat_dim0": (6, 3), "cat_last_dim": (4, 5), "cat_default_lengths": (2, 3),
      "cat_events_batch_dim": (4, 3), "cat_mixed_event_dims": (3, 4), "cat_nested": (6, 2),
      "stack_dim1": (4, 3), "stack_last_dim": (3, 2), "stack_stick_breaking": (2, 3),
      "corr_d2": (5, 1), "corr_d3": (2, 3, 3), "corr_d4": (4, 6), "corr_d4_single": (6,)}


def _value_or_error(call):
    """``call()``, or ``(type name, message)`` of what it raises: a ``cat`` constraint of
    parts with different event dims cannot join its checks, in PyTorch too."""
    try:
        return call()
    except Exception as e:  # noqa: BLE001 (compared with PyTorch's)
        return type(e).__name__, str(e)


def _run(m, name, x):
    t = _make(m, name)
    xs = m.tensor(x, requires_grad=True)
    y = t(xs)
    back = t.inv(y.detach().clone())  # (not the cached pair: the inverse computed)
    ladj = t.log_abs_det_jacobian(xs, y)
    (y.sum() + ladj.sum()).backward()
    return [y.detach().numpy(), back.detach().numpy(), ladj.detach().numpy(),
            xs.grad.numpy(), _value_or_error(lambda: t.codomain.check(y.detach()).numpy()),
            tuple(t.forward_shape(x.shape)), tuple(t.inverse_shape(tuple(y.shape))),
            tuple(t.inv.forward_shape(tuple(y.shape))), t.domain.event_dim,
            t.codomain.event_dim, error_of(lambda: t.event_dim) or t.event_dim,
            t.bijective, t == _make(m, name), t == t, t != _make(m, name),
            type(t.domain).__name__, type(t.codomain).__name__]


@pytest.mark.parametrize("name", list(_X))
def test_transforms_match_torch(name):
    x = RNG.standard_normal(_X[name])
    ours, theirs = _run(nbgrad, name, x), _run(torch, name, x)
    for i, (a, b) in enumerate(zip(ours, theirs)):
        if isinstance(a, np.ndarray):
            assert a.shape == b.shape and a.dtype == b.dtype, i
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12, err_msg=str(i))
        else:
            assert a == b, (i, a, b)


@pytest.mark.parametrize("d, batch", [(2, (3,)), (3, (2, 2)), (4, (5,)), (4, ())])
def test_corr_cholesky_output_is_a_correlation_factor(d, batch):
    x = nbgrad.tensor(3.0 * RNG.standard_normal(batch + (d * (d - 1) // 2,)))
    L = nbT.CorrCholeskyTransform()(x).numpy()
    assert L.shape == batch + (d, d)
    np.testing.assert_array_equal(L, np.tril(L))
    assert (np.diagonal(L, axis1=-2, axis2=-1) > 0).all()
    np.testing.assert_allclose(np.linalg.norm(L, axis=-1), 1.0, rtol=0, atol=1e-12)
    corr = L @ np.swapaxes(L, -1, -2)
    np.testing.assert_allclose(np.diagonal(corr, axis1=-2, axis2=-1), 1.0, atol=1e-12)
    assert (np.linalg.eigvalsh(corr) > 0).all()
    assert bool(nbC.corr_cholesky.check(nbgrad.tensor(L)).all())


_CACHE_X = RNG.standard_normal((4, 3))


def _cache_facts(m, make):
    t = make(m)
    c = t.with_cache(1)
    x = m.tensor(_CACHE_X)
    y = c(x)
    return (type(c).__name__, c is t, t.with_cache(0) is t, c._cache_size,
            [p._cache_size for p in c.transforms], c.dim, getattr(c, "lengths", None),
            c(x) is y, c.inv(y) is x, c.inv(y.clone()) is x, c.with_cache(1) is c)


@pytest.mark.parametrize("make", [
    lambda m: _T(m).CatTransform([_T(m).ExpTransform(), _T(m).TanhTransform()], dim=-1,
                                 lengths=[1, 2]),
    lambda m: _T(m).StackTransform([_T(m).ExpTransform(), _T(m).SigmoidTransform(),
                                    _T(m).identity_transform], dim=1),
])
def test_with_cache_matches_torch(make):
    assert _cache_facts(nbgrad, make) == _cache_facts(torch, make)


def test_corr_cholesky_with_cache_and_equality():
    out = []
    for m in (nbgrad, torch):
        t = _T(m).CorrCholeskyTransform()
        c = t.with_cache(1)
        x = m.tensor([0.3, -0.2, 1.5])
        y = c(x)
        out.append((type(c).__name__, c is t, c._cache_size, t.with_cache(0) is t,
                    c.inv(y) is x, c(x) is y, t == _T(m).CorrCholeskyTransform(), t == t,
                    t.inv == t.inv, t.inv.inv is t, repr(t)))
    assert out[0] == out[1]


def test_dependent_domains_on_the_class_and_constraint_checks():
    res = []
    for m in (nbgrad, torch):
        T, C = _T(m), m.distributions.constraints
        cat_c = C.cat([C.positive, C.unit_interval, C.real], 0, [1, 2, 1])
        stack_c = C.stack([C.positive, C.real], dim=-1)
        v = m.tensor([[1.0, 0.5], [-1.0, 2.0], [0.2, 0.1], [-3.0, 1.0]])
        res.append((C.is_dependent(T.CatTransform.domain),
                    C.is_dependent(T.StackTransform.codomain),
                    cat_c.check(v).numpy().tolist(), cat_c.event_dim, cat_c.is_discrete,
                    stack_c.check(v.T).numpy().tolist(), stack_c.event_dim,
                    C.stack([C.real_vector, C.positive], dim=-2).event_dim,
                    C.stack([C.real, C.boolean], dim=0).is_discrete, repr(cat_c)))
    assert res[0] == res[1]


def test_tril_helpers_match_torch():
    from torch.distributions import utils as tU

    for n in range(1, 5):
        mat = RNG.standard_normal((2, n, n))
        for diag in range(-n, n):
            ours = nbU.tril_matrix_to_vec(nbgrad.tensor(mat), diag).numpy()
            theirs = tU.tril_matrix_to_vec(torch.tensor(mat), diag).numpy()
            np.testing.assert_array_equal(ours, theirs)
            if ours.shape[-1]:
                back = nbU.vec_to_tril_matrix(nbgrad.tensor(ours), diag).numpy()
                np.testing.assert_array_equal(
                    back, tU.vec_to_tril_matrix(torch.tensor(theirs), diag).numpy())


def _cat(m):
    return _T(m).CatTransform([_T(m).ExpTransform(), _T(m).TanhTransform()], dim=0,
                              lengths=[1, 2])


def _stack(m):
    return _T(m).StackTransform([_T(m).ExpTransform(), _T(m).TanhTransform()], dim=1)


@pytest.mark.parametrize("call", [
    lambda m, T: T.CatTransform([T.ExpTransform()], lengths=[1, 2]),
    lambda m, T: T.CatTransform([T.ExpTransform(), 3]),
    lambda m, T: T.StackTransform([T.ExpTransform(), "exp"]),
    lambda m, T: _cat(m)(m.ones(4)),
    lambda m, T: _cat(m)(m.tensor(1.0)),
    lambda m, T: _cat(m).inv(m.ones(2, 3)),
    lambda m, T: _cat(m).log_abs_det_jacobian(m.ones(3), m.ones(2)),
    lambda m, T: _cat(m).log_abs_det_jacobian(m.tensor(0.0), m.ones(3)),
    lambda m, T: _cat(m).log_abs_det_jacobian(m.ones(3), m.tensor(0.0)),
    lambda m, T: _stack(m)(m.ones(3, 3)),
    lambda m, T: _stack(m)(m.ones(3)),
    lambda m, T: _stack(m).inv(m.ones(2, 4)),
    lambda m, T: _stack(m).log_abs_det_jacobian(m.ones(3, 2), m.ones(3, 4)),
    lambda m, T: _stack(m).log_abs_det_jacobian(m.ones(3), m.ones(3, 2)),
    lambda m, T: T.CorrCholeskyTransform().forward_shape((2, 4)),
    lambda m, T: T.CorrCholeskyTransform().forward_shape(()),
    lambda m, T: T.CorrCholeskyTransform().inverse_shape((3,)),
    lambda m, T: T.CorrCholeskyTransform().inverse_shape((3, 4)),
    lambda m, T: T.CorrCholeskyTransform()(m.ones(2)),
    lambda m, T: T.CorrCholeskyTransform()(m.ones(3, 4)),  # (a length whose D rounds down)
    lambda m, T: T.CorrCholeskyTransform().event_dim,
    lambda m, T: T.CorrCholeskyTransform().with_cache(2),
    lambda m, T: m.distributions.constraints.cat([m.distributions.constraints.real], 0,
                                                 [1, 1]),
    lambda m, T: m.distributions.constraints.cat(
        [m.distributions.constraints.real], 1).check(m.ones(3)),
    lambda m, T: m.distributions.constraints.stack([3]),
    lambda m, T: m.distributions.utils.tril_matrix_to_vec(m.ones(3, 3), -4),
    lambda m, T: m.distributions.utils.tril_matrix_to_vec(m.ones(3, 3), 3),
    lambda m, T: m.distributions.utils.vec_to_tril_matrix(m.ones(2, 5)),
])
def test_errors_match_torch(call):
    assert_same_error(lambda m: call(m, _T(m)), torch, nbgrad,
                      lambda text: text.replace("torch.Size", "nbgrad.Size"))


def test_shapes_keep_size_type():
    for m in (nbgrad, torch):
        t = _T(m).CorrCholeskyTransform()
        assert type(t.forward_shape(m.Size([2, 3]))) is m.Size
        assert type(t.inverse_shape(m.Size([3, 3]))) is m.Size
        assert type(t.forward_shape((2, 3))) is tuple


def test_tril_helpers_docstring_examples_run():
    # (the transforms' examples run in test_transforms.py's doctest of the module)
    res = doctest.testmod(nbU, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert res.attempted and not res.failed
