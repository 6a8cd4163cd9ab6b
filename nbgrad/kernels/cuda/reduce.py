"""CUDA reductions over the middle axis of an ``(A, R, B)`` view into ``out`` ``(A, B)``.

Sum, amax/amin and argmax/argmin: one block per output element, threads striding over R,
then a shared-memory tree. Variance, product, logsumexp and vector norms: one thread per
output element (grid-stride), looping over R, with the CPU kernels' accumulation types
(floats in float64, two passes for the variance; integer products in int64); logsumexp
and the norm run the row bodies of ``kernels/rows.py`` that the CPU runs too. Divisions
and logs that would hit a zero are spelled out (the simulator runs them as Python, which
raises there).
"""

import math

import numpy as np
from numba import cuda, float64, int64

from ..rows import logsumexp_row, norm_row, scan_line
from ._launch import TPB, device_fn, grid


def _sum_kernel(acc_t):
    @cuda.jit
    def k(x, out):
        A, R, B = x.shape
        sh = cuda.shared.array(TPB, acc_t)
        tid = cuda.threadIdx.x
        t = cuda.blockIdx.x
        while t < A * B:
            a = t // B
            b = t % B
            acc = acc_t(0)
            r = tid
            while r < R:
                acc += x[a, r, b]
                r += TPB
            sh[tid] = acc
            cuda.syncthreads()
            step = TPB // 2
            while step > 0:
                if tid < step:
                    sh[tid] += sh[tid + step]
                cuda.syncthreads()
                step //= 2
            if tid == 0:
                out[a, b] = sh[0]
            cuda.syncthreads()
            t += cuda.gridDim.x

    return k


def _partial_kernel(acc_t):
    @cuda.jit
    def k(x, part, chunk):
        # block (t, j) sums x[a, j*chunk:(j+1)*chunk, b] for output t = a*B + b
        A, R, B = x.shape
        sh = cuda.shared.array(TPB, acc_t)
        tid = cuda.threadIdx.x
        t = cuda.blockIdx.x
        j = cuda.blockIdx.y
        a = t // B
        b = t % B
        lo = j * chunk
        hi = min(R, lo + chunk)
        acc = acc_t(0)
        r = lo + tid
        while r < hi:
            acc += x[a, r, b]
            r += TPB
        sh[tid] = acc
        cuda.syncthreads()
        step = TPB // 2
        while step > 0:
            if tid < step:
                sh[tid] += sh[tid + step]
            cuda.syncthreads()
            step //= 2
        if tid == 0:
            part[t, j] = sh[0]

    return k


SPLIT_MIN = 1 << 16  # rows longer than this, with few outputs, are split across blocks


def _extreme_kernel(is_max):
    @cuda.jit
    def k(x, out, idx, with_idx):
        A, R, B = x.shape
        shv = cuda.shared.array(TPB, float64)
        shi = cuda.shared.array(TPB, int64)
        tid = cuda.threadIdx.x
        t = cuda.blockIdx.x
        while t < A * B:
            a = t // B
            b = t % B
            best = math.nan
            bi = -1
            r = tid
            while r < R:
                v = float64(x[a, r, b])
                if bi == -1:
                    best = v
                    bi = r
                elif best == best and (v != v or (v > best if is_max else v < best)):
                    best = v
                    bi = r
                r += TPB
            shv[tid] = best
            shi[tid] = bi
            cuda.syncthreads()
            step = TPB // 2
            while step > 0:
                if tid < step:
                    j = shi[tid + step]
                    if j != -1:
                        v = shv[tid + step]
                        cur = shv[tid]
                        i0 = shi[tid]
                        take = False
                        if i0 == -1:
                            take = True
                        elif cur == cur:
                            if v != v:
                                take = True
                            elif (v > cur) if is_max else (v < cur):
                                take = True
                            elif v == cur and j < i0:
                                take = True
                        elif v != v and j < i0:
                            take = True
                        if take:
                            shv[tid] = v
                            shi[tid] = j
                cuda.syncthreads()
                step //= 2
            if tid == 0:
                out[a, b] = shv[0]
                if with_idx:
                    idx[a, b] = shi[0]
            cuda.syncthreads()
            t += cuda.gridDim.x

    return k


_cache = {}


def _get(key, make):
    k = _cache.get(key)
    if k is None:
        k = _cache[key] = make()
    return k


def _blocks(n):
    return max(1, min(4096, n))


def sum_arb(x, out):
    """``out[a, b] = sum_r x[a, r, b]`` (floats accumulate in float64, integers in int64)."""
    acc = float64 if x.dtype.kind == "f" else int64
    k = _get(("sum", acc), lambda: _sum_kernel(acc))
    A, R, B = x.shape
    if A * B < 256 and R >= SPLIT_MIN:
        # a long reduction into few outputs: first many blocks of partial sums, then those
        chunk = 8 * TPB
        nblk = (R + chunk - 1) // chunk
        part = cuda.device_array((A * B, nblk), np.float64 if acc is float64 else np.int64)
        _get(("part", acc), lambda: _partial_kernel(acc))[(A * B, nblk), TPB](x, part, chunk)
        k[_blocks(A * B), TPB](part.reshape(A * B, nblk, 1), out.reshape(A * B, 1))
        return
    k[_blocks(out.size), TPB](x, out)


def _extreme(is_max, x, out, idx):
    k = _get(("ext", is_max), lambda: _extreme_kernel(is_max))
    dummy = idx if idx is not None else cuda.device_array((1, 1), np.int64)
    k[_blocks(out.size), TPB](x, out, dummy, idx is not None)


def amax_arb(x, out):
    """Max over the middle axis, nan-propagating."""
    _extreme(True, x, out, None)


def amin_arb(x, out):
    """Min over the middle axis, nan-propagating."""
    _extreme(False, x, out, None)


def argmax_arb(x, out, idx):
    """Max values and their first indices along the middle axis."""
    _extreme(True, x, out, idx)


def argmin_arb(x, out, idx):
    """Min values and their first indices along the middle axis."""
    _extreme(False, x, out, idx)


# ----- variance, product, logsumexp, norm ------------------------------------------------
@cuda.jit
def _var(x, out, correction):
    A, R, B = x.shape
    dof = max(R - correction, 0.0)
    t = cuda.grid(1)
    s = cuda.gridsize(1)
    while t < A * B:
        a = t // B
        b = t % B
        if R == 0:
            out[a, b] = math.nan
        else:
            acc = 0.0
            for r in range(R):
                acc += x[a, r, b]
            m = acc / R
            q = 0.0
            for r in range(R):
                d = x[a, r, b] - m
                q += d * d
            if dof > 0.0:
                out[a, b] = q / dof
            elif q > 0.0:
                out[a, b] = math.inf
            else:
                out[a, b] = math.nan
        t += s


@cuda.jit
def _prod(x, out, one):
    A, R, B = x.shape
    t = cuda.grid(1)
    s = cuda.gridsize(1)
    while t < A * B:
        a = t // B
        b = t % B
        acc = one
        for r in range(R):
            acc *= x[a, r, b]
        out[a, b] = acc
        t += s


_logsumexp_row = device_fn(logsumexp_row)


@cuda.jit
def _logsumexp(x, out):
    A, R, B = x.shape
    t = cuda.grid(1)
    s = cuda.gridsize(1)
    while t < A * B:
        a = t // B
        b = t % B
        out[a, b] = _logsumexp_row(x, a, b, R)
        t += s


_norm_row = device_fn(norm_row)


@cuda.jit
def _norm(x, out, kind, p):
    A, R, B = x.shape
    t = cuda.grid(1)
    s = cuda.gridsize(1)
    while t < A * B:
        a = t // B
        b = t % B
        out[a, b] = _norm_row(x, a, b, R, kind, p)
        t += s


_scan_line = device_fn(scan_line)


@cuda.jit
def _scan(x, out, start, mul):
    A, R, B = x.shape
    t = cuda.grid(1)
    s = cuda.gridsize(1)
    while t < A * B:
        _scan_line(x, out, t // B, t % B, R, start, mul)
        t += s


def _cfg(out):
    return grid(out.shape[0] * out.shape[1])


def var_arb(x, out, correction):
    """``out[a, b]`` = variance of ``x[a, :, b]`` with ``R - correction`` degrees of
    freedom (clamped at 0: the result is then inf or nan, as in PyTorch)."""
    if out.size:
        _var[_cfg(out)](x, out, np.float64(correction))


def prod_arb(x, out):
    """``out[a, b] = prod_r x[a, r, b]`` (floats multiply in float64, integers in int64)."""
    if out.size:
        one = np.float64(1.0) if x.dtype.kind == "f" else np.int64(1)
        _prod[_cfg(out)](x, out, one)


def logsumexp_arb(x, out):
    """``out[a, b] = log(sum_r exp(x[a, r, b]))``, computed stably."""
    if out.size:
        _logsumexp[_cfg(out)](x, out)


def scan_arb(x, out, mul):
    """``out[a, :, b]``: the running sums (products for ``mul``) of ``x[a, :, b]`` (one
    thread per line; floats accumulate in float64, integers in int64, as on the CPU)."""
    if out.size:
        start = (np.float64 if x.dtype.kind == "f" else np.int64)(1 if mul else 0)
        _scan[grid(x.shape[0] * x.shape[2])](x, out, start, bool(mul))


def norm_arb(x, out, kind, p):
    """Vector norm of each ``x[a, :, b]``; ``kind`` is one of the ``rows.NORM_*`` codes and
    ``p`` the exponent for ``NORM_P``."""
    if out.size:
        _norm[_cfg(out)](x, out, np.int64(kind), np.float64(p))
