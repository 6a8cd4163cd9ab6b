"""Matrix products on NumPy's own OpenBLAS, called from compiled code and split over
Numba's threads.

Why not ``np.matmul``: OpenBLAS runs its own thread pool. Two pools on the same cores
either spin against each other (a step of an MLP took 18x longer) or sleep and pay a
wake-up on every call (tens of µs on a virtual machine), so nbgrad's parallel loops and
NumPy's products could not both be fast. Here each product is cut into blocks of output
rows (or columns, or batch items) and every block is one single-threaded ``gemm`` call
made by a thread of Numba's pool, the pool every other nbgrad kernel runs on.

The library is the one NumPy loaded (found in ``/proc/self/maps``); its ``cblas_?gemm``
is bound by name (``types.ExternalFunction``, so the compiled loops can be cached), and
``openblas_set_num_threads_local`` keeps each call to one thread without changing how
many threads NumPy's own products use. Where any of this is missing (another BLAS, another
platform), ``AVAILABLE`` is False and products go to ``np.matmul`` as before.
"""

import numpy as np
from numba import njit, prange, types

from ... import _config
from . import _par

_opts = dict(nogil=True, error_model="numpy", cache=_config.CACHE)
_ROW, _NOTRANS, _TRANS = 101, 111, 112
# from this many multiply-adds a product is split over the threads (below it, one call:
# a 64x32x64 product took 3 µs whole and 6 µs in two halves)
PARALLEL_MACS = 1 << 20


def _find_openblas():
    """``(path, suffix, int type)`` of the OpenBLAS NumPy loaded, or None."""
    try:
        with open("/proc/self/maps") as f:
            paths = {line.split()[-1] for line in f if "openblas" in line.lower()}
    except OSError:
        return None
    import ctypes

    for path in sorted(paths):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        if not hasattr(lib, "openblas_set_num_threads_local"):
            continue
        for prefix, suffix, itype in (("scipy_", "64_", types.int64), ("", "64_", types.int64),
                                      ("", "", types.int32)):
            if hasattr(lib, f"{prefix}cblas_sgemm{suffix}"):
                return path, prefix, suffix, itype
    return None


def _bind():
    found = _find_openblas()
    if found is None:
        return None
    path, prefix, suffix, itype = found
    from llvmlite import binding

    binding.load_library_permanently(path)
    i32, ptr = types.int32, types.intp  # addresses passed as integers (same ABI)
    fns = []
    for dt, ch in ((types.float32, "s"), (types.float64, "d")):
        sig = types.void(i32, i32, i32, itype, itype, itype, dt, ptr, itype, ptr, itype, dt,
                         ptr, itype)
        fns.append(types.ExternalFunction(f"{prefix}cblas_{ch}gemm{suffix}", sig))
    local = types.ExternalFunction("openblas_set_num_threads_local", types.int32(types.int32))
    return fns[0], fns[1], local


_BOUND = _bind()
AVAILABLE = _BOUND is not None

if AVAILABLE:
    _sgemm, _dgemm, _set_local = _BOUND

    @njit(inline="always", **_opts)
    def _block(a, b, out, ta, tb, lda, ldb, t, nb, split_rows):
        """Block ``t`` of ``nb`` of ``out = op(a) @ op(b)`` (a (M, K), b (K, N) as their
        strides say): a range of output rows, or of columns, one single-threaded call."""
        M, N = out.shape
        K = a.shape[1]
        ia, ib, io = a.itemsize, b.itemsize, out.itemsize
        pa, pb, po = a.ctypes.data, b.ctypes.data, out.ctypes.data
        if split_rows:
            r0 = M * t // nb
            r1 = M * (t + 1) // nb
            pa += r0 * (1 if ta == _TRANS else lda) * ia
            po += r0 * N * io
            m, n = r1 - r0, N
        else:
            c0 = N * t // nb
            c1 = N * (t + 1) // nb
            pb += c0 * (ldb if tb == _TRANS else 1) * ib
            po += c0 * io
            m, n = M, c1 - c0
        if m == 0 or n == 0:
            return
        prev = _set_local(1)
        if out.itemsize == 4:
            _sgemm(_ROW, ta, tb, m, n, K, np.float32(1.0), pa, lda, pb, ldb, np.float32(0.0),
                   po, N)
        else:
            _dgemm(_ROW, ta, tb, m, n, K, 1.0, pa, lda, pb, ldb, 0.0, po, N)
        _set_local(prev)

    def _make(parallel):
        rng = prange if parallel else range

        @njit(parallel=parallel, **_opts)
        def gemm(a, b, out, ta, tb, lda, ldb, nb, split_rows):
            for t in rng(nb):
                _block(a, b, out, ta, tb, lda, ldb, t, nb, split_rows)

        @njit(parallel=parallel, **_opts)
        def gemm_batch(a, b, out, ta, tb, lda, ldb):
            # one call per matrix of the batch: a (B, M, K), b (B, K, N), out (B, M, N)
            for i in rng(out.shape[0]):
                _block(a[i], b[i], out[i], ta, tb, lda, ldb, 0, 1, True)

        return gemm, gemm_batch

    _GEMM = (_make(False), _make(True))


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


def gemm(a, b, out):
    """``out = a @ b`` through BLAS for float32/float64 arrays of one dtype, 2-d, or 3-d of
    one batch size, each read in place when its last two dims are BLAS layouts; True when
    done, False when the caller must use another way (other dtypes, layouts or shapes)."""
    dt = out.dtype
    if (not AVAILABLE or dt not in (np.float32, np.float64) or a.dtype != dt or b.dtype != dt
            or not out.flags.c_contiguous or a.ndim != b.ndim or a.ndim != out.ndim
            or a.ndim not in (2, 3) or a.shape[-1] == 0 or out.size == 0
            or (a.ndim == 3 and not (a.shape[0] == b.shape[0] == out.shape[0]))):
        return False
    pa, pb = _operand(a), _operand(b)
    if pa is None or pb is None:
        return False
    (ta, lda), (tb, ldb) = pa, pb
    M, N = out.shape[-2], out.shape[-1]
    macs = out.size * a.shape[-1]
    if a.ndim == 3:
        if a.shape[0] > 1 and (a.strides[0] % a.itemsize or b.strides[0] % b.itemsize):
            return False
        _par.run_work(_GEMM[0][1], _GEMM[1][1], macs >= PARALLEL_MACS, a, b, out, ta, tb,
                      lda, ldb)
        return True
    nb = _par.threads() if macs >= PARALLEL_MACS else 1
    split_rows = M >= N
    nb = max(1, min(nb, M if split_rows else N))
    _par.run_work(_GEMM[0][0], _GEMM[1][0], nb > 1, a, b, out, ta, tb, lda, ldb, nb,
                  split_rows)
    return True
