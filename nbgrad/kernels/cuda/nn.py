"""Softmax-family CUDA kernels over the middle axis of ``(A, R, B)``: one thread per row;
fused cross-entropy (class indices) and layer norm over C-contiguous rows: one block per row."""

import math

import numpy as np
from numba import cuda, float64

from .. import rows as _shared
from ._launch import TPB, device_fn, grid
from .reduce import sum_arb

# the softmax family's row bodies (rows.py, shared with the CPU) with libdevice's exp / log
(_row_max, _softmax_row, _log_softmax_row, _softmax_bwd_row,
 _log_softmax_bwd_row) = _shared.softmax_bodies(math.exp, math.log, cuda.jit(device=True))


@cuda.jit
def _log_softmax(x, out, z):
    A, R, B = x.shape
    t = cuda.grid(1)
    while t < A * B:
        a, b = t // B, t % B
        _log_softmax_row(x[a], out[a], b, z)
        t += cuda.gridsize(1)


@cuda.jit
def _softmax(x, out, z):
    A, R, B = x.shape
    t = cuda.grid(1)
    while t < A * B:
        a, b = t // B, t % B
        _softmax_row(x[a], out[a], b, z)
        t += cuda.gridsize(1)


@cuda.jit
def _log_softmax_bwd(g, y, out, z):
    A, R, B = g.shape
    t = cuda.grid(1)
    while t < A * B:
        a, b = t // B, t % B
        _log_softmax_bwd_row(g[a], y[a], out[a], b, z)
        t += cuda.gridsize(1)


@cuda.jit
def _softmax_bwd(g, y, out, z):
    A, R, B = g.shape
    t = cuda.grid(1)
    while t < A * B:
        a, b = t // B, t % B
        _softmax_bwd_row(g[a], y[a], out[a], b, z)
        t += cuda.gridsize(1)


def _rows(x):
    return x.shape[0] * x.shape[2]


def _zero(x):
    return np.dtype(x.dtype).type(0)


def log_softmax(x, out):
    """Log-softmax over the middle axis."""
    _log_softmax[grid(_rows(x))](x, out, _zero(out))


def softmax(x, out):
    """Softmax over the middle axis."""
    _softmax[grid(_rows(x))](x, out, _zero(out))


def log_softmax_backward(g, y, out):
    """``g - exp(y) * sum(g)`` over the middle axis."""
    _log_softmax_bwd[grid(_rows(g))](g, y, out, _zero(out))


def softmax_backward(g, y, out):
    """``y * (g - sum(g * y))`` over the middle axis."""
    _softmax_bwd[grid(_rows(g))](g, y, out, _zero(out))


def class_mask(target, weight, ignore_index, n_classes, out, wsum):
    """Weighted one-hot rows of the targets, built on the host (targets are small)."""
    t = target.copy_to_host() if hasattr(target, "copy_to_host") else np.asarray(target)
    w = weight.copy_to_host() if hasattr(weight, "copy_to_host") else np.asarray(weight)
    host = np.zeros(tuple(out.shape), out.dtype)
    bad = _shared.class_mask(np.ascontiguousarray(t, np.int64), w, ignore_index, n_classes, host, wsum)
    if bad is None:
        out.copy_to_device(host)
    return bad


# ----- fused cross-entropy and layer norm: one block per row -------------------------------
# Threads stride over the row and combine through a shared-memory tree (float64); the
# grid strides over rows. Same contracts as kernels/cpu/nn.py. Logs and divisions that could
# hit a zero are spelled out (the simulator runs them as Python, which raises there).
# the per-element math of both (rows.py, shared with the CPU's rows)
(_ln_rstd, _ln_xhat, _ln_out, _ln_gx, _ce_lse, _ce_loss, _ce_grad, *_cpu_rows) = \
    _shared.norm_loss_bodies(math.exp, math.log, cuda.jit(device=True), cuda.jit(device=True))


@cuda.jit(device=True)
def _block_sum(sh, tid, v):
    sh[tid] = v
    cuda.syncthreads()
    step = TPB // 2
    while step > 0:
        if tid < step:
            sh[tid] += sh[tid + step]
        cuda.syncthreads()
        step //= 2
    r = sh[0]
    cuda.syncthreads()
    return r


@cuda.jit(device=True)
def _block_max(sh, tid, v):
    # nan-propagating max
    sh[tid] = v
    cuda.syncthreads()
    step = TPB // 2
    while step > 0:
        if tid < step:
            a = sh[tid]
            b = sh[tid + step]
            if a == a and (b > a or b != b):
                sh[tid] = b
        cuda.syncthreads()
        step //= 2
    r = sh[0]
    cuda.syncthreads()
    return r


@cuda.jit
def _ce_fwd(x, target, w, has_w, ignore_index, loss, stats, aux, lp, want_lp):
    # aux[0] += w[t] over valid rows; aux[1] = min(aux[1], first row with a bad target)
    M, C = x.shape
    sh = cuda.shared.array(TPB, float64)
    tid = cuda.threadIdx.x
    t = cuda.blockIdx.x
    while t < M:
        k = target[t]
        if k == ignore_index or k < 0 or k >= C:
            if tid == 0:
                loss[t] = 0.0
                stats[t, 0] = 0.0
                stats[t, 1] = 0.0
                if k != ignore_index:
                    cuda.atomic.min(aux, 1, float64(t))
        else:
            m = -math.inf
            r = tid
            while r < C:
                v = x[t, r]
                if m == m and (v > m or v != v):
                    m = v
                r += TPB
            m = _block_max(sh, tid, m)
            if m == -math.inf:
                m = 0.0
            # m is one of the logits, so x - m is exact in float64
            s = 0.0
            r = tid
            while r < C:
                s += math.exp(x[t, r] - m)
                r += TPB
            s = _block_sum(sh, tid, s)
            if tid == 0:
                ls = _ce_lse(s)
                ww = w[k] if has_w else 1.0
                loss[t] = _ce_loss(m, ls, x[t, k], ww, has_w)
                stats[t, 0] = m
                stats[t, 1] = ls
                cuda.atomic.add(aux, 0, float64(ww))
        if want_lp:  # the log-probabilities, from the statistics as stored (x's dtype)
            cuda.syncthreads()  # (block-uniform: the branch above depends on t only)
            ms, ls2 = stats[t, 0], stats[t, 1]
            r = tid
            while r < C:
                lp[t, r] = (x[t, r] - ms) - ls2
                r += TPB
        t += cuda.gridDim.x


@cuda.jit
def _ce_bwd(g, x, target, w, has_w, ignore_index, stats, out):
    M, C = x.shape
    tid = cuda.threadIdx.x
    t = cuda.blockIdx.x
    while t < M:
        k = target[t]
        r = tid
        if k == ignore_index:
            while r < C:
                out[t, r] = 0.0
                r += TPB
        else:
            c = g[t]
            if has_w:
                c = c * w[k]
            m = stats[t, 0]
            ls = stats[t, 1]
            while r < C:
                v = _ce_grad(c, x[t, r], m, ls)
                if r == k:
                    out[t, r] = v - c
                else:
                    out[t, r] = v
                r += TPB
        t += cuda.gridDim.x


@cuda.jit
def _ln_fwd(x, w, b, has_w, has_b, eps, out, mean, rstd):
    M, R = x.shape
    sh = cuda.shared.array(TPB, float64)
    tid = cuda.threadIdx.x
    i = cuda.blockIdx.x
    while i < M:
        s = 0.0
        j = tid
        while j < R:
            s += x[i, j]
            j += TPB
        m = _block_sum(sh, tid, s) / R
        q = 0.0
        j = tid
        while j < R:
            d = x[i, j] - m
            q += d * d
            j += TPB
        rs = _ln_rstd(_block_sum(sh, tid, q), R, eps)
        if tid == 0:
            mean[i] = m
            rstd[i] = rs
        j = tid
        while j < R:
            out[i, j] = _ln_out(x[i, j], m, rs, w[j] if has_w else 1.0, b[j] if has_b else 0.0,
                                has_w, has_b)
            j += TPB
        i += cuda.gridDim.x


@cuda.jit
def _ln_bwd(g, x, mean, rstd, w, has_w, gx):
    M, R = x.shape
    sh = cuda.shared.array(TPB, float64)
    tid = cuda.threadIdx.x
    i = cuda.blockIdx.x
    while i < M:
        m = mean[i] * 1.0
        s = rstd[i] * 1.0
        sa = 0.0
        sb = 0.0
        j = tid
        while j < R:
            h = g[i, j] * 1.0
            if has_w:
                h = h * w[j]
            sa += h
            sb += h * _ln_xhat(x[i, j], m, s)
            j += TPB
        sa = _block_sum(sh, tid, sa) / R
        sb = _block_sum(sh, tid, sb) / R
        j = tid
        while j < R:
            h = g[i, j] * 1.0
            if has_w:
                h = h * w[j]
            gx[i, j] = _ln_gx(h, x[i, j], m, s, sa, sb)
            j += TPB
        i += cuda.gridDim.x


@cuda.jit
def _ln_affine_part(g, x, mean, rstd, chunk, gw_part, gb_part):
    # thread j of block (., c) sums rows [c*chunk, (c+1)*chunk) of column j
    M, R = x.shape
    j = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    c = cuda.blockIdx.y
    if j < R:
        sw = 0.0
        sb = 0.0
        for i in range(c * chunk, min(M, (c + 1) * chunk)):
            gv = g[i, j] * 1.0
            sw += gv * _ln_xhat(x[i, j], mean[i], rstd[i])
            sb += gv
        gw_part[c, j] = sw
        gb_part[c, j] = sb


@cuda.jit
def _col_sums(part, out):
    nc, R = part.shape
    j = cuda.grid(1)
    while j < R:
        s = 0.0
        for c in range(nc):
            s += part[c, j]
        out[j] = s
        j += cuda.gridsize(1)


def _row_blocks(n):
    return max(1, min(n, 65535)), TPB


@cuda.jit
def _over(v, w):
    # a mean's loss over its weight sum, in the loss's dtype
    if cuda.grid(1) == 0:
        v[0] = v[0] / w


def cross_entropy(x, target, w, has_w, ignore_index, loss, stats, wsum, lp=None, red=0,
                  total=None):
    """Per-row weighted cross-entropy of logits rows ``(M, C)``, the log-probabilities
    into ``lp`` when given, and for ``red`` 1 (mean) or 2 (sum) the reduced loss into 0-d
    ``total`` (see kernels/cpu/nn.py): ``sum``'s kernel over the losses, then a division
    by the weight sum for a mean (IEEE: 0/0 is nan).
    Bad targets are found by the same kernel and reported through a 2-element device
    array, read back once with the weight sum; targets never leave the device."""
    n = x.shape[0]
    aux = cuda.to_device(np.array([0.0, np.inf]))
    if n:
        want_lp = lp is not None
        if not want_lp:
            lp = cuda.device_array((0, 0), x.dtype)
        _ce_fwd[_row_blocks(n)](x, target, w, has_w, np.int64(ignore_index), loss, stats, aux,
                                lp, want_lp)
    h = aux.copy_to_host()
    if h[1] != np.inf:
        row = int(h[1])
        return int(target[row:row + 1].copy_to_host()[0])
    wsum[0] = h[0]
    if red:
        t = total.reshape(1, 1)
        sum_arb(loss.reshape(1, n, 1), t)
        if red == 1:
            _over[1, 1](t.reshape(1), x.dtype.type(h[0]))
    return None


def cross_entropy_backward(g, x, target, w, has_w, ignore_index, stats, out):
    """``w[k] * g[t] * (softmax(x[t]) - onehot(k))``, 0 for ignored rows."""
    n = x.shape[0]
    if n:
        _ce_bwd[_row_blocks(n)](g, x, target, w, has_w, np.int64(ignore_index), stats, out)


def layer_norm(x, w, b, has_w, has_b, eps, out, mean, rstd):
    """Row-wise layer norm of ``(M, R)`` with float64 statistics, then ``* w + b``."""
    if x.shape[0]:
        _ln_fwd[_row_blocks(x.shape[0])](x, w, b, has_w, has_b, np.float64(eps), out, mean, rstd)


def layer_norm_backward(g, x, mean, rstd, w, has_w, gx, gw, gb):
    """``gx`` by one block per row; ``gw``/``gb`` (when not None) as column sums over row
    chunks (float64 partials), then summed."""
    M, R = x.shape
    if gx is not None and M:
        _ln_bwd[_row_blocks(M)](g, x, mean, rstd, w, has_w, gx)
    if gw is None and gb is None:
        return
    chunk = max(16, (M + 63) // 64)
    nc = max(1, (M + chunk - 1) // chunk)
    gw_part = cuda.device_array((nc, R), np.float64)
    gb_part = cuda.device_array((nc, R), np.float64)
    if R:
        _ln_affine_part[((R + TPB - 1) // TPB, nc), TPB](g, x, mean, rstd, np.int64(chunk),
                                                         gw_part, gb_part)
        if gw is not None:
            _col_sums[grid(R)](gw_part, gw)
        if gb is not None:
            _col_sums[grid(R)](gb_part, gb)


# ----- nll_loss over logits viewed as (A, C, B) (contracts as kernels/cpu/nn.py) ------------
_nll_elem = device_fn(_shared.nll_elem)
_nll_grad_row = device_fn(_shared.nll_grad_row)
_nll_grad_elem = device_fn(_shared.nll_grad_elem)


@cuda.jit
def _nll_fwd(x, target, w, has_w, ignore_index, one, loss, aux):
    # one thread per row; aux = (sum of losses, sum of weights, first bad row) in float64
    B = x.shape[2]
    C = x.shape[1]
    t = cuda.grid(1)
    while t < target.size:
        k = target[t]
        if k == ignore_index:
            loss[t] = 0
        elif k < 0 or k >= C:
            loss[t] = 0
            cuda.atomic.min(aux, 2, float64(t))
        else:
            wk = w[k] if has_w else one
            v = _nll_elem(x, t // B, k, t % B, wk)
            loss[t] = v
            cuda.atomic.add(aux, 0, float64(v))
            cuda.atomic.add(aux, 1, float64(wk))
        t += cuda.gridsize(1)


@cuda.jit
def _nll_bwd(g, gs, d, target, w, has_w, ignore_index, z, out):
    # one thread per output element
    C = out.shape[1]
    B = out.shape[2]
    n = target.size * C
    i = cuda.grid(1)
    while i < n:
        t = i // C
        r = i % C
        c, k = _nll_grad_row(g, gs, d, t, target, w, has_w, ignore_index, z)
        out[t // B, r, t % B] = _nll_grad_elem(c, r, k, z)
        i += cuda.gridsize(1)


def nll_loss(x, target, w, has_w, ignore_index, loss, sums):
    """Per-row ``-w[k] * x[a, k, b]`` (see kernels/cpu/nn.py); the sums and the first bad
    row come back in one small copy."""
    aux = cuda.to_device(np.array([0.0, 0.0, np.inf]))
    n = target.size
    if n:
        _nll_fwd[grid(n)](x, target, w, has_w, np.int64(ignore_index), _one(x), loss, aux)
    h = aux.copy_to_host()
    if h[2] != np.inf:
        row = int(h[2])
        return int(target[row:row + 1].copy_to_host()[0])
    sums[0] = h[0]
    sums[1] = h[1]
    return None


def nll_loss_backward(g, per_row, d, target, w, has_w, ignore_index, out):
    """``-w[k] * g / d`` at each row's class, 0 elsewhere (see kernels/cpu/nn.py)."""
    if out.size:
        dt = np.dtype(out.dtype).type
        _nll_bwd[grid(out.size)](g, np.int64(1 if per_row else 0), dt(d), target, w, has_w,
                                 np.int64(ignore_index), dt(0), out)


def _one(x):
    return np.dtype(x.dtype).type(1)
