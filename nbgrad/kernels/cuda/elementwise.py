"""Elementwise CUDA kernels built from the scalar functions of ``nbgrad.kernels.scalar``.

Same contract as the CPU loops: operands flat (1-d), one-element, or 3-d views of the
output's shape; the output is preallocated. One thread per element, grid-stride.
"""

from numba import cuda

from ._launch import device_fn, grid


def _unary(f):
    g = device_fn(f)

    @cuda.jit
    def flat(x, out):
        i = cuda.grid(1)
        s = cuda.gridsize(1)
        while i < out.size:
            out[i] = g(x[i])
            i += s

    @cuda.jit
    def nd(x, out):
        n1, n2 = out.shape[1], out.shape[2]
        i = cuda.grid(1)
        s = cuda.gridsize(1)
        while i < out.size:
            k = i % n2
            r = i // n2
            out[r // n1, r % n1, k] = g(x[r // n1, r % n1, k])
            i += s

    return flat, nd


def _binary(f):
    g = device_fn(f)

    @cuda.jit
    def flat(a, b, out):
        i = cuda.grid(1)
        s = cuda.gridsize(1)
        while i < out.size:
            out[i] = g(a[i], b[i])
            i += s

    @cuda.jit
    def flat_b1(a, b, out):  # b holds one value
        i = cuda.grid(1)
        s = cuda.gridsize(1)
        v = b[0]
        while i < out.size:
            out[i] = g(a[i], v)
            i += s

    @cuda.jit
    def a1_flat(a, b, out):  # a holds one value
        i = cuda.grid(1)
        s = cuda.gridsize(1)
        v = a[0]
        while i < out.size:
            out[i] = g(v, b[i])
            i += s

    @cuda.jit
    def flat_s(a, v, out):  # v is a number passed by value
        i = cuda.grid(1)
        s = cuda.gridsize(1)
        while i < out.size:
            out[i] = g(a[i], v)
            i += s

    @cuda.jit
    def s_flat(v, b, out):
        i = cuda.grid(1)
        s = cuda.gridsize(1)
        while i < out.size:
            out[i] = g(v, b[i])
            i += s

    @cuda.jit
    def nd(a, b, out):
        n1, n2 = out.shape[1], out.shape[2]
        i = cuda.grid(1)
        s = cuda.gridsize(1)
        while i < out.size:
            k = i % n2
            r = i // n2
            p, q = r // n1, r % n1
            out[p, q, k] = g(a[p, q, k], b[p, q, k])
            i += s

    return flat, flat_b1, a1_flat, flat_s, s_flat, nd


def _ternary(f):
    g = device_fn(f)

    @cuda.jit
    def flat(a, b, c, out):
        i = cuda.grid(1)
        s = cuda.gridsize(1)
        while i < out.size:
            out[i] = g(a[i], b[i], c[i])
            i += s

    @cuda.jit
    def nd(a, b, c, out):
        n1, n2 = out.shape[1], out.shape[2]
        i = cuda.grid(1)
        s = cuda.gridsize(1)
        while i < out.size:
            k = i % n2
            r = i // n2
            p, q = r // n1, r % n1
            out[p, q, k] = g(a[p, q, k], b[p, q, k], c[p, q, k])
            i += s

    @cuda.jit
    def flat_s(a, b, v, out):
        i = cuda.grid(1)
        s = cuda.gridsize(1)
        while i < out.size:
            out[i] = g(a[i], b[i], v)
            i += s

    return flat, nd, flat_s


def _is_number(x):
    # device arrays (real or simulated) can be copied to the host; numbers cannot
    return not hasattr(x, "copy_to_host")


class UnaryKernel:
    """``out = f(x)`` on the device."""

    def __init__(self, f):
        self.f = f
        self._k = None

    def __call__(self, x, out):
        if self._k is None:
            self._k = _unary(self.f)
        k = self._k[0] if x.ndim == 1 else self._k[1]
        k[grid(out.size)](x, out)


class BinaryKernel:
    """``out = f(a, b)`` on the device; an operand may be a number or a one-value array."""

    def __init__(self, f):
        self.f = f
        self._k = None

    def __call__(self, a, b, out):
        if self._k is None:
            self._k = _binary(self.f)
        flat, flat_b1, a1_flat, flat_s, s_flat, nd = self._k
        cfg = grid(out.size)
        if _is_number(b):
            flat_s[cfg](a, b, out)
        elif _is_number(a):
            s_flat[cfg](a, b, out)
        elif a.ndim == 1 and b.ndim == 1:
            flat[cfg](a, b, out)
        elif b.ndim == 0:
            flat_b1[cfg](a, b.reshape(1), out)
        elif a.ndim == 0:
            a1_flat[cfg](a.reshape(1), b, out)
        else:
            nd[cfg](a, b, out)


class TernaryKernel:
    """``out = f(a, b, c)`` on the device."""

    def __init__(self, f):
        self.f = f
        self._k = None

    def __call__(self, a, b, c, out):
        if self._k is None:
            self._k = _ternary(self.f)
        k = self._k[0] if a.ndim == 1 else self._k[1]
        k[grid(out.size)](a, b, c, out)

    def flat_s(self, a, b, s, out):
        """``a``, ``b`` 1-d contiguous, ``s`` one host value."""
        if self._k is None:
            self._k = _ternary(self.f)
        self._k[2][grid(out.size)](a, b, s, out)
