"""Fused kernels for softmax-family ops over the middle axis of an ``(A, R, B)`` view.

Each computes a whole forward or backward step in one pass over memory; the max is
subtracted first so logits of any size stay finite.
"""

import math

import numpy as np
from numba import njit, prange

from ... import _config
from . import _par

_opts = dict(nogil=True, error_model="numpy", cache=_config.CACHE)


def _make(parallel):
    rng = prange if parallel else range

    @njit(parallel=parallel, **_opts)
    def log_softmax(x, out):
        A, R, B = x.shape
        for t in rng(A * B):
            a, b = t // B, t % B
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

    @njit(parallel=parallel, **_opts)
    def softmax(x, out):
        A, R, B = x.shape
        for t in rng(A * B):
            a, b = t // B, t % B
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

    @njit(parallel=parallel, **_opts)
    def log_softmax_bwd(g, y, out):
        # out = g - exp(y) * sum(g)
        A, R, B = g.shape
        for t in rng(A * B):
            a, b = t // B, t % B
            s = 0.0
            for r in range(R):
                s += g[a, r, b]
            for r in range(R):
                out[a, r, b] = g[a, r, b] - math.exp(y[a, r, b]) * s

    @njit(parallel=parallel, **_opts)
    def softmax_bwd(g, y, out):
        # out = y * (g - sum(g * y))
        A, R, B = g.shape
        for t in rng(A * B):
            a, b = t // B, t % B
            s = 0.0
            for r in range(R):
                s += g[a, r, b] * y[a, r, b]
            for r in range(R):
                out[a, r, b] = y[a, r, b] * (g[a, r, b] - s)

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
    """Weighted one-hot rows for ``target``; returns a bad target value or None."""
    bad = _class_mask(target, weight, np.int64(ignore_index), n_classes, out, wsum)
    return None if bad == -1 else int(bad)
