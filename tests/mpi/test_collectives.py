"""Collectives on every process of the job: each op, dtype and layout against NumPy."""

import numpy as np
import pytest

import nbgrad
import nbgrad.distributed as dist
from nbgrad.distributed import ReduceOp

DTYPES = [nbgrad.float32, nbgrad.float64, nbgrad.float16, nbgrad.bfloat16, nbgrad.int64,
          nbgrad.int32, nbgrad.uint8, nbgrad.bool]


def _values(rank, dtype, shape=(3, 4)):
    """Rank-dependent values exact in every dtype (small integers)."""
    a = (np.arange(np.prod(shape)).reshape(shape) % 5 + rank + 1).astype(np.float64)
    if dtype is nbgrad.bool:
        a = (a + rank) % 2 == 0
    return nbgrad.tensor(a.tolist(), dtype=dtype)


def _expected(op, n, dtype, shape=(3, 4)):
    vals = [_values(r, dtype, shape).to(nbgrad.float64 if dtype is not nbgrad.bool
                                         else nbgrad.bool).numpy() for r in range(n)]
    if dtype is nbgrad.bool:
        f = {ReduceOp.SUM: np.logical_or.reduce, ReduceOp.MAX: np.logical_or.reduce,
             ReduceOp.MIN: np.logical_and.reduce, ReduceOp.PRODUCT: np.logical_and.reduce}[op]
        return f(np.stack(vals))
    st = np.stack(vals)
    return {ReduceOp.SUM: st.sum(0), ReduceOp.AVG: st.mean(0), ReduceOp.MAX: st.max(0),
            ReduceOp.MIN: st.min(0), ReduceOp.PRODUCT: st.prod(0)}[op]


def _ops(dtype):
    ops = [ReduceOp.SUM, ReduceOp.MAX, ReduceOp.MIN, ReduceOp.PRODUCT]
    return ops + [ReduceOp.AVG] if dtype.is_floating_point else ops


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_all_reduce_every_op(world, dtype):
    rank, n = world
    for op in _ops(dtype):
        t = _values(rank, dtype)
        assert dist.all_reduce(t, op=op) is None
        want = _expected(op, n, dtype)
        got = t.numpy() if dtype is not nbgrad.bfloat16 else t.float().numpy()
        assert t.dtype is dtype and t.shape == (3, 4)
        if dtype in (nbgrad.uint8,) and op in (ReduceOp.SUM, ReduceOp.PRODUCT):
            want = want.astype(np.int64) % 256  # (wraps, as in PyTorch)
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64),
                                   rtol=1e-2 if dtype.low else 0, err_msg=str(op))


def test_all_reduce_strided_and_async(world):
    rank, n = world
    base = nbgrad.zeros(4, 6, dtype=nbgrad.float64)
    view = base.t()[1:5]  # (a non-contiguous view: the result lands in the base)
    view.fill_(float(rank + 1))
    work = dist.all_reduce(view, async_op=True)
    assert work.wait() is True and work.is_completed()
    assert work.result()[0] is view
    total = n * (n + 1) / 2
    np.testing.assert_array_equal(base.numpy()[:, 1:5], np.full((4, 4), total))
    np.testing.assert_array_equal(base.numpy()[:, 0], 0)


def test_all_reduce_int_avg_and_float_bitwise_raise(world):
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type Long"):
        dist.all_reduce(nbgrad.ones(2, dtype=nbgrad.int64), op=ReduceOp.AVG)
    with pytest.raises(RuntimeError, match="BAND is not supported"):
        dist.all_reduce(nbgrad.ones(2), op=ReduceOp.BAND)


def test_bitwise_ops_on_integers(world):
    rank, n = world
    for op, f in [(ReduceOp.BAND, np.bitwise_and.reduce), (ReduceOp.BOR, np.bitwise_or.reduce),
                  (ReduceOp.BXOR, np.bitwise_xor.reduce)]:
        t = nbgrad.tensor([rank + 1, 7, 12 + rank])
        dist.all_reduce(t, op=op)
        want = f(np.stack([[r + 1, 7, 12 + r] for r in range(n)]))
        np.testing.assert_array_equal(t.numpy(), want)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_broadcast_every_src(world, dtype):
    rank, n = world
    for src in range(n):
        t = _values(rank, dtype)
        dist.broadcast(t, src=src)
        assert t.tolist() == _values(src, dtype).tolist()
    t = _values(rank, dtype)
    dist.broadcast(t, group_src=n - 1)
    assert t.tolist() == _values(n - 1, dtype).tolist()


def test_all_gather_and_into_tensor(world):
    rank, n = world
    out = [nbgrad.zeros(2, 3, dtype=nbgrad.int32) for _ in range(n)]
    dist.all_gather(out, nbgrad.full((2, 3), rank, dtype=nbgrad.int32))
    assert [o.tolist() for o in out] == [[[r] * 3] * 2 for r in range(n)]
    flat = nbgrad.zeros(2 * n)
    dist.all_gather_into_tensor(flat, nbgrad.full((2,), float(rank)))
    assert flat.tolist() == [float(r) for r in range(n) for _ in range(2)]
    with pytest.raises(RuntimeError, match="invalid tensor size at index 0"):
        dist.all_gather([nbgrad.zeros(3)] * n, nbgrad.zeros(2))
    with pytest.raises(ValueError, match=f"the group has {n} processes"):
        dist.all_gather([nbgrad.zeros(2)] * (n + 1), nbgrad.zeros(2))


def test_reduce_gather_scatter(world):
    rank, n = world
    last = n - 1
    t = nbgrad.full((3,), float(rank + 1))
    dist.reduce(t, dst=last, op=ReduceOp.MAX)
    assert t.tolist() == ([float(n)] * 3 if rank == last else [float(rank + 1)] * 3)
    gl = [nbgrad.zeros(2) for _ in range(n)] if rank == 0 else None
    dist.gather(nbgrad.full((2,), float(rank)), gl, dst=0)
    if rank == 0:
        assert [g.tolist() for g in gl] == [[float(r)] * 2 for r in range(n)]
    sl = [nbgrad.full((2,), 10.0 * r) for r in range(n)] if rank == last else None
    t = nbgrad.zeros(2)
    dist.scatter(t, sl, src=last)
    assert t.tolist() == [10.0 * rank] * 2


def test_objects_and_barrier(world):
    rank, n = world
    objs = [None] * n
    dist.all_gather_object(objs, {"rank": rank, "tag": "x" * rank})
    assert objs == [{"rank": r, "tag": "x" * r} for r in range(n)]
    lst = [1, "two", (3,)] if rank == 0 else [None, None, None]
    dist.broadcast_object_list(lst, src=0)
    assert lst == [1, "two", (3,)]
    assert dist.barrier() is None
    assert dist.barrier(async_op=True).wait()


def test_new_group(world):
    rank, n = world
    members = [0, n - 1] if n > 1 else [0]
    g = dist.new_group(members)
    if rank not in members:
        assert g == dist.GroupMember.NON_GROUP_MEMBER
        assert dist.all_reduce(nbgrad.ones(1), group=g) is None
        return
    assert dist.get_world_size(g) == len(members)
    assert dist.get_rank(g) == members.index(rank)
    assert dist.get_process_group_ranks(g) == members
    t = nbgrad.full((1,), float(rank))
    dist.all_reduce(t, group=g)
    assert t.item() == float(sum(members))
    t = nbgrad.full((1,), float(rank))
    dist.broadcast(t, src=members[-1], group=g)
    assert t.item() == float(members[-1])


def test_rank_arguments_checked(world):
    rank, n = world
    with pytest.raises(RuntimeError, match=f"broadcast: invalid root rank: {n}"):
        dist.broadcast(nbgrad.ones(1), group_src=n)
    with pytest.raises(ValueError, match=f"does not contain rank {n + 5}"):
        dist.broadcast(nbgrad.ones(1), src=n + 5)
    with pytest.raises(TypeError, match="Expected parameter `tensor` of type nbgrad.Tensor"):
        dist.all_reduce([1, 2])


def test_world_matches_mpi(world):
    from mpi4py import MPI

    rank, n = world
    assert (rank, n) == (MPI.COMM_WORLD.Get_rank(), MPI.COMM_WORLD.Get_size())
    assert dist.is_initialized() and dist.get_backend() == "mpi"
    with pytest.raises(ValueError, match="initialize the default process group twice"):
        dist.init_process_group("mpi")
