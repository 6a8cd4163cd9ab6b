"""uint8, int8 and int16 (#16 breadth: images and masks arrive as uint8, and PyTorch's RNG
state is one): promotion, wrapping arithmetic, numbers out of range, casts, indexing,
shifts, reductions and random integers, against PyTorch."""

import io
import warnings

import numpy as np
import pytest

import nbgrad

torch = pytest.importorskip("torch")

SMALL = ("uint8", "int8", "int16")
_RANGE = {"uint8": (0, 256), "int8": (-128, 128), "int16": (-3000, 3000)}

OPS = {
    "add": lambda m, a, b: a + b, "sub": lambda m, a, b: a - b, "mul": lambda m, a, b: a * b,
    "div": lambda m, a, b: a / b, "floordiv": lambda m, a, b: a // b,
    "rem": lambda m, a, b: a % b, "neg": lambda m, a, b: -a, "abs": lambda m, a, b: a.abs(),
    "sign": lambda m, a, b: a.sign(), "eq": lambda m, a, b: a == b,
    "lt": lambda m, a, b: a < b, "maximum": lambda m, a, b: m.maximum(a, b),
    "and": lambda m, a, b: a & b, "or": lambda m, a, b: a | b, "xor": lambda m, a, b: a ^ b,
    "not": lambda m, a, b: ~a, "shl": lambda m, a, b: a << 3, "shr": lambda m, a, b: a >> 2,
    "shl_tensor": lambda m, a, b: m.bitwise_left_shift(a, b.abs() % 20),
    "rshift_number": lambda m, a, b: 1000 >> (b.abs() % 12),
    "add_300": lambda m, a, b: a + 300, "gt_minus_1": lambda m, a, b: a > -1,
    "mul_3": lambda m, a, b: a * 3, "rsub": lambda m, a, b: 5 - a,
    "and_300": lambda m, a, b: a & 300, "add_float": lambda m, a, b: a + 1.5,
    "pow2": lambda m, a, b: a ** 2, "clamp": lambda m, a, b: a.clamp(1, 100),
    "sum": lambda m, a, b: (a.sum(), a.sum(1)), "prod": lambda m, a, b: a.prod(1),
    "cumsum": lambda m, a, b: a.cumsum(0),
    "max": lambda m, a, b: (a.max(), a.max(1).values, a.max(1).indices, a.argmax()),
    "amin": lambda m, a, b: a.amin(0), "sort": lambda m, a, b: a.sort(1).values,
    "topk": lambda m, a, b: a.topk(2).values, "where": lambda m, a, b: m.where(a > b, a, b),
    "cat": lambda m, a, b: m.cat([a, b]), "stack": lambda m, a, b: m.stack([a, b]),
    "index": lambda m, a, b: a[m.tensor([0, 2])], "mask": lambda m, a, b: a[a > b],
    "gather": lambda m, a, b: a.gather(1, m.tensor([[0], [1], [3]])),
    "transpose_copy": lambda m, a, b: a.t().contiguous(), "float": lambda m, a, b: a.float(),
    "long": lambda m, a, b: a.long(), "with_int32": lambda m, a, b: a + b.int(),
    "uint8_and_int8": lambda m, a, b: a.to(m.uint8) + b.to(m.int8),
    "zero_dim_int64": lambda m, a, b: a + m.tensor(100), "eq_number": lambda m, a, b: a == 5,
    "matmul": lambda m, a, b: a @ b.t(), "to_bool": lambda m, a, b: a.bool(),
    "from_float": lambda m, a, b: (a.double() * 1.7 - 3.2).to(a.dtype),
    "in_place": lambda m, a, b: a.add_(b).mul_(2), "fill": lambda m, a, b: a.fill_(3),
}


def _run(m, f, a, b, dt):
    d = getattr(m, dt)
    try:
        r = f(m, m.tensor(a).to(d), m.tensor(b).to(d))
    except Exception as e:  # noqa: BLE001  (both must refuse alike)
        return type(e).__name__
    return [(str(x.dtype).split(".")[-1], x.double().numpy())
            for x in (r if isinstance(r, tuple) else (r,))]


@pytest.mark.parametrize("dt", SMALL)
@pytest.mark.parametrize("name", list(OPS))
def test_op_matches_torch(name, dt):
    rng = np.random.default_rng(abs(hash(name)) % 1000)
    lo, hi = _RANGE[dt]
    a, b = rng.integers(lo, hi, (3, 4)), rng.integers(lo, hi, (3, 4))
    b[b == 0] = 1
    got, want = _run(nbgrad, OPS[name], a, b, dt), _run(torch, OPS[name], a, b, dt)
    if isinstance(want, str):
        assert got == want
        return
    assert [d for d, _ in got] == [d for d, _ in want]
    for (_, x), (_, y) in zip(got, want):
        np.testing.assert_array_equal(x, y)


def test_names_methods_and_printing():
    for name, legacy, scalar in (("uint8", "byte", "Byte"), ("int8", "char", "Char"),
                                 ("int16", "short", "Short")):
        d = getattr(nbgrad, name)
        x = getattr(nbgrad.tensor([1, 2]), legacy)()
        assert x.dtype is d and x.type() == f"nbgrad.{scalar}Tensor"
        assert x.element_size() == d.itemsize and not d.is_floating_point
        assert d.is_signed == (name != "uint8")
        t = getattr(torch.tensor([1, 2]), legacy)()
        assert repr(x * 100) == repr(t * 100).replace("torch.", "nbgrad.")
    assert nbgrad.short is nbgrad.int16


def test_casts_from_floats_truncate_then_wrap():
    vals = np.array([1.7, -1.7, 300.5, -200.2, 65537.9, 0.0, -0.5])
    for dt in SMALL:
        got = nbgrad.tensor(vals).to(getattr(nbgrad, dt))
        want = torch.tensor(vals).to(getattr(torch, dt))
        assert got.dtype is getattr(nbgrad, dt)
        np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_numpy_interop_and_saving():
    img = np.arange(12, dtype=np.uint8).reshape(3, 4) * 20
    x = nbgrad.from_numpy(img)
    assert x.dtype is nbgrad.uint8 and (x.float() / 255).dtype is nbgrad.float32
    assert x.numpy().dtype == np.uint8 and x.max().item() == 220
    buf = io.BytesIO()
    nbgrad.save({"u": x, "c": x.char(), "s": x.short() * 300}, buf)
    buf.seek(0)
    back = nbgrad.load(buf)
    for k, v in {"u": x, "c": x.char(), "s": x.short() * 300}.items():
        assert back[k].dtype is v.dtype
        np.testing.assert_array_equal(back[k].numpy(), v.numpy())


def test_indexing_with_small_int_tensors():
    x = nbgrad.arange(5.0)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        got = x[nbgrad.tensor([1, 0, 1, 0, 1], dtype=nbgrad.uint8)]  # a mask, as PyTorch
    assert got.tolist() == [0.0, 2.0, 4.0]
    assert any("indexing with dtype nbgrad.uint8 is now deprecated" in str(i.message) for i in w)
    for dt in ("int8", "int16"):
        with pytest.raises(IndexError, match="must be long, int, byte or bool tensors"):
            x[nbgrad.tensor([1, 0], dtype=getattr(nbgrad, dt))]
        with pytest.raises(IndexError, match="must be long, int, byte or bool tensors"):
            torch.arange(5.0)[torch.tensor([1, 0], dtype=getattr(torch, dt))]


def test_random_integers_as_torch():
    for f in (lambda m: m.randint(0, 256, (20,), dtype=m.uint8),
              lambda m: m.randint(-100, 100, (7,), dtype=m.int8),
              lambda m: m.empty(9, dtype=m.int16).random_(),
              lambda m: m.empty(9, dtype=m.uint8).random_(3, 200)):
        torch.manual_seed(11)
        nbgrad.manual_seed(11)
        want, got = f(torch), f(nbgrad)
        assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
        np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_python_numbers_out_of_range_are_refused_at_creation():
    for m in (nbgrad, torch):
        for dt, data in (("uint8", [[1, 2], [3, 256]]), ("int8", [1, 200]),
                         ("int16", [1, 40000]), ("uint8", [1.5, -2.7])):
            with pytest.raises(RuntimeError, match=f"value cannot be converted to type {dt} "
                                                   "without overflow"):
                m.tensor(data, dtype=getattr(m, dt))
        assert m.tensor([1.5, 254.9, -1], dtype=m.uint8).tolist() == [1, 254, 255]
        assert m.tensor([True, False], dtype=m.int8).tolist() == [1, 0]


def test_creation_range_checks_follow_c10():
    for v in (-1, -128, -255, -256, 256, 255, 1e10, -0.0, -0.9, 255.5, 127.9, 128.0, -128.9):
        for dt in ("uint8", "int8"):
            res = []
            for m in (nbgrad, torch):
                try:
                    res.append(m.tensor([v], dtype=getattr(m, dt)).tolist())
                except RuntimeError as e:
                    res.append(str(e))
            assert res[0] == res[1], (v, dt)
