"""median and quantile against PyTorch: values, indices, shapes, NaN, gradients, errors."""

import numpy as np
import pytest

import nbgrad
from nbgrad.ops import sort

torch = pytest.importorskip("torch")
NAN = float("nan")
A = [[3.0, 1.0, 2.0, 5.0], [NAN, 1.0, 0.0, 2.0]]
CALLS = [
    lambda m, x: m.median(x),
    lambda m, x: m.median(x, 1),
    lambda m, x: x.median(0, keepdim=True),
    lambda m, x: m.median(m.tensor([2, 1, 2, 2]), 0),
    lambda m, x: m.median(x[0]),
    lambda m, x: m.quantile(x[0], 0.3),
    lambda m, x: m.quantile(x, m.tensor([0.25, 0.5], dtype=x.dtype), dim=1, keepdim=True),
    lambda m, x: m.quantile(x, 0.5, dim=1),
    lambda m, x: x[:, 1:].quantile(m.tensor([0.5, 0.9], dtype=x.dtype), keepdim=True),
] + [(lambda i: lambda m, x: m.quantile(x[0], m.tensor([0.1, 0.375, 0.625], dtype=x.dtype),
                                         interpolation=i))(i)
     for i in ("lower", "higher", "midpoint", "nearest")]


def _compare(call, data, rows=slice(None)):
    """``call`` on ``data`` in nbgrad and PyTorch: its outputs' shapes, dtypes and values,
    and the gradient (in ``rows``) of its first output for a seed 1, 2, ..."""
    a, ta = nbgrad.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    got, want = call(nbgrad, a), call(torch, ta)
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    for g, w in zip(got, want):
        assert tuple(g.shape) == tuple(w.shape)
        assert str(g.dtype).split(".")[-1] == str(w.dtype).split(".")[-1]
        np.testing.assert_allclose(g.detach().double().numpy(), w.detach().double().numpy(),
                                   rtol=1e-6)
    if want[0].requires_grad:
        seed = np.arange(want[0].numel(), dtype=np.float32).reshape(tuple(want[0].shape)) + 1
        got[0].backward(nbgrad.tensor(seed))
        want[0].backward(torch.tensor(seed))
        np.testing.assert_allclose(a.grad.numpy()[rows], ta.grad.numpy()[rows], rtol=1e-6)


@pytest.mark.parametrize("k", range(len(CALLS)))
def test_values_indices_and_gradients_match_torch(k):
    _compare(CALLS[k], A)


def test_errors_and_the_docstring_examples():
    import doctest

    for m in (nbgrad, torch):
        with pytest.raises(RuntimeError, match="must be either float or double"):
            m.quantile(m.tensor([1, 2]), 0.5)
        with pytest.raises(RuntimeError, match=r"q must be in the range \[0, 1\]"):
            m.quantile(m.tensor([1.0, 2.0]), 1.5)
    res = doctest.testmod(sort)
    assert res.attempted and not res.failed


SCANS = [
    lambda m: m.cummax(m.tensor([1.0, 3, 3, 2, NAN, 5, NAN]), 0),
    lambda m: m.cummin(m.tensor([[3, 1, 1], [0, 2, -1]]), 1),
    lambda m: m.cummax(m.tensor(2.0), 0),
    lambda m: m.tensor([[1.0, 5], [2, 2], [7, 0]]).cummax(0),
    lambda m: m.cummin(m.tensor([NAN, 1.0, 0.0]), 0),
    lambda m: m.cummax(m.zeros(2, 0), 1),
]


@pytest.mark.parametrize("k", range(len(SCANS)))
def test_cummax_cummin_match_torch(k):
    got, want = SCANS[k](nbgrad), SCANS[k](torch)
    for g, w in zip(got, want):
        assert tuple(g.shape) == tuple(w.shape) and str(g.dtype)[7:] == str(w.dtype)[6:]
        np.testing.assert_array_equal(g.double().numpy(), w.double().numpy())


def test_cummax_gradient_matches_torch():
    grads = []
    for m in (nbgrad, torch):
        x = m.tensor([[1.0, 5], [2, 2], [7, 0]], requires_grad=True)
        (m.cummax(x, 0).values * m.arange(6.0).reshape(3, 2)).sum().backward()
        (m.cummin(x, 1).values * 3).sum().backward()
        grads.append(x.grad.tolist())
    assert grads[0] == grads[1]


B = [[3.0, NAN, 2.0, 5.0], [NAN, NAN, NAN, NAN], [4.0, 1.0, NAN, 0.0]]
NAN_CALLS = [
    lambda m, x: m.nanmedian(x),
    lambda m, x: m.nanmedian(x[0::2], 1),
    lambda m, x: m.nanmedian(x, 1).values,  # (an all-NaN slice: its index is PyTorch's own)
    lambda m, x: x.nanmedian(0, keepdim=True),
    lambda m, x: m.nanquantile(x, 0.4, dim=1),
    lambda m, x: m.nanquantile(x, m.tensor([0.1, 0.9]), dim=1, keepdim=True),
    lambda m, x: x.nanquantile(0.5),
    lambda m, x: m.nanmedian(x[2]),
]


@pytest.mark.parametrize("k", range(len(NAN_CALLS)))
def test_nanmedian_nanquantile_match_torch(k):
    # (the all-NaN row's gradient goes to whichever NaN each picks: PyTorch's choice there
    # comes from its selection algorithm, not from a rule: rows 0 and 2 are compared)
    _compare(NAN_CALLS[k], B, rows=slice(0, None, 2))


def test_named_results_carry_pytorchs_type_names():
    x = [[3.0, 1.0, 2.0], [4.0, NAN, 0.0]]
    for call in (lambda m, t: m.median(t, 1), lambda m, t: m.nanmedian(t, 1),
                 lambda m, t: m.sort(t, 1), lambda m, t: m.topk(t, 2),
                 lambda m, t: m.kthvalue(t, 1), lambda m, t: m.cummax(t, 1)):
        ours, theirs = call(nbgrad, nbgrad.tensor(x)), call(torch, torch.tensor(x))
        assert type(ours).__name__ == type(theirs).__name__
        np.testing.assert_array_equal(ours.values.numpy(), theirs.values.numpy())
