"""Per-row and per-window bodies (softmax family, logsumexp, norms, max-pool) shared by
the CPU loops and the CUDA kernels (compiled for each target:
``@njit`` here, ``kernels.cuda._launch.device_fn`` on the device), so both targets compute
a row the same way; and the weighted one-hot class mask, built on the host for both (targets
are small). Like ``kernels/scalar.py``, this module imports no target, and each target
imports it, never the other target.
"""

import math

import numpy as np
from numba import njit

from .. import _config

_opts = dict(nogil=True, error_model="numpy", cache=_config.CACHE, no_cfunc_wrapper=True)
# bodies the CPU loops take into their own IR (as if written in place: a parallel loop
# stays one parfor); on the device ``inline`` means nothing
_inline = dict(_opts, inline="always")

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


# ----- softmax family over the middle axis of (A, R, B): row (a, b) -----------------------
# exp is math.exp on both targets (a device function cannot call vmath's LLVM intrinsics;
# the CPU loops keep math.exp too, whose rows vectorize no worse here). The bodies call no
# other @njit function: the CUDA simulator would run that one as CPU code on device arrays.


@njit(**_inline)
def log_softmax_row(x, out, a, b):
    """``out[a, :, b] = x[a, :, b] - logsumexp(x[a, :, b])``."""
    R = x.shape[1]
    # the max, for a stable exp: nan if any is nan, 0 if all are -inf
    m = -math.inf
    for r in range(R):
        v = x[a, r, b]
        if v > m or v != v:
            m = v
    if m == -math.inf:
        m = 0.0
    s = 0.0
    for r in range(R):
        s += math.exp(x[a, r, b] - m)
    ls = math.log(s) + m
    for r in range(R):
        out[a, r, b] = x[a, r, b] - ls


@njit(**_inline)
def softmax_row(x, out, a, b):
    """``out[a, :, b] = softmax(x[a, :, b])``."""
    R = x.shape[1]
    # the max, for a stable exp: nan if any is nan, 0 if all are -inf
    m = -math.inf
    for r in range(R):
        v = x[a, r, b]
        if v > m or v != v:
            m = v
    if m == -math.inf:
        m = 0.0
    s = 0.0
    for r in range(R):
        e = math.exp(x[a, r, b] - m)
        out[a, r, b] = e
        s += e
    inv = 1.0 / s
    for r in range(R):
        out[a, r, b] = out[a, r, b] * inv


@njit(**_inline)
def log_softmax_bwd_row(g, y, out, a, b):
    """``out = g - exp(y) * sum(g)`` along row (a, b) (``y`` the log-softmax output)."""
    R = g.shape[1]
    s = 0.0
    for r in range(R):
        s += g[a, r, b]
    for r in range(R):
        out[a, r, b] = g[a, r, b] - math.exp(y[a, r, b]) * s


@njit(**_inline)
def softmax_bwd_row(g, y, out, a, b):
    """``out = y * (g - sum(g * y))`` along row (a, b) (``y`` the softmax output)."""
    R = g.shape[1]
    s = 0.0
    for r in range(R):
        s += g[a, r, b] * y[a, r, b]
    for r in range(R):
        out[a, r, b] = y[a, r, b] * (g[a, r, b] - s)


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
