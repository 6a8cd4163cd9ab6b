"""Reductions for ops/extra.py over the middle axis of a C-contiguous ``(A, R, B)`` view:
variance, product, logsumexp and vector norms. ``out`` is ``(A, B)``.

Floating-point inputs accumulate in float64 (two passes for the variance), so float32
results keep float32 precision for long rows. Each op has a serial and a ``parallel=True``
variant; ``_par.run`` picks one by size.
"""

import math

import numpy as np
from numba import njit, prange

from ... import _config
from ..rows import norm_one
from . import _par

# (no_cfunc_wrapper: see reduce.py)
_opts = dict(nogil=True, error_model="numpy", cache=_config.CACHE, no_cfunc_wrapper=True)
_CHUNK = 4096  # rows per task when B == 1
_BLOCK = 256  # columns per task when B > 1

def _make(parallel):
    rng = prange if parallel else range

    @njit(parallel=parallel, **_opts)
    def var(x, out, correction):
        # float64, two passes per chunk of rows (cache-resident); chunks merge as in
        # Chan et al.: M2 = sum M2_c + sum n_c (mean_c - mean)^2
        A, R, B = x.shape
        dof = max(R - correction, 0.0)
        nc = max((R + _CHUNK - 1) // _CHUNK, 1)
        nb = (B + _BLOCK - 1) // _BLOCK
        cm = np.empty((A * nc, B))
        cq = np.empty((A * nc, B))
        for t in rng(A * nc * nb):
            ac, c = t // nb, t % nb
            a, k = ac // nc, ac % nc
            lo, hi = c * _BLOCK, min(B, (c + 1) * _BLOCK)
            r0, r1 = k * _CHUNK, min(R, (k + 1) * _CHUNK)
            for b in range(lo, hi):
                cm[ac, b] = 0.0
                cq[ac, b] = 0.0
            for r in range(r0, r1):
                for b in range(lo, hi):
                    cm[ac, b] += x[a, r, b]
            n = max(r1 - r0, 1)
            for b in range(lo, hi):
                cm[ac, b] /= n
            for r in range(r0, r1):
                for b in range(lo, hi):
                    d = x[a, r, b] - cm[ac, b]
                    cq[ac, b] += d * d
        for a in range(A):
            for b in range(B):
                m = 0.0
                for k in range(nc):
                    n = min(R, (k + 1) * _CHUNK) - k * _CHUNK
                    m += cm[a * nc + k, b] * n
                m /= R
                q = 0.0
                for k in range(nc):
                    n = min(R, (k + 1) * _CHUNK) - k * _CHUNK
                    d = cm[a * nc + k, b] - m
                    q += cq[a * nc + k, b] + n * d * d
                out[a, b] = q / dof

    @njit(parallel=parallel, **_opts)
    def prod(x, out, one):
        A, R, B = x.shape
        nb = (B + _BLOCK - 1) // _BLOCK
        for t in rng(A * nb):
            a, c = t // nb, t % nb
            lo, hi = c * _BLOCK, min(B, (c + 1) * _BLOCK)
            acc = np.full(hi - lo, one)
            for r in range(R):
                for b in range(lo, hi):
                    acc[b - lo] *= x[a, r, b]
            for b in range(lo, hi):
                out[a, b] = acc[b - lo]

    @njit(parallel=parallel, **_opts)
    def logsumexp(x, out):
        # max first, so any finite logits stay finite; +-inf maxima are not subtracted
        A, R, B = x.shape
        for t in rng(A * B):
            a, b = t // B, t % B
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
            out[a, b] = math.log(s) + m

    @njit(parallel=parallel, **_opts)
    def norm(x, out, kind, p):
        A, R, B = x.shape
        for t in rng(A * B):
            a, b = t // B, t % B
            out[a, b] = norm_one(x, a, b, R, kind, p)

    return var, prod, logsumexp, norm


_var, _prod, _lse, _norm = _make(False)
_var_p, _prod_p, _lse_p, _norm_p = _make(True)


def var_arb(x, out, correction):
    """``out[a, b]`` = variance of ``x[a, :, b]`` with ``R - correction`` degrees of
    freedom (clamped at 0: the result is then inf or nan, as in PyTorch)."""
    _par.run(_var, _var_p, x.size, x, out, np.float64(correction))


def prod_arb(x, out):
    """``out[a, b] = prod_r x[a, r, b]`` (floats multiply in float64, integers in int64)."""
    one = np.float64(1.0) if x.dtype.kind == "f" else np.int64(1)
    _par.run(_prod, _prod_p, x.size, x, out, one)


def logsumexp_arb(x, out):
    """``out[a, b] = log(sum_r exp(x[a, r, b]))``, computed stably."""
    _par.run(_lse, _lse_p, x.size, x, out)


def norm_arb(x, out, kind, p):
    """Vector norm of each ``x[a, :, b]``; ``kind`` is one of the ``NORM_*`` codes and
    ``p`` the exponent for ``NORM_P``."""
    _par.run(_norm, _norm_p, x.size, x, out, np.int64(kind), np.float64(p))
