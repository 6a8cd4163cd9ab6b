"""Indexing kernels: reads and writes at computed positions of a flat buffer.

Two layouts cover every indexing op:

* ``(A, K, B)`` with an index array (gather, scatter_add, and index_select / index_add
  through a zero-stride index view): element ``(a, k, b)`` lives at
  ``offa[a] + idx[a, k, b] * sdim + offb[b]`` of the flat buffer.
* ``(P, M, Q)`` with precomputed offsets (advanced indexing ``x[key]``, ``x[key] = v``,
  ``index_put``): element ``(p, m, q)`` lives at ``offp[p] + offm[m] + offq[q]``.

The op layer computes the offsets and validates every index, so these loops do no
bounds checks, no shape logic, and allocate nothing. Writes are parallel only over
``(a, b)`` (or ``(p, q)``) pairs, which address disjoint positions; the loop over
``k`` (or ``m``), where duplicate indices collide, stays serial in each thread, so
accumulation is race-free and deterministic.
"""

from numba import njit, prange

from ... import _config
from . import _par

# (no_cfunc_wrapper: see reduce.py)
_opts = dict(nogil=True, error_model="numpy", cache=_config.CACHE, no_cfunc_wrapper=True)
_CH = 64  # inner-dim chunk handed to one thread by the scattering kernels


def _make(parallel):
    rng = prange if parallel else range

    @njit(parallel=parallel, **_opts)
    def gather(xf, idx, offa, offb, sdim, out):
        A, K, B = out.shape
        if _unit(offb) and _rows(idx):
            # whole rows (index_select, embedding): each (a, k) copies B adjacent elements,
            # a loop that vectorizes
            for t in rng(A * K):
                a, k = t // K, t % K
                o = offa[a] + idx[a, k, 0] * sdim
                row = out[a, k]  # (row views: ~4x faster than indexing out and xf per element)
                src = xf[o:o + B]
                for b in range(B):
                    row[b] = src[b]
            return
        for t in rng(A * K):
            a, k = t // K, t % K
            oa = offa[a]
            for b in range(B):
                out[a, k, b] = xf[oa + idx[a, k, b] * sdim + offb[b]]

    @njit(parallel=parallel, **_opts)
    def scatter_add(outf, idx, offa, offb, sdim, src):
        A, K, B = src.shape
        nc = (B + _CH - 1) // _CH
        unit = _unit(offb) and _rows(idx)
        for t in rng(A * nc):
            a, c = t // nc, t % nc
            oa = offa[a]
            lo = c * _CH
            hi = min(lo + _CH, B)
            if unit:  # whole rows (index_add, embedding's backward), as in gather
                for k in range(K):
                    o = oa + idx[a, k, 0] * sdim
                    dst = outf[o + lo:o + hi]
                    row = src[a, k, lo:hi]
                    for b in range(hi - lo):
                        dst[b] += row[b]
            else:
                for k in range(K):
                    for b in range(lo, hi):
                        outf[oa + idx[a, k, b] * sdim + offb[b]] += src[a, k, b]

    @njit(parallel=parallel, **_opts)
    def take(xf, offp, offm, offq, out):
        P, M, Q = out.shape
        for t in rng(P * M):
            p, m = t // M, t % M
            o = offp[p] + offm[m]
            for q in range(Q):
                out[p, m, q] = xf[o + offq[q]]

    @njit(parallel=parallel, **_opts)
    def put(outf, offp, offm, offq, v, accumulate):
        P, M, Q = v.shape
        nc = (Q + _CH - 1) // _CH
        for t in rng(P * nc):
            p, c = t // nc, t % nc
            lo = c * _CH
            hi = min(lo + _CH, Q)
            for m in range(M):
                o = offp[p] + offm[m]
                if accumulate:
                    for q in range(lo, hi):
                        outf[o + offq[q]] += v[p, m, q]
                else:
                    for q in range(lo, hi):
                        outf[o + offq[q]] = v[p, m, q]

    return gather, scatter_add, take, put


@njit(**_opts)
def _unit(offb):
    """Whether the inner offsets are 0, 1, 2, ... (the trailing dims are whole)."""
    for b in range(offb.size):
        if offb[b] != b:
            return False
    return True


@njit(**_opts)
def _rows(idx):
    """Whether the index is one value along its last dim (a zero stride: index_select's
    and index_add's 1-d index seen as ``(A, K, B)``)."""
    return idx.shape[2] <= 1 or idx.strides[2] == 0


_FAM = []


def _run(i, n, *args):
    # the dispatchers are made on first use (importing compiles nothing) and compile lazily
    if not _FAM:
        _FAM.extend((_make(False), _make(True)))
    _par.run(_FAM[0][i], _FAM[1][i], n, *args)


def gather(xf, idx, offa, offb, sdim, out):
    """``out[a, k, b] = xf[offa[a] + idx[a, k, b] * sdim + offb[b]]``."""
    _run(0, out.size, xf, idx, offa, offb, sdim, out)


def scatter_add(outf, idx, offa, offb, sdim, src):
    """``outf[offa[a] + idx[a, k, b] * sdim + offb[b]] += src[a, k, b]`` (duplicates add)."""
    _run(1, src.size, outf, idx, offa, offb, sdim, src)


def take(xf, offp, offm, offq, out):
    """``out[p, m, q] = xf[offp[p] + offm[m] + offq[q]]``."""
    _run(2, out.size, xf, offp, offm, offq, out)


def put(outf, offp, offm, offq, v, accumulate):
    """``outf[offp[p] + offm[m] + offq[q]] (+)= v[p, m, q]``; with ``accumulate`` duplicates
    add up, else the last write along ``m`` wins."""
    _run(3, v.size, outf, offp, offm, offq, v, bool(accumulate))
