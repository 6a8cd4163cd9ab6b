"""Loops behind PyTorch's CPU sampling (``nbgrad/_distributions.py``) that NumPy cannot do
exactly or in one pass: multiply-adds rounded once (PyTorch's kernels fuse them),
Box-Muller with libm's ``log``/``sin``/``cos`` (NumPy's vectorised ones differ in the last
bit now and then), randperm's Fisher-Yates swaps, one data-dependent step after another, and
the Mersenne Twister itself for large draws, turned into uniforms and Bernoulli samples in
the same pass (NumPy's ``random_raw`` plus array expressions took five passes over memory,
and a dropout mask cost twice PyTorch's).

Every array is flat and C-contiguous; the random bits come in from the host, or are drawn
here from a generator state the host hands over (``nbgrad.random.Generator._drawing``).
"""

import math

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from ... import _config

_opts = dict(nogil=True, error_model="numpy", cache=_config.CACHE, no_cfunc_wrapper=True)


@intrinsic
def _fma(typingctx, a, b, c):
    """``a*b + c`` rounded once: llvm.fma is the FMA instruction, or libm's exact fma where
    the CPU has none (llvm.fmuladd would be free to round twice)."""
    if not (a == b == c and isinstance(a, types.Float)):
        return None

    def codegen(context, builder, sig, args):
        t = args[0].type
        name = "llvm.fma.f32" if t == ir.FloatType() else "llvm.fma.f64"
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(t, [t] * 3), name)
        return builder.call(fn, args)

    return a(a, b, c), codegen


@njit(**_opts)
def fma(x, a, c, out):
    """``out = x * a + c`` per element, rounded once (``a``, ``c`` of ``x``'s dtype)."""
    for i in range(x.size):
        out[i] = _fma(x[i], a, c)


@njit(**_opts)
def box_muller16(data, one, minus_two, two_pi, mean, std):
    """PyTorch's ``normal_fill_16`` on each whole block of 16: uniforms in [0, 1) in, the
    block's first 8 paired with its last 8, normals out (constants of ``data``'s dtype)."""
    for b in range(0, data.size - 15, 16):
        for j in range(b, b + 8):
            radius = math.sqrt(minus_two * math.log(one - data[j]))
            theta = two_pi * data[j + 8]
            data[j] = _fma(radius * math.cos(theta), std, mean)
            data[j + 8] = _fma(radius * math.sin(theta), std, mean)


@njit(**_opts)
def box_muller_pairs(u, out):
    """PyTorch's one-at-a-time normals (float64): ``u[2k]``, ``u[2k+1]`` give
    ``out[2k] = r cos(theta)`` and ``out[2k+1] = r sin(theta)`` (the sample it caches)."""
    for k in range(0, u.size - 1, 2):
        r = math.sqrt(-2.0 * math.log1p(-u[k + 1]))
        theta = 2.0 * math.pi * u[k]
        out[k] = r * math.cos(theta)
        out[k + 1] = r * math.sin(theta)


@njit(**_opts)
def shuffle(perm, draws):
    """Fisher-Yates as PyTorch's randperm: swap ``perm[i]`` with ``perm[i + draws[i] %
    (n - i)]`` for ``i`` in ``0 .. n-2`` (``draws``: 32-bit values as int64)."""
    n = perm.size
    for i in range(n - 1):
        z = i + draws[i] % (n - i)
        t = perm[i]
        perm[i] = perm[z]
        perm[z] = t


# ----- Mersenne Twister (MT19937), as NumPy's and PyTorch's: the generator's 624-word key
# and position are arrays the caller owns (``key``: uint32, ``st``: int64 ``[pos]``)
_N, _M = 624, 397
# (unsigned constants: Numba types a shift or mask of an unsigned int by a signed one as float)
_A, _UPPER, _LOWER, _B, _C = (np.uint32(v) for v in (
    0x9908B0DF, 0x80000000, 0x7FFFFFFF, 0x9D2C5680, 0xEFC60000))
_S1, _S7, _S11, _S15, _S18 = (np.uint32(v) for v in (1, 7, 11, 15, 18))
_HIGH = np.uint64(32)
_LOW53 = np.uint64((1 << 53) - 1)
_LOW24 = np.uint32((1 << 24) - 1)
_CHUNK = 1024  # samples per block of draws: the block stays in the L1 cache


@njit(**_opts)
def _mix(a, b, c):
    y = (a & _UPPER) | (b & _LOWER)
    return np.uint32(c ^ (y >> _S1) ^ ((y & _S1) * _A))


@njit(**_opts)
def _twist(key):
    """The next 624 words of state."""
    for i in range(_N - _M):
        key[i] = _mix(key[i], key[i + 1], key[i + _M])
    for i in range(_N - _M, _N - 1):
        key[i] = _mix(key[i], key[i + 1], key[i + _M - _N])
    key[_N - 1] = _mix(key[_N - 1], key[0], key[_M - 1])


@njit(**_opts)
def _draw(key, st, out):
    """The next ``out.size`` 32-bit draws into ``out``; the position in ``st[0]`` moves on."""
    i, n, p = 0, out.size, st[0]
    while i < n:
        if p == _N:
            _twist(key)
            p = 0
        m = min(_N - p, n - i)
        for j in range(m):
            y = key[p + j]
            y ^= y >> _S11
            y ^= (y << _S7) & _B
            y ^= (y << _S15) & _C
            out[i + j] = y ^ (y >> _S18)
        i += m
        p += m
    st[0] = p


@njit(**_opts)
def draws(key, st, out):
    """``out.size`` 32-bit draws (``out``: uint64, as NumPy's ``random_raw``)."""
    _draw(key, st, out)


@njit(**_opts)
def _u53(words, j):
    """Draws ``j`` (the high half) and ``j + 1`` as one 64-bit value: its low 53 bits times
    2**-53, a float64 uniform in [0, 1)."""
    return ((np.uint64(words[j]) << _HIGH | np.uint64(words[j + 1])) & _LOW53) * 2.0**-53


@njit(**_opts)
def uniform53(key, st, out):
    """float64 uniforms in [0, 1), two draws each."""
    words = np.empty(2 * _CHUNK, np.uint32)
    for b in range(0, out.size, _CHUNK):
        m = min(_CHUNK, out.size - b)
        _draw(key, st, words[:2 * m])
        for j in range(m):
            out[b + j] = _u53(words, 2 * j)


@njit(**_opts)
def uniform24(key, st, out):
    """float32 uniforms in [0, 1): the low 24 bits of a draw, times 2**-24."""
    words = np.empty(_CHUNK, np.uint32)
    scale = np.float32(2.0**-24)
    for b in range(0, out.size, _CHUNK):
        m = min(_CHUNK, out.size - b)
        _draw(key, st, words[:m])
        for j in range(m):
            out[b + j] = np.float32(words[j] & _LOW24) * scale


@njit(**_opts)
def bernoulli53(key, st, p, one, zero, out):
    """``out[i] = one`` where a float64 uniform (as ``uniform53``'s) is below ``p``, else
    ``zero``. ``out`` is any dtype seen as the unsigned integers of its width, ``one`` and
    ``zero`` the bits of the two values."""
    words = np.empty(2 * _CHUNK, np.uint32)
    for b in range(0, out.size, _CHUNK):
        m = min(_CHUNK, out.size - b)
        _draw(key, st, words[:2 * m])
        for j in range(m):
            out[b + j] = one if _u53(words, 2 * j) < p else zero
