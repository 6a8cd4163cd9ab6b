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
  call made by a thread of Numba's pool (``_gemm_par``). The library's ``cblas_?gemm``
  (64-bit integers) and ``*_set_num_threads_local`` are registered with LLVM under
  nbgrad's own names and called as ``types.ExternalFunction``: cached machine code then
  links to whichever library this process chose.
Where no BLAS is found (another BLAS, another platform), ``AVAILABLE`` is False and every
product goes to ``np.matmul``.
"""

import ctypes
import importlib.metadata
import os
import re

import numpy as np
from numba import njit, prange, types

from ... import _config
from . import _par

_opts = dict(nogil=True, error_model="numpy", cache=_config.CACHE)
_ROW, _NOTRANS, _TRANS = 101, 111, 112
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
    ``nbgrad_dgemm`` and ``nbgrad_blas_threads_local``; ``(name, path)`` or None.
    ``openblas``: ``_find_openblas()``'s answer."""
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
    return name, path


def _numpy_threads_local(openblas):
    """NumPy's OpenBLAS ``openblas_set_num_threads_local`` (ctypes), or None: small products
    go to ``np.matmul``, and this keeps them to the calling thread."""
    if openblas is None:
        return None
    fn = openblas[2].openblas_set_num_threads_local
    fn.argtypes, fn.restype = (ctypes.c_int,), ctypes.c_int
    return fn


_OPENBLAS = _find_openblas()
_BOUND = _bind(_OPENBLAS)
AVAILABLE = _BOUND is not None
# which library the pool's products call ("mkl", "openblas"), and its path; None without
NAME, PATH = (_BOUND[0], _BOUND[1]) if AVAILABLE else (None, None)
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

    @njit(inline="always", **_opts)
    def _block(pa, pb, po, M, N, K, ta, tb, lda, ldb, single, t, nb, split_rows):
        """Block ``t`` of ``nb`` of the (M, N) product at address ``po`` (row stride N) of
        the matrices at ``pa`` and ``pb`` (as ``ta``/``tb`` and their leading dimensions
        say): a range of output rows, or of columns, in one single-threaded call."""
        it = 4 if single else 8
        if split_rows:
            r0 = M * t // nb
            r1 = M * (t + 1) // nb
            pa += r0 * (1 if ta == _TRANS else lda) * it
            po += r0 * N * it
            m, n = r1 - r0, N
        else:
            c0 = N * t // nb
            c1 = N * (t + 1) // nb
            pb += c0 * (ldb if tb == _TRANS else 1) * it
            po += c0 * it
            m, n = M, c1 - c0
        if m == 0 or n == 0:
            return
        prev = _set_local(1)
        gemm_call(single, ta, tb, m, n, K, pa, lda, pb, ldb, po, N)
        _set_local(prev)

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
        """The addresses of ``a``, ``b`` and ``out`` (for ``_gemm_par``), at an entry point
        per dtype and ranks."""
        return a.ctypes.data, b.ctypes.data, out.ctypes.data

    @njit(**_opts)  # (not inlined: a parallel loop's index may not be written)
    def _offsets(i, shape, sa, sb, so):
        """Byte offsets of matrix ``i`` (C order over the batch dims) in a, b and out."""
        oa = ob = oo = 0
        for d in range(shape.size - 1, -1, -1):
            j = i % shape[d]
            i //= shape[d]
            oa += j * sa[d]
            ob += j * sb[d]
            oo += j * so[d]
        return oa, ob, oo

    # addresses and sizes only (no arrays): one compiled signature serves every dtype,
    # layout and rank, so a program compiles this once
    @njit(parallel=True, **_opts)
    def _gemm_par(pa, pb, po, M, N, K, ta, tb, lda, ldb, single, shape, sa, sb, so, nb,
                  split_rows):
        # the matrices of the batch (shape: the batch dims, empty for one product; sa, sb,
        # so: their strides in bytes, 0 where an operand is broadcast), each cut into nb
        # blocks
        nbat = 1
        for d in shape:
            nbat *= d
        for task in prange(nbat * nb):
            oa, ob, oo = _offsets(task // nb, shape, sa, sb, so)
            _block(pa + oa, pb + ob, po + oo, M, N, K, ta, tb, lda, ldb, single, task % nb,
                   nb, split_rows)
        return True  # (_par.call_parallel's None means the pool was busy)


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


_NO_BATCH = np.zeros(0, np.int64)


def matmul(a, b, out):
    """``out = a @ b`` (NumPy's matmul broadcasting). A float product of at least
    ``PARALLEL_MACS`` multiply-adds whose operands BLAS reads in place runs on the pool
    (``_parallel``: one MKL call on its threads, or ``_gemm_par``'s blocks); any other runs
    as ``np.matmul`` kept to this thread (OpenBLAS would start its own threads from 262,144
    multiply-adds). Small products stay with NumPy: it calls ``gemv`` for a vector, where a
    one-column ``gemm`` of OpenBLAS took 45 µs against 12 for a 512x512 matrix (MKL's on an
    AMD EPYC 12.8 against 12.2), and its small ``gemm`` was as fast or faster (MKL's
    (256, 64) x (64, 10) on that EPYC: 15.8 µs against NumPy's OpenBLAS 5.6)."""
    if not (AVAILABLE and _parallel(a, b, out)):
        prev = _numpy_set_local(1) if _numpy_set_local is not None else None
        try:
            np.matmul(a, b, out=out)
        finally:
            if prev is not None:
                _numpy_set_local(prev)


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
    big products are single-threaded calls split over the pool (``_gemm_par``), as with
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


def _plan_of(a, b, out):
    """``_plan``'s answer for these operands' layout (cached)."""
    key = (a.shape, a.strides, a.dtype, b.shape, b.strides, b.dtype, out.shape, out.strides,
           out.dtype)
    plan = _PLANS.get(key, False)
    if plan is False:
        if len(_PLANS) >= 1024:  # many layouts (e.g. varying lengths): start over
            _PLANS.clear()
        plan = _PLANS[key] = _plan(a, b, out)
    return plan


def _parallel(a, b, out):
    """Run ``out = a @ b`` on the pool; False when it is not for the pool (small, not float,
    a layout BLAS cannot read) or the pool is busy."""
    if out.size * a.shape[-1] < PARALLEL_MACS:
        return False
    plan = _plan_of(a, b, out)
    if plan is None:
        return False
    one, addresses, args, limit, split_rows = plan
    if one is not None:  # one 2-d product: one MKL call on the pool
        return bool(_par.call_parallel(one, a, b, out, *args[:8], _par.threads()))
    nb = max(1, min(_par.threads(), limit))
    return bool(_par.call_parallel(_gemm_par_entry(), *addresses(a, b, out), *args, nb,
                                   split_rows))


# _plan's answers by the operands' layout (the arrays of batch strides alone took ~4 µs to
# build, a tenth of an attention product)
_PLANS = {}


def _plan(a, b, out):
    """``(one, addresses, args, limit, split_rows)`` for ``out = a @ b`` on the pool, or
    None when BLAS cannot (not float, mixed dtypes, a layout it cannot read in place,
    empty): ``one``, ``_gemm_one``'s entry point when MKL runs a 2-d product as one call on
    the pool's threads (else None: ``_gemm_par`` cuts the product into blocks);
    ``addresses``, ``_addresses``' entry for these ranks; ``args``, ``_gemm_par``'s layout
    arguments (``_gemm_one``'s are the first 8); ``limit``, how many blocks the rows (or
    columns) allow, 1 for a batch (a block per matrix)."""
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
    arrays = [_array(dt, x.ndim) for x in (a, b, out)]
    addresses = _entry(_addresses, types.UniTuple(types.intp, 3)(*arrays))
    if out.ndim > 2:
        batch = out.shape[:-2]
        a = a if a.shape[:-2] == batch else np.broadcast_to(a, batch + a.shape[-2:])
        b = b if b.shape[:-2] == batch else np.broadcast_to(b, batch + b.shape[-2:])
        shape = np.array(batch, np.int64)
        sa, sb, so = (np.array(x.strides[:-2], np.int64) for x in (a, b, out))
        args = (M, N, K, ta, tb, lda, ldb, single, shape, sa, sb, so)
        return None, addresses, args, 1, True
    if a.ndim != 2 or b.ndim != 2:
        return None
    one = None
    if _mkl_threads():
        i32, i64 = types.int32, types.int64
        one = _entry(_gemm_one, types.boolean(*arrays, i64, i64, i64, i32, i32, i64, i64,
                                              types.boolean, i32))
    split_rows = M >= N
    args = (M, N, K, ta, tb, lda, ldb, single, _NO_BATCH, _NO_BATCH, _NO_BATCH, _NO_BATCH)
    return one, addresses, args, M if split_rows else N, split_rows


def _gemm_par_entry():
    """``_gemm_par``'s entry point (one signature for every dtype, layout and rank)."""
    f = _ENTRIES.get("par")
    if f is None:
        i32, i64, ptr, vec = types.int32, types.int64, types.intp, types.int64[::1]
        f = _ENTRIES["par"] = _entry(_gemm_par, types.boolean(
            ptr, ptr, ptr, i64, i64, i64, i32, i32, i64, i64, types.boolean, vec, vec, vec,
            vec, i64, types.boolean))
    return f
