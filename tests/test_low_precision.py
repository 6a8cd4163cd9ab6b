"""float16 and bfloat16 (#16: "float16/bfloat16 dtypes with half()/bfloat16(), storage and
casts at least"): PyTorch's promotion, bit-exact casts, creation, random numbers,
printing, NumPy interop, saving, and models and optimizers run in them, all against PyTorch.
Every op on them (the elementwise rows: tests/test_ops.py; the other rows:
tests/test_func_rows.py) computes in float32 and rounds once, as PyTorch's CPU kernels do.
"""

import io

import numpy as np
import pytest

import nbgrad

torch = pytest.importorskip("torch")

LOW = ("float16", "bfloat16")
ALL = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
       "float64")
# values where rounding to 16 bits is delicate: ties, overflow, subnormals, the non-finite
EDGES = np.array([0.0, -0.0, 1.0, 1.0009765625, 1.00048828125, 1.00146484375, 65504.0,
                  65519.99, 65520.0, 1e5, -1e5, 6e-8, 3e-8, 1e-40, 3.3895e38, 3.4e38,
                  1 + 2.0**-8, 1 + 3 * 2.0**-9, np.pi, -np.e, np.inf, -np.inf, np.nan, 1e-5,
                  2.0**-24, 0.1, 0.2, 0.3, 12345.678])


def _same(a, b):
    """Equal arrays, NaN where NaN, -0.0 where -0.0."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    assert a.shape == b.shape
    assert np.array_equal(np.isnan(a), np.isnan(b))
    k = ~np.isnan(a)
    assert np.array_equal(a[k], b[k])
    assert np.array_equal(np.signbit(a[k]), np.signbit(b[k]))


def test_dtype_objects_and_names():
    for name, scalar, legacy in (("float16", "Half", "half"), ("bfloat16", "BFloat16",
                                                                "bfloat16")):
        d = getattr(nbgrad, name)
        assert d.is_floating_point and d.itemsize == 2 and d.is_signed
        assert getattr(nbgrad, legacy) is d and repr(d) == f"nbgrad.{name}"
        x = getattr(nbgrad.ones(2), legacy)()
        assert x.dtype is d and x.element_size() == 2
        assert x.type() == f"nbgrad.{scalar}Tensor" and x.is_floating_point()
        assert x.type(nbgrad.float32).dtype is nbgrad.float32
    assert nbgrad.half is nbgrad.float16


def test_promotion_matches_torch():
    for a in ALL:
        for b in ALL:
            got = nbgrad.promote_types(getattr(nbgrad, a if a != "bool" else "bool"),
                                       getattr(nbgrad, b))
            want = torch.promote_types(getattr(torch, a), getattr(torch, b))
            assert got.name == str(want).removeprefix("torch."), (a, b)
    # PyTorch's argument names
    assert nbgrad.promote_types(type1=nbgrad.int32, type2=nbgrad.float16) is nbgrad.float16
    for m in (nbgrad, torch):  # tensors, 0-dim tensors and Python numbers
        h = m.ones(2, dtype=m.float16)
        assert (h + 1.5).dtype is m.float16
        assert (h + m.ones(2, dtype=m.int64)).dtype is m.float16
        assert (h + m.tensor(1.0, dtype=m.float64)).dtype is m.float16
        assert (h + m.ones(2, dtype=m.bfloat16)).dtype is m.float32
        assert (h * m.ones(2)).dtype is m.float32
        assert (m.ones(2, dtype=m.int32) + m.tensor(1.0, dtype=m.bfloat16)).dtype is m.bfloat16


@pytest.mark.parametrize("dst", LOW)
@pytest.mark.parametrize("src", ["float64", "float32", "int64", "int32", "bool",
                                 "float16", "bfloat16"])
def test_casts_to_16_bits_round_as_torch(src, dst):
    """PyTorch converts a double or an integer through float before rounding to 16 bits
    (round to nearest, ties to even; overflow to inf; NaN stays NaN)."""
    vals = EDGES
    if src in ("int64", "int32"):
        vals = np.array([0, 1, -1, 2049, 4097, 65519, 65520, 70000, -(2**31), 2**31 - 1,
                         16777217, 257, 259])
        if src == "int64":
            vals = np.concatenate([vals, [2**53 + 1, -(2**62) - 12345]])
    elif src == "bool":
        vals = np.array([True, False])
    t = torch.tensor(vals).to(getattr(torch, src))
    n = nbgrad.tensor(vals).to(getattr(nbgrad, src))
    got, want = n.to(getattr(nbgrad, dst)), t.to(getattr(torch, dst))
    assert got.dtype is getattr(nbgrad, dst)
    _same(got.double().numpy(), want.double().numpy())


@pytest.mark.parametrize("src", LOW)
@pytest.mark.parametrize("dst", ["float64", "float32", "int64", "int32", "bool"])
def test_casts_from_16_bits_as_torch(src, dst):
    vals = EDGES[np.isfinite(EDGES)] if dst.startswith("int") else EDGES
    vals = vals[np.abs(vals) < 6e4] if dst == "int32" else vals
    t = torch.tensor(vals).to(getattr(torch, src)).to(getattr(torch, dst))
    n = nbgrad.tensor(vals).to(getattr(nbgrad, src)).to(getattr(nbgrad, dst))
    assert n.dtype is getattr(nbgrad, dst)
    _same(n.numpy().astype(np.float64), t.numpy().astype(np.float64))


@pytest.mark.parametrize("dtype", LOW)
def test_strided_copies_keep_the_bits(dtype):
    t = torch.tensor(EDGES[:24].reshape(4, 6)).to(getattr(torch, dtype))
    n = nbgrad.tensor(EDGES[:24].reshape(4, 6)).to(getattr(nbgrad, dtype))
    for f in (lambda m, x: x.t().contiguous(), lambda m, x: x[:, ::2].clone(),
              lambda m, x: x.expand(2, 4, 6).contiguous(), lambda m, x: m.cat([x, x.t().t()]),
              lambda m, x: x.reshape(3, 8)[1:], lambda m, x: m.where(x > 1, x, -x)):
        got, want = f(nbgrad, n), f(torch, t)
        assert got.dtype is getattr(nbgrad, dtype)
        _same(got.double().numpy(), want.double().numpy())


@pytest.mark.parametrize("dtype", LOW)
def test_creation_and_reading_values(dtype):
    d, td = getattr(nbgrad, dtype), getattr(torch, dtype)
    for f in (lambda m, dt: m.zeros(2, 3, dtype=dt), lambda m, dt: m.ones(3, dtype=dt),
              lambda m, dt: m.full((2,), 3.3, dtype=dt), lambda m, dt: m.arange(0, 3, 0.7, dtype=dt),
              lambda m, dt: m.eye(3, dtype=dt),
              lambda m, dt: m.tensor([[1.1, -2.7], [1e5, 1e-6]], dtype=dt),
              lambda m, dt: m.zeros(2, dtype=dt).new_full((3,), 0.1),
              lambda m, dt: m.full_like(m.zeros(2, dtype=dt), 7.77)):
        got, want = f(nbgrad, d), f(torch, td)
        assert got.dtype is d
        _same(got.double().numpy(), want.double().numpy())
    # (linspace: the exact values rounded once; PyTorch's vectorized 16-bit steps round
    # more often, and differ from them by an ulp here and there)
    want = np.linspace(-1, 1, 7).astype(np.float32)
    _same(nbgrad.linspace(-1, 1, 7, dtype=d).double().numpy(),
          nbgrad.tensor(want).to(d).double().numpy())
    x, tx = nbgrad.tensor([1.1, 2.2, 3.3], dtype=d), torch.tensor([1.1, 2.2, 3.3], dtype=td)
    assert x.tolist() == tx.tolist() and x[1].item() == tx[1].item()
    assert isinstance(x[0].item(), float)
    assert f"{x[2]:.4f}" == f"{tx[2]:.4f}" and float(x[0]) == float(tx[0])
    assert nbgrad.empty(4, dtype=d).dtype is d


def test_numpy_interop():
    h = nbgrad.from_numpy(np.array([1.5, -2.25], np.float16))
    assert h.dtype is nbgrad.float16 and nbgrad.tensor(np.float16([3])).dtype is nbgrad.float16
    a = h.numpy()
    assert a.dtype == np.float16 and a.tolist() == [1.5, -2.25]
    a[0] = 4  # shares storage, as PyTorch's
    assert h[0].item() == 4
    b = h.bfloat16()
    with pytest.raises(TypeError, match="Got unsupported ScalarType BFloat16"):
        b.numpy()
    with pytest.raises(TypeError, match="Got unsupported ScalarType BFloat16"):
        torch.tensor([1.0]).bfloat16().numpy()


@pytest.mark.parametrize("dtype", LOW)
def test_printing_as_torch(dtype):
    for vals in ([1.0, 2.5, 3.14159, -0.1], [1e-5, 3e4], [1.0, 2.0], [[0.5, 1e3], [7.0, -2.0]]):
        t = torch.tensor(vals).to(getattr(torch, dtype))
        n = nbgrad.tensor(vals).to(getattr(nbgrad, dtype))
        assert repr(n) == repr(t).replace("torch.", "nbgrad.")


@pytest.mark.parametrize("dtype", LOW)
def test_random_numbers_as_torch(dtype):
    for f in (lambda m, dt: m.rand(40, dtype=dt), lambda m, dt: m.randn(40, dtype=dt),
              lambda m, dt: m.randn(5, dtype=dt), lambda m, dt: m.randn(48, dtype=dt),
              lambda m, dt: m.empty(30, dtype=dt).uniform_(-2, 3),
              lambda m, dt: m.empty(7, dtype=dt).normal_(1, 2),
              lambda m, dt: m.nn.init.kaiming_uniform_(m.empty(4, 5, dtype=dt)),
              lambda m, dt: m.nn.init.normal_(m.empty(4, 9, dtype=dt))):
        torch.manual_seed(3)
        nbgrad.manual_seed(3)
        want = f(torch, getattr(torch, dtype))
        got = f(nbgrad, getattr(nbgrad, dtype))
        assert got.dtype is getattr(nbgrad, dtype)
        _same(got.double().numpy(), want.double().numpy())


@pytest.mark.parametrize("dtype", LOW)
def test_save_and_load(dtype):
    x = nbgrad.tensor(EDGES).to(getattr(nbgrad, dtype))
    buf = io.BytesIO()
    nbgrad.save({"x": x, "t": x[::3]}, buf)
    buf.seek(0)
    back = nbgrad.load(buf)
    assert back["x"].dtype is x.dtype
    _same(back["x"].double().numpy(), x.double().numpy())
    _same(back["t"].double().numpy(), x[::3].double().numpy())


def _model(m):
    return m.nn.Sequential(m.nn.Conv2d(2, 4, 3, padding=1), m.nn.BatchNorm2d(4), m.nn.ReLU(),
                           m.nn.MaxPool2d(2), m.nn.Flatten(), m.nn.Linear(16, 8),
                           m.nn.LayerNorm(8), m.nn.GELU(), m.nn.Linear(8, 3))


@pytest.mark.parametrize("dtype", LOW)
def test_model_and_optimizer_in_16_bits_track_torch(dtype):
    """A small CNN cast with ``.half()`` / ``.bfloat16()`` from the same weights: its loss,
    gradients and a few optimizer steps stay within a few 16-bit roundings of PyTorch's."""
    eps = {"float16": 2.0**-10, "bfloat16": 2.0**-7}[dtype]
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((4, 2, 4, 4)), np.array([0, 2, 1, 2])
    nets = {}
    for m in (torch, nbgrad):
        m.manual_seed(0)
        nets[m] = getattr(_model(m), "half" if dtype == "float16" else "bfloat16")()
    nets[nbgrad].load_state_dict({k: nbgrad.tensor(v.float().numpy()).to(getattr(nbgrad, dtype))
                                  for k, v in nets[torch].state_dict().items()})
    losses = {}
    for m in (torch, nbgrad):
        net = nets[m]
        assert all(p.dtype is getattr(m, dtype) for p in net.parameters())
        opt = m.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
        losses[m] = []
        for _ in range(3):
            opt.zero_grad()
            out = net(m.tensor(x).to(getattr(m, dtype)))
            loss = m.nn.functional.cross_entropy(out, m.tensor(y))
            assert out.dtype is getattr(m, dtype) and loss.dtype is getattr(m, dtype)
            loss.backward()
            opt.step()
            losses[m].append(loss.item())
        assert all(p.grad.dtype is getattr(m, dtype) for p in net.parameters())
    np.testing.assert_allclose(losses[nbgrad], losses[torch], rtol=16 * eps, atol=16 * eps)
    for (k, a), b in zip(nets[nbgrad].state_dict().items(), nets[torch].state_dict().values()):
        np.testing.assert_allclose(a.double().numpy(), b.double().numpy(), rtol=32 * eps,
                                   atol=32 * eps, err_msg=k)


@pytest.mark.parametrize("dtype", LOW)
def test_optimizer_state_stays_in_the_parameter_dtype(dtype):
    d = getattr(nbgrad, dtype)
    p = nbgrad.nn.Parameter(nbgrad.tensor([1.0, -2.0, 3.0]).to(d))
    opt = nbgrad.optim.AdamW([p], lr=0.1)
    (p * p).sum().backward()
    opt.step()
    assert p.dtype is d and opt.state[p]["exp_avg"].dtype is d
    tp = torch.nn.Parameter(torch.tensor([1.0, -2.0, 3.0]).to(getattr(torch, dtype)))
    topt = torch.optim.AdamW([tp], lr=0.1)
    (tp * tp).sum().backward()
    topt.step()
    np.testing.assert_allclose(p.double().detach().numpy(), tp.double().detach().numpy(),
                               rtol=2**-7)


def test_in_place_ops_write_16_bit_storage():
    for m in (nbgrad, torch):
        x = m.tensor([1.0, 2.0, 3.0, 4.0]).half()
        x.add_(1.5)
        x.mul_(m.ones(4, dtype=m.half) * 3)
        x[1] = 7
        x.clamp_(0, 12)
        x.exp_()
        if m is nbgrad:
            got = x.double().numpy()
        else:
            want = x.double().numpy()
    _same(got, want)


def test_reduced_precision_grad_of_mixed_dtypes():
    """Gradients arrive in each leaf's own dtype, as PyTorch's engine casts them."""
    for m in (nbgrad, torch):
        a = m.tensor([1.0, 2.0]).half().requires_grad_()
        b = m.tensor([3.0, 4.0], requires_grad=True)
        (a * b).sum(dtype=m.float64).backward()
        assert a.grad.dtype is m.float16 and b.grad.dtype is m.float32
        c = m.tensor([1.0, 2.0], requires_grad=True)
        c.mean(dtype=m.float64).backward()
        assert c.grad.dtype is m.float32


@pytest.mark.parametrize("dtype", LOW)
def test_compiled_function_on_16_bit_tensors_equals_eager(dtype):
    """``nbgrad.compile`` runs the 16-bit ops as their eager calls (no generated kernel
    takes 16-bit floats) and fuses the float32 ones after a cast: values and gradients are
    eager's, bit for bit."""
    def f(x, y):
        return ((x * y).exp() + 1).sum() + (x.float() * 2 - 1).relu().sum()

    cf = nbgrad.compile(f)
    d = getattr(nbgrad, dtype)
    x = nbgrad.tensor(np.linspace(-1, 1, 8)).to(d).requires_grad_()
    y = nbgrad.tensor(np.linspace(2, -1, 8)).to(d)
    for _ in range(3):  # (traced, compiled, then run compiled)
        x.grad = None
        got = cf(x, y)
        got.backward()
    g = x.grad
    x.grad = None
    want = f(x, y)
    want.backward()
    assert got.dtype is want.dtype is nbgrad.float32 and g.dtype is d
    assert got.item() == want.item()
    _same(g.double().numpy(), x.grad.double().numpy())


def test_finfo_and_iinfo_as_torch():
    for name in ALL:
        if name in ("float16", "bfloat16", "float32", "float64"):
            a, b = nbgrad.finfo(getattr(nbgrad, name)), torch.finfo(getattr(torch, name))
            for f in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution"):
                assert getattr(a, f) == getattr(b, f), (name, f)
            assert a.dtype == b.dtype == name and repr(a) == repr(b)
            with pytest.raises(TypeError, match="requires an integer input type"):
                nbgrad.iinfo(getattr(nbgrad, name))
        elif name != "bool":
            a, b = nbgrad.iinfo(getattr(nbgrad, name)), torch.iinfo(getattr(torch, name))
            assert (a.bits, a.max, a.min, a.dtype) == (b.bits, b.max, b.min, b.dtype)
            assert repr(a) == repr(b)
            with pytest.raises(TypeError, match="requires a floating point input type"):
                nbgrad.finfo(getattr(nbgrad, name))
    assert repr(nbgrad.finfo()) == repr(torch.finfo())


def test_the_docstring_examples_run():
    import doctest

    from nbgrad import dtypes

    res = doctest.testmod(dtypes, extraglobs={"nbgrad": nbgrad})
    assert res.attempted >= 4 and not res.failed


def test_random_integers_in_16_bit_floats_as_torch():
    for f in (lambda m, dt: m.empty(6, dtype=dt).random_(0, 100),
              lambda m, dt: m.empty(5, dtype=dt).random_(),
              lambda m, dt: m.empty(3, dtype=dt).random_(-4, 9)):
        for dtype in LOW:
            torch.manual_seed(2)
            nbgrad.manual_seed(2)
            want, got = f(torch, getattr(torch, dtype)), f(nbgrad, getattr(nbgrad, dtype))
            _same(got.double().numpy(), want.double().numpy())
