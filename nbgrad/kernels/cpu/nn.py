"""Fused kernels for softmax-family ops over the middle axis of an ``(A, R, B)`` view, and
for cross-entropy (class indices) and layer norm over C-contiguous rows.

Each computes a whole forward or backward step in one pass over memory; the max is
subtracted first so logits of any size stay finite.
"""

import math

import numpy as np
from numba import njit, prange

from ... import _config
from .. import rows, vmath
from . import _par

# no_cfunc_wrapper: nothing takes these as first-class function values, and the C wrapper
# costs ~10 ms of compile time per function; the per-row helpers, only called from
# compiled code, skip the CPython wrapper too (``_inner``)
_opts = dict(nogil=True, error_model="numpy", cache=_config.CACHE, no_cfunc_wrapper=True)
_inner = dict(_opts, no_cpython_wrapper=True)


def _make(parallel):
    # the loops spread rows over threads; a row's work is rows.py's (shared with CUDA)
    rng = prange if parallel else range

    @njit(parallel=parallel, **_opts)
    def log_softmax(x, out):
        A, R, B = x.shape
        for t in rng(A * B):
            rows.log_softmax_row(x, out, t // B, t % B)

    @njit(parallel=parallel, **_opts)
    def softmax(x, out):
        A, R, B = x.shape
        for t in rng(A * B):
            rows.softmax_row(x, out, t // B, t % B)

    @njit(parallel=parallel, **_opts)
    def log_softmax_bwd(g, y, out):
        A, R, B = g.shape
        for t in rng(A * B):
            rows.log_softmax_bwd_row(g, y, out, t // B, t % B)

    @njit(parallel=parallel, **_opts)
    def softmax_bwd(g, y, out):
        A, R, B = g.shape
        for t in rng(A * B):
            rows.softmax_bwd_row(g, y, out, t // B, t % B)

    return log_softmax, softmax, log_softmax_bwd, softmax_bwd


_S = _make(False)
_P = _make(True)


def log_softmax(x, out):
    """Log-softmax over the middle axis."""
    _par.run(_S[0], _P[0], x.size, x, out)


def softmax(x, out):
    """Softmax over the middle axis."""
    _par.run(_S[1], _P[1], x.size, x, out)


def log_softmax_backward(g, y, out):
    """``g - exp(y) * sum(g)`` over the middle axis (``y`` is the log-softmax output)."""
    _par.run(_S[2], _P[2], g.size, g, y, out)


def softmax_backward(g, y, out):
    """``y * (g - sum(g * y))`` over the middle axis (``y`` is the softmax output)."""
    _par.run(_S[3], _P[3], g.size, g, y, out)


class_mask = rows.class_mask  # (built on the host; the CUDA target uses it too)


# ----- fused cross-entropy (class-index targets) and layer norm ----------------------------
# Both work on C-contiguous rows ``(M, R)``; the op layer brings the class / normalized dims
# last. Cross-entropy: ``target`` holds M int64 class indices, and ``stats[t] = (max,
# log(sum(exp(x - max))))`` per row in the logits' dtype (``x - max`` stays exact for large
# logits, and the backward's ``exp((x - max) - lse)`` matches log_softmax's precision).
_SE_BLOCK = 4096  # exp sums: the logits' dtype within a block (vectorized), float64 across
_SHORT = 16  # rows this short take plain loops (one block, in the logits' dtype, as above)


@njit(**_inner)
def _row_max(x, i, R):
    # max of row i (R >= 1) in 8 independent lanes, so it vectorizes; nans are skipped
    # here and propagate through the exp sum instead (Numba's max(m, v) is
    # ``v if v > m else m``, as one select: fewer blocks to compile than the ternary)
    if R <= _SHORT:  # a few classes: the lanes cost more than they save
        m = x[i, 0]
        for r in range(1, R):
            m = max(m, x[i, r])
        return m
    m0 = m1 = m2 = m3 = m4 = m5 = m6 = m7 = x[i, 0]
    r = 0
    while r + 8 <= R:
        m0 = max(m0, x[i, r])
        m1 = max(m1, x[i, r + 1])
        m2 = max(m2, x[i, r + 2])
        m3 = max(m3, x[i, r + 3])
        m4 = max(m4, x[i, r + 4])
        m5 = max(m5, x[i, r + 5])
        m6 = max(m6, x[i, r + 6])
        m7 = max(m7, x[i, r + 7])
        r += 8
    while r < R:
        m0 = max(m0, x[i, r])
        r += 1
    return max(max(max(m0, m1), max(m2, m3)), max(max(m4, m5), max(m6, m7)))


@njit(fastmath={"reassoc"}, **_inner)
def _sumexp_block(v, m, z):
    # ``v`` a 1-d slice of a row: a loop from a runtime start index would not vectorize
    s = z
    for r in range(v.size):
        s += vmath.exp(v[r] - m)
    return s


@njit(inline="always", **_inner)  # (branches and calls only: inlined, not compiled apart)
def _sumexp(x, i, R, m, z):
    if R <= _SHORT:  # a few classes: no slice and call per row (4x faster for 10)
        t = z
        for r in range(R):
            t += vmath.exp(x[i, r] - m)
        return t
    s = 0.0
    lo = 0
    while lo < R:
        hi = min(R, lo + _SE_BLOCK)
        s += _sumexp_block(x[i, lo:hi], m, z)
        lo = hi
    return s


@njit(fastmath={"reassoc"}, **_inner)
def _ln_stats(x, i, R):
    # float64 mean and biased variance of row i (two passes)
    s = 0.0
    for j in range(R):
        s += x[i, j]
    m = s / R
    q = 0.0
    for j in range(R):
        d = x[i, j] - m
        q += d * d
    return m, q / R


@njit(fastmath={"reassoc"}, **_inner)
def _ln_bwd_sums(g, x, w, has_w, i, R, m, s):
    # sum(h) and sum(h * xhat) of row i, h = g * w
    sa = 0.0
    sb = 0.0
    if has_w:
        for j in range(R):
            h = g[i, j] * w[j]
            sa += h
            sb += h * ((x[i, j] - m) * s)
    else:
        for j in range(R):
            h = g[i, j] * 1.0
            sa += h
            sb += h * ((x[i, j] - m) * s)
    return sa, sb


@njit(inline="always", **_inner)  # (a call per row, with its many array arguments, cost more)
def _ce_fwd_row(x, target, w, has_w, ignore_index, z, loss, stats, t):
    k = target[t]
    if k == ignore_index:
        loss[t] = z
        stats[t, 0] = z
        stats[t, 1] = z
        return
    C = x.shape[1]
    m = _row_max(x, t, C)
    if m == -math.inf:
        m = z
    ls = math.log(_sumexp(x, t, C, m, z))
    d = (m - x[t, k]) + ls
    if has_w:
        d = w[k] * d
    loss[t] = d
    stats[t, 0] = m
    stats[t, 1] = ls


@njit(inline="always", **_inner)
def _ce_bwd_row(g, x, target, w, has_w, ignore_index, stats, z, out, t):
    C = x.shape[1]
    k = target[t]
    if k == ignore_index:
        for r in range(C):
            out[t, r] = z
        return
    c = g[t]
    if has_w:
        c = c * w[k]
    m = stats[t, 0]
    ls = stats[t, 1]
    for r in range(C):
        out[t, r] = c * vmath.exp((x[t, r] - m) - ls)
    out[t, k] -= c


@njit(**_inner)
def _ln_fwd_row(x, w, b, has_w, has_b, eps, out, mean, rstd, i):
    R = x.shape[1]
    m, var = _ln_stats(x, i, R)
    s = 1.0 / math.sqrt(var + eps)
    mean[i] = m
    rstd[i] = s
    if has_w and has_b:
        for j in range(R):
            out[i, j] = (x[i, j] - m) * s * w[j] + b[j]
    elif has_w:
        for j in range(R):
            out[i, j] = (x[i, j] - m) * s * w[j]
    elif has_b:
        for j in range(R):
            out[i, j] = (x[i, j] - m) * s + b[j]
    else:
        for j in range(R):
            out[i, j] = (x[i, j] - m) * s


@njit(**_inner)
def _ln_bwd_rows(g, x, mean, rstd, w, has_w, need_gx, need_aff, gx, gw_part, gb_part, c,
                 lo, hi):
    R = x.shape[1]
    for i in range(lo, hi):
        m = mean[i] * 1.0
        s = rstd[i] * 1.0
        if need_gx:
            sa, sb = _ln_bwd_sums(g, x, w, has_w, i, R, m, s)
            sa /= R
            sb /= R
            if has_w:
                for j in range(R):
                    gx[i, j] = s * (g[i, j] * w[j] - sa - (x[i, j] - m) * s * sb)
            else:
                for j in range(R):
                    gx[i, j] = s * (g[i, j] - sa - (x[i, j] - m) * s * sb)
        if need_aff:
            for j in range(R):
                gv = g[i, j]
                gw_part[c, j] += gv * ((x[i, j] - m) * s)
                gb_part[c, j] += gv


def _make_fused(parallel):
    # the per-row work lives in plain @njit functions (vectorized as such); the loops here
    # only spread rows over threads
    rng = prange if parallel else range

    @njit(parallel=parallel, **_opts)
    def ce_fwd(x, target, w, has_w, ignore_index, z, loss, stats, wsum):
        # first, validation and the weight sum in one cheap serial pass over the targets
        # (here rather than in a kernel of its own: one compile less on a cold start):
        # the first bad row, and then nothing is computed, or -1; wsum[0] = sum of w[t]
        # over the rows not ignored
        bad = -1
        total = 0.0
        n_classes = x.shape[1]
        for i in range(target.size):
            k = target[i]
            if k == ignore_index:
                continue
            if k < 0 or k >= n_classes:
                bad = i
                break
            if has_w:
                total += w[k]
            else:
                total += 1.0
        if bad != -1:
            return bad
        wsum[0] = total
        for t in rng(x.shape[0]):
            _ce_fwd_row(x, target, w, has_w, ignore_index, z, loss, stats, t)
        return -1

    @njit(parallel=parallel, **_opts)
    def ce_bwd(g, x, target, w, has_w, ignore_index, stats, z, out):
        for t in rng(x.shape[0]):
            _ce_bwd_row(g, x, target, w, has_w, ignore_index, stats, z, out, t)

    @njit(parallel=parallel, **_opts)
    def ln_fwd(x, w, b, has_w, has_b, eps, out, mean, rstd):
        for i in rng(x.shape[0]):
            _ln_fwd_row(x, w, b, has_w, has_b, eps, out, mean, rstd, i)

    @njit(parallel=parallel, **_opts)
    def ln_bwd(g, x, mean, rstd, w, has_w, need_gx, need_aff, gx, gw_part, gb_part):
        # rows split into gw_part.shape[0] chunks; chunk c adds its column sums of g * xhat
        # and g into gw_part[c] / gb_part[c] (float64)
        M = x.shape[0]
        nc = gw_part.shape[0]
        for c in rng(nc):
            _ln_bwd_rows(g, x, mean, rstd, w, has_w, need_gx, need_aff, gx, gw_part, gb_part,
                         c, c * M // nc, (c + 1) * M // nc)

    return ce_fwd, ce_bwd, ln_fwd, ln_bwd


_FS = _make_fused(False)
_FP = _make_fused(True)


@njit(**_opts)
def _col_sums(part, out):
    nc, R = part.shape
    for j in range(R):
        s = 0.0
        for c in range(nc):
            s += part[c, j]
        out[j] = s


def cross_entropy(x, target, w, has_w, ignore_index, loss, stats, wsum):
    """Per-row ``w[t] * (logsumexp(x[t]) - x[t, target[t]])`` for logits rows ``x``
    ``(M, C)`` (0 where ``target == ignore_index``) into ``loss`` ``(M,)``, the row max and
    log-sum-exp into ``stats`` ``(M, 2)``, and the weight sum into ``wsum[0]``. Returns the
    first out-of-range target value (checked before anything is computed), or None."""
    bad = _par.run(_FS[0], _FP[0], x.size, x, target, w, has_w, np.int64(ignore_index),
                   x.dtype.type(0), loss, stats, wsum)
    return None if bad == -1 else int(target[bad])


def cross_entropy_backward(g, x, target, w, has_w, ignore_index, stats, out):
    """``out[t] = w[k] * g[t] * (softmax(x[t]) - onehot(k))``, ``k = target[t]`` (0 for
    ignored rows), from the ``stats`` saved by ``cross_entropy``; targets are valid."""
    _par.run(_FS[1], _FP[1], x.size, g, x, target, w, has_w, np.int64(ignore_index), stats,
             x.dtype.type(0), out)


def layer_norm(x, w, b, has_w, has_b, eps, out, mean, rstd):
    """Rows of ``x`` ``(M, R)`` normalized (float64 statistics), then ``* w + b``; the row
    means and ``1/sqrt(var + eps)`` into ``mean`` / ``rstd`` ``(M,)``."""
    _par.run(_FS[2], _FP[2], x.size, x, w, b, has_w, has_b, np.float64(eps), out, mean, rstd)


def layer_norm_backward(g, x, mean, rstd, w, has_w, gx, gw, gb):
    """Layer norm's backward over rows of ``(M, R)``: ``gx`` (when not None) from one fused
    pass per row, and the column sums ``gw = sum(g * xhat)``, ``gb = sum(g)`` (when not None)
    accumulated in float64 in the same pass."""
    M, R = x.shape
    need_aff = gw is not None or gb is not None
    nc = 1
    if x.size >= _par.PARALLEL_MIN:
        import numba

        nc = max(1, min(M, numba.get_num_threads()))
    if need_aff:
        gw_part = np.zeros((nc, R), np.float64)
        gb_part = np.zeros((nc, R), np.float64)
    else:
        gw_part = gb_part = np.zeros((nc, 0), np.float64)
    need_gx = gx is not None
    if gx is None:
        gx = np.empty((0, 0), x.dtype)
    _par.run(_FS[3], _FP[3], x.size, g, x, mean, rstd, w, has_w, need_gx, need_aff, gx,
             gw_part, gb_part)
    if gw is not None:
        _col_sums(gw_part, gw)
    if gb is not None:
        _col_sums(gb_part, gb)
