"""PyTorch's CPU sampling, draw for draw: how its kernels turn a generator's 32- and 64-bit
draws into uniform, normal, integer, Bernoulli and exponential samples and permutations
(ATen's ``TransformationHelper.h``, ``DistributionsHelper.h`` and ``cpu/
DistributionTemplates.h``). Each function takes an ``nbgrad.random.Generator`` and returns a
flat host array of ``n`` samples in the order PyTorch writes them (memory order).

Float64 samples are PyTorch's to the bit. Float32 uniforms, integers, permutations and
Bernoulli masks are too; float32 normals of 16 or more elements agree to a few units in the
last place (PyTorch's float kernel uses the CPU's vectorised ``log``/``sin``/``cos``).
"""

import math

import numpy as np

from .random import COMPILED_DRAWS

_F32 = np.dtype(np.float32)
_MASK53 = (1 << 53) - 1
_TWO28 = 1 << 28
_UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def _kernels():
    from .kernels.cpu import random  # Numba, on the first sample that needs a loop

    return random


def _fma(x, a, c):
    """``x * a + c`` rounded once, in ``x``'s dtype."""
    out = np.empty_like(x)
    t = x.dtype.type
    _kernels().fma(x, t(a), t(c), out)
    return out


def _low(np_dtype):
    return np.dtype(np_dtype).char in "eE"  # float16, bfloat16


def _narrow(a, np_dtype, lo=None, hi=None):
    """Samples ``a`` computed in float32 (PyTorch's opmath type for 16-bit floats) rounded
    to 16-bit ``np_dtype``; a value that rounds to ``hi`` becomes ``lo``, as PyTorch's
    uniform kernel clamps it."""
    out = a.astype(_F32).astype(np_dtype)
    if hi is not None:
        t = np.dtype(np_dtype).type
        out[out == t(hi)] = t(lo)
    return out


def uniform01(gen, n, np_dtype):
    """PyTorch's ``uniform_real_distribution(0, 1)``: a 32-bit draw's low 24 bits for
    float32 (and, rounded, for float16 and bfloat16), a 64-bit draw's low 53 for float64,
    scaled into [0, 1)."""
    if _low(np_dtype):
        return _narrow(uniform01(gen, n, _F32), np_dtype, 0.0, 1.0)
    f32 = np.dtype(np_dtype) == _F32
    if n >= COMPILED_DRAWS:
        out = np.empty(n, _F32 if f32 else np.float64)
        with gen._drawing() as (kernels, key, st):
            (kernels.uniform24 if f32 else kernels.uniform53)(key, st, out)
        return out
    if f32:
        return (gen._random(n) & 0xFFFFFF).astype(np.float32) * np.float32(2.0**-24)
    return (gen._random64(n) & _MASK53).astype(np.float64) * 2.0**-53


def uniform(gen, n, np_dtype, low, high):
    """``uniform_(low, high)``: ``u * (high - low) + low`` fused, in the sample's dtype; a
    value rounded up to ``high`` becomes ``low``."""
    if _low(np_dtype):
        return _narrow(uniform(gen, n, _F32, low, high), np_dtype, low, high)
    t = np.dtype(np_dtype).type
    u = uniform01(gen, n, np_dtype)
    lo, hi = t(low), t(high)
    if lo == 0 and hi == 1:
        return u
    out = _fma(u, hi - lo, lo)
    out[out == hi] = lo
    return out


def normal(gen, n, np_dtype, mean, std, contiguous=True):
    """``normal_(mean, std)``: Box-Muller over blocks of 16 uniforms (the last block redrawn
    over the tail) for 16 or more contiguous elements; else one sample at a time in float64,
    the second of each pair kept in the generator for the next call. float16 and bfloat16
    samples are float32's rounded, except that before the tail's block only the whole
    blocks' uniforms are drawn (PyTorch's float path draws all ``n``)."""
    low = _low(np_dtype)
    if n < 16 or not contiguous:
        raw = _normal_serial(gen, n, mean, std)
        return _narrow(raw, np_dtype) if low else raw.astype(np_dtype)
    cdt = _F32 if low else np_dtype
    t = np.dtype(cdt).type
    k = _kernels()
    two_pi = t(2.0 * math.pi)
    consts = (t(1), t(-2), two_pi, t(mean), t(std))
    m = 16 * (n // 16) if low else n
    data = uniform01(gen, m, cdt)
    k.box_muller16(data, *consts)
    if m < n:
        data = np.concatenate([data, np.empty(n - m, cdt)])
    if n % 16:
        tail = uniform01(gen, 16, cdt)
        k.box_muller16(tail, *consts)
        data[n - 16:] = tail
    return _narrow(data, np_dtype) if low else data


def _normal_serial(gen, n, mean, std):
    raw = np.empty(n)
    i = 0
    if n and gen._normal is not None:
        raw[0], gen._normal, i = gen._normal, None, 1
    pairs = (n - i + 1) // 2
    if pairs:
        z = np.empty(2 * pairs)
        _kernels().box_muller_pairs(uniform01(gen, 2 * pairs, np.float64), z)
        raw[i:] = z[:n - i]
        if (n - i) % 2:
            gen._normal = float(z[-1])
    return _fma(raw, float(std), float(mean)) if (mean, std) != (0, 1) else raw


def randint(gen, n, low, high, np_dtype):
    """``random_(low, high)`` / ``randint``: ``draw % (high - low) + low``, from a 32-bit
    draw when the range is under 2**28, else a 64-bit one."""
    span = int(high) - int(low)
    bits = gen._random64(n) if span >= _TWO28 else gen._random(n)
    return ((bits % np.uint64(span)).astype(np.int64) + int(low)).astype(np_dtype)


def random_full(gen, n, np_dtype):
    """``random_()`` without bounds: ``[0, 2**mantissa]`` for floats, ``[0, max]`` for
    integers, a draw's low bit for bool."""
    d = np.dtype(np_dtype)
    if d == np.bool_:
        return (gen._random(n) & 1).astype(np.bool_)
    wide = d in (np.int64, np.float64)
    bits = gen._random64(n) if wide else gen._random(n)
    if _low(d):  # (11 and 8 significant bits)
        span = (1 << (11 if d.char == "e" else 8)) + 1
        return (bits % np.uint64(span)).astype(_F32).astype(d)
    if d.kind == "f":
        span = (1 << np.finfo(d).nmant + 1) + 1
    else:
        span = int(np.iinfo(d).max) + 1
    return (bits % np.uint64(span)).astype(d)


def bernoulli(gen, n, p, np_dtype=np.bool_, value=1):
    """``bernoulli_(p)`` for a Python ``p``: ``value`` where a float64 uniform is below
    ``p``, else 0, in ``np_dtype`` (``value`` is rounded to it from float64, as ``keep *
    value`` would be)."""
    d = np.dtype(np_dtype)
    one = np.asarray(value, np.float64 if d.kind in "fcV" else None).astype(d)
    if n < COMPILED_DRAWS or d.itemsize not in _UINT:
        return np.where(uniform01(gen, n, np.float64) < p, one, np.zeros((), d))
    bits = _UINT[d.itemsize]
    out = np.empty(n, bits)  # (0 is every dtype's zero, bit for bit)
    with gen._drawing() as (kernels, key, st):
        kernels.bernoulli53(key, st, float(p), one.view(bits)[()], bits(0), out)
    return out.view(d)


def bernoulli_tensor(gen, p):
    """``bernoulli(p)`` for an array of probabilities: a uniform of ``p``'s precision
    (float64 for float64 ``p``, else float32) below each."""
    u = uniform01(gen, p.size, np.float64 if p.dtype == np.float64 else np.float32)
    return u < p.reshape(-1).astype(u.dtype)


def exponential(gen, n, lambd):
    """``exponential_(lambd)``: ``-log(1 - u) / lambd`` of float64 uniforms."""
    return -1.0 / lambd * np.log1p(-uniform01(gen, n, np.float64))


def cauchy(gen, n, median, sigma):
    """``cauchy_(median, sigma)``: ``median + sigma * tan(pi (u - 1/2))`` of float64
    uniforms."""
    return median + sigma * np.tan(math.pi * (uniform01(gen, n, np.float64) - 0.5))


def log_normal(gen, n, mean, std):
    """``log_normal_(mean, std)``: ``exp`` of float64 normal samples drawn one at a time (the
    generator's kept second sample first)."""
    return np.exp(_normal_serial(gen, n, mean, std))


def geometric(gen, n, p):
    """``geometric_(p)``: ``ceil(log(u) / log(1 - p))`` of float64 uniforms: the number of
    trials to the first success."""
    with np.errstate(divide="ignore"):
        return np.ceil(np.log(uniform01(gen, n, np.float64)) / np.log1p(-p))


def _rejection():
    from .kernels.cpu import rejection  # Numba, on the first gamma or binomial sample

    return rejection


_CHUNK_WORDS = 1 << 20


def _draw_until_done(gen, kernel, n, *arrays):
    """Run sampler ``kernel`` (``kernels/cpu/rejection.py``) over ``n`` elements, feeding it
    the generator's 32-bit draws in chunks (the words an unfinished element read are fed
    again with the next chunk); the generator then stands where PyTorch's would: advanced by
    exactly the draws used, its cached normal sample updated."""
    out = np.empty(n)
    if not n:
        return out
    state = np.array([0.0, gen._normal is not None, gen._normal or 0.0])
    done, carry, size = 0, np.empty(0, np.uint64), min(max(4 * n, 256), _CHUNK_WORDS)
    while done < n:
        saved, fresh = gen._bits.state, gen._fresh
        chunk = gen._random(size)
        words = np.concatenate([carry, chunk]) if carry.size else chunk
        state[0] = 0.0
        done = kernel(*arrays, out, done, words, state)
        carry = words[int(state[0]):]
        size = _CHUNK_WORDS
    # the unread words go back: the generator returns to before the last chunk and
    # draws only the part of it that was read
    gen._bits.state, gen._fresh = saved, fresh
    read = chunk.size - carry.size
    if read:
        gen._bits.random_raw(read, output=False)
        gen._fresh = False
    gen._normal = float(state[2]) if state[1] else None
    return out


def standard_gamma(gen, alpha, f32):
    """Standard gamma samples of the float64 array ``alpha`` (flat, in order), as PyTorch's
    CPU kernel draws them (Marsaglia and Tsang; float32's steps when ``f32``)."""
    return _draw_until_done(gen, _rejection().gamma, alpha.size, alpha, f32)


def dirichlet_gammas(gen, alpha):
    """The float64 gamma samples a Dirichlet sample normalises (PyTorch draws them in float64
    whatever the dtype)."""
    return _draw_until_done(gen, _rejection().gamma, alpha.size, alpha, False)


def binomial(gen, count, prob, f32):
    """Binomial samples of the float64 arrays ``count`` and ``prob`` (flat, one size), as
    PyTorch's CPU kernel draws them (inversion below a mean of 10, else BTRS)."""
    return _draw_until_done(gen, _rejection().binomial, count.size, count, prob, f32)


def poisson(gen, lam):
    """Poisson counts of the float64 array ``lam`` (flat, in order), as PyTorch's CPU
    kernel draws them: Hoermann's transformed rejection for rates of 10 or more, else the
    product of uniforms against ``exp(-rate)``."""
    return _draw_until_done(gen, _rejection().poisson, lam.size, lam)


def randperm(gen, n):
    """``randperm(n)``: Fisher-Yates from 0..n-1, one 32-bit draw per step."""
    perm = np.arange(n, dtype=np.int64)
    if n > 1:
        _kernels().shuffle(perm, gen._random(n - 1).astype(np.int64))
    return perm


def multinomial(gen, w, num_samples, replacement):
    """``multinomial`` of each row of the 2-d weights ``w``: with replacement, float64
    uniforms searched in each row's cumulative sums (normalised, the last set to 1); without,
    or for one sample (PyTorch's fast path), the largest ``w / q`` for ``q`` ~ Exp(1) drawn
    for every weight."""
    if replacement and num_samples > 1:
        out = np.empty((w.shape[0], num_samples), np.int64)
        for r, row in enumerate(w):
            cdf = np.cumsum(row)
            cdf /= cdf[-1]
            cdf[-1] = 1
            out[r] = np.searchsorted(cdf.astype(np.float64),
                                     uniform01(gen, num_samples, np.float64), side="left")
        return out
    q = exponential(gen, w.size, 1.0).astype(w.dtype).reshape(w.shape)
    keys = w / q
    return np.argsort(-keys, axis=1, kind="stable")[:, :num_samples]
