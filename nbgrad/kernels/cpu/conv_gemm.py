"""conv2d's register-blocked float GEMM: ``out[n, g] = a[g] @ b[n, g]`` summing each output
position's products in one fixed order (k = 0, 1, ..., K-1, fused multiply-adds where the
CPU has them), tile by tile, partial tiles included (see ``conv.py`` for why the order is
fixed). ``_gemm_tile`` is an LLVM intrinsic: Numba's own loops keep partial sums in memory,
these keep an _MR x _NR tile in registers."""

import numpy as np
from llvmlite import ir
from numba import njit, prange, types
from numba.core import cgutils
from numba.extending import intrinsic

from ... import _config
from . import _target

_opts = dict(nogil=True, error_model="numpy", cache=_config.CACHE, no_cfunc_wrapper=True)
# the register-blocked float GEMM (_gemm_tile): an _MR x _NR tile of the output held in
# registers (_MR rows of _NV vectors of _VBITS bits: 12 accumulators, plus 3 column
# vectors and a broadcast weight, fill AVX2's 16), _KC products per pass (the tile's slice
# of the columns, _KC x _NR, stays in L1 across the rows), _GLB positions per task.
# 512-bit vectors where LLVM may use them (AVX-512): the MNIST CNN's second conv, forward,
# 9.9 -> 5.8-7.7 ms on this project's Xeon (two 512-bit FMA units)
_VBITS = _target.vector_bits()
_MR = 4
_NV = 3
_KC = 256
_GLB = 144  # a multiple of _NR for float32 (24) and float64 (12)


def _lanes(dt):
    return _VBITS // (32 if dt == types.float32 else 64)


@intrinsic
def _gemm_tile(typingctx, a, ao, b, bo, ldb, c, co, ldc, kc, first):
    """``c[co + r*ldc + l] = (first ? 0 : c[...]) + sum_k a[ao + k*_MR + r] * b[bo + k*ldb + l]``
    for r < _MR, l < _NR, k < kc (kc >= 1), one fused multiply-add per k in k order: every
    output of every tile, whatever its place, is summed the same way. The accumulators are
    LLVM vectors in registers, which Numba's own loops cannot express (a vectorized loop
    keeps its partial sums in memory: twice the time)."""
    if not (isinstance(a, types.Array) and a.dtype in (types.float32, types.float64)
            and isinstance(b, types.Array) and b.dtype == a.dtype
            and isinstance(c, types.Array) and c.dtype == a.dtype):
        return None
    vw = _lanes(a.dtype)

    def codegen(context, builder, sig, args):
        a_, ao_, b_, bo_, ldb_, c_, co_, ldc_, kc_, first_ = args
        ap = context.make_array(sig.args[0])(context, builder, a_).data
        bp = context.make_array(sig.args[2])(context, builder, b_).data
        cp = context.make_array(sig.args[5])(context, builder, c_).data
        i64 = ir.IntType(64)
        ints = [builder.sext(v, i64) if v.type.width < 64 else v
                for v in (ao_, bo_, ldb_, co_, ldc_, kc_)]
        ao_, bo_, ldb_, co_, ldc_, kc_ = ints
        fty = ap.type.pointee
        vty = ir.VectorType(fty, vw)
        vpty = vty.as_pointer()
        name = "llvm.fmuladd.v%d%s" % (vw, "f32" if isinstance(fty, ir.FloatType) else "f64")
        fma = cgutils.get_or_insert_function(builder.module, ir.FunctionType(vty, [vty] * 3), name)
        const = lambda v: ir.Constant(i64, v)  # noqa: E731

        def cvec(r, v):  # pointer to c's tile row r, vector v
            off = builder.add(co_, builder.add(builder.mul(ldc_, const(r)), const(v * vw)))
            return builder.bitcast(builder.gep(cp, [off]), vpty)

        fn = builder.function
        load_bb = fn.append_basic_block("tile_load")
        zero_bb = fn.append_basic_block("tile_zero")
        loop_bb = fn.append_basic_block("tile_loop")
        done_bb = fn.append_basic_block("tile_done")
        is_first = first_ if first_.type == ir.IntType(1) else builder.icmp_unsigned(
            "!=", first_, ir.Constant(first_.type, 0))
        builder.cbranch(is_first, zero_bb, load_bb)
        builder.position_at_end(load_bb)
        loaded = [builder.load(cvec(r, v), align=1) for r in range(_MR) for v in range(_NV)]
        builder.branch(loop_bb)
        builder.position_at_end(zero_bb)
        builder.branch(loop_bb)
        builder.position_at_end(loop_bb)
        k = builder.phi(i64)
        k.add_incoming(const(0), load_bb)
        k.add_incoming(const(0), zero_bb)
        accs = []
        for i in range(_MR * _NV):
            ph = builder.phi(vty)
            ph.add_incoming(loaded[i], load_bb)
            ph.add_incoming(ir.Constant(vty, None), zero_bb)
            accs.append(ph)
        brow = builder.add(bo_, builder.mul(k, ldb_))
        bv = [builder.load(builder.bitcast(builder.gep(bp, [builder.add(brow, const(v * vw))]),
                                           vpty), align=1) for v in range(_NV)]
        arow = builder.add(ao_, builder.mul(k, const(_MR)))
        undef = ir.Constant(vty, ir.Undefined)
        splat = ir.Constant(ir.VectorType(ir.IntType(32), vw), [0] * vw)
        new = []
        for r in range(_MR):
            w = builder.load(builder.gep(ap, [builder.add(arow, const(r))]))
            wv = builder.shuffle_vector(
                builder.insert_element(undef, w, ir.Constant(ir.IntType(32), 0)), undef, splat)
            for v in range(_NV):
                new.append(builder.call(fma, [wv, bv[v], accs[r * _NV + v]]))
        k1 = builder.add(k, const(1))
        k.add_incoming(k1, loop_bb)
        for i in range(_MR * _NV):
            accs[i].add_incoming(new[i], loop_bb)
        builder.cbranch(builder.icmp_signed("<", k1, kc_), loop_bb, done_bb)
        builder.position_at_end(done_bb)
        for r in range(_MR):
            for v in range(_NV):
                builder.store(new[r * _NV + v], cvec(r, v), align=1)
        return context.get_dummy_value()

    return types.none(a, ao, b, bo, ldb, c, co, ldc, kc, first), codegen


@njit(**_opts)
def _pack_weights(a, MR):
    # a (G, O, K) as panels of MR rows, k-major within a panel: ap[((g*nob + ob)*K + k)*MR + r]
    # = a[g, ob*MR + r, k], zero rows past O
    G, O, K = a.shape
    nob = (O + MR - 1) // MR
    ap = np.zeros(G * nob * K * MR, a.dtype)
    for g in range(G):
        for o in range(O):
            ob = o // MR
            r = o - ob * MR
            base = (g * nob + ob) * K * MR + r
            for k in range(K):
                ap[base + k * MR] = a[g, o, k]
    return ap


@njit(inline="always", **_opts)
def _gemm_chunk(ap, bf, of, t, K, L, O, G, nch, KC, NR, bpad, ctmp):
    # task t: batch-group ng = t // nch, positions [l0, l1); every tile goes through
    # _gemm_tile (a partial tile through zero-padded copies), so all outputs sum alike
    ng = t // nch
    g = ng % G
    l0 = (t % nch) * _GLB
    l1 = min(l0 + _GLB, L)
    bp = ng * K * L
    op = ng * O * L
    nob = (O + _MR - 1) // _MR
    for k0 in range(0, K, KC):
        kc = min(KC, K - k0)
        first = k0 == 0
        for l in range(l0, l1, NR):
            nl = min(NR, L - l)
            if nl == NR:
                bsrc = bf
                bo = bp + k0 * L + l
                ldb = L
            else:
                for k in range(kc):
                    q = bp + (k0 + k) * L + l
                    for j in range(nl):
                        bpad[k * NR + j] = bf[q + j]
                    for j in range(nl, NR):
                        bpad[k * NR + j] = 0
                bsrc = bpad
                bo = 0
                ldb = NR
            for ob in range(nob):
                o = ob * _MR
                ao = ((g * nob + ob) * K + k0) * _MR
                nr = min(_MR, O - o)
                if nl == NR and nr == _MR:
                    _gemm_tile(ap, ao, bsrc, bo, ldb, of, op + o * L + l, L, kc, first)
                else:
                    if not first:
                        for r in range(nr):
                            for j in range(nl):
                                ctmp[r * NR + j] = of[op + (o + r) * L + l + j]
                    _gemm_tile(ap, ao, bsrc, bo, ldb, ctmp, 0, NR, kc, first)
                    for r in range(nr):
                        for j in range(nl):
                            of[op + (o + r) * L + l + j] = ctmp[r * NR + j]


@njit(inline="always", **_opts)
def _gemm_setup(a, L):
    # for a (G, O, K) times columns (K, L): the packed weights, _gemm_tile's positions, the
    # products per pass and the position chunks
    K = a.shape[2]
    NR = _NV * (_VBITS // (8 * a.itemsize))
    nkb = (K + _KC - 1) // _KC
    KC = (K + nkb - 1) // nkb  # even passes: no short last one
    return _pack_weights(a, _MR), NR, KC, (L + _GLB - 1) // _GLB


@njit(inline="always", **_opts)
def _gemm_image(ap, bf, of, K, L, O, G, nch, KC, NR):
    # every tile of one image: of (G, O, L) = a @ bf (G, K, L), both flat
    bpad = np.empty(KC * NR, ap.dtype)
    ctmp = np.empty(_MR * NR, ap.dtype)
    for t in range(G * nch):
        _gemm_chunk(ap, bf, of, t, K, L, O, G, nch, KC, NR, bpad, ctmp)


def _make_gemm(parallel):
    rng = prange if parallel else range

    @njit(parallel=parallel, **_opts)
    def gemm(a, b, out):
        # out[n, g] = a[g] @ b[n, g]: a (G, O, K) any strides, b (N, G, K, L), out
        # (N, G, O, L) C-contiguous, float32 or float64, K >= 1
        N, G, K, L = b.shape
        O = a.shape[1]
        ap, NR, KC, nch = _gemm_setup(a, L)
        bf = b.reshape(-1)
        of = out.reshape(-1)
        for t in rng(N * G * nch):
            bpad = np.empty(KC * NR, a.dtype)
            ctmp = np.empty(_MR * NR, a.dtype)
            _gemm_chunk(ap, bf, of, t, K, L, O, G, nch, KC, NR, bpad, ctmp)

    return gemm


_GEMM = (_make_gemm(False), _make_gemm(True))
