"""Reductions for ops/extra.py on the device over the middle axis of an ``(A, R, B)``
view: variance, product, logsumexp and vector norms into ``out`` ``(A, B)``.

One thread per output element (grid-stride), looping over R. Same contract and
accumulation types as kernels/cpu/extra.py: floats accumulate in float64 (two passes for
the variance), integer products in int64. The norm compiles the per-row function both
targets share (``kernels/rows.norm_one``) as a device function. Divisions and logs that
would hit a zero are spelled out (the simulator runs them as Python, which raises there).
"""

import math

import numpy as np
from numba import cuda

from ..rows import norm_one
from ._launch import device_fn, grid


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


@cuda.jit
def _logsumexp(x, out):
    # max first, so any finite logits stay finite; +-inf maxima are not subtracted
    A, R, B = x.shape
    t = cuda.grid(1)
    s = cuda.gridsize(1)
    while t < A * B:
        a = t // B
        b = t % B
        m = -math.inf
        for r in range(R):
            v = x[a, r, b]
            if v > m or v != v:
                m = v
                if v != v:
                    break
        if m == math.inf or m == -math.inf:
            m = 0.0
        acc = 0.0
        for r in range(R):
            acc += math.exp(x[a, r, b] - m)
        if acc == 0.0:
            out[a, b] = -math.inf
        else:
            out[a, b] = math.log(acc) + m
        t += s


_norm_one = device_fn(norm_one)


@cuda.jit
def _norm(x, out, kind, p):
    A, R, B = x.shape
    t = cuda.grid(1)
    s = cuda.gridsize(1)
    while t < A * B:
        a = t // B
        b = t % B
        out[a, b] = _norm_one(x, a, b, R, kind, p)
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


def norm_arb(x, out, kind, p):
    """Vector norm of each ``x[a, :, b]``; ``kind`` is one of the ``NORM_*`` codes and
    ``p`` the exponent for ``NORM_P``."""
    if out.size:
        _norm[_cfg(out)](x, out, np.int64(kind), np.float64(p))
