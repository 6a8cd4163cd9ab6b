"""Matrix products: cuBLAS (``cublas.py``) for float32 / float64 where it loads, else a
tiled shared-memory product for (batched) operands of any strides and dtypes."""

import numpy as np
from numba import cuda, float32, float64

from . import cublas
from ._view import SIMULATOR, view

TILE = 4 if SIMULATOR else 16  # (see _launch: the simulator's threads are Python's)


def _mm_kernel(acc_t):
    @cuda.jit
    def k(a, b, out):
        # a: (Ba, n, kk), b: (Bb, kk, m), out: (Bo, n, m); Ba/Bb are 1 or Bo
        sa = cuda.shared.array((TILE, TILE), acc_t)
        sb = cuda.shared.array((TILE, TILE), acc_t)
        tx = cuda.threadIdx.x
        ty = cuda.threadIdx.y
        bo = cuda.blockIdx.z
        row = cuda.blockIdx.y * TILE + ty
        col = cuda.blockIdx.x * TILE + tx
        n = out.shape[1]
        m = out.shape[2]
        kk = a.shape[2]
        ba = bo if a.shape[0] > 1 else 0
        bb = bo if b.shape[0] > 1 else 0
        acc = acc_t(0)
        for t in range((kk + TILE - 1) // TILE):
            ka = t * TILE + tx
            kb = t * TILE + ty
            sa[ty, tx] = a[ba, row, ka] if row < n and ka < kk else acc_t(0)
            sb[ty, tx] = b[bb, kb, col] if kb < kk and col < m else acc_t(0)
            cuda.syncthreads()
            for j in range(TILE):
                acc += sa[ty, j] * sb[j, tx]
            cuda.syncthreads()
        if row < n and col < m:
            out[bo, row, col] = acc

    return k


_cache = {}


def _as3(x):
    if x.ndim == 2:
        return view(x, (1,) + tuple(x.shape), (0,) + tuple(x.strides))
    return x


def _merged(x):
    """4-d ``x`` with its two batch dims as one (a view), or None when their strides do
    not compose."""
    B0, B1 = x.shape[0], x.shape[1]
    s0, s1 = x.strides[0], x.strides[1]
    if B1 == 1:
        s1 = s0
    elif B0 > 1 and s0 != s1 * B1:
        return None
    return view(x, (B0 * B1,) + tuple(x.shape[2:]), (s1,) + tuple(x.strides[2:]))


def matmul(a, b, out):
    """``out = a @ b`` with NumPy's batch broadcasting (a, b at least 2-d)."""
    if out.ndim == 4 and a.shape[:2] == b.shape[:2] == out.shape[:2]:
        # two batch dims whose strides compose are one batch: one call
        m = [_merged(t) for t in (a, b, out)]
        if None not in m:
            matmul(*m)
            return
    if out.ndim > 3:
        # loop over all but the last batch dim
        lead = out.shape[0]
        for i in range(lead):
            ai = a[i] if a.ndim == out.ndim and a.shape[0] > 1 else (a[0] if a.ndim == out.ndim else a)
            bi = b[i] if b.ndim == out.ndim and b.shape[0] > 1 else (b[0] if b.ndim == out.ndim else b)
            matmul(ai, bi, out[i])
        return
    a3, b3 = _as3(a), _as3(b)
    o3 = _as3(out) if out.ndim == 2 else out
    if cublas.gemm(a3, b3, o3):
        return
    acc = float64 if out.dtype == np.float64 else float32
    k = _cache.get(acc)
    if k is None:
        k = _cache[acc] = _mm_kernel(acc)
    grid = ((o3.shape[2] + TILE - 1) // TILE, (o3.shape[1] + TILE - 1) // TILE, o3.shape[0])
    k[grid, (TILE, TILE)](a3, b3, o3)
