"""Fused kernels for softmax-family ops over the middle axis of an ``(A, R, B)`` view, and
for cross-entropy (class indices) and layer norm over C-contiguous rows.

Each computes a whole forward or backward step in one pass over memory; the max is
subtracted first so logits of any size stay finite.
"""

import numpy as np
from numba import njit, prange

from ... import _config
from .. import rows, vmath
from .._linked import inner
from . import _par
from .reduce import sum_blocks

# no_cfunc_wrapper: nothing takes these as first-class function values, and the C wrapper
# costs ~10 ms of compile time per function; the per-row helpers, only called from
# compiled code, are compiled only inside their callers (``_inner``: kernels/_linked.py)
_opts = dict(nogil=True, error_model="numpy", cache=_config.CACHE, no_cfunc_wrapper=True)
_inner = inner(_opts)
# the row kernels here (softmax family, cross-entropy, layer norm) pass over each element
# three or four times (max or mean, exp or deviations, sums, the write): they weigh as
# this many elements each against NBGRAD_PARALLEL_MIN (layer norm over 65,536 floats: 62
# µs serial, 33 on 2 threads)
ROW_WORK = 4


# the softmax family's row bodies (rows.py, shared with CUDA) with vmath's exp / log: their
# float32 math and (reassoc) sums vectorize; compiled apart from the loops, so the loops'
# flags do not replace theirs
(_row_max, _softmax_row, _log_softmax_row, _softmax_bwd_row,
 _log_softmax_bwd_row) = rows.softmax_bodies(vmath.exp, vmath.log,
                                             njit(fastmath={"reassoc"}, **_inner))


def _row_loops(body, n_in, parallel):
    # the loops spread rows over threads; a row's work is the body's. Dim last, the rows
    # are the columns of the transposed (A, R) array (F layout: contiguous, vectorized);
    # else row (a, b) is column b of x[a], (R, B)
    rng = prange if parallel else range
    if n_in == 1:
        @njit(parallel=parallel, **_opts)
        def cols(x, out, z):
            for a in rng(x.shape[1]):
                body(x, out, a, z)

        @njit(parallel=parallel, **_opts)
        def rows3(x, out, z):
            A, R, B = x.shape
            for t in rng(A * B):
                a = t // B
                body(x[a], out[a], t % B, z)
    else:
        @njit(parallel=parallel, **_opts)
        def cols(g, y, out, z):
            for a in rng(g.shape[1]):
                body(g, y, out, a, z)

        @njit(parallel=parallel, **_opts)
        def rows3(g, y, out, z):
            A, R, B = g.shape
            for t in rng(A * B):
                a = t // B
                body(g[a], y[a], out[a], t % B, z)
    return cols, rows3


class _RowKernel:
    """A row body's serial and parallel loops over (A, R, B) arrays, compiled on first
    use."""

    __slots__ = ("body", "n_in", "_k")

    def __init__(self, body, n_in):
        self.body, self.n_in, self._k = body, n_in, None

    def __call__(self, *arrays):
        k = self._k
        if k is None:
            k = self._k = (_row_loops(self.body, self.n_in, False),
                           _row_loops(self.body, self.n_in, True))
        A, R, B = arrays[0].shape
        if B == 1:
            args = tuple(a.reshape(A, R).T for a in arrays)
            i = 0
        else:
            args, i = arrays, 1
        args += (arrays[-1].dtype.type(0),)
        _par.run(k[0][i], k[1][i], arrays[0].size * ROW_WORK, *args)


_LOG_SOFTMAX = _RowKernel(_log_softmax_row, 1)
_SOFTMAX = _RowKernel(_softmax_row, 1)
_LOG_SOFTMAX_BWD = _RowKernel(_log_softmax_bwd_row, 2)
_SOFTMAX_BWD = _RowKernel(_softmax_bwd_row, 2)


def log_softmax(x, out):
    """Log-softmax over the middle axis of ``(A, R, B)``."""
    _LOG_SOFTMAX(x, out)


def softmax(x, out):
    """Softmax over the middle axis of ``(A, R, B)``."""
    _SOFTMAX(x, out)


def log_softmax_backward(g, y, out):
    """``g - exp(y) * sum(g)`` over the middle axis (``y`` is the log-softmax output)."""
    _LOG_SOFTMAX_BWD(g, y, out)


def softmax_backward(g, y, out):
    """``y * (g - sum(g * y))`` over the middle axis (``y`` is the softmax output)."""
    _SOFTMAX_BWD(g, y, out)


class_mask = rows.class_mask  # (built on the host; the CUDA target uses it too)


# ----- fused cross-entropy (class-index targets) and layer norm ----------------------------
# Both work on C-contiguous rows ``(M, R)``; the op layer brings the class / normalized dims
# last. Cross-entropy: ``target`` holds M int64 class indices, and ``stats[t] = (max,
# log(sum(exp(x - max))))`` per row in the logits' dtype (``x - max`` stays exact for large
# logits, and the backward's ``exp((x - max) - lse)`` matches log_softmax's precision).
(_ln_rstd, _ln_xhat, _ln_out, _ln_gx, _ce_lse, _ce_loss, _ce_grad, _ln_fwd_rows,
 _ln_bwd_rows, _ce_fwd_rows, _ce_bwd_rows) = rows.norm_loss_bodies(
    vmath.exp, vmath.log, njit(**_inner), njit(fastmath={"reassoc"}, **_inner), vmath.fmax)


def _make_fused(parallel):
    # the work on rows is rows.py's range bodies (the per-element math shared with CUDA);
    # the loops here only spread ``nc`` chunks of rows (one a thread) over threads
    rng = prange if parallel else range

    @njit(parallel=parallel, **_opts)
    def ce_fwd(x, target, w, has_w, ignore_index, z, loss, stats, wsum, lp, want_lp, nc, red,
               out):
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
        M = x.shape[0]
        for c in rng(nc):
            t0, t1 = c * M // nc, (c + 1) * M // nc
            _ce_fwd_rows(x, t0, t1, target, w, has_w, ignore_index, z, loss, stats)
            if want_lp:  # the log-probabilities from the statistics as stored (in this
                # loop's strict float order, not the row bodies' reassociating one)
                for t in range(t0, t1):
                    m, ls = stats[t, 0], stats[t, 1]
                    for r in range(n_classes):
                        lp[t, r] = (x[t, r] - m) - ls
        if red != 0:  # the losses' sum as sum's kernel adds them, then (mean) over the
            # weight sum in x's dtype (0/0 is nan, as PyTorch's mean over no weight), as the
            # ops would (here: two kernels fewer to compile on a cold start)
            s = x.dtype.type(sum_blocks(loss, 0.0, z))
            if red == 1:
                s = s / x.dtype.type(total)
            out[()] = s
        return -1

    @njit(parallel=parallel, **_opts)
    def ce_bwd(g, x, target, w, has_w, ignore_index, stats, z, out, nc):
        M = x.shape[0]
        for c in rng(nc):
            _ce_bwd_rows(g, x, c * M // nc, (c + 1) * M // nc, target, w, has_w,
                         ignore_index, stats, z, out)

    @njit(parallel=parallel, **_opts)
    def ln_fwd(x, w, b, has_w, has_b, eps, out, mean, rstd, z, nc):
        M = x.shape[0]
        for c in rng(nc):
            _ln_fwd_rows(x, c * M // nc, (c + 1) * M // nc, w, b, has_w, has_b, eps, out,
                         mean, rstd, z)

    @njit(parallel=parallel, **_opts)
    def ln_bwd(g, x, mean, rstd, w, has_w, need_gx, need_aff, gx, gw_part, gb_part):
        # chunk c adds its column sums of g * xhat and g into gw_part[c] / gb_part[c]
        # (float64; each chunk's row sliced once: a slice per row kept LLVM from
        # vectorizing the sums)
        M = x.shape[0]
        nc = gw_part.shape[0]
        for c in rng(nc):
            _ln_bwd_rows(g, x, c * M // nc, (c + 1) * M // nc, mean, rstd, w, has_w,
                         need_gx, gx, need_aff, gw_part[c], gb_part[c])

    return ce_fwd, ce_bwd, ln_fwd, ln_bwd


_FS = _make_fused(False)
_FP = _make_fused(True)


def _chunks(x):
    """How many chunks of rows a fused kernel over ``x`` ``(M, R)`` splits its rows into:
    one a thread when it may run in parallel, else one."""
    if x.size * ROW_WORK >= _par.PARALLEL_MIN:
        return max(1, min(x.shape[0], _par.threads()))
    return 1


@njit(**_opts)
def _col_sums(part, out):
    nc, R = part.shape
    for j in range(R):
        s = 0.0
        for c in range(nc):
            s += part[c, j]
        out[j] = s


def cross_entropy(x, target, w, has_w, ignore_index, loss, stats, wsum, lp=None, red=0,
                  total=None):
    """Per-row ``w[t] * (logsumexp(x[t]) - x[t, target[t]])`` for logits rows ``x``
    ``(M, C)`` (0 where ``target == ignore_index``) into ``loss`` ``(M,)``, the row max and
    log-sum-exp into ``stats`` ``(M, 2)``, the weight sum into ``wsum[0]``, (when ``lp``
    is given) the log-probabilities ``(x - max) - lse`` into ``lp`` ``(M, C)``, in ``x``'s
    dtype (``x`` itself on ignored rows), and for ``red`` 1 (mean) or 2 (sum) the reduced
    loss into 0-d ``total``: the sum of ``loss`` as the ``sum`` kernel computes it, over
    the weight sum rounded to ``x``'s dtype for a mean (IEEE: 0/0 is nan). Returns the
    first out-of-range target value (checked before anything is computed), or None."""
    want_lp = lp is not None
    if not want_lp:
        lp = np.empty((0, 0), x.dtype)
    if total is None:
        total = np.empty((), x.dtype)
    bad = _par.run(_FS[0], _FP[0], x.size * ROW_WORK, x, target, w, has_w,
                   np.int64(ignore_index), x.dtype.type(0), loss, stats, wsum, lp, want_lp,
                   _chunks(x), np.int64(red), total)
    return None if bad == -1 else int(target[bad])


def cross_entropy_backward(g, x, target, w, has_w, ignore_index, stats, out):
    """``out[t] = w[k] * g[t] * (softmax(x[t]) - onehot(k))``, ``k = target[t]`` (0 for
    ignored rows), from the ``stats`` saved by ``cross_entropy``; targets are valid."""
    _par.run(_FS[1], _FP[1], x.size * ROW_WORK, g, x, target, w, has_w,
             np.int64(ignore_index), stats, x.dtype.type(0), out, _chunks(x))


def layer_norm(x, w, b, has_w, has_b, eps, out, mean, rstd):
    """Rows of ``x`` ``(M, R)`` normalized (float64 statistics), then ``* w + b``; the row
    means and ``1/sqrt(var + eps)`` into ``mean`` / ``rstd`` ``(M,)``."""
    _par.run(_FS[2], _FP[2], x.size * ROW_WORK, x, w, b, has_w, has_b, np.float64(eps), out,
             mean, rstd, x.dtype.type(0), _chunks(x))


def layer_norm_backward(g, x, mean, rstd, w, has_w, gx, gw, gb):
    """Layer norm's backward over rows of ``(M, R)``: ``gx`` (when not None) from one fused
    pass per row, and the column sums ``gw = sum(g * xhat)``, ``gb = sum(g)`` (when not None)
    accumulated in float64 in the same pass."""
    R = x.shape[1]
    need_aff = gw is not None or gb is not None
    nc = _chunks(x)
    if need_aff:
        gw_part = np.zeros((nc, R), np.float64)
        gb_part = np.zeros((nc, R), np.float64)
    else:
        gw_part = gb_part = np.zeros((nc, 0), np.float64)
    need_gx = gx is not None
    if gx is None:
        gx = np.empty((0, 0), x.dtype)
    _par.run(_FS[3], _FP[3], x.size * ROW_WORK, g, x, mean, rstd, w, has_w, need_gx, need_aff,
             gx, gw_part, gb_part)
    if gw is not None:
        _col_sums(gw_part, gw)
    if gb is not None:
        _col_sums(gb_part, gb)


# ----- nll_loss over logits viewed as (A, C, B): row t is x[t // B, :, t % B] ---------------
@njit(**_opts)
def _nll_fwd(x, target, w, has_w, ignore_index, one, loss, sums):
    # serial: a row's work is one load (threads would cost more than they save)
    B = x.shape[2]
    C = x.shape[1]
    tot = 0.0
    ws = 0.0
    for t in range(target.size):
        k = target[t]
        if k == ignore_index:
            loss[t] = 0
            continue
        if k < 0 or k >= C:
            return t
        wk = w[k] if has_w else one
        v = rows.nll_elem(x, t // B, k, t % B, wk)
        loss[t] = v
        tot += v
        ws += wk
    sums[0] = tot
    sums[1] = ws
    return -1


def _make_nll_bwd(parallel):
    rng = prange if parallel else range

    @njit(parallel=parallel, **_opts)
    def nll_bwd(g, gs, d, target, w, has_w, ignore_index, z, out):
        B = out.shape[2]
        C = out.shape[1]
        for t in rng(target.size):
            c, k = rows.nll_grad_row(g, gs, d, t, target, w, has_w, ignore_index, z)
            a = t // B
            b = t % B
            for r in range(C):
                out[a, r, b] = rows.nll_grad_elem(c, r, k, z)

    return nll_bwd


_NLL_BWD = (_make_nll_bwd(False), _make_nll_bwd(True))


def nll_loss(x, target, w, has_w, ignore_index, loss, sums):
    """Per-row ``-w[k] * x[a, k, b]`` for logits ``x`` viewed as ``(A, C, B)`` and ``M = A*B``
    int64 ``target`` classes (row ``t`` is ``(t // B, t % B)``; 0 where ignored) into
    ``loss`` ``(M,)``; the float64 sums of the losses and of the weights into ``sums``.
    Returns the first out-of-range target value, or None."""
    bad = _nll_fwd(x, target, w, has_w, np.int64(ignore_index), x.dtype.type(1), loss, sums)
    return None if bad == -1 else int(target[bad])


def nll_loss_backward(g, per_row, d, target, w, has_w, ignore_index, out):
    """``out`` ``(A, C, B)`` = ``-w[k] * g / d`` at each row's class ``k``, 0 elsewhere and
    in ignored rows; ``g[t]`` per row when ``per_row``, else ``g[0]`` for every row."""
    _par.run(_NLL_BWD[0], _NLL_BWD[1], out.size, g, np.int64(1 if per_row else 0),
             out.dtype.type(d), target, w, has_w, np.int64(ignore_index), out.dtype.type(0),
             out)
