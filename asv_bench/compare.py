"""nbgrad vs PyTorch on the PERF.md workloads, side by side, with a correctness check.

    .venv/bin/python asv_bench/compare.py [--only mlp_step small_ops ...] [--no-cold-start]

For each workload, each library gets its own fresh subprocess; both get the same float32
inputs (made here by NumPy with a fixed seed and handed over in an .npz file). A child
builds its tensors and runs the workload once: that call's results are the ones checked
(for mlp_step, the first step from the initial weights) and it compiles nbgrad's kernels.
After warm-up calls, the timed calls run in blocks that alternate between the two
children, with a short pause before each block, so that both libraries see the same
background load; the table reports medians. PyTorch runs with ``torch.set_num_threads(2)``;
nbgrad with its own defaults (NBGRAD_* environment knobs are passed through).

Prints a markdown table: workload | nbgrad | PyTorch | ratio (nbgrad / PyTorch) | PERF.md
target, then the spread of the timings. Exits non-zero when the two libraries' results
(losses, gradients, updated weights) differ beyond float32 tolerance, or a child fails.

cold_start is a fresh ``python -c`` that imports the library, builds the MLP and runs the
first mlp_step (wall time of the whole process), first with an empty Numba cache
(``NUMBA_CACHE_DIR`` set to a new directory, and nbgrad's opt-in ``NBGRAD_CACHE=1``), then
again with what that run left there. Before them nbgrad's Python is compiled to bytecode
(``compileall``, as pip does when it installs a package): PyTorch's installed ``.pyc``
files load in every fresh process, and an environment with ``PYTHONDONTWRITEBYTECODE=1``
would otherwise have each nbgrad child compile nbgrad's source first.
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
CHILD_TIMEOUT = 600  # seconds for any one request to a child
BLOCKS = 5  # timed calls are split into this many blocks, alternating between libraries
PAUSE = 0.2  # seconds of quiet before each block (OpenBLAS/OpenMP threads spin ~0.1 s)
IMPORTED = {}  # library -> the files the children imported it from
BLAS = {}  # library -> the BLAS its children's matrix products called


# ----- child: one library, serving one workload -------------------------------------------
MARK = "@@compare@@ "


def serve(lib_name):
    """Answer JSON requests on stdin: ``load`` a workload, ``run`` it n times (timed)."""
    lib = importlib.import_module(lib_name)
    if lib_name == "torch":
        lib.set_num_threads(TORCH_THREADS)
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
                reply = {"first": first, "file": lib.__file__, "blas": _blas(lib)}
            elif msg["cmd"] == "run":
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
    ``import nbgrad`` makes when it comes before NumPy (the child imports NumPy first)."""
    env = dict(os.environ if env is None else env)
    if lib == "nbgrad":
        env.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")
    return env


class Child:
    """A ``serve`` subprocess for one library; ``ask`` sends a request, waits for the reply."""

    def __init__(self, lib, tmp):
        self.lib = lib
        self.err_path = os.path.join(tmp, f"{lib}-stderr.txt")
        self.err = open(self.err_path, "w")
        self.p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--serve", lib],
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


def measure(name, tmp):
    """Time workload ``name`` in a fresh process per library, their calls interleaved in
    blocks so that both see the same background load. Returns (first, times, results),
    each a dict by library."""
    warmup, repeats, _ = PLAN[name]
    in_path = os.path.join(tmp, f"{name}-inputs.npz")
    np.savez(in_path, **W.WORKLOADS[name].inputs(SEED))
    kids = {lib: Child(lib, tmp) for lib in LIBS}
    try:
        first, results, times = {}, {}, {lib: [] for lib in LIBS}
        for lib, kid in kids.items():
            out = os.path.join(tmp, f"{name}-{lib}.npz")
            reply = kid.ask(cmd="load", name=name, inputs=in_path, out=out)
            first[lib] = reply["first"]
            IMPORTED.setdefault(lib, set()).add(reply["file"])
            BLAS.setdefault(lib, set()).add(reply["blas"])
            with np.load(out) as f:
                results[lib] = {k: f[k] for k in f.files}
            kid.ask(cmd="run", n=max(warmup - 1, 0), collect=True)
        n_blocks = min(BLOCKS, repeats)
        for b in range(n_blocks):
            n = repeats // n_blocks + (b < repeats % n_blocks)
            for lib in (LIBS if b % 2 == 0 else LIBS[::-1]):
                time.sleep(PAUSE)  # let the other library's worker threads go idle
                times[lib] += kids[lib].ask(cmd="run", n=n)["times"]
        return first, times, results
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


def _compile_bytecode(lib):
    """Write the ``.pyc`` files of ``lib`` (as the children import it), as pip does when it
    installs a package: a cold start then times loading the library, not compiling it."""
    import compileall

    spec = importlib.util.find_spec(lib)
    if spec is not None and spec.submodule_search_locations:
        for d in spec.submodule_search_locations:
            compileall.compile_dir(d, quiet=1)


def _cold_start(lib, cache_dir):
    setup = f"lib.set_num_threads({TORCH_THREADS})" if lib == "torch" else ""
    code = W.COLD_START_CODE.format(lib=lib, bench_dir=HERE, setup=setup)
    # nbgrad's on-disk cache is opt-in (NBGRAD_CACHE=1): the cold starts measure it on
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir, NBGRAD_CACHE="1",
               NBGRAD_CACHE_DIR=os.path.join(cache_dir, "nbgrad"))
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=CHILD_TIMEOUT)
    wall = time.perf_counter() - t0
    if r.returncode != 0:
        raise RuntimeError(f"{lib} cold_start failed (exit {r.returncode}):\n{r.stderr}")
    return wall, float(r.stdout.strip().splitlines()[-1])


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
    args = p.parse_args(argv)
    names = args.only or list(PLAN)

    t_start = time.perf_counter()
    print(header(), flush=True)
    rows, spread, problems = [], [], []
    with tempfile.TemporaryDirectory(prefix="nbgrad-compare-") as tmp:
        for name in names:
            w = W.WORKLOADS[name]
            per = w.scale if w.unit == "us/op" else None
            try:
                first, times, res = measure(name, tmp)
            except (RuntimeError, OSError) as e:
                problems.append(f"{name}: {e}")
                continue
            med = {lib: statistics.median(times[lib]) for lib in LIBS}
            best = min(times["nbgrad"]) / min(times["torch"])
            cells = [" / ".join([_fmt_time(first[lib]), _fmt_time(min(times[lib]), per),
                                 _fmt_time(max(times[lib]), per)]) for lib in LIBS]
            spread.append(f"| {name} | {cells[0]} | {cells[1]} | {best:.2f} | "
                          f"{len(times['nbgrad'])} |")
            print(f"  {name:<11} nbgrad {_fmt_time(med['nbgrad'], per)}, torch "
                  f"{_fmt_time(med['torch'], per)} (medians)", flush=True)
            problems += _check(name, res["nbgrad"], res["torch"], PLAN[name][2])
            rows.append((name, med["nbgrad"], med["torch"], per))

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
            if all(len(v) == 2 for v in walls.values()):
                losses = {lib: walls[lib][0][1] for lib in LIBS}
                if abs(losses["nbgrad"] - losses["torch"]) > 1e-5 * abs(losses["torch"]):
                    problems.append(f"cold_start: first-step loss {losses['nbgrad']!r} (nbgrad) "
                                    f"vs {losses['torch']!r} (torch)")
                for i, label in enumerate(("empty cache", "warm cache")):
                    rows.append((f"cold_start, {label}", walls["nbgrad"][i][0],
                                 walls["torch"][i][0], None))

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
    print("| workload | nbgrad | PyTorch | ratio | PERF.md target |")
    print("|---|---|---|---|---|")
    for name, nb, th, per in rows:
        ratio = nb / th
        target = TARGETS[name]
        verdict = "met" if ratio <= target else "missed"
        print(f"| {name} | {_fmt_time(nb, per)} | {_fmt_time(th, per)} | {ratio:.2f} | "
              f"<= {target:g} ({verdict}) |")
    if not args.no_memory and mem_row:
        nb, th = mem_row
        ratio = nb / max(th, 1)
        print(f"| peak memory, 100 MLP steps (RSS growth) | {nb / 1024:.1f} MiB | "
              f"{th / 1024:.1f} MiB | {ratio:.2f} | <= 1.2 ({'met' if ratio <= 1.2 else 'missed'}) |")
    print()
    print("Spread: first call in a fresh process (compiling included) / fastest / slowest "
          "timed call; the ratio of the fastest calls suffers least from other load.")
    print()
    print("| workload | nbgrad first / min / max | PyTorch first / min / max | ratio of mins "
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
    if problems:
        print("\nFAILED: nbgrad and PyTorch disagree (or a run failed):", file=sys.stderr)
        for msg in problems:
            print("  - " + msg, file=sys.stderr)
        return 1
    print("results check: nbgrad and PyTorch agree on every workload (losses, gradients, "
          "updated weights) within float32 tolerance")
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--serve":
        serve(sys.argv[2])
    else:
        sys.exit(main())
