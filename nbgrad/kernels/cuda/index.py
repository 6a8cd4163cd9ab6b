"""Indexing kernels on the device: reads and writes at computed positions of a flat buffer.

Same layouts and contract as kernels/cpu/index.py: ``(A, K, B)`` with an index array
(position ``offa[a] + idx[a, k, b] * sdim + offb[b]``) and ``(P, M, Q)`` with offsets
(position ``offp[p] + offm[m] + offq[q]``); the op layer validates every index and passes
offsets as device arrays.

Reads run one thread per element. Writes where duplicate indices collide (scatter_add,
index_put) have two forms:

* lanes: one thread per ``(a, b)`` (``(p, q)``) pair, which address disjoint positions,
  looping over ``k`` (``m``) in order, as the CPU does: race-free, and bit-identical to the
  CPU (sums add in the same order; the last write wins).
* spread, when there are too few pairs to fill the device and the collision axis is long
  (e.g. scattering into a 1-d tensor): one thread per element. Additions use
  ``cuda.atomic.add`` (float sums of duplicates may then round differently from run to run);
  plain writes first let every ``m`` claim its target with ``cuda.atomic.max`` on a scratch
  array, so the largest ``m`` (the last write) wins, deterministically.
"""

import numpy as np
from numba import cuda

from ._launch import grid

# below LANES_MIN (a, b) pairs with more than DEPTH_MAX duplicates-axis entries, the
# scattering kernels spread over every element (module attributes: tests lower them)
LANES_MIN = 4096
DEPTH_MAX = 32
_ATOMIC = frozenset(np.dtype(t) for t in (np.float32, np.float64, np.int32, np.int64))


def spread(lanes, depth, dtype):
    """Whether a scatter of ``lanes`` disjoint loops of ``depth`` writes each should run
    one thread per element (with atomics) instead of one thread per lane."""
    return lanes < LANES_MIN and depth > DEPTH_MAX and np.dtype(dtype) in _ATOMIC


@cuda.jit
def _gather(xf, idx, offa, offb, sdim, out):
    A, K, B = out.shape
    n = A * K * B
    i = cuda.grid(1)
    s = cuda.gridsize(1)
    while i < n:
        b = i % B
        r = i // B
        k = r % K
        a = r // K
        out[a, k, b] = xf[offa[a] + idx[a, k, b] * sdim + offb[b]]
        i += s


@cuda.jit
def _scatter_add_lanes(outf, idx, offa, offb, sdim, src):
    A, K, B = src.shape
    i = cuda.grid(1)
    s = cuda.gridsize(1)
    while i < A * B:
        a = i // B
        b = i % B
        o = offa[a] + offb[b]
        for k in range(K):
            outf[o + idx[a, k, b] * sdim] += src[a, k, b]
        i += s


@cuda.jit
def _scatter_add_spread(outf, idx, offa, offb, sdim, src):
    A, K, B = src.shape
    n = A * K * B
    i = cuda.grid(1)
    s = cuda.gridsize(1)
    while i < n:
        b = i % B
        r = i // B
        k = r % K
        a = r // K
        cuda.atomic.add(outf, offa[a] + idx[a, k, b] * sdim + offb[b], src[a, k, b])
        i += s


@cuda.jit
def _take(xf, offp, offm, offq, out):
    P, M, Q = out.shape
    n = P * M * Q
    i = cuda.grid(1)
    s = cuda.gridsize(1)
    while i < n:
        q = i % Q
        r = i // Q
        m = r % M
        p = r // M
        out[p, m, q] = xf[offp[p] + offm[m] + offq[q]]
        i += s


@cuda.jit
def _put_lanes(outf, offp, offm, offq, v, accumulate):
    P, M, Q = v.shape
    i = cuda.grid(1)
    s = cuda.gridsize(1)
    while i < P * Q:
        p = i // Q
        q = i % Q
        o = offp[p] + offq[q]
        if accumulate:
            for m in range(M):
                outf[o + offm[m]] += v[p, m, q]
        else:
            for m in range(M):
                outf[o + offm[m]] = v[p, m, q]
        i += s


@cuda.jit
def _put_add_spread(outf, offp, offm, offq, v):
    P, M, Q = v.shape
    n = P * M * Q
    i = cuda.grid(1)
    s = cuda.gridsize(1)
    while i < n:
        q = i % Q
        r = i // Q
        m = r % M
        p = r // M
        cuda.atomic.add(outf, offp[p] + offm[m] + offq[q], v[p, m, q])
        i += s


# Positions collide only through equal offm values (offp and offq address other dims), so
# the winner of each target is decided once per m: the scratch ``win`` is indexed by offm.
@cuda.jit
def _claim_reset(offm, win):
    i = cuda.grid(1)
    s = cuda.gridsize(1)
    while i < offm.size:
        win[offm[i]] = -1
        i += s


@cuda.jit
def _claim(offm, win):
    i = cuda.grid(1)
    s = cuda.gridsize(1)
    while i < offm.size:
        cuda.atomic.max(win, offm[i], i)
        i += s


@cuda.jit
def _put_claimed(outf, offp, offm, offq, v, win):
    P, M, Q = v.shape
    n = P * M * Q
    i = cuda.grid(1)
    s = cuda.gridsize(1)
    while i < n:
        q = i % Q
        r = i // Q
        m = r % M
        p = r // M
        if win[offm[m]] == m:
            outf[offp[p] + offm[m] + offq[q]] = v[p, m, q]
        i += s


def gather(xf, idx, offa, offb, sdim, out):
    """``out[a, k, b] = xf[offa[a] + idx[a, k, b] * sdim + offb[b]]``."""
    if out.size:
        _gather[grid(out.size)](xf, idx, offa, offb, np.int64(sdim), out)


def scatter_add(outf, idx, offa, offb, sdim, src):
    """``outf[offa[a] + idx[a, k, b] * sdim + offb[b]] += src[a, k, b]`` (duplicates add)."""
    if not src.size:
        return
    A, K, B = src.shape
    if spread(A * B, K, outf.dtype):
        _scatter_add_spread[grid(src.size)](outf, idx, offa, offb, np.int64(sdim), src)
    else:
        _scatter_add_lanes[grid(A * B)](outf, idx, offa, offb, np.int64(sdim), src)


def take(xf, offp, offm, offq, out):
    """``out[p, m, q] = xf[offp[p] + offm[m] + offq[q]]``."""
    if out.size:
        _take[grid(out.size)](xf, offp, offm, offq, out)


def put(outf, offp, offm, offq, v, accumulate):
    """``outf[offp[p] + offm[m] + offq[q]] (+)= v[p, m, q]``; with ``accumulate`` duplicates
    add up, else the last write along ``m`` wins."""
    if not v.size:
        return
    P, M, Q = v.shape
    if not spread(P * Q, M, outf.dtype if accumulate else np.int64):
        _put_lanes[grid(P * Q)](outf, offp, offm, offq, v, bool(accumulate))
    elif accumulate:
        _put_add_spread[grid(v.size)](outf, offp, offm, offq, v)
    else:
        win = cuda.device_array(outf.size, np.int32)  # m < 2**31: offm alone would fill 16 GiB
        _claim_reset[grid(M)](offm, win)
        _claim[grid(M)](offm, win)
        _put_claimed[grid(v.size)](outf, offp, offm, offq, v, win)
