"""Run nbgrad's CUDA tests on a real GPU and time three workloads beside the CPU.

    python -m nbgrad.testing.gpu_check [--skip-tests] [--repeats N]

Workloads (float32), each forward + backward, timed on "cuda" and on "cpu" (and with
PyTorch on CUDA when it is installed): the PERF.md MLP step (784-256-128-10, batch 256,
SGD update), a 16M-element elementwise expression, a 4096x4096 matmul.
Prints a markdown table with the GPU name and date.
"""

import argparse
import datetime
import os
import subprocess
import sys
import time

import numpy as np


def _sync(dev):
    import nbgrad

    if dev.startswith("cuda"):
        nbgrad.cuda.synchronize()


def _median_time(fn, dev, repeats):
    fn()
    _sync(dev)
    ts = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        _sync(dev)
        ts.append(time.perf_counter() - t)
    return float(np.median(ts))


def mlp_step(dev, rng):
    import nbgrad
    import nbgrad.nn.functional as F

    sizes = [784, 256, 128, 10]
    ws = [nbgrad.tensor(rng.standard_normal((o, i)).astype(np.float32) * (2 / i) ** 0.5,
                        device=dev, requires_grad=True) for i, o in zip(sizes, sizes[1:])]
    bs = [nbgrad.zeros(o, device=dev, requires_grad=True) for o in sizes[1:]]
    x = nbgrad.tensor(rng.standard_normal((256, 784)).astype(np.float32), device=dev)
    y = nbgrad.tensor(rng.integers(0, 10, 256), device=dev)

    def step():
        h = x
        for i, (w, b) in enumerate(zip(ws, bs)):
            h = F.linear(h, w, b)
            if i < 2:
                h = F.relu(h)
        loss = F.cross_entropy(h, y)
        for p in ws + bs:
            p.grad = None
        loss.backward()
        with nbgrad.no_grad():
            for p in ws + bs:
                p.sub_(p.grad * 0.05)

    return step


def elementwise(dev, rng, n=1 << 24):
    import nbgrad

    x = nbgrad.tensor(rng.standard_normal(n).astype(np.float32), device=dev)
    w = nbgrad.tensor(rng.standard_normal(n).astype(np.float32), device=dev, requires_grad=True)
    b = nbgrad.tensor(rng.standard_normal(n).astype(np.float32), device=dev, requires_grad=True)

    def step():
        loss = ((x * w + b).tanh() * x.sigmoid() + (-(x * x)).exp()).sum()
        nbgrad.autograd.grad(loss, [w, b])

    return step


def matmul(dev, rng, n=4096):
    import nbgrad

    a = nbgrad.tensor(rng.standard_normal((n, n)).astype(np.float32), device=dev, requires_grad=True)
    b = nbgrad.tensor(rng.standard_normal((n, n)).astype(np.float32), device=dev, requires_grad=True)

    def step():
        nbgrad.autograd.grad((a @ b).sum(), [a, b])

    return step


def torch_cuda_times(repeats):
    """The same workloads in PyTorch on CUDA, or None when unavailable."""
    try:
        import torch
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    d = "cuda"

    def t(fn):
        fn()
        torch.cuda.synchronize()
        ts = []
        for _ in range(repeats):
            s = time.perf_counter()
            fn()
            torch.cuda.synchronize()
            ts.append(time.perf_counter() - s)
        return float(np.median(ts))

    g = torch.Generator(device=d).manual_seed(0)
    ws = [torch.randn(o, i, device=d, generator=g, requires_grad=True) for i, o in ((784, 256), (256, 128), (128, 10))]
    x = torch.randn(256, 784, device=d, generator=g)
    y = torch.randint(0, 10, (256,), device=d, generator=g)

    def mlp():
        h = x
        for i, w in enumerate(ws):
            h = h @ w.t()
            if i < 2:
                h = h.relu()
        loss = torch.nn.functional.cross_entropy(h, y)
        gs = torch.autograd.grad(loss, ws)
        with torch.no_grad():
            for w, gw in zip(ws, gs):
                w.sub_(gw * 0.05)

    n = 1 << 24
    xe, we, be = (torch.randn(n, device=d, generator=g, requires_grad=k) for k in (False, True, True))

    def elem():
        loss = ((xe * we + be).tanh() * xe.sigmoid() + (-(xe * xe)).exp()).sum()
        torch.autograd.grad(loss, [we, be])

    A, B = (torch.randn(4096, 4096, device=d, generator=g, requires_grad=True) for _ in range(2))

    def mm():
        torch.autograd.grad((A @ B).sum(), [A, B])

    return {"mlp_step": t(mlp), "elementwise_16M": t(elem), "matmul_4096": t(mm)}


def main(argv=None):
    p = argparse.ArgumentParser(description="nbgrad real-GPU check")
    p.add_argument("--skip-tests", action="store_true")
    p.add_argument("--repeats", type=int, default=5)
    args = p.parse_args(argv)
    import nbgrad

    if not nbgrad.cuda.is_available() or os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":
        print("no real CUDA device here (or the simulator is on); nothing to check")
        return 2
    from numba import cuda

    name = cuda.get_current_device().name
    name = name.decode() if isinstance(name, bytes) else name
    rc = 0
    if not args.skip_tests:
        here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        tests = os.path.join(here, "tests", "test_cuda.py")
        env = dict(os.environ, NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS="0")  # tiny test grids
        rc = subprocess.call([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                              tests], env=env)
        print(f"CUDA tests exit code: {rc}")
    rng = np.random.default_rng(0)
    rows = []
    for label, make, reps in (("mlp_step", mlp_step, args.repeats * 4),
                              ("elementwise_16M", elementwise, args.repeats),
                              ("matmul_4096", matmul, max(2, args.repeats // 2))):
        tg = _median_time(make("cuda", rng), "cuda", reps)
        tc = _median_time(make("cpu", rng), "cpu", max(2, reps // 2))
        rows.append((label, tg, tc))
    tt = torch_cuda_times(args.repeats)
    print(f"\nnbgrad GPU check, {datetime.date.today()}, {name}\n")
    print("| workload | nbgrad cuda | nbgrad cpu | cpu/cuda | torch cuda |")
    print("|---|---|---|---|---|")
    for label, tg, tc in rows:
        tq = f"{tt[label] * 1e3:.2f} ms" if tt else "n/a"
        print(f"| {label} | {tg * 1e3:.2f} ms | {tc * 1e3:.2f} ms | {tc / tg:.1f}x | {tq} |")
    return rc


if __name__ == "__main__":
    sys.exit(main())
