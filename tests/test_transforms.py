"""``torch.distributions.transforms`` beyond the elementwise ones: IndependentTransform,
ReshapeTransform, SoftplusTransform, LowerCholeskyTransform, PositiveDefiniteTransform,
CumulativeDistributionTransform; every transform's forward/inverse shapes (composed and
inverted too) and ``TransformedDistribution.expand`` through them, against PyTorch."""

import doctest

import numpy as np
import pytest

import nbgrad
from nbgrad.distributions import transforms as nbT
from tests._errors import assert_same_error

torch = pytest.importorskip("torch")
tT = torch.distributions.transforms
RNG = np.random.default_rng(0)


def _make(m, name):
    T = nbT if m is nbgrad else tT
    d = m.distributions
    if name == "independent":
        return T.IndependentTransform(T.ExpTransform(), 1)
    if name == "reshape":
        return T.ReshapeTransform((2, 3), (6,))
    if name == "softplus":
        return T.SoftplusTransform()
    if name == "lower_cholesky":
        return T.LowerCholeskyTransform()
    if name == "positive_definite":
        return T.PositiveDefiniteTransform()
    if name == "cdf":
        return T.CumulativeDistributionTransform(d.Normal(0.5, 2.0))
    if name == "compose":
        return T.ComposeTransform([T.ReshapeTransform((4,), (2, 2)),
                                   T.LowerCholeskyTransform(), T.AffineTransform(1.0, 2.0)])
    raise KeyError(name)


_X = {"independent": (3, 2), "reshape": (4, 2, 3), "softplus": (3, 4), "lower_cholesky": (2, 3, 3),
      "positive_definite": (2, 3, 3), "cdf": (5,), "compose": (3, 4)}


@pytest.mark.parametrize("name", list(_X))
def test_transforms_match_torch(name):
    x = RNG.standard_normal(_X[name])
    res = []
    for m in (nbgrad, torch):
        t = _make(m, name)
        xs = m.tensor(x, requires_grad=True)
        y = t(xs)
        back = t.inv(y.detach().clone())  # (not the cached pair: the inverse computed)
        try:
            ladj = t.log_abs_det_jacobian(xs, y)
        except NotImplementedError:  # (PyTorch defines none for the Cholesky transforms)
            ladj = None
        (y.sum() + (0 if ladj is None else ladj.sum())).backward()
        res.append([y.detach().numpy(), back.detach().numpy(),
                    None if ladj is None else ladj.detach().numpy(),
                    xs.grad.numpy(), tuple(t.forward_shape(tuple(x.shape))),
                    tuple(t.inverse_shape(tuple(y.shape))), t.domain.event_dim,
                    t.codomain.event_dim, t.bijective, t == _make(m, name)])
    for a, b in zip(*res):
        if isinstance(a, np.ndarray):
            assert a.shape == b.shape
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
        else:
            assert a == b


def test_shapes_through_parameters_inverses_and_compositions():
    for m in (nbgrad, torch):
        T = nbT if m is nbgrad else tT
        aff = T.AffineTransform(m.zeros(3), m.ones(2, 1))
        pw = T.PowerTransform(m.ones(4, 1, 1))
        sb = T.StickBreakingTransform()
        comp = T.ComposeTransform([aff, sb, pw])
        got = (tuple(aff.forward_shape((5, 1, 3))), tuple(aff.inverse_shape((3,))),
               tuple(pw.forward_shape((2, 3))), tuple(sb.inv.forward_shape((2, 4))),
               tuple(sb.inv.inverse_shape((2, 3))), tuple(comp.forward_shape((3,))),
               tuple(comp.inverse_shape((4, 2, 4))), tuple(comp.inv.forward_shape((4, 2, 4))))
        if m is nbgrad:
            ours = got
    assert ours == got


@pytest.mark.parametrize("build", [
    lambda m, T: m.distributions.TransformedDistribution(
        m.distributions.Normal(m.zeros(3), m.ones(3)), [T.StickBreakingTransform()]),
    lambda m, T: m.distributions.TransformedDistribution(
        m.distributions.Normal(m.zeros(6), m.ones(6)), [T.ReshapeTransform((6,), (2, 3))]),
    lambda m, T: m.distributions.TransformedDistribution(
        m.distributions.Normal(m.zeros(2), m.ones(2)),
        [T.AffineTransform(m.zeros(4, 1), 2.0), T.ExpTransform()]),
])
def test_transformed_distribution_expand_matches_torch(build):
    res = []
    for m in (nbgrad, torch):
        T = nbT if m is nbgrad else tT
        d = build(m, T)
        e = d.expand((5,) + tuple(d.batch_shape))
        m.manual_seed(3)
        s = e.sample()
        res.append((tuple(d.batch_shape), tuple(d.event_shape), tuple(e.batch_shape),
                    tuple(e.event_shape), tuple(e.base_dist.batch_shape), s.numpy(),
                    e.log_prob(s).numpy(), type(e).__name__))
    for a, b in zip(*res):
        if isinstance(a, np.ndarray):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
        else:
            assert a == b


def test_gaussian_copula_log_prob_matches_torch():
    L = np.array([[1.0, 0.0], [0.6, 0.8]])
    y = np.array([[0.2, 0.7], [0.9, 0.4]])
    out = []
    for m in (nbgrad, torch):
        T = nbT if m is nbgrad else tT
        d = m.distributions
        base = d.MultivariateNormal(m.zeros(2, dtype=m.float64), scale_tril=m.tensor(L))
        cop = d.TransformedDistribution(base, [T.CumulativeDistributionTransform(
            d.Normal(m.tensor(0.0, dtype=m.float64), m.tensor(1.0, dtype=m.float64)))])
        out.append(cop.log_prob(m.tensor(y)).numpy())
    np.testing.assert_allclose(out[0], out[1], rtol=1e-12)


@pytest.mark.parametrize("call", [
    lambda m, T: T.ReshapeTransform((2, 3), (5,)),
    lambda m, T: T.ReshapeTransform((2, 3), (6,)).forward_shape((3, 3)),
    lambda m, T: T.ReshapeTransform((2, 3), (6,)).inverse_shape(()),
    lambda m, T: T.IndependentTransform(T.ExpTransform(), 2)(m.ones(3)),
])
def test_errors_match_torch(call):
    assert_same_error(lambda m: call(m, nbT if m is nbgrad else tT), torch, nbgrad,
                      lambda text: text.replace("torch.Size", "nbgrad.Size"))


def test_docstring_examples_run():
    res = doctest.testmod(nbT, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert res.attempted and not res.failed
