"""nbgrad.compiler.fuse: elementwise programs fused into one generated kernel equal eager's
results bit for bit (same rows, same dtypes, same per-element bodies)."""

import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import nbgrad
from nbgrad.compiler import FusedKernel, Program
from nbgrad.kernels.cpu import _par
from nbgrad.ops.opdef import TABLE

ROWS = [op for op in TABLE.values() if op.body is not None]
DTYPES = [nbgrad.float32, nbgrad.float64, nbgrad.int64, nbgrad.bool]
N = 37


def _array(rng, dt, n):
    if dt is nbgrad.bool:
        return rng.random(n) < 0.5
    if dt is nbgrad.int64:
        return rng.integers(-4, 5, n).astype(np.int64)
    return (rng.standard_normal(n) * 2).astype(dt.np)


def _eager(op, args):
    with nbgrad.no_grad():
        return op(*args)


@st.composite
def programs(draw):
    """A random program, its operands (in input order) and its eager outputs."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    p = Program()
    values = []  # (Ref, eager value, full: has the program's shape)
    for _ in range(draw(st.integers(1, 3))):
        dt = draw(st.sampled_from(DTYPES))
        values.append((p.input(dt), nbgrad.from_numpy(_array(rng, dt, N)), True))
    for _ in range(draw(st.integers(0, 2))):
        kind = draw(st.sampled_from(["number", "value", "0-dim"]))
        if kind == "number":
            x = draw(st.sampled_from([0.5, -2.0, 3, -1, True, 1e-3]))
            values.append((p.number(type(x)), x, False))
        else:
            dt = draw(st.sampled_from(DTYPES))
            a = _array(rng, dt, 1)
            t = nbgrad.from_numpy(a if kind == "value" else a.reshape(()))
            values.append((p.input(dt, value=True, dim=kind == "value"), t, False))
    full_steps = []
    for _ in range(draw(st.integers(1, 8))):
        op = draw(st.sampled_from(ROWS))
        tensors = [i for i, v in enumerate(values) if v[0].dtype is not None]
        first = draw(st.sampled_from([i for i in tensors if values[i][2]] or tensors))
        args = [first]
        if op.arity == 2:
            other = draw(st.integers(0, len(values) - 1))
            args = [first, other] if draw(st.booleans()) else [other, first]
        try:
            out = _eager(op, [values[i][1] for i in args])
        except (TypeError, ValueError, RuntimeError, ArithmeticError):
            continue  # eager refuses these operands (e.g. neg of a bool): not a program
        ref = p.apply(op, *[values[i][0] for i in args])
        assert ref.dtype is out.dtype, (op.name, ref.dtype, out.dtype)
        full = any(values[i][2] for i in args)
        values.append((ref, out, full))
        if full:
            full_steps.append(len(values) - 1)
    if not full_steps:
        op = TABLE["add"]
        values.append((p.apply(op, values[0][0], values[0][0]),
                       _eager(op, [values[0][1], values[0][1]]), True))
        full_steps.append(len(values) - 1)
    outs = sorted({full_steps[-1], draw(st.sampled_from(full_steps))})
    for i in outs:
        p.output(values[i][0])
    operands = [v[1] if not isinstance(v[1], nbgrad.Tensor) else v[1].numpy()
                for v in values if v[0].step is None]
    return p, operands, [values[i][1].numpy() for i in outs]


def _check(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        assert g.shape == w.shape
        np.testing.assert_array_equal(g, w)  # NaNs in the same places count as equal


@settings(max_examples=30, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_random_programs_equal_eager_bit_for_bit(case):
    p, operands, want = case
    _check(p.kernel()(*operands), want)


@settings(max_examples=6, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(case=programs())
def test_parallel_loop_equals_eager(case):
    p, operands, want = case
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_par, "PARALLEL_MIN", 1)  # every call takes the parallel loop
        _check(p.kernel()(*operands), want)


def _tanh_mul_program():
    p = Program()
    x, s = p.input(nbgrad.float32), p.number(float)
    p.output(p.apply("tanh", p.apply("mul", x, s)))
    return p


def test_numbers_are_arguments_not_constants():
    p = _tanh_mul_program()
    k = p.kernel()
    x = np.linspace(-2, 2, 11, dtype=np.float32)
    for s in (0.5, 2.0, -3.25):
        (got,) = k(x, s)
        want = nbgrad.tanh(nbgrad.from_numpy(x) * s).numpy()
        np.testing.assert_array_equal(got, want)
    assert len(k._kernels[0].signatures) == 1  # one compile for every value
    assert _tanh_mul_program().kernel() is k  # one kernel per program in the process


def test_the_source_casts_as_eager_stores():
    p = Program()
    i, f = p.input(nbgrad.int64), p.input(nbgrad.float32)
    p.output(p.apply("exp", p.apply("add", i, f)))
    src = p.source()[0]
    # (the int64 operand cast to float32; the float32 ones, already of it, are not)
    assert "t0 = np.float32(f0(np.float32(v0), v1))" in src
    assert "t1 = np.float32(f1(t0))" in src
    assert "prange" in src
    ints = np.arange(-3, 4)
    floats = np.linspace(-1, 1, 7, dtype=np.float32)
    (got,) = p.kernel()(ints, floats)
    want = nbgrad.exp(nbgrad.from_numpy(ints) + nbgrad.from_numpy(floats)).numpy()
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, want)


def test_constants_are_written_into_the_source():
    p = Program()
    x = p.input(nbgrad.float32)
    p.output(p.apply("add", p.apply("mul", x, p.constant(-0.5)), p.constant(3)))
    src = p.source()[0]
    assert "np.float32(-0.5)" in src and "np.float32(3)" in src
    a = np.linspace(-2, 2, 9, dtype=np.float32)
    (got,) = p.kernel()(a)
    np.testing.assert_array_equal(got, (nbgrad.from_numpy(a) * -0.5 + 3).numpy())
    q = Program()
    y = q.input(nbgrad.float32)
    q.output(q.apply("add", q.apply("mul", y, q.constant(-0.25)), q.constant(3)))
    assert q.key() != p.key()
    for bad in (1j, "2", 2**63):
        with pytest.raises(TypeError, match="a constant is a bool, an int64 or a float"):
            p.constant(bad)
    r = Program()
    z = r.input(nbgrad.float64)
    r.output(r.apply("add", r.apply("mul", z, r.constant(float("inf"))), r.constant(float("nan"))))
    r.output(r.apply("mul", z, r.constant(float("-inf"))))
    b = np.array([-1.0, 0.0, 2.0])
    Z = nbgrad.from_numpy(b)
    _check(r.kernel()(b), [(Z * float("inf") + float("nan")).numpy(), (Z * float("-inf")).numpy()])


def test_cast_converts_as_to_dtype():
    p = Program()
    x = p.input(nbgrad.float32)
    d = p.cast(x, nbgrad.float64)
    assert d.dtype is nbgrad.float64
    p.output(p.apply("exp", d))
    p.output(p.cast(p.apply("mul", d, p.constant(1e30)), nbgrad.float32))
    a = np.linspace(-20, 20, 9, dtype=np.float32)
    got = p.kernel()(a)
    X = nbgrad.from_numpy(a).to(nbgrad.float64)
    _check(got, [X.exp().numpy(), (X * 1e30).to(nbgrad.float32).numpy()])
    with pytest.raises(TypeError, match="cast of a number"):
        p.cast(p.number(float), nbgrad.float32)


def test_big_inputs_and_many_outputs():
    p = Program()
    x, y = p.input(nbgrad.float32), p.input(nbgrad.float32)
    t = p.apply("tanh", p.apply("add", p.apply("mul", x, y), y))
    u = p.apply("mul", t, p.apply("sigmoid", x))
    p.output(p.apply("add", u, p.apply("exp", p.apply("neg", p.apply("mul", x, x)))))
    p.output(t)
    p.output(p.apply("lt", x, y))
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal((3, 100_000)).astype(np.float32) for _ in range(2))
    got = p.kernel()(a, b)  # 300,000 elements: the parallel loop
    X, Y = nbgrad.from_numpy(a), nbgrad.from_numpy(b)
    T = nbgrad.tanh(X * Y + Y)
    want = [(T * nbgrad.sigmoid(X) + nbgrad.exp(-(X * X))).numpy(), T.numpy(), (X < Y).numpy()]
    _check(got, want)


def test_an_expanded_value_operand_is_read_in_place():
    p = _tanh_mul_program()
    x = np.broadcast_to(np.float32(0.75), (3, 5))
    (got,) = p.kernel()(x, 2.0)
    np.testing.assert_array_equal(got, nbgrad.tanh(nbgrad.from_numpy(x.copy()) * 2.0).numpy())
    assert got.shape == (3, 5) and got.flags.c_contiguous


def test_empty_inputs():
    (got,) = _tanh_mul_program().kernel()(np.zeros((0, 3), np.float32), 1.0)
    assert got.shape == (0, 3) and got.dtype == np.float32


def test_bad_programs_and_operands_say_what_is_wrong():
    p = Program()
    x = p.input(nbgrad.float32)
    with pytest.raises(ValueError, match="mul takes 2 operands, got 1"):
        p.apply("mul", x)
    with pytest.raises(TypeError, match="operands are values of this program"):
        p.apply("mul", x, 2.0)
    s = p.number(float)
    with pytest.raises(TypeError, match="tanh of a number"):
        p.apply("tanh", s)
    with pytest.raises(TypeError, match="mul of two numbers"):
        p.apply("mul", s, s)
    with pytest.raises(TypeError, match="a bool, int or float, got complex"):
        p.number(complex)
    with pytest.raises(ValueError, match="the value of a step"):
        p.output(x)
    with pytest.raises(ValueError, match="a program without outputs has no kernel"):
        p.kernel()
    with pytest.raises(KeyError):
        p.apply("no_such_op", x)
    p.output(p.apply("add", x, s))
    k = p.kernel()
    with pytest.raises(TypeError, match="takes 2 operands, got 1"):
        k(np.zeros(3, np.float32))
    with pytest.raises(TypeError, match="operand 0 is an array of float32, got float64"):
        k(np.zeros(3), 1.0)
    with pytest.raises(TypeError, match="operand 0 is an array of float32, got list"):
        k([1.0], 1.0)
    with pytest.raises(TypeError, match="operand 1 is a number input, got ndarray"):
        k(np.zeros(3, np.float32), np.zeros(3))
    q = Program()
    a, b, v = q.input(nbgrad.float32), q.input(nbgrad.float32), q.input(nbgrad.float32, True)
    q.output(q.apply("add", q.apply("add", a, b), v))
    with pytest.raises(ValueError, match=r"one shape, got \(3,\) and \(4,\)"):
        q.kernel()(np.zeros(3, np.float32), np.zeros(4, np.float32), np.ones(1, np.float32))
    with pytest.raises(ValueError, match="holds one element, got 2"):
        q.kernel()(np.zeros(3, np.float32), np.zeros(3, np.float32), np.ones(2, np.float32))


def test_a_row_defined_outside_nbgrad_compiles_from_memory():
    # a body defined here, in a test, is not importable by name: no generated module
    from numba import njit

    from nbgrad.ops.opdef import OpDef

    @njit(inline="always")
    def cube(a):
        return a * a * a

    op = OpDef("fuse_test_cube", cube, fn=False, method=False)
    p = Program()
    x = p.input(nbgrad.float64)
    p.output(p.apply(op, p.apply("sin", x)))
    a = np.linspace(-3, 3, 9)
    (got,) = p.kernel()(a)
    with nbgrad.no_grad():
        want = op(nbgrad.sin(nbgrad.from_numpy(a)))
    np.testing.assert_array_equal(got, want.numpy())


_SECOND_PROCESS = """
import numpy as np, nbgrad
from nbgrad.compiler import Program
p = Program()
x, s = p.input(nbgrad.float32), p.number(float)
p.output(p.apply("tanh", p.apply("mul", x, s)))
k = p.kernel()
(y,) = k(np.ones(4, np.float32), 0.5)
eager = nbgrad.tanh(nbgrad.ones(4) * 0.5)
print(sum(k._kernels[0].stats.cache_hits.values()), float(y[0]), float(eager[0]))
"""


@pytest.mark.slow
def test_a_second_process_loads_the_kernel_from_the_disk_cache(tmp_path):
    env = dict(os.environ, NBGRAD_CACHE="1", NBGRAD_CACHE_DIR=str(tmp_path / "nb"),
               NUMBA_CACHE_DIR=str(tmp_path / "numba"))
    runs = [subprocess.run([sys.executable, "-c", _SECOND_PROCESS], env=env,
                           capture_output=True, text=True, timeout=300) for _ in range(2)]
    for r in runs:
        assert r.returncode == 0, r.stderr
    first, second = (r.stdout.split() for r in runs)
    assert first[0] == "0" and int(second[0]) >= 1  # compiled, then loaded
    assert first[1] == second[1] == first[2]  # eager's value
    assert len(list((tmp_path / "nb").glob("*/nbgrad_fused_*.py"))) == 1


def test_fused_kernel_is_exported():
    assert isinstance(_tanh_mul_program().kernel(), FusedKernel)


@pytest.mark.parametrize("dtype", [nbgrad.float32, nbgrad.float64])
def test_a_summed_output_equals_eager_sum_bit_for_bit(dtype):
    # blocks of 256 and parallel chunks of 4096, as eager's sum: sizes around both, and one
    # above NBGRAD_PARALLEL_MIN (the parallel loop)
    p = Program()
    x, w = p.input(dtype), p.input(dtype)
    t = p.apply("tanh", p.apply("mul", x, w))
    p.output(t)
    p.sum_output(t)
    k = p.kernel()
    rng = np.random.default_rng(3)
    for n in (0, 1, 255, 256, 257, 4097, 200_003):
        a, b = (rng.standard_normal(n).astype(dtype.np) for _ in range(2))
        vals, tot = k(a, b)
        want = nbgrad.tanh(nbgrad.from_numpy(a) * nbgrad.from_numpy(b))
        np.testing.assert_array_equal(vals, want.numpy())
        assert tot.shape == () and tot.dtype == dtype.np
        assert tot == want.sum().numpy()
    with pytest.raises(ValueError, match="summed output is a floating step"):
        Program().sum_output(p.input(dtype))
    with pytest.raises(ValueError, match="reads operands of the region's shape"):
        k(np.ones((3, 4), dtype.np), np.ones(4, dtype.np), shape=(3, 4))
