"""Rounding, division with a rounding mode, remainder and the in-place unary methods: special
values bit for bit (the sign of a zero, inf, nan), the nodes PyTorch records, its errors.

Values and gradients on ordinary inputs are rows of tests/test_ops.py's table; here are the
edges, each against PyTorch where it is installed and against fixed expectations always.
"""

import math

import numpy as np
import pytest
from _errors import error_of

import nbgrad

try:
    import torch
except ImportError:  # the fixed expectations below still run
    torch = None

SPECIAL = [5.0, -7.0, 3.5, -0.0, 0.0, math.inf, -math.inf, math.nan, 1e300, -2.5, 2.5, 0.5,
           -0.5, 1.5, -0.4, 6.0, -6.0, 4503599627370495.5, 8388607.5, -8388608.5, 1e20]


def _same_bits(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype
    both_nan = np.isnan(got) & np.isnan(want) if got.dtype.kind == "f" else False
    equal = (got == want) & (np.signbit(got) == np.signbit(want))
    bad = ~(equal | both_nan)
    assert not bad.any(), list(zip(got[bad], want[bad]))[:5]


def test_rounding_of_special_values():
    x = nbgrad.tensor([-0.5, 0.5, -2.5, 2.5, 1.5, -0.0, math.inf, -math.inf, math.nan, -1.7, 1e300],
                     dtype=nbgrad.float64)
    nan, inf = math.nan, math.inf
    _same_bits(nbgrad.floor(x).numpy(), np.array(
        [-1, 0, -3, 2, 1, -0.0, inf, -inf, nan, -2, 1e300], np.float64))
    _same_bits(nbgrad.ceil(x).numpy(), np.array(
        [-0.0, 1, -2, 3, 2, -0.0, inf, -inf, nan, -1, 1e300], np.float64))
    _same_bits(nbgrad.trunc(x).numpy(), np.array(
        [-0.0, 0, -2, 2, 1, -0.0, inf, -inf, nan, -1, 1e300], np.float64))
    # halves to even
    _same_bits(nbgrad.round(x).numpy(), np.array(
        [-0.0, 0, -2, 2, 2, -0.0, inf, -inf, nan, -2, 1e300], np.float64))
    f = nbgrad.frac(nbgrad.tensor([-1.25, 2.5, -0.0], dtype=nbgrad.float64)).numpy()
    _same_bits(f, np.array([-0.25, 0.5, 0.0]))  # (-0.0 - -0.0 is +0.0, in PyTorch too)


@pytest.mark.skipif(torch is None, reason="needs torch")
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_special_values_bit_for_bit_as_pytorch(dtype):
    v = np.array(SPECIAL, np.float64)
    if dtype == "float32":
        v = np.where(np.abs(v) > 3e38, np.copysign(np.inf, v), v).astype(dtype)
    a, b = (x.ravel() for x in np.meshgrid(v, v))
    for name in ("floor", "ceil", "trunc", "round", "frac"):
        _same_bits(getattr(nbgrad, name)(nbgrad.tensor(v)).numpy(),
                   getattr(torch, name)(torch.from_numpy(v)).numpy())
    na, nb, ta, tb = nbgrad.tensor(a), nbgrad.tensor(b), torch.from_numpy(a), torch.from_numpy(b)
    _same_bits((na // nb).numpy(), (ta // tb).numpy())
    _same_bits((na % nb).numpy(), (ta % tb).numpy())
    _same_bits(nbgrad.div(na, nb, rounding_mode="trunc").numpy(),
               torch.div(ta, tb, rounding_mode="trunc").numpy())
    _same_bits(nbgrad.div(na, nb, rounding_mode="floor").numpy(),
               torch.div(ta, tb, rounding_mode="floor").numpy())


INTS = np.array([7, -7, 5, -5, 0, 1, -1, 2**62, 2**63 - 1, -(2**63) + 1], np.int64)


def test_integer_division_and_remainder():
    a, b = (x.ravel() for x in np.meshgrid(INTS, INTS[INTS != 0]))
    na, nb = nbgrad.tensor(a), nbgrad.tensor(b)
    floor = (na // nb).numpy()
    assert floor.dtype == np.int64
    np.testing.assert_array_equal(floor, [x // y for x, y in zip(a.tolist(), b.tolist())])
    np.testing.assert_array_equal((na % nb).numpy(),
                                  [x % y for x, y in zip(a.tolist(), b.tolist())])
    trunc = nbgrad.div(na, nb, rounding_mode="trunc").numpy()
    want = [abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1) for x, y in
            zip(a.tolist(), b.tolist())]
    np.testing.assert_array_equal(trunc, want)  # exact: no float quotient in between
    if torch is not None:
        np.testing.assert_array_equal(
            trunc, torch.div(torch.from_numpy(a), torch.from_numpy(b), rounding_mode="trunc"))
    # integers pass through the rounding ops, keeping their dtype
    for name in ("floor", "ceil", "trunc", "round"):
        r = getattr(nbgrad, name)(nbgrad.tensor(INTS))
        assert r.dtype is nbgrad.int64 and r.tolist() == INTS.tolist()


def test_result_dtypes_follow_promotion():
    i = nbgrad.tensor([5, 3])
    assert (i // 2).dtype is nbgrad.int64 and (i // 2).tolist() == [2, 1]
    assert (i // 2.5).dtype is nbgrad.float32 and (i % 2.5).tolist() == [0.0, 0.5]
    assert (7 // i).tolist() == [1, 2] and (7.5 % i).tolist() == [2.5, 1.5]
    assert (nbgrad.tensor([5], dtype=nbgrad.int32) // nbgrad.tensor([2])).dtype is nbgrad.int64
    assert (nbgrad.tensor([5], dtype=nbgrad.int32) // 2).dtype is nbgrad.int32



ERRORS = [
    (lambda m: m.tensor([5, 3]) // m.tensor([2, 0]), RuntimeError, "ZeroDivisionError"),
    (lambda m: m.tensor([5, 3]) % 0, RuntimeError, "ZeroDivisionError"),
    (lambda m: m.div(m.tensor([5]), 0, rounding_mode="trunc"), RuntimeError,
     "ZeroDivisionError"),
    (lambda m: m.tensor([True]) // m.tensor([True]), NotImplementedError,
     '"div_floor_cpu" not implemented for \'Bool\''),
    (lambda m: m.tensor([True]) % m.tensor([True]), NotImplementedError,
     '"remainder_cpu" not implemented for \'Bool\''),
    (lambda m: m.div(m.tensor([1.0]), 2, rounding_mode="bad"), RuntimeError,
     "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found 'bad'"),
    (lambda m: m.floor(m.tensor([True])), NotImplementedError,
     '"floor_vml_cpu" not implemented for \'Bool\''),
    (lambda m: m.frac(m.tensor([1, 2])), NotImplementedError,
     '"frac_cpu" not implemented for \'Long\''),
    (lambda m: m.frac(m.tensor([1, 2], dtype=m.int32)), NotImplementedError,
     '"frac_cpu" not implemented for \'Int\''),
    (lambda m: m.round(m.tensor([1, 2]), decimals=2), NotImplementedError,
     '"round_cpu" not implemented for \'Long\''),
    (lambda m: m.relu(m.tensor([True])), RuntimeError, "Boolean inputs not supported for relu"),
    (lambda m: m.abs(m.tensor([True])), NotImplementedError,
     '"abs_cpu" not implemented for \'Bool\''),
    (lambda m: m.tensor([5, 6]).__ifloordiv__(2.5), RuntimeError,
     "result type Float can't be cast to the desired output type Long"),
    (lambda m: m.tensor([5, 6]).exp_(), RuntimeError,
     "result type Float can't be cast to the desired output type Long"),
    (lambda m: m.tensor([True]).sqrt_(), RuntimeError,
     "result type Float can't be cast to the desired output type Bool"),
    (lambda m: m.tensor([1.0], requires_grad=True).floor_(), RuntimeError,
     "a leaf Variable that requires grad is being used in an in-place operation."),
]


@pytest.mark.parametrize("call,exc,message", ERRORS)
def test_errors_are_pytorchs(call, exc, message):
    with pytest.raises(exc) as info:
        call(nbgrad)
    assert str(info.value) == message
    if torch is not None:
        assert error_of(lambda: call(torch)) == (exc, message)


def test_floor_divide_has_no_derivative():
    a = nbgrad.tensor([5.0, -7.0], requires_grad=True)
    for r, op in ((a // 2, "floor_divide"), (a.floor_divide(a), "floor_divide"),
                  (3.0 % a, "remainder")):
        assert r.requires_grad and type(r.grad_fn).__name__ == "NotImplemented"
        with pytest.raises(RuntimeError, match=f"derivative for aten::{op} is not implemented"):
            r.sum().backward()


def test_nodes_and_gradients_of_the_differentiable_rows():
    a = nbgrad.tensor([5.0, -7.0, 3.5], requires_grad=True)
    b = nbgrad.tensor([2.0, 2.0, -1.5], requires_grad=True)
    cases = [(a % b, "RemainderBackward1", [1, 1, 1], [-2, 4, 3]),
             (a % 3, "RemainderBackward0", [1, 1, 1], None),
             (a.div(b, rounding_mode="floor"), "DivBackward2", [0, 0, 0], [0, 0, 0]),
             (nbgrad.div(a, b, rounding_mode="trunc"), "DivBackward2", [0, 0, 0], [0, 0, 0]),
             (a.floor(), "FloorBackward0", [0, 0, 0], None),
             (a.round(decimals=1), "RoundBackward1", [0, 0, 0], None),
             (a.frac(), "FracBackward0", [1, 1, 1], None)]
    for r, node, ga, gb in cases:
        assert type(r.grad_fn).__name__ == node
        got = nbgrad.autograd.grad(r.sum(), (a, b), allow_unused=True)
        assert got[0].tolist() == ga
        assert (got[1] is None) if gb is None else got[1].tolist() == gb
    # remainder's gradient for its divisor is differentiable again (zero)
    g = nbgrad.autograd.grad((a % b).sum(), b, create_graph=True)[0]
    assert g.requires_grad and nbgrad.autograd.grad(g.sum(), b)[0].tolist() == [0, 0, 0]


def test_operators_in_place():
    t = nbgrad.tensor([5.0, -6.0])
    v = t._version
    t //= 2
    assert t.tolist() == [2.0, -3.0] and t._version == v + 1
    t %= 2
    assert t.tolist() == [0.0, 1.0]
    i = nbgrad.tensor([7, -7])
    i.floor_divide_(2)
    assert i.tolist() == [3, -4] and i.dtype is nbgrad.int64
    i.remainder_(3)
    assert i.tolist() == [0, 2]


UNARY_INPLACE = ["neg", "reciprocal", "exp", "log", "sqrt", "abs", "sign", "tanh", "sigmoid",
                 "relu", "log1p", "expm1", "rsqrt", "sin", "cos", "tan", "erf", "floor",
                 "ceil", "trunc", "round", "frac"]


@pytest.mark.parametrize("name", UNARY_INPLACE)
def test_unary_in_place_methods(name):
    v = np.array([0.3, 1.7, 2.5, 0.9])
    x = nbgrad.tensor(v, requires_grad=True)
    y = x * 1.5
    version = y._version
    out = getattr(y, name + "_")()
    assert out is y and y._version == version + 1
    want = getattr(nbgrad, name)(nbgrad.tensor(v * 1.5))
    np.testing.assert_array_equal(y.detach().numpy(), want.numpy())
    assert type(y.grad_fn).__name__ == type(getattr(nbgrad, name)(x).grad_fn).__name__
    (y * y).sum().backward()
    if torch is not None:
        tx = torch.tensor(v, requires_grad=True)
        ty = getattr(tx * 1.5, name + "_")()
        (ty * ty).sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12)
        assert type(y.grad_fn).__name__ == type(ty.grad_fn).__name__
    # and without a graph, straight into the storage
    z = nbgrad.tensor(v * 1.5)
    getattr(z, name + "_")()
    np.testing.assert_array_equal(z.numpy(), want.numpy())


def test_compiled_functions_with_rounding_and_division():
    def f(x, y):
        return ((x % y) * x.floor() + x.frac() + x.div(y, rounding_mode="trunc")).sum()

    cf = nbgrad.compile(f)
    v = np.linspace(-3, 3, 12)
    for _ in range(2):  # the traced call, then a compiled one
        got, want = [], []
        for fn, out in ((cf, got), (f, want)):
            x = nbgrad.tensor(v, requires_grad=True)
            y = nbgrad.tensor(np.full(12, 1.3), requires_grad=True)
            r = fn(x, y)
            out += [r.detach().numpy()] + [g.numpy() for g in nbgrad.autograd.grad(r, (x, y))]
        for a, b in zip(got, want):
            np.testing.assert_array_equal(a, b)
    # floor_divide has no derivative: the compiled call runs, its backward raises as eager's
    g = nbgrad.compile(lambda x: (x // 2 + x * x).sum())
    for _ in range(2):
        x = nbgrad.tensor([1.0, 5.0], requires_grad=True)
        r = g(x)
        assert r.item() == 28.0
        with pytest.raises(RuntimeError, match="derivative for aten::floor_divide"):
            r.backward()
    # an integer divisor of zero is caught in compiled calls too (the check reads values)
    h = nbgrad.compile(lambda x, y: (x // y) * 2 + x % y)
    x = nbgrad.tensor([5, 7, -3])
    assert h(x, nbgrad.tensor([2, 3, 2])).tolist() == [5, 5, -3]
    assert h(x, nbgrad.tensor([2, 3, 4])).tolist() == [5, 5, -1]
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        h(x, nbgrad.tensor([2, 0, 4]))
