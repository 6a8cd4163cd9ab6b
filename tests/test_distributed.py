"""nbgrad.distributed in one process (MPI's singleton: a world of one), the launcher, a job
whose rank raises, the digits example on two processes, DistributedSampler against
PyTorch's, and the engine's final callbacks. The collectives and DDP across processes are
tests/mpi/, which .ci/run starts under mpiexec."""

import os
import re
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import nbgrad
import nbgrad.distributed as dist
from nbgrad.autograd import Variable
from nbgrad.autograd.engine import queue_callback
from nbgrad.distributed import run as launcher
from nbgrad.nn.parallel import DistributedDataParallel as DDP
from nbgrad.utils.data import DistributedSampler, TensorDataset

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture
def group():
    """The default group of this process alone, left as it was found."""
    was = dist.is_initialized()
    if not was:
        dist.init_process_group("mpi")
    yield
    if not was and dist.is_initialized():
        dist.destroy_process_group()


def test_before_init_every_call_says_so():
    if dist.is_initialized():
        pytest.skip("another test of this process left the group initialized")
    msg = "Default process group has not been initialized"
    for call in (lambda: dist.all_reduce(nbgrad.ones(1)), dist.get_rank, dist.barrier,
                 lambda: DDP(nbgrad.nn.Linear(1, 1))):
        with pytest.raises(ValueError, match=msg):
            call()
    assert not dist.is_initialized()
    with pytest.raises(RuntimeError, match="Requires distributed package to be available"):
        DistributedSampler(TensorDataset(nbgrad.arange(3)))


def test_init_arguments_checked():
    if dist.is_initialized():
        pytest.skip("another test of this process left the group initialized")
    with pytest.raises(ValueError, match="Invalid backend: 'tcp'"):
        dist.init_process_group("tcp")
    with pytest.raises(ValueError, match="init_method 'tcp://1.2.3.4:5' is not supported"):
        dist.init_process_group(init_method="tcp://1.2.3.4:5")
    with pytest.raises(ValueError, match="world_size=4 but MPI started 1 processes"):
        dist.init_process_group(world_size=4)
    assert not dist.is_initialized()


def test_world_of_one(group):
    assert (dist.get_rank(), dist.get_world_size(), dist.get_backend()) == (0, 1, "mpi")
    assert dist.is_available() and dist.is_mpi_available() and dist.is_initialized()
    t = nbgrad.tensor([1.0, 4.0])
    dist.all_reduce(t, op=dist.ReduceOp.AVG)
    assert t.tolist() == [1.0, 4.0]
    w = dist.broadcast(t, src=0, async_op=True)
    assert isinstance(w, dist.Work) and w.wait() and w.result()[0] is t
    out = [nbgrad.zeros(2)]
    dist.all_gather(out, t)
    assert out[0].tolist() == [1.0, 4.0]
    with pytest.raises(ValueError, match="twice"):
        dist.init_process_group()


def test_destroy_then_init_again():
    if dist.is_initialized():
        pytest.skip("another test of this process left the group initialized")
    dist.init_process_group("gloo")  # (PyTorch's names mean MPI: programs run unchanged)
    dist.destroy_process_group()
    dist.init_process_group("cpu:gloo,cuda:nccl")
    dist.destroy_process_group()
    assert not dist.is_initialized()
    dist.init_process_group()
    assert dist.get_world_size() == 1
    dist.destroy_process_group()


def test_ddp_of_one_process_trains_as_the_model(group):
    nbgrad.manual_seed(0)
    model = nbgrad.nn.Linear(3, 2)
    nbgrad.manual_seed(0)
    ref = nbgrad.nn.Linear(3, 2)
    ddp = DDP(model)
    x = nbgrad.randn(5, 3)
    ddp(x).square().mean().backward()
    ref(x).square().mean().backward()
    for p, q in zip(model.parameters(), ref.parameters()):
        np.testing.assert_array_equal(p.grad.numpy(), q.grad.numpy())
    with pytest.raises(RuntimeError, match="doesn't have any parameter that requires"):
        DDP(nbgrad.nn.ReLU())
    with pytest.raises(TypeError, match="cannot be pickled"):
        import pickle

        pickle.dumps(ddp)


@pytest.mark.parametrize("n,replicas,shuffle,drop_last,epoch",
                         [(10, 3, False, False, 0), (10, 3, True, False, 0),
                          (10, 3, True, True, 4), (7, 2, True, False, 1), (2, 5, True, False, 0),
                          (100, 4, True, True, 2), (9, 3, False, True, 0)])
def test_distributed_sampler_as_pytorchs(n, replicas, shuffle, drop_last, epoch):
    torch = pytest.importorskip("torch")
    from torch.utils.data.distributed import DistributedSampler as TorchSampler

    for rank in range(replicas):
        ours = DistributedSampler(TensorDataset(nbgrad.arange(n)), replicas, rank,
                                  shuffle=shuffle, seed=7, drop_last=drop_last)
        theirs = TorchSampler(list(range(n)), replicas, rank, shuffle=shuffle, seed=7,
                              drop_last=drop_last)
        ours.set_epoch(epoch)
        theirs.set_epoch(epoch)
        assert list(ours) == list(theirs) and len(ours) == len(theirs)
    del torch


def test_distributed_sampler_checks_rank():
    ds = TensorDataset(nbgrad.arange(4))
    with pytest.raises(ValueError, match=r"Invalid rank 3, rank should be in the interval "
                                         r"\[0, 2\]"):
        DistributedSampler(ds, num_replicas=3, rank=3)


def test_final_callbacks_run_once_backward_is_done():
    w = nbgrad.ones(3, requires_grad=True)
    seen = []

    def hook(p):
        seen.append("hook")
        queue_callback(lambda: seen.append(("first", p.grad.tolist())))
        Variable._execution_engine.queue_callback(
            lambda: (seen.append("second"), queue_callback(lambda: seen.append("third"))))
    w.register_post_accumulate_grad_hook(hook)
    (w * 2).sum().backward()
    assert seen == ["hook", ("first", [2.0] * 3), "second", "third"]
    with pytest.raises(RuntimeError, match="Final callbacks can only be installed during "
                                           "backward pass."):
        queue_callback(print)


def test_launcher_command_line():
    cmd = launcher.command(3, "train.py", ["--lr", "0.1"], hostfile="hosts",
                           mpiexec="/x/mpiexec")
    assert cmd == ["/x/mpiexec", "-n", "3", "-f", "hosts", sys.executable, "-m", "mpi4py",
                   "train.py", "--lr", "0.1"]
    assert launcher.command(2, "pkg.mod", [], mpiexec="m", module=True)[-2:] == ["-m",
                                                                                 "pkg.mod"]


def _job(tmp_path, body, n=2, timeout=120):
    script = tmp_path / "job.py"
    script.write_text(textwrap.dedent(body))
    env = dict(os.environ, NBGRAD_QUIET="1")
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "nbgrad.distributed.run", "-n", str(n),
                        str(script)], capture_output=True, text=True, timeout=timeout,
                       env=env, cwd=tmp_path)
    return p, time.perf_counter() - t0


def test_launcher_runs_a_job(tmp_path):
    p, _ = _job(tmp_path, """
        import nbgrad, nbgrad.distributed as dist
        dist.init_process_group()
        t = nbgrad.full((2,), float(dist.get_rank() + 1))
        dist.all_reduce(t)
        print(f"rank {dist.get_rank()} of {dist.get_world_size()}: {t.tolist()}")
    """, n=3)
    assert p.returncode == 0, p.stderr
    # (the processes share one stdout: their lines may interleave)
    got = sorted(re.findall(r"rank (\d) of (\d): \[6\.0, 6\.0\]", p.stdout))
    assert got == [(str(r), "3") for r in range(3)], p.stdout


def test_a_rank_that_raises_ends_the_job(tmp_path):
    p, took = _job(tmp_path, """
        import nbgrad, nbgrad.distributed as dist
        dist.init_process_group()
        if dist.get_rank() == 1:
            raise ValueError("rank 1 breaks")
        dist.all_reduce(nbgrad.ones(2))  # (rank 0 would wait here for ever)
        print("not reached")
    """)
    assert p.returncode != 0
    assert "ValueError: rank 1 breaks" in p.stderr and "Traceback" in p.stderr
    assert "not reached" not in p.stdout
    assert took < 60


def test_a_rank_that_raises_ends_the_job_under_plain_mpiexec(tmp_path):
    script = tmp_path / "job.py"
    script.write_text(textwrap.dedent("""
        import nbgrad, nbgrad.distributed as dist
        dist.init_process_group()
        if dist.get_rank() == 0:
            raise KeyError("rank 0 breaks")
        dist.barrier()
    """))
    p = subprocess.run([launcher.find_mpiexec(), "-n", "2", sys.executable, str(script)],
                       capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, NBGRAD_QUIET="1"))
    assert p.returncode != 0
    assert "KeyError: 'rank 0 breaks'" in p.stderr
    assert "nbgrad.distributed: rank 0 raised KeyError; aborting the job" in p.stderr


@pytest.mark.slow
def test_digits_trains_on_two_processes(tmp_path):
    pytest.importorskip("sklearn")
    p = subprocess.run([launcher.find_mpiexec(), "-n", "2", sys.executable, "-m",
                        "nbgrad.examples.digits", "--ddp", "--no-progress", "--out",
                        str(tmp_path)], capture_output=True, text=True, timeout=600,
                       env=dict(os.environ, NBGRAD_QUIET="1"), cwd=tmp_path)
    assert p.returncode == 0, p.stderr[-3000:]
    final = [line for line in p.stdout.splitlines() if line.startswith("test accuracy:")]
    assert len(final) == 1, p.stdout  # (rank 0 alone reports)
    acc = float(final[0].split()[2].rstrip("%"))
    assert acc >= 96.0, final  # (one process reaches 97.5 with these settings)
    assert "2 processes" in final[0]
    assert (tmp_path / "digits_mlp.nbg").exists() and (tmp_path / "digits_mlp.png").exists()
