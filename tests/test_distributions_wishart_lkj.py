"""``Wishart`` and ``LKJCholesky`` against ``torch.distributions``: values, gradients and
shapes for each parameterization, expansion, samples for a seed (with PyTorch's correction
loop of Wishart draws), supports, warnings and PyTorch's error messages."""

import contextlib
import warnings

import numpy as np
import pytest

import nbgrad
from tests._errors import assert_same_error

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(7)
_C = RNG.standard_normal((2, 3, 3))
COV = _C @ np.swapaxes(_C, -1, -2) + np.eye(3)  # (2, 3, 3), positive definite
PREC = np.linalg.inv(COV)
TRIL = np.linalg.cholesky(COV)
_V = RNG.standard_normal((2, 3, 3))
VALUE = _V @ np.swapaxes(_V, -1, -2) + 0.5 * np.eye(3)  # a point of the support
# (3.5 < p + 1 = 4: the mode's factor is negative there, NaN)
DF = np.array([3.5, 6.0])

MATRICES = {"covariance_matrix": COV, "precision_matrix": PREC, "scale_tril": TRIL}
PROPS = ("mean", "mode", "variance", "covariance_matrix", "precision_matrix", "scale_tril")


@contextlib.contextmanager
def _silenced():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _wishart(m, kind, df, matrix, dtype, grad=True):
    """A Wishart of ``m`` (nbgrad or torch), with its parameter tensors."""
    mat = m.tensor(matrix, dtype=dtype, requires_grad=grad)
    params = [mat]
    if not isinstance(df, float):
        df = m.tensor(df, dtype=dtype, requires_grad=grad)
        params.insert(0, df)
    with _silenced():
        return m.distributions.Wishart(df, **{kind: mat}), params


def _outputs(d, m, value, names):
    outs = {"log_prob": d.log_prob(value), "entropy": d.entropy()}
    for name in names:
        outs[name] = getattr(d, name)
    return outs


def _weighted_total(outs):
    """A sum of the outputs with distinct weights (NaN entries of the mode left out)."""
    total = 0
    for k, o in enumerate(outs.values()):
        if o.requires_grad:
            total = total + (o[~o.isnan()] * (k + 1)).sum()
    return total


# (df, matrices): df a number with one matrix; a batched df with one matrix (broadcast);
# a batched df with batched matrices; a number with batched matrices (whose mean, mode and
# variance fail in PyTorch: its number df is not expanded to the batch)
SHAPES = [(5.0, lambda a: a[0], PROPS), (DF, lambda a: a[0], PROPS),
          (DF, lambda a: a, PROPS), (4.0, lambda a: a, PROPS[3:])]


@pytest.mark.parametrize("kind", list(MATRICES))
@pytest.mark.parametrize("shape", range(len(SHAPES)))
def test_wishart_values_shapes_and_gradients_match_pytorch(kind, shape):
    df, pick, names = SHAPES[shape]
    res = []
    for m in (nbgrad, torch):
        d, params = _wishart(m, kind, df, pick(MATRICES[kind]), m.float64)
        value = m.tensor(VALUE, requires_grad=True)
        outs = _outputs(d, m, value, names)
        grads = m.autograd.grad(_weighted_total(outs), params + [value])
        res.append(({k: v.detach().numpy() for k, v in outs.items()},
                    [g.numpy() for g in grads], tuple(d.batch_shape), tuple(d.event_shape),
                    tuple(d.df.shape)))
    (ours, og, *oshapes), (theirs, tg, *tshapes) = res
    assert oshapes == tshapes
    for k in ours:
        assert ours[k].shape == theirs[k].shape, k
        np.testing.assert_allclose(ours[k], theirs[k], rtol=1e-10, atol=1e-12, err_msg=k)
    for a, b in zip(og, tg):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-11)


def test_wishart_exponential_family_entropy_is_pytorchs_and_the_closed_form():
    res = []
    for m in (nbgrad, torch):
        d, _ = _wishart(m, "covariance_matrix", DF, COV, m.float64, grad=False)
        res.append((m.distributions.ExponentialFamily.entropy(d).detach().numpy(),
                    d.entropy().numpy()))
    np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-10)
    np.testing.assert_allclose(res[0][0], res[0][1], rtol=1e-10)


@pytest.mark.parametrize("kind", list(MATRICES))
def test_wishart_expand(kind):
    res = []
    for m in (nbgrad, torch):
        for df, mat in ((DF, MATRICES[kind]), (5.0, MATRICES[kind][1])):
            d, _ = _wishart(m, kind, df, mat, m.float64, grad=False)
            if kind != "scale_tril":
                d.scale_tril  # (a computed one is expanded too)
            e = d.expand((3,) + tuple(d.batch_shape))
            m.manual_seed(5)
            with _silenced():
                s = e.sample((2,))
            vals = [s, e.log_prob(m.tensor(VALUE[0])), e.entropy(), e.mean, e.variance,
                    e.covariance_matrix, e.precision_matrix, e.scale_tril, e.df]
            res.append(([v.numpy() for v in vals], tuple(e.batch_shape), e._validate_args))
    for (ours, *oshape), (theirs, *tshape) in zip(res[:2], res[2:]):
        assert oshape == tshape
        for a, b in zip(ours, theirs):
            assert a.shape == b.shape
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("df,mat,dtype", [(5.0, TRIL[0], "float64"), (DF, TRIL, "float64"),
                                          (np.array(4.0), TRIL[1], "float64")])
def test_wishart_samples_and_rsample_gradients_for_a_seed_are_pytorchs(df, mat, dtype):
    tol = dict(rtol=1e-6, atol=1e-9) if dtype == "float64" else dict(rtol=2e-4, atol=1e-4)
    res = []
    for m in (nbgrad, torch):
        dt = getattr(m, dtype)
        d, params = _wishart(m, "scale_tril", df, mat, dt)
        m.manual_seed(3)
        with _silenced():
            s1 = d.sample()
            s2 = d.sample((2, 1))
            r0 = d.rsample()
            g0 = m.autograd.grad(r0.sum(), params, retain_graph=True)
            # (PyTorch's backward of a correction with a sample shape fails: the mask its
            # index_put saved is then changed in place; with mutation allowed it is right)
            ctx = (torch.autograd.graph.allow_mutation_on_saved_tensors() if m is torch
                   else contextlib.nullcontext())
            with ctx:
                r = d.rsample((2,))
                g = m.autograd.grad((r * r.detach()).sum(), params)
        assert not s1.requires_grad and r.requires_grad
        assert tuple(s2.shape) == (2, 1) + tuple(d.batch_shape) + (3, 3)
        assert d.support.check(s2).all() and torch.distributions.constraints.positive_definite \
            .check(torch.tensor(s2.numpy())).all()
        res.append([o.detach().numpy() for o in (s1, s2, r0, *g0, r, *g)])
    for a, b in zip(*res):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_allclose(a, b, **tol)


def test_wishart_correction_loop_and_warnings_are_pytorchs():
    res = []
    for m in (nbgrad, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            d = m.distributions.Wishart(m.tensor([2.5, 4.0], dtype=m.float64),
                                        scale_tril=m.tensor(TRIL))
            m.manual_seed(11)
            once = d.rsample((3,), max_try_correction=0)
            twice = d.rsample((3,))
            ten = d.sample((2,))
        res.append(([o.detach().numpy() for o in (once, twice, ten)],
                    [(w.category, str(w.message)) for w in caught]))
    assert res[0][1] == res[1][1]
    assert [msg for _, msg in res[0][1]] == [
        "Low df values detected. Singular samples are highly likely to occur for "
        "ndim - 1 < df < ndim."] + ["Singular sample detected."] * 3
    for a, b in zip(res[0][0], res[1][0]):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


CONC = np.array([[0.5, 1.0, 3.0], [2.0, 0.7, 1.2]])


@pytest.mark.parametrize("dim,conc", [(2, np.array(1.0)), (3, 0.5), (4, CONC),
                                      (3, CONC[0])])
def test_lkj_values_samples_and_gradients_match_pytorch(dim, conc):
    res = []
    for m in (nbgrad, torch):
        params = []
        c = conc
        if not isinstance(conc, float):
            c = m.tensor(conc, requires_grad=True)
            params = [c]
        d = m.distributions.LKJCholesky(dim, c)
        m.manual_seed(2)
        s1 = d.sample()
        s = d.sample((2,))
        assert d.support.check(s).all() and tuple(s.shape) == (2,) + tuple(d._extended_shape())
        assert torch.distributions.constraints.corr_cholesky.check(torch.tensor(s.numpy())).all()
        lp = d.log_prob(s)
        grads = [g.numpy() for g in m.autograd.grad(lp.sum(), params)] if params else []
        e = d.expand((2,) + tuple(d.batch_shape))
        m.manual_seed(4)
        es = e.sample()
        res.append(([o.detach().numpy() for o in (s1, s, lp, es, e.log_prob(es))] + grads,
                    tuple(d.batch_shape), tuple(d.event_shape), tuple(e.batch_shape),
                    d.concentration.dtype == m.float32))
    (ours, *oshapes), (theirs, *tshapes) = res
    assert oshapes == tshapes
    for a, b in zip(ours, theirs):
        assert a.dtype == b.dtype and a.shape == b.shape
        tol = 1e-6 if a.dtype == np.float64 else 1e-5
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def test_lkj_float64_samples_and_log_prob_gradient():
    res = []
    for m in (nbgrad, torch):
        c = m.tensor(CONC, dtype=m.float64, requires_grad=True)
        d = m.distributions.LKJCholesky(3, c)
        m.manual_seed(9)
        s = d.sample((2,))
        lp = d.log_prob(s)
        res.append([s.numpy(), lp.detach().numpy(), m.autograd.grad(lp.sum(), c)[0].numpy()])
    for a, b in zip(*res):
        assert a.dtype == b.dtype == np.float64
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_corr_cholesky_constraint():
    values = [np.eye(3), np.array([[1.0, 0], [0.6, 0.8]]), np.array([[1.0, 0], [0.6, 0.81]]),
              np.array([[1.0, 0.0], [-0.6, -0.8]]), np.array([[1.0, 0.1], [0.6, 0.8]]),
              np.array([[1.0, 0], [0.6, 0.8 + 1e-14]])]
    for v in values:
        for dt in ("float64", "float32"):
            ours = nbgrad.distributions.constraints.corr_cholesky.check(
                nbgrad.tensor(v, dtype=getattr(nbgrad, dt)))
            theirs = torch.distributions.constraints.corr_cholesky.check(
                torch.tensor(v, dtype=getattr(torch, dt)))
            assert ours.item() == theirs.item(), (v, dt)
    c = nbgrad.distributions.constraints.corr_cholesky
    assert c.event_dim == 2 and repr(c) == "CorrCholesky()"
    assert "corr_cholesky" in nbgrad.distributions.constraints.__all__


@pytest.mark.parametrize("call", [
    lambda m: m.distributions.Wishart(m.tensor([1.5, 3.0]), covariance_matrix=m.eye(3)),
    lambda m: m.distributions.Wishart(1, scale_tril=m.eye(3)),
    lambda m: m.distributions.Wishart(3.0),
    lambda m: m.distributions.Wishart(3.0, covariance_matrix=m.eye(2), scale_tril=m.eye(2)),
    lambda m: m.distributions.Wishart(3.0, precision_matrix=m.ones(2)),
    lambda m: m.distributions.Wishart(3.0, scale_tril=-m.eye(2), validate_args=True),
    lambda m: m.distributions.Wishart(3.0, covariance_matrix=m.tensor([[1.0, 2.0], [2.0, 1.0]]),
                                      validate_args=True),
    lambda m: m.distributions.Wishart(m.tensor([3.0, 4.0]),
                                      precision_matrix=m.tensor([[1.0, 2.0], [0.0, 1.0]]),
                                      validate_args=True),
    lambda m: m.distributions.Wishart(3.0, covariance_matrix=m.eye(2),
                                      validate_args=True).log_prob(-m.eye(2)),
    lambda m: m.distributions.Wishart(3.0, covariance_matrix=m.eye(2),
                                      validate_args=True).log_prob(m.eye(3)),
    lambda m: m.distributions.Wishart(3.0, covariance_matrix=m.eye(2).expand(2, 2, 2)).mean,
    lambda m: m.distributions.LKJCholesky(1),
    lambda m: m.distributions.LKJCholesky(3, m.tensor([-1.0, 1.0]), validate_args=True),
    lambda m: m.distributions.LKJCholesky(3, 0.0, validate_args=True),
    lambda m: m.distributions.LKJCholesky(2, validate_args=True).log_prob(m.eye(2) * 2),
    lambda m: m.distributions.LKJCholesky(2, validate_args=True).log_prob(m.ones(2, 2)),
])
def test_errors_are_pytorchs(call):
    assert_same_error(call, torch, nbgrad, lambda text: text.replace("torch.", "nbgrad."))


def test_docstring_examples_run():
    import doctest
    import importlib

    for name in ("wishart", "lkj_cholesky"):
        mod = importlib.import_module("nbgrad.distributions." + name)
        res = doctest.testmod(mod)
        assert res.attempted and not res.failed, name
