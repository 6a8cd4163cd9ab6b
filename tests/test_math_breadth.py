"""PyTorch names nbgrad had not (issue #16): log10 log2, the comparison and arithmetic
second names and their in-place forms, inner vdot dist copysign heaviside ldexp renorm
logcumsumexp cov corrcoef diag_embed diagflat matrix_power logdet gcd lcm frexp nextafter
hardshrink softshrink, and small Tensor methods; values, dtypes, gradients and errors
against PyTorch."""

import numpy as np
import pytest

import nbgrad
from nbgrad.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

_R = np.random.default_rng(3)
_A = _R.standard_normal((3, 4))
_B = _R.standard_normal((3, 4))
_V = _R.standard_normal(4)
_M = _R.standard_normal((3, 3)) + 3 * np.eye(3)
_I = np.array([12, -18, 0, 7, 35])
_J = np.array([8, 12, 0, -21, 0])


def F(lib):
    return lib.nn.functional


# (name, fn(lib, *tensors), inputs, differentiable)
_CASES = [
    ("log10", lambda m, a: m.log10(a), [np.abs(_A) + 0.1], True),
    ("log2_method", lambda m, a: a.log2(), [np.abs(_A) + 0.1], True),
    ("greater", lambda m, a, b: m.greater(a, b), [_A, _B], False),
    ("less_equal_method", lambda m, a, b: a.less_equal(b), [_A, _B], False),
    ("not_equal", lambda m, a: m.not_equal(a, a.round()), [_A], False),
    ("absolute", lambda m, a: m.absolute(a), [_A], True),
    ("sgn", lambda m, a: a.sgn(), [_A], True),
    ("inner", lambda m, a, b: m.inner(a, b), [_A, _B], True),
    ("inner_0d", lambda m, a, b: m.inner(a, b.sum()), [_A, _B], True),
    ("vdot", lambda m, a, b: m.vdot(a, b), [_V, _V[::-1].copy()], True),
    ("dist", lambda m, a, b: m.dist(a, b), [_A, _B], True),
    ("dist_p3", lambda m, a, b: a.dist(b, 3), [_A, _B], True),
    ("copysign", lambda m, a, b: m.copysign(a, b), [_A, _B], True),
    ("copysign_number", lambda m, a: a.copysign(-0.0), [_A], True),
    ("copysign_int", lambda m, a, b: m.copysign(a.long(), b.long()), [_A * 3, _B * 3], False),
    # (non-negative exponents: PyTorch's gradient is 0 where one is negative, its
    # derivative computing 2 ** other in integers; ours is 2 ** other)
    ("ldexp", lambda m, a, b: m.ldexp(a, (b.abs() * 3).long()), [_A, _B], True),
    ("renorm", lambda m, a: m.renorm(a, 2, 0, 1.5), [_A], True),
    ("renorm_p1_dim1", lambda m, a: a.renorm(1, 1, 0.8), [_A], True),
    ("logcumsumexp", lambda m, a: m.logcumsumexp(a, 1), [_A], True),
    ("logcumsumexp_wide", lambda m, a: m.logcumsumexp(a * 400, 0), [_A], True),
    ("cov", lambda m, a: m.cov(a), [_A], True),
    ("cov_1d", lambda m, a: m.cov(a[0]), [_A], True),
    ("cov_weights", lambda m, a, w: m.cov(a, correction=0, fweights=m.tensor([1, 2, 1, 3]),
                                          aweights=w.abs().sum(0)), [_A, _B], True),
    ("corrcoef", lambda m, a: m.corrcoef(a), [_A], True),
    ("diag_embed", lambda m, a: m.diag_embed(a), [_A], True),
    ("diag_embed_offset", lambda m, a: m.diag_embed(a, -1, 0, 2), [_A], True),
    ("diagflat", lambda m, a: m.diagflat(a, 1), [_A[:2, :2]], True),
    ("matrix_power", lambda m, a: m.matrix_power(a, 5), [_M / 3], True),
    ("matrix_power_neg", lambda m, a: a.matrix_power(-2), [_M], True),
    ("matrix_power_0", lambda m, a: m.matrix_power(a, 0), [_M], False),
    ("logdet", lambda m, a: m.logdet(a), [_M], True),
    ("logdet_negative", lambda m, a: m.logdet(-a), [_M], False),
    ("hardshrink", lambda m, a: F(m).hardshrink(a, 0.3), [_A], True),
    ("softshrink", lambda m, a: F(m).softshrink(a), [_A], True),
    ("mvlgamma", lambda m, a: a.mvlgamma(2), [np.abs(_A) + 1], True),
    ("msort", lambda m, a: a.msort(), [_A], True),
    ("ravel", lambda m, a: a.t().ravel(), [_A], True),
    ("narrow_copy", lambda m, a: a.narrow_copy(1, 1, 2), [_A], True),
    ("sum_to_size", lambda m, a: a.sum_to_size(1, 4), [_A], True),
    ("split_with_sizes", lambda m, a: a.split_with_sizes([1, 3], 1)[1], [_A], True),
    ("heaviside", lambda m, a, b: m.heaviside(a.round(), b), [_A, _B], False),
    ("gcd", lambda m, a, b: m.gcd(a.long(), b.long()), [_I, _J], False),
    ("lcm", lambda m, a, b: a.long().lcm(b.long()), [_I, _J], False),
    ("nextafter", lambda m, a, b: m.nextafter(a, b), [_A, _B], False),
    ("frexp_mantissa", lambda m, a: m.frexp(a * 100)[0], [_A], False),
    ("frexp_exponent", lambda m, a: m.frexp(a * 100).exponent, [_A], False),
]


@pytest.mark.parametrize("name,fn,arrays,diff", [pytest.param(*c, id=c[0]) for c in _CASES])
def test_values_and_gradients_match_pytorch(name, fn, arrays, diff):
    ours = [nbgrad.tensor(a).requires_grad_(diff and a.dtype.kind == "f") for a in arrays]
    theirs = [torch.tensor(a).requires_grad_(diff and a.dtype.kind == "f") for a in arrays]
    got, want = fn(nbgrad, *ours), fn(torch, *theirs)
    assert str(got.dtype).split(".")[1] == str(want.dtype).split(".")[1]
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-12,
                               atol=1e-12)
    if not diff:
        return
    seed = np.random.default_rng(7).standard_normal(tuple(want.shape))
    ours = [t for t in ours if t.requires_grad]
    theirs = [t for t in theirs if t.requires_grad]
    # (an operand PyTorch gives a zero gradient, copysign's sign source, has none here)
    g_ours = nbgrad.autograd.grad(got, ours, nbgrad.tensor(seed), allow_unused=True)
    g_theirs = torch.autograd.grad(want, theirs, torch.tensor(seed), allow_unused=True)
    for a, b in zip(g_ours, g_theirs):
        b = np.zeros(0) if b is None else (b + 0).numpy()  # (+ 0: PyTorch's ZeroTensor)
        a = np.zeros_like(b) if a is None else a.numpy()
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    if name in ("renorm", "logcumsumexp", "cov_weights", "diag_embed_offset", "hardshrink",
                "copysign", "matrix_power_neg", "logdet"):
        assert gradcheck(lambda *xs: fn(nbgrad, *xs), ours)
        assert gradgradcheck(lambda *xs: fn(nbgrad, *xs), ours)


def test_in_place_second_names():
    a = _A.copy()
    for name, args in (("greater_", (0.1,)), ("eq_", (0.0,)),
                       ("logical_not_", ()), ("multiply_", (2.0,)), ("subtract_", (1.0,)),
                       ("divide_", (4.0,)), ("absolute_", ()), ("negative_", ()),
                       ("sgn_", ()), ("arccos_", ()), ("arctan_", ()), ("fix_", ()),
                       ("square_", ()), ("log10_", ()), ("copysign_", (-1.0,)),
                       ("logit_", ()), ("sinc_", ())):
        x, t = nbgrad.tensor(a / 4), torch.tensor(a / 4)
        assert getattr(x, name)(*args) is x
        getattr(t, name)(*args)
        np.testing.assert_allclose(x.numpy(), t.numpy(), rtol=1e-12, err_msg=name)
    x, t = nbgrad.tensor(_A), torch.tensor(_A)
    x.logical_and_(x > 0)
    t.logical_and_(t > 0)
    assert x.tolist() == t.tolist()
    for name in ("gcd_", "lcm_", "bitwise_and_", "bitwise_xor_"):
        x, t = nbgrad.tensor(_I), torch.tensor(_I)
        getattr(x, name)(nbgrad.tensor(_J))
        getattr(t, name)(torch.tensor(_J))
        assert x.tolist() == t.tolist(), name


def test_small_methods_and_errors():
    x = nbgrad.ones(2, 3)
    assert x.itemsize == 4 and x.nbytes == 24 and x.is_cpu and x.get_device() == -1
    assert x.is_signed() and not nbgrad.tensor([1], dtype=nbgrad.uint8).is_signed()
    assert not x.is_complex() and x.is_same_size(nbgrad.zeros(2, 3))
    assert nbgrad.tensor([0.5]).is_nonzero() and not nbgrad.zeros(1, 1).is_nonzero()
    for bad, msg in ((nbgrad.ones(2), "more than one value"), (nbgrad.ones(0), "no values")):
        with pytest.raises(RuntimeError, match=f"Boolean value of Tensor with {msg}"):
            bad.is_nonzero()
    cases = [
        (lambda m: m.inner(m.ones(2, 3), m.ones(2)), "inner\\(\\) the last dimension must match"),
        (lambda m: m.vdot(m.ones(2), m.ones(2).double()), "expected both vectors to have same"),
        (lambda m: m.renorm(m.ones(2, 3), 0, 0, 1.0), "non-positive-norm not supported"),
        (lambda m: m.matrix_power(m.ones(2, 3), 2), "A must be batches of square matrices"),
        (lambda m: m.diag_embed(m.ones(2, 3), 0, 1, 1), "diagonal dimensions cannot be "
                                                        "identical 1, 1"),
        (lambda m: m.cov(m.ones(2, 3, 4)), "expected input to have two or fewer dimensions"),
        (lambda m: m.heaviside(m.ones(1), m.ones(1).long()), "not yet implemented for tensors "
                                                             "with different dtypes"),
        (lambda m: m.gcd(m.ones(1), m.ones(1)), "\"gcd_cpu\" not implemented for 'Float'"),
        (lambda m: m.frexp(m.ones(1).long()), "only supports floating-point dtypes"),
        (lambda m: m.nn.functional.softshrink(m.ones(1), -1.0), "lambda must be in range"),
        (lambda m: m.logcumsumexp(m.tensor([1, 2]), 0), "not implemented for 'Long'"),
    ]
    for call, msg in cases:
        with pytest.raises(RuntimeError, match=msg):
            call(torch)
        with pytest.raises(RuntimeError, match=msg):
            call(nbgrad)
    assert repr(nbgrad.nn.Hardshrink(0.3)).startswith("Hardshrink(")
    y = nbgrad.nn.Softshrink()(nbgrad.tensor([float("nan"), 0.2, -0.7]))
    np.testing.assert_allclose(y.numpy(), [np.nan, 0.0, -0.2], rtol=1e-6)
