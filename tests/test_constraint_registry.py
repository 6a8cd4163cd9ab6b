"""``biject_to`` / ``transform_to`` (``torch.distributions.constraint_registry``) against
PyTorch: the transform each constraint maps to, its values, and a custom registration."""

import doctest

import numpy as np
import pytest

import nbgrad
from nbgrad.distributions import constraint_registry

torch = pytest.importorskip("torch")
RNG = np.random.default_rng(0)


def _constraints(m):
    c = m.distributions.constraints
    return {
        "real": (c.real, (3,)), "positive": (c.positive, (3,)),
        "nonnegative": (c.nonnegative, (3,)), "greater_than": (c.greater_than(2.0), (3,)),
        "greater_than_eq": (c.greater_than_eq(-1.0), (3,)),
        "less_than": (c.less_than(1.5), (3,)), "unit_interval": (c.unit_interval, (3,)),
        "interval": (c.interval(-2.0, 3.0), (3,)),
        "half_open_interval": (c.half_open_interval(0.0, 2.0), (3,)),
        "simplex": (c.simplex, (2, 3)), "real_vector": (c.real_vector, (2, 3)),
        "independent_positive": (c.independent(c.positive, 1), (2, 3)),
        "lower_cholesky": (c.lower_cholesky, (3, 3)),
        "positive_definite": (c.positive_definite, (3, 3)),
        "corr_cholesky": (c.corr_cholesky, (3,)),
        "cat": (c.cat([c.positive, c.real], 0, [2, 1]), (3, 2)),
        "stack": (c.stack([c.unit_interval, c.positive], 1), (3, 2)),
    }


@pytest.mark.parametrize("name", list(_constraints(nbgrad)))
@pytest.mark.parametrize("registry", ["biject_to", "transform_to"])
def test_registries_match_torch(name, registry):
    got = []
    values = RNG.standard_normal(_constraints(nbgrad)[name][1])
    for m in (nbgrad, torch):
        c, shape = _constraints(m)[name]
        try:
            t = getattr(m.distributions, registry)(c)
        except NotImplementedError as e:
            got.append(("raises", str(e)))
            continue
        y = t(m.tensor(values))
        parts = [type(p).__name__ for p in getattr(t, "parts", [t])]
        got.append((type(t).__name__, parts, y.numpy(), bool(c.check(y).all())))
    a, b = got
    if a[0] == "raises" or b[0] == "raises":
        assert a == b
        return
    assert a[:2] == b[:2] and a[3] and b[3]
    np.testing.assert_allclose(a[2], b[2], rtol=1e-12, atol=1e-12)


def test_a_custom_registration_and_errors():
    c = nbgrad.distributions.constraints
    reg = constraint_registry.ConstraintRegistry()

    @reg.register(c.positive)
    def _square(constraint):
        return nbgrad.distributions.transforms.PowerTransform(2.0)

    assert type(reg(c.greater_than(3.0))).__name__ == "PowerTransform"
    with pytest.raises(NotImplementedError, match="Cannot transform _Real constraints"):
        reg(c.real)
    with pytest.raises(TypeError, match="Expected constraint to be either a Constraint"):
        reg.register(3, lambda c: None)


def test_straight_through_one_hot_and_exports_match_torch():
    got = []
    for m in (nbgrad, torch):
        p = m.tensor([[0.2, 0.8], [0.5, 0.5]], requires_grad=True)
        m.manual_seed(0)
        d = m.distributions.OneHotCategoricalStraightThrough(probs=p)
        s = d.rsample((3,))
        (s * m.tensor([1.0, 2.0])).sum().backward()
        got.append((s.detach().tolist(), p.grad.tolist(), d.has_rsample))
    assert got[0] == got[1]
    names = {n for n in dir(torch.distributions) if not n.startswith("_")
             and type(getattr(torch.distributions, n)).__name__ != "module"}
    assert names <= set(dir(nbgrad.distributions))


def test_docstring_examples_run():
    res = doctest.testmod(constraint_registry,
                          optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert res.attempted and not res.failed
