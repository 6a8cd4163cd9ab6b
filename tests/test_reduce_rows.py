"""The rows of the reduction and statistics ops (ops/reducedef.py's table), checked row by
row: every row has a case here; each case's value, gradient, node name and saved values
(``grad_fn._saved_*``) match PyTorch's; the row's shape and dtype rules give what the op
returns; gradcheck and gradgradcheck pass in float64; the public surface comes from the
rows' flags."""

import numpy as np
import pytest

import nbgrad
from nbgrad.autograd import gradcheck, gradgradcheck
from nbgrad.ops import reduce as R  # noqa: F401  (the rows join the table on import)
from nbgrad.ops import stats  # noqa: F401
from nbgrad.ops.reducedef import TABLE

torch = pytest.importorskip("torch")

TIES = np.array([[1.0, 3.0, 3.0, -1.0], [2.0, 2.0, 0.0, 2.0], [0.5, -4.0, 7.0, 7.0]])


# (row, input: shape or array, public call fn(m, x), the row's normalized args[, gradcheck])
CASES = [
    ("sum", (3, 4), lambda m, x: x.sum(), (None,)),
    ("sum.dim_IntList", (3, 4, 2), lambda m, x: m.sum(x, (0, 2)), ((0, 2), False, None)),
    ("sum.dim_IntList", (3, 4), lambda m, x: x.sum(dim=None, keepdim=True),
     ((0, 1), True, None)),
    # (through float32: values and gradients to float32 precision, no gradcheck)
    ("sum", (3, 4), lambda m, x: m.sum(x.float(), dtype=m.float64), (nbgrad.float64,), False),
    ("mean", (3, 4), lambda m, x: x.mean(), (None,)),
    ("mean", (3, 4), lambda m, x: x.mean(dtype=m.float64), (nbgrad.float64,)),
    ("mean.dim", (3, 4), lambda m, x: m.mean(x, 1, keepdim=True), ((1,), True, None)),
    ("amax", (3, 4), lambda m, x: x.amax(1), ((1,), False)),
    ("amax", TIES, lambda m, x: x.amax(1), ((1,), False)),
    ("amin", (2, 3, 4), lambda m, x: m.amin(x, (0, 2), keepdim=True), ((0, 2), True)),
    ("amin", TIES, lambda m, x: x.amin(), ((0, 1), False)),
    ("max", (3, 4), lambda m, x: x.max(), ()),
    ("max", TIES, lambda m, x: m.max(x), ()),
    ("min", (3, 4), lambda m, x: x.min(), ()),
    ("max.dim", (3, 4), lambda m, x: x.max(1).values, (1, False)),
    ("min.dim", (3, 4), lambda m, x: m.min(x, 0, keepdim=True).values, (0, True)),
    ("argmax", (3, 4), lambda m, x: x.argmax(1), (1, False)),
    ("argmin", (3, 4), lambda m, x: m.argmin(x, 0, keepdim=True), (0, True)),
    ("prod", (3, 4), lambda m, x: x.prod(), ()),
    ("prod.dim_int", (3, 4), lambda m, x: m.prod(x, 1), ((1,), False)),
    ("prod.dim_int", np.array([[1.5, 0.0, 2.0], [0.0, 0.0, 3.0], [1.0, 2.0, -1.0]]),
     lambda m, x: x.prod(0, keepdim=True), ((0,), True)),
    ("logsumexp", (3, 4), lambda m, x: x.logsumexp(1), ((1,), False)),
    ("var.correction", (3, 4), lambda m, x: x.var(1), ((1,), 1, False)),
    ("var.correction", (3, 4), lambda m, x: m.var(x), ((0, 1), 1, False)),
    ("std.correction", (3, 4), lambda m, x: m.std(x, 0, correction=0, keepdim=True),
     ((0,), 0, True)),
]


def _input(data):
    if isinstance(data, tuple):
        return np.random.default_rng(len(data) + data[0]).standard_normal(data) + 0.5
    return data


def _dims(d, ndim):
    if d is None or d == () or d == []:
        return tuple(range(ndim))
    return tuple(sorted(x % ndim for x in (d if isinstance(d, (tuple, list)) else (d,))))


def _ids():
    return [f"{q}-{i}" for i, (q, *_rest) in enumerate(CASES)]


def test_every_row_has_a_case():
    assert set(TABLE) == {c[0] for c in CASES}


@pytest.mark.parametrize("case", CASES, ids=_ids())
def test_row_matches_torch(case):
    qualname, data, call, args = case[:4]
    row = TABLE[qualname]
    a = _input(data)
    x = nbgrad.tensor(a, requires_grad=True)
    tx = torch.tensor(a, requires_grad=True)
    y, ty = call(nbgrad, x), call(torch, tx)
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-12, atol=1e-12)
    assert str(y.dtype).split(".")[-1] == str(ty.dtype).split(".")[-1]
    # the rules a compiler reads, without running the op
    assert row.shape(a.shape, *args) == tuple(y.shape)
    odt = row.dtype(x.dtype, *args)
    assert (odt[0] if isinstance(odt, tuple) else odt) is y.dtype
    if row.node is None:
        assert y.grad_fn is None and ty.grad_fn is None
        return
    assert type(y.grad_fn) is row.node
    assert y.grad_fn.name() == ty.grad_fn.name()
    names = {n for n in dir(ty.grad_fn) if n.startswith("_saved_")}
    assert names == {n for n in dir(y.grad_fn) if n.startswith("_saved_")}
    for n in names:
        v, tv = getattr(y.grad_fn, n), getattr(ty.grad_fn, n)
        if isinstance(tv, torch.Tensor):
            np.testing.assert_allclose(v.detach().numpy(), tv.detach().numpy(), rtol=1e-12)
        elif n == "_saved_correction":  # (torch keeps None for the default, 1)
            assert v == (1 if tv is None else tv)
        elif n == "_saved_dim":  # nbgrad records dims normalized: every dim for None/()
            assert _dims(v, a.ndim) == _dims(tv, a.ndim)
        else:
            assert (tuple(v) if isinstance(tv, (tuple, list)) else v) == (
                tuple(tv) if isinstance(tv, (tuple, list)) else tv), n
    w = np.random.default_rng(1).standard_normal(tuple(y.shape))
    (g,) = nbgrad.autograd.grad((y * nbgrad.tensor(w)).sum(), [x])
    (tg,) = torch.autograd.grad((ty * torch.tensor(w)).sum(), [tx])
    # (through a float32 input torch rounds the float64 gradient to float32 on its way;
    # nbgrad, before and after the rows, hands it on unrounded)
    rtol = 1e-6 if case[4:] == (False,) else 1e-10
    np.testing.assert_allclose(g.numpy(), tg.numpy(), rtol=rtol, atol=1e-12)


@pytest.mark.parametrize(
    "case", [c for c in CASES if isinstance(c[1], tuple) and TABLE[c[0]].node is not None
             and c[4:] != (False,)], ids=lambda c: c[0])
def test_row_gradcheck_and_gradgradcheck(case):
    qualname, data, call, _args = case[:4]
    x = nbgrad.tensor(_input(data), requires_grad=True)
    assert gradcheck(lambda t: call(nbgrad, t), (x,))
    assert gradgradcheck(lambda t: call(nbgrad, t), (x,))


def test_surface_comes_from_the_rows():
    for row in TABLE.values():
        assert row.front is not None, row
        assert row.front.__name__ == row.name
        if row.fn:
            assert getattr(nbgrad, row.name) is row.front
        if row.method:
            assert getattr(nbgrad.Tensor, row.name) is row.front


def test_saved_sizes_survive_backward():
    # sizes are attrs, not saved tensors: a second backward through SumBackward0 works
    x = nbgrad.tensor([1.0, 2.0], requires_grad=True)
    y = x.sum()
    y.backward()
    y.backward()
    assert y.grad_fn._saved_self_sym_sizes == (2,)
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0])


@pytest.mark.parametrize("call", [
    lambda m: m.arange(3).mean(5), lambda m: m.arange(3).var(5), lambda m: m.arange(3).std(5),
    lambda m: m.arange(3).sum(5), lambda m: m.zeros(0, 2).amax(5), lambda m: m.zeros(2, 0).max(1),
])
def test_errors_in_torch_order(call):
    # the dtype is refused before a dim is parsed, as PyTorch
    with pytest.raises(Exception) as want:
        call(torch)
    with pytest.raises(type(want.value)) as got:
        call(nbgrad)
    assert str(got.value)[:40] == str(want.value)[:40]
