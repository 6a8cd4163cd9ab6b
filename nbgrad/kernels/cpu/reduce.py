"""Reductions over the middle axis of a C-contiguous ``(A, R, B)`` view into ``out``
``(A, B)``: sum, amax/amin, argmax/argmin, and variance, product, logsumexp and vector
norms.

The op layer arranges any set of reduced dims into that form. Float32 sums accumulate
in float64, so a sum of ten million float32 values keeps float32 precision; the variance,
product, logsumexp and norms accumulate floats in float64 too (two passes for the
variance). Each op has a serial and a ``parallel=True`` variant; ``_par.run`` picks one by
size.
"""


import numpy as np
from numba import njit, prange

from ... import _config
from .._linked import inner
from ..rows import logsumexp_row, norm_row, scan_line
from . import _par

# no_cfunc_wrapper: nothing takes these as first-class function values, and the C wrapper
# costs ~10 ms of compile time per function; helpers only called from compiled code are
# compiled only inside their callers (``_inner``: kernels/_linked.py)
_opts = dict(nogil=True, error_model="numpy", cache=_config.CACHE, no_cfunc_wrapper=True)
_inner = inner(_opts)
_CHUNK = 4096
# a plain int64 0 for calls between compiled functions: a literal 0 argument would make
# Numba compile a separate Literal[int](0) specialization of the callee
_I0 = np.int64(0)


_BLOCK = 256


@njit(fastmath={"reassoc"}, **_inner)
def _block_sum(v, bz):
    # within a short block the input's own type is accurate enough, and reassociation lets
    # LLVM vectorize; blocks then add up in float64 (int64 for integers). ``v`` is a 1-d
    # slice: indexing ``x[a, r]`` from a runtime start kept the loop scalar (2x slower)
    s = bz
    for r in range(v.size):
        s += v[r]
    return s


@njit(**_inner)
def _sum_row(x, a, lo, hi, zero, bz):
    t = zero
    r = lo
    while r < hi:
        e = min(hi, r + _BLOCK)
        t += _block_sum(x[a, r:e], bz)
        r = e
    return t


@njit(**_opts)
def _sum_rows(x, out, zero, bz):
    for a in range(x.shape[0]):
        out[a] = _sum_row(x, a, _I0, x.shape[1], zero, bz)


@njit(parallel=True, **_opts)
def _sum_rows_p(x, out, zero, bz):
    A, R = x.shape
    if A == 1:
        n = (R + _CHUNK - 1) // _CHUNK
        part = np.full(n, zero)
        for c in prange(n):
            part[c] = _sum_row(x, _I0, c * _CHUNK, min(R, (c + 1) * _CHUNK), zero, bz)
        out[0] = part.sum()
    else:
        for a in prange(A):
            out[a] = _sum_row(x, a, _I0, R, zero, bz)


@njit(inline="always", **_inner)
def sum_blocks(x, zero, bz):
    """All of 1-d contiguous ``x`` in _sum_rows' order (the same result): blocks summed in
    ``x``'s type (``bz`` its 0), added up from ``zero`` (float64 0, or int64)."""
    t = zero
    r = 0
    n = x.size
    while r < n:
        e = min(n, r + _BLOCK)
        t += _block_sum(x[r:e], bz)
        r = e
    return t


@njit(**_opts)
def _sum_flat(x, out, zero, bz):
    # all of 1-d contiguous ``x`` into 0-d ``out``
    out[()] = sum_blocks(x, zero, bz)


def sum_flat_entry(np_dtype):
    """``f(x, out, zero, bz)``: the sum of a small 1-d C-contiguous float array ``x`` into
    0-d ``out`` (``zero`` float64 0, ``bz`` 0 of ``x``'s dtype), compiled for ``np_dtype``
    and returned as its bare entry point: a call skips Numba's argument typing."""
    from numba import from_dtype, types

    s = from_dtype(np.dtype(np_dtype))
    sig = (types.Array(s, 1, "C"), types.Array(s, 0, "C"), types.float64, s)
    return _sum_flat.compile(sig) if hasattr(_sum_flat, "compile") else _sum_flat


@njit(inline="always", **_inner)
def _add_rows(x, a, lo, hi, acc):
    # acc[:] += x[a, r, lo:hi] for every r: 1-d slices indexed from 0, so the loop
    # vectorizes (indexing x[a, r, b] from runtime a and lo kept it scalar). Four rows are
    # added to each acc[j] in one load and store, in the same order as one at a time: acc's
    # loads and stores, not x's reads, bounded the one-row loop (a 512x512 float32 column
    # sum 25 -> 17 µs on one core)
    R = x.shape[1]
    r = 0
    while r + 4 <= R:
        v0, v1 = x[a, r, lo:hi], x[a, r + 1, lo:hi]
        v2, v3 = x[a, r + 2, lo:hi], x[a, r + 3, lo:hi]
        for j in range(v0.size):
            acc[j] = (((acc[j] + v0[j]) + v1[j]) + v2[j]) + v3[j]
        r += 4
    for r in range(r, R):
        v = x[a, r, lo:hi]
        for j in range(v.size):
            acc[j] += v[j]


@njit(**_opts)
def _sum_arb(x, out, acc):
    # acc: (B,) float64 / int64 scratch from the caller (an allocation here would compile
    # Numba's np.full, ~0.1 s more on a cold start). A row at a time, in _add_rows' order
    # (the same result): the serial variant runs below PARALLEL_MIN elements, where
    # _add_rows' four-row loop saved ~0.2 µs of a 64x128 column sum but cost ~0.2 s of
    # compiling (a cold start's bias gradient)
    A, R, B = x.shape
    for a in range(A):
        for b in range(B):
            acc[b] = 0
        for r in range(R):
            v = x[a, r]
            for b in range(B):
                acc[b] += v[b]
        o = out[a]
        for b in range(B):
            o[b] = acc[b]


@njit(parallel=True, **_opts)
def _sum_arb_p(x, out, zero, threads):
    # tasks: (a, a block of columns), at least one block per thread when A is small
    # (``threads`` from the caller: Numba's get_num_threads here reads a ctypes pointer,
    # which keeps a kernel out of the on-disk cache)
    A, R, B = x.shape
    nb = max(1, min((B + 63) // 64, (threads + A - 1) // A))
    w = (B + nb - 1) // nb
    for t in prange(A * nb):
        a, c = t // nb, t % nb
        lo, hi = c * w, min(B, (c + 1) * w)
        if lo < hi:
            acc = np.full(hi - lo, zero)
            _add_rows(x, a, lo, hi, acc)
            o = out[a, lo:hi]
            for j in range(o.size):
                o[j] = acc[j]


@njit(**_opts)
def _amax_arb(x, out):
    A, R, B = x.shape
    for a in range(A):
        for b in range(B):
            out[a, b] = x[a, 0, b]
        for r in range(1, R):
            for b in range(B):
                v = x[a, r, b]
                m = out[a, b]
                if v > m or v != v:
                    if m == m:
                        out[a, b] = v


@njit(parallel=True, **_opts)
def _amax_arb_p(x, out):
    A, R, B = x.shape
    for t in prange(A * B):
        a, b = t // B, t % B
        m = x[a, 0, b]
        for r in range(1, R):
            v = x[a, r, b]
            if (v > m or v != v) and m == m:
                m = v
        out[a, b] = m


@njit(**_opts)
def _amin_arb(x, out):
    A, R, B = x.shape
    for a in range(A):
        for b in range(B):
            out[a, b] = x[a, 0, b]
        for r in range(1, R):
            for b in range(B):
                v = x[a, r, b]
                m = out[a, b]
                if v < m or v != v:
                    if m == m:
                        out[a, b] = v


@njit(parallel=True, **_opts)
def _amin_arb_p(x, out):
    A, R, B = x.shape
    for t in prange(A * B):
        a, b = t // B, t % B
        m = x[a, 0, b]
        for r in range(1, R):
            v = x[a, r, b]
            if (v < m or v != v) and m == m:
                m = v
        out[a, b] = m


@njit(**_opts)
def _argmax_arb(x, out, idx):
    # first index of the largest value; a nan wins at its first position
    A, R, B = x.shape
    for a in range(A):
        for b in range(B):
            m = x[a, 0, b]
            k = 0
            for r in range(1, R):
                v = x[a, r, b]
                if m == m and (v > m or v != v):
                    m = v
                    k = r
            out[a, b] = m
            idx[a, b] = k


@njit(**_opts)
def _argmin_arb(x, out, idx):
    A, R, B = x.shape
    for a in range(A):
        for b in range(B):
            m = x[a, 0, b]
            k = 0
            for r in range(1, R):
                v = x[a, r, b]
                if m == m and (v < m or v != v):
                    m = v
                    k = r
            out[a, b] = m
            idx[a, b] = k


def sum_arb(x, out):
    """``out[a, b] = sum_r x[a, r, b]``; ``out`` is ``(A, B)``. Floats accumulate in
    float64, integers in int64."""
    zero = np.float64(0.0) if x.dtype.kind == "f" else np.int64(0)
    if x.shape[2] == 1 and x.flags.c_contiguous:
        bz = x.dtype.type(0) if x.dtype.kind == "f" else zero
        _par.run(_sum_rows, _sum_rows_p, x.size, x.reshape(x.shape[0], x.shape[1]),
                 out.reshape(-1), zero, bz)
        return
    if x.size < _par.PARALLEL_MIN:
        _sum_arb(x, out, np.empty(x.shape[2], zero.dtype))
    else:
        _par.run(_sum_arb_scratch, _sum_arb_p, x.size, x, out, zero, _par.threads())


def _sum_arb_scratch(x, out, zero, threads):
    # the serial kernel where _par.run falls back from the parallel one
    _sum_arb(x, out, np.empty(x.shape[2], zero.dtype))


def amax_arb(x, out):
    """``out[a, b] = max_r x[a, r, b]``, nan-propagating."""
    _par.run(_amax_arb, _amax_arb_p, x.size, x, out)


def amin_arb(x, out):
    """``out[a, b] = min_r x[a, r, b]``, nan-propagating."""
    _par.run(_amin_arb, _amin_arb_p, x.size, x, out)


def argmax_arb(x, out, idx):
    """Max values and their first indices along the middle axis."""
    _argmax_arb(x, out, idx)


def argmin_arb(x, out, idx):
    """Min values and their first indices along the middle axis."""
    _argmin_arb(x, out, idx)


# ----- variance, product, logsumexp, norm ------------------------------------------------
def _make_more(parallel):
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
        A, R, B = x.shape
        for t in rng(A * B):
            a, b = t // B, t % B
            out[a, b] = logsumexp_row(x, a, b, R)

    @njit(parallel=parallel, **_opts)
    def norm(x, out, kind, p):
        A, R, B = x.shape
        for t in rng(A * B):
            a, b = t // B, t % B
            out[a, b] = norm_row(x, a, b, R, kind, p)

    @njit(parallel=parallel, **_opts)
    def scan(x, out, start, mul):
        A, R, B = x.shape
        for t in rng(A * B):
            a, b = t // B, t % B
            scan_line(x, out, a, b, R, start, mul)

    return var, prod, logsumexp, norm, scan


_var, _prod, _lse, _norm, _scan = _make_more(False)
_var_p, _prod_p, _lse_p, _norm_p, _scan_p = _make_more(True)


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


def scan_arb(x, out, mul):
    """``out[a, :, b]``: the running sums of ``x[a, :, b]`` (products for ``mul``; ``out``
    shaped as ``x``; floats accumulate in float64, integers in int64)."""
    start = (np.float64 if x.dtype.kind == "f" else np.int64)(1 if mul else 0)
    _par.run(_scan, _scan_p, x.size, x, out, start, bool(mul))


def norm_arb(x, out, kind, p):
    """Vector norm of each ``x[a, :, b]``; ``kind`` is one of the ``rows.NORM_*`` codes and
    ``p`` the exponent for ``NORM_P``."""
    _par.run(_norm, _norm_p, x.size, x, out, np.int64(kind), np.float64(p))
