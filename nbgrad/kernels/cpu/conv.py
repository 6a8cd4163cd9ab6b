"""Kernels for conv2d and max_pool2d.

conv2d runs as im2col + ``conv_mm`` (both here); its backward uses col2im, the adjoint of
im2col, and conv_mm again for the input's gradient. With an image for every thread, the
conv2d kernels (``conv2d_forward``, ``conv2d_input_grad``, ``conv2d_weight_grad``) run image
by image, each image's columns in a buffer of its thread's own, still in cache when they
are used (the MNIST CNN's second convolution has 42 MB of columns: writing them out and
reading them back cost more than the products' time on them); the values are those of the
whole-array path, which they take when there are fewer images than threads. conv_mm is a matrix product that sums
each output position's products in one fixed order (k = 0, 1, ..., K-1, fused
multiply-adds where the CPU has them) whatever the position: BLAS does not (its register
blocks and edge kernels round positions differently), which breaks exact ties that
max-pooling over a constant background sees in PyTorch. For float32/float64 it runs as
register tiles (``conv_gemm.py``), every tile, partial ones included, summing the same way;
integers take the plain loop. max_pool2d computes values and argmax indices in one
pass; its backward scatters the gradient to the argmax positions, and that scatter's own
backward gathers from them.

Layouts: images are C-contiguous ``(N, C, H, W)``; columns are ``(N, C*kh*kw, Ho*Wo)``
with row ``(c*kh + i)*kw + j`` for channel ``c`` and kernel tap ``(i, j)`` (PyTorch's
``unfold`` order). Padding is given as (top, left); the output size ``(Ho, Wo)`` implies
the bottom and right padding, so asymmetric ("same") padding needs nothing more.
Pooling works on ``(P, H, W)`` planes (P = N*C) and flat per-plane indices ``ih*W + iw``
as PyTorch returns them.
"""

import numpy as np
from numba import njit, prange

from ... import _config
from .. import rows
from . import _par
from . import blas as _blas
from .conv_gemm import _GEMM, _gemm_image, _gemm_setup

# (no_cfunc_wrapper: see reduce.py)
_opts = dict(nogil=True, error_model="numpy", cache=_config.CACHE, no_cfunc_wrapper=True)
# conv_mm: "contract" lets LLVM fuse a*b + c into one FMA, in the vector body and its scalar
# tail alike (reassociation stays off: that is what keeps the order fixed)
_mm_opts = dict(_opts, fastmath={"contract"})
# conv_mm blocking: LB positions (one vector loop over them per step), KB products per
# pass over a block of output rows (so the LB x KB slice of the columns stays in cache)
_LB = 128
_KB = 32
@njit(inline="always")
def _valid_range(off, step, size, n_out):
    # the out positions o in [0, n_out) with 0 <= o*step + off < size
    lo = 0 if off >= 0 else (-off + step - 1) // step
    last = size - 1 - off
    hi = last // step + 1 if last >= 0 else 0
    if lo > n_out:
        lo = n_out
    if hi > n_out:
        hi = n_out
    if hi < lo:
        hi = lo
    return lo, hi


def _make_input_grad(parallel):
    rng = prange if parallel else range

    @njit(parallel=parallel, **_opts)
    def input_grad(a, g, x, kh, kw, sh, sw, ph, pw, dh, dw, Ho, Wo):
        # x[n] = col2im(a[gr] @ g[n, gr] over the groups gr) image by image: a (G, Kg, Og)
        # any strides, g (N, G, Og, L), x (N, C, H, W) C-contiguous, floats. Image n's
        # columns go to a buffer of the thread's own, still in cache when col2im reads
        # them, not to one (N, C*kh*kw, L) array in memory; each tile is _GEMM's
        N, G, Og, L = g.shape
        Kg = a.shape[1]
        C, H, W = x.shape[1], x.shape[2], x.shape[3]
        ap, NR, KC, nch = _gemm_setup(a, L)
        gf = g.reshape(-1)
        xf = x.reshape(-1)
        gsz = G * Og * L
        xsz = C * H * W
        for n in rng(N):
            cols = np.empty(G * Kg * L, a.dtype)
            _gemm_image(ap, gf[n * gsz:(n + 1) * gsz], cols, Og, L, Kg, G, nch, KC, NR)
            xn = xf[n * xsz:(n + 1) * xsz]
            for c in range(C):
                _col2im_plane(cols, xn, c, H, W, kh, kw, sh, sw, ph, pw, dh, dw, Ho, Wo)

    return input_grad


_INPUT_GRAD = (_make_input_grad(False), _make_input_grad(True))


def _make_forward(parallel):
    rng = prange if parallel else range

    @njit(parallel=parallel, **_opts)
    def forward(x, a, out, kh, kw, sh, sw, ph, pw, dh, dw, Ho, Wo):
        # out[n] = a[gr] @ im2col(x[n])[gr] over the groups gr, image by image: x (N, C, H,
        # W) and out (N, G*Og, Ho*Wo) C-contiguous, a (G, Og, Kg) any strides, floats. Image
        # n's columns are made in a buffer of the thread's own and multiplied while still
        # in cache; each tile is _GEMM's
        N, C, H, W = x.shape
        G, Og, Kg = a.shape
        L = Ho * Wo
        ap, NR, KC, nch = _gemm_setup(a, L)
        xf = x.reshape(-1)
        of = out.reshape(-1)
        xsz = C * H * W
        osz = G * Og * L
        for n in rng(N):
            cols = np.empty(G * Kg * L, a.dtype)
            xn = xf[n * xsz:(n + 1) * xsz]
            for c in range(C):
                _im2col_plane(xn, cols, c, H, W, kh, kw, sh, sw, ph, pw, dh, dw, Ho, Wo)
            _gemm_image(ap, cols, of[n * osz:(n + 1) * osz], Kg, L, Og, G, nch, KC, NR)

    return forward


_FORWARD = (_make_forward(False), _make_forward(True))


def _make_weight_grad(parallel):
    rng = prange if parallel else range

    @njit(parallel=parallel, **_opts)
    def weight_grad(x, g, gw, kh, kw, sh, sw, ph, pw, dh, dw, Ho, Wo):
        # gw[n, gr] = g[n, gr] @ im2col(x[n])[gr].T image by image, each a single-threaded
        # BLAS call on the image's columns made in a buffer of the thread's own: x (N, C,
        # H, W), g (N, G, Og, L), gw (N, G, Og, Kg), C-contiguous floats
        N, C, H, W = x.shape
        G, Og, Kg = g.shape[1], g.shape[2], gw.shape[3]
        L = Ho * Wo
        it = x.itemsize
        xf = x.reshape(-1)
        xsz = C * H * W
        for n in rng(N):
            cols = np.empty(G * Kg * L, x.dtype)
            xn = xf[n * xsz:(n + 1) * xsz]
            for c in range(C):
                _im2col_plane(xn, cols, c, H, W, kh, kw, sh, sw, ph, pw, dh, dw, Ho, Wo)
            _blas._set_local(1)  # left so: see blas.on_pool
            for gr in range(G):
                pa = g.ctypes.data + ((n * G + gr) * Og * L) * it
                pb = cols.ctypes.data + gr * Kg * L * it
                po = gw.ctypes.data + ((n * G + gr) * Og * Kg) * it
                _blas.gemm_call(it == 4, _blas._NOTRANS, _blas._TRANS, Og, Kg, L, pa, L, pb, L,
                                po, Kg)

    return weight_grad


_WEIGHT_GRAD = ((_make_weight_grad(False), _make_weight_grad(True)) if _blas.AVAILABLE
                else None)


# Speed notes (measured) for both plane bodies: the innermost loops run over slice views
# indexed from 0, so Numba knows the index is not negative, drops its wraparound check and
# vectorizes the copy; and the loop bodies hold no branches (the valid ranges are computed
# up front, padded blocks are zeroed in a separate pass): either change alone made it 3-5x
# slower.
@njit(inline="always", **_opts)
def _im2col_plane(xf, cf, t, H, W, kh, kw, sh, sw, ph, pw, dh, dw, Ho, Wo):
    # the kh*kw rows of the flat columns cf (from ((t*kh + i)*kw + j)*Ho*Wo on) read from
    # plane t of the flat image xf (t*H*W on); zeros where a window sees padding
    L = Ho * Wo
    xp = t * H * W
    for i in range(kh):
        off_h = i * dh - ph
        hlo, hhi = _valid_range(off_h, sh, H, Ho)
        for j in range(kw):
            rb = ((t * kh + i) * kw + j) * L
            off_w = j * dw - pw
            lo, hi = _valid_range(off_w, sw, W, Wo)
            n = hi - lo
            if lo > 0 or hi < Wo or hlo > 0 or hhi < Ho:
                z = cf[rb:rb + L]
                for k in range(L):
                    z[k] = 0
            if n <= 0:
                continue
            if sw == 1:
                for oh in range(hlo, hhi):
                    cb = rb + oh * Wo + lo
                    xb = xp + (oh * sh + off_h) * W + off_w + lo
                    dst = cf[cb:cb + n]
                    src = xf[xb:xb + n]
                    for k in range(n):
                        dst[k] = src[k]
            else:
                for oh in range(hlo, hhi):
                    cb = rb + oh * Wo + lo
                    xb = xp + (oh * sh + off_h) * W + off_w + lo * sw
                    dst = cf[cb:cb + n]
                    src = xf[xb:xb + (n - 1) * sw + 1]
                    for k in range(n):
                        dst[k] = src[k * sw]


@njit(inline="always", **_opts)
def _col2im_plane(cf, xf, t, H, W, kh, kw, sh, sw, ph, pw, dh, dw, Ho, Wo):
    # plane t of the flat image xf (t*H*W on) = the sum of its kh*kw rows of the flat
    # columns cf (from ((t*kh + i)*kw + j)*Ho*Wo on) put back on the pixels they were read from
    L = Ho * Wo
    HW = H * W
    xp = t * HW
    plane = xf[xp:xp + HW]
    for k in range(HW):
        plane[k] = 0
    for i in range(kh):
        off_h = i * dh - ph
        hlo, hhi = _valid_range(off_h, sh, H, Ho)
        for j in range(kw):
            rb = ((t * kh + i) * kw + j) * L
            off_w = j * dw - pw
            lo, hi = _valid_range(off_w, sw, W, Wo)
            n = hi - lo
            if n <= 0:
                continue
            if sw == 1:
                for oh in range(hlo, hhi):
                    cb = rb + oh * Wo + lo
                    xb = xp + (oh * sh + off_h) * W + off_w + lo
                    src = cf[cb:cb + n]
                    dst = xf[xb:xb + n]
                    for k in range(n):
                        dst[k] += src[k]
            else:
                for oh in range(hlo, hhi):
                    cb = rb + oh * Wo + lo
                    xb = xp + (oh * sh + off_h) * W + off_w + lo * sw
                    src = cf[cb:cb + n]
                    dst = xf[xb:xb + (n - 1) * sw + 1]
                    for k in range(n):
                        dst[k * sw] += src[k]


def _make(parallel):
    rng = prange if parallel else range

    @njit(parallel=parallel, **_opts)
    def im2col(x, cols, kh, kw, sh, sw, ph, pw, dh, dw, Ho, Wo):
        N, C, H, W = x.shape
        xf = x.reshape(-1)
        cf = cols.reshape(-1)
        for t in rng(N * C):
            _im2col_plane(xf, cf, t, H, W, kh, kw, sh, sw, ph, pw, dh, dw, Ho, Wo)

    @njit(parallel=parallel, **_opts)
    def col2im(cols, x, kh, kw, sh, sw, ph, pw, dh, dw, Ho, Wo):
        # x = sum of the column entries that im2col read from each pixel (x is overwritten);
        # each plane t is written only from its own rows, so planes run in parallel
        N, C, H, W = x.shape
        xf = x.reshape(-1)
        cf = cols.reshape(-1)
        for t in rng(N * C):
            _col2im_plane(cf, xf, t, H, W, kh, kw, sh, sw, ph, pw, dh, dw, Ho, Wo)

    @njit(parallel=parallel, **_opts)
    def bias_add(out, b):
        # out (N, O, L) += b[o]
        N, O, L = out.shape
        for t in rng(N * O):
            o = t % O
            v = b[o]
            n = t // O
            for k in range(L):
                out[n, o, k] += v

    # pooling: the loops spread planes over threads; a window's, a plane's or an entry's
    # work is rows.py's (shared with CUDA)
    @njit(parallel=parallel, **_opts)
    def max_pool(x, out, idx, kh, kw, sh, sw, ph, pw, dh, dw, lowest):
        P, Ho, Wo = out.shape
        for p in rng(P):
            for oh in range(Ho):
                for ow in range(Wo):
                    m, mi = rows.max_pool_window(x, p, oh, ow, kh, kw, sh, sw, ph, pw, dh, dw,
                                                 lowest)
                    out[p, oh, ow] = m
                    idx[p, oh, ow] = mi

    @njit(parallel=parallel, **_opts)
    def max_pool_bwd(g, idx, out):
        # out (P, H*W) = scatter-add of g (P, L) at idx (P, L)
        for p in rng(out.shape[0]):
            rows.max_pool_bwd_plane(g, idx, out, p)

    @njit(parallel=parallel, **_opts)
    def max_pool_gather(x, idx, out):
        # out (P, L) = x (P, H*W) read at idx (P, L)
        P, L = out.shape
        for p in rng(P):
            for k in range(L):
                out[p, k] = rows.max_pool_gather_elem(x, p, idx[p, k])

    # Speed notes (measured): keeping the column of partial sums in memory and the loop over
    # positions innermost lets LLVM vectorize over positions, which never reorders a sum;
    # four output rows x four products per pass make it 1 store per 4 FMAs (near BLAS).
    @njit(parallel=parallel, **_mm_opts)
    def conv_mm(a, b, out):
        # out[n, g] = a[g] @ b[n, g]: a (G, O, K) any strides, b (N, G, K, L), out (N, G, O, L)
        # C-contiguous; each out[n, g, o, l] = (((0 + a0*b0) + a1*b1) + ...) in k order
        N, G, K, L = b.shape
        O = a.shape[1]
        at = np.empty((G, K, O), a.dtype)  # a transposed: the four weights of a step adjacent
        for g in range(G):
            for k in range(K):
                for o in range(O):
                    at[g, k, o] = a[g, o, k]
        bf = b.reshape(-1)
        of = out.reshape(-1)
        nch = (L + _LB - 1) // _LB
        for t in rng(N * G * nch):
            ng = t // nch
            g = ng % G
            l0 = (t % nch) * _LB
            lb = min(_LB, L - l0)
            bp = ng * K * L + l0  # b[n, g, k, l0] at bp + k*L
            op = ng * O * L + l0  # out[n, g, o, l0] at op + o*L
            for o in range(O):
                r = of[op + o * L:op + o * L + lb]
                for i in range(lb):
                    r[i] = 0
            for k0 in range(0, K, _KB):
                k1 = min(k0 + _KB, K)
                o = 0
                while o + 4 <= O:
                    q = op + o * L
                    r0 = of[q:q + lb]
                    r1 = of[q + L:q + L + lb]
                    r2 = of[q + 2 * L:q + 2 * L + lb]
                    r3 = of[q + 3 * L:q + 3 * L + lb]
                    k = k0
                    while k + 4 <= k1:
                        q = bp + k * L
                        b0 = bf[q:q + lb]
                        b1 = bf[q + L:q + L + lb]
                        b2 = bf[q + 2 * L:q + 2 * L + lb]
                        b3 = bf[q + 3 * L:q + 3 * L + lb]
                        w0 = at[g, k, o:o + 4]
                        w1 = at[g, k + 1, o:o + 4]
                        w2 = at[g, k + 2, o:o + 4]
                        w3 = at[g, k + 3, o:o + 4]
                        w00, w01, w02, w03 = w0[0], w0[1], w0[2], w0[3]
                        w10, w11, w12, w13 = w1[0], w1[1], w1[2], w1[3]
                        w20, w21, w22, w23 = w2[0], w2[1], w2[2], w2[3]
                        w30, w31, w32, w33 = w3[0], w3[1], w3[2], w3[3]
                        for i in range(lb):
                            x0, x1, x2, x3 = b0[i], b1[i], b2[i], b3[i]
                            r0[i] = (((r0[i] + w00 * x0) + w10 * x1) + w20 * x2) + w30 * x3
                            r1[i] = (((r1[i] + w01 * x0) + w11 * x1) + w21 * x2) + w31 * x3
                            r2[i] = (((r2[i] + w02 * x0) + w12 * x1) + w22 * x2) + w32 * x3
                            r3[i] = (((r3[i] + w03 * x0) + w13 * x1) + w23 * x2) + w33 * x3
                        k += 4
                    while k < k1:
                        q = bp + k * L
                        b0 = bf[q:q + lb]
                        w0 = at[g, k, o:o + 4]
                        w00, w01, w02, w03 = w0[0], w0[1], w0[2], w0[3]
                        for i in range(lb):
                            x0 = b0[i]
                            r0[i] += w00 * x0
                            r1[i] += w01 * x0
                            r2[i] += w02 * x0
                            r3[i] += w03 * x0
                        k += 1
                    o += 4
                while o < O:
                    q = op + o * L
                    r0 = of[q:q + lb]
                    for k in range(k0, k1):
                        q = bp + k * L
                        b0 = bf[q:q + lb]
                        w00 = at[g, k, o]
                        for i in range(lb):
                            r0[i] += w00 * b0[i]
                    o += 1

    return im2col, col2im, bias_add, max_pool, max_pool_bwd, max_pool_gather, conv_mm


_S = _make(False)
_P = _make(True)


def im2col(x, cols, kh, kw, sh, sw, ph, pw, dh, dw, Ho, Wo):
    """Columns ``cols`` (N, C*kh*kw, Ho*Wo) of image ``x`` (N, C, H, W); zeros in the padding."""
    _par.run(_S[0], _P[0], cols.size, x, cols, kh, kw, sh, sw, ph, pw, dh, dw, Ho, Wo)


def col2im(cols, x, kh, kw, sh, sw, ph, pw, dh, dw, Ho, Wo):
    """The adjoint of im2col: ``x`` (N, C, H, W) = the columns summed back onto their pixels."""
    _par.run(_S[1], _P[1], cols.size, cols, x, kh, kw, sh, sw, ph, pw, dh, dw, Ho, Wo)


def bias_add(out, b):
    """``out[n, o, :] += b[o]`` for ``out`` (N, O, L)."""
    _par.run(_S[2], _P[2], out.size, out, b)


def max_pool2d(x, out, idx, kh, kw, sh, sw, ph, pw, dh, dw, lowest):
    """Max over each window of planes ``x`` (P, H, W) into ``out`` and flat argmax ``idx``."""
    _par.run(_S[3], _P[3], x.size, x, out, idx, kh, kw, sh, sw, ph, pw, dh, dw, lowest)


def max_pool2d_backward(g, idx, out):
    """``out`` (P, H*W): zeros with ``g`` (P, L) added at the flat positions ``idx``."""
    _par.run(_S[4], _P[4], out.size, g, idx, out)


def conv_mm(a, b, out):
    """``out[n, g] = a[g] @ b[n, g]`` for ``a`` (G, O, K), ``b`` (N, G, K, L), ``out``
    (N, G, O, L), each output's K products summed in order (the same at every position)."""
    dt = out.dtype
    if (dt == np.float32 or dt == np.float64) and a.shape[2] and a.dtype == dt == b.dtype:
        _par.run(_GEMM[0], _GEMM[1], out.size * a.shape[2], a, b, out)
    else:  # integers: the plain loop
        _par.run(_S[6], _P[6], out.size * a.shape[2], a, b, out)


def _by_image(n, k, out, *arrays):
    """Whether a conv2d kernel runs image by image: float arrays of one dtype, products
    to sum (``k``), and at least an image for every thread (``n``)."""
    dt = out.dtype
    return ((dt == np.float32 or dt == np.float64) and k > 0
            and all(a.dtype == dt for a in arrays) and n >= _par.threads())


def conv2d_input_grad(a, g, x, kh, kw, sh, sw, ph, pw, dh, dw, Ho, Wo):
    """conv2d's input gradient ``x`` (N, C, H, W) = ``col2im(conv_mm(a, g))`` for the
    transposed weights ``a`` (G, C/G*kh*kw, O/G) and the output gradient ``g`` (N, G, O/G,
    Ho*Wo): the same values, made image by image when there are images for every thread
    (each image's columns stay in cache), else through a whole columns array."""
    N, G, Og, L = g.shape
    if _by_image(N, Og, x, a, g):
        _par.run(_INPUT_GRAD[0], _INPUT_GRAD[1], x.size * Og, a, g, x, kh, kw, sh, sw, ph, pw,
                 dh, dw, Ho, Wo)
        return
    cols = np.empty((N, G, a.shape[1], L), x.dtype)
    conv_mm(a, g, cols)
    col2im(cols.reshape(N, -1, L), x, kh, kw, sh, sw, ph, pw, dh, dw, Ho, Wo)


def conv2d_forward(x, a, out, kh, kw, sh, sw, ph, pw, dh, dw, Ho, Wo):
    """conv2d without its bias: ``out`` (N, G*Og, Ho*Wo) = ``conv_mm(a, im2col(x))`` for
    the image ``x`` (N, C, H, W) and the weights ``a`` (G, Og, C/G*kh*kw). The same values
    either way: image by image when there are images for every thread (each image's
    columns stay in cache), else through a whole columns array."""
    N, C = x.shape[0], x.shape[1]
    G, Og, Kg = a.shape
    L = Ho * Wo
    if _by_image(N, Kg, out, a, x):
        _par.run(_FORWARD[0], _FORWARD[1], out.size * Kg, x, a, out, kh, kw, sh, sw, ph, pw,
                 dh, dw, Ho, Wo)
        return
    cols = np.empty((N, C * kh * kw, L), out.dtype)
    im2col(x, cols, kh, kw, sh, sw, ph, pw, dh, dw, Ho, Wo)
    conv_mm(a, cols.reshape(N, G, Kg, L), out.reshape(N, G, Og, L))


def conv2d_weight_grad(x, g, gw, kh, kw, sh, sw, ph, pw, dh, dw, Ho, Wo):
    """conv2d's weight gradient per image: ``gw[n, gr]`` (N, G, Og, Kg) = ``g[n, gr] @
    im2col(x[n])[gr].T`` for the image ``x`` (N, C, H, W) and the output gradient ``g`` (N,
    G, Og, Ho*Wo); the caller sums over n. Image by image on BLAS when there is one and
    images for every thread, else through a whole columns array."""
    N, C = x.shape[0], x.shape[1]
    G, L = g.shape[1], g.shape[3]
    if _WEIGHT_GRAD is not None and _by_image(N, L, gw, x, g):
        _blas.on_pool(_par.run, _WEIGHT_GRAD[0], _WEIGHT_GRAD[1], gw.size * L, x, g, gw, kh,
                      kw, sh, sw, ph, pw, dh, dw, Ho, Wo)
        return
    cols = np.empty((N, C * kh * kw, L), gw.dtype)
    im2col(x, cols, kh, kw, sh, sw, ph, pw, dh, dw, Ho, Wo)
    _blas.matmul(g, cols.reshape(N, G, -1, L).transpose(0, 1, 3, 2), gw)


def max_pool2d_gather(x, idx, out):
    """``out[p, k] = x[p, idx[p, k]]`` for ``x`` (P, H*W) and ``out``/``idx`` (P, L)."""
    _par.run(_S[5], _P[5], out.size, x, idx, out)
