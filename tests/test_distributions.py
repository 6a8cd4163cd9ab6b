"""``nbgrad.distributions`` against ``torch.distributions``: samples for a seed,
reparameterized samples, densities, CDFs, moments, entropies and KL divergences, their
gradients, shapes (batch, event, sample, expand), argument and support validation with
PyTorch's messages, and a policy-gradient step."""

import numpy as np
import pytest

import nbgrad
from tests._errors import assert_same_error

torch = pytest.importorskip("torch")
RNG = np.random.default_rng(0)
A = RNG.standard_normal((3, 2))
POS = RNG.uniform(0.5, 2.0, (3, 2))
PROBS = RNG.uniform(0.1, 0.9, (3, 2))
W = RNG.uniform(0.1, 1.0, (3, 4))
C = RNG.standard_normal((2, 3, 3))
COV = C @ np.swapaxes(C, -1, -2) + 3 * np.eye(3)

# (name, make(m, *params), params, a value in the support, methods)
CASES = [
    ("Normal", lambda D, a, b: D.Normal(a, b), (A, POS), A * 0.5,
     ("log_prob", "cdf", "icdf", "entropy", "mean", "mode", "stddev", "variance")),
    ("Uniform", lambda D, a, b: D.Uniform(a, a + b), (A, POS), A + 0.1,
     ("log_prob", "cdf", "icdf", "entropy", "mean", "stddev", "variance")),
    ("Exponential", lambda D, b: D.Exponential(b), (POS,), POS * 0.7,
     ("log_prob", "cdf", "icdf", "entropy", "mean", "mode", "stddev", "variance")),
    ("Laplace", lambda D, a, b: D.Laplace(a, b), (A, POS), A * 0.5,
     ("log_prob", "cdf", "icdf", "entropy", "mean", "mode", "stddev", "variance")),
    ("Bernoulli", lambda D, p: D.Bernoulli(probs=p), (PROBS,), (PROBS > 0.5) * 1.0,
     ("log_prob", "entropy", "mean", "variance")),
    ("Bernoulli_logits", lambda D, a: D.Bernoulli(logits=a), (A,), (A > 0) * 1.0,
     ("log_prob", "entropy", "mean", "variance")),
    ("Categorical", lambda D, w: D.Categorical(probs=w), (W,), np.array([0.0, 3.0, 1.0]),
     ("log_prob", "entropy", "mode")),
    ("Categorical_logits", lambda D, a: D.Categorical(logits=a), (W * 3,),
     np.array([2.0, 0.0, 1.0]), ("log_prob", "entropy", "mode")),
    ("OneHotCategorical", lambda D, w: D.OneHotCategorical(probs=w), (W,), np.eye(4)[[1, 3, 0]],
     ("log_prob", "entropy", "mean", "mode", "variance")),
    ("Independent", lambda D, a, b: D.Independent(D.Normal(a, b), 1), (A, POS), A * 0.5,
     ("log_prob", "entropy", "mean", "variance")),
    ("Cauchy", lambda D, a, b: D.Cauchy(a, b), (A, POS), A * 0.5,
     ("log_prob", "cdf", "icdf", "entropy", "mode")),
    ("LogNormal", lambda D, a, b: D.LogNormal(a, b), (A, POS), POS,
     ("log_prob", "cdf", "icdf", "entropy", "mean", "mode", "variance")),
    ("HalfNormal", lambda D, b: D.HalfNormal(b), (POS,), POS * 0.5,
     ("log_prob", "cdf", "icdf", "entropy", "mean", "variance")),
    ("Tanh_squashed", lambda D, a, b: D.TransformedDistribution(
        D.Normal(a, b), [D.transforms.TanhTransform(cache_size=1)]), (A, POS),
     np.tanh(A * 0.5), ("log_prob",)),
    ("Affine_sigmoid", lambda D, a, b: D.TransformedDistribution(
        D.Normal(a, b), [D.transforms.AffineTransform(0.5, a * 0 + 2.0),
                         D.transforms.SigmoidTransform()]), (A, POS), PROBS,
     ("log_prob", "cdf")),
    ("Affine_event", lambda D, a, b: D.TransformedDistribution(
        D.Independent(D.Normal(a, b), 1), D.transforms.AffineTransform(1.0, b, event_dim=1)),
     (A, POS), A * 0.5, ("log_prob",)),
    ("Poisson", lambda D, r: D.Poisson(r), (POS * 5,), np.floor(POS * 4),
     ("log_prob", "mean", "mode", "variance")),
    ("Geometric", lambda D, p: D.Geometric(probs=p), (PROBS,), np.floor(POS * 2),
     ("log_prob", "entropy", "mean", "mode", "variance")),
    ("Geometric_logits", lambda D, a: D.Geometric(logits=a), (A,), np.floor(POS * 2),
     ("log_prob", "entropy", "mean", "variance")),
    ("Mixture_normal", lambda D, w, a, b: D.MixtureSameFamily(D.Categorical(probs=w),
                                                               D.Normal(a, b)),
     (W, RNG.standard_normal((3, 4)), RNG.uniform(0.5, 2, (3, 4))), RNG.standard_normal(3),
     ("log_prob", "cdf", "mean", "variance")),
    ("Mixture_mvn", lambda D, w, a, c: D.MixtureSameFamily(
        D.Categorical(logits=w), D.MultivariateNormal(a, covariance_matrix=c)),
     (RNG.standard_normal(2), RNG.standard_normal((2, 3)), COV), RNG.standard_normal((4, 3)),
     ("log_prob", "mean", "variance")),
    ("MVN_cov", lambda D, a, c: D.MultivariateNormal(a, covariance_matrix=c),
     (RNG.standard_normal((2, 3)), COV), RNG.standard_normal((2, 3)),
     ("log_prob", "entropy", "mean", "variance")),
    ("MVN_precision", lambda D, a, c: D.MultivariateNormal(a, precision_matrix=c),
     (RNG.standard_normal(3), COV[0]), RNG.standard_normal(3),
     ("log_prob", "entropy", "variance")),
    ("MVN_tril", lambda D, a, c: D.MultivariateNormal(a, scale_tril=D.constraints and c),
     (RNG.standard_normal(3), np.linalg.cholesky(COV[1])), RNG.standard_normal(3),
     ("log_prob", "entropy", "variance")),
    # the gamma family: reparameterized samples through _standard_gamma / _sample_dirichlet
    ("Gamma", lambda D, a, b: D.Gamma(a, b), (POS, POS[::-1].copy()), POS * 0.7,
     ("log_prob", "entropy", "mean", "mode", "variance")),
    ("Chi2", lambda D, k: D.Chi2(k), (POS * 3,), POS, ("log_prob", "entropy", "mean", "mode")),
    ("Beta", lambda D, a, b: D.Beta(a, b), (POS, POS[::-1].copy()), PROBS,
     ("log_prob", "entropy", "mean", "mode", "variance")),
    ("Dirichlet", lambda D, w: D.Dirichlet(w), (W * 2,), W / W.sum(-1, keepdims=True),
     ("log_prob", "entropy", "mean", "mode", "variance")),
    ("StudentT", lambda D, k, a, b: D.StudentT(k, a, b), (POS * 2, A, POS), A * 0.5,
     ("log_prob", "entropy", "mean", "mode", "variance")),
    ("FisherSnedecor", lambda D, a, b: D.FisherSnedecor(a, b), (POS * 3, POS * 4), POS,
     ("log_prob", "mean", "mode", "variance")),
    ("InverseGamma", lambda D, a, b: D.InverseGamma(a, b), (POS * 2, POS), POS,
     ("log_prob", "entropy", "mean", "mode", "variance")),
    ("Binomial", lambda D, p: D.Binomial(10, probs=p), (PROBS,), np.floor(PROBS * 10),
     ("log_prob", "entropy", "mean", "mode", "variance")),
    ("Binomial_logits", lambda D, n, a: D.Binomial(n, logits=a), (np.array([3.0, 40.0]), A),
     np.floor(PROBS * 3), ("log_prob", "mean", "variance")),
    ("Multinomial", lambda D, w: D.Multinomial(10, probs=w), (W,),
     np.array([[1.0, 2, 3, 4], [10, 0, 0, 0], [2, 2, 3, 3]]),
     ("log_prob", "entropy", "mean", "variance")),
    ("NegativeBinomial", lambda D, n, p: D.NegativeBinomial(n, probs=p), (POS * 3, PROBS),
     np.floor(POS * 2), ("log_prob", "mean", "mode", "variance")),
]


def _build(case, m, grad=True):
    _, make, params, value, _ = case
    ps = [m.tensor(p, requires_grad=grad) for p in params]
    return make(m.distributions, *ps), ps, m.tensor(value)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_values_shapes_and_gradients_match_pytorch(case):
    methods = case[4]
    results = []
    for m in (nbgrad, torch):
        d, ps, value = _build(case, m)
        outs = {}
        for name in methods:
            if name == "icdf":
                v = getattr(d, "cdf")(value)
                out = d.icdf(v.detach())
            elif name in ("log_prob", "cdf"):
                out = getattr(d, name)(value)
            elif name == "entropy":
                out = d.entropy()
            else:
                out = getattr(d, name)
            outs[name] = out
        total = sum((o.double() * (k + 1)).sum() for k, o in enumerate(outs.values())
                    if o.dtype.is_floating_point and o.requires_grad)
        grads = []
        if not isinstance(total, int):
            grads = [None if g is None else g.numpy() for g in m.autograd.grad(
                total, ps, allow_unused=True)]
        results.append(({k: v.detach().numpy() for k, v in outs.items()}, grads,
                        tuple(d.batch_shape), tuple(d.event_shape)))
    (ours, og, ob, oe), (theirs, tg, tb, te) = results
    assert (ob, oe) == (tb, te)
    for k in ours:
        np.testing.assert_allclose(ours[k], theirs[k], rtol=1e-12, atol=1e-13, err_msg=k)
    for a, b in zip(og, tg):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=1e-11, atol=1e-12)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_samples_for_a_seed_are_pytorchs(case):
    res = []
    for m in (nbgrad, torch):
        d, ps, _ = _build(case, m)
        m.manual_seed(3)
        s1 = d.sample()
        s2 = d.sample((2, 1))
        out = [s1, s2]
        if d.has_rsample:
            r = d.rsample((4,))
            assert r.requires_grad
            grads = m.autograd.grad(r.sum(), ps, allow_unused=True)
            out += [r] + [g for g in grads if g is not None]
        assert not s1.requires_grad
        assert tuple(s2.shape) == (2, 1) + tuple(d.batch_shape) + tuple(d.event_shape)
        res.append([o.detach().numpy() for o in out])
    for a, b in zip(*res):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-13)


def test_expand_and_scalar_parameters():
    for m in (nbgrad, torch):
        D = m.distributions
        n = D.Normal(0.0, 1.0)
        assert tuple(n.batch_shape) == () and n.loc.dtype == m.float32
        e = D.Normal(m.zeros(2), m.ones(2)).expand((3, 2))
        assert tuple(e.batch_shape) == (3, 2) and tuple(e.sample().shape) == (3, 2)
        c = D.Categorical(logits=m.zeros(2, 5)).expand((4, 2))
        assert tuple(c.sample().shape) == (4, 2)
        assert tuple(D.Bernoulli(0.3).sample((5,)).shape) == (5,)
    got = nbgrad.distributions.Normal(nbgrad.tensor(1.0), 2.0).log_prob(nbgrad.tensor(0.5))
    want = torch.distributions.Normal(torch.tensor(1.0), 2.0).log_prob(torch.tensor(0.5))
    assert abs(got.item() - want.item()) < 1e-7


KL_PAIRS = [
    (lambda D: D.Normal(torch_like(D, A), torch_like(D, POS)),
     lambda D: D.Normal(torch_like(D, A * 0.3), torch_like(D, POS * 1.5))),
    (lambda D: D.Bernoulli(probs=torch_like(D, PROBS)),
     lambda D: D.Bernoulli(probs=torch_like(D, PROBS[::-1].copy()))),
    (lambda D: D.Categorical(probs=torch_like(D, W)),
     lambda D: D.Categorical(logits=torch_like(D, W * 2))),
    (lambda D: D.OneHotCategorical(probs=torch_like(D, W)),
     lambda D: D.OneHotCategorical(probs=torch_like(D, W[::-1].copy()))),
    (lambda D: D.Uniform(torch_like(D, A), torch_like(D, A + 1)),
     lambda D: D.Uniform(torch_like(D, A - 1), torch_like(D, A + 2))),
    (lambda D: D.Exponential(torch_like(D, POS)), lambda D: D.Exponential(torch_like(D, POS.T.copy().reshape(3, 2)))),
    (lambda D: D.Laplace(torch_like(D, A), torch_like(D, POS)),
     lambda D: D.Laplace(torch_like(D, -A), torch_like(D, POS * 2))),
    (lambda D: D.MultivariateNormal(torch_like(D, A[:2, :1].repeat(3, 1)), torch_like(D, COV)),
     lambda D: D.MultivariateNormal(torch_like(D, np.zeros(3)), torch_like(D, COV[0]))),
    (lambda D: D.Poisson(torch_like(D, POS)), lambda D: D.Poisson(torch_like(D, POS * 3))),
    (lambda D: D.Geometric(probs=torch_like(D, PROBS)),
     lambda D: D.Geometric(probs=torch_like(D, PROBS[::-1].copy()))),
    (lambda D: D.Independent(D.Normal(torch_like(D, A), torch_like(D, POS)), 1),
     lambda D: D.Independent(D.Normal(torch_like(D, A * 0), torch_like(D, POS * 2)), 1)),
    (lambda D: D.Gamma(torch_like(D, POS), torch_like(D, POS * 2)),
     lambda D: D.Gamma(torch_like(D, POS[::-1].copy()), torch_like(D, POS))),
    (lambda D: D.Chi2(torch_like(D, POS)), lambda D: D.Chi2(torch_like(D, POS * 2))),
    (lambda D: D.Beta(torch_like(D, POS), torch_like(D, POS * 2)),
     lambda D: D.Beta(torch_like(D, POS[::-1].copy()), torch_like(D, POS))),
    (lambda D: D.Dirichlet(torch_like(D, W)), lambda D: D.Dirichlet(torch_like(D, W[::-1] * 3))),
    (lambda D: D.Binomial(torch_like(D, np.array([5.0, 5.0])), probs=torch_like(D, PROBS)),
     lambda D: D.Binomial(torch_like(D, np.array([5.0, 3.0])), probs=torch_like(D, PROBS * 0.5))),
    (lambda D: D.InverseGamma(torch_like(D, POS), torch_like(D, POS)),
     lambda D: D.InverseGamma(torch_like(D, POS * 2), torch_like(D, POS))),
    (lambda D: D.HalfNormal(torch_like(D, POS)), lambda D: D.HalfNormal(torch_like(D, POS * 3))),
    (lambda D: D.Cauchy(torch_like(D, A), torch_like(D, POS)),
     lambda D: D.Cauchy(torch_like(D, -A), torch_like(D, POS * 2))),
    (lambda D: D.Bernoulli(probs=torch_like(D, PROBS)), lambda D: D.Poisson(torch_like(D, POS))),
    (lambda D: D.Beta(torch_like(D, POS), torch_like(D, POS * 2)),
     lambda D: D.Exponential(torch_like(D, POS))),
    (lambda D: D.Beta(torch_like(D, POS), torch_like(D, POS * 2)),
     lambda D: D.Gamma(torch_like(D, POS), torch_like(D, POS * 3))),
    (lambda D: D.Beta(torch_like(D, POS), torch_like(D, POS * 2)),
     lambda D: D.Normal(torch_like(D, A), torch_like(D, POS))),
    (lambda D: D.Beta(torch_like(D, POS), torch_like(D, POS * 2)),
     lambda D: D.Uniform(torch_like(D, np.array([-0.5, 0.1])), torch_like(D, POS))),
    (lambda D: D.Exponential(torch_like(D, POS)),
     lambda D: D.Gamma(torch_like(D, POS * 2), torch_like(D, POS))),
    (lambda D: D.Exponential(torch_like(D, POS)),
     lambda D: D.Normal(torch_like(D, A), torch_like(D, POS))),
    (lambda D: D.Gamma(torch_like(D, POS * 2), torch_like(D, POS)),
     lambda D: D.Exponential(torch_like(D, POS))),
    (lambda D: D.Gamma(torch_like(D, POS * 2), torch_like(D, POS)),
     lambda D: D.Normal(torch_like(D, A), torch_like(D, POS))),
    (lambda D: D.Laplace(torch_like(D, A), torch_like(D, POS)),
     lambda D: D.Normal(torch_like(D, -A), torch_like(D, POS * 2))),
    (lambda D: D.Normal(torch_like(D, A), torch_like(D, POS)),
     lambda D: D.Laplace(torch_like(D, -A), torch_like(D, POS * 2))),
    (lambda D: D.Uniform(torch_like(D, PROBS * 0.5), torch_like(D, PROBS * 0.5 + 0.4)),
     lambda D: D.Beta(torch_like(D, POS), torch_like(D, POS * 2))),
    (lambda D: D.Uniform(torch_like(D, PROBS - 0.5), torch_like(D, PROBS + 1)),
     lambda D: D.Exponential(torch_like(D, POS))),
    (lambda D: D.Uniform(torch_like(D, PROBS - 0.5), torch_like(D, PROBS + 1)),
     lambda D: D.Gamma(torch_like(D, POS), torch_like(D, POS * 3))),
    (lambda D: D.Uniform(torch_like(D, A), torch_like(D, A + 1)),
     lambda D: D.Normal(torch_like(D, -A), torch_like(D, POS * 2))),
    (lambda D: D.Beta(torch_like(D, POS), torch_like(D, POS * 2)),
     lambda D: D.ContinuousBernoulli(torch_like(D, PROBS))),
    (lambda D: D.Gamma(torch_like(D, POS * 2), torch_like(D, POS)),
     lambda D: D.Gumbel(torch_like(D, A), torch_like(D, POS))),
    (lambda D: D.Pareto(torch_like(D, POS), torch_like(D, POS * 2)),
     lambda D: D.Gamma(torch_like(D, POS), torch_like(D, POS * 3))),
]


_LEAVES = []


def torch_like(D, a):
    m = nbgrad if D is nbgrad.distributions else torch
    t = m.tensor(a, requires_grad=True)
    _LEAVES.append(t)
    return t


@pytest.mark.parametrize("k", range(len(KL_PAIRS)))
def test_kl_divergence_matches_pytorch(k):
    make_p, make_q = KL_PAIRS[k]
    res = []
    for m in (nbgrad, torch):
        _LEAVES.clear()
        p, q = make_p(m.distributions), make_q(m.distributions)
        kl = m.distributions.kl_divergence(p, q)
        grads = m.autograd.grad(kl.sum(), list(_LEAVES), allow_unused=True)
        res.append([kl.detach().numpy()] + [g.numpy() for g in grads if g is not None])
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_kl_between_supports_that_differ_is_infinite_and_bregman_is_pytorchs():
    from torch.distributions import kl as tkl

    from nbgrad.distributions import kl as nkl

    for m in (nbgrad, torch):
        D = m.distributions
        g, n, u = D.Gamma(m.ones(2), m.ones(2)), D.Normal(m.zeros(2), m.ones(2)), \
            D.Uniform(m.zeros(2), m.ones(2))
        for p, q in ((n, g), (g, u), (D.Poisson(m.ones(2)), D.Binomial(3, m.ones(2) / 2)),
                     (D.Exponential(m.ones(2)), D.Beta(m.ones(2), m.ones(2))),
                     (D.Beta(m.ones(2), m.ones(2)), D.Pareto(m.ones(2), m.ones(2))),
                     (D.Gumbel(m.zeros(2), m.ones(2)), g), (g, D.Pareto(m.ones(2), m.ones(2))),
                     (D.Pareto(m.ones(2), m.ones(2)), g)):
            kl = D.kl_divergence(p, q)
            assert kl.shape == (2,) and kl.dtype == m.float32
            assert (kl.numpy() == np.inf).all()
    res = []
    for m, mod in ((nbgrad, nkl), (torch, tkl)):
        c = m.tensor(POS[::-1].copy(), requires_grad=True)
        p, q = m.distributions.Gamma(m.tensor(POS), 2.0), m.distributions.Gamma(c, 1.0)
        kl = mod._kl_expfamily_expfamily(p, q)
        res.append((kl.detach().numpy(), m.autograd.grad(kl.sum(), c)[0].numpy(),
                    p.entropy().detach().numpy(),
                    m.distributions.ExponentialFamily.entropy(p).detach().numpy()))
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_gamma_cdf_and_binomial_enumerate_support():
    res = []
    for m in (nbgrad, torch):
        d = m.distributions.Gamma(m.tensor(POS), m.tensor(POS * 2))
        b = m.distributions.Binomial(4, m.tensor(PROBS))
        res.append((d.cdf(m.tensor(POS)).numpy(), b.enumerate_support().numpy(),
                    b.enumerate_support(False).numpy()))
    for a, b in zip(*res):
        assert a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-12)


@pytest.mark.parametrize("call", [
    lambda m: m.distributions.Normal(m.tensor(0.0), m.tensor(-1.0)),
    lambda m: m.distributions.Bernoulli(probs=m.tensor([0.5, 1.5])),
    lambda m: m.distributions.Categorical(probs=m.tensor([[-0.1, 1.1]])),
    lambda m: m.distributions.Uniform(m.tensor(1.0), m.tensor(0.0)),
    lambda m: m.distributions.Bernoulli(),
    lambda m: m.distributions.Categorical(probs=m.tensor(0.5)),
    lambda m: m.distributions.Normal(m.zeros(2), m.ones(2)).log_prob(m.zeros(3)),
    lambda m: m.distributions.Exponential(m.ones(2)).log_prob(m.tensor([-1.0, 1.0])),
    lambda m: m.distributions.Categorical(logits=m.zeros(3)).log_prob(m.tensor(4)),
    lambda m: m.distributions.Normal(0.0, 1.0).log_prob(0.5),
    lambda m: m.distributions.Geometric(m.tensor([0.0, 0.5])),
    lambda m: m.distributions.MixtureSameFamily(m.distributions.Normal(0.0, 1.0),
                                                m.distributions.Normal(m.zeros(2), m.ones(2))),
    lambda m: m.distributions.MixtureSameFamily(m.distributions.Categorical(m.ones(3)),
                                                m.distributions.Normal(m.zeros(2), m.ones(2))),
    lambda m: m.distributions.Poisson(m.tensor([-1.0])),
    lambda m: m.poisson(m.tensor([-1.0])),
    lambda m: m.poisson(m.tensor([1])),
    lambda m: m.poisson(m.tensor([float("nan")])),
    lambda m: m.distributions.MultivariateNormal(m.zeros(2)),
    lambda m: m.distributions.kl_divergence(m.distributions.Categorical(logits=m.zeros(3)),
                                            m.distributions.Normal(0.0, 1.0)),
    lambda m: m.distributions.Independent(m.distributions.Normal(m.zeros(2), m.ones(2)), 2),
    lambda m: m.distributions.Gamma(m.tensor([1.0, -1.0]), 1.0),
    lambda m: m.distributions.Dirichlet(m.tensor(1.0)),
    lambda m: m.distributions.Dirichlet(m.tensor([1.0, 0.0])),
    lambda m: m.distributions.Beta(m.tensor([1.0]), m.tensor([1.0])).log_prob(m.tensor([2.0])),
    lambda m: m.distributions.Binomial(3),
    lambda m: m.distributions.Binomial(3, m.tensor(0.5)).log_prob(m.tensor(4.0)),
    lambda m: m.distributions.Binomial(m.tensor([2.0, 3.0]), m.tensor(0.5)).entropy(),
    lambda m: m.distributions.Multinomial(m.tensor(3), m.ones(3)),
    lambda m: m.distributions.NegativeBinomial(3.0, m.tensor(1.0)),
    lambda m: m.distributions.kl_divergence(m.distributions.Binomial(2, m.tensor(0.5)),
                                            m.distributions.Binomial(3, m.tensor(0.5))),
    lambda m: m.distributions.StudentT(m.tensor(0.0)),
])
def test_errors_are_pytorchs(call):
    assert_same_error(call, torch, nbgrad, lambda text: text.replace(
        "torch.distributions.normal.", "").replace("torch.", "nbgrad."))


def test_validation_can_be_switched_off():
    d = nbgrad.distributions.Normal(nbgrad.tensor(0.0), nbgrad.tensor(-1.0),
                                    validate_args=False)
    assert d.scale.item() == -1.0


def test_a_policy_gradient_step_matches_pytorch():
    res = []
    observations = RNG.standard_normal((5, 4))
    for m in (nbgrad, torch):
        m.manual_seed(0)
        lin = m.nn.Linear(4, 3).double()
        obs = m.tensor(observations)
        dist = m.distributions.Categorical(logits=lin(obs))
        action = dist.sample()
        loss = -(dist.log_prob(action) * m.arange(5.0, dtype=m.float64)).mean() \
            - 0.01 * dist.entropy().mean()
        loss.backward()
        res.append((action.numpy(), loss.item(), lin.weight.grad.numpy()))
    assert (res[0][0] == res[1][0]).all()
    assert abs(res[0][1] - res[1][1]) < 1e-12
    np.testing.assert_allclose(res[0][2], res[1][2], rtol=1e-12, atol=1e-14)


def test_docstring_examples_run():
    import doctest
    import importlib

    for name in ("", ".normal", ".uniform", ".exponential", ".laplace", ".bernoulli",
                 ".categorical", ".one_hot_categorical", ".independent",
                 ".multivariate_normal", ".kl", ".transforms", ".transformed_distribution",
                 ".cauchy", ".poisson", ".geometric", ".mixture_same_family", ".gamma",
                 ".chi2", ".beta", ".dirichlet", ".studentT", ".fishersnedecor",
                 ".inverse_gamma", ".binomial", ".multinomial", ".negative_binomial"):
        mod = importlib.import_module("nbgrad.distributions" + name)
        res = doctest.testmod(mod)
        assert res.attempted and not res.failed, name


def test_poisson_draws_and_gradient_are_pytorchs():
    res = []
    for m in (nbgrad, torch):
        r = m.tensor(np.r_[0.5, 3.0, 12.0, 0.0, 100.0, POS.ravel() * 7], requires_grad=True)
        m.manual_seed(0)
        p = m.poisson(r)
        assert type(p.grad_fn).__name__ == "PoissonBackward0"
        p.sum().backward()
        res.append((p.detach().numpy(), r.grad.numpy(),
                    m.poisson(m.full((50,), 4.0, dtype=m.float64)).numpy(),
                    # (a count beyond int64, as PyTorch's cast leaves it: INT64_MIN)
                    m.poisson(m.tensor([np.inf, 1e20, 0.0, 7.0])).numpy()))
    for a, b in zip(*res):
        np.testing.assert_array_equal(a, b)

