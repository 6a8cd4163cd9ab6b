"""Fractional max pooling's window search: for each plane and output position, the
maximum of a ``kt x kh x kw`` window at the given starts (first of equal maxima in
(t, h, w) order; a NaN wins) and its flat position in the plane."""

import math

from numba import njit, prange

from ... import _config


@njit(parallel=True, nogil=True, cache=_config.CACHE)
def fractional_max_pool(x, st, sh, sw, D, H, W, kt, kh, kw, out, idx):
    """``x`` (P, D*H*W); ``st`` / ``sh`` / ``sw`` (P, o*) window starts; ``out`` / ``idx``
    (P, oT*oH*oW)."""
    P = x.shape[0]
    ot, oh, ow = st.shape[1], sh.shape[1], sw.shape[1]
    for p in prange(P):
        for a in range(ot):
            t0 = st[p, a]
            for b in range(oh):
                h0 = sh[p, b]
                for c in range(ow):
                    w0 = sw[p, c]
                    best = -math.inf
                    where = (t0 * H + h0) * W + w0
                    for t in range(t0, t0 + kt):
                        for h in range(h0, h0 + kh):
                            for w in range(w0, w0 + kw):
                                i = (t * H + h) * W + w
                                v = x[p, i]
                                if v > best or math.isnan(v):
                                    best = v
                                    where = i
                    o = (a * oh + b) * ow + c
                    out[p, o] = best
                    idx[p, o] = where
