"""The general path's layouts: strided copies past 3 merged dims, the launch plans of
contiguous operands with a number and of broadcasting operands, and ``split``'s one
backward node for all its outputs (PyTorch's ``SplitBackward0``)."""

import numpy as np
import pytest

import nbgrad
from nbgrad.autograd import gradcheck, gradgradcheck
from nbgrad.ops import dispatch
from nbgrad.ops.opdef import TABLE, clear_plans
from nbgrad.storage.layout import layout3


def _t(a, rg=False):
    return nbgrad.tensor(np.ascontiguousarray(a), requires_grad=rg)


# ----- strided layouts ------------------------------------------------------------------------
@pytest.mark.parametrize("perm", [(0, 2, 1, 3), (1, 0, 3, 2), (0, 3, 1, 2, 4)])
def test_contiguous_of_permutations_past_three_dims(perm):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((2, 3, 4, 5, 6)[: len(perm)]).astype(np.float32)
    t = _t(a).permute(*perm)
    out = t.contiguous()
    assert out.is_contiguous() and out.shape == a.transpose(perm).shape
    np.testing.assert_array_equal(out.numpy(), a.transpose(perm))


def test_four_dim_strided_layout_is_one_view_each():
    a = np.zeros((8, 4, 64, 32), np.float32).transpose(0, 2, 1, 3)
    out = np.empty(a.shape, np.float32)
    assert layout3(None, a.shape, [a, out]) is None  # four dims remain after merging
    va, vo = layout3(None, a.shape, [a, out], 4)
    assert va.shape == vo.shape == (8, 64, 4, 32)
    assert np.shares_memory(va, a) and np.shares_memory(vo, out)


def test_strided_binary_and_unary_ops_past_three_dims_match_numpy():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    b = rng.standard_normal((2, 4, 3, 5)).astype(np.float32)
    ta = _t(a).permute(0, 2, 1, 3)
    tb = _t(b)
    np.testing.assert_array_equal((ta * tb).numpy(), a.transpose(0, 2, 1, 3) * b)
    np.testing.assert_array_equal((tb - ta).numpy(), b - a.transpose(0, 2, 1, 3))
    np.testing.assert_allclose(nbgrad.exp(ta).numpy(), np.exp(a.transpose(0, 2, 1, 3)),
                               rtol=1e-6)


# ----- launch plans ---------------------------------------------------------------------------
def _plan_kind(name, *args):
    op = TABLE[name]
    clear_plans([op])
    op(*args)
    keys = [k for k in op.plans]
    assert len(keys) == 1
    return op.plans[keys[0]].kind


@pytest.mark.parametrize("args, kind", [
    (lambda t: (t((300, 500)), 0.5), "CONTIG_S"),
    (lambda t: (2.0, t((300, 500))), "S_CONTIG"),
    (lambda t: (t((40, 60, 70)), t((60, 70))), "BCAST"),
    (lambda t: (t((8, 4, 64, 64)), t((1, 1, 64, 64))), "BCAST"),
    (lambda t: (t((300, 500)), t((1, 1))), "BCAST"),
    # an outer product: the (pooled) output is larger than both operands
    (lambda t: (t((10, 1)), t((1, 40000))), "BCAST"),
])
def test_large_contiguous_operands_get_their_own_plan_and_match_numpy(args, kind):
    rng = np.random.default_rng(2)
    arrays = []

    def t(shape):
        arrays.append(rng.standard_normal(shape).astype(np.float32))
        return _t(arrays[-1])

    ops = args(t)
    assert dispatch._KIND_NAMES[_plan_kind("mul", *ops)] == kind
    nums = [arrays.pop(0) if isinstance(o, nbgrad.Tensor) else np.float32(o) for o in ops]
    for _ in range(2):  # building the plan, then from the cache
        out = TABLE["mul"](*ops)
        assert out.dtype == nbgrad.float32
        np.testing.assert_array_equal(out.numpy(), nums[0] * nums[1])


def test_broadcast_plan_records_the_broadcast_for_backward():
    rng = np.random.default_rng(3)
    a = _t(rng.standard_normal((30, 40, 50)).astype(np.float32), rg=True)
    b = _t(rng.standard_normal((40, 50)).astype(np.float32), rg=True)
    (a + b).sum().backward()
    assert b.grad.shape == (40, 50)
    np.testing.assert_allclose(b.grad.numpy(), np.full((40, 50), 30.0))
    np.testing.assert_array_equal(a.grad.numpy(), np.ones((30, 40, 50)))


# ----- split: one node ------------------------------------------------------------------------
def test_split_and_chunk_record_one_node_named_as_pytorch():
    torch = pytest.importorskip("torch")
    for lib in (nbgrad, torch):
        x = lib.ones(6, 4, requires_grad=True)
        names = [[o.grad_fn.name() for o in outs]
                 for outs in (x.split(2), x.split([2, 4]), x.chunk(3), lib.split(x, 3, 1))]
        assert names == [["SplitBackward0"] * 3, ["SplitWithSizesBackward0"] * 2,
                         ["SplitBackward0"] * 3, ["SplitBackward0"] * 2], lib.__name__
    a, b, c = nbgrad.ones(6, 4, requires_grad=True).split(2)
    assert a.grad_fn is b.grad_fn is c.grad_fn
    assert [o._output_nr for o in (a, b, c)] == [0, 1, 2]


@pytest.mark.parametrize("used", [(0,), (2,), (0, 2), (0, 1, 2)])
def test_split_gradients_with_some_outputs_unused_match_torch(used):
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(4).standard_normal((5, 7)).astype(np.float32)
    grads = []
    for lib in (nbgrad, torch):
        x = lib.tensor(a, requires_grad=True)
        outs = x.split([3, 1, 3], dim=1)
        loss = sum((outs[i] * (i + 1.5)).sum() for i in used)
        loss.backward()
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(grads[0], grads[1])


def test_split_gradcheck_and_gradgradcheck():
    x = nbgrad.tensor(np.random.default_rng(5).standard_normal((6, 4)), requires_grad=True)
    assert gradcheck(lambda t: t.split([1, 3, 2])[0] * 3, (x,))
    assert gradcheck(lambda t: tuple(o * (i + 1) for i, o in enumerate(t.chunk(2, 1))), (x,))
    assert gradgradcheck(lambda t: t.split(2)[2] ** 2, (x,))


def test_split_outputs_stay_views_that_refuse_in_place():
    x = nbgrad.ones(6, 4, requires_grad=True)
    y = x * 1
    a, b, c = y.split(2)
    assert a._base is y and a._version == y._version
    with pytest.raises(RuntimeError, match="^Output 1 of Split is a view and is being "):
        b.add_(1)
    with nbgrad.no_grad():
        assert x.split(2)[0].grad_fn is None
