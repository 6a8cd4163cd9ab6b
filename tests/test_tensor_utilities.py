"""masked_fill, tril / triu, square, cumsum, cumprod, fmod, sort / argsort / topk / kthvalue, roll,
multinomial and randperm: values, dtypes and nodes against PyTorch where it is installed (and
fixed expectations always), gradients by finite differences in float64, PyTorch's errors."""

import numpy as np
import pytest
from _errors import error_of

import nbgrad
from nbgrad.autograd import gradcheck, gradgradcheck

try:
    import torch
except ImportError:  # the fixed expectations and finite differences still run
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="needs torch")


def _host(t):
    return t.detach().numpy() if hasattr(t, "detach") else np.asarray(t)


def _same(got, want):
    got, want = _host(got), _host(want)
    assert got.shape == want.shape
    assert str(got.dtype) == str(want.dtype)
    np.testing.assert_array_equal(got, want)



# ----- fixed expectations -------------------------------------------------------------------
def test_masked_fill_tril_triu_by_hand():
    x = nbgrad.arange(6.0).reshape(2, 3)
    mask = nbgrad.tensor([True, False, True])
    assert x.masked_fill(mask, -1.0).tolist() == [[-1, 1, -1], [-1, 4, -1]]
    assert nbgrad.tril(x).tolist() == [[0, 0, 0], [3, 4, 0]]
    assert nbgrad.triu(x, 1).tolist() == [[0, 1, 2], [0, 0, 5]]
    assert nbgrad.tril(x, -1).tolist() == [[0, 0, 0], [3, 0, 0]]
    causal = nbgrad.zeros(3, 3).masked_fill(nbgrad.tril(nbgrad.ones(3, 3)) == 0, float("-inf"))
    assert nbgrad.softmax(causal, -1)[0].tolist() == [1.0, 0.0, 0.0]
    i = nbgrad.zeros(3, dtype=nbgrad.int64).masked_fill(mask, 1.7)  # cast to input's dtype
    assert i.dtype is nbgrad.int64 and i.tolist() == [1, 0, 1]


def test_cumsum_by_hand():
    x = nbgrad.tensor([[1, 2, 3], [4, 5, 6]])
    assert nbgrad.cumsum(x, 1).tolist() == [[1, 3, 6], [4, 9, 15]]
    assert x.cumsum(0).tolist() == [[1, 2, 3], [5, 7, 9]] and x.cumsum(0).dtype is nbgrad.int64
    assert nbgrad.cumsum(nbgrad.tensor([True, True, False]), 0).tolist() == [1, 2, 2]
    assert nbgrad.cumsum(x, -1, dtype=nbgrad.float64).dtype is nbgrad.float64
    # float32 sums accumulate in float64, each output rounded once
    v = np.full(1 << 18, 0.1, np.float32)
    got = nbgrad.cumsum(nbgrad.tensor(v), 0).numpy()
    np.testing.assert_array_equal(got, np.cumsum(v.astype(np.float64)).astype(np.float32))


def test_sort_and_topk_by_hand():
    x = nbgrad.tensor([2.0, float("nan"), 1.0, 2.0, -0.5])
    s = nbgrad.sort(x)
    assert s.indices.tolist() == [4, 2, 0, 3, 1]  # NaN last, ties in order
    d = x.sort(descending=True)
    assert d.indices.tolist() == [1, 0, 3, 2, 4]  # NaN first, ties in order
    assert nbgrad.argsort(x[:3]).tolist() == [2, 0, 1]
    t = nbgrad.topk(nbgrad.tensor([[1.0, 5.0, 3.0], [9.0, 0.0, 4.0]]), 2)
    assert t.values.tolist() == [[5, 3], [9, 4]] and t.indices.tolist() == [[1, 2], [0, 2]]
    k = nbgrad.kthvalue(nbgrad.tensor([3.0, 1.0, 2.0]), 2)
    assert k.values.item() == 2.0 and k.indices.item() == 2
    assert type(s).__name__ == "sort" and s._fields == ("values", "indices")


def test_roll_by_hand():
    x = nbgrad.tensor([[0, 1, 2], [3, 4, 5]])
    assert nbgrad.roll(x, 1).tolist() == [[5, 0, 1], [2, 3, 4]]
    assert x.roll((1, -1), (0, 1)).tolist() == [[4, 5, 3], [1, 2, 0]]
    assert x.roll(0, 0).tolist() == x.tolist()


def test_sampling():
    nbgrad.manual_seed(3)
    p = nbgrad.randperm(6)
    assert p.dtype is nbgrad.int64 and sorted(p.tolist()) == list(range(6))
    nbgrad.manual_seed(3)
    assert nbgrad.randperm(6).tolist() == p.tolist()  # manual_seed repeats it
    assert nbgrad.randperm(3, dtype=nbgrad.float32).dtype is nbgrad.float32
    assert nbgrad.randperm(0).shape == (0,)
    w = nbgrad.tensor([[0.0, 1.0, 0.0], [0.0, 0.0, 2.0]])
    assert nbgrad.multinomial(w, 3, replacement=True).tolist() == [[1, 1, 1], [2, 2, 2]]
    draws = nbgrad.multinomial(nbgrad.ones(50, 4), 4)
    assert all(sorted(row) == [0, 1, 2, 3] for row in draws.tolist())  # no repeats
    # zero weights come last without replacement
    assert nbgrad.multinomial(nbgrad.tensor([1.0, 0.0, 0.0]), 2).tolist() == [0, 1]
    counts = np.bincount(nbgrad.multinomial(nbgrad.tensor([1.0, 3.0]), 4000,
                                            replacement=True).numpy(), minlength=2)
    assert abs(counts[1] / 4000 - 0.75) < 0.04
    first = nbgrad.multinomial(nbgrad.tensor([[1.0, 3.0]] * 4000), 1).numpy()
    assert abs(first.mean() - 0.75) < 0.04
    assert not nbgrad.multinomial(nbgrad.ones(3, requires_grad=True), 2).requires_grad


# ----- gradients: finite differences, and the nodes PyTorch records ------------------------
def _x(*shape, seed=0):
    v = np.random.default_rng(seed).permutation(int(np.prod(shape))).reshape(shape)
    return nbgrad.tensor(v / 7.0 - 0.3, dtype=nbgrad.float64, requires_grad=True)


_ZEROS = nbgrad.tensor([[1.0, 0.0, 1.0, 1.0], [0.0, 1.0, 0.0, 1.0], [1.0, 1.0, 1.0, 1.0]],
                       dtype=nbgrad.float64)
GRAD_CALLS = {
    "masked_fill": lambda x: x.masked_fill(nbgrad.tensor([True, False, True, False]), 2.0),
    "masked_fill_bcast": lambda x: nbgrad.masked_fill(x[0], x[:, :1] > 0.5, -1.0),
    "tril": lambda x: nbgrad.tril(x, 1),
    "triu": lambda x: x.triu(-1),
    "square": lambda x: nbgrad.square(x),
    "cumsum0": lambda x: nbgrad.cumsum(x, 0),
    "cumsum1": lambda x: x.cumsum(-1),
    "cumprod0": lambda x: nbgrad.cumprod(x, 0),
    "cumprod1": lambda x: x.cumprod(-1),
    "cumprod_zeros": lambda x: nbgrad.cumprod(x * _ZEROS, 1),  # (one and two zeros in a row)
    "fmod": lambda x: nbgrad.fmod(x, x.flip(0) + 2.0),
    "fmod_scalar": lambda x: x.fmod(0.25),
    "sort": lambda x: nbgrad.sort(x, 1).values,
    "sort_desc0": lambda x: x.sort(0, descending=True).values,
    "topk": lambda x: nbgrad.topk(x, 2, dim=0).values,
    "topk_smallest": lambda x: x.topk(3, largest=False).values,
    "kthvalue": lambda x: nbgrad.kthvalue(x, 2, 1).values,
    "kthvalue_keepdim": lambda x: x.kthvalue(3, 0, keepdim=True).values,
    "roll": lambda x: nbgrad.roll(x, (1, -2), (0, 1)),
    "roll_flat": lambda x: x.roll(5),
}


@pytest.mark.parametrize("call", list(GRAD_CALLS.values()), ids=list(GRAD_CALLS))
def test_gradients_by_finite_differences(call):
    x = _x(3, 4)
    assert gradcheck(call, (x,))
    assert gradgradcheck(call, (x,))


def test_masked_fill_tensor_value_gradient():
    x, v = _x(2, 3), nbgrad.tensor(0.5, dtype=nbgrad.float64, requires_grad=True)
    mask = nbgrad.tensor([[True, False, False], [False, True, True]])
    assert gradcheck(lambda a, b: a.masked_fill(mask, b), (x, v))
    assert gradgradcheck(lambda a, b: a.masked_fill(mask, b), (x, v))


NODES = {
    "MaskedFillBackward0": lambda m, x: x.masked_fill(x > 0, 0.0),
    "MaskedFillBackward1": lambda m, x: x.masked_fill(x > 0, m.tensor(1.0)),
    "TrilBackward0": lambda m, x: m.tril(x), "TriuBackward0": lambda m, x: m.triu(x),
    "PowBackward0": lambda m, x: m.square(x), "CumsumBackward0": lambda m, x: x.cumsum(0),
    "CumprodBackward0": lambda m, x: x.cumprod(1), "FmodBackward0": lambda m, x: x.fmod(2),
    "FmodBackward1": lambda m, x: m.fmod(x, x.flip(0)),
    "SortBackward0": lambda m, x: x.sort().values, "TopkBackward0": lambda m, x: x.topk(1)[0],
    "KthvalueBackward0": lambda m, x: x.kthvalue(1)[0], "RollBackward0": lambda m, x: x.roll(1),
}


@pytest.mark.parametrize("name", list(NODES))
def test_nodes_are_named_as_pytorchs(name):
    x = nbgrad.tensor([[1.0, -2.0], [3.0, 0.5]], requires_grad=True)
    assert type(NODES[name](nbgrad, x).grad_fn).__name__ == name
    if torch is not None:
        tx = torch.tensor([[1.0, -2.0], [3.0, 0.5]], requires_grad=True)
        assert type(NODES[name](torch, tx).grad_fn).__name__ == name


def test_in_place_forms():
    x = nbgrad.ones(3, 3)
    v = x._version
    assert x.tril_() is x and x._version == v + 1 and x.sum().item() == 6
    x.triu_(1)
    assert x.sum().item() == 0
    y = nbgrad.arange(4.0)
    y.masked_fill_(y > 1, 9.0)
    assert y.tolist() == [0, 1, 9, 9]
    z = nbgrad.tensor([1, 2, 3])
    z.cumsum_(0)
    assert z.tolist() == [1, 3, 6]
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        nbgrad.zeros(3).masked_fill_(nbgrad.tensor([[True], [False]]), 1.0)
    w = nbgrad.tensor([1.0, 2.0], requires_grad=True) * 1
    w.masked_fill_(nbgrad.tensor([True, False]), 0.0)
    assert type(w.grad_fn).__name__ == "MaskedFillBackward0"


# ----- against PyTorch: values, indices, dtypes, errors ----------------------------------------
@needs_torch
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "bool"])
def test_values_match_pytorch(dtype):
    rng = np.random.default_rng(1)
    v = rng.integers(-3, 4, (4, 5, 6)).astype(dtype)  # ties on purpose
    a, t = nbgrad.tensor(v), torch.from_numpy(v.copy())
    calls = [
        lambda m, x: m.tril(x, 1), lambda m, x: m.triu(x, -2),
        lambda m, x: x.masked_fill(x > 0 if x.dtype != m.bool else x, 7),
        lambda m, x: m.roll(x, (2, -1), (0, 2)), lambda m, x: m.roll(x, 7),
    ]
    if dtype != "bool":
        calls += [lambda m, x: m.cumsum(x, 1), lambda m, x: x.cumsum(-1),
                  lambda m, x: m.square(x), lambda m, x: m.cumprod(x, 0),
                  lambda m, x: x.cumprod(2, dtype=m.float64),
                  lambda m, x: m.fmod(x, m.where(x == 0, 5, x).flip(1)),
                  lambda m, x: m.fmod(x, -3), lambda m, x: x.fmod(2.5)]
    for call in calls:
        _same(call(nbgrad, a), call(torch, t))
    for d in (0, 1, -1):
        for desc in (False, True):
            got = nbgrad.sort(a, d, desc)
            want = torch.sort(t, dim=d, descending=desc, stable=True)
            _same(got.values, want.values)
            _same(got.indices, want.indices)
            _same(nbgrad.argsort(a, d, desc), torch.argsort(t, dim=d, descending=desc,
                                                            stable=True))


@needs_torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_float_specials_and_selection_match_pytorch(dtype):
    rng = np.random.default_rng(2)
    v = rng.standard_normal((6, 7)).astype(dtype)
    v[0, :3] = np.nan
    v[1, 2] = -0.0
    v[2, 1:3] = [np.inf, -np.inf]
    a, t = nbgrad.tensor(v), torch.from_numpy(v.copy())
    for d in (0, 1):
        for desc in (False, True):
            got, want = nbgrad.sort(a, d, desc), torch.sort(t, dim=d, descending=desc,
                                                            stable=True)
            np.testing.assert_array_equal(got.values.numpy(), want.values.numpy())
            _same(got.indices, want.indices)
        _same(nbgrad.cumsum(a, d), torch.cumsum(t, d))
        _same(nbgrad.cumprod(a, d), torch.cumprod(t, d))
    _same(nbgrad.fmod(a, a.flip(0)), torch.fmod(t, t.flip(0)))
    _same(nbgrad.fmod(a * 1e6, 0.37), torch.fmod(t * 1e6, 0.37))
    w = rng.standard_normal((5, 9)).astype(dtype)  # distinct: topk's order is then unique
    a, t = nbgrad.tensor(w), torch.from_numpy(w.copy())
    for k, d, largest in [(3, 1, True), (2, 0, False), (9, -1, True), (0, 1, True)]:
        got, want = nbgrad.topk(a, k, d, largest), torch.topk(t, k, d, largest)
        _same(got.values, want.values)
        _same(got.indices, want.indices)
    for k, d, keep in [(1, 1, False), (5, 0, True), (9, 1, False)]:
        got, want = nbgrad.kthvalue(a, k, d, keep), torch.kthvalue(t, k, d, keep)
        _same(got.values, want.values)
        _same(got.indices, want.indices)


@needs_torch
def test_gradients_match_pytorch():
    v = np.random.default_rng(4).standard_normal((4, 5))
    seed = np.random.default_rng(5).standard_normal((4, 5))
    for call in [lambda m, x: m.tril(x).cumsum(1) * x.masked_fill(x > 0.3, 0.5),
                 lambda m, x: m.cumprod(x, 1) + m.cumprod(x.masked_fill(x.abs() < 0.5, 0), 0),
                 lambda m, x: m.fmod(x * 3, x.flip(1)) + x.fmod(0.3),
                 lambda m, x: m.sort(x, 0, descending=True).values.roll(1, 1) ** 2,
                 lambda m, x: m.topk(x, 3).values.sum(1, keepdim=True) * m.square(x)]:
        a = nbgrad.tensor(v, requires_grad=True)
        t = torch.tensor(v, requires_grad=True)
        (call(nbgrad, a) * nbgrad.tensor(seed)).sum().backward()
        (call(torch, t) * torch.tensor(seed)).sum().backward()
        np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), rtol=1e-12, atol=1e-12)


ERRORS = [
    lambda m: m.zeros(3).masked_fill(m.tensor([1, 0, 1]), 0.0),
    lambda m: m.zeros(3).masked_fill(m.tensor([True, False, True]), m.tensor([1.0, 2.0])),
    lambda m: m.tril(m.ones(3)), lambda m: m.triu(m.tensor(1.0)),
    lambda m: m.cumsum(m.ones(2), 2), lambda m: m.topk(m.ones(3), 4),
    lambda m: m.cumprod(m.ones(2), 1), lambda m: m.fmod(m.tensor([1, 2]), 0),
    lambda m: m.fmod(m.tensor([True]), m.tensor([True])),
    lambda m: m.fmod(m.tensor([4, 5]), m.tensor([2, 0])),
    lambda m: m.topk(m.ones(3), -1), lambda m: m.kthvalue(m.ones(3), 0),
    lambda m: m.kthvalue(m.ones(2, 3), 4, 1), lambda m: m.roll(m.ones(3), (1, 2), 0),
    lambda m: m.roll(m.ones(3), 1, 2), lambda m: m.roll(m.ones(3), [], []),
    lambda m: m.multinomial(m.tensor(1.0), 1), lambda m: m.multinomial(m.ones(3), 4),
    lambda m: m.multinomial(m.zeros(3), 1), lambda m: m.multinomial(m.tensor([1.0, -1.0]), 1),
    lambda m: m.multinomial(m.tensor([1.0, float("nan")]), 1),
    lambda m: m.multinomial(m.tensor([1, 2]), 1), lambda m: m.multinomial(m.ones(3), 0),
    lambda m: m.randperm(-1),
]


@pytest.mark.parametrize("call", ERRORS)
def test_errors_are_pytorchs(call):
    got = error_of(lambda: call(nbgrad))
    assert got is not None and "numba" not in got[1].lower()
    if torch is not None:
        assert got == error_of(lambda: call(torch))


def test_docstring_examples_run():
    import doctest

    from nbgrad.ops import concat, condition, sampling, scan, selection, sort

    for mod in (selection, scan, sort, sampling, concat, condition):
        res = doctest.testmod(mod, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        assert res.attempted and not res.failed, mod.__name__


# ----- nonzero, argwhere, masked_select, diag (ops/condition.py) ----------------------------
def test_nonzero_argwhere_masked_select_and_diag_by_hand():
    x = nbgrad.tensor([[0.0, 1.0, 2.0], [3.0, 0.0, 5.0]])
    assert nbgrad.nonzero(x).tolist() == [[0, 1], [0, 2], [1, 0], [1, 2]]
    assert [t.tolist() for t in x.nonzero(as_tuple=True)] == [[0, 0, 1, 1], [1, 2, 0, 2]]
    assert nbgrad.argwhere(x).dtype is nbgrad.int64
    assert tuple(nbgrad.nonzero(nbgrad.zeros(2, 3)).shape) == (0, 2)
    assert tuple(nbgrad.nonzero(nbgrad.tensor(3.0)).shape) == (1, 0)
    assert nbgrad.masked_select(x, x > 1).tolist() == [2.0, 3.0, 5.0]
    assert x.masked_select(nbgrad.tensor([True, False, True])).tolist() == [0, 2, 3, 5]
    assert nbgrad.diag(nbgrad.tensor([1, 2]), 1).tolist() == [[0, 1, 0], [0, 0, 2], [0, 0, 0]]
    assert x.diag().tolist() == [0.0, 0.0] and nbgrad.diag(x, -1).tolist() == [3.0]
    assert nbgrad.diag(x, 5).tolist() == []


def test_masked_select_and_diag_gradients():
    x = nbgrad.tensor(np.random.default_rng(7).standard_normal((3, 4)), requires_grad=True)
    mask = nbgrad.tensor([True, False, True, True])
    assert gradcheck(lambda t: nbgrad.masked_select(t, mask), (x,))
    assert gradgradcheck(lambda t: nbgrad.masked_select(t * t, t > 0), (x,))
    assert gradcheck(lambda t: nbgrad.diag(t, 1), (x,))
    v = nbgrad.tensor([0.5, -1.5, 2.0], dtype=nbgrad.float64, requires_grad=True)
    assert gradcheck(lambda t: nbgrad.diag(t, -1), (v,))
    assert gradgradcheck(lambda t: nbgrad.diag(t * t), (v,))


@needs_torch
def test_nonzero_masked_select_and_diag_match_pytorch():
    rng = np.random.default_rng(8)
    v = rng.integers(-1, 2, (3, 4)).astype(np.float64)
    a, t = nbgrad.tensor(v, requires_grad=True), torch.tensor(v, requires_grad=True)
    _same(nbgrad.nonzero(a), torch.nonzero(t))
    for x, y in zip(nbgrad.nonzero(a, as_tuple=True), torch.nonzero(t, as_tuple=True)):
        _same(x, y)
    for k in (-2, 0, 1, 3):
        _same(nbgrad.diag(a, k), torch.diag(t, k))
        _same(nbgrad.diag(a[0], k), torch.diag(t[0], k))
    got, want = nbgrad.masked_select(a, a > 0), torch.masked_select(t, t > 0)
    _same(got, want)
    (got * 2).sum().backward()
    (want * 2).sum().backward()
    _same(a.grad, t.grad)


CONDITION_ERRORS = [
    lambda m: m.masked_select(m.ones(3), m.tensor([1, 0, 1])),
    lambda m: m.diag(m.ones(2, 2, 2)),
]


@pytest.mark.parametrize("call", CONDITION_ERRORS)
def test_condition_errors_are_pytorchs(call):
    got = error_of(lambda: call(nbgrad))
    assert got is not None
    if torch is not None:
        assert got == error_of(lambda: call(torch))


def test_fill_diagonal_clamp_min_max_and_ndimension_match_torch():
    import torch

    res = []
    for m in (nbgrad, torch):
        x = m.zeros(5, 3)
        x.fill_diagonal_(2.0)
        y = m.zeros(7, 3)
        y.fill_diagonal_(1.0, wrap=True)
        z = m.zeros(2, 2, 2)
        z.fill_diagonal_(4)
        a = m.tensor([-1.0, 2, 5])
        a.clamp_min_(0)
        b = m.tensor([-1.0, 2, 5])
        b.clamp_max_(1)
        c = m.tensor([-1.0, 2.0])
        c.clip_(0, 1)
        res.append([t.tolist() for t in (x, y, z, a, b, c)] + [x.ndimension()])
        with pytest.raises(RuntimeError, match="all dimensions of input must be of equal"):
            m.zeros(2, 3, 2).fill_diagonal_(1)
    assert res[0] == res[1]
