"""Where a model workload's training step spends its time, nbgrad beside PyTorch.

    .venv/bin/python asv_bench/profile_step.py gpt_block [cnn_step vae_step] [--steps 20]
        [--ops] [--cprofile 25]

For each workload and each library (its own fresh process, the libraries alternating
``--rounds`` times), after warm-up steps:

- phases: the median time of ``opt.zero_grad()``, the forward pass with the loss,
  ``loss.backward()`` and ``opt.step()`` over ``--steps`` steps (nothing instrumented);
- ``--ops``: the forward pass by op. Every public function and Tensor method the models
  call is wrapped in the same timer in both libraries; only outermost calls are timed, so
  an op that calls another is counted once, and "other" is what lies outside any op
  (nn.Module calls, the model's own Python). Wrapping adds the same small cost per call
  to both. Then the backward pass by node: nbgrad's node classes wrapped alike (the engine
  between nodes, and AccumulateGrad, is "other"), PyTorch's from ``torch.profiler``'s
  ``evaluate_function`` events (they include PyTorch's accumulation into ``.grad``);
- ``--cprofile N`` (nbgrad only): cProfile of whole steps, the top N functions by own time
  (cProfile slows Python-heavy code most: read it for shares, not absolute times).
"""

import argparse
import cProfile
import importlib
import io
import json
import os
import pstats
import statistics
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from benchmarks import workloads as W  # noqa: E402
from compare import child_env  # noqa: E402

TORCH_THREADS = 2
CLOCK = [time.perf_counter]  # time.thread_time with --clock cpu
PHASES = ("zero_grad", "forward", "backward", "step")
# what the model workloads call: wrapped (when present) by --ops
FUNCS = ("linear", "relu", "gelu", "layer_norm", "softmax", "log_softmax", "cross_entropy",
         "nll_loss", "conv2d", "max_pool2d", "dropout", "embedding")
TOP = ("sigmoid", "exp", "log", "clamp", "sum", "flatten", "arange", "randn_like")
METHODS = ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__neg__",
           "__matmul__", "__getitem__", "__eq__", "view", "transpose", "split", "contiguous",
           "size", "pow", "exp", "masked_fill", "dim")


def _phases(lib, w, s, steps):
    """Median seconds per phase over ``steps`` training steps."""
    opt = s["opt"]
    t = {p: [] for p in PHASES}
    for _ in range(steps):
        t0 = CLOCK[0]()
        opt.zero_grad()
        t1 = CLOCK[0]()
        loss = w.loss(lib, s)
        t2 = CLOCK[0]()
        loss.backward()
        t3 = CLOCK[0]()
        opt.step()
        t4 = CLOCK[0]()
        for p, a, b in zip(PHASES, (t0, t1, t2, t3), (t1, t2, t3, t4)):
            t[p].append(b - a)
    return {p: statistics.median(v) for p, v in t.items()}


class _Timer:
    """Seconds and calls by name of the outermost wrapped calls while ``on``, per step."""

    def __init__(self):
        self.on = False
        self.depth = 0
        self.total = {}  # name -> [seconds, calls] in this step
        self.steps = []  # (step time, totals) of each finished step

    def add(self, name, dt):
        tot = self.total.setdefault(name, [0.0, 0])
        tot[0] += dt
        tot[1] += 1

    def end_step(self, dt):
        self.steps.append((dt, self.total))
        self.total = {}

    def summary(self):
        """(median step time, {name: (median seconds per step, calls per step)}): medians
        keep a preemption by another process out of the op it happened to hit."""
        names = {k for _, tot in self.steps for k in tot}
        med = {k: (statistics.median(tot.get(k, (0.0, 0))[0] for _, tot in self.steps),
                   statistics.median(tot.get(k, (0.0, 0))[1] for _, tot in self.steps))
               for k in names}
        return statistics.median(dt for dt, _ in self.steps), med

    def wrap(self, name, fn):
        def timed(*args, **kwargs):
            if not self.on or self.depth:
                return fn(*args, **kwargs)
            self.depth = 1
            t0 = CLOCK[0]()
            try:
                return fn(*args, **kwargs)
            finally:
                self.depth = 0
                self.add(name, CLOCK[0]() - t0)
        return timed


def _wrap_forward(lib, timer):
    # the workload's stand-ins for what nbgrad lacks, timed whole in both libraries
    W._bce_sum = timer.wrap("binary_cross_entropy (F. or composite)", W._bce_sum)
    W._causal_mask = timer.wrap("causal mask (masked_fill or + mask)", W._causal_mask)
    F = lib.nn.functional
    for n in FUNCS:
        if hasattr(F, n):
            setattr(F, n, timer.wrap(f"F.{n}", getattr(F, n)))
    for n in TOP:
        if hasattr(lib, n):
            setattr(lib, n, timer.wrap(n, getattr(lib, n)))
    for n in METHODS:
        if hasattr(lib.Tensor, n):
            setattr(lib.Tensor, n, timer.wrap(f"Tensor.{n}", getattr(lib.Tensor, n)))


def _wrap_nbgrad_nodes(timer):
    """Time every nbgrad backward node's ``backward`` (and ``_run``, which the engine calls
    for nodes generated from an op table row) by node class."""
    from nbgrad.autograd.graph import Node

    def subclasses(c):
        for s in c.__subclasses__():
            yield s
            yield from subclasses(s)

    from nbgrad.ops.nodegen import _compile_backward

    def wrap(cls, attr):
        fn = cls.__dict__[attr]
        if getattr(cls, "op", None) is not None:
            # a generated node compiles its method on first call and puts it on the class,
            # which would replace the timer: compile it now and time that
            fn = _compile_backward(cls, attr == "_run")

        def timed(self, *args):
            if not timer.on or timer.depth:
                return fn(self, *args)
            timer.depth = 1
            t0 = CLOCK[0]()
            try:
                return fn(self, *args)
            finally:
                timer.depth = 0
                timer.add(type(self).__name__, CLOCK[0]() - t0)
        setattr(cls, attr, timed)

    for cls in set(subclasses(Node)):
        for attr in ("backward", "_run"):
            if cls.__dict__.get(attr) is not None and callable(cls.__dict__[attr]):
                wrap(cls, attr)


def _forward_ops(lib, w, s, steps):
    timer = _Timer()
    _wrap_forward(lib, timer)
    for _ in range(steps):
        s["opt"].zero_grad()
        timer.on = True
        t0 = CLOCK[0]()
        loss = w.loss(lib, s)
        timer.end_step(CLOCK[0]() - t0)
        timer.on = False
        loss.backward()
        s["opt"].step()
    return timer.summary()


def _hook_torch_nodes(loss, timer, hooked):
    """Time each node of ``loss``'s graph (PyTorch) by a pre-hook and a hook. ``hooked``:
    the nodes hooked before (a leaf's AccumulateGrad lives as long as the leaf)."""
    todo = [loss.grad_fn]
    while todo:
        node = todo.pop()
        if node is None or node in hooked:
            continue
        hooked.add(node)
        start = []

        def pre(grad_outputs, start=start):
            start.append(CLOCK[0]())

        def post(grad_inputs, grad_outputs, name=node.name(), start=start):
            timer.add(name, CLOCK[0]() - start.pop())

        node.register_prehook(pre)
        node.register_hook(post)
        todo.extend(n for n, _ in node.next_functions)


def _backward_nodes(lib, w, s, steps):
    timer = _Timer()
    hooked = set()
    if lib.__name__ == "nbgrad":
        _wrap_nbgrad_nodes(timer)
    for _ in range(steps):
        s["opt"].zero_grad()
        loss = w.loss(lib, s)
        if lib.__name__ != "nbgrad":
            _hook_torch_nodes(loss, timer, hooked)
        timer.on = True
        t0 = CLOCK[0]()
        loss.backward()
        timer.end_step(CLOCK[0]() - t0)
        timer.on = False
        s["opt"].step()
    return timer.summary()


def child(lib_name, name, steps, ops, cprofile, threads, clock):
    if clock == "cpu":
        CLOCK[0] = time.thread_time
    lib = importlib.import_module(lib_name)
    if lib_name == "torch":
        lib.set_num_threads(threads or TORCH_THREADS)
    w = W.WORKLOADS[name]
    s = w.build(lib, w.inputs(0))
    for _ in range(3):
        w.run(lib, s)  # compiles (nbgrad), and leaves the checked step's inputs behind
    res = {"file": lib.__file__, "phases": _phases(lib, w, s, steps)}
    if cprofile:
        pr = cProfile.Profile()
        pr.enable()
        for _ in range(steps):
            w.run(lib, s)
        pr.disable()
        buf = io.StringIO()
        pstats.Stats(pr, stream=buf).sort_stats("tottime").print_stats(cprofile)
        res["cprofile"] = buf.getvalue()
    if ops:  # last: the wrappers stay
        res["forward"] = _forward_ops(lib, w, s, steps)
        res["backward"] = _backward_nodes(lib, w, s, steps)
    return res


def _ms(x):
    return f"{x * 1e3:.2f}"


def _table(rows, names, title):
    print(f"\n{title}\n")
    print("| | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for r in rows:
        print("| " + " | ".join(r) + " |")


def report(name, res):
    libs = list(res)
    rows = []
    for p in PHASES + ("total",):
        cells = []
        for lib in libs:
            runs = res[lib]
            v = [sum(r["phases"].values()) if p == "total" else r["phases"][p] for r in runs]
            cells.append(f"{_ms(statistics.median(v))} (min {_ms(min(v))})")
        rows.append([p] + cells)
    _table(rows, [f"{lib}, ms" for lib in libs], f"### {name}: phases (median of rounds)")
    if "forward" not in res[libs[0]][-1]:
        return
    for part, label in (("forward", "forward by op (outermost calls)"),
                        ("backward", "backward by node")):
        per = {lib: res[lib][-1][part] for lib in libs}  # the last round
        keys = sorted({k for lib in libs for k in per[lib][1]},
                      key=lambda k: -max(per[lib][1].get(k, (0, 0))[0] for lib in libs))
        rows = []
        for k in keys:
            cells = []
            for lib in libs:
                t, n = per[lib][1].get(k, (0.0, 0))
                cells.append(f"{_ms(t)} ({n:g}, {t / n * 1e6:.0f} µs/call)" if n else "-")
            rows.append([k] + cells)
        rows.append(["other (outside the timed calls)"] + [
            _ms(per[lib][0] - sum(t for t, _ in per[lib][1].values())) for lib in libs])
        rows.append(["total (instrumented)"] + [_ms(per[lib][0]) for lib in libs])
        _table(rows, [f"{lib}: ms per step (calls per step, µs/call)" for lib in libs],
               f"### {name}: {label}")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("workloads", nargs="+", choices=["gpt_block", "cnn_step", "vae_step"])
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--rounds", type=int, default=2, help="fresh processes per library")
    p.add_argument("--ops", action="store_true", help="forward by op, backward by node")
    p.add_argument("--cprofile", type=int, default=0, metavar="N",
                   help="nbgrad's top N functions by own time (cProfile)")
    p.add_argument("--libs", nargs="+", default=["nbgrad", "torch"])
    p.add_argument("--threads", type=int, default=0,
                   help="threads for both libraries (BLAS, OpenMP, Numba, torch): on a "
                   "loaded machine 1 keeps thread contention out of the op times; "
                   f"default: compare.py's setup (torch {TORCH_THREADS}, nbgrad its own)")
    p.add_argument("--clock", choices=["wall", "cpu"],
                   help="cpu: the calling thread's CPU time (time.thread_time), which "
                   "another process's load does not inflate; only with --threads 1, where "
                   "all work runs in that thread (nbgrad's parallel kernels are turned "
                   "off). Default: cpu with --threads 1, else wall")
    args = p.parse_args(argv)
    env = dict(os.environ)
    # the children import the nbgrad of this checkout, not an editable install of another
    # (a worktree's profile would otherwise time the installed tree's code)
    root = os.path.dirname(HERE)
    env["PYTHONPATH"] = os.pathsep.join(
        [root] + [q for q in env.get("PYTHONPATH", "").split(os.pathsep) if q])
    if args.threads:
        n = str(args.threads)
        env.update(OMP_NUM_THREADS=n, OPENBLAS_NUM_THREADS=n, MKL_NUM_THREADS=n,
                   NBGRAD_NUM_THREADS=n)
    clock = args.clock or ("cpu" if args.threads == 1 else "wall")
    if clock == "cpu":
        if args.threads != 1:
            p.error("--clock cpu needs --threads 1")
        env["NBGRAD_PARALLEL_MIN"] = str(2**62)  # Numba's pool would run them off-thread
    print(f"load average {os.getloadavg()[0]:.2f}; threads: {args.threads or 'default'}; "
          f"clock: {clock}")
    for name in args.workloads:
        res = {lib: [] for lib in args.libs}
        for i in range(args.rounds):
            for lib in args.libs:
                last = i == args.rounds - 1
                spec = [lib, name, args.steps, args.ops and last,
                        args.cprofile if last and lib == "nbgrad" else 0, args.threads, clock]
                r = subprocess.run([sys.executable, os.path.abspath(__file__), "--child",
                                    json.dumps(spec)], capture_output=True, text=True,
                                   env=child_env(lib, env))
                if r.returncode:
                    sys.exit(f"{lib} {name} failed:\n{r.stderr}")
                res[lib].append(json.loads(r.stdout.strip().splitlines()[-1]))
        print(f"\n{name}: " + "; ".join(f"{lib} from {res[lib][0]['file']}" for lib in res))
        report(name, res)
        prof = res.get("nbgrad", [{}])[-1].get("cprofile")
        if prof:
            print(f"\n### {name}: nbgrad, cProfile of {args.steps} steps\n\n```")
            print(prof.strip())
            print("```")
    print(f"\nload average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        out = child(*json.loads(sys.argv[2]))
        print(json.dumps(out, default=lambda o: np.asarray(o).tolist()))
    else:
        main()
