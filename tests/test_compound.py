"""Arithmetic composites (ops/compound.py) and the bitwise / logical operators (``~ & | ^``
on bool and integer tensors): values and gradients against PyTorch, the in-place forms
hand-written optimizers use, finite differences in float64."""

import doctest

import numpy as np
import pytest

import nbgrad
from nbgrad.autograd import gradcheck, gradgradcheck
from tests._errors import error_of

torch = pytest.importorskip("torch")

rng = np.random.default_rng(0)
A, B, C = rng.standard_normal((3, 4)), rng.standard_normal((4, 5)), rng.standard_normal((3, 5))
P = rng.random((3, 4)) * 0.8 + 0.1
N = np.array([1.0, np.nan, np.inf, -np.inf, 0.0])
calls = [
 lambda m, a, b, c: m.addmm(c, a, b, beta=0.5, alpha=2), lambda m, a, b, c: m.addmv(c[:, 0], a, b[:, 0]), lambda m, a, b, c: m.baddbmm(c.unsqueeze(0), a.unsqueeze(0), b.unsqueeze(0), alpha=0.3),
  lambda m, a, b, c: m.addbmm(c, a.unsqueeze(0).repeat(2, 1, 1), b.unsqueeze(0).repeat(2, 1, 1)), lambda m, a, b, c: m.addcmul(c, c, c.exp(), value=0.5), lambda m, a, b, c: a.addcdiv(a, a.exp(), value=-2),
  lambda m, a, b, c: m.lerp(a, a * 3, 0.25), lambda m, a, b, c: m.lerp(a, a.flip(0), a.sigmoid()), lambda m, a, b, c: m.hypot(a, a.flip(1)), lambda m, a, b, c: m.logaddexp(a, a.flip(1) * 50), lambda m, a, b, c: m.logaddexp2(a, a.flip(0)),
  lambda m, a, b, c: m.xlogy(a.relu(), a.exp()), lambda m, a, b, c: m.logit(m.tensor(P, requires_grad=False) * a.sigmoid(), 1e-3), lambda m, a, b, c: m.sinc(a), lambda m, a, b, c: m.sinc(m.tensor([0.0, 0.5])),
  lambda m, a, b, c: m.nan_to_num(m.tensor(N)), lambda m, a, b, c: m.nan_to_num(m.tensor(N), nan=1.0, posinf=2.0), lambda m, a, b, c: m.nansum(m.tensor(N[:2]) * a[0, :2]), lambda m, a, b, c: m.nanmean(m.tensor([1.0, np.nan, 3.0])),
  lambda m, a, b, c: m.diff(a), lambda m, a, b, c: m.diff(a, 2, 0, prepend=a[:1]), lambda m, a, b, c: m.cross(a[:, :3], b[:3, :3].T[:3], dim=1), lambda m, a, b, c: m.kron(a[:2, :2], b[:2, :3]), lambda m, a, b, c: m.tensordot(a, b, 1),
  lambda m, a, b, c: m.tensordot(a.reshape(3, 2, 2), b.reshape(2, 2, 5), ([1, 2], [0, 1])), lambda m, a, b, c: m.cdist(a, c[:, :4]), lambda m, a, b, c: m.count_nonzero(a.relu(), 1), lambda m, a, b, c: m.aminmax(a, dim=0)]


@pytest.mark.parametrize("call", calls)
def test_matches_pytorch(call):
    got = []
    for m in (nbgrad, torch):
        a, b, c = (m.tensor(v, requires_grad=True) for v in (A, B, C))
        out = call(m, a, b, c)
        outs = out if isinstance(out, tuple) else (out,)
        s = sum((o.double() * 1.5).sum() for o in outs
                if o.dtype.is_floating_point and o.requires_grad)
        if hasattr(s, "backward"):
            s.backward()
        got.append([o.detach().numpy() for o in outs]
                   + [t.grad.numpy() if t.grad is not None else np.zeros(1) for t in (a, b, c)])
    assert len(got[0]) == len(got[1])
    for x, y in zip(*got):
        assert x.shape == y.shape
        np.testing.assert_allclose(x, y, rtol=1e-10, atol=1e-12, equal_nan=True)


def test_in_place_forms_and_bitwise_operators():
    got = []
    for m in (nbgrad, torch):
        t = m.zeros(3)
        t.addcmul_(m.ones(3) * 2, m.ones(3) * 3, value=0.5).addcdiv_(
            m.ones(3), m.ones(3) * 4, value=-1).lerp_(m.ones(3), 0.5)
        a, b = m.tensor([True, False, True]), m.tensor([True, True, False])
        i, j = m.tensor([6, 3, -4]), m.tensor([3, 5, 1])
        got.append([t.tolist(), (a & b).tolist(), (a | b).tolist(), (a ^ b).tolist(),
                    (~a).tolist(), (a & True).tolist(), (i & j).tolist(), (i | 1).tolist(),
                    (i ^ j).tolist(), (3 & i).tolist(), (~i).tolist(),
                    m.logical_xor(a, b).tolist(), m.bitwise_and(i, j).tolist(),
                    # (0-d operands give a 0-d result)
                    [tuple((a[0] | b[1]).shape), tuple((i[0] ^ 1).shape),
                     tuple((i[0] << j[0]).shape), (a[0] & b[0]).item()]])
    assert got[0] == got[1]
    assert error_of(lambda: ~nbgrad.ones(1)) == error_of(lambda: ~torch.ones(1))


def test_finite_differences():
    a = nbgrad.tensor(A, requires_grad=True)
    b = nbgrad.tensor(B, requires_grad=True)
    for f, xs in [(lambda x, y: nbgrad.addmm(x[:, :1] * 1.0, x, y, beta=0.5), (a, b)),
                  (lambda x: nbgrad.logaddexp(x, x.flip(1)), (a,)),
                  (lambda x: nbgrad.cross(x[:, :3], x[:, 1:], dim=1), (a,)),
                  (lambda x, y: nbgrad.tensordot(x, y, 1), (a, b)),
                  (lambda x: nbgrad.cdist(x, x.flip(0) + 0.1), (a,)),
                  (lambda x: nbgrad.sinc(x), (a,)), (lambda x: nbgrad.kron(x[:2, :2], x), (a,))]:
        assert gradcheck(f, xs) and gradgradcheck(f, xs)


def test_docstring_examples_run():
    from nbgrad.ops import compound

    res = doctest.testmod(compound, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert res.attempted and not res.failed


_MORE = [
    lambda m, x: m.trace(x),
    lambda m, x: x.trace() * 2,
    lambda m, x: m.positive(x) * 3,
    lambda m, x: m.true_divide(x, 2.5),
    lambda m, x: x.true_divide(x + 3),
    lambda m, x: m.deg2rad(x),
    lambda m, x: x.rad2deg(),
    lambda m, x: m.float_power(x, 2),
    lambda m, x: m.float_power(x.abs() + 0.5, x),
    lambda m, x: m.cartesian_prod(x[0], x[1, :2]),
    lambda m, x: m.combinations(x[0]),
    lambda m, x: m.combinations(x[1], r=3, with_replacement=True),
    lambda m, x: m.block_diag(x, x[0], x[1, 1], x[:2, :1]),
]


@pytest.mark.parametrize("k", range(len(_MORE)))
def test_more_composites_values_and_gradients_match_torch(k):
    x = np.random.default_rng(k).standard_normal((3, 3))
    a, ta = nbgrad.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    y, ty = _MORE[k](nbgrad, a), _MORE[k](torch, ta)
    assert str(y.dtype).split(".")[-1] == str(ty.dtype).split(".")[-1]
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-12)
    w = np.random.default_rng(9).standard_normal(tuple(ty.shape))
    (y * nbgrad.tensor(w)).sum().backward()
    (ty * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy(), rtol=1e-12, atol=1e-15)


def test_tests_of_signs_and_index_creations_match_torch():
    v = [-0.0, 0.0, -2.0, 3.0, float("inf"), -float("inf"), float("nan")]
    for f in (lambda m: m.signbit(m.tensor(v)), lambda m: m.isneginf(m.tensor(v)),
              lambda m: m.isposinf(m.tensor(v)), lambda m: m.signbit(m.tensor([-1, 2])),
              lambda m: m.isneginf(m.tensor([1, 2])), lambda m: m.triu_indices(3, 3),
              lambda m: m.tril_indices(3, 4, offset=1), lambda m: m.triu_indices(4, 2, -1),
              lambda m: m.logspace(0, 2, 3), lambda m: m.logspace(0, 2, 3, base=2,
                                                                dtype=m.float64),
              lambda m: m.logspace(-1, 1, 5, dtype=m.float64),
              lambda m: m.deg2rad(m.tensor([180])), lambda m: m.trace(m.tensor([[1, 2], [3, 4]])),
              lambda m: m.block_diag(m.tensor(5), m.tensor([1, 2]), m.ones(1, 1, dtype=m.float64)),
              lambda m: m.cartesian_prod(m.tensor([1, 2])),
              lambda m: m.combinations(m.tensor([1, 2]), r=3)):
        got, want = f(nbgrad), f(torch)
        assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
        assert tuple(got.shape) == tuple(want.shape)
        np.testing.assert_allclose(got.double().numpy(), want.double().numpy(), rtol=1e-6)
    for m in (nbgrad, torch):
        with pytest.raises(RuntimeError, match="trace: expected a matrix"):
            m.trace(m.ones(2, 2, 2))
        with pytest.raises(RuntimeError, match="on a bool tensor is not supported"):
            m.positive(m.tensor([True]))
