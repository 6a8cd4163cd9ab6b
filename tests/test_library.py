"""``nbgrad.library.defop``: user ops defined entirely here (plain ``@numba.njit`` kernels that
write into ``out``), dispatched through the same registry as the built-in ops."""

import os
import subprocess
import sys
import textwrap

import numba
import numpy as np
import pytest

import nbgrad
from nbgrad.autograd import gradcheck, gradgradcheck
from nbgrad.kernels.table import registered_ops
from nbgrad.library import CustomOp, defop


# ----- the ops -------------------------------------------------------------------------------
@numba.njit
def _softplus_cpu(x, out):
    for i in range(out.size):
        out[i] = max(x[i], 0.0) + np.log1p(np.exp(-abs(x[i])))


softplus = defop(
    "testlib::softplus",
    shape=lambda x: (x.shape, x.dtype),
    cpu=_softplus_cpu,
    backward=lambda g, x, out: (g * nbgrad.sigmoid(x),),
    flat=True,
)


@numba.njit
def _row_sum_cpu(x, out):
    for i in range(x.shape[0]):
        s = 0.0
        for j in range(x.shape[1]):
            s += x[i, j]
        out[i] = s


def _row_sum_shape(x):
    if x.ndim != 2:
        raise RuntimeError(f"row_sum expects a 2-d input, got {x.ndim}-d")
    return (x.shape[0],), x.dtype


row_sum = defop(
    "testlib::row_sum",
    shape=_row_sum_shape,
    cpu=_row_sum_cpu,  # flat=False: the kernel sees the (n, m) input and the (n,) output
    backward=lambda g, x, out: (g.unsqueeze(1).expand(*x.shape),),
)


@numba.njit
def _mul_exp_cpu(a, b, out):
    for i in range(out.size):
        out[i] = a[i] * np.exp(b[i])


def _same_shape(a, b):
    if tuple(a.shape) != tuple(b.shape):
        raise RuntimeError(f"mul_exp: shapes {list(a.shape)} and {list(b.shape)} differ")
    return a.shape, a.dtype


mul_exp = defop(
    "testlib::mul_exp",
    shape=_same_shape,
    cpu=_mul_exp_cpu,
    # uses the saved output: d/db (a e^b) = out
    backward=lambda g, a, b, out: (g * b.exp(), g * out),
    flat=True,
)


@numba.njit
def _pow_k_cpu(x, out, p=2.0):
    for i in range(out.size):
        out[i] = x[i] ** p


pow_k = defop(
    "testlib::pow_k",
    shape=lambda x, p=2.0: (x.shape, x.dtype),
    cpu=_pow_k_cpu,
    backward=lambda g, x, out, p=2.0: (g * p * x ** (p - 1),),
    flat=True,
    kernel_args=True,  # the keyword argument reaches the kernel
)


def rnd(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def N(a, rg=False, dtype=nbgrad.float64):
    return nbgrad.tensor(np.asarray(a, dtype=np.float64), dtype=dtype, requires_grad=rg)


def np_softplus(a):
    return np.logaddexp(0.0, a)


# ----- values --------------------------------------------------------------------------------
def test_values_match_numpy():
    a, b = rnd(3, 4, seed=1), rnd(3, 4, seed=2)
    y = softplus(N(a))
    assert isinstance(softplus, CustomOp) and y.shape == (3, 4) and y.dtype == nbgrad.float64
    np.testing.assert_allclose(y.numpy(), np_softplus(a), rtol=1e-14)
    np.testing.assert_allclose(row_sum(N(a)).numpy(), a.sum(1), rtol=1e-14)
    assert row_sum(N(a)).shape == (3,)
    np.testing.assert_allclose(mul_exp(N(a), N(b)).numpy(), a * np.exp(b), rtol=1e-14)
    np.testing.assert_allclose(pow_k(N(np.abs(a)), p=3.0).numpy(), np.abs(a) ** 3, rtol=1e-14)
    # stable at extreme inputs
    big = softplus(N([-1e4, 0.0, 1e4]))
    np.testing.assert_allclose(big.numpy(), [0.0, np.log(2.0), 1e4])


def test_float32_in_float32_out():
    a = rnd(5, seed=3).astype(np.float32)
    y = softplus(nbgrad.tensor(a))
    assert y.dtype == nbgrad.float32
    np.testing.assert_allclose(y.numpy(), np_softplus(a.astype(np.float64)), rtol=1e-6)
    r = row_sum(nbgrad.tensor(a.reshape(1, 5)))
    assert r.dtype == nbgrad.float32
    # inputs are cast to the output dtype decided by the shape rule
    m = mul_exp(nbgrad.tensor(a), nbgrad.tensor(a.astype(np.float64), dtype=nbgrad.float64))
    assert m.dtype == nbgrad.float32
    np.testing.assert_allclose(m.numpy(), a * np.exp(a), rtol=1e-6)


def test_non_contiguous_inputs():
    a = rnd(4, 3, seed=4)
    x = N(a)
    xt = x.t()  # (3, 4), a transposed view
    np.testing.assert_allclose(row_sum(xt).numpy(), a.T.sum(1), rtol=1e-14)
    np.testing.assert_allclose(softplus(xt).numpy(), np_softplus(a.T), rtol=1e-14)
    step = x[:, ::2]
    np.testing.assert_allclose(softplus(step).numpy(), np_softplus(a[:, ::2]), rtol=1e-14)
    np.testing.assert_allclose(mul_exp(xt, xt * 0.5).numpy(), a.T * np.exp(a.T / 2), rtol=1e-14)
    assert x.numpy().tolist() == a.tolist()  # the input is left untouched


# ----- autograd ------------------------------------------------------------------------------
def test_grad_fn_names_and_graph():
    x = N(rnd(2, 3), True)
    assert softplus(x).grad_fn.name() == "SoftplusBackward0"
    assert row_sum(x).grad_fn.name() == "RowSumBackward0"
    assert mul_exp(x, x).grad_fn.name() == "MulExpBackward0"
    assert pow_k(x).grad_fn.name() == "PowKBackward0"
    assert softplus(x).requires_grad and not softplus(x).is_leaf
    y = softplus(N(rnd(2)))
    assert not y.requires_grad and y.grad_fn is None
    with nbgrad.no_grad():
        assert softplus(x).grad_fn is None


def test_gradients_match_builtin_ops():
    a, b = rnd(2, 3, seed=5), rnd(2, 3, seed=6)
    x, y = N(a, True), N(b, True)
    (softplus(x) * row_sum(x).unsqueeze(1) + mul_exp(x, y)).sum().backward()
    x2, y2 = N(a, True), N(b, True)
    sp = (x2.exp() + 1).log()
    (sp * x2.sum(1, keepdim=True) + x2 * y2.exp()).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), x2.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(y.grad.numpy(), y2.grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize("name,fn,shapes", [
    ("softplus", softplus, [(2, 3)]),
    ("row_sum", row_sum, [(3, 2)]),
    ("mul_exp", mul_exp, [(2, 2), (2, 2)]),
    ("pow_k", lambda x: pow_k(x.abs() + 0.5, p=3.0), [(4,)]),
    ("composed", lambda x: row_sum(softplus(x) * x), [(2, 3)]),
])
def test_gradcheck_and_double_backward(name, fn, shapes):
    xs = tuple(N(rnd(*s, seed=10 + i), True) for i, s in enumerate(shapes))
    assert gradcheck(fn, xs)
    assert gradgradcheck(fn, xs)


def test_second_derivative_values():
    a = rnd(4, seed=7)
    x = N(a, True)
    (g,) = nbgrad.autograd.grad(softplus(x).sum(), x, create_graph=True)
    s = 1 / (1 + np.exp(-a))
    np.testing.assert_allclose(g.detach().numpy(), s, rtol=1e-12)
    (h,) = nbgrad.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(h.numpy(), s * (1 - s), rtol=1e-10)


def test_saved_input_version_check():
    x = N(rnd(3), True)
    h = x * 1.0
    y = softplus(h)
    with nbgrad.no_grad():
        h.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


# ----- registry and errors ---------------------------------------------------------------------
def test_registered_under_cpu():
    ops = registered_ops()
    for name in ("testlib::softplus", "testlib::row_sum", "testlib::mul_exp", "testlib::pow_k"):
        assert "cpu" in ops[name]
    assert ops["testlib::softplus"] == ["cpu"]
    assert "cpu" in ops["add"]  # the same registry as the built-in ops
    assert repr(softplus) == "<nbgrad op 'testlib::softplus' on cpu>"


def test_errors():
    with pytest.raises(TypeError, match="cpu must be an @njit function"):
        defop("testlib::bad", shape=lambda x: (x.shape, x.dtype), cpu=None, backward=None)
    with pytest.raises(TypeError, match="op 'testlib::softplus' needs at least one Tensor"):
        softplus(1.0)
    with pytest.raises(RuntimeError, match="row_sum expects a 2-d input, got 3-d"):
        row_sum(N(rnd(2, 2, 2)))
    with pytest.raises(RuntimeError, match=r"mul_exp: shapes \[2\] and \[3\] differ"):
        mul_exp(N(rnd(2)), N(rnd(3)))
    bad = defop("testlib::bad_backward", shape=lambda a, b: (a.shape, a.dtype), cpu=_mul_exp_cpu,
                backward=lambda g, a, b, out: (g,), flat=True)
    x = N(rnd(2), True)
    with pytest.raises(RuntimeError, match="backward of op 'testlib::bad_backward' returned 1 "
                                           "gradients for 2 inputs"):
        bad(x, x).sum().backward()


_CUDA_SCRIPT = textwrap.dedent("""
    import numba, numpy as np, nbgrad
    from nbgrad.library import defop

    @numba.njit
    def twice(x, out):
        for i in range(out.size):
            out[i] = 2 * x[i]

    op = defop("testlib::twice", shape=lambda x: (x.shape, x.dtype), cpu=twice,
               backward=lambda g, x, out: (2 * g,), flat=True)
    assert nbgrad.cuda.is_available()
    x = nbgrad.ones(3, device="cuda")
    try:
        op(x)
    except NotImplementedError as e:
        print("ERR", e)
    print("CPU", op(x.cpu()).tolist())
""")


def _check_missing_kernel_message(msg):
    assert "testlib::twice" in msg and "'cuda' backend" in msg and "only available for: cpu" in msg


def test_cuda_tensor_without_cuda_kernel():
    if nbgrad.cuda.is_available():
        ns = {}
        exec(_CUDA_SCRIPT.replace("print(\"ERR\", e)", "ns['err'] = str(e)"), {"ns": ns})
        _check_missing_kernel_message(ns["err"])
        return
    # no CUDA here: the backend itself is what is missing, and the error says so
    with pytest.raises(RuntimeError, match="(?i)cuda"):
        softplus(nbgrad.ones(3, device="cuda"))
    # Numba's simulator provides a 'cuda' device: then the op's missing kernel is reported
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    r = subprocess.run([sys.executable, "-c", _CUDA_SCRIPT], capture_output=True, text=True,
                       env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    err = [ln for ln in r.stdout.splitlines() if ln.startswith("ERR")]
    assert len(err) == 1, r.stdout
    _check_missing_kernel_message(err[0])
    assert "CPU [2.0, 2.0, 2.0]" in r.stdout


# ----- elementwise ops: an OpDef row, as nbgrad's own ---------------------------------------
@numba.njit
def _softsign(x):
    return x / (1 + abs(x))


@numba.njit
def _hypot_sq(a, b):
    return a * a + b * b


softsign = defop("testlib::softsign", body=_softsign, dtype="float",
                 grads=("div(grad, mul(add(abs(input), 1), add(abs(input), 1)))",))
hypot_sq = defop("testlib::hypot_sq", body=_hypot_sq,
                 grads=("mul(grad, mul(input, 2))", "mul(grad, mul(other, 2))"))


def test_elementwise_user_ops_values_grads_and_names():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    a0, b0 = rng.standard_normal((3, 4)), rng.standard_normal(4)
    a = nbgrad.tensor(a0, requires_grad=True)
    b = nbgrad.tensor(b0, requires_grad=True)
    y = softsign(a)
    np.testing.assert_allclose(y.detach().numpy(), torch.nn.functional.softsign(torch.tensor(a0)).numpy(),
                               rtol=1e-15)
    assert y.grad_fn.name() == "SoftsignBackward0"
    z = hypot_sq(a, b)  # broadcasting: the gradient of b summed over rows
    np.testing.assert_array_equal(z.detach().numpy(), a0 * a0 + b0 * b0)
    assert type(z.grad_fn).__name__ == "HypotSqBackward0"
    assert softsign(nbgrad.tensor([1, -3])).dtype == nbgrad.float32  # dtype="float"
    assert gradcheck(softsign, (a,)) and gradgradcheck(softsign, (a,))
    assert gradcheck(hypot_sq, (a, b)) and gradgradcheck(hypot_sq, (a, b))
    from nbgrad.ops.opdef import TABLE

    assert "testlib::softsign" not in TABLE  # not part of nbgrad's own surface


# ----- a row op (``forward=``): the FuncDef mechanism of nbgrad's reductions and softmax -----
@numba.njit
def _row_scale_cpu(x, s, out):
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            out[i, j] = x[i, j] * s[i]


def _row_scale_forward(x, s, odt, device, offset):
    out = np.empty(x.shape, odt.np)
    _row_scale_cpu(np.ascontiguousarray(x, odt.np), np.ascontiguousarray(s, odt.np), out)
    return out + offset


def _row_scale_dtype(a, b, offset):
    if not a.is_floating_point:
        raise RuntimeError(f"row_scale: expected a floating-point input, got {a}")
    return nbgrad.promote_types(a, b)


row_scale = defop("testlib::row_scale", params=("input", "scale"),
                  forward=_row_scale_forward, dtype=_row_scale_dtype,
                  shape=lambda a, b, offset: tuple(a), args=("offset",),
                  grads=("mul(grad, unsqueeze(scale, 1))", "sum(mul(grad, input), 1)"))


def test_row_op_values_node_and_derivatives():
    rng = np.random.default_rng(3)
    a, s = rng.standard_normal((3, 4)), rng.standard_normal(3)
    x = nbgrad.tensor(a, requires_grad=True)
    sc = nbgrad.tensor(s, requires_grad=True)
    y = row_scale(x, sc, 0.5)
    np.testing.assert_allclose(y.detach().numpy(), a * s[:, None] + 0.5, rtol=1e-15)
    assert y.grad_fn.name() == "RowScaleBackward0"
    assert len(y.grad_fn.next_functions) == 2
    np.testing.assert_array_equal(y.grad_fn._saved_scale.detach().numpy(), s)
    np.testing.assert_array_equal(y.grad_fn._saved_self.detach().numpy(), a)
    assert row_scale.op.shape((3, 4), (3,), 0.5) == (3, 4)
    # a strided input, the scale without grad: one edge needs a gradient
    xt = nbgrad.tensor(np.ascontiguousarray(a.T), requires_grad=True).t()
    (gx,) = nbgrad.autograd.grad(row_scale(xt, nbgrad.tensor(s), 0.0).sum(), [xt])
    np.testing.assert_allclose(gx.numpy(), np.broadcast_to(s[:, None], (3, 4)), rtol=1e-15)
    assert gradcheck(lambda x, s: row_scale(x, s, 1.0), (x, sc))
    assert gradgradcheck(lambda x, s: row_scale(x, s, 1.0), (x, sc))
    with nbgrad.no_grad():
        assert row_scale(x, sc, 0.0).grad_fn is None


def test_row_op_refuses_bad_calls():
    x = nbgrad.ones(2, 2)
    with pytest.raises(TypeError, match="argument 'scale' must be Tensor, not ndarray"):
        row_scale(x, np.ones(2), 0.0)
    with pytest.raises(TypeError, match=r"takes 2 operands \(input, scale\) and 1 arguments"):
        row_scale(x, nbgrad.ones(2))
    with pytest.raises(RuntimeError, match="expected a floating-point input"):
        row_scale(nbgrad.ones(2, 2, dtype=nbgrad.int64), nbgrad.ones(2), 0.0)
