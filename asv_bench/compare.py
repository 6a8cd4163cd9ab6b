"""nbgrad vs PyTorch on the PERF.md workloads, side by side, with a correctness check.

    .venv/bin/python asv_bench/compare.py [--only mlp_step small_ops ...] [--no-cold-start]

For each workload, each library gets its own fresh subprocess; both get the same float32
inputs (made here by NumPy with a fixed seed and handed over in an .npz file). A child
builds its tensors and runs the workload once: that call's results are the ones checked
(for mlp_step, the first step from the initial weights) and it compiles nbgrad's kernels.
After warm-up calls, the timed calls run in blocks that alternate between the
children, with a short pause before each block, so that both libraries see the same
background load; each block starts with one untimed call, so that its timed calls follow
another call as a training loop's steps do (after a wait of a second or more nbgrad's
buffer pool has given its idle memory back, and the next call faults it in again: with
four children the waits between one child's blocks reach that, and cnn_step's median
read 1.23 of PyTorch's where back-to-back steps give 0.88); the table reports medians.
PyTorch runs with ``torch.set_num_threads(2)``; nbgrad with its own defaults (NBGRAD_*
environment knobs are passed through).

Compiled columns: the same workloads with their forward function compiled
(``workloads.staged``: ``nbgrad.compile`` and ``torch.compile``, each in its own child),
except deep_chain (a 20,000-op trace compiles for minutes) and hvp (a double backward,
which ``torch.compile`` refuses). Their first two calls (nbgrad traces on the first and
compiles on the second; Inductor compiles on the first) are reported apart, and for
nbgrad the kernels one step launches, eager and compiled (``nbgrad.compiler.kernel_count``).

Prints a markdown table: workload | nbgrad | nbgrad.compile | PyTorch | torch.compile |
ratios to PyTorch eager | PERF.md targets | kernels per step, then the spread of the
timings. Exits non-zero when a variant of nbgrad's results (losses, gradients, updated
weights) differ from PyTorch eager's beyond float32 tolerance, or a child fails; where
torch.compile's own results differ from PyTorch eager's (PyTorch 2.13's Inductor gave the
MNIST CNN's convolutions all-zero weight gradients on an AMD EPYC), that is printed as a
warning and does not fail the run.

cold_start is a fresh ``python -c`` that imports the library, builds the MLP and runs the
first mlp_step (wall time of the whole process), first with an empty Numba cache
(``NUMBA_CACHE_DIR`` and ``NBGRAD_CACHE_DIR`` set to a new directory), then
again with what that run left there. Before them nbgrad's Python is compiled to bytecode
(``compileall``, as pip does when it installs a package): PyTorch's installed ``.pyc``
files load in every fresh process, and an environment with ``PYTHONDONTWRITEBYTECODE=1``
would otherwise have each nbgrad child compile nbgrad's source first. Then a fresh process
per library prints the times of its first 5 MLP steps with an empty cache: nbgrad compiles
a kernel's parallel variant once the kernel has run a while (NBGRAD_TIER_UP), so some of
its compiling lands after the first step.
"""

import argparse
import datetime
import gc
import importlib
import importlib.metadata
import importlib.util
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import traceback

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from benchmarks import workloads as W  # noqa: E402

SEED = 0
LIBS = ("nbgrad", "torch")
# a child per variant: (library, compiled)
VARIANTS = {"nbgrad": ("nbgrad", False), "nbgrad.compile": ("nbgrad", True),
            "torch": ("torch", False), "torch.compile": ("torch", True)}
NO_COMPILE = {"deep_chain", "hvp"}
TORCH_THREADS = 2

# name: (warm-up calls, timed calls, tolerance). The tolerance bounds
# max|nbgrad - torch| / max|torch| for every checked array.
PLAN = {
    "mlp_step": (3, 25, 1e-4),
    # elementwise and deep_chain take tens of ms a call: more calls steady their medians
    # on a shared machine, for a second or two more
    "elementwise": (2, 15, 1e-4),
    "small_ops": (5, 30, 1e-4),
    "deep_chain": (1, 10, 1e-3),  # 20,000 float32 ops: rounding differences add up
    "hvp": (5, 50, 1e-4),
    "matmul_bwd": (2, 10, 1e-4),
    "gpt_block": (3, 20, 1e-4),
    "cnn_step": (2, 10, 1e-4),
    "vae_step": (3, 25, 1e-4),
}
TARGETS = {  # PERF.md: nbgrad time / PyTorch time, same run
    "mlp_step": 1.0,
    "elementwise": 0.8,
    "small_ops": 0.7,
    "deep_chain": 1.0,
    "hvp": 1.0,
    "matmul_bwd": 1.05,
    "gpt_block": 1.0,
    "cnn_step": 1.0,
    "vae_step": 1.0,
    "cold_start, empty cache": 3.0,
    "cold_start, warm cache": 0.6,
}
COMPILED_TARGETS = {  # PERF.md: nbgrad.compile time / PyTorch eager time, same run
    "elementwise": 0.2,  # and below torch.compile's
    "small_ops": 0.1,
    "mlp_step": 0.9,
}
CHILD_TIMEOUT = 600  # seconds for any one request to a child
BLOCKS = 5  # timed calls are split into this many blocks, alternating between libraries
PAUSE = 0.2  # seconds of quiet before each block (OpenBLAS/OpenMP threads spin ~0.1 s)
IMPORTED = {}  # library -> the files the children imported it from
BLAS = {}  # library -> the BLAS its children's matrix products called


# ----- child: one library, serving one workload -------------------------------------------
MARK = "@@compare@@ "


def serve(lib_name, compiled=False):
    """Answer JSON requests on stdin: ``load`` a workload, ``run`` it n times (timed),
    ``count`` the kernels of one run (nbgrad). ``compiled``: the workloads call their
    compiled forward functions."""
    lib = importlib.import_module(lib_name)
    if lib_name == "torch":
        lib.set_num_threads(TORCH_THREADS)
    if compiled:
        W.COMPILE[0] = lib.compile
    w = state = None
    for line in sys.stdin:
        msg = json.loads(line)
        try:
            if msg["cmd"] == "load":
                w = W.WORKLOADS[msg["name"]]
                with np.load(msg["inputs"]) as f:
                    arrays = {k: f[k] for k in f.files}
                state = w.build(lib, arrays)
                t0 = time.perf_counter()
                out = w.run(lib, state)  # compiles (nbgrad); its results are checked
                first = time.perf_counter() - t0
                np.savez(msg["out"], **{k: W.to_numpy(v) for k, v in out.items()})
                del out
                t0 = time.perf_counter()
                w.run(lib, state)  # (a compiled variant of nbgrad compiles here)
                second = time.perf_counter() - t0
                reply = {"first": first, "second": second, "file": lib.__file__,
                         "blas": _blas(lib)}
            elif msg["cmd"] == "count":
                # (None for torch, and for an nbgrad from before nbgrad.compiler: ab.sh)
                counter = getattr(getattr(lib, "compiler", None), "kernel_count", None)
                n = counter(w.run, lib, state)[1] if lib_name == "nbgrad" and counter else None
                reply = {"kernels": n}
            elif msg["cmd"] == "run":
                for _ in range(msg.get("lead", 0)):  # untimed: the block's first step
                    w.run(lib, state)
                times = []
                for _ in range(msg["n"]):
                    t0 = time.perf_counter()
                    w.run(lib, state)
                    times.append(time.perf_counter() - t0)
                if msg.get("collect"):
                    gc.collect()
                reply = {"times": times}
            else:
                return
        except Exception:
            reply = {"error": traceback.format_exc()}
        print(MARK + json.dumps(reply), flush=True)


def _blas(lib):
    """The BLAS behind ``lib``'s matrix products, as its child sees it."""
    if lib.__name__ == "torch":
        cfg = lib.__config__.show()
        return "MKL" if "USE_MKL=ON" in cfg or "BLAS_INFO=mkl" in cfg else "see torch.__config__"
    try:
        from nbgrad.kernels.cpu import blas
    except ImportError:  # before kernels/cpu/blas.py: np.matmul on NumPy's own threads
        return "np.matmul (NumPy's BLAS)"
    name = getattr(blas, "NAME", "openblas" if blas.AVAILABLE else None)
    return name or "np.matmul (NumPy's BLAS)"


# ----- parent -----------------------------------------------------------------------------
def child_env(lib, env=None):
    """The environment of ``lib``'s child: nbgrad's gets the OpenBLAS setting that
    ``import nbgrad`` makes when it comes before NumPy (the child imports NumPy first),
    and (unless set) ``NBGRAD_TIER_UP=0``: its kernels take their parallel variants at
    their first big call, so that a few warm-up calls reach the loop a training run settles
    into (by default a kernel waits until its serial variant has run 5 ms; a tier-up
    compile in the timed calls would be a first-steps cost, which the cold_start rows
    measure with the defaults)."""
    env = dict(os.environ if env is None else env)
    if lib == "nbgrad":
        env.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")
        env.setdefault("NBGRAD_TIER_UP", "0")
    return env


class Child:
    """A ``serve`` subprocess for one library; ``ask`` sends a request, waits for the reply."""

    def __init__(self, variant, tmp):
        self.lib = variant
        lib, compiled = VARIANTS[variant]
        self.err_path = os.path.join(tmp, f"{variant}-stderr.txt")
        self.err = open(self.err_path, "w")
        cmd = [sys.executable, os.path.abspath(__file__), "--serve", lib]
        self.p = subprocess.Popen(cmd + ["--compiled"] * compiled,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=self.err, text=True, bufsize=1, env=child_env(lib))

    def ask(self, **msg):
        watchdog = threading.Timer(CHILD_TIMEOUT, self.p.kill)
        watchdog.start()
        try:
            self.p.stdin.write(json.dumps(msg) + "\n")
            self.p.stdin.flush()
            while True:
                line = self.p.stdout.readline()
                if not line:
                    raise RuntimeError(f"{self.lib} child exited (code {self.p.poll()}) during "
                                       f"{msg}:\n{self._stderr_tail()}")
                if line.startswith(MARK):
                    reply = json.loads(line[len(MARK):])
                    break
        except BrokenPipeError:
            raise RuntimeError(f"{self.lib} child died:\n{self._stderr_tail()}") from None
        finally:
            watchdog.cancel()
        if "error" in reply:
            raise RuntimeError(f"{self.lib} failed on {msg}:\n{reply['error']}")
        return reply

    def _stderr_tail(self):
        self.err.flush()
        with open(self.err_path) as f:
            return f.read()[-3000:]

    def close(self):
        try:
            self.p.stdin.close()
            self.p.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            self.p.kill()
            self.p.wait()
        self.err.close()


def measure(name, tmp, variants):
    """Time workload ``name`` in a fresh process per variant, their calls interleaved in
    blocks so that all see the same background load. Returns (first, times, results,
    kernels), each a dict by variant (``first``: the first two calls' times; ``kernels``:
    nbgrad's kernels per step)."""
    warmup, repeats, _ = PLAN[name]
    in_path = os.path.join(tmp, f"{name}-inputs.npz")
    np.savez(in_path, **W.WORKLOADS[name].inputs(SEED))
    kids = {}
    try:
        for v in variants:
            kids[v] = Child(v, tmp)
        first, results, times, kernels = {}, {}, {v: [] for v in variants}, {}
        for v, kid in kids.items():
            out = os.path.join(tmp, f"{name}-{v}.npz")
            reply = kid.ask(cmd="load", name=name, inputs=in_path, out=out)
            first[v] = (reply["first"], reply["second"])
            IMPORTED.setdefault(VARIANTS[v][0], set()).add(reply["file"])
            BLAS.setdefault(VARIANTS[v][0], set()).add(reply["blas"])
            with np.load(out) as f:
                results[v] = {k: f[k] for k in f.files}
            kid.ask(cmd="run", n=max(warmup - 2, 0), collect=True)
            if VARIANTS[v][0] == "nbgrad":
                kernels[v] = kid.ask(cmd="count")["kernels"]
        n_blocks = min(BLOCKS, repeats)
        order = list(variants)
        for b in range(n_blocks):
            n = repeats // n_blocks + (b < repeats % n_blocks)
            for v in (order if b % 2 == 0 else order[::-1]):
                time.sleep(PAUSE)  # let the other children's worker threads go idle
                times[v] += kids[v].ask(cmd="run", n=n, lead=1)["times"]
        return first, times, results, kernels
    finally:
        for kid in kids.values():
            kid.close()
        os.remove(in_path)


def _check(name, a, b, tol):
    """Problems found comparing result dicts ``a`` (nbgrad) and ``b`` (torch)."""
    bad = []
    if set(a) != set(b):
        bad.append(f"{name}: result names differ: {sorted(a)} vs {sorted(b)}")
    for k in sorted(set(a) & set(b)):
        x, y = a[k], b[k]
        if x.shape != y.shape:
            bad.append(f"{name}/{k}: shape {x.shape} vs {y.shape}")
            continue
        if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
            bad.append(f"{name}/{k}: non-finite values")
            continue
        if x.dtype != y.dtype:
            bad.append(f"{name}/{k}: dtype {x.dtype} vs {y.dtype}")
        scale = float(np.max(np.abs(y))) if y.size else 0.0
        err = float(np.max(np.abs(x.astype(np.float64) - y))) if y.size else 0.0
        rel = err / scale if scale > 0 else err
        if rel > tol:
            bad.append(f"{name}/{k}: max|nbgrad - torch| = {err:.3g}, {rel:.3g} of "
                       f"max|torch| = {scale:.3g} (tolerance {tol:g})")
    return bad


# The compiled elementwise workload's first two calls in a fresh process (PERF.md: first
# call of a compiled elementwise step), and its first {calls} calls together. Prints JSON
# timings in seconds.
COMPILED_FIRST_CODE = """\
import json, sys, time
sys.path.insert(0, {bench_dir!r})
import {lib} as lib
{setup}
from benchmarks import workloads as w
w.COMPILE[0] = lib.compile
wl = w.WORKLOADS["elementwise"]
s = wl.build(lib, wl.inputs(0))
t0 = time.perf_counter()
wl.run(lib, s)
t1 = time.perf_counter()
wl.run(lib, s)
t2 = time.perf_counter()
for _ in range({calls} - 2):
    wl.run(lib, s)
t3 = time.perf_counter()
print(json.dumps({{"first": t1 - t0, "second": t2 - t1, "all": t3 - t0}}))
"""
# how many calls the longer measure of COMPILED_FIRST_CODE makes: nbgrad compiles its fused
# kernels' parallel variants in the background meanwhile, once they have earned them
COMPILED_CALLS = 500


def _fresh(lib, template, cache_dir, what, **fields):
    """Run code ``template`` for ``lib`` in a fresh process whose caches (Numba's,
    nbgrad's, Inductor's) live in ``cache_dir``: (its wall time, its last line of output).
    nbgrad's on-disk cache is on (it is by default; NBGRAD_CACHE=1 in case the
    environment turned it off)."""
    setup = f"lib.set_num_threads({TORCH_THREADS})" if lib == "torch" else ""
    code = template.format(lib=lib, bench_dir=HERE, setup=setup, **fields)
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir, NBGRAD_CACHE="1",
               NBGRAD_CACHE_DIR=os.path.join(cache_dir, "nbgrad"),
               TORCHINDUCTOR_CACHE_DIR=os.path.join(cache_dir, "inductor"))
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=CHILD_TIMEOUT)
    wall = time.perf_counter() - t0
    if r.returncode != 0:
        raise RuntimeError(f"{lib} {what} failed (exit {r.returncode}):\n{r.stderr[-3000:]}")
    return wall, r.stdout.strip().splitlines()[-1]


def _compiled_first(lib, cache_dir):
    """The first two calls of the compiled elementwise workload in a fresh process, and its
    first ``COMPILED_CALLS``."""
    t = json.loads(_fresh(lib, COMPILED_FIRST_CODE, cache_dir, "compiled first call",
                          calls=COMPILED_CALLS)[1])
    return t["first"] + t["second"], t["all"]


def _compile_bytecode(lib):
    """Write the ``.pyc`` files of ``lib`` (as the children import it), as pip does when it
    installs a package: a cold start then times loading the library, not compiling it."""
    import compileall

    spec = importlib.util.find_spec(lib)
    if spec is not None and spec.submodule_search_locations:
        for d in spec.submodule_search_locations:
            compileall.compile_dir(d, quiet=1)


def _cold_start(lib, cache_dir):
    """The wall time of a cold start (``COLD_START_CODE``) and its first loss."""
    wall, out = _fresh(lib, W.COLD_START_CODE, cache_dir, "cold_start")
    return wall, float(out)


def _first_steps(lib, cache_dir, steps=5):
    """The times of the first ``steps`` MLP steps in a fresh process with an empty cache."""
    return json.loads(_fresh(lib, W.FIRST_STEPS_CODE, cache_dir, "first steps",
                             steps=steps)[1])


MEMORY_CODE = """\
import re, sys
sys.path.insert(0, {bench_dir!r})
import {lib} as lib
{setup}
from benchmarks import workloads as w

def kib(field):
    return int(re.search(field + r":\\s+(\\d+)", open("/proc/self/status").read()).group(1))

s = w.mlp_build(lib, w.mlp_inputs(0))
w.mlp_step(lib, s)  # compiles and allocates what the first step needs
before = kib("VmRSS")
open("/proc/self/clear_refs", "w").write("5")  # restart the high-water mark here
for _ in range(100):
    loss, _ = w.mlp_step(lib, s)
print(kib("VmHWM") - before, float(loss.item()))
"""


def _peak_memory(lib):
    """Peak RSS growth (KiB) over 100 MLP training steps after the first, in a fresh process."""
    setup = f"lib.set_num_threads({TORCH_THREADS})" if lib == "torch" else ""
    code = MEMORY_CODE.format(lib=lib, bench_dir=HERE, setup=setup)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=CHILD_TIMEOUT)
    if r.returncode != 0:
        raise RuntimeError(f"{lib} peak memory run failed (exit {r.returncode}):\n{r.stderr}")
    kib, loss = r.stdout.strip().splitlines()[-1].split()
    return int(kib), float(loss)


def _fmt_time(seconds, per_op=None):
    if per_op:
        return f"{seconds / per_op * 1e6:.2f} µs/op"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} µs"
    if seconds < 1.0:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"


def _version(pkg):
    try:
        return importlib.metadata.version(pkg)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def _cpu_model():
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        for line in out.splitlines():
            if line.startswith("Model name:"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _nbgrad_root():
    """The checkout whose nbgrad the children import (found as they find it: PYTHONPATH
    first, then the installed one), without importing it here."""
    spec = importlib.util.find_spec("nbgrad")
    if spec is None or spec.origin is None:
        return None
    return os.path.dirname(os.path.dirname(os.path.abspath(spec.origin)))


def _git_rev():
    """``<nbgrad's checkout> at <commit>`` (of the library the children import, which
    need not be this script's checkout: see PYTHONPATH)."""
    root = _nbgrad_root()
    if root is None:
        return "not found"
    try:
        rev = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", root, "status", "--porcelain", "--", "nbgrad"],
                               capture_output=True, text=True).stdout.strip()
        return f"{root} at {rev or 'unknown'}" + (" (nbgrad/ modified)" if dirty else "")
    except OSError:
        return f"{root} at unknown"


def _loadavg():
    try:
        return os.getloadavg()[0]
    except OSError:
        return float("nan")


def header():
    knobs = " ".join(f"{k}={v}" for k, v in sorted(os.environ.items())
                     if k.startswith(("NBGRAD_", "NUMBA_", "OMP_", "OPENBLAS_", "MKL_")))
    return "\n".join([
        f"date: {datetime.datetime.now().astimezone().isoformat(timespec='seconds')}",
        f"CPU: {_cpu_model()}, {os.cpu_count()} logical CPUs",
        f"python {platform.python_version()}, numpy {_version('numpy')}, numba "
        f"{_version('numba')}, llvmlite {_version('llvmlite')}, torch {_version('torch')}",
        f"nbgrad from {_git_rev()}; workloads from {HERE}; torch.set_num_threads({TORCH_THREADS}); "
        f"environment knobs: {knobs or 'none'}",
        f"1-min load average before the run: {_loadavg():.2f} (other processes on these "
        "cores skew the timings; the ratios suffer least)",
    ])


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--only", nargs="+", choices=list(PLAN), help="run only these workloads")
    p.add_argument("--no-cold-start", action="store_true", help="skip the cold_start rows")
    p.add_argument("--no-memory", action="store_true", help="skip the peak-memory row")
    p.add_argument("--no-compiled", action="store_true",
                   help="skip the nbgrad.compile and torch.compile variants")
    args = p.parse_args(argv)
    names = args.only or list(PLAN)

    t_start = time.perf_counter()
    print(header(), flush=True)
    rows, spread, problems, firsts = [], [], [], {}
    peer_wrong = []  # torch.compile's own results that differ from PyTorch eager's
    with tempfile.TemporaryDirectory(prefix="nbgrad-compare-") as tmp:
        for name in names:
            w = W.WORKLOADS[name]
            per = w.scale if w.unit == "us/op" else None
            variants = [v for v, (_, c) in VARIANTS.items()
                        if not c or not (args.no_compiled or name in NO_COMPILE)]
            try:
                first, times, res, kernels = measure(name, tmp, variants)
            except (RuntimeError, OSError) as e:
                problems.append(f"{name}: {e}")
                continue
            med = {v: statistics.median(times[v]) for v in variants}
            for v in variants:
                cell = " / ".join([f"{_fmt_time(first[v][0])} + {_fmt_time(first[v][1])}",
                                   _fmt_time(min(times[v]), per),
                                   _fmt_time(max(times[v]), per)])
                spread.append(f"| {name} | {v} | {cell} | "
                              f"{min(times[v]) / min(times['torch']):.2f} | {len(times[v])} |")
            print(f"  {name:<11} " + ", ".join(f"{v} {_fmt_time(med[v], per)}" for v in variants)
                  + " (medians)", flush=True)
            for v in variants:
                if v != "torch":
                    found = _check(f"{name} ({v})", res[v], res["torch"], PLAN[name][2])
                    # (PyTorch's compiler against PyTorch: its fault, not nbgrad's: a
                    # warning, so that the exit status still says whether nbgrad is right)
                    (peer_wrong if v == "torch.compile" else problems).extend(found)
            rows.append((name, med, per, kernels))

        if not args.no_compiled and "elementwise" in names:
            # the compiled elementwise workload's first two calls in fresh processes: with
            # empty caches, then with what that run left in them
            try:
                for lib in LIBS:
                    cache = os.path.join(tmp, f"compiled-cache-{lib}")
                    runs = [_compiled_first(lib, cache) for _ in range(2)]
                    firsts[lib] = [two for two, _ in runs]
                    print(f"  compiled first calls {lib:<6} "
                          + ", ".join(f"{two:.2f} s (first {COMPILED_CALLS}: {every:.2f} s)"
                                      for two, every in runs), flush=True)
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                problems.append(f"compiled first calls: {e}")
                firsts = {}

        if not args.no_cold_start:
            # two fresh processes per library, alternating libraries: the first with an
            # empty Numba cache, the second with what the first left in it
            walls = {lib: [] for lib in LIBS}
            _compile_bytecode("nbgrad")
            try:
                for _ in range(2):
                    for lib in LIBS:
                        walls[lib].append(_cold_start(lib, os.path.join(tmp, f"cache-{lib}")))
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                problems.append(f"cold_start: {e}")
            for lib in LIBS:
                print(f"  cold_start  {lib:<6} "
                      + ", ".join(f"{t:.2f} s" for t, _ in walls[lib]), flush=True)
            # (the steps after the first: nbgrad compiles parallel variants there)
            try:
                for lib in LIBS:
                    ts = _first_steps(lib, os.path.join(tmp, f"steps-{lib}"))
                    print(f"  first 5 MLP steps, empty cache, {lib:<6} "
                          + ", ".join(f"{t:.3f}" for t in ts) + " s", flush=True)
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                problems.append(f"first steps: {e}")
            if all(len(v) == 2 for v in walls.values()):
                losses = {lib: walls[lib][0][1] for lib in LIBS}
                if abs(losses["nbgrad"] - losses["torch"]) > 1e-5 * abs(losses["torch"]):
                    problems.append(f"cold_start: first-step loss {losses['nbgrad']!r} (nbgrad) "
                                    f"vs {losses['torch']!r} (torch)")
                for i, label in enumerate(("empty cache", "warm cache")):
                    rows.append((f"cold_start, {label}", {lib: walls[lib][i][0] for lib in LIBS},
                                 None, {}))

        if not args.no_memory:
            try:
                mem = {lib: _peak_memory(lib) for lib in LIBS}
                for lib in LIBS:
                    print(f"  peak memory {lib:<6} +{mem[lib][0] / 1024:.1f} MiB over 100 steps",
                          flush=True)
                mem_row = (mem["nbgrad"][0], mem["torch"][0])
            except (RuntimeError, subprocess.TimeoutExpired, ValueError) as e:
                problems.append(f"peak memory: {e}")
                mem_row = None

    print()
    print("| workload | nbgrad | nbgrad.compile | PyTorch | torch.compile | nbgrad / PyTorch "
          "(PERF.md target) | nbgrad.compile / PyTorch (target) | kernels per step, eager / "
          "compiled |")
    print("|---|---|---|---|---|---|---|---|")
    for name, med, per, kernels in rows:
        def cell(v):
            return _fmt_time(med[v], per) if v in med else "—"

        ratio = med["nbgrad"] / med["torch"]
        target = TARGETS[name]
        eager = f"{ratio:.2f} (<= {target:g}: {'met' if ratio <= target else 'missed'})"
        comp = "—"
        if "nbgrad.compile" in med:
            r = med["nbgrad.compile"] / med["torch"]
            t = COMPILED_TARGETS.get(name)
            comp = f"{r:.2f}"
            if t is not None:
                ok = r <= t and (name != "elementwise"
                                 or med["nbgrad.compile"] < med["torch.compile"])
                extra = ", below torch.compile" if name == "elementwise" else ""
                comp += f" (<= {t:g}{extra}: {'met' if ok else 'missed'})"
        k = (f"{kernels.get('nbgrad', '—')} / {kernels.get('nbgrad.compile', '—')}"
             if kernels else "—")
        print(f"| {name} | {cell('nbgrad')} | {cell('nbgrad.compile')} | {cell('torch')} | "
              f"{cell('torch.compile')} | {eager} | {comp} | {k} |")
    if not args.no_memory and mem_row:
        nb, th = mem_row
        ratio = nb / max(th, 1)
        print(f"| peak memory, 100 MLP steps (RSS growth) | {nb / 1024:.1f} MiB | — | "
              f"{th / 1024:.1f} MiB | — | {ratio:.2f} (<= 1.2: "
              f"{'met' if ratio <= 1.2 else 'missed'}) | — | — |")
    if firsts:
        print()
        print("| first two calls of the compiled elementwise step, fresh process | "
              "nbgrad.compile | torch.compile | ratio | PERF.md target |")
        print("|---|---|---|---|---|")
        for i, (label, limit) in enumerate((("empty cache", 5.0), ("warm cache", 0.5))):
            nb, th = firsts["nbgrad"][i], firsts["torch"][i]
            ok = nb <= limit and nb <= th / 5
            print(f"| {label} | {nb:.2f} s | {th:.2f} s | {nb / th:.2f} | <= {limit:g} s and "
                  f"<= 1/5 of torch.compile's ({'met' if ok else 'missed'}) |")
    print()
    print("Spread: the first two calls in a fresh process (compiling included: a compiled "
          "nbgrad traces on the first and compiles on the second) / fastest / slowest "
          "timed call; the ratio of the fastest calls suffers least from other load.")
    print()
    print("| workload | variant | first + second / min / max | ratio of mins to PyTorch "
          "| timed calls |")
    print("|---|---|---|---|---|")
    print("\n".join(spread))
    print()
    print("children imported " + "; ".join(f"{lib} from {', '.join(sorted(f))}"
                                            for lib, f in IMPORTED.items()))
    print("their matrix products called " + "; ".join(
        f"{lib}: {', '.join(sorted(b))}" for lib, b in BLAS.items()))
    root = _nbgrad_root()
    for f in IMPORTED.get("nbgrad", ()):
        if root is None or not f.startswith(root + os.sep):
            problems.append(f"the children imported nbgrad from {f}, not from {root}")
    print(f"total wall time {time.perf_counter() - t_start:.0f} s; "
          f"1-min load average at the end (this run included): {_loadavg():.2f}")
    if peer_wrong:
        print("\nWARNING: torch.compile's results differ from PyTorch eager's (a fault of "
              "PyTorch's compiler on this machine, not of nbgrad; its timings above are of "
              "a wrong computation):", file=sys.stderr)
        for msg in peer_wrong:
            print("  - " + msg, file=sys.stderr)
    if problems:
        print("\nFAILED: a variant and PyTorch disagree (or a run failed):", file=sys.stderr)
        for msg in problems:
            print("  - " + msg, file=sys.stderr)
        return 1
    print("results check: every nbgrad variant agrees with PyTorch eager on every workload "
          "(losses, gradients, updated weights) within float32 tolerance"
          + ("; torch.compile does not (above)" if peer_wrong else ""))
    return 0


if __name__ == "__main__":
    if len(sys.argv) in (3, 4) and sys.argv[1] == "--serve":
        serve(sys.argv[2], compiled=sys.argv[3:] == ["--compiled"])
    else:
        sys.exit(main())
