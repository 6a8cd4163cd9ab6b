"""PyTorch's ``out=`` on the functions of the ``nbgrad`` namespace (``nbgrad/_out.py``):
values, dtypes (out's dtype for functions that take ``dtype``, PyTorch's casting rule
otherwise), resizing, tuples of outputs, the autograd refusal, the write in place; each
case run with both libraries."""

import warnings

import pytest

import nbgrad

CASES = [
    'x = L.tensor([1.5, 2.25, 3.125]); o = L.empty((), dtype=L.float64); r = L.sum(x, 0, out=o)',
    'x = L.tensor([1.5, 2.25, 3.125]); o = L.empty((), dtype=L.int64); r = L.sum(x, 0, out=o)',
    'xi = L.tensor([1, 2, 3]); r = L.sum(xi, 0, out=L.empty(()))',
    'x = L.tensor([1.5, 2.25, 3.125]); r = L.mean(x, 0, out=L.empty((), dtype=L.float64))',
    'x = L.tensor([1.5, 2.25, 3.125]); r = L.cumsum(x, 0, out=L.empty(3, dtype=L.float64))',
    'x = L.tensor([1.5, 2.25, 3.125]); r = L.add(x, x, out=L.empty(3, dtype=L.float64))',
    'x = L.tensor([1.5, 2.25, 3.125]); r = L.add(x, x, out=L.empty(3, dtype=L.int64))',
    'xi = L.tensor([1, 2, 3]); r = L.add(xi, xi, out=L.empty(3))',
    'xi = L.tensor([1, 2, 3]); r = L.div(xi, xi, out=L.empty(3, dtype=L.int64))',
    'x = L.tensor([1.5, 2.25, 3.125]); r = L.eq(x, x, out=L.empty(3))',
    'r = L.zeros(3, out=L.empty(0, dtype=L.int64))',
    'r = L.arange(5, out=L.empty(0))',
    'r = L.randn(2, out=L.empty(0, dtype=L.float64)).dtype',
    'r = L.full((2,), 1.5, out=L.empty(0, dtype=L.int64))',
    'r = L.add(L.ones(2, requires_grad=True), 1, out=L.empty(2))',
    'r = L.add(L.ones(2), 1, out=L.ones(2, requires_grad=True))',
    'r = L.cat([L.ones(2, requires_grad=True)], out=L.empty(2))',
    'with L.no_grad(): r = L.add(L.ones(2, requires_grad=True), 1, out=L.empty(2))',
    'x = L.tensor([1.5, 2.25, 3.125]); r = L.exp(x, out=L.empty(5))',
    'x = L.tensor([1.5, 2.25, 3.125]); r = L.exp(x, out=L.empty(0))',
    'x = L.tensor([1.5, 2.25, 3.125]); r = tuple(L.max(x, 0, out=(L.empty(()), L.empty((), dtype=L.int64))))',
    'x = L.tensor([1.5, 2.25, 3.125]); r = tuple(L.sort(x, out=(L.empty(3), L.empty(3, dtype=L.int64))))',
    'x = L.tensor([1.5, 2.25, 3.125]); o = (L.empty(3), L.empty(3, dtype=L.int64)); r = L.sort(x, out=o)[0] is o[0]',
    'x = L.tensor([1.5, 2.25, 3.125]); r = L.cat([x, x], out=L.empty(6, dtype=L.float64))',
    'r = L.matmul(L.ones(2,2), L.ones(2,2), out=L.empty(2,2))',
    'x = L.tensor([1.5, 2.25, 3.125]); r = L.tanh(L.tensor([1,2,3]), out=L.empty(3, dtype=L.int64))',
    'x = L.tensor([1.5, 2.25, 3.125]); r = L.tanh(L.tensor([1,2,3]), out=L.empty(3, dtype=L.float64))',
    'x = L.tensor([1.5, 2.25, 3.125]); L.neg(x, out=x); r = x',
    'x = L.tensor([1.5, 2.25, 3.125]); o = L.ones(4); L.exp(x, out=o[:3]); r = o',
    'x = L.tensor([1.5, 2.25, 3.125]); o = L.empty(3); v = o._version; L.exp(x, out=o); r = o._version - v',
    'x = L.tensor([1.5, 2.25, 3.125]); o = L.empty(3); r = L.exp(x, out=o) is o',
    'x = L.tensor([1.5, 2.25, 3.125]); r = L.var(x, 0, out=L.empty((), dtype=L.float64))',
    'r = L.prod(L.tensor([1, 2, 3]), 0, out=L.empty(()))',
    'r = L.eye(2, out=L.empty(0, dtype=L.int64))',
    'r = L.linspace(0, 1, 3, out=L.empty(0, dtype=L.float64))',
    'r = L.randint(0, 5, (3,), out=L.empty(0)).dtype',
    'r = L.where(L.tensor([True, False]), L.ones(2), L.zeros(2), out=L.empty(2))',
    'r = L.clamp(L.tensor([1., 5.]), 0, 2, out=L.empty(2))',
    'r = L.pow(L.tensor([2., 3.]), 2, out=L.empty(2))',
    'r = L.mul(L.ones(2), 2, out=L.empty(2, dtype=L.bool))',
    'r = L.gt(L.ones(2), 0, out=L.empty(2, dtype=L.bool))',
    'r = L.stack([L.ones(2), L.zeros(2)], out=L.empty(2, 2))',
    'r = L.nonzero(L.tensor([0, 1, 1]), out=L.empty(0, dtype=L.int64))',
    'r = L.abs(L.tensor([-1.]), out=None)',
]


def _run(code, lib):
    ns = {"L": lib}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            exec(code, ns)  # noqa: S102  (the cases above)
        except Exception as e:
            return type(e).__name__, str(e).replace("torch", "nbgrad")
    r = ns["r"]
    if hasattr(r, "tolist"):
        return "ok", r.tolist(), str(r.dtype).split(".")[-1], tuple(r.shape)
    if isinstance(r, tuple):
        return "ok", [(t.tolist(), str(t.dtype).split(".")[-1]) for t in r]
    return "ok", str(r).replace("torch", "nbgrad")


@pytest.mark.parametrize("code", CASES)
def test_out_as_pytorch(code):
    torch = pytest.importorskip("torch")
    assert _run(code, nbgrad) == _run(code, torch)


def test_out_resize_warns_as_pytorch():
    torch = pytest.importorskip("torch")
    got = []
    for L in (nbgrad, torch):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            o = L.ones(5)
            L.exp(L.zeros(3), out=o)
            L.exp(L.zeros(2), out=L.empty(0))  # (no elements: resized without a word)
        got.append(([str(x.message).split(" (Triggered")[0] for x in w], o.tolist()))
    assert got[0] == got[1]
    assert len(got[0][0]) == 1 and "was resized since it had shape [5]" in got[0][0][0]
    with warnings.catch_warnings(record=True) as w:  # (named at the caller's line)
        warnings.simplefilter("always")
        nbgrad.exp(nbgrad.zeros(3), out=nbgrad.ones(5))
    assert w[0].filename == __file__


def test_out_keeps_the_function_and_its_signature():
    import inspect

    assert "out" in inspect.signature(nbgrad.add).parameters
    assert "dtype" in inspect.signature(nbgrad.zeros).parameters
    assert nbgrad.add.__doc__ == nbgrad.ops.elementwise.add.__doc__
    o = nbgrad.empty(2)
    assert nbgrad.mul(nbgrad.ones(2), 3, out=o) is o and o.tolist() == [3.0, 3.0]
    with pytest.raises(TypeError, match="takes a tuple of 2 tensors"):
        nbgrad.max(nbgrad.ones(3), 0, out=nbgrad.empty(()))
