"""Matrix products on a BLAS called from compiled code, on Numba's threads.

Why not ``np.matmul``: a BLAS runs its own thread pool. Two pools on the same cores either
spin against each other (a step of an MLP took 18x longer) or sleep and pay a wake-up on
every call (100-300 µs on a virtual machine), so nbgrad's parallel loops and NumPy's
products could not both be fast. So big products run on the threads every other nbgrad
kernel runs on, and a small one is ``np.matmul`` kept to the calling thread.

Which BLAS (``NBGRAD_BLAS``): on an Intel CPU, Intel's MKL when the ``mkl`` package is
installed (``pip install nbgrad[mkl]``; on this project's Xeon one MKL core ran float32
products 15-30% faster than OpenBLAS, and it is PyTorch's CPU BLAS), else the OpenBLAS
NumPy loaded (found in ``/proc/self/maps``). On another vendor's CPU ``auto`` takes that
OpenBLAS even beside MKL: on an AMD EPYC, MKL's products made the model workloads 10-40%
slower than OpenBLAS's (gpt_block 13-17 ms against 11.4-11.5, a 1024x1024 product's
backward 35-36 ms against 29-30) and loading it cost a cold start 0.4-0.7 s.

How a big product runs:
- MKL, with Numba on GNU OpenMP (the default): MKL gets its GNU threading layer, whose
  threads are Numba's own OpenMP threads, and a 2-d product is one MKL call made from
  compiled code (``_gemm_one``).
- Otherwise (OpenBLAS, a batch of matrices, another threading layer): it is cut into
  blocks of output rows (or columns, or batch items), each one single-threaded ``gemm``
  call made by a thread of Numba's pool (``gemm_par``, one kernel per dtype). The
  library's ``cblas_?gemm`` (64-bit integers) and ``*_set_num_threads_local`` are
  registered with LLVM under nbgrad's own names and called as ``types.ExternalFunction``:
  cached machine code then links to whichever library this process chose.
Where no BLAS is found (another BLAS, another platform), ``AVAILABLE`` is False and every
product goes to ``np.matmul``.
"""

import ctypes
import importlib.metadata
import os
import re
from functools import partial

import numpy as np
from numba import njit, prange, types

from ... import _config
from . import _par

_opts = dict(nogil=True, error_model="numpy", cache=_config.CACHE)
_ROW, _COL, _NOTRANS, _TRANS = 101, 102, 111, 112
# from this many multiply-adds a product is split over the threads (below it, one call on
# the caller's thread: a 64x32x64 product took 3 µs whole and 6 µs in two halves)
PARALLEL_MACS = 1 << 20
_MKL_THREADING_SEQUENTIAL, _MKL_THREADING_GNU = 1, 3  # mkl_service.h
# MKL's state here: "lib" (ctypes handle), "shared" (another library had loaded it first),
# "threaded" (decided at the first product: MKL runs 2-d products on its own threads, which
# are Numba's GNU OpenMP threads)
_MKL = {}


def _maps():
    """Paths of the shared libraries this process has loaded (Linux), or an empty set."""
    try:
        with open("/proc/self/maps") as f:
            return {line.split()[-1] for line in f if ".so" in line}
    except OSError:
        return set()


def _libraries(paths, symbol):
    """``(path, ctypes handle)`` for each of ``paths`` that loads and exports ``symbol``."""
    for path in paths:
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        if hasattr(lib, symbol):
            yield path, lib


def _find_openblas():
    """``("openblas", path, ctypes handle, sgemm, dgemm, set_local)`` (symbol names) for
    the 64-bit-integer OpenBLAS NumPy loaded, or None."""
    paths = sorted(p for p in _maps() if "openblas" in p.lower())
    for path, lib in _libraries(paths, "openblas_set_num_threads_local"):
        for prefix in ("scipy_", ""):
            if hasattr(lib, f"{prefix}cblas_sgemm64_"):
                return ("openblas", path, lib, f"{prefix}cblas_sgemm64_",
                        f"{prefix}cblas_dgemm64_", "openblas_set_num_threads_local")
    return None


def _find_mkl():
    """The same for the ``mkl`` package's runtime library, loaded here, or None."""
    try:
        dist = importlib.metadata.distribution("mkl")
    except importlib.metadata.PackageNotFoundError:
        return None
    paths = sorted((os.path.normpath(dist.locate_file(f)) for f in dist.files or ()
                    if re.fullmatch(r"libmkl_rt\.so(\.\d+)?", f.name)), reverse=True)
    _MKL["shared"] = any("libmkl_rt" in p for p in _maps())
    for path, lib in _libraries(paths, "cblas_sgemm_64"):
        _MKL["lib"] = lib
        return ("mkl", path, lib, "cblas_sgemm_64", "cblas_dgemm_64",
                "MKL_Set_Num_Threads_Local")
    return None


def cpu_vendor():
    """The CPU's vendor as Linux names it (``GenuineIntel``, ``AuthenticAMD``), or None
    where ``/proc/cpuinfo`` does not say."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("vendor_id"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def auto_takes_mkl(vendor):
    """Whether ``NBGRAD_BLAS=auto`` looks for MKL first on a CPU of ``vendor``: on Intel's,
    and where the vendor is unknown (MKL's own CPU)."""
    return vendor is None or vendor == "GenuineIntel"


def _bind(openblas):
    """Register the chosen BLAS's functions with LLVM as ``nbgrad_sgemm``,
    ``nbgrad_dgemm`` and ``nbgrad_blas_threads_local``; ``(name, path, threads_local)``
    (the last the same thread-count function through ctypes) or None. ``openblas``:
    ``_find_openblas()``'s answer."""
    choice = _config.BLAS
    found = None
    if choice == "mkl" or (choice == "auto" and auto_takes_mkl(cpu_vendor())):
        found = _find_mkl()
    if found is None and choice in ("auto", "openblas"):
        found = openblas
    if found is None:
        return None
    name, path, lib, sgemm, dgemm, local = found
    from llvmlite import binding

    for alias, symbol in (("nbgrad_sgemm", sgemm), ("nbgrad_dgemm", dgemm),
                          ("nbgrad_blas_threads_local", local)):
        binding.add_symbol(alias, ctypes.cast(getattr(lib, symbol), ctypes.c_void_p).value)
    threads_local = getattr(lib, local)
    threads_local.argtypes, threads_local.restype = None, ctypes.c_int  # (see below)
    return name, path, threads_local


def _numpy_threads_local(openblas):
    """NumPy's OpenBLAS ``openblas_set_num_threads_local`` (ctypes), or None: small products
    go to ``np.matmul``, and this keeps them to the calling thread."""
    if openblas is None:
        return None
    fn = openblas[2].openblas_set_num_threads_local
    # no argtypes: a Python int passes as a C int anyway, and converting through argtypes
    # made a pair of calls (one product) 0.38 us instead of 0.24
    fn.argtypes, fn.restype = None, ctypes.c_int
    return fn


_OPENBLAS = _find_openblas()
_BOUND = _bind(_OPENBLAS)
AVAILABLE = _BOUND is not None
# which library the pool's products call ("mkl", "openblas"), and its path; None without
NAME, PATH = (_BOUND[0], _BOUND[1]) if AVAILABLE else (None, None)
_threads_local = _BOUND[2] if AVAILABLE else None
_numpy_set_local = _numpy_threads_local(_OPENBLAS)

if AVAILABLE:
    i32, i64, ptr = types.int32, types.int64, types.intp  # addresses passed as integers
    _sgemm, _dgemm = (
        types.ExternalFunction(f"nbgrad_{ch}gemm", types.void(
            i32, i32, i32, i64, i64, i64, dt, ptr, i64, ptr, i64, dt, ptr, i64))
        for dt, ch in ((types.float32, "s"), (types.float64, "d")))
    _set_local = types.ExternalFunction("nbgrad_blas_threads_local", i32(i32))

    @njit(inline="always", **_opts)
    def gemm_call(single, ta, tb, m, n, K, pa, lda, pb, ldb, po, ldc):
        """One row-major ``gemm`` (alpha 1, beta 0) of the library this process bound, on
        addresses: float32 when ``single``, else float64. For compiled callers (here, and
        conv2d's weight gradient), on the thread count they set."""
        if single:
            _sgemm(_ROW, ta, tb, m, n, K, np.float32(1.0), pa, lda, pb, ldb, np.float32(0.0),
                   po, ldc)
        else:
            _dgemm(_ROW, ta, tb, m, n, K, 1.0, pa, lda, pb, ldb, 0.0, po, ldc)

    @njit(**_opts)
    def _gemm_one(a, b, out, M, N, K, ta, tb, lda, ldb, single, threads):
        """``out`` (M x N, row stride N) = the product of matrices ``a`` and ``b`` (as
        ``ta``/``tb`` and their leading dimensions say) as one BLAS call on ``threads``
        threads (MKL's GNU layer: Numba's own OpenMP threads); returns True. Compiled for
        one signature per dtype (cheap to compile, ~0.04 s) and called at its entry point
        with the arrays: their addresses cost ~0.1 µs here, ~0.8 each as ``a.ctypes.data``
        in Python. (Numba's ``get_num_threads`` in here would keep it out of the on-disk
        cache: it reads a ctypes pointer.)"""
        prev = _set_local(threads)
        gemm_call(single, ta, tb, M, N, K, a.ctypes.data, lda, b.ctypes.data, ldb,
                  out.ctypes.data, N)
        _set_local(prev)
        return True

    @njit(**_opts)
    def _addresses(a, b, out):
        """The addresses of ``a``, ``b`` and ``out`` (for ``gemm_par``), at an entry point
        per dtype and ranks."""
        return a.ctypes.data, b.ctypes.data, out.ctypes.data

    def _make_gemm_par(single):
        # addresses and sizes only (no arrays but the offsets): one compiled signature per
        # dtype serves every layout and rank, so a float32 program compiles one. The
        # closure holds only ``single``, a constant, so Numba drops the other dtype's call;
        # it must hold nothing else: a cached kernel's key hashes what its closure holds,
        # and a BLAS function's type hashes differently in another process (the cache
        # would miss in every later one).
        @njit(parallel=True, **_opts)
        def gemm_par(p1, p2, po, order, t1, t2, m, n, K, ld1, ld2, ldo, s1, so, o1, o2, oo,
                     nb):
            # matrix i of the batch (its byte offsets o1[i], o2[i], oo[i]) is cut into nb
            # blocks along m: rows m0 <= r < m1 of the first operand and the output (s1, so
            # bytes a row) in one single-threaded call. Which operand is first, and in which
            # order, the caller decides: a row-major product cut by columns is the
            # column-major one of its transpose cut by rows, so one loop serves both.
            for task in prange(o1.size * nb):
                i, t = task // nb, task % nb
                m0, m1 = m * t // nb, m * (t + 1) // nb
                if m1 > m0:
                    _set_local(1)  # left so: see on_pool
                    if single:
                        _sgemm(order, t1, t2, m1 - m0, n, K, np.float32(1.0),
                               p1 + o1[i] + m0 * s1, ld1, p2 + o2[i], ld2, np.float32(0.0),
                               po + oo[i] + m0 * so, ldo)
                    else:
                        _dgemm(order, t1, t2, m1 - m0, n, K, 1.0, p1 + o1[i] + m0 * s1, ld1,
                               p2 + o2[i], ld2, 0.0, po + oo[i] + m0 * so, ldo)
            return True  # (_par.call_parallel's None means the pool was busy)

        return gemm_par

    _GEMM_PAR = {True: _make_gemm_par(True), False: _make_gemm_par(False)}


def _operand(x):
    """``(trans, ld)`` for BLAS to read the last two dims of ``x`` in place, or None."""
    it = x.itemsize
    r, c = x.shape[-2], x.shape[-1]
    s0, s1 = x.strides[-2], x.strides[-1]
    if (s1 == it or c == 1) and s0 % it == 0 and s0 >= max(c, 1) * it:
        return _NOTRANS, s0 // it
    if (s0 == it or r == 1) and s1 % it == 0 and s1 >= max(r, 1) * it:
        return _TRANS, s1 // it
    return None


def matmul(a, b, out):
    """``out = a @ b`` (NumPy's matmul broadcasting). A float product of at least
    ``PARALLEL_MACS`` multiply-adds whose operands BLAS reads in place runs on the pool
    (``_parallel``: one MKL call on its threads, or ``gemm_par``'s blocks); any other runs
    as ``np.matmul`` kept to this thread (OpenBLAS would start its own threads from 262,144
    multiply-adds). Small products stay with NumPy: it calls ``gemv`` for a vector, where a
    one-column ``gemm`` of OpenBLAS took 45 µs against 12 for a 512x512 matrix (MKL's on an
    AMD EPYC 12.8 against 12.2), and its small ``gemm`` was as fast or faster (MKL's
    (256, 64) x (64, 10) on that EPYC: 15.8 µs against NumPy's OpenBLAS 5.6). An operand
    broadcast within its matrix (a zero stride there: ``sum``'s gradient, expanded) is made
    whole first: no BLAS reads it, and NumPy's own loop took 307 µs for a 512x512
    vector-matrix product that BLAS does in 12 after the copy."""
    if 0 in a.strides[-2:] and a.size > 1:
        a = np.ascontiguousarray(a)
    if 0 in b.strides[-2:] and b.size > 1:
        b = np.ascontiguousarray(b)
    macs = out.size * a.shape[-1]
    if AVAILABLE and macs >= PARALLEL_MACS:
        # (the pool's kernels are compiled, in the background, once the products have
        # earned them: _par; a product of vectors never reaches the pool)
        key = _TIER_KEYS.get(out.dtype)
        if key is not None and not _par.earned(key, 0, lambda: partial(
                _kernels, out.dtype, a.ndim, b.ndim, out.ndim) if min(a.ndim, b.ndim) > 1
                else _nothing):
            _par.timed(key, _on_this_thread, a, b, out, macs)
            return
        if _parallel(a, b, out):
            return
    _on_this_thread(a, b, out, macs)


def _nothing():
    pass


_TIER_KEYS = {np.dtype(np.float32): "matmul float32", np.dtype(np.float64): "matmul float64"}


def _on_this_thread(a, b, out, macs):
    """``out = a @ b`` by NumPy, its BLAS kept to the calling thread."""
    if _numpy_set_local is None or macs < _OPENBLAS_GEMV_ONE_THREAD or (
            macs <= _OPENBLAS_ONE_THREAD and a.ndim > 1 and b.ndim > 1
            and out.shape[-1] > 1 and out.shape[-2] > 1):
        _np_matmul(a, b, out)  # (OpenBLAS runs this on the calling thread anyway)
        return
    prev = _numpy_set_local(1)
    try:
        _np_matmul(a, b, out)
    finally:
        _numpy_set_local(prev)


_np_matmul = np.matmul  # (its output positional: no keyword parsing)


# OpenBLAS keeps to the calling thread a gemm of at most this many multiply-adds, and a gemv
# (NumPy's call for a vector, or a matrix of one row or column) whose matrix has fewer
# elements than _OPENBLAS_GEMV_ONE_THREAD (its interface/gemm.c and gemv.c with the default
# GEMM_MULTITHREAD_THRESHOLD 4): no thread count to set around those (two ctypes calls,
# ~0.4 µs a product)
_OPENBLAS_ONE_THREAD = 65536 * 4
_OPENBLAS_GEMV_ONE_THREAD = 2304 * 4


def _numba_on_gnu_openmp():
    """True when Numba's parallel loops run on GNU OpenMP (it starts its threads here, as
    it would for the first parallel loop) and MKL's GNU layer, which uses those same
    threads, is installed; libgomp's symbols are then made visible to MKL."""
    import numba
    from numba.np.ufunc import parallel

    try:
        parallel._launch_threads()
        if numba.threading_layer() != "omp":
            return False
    except Exception:  # no threading layer at all: stay sequential
        return False
    gomp = sorted(p for p in _maps() if os.path.basename(p).startswith("libgomp"))
    here = os.path.dirname(PATH)
    if not gomp or not any(f.startswith("libmkl_gnu_thread") for f in os.listdir(here)):
        return False
    try:
        ctypes.CDLL(gomp[0], mode=ctypes.RTLD_GLOBAL)
    except OSError:
        return False
    return True


def _mkl_threads():
    """Whether MKL runs 2-d products on its own threads, decided before its first product
    (MKL's threading layer cannot change later). Yes when nbgrad loaded MKL and Numba's
    loops run on GNU OpenMP: MKL's GNU layer then parallelizes on the very same threads, so
    no second pool spins against Numba's; MKL splits a product itself (as fast as blocks
    of rows here) and nothing is compiled but the call. Otherwise MKL is sequential, and
    big products are single-threaded calls split over the pool (``gemm_par``), as with
    OpenBLAS."""
    threaded = _MKL.get("threaded")
    if threaded is None:
        threaded = False
        if NAME == "mkl" and not _MKL["shared"]:
            threaded = _numba_on_gnu_openmp()
            _MKL["lib"].MKL_Set_Threading_Layer(_MKL_THREADING_GNU if threaded
                                                else _MKL_THREADING_SEQUENTIAL)
        _MKL["threaded"] = threaded
    return threaded


def _entry(dispatcher, sig):
    """``dispatcher``'s bare entry point for ``sig`` (compiled on first use: a call skips
    Numba's argument typing; the arrays' dtype and rank must be the signature's)."""
    key = (dispatcher.__name__, sig)
    f = _ENTRIES.get(key)
    if f is None:
        f = _ENTRIES[key] = (dispatcher.compile(sig) if hasattr(dispatcher, "compile")
                             else dispatcher)
    return f


_ENTRIES = {}


def _array(dt, ndim):
    return types.Array(types.float32 if dt == np.float32 else types.float64, ndim, "A")


def _parallel(a, b, out):
    """Run ``out = a @ b`` on the pool; False when it is not for the pool (small, not float,
    a layout BLAS cannot read) or the pool is busy."""
    if out.size * a.shape[-1] < PARALLEL_MACS:
        return False
    plan = _plan_of(a, b, out)
    if plan is None:
        return False
    one, addresses, swap, args, limit = plan
    if one is not None:  # one 2-d product: one MKL call on the pool
        return bool(_par.call_parallel(one, a, b, out, *args[:8], _par.threads()))
    pa, pb, po = addresses(a, b, out)
    if swap:
        pa, pb = pb, pa
    nb = max(1, min(_par.threads(), limit))
    return bool(on_pool(_par.call_parallel, args[0], pa, pb, po, *args[1:], nb))


def on_pool(run, *args):
    """``run(*args)``, which runs a kernel whose loop calls BLAS on the pool's threads, each
    call single-threaded: every task sets its thread's BLAS thread count to 1 and leaves
    it so, and this thread's count is put back here, once the kernel is done. Tasks must
    not put back their own: NumPy's OpenBLAS keeps one count for the whole process (its
    ``openblas_set_num_threads_local`` is not thread-local), so two tasks doing so raced
    (one saves 2 and sets 1, the other saves that 1; the first puts back 2, the second 1)
    and left the user's NumPy single-threaded after most parallel products. MKL's count is
    per thread: the pool's threads keep 1, which is all they run BLAS with."""
    prev = _threads_local(1)
    try:
        return run(*args)
    finally:
        _threads_local(prev)


# _plan's answers by the operands' layout (the arrays of batch offsets alone took ~4 µs to
# build, a tenth of an attention product)
_PLANS = {}
_BATCH_KEPT = 1 << 16  # a plan of a bigger batch is not kept (its offsets: 24 bytes a matrix)


def _plan_of(a, b, out):
    """``_plan``'s answer for these operands' layout (cached)."""
    key = (a.shape, a.strides, a.dtype, b.shape, b.strides, b.dtype, out.shape, out.strides,
           out.dtype)
    plan = _PLANS.get(key, False)
    if plan is False:
        if len(_PLANS) >= 1024:  # many layouts (e.g. varying lengths): start over
            _PLANS.clear()
        plan = _plan(a, b, out)
        if plan is None or plan[0] is not None or plan[3][-1].size <= _BATCH_KEPT:
            _PLANS[key] = plan
    return plan


_ONE_MATRIX = np.zeros(1, np.int64)


def _batch_offsets(a, b, out):
    """Byte offsets of each matrix of the batch (C order over ``out``'s batch dims; 0 along
    a dim an operand broadcasts) in ``a``, ``b`` and ``out``."""
    batch = out.shape[:-2]
    offsets = []
    for x in (a, b, out):
        o = np.zeros(batch, np.int64)
        lead = len(batch) - (x.ndim - 2)
        for d in range(lead, len(batch)):
            if x.shape[d - lead] != 1:
                o += (np.arange(batch[d], dtype=np.int64) * x.strides[d - lead]).reshape(
                    (-1,) + (1,) * (len(batch) - 1 - d))
        offsets.append(o.ravel())
    return offsets


def _plan(a, b, out):
    """``(one, addresses, swap, args, limit)`` for ``out = a @ b`` on the pool, or None when
    BLAS cannot (not float, mixed dtypes, a layout it cannot read in place, empty):
    ``one``, ``_gemm_one``'s entry point when MKL runs a 2-d product as one call on the
    pool's threads (else None: a ``gemm_par`` kernel cuts the product into blocks);
    ``addresses``, ``_addresses``' entry for these ranks; ``swap``, whether ``b`` is the
    kernel's first operand (a product cut by columns); ``args``, the kernel's entry and its
    layout arguments (``_gemm_one``'s are ``args[:8]``); ``limit``, how many blocks the
    rows (or columns) allow, 1 for a batch (a block per matrix)."""
    dt = out.dtype
    if (not AVAILABLE or dt not in (np.float32, np.float64) or a.dtype != dt or b.dtype != dt
            or not out.flags.c_contiguous or a.ndim < 2 or b.ndim < 2 or not a.size
            or not b.size or not out.size):
        return None
    pa, pb = _operand(a), _operand(b)
    if pa is None or pb is None:
        return None
    (ta, lda), (tb, ldb) = pa, pb
    M, N, K, single = out.shape[-2], out.shape[-1], a.shape[-1], dt == np.float32
    if out.ndim == 2 and (a.ndim != 2 or b.ndim != 2):
        return None
    addresses, one, kernel = _kernels(dt, a.ndim, b.ndim, out.ndim)
    if one is not None:
        return one, addresses, False, (M, N, K, ta, tb, lda, ldb, single), M
    it = dt.itemsize
    # cut by rows of out (and of a): row-major, a first
    by_rows = (_ROW, ta, tb, M, N, K, lda, ldb, N, (1 if ta == _TRANS else lda) * it, N * it)
    if out.ndim > 2:
        oa, ob, oo = _batch_offsets(a, b, out)
        return None, addresses, False, (kernel, *by_rows, oa, ob, oo), 1
    z = _ONE_MATRIX
    if M >= N:
        return None, addresses, False, (kernel, *by_rows, z, z, z), M
    # cut by columns of out: the column-major product of the transposes (b first), cut by
    # its rows
    by_cols = (_COL, tb, ta, N, M, K, ldb, lda, N, (ldb if tb == _TRANS else 1) * it, it)
    return None, addresses, True, (kernel, *by_cols, z, z, z), N


def _kernels(dt, *ranks):
    """``(addresses, one, kernel)``: the entry points a pool product of float dtype ``dt``
    and operand ranks ``ranks`` (first, second, output) calls, compiled on first use;
    ``one`` (MKL's one call on the pool, for a 2-d product) or ``kernel`` (``gemm_par``'s)
    is None."""
    arrays = [_array(dt, r) for r in ranks]
    addresses = _entry(_addresses, types.UniTuple(types.intp, 3)(*arrays))
    if ranks == (2, 2, 2) and _mkl_threads():  # (no gemm_par kernel compiled for it)
        i32, i64 = types.int32, types.int64
        return addresses, _entry(_gemm_one, types.boolean(
            *arrays, i64, i64, i64, i32, i32, i64, i64, types.boolean, i32)), None
    return addresses, None, _gemm_par_entry(dt == np.float32)


def _gemm_par_entry(single):
    """The float32 (``single``) or float64 ``gemm_par`` kernel's entry point (one signature
    for every layout and rank)."""
    f = _ENTRIES.get(("par", single))
    if f is None:
        i32, i64, ptr, vec = types.int32, types.int64, types.intp, types.int64[::1]
        # (not through _entry: the two kernels share a name and a signature)
        f = _ENTRIES[("par", single)] = _GEMM_PAR[single].compile(types.boolean(
            ptr, ptr, ptr, i32, i32, i32, i64, i64, i64, i64, i64, i64, i64, i64, vec, vec,
            vec, i64))
    return f
