"""Run nbgrad's CUDA tests on a real GPU and time it beside PyTorch CUDA (issue #19's table).

    python -m nbgrad.testing.gpu_check [--skip-tests] [--repeats N] [--check-targets]
                                       [--device cuda] [--scale 1.0]

Each workload is one function written against the PyTorch API, run by nbgrad and by PyTorch
(when installed, with CUDA) in the same process on the same inputs, float32, medians:

- launch overhead: host time per op of a chain of ops on one-element tensors, with 1, 2
  and 3 array arguments (``neg``, ``add``, ``where``), synchronised once at the end;
- matmul 1024^2 and 4096^2 (forward), and 4096^2 forward + backward;
- mlp_step (PERF.md's 784-256-128-10 MLP, batch 256, cross-entropy, SGD), eager and with
  its forward compiled (``nbgrad.compile`` / ``torch.compile``);
- elementwise_16M (PERF.md's expression over 2**24 elements, forward + backward), eager and
  compiled;
- conv_step: the MNIST CNN of PyTorch's examples without dropout (conv 1->32, conv 32->64,
  max-pool, linear 9216->128, linear 128->10; batch 64; log_softmax + nll; SGD);
- peak device memory of 20 mlp_steps (``max_memory_allocated`` in both: nbgrad's caching
  allocator's count; "not measured" where it is not serving the device).

Prints a markdown table (GPU name, driver, date, which library nbgrad's products call).
``--check-targets`` exits 1 when a target of issue #19 is missed or could not be measured,
naming each. ``--device cpu --scale 0.02`` runs the same code on the CPU with tiny sizes
(a smoke test of this script; the test suite does that).
"""

import argparse
import datetime
import os
import subprocess
import sys
import time

import numpy as np

# issue #19's targets: nbgrad time / PyTorch CUDA time (peak memory: bytes / bytes)
TARGETS = {
    "matmul_4096": 1.1,
    "mlp_step": 2.0,
    "mlp_step_compiled": 1.0,
    "elementwise_16M": 1.5,
    "peak_memory_mlp": 1.2,
}
# compiled elementwise against PyTorch's eager time
COMPILED_VS_EAGER = {"elementwise_16M_compiled": ("elementwise_16M", 0.5)}


def _sync(lib, dev):
    if dev.startswith("cuda"):
        lib.cuda.synchronize()


def _median_time(lib, dev, fn, repeats):
    fn()
    fn()
    _sync(lib, dev)
    ts = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        _sync(lib, dev)
        ts.append(time.perf_counter() - t)
    return float(np.median(ts))


def _t(lib, a, dev, grad=False):
    return lib.tensor(a, device=dev, requires_grad=grad)


def _compiled(lib, fn):
    return lib.compile(fn)


# ----- workloads: (lib, dev, rng, scale) -> a step function (returning the loss, where there
# is one); each body is PyTorch's API, so the same function runs in both libraries
def launch(nargs):
    def make(lib, dev, rng, scale):
        x, y = (_t(lib, rng.standard_normal(1).astype(np.float32), dev) for _ in range(2))
        c = _t(lib, np.array([True]), dev)
        n = max(10, int(200 * scale))

        def step():
            z = x
            for _ in range(n):
                if nargs == 1:
                    z = -z
                elif nargs == 2:
                    z = z + y
                else:
                    z = lib.where(c, z, y)
            return z

        step.per = n  # (the time is per op)
        return step

    return make


def matmul(n, backward):
    def make(lib, dev, rng, scale):
        k = max(8, int(n * scale))
        a, b = (_t(lib, rng.standard_normal((k, k)).astype(np.float32), dev, backward)
                for _ in range(2))

        def step():
            if backward:
                lib.autograd.grad((a @ b).sum(), [a, b])
            else:
                return a @ b

        return step

    return make


def _mlp(lib, dev, rng, scale, compiled):
    F = lib.nn.functional
    sizes = [784, 256, 128, 10]
    batch = max(4, int(256 * scale))
    ws = [_t(lib, (rng.standard_normal((o, i)) * (2 / i) ** 0.5).astype(np.float32), dev, True)
          for i, o in zip(sizes, sizes[1:])]
    bs = [_t(lib, np.zeros(o, np.float32), dev, True) for o in sizes[1:]]
    x = _t(lib, rng.standard_normal((batch, 784)).astype(np.float32), dev)
    y = _t(lib, rng.integers(0, 10, batch), dev)

    def loss_fn(x, y):
        h = x
        for i, (w, b) in enumerate(zip(ws, bs)):
            h = F.linear(h, w, b)
            if i < 2:
                h = F.relu(h)
        return F.cross_entropy(h, y)

    fwd = _compiled(lib, loss_fn) if compiled else loss_fn

    def step():
        for p in ws + bs:
            p.grad = None
        loss = fwd(x, y)
        loss.backward()
        with lib.no_grad():
            for p in ws + bs:
                p.sub_(p.grad * 0.05)
        return loss

    return step


def mlp_step(compiled):
    return lambda lib, dev, rng, scale: _mlp(lib, dev, rng, scale, compiled)


def elementwise(compiled):
    def make(lib, dev, rng, scale):
        n = max(64, int((1 << 24) * scale))
        x = _t(lib, rng.standard_normal(n).astype(np.float32), dev)
        w, b = (_t(lib, rng.standard_normal(n).astype(np.float32), dev, True) for _ in range(2))

        def loss_fn(x, w, b):
            return ((x * w + b).tanh() * x.sigmoid() + (-(x * x)).exp()).sum()

        fwd = _compiled(lib, loss_fn) if compiled else loss_fn

        def step():
            loss = fwd(x, w, b)
            lib.autograd.grad(loss, [w, b])
            return loss

        return step

    return make


def conv_step(lib, dev, rng, scale):
    F = lib.nn.functional
    batch = max(2, int(64 * scale))

    def param(*shape):
        fan_in = int(np.prod(shape[1:]))
        return _t(lib, (rng.uniform(-1, 1, shape) / fan_in ** 0.5).astype(np.float32), dev, True)

    ps = [param(32, 1, 3, 3), param(32), param(64, 32, 3, 3), param(64), param(128, 9216),
          param(128), param(10, 128), param(10)]
    x = _t(lib, rng.standard_normal((batch, 1, 28, 28)).astype(np.float32), dev)
    y = _t(lib, rng.integers(0, 10, batch), dev)

    def step():
        for p in ps:
            p.grad = None
        h = F.relu(F.conv2d(x, ps[0], ps[1]))
        h = F.max_pool2d(F.relu(F.conv2d(h, ps[2], ps[3])), 2).flatten(1)
        h = F.linear(F.relu(F.linear(h, ps[4], ps[5])), ps[6], ps[7])
        loss = F.nll_loss(F.log_softmax(h, 1), y)
        loss.backward()
        with lib.no_grad():
            for p in ps:
                p.sub_(p.grad * 0.01)
        return loss

    return step


WORKLOADS = {
    "launch_1_arg": launch(1),
    "launch_2_args": launch(2),
    "launch_3_args": launch(3),
    "matmul_1024": matmul(1024, False),
    "matmul_4096": matmul(4096, False),
    "matmul_4096_fwd_bwd": matmul(4096, True),
    "mlp_step": mlp_step(False),
    "mlp_step_compiled": mlp_step(True),
    "elementwise_16M": elementwise(False),
    "elementwise_16M_compiled": elementwise(True),
    "conv_step": conv_step,
}


def peak_memory(lib, dev, rng, scale):
    """Peak device bytes of 20 mlp_steps (the same API in both libraries), or None where the
    library cannot tell (the CPU; nbgrad with NBGRAD_CUDA_CACHING=0 reads 0)."""
    if not dev.startswith("cuda"):
        return None
    lib.cuda.synchronize()
    lib.cuda.reset_peak_memory_stats()
    base = lib.cuda.memory_allocated()
    step = _mlp(lib, dev, rng, scale, False)
    for _ in range(20):
        step()
    lib.cuda.synchronize()
    peak = lib.cuda.max_memory_allocated()
    return peak - base if peak else None


def time_all(lib, dev, repeats, scale, only=None):
    """``{workload: seconds (per op for launch rows) or None}``, and the peak memory."""
    out = {}
    for name, make in WORKLOADS.items():
        if only and name not in only:
            continue
        try:
            fn = make(lib, dev, np.random.default_rng(0), scale)
            t = _median_time(lib, dev, fn, repeats)
            out[name] = t / getattr(fn, "per", 1)
        except Exception as e:  # (torch.compile without its compiler, say): reported
            out[name] = None
            print(f"{lib.__name__} {name}: {type(e).__name__}: {e}"[:300], file=sys.stderr)
    if not only or "peak_memory_mlp" in only:
        out["peak_memory_mlp"] = peak_memory(lib, dev, np.random.default_rng(0), scale)
    return out


def targets(nb, th):
    """Issue #19's targets: ``[(name, ratio or None, limit, met)]`` from nbgrad's and
    PyTorch's results; a ratio that could not be measured counts as missed."""
    rows = []
    for name, limit in TARGETS.items():
        a, b = nb.get(name), (th or {}).get(name)
        r = a / b if a is not None and b else None
        rows.append((name, r, limit, r is not None and r <= limit))
    for name, (ref, limit) in COMPILED_VS_EAGER.items():
        a, b = nb.get(name), (th or {}).get(ref)
        r = a / b if a is not None and b else None
        rows.append((f"{name} vs torch eager", r, limit, r is not None and r <= limit))
    return rows


def _fmt(name, v):
    if v is None:
        return "not measured"
    if name.startswith("peak"):
        return f"{v / 2**20:.1f} MiB"
    if name.startswith("launch"):
        return f"{v * 1e6:.1f} µs/op"
    return f"{v * 1e3:.2f} ms"


def table(nb, th, dev_name, products):
    lines = [f"nbgrad GPU check, {datetime.date.today()}, {dev_name}; nbgrad's matrix "
             f"products: {products}", "",
             "| workload | nbgrad | PyTorch | nbgrad / PyTorch | target |", "|---|---|---|---|---|"]
    goals = {n: f"<= {lim}" for n, lim in TARGETS.items()}
    goals.update({n: f"<= {lim} of PyTorch eager" for n, (_, lim) in COMPILED_VS_EAGER.items()})
    for name in nb:
        a, b = nb[name], (th or {}).get(name)
        r = f"{a / b:.2f}" if a is not None and b else "-"
        lines.append(f"| {name} | {_fmt(name, a)} | {_fmt(name, b)} | {r} | "
                     f"{goals.get(name, '-')} |")
    return "\n".join(lines)


def _torch(dev):
    try:
        import torch
    except ImportError:
        return None
    if dev.startswith("cuda") and not torch.cuda.is_available():
        return None
    return torch


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m nbgrad.testing.gpu_check",
                                description="nbgrad on a real GPU beside PyTorch CUDA")
    p.add_argument("--skip-tests", action="store_true", help="do not run tests/test_cuda.py")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--check-targets", action="store_true",
                   help="exit 1 when a target of issue #19 is missed or not measured")
    p.add_argument("--device", default="cuda", help="cuda (default), or cpu for a smoke test")
    p.add_argument("--scale", type=float, default=1.0, help="size factor (tiny for a smoke test)")
    p.add_argument("--only", nargs="*", help="only these workloads")
    args = p.parse_args(argv)
    import nbgrad

    dev = args.device
    if dev.startswith("cuda"):
        if not nbgrad.cuda.is_available() or os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":
            print("no real CUDA device here (or the simulator is on); nothing to check")
            return 2
        from numba import cuda

        from nbgrad.kernels.cuda import cublas

        name = cuda.get_current_device().name
        name = name.decode() if isinstance(name, bytes) else name
        products = ("cuBLAS" if cublas.available() else
                    f"nbgrad's tiled kernel ({cublas.unavailable_reason()})")
    else:
        name, products = "CPU (smoke test)", "the CPU's BLAS"
    rc = 0
    if not args.skip_tests:
        here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        tests = os.path.join(here, "tests", "test_cuda.py")
        env = dict(os.environ, NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS="0")  # tiny test grids
        rc = subprocess.call([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                              tests], env=env)
        print(f"CUDA tests exit code: {rc}")
    nb = time_all(nbgrad, dev, args.repeats, args.scale, args.only)
    torch = _torch(dev)
    th = time_all(torch, dev, args.repeats, args.scale, args.only) if torch else None
    print()
    print(table(nb, th, name, products))
    if args.check_targets:
        missed = [t for t in targets(nb, th) if not t[3]]
        for n, r, lim, _ in missed:
            got = "not measured" if r is None else f"{r:.2f}"
            print(f"target missed: {n}: {got} (target <= {lim})")
        if missed:
            rc = rc or 1
    return rc


if __name__ == "__main__":
    sys.exit(main())
