"""On-disk kernel caching (on unless NBGRAD_CACHE=0) is safe across processes.

Two processes compile the same kernels into one empty cache at the same time (parallel
variants included), then a third process with another thread count loads them; all three
must agree, and the third must load from the cache rather than compile.
"""

import json
import os
import subprocess
import sys

import pytest

import nbgrad

CHILD = r"""
import json, time
t0 = time.perf_counter()
import numpy as np
import nbgrad
from nbgrad.kernels.cpu import _par
n = _par.PARALLEL_MIN + 5  # big enough for the parallel variants
x = nbgrad.tensor(np.linspace(-2, 2, n), dtype=nbgrad.float32, requires_grad=True)
w = nbgrad.tensor(np.linspace(1, 3, n), dtype=nbgrad.float32, requires_grad=True)
loss = ((x * w + 1.0).tanh() * x.sigmoid() - x.relu()).sum() + (x * x).mean()
loss.backward()
loss = loss + x[: n - n % 5].reshape(-1, 5).sum(0).sum()  # over the middle axis, in parallel
small = nbgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
(small.exp() / 2.0).sum().backward()
from nbgrad.kernels.cpu import elementwise as E
from nbgrad.kernels.table import _KERNELS
hits = 0
for name in ("mul", "add", "tanh", "sigmoid", "relu", "exp", "div"):
    k = _KERNELS[name]["cpu"]._k
    for d in k:
        hits += sum(d.stats.cache_hits.values())
opt = nbgrad.optim.Adam([x, small], lr=0.1)  # the update loops, serial and parallel
opt.step()
from nbgrad.kernels import updates
from nbgrad.kernels.cpu import optim as O
upd = sum(sum(d.stats.cache_hits.values()) for d in O._LOOPS[updates.adam])
print(json.dumps({"loss": float(loss.item()), "gx": float(x.grad.sum().item()),
                  "gs": small.grad.tolist(), "hits": hits, "upd": upd,
                  "xs": float(x.sum().item()), "ss": small.tolist(),
                  "t": time.perf_counter() - t0}))
"""


def _env(tmp_path):
    env = dict(os.environ)
    env["NBGRAD_CACHE"] = "1"
    env["NBGRAD_CACHE_DIR"] = str(tmp_path / "nbgrad")
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "numba")
    return env


def _run(procs):
    outs = []
    for p in procs:
        out, err = p.communicate(timeout=600)
        assert p.returncode == 0, err.decode()[-2000:]
        assert "Cannot cache" not in err.decode(), err.decode()[-2000:]
        outs.append(json.loads(out.decode().strip().splitlines()[-1]))
    return outs


@pytest.mark.slow
def test_two_processes_compile_then_a_third_reads(tmp_path):
    env = _env(tmp_path)
    spawn = lambda: subprocess.Popen(  # noqa: E731
        [sys.executable, "-c", CHILD], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    first = _run([spawn(), spawn()])
    env["NUMBA_NUM_THREADS"] = "1"  # a different thread count must still load safely
    (third,) = _run([spawn()])
    for r in first:
        assert r["loss"] == pytest.approx(third["loss"], rel=1e-6)
        assert r["gx"] == pytest.approx(third["gx"], rel=1e-5)
        assert r["gs"] == pytest.approx(third["gs"])
        assert r["xs"] == pytest.approx(third["xs"], rel=1e-5)
        assert r["ss"] == pytest.approx(third["ss"])
    assert third["hits"] > 0, "the third process compiled instead of loading the cache"
    assert third["upd"] == 2, "the optimizer's loops were compiled instead of loaded"
    generated = list((tmp_path / "nbgrad").glob("*/nbgrad_*.py"))
    assert generated, "no generated kernel modules in NBGRAD_CACHE_DIR"
    # nbgrad's own kernels' machine code sits in the same folder, not in NUMBA_CACHE_DIR
    assert list((tmp_path / "nbgrad").glob("*/numba/kernels/cpu/reduce.*.nbi"))
    assert not list((tmp_path / "numba").glob("**/reduce.*"))


_SMALL = ("import nbgrad; x = nbgrad.ones(3, requires_grad=True); (x * 2).sum().backward(); "
          "print(x.grad.tolist())")


def _small_run(env):
    out = subprocess.run([sys.executable, "-c", _SMALL], env=env, capture_output=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr.decode()
    assert out.stdout.decode().strip() == "[2.0, 2.0, 2.0]"
    return out


def test_cache_on_by_default_and_off_with_nbgrad_cache_0(tmp_path):
    env = dict(os.environ)
    env.pop("NBGRAD_CACHE", None)
    env["NBGRAD_CACHE_DIR"] = str(tmp_path / "on")
    _small_run(env)
    (folder,) = (tmp_path / "on").iterdir()  # one folder for this install
    from nbgrad.kernels.cpu import _disk

    assert folder.name == _disk.tag()
    assert list(folder.glob("nbgrad_binary_*.py")) and list(folder.glob("numba/**/*.nbc"))
    env["NBGRAD_CACHE"] = "0"
    env["NBGRAD_CACHE_DIR"] = str(tmp_path / "off")
    _small_run(env)
    assert not (tmp_path / "off").exists()


def test_the_folder_changes_with_any_kernel_source(tmp_path, monkeypatch):
    # a body in kernels/scalar.py is inlined into kernels compiled from other files, whose
    # own source Numba checks: so every file counts
    import shutil

    from nbgrad.kernels.cpu import _disk

    copy = tmp_path / "kernels"
    shutil.copytree(_disk._KERNELS_DIR, copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(_disk, "_KERNELS_DIR", str(copy))
    _disk.tag.cache_clear()
    try:
        first = _disk.tag()
        _disk.tag.cache_clear()
        assert _disk.tag() == first
        with open(copy / "scalar.py", "a") as f:
            f.write("\n# changed\n")
        _disk.tag.cache_clear()
        assert _disk.tag() != first
        import numba

        assert first.startswith(f"{nbgrad.__version__}-numba{numba.__version__}-py")
    finally:
        _disk.tag.cache_clear()


def test_cache_command_line_info_and_clear(tmp_path):
    env = dict(os.environ, NBGRAD_CACHE_DIR=str(tmp_path / "c"))
    env.pop("NBGRAD_CACHE", None)
    _small_run(env)
    (tmp_path / "c" / "keep.txt").write_text("a file of the user's")
    (tmp_path / "c" / "0.0.1-numba0.1-py30-000000000000").mkdir()  # an older install's

    def cli(*args):
        r = subprocess.run([sys.executable, "-m", "nbgrad", "cache", *args], env=env,
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        return r.stdout

    from nbgrad.kernels.cpu import _disk

    info = cli("info")
    assert "kernel cache: on" in info and str(tmp_path / "c") in info
    assert f"{_disk.tag()}: " in info and "(this install)" in info
    assert "0.0.1-numba0.1-py30-000000000000: 0 files" in info
    assert "removed" in cli("clear")
    assert sorted(p.name for p in (tmp_path / "c").iterdir()) == ["keep.txt"]
    assert "total: 0.0 MiB" in cli("info")
    env["NBGRAD_CACHE"] = "0"
    assert "kernel cache: off (NBGRAD_CACHE=0)" in cli("info")


GEMM_CHILD = r"""
import json
import numpy as np
import nbgrad
from nbgrad.kernels.cpu import blas
rng = np.random.default_rng(0)
a = rng.standard_normal((4, 128, 96)).astype(np.float32)
b = rng.standard_normal((4, 96, 128)).astype(np.float32)
# a batch of 6.3M multiply-adds: split over the pool by gemm_par with either BLAS
out = (nbgrad.tensor(a) @ nbgrad.tensor(b)).numpy()
hits = sum(sum(d.stats.cache_hits.values()) for d in blas._GEMM_PAR.values())
# one 1.6M multiply-add matrix product: one call from _gemm_one where MKL runs on the
# pool's threads (the first process compiles it, later ones load it), else split too
out2 = (nbgrad.tensor(a[0]) @ nbgrad.tensor(b[0])).numpy()
threaded = bool(blas._MKL.get("threaded"))
hits2 = sum(blas._gemm_one.stats.cache_hits.values()) if threaded else -1
print(json.dumps({"blas": blas.NAME, "err": float(np.abs(out - a @ b).max()), "hits": hits,
                  "err2": float(np.abs(out2 - a[0] @ b[0]).max()), "hits2": hits2}))
"""


@pytest.mark.slow
def test_cached_blas_kernel_calls_the_blas_of_the_process_that_loads_it(tmp_path):
    # the compiled product names nbgrad's symbols, not a library's: machine code cached
    # under one BLAS must call the other when a later process chooses it
    env = _env(tmp_path)
    outs = []
    for choice in ("openblas", "auto", "openblas", "auto"):
        env["NBGRAD_BLAS"] = choice
        p = subprocess.Popen([sys.executable, "-c", GEMM_CHILD], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        outs += _run([p])
    assert outs[0]["blas"] == outs[2]["blas"] == "openblas"
    assert outs[1]["blas"] in ("mkl", "openblas")
    for r in outs:
        assert r["err"] < 1e-3 and r["err2"] < 1e-3
    assert outs[1]["hits"] > 0 and outs[2]["hits"] > 0, "later processes compiled again"
    # (-1: this MKL is not threaded, or the BLAS is OpenBLAS)
    assert outs[3]["hits2"] != 0, "the threaded MKL call was compiled again, not loaded"


def test_first_compile_says_so_once_on_stderr_and_a_warm_start_says_nothing(tmp_path):
    env = dict(os.environ, NBGRAD_CACHE_DIR=str(tmp_path / "c"))
    env.pop("NBGRAD_CACHE", None)
    env.pop("NBGRAD_QUIET", None)
    code = _SMALL + "; (nbgrad.ones(4, dtype=nbgrad.float64).exp() * 3).sum()"
    line = "nbgrad: compiling kernels for float32 on first use; cached for later runs"

    def run(**more):
        r = subprocess.run([sys.executable, "-c", code], env=dict(env, **more),
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        return r.stderr

    assert run().splitlines().count(line) == 1  # cold: once, though float64 compiles too
    assert "nbgrad:" not in run()  # warm: every kernel loads from the cache
    assert "nbgrad:" not in run(NBGRAD_QUIET="1", NBGRAD_CACHE_DIR=str(tmp_path / "d"))
    off = run(NBGRAD_CACHE="0")
    assert "nbgrad: compiling kernels for float32 on first use; not cached (NBGRAD_CACHE=0)" in off


def test_an_unwritable_cache_folder_warns_and_compiles_in_memory(tmp_path):
    # (a read-only home: Numba's own fallbacks may find no folder either, which would fail
    # at every cached kernel's definition, that is at import)
    blocker = tmp_path / "file"
    blocker.write_text("")
    env = dict(os.environ, NBGRAD_CACHE_DIR=str(blocker / "cache"))
    env.pop("NBGRAD_CACHE", None)
    out = _small_run(env)
    err = out.stderr.decode()
    assert "RuntimeWarning: nbgrad: cannot write the kernel cache folder" in err
    assert "set NBGRAD_CACHE_DIR to a writable folder" in err


def test_a_generated_module_is_never_taken_half_made(tmp_path, monkeypatch):
    # two threads needing one generated module (a compiled function called from both): the
    # second must wait for the first's module body, not take the module from sys.modules
    # before its KERNELS exist
    import threading

    from nbgrad.kernels.cpu import _codegen, _disk

    monkeypatch.setattr(_disk, "folder", lambda: str(tmp_path))
    text = f"import time\ntime.sleep(0.3)\nKERNELS = 42  # {tmp_path.name}\n"
    got = []
    threads = [threading.Thread(
        target=lambda: got.append(getattr(_codegen.import_source("race", text), "KERNELS", None)))
        for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == [42] * 4
    assert len(list(tmp_path.glob("nbgrad_race_*.py"))) == 1
