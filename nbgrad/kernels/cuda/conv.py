"""conv2d and max_pool2d kernels on the device; same layouts and contract as
kernels/cpu/conv.py (C-contiguous images ``(N, C, H, W)``, columns ``(N, C*kh*kw, Ho*Wo)``
in PyTorch's ``unfold`` row order, pooling planes ``(P, H, W)`` with flat argmax indices).

im2col writes one column entry per thread. col2im is written as a gather (one thread per
pixel, summing the column entries that read it, in the CPU's tap order), so it needs no
atomics and matches the CPU bit for bit. max_pool2d runs one thread per window; its
backward scatters through ``index.spread``'s rule: one thread per plane (in order, as the
CPU) when there are enough planes, else one thread per gradient entry with atomic adds.
"""

import numba
import numpy as np
from numba import cuda

from .. import rows as _rows
from . import index as _ix
from ._launch import device_fn, grid
from ._view import view


@cuda.jit
def _im2col(x, cols, kh, kw, sh, sw, ph, pw, dh, dw, Ho, Wo):
    N, C, H, W = x.shape
    _, CK, L = cols.shape
    n_all = N * CK * L
    t = cuda.grid(1)
    s = cuda.gridsize(1)
    while t < n_all:
        col = t % L
        r = t // L
        row = r % CK
        n = r // CK
        j = row % kw
        r2 = row // kw
        i = r2 % kh
        c = r2 // kh
        ih = (col // Wo) * sh - ph + i * dh
        iw = (col % Wo) * sw - pw + j * dw
        if ih >= 0 and ih < H and iw >= 0 and iw < W:
            cols[n, row, col] = x[n, c, ih, iw]
        else:
            cols[n, row, col] = 0
        t += s


def _col2im_kernel(acc_t):
    @cuda.jit
    def k(cols, x, kh, kw, sh, sw, ph, pw, dh, dw, Ho, Wo):
        N, C, H, W = x.shape
        n_all = N * C * H * W
        t = cuda.grid(1)
        s = cuda.gridsize(1)
        while t < n_all:
            w = t % W
            r = t // W
            h = r % H
            r = r // H
            c = r % C
            n = r // C
            acc = acc_t(0)
            for i in range(kh):
                th = h + ph - i * dh
                if th < 0 or th % sh != 0:
                    continue
                oh = th // sh
                if oh >= Ho:
                    continue
                for j in range(kw):
                    tw = w + pw - j * dw
                    if tw < 0 or tw % sw != 0:
                        continue
                    ow = tw // sw
                    if ow >= Wo:
                        continue
                    acc += cols[n, (c * kh + i) * kw + j, oh * Wo + ow]
            x[n, c, h, w] = acc
            t += s

    return k


@cuda.jit
def _bias_add(out, b):
    N, O, L = out.shape
    n_all = N * O * L
    t = cuda.grid(1)
    s = cuda.gridsize(1)
    while t < n_all:
        k = t % L
        r = t // L
        o = r % O
        out[r // O, o, k] += b[o]
        t += s


_pool_window = device_fn(_rows.max_pool_window)
_pool_bwd_plane = device_fn(_rows.max_pool_bwd_plane)
_pool_gather_elem = device_fn(_rows.max_pool_gather_elem)


@cuda.jit
def _max_pool(x, out, idx, kh, kw, sh, sw, ph, pw, dh, dw, lowest):
    P, Ho, Wo = out.shape
    n_all = P * Ho * Wo
    t = cuda.grid(1)
    s = cuda.gridsize(1)
    while t < n_all:
        ow = t % Wo
        r = t // Wo
        oh = r % Ho
        p = r // Ho
        m, mi = _pool_window(x, p, oh, ow, kh, kw, sh, sw, ph, pw, dh, dw, lowest)
        out[p, oh, ow] = m
        idx[p, oh, ow] = mi
        t += s


@cuda.jit
def _pool_bwd_lanes(g, idx, out):
    p = cuda.grid(1)
    s = cuda.gridsize(1)
    while p < out.shape[0]:
        _pool_bwd_plane(g, idx, out, p)
        p += s


@cuda.jit
def _zero2(out):
    P, HW = out.shape
    t = cuda.grid(1)
    s = cuda.gridsize(1)
    while t < P * HW:
        out[t // HW, t % HW] = 0
        t += s


@cuda.jit
def _pool_bwd_spread(g, idx, out):
    P, HW = out.shape
    L = g.shape[1]
    t = cuda.grid(1)
    s = cuda.gridsize(1)
    while t < P * L:
        p = t // L
        k = t % L
        i = idx[p, k]
        if i >= 0 and i < HW:
            cuda.atomic.add(out, (p, i), g[p, k])
        t += s


@cuda.jit
def _pool_gather(x, idx, out):
    P, L = out.shape
    t = cuda.grid(1)
    s = cuda.gridsize(1)
    while t < P * L:
        p = t // L
        k = t % L
        out[p, k] = _pool_gather_elem(x, p, idx[p, k])
        t += s


_cache = {}


def im2col(x, cols, kh, kw, sh, sw, ph, pw, dh, dw, Ho, Wo):
    """Columns ``cols`` (N, C*kh*kw, Ho*Wo) of image ``x`` (N, C, H, W); zeros in the padding."""
    if cols.size:
        _im2col[grid(cols.size)](x, cols, kh, kw, sh, sw, ph, pw, dh, dw, Ho, Wo)


def col2im(cols, x, kh, kw, sh, sw, ph, pw, dh, dw, Ho, Wo):
    """The adjoint of im2col: ``x`` (N, C, H, W) = the columns summed back onto their pixels."""
    if not x.size:
        return
    dt = np.dtype(x.dtype)
    k = _cache.get(dt)
    if k is None:
        k = _cache[dt] = _col2im_kernel(numba.from_dtype(dt))
    k[grid(x.size)](cols, x, kh, kw, sh, sw, ph, pw, dh, dw, Ho, Wo)


def bias_add(out, b):
    """``out[n, o, :] += b[o]`` for ``out`` (N, O, L)."""
    if out.size:
        _bias_add[grid(out.size)](out, b)


def conv_mm(a, b, out):
    """``out[n, g] = a[g] @ b[n, g]`` for ``a`` (G, O, K), ``b`` (N, G, K, L), ``out``
    (N, G, O, L). The tiled product sums each output's products in k order at every
    position, as the CPU's conv_mm must."""
    from .linalg import matmul

    if out.size:
        matmul(a, b, out)


def conv2d_forward(x, a, out, kh, kw, sh, sw, ph, pw, dh, dw, Ho, Wo):
    """conv2d without its bias: ``out`` (N, G*Og, Ho*Wo) = ``conv_mm(a, im2col(x))`` for
    the image ``x`` (N, C, H, W) and the weights ``a`` (G, Og, C/G*kh*kw)."""
    N, C = x.shape[0], x.shape[1]
    G, Og, Kg = a.shape
    L = Ho * Wo
    cols = cuda.device_array((N, C * kh * kw, L), out.dtype)
    im2col(x, cols, kh, kw, sh, sw, ph, pw, dh, dw, Ho, Wo)
    conv_mm(a, cols.reshape(N, G, Kg, L), out.reshape(N, G, Og, L))


def conv2d_weight_grad(x, g, gw, kh, kw, sh, sw, ph, pw, dh, dw, Ho, Wo):
    """conv2d's weight gradient per image: ``gw[n, gr]`` (N, G, Og, Kg) = ``g[n, gr] @
    im2col(x[n])[gr].T`` for the image ``x`` (N, C, H, W) and the output gradient ``g`` (N,
    G, Og, Ho*Wo); the caller sums over n. One batched product over images and groups
    (cuBLAS reads the columns' transpose in place)."""
    from .linalg import matmul

    N, C = x.shape[0], x.shape[1]
    G, Kg, L = gw.shape[1], gw.shape[3], g.shape[3]
    cols = cuda.device_array((N, C * kh * kw, L), gw.dtype)
    im2col(x, cols, kh, kw, sh, sw, ph, pw, dh, dw, Ho, Wo)
    if gw.size:
        c4 = cols.reshape(N, G, Kg, L)
        s = c4.strides
        matmul(g, view(c4, (N, G, L, Kg), (s[0], s[1], s[3], s[2])), gw)


def conv2d_input_grad(a, g, x, kh, kw, sh, sw, ph, pw, dh, dw, Ho, Wo):
    """conv2d's input gradient ``x`` (N, C, H, W) = ``col2im(conv_mm(a, g))`` for the
    transposed weights ``a`` (G, C/G*kh*kw, O/G) and the output gradient ``g`` (N, G, O/G,
    Ho*Wo), through a whole columns array."""
    N, G, _, L = g.shape
    cols = cuda.device_array((N, G, a.shape[1], L), x.dtype)
    conv_mm(a, g, cols)
    col2im(cols.reshape(N, G * a.shape[1], L), x, kh, kw, sh, sw, ph, pw, dh, dw, Ho, Wo)


def max_pool2d(x, out, idx, kh, kw, sh, sw, ph, pw, dh, dw, lowest):
    """Max over each window of planes ``x`` (P, H, W) into ``out`` and flat argmax ``idx``."""
    if out.size:
        _max_pool[grid(out.size)](x, out, idx, kh, kw, sh, sw, ph, pw, dh, dw, lowest)


def max_pool2d_backward(g, idx, out):
    """``out`` (P, H*W): zeros with ``g`` (P, L) added at the flat positions ``idx``."""
    if not out.size:
        return
    P = out.shape[0]
    if _ix.spread(P, g.shape[1], out.dtype):
        _zero2[grid(out.size)](out)
        _pool_bwd_spread[grid(g.size)](g, idx, out)
    else:
        _pool_bwd_lanes[grid(P)](g, idx, out)


def max_pool2d_gather(x, idx, out):
    """``out[p, k] = x[p, idx[p, k]]`` for ``x`` (P, H*W) and ``out``/``idx`` (P, L)."""
    if out.size:
        _pool_gather[grid(out.size)](x, idx, out)
