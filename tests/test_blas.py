"""Matrix products through kernels/cpu/blas.py: a BLAS (MKL when installed, else NumPy's
OpenBLAS) called from compiled code, each big product cut into single-threaded calls on
Numba's threads (``_parallel``), smaller ones by NumPy on the calling thread. This process
runs the default choice; ``test_every_blas_choice_in_its_own_process`` runs this file again
under each other ``NBGRAD_BLAS``. Every layout BLAS reads in place (transposed, padded
rows, batches) must give NumPy's product; the rest is refused by the pool's path (and then
computed by NumPy); NumPy's own products keep their thread count."""

import importlib.metadata
import os
import platform
import subprocess
import sys

import numpy as np
import pytest

import nbgrad
from nbgrad.kernels.cpu import blas, linalg

CHOICE = os.environ.get("NBGRAD_BLAS", "auto")
# the test extra installs MKL where its wheels exist
MKL_PLATFORM = sys.platform == "linux" and platform.machine() == "x86_64"


def _mkl_installed():
    try:
        importlib.metadata.distribution("mkl")
        return True
    except importlib.metadata.PackageNotFoundError:
        return False


def _loaded(fragment):
    with open("/proc/self/maps") as f:
        return sorted({line.split()[-1] for line in f if fragment in line})



def _layouts(rng, m, k, dt):
    """``(m, k)`` matrices of dtype ``dt``: C, F (a transpose), and views of wider buffers
    (a leading dimension past the row, for both)."""
    a = rng.standard_normal((m, k)).astype(dt)
    rows = np.zeros((m, k + 3), dt)
    rows[:, :k] = a
    cols = np.zeros((k + 2, m + 3), dt)
    cols[:k, :m] = a.T
    return [a, np.asfortranarray(a), rows[:, :k], cols[:k, :m].T]


def _product(a, b, out, threads):
    """``out = a @ b`` on the pool (``threads``: every product goes there) or as a small one."""
    if threads:  # (with no BLAS bound, the pool refuses and NumPy computes)
        assert blas._parallel(a, b, out) == blas.AVAILABLE
        if not blas.AVAILABLE:
            blas.matmul(a, b, out)
    else:
        blas.matmul(a, b, out)


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("mkn", [(5, 3, 7), (1, 4, 6), (6, 4, 1), (64, 32, 48), (3, 1, 2)])
@pytest.mark.parametrize("threads", [False, True])
def test_gemm_matches_numpy_in_every_blas_layout(dt, mkn, threads, monkeypatch):
    if threads:  # every product split over the threads, by rows or by columns
        monkeypatch.setattr(blas, "PARALLEL_MACS", 1)
    m, k, n = mkn
    rng = np.random.default_rng(m * 100 + n)
    for a in _layouts(rng, m, k, dt):
        for b in _layouts(rng, k, n, dt):
            out = np.full((m, n), np.nan, dt)
            _product(a, b, out, threads)
            np.testing.assert_allclose(out, a @ b, rtol=1e-5 if dt == np.float32 else 1e-12,
                                       atol=1e-5 if dt == np.float32 else 1e-12)


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("threads", [False, True])
def test_batched_gemm_matches_numpy(dt, threads, monkeypatch):
    if threads:
        monkeypatch.setattr(blas, "PARALLEL_MACS", 1)
    rng = np.random.default_rng(0)
    a = rng.standard_normal((6, 4, 5)).astype(dt)
    b = rng.standard_normal((6, 3, 5)).astype(dt).transpose(0, 2, 1)  # batched b.T
    out = np.empty((6, 4, 3), dt)
    _product(a, b, out, threads)
    np.testing.assert_allclose(out, a @ b, rtol=1e-5, atol=1e-5)


def test_a_big_batchs_plan_is_not_kept_and_its_products_stay_right(monkeypatch):
    # a batch's plan holds 24 bytes of offsets a matrix: past _BATCH_KEPT it is made again
    # at each product instead of kept
    monkeypatch.setattr(blas, "PARALLEL_MACS", 1)
    monkeypatch.setattr(blas, "_BATCH_KEPT", 4)
    monkeypatch.setattr(blas, "_PLANS", {})
    rng = np.random.default_rng(5)
    for n in (4, 5):  # 5 matrices broadcast against one: offsets 0 for b
        a = rng.standard_normal((n, 3, 2))
        b = rng.standard_normal((2, 4))
        for _ in range(2):
            out = np.full((n, 3, 4), np.nan)
            _product(a, b, out, True)
            np.testing.assert_allclose(out, a @ b, rtol=1e-12)
    kept = [plan for plan in blas._PLANS.values() if plan is not None]  # (None: no BLAS)
    assert len(kept) == (1 if blas.AVAILABLE else 0)


@pytest.mark.parametrize("threads", [False, True])
def test_attention_shaped_and_broadcast_batches_match_numpy(threads, monkeypatch):
    if threads:
        monkeypatch.setattr(blas, "PARALLEL_MACS", 1)
    rng = np.random.default_rng(3)
    # q @ k.T of attention: (B, T, 3C) split, viewed as heads and transposed, so neither
    # batch dim collapses into one stride and each matrix has a row stride of 3C
    qkv = rng.standard_normal((2, 5, 3 * 12)).astype(np.float32)
    q = qkv[:, :, :12].reshape(2, 5, 3, 4).transpose(0, 2, 1, 3)
    k = qkv[:, :, 12:24].reshape(2, 5, 3, 4).transpose(0, 2, 1, 3)
    for a, b in ((q, k.transpose(0, 1, 3, 2)),
                 (rng.standard_normal((3, 1, 4, 5)), rng.standard_normal((1, 2, 5, 6))),
                 (rng.standard_normal((4, 5)), rng.standard_normal((3, 5, 2)))):
        a, b = a.astype(np.float32), b.astype(np.float32)
        out = np.empty(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + (a.shape[-2], b.shape[-1]),
                       np.float32)
        _product(a, b, out, threads)
        np.testing.assert_allclose(out, a @ b, rtol=1e-5, atol=1e-5)


def test_layouts_blas_cannot_read_are_refused_and_computed_by_numpy(monkeypatch):
    monkeypatch.setattr(blas, "PARALLEL_MACS", 1)
    rng = np.random.default_rng(1)
    a = rng.standard_normal((4, 10)).astype(np.float32)
    b = rng.standard_normal((5, 3)).astype(np.float32)
    out = np.zeros((4, 3), np.float32)
    for x, y in ((a[:, ::2], b),  # every other column: no unit stride
                 (a[:, :5].astype(np.int64), b.astype(np.int64)),  # integers
                 (a[:, :5], b.astype(np.float64)),  # mixed dtypes
                 (np.broadcast_to(a[:1, :5], (4, 5)), b)):  # a row stride of 0
        assert not blas._parallel(x, y, out if x.dtype == np.float32 else out.astype(x.dtype))
        o = np.empty((4, 3), np.result_type(x, y))
        linalg.matmul(x, y, o)
        np.testing.assert_allclose(o, x @ y, rtol=1e-5)


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_small_products_with_vectors_match_numpy(dt):
    # below PARALLEL_MACS: np.matmul kept to this thread (gemv for a vector); strided
    # vectors and transposes
    rng = np.random.default_rng(5)
    m = rng.standard_normal((7, 5)).astype(dt)
    v5 = rng.standard_normal(10).astype(dt)[::2]  # stride 2
    v7 = rng.standard_normal(7).astype(dt)
    for a, b in ((m, v5), (m.T, v7), (v7, m), (v5, m.T), (v5, v5.copy()), (m, m.T)):
        out = np.full(np.matmul(a, b).shape, np.nan, dt)
        blas.matmul(a, b, out)
        np.testing.assert_allclose(out, a @ b, rtol=1e-5 if dt == np.float32 else 1e-12)


def test_numpy_keeps_its_blas_thread_count():
    threadpoolctl = pytest.importorskip("threadpoolctl")

    def count():
        return [i["num_threads"] for i in threadpoolctl.threadpool_info()
                if i["internal_api"] == "openblas"]

    before = count()
    x = nbgrad.randn(256, 256)
    (x @ x).sum()  # split over the threads (the calls there run single-threaded)
    nbgrad.randn(8, 8) @ nbgrad.randn(8, 8)  # one call on this thread
    assert count() == before


def test_parallel_products_leave_numpys_blas_thread_count_alone():
    # NumPy's OpenBLAS keeps one thread count for the whole process: the pool's tasks set
    # it to 1 and only the launching thread puts it back (blas.on_pool). When each task put
    # back what it had saved, two tasks raced and left it at 1 after most products here.
    threadpoolctl = pytest.importorskip("threadpoolctl")

    def count():
        return [i["num_threads"] for i in threadpoolctl.threadpool_info()
                if i["internal_api"] == "openblas"]

    before = count()
    x = nbgrad.randn(256, 256)
    xb = nbgrad.randn(32, 64, 64)
    img = nbgrad.randn(8, 3, 16, 16)
    w = nbgrad.randn(4, 3, 3, 3, requires_grad=True)
    changed = 0
    for _ in range(60):
        x @ x  # cut into blocks of rows over the pool
        xb @ xb  # a matrix per task
        changed += count() != before
    for _ in range(10):
        nbgrad.nn.functional.conv2d(img, w).sum().backward()  # the weight gradient per image
        changed += count() != before
    assert changed == 0


def test_linear_and_matmul_gradients_through_blas_match_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(2)
    xs = [rng.standard_normal(s).astype(np.float32) for s in ((8, 16, 64), (96, 64), (96,))]
    nb = [nbgrad.tensor(v, requires_grad=True) for v in xs]
    th = [torch.tensor(v, requires_grad=True) for v in xs]
    for m, (x, w, b) in ((nbgrad, nb), (torch, th)):
        y = m.nn.functional.linear(x, w, b)
        ((y @ w) ** 2).sum().backward()
    for a, t in zip(nb, th):
        # float32 sums of terms up to ~1e5 that cancel: the error scales with the largest
        # entry, not with each entry (summation orders differ between the BLAS libraries)
        t = t.grad.numpy()
        np.testing.assert_allclose(a.grad.numpy(), t, rtol=1e-4, atol=1e-5 * np.abs(t).max())


def test_without_openblas_products_go_to_numpy(monkeypatch):
    # another BLAS (or no /proc): nothing bound, every product through np.matmul
    monkeypatch.setattr(blas, "AVAILABLE", False)
    monkeypatch.setattr(blas, "PARALLEL_MACS", 1)
    rng = np.random.default_rng(4)
    a, b = rng.standard_normal((40, 30)), rng.standard_normal((30, 20))
    out = np.empty((40, 20))
    blas.matmul(a, b, out)
    np.testing.assert_allclose(out, a @ b)


def test_auto_takes_mkl_on_intel_cpus_only():
    assert blas.auto_takes_mkl("GenuineIntel")
    assert blas.auto_takes_mkl(None)  # no /proc/cpuinfo: MKL's own vendor assumed
    assert not blas.auto_takes_mkl("AuthenticAMD")
    assert not blas.auto_takes_mkl("HygonGenuine")
    if os.path.exists("/proc/cpuinfo"):
        with open("/proc/cpuinfo") as f:
            named = [line for line in f if line.startswith("vendor_id")]
        if named:
            assert blas.cpu_vendor() == named[0].split(":", 1)[1].strip()


def test_the_blas_follows_nbgrad_blas():
    intel = blas.auto_takes_mkl(blas.cpu_vendor())
    if CHOICE == "numpy":
        assert not blas.AVAILABLE and blas.NAME is None
    elif CHOICE == "openblas" or (CHOICE == "auto" and not (_mkl_installed() and intel)):
        assert blas.NAME == "openblas" and "openblas" in blas.PATH.lower()
        if CHOICE == "auto":  # MKL not even loaded (a cold start pays for it)
            assert not _loaded("libmkl_rt")
    else:  # mkl, or auto with the mkl package installed on an Intel CPU
        assert _mkl_installed() or not MKL_PLATFORM, "the test extra installs mkl here"
        if not _mkl_installed():
            pytest.skip("no MKL wheel for this platform")
        assert blas.NAME == "mkl" and os.path.basename(blas.PATH).startswith("libmkl_rt.so")


def test_mkl_runs_on_numbas_openmp_threads():
    # with Numba on GNU OpenMP, nbgrad gives MKL its GNU layer: a 2-d product is one MKL
    # call on the same threads as Numba's loops (no Intel OpenMP runtime beside GNU's, no
    # second pool); otherwise MKL is sequential and products are split over the pool
    if blas.NAME != "mkl":
        pytest.skip(f"this process's products call {blas.NAME}")
    import numba

    x = nbgrad.randn(256, 256)
    entries = blas._ENTRIES.copy()
    blas._PLANS.clear()
    blas._ENTRIES.clear()  # (restored below: what this product compiles is looked up anew)
    try:
        (x @ x).sum()
        if blas._mkl_threads():  # one MKL call: no kernel that splits products compiled
            assert not [k for k in blas._ENTRIES if k[0] == "par"]
    finally:
        blas._ENTRIES.update(entries)
        blas._PLANS.clear()
    (nbgrad.randn(4, 64, 64) @ nbgrad.randn(4, 64, 64)).sum()  # batched: split over the pool
    tasks = len(os.listdir("/proc/self/task"))
    assert not _loaded("libiomp5") and not _loaded("libmkl_intel_thread")
    if numba.threading_layer() == "omp" and _loaded("libgomp"):
        assert blas._mkl_threads() and _loaded("libmkl_gnu_thread")
        assert not _loaded("libmkl_sequential")
    else:
        assert not blas._mkl_threads() and _loaded("libmkl_sequential")
    for _ in range(3):
        (x @ x).sum()
    assert len(os.listdir("/proc/self/task")) == tasks  # no threads of MKL's own


@pytest.mark.slow
@pytest.mark.parametrize("choice", ["openblas", "numpy", "mkl"])
def test_every_blas_choice_in_its_own_process(choice):
    # (the choice is made once, at import: each other one gets a fresh process)
    if CHOICE != "auto":
        pytest.skip("run from the default process only")
    if choice == "mkl" and (blas.NAME == "mkl" or not _mkl_installed()):
        pytest.skip("this process runs MKL already" if blas.NAME == "mkl" else
                    "the mkl package is not installed")
    env = dict(os.environ, NBGRAD_BLAS=choice)
    select = "not own_process" + ("" if choice == "mkl" else " and not numbas_openmp")
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        "-k", select, __file__],
                       env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
    assert " passed" in r.stdout and " failed" not in r.stdout


def test_an_unknown_nbgrad_blas_is_refused_at_import():
    env = dict(os.environ, NBGRAD_BLAS="atlas")
    r = subprocess.run([sys.executable, "-c", "import nbgrad"], env=env, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode != 0
    assert "ValueError: NBGRAD_BLAS must be auto, mkl, openblas or numpy, not 'atlas'" in r.stderr


@pytest.mark.parametrize("threads", [False, True])
def test_operands_broadcast_within_their_matrix_match_numpy(threads, monkeypatch):
    # sum's gradient expanded (zero strides inside the matrix): made whole before BLAS
    if threads:
        monkeypatch.setattr(blas, "PARALLEL_MACS", 1)
    rng = np.random.default_rng(7)
    m = rng.standard_normal((6, 5)).astype(np.float32)
    one = np.float32(0.5)
    for a, b in ((np.broadcast_to(one, (6,)), m),  # vector @ matrix
                 (m.T, np.broadcast_to(one, (6,))),  # matrix @ vector
                 (np.broadcast_to(one, (3, 6)), m),  # every stride 0
                 (np.broadcast_to(m[:1], (4, 5)), m.T),  # a row stride of 0
                 (m.T, np.broadcast_to(m[:, :1], (6, 3))),  # a column stride of 0
                 (np.broadcast_to(m, (2, 6, 5)), np.broadcast_to(one, (2, 5, 4)))):
        out = np.full(np.matmul(a, b).shape, np.nan, np.float32)
        blas.matmul(a, b, out)
        np.testing.assert_allclose(out, np.matmul(a, b), rtol=1e-5, atol=1e-6)
