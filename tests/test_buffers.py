"""Tensors over other objects' memory and lent to other libraries (``frombuffer``,
``from_dlpack``, ``to_dlpack``, ``__dlpack__``), ``gradient`` (finite differences) and the
deprecated ``range``, against PyTorch."""

import array
import doctest
import warnings

import numpy as np
import pytest

import nbgrad
from tests._errors import assert_same_error

torch = pytest.importorskip("torch")
RNG = np.random.default_rng(0)


def test_frombuffer_shares_memory_as_torch():
    for m in (nbgrad, torch):
        b = bytearray(b"\x01\x00\x00\x00\x02\x00\x00\x00\x03\x00")
        t = m.frombuffer(b, dtype=m.int32, count=2)
        u = m.frombuffer(b, dtype=m.int8, count=3, offset=4)
        b[0] = 7
        t[1] = 5
        assert t.tolist() == [7, 5] and u.tolist() == [5, 0, 0] and b[4] == 5
        assert m.frombuffer(array.array("d", [1.5, 2.5]), dtype=m.float64).tolist() == [1.5, 2.5]
        w = m.frombuffer(bytearray(8), dtype=m.float32, requires_grad=True)
        assert w.requires_grad and w.is_leaf


@pytest.mark.parametrize("call", [
    lambda m: m.frombuffer(bytearray(8), dtype=m.int32, offset=-1),
    lambda m: m.frombuffer(bytearray(8), dtype=m.int32, offset=8),
    lambda m: m.frombuffer(bytearray(8), dtype=m.int32, count=0),
    lambda m: m.frombuffer(bytearray(0), dtype=m.int32),
    lambda m: m.frombuffer(bytearray(8), dtype=m.int32, count=3),
    lambda m: m.frombuffer(bytearray(7), dtype=m.int32),
    lambda m: m.frombuffer([1, 2], dtype=m.int32),
    lambda m: m.ones(2, requires_grad=True).__dlpack__(),
])
def test_buffer_errors_match_torch(call):
    assert_same_error(call, torch, nbgrad)


def test_dlpack_both_ways_shares_memory():
    a = np.arange(3.0)
    t = nbgrad.from_dlpack(a)
    a[0] = 9.0
    assert t.tolist() == [9.0, 1.0, 2.0] and t.dtype == nbgrad.float64
    x = nbgrad.arange(4, dtype=nbgrad.int32)
    for other in (np.from_dlpack(x), torch.from_dlpack(x)):
        x[0] = 7
        assert int(other[0]) == 7 and str(other.dtype).endswith("int32")
    tt = torch.arange(3.0)
    y = nbgrad.from_dlpack(tt)
    tt[1] = -1.0
    assert y.tolist() == [0.0, -1.0, 2.0]
    cap = nbgrad.utils.dlpack.to_dlpack(nbgrad.arange(3.0))
    assert nbgrad.utils.dlpack.from_dlpack(cap).tolist() == [0.0, 1.0, 2.0]
    assert nbgrad.ones(2).__dlpack_device__() == torch.ones(2).__dlpack_device__()
    assert nbgrad.from_dlpack(x) is x


_GRADIENT = [
    dict(), dict(dim=1), dict(dim=[1, 0], spacing=[2.0, 3.0]), dict(edge_order=2),
    dict(spacing=0.5, dim=-1, edge_order=2), dict(coordinates=True),
    dict(coordinates=True, edge_order=2),
]


@pytest.mark.parametrize("kw", _GRADIENT)
def test_gradient_matches_torch(kw):
    x = RNG.standard_normal((4, 5))
    coords = np.array([0.0, 1.0, 3.0, 4.0, 7.0])
    res = []
    for m in (nbgrad, torch):
        k = dict(kw)
        if k.pop("coordinates", False):
            k.update(spacing=[m.tensor(coords)], dim=1)
        xs = m.tensor(x, requires_grad=True)
        out = m.gradient(xs, **k)
        sum(o.sum() * (i + 1) for i, o in enumerate(out)).backward()
        res.append([o.detach().numpy() for o in out] + [xs.grad.numpy()])
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-14, atol=1e-14)
    ints = nbgrad.gradient(nbgrad.tensor([1, 4, 9, 16]))[0]
    assert ints.dtype == nbgrad.float32 and ints.tolist() == [3.0, 4.0, 6.0, 7.0]


def test_gradient_differentiates_twice():
    x = nbgrad.tensor(RNG.standard_normal((3, 4)), requires_grad=True)
    c = nbgrad.tensor([0.0, 0.5, 2.0, 2.5], dtype=nbgrad.float64, requires_grad=True)
    f = lambda a, s: nbgrad.gradient(a * a, spacing=[s], dim=1, edge_order=2)[0]
    assert nbgrad.autograd.gradcheck(f, (x, c))
    assert nbgrad.autograd.gradgradcheck(f, (x, c))


@pytest.mark.parametrize("call", [
    lambda m: m.gradient(m.ones(2, 3), edge_order=3),
    lambda m: m.gradient(m.ones(2, 3), dim=1, spacing=[1.0, 2.0]),
    lambda m: m.gradient(m.ones(2, 3), dim=[0, 0]),
    lambda m: m.gradient(m.ones(1, 3), dim=0),
    lambda m: m.range(1, 4, 0), lambda m: m.range(4, 1),
    lambda m: m.range(1, float("inf")),
])
def test_gradient_and_range_errors_match_torch(call):
    assert_same_error(call, torch, nbgrad)


def test_range_is_inclusive_and_deprecated_as_torch():
    for args, kw in [((1, 4), {}), ((0, 1, 0.1), {}), ((1, 4), {"dtype": "int32"}),
                     ((0.0, 0.9999999, 0.1), {}), ((0, 1, 0.3), {"dtype": "float64"}),
                     ((5, 1, -2), {})]:
        got = []
        for m in (nbgrad, torch):
            k = {n: getattr(m, v) for n, v in kw.items()}
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                r = m.range(*args, **k)
            assert "torch.range is deprecated" in str(w[0].message)
            got.append((r.tolist(), str(r.dtype).split(".")[-1]))
        assert got[0] == got[1]
    with pytest.warns(UserWarning):
        assert nbgrad.range(1, 3, requires_grad=True).requires_grad


def test_docstring_examples_run():
    from nbgrad import buffers
    from nbgrad.ops import finite_differences

    for mod in (buffers, finite_differences):
        res = doctest.testmod(mod, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        assert res.attempted and not res.failed
