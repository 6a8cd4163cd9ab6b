"""DistributedDataParallel on every process of the job: training equals one process's on
the whole batch, buckets overlap backward, no_sync, unused parameters, model checks."""

import numpy as np
import pytest

import nbgrad
import nbgrad.distributed as dist
import nbgrad.nn as nn
import nbgrad.nn.functional as F
from nbgrad.nn.parallel import DistributedDataParallel as DDP
from nbgrad.utils.data import DataLoader, DistributedSampler, TensorDataset


class Net(nn.Module):
    def __init__(self, extra=False, bn=False):
        super().__init__()
        self.fc1 = nn.Linear(6, 32, dtype=nbgrad.float64)
        self.bn = nn.BatchNorm1d(32, dtype=nbgrad.float64) if bn else nn.Identity()
        self.fc2 = nn.Linear(32, 16, dtype=nbgrad.float64)
        self.fc3 = nn.Linear(16, 3, dtype=nbgrad.float64)
        self.extra = nn.Linear(3, 3, dtype=nbgrad.float64) if extra else None

    def forward(self, x, use_extra=False):
        h = self.fc2(F.relu(self.bn(self.fc1(x))))
        out = self.fc3(nbgrad.tanh(h))
        return self.extra(out) if use_extra else out


def _data(n, seed=1):
    rng = np.random.default_rng(seed)
    return (nbgrad.tensor(rng.standard_normal((8 * n, 6))),
            nbgrad.tensor(rng.integers(0, 3, 8 * n)))


def _model(rank, seed=0, **kw):
    nbgrad.manual_seed(seed + 17 * rank)  # (different on every rank: DDP copies rank 0's)
    return Net(**kw)


@pytest.mark.parametrize("bucket_cap_mb", [25, 0.001])
def test_training_equals_one_process_on_the_whole_batch(world, bucket_cap_mb):
    rank, n = world
    x, y = _data(n)
    ddp = DDP(_model(rank), bucket_cap_mb=bucket_cap_mb, broadcast_buffers=False)
    ref = _model(0)
    opt = nbgrad.optim.SGD(ddp.parameters(), lr=0.1, momentum=0.9)
    opt_ref = nbgrad.optim.SGD(ref.parameters(), lr=0.1, momentum=0.9)
    if bucket_cap_mb < 1:
        assert len(ddp._buckets) > 2  # (several buckets, each reduced on its own)
    for _ in range(5):
        opt.zero_grad()
        F.cross_entropy(ddp(x[rank::n]), y[rank::n]).backward()
        opt.step()
        opt_ref.zero_grad()
        F.cross_entropy(ref(x), y).backward()
        opt_ref.step()
    for (name, p), q in zip(ddp.module.named_parameters(), ref.parameters()):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-12,
                                   atol=1e-13, err_msg=name)


def _gathered(values):
    every = [None] * dist.get_world_size()
    dist.all_gather_object(every, values)
    return every


def test_buffers_from_rank0_and_gradients_equal_everywhere(world):
    rank, n = world
    x, y = _data(n, seed=3)
    model = _model(rank, bn=True)
    model.bn.running_mean.fill_(float(rank))  # (rank 0's buffers win, at construction)
    ddp = DDP(model)
    assert model.bn.running_mean.tolist() == [0.0] * 32
    F.cross_entropy(ddp(x[rank::n]), y[rank::n]).backward()
    grads = [p.grad.numpy().copy() for p in ddp.parameters()]
    for theirs in _gathered(grads):  # (the same averaged gradients on every process)
        for a, b in zip(theirs, grads):
            np.testing.assert_array_equal(a, b)
    # each forward starts from rank 0's buffers (eval: the forward changes none of them)
    model.bn.running_mean.fill_(float(rank + 5))
    ddp.eval()
    with nbgrad.no_grad():
        ddp(x[rank::n])
    assert model.bn.running_mean.tolist() == [5.0] * 32
    assert list(ddp.state_dict())[0] == "module.fc1.weight"
    assert ddp.module is model


def test_first_bucket_starts_before_the_last_gradient(world):
    rank, n = world
    x, y = _data(n)
    ddp = DDP(_model(rank), bucket_cap_mb=0.001)
    F.cross_entropy(ddp(x[rank::n]), y[rank::n]).backward()
    log = ddp._comm_log
    starts = [t for e, _, t in log if e == "start"]
    grads = [t for e, _, t in log if e == "grad"]
    assert len(starts) == len(ddp._buckets) > 2
    assert min(starts) < max(grads), "no bucket was started while backward still ran"
    assert [i for e, i, _ in log if e == "start"] == list(range(len(ddp._buckets)))
    assert log[-1][0] == "done"


def test_no_sync_accumulates_then_averages(world):
    rank, n = world
    x, y = _data(n, seed=5)
    ddp = DDP(_model(rank))
    ref = _model(0)
    with ddp.no_sync():
        F.cross_entropy(ddp.module(x[rank::n][:4]), y[rank::n][:4]).backward()
    local = [p.grad.numpy().copy() for p in ddp.parameters()]
    F.cross_entropy(ddp(x[rank::n][4:]), y[rank::n][4:]).backward()
    # the reference: every rank's two half-batches, averaged over ranks
    for r in range(n):
        F.cross_entropy(ref(x[r::n][:4]), y[r::n][:4]).backward()
        F.cross_entropy(ref(x[r::n][4:]), y[r::n][4:]).backward()
    for p, q, lo in zip(ddp.parameters(), ref.parameters(), local):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy() / n, rtol=1e-10, atol=1e-12)
    if n > 1:  # (inside no_sync the gradient was this rank's own)
        assert any(not np.allclose(lo, p.grad.numpy()) for lo, p in
                   zip(local, ddp.parameters()))


def test_unused_parameters(world):
    rank, n = world
    x, y = _data(n)
    ddp = DDP(_model(rank, extra=True))
    with pytest.raises(RuntimeError, match=r"got no gradient in this backward pass: "
                                           r"\['extra.weight', 'extra.bias'\].*"
                                           r"find_unused_parameters=True"):
        F.cross_entropy(ddp(x[rank::n]), y[rank::n]).backward()
    ddp = DDP(_model(rank, extra=True), find_unused_parameters=True)
    # used on rank 0 only: its gradient is averaged everywhere; unused everywhere: None
    ddp(x[rank::n], use_extra=rank == 0).sum().backward()
    ex = ddp.module.extra
    assert ex.weight.grad is not None
    every = [None] * n
    dist.all_gather_object(every, ex.weight.grad.numpy())
    for g in every:
        np.testing.assert_array_equal(g, every[0])
    for p in ddp.parameters():
        p.grad = None
    ddp(x[rank::n]).sum().backward()
    assert ex.weight.grad is None and ex.bias.grad is None
    assert ddp.module.fc1.weight.grad is not None


def test_models_that_differ_fail_at_construction_naming_the_parameter(world):
    rank, n = world
    if n == 1:
        pytest.skip("needs two processes")  # (this folder runs on 2 and on 3)
    nbgrad.manual_seed(0)
    m = nn.Sequential(nn.Linear(4, 5 if rank == n - 1 else 3))
    with pytest.raises(RuntimeError, match=r"parameter '0.weight' of rank \d.*differs from "
                                           r"rank 0's"):
        DDP(m)
    m = nn.Sequential(*[nn.Linear(2, 2) for _ in range(1 + (rank == n - 1))])
    with pytest.raises(RuntimeError, match="DDP expects same model across all ranks"):
        DDP(m)


def test_distributed_sampler_shards_the_epoch(world):
    rank, n = world
    ds = TensorDataset(nbgrad.arange(23))
    sampler = DistributedSampler(ds, seed=3)
    assert sampler.num_replicas == n and sampler.rank == rank
    sampler.set_epoch(2)
    mine = [int(v) for (b,) in DataLoader(ds, batch_size=4, sampler=sampler) for v in b]
    every = [None] * n
    dist.all_gather_object(every, mine)
    flat = sorted(v for part in every for v in part)
    assert set(flat) == set(range(23)) and len(flat) == n * -(-23 // n)


def test_gradient_as_bucket_view(world):
    rank, n = world
    x, y = _data(n, seed=7)
    views = DDP(_model(rank), gradient_as_bucket_view=True)
    copies = DDP(_model(rank))
    for m in (views, copies):
        F.cross_entropy(m(x[rank::n]), y[rank::n]).backward()
    flats = [b.flat for b in views._buckets]
    for p, q in zip(views.parameters(), copies.parameters()):
        np.testing.assert_array_equal(p.grad.numpy(), q.grad.numpy())
        assert any(np.shares_memory(p.grad.numpy(), f) for f in flats)
        assert not any(np.shares_memory(q.grad.numpy(), b.flat) for b in copies._buckets)


@pytest.mark.parametrize("momentum", [0.1, None])
def test_sync_batchnorm_trains_as_one_process_on_the_whole_batch(world, momentum):
    """A conv net with SyncBatchNorm under DDP, each process on its part of the batch,
    against BatchNorm on the whole batch in one process: the same parameters and running
    statistics after a few steps (float64)."""
    rank, n = world
    rng = np.random.default_rng(11)
    x = nbgrad.tensor(rng.standard_normal((4 * n, 2, 5, 5)) + 1.5)
    y = nbgrad.tensor(rng.standard_normal((4 * n, 3, 5, 5)))

    def net():
        nbgrad.manual_seed(2)
        return nn.Sequential(nn.Conv2d(2, 3, 3, padding=1, dtype=nbgrad.float64),
                             nn.BatchNorm2d(3, momentum=momentum, dtype=nbgrad.float64),
                             nn.Tanh())
    ddp = DDP(nn.SyncBatchNorm.convert_sync_batchnorm(net()))
    ref = net()
    opt = nbgrad.optim.SGD(ddp.parameters(), lr=0.2)
    opt_ref = nbgrad.optim.SGD(ref.parameters(), lr=0.2)
    part = slice(rank * 4, rank * 4 + 4)  # (contiguous parts: ranks may hold 3 values too)
    for _ in range(3):
        opt.zero_grad()
        (ddp(x[part]) - y[part]).square().mean().backward()
        opt.step()
        opt_ref.zero_grad()
        (ref(x) - y).square().mean().backward()
        opt_ref.step()
    for (k, a), b in zip(ddp.module.state_dict().items(), ref.state_dict().values()):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12, err_msg=k)
    ddp.eval()
    ref.eval()
    np.testing.assert_allclose(ddp(x[part]).detach().numpy(), ref(x[part]).detach().numpy(),
                               rtol=1e-10, atol=1e-12)
