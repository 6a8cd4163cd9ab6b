"""The distributions PyTorch builds on transforms and special functions (Gumbel, Weibull,
Pareto, HalfCauchy, Kumaraswamy, LogisticNormal, the relaxed Bernoulli and categorical,
ContinuousBernoulli, GeneralizedPareto, VonMises, LowRankMultivariateNormal), the
stick-breaking and softmax transforms and the KL divergences of these families, against
``torch.distributions``: values, gradients, shapes, samples for a seed, expansion and
PyTorch's error messages."""

import contextlib
import importlib

import numpy as np
import pytest

import nbgrad
from tests._errors import assert_same_error

torch = pytest.importorskip("torch")

# nbgrad's classes by module (they are not yet exported by nbgrad.distributions)
_MODULES = ("gumbel", "weibull", "pareto", "half_cauchy", "kumaraswamy", "logistic_normal",
            "relaxed_bernoulli", "relaxed_categorical", "continuous_bernoulli",
            "generalized_pareto", "von_mises", "lowrank_multivariate_normal")
_NAMES = {"gumbel": ["Gumbel"], "weibull": ["Weibull"], "pareto": ["Pareto"],
          "half_cauchy": ["HalfCauchy"], "kumaraswamy": ["Kumaraswamy"],
          "logistic_normal": ["LogisticNormal"],
          "relaxed_bernoulli": ["RelaxedBernoulli", "LogitRelaxedBernoulli"],
          "relaxed_categorical": ["RelaxedOneHotCategorical", "ExpRelaxedCategorical"],
          "continuous_bernoulli": ["ContinuousBernoulli"],
          "generalized_pareto": ["GeneralizedPareto"], "von_mises": ["VonMises"],
          "lowrank_multivariate_normal": ["LowRankMultivariateNormal"]}


class _Namespace:
    pass


def _namespace(m):
    """The distributions of ``m`` (nbgrad or torch) by class name, with the existing ones
    (Normal, Uniform, ...) and the transforms."""
    ns = _Namespace()
    base = m.distributions
    for name in ("Normal", "Uniform", "Exponential", "Laplace", "MultivariateNormal"):
        setattr(ns, name, getattr(base, name))
    for mod, names in _NAMES.items():
        module = importlib.import_module(f"{m.__name__}.distributions.{mod}")
        for name in names:
            setattr(ns, name, getattr(module, name))
    ns.transforms = base.transforms
    ns.kl_divergence = base.kl_divergence
    return ns


NS = {nbgrad: _namespace(nbgrad), torch: _namespace(torch)}

RNG = np.random.default_rng(1)
A = RNG.standard_normal((3, 2))
POS = RNG.uniform(0.5, 2.0, (3, 2))
PROBS = RNG.uniform(0.1, 0.9, (3, 2))
SIMPLEX = RNG.dirichlet(np.ones(3), 3)
W = RNG.uniform(0.1, 1.0, (3, 4))
PROBS_CB = np.array([[0.5, 0.4995], [0.2, 0.8], [0.501, 0.7]])  # (in and out of the Taylor band)
CONC_GP = np.array([[-0.3, 0.0], [0.4, 1.2], [-1.0, 0.2]])
COV_FACTOR = RNG.standard_normal((3, 2))
C = RNG.standard_normal((2, 3, 3))
COV = C @ np.swapaxes(C, -1, -2) + 3 * np.eye(3)

ALL = ("log_prob", "cdf", "icdf", "entropy", "mean", "mode", "stddev", "variance")
# (name, make(D, *params), params, a value in the support, what to compare)
CASES = [
    ("Gumbel", lambda D, a, b: D.Gumbel(a, b), (A, POS), A * 0.5, ALL),
    ("Weibull", lambda D, b, k: D.Weibull(b, k), (POS, POS[::-1] * 1.5), POS * 0.7, ALL),
    ("Pareto", lambda D, s, a: D.Pareto(s, a), (POS, POS[::-1] + 2.0), POS + 0.5, ALL),
    ("HalfCauchy", lambda D, s: D.HalfCauchy(s), (POS,), POS * 0.7, ALL),
    ("Kumaraswamy", lambda D, a, b: D.Kumaraswamy(a, b), (POS, POS[::-1] * 2), PROBS, ALL),
    ("LogisticNormal", lambda D, a, b: D.LogisticNormal(a, b), (A, POS), SIMPLEX,
     ("log_prob",)),
    ("RelaxedBernoulli", lambda D, t, p: D.RelaxedBernoulli(t, probs=p),
     (np.array([0.7, 1.3]), PROBS), PROBS[::-1], ("log_prob", "probs", "logits")),
    ("RelaxedBernoulli_logits", lambda D, t, a: D.RelaxedBernoulli(t, logits=a),
     (np.array(0.5), A), PROBS, ("log_prob", "probs", "temperature")),
    ("LogitRelaxedBernoulli", lambda D, t, p: D.LogitRelaxedBernoulli(t, probs=p),
     (np.array([0.7, 1.3]), PROBS), A, ("log_prob", "logits")),
    ("RelaxedOneHotCategorical", lambda D, t, w: D.RelaxedOneHotCategorical(t, probs=w),
     (np.array(0.7), W), RNG.dirichlet(np.ones(4), 3), ("log_prob", "probs", "logits")),
    ("RelaxedOneHotCategorical_logits",
     lambda D, t, a: D.RelaxedOneHotCategorical(t, logits=a),
     (np.array([1.3]), A), PROBS / PROBS.sum(-1, keepdims=True),
     ("log_prob", "probs")),
    ("ExpRelaxedCategorical", lambda D, t, w: D.ExpRelaxedCategorical(t, probs=w),
     (np.array(0.7), W), np.log(RNG.dirichlet(np.ones(4), 3)), ("log_prob", "logits")),
    ("ContinuousBernoulli", lambda D, p: D.ContinuousBernoulli(probs=p), (PROBS_CB,), PROBS,
     ("log_prob", "cdf", "icdf", "entropy", "mean", "stddev", "variance", "logits")),
    ("ContinuousBernoulli_logits", lambda D, a: D.ContinuousBernoulli(logits=a), (A,),
     PROBS, ("log_prob", "cdf", "icdf", "entropy", "mean", "variance", "probs")),
    ("GeneralizedPareto", lambda D, a, s, c: D.GeneralizedPareto(a, s, c),
     (A, POS, CONC_GP), A + 0.3 * POS,
     ("log_prob", "cdf", "icdf", "entropy", "mean", "mode", "variance")),
    ("VonMises", lambda D, a, k: D.VonMises(a, k), (A, POS * 3), A[::-1] * 2,
     ("log_prob", "mean", "mode", "variance")),
    ("LowRankMVN", lambda D, a, w, d: D.LowRankMultivariateNormal(a, w, d),
     (RNG.standard_normal((2, 3)), COV_FACTOR, POS[:, :1].T.repeat(2, 0) + POS[:2, 1:]),
     RNG.standard_normal((2, 3)),
     ("log_prob", "entropy", "mean", "mode", "variance", "scale_tril", "covariance_matrix",
      "precision_matrix")),
]
IDS = [c[0] for c in CASES]


@contextlib.contextmanager
def _torch_float64_default(m):
    """PyTorch's GeneralizedPareto compares float64 parameters with a tensor of the default
    dtype (an error unless that is float64): its float64 values are computed so."""
    if m is not torch:
        yield
        return
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        yield
    finally:
        torch.set_default_dtype(old)


def _build(case, m, dtype="float64"):
    _, make, params, value, _ = case
    ps = [m.tensor(np.ascontiguousarray(p, dtype=dtype), requires_grad=True)
          for p in params]
    return make(NS[m], *ps), ps, m.tensor(np.ascontiguousarray(value, dtype=dtype))


def _evaluate(d, name, value):
    if name == "icdf":
        return d.icdf(d.cdf(value).detach())
    if name in ("log_prob", "cdf"):
        return getattr(d, name)(value)
    if name == "entropy":
        return d.entropy()
    return getattr(d, name)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_values_shapes_and_gradients_match_pytorch(case):
    results = []
    for m in (nbgrad, torch):
        with _torch_float64_default(m):
            d, ps, value = _build(case, m)
            outs = {name: _evaluate(d, name, value) for name in case[4]}
            total = sum((o.nan_to_num(0.0, 0.0, 0.0) * (k + 1)).sum()
                        for k, o in enumerate(outs.values()) if o.requires_grad)
            grads = [None if g is None else g.numpy()
                     for g in m.autograd.grad(total, ps, allow_unused=True)]
        results.append(({k: v.detach().numpy() for k, v in outs.items()}, grads,
                        tuple(d.batch_shape), tuple(d.event_shape), d.has_rsample,
                        {k: v.dtype.is_floating_point for k, v in outs.items()}))
    (ours, og, *o_rest), (theirs, tg, *t_rest) = results
    assert o_rest == t_rest
    for k in theirs:
        assert ours[k].dtype == theirs[k].dtype and ours[k].shape == theirs[k].shape, k
        np.testing.assert_allclose(ours[k], theirs[k], rtol=1e-12, atol=1e-13, err_msg=k)
    assert len(og) == len(tg)
    for a, b in zip(og, tg):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_samples_for_a_seed_are_pytorchs(case):
    res = []
    for m in (nbgrad, torch):
        d, ps, value = _build(case, m)
        m.manual_seed(3)
        s1 = d.sample()
        s2 = d.sample((2, 1))
        out = [s1, s2]
        assert not s1.requires_grad and not s2.requires_grad
        assert tuple(s2.shape) == (2, 1) + tuple(d.batch_shape) + tuple(d.event_shape)
        if d.has_rsample:
            r = d.rsample((4,))
            assert r.requires_grad
            out.append(r)
            grads = m.autograd.grad(r.sum(), ps, allow_unused=True)
            out += [g for g in grads if g is not None]
        # (an expanded copy: its shapes, its draws and its densities)
        e = d.expand((2,) + tuple(d.batch_shape))
        assert type(e) is type(d) and e._validate_args == d._validate_args
        assert tuple(e.batch_shape) == (2,) + tuple(d.batch_shape)
        assert tuple(e.event_shape) == tuple(d.event_shape)
        with _torch_float64_default(m):
            out += [e.sample(), e.log_prob(value)]
        res.append([o.detach().numpy() for o in out])
    assert len(res[0]) == len(res[1])
    for a, b in zip(*res):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-13)


SCALAR = [lambda N: N.Gumbel(0.5, 2.0), lambda N: N.Weibull(1.0, 2.0),
          lambda N: N.Pareto(1.0, 2.0), lambda N: N.HalfCauchy(1.0),
          lambda N: N.Kumaraswamy(2.0, 3.0), lambda N: N.ContinuousBernoulli(0.3),
          lambda N: N.GeneralizedPareto(0.0, 1.0, 0.2), lambda N: N.VonMises(0.0, 1.0),
          lambda N: N.LogisticNormal(0.0, 1.0)]


@contextlib.contextmanager
def _default_dtype(m, dtype):
    old = m.get_default_dtype()
    m.set_default_dtype(dtype)
    try:
        yield
    finally:
        m.set_default_dtype(old)


def test_scalar_parameters_take_the_default_dtype_and_give_pytorchs_draws():
    """Numbers as parameters: no batch dims, the default dtype (float64 here: float32 is
    the docstring examples'), and PyTorch's draws for a seed."""
    res = []
    for m in (nbgrad, torch):
        out = []
        with _default_dtype(m, m.float64):
            for make in SCALAR:
                d = make(NS[m])
                m.manual_seed(7)
                s = d.sample((3,))
                assert tuple(d.batch_shape) == () and s.dtype == m.float64
                assert tuple(s.shape) == (3,) + tuple(d.event_shape)
                out += [s.numpy(), d.log_prob(s).numpy(), d.sample().numpy()]
                try:
                    out.append(d.mode.numpy())
                except NotImplementedError:  # (ContinuousBernoulli's, LogisticNormal's)
                    out.append(np.array(-123.0))
        res.append(out)
    for a, b in zip(*res):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-13)


def test_support_and_constraints_are_pytorchs():
    for name in ("Gumbel", "Weibull", "HalfCauchy", "Kumaraswamy", "LogisticNormal",
                 "RelaxedBernoulli", "LogitRelaxedBernoulli", "RelaxedOneHotCategorical",
                 "ExpRelaxedCategorical", "ContinuousBernoulli", "VonMises",
                 "LowRankMultivariateNormal", "Pareto", "GeneralizedPareto"):
        ours, theirs = getattr(NS[nbgrad], name), getattr(NS[torch], name)
        assert sorted(ours.arg_constraints) == sorted(theirs.arg_constraints), name
        for k, c in theirs.arg_constraints.items():
            assert repr(ours.arg_constraints[k]) == repr(c), (name, k)
            assert ours.arg_constraints[k].event_dim == c.event_dim, (name, k)
        if not isinstance(theirs.support, property):
            assert repr(ours.support) == repr(theirs.support), name
            assert ours.support.event_dim == theirs.support.event_dim, name
    res = []
    for m in (nbgrad, torch):
        N = NS[m]
        p = N.Pareto(m.tensor([1.0, 2.0]), m.tensor([3.0, 3.0])).support
        g = N.GeneralizedPareto(m.tensor([0.0, 1.0]), m.tensor([2.0, 2.0]),
                                m.tensor([-0.5, 0.5])).support
        res.append((p.lower_bound.numpy(), g.lower_bound.numpy(), g.upper_bound.numpy(),
                    g.check(m.tensor([3.9, 9.0])).numpy()))
    for a, b in zip(*res):
        np.testing.assert_array_equal(a, b)


def test_generalized_pareto_tail_functions_and_exponential_limit():
    res = []
    for m in (nbgrad, torch):
        with _torch_float64_default(m):
            ps = [m.tensor(p, requires_grad=True) for p in (A, POS, CONC_GP)]
            d = NS[m].GeneralizedPareto(*ps)
            v = m.tensor(A + 0.3 * POS)
            outs = [d.log_survival_function(v), d.log_cdf(v)]
            grads = m.autograd.grad(sum(o.sum() for o in outs), ps)
            res.append([o.detach().numpy() for o in outs] + [g.numpy() for g in grads])
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-13)
    # concentration 0: the exponential distribution shifted to loc
    d = NS[nbgrad].GeneralizedPareto(nbgrad.tensor(1.0), nbgrad.tensor(2.0), nbgrad.tensor(0.0))
    e = nbgrad.distributions.Exponential(nbgrad.tensor(0.5))
    assert d.log_prob(nbgrad.tensor(3.0)).item() == pytest.approx(
        e.log_prob(nbgrad.tensor(2.0)).item(), rel=1e-6)


def test_continuous_bernoulli_log_normalizer_and_probs_validation():
    res = []
    for m in (nbgrad, torch):
        x = m.tensor([-3.0, -0.0005, 0.0, 0.0007, 0.4, 2.5], dtype=m.float64,
                     requires_grad=True)
        d = NS[m].ContinuousBernoulli(logits=x)
        out = d._log_normalizer(x)
        (g,) = m.autograd.grad(out.sum(), [x])
        # (out-of-range probs are clamped when validate_args is not given)
        c = NS[m].ContinuousBernoulli(probs=m.tensor([1.5, -0.5]))
        res.append((out.detach().numpy(), g.numpy(), c.probs.numpy(),
                    d._natural_params[0] is d.logits))
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-13)


def test_von_mises_small_concentration_and_expand():
    res = []
    for m in (nbgrad, torch):
        d = NS[m].VonMises(m.tensor([0.5, -2.0]), m.tensor([1e-6, 50.0]))
        m.manual_seed(5)
        s = d.sample((20,))
        assert s.dtype == m.float32 and bool((s.abs() <= np.pi).all())
        e = d.expand((3, 2))
        assert type(e) is type(d) and "_validate_args" not in e.__dict__
        assert "_validate_args" in NS[m].VonMises(0.0, 1.0, validate_args=False).expand(
            (2,)).__dict__
        res.append((s.numpy(), e.sample().numpy(), d.variance.numpy(),
                    d.log_prob(m.tensor([0.3, 3.0])).numpy()))
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


# ---- transforms ----

def test_stick_breaking_and_softmax_transforms_match_pytorch():
    x_np = np.array([[0.3, -1.2, 2.0], [0.0, 0.0, 0.0]])
    res = []
    for m in (nbgrad, torch):
        T = m.distributions.transforms
        x = m.tensor(x_np, requires_grad=True)
        sb = T.StickBreakingTransform()
        y = sb(x)
        jac = sb.log_abs_det_jacobian(x, y)
        back = sb.inv(y)
        sm = T.SoftmaxTransform()
        z = sm(x)
        inv_z = sm.inv(z)
        grads = m.autograd.grad((y * m.arange(4.0, dtype=m.float64)).sum() + jac.sum()
                                + back.sum() + (z * z).sum() + inv_z.sum(), [x])
        assert sb.bijective and not sm.bijective
        assert sb == T.StickBreakingTransform() and sm == T.SoftmaxTransform() and sb != sm
        assert (sb.domain.event_dim, sb.codomain.event_dim) == (1, 1)
        assert (sm.domain.event_dim, sm.codomain.event_dim) == (1, 1)
        assert repr(sb.codomain) == repr(sm.codomain) == "Simplex()"
        assert tuple(sb.forward_shape((5, 3))) == (5, 4)
        assert tuple(sb.inverse_shape((5, 4))) == (5, 3)
        assert tuple(sm.forward_shape((5, 3))) == (5, 3)
        res.append([t.detach().numpy() for t in (y, jac, back, z, inv_z, grads[0])])
    for a, b in zip(*res):
        assert a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-13)


def test_new_transforms_are_exported():
    from nbgrad.distributions import transforms

    assert {"SoftmaxTransform", "StickBreakingTransform"} <= set(transforms.__all__)


# ---- KL divergences ----

def _t(m, a):
    t = m.tensor(np.ascontiguousarray(a, dtype="float64"), requires_grad=True)
    _LEAVES.append(t)
    return t


_LEAVES = []
LOWRANK_Q = (np.zeros(3), RNG.standard_normal((3, 1)), np.array([0.8, 1.5, 1.1]))
KL_PAIRS = [
    ("Gumbel_Gumbel", lambda m, N: N.Gumbel(_t(m, A), _t(m, POS)),
     lambda m, N: N.Gumbel(_t(m, -A), _t(m, POS[::-1]))),
    ("Pareto_Pareto", lambda m, N: N.Pareto(_t(m, POS), _t(m, POS + 1)),
     lambda m, N: N.Pareto(_t(m, POS[::-1]), _t(m, POS * 2))),
    ("Pareto_Pareto_0dim", lambda m, N: N.Pareto(_t(m, 2.0), _t(m, 1.5)),
     lambda m, N: N.Pareto(_t(m, 1.0), _t(m, 3.0))),
    ("CB_CB", lambda m, N: N.ContinuousBernoulli(_t(m, PROBS_CB)),
     lambda m, N: N.ContinuousBernoulli(logits=_t(m, A))),
    ("LowRank_LowRank", lambda m, N: N.LowRankMultivariateNormal(
        _t(m, A.T), _t(m, COV_FACTOR), _t(m, POS[:, 0])),
     lambda m, N: N.LowRankMultivariateNormal(*[_t(m, p) for p in LOWRANK_Q])),
    ("MVN_LowRank", lambda m, N: N.MultivariateNormal(_t(m, A.T), _t(m, COV)),
     lambda m, N: N.LowRankMultivariateNormal(*[_t(m, p) for p in LOWRANK_Q])),
    ("LowRank_MVN", lambda m, N: N.LowRankMultivariateNormal(
        _t(m, A.T), _t(m, COV_FACTOR), _t(m, POS[:, 0])),
     lambda m, N: N.MultivariateNormal(_t(m, np.ones(3)), _t(m, COV))),
    ("CB_Pareto", lambda m, N: N.ContinuousBernoulli(_t(m, PROBS)),
     lambda m, N: N.Pareto(_t(m, POS), _t(m, POS))),
    ("Exponential_CB", lambda m, N: N.Exponential(_t(m, POS)),
     lambda m, N: N.ContinuousBernoulli(_t(m, PROBS))),
    ("Exponential_Pareto", lambda m, N: N.Exponential(_t(m, POS)),
     lambda m, N: N.Pareto(_t(m, POS), _t(m, POS))),
    ("Gumbel_CB", lambda m, N: N.Gumbel(_t(m, A), _t(m, POS)),
     lambda m, N: N.ContinuousBernoulli(_t(m, PROBS))),
    ("Gumbel_Exponential", lambda m, N: N.Gumbel(_t(m, A), _t(m, POS)),
     lambda m, N: N.Exponential(_t(m, POS))),
    ("Gumbel_Pareto", lambda m, N: N.Gumbel(_t(m, A), _t(m, POS)),
     lambda m, N: N.Pareto(_t(m, POS), _t(m, POS))),
    ("Gumbel_Uniform", lambda m, N: N.Gumbel(_t(m, A), _t(m, POS)),
     lambda m, N: N.Uniform(_t(m, A - 1), _t(m, A + 1))),
    ("Laplace_CB", lambda m, N: N.Laplace(_t(m, A), _t(m, POS)),
     lambda m, N: N.ContinuousBernoulli(_t(m, PROBS))),
    ("Laplace_Pareto", lambda m, N: N.Laplace(_t(m, A), _t(m, POS)),
     lambda m, N: N.Pareto(_t(m, POS), _t(m, POS))),
    ("Normal_CB", lambda m, N: N.Normal(_t(m, A), _t(m, POS)),
     lambda m, N: N.ContinuousBernoulli(_t(m, PROBS))),
    ("Normal_Pareto", lambda m, N: N.Normal(_t(m, A), _t(m, POS)),
     lambda m, N: N.Pareto(_t(m, POS), _t(m, POS))),
    ("Pareto_CB", lambda m, N: N.Pareto(_t(m, POS), _t(m, POS)),
     lambda m, N: N.ContinuousBernoulli(_t(m, PROBS))),
    ("Pareto_Uniform", lambda m, N: N.Pareto(_t(m, POS), _t(m, POS)),
     lambda m, N: N.Uniform(_t(m, A - 1), _t(m, A + 1))),
    ("CB_Exponential", lambda m, N: N.ContinuousBernoulli(_t(m, PROBS_CB)),
     lambda m, N: N.Exponential(_t(m, POS))),
    ("CB_Normal", lambda m, N: N.ContinuousBernoulli(_t(m, PROBS_CB)),
     lambda m, N: N.Normal(_t(m, A), _t(m, POS))),
    ("CB_Uniform", lambda m, N: N.ContinuousBernoulli(_t(m, PROBS_CB)),
     lambda m, N: N.Uniform(_t(m, np.array([[-1.0, 0.1]] * 3)), _t(m, np.full((3, 2), 2.0)))),
    ("Exponential_Gumbel", lambda m, N: N.Exponential(_t(m, POS)),
     lambda m, N: N.Gumbel(_t(m, A), _t(m, POS[::-1]))),
    ("Gumbel_Normal", lambda m, N: N.Gumbel(_t(m, A), _t(m, POS)),
     lambda m, N: N.Normal(_t(m, -A), _t(m, POS[::-1]))),
    ("Normal_Gumbel", lambda m, N: N.Normal(_t(m, A), _t(m, POS)),
     lambda m, N: N.Gumbel(_t(m, -A), _t(m, POS[::-1]))),
    ("Pareto_Exponential", lambda m, N: N.Pareto(_t(m, POS), _t(m, POS * 1.2)),
     lambda m, N: N.Exponential(_t(m, POS[::-1]))),
    ("Pareto_Normal", lambda m, N: N.Pareto(_t(m, POS), _t(m, POS * 2)),
     lambda m, N: N.Normal(_t(m, A), _t(m, POS[::-1]))),
    ("Uniform_CB", lambda m, N: N.Uniform(_t(m, PROBS * 0.5), _t(m, PROBS * 0.5 + [0.2, 0.6])),
     lambda m, N: N.ContinuousBernoulli(_t(m, PROBS_CB))),
    ("Uniform_Gumbel", lambda m, N: N.Uniform(_t(m, A), _t(m, A + POS)),
     lambda m, N: N.Gumbel(_t(m, -A), _t(m, POS[::-1]))),
    ("Uniform_Pareto", lambda m, N: N.Uniform(_t(m, POS + [0.0, -1.0]), _t(m, POS + 1)),
     lambda m, N: N.Pareto(_t(m, POS), _t(m, POS[::-1]))),
]


@pytest.mark.parametrize("pair", KL_PAIRS, ids=[p[0] for p in KL_PAIRS])
def test_kl_divergence_matches_pytorch(pair):
    _, make_p, make_q = pair
    res = []
    for m in (nbgrad, torch):
        _LEAVES.clear()
        N = NS[m]
        kl = N.kl_divergence(make_p(m, N), make_q(m, N))
        grads = [] if not kl.requires_grad else m.autograd.grad(
            kl.nan_to_num(0.0, 0.0, 0.0).sum(), list(_LEAVES), allow_unused=True)
        res.append([kl.detach().numpy()] + [None if g is None else g.numpy() for g in grads])
    assert len(res[0]) == len(res[1])
    for a, b in zip(*res):
        assert (a is None) == (b is None)
        if a is not None:
            assert a.shape == b.shape
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


# ---- errors ----

def _N(m):
    return NS[m]


ERRORS = [
    lambda m: _N(m).Gumbel(m.tensor(0.0), m.tensor(-1.0)),
    lambda m: _N(m).Gumbel(m.zeros(2), m.ones(2)).log_prob(m.tensor([0.0, 1.0, 2.0])),
    lambda m: _N(m).Weibull(m.tensor([1.0]), m.tensor([0.0])),
    lambda m: _N(m).Weibull(m.tensor(1.0), m.tensor(2.0)).log_prob(m.tensor(-1.0)),
    lambda m: _N(m).Pareto(m.tensor([1.0]), m.tensor([-2.0])),
    lambda m: _N(m).Pareto(m.tensor([1.0, 2.0]), m.tensor(2.0)).log_prob(m.tensor([1.5, 1.5])),
    lambda m: _N(m).HalfCauchy(m.tensor([-1.0])),
    lambda m: _N(m).HalfCauchy(m.tensor([1.0])).log_prob(m.tensor([-1.0])),
    lambda m: _N(m).Kumaraswamy(m.tensor(1.0), m.tensor(-1.0)),
    lambda m: _N(m).Kumaraswamy(m.tensor(1.0), m.tensor(2.0)).log_prob(m.tensor(1.5)),
    lambda m: _N(m).LogisticNormal(m.zeros(2), m.ones(2)).log_prob(m.tensor([0.5, 0.6, 0.1])),
    lambda m: _N(m).LogisticNormal(m.zeros(2), -m.ones(2)),
    lambda m: _N(m).RelaxedBernoulli(m.tensor(1.0), probs=m.tensor([0.5, 1.5])),
    lambda m: _N(m).RelaxedBernoulli(m.tensor(1.0)),
    lambda m: _N(m).RelaxedBernoulli(m.tensor(1.0), m.tensor(0.5)).log_prob(m.tensor(2.0)),
    lambda m: _N(m).LogitRelaxedBernoulli(m.tensor(1.0), 0.5, 0.1),
    lambda m: _N(m).RelaxedOneHotCategorical(m.tensor(1.0), probs=m.tensor([[-0.1, 1.1]])),
    lambda m: _N(m).RelaxedOneHotCategorical(m.tensor(1.0), m.tensor([0.5, 0.5])).log_prob(
        m.tensor([0.5, 0.6])),
    lambda m: _N(m).ExpRelaxedCategorical(m.tensor(1.0)),
    lambda m: _N(m).ContinuousBernoulli(m.tensor([0.5, 1.5]), validate_args=True),
    lambda m: _N(m).ContinuousBernoulli(m.tensor([-0.5]), validate_args=False),
    lambda m: _N(m).ContinuousBernoulli(),
    lambda m: _N(m).ContinuousBernoulli(m.tensor([0.3])).log_prob(m.tensor([1.5])),
    lambda m: _N(m).GeneralizedPareto(m.tensor(0.0), m.tensor(-1.0), m.tensor(0.5)),
    lambda m: _N(m).GeneralizedPareto(m.tensor(0.0), m.tensor(1.0), m.tensor(-0.5)).log_prob(
        m.tensor(2.5)),
    lambda m: _N(m).VonMises(m.tensor(0.0), m.tensor(0.0)),
    lambda m: _N(m).VonMises(m.zeros(2), m.ones(2)).log_prob(m.zeros(3)),
    lambda m: _N(m).LowRankMultivariateNormal(m.tensor(0.0), m.ones(1, 1), m.ones(1)),
    lambda m: _N(m).LowRankMultivariateNormal(m.zeros(2), m.ones(2), m.ones(2)),
    lambda m: _N(m).LowRankMultivariateNormal(m.zeros(2), m.ones(3, 1), m.ones(2)),
    lambda m: _N(m).LowRankMultivariateNormal(m.zeros(2), m.ones(2, 1), m.ones(3)),
    lambda m: _N(m).LowRankMultivariateNormal(m.zeros(4, 2), m.ones(3, 2, 1), m.ones(2)),
    lambda m: _N(m).LowRankMultivariateNormal(m.zeros(2), m.ones(2, 1), m.tensor([1.0, 0.0])),
    lambda m: _N(m).kl_divergence(
        _N(m).LowRankMultivariateNormal(m.zeros(2), m.ones(2, 1), m.ones(2)),
        _N(m).LowRankMultivariateNormal(m.zeros(3), m.ones(3, 1), m.ones(3))),
    lambda m: _N(m).kl_divergence(
        _N(m).MultivariateNormal(m.zeros(3), m.eye(3)),
        _N(m).LowRankMultivariateNormal(m.zeros(2), m.ones(2, 1), m.ones(2))),
    lambda m: _N(m).kl_divergence(
        _N(m).LowRankMultivariateNormal(m.zeros(2), m.ones(2, 1), m.ones(2)),
        _N(m).MultivariateNormal(m.zeros(3), m.eye(3))),
    lambda m: m.distributions.transforms.StickBreakingTransform().forward_shape(()),
    lambda m: m.distributions.transforms.SoftmaxTransform().inverse_shape(()),
]


@pytest.mark.parametrize("call", ERRORS, ids=range(len(ERRORS)))
def test_errors_are_pytorchs(call):
    def expected(text):
        for mod in _MODULES:
            text = text.replace(f"torch.distributions.{mod}.", "")
        return text.replace("torch.", "nbgrad.")

    assert_same_error(call, torch, nbgrad, expected)


def test_validation_can_be_switched_off():
    N = NS[nbgrad]
    assert N.Gumbel(nbgrad.tensor(0.0), nbgrad.tensor(-1.0), validate_args=False).scale.item() \
        == -1.0
    assert N.VonMises(nbgrad.tensor(0.0), nbgrad.tensor(-1.0),
                      validate_args=False).concentration.item() == -1.0
    d = N.Kumaraswamy(nbgrad.tensor(2.0), nbgrad.tensor(3.0), validate_args=False)
    assert d.log_prob(nbgrad.tensor(1.5)).item() == -np.inf  # (as PyTorch's)


def test_docstring_examples_run():
    import doctest

    for name in _MODULES + ("transforms",):
        mod = importlib.import_module("nbgrad.distributions." + name)
        res = doctest.testmod(mod)
        assert res.attempted and not res.failed, name
