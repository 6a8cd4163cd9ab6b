"""Data-parallel training steps, nbgrad's DistributedDataParallel (MPI) beside PyTorch's
(gloo), at 1 and 2 processes, in one run (issue #18's benchmark).

    python asv_bench/ddp.py [--steps 20] [--ranks 1 2] [--hostfile FILE]

Each row starts one job per library with the mpich wheel's ``mpiexec`` (PyTorch's processes
read their rank from it and meet through gloo on localhost); the two libraries alternate,
so load on a shared machine hits both. Models: the digits MLP (64-128-64-10, 17k
parameters) and a larger MLP (1024-2048-2048-2048-10, 10.5M), batch 64 per process,
float32, cross-entropy, SGD; a step is zero_grad + forward + backward + step, the median
over ``--steps`` after 3 warm-up steps. Each process uses cores / processes threads (as
nbgrad's init_process_group sets, and torchrun's OMP_NUM_THREADS=1 would for PyTorch).
Columns: step time per library, the bytes each process allreduces per step, and for nbgrad
the share of allreduce time hidden behind backward: 1 - (time backward waited for the
allreduces after its own work was done) / (time the same allreduces take alone).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.abspath(__file__)
MODELS = {"digits": [64, 128, 64, 10], "mlp10m": [1024, 2048, 2048, 2048, 10]}


def _mpiexec():
    here = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    return here if os.path.exists(here) else "mpiexec"


def _worker(lib, model, steps, batch):
    rank = int(os.environ.get("PMI_RANK", 0))
    world = int(os.environ.get("PMI_SIZE", 1))
    sizes = MODELS[model]
    threads = max(1, (os.cpu_count() or 1) // world)
    if lib == "nbgrad":
        import nbgrad as L
        import nbgrad.distributed as dist
        from nbgrad.nn.parallel import DistributedDataParallel as DDP

        dist.init_process_group("mpi")
    else:
        import torch as L
        import torch.distributed as dist
        from torch.nn.parallel import DistributedDataParallel as DDP

        L.set_num_threads(threads)
        os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
        os.environ.setdefault("MASTER_PORT", "29631")
        dist.init_process_group("gloo", rank=rank, world_size=world)
    nn, F = L.nn, L.nn.functional
    L.manual_seed(0)
    layers = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        layers += [nn.Linear(a, b), nn.ReLU()]
    net = nn.Sequential(*layers[:-1])
    ddp = DDP(net)
    opt = L.optim.SGD(ddp.parameters(), lr=0.01)
    x = L.randn(batch, sizes[0])
    y = L.randint(0, sizes[-1], (batch,))
    times, hidden = [], []
    for i in range(steps + 3):
        dist.barrier()
        t0 = time.perf_counter()
        opt.zero_grad()
        F.cross_entropy(ddp(x), y).backward()
        opt.step()
        dt = time.perf_counter() - t0
        if i >= 3:
            times.append(dt)
            if lib == "nbgrad" and world > 1:
                hidden.append(_exposed(ddp))
    out = {"step_ms": 1e3 * statistics.median(times),
           "bytes": 4 * sum(p.numel() for p in net.parameters())}
    if lib == "nbgrad" and world > 1:
        alone = _alone(ddp)
        out["hidden"] = max(0.0, 1 - statistics.median(hidden) / alone) if alone else None
        out["comm_alone_ms"] = 1e3 * alone
    if rank == 0:
        print("RESULT " + json.dumps(out))
    dist.destroy_process_group()


def _exposed(ddp):
    """Seconds backward waited for the allreduces once its own work was done."""
    log = {e: t for e, _, t in ddp._comm_log if e in ("wait", "done")}
    return log["done"] - log["wait"]


def _alone(ddp, repeats=10):
    """Seconds the step's allreduces take on their own (the same buckets, blocking)."""
    from mpi4py import MPI

    comm = ddp.process_group.comm
    runs = []
    for _ in range(repeats):
        comm.Barrier()
        t0 = time.perf_counter()
        for b in ddp._buckets:
            comm.Allreduce(MPI.IN_PLACE, b.flat, op=MPI.SUM)
        runs.append(time.perf_counter() - t0)
    return statistics.median(runs)


def _job(lib, model, ranks, steps, batch, hostfile):
    cmd = [_mpiexec(), "-n", str(ranks)] + (["-f", hostfile] if hostfile else [])
    cmd += [sys.executable, HERE, "--worker", lib, "--model", model, "--steps", str(steps),
            "--batch", str(batch)]
    env = dict(os.environ, NBGRAD_QUIET="1")
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=1200, env=env)
    for line in p.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    raise RuntimeError(f"{lib} {model} x{ranks} failed:\n{p.stderr[-3000:]}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker")
    ap.add_argument("--model", default="digits")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--ranks", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--models", nargs="+", default=list(MODELS))
    ap.add_argument("--hostfile")
    a = ap.parse_args()
    if a.worker:
        return _worker(a.worker, a.model, a.steps, a.batch)
    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} cores; "
          f"batch {a.batch} per process, median of {a.steps} steps")
    print("| model | processes | nbgrad DDP (MPI) | PyTorch DDP (gloo) | nbgrad/PyTorch | "
          "bytes allreduced per process per step | nbgrad: allreduce hidden behind backward |")
    print("|---|---|---|---|---|---|---|")
    for model in a.models:
        for ranks in a.ranks:
            ours = _job("nbgrad", model, ranks, a.steps, a.batch, a.hostfile)
            theirs = _job("torch", model, ranks, a.steps, a.batch, a.hostfile)
            hid = ours.get("hidden")
            hid = "-" if hid is None else (f"{100 * hid:.0f}% (alone "
                                           f"{ours['comm_alone_ms']:.2f} ms)")
            print(f"| {model} | {ranks} | {ours['step_ms']:.2f} ms | {theirs['step_ms']:.2f} ms"
                  f" | {ours['step_ms'] / theirs['step_ms']:.2f} | "
                  f"{ours['bytes'] / 1e6:.2f} MB | {hid} |", flush=True)


if __name__ == "__main__":
    main()
