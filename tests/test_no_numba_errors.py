"""No Numba exception reaches the user, whatever the memory layout of the inputs.

Every public op is run on tensors whose storage is unusual: read-only NumPy memory,
stride-0 (broadcast) arrays, Fortran order, misaligned buffers (read-only and writable),
transposed / strided / expanded views, and empty shapes. Each call must either give the same
values (and gradients) as on a clean contiguous copy, or raise an ordinary exception with a
message; an exception class from a ``numba`` module is always a failure. The op table is
``tests/test_ops.py``'s ``OPS``, plus in-place ops, indexing, ``nn.functional`` and the
optimizers' ``step``.
"""

import warnings

import numpy as np
import pytest
import test_ops as T

import nbgrad
import nbgrad.nn.functional as F

OK_ERRORS = (RuntimeError, ValueError, TypeError, IndexError, NotImplementedError)


def _is_numba(e):
    return any(c.__module__.split(".")[0] == "numba" for c in type(e).__mro__)


def _from_numpy(a):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the read-only warning is tested elsewhere
        return nbgrad.from_numpy(a)


def _unaligned(a, writable):
    raw = b"\0" + np.ascontiguousarray(a).tobytes()
    buf = bytearray(raw) if writable else raw
    u = np.frombuffer(buf, a.dtype, count=a.size, offset=1).reshape(a.shape)
    assert a.dtype.itemsize == 1 or not u.flags.aligned or a.size == 0
    return u


def _stride0(a, writable):
    """An array equal to ``a[..., :1]`` broadcast over ``a``'s last dim (stride 0 there)."""
    col = np.ascontiguousarray(a[..., :1])
    if not writable:
        return np.broadcast_to(col, a.shape)
    strides = col.strides[:-1] + (0,)
    return np.lib.stride_tricks.as_strided(col, a.shape, strides, writeable=True)


# layout name -> makes a tensor from ndarray ``a``; None where the layout does not apply
def _transposed(a):
    rev = tuple(range(a.ndim - 1, -1, -1))
    return nbgrad.tensor(np.ascontiguousarray(a.transpose(rev))).permute(rev)


def _strided(a):
    base = np.zeros(a.shape[:-1] + (2 * a.shape[-1],), a.dtype)
    base[..., ::2] = a
    return nbgrad.tensor(base)[..., ::2]


LAYOUTS = {
    "readonly": lambda a: _from_numpy((lambda r: (r.setflags(write=False), r)[1])(a.copy())),
    "fortran": lambda a: _from_numpy(np.asfortranarray(a)) if a.ndim >= 2 else None,
    "unaligned_ro": lambda a: _from_numpy(_unaligned(a, False)),
    "unaligned": lambda a: _from_numpy(_unaligned(a, True)),
    "stride0_ro": lambda a: _from_numpy(_stride0(a, False)) if a.ndim else None,
    "stride0": lambda a: _from_numpy(_stride0(a, True)) if a.ndim else None,
    "transposed": lambda a: _transposed(a) if a.ndim >= 2 else None,
    "strided": lambda a: _strided(a) if a.ndim else None,
    "expanded": lambda a: nbgrad.tensor(np.ascontiguousarray(a[..., :1])).expand(*a.shape)
    if a.ndim else None,
}


def _clean(t):
    """A contiguous, writable, aligned tensor with ``t``'s values."""
    return nbgrad.tensor(np.array(t.detach().numpy(), copy=True))


def _values(r):
    if isinstance(r, nbgrad.Tensor):
        return np.array(r.detach().numpy(), copy=True)
    if isinstance(r, (tuple, list)):
        return [_values(x) for x in r]
    return r


def _same(got, want):
    if isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
    elif isinstance(want, np.ndarray):
        assert isinstance(got, np.ndarray)
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, equal_nan=True)
    else:
        assert got == want or (got != got and want != want)


def _call(fn, *args):
    try:
        return True, fn(*args)
    except Exception as e:  # noqa: BLE001 (any exception is judged below)
        if _is_numba(e):
            raise AssertionError(f"a Numba exception escaped: {type(e).__module__}."
                                 f"{type(e).__name__}: {str(e)[:300]}") from e
        assert isinstance(e, OK_ERRORS), f"unexpected {type(e).__name__}: {e}"
        assert str(e).strip(), f"{type(e).__name__} without a message"
        return False, e


def _check(fn, make_args, may_raise):
    """Run ``fn`` on unusual-layout args and on clean copies; compare."""
    args = make_args()
    ok, got = _call(fn, *args)
    clean = [_clean(a) if isinstance(a, nbgrad.Tensor) else a for a in make_args(clean=True)]
    ok_c, want = _call(fn, *clean)
    if not ok:
        if ok_c and not may_raise:
            raise AssertionError(f"raises {type(got).__name__}: {got}, but a clean copy works")
        return None
    assert ok_c, f"works, but a clean copy raises {type(want).__name__}: {want}"
    _same(_values(got), _values(want))
    return args, clean, got, want


# ----- the op table of tests/test_ops.py ---------------------------------------------------
def _empty_shapes(shapes):
    """``shapes`` with the first non-scalar input's leading dim 0 (still broadcastable)."""
    out = list(shapes)
    for i, s in enumerate(out):
        if s:
            out[i] = (0,) + tuple(s[1:])
            return tuple(out)
    return None


# the layouts that give Numba new array types (read-only, unaligned, F and A order); the
# nbgrad-made views are covered by test_ops.py's test_noncontiguous_inputs
# (read-only and misaligned together: one Numba type that has both flags; each compile of a
# kernel for a new type costs seconds)
TABLE_LAYOUTS = ("unaligned_ro", "fortran", "stride0_ro")


def _slow_to_compile(op):
    """torch.special's functions and the gamma family: their bodies (series, recurrences)
    take seconds to compile for each new array type (digamma's stride-0 case, with its
    polygamma backward, took 48 s): one layout each, in turn; the layout handling is the
    loop factories', which the other ops test with every layout."""
    from nbgrad.ops.opdef import TABLE

    row = TABLE.get(op.name)
    return op.name in ("digamma", "polygamma", "lgamma", "mvlgamma") or (
        row is not None and row.body is not None
        and row.body.__module__ == "nbgrad.kernels.special")


OP_CASES = []
_turn = 0
for _op in T.OPS:
    _layouts = TABLE_LAYOUTS
    if _slow_to_compile(_op):
        _layouts, _turn = (TABLE_LAYOUTS[_turn % len(TABLE_LAYOUTS)],), _turn + 1
    for _layout in _layouts:
        OP_CASES.append(pytest.param(_op, _op.shapes[0], _layout, id=f"{_op.name}-{_layout}"))
    _es = _empty_shapes(_op.shapes[0])
    if _es is not None:
        OP_CASES.append(pytest.param(_op, _es, "empty-readonly", id=f"{_op.name}-empty-readonly"))


@pytest.mark.slow
@pytest.mark.parametrize("op,shapes,layout", OP_CASES)
def test_table_op(op, shapes, layout):
    arrs = T._inputs(op, shapes, "float64")
    if layout == "empty-readonly":
        make_t = LAYOUTS["readonly"]
    else:
        make_t = LAYOUTS[layout]
    ts = [make_t(a) for a in arrs]
    if all(t is None for t in ts):
        pytest.skip("layout does not apply to these shapes")
    ts = [nbgrad.tensor(a) if t is None else t for a, t in zip(arrs, ts)]

    def make_args(clean=False):
        return ts

    # view() needs compatible strides (PyTorch's error otherwise)
    may_raise = layout.startswith("empty") or op.name.startswith("view")
    res = _check(lambda *xs: op.fn(nbgrad, *xs), make_args, may_raise=may_raise)
    if res is None or not op.grad:
        return
    # gradients flow back into the unusual leaves as into clean ones
    _, _, got, want = res
    leaves = [t.detach().requires_grad_() if t._base is not None else t.requires_grad_()
              for t in ts]
    clean = [_clean(t).requires_grad_() for t in ts]
    for xs in (leaves, clean):
        out = op.fn(nbgrad, *xs)
        if isinstance(out, tuple):
            out = out[0]
        if out.dtype.is_floating_point:
            out.sum().backward()
    for a, b in zip(leaves, clean):
        assert (a.grad is None) == (b.grad is None)
        if a.grad is not None:
            _same(_values(a.grad), _values(b.grad))


def test_from_numpy_negative_strides_raises_torch_error():
    torch = pytest.importorskip("torch")
    a = np.arange(6.0)[::-1]
    for lib in (nbgrad, torch):
        with pytest.raises(ValueError, match="At least one stride in the given numpy array is "
                                             "negative"):
            lib.from_numpy(a)


# ----- in-place ops, indexing, functional, optimizers ---------------------------------------
def _i(*v):
    return nbgrad.tensor(list(v))


# name -> (fn(x, y) where x is the unusual tensor, shape of x, whether x is written)
EXTRA = {
    "add_": (lambda x, y: x.add_(y), True),
    "add_ scalar": (lambda x, y: x.add_(1.5), True),
    "sub_ alpha": (lambda x, y: x.sub_(y, alpha=2), True),
    "mul_": (lambda x, y: x.mul_(y), True),
    "div_": (lambda x, y: x.div_(2.0), True),
    "pow_": (lambda x, y: x.pow_(2), True),
    "clamp_": (lambda x, y: x.clamp_(-0.5, 0.5), True),
    "copy_": (lambda x, y: x.copy_(y), True),
    "fill_": (lambda x, y: x.fill_(3.0), True),
    "zero_": (lambda x, y: x.zero_(), True),
    "setitem slice": (lambda x, y: x.__setitem__((slice(None), slice(0, 2)), 1.0), True),
    "setitem tensor": (lambda x, y: x.__setitem__(0, y[0]), True),
    "setitem mask": (lambda x, y: x.__setitem__(y > 0, 0.0), True),
    "index_put_": (lambda x, y: x.index_put_((_i(0, 2),), y[:2]), True),
    "index_add_": (lambda x, y: x.index_add_(0, _i(0, 2), y[:2]), True),
    "scatter_add_": (lambda x, y: x.scatter_add_(0, _i([0, 1, 2, 0]).reshape(1, 4), y[:1]), True),
    "iadd": (lambda x, y: x.__iadd__(y), True),
    "add_ into other": (lambda x, y: y.add_(x), False),
    "copy_ from": (lambda x, y: y.copy_(x), False),
    "setitem from": (lambda x, y: y.__setitem__(slice(None), x), False),
    "getitem int": (lambda x, y: x[1], False),
    "getitem slice": (lambda x, y: x[:, 1:3], False),
    "getitem list": (lambda x, y: x[[0, 2]], False),
    "getitem tensor": (lambda x, y: x[_i(2, 0)], False),
    "getitem mask": (lambda x, y: x[y > 0], False),
    "index_select": (lambda x, y: nbgrad.index_select(x, 1, _i(3, 0)), False),
    "gather": (lambda x, y: nbgrad.gather(x, 1, _i([0, 3], [1, 1], [2, 0])), False),
    "where": (lambda x, y: nbgrad.where(y > 0, x, y), False),
    "cat": (lambda x, y: nbgrad.cat([x, y]), False),
    "stack": (lambda x, y: nbgrad.stack([x, y]), False),
    "prod": (lambda x, y: x.prod(1), False),
    "var": (lambda x, y: x.var(0), False),
    "std": (lambda x, y: x.std(), False),
    "logsumexp": (lambda x, y: nbgrad.logsumexp(x, 1), False),
    "norm": (lambda x, y: x.norm(), False),
    "einsum": (lambda x, y: nbgrad.einsum("ij,kj->ik", x, y), False),
    "outer": (lambda x, y: nbgrad.outer(x[0], y[1]), False),
    "tile": (lambda x, y: x.tile(2, 1), False),
    "flip": (lambda x, y: x.flip(0), False),
    "matmul left": (lambda x, y: x @ y.t(), False),
    "matmul right": (lambda x, y: y @ x.t(), False),
    "sort-free argmax": (lambda x, y: x.argmax(1), False),
    "relu": (lambda x, y: F.relu(x), False),
    "gelu": (lambda x, y: F.gelu(x), False),
    "silu": (lambda x, y: F.silu(x), False),
    "softmax": (lambda x, y: F.softmax(x, 1), False),
    "log_softmax": (lambda x, y: F.log_softmax(x, 0), False),
    "linear": (lambda x, y: F.linear(x, y, y[0]), False),
    "linear weight": (lambda x, y: F.linear(y, x), False),
    "layer_norm": (lambda x, y: F.layer_norm(x, (4,)), False),
    "mse_loss": (lambda x, y: F.mse_loss(x, y), False),
    "cross_entropy": (lambda x, y: F.cross_entropy(x, _i(0, 3, 1)), False),
    "nll_loss": (lambda x, y: F.nll_loss(x, _i(0, 3, 1)), False),
    "bce_logits": (lambda x, y: F.binary_cross_entropy_with_logits(x, y.sigmoid()), False),
    "dropout p0": (lambda x, y: F.dropout(x, 0.0), False),
    "embedding weight": (lambda x, y: F.embedding(_i(2, 0, 2), x), False),
    "conv2d input": (lambda x, y: F.conv2d(x.reshape(1, 1, 3, 4), y[:2, :2].reshape(1, 1, 2, 2)),
                     False),
    "conv2d weight": (lambda x, y: F.conv2d(y.reshape(1, 1, 3, 4), x[:2, :2].reshape(1, 1, 2, 2)),
                      False),
    "max_pool2d": (lambda x, y: F.max_pool2d(x.reshape(1, 1, 3, 4), 2), False),
}


def _xy(layout, shape=(3, 4)):
    """A fresh pair: ``x`` in ``layout``, ``y`` clean, both of ``shape``."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal(shape)
    b = rng.standard_normal(shape)
    if layout == "empty":
        return nbgrad.tensor(a[:0]), nbgrad.tensor(b[:0])
    x = LAYOUTS[layout](a)
    return x, nbgrad.tensor(b)


WRITE_REFUSED = ("readonly", "unaligned_ro", "stride0_ro", "stride0", "expanded")


# ops that only read x: the layouts that are new Numba types, and an nbgrad-made view
READ_LAYOUTS = ("unaligned_ro", "fortran", "stride0_ro", "expanded")
EXTRA_CASES = [pytest.param(name, layout, id=f"{name}-{layout}") for name, (_, writes) in EXTRA.items()
               for layout in (LAYOUTS if writes else READ_LAYOUTS)]


@pytest.mark.parametrize("name,layout", EXTRA_CASES)
def test_extra_op(name, layout):
    fn, writes = EXTRA[name]

    def make_args(clean=False):
        x, y = _xy(layout)
        return (_clean(x), _clean(y)) if clean else (x, y)

    if not writes:
        _check(fn, make_args, may_raise=False)
        return
    # writes into x: read-only and stride-0 memory is refused with PyTorch's "unsupported
    # operation" errors (except a fill of writable expanded memory, as in PyTorch); any other
    # layout must give the clean copy's values
    x, y = make_args()
    xc, yc = make_args(clean=True)
    ok, got = _call(fn, x, y)
    ok_c, want = _call(fn, xc, yc)
    assert ok_c, want
    if not ok:
        assert layout in WRITE_REFUSED, f"raises {type(got).__name__}: {got}"
        assert "unsupported operation" in str(got)
        return
    if layout in WRITE_REFUSED:
        assert name in ("fill_", "zero_") and layout in ("stride0", "expanded"), "not refused"
    _same(_values(x), _values(xc))
    _same(_values(y), _values(yc))


@pytest.mark.parametrize("name", ["add_", "sum", "getitem", "mse_loss", "softmax"])
def test_empty_inputs(name):
    fn = {"add_": lambda x, y: x.add_(y), "sum": lambda x, y: x.sum(1),
          "getitem": lambda x, y: x[:, 1], "mse_loss": lambda x, y: F.mse_loss(x, y),
          "softmax": lambda x, y: F.softmax(x, 1)}[name]
    x, y = _xy("empty")
    ok, got = _call(fn, x, y)
    ok_c, want = _call(fn, _clean(x), _clean(y))
    assert ok == ok_c
    if ok:
        _same(_values(got), _values(want))


@pytest.mark.parametrize("layout", list(LAYOUTS) + ["empty"])
@pytest.mark.parametrize("opt", ["SGD", "SGD_momentum", "Adam", "AdamW"])
@pytest.mark.parametrize("which", ["param", "grad"])
def test_optimizer_step(opt, layout, which):
    """An optimizer step on a parameter (or gradient) with unusual storage updates it like a
    clean one, or (a parameter in read-only or stride-0 memory) raises PyTorch's error."""
    rng = np.random.default_rng(1)
    a, g = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    if layout == "empty":
        a, g = a[:0], g[:0]
        p, gt = nbgrad.tensor(a), nbgrad.tensor(g)
    elif which == "param":
        p, gt = LAYOUTS[layout](a), nbgrad.tensor(g)
    else:
        p, gt = nbgrad.tensor(a), LAYOUTS[layout](g)
    if p is None or gt is None:
        pytest.skip("layout does not apply")
    name, kw = opt.split("_")[0], ({"momentum": 0.9} if opt == "SGD_momentum" else {})
    results = []
    for param, grad in ((p, gt), (_clean(p), _clean(gt))):
        param = param.detach().requires_grad_() if param._base is not None else param
        param.requires_grad_()
        param.grad = grad
        o = getattr(nbgrad.optim, name)([param], lr=0.1, **kw)
        ok, err = _call(lambda: (o.step(), o.step()))
        results.append((ok, err, _values(param)))
    (ok, err, got), (ok_c, _, want) = results
    assert ok_c
    if not ok:
        assert which == "param" and layout in ("readonly", "unaligned_ro", "stride0_ro",
                                               "stride0", "expanded"), err
        assert "unsupported operation" in str(err)
        return
    _same(got, want)
