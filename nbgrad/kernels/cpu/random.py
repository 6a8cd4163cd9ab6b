"""Loops behind PyTorch's CPU sampling (``nbgrad/_distributions.py``) that NumPy cannot do
exactly: multiply-adds rounded once (PyTorch's kernels fuse them), Box-Muller with libm's
``log``/``sin``/``cos`` (NumPy's vectorised ones differ in the last bit now and then), and
randperm's Fisher-Yates swaps, one data-dependent step after another.

Every array is flat and C-contiguous; the random bits come in from the host.
"""

import math

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
