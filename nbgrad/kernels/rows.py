"""Per-row and per-window bodies (softmax family, layer norm and cross-entropy rows,
logsumexp, norms, max-pool) shared by the CPU loops and the CUDA kernels, so both targets
compute a row the same way; and the weighted one-hot class mask, built on the host for both
(targets are small). Bodies that need exp / log are factories (``softmax_bodies``,
``norm_loss_bodies``) that each target calls once with its own exp / log and decorator:
vmath's vectorizable math and ``@njit`` on the CPU, ``math`` and a device-function decorator
on CUDA; the others are ``@njit`` here and ``kernels.cuda._launch.device_fn`` on the device.
Like ``kernels/scalar.py``, this module imports no target, and each target imports it,
never the other target.
"""

import math

import numpy as np
from numba import njit
from numba.extending import overload

from .. import _config

_opts = dict(nogil=True, error_model="numpy", cache=_config.CACHE, no_cfunc_wrapper=True)
# bodies the CPU loops take into their own IR (as if written in place: a parallel loop
# stays one parfor); on the device ``inline`` means nothing
_inline = dict(_opts, inline="always")


def cast_like(z, v):
    """``v`` converted to the type of ``z`` (in compiled code: a float64 row statistic
    brought to a float32 row's type, so the row's elementwise math stays float32)."""
    return type(z)(v)


@overload(cast_like)
def _cast_like(z, v):
    to = z
    return lambda z, v: to(v)


# vector norm kinds (the op layer maps p to one of these)
NORM_ZERO, NORM_ONE, NORM_TWO, NORM_INF, NORM_NEGINF, NORM_P = 0, 1, 2, 3, 4, 5


@njit(**_opts)
def logsumexp_row(x, a, b, R):
    """``log(sum_r exp(x[a, r, b]))``: the max is taken out first, so any finite logits stay
    finite; +-inf maxima are not subtracted. An empty or all ``-inf`` row gives ``-inf``
    (spelled out: the CUDA simulator runs ``log(0)`` as Python, which raises)."""
    m = -math.inf
    for r in range(R):
        v = x[a, r, b]
        if v > m or v != v:
            m = v
            if v != v:
                break
    if m == math.inf or m == -math.inf:
        m = 0.0
    s = 0.0
    for r in range(R):
        s += math.exp(x[a, r, b] - m)
    if s == 0.0:
        return -math.inf
    return math.log(s) + m


# ----- softmax family: row ``i`` is the column ``x[:, i]`` of a 2-d array ------------------
# Written once, compiled per target by ``softmax_bodies(exp, log, jit)``: the CPU passes
# vmath's exp / log (vectorizable float32 math) and an ``@njit`` with ``reassoc`` (so the
# sums vectorize too), the device ``math.exp`` / ``math.log`` (libdevice) and its
# device-function decorator. A body calls only what the same call of the factory built: the
# CUDA simulator would run a plain ``@njit`` function as CPU code on device arrays.
# Rows are columns so that one convention serves every layout without a copy: of the
# ``(A, R, B)`` view (dim in the middle) ``x[a]`` is ``(R, B)`` with row ``b`` a column;
# dim last, the CPU passes ``(A, R).T``, whose F layout tells LLVM the row is contiguous
# (a sliced 1-d row per call costs more than a short row's work: reference counts).
# ``z`` is a zero of the row's dtype: a literal 0.0 would turn a float32 row's math to
# float64 (which vmath leaves to libm, unvectorized); the sums start from it too.
_SHORT = 16  # rows this short take a plain max loop (the lanes cost more than they save)
# Sums and the math after them run in the row's dtype (as PyTorch's): a float64 sum of
# float32 values does not vectorize, nor (fast) a sum in blocks from a runtime start, and
# float64 lanes are half as many.


def softmax_bodies(exp, log, jit):
    """``(row_max, softmax_row, log_softmax_row, softmax_bwd_row, log_softmax_bwd_row)``
    compiled by ``jit`` around the given ``exp`` and ``log``; each works on row ``x[:, i]``."""

    @jit
    def row_max(x, i, z):
        """Max of a row for a stable exp, in 8 independent lanes (a chain of compares does
        not vectorize); nans are skipped here and reach the result through the exp sum.
        ``z`` for an empty or all ``-inf`` row."""
        R = x.shape[0]
        if R == 0:
            return z
        m0 = x[0, i]
        if R <= _SHORT:
            for r in range(1, R):
                m0 = max(m0, x[r, i])
        else:
            m1 = m2 = m3 = m4 = m5 = m6 = m7 = m0
            r = 0
            while r + 8 <= R:
                m0 = max(m0, x[r, i])
                m1 = max(m1, x[r + 1, i])
                m2 = max(m2, x[r + 2, i])
                m3 = max(m3, x[r + 3, i])
                m4 = max(m4, x[r + 4, i])
                m5 = max(m5, x[r + 5, i])
                m6 = max(m6, x[r + 6, i])
                m7 = max(m7, x[r + 7, i])
                r += 8
            while r < R:
                m0 = max(m0, x[r, i])
                r += 1
            m0 = max(max(max(m0, m1), max(m2, m3)), max(max(m4, m5), max(m6, m7)))
        if m0 == -math.inf:
            return z
        return m0

    @jit
    def softmax_row(x, out, i, z):
        """``out = exp(x - max) / sum(exp(x - max))``; a nan anywhere makes the row nan."""
        R = x.shape[0]
        m = row_max(x, i, z)
        t = z
        for r in range(R):
            e = exp(x[r, i] - m)
            out[r, i] = e
            t += e
        for r in range(R):
            out[r, i] = out[r, i] / t

    @jit
    def log_softmax_row(x, out, i, z):
        """``out = x - logsumexp(x)``."""
        R = x.shape[0]
        m = row_max(x, i, z)
        t = z
        for r in range(R):
            t += exp(x[r, i] - m)
        if t == 0.0:  # all -inf: nan (spelled out: the CUDA simulator's log(0) raises)
            for r in range(R):
                out[r, i] = x[r, i] - x[r, i]
            return
        # PyTorch's order: x - max is exact, log(sum) is small beside large logits
        lt = log(t)
        for r in range(R):
            out[r, i] = (x[r, i] - m) - lt

    @jit
    def softmax_bwd_row(g, y, out, i, z):
        """``out = y * (g - sum(g * y))`` (``y`` the softmax output)."""
        R = g.shape[0]
        t = z
        for r in range(R):
            t += g[r, i] * y[r, i]
        for r in range(R):
            out[r, i] = y[r, i] * (g[r, i] - t)

    @jit
    def log_softmax_bwd_row(g, y, out, i, z):
        """``out = g - exp(y) * sum(g)`` (``y`` the log-softmax output)."""
        R = g.shape[0]
        t = z
        for r in range(R):
            t += g[r, i]
        for r in range(R):
            out[r, i] = g[r, i] - exp(y[r, i]) * t

    return row_max, softmax_row, log_softmax_row, softmax_bwd_row, log_softmax_bwd_row


# ----- layer norm and cross-entropy (class indices) rows ---------------------------------
# Written once, compiled per target by ``norm_loss_bodies(exp, log, jit, jit_sum)``: the
# per-element math (normalize and affine, the backward formula, a row's loss and its
# gradient) for both targets, and the CPU's whole-row bodies built from it (a CUDA block
# per row sums with its threads instead, then calls the same element functions). Both
# compute the statistics the same way: float64 mean, then the float64 sum of squared
# deviations (two passes), ``rstd = 1/sqrt(var + eps)``. ``jit_sum`` compiles the row
# bodies (the CPU's adds ``reassoc``, so the sums vectorize); ``jit`` the element functions.


def norm_loss_bodies(exp, log, jit, jit_sum, fmax=max):
    """``(ln_rstd, ln_xhat, ln_out, ln_gx, ce_lse, ce_loss, ce_grad, ln_fwd_rows,
    ln_bwd_rows, ce_fwd_rows, ce_bwd_rows)`` compiled around ``exp`` and ``log``, with
    ``fmax`` the running max of a long cross-entropy row (the CPU's ``vmath.fmax``, which
    vectorizes at the compile cost of a plain loop: 8 lanes of ``max`` had cost ~0.3 s of
    a cold start)."""

    @jit
    def ln_rstd(q, R, eps):
        """``1/sqrt(var + eps)`` from a row's sum of squared deviations ``q``."""
        return 1.0 / math.sqrt(q / R + eps)

    @jit
    def ln_xhat(v, m, s):
        return (v - m) * s

    @jit
    def ln_out(v, m, s, wj, bj, has_w, has_b):
        """One output of layer norm: ``xhat * w + b``."""
        y = (v - m) * s
        if has_w:
            y = y * wj
        if has_b:
            y = y + bj
        return y

    @jit
    def ln_gx(h, v, m, s, sa, sb):
        """One input gradient: ``h = g * w``; ``sa``, ``sb`` the row means of ``h`` and
        ``h * xhat``."""
        return s * (h - sa - (v - m) * s * sb)

    @jit
    def ce_lse(s):
        """``log`` of a row's exp sum (spelled out: the CUDA simulator runs log(0) as
        Python, which raises)."""
        if s > 0.0:
            return log(s)
        if s == 0.0:
            return -math.inf
        return s  # nan

    @jit
    def ce_loss(m, ls, xk, wk, has_w):
        """A row's loss ``w[k] * (logsumexp - x[k])`` from its max and log-exp-sum, as
        PyTorch's ``-(w[k] * log_probs[k])``: the same value, and -0.0 for a row whose
        log-probability is 0."""
        d = -((xk - m) - ls)
        if has_w:
            d = wk * d
        return d

    @jit
    def ce_grad(c, v, m, ls):
        """``c * softmax(x)[r]`` (``c = g[t] * w[k]``; the target class subtracts ``c``)."""
        return c * exp((v - m) - ls)

    # ----- the CPU's rows: rows i0 <= i < i1 of a C-contiguous (M, R) array, one call per
    # chunk of rows (a call per row, with a dozen array arguments, cost as much as a short
    # row's work; Numba's IR inlining of a per-row body gave slower loops than these).
    # Layer norm's take 1-d slices of each row (their loops then vectorize at the row's own
    # width); cross-entropy's index the array (a slice per row cost more than a short row's
    # work)
    @jit_sum
    def ln_fwd_rows(x, i0, i1, w, b, has_w, has_b, eps, out, mean, rstd, z):
        """Layer norm of rows ``i0 <= i < i1`` of ``x`` into ``out[i]``, their means and
        rstds into ``mean[i]`` / ``rstd[i]``. The statistics are float64; each element is
        centred in float64, then scaled in ``x``'s dtype by the stored rstd, so a float32
        row keeps float64's precision far from 0 and runs mostly at float32 vector
        width."""
        R = x.shape[1]
        for i in range(i0, i1):
            s = 0.0
            for j in range(R):
                s += x[i, j]
            m = s / R
            q = 0.0
            xr, orow = x[i], out[i]
            for j in range(R):  # centred in float64 (exact for rows far from 0), then rounded
                d = xr[j] - m
                q += d * d
                orow[j] = d
            mean[i] = m
            rstd[i] = ln_rstd(q, R, eps)
            sf = rstd[i]
            if has_w and has_b:
                for j in range(R):
                    orow[j] = ln_out(orow[j], z, sf, w[j], b[j], True, True)
            elif has_w:
                for j in range(R):
                    orow[j] = ln_out(orow[j], z, sf, w[j], z, True, False)
            elif has_b:
                for j in range(R):
                    orow[j] = ln_out(orow[j], z, sf, z, b[j], False, True)
            else:
                for j in range(R):
                    orow[j] = ln_out(orow[j], z, sf, z, z, False, False)

    @jit_sum
    def ln_bwd_rows(g, x, i0, i1, mean, rstd, w, has_w, need_gx, gx, need_aff, pw, pb):
        """Rows ``i0 <= i < i1``: the input gradient into ``gx[i]`` (``need_gx``), and
        ``g * xhat`` / ``g`` added to the float64 column sums ``pw`` / ``pb``
        (``need_aff``); ``mean``, ``rstd``: the rows' statistics as forward stored them
        (``x``'s dtype).
        With ``gx``, ``xhat`` is made once in ``gx[i]`` (centred in float64, then scaled in
        ``x``'s dtype, as forward does), the row sums are float64, and the gradient is
        ``ln_gx``'s formula on that ``xhat``, in ``x``'s dtype (CUDA's rows keep float64
        elements; the two agree to float32 rounding)."""
        R = x.shape[1]
        for i in range(i0, i1):
            st = rstd[i]
            m = mean[i] * 1.0
            gr, xr = g[i], x[i]
            if need_gx:
                gxr = gx[i]
                for j in range(R):
                    gxr[j] = cast_like(st, xr[j] - m) * st
                sa = 0.0
                sb = 0.0
                # one loop per case, no choice inside (a 4096x128 float32 backward on two
                # threads 464 -> 408 µs)
                if has_w:
                    for j in range(R):
                        h = gr[j] * w[j]
                        sa += h
                        sb += h * gxr[j]
                else:
                    for j in range(R):
                        sa += gr[j]
                        sb += gr[j] * gxr[j]
                if need_aff:
                    for j in range(R):
                        pw[j] += gr[j] * gxr[j]
                        pb[j] += gr[j]
                saf = cast_like(st, sa / R)
                sbf = cast_like(st, sb / R)
                if has_w:
                    for j in range(R):
                        gxr[j] = st * (gr[j] * w[j] - saf - gxr[j] * sbf)
                else:
                    for j in range(R):
                        gxr[j] = st * (gr[j] - saf - gxr[j] * sbf)
            elif need_aff:
                s = st * 1.0
                for j in range(R):
                    gv = gr[j]
                    pw[j] += gv * ln_xhat(xr[j], m, s)
                    pb[j] += gv

    @jit_sum
    def ce_fwd_rows(x, i0, i1, target, w, has_w, ignore_index, z, loss, stats):
        """Rows ``i0 <= i < i1``: the loss for class ``k = target[i]`` (valid), the row's
        max and log-exp-sum into ``stats[i]``; 0s for ignored rows."""
        R = x.shape[1]
        for i in range(i0, i1):
            k = target[i]
            if k == ignore_index:
                loss[i] = z
                stats[i, 0] = z
                stats[i, 1] = z
                continue
            # nans are skipped here (but for a leading one) and propagate through the exp
            # sum instead
            m0 = x[i, 0]
            if R <= _SHORT:
                for r in range(1, R):
                    m0 = max(m0, x[i, r])
            else:
                for r in range(1, R):
                    m0 = fmax(m0, x[i, r])
            m = z if m0 == -math.inf else m0
            t = z
            for r in range(R):
                t += exp(x[i, r] - m)
            ls = ce_lse(t * 1.0)
            loss[i] = ce_loss(m, ls, x[i, k], w[k] if has_w else z, has_w)
            stats[i, 0] = m
            stats[i, 1] = ls

    @jit_sum
    def ce_bwd_rows(g, x, i0, i1, target, w, has_w, ignore_index, stats, z, out):
        """Rows ``i0 <= i < i1``: ``c * (softmax(x[i]) - onehot(k))``, ``k = target[i]``,
        ``c = g[i] * w[k]``; 0s for ignored rows."""
        R = x.shape[1]
        for i in range(i0, i1):
            k = target[i]
            if k == ignore_index:
                for r in range(R):
                    out[i, r] = z
                continue
            c = g[i]
            if has_w:
                c = c * w[k]
            m, ls = stats[i, 0], stats[i, 1]
            for r in range(R):
                out[i, r] = ce_grad(c, x[i, r], m, ls)
            out[i, k] -= c

    return (ln_rstd, ln_xhat, ln_out, ln_gx, ce_lse, ce_loss, ce_grad, ln_fwd_rows,
            ln_bwd_rows, ce_fwd_rows, ce_bwd_rows)


# ----- nll_loss rows: row ``t`` of logits viewed as ``(A, C, B)`` is ``x[t // B, :, t % B]``
# (2-d input is ``(N, C, 1)``, k-d ``(N, C, d1*...)``: no permute copy either way)


@njit(**_inline)
def nll_elem(x, a, k, b, wk):
    """A row's loss for its class ``k``: ``-w[k] * x[a, k, b]`` (``wk`` 1 without weights,
    so that the value is ``-x`` exactly)."""
    return -(wk * x[a, k, b])


@njit(**_inline)
def nll_grad_row(g, gs, d, t, target, w, has_w, ignore_index, z):
    """Row ``t``'s gradient coefficient ``c = w[k] * g[t * gs] / d`` (``d``: the total
    weight for a mean, else 1; ``gs`` 0 for a reduced loss's one gradient) and its class
    ``k``: ``(z, -1)`` for an ignored row."""
    k = target[t]
    if k == ignore_index:
        return z, -1
    c = g[t * gs] / d
    if has_w:
        c = w[k] * c
    return c, k


@njit(**_inline)
def nll_grad_elem(c, r, k, z):
    """Entry ``r`` of a row's gradient: ``-c`` at its class ``k``, else ``z`` (0); ``c`` is
    ``w[k] * g`` and ``k`` is -1 for an ignored row."""
    return -c if r == k else z


# ----- max-pool windows over (P, H, W) planes, flat per-plane argmax indices ---------------


@njit(**_inline)
def max_pool_window(x, p, oh, ow, kh, kw, sh, sw, ph, pw, dh, dw, lowest):
    """Max of window ``(oh, ow)`` of plane ``p`` and its flat index ``ih*W + iw``: PyTorch's
    rule, the first maximum wins and a NaN beats everything (the last NaN wins). Returned,
    not stored: each array an inlined body takes costs the CPU loop a reference count
    update per call."""
    H, W = x.shape[1], x.shape[2]
    hs = oh * sh - ph
    he = min(hs + (kh - 1) * dh + 1, H)
    while hs < 0:
        hs += dh
    ws = ow * sw - pw
    we = min(ws + (kw - 1) * dw + 1, W)
    while ws < 0:
        ws += dw
    m = lowest
    mi = hs * W + ws
    for ih in range(hs, he, dh):
        for iw in range(ws, we, dw):
            v = x[p, ih, iw]
            if v > m or v != v:
                m = v
                mi = ih * W + iw
    return m, mi


@njit(**_inline)
def max_pool_bwd_plane(g, idx, out, p):
    """``out[p]`` (H*W) = zeros with ``g[p]`` added at ``idx[p]``, in order."""
    HW = out.shape[1]
    for k in range(HW):
        out[p, k] = 0
    for k in range(g.shape[1]):
        i = idx[p, k]
        if i >= 0 and i < HW:
            out[p, i] += g[p, k]


@njit(**_inline)
def max_pool_gather_elem(x, p, i):
    """``x[p, i]``, 0 for an index outside the plane (returned, as max_pool_window's)."""
    return x[p, i] if i >= 0 and i < x.shape[1] else 0


# error_model="numpy": a negative p divides by zero at zeros (inf, as PyTorch), not raises
@njit(**_inline)
def scan_line(x, out, a, b, R, acc, mul):
    """``out[a, r, b] = x[a, 0, b] + ... + x[a, r, b]`` (``*`` for ``mul``), accumulated from
    ``acc`` (0 or 1) in its type (float64 for floats: PyTorch's CPU scans of float32 round
    each output from a double)."""
    for r in range(R):
        if mul:
            acc *= x[a, r, b]
        else:
            acc += x[a, r, b]
        out[a, r, b] = acc


@njit(**_opts)
def norm_row(x, a, b, R, kind, p):
    """The vector norm of ``x[a, :, b]`` (``R`` long) of kind ``kind``, in float64."""
    if kind == NORM_INF or kind == NORM_NEGINF:
        m = math.inf if kind == NORM_NEGINF else 0.0
        for r in range(R):
            v = abs(x[a, r, b]) * 1.0
            if v != v:
                return v
            if (kind == NORM_INF and v > m) or (kind == NORM_NEGINF and v < m):
                m = v
        return m
    s = 0.0
    for r in range(R):
        v = abs(x[a, r, b]) * 1.0
        if kind == NORM_TWO:
            s += v * v
        elif kind == NORM_ONE:
            s += v
        elif kind == NORM_ZERO:
            if v != 0.0:
                s += 1.0
        else:
            s += v ** p
    if kind == NORM_TWO:
        return math.sqrt(s)
    if kind == NORM_P:
        return s ** (1.0 / p)
    return s


@njit(**_opts)
def _class_mask(target, weight, ignore_index, n_classes, out, wsum):
    # out[i, c] = weight[c] if c == target[i] (and not ignored); returns the first bad target
    total = 0.0
    for i in range(target.size):
        t = target[i]
        if t == ignore_index:
            continue
        if t < 0 or t >= n_classes:
            return t
        w = weight[t]
        out[i, t] = w
        total += w
    wsum[0] = total
    return -1 if n_classes > 0 else 0


def class_mask(target, weight, ignore_index, n_classes, out, wsum):
    """Weighted one-hot rows for ``target`` (host arrays); returns a bad target value or None."""
    bad = _class_mask(target, weight, np.int64(ignore_index), n_classes, out, wsum)
    return None if bad == -1 else int(bad)
