"""Autocast (issue #16): the ops of PyTorch's CPU lists cast their inputs (matrix products
to bfloat16 / float16, losses to float32, cat / stack to the widest), the rest keep their
dtypes; casts are differentiable and cached per region; the state nests, is per thread,
and is part of a compiled function's guards. Compared with PyTorch's autocast where it is
installed."""

import doctest
import threading
import warnings

import numpy as np
import pytest

import nbgrad
import nbgrad.nn.functional as F
from nbgrad.amp import autocast_mode, policy

_LOW = {"bfloat16": 2.0**-7, "float16": 2.0**-10}


def _arr(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32)


def _calls():
    """(name, fn(lib, *tensors), numpy inputs, dtypes to give them): one call per listed
    op nbgrad has, and some unlisted ones (they keep the dtypes they are given)."""
    rng = np.random.default_rng(0)
    a, b, v = _arr(rng, 4, 5), _arr(rng, 5, 3), _arr(rng, 5)
    x3, y3 = _arr(rng, 2, 4, 5), _arr(rng, 2, 5, 3)
    img, w = _arr(rng, 1, 2, 5, 5), _arr(rng, 3, 2, 3, 3)
    seq, w1 = _arr(rng, 1, 2, 7), _arr(rng, 3, 2, 3)
    q = _arr(rng, 1, 2, 4, 8)
    t = np.abs(_arr(rng, 4, 5))
    idx = np.array([0, 2, 1, 4])

    def long(lib, arr):
        return lib.tensor(arr)

    return [
        # lower precision
        ("matmul", lambda m, x, y: m.matmul(x, y), [a, b]),
        ("operator @", lambda m, x, y: x @ y, [a, b]),
        ("mm", lambda m, x, y: m.mm(x, y), [a, b]),
        ("bmm", lambda m, x, y: m.bmm(x, y), [x3, y3]),
        ("addmm", lambda m, c, x, y: m.addmm(c, x, y), [_arr(rng, 4, 3), a, b]),
        ("baddbmm", lambda m, c, x, y: m.baddbmm(c, x, y), [_arr(rng, 2, 4, 3), x3, y3]),
        ("linear", lambda m, x, y, c: F.linear(x, y, c) if m is nbgrad
         else m.nn.functional.linear(x, y, c), [a, b.T.copy(), _arr(rng, 3)]),
        ("conv2d", lambda m, x, y: (F if m is nbgrad else m.nn.functional).conv2d(x, y),
         [img, w]),
        ("conv1d", lambda m, x, y: (F if m is nbgrad else m.nn.functional).conv1d(x, y),
         [seq, w1]),
        ("prelu", lambda m, x, y: (F if m is nbgrad else m.nn.functional).prelu(x, y),
         [a, np.array([0.25], np.float32)]),
        ("sdpa", lambda m, x: (F if m is nbgrad else m.nn.functional)
         .scaled_dot_product_attention(x, x, x), [q]),
        # float32
        ("mse_loss", lambda m, x, y: (F if m is nbgrad else m.nn.functional).mse_loss(x, y),
         [a, a[::-1].copy()]),
        ("cross_entropy", lambda m, x: (F if m is nbgrad else m.nn.functional)
         .cross_entropy(x, long(m, idx)), [a]),
        ("nll_loss", lambda m, x: (F if m is nbgrad else m.nn.functional)
         .nll_loss(x, long(m, idx)), [a]),
        ("l1_loss", lambda m, x, y: (F if m is nbgrad else m.nn.functional).l1_loss(x, y),
         [a, t]),
        ("kl_div", lambda m, x, y: (F if m is nbgrad else m.nn.functional)
         .kl_div(x, y, reduction="batchmean"), [a, t]),
        ("bce_with_logits", lambda m, x, y: (F if m is nbgrad else m.nn.functional)
         .binary_cross_entropy_with_logits(x, y), [a, t / t.max()]),
        ("prod", lambda m, x: m.prod(x, 1), [a]),
        ("trace", lambda m, x: m.trace(x), [a]),
        ("cdist", lambda m, x, y: m.cdist(x, y), [a, a[:2].copy()]),
        # promote
        ("cat", lambda m, x, y: m.cat([x, y]), [a, a]),
        ("stack", lambda m, x, y: m.stack([x, y]), [a, a]),
        # not listed on the CPU: the dtypes they are given
        ("mv", lambda m, x, y: m.mv(x, y), [a, v]),
        ("dot", lambda m, x, y: m.dot(x, y), [v, v]),
        ("einsum", lambda m, x, y: m.einsum("ij,jk->ik", x, y), [a, b]),
        ("softmax", lambda m, x: m.softmax(x, -1), [a]),
        ("layer_norm", lambda m, x: (F if m is nbgrad else m.nn.functional)
         .layer_norm(x, (5,)), [a]),
        ("exp", lambda m, x: m.exp(x), [a]),
        ("sum", lambda m, x: x.sum(), [a]),
        ("relu + add", lambda m, x, y: (x + y).relu(), [a, a]),
    ]


_CALLS = _calls()
_DTYPES = ["float32", "bfloat16", "float16", "float64"]


@pytest.mark.parametrize("fast", ["bfloat16", "float16"])
@pytest.mark.parametrize("name,fn,arrays", [pytest.param(*c, id=c[0]) for c in _CALLS])
def test_listed_ops_cast_as_pytorchs_autocast(name, fn, arrays, fast):
    torch = pytest.importorskip("torch")
    for k, dt in enumerate(_DTYPES):
        # (each input in turn of another dtype, the rest float32: mixes as programs make)
        dts = ["float32"] * len(arrays)
        dts[k % len(arrays)] = dt
        if name == "einsum":  # (it refuses mixed dtypes before its products: all alike)
            dts = [dt] * len(arrays)
        if k >= len(arrays) and dt == "float32":
            continue
        got = want = None
        try:
            with torch.autocast("cpu", dtype=getattr(torch, fast)):
                want = fn(torch, *[torch.tensor(x).to(getattr(torch, d))
                                   for x, d in zip(arrays, dts)])
        except RuntimeError:
            # (a float64 operand beside a cast one: PyTorch's op refuses the mix, as ours)
            with pytest.raises(RuntimeError, match="dtype|scalar type|ScalarType|Type promoting"):
                with nbgrad.autocast("cpu", dtype=getattr(nbgrad, fast)):
                    fn(nbgrad, *[nbgrad.tensor(x).to(getattr(nbgrad, d))
                                 for x, d in zip(arrays, dts)])
            continue
        with nbgrad.autocast("cpu", dtype=getattr(nbgrad, fast)):
            got = fn(nbgrad, *[nbgrad.tensor(x).to(getattr(nbgrad, d))
                               for x, d in zip(arrays, dts)])
        assert str(got.dtype).split(".")[1] == str(want.dtype).split(".")[1], (dts, got.dtype)
        eps = _LOW.get(str(got.dtype).split(".")[1], 1e-6)
        ref = want.float().numpy()
        np.testing.assert_allclose(got.float().numpy(), ref, rtol=4 * eps,
                                   atol=4 * eps * max(1.0, float(np.abs(ref).max())))


def test_a_training_step_matches_pytorchs_and_gradients_stay_float32():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    w1, b1, w2, b2 = _arr(rng, 16, 8), _arr(rng, 16), _arr(rng, 4, 16), _arr(rng, 4)
    x, y = _arr(rng, 32, 8), rng.integers(0, 4, 32)
    losses = {}
    for lib in (nbgrad, torch):
        ps = [lib.tensor(p).requires_grad_() for p in (w1, b1, w2, b2)]
        opt = lib.optim.SGD(ps, lr=0.1)
        out = []
        for _ in range(3):
            with lib.autocast("cpu"):
                h = lib.nn.functional.linear(lib.tensor(x), ps[0], ps[1]).relu()
                logits = lib.nn.functional.linear(h, ps[2], ps[3])
                loss = lib.nn.functional.cross_entropy(logits, lib.tensor(y))
            assert str(h.dtype).endswith("bfloat16") and str(loss.dtype).endswith("float32")
            opt.zero_grad()
            loss.backward()
            assert all(str(p.grad.dtype).endswith("float32") for p in ps)
            opt.step()
            out.append(loss.item())
        losses[lib.__name__] = out
    np.testing.assert_allclose(losses["nbgrad"], losses["torch"], rtol=2e-2)


def test_a_weight_is_cast_once_per_region():
    lin = nbgrad.nn.Linear(3, 2)
    x = nbgrad.ones(4, 3)

    def weight_cast(y):  # (the ToCopy node the product's weight edge leads to)
        return [n for n, _ in y.grad_fn.next_functions if n is not None
                and n.name() == "ToCopyBackward0"]

    with nbgrad.autocast("cpu"):
        a, b = lin(x), lin(x)
        assert weight_cast(a)[0] is weight_cast(b)[0]
        with nbgrad.no_grad():
            lin(x)  # (a cast under no_grad is not kept: it has no history)
        c = lin(x)
        assert c.requires_grad and weight_cast(c)[0] is weight_cast(a)[0]
    with nbgrad.autocast("cpu"):
        assert weight_cast(lin(x))[0] is not weight_cast(a)[0]  # a new region: a new cast
    with nbgrad.autocast("cpu", cache_enabled=False):
        assert weight_cast(lin(x))[0] is not weight_cast(lin(x))[0]
    assert not policy.STATE.cache
    (a.sum() + b.sum()).backward()
    assert lin.weight.grad.dtype is nbgrad.float32


def test_regions_nest_restore_and_belong_to_their_thread():
    m = nbgrad.ones(2, 2)
    assert not nbgrad.is_autocast_enabled("cpu") and policy.ACTIVE[0] == 0
    seen = []
    with nbgrad.autocast("cpu", dtype=nbgrad.float16):
        assert nbgrad.is_autocast_enabled("cpu") and not nbgrad.is_autocast_enabled()
        assert nbgrad.get_autocast_dtype("cpu") is nbgrad.float16
        with nbgrad.autocast("cpu", enabled=False):
            assert (m @ m).dtype is nbgrad.float32
            with nbgrad.autocast("cpu"):  # (no dtype: the one set now, as PyTorch's)
                assert (m @ m).dtype is nbgrad.float16
        assert (m @ m).dtype is nbgrad.float16
        t = threading.Thread(target=lambda: seen.append(((m @ m).dtype,
                                                         nbgrad.is_autocast_enabled("cpu"))))
        t.start()
        t.join()
    assert seen == [(nbgrad.float32, False)]
    assert not nbgrad.is_autocast_enabled("cpu") and policy.ACTIVE[0] == 0
    assert nbgrad.get_autocast_dtype("cpu") is nbgrad.bfloat16

    @nbgrad.autocast("cpu")
    def product(x):
        return x @ x

    assert product(m).dtype is nbgrad.bfloat16 and (m @ m).dtype is nbgrad.float32
    nbgrad.set_autocast_enabled("cpu", True)
    try:
        assert (m @ m).dtype is nbgrad.bfloat16
    finally:
        nbgrad.set_autocast_enabled("cpu", False)
    assert policy.ACTIVE[0] == 0


def test_pytorchs_warnings_and_errors():
    with pytest.warns(UserWarning, match="In CPU autocast, but the target dtype is not "
                                         "supported. Disabling autocast."):
        region = nbgrad.autocast("cpu", dtype=nbgrad.float64)
    with region:
        assert not nbgrad.is_autocast_enabled("cpu")
    if not nbgrad.cuda.is_available():
        with pytest.warns(UserWarning, match="CUDA is not available"):
            nbgrad.autocast("cuda")
    with pytest.raises(RuntimeError, match="unsupported autocast device_type 'tpu'"):
        nbgrad.autocast("tpu")
    with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
        nbgrad.autocast(0)
    x = nbgrad.ones(2)
    with nbgrad.autocast("cpu"), pytest.raises(
            RuntimeError, match="Unexpected floating ScalarType in at::autocast::prioritize"):
        nbgrad.cat([x.half(), x.half()])
    with pytest.warns(FutureWarning, match=r"torch.cpu.amp.autocast\(args...\)` is deprecated"):
        old = nbgrad.cpu.amp.autocast()
    with old:
        assert (nbgrad.ones(2, 2) @ nbgrad.ones(2, 2)).dtype is nbgrad.bfloat16
    with pytest.warns(DeprecationWarning):
        assert nbgrad.get_autocast_cpu_dtype() is nbgrad.bfloat16


def test_a_compiled_function_traces_each_autocast_state_apart():
    nbgrad.manual_seed(0)
    lin = nbgrad.nn.Linear(3, 2)

    def loss(x):
        return F.mse_loss(lin(x).tanh(), nbgrad.full((4, 2), 0.25))

    f = nbgrad.compile(loss)
    x = nbgrad.randn(4, 3)
    for _ in range(2):
        with nbgrad.autocast("cpu"):
            y = f(x)
            want = loss(x)
        assert y.dtype is nbgrad.float32 and float(y) == float(want)
        assert float(f(x)) == float(loss(x))
    assert float(y) != float(f(x))  # (bfloat16 products differ from float32's here)


def test_custom_fwd_casts_inputs_and_custom_bwd_restores_the_state():
    seen = {}

    class Square(nbgrad.autograd.Function):
        @staticmethod
        @nbgrad.amp.custom_fwd(device_type="cpu", cast_inputs=nbgrad.float32)
        def forward(ctx, x):
            seen["fwd"] = (x.dtype, nbgrad.is_autocast_enabled("cpu"))
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @nbgrad.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            seen["bwd"] = nbgrad.is_autocast_enabled("cpu")
            (x,) = ctx.saved_tensors
            return 2 * x * g

    x = nbgrad.ones(3, dtype=nbgrad.bfloat16, requires_grad=True)
    with nbgrad.autocast("cpu"):
        y = Square.apply(x)
    assert seen["fwd"] == (nbgrad.float32, False) and y.dtype is nbgrad.float32
    y.sum().backward()
    assert seen["bwd"] is False and x.grad.dtype is nbgrad.bfloat16

    class Plain(nbgrad.autograd.Function):
        @staticmethod
        @nbgrad.amp.custom_fwd(device_type="cpu")
        def forward(ctx, x):
            return x @ x

        @staticmethod
        @nbgrad.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            seen["plain"] = nbgrad.is_autocast_enabled("cpu")
            return g

    m = nbgrad.ones(2, 2, requires_grad=True)
    with nbgrad.autocast("cpu"):
        out = Plain.apply(m)
    assert out.dtype is nbgrad.bfloat16
    out.float().sum().backward()
    assert seen["plain"] is True


def test_the_table_names_public_functions_and_the_docs_run():
    for dev, rows in policy.TABLE.items():
        for names in rows.values():
            assert len(set(names)) == len(names), dev
    for mod in (autocast_mode, policy):
        res = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
        assert res.failed == 0
    assert doctest.testmod(autocast_mode).attempted >= 5
    # a listed op keeps its signature, docstring and module
    import inspect

    assert str(inspect.signature(nbgrad.sum)) == (  # (with PyTorch's out=: nbgrad/_out.py)
        "(input, dim=None, keepdim=False, *, dtype=None, out=None)")
    assert nbgrad.matmul.__doc__.startswith("Matrix product") and nbgrad.exp.op.name == "exp"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with nbgrad.autocast("cpu"):
            pass


def test_layers_under_autocast_give_pytorchs_dtypes():
    # (normalizations take a 16-bit input with float32 parameters as PyTorch's CPU kernels
    # do: computed in float32, the result in the input's dtype)
    torch = pytest.importorskip("torch")

    def dtypes(lib):
        nn = lib.nn
        lib.manual_seed(0)
        x, img = lib.randn(2, 5, 16), lib.randn(2, 3, 8, 8)
        mha = nn.MultiheadAttention(16, 2, batch_first=True)
        mods = [(nn.Sequential(nn.Linear(16, 16), nn.LayerNorm(16)), x),
                (nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0, batch_first=True), x),
                (lambda a: mha(a, a, a)[0], x),
                (nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU()), img),
                (nn.Sequential(nn.Conv2d(3, 4, 3), nn.GroupNorm(2, 4)), img),
                (lambda a: nn.functional.rms_norm(a.bfloat16(), (16,), lib.ones(16)), x)]
        out = []
        for m, inp in mods:
            with lib.autocast("cpu"):
                y = m(inp)
            y = y[0] if isinstance(y, tuple) else y
            if y.requires_grad:
                y.float().sum().backward()
            out.append(str(y.dtype).split(".")[1])
        return out

    assert dtypes(nbgrad) == dtypes(torch)
    x = nbgrad.ones(2, 4)
    with pytest.raises(RuntimeError, match="mixed dtype \\(CPU\\): all inputs must share"):
        F.layer_norm(x.double(), (4,), nbgrad.ones(4))
    with pytest.raises(RuntimeError, match="expect parameter to have scalar type of Float"):
        F.group_norm(x, 2, nbgrad.ones(4).bfloat16())
