"""Elementwise loops built from a scalar function of ``nbgrad.kernels.scalar``.

The op layer hands these C-contiguous output buffers and inputs that already have the
output's shape (broadcast views, possibly with zero strides) collapsed to three
dimensions. The loops do no shape logic and allocate nothing.
"""

from numba import njit, prange

from ... import _config
from . import _par
from ._codegen import build

_opts = dict(nogil=True, error_model="numpy", cache=_config.CACHE, no_cfunc_wrapper=True)


def _unary(f):
    @njit(**_opts)
    def flat(x, out):
        for i in range(out.size):
            out[i] = f(x[i])

    @njit(parallel=True, **_opts)
    def flat_p(x, out):
        for i in prange(out.size):
            out[i] = f(x[i])

    @njit(**_opts)
    def nd(x, out):
        n1, n2 = out.shape[1], out.shape[2]
        for r in range(out.shape[0] * n1):
            i, j = r // n1, r % n1
            for k in range(n2):
                out[i, j, k] = f(x[i, j, k])

    @njit(parallel=True, **_opts)
    def nd_p(x, out):
        n1, n2 = out.shape[1], out.shape[2]
        for r in prange(out.shape[0] * n1):
            i, j = r // n1, r % n1
            for k in range(n2):
                out[i, j, k] = f(x[i, j, k])

    @njit(**_opts)
    def bc(x, out):  # C-contiguous 3-d ``x`` with size-1 (broadcast) dims
        n0, n1, n2 = out.shape
        for r in range(n0 * n1):
            _bc_row(x, out, r // n1, r % n1, n2)

    @njit(parallel=True, **_opts)
    def bc_p(x, out):
        n0, n1, n2 = out.shape
        for r in prange(n0 * n1):
            _bc_row(x, out, r // n1, r % n1, n2)

    @njit(inline="always", **_opts)
    def _bc_row(x, out, i, j, n2):
        xi = i if x.shape[0] != 1 else 0
        xj = j if x.shape[1] != 1 else 0
        if x.shape[2] != 1:
            for k in range(n2):
                out[i, j, k] = f(x[xi, xj, k])
        else:
            v = f(x[xi, xj, 0])
            for k in range(n2):
                out[i, j, k] = v

    # 4-d views (strided layouts that no merging of dims brings down to 3): the 3-d loop
    # per leading index
    @njit(**_opts)
    def nd4(x, out):
        for i in range(out.shape[0]):
            nd(x[i], out[i])

    @njit(parallel=True, **_opts)
    def nd4_p(x, out):
        for i in prange(out.shape[0]):
            nd(x[i], out[i])

    return flat, flat_p, nd, nd_p, bc, bc_p, nd4, nd4_p


def _binary(f):
    @njit(**_opts)
    def flat(a, b, out):
        for i in range(out.size):
            out[i] = f(a[i], b[i])

    @njit(parallel=True, **_opts)
    def flat_p(a, b, out):
        for i in prange(out.size):
            out[i] = f(a[i], b[i])

    @njit(**_opts)
    def flat_s(a, s, out):  # second operand is one value
        for i in range(out.size):
            out[i] = f(a[i], s)

    @njit(parallel=True, **_opts)
    def flat_s_p(a, s, out):
        for i in prange(out.size):
            out[i] = f(a[i], s)

    @njit(**_opts)
    def s_flat(s, b, out):  # first operand is one value
        for i in range(out.size):
            out[i] = f(s, b[i])

    @njit(parallel=True, **_opts)
    def s_flat_p(s, b, out):
        for i in prange(out.size):
            out[i] = f(s, b[i])

    @njit(**_opts)
    def nd(a, b, out):
        n1, n2 = out.shape[1], out.shape[2]
        for r in range(out.shape[0] * n1):
            i, j = r // n1, r % n1
            for k in range(n2):
                out[i, j, k] = f(a[i, j, k], b[i, j, k])

    @njit(parallel=True, **_opts)
    def nd_p(a, b, out):
        n1, n2 = out.shape[1], out.shape[2]
        for r in prange(out.shape[0] * n1):
            i, j = r // n1, r % n1
            for k in range(n2):
                out[i, j, k] = f(a[i, j, k], b[i, j, k])

    @njit(**_opts)
    def bc(a, b, out):  # C-contiguous 3-d operands with size-1 (broadcast) dims
        n0, n1, n2 = out.shape
        for r in range(n0 * n1):
            _bc_row(a, b, out, r // n1, r % n1, n2)

    @njit(parallel=True, **_opts)
    def bc_p(a, b, out):
        n0, n1, n2 = out.shape
        for r in prange(n0 * n1):
            _bc_row(a, b, out, r // n1, r % n1, n2)

    @njit(inline="always", **_opts)
    def _bc_row(a, b, out, i, j, n2):
        ai = i if a.shape[0] != 1 else 0
        aj = j if a.shape[1] != 1 else 0
        bi = i if b.shape[0] != 1 else 0
        bj = j if b.shape[1] != 1 else 0
        # one inner loop per broadcast pattern of the last dim, so each one vectorizes
        if a.shape[2] != 1:
            if b.shape[2] != 1:
                for k in range(n2):
                    out[i, j, k] = f(a[ai, aj, k], b[bi, bj, k])
            else:
                s = b[bi, bj, 0]
                for k in range(n2):
                    out[i, j, k] = f(a[ai, aj, k], s)
        elif b.shape[2] != 1:
            s = a[ai, aj, 0]
            for k in range(n2):
                out[i, j, k] = f(s, b[bi, bj, k])
        else:
            v = f(a[ai, aj, 0], b[bi, bj, 0])
            for k in range(n2):
                out[i, j, k] = v

    # in place, out = f(out, b): with ``out`` also passed as ``a`` LLVM's overlap check
    # fails and the loop runs scalar; two distinct arrays vectorize
    @njit(**_opts)
    def into(out, b):
        for i in range(out.size):
            out[i] = f(out[i], b[i])

    @njit(parallel=True, **_opts)
    def into_p(out, b):
        for i in prange(out.size):
            out[i] = f(out[i], b[i])

    @njit(**_opts)
    def bc_into(out, b):  # ``b`` 3-d with size-1 (broadcast) dims
        n0, n1, n2 = out.shape
        for r in range(n0 * n1):
            _bc_into_row(out, b, r // n1, r % n1, n2)

    @njit(parallel=True, **_opts)
    def bc_into_p(out, b):
        n0, n1, n2 = out.shape
        for r in prange(n0 * n1):
            _bc_into_row(out, b, r // n1, r % n1, n2)

    @njit(inline="always", **_opts)
    def _bc_into_row(out, b, i, j, n2):
        bi = i if b.shape[0] != 1 else 0
        bj = j if b.shape[1] != 1 else 0
        if b.shape[2] != 1:
            for k in range(n2):
                out[i, j, k] = f(out[i, j, k], b[bi, bj, k])
        else:
            s = b[bi, bj, 0]
            for k in range(n2):
                out[i, j, k] = f(out[i, j, k], s)

    @njit(**_opts)
    def nd4(a, b, out):  # (as the unary nd4)
        for i in range(out.shape[0]):
            nd(a[i], b[i], out[i])

    @njit(parallel=True, **_opts)
    def nd4_p(a, b, out):
        for i in prange(out.shape[0]):
            nd(a[i], b[i], out[i])

    return (flat, flat_p, flat_s, flat_s_p, s_flat, s_flat_p, nd, nd_p, bc, bc_p, into, into_p,
            bc_into, bc_into_p, nd4, nd4_p)


def _ternary(f):
    @njit(**_opts)
    def flat(a, b, c, out):
        for i in range(out.size):
            out[i] = f(a[i], b[i], c[i])

    @njit(parallel=True, **_opts)
    def flat_p(a, b, c, out):
        for i in prange(out.size):
            out[i] = f(a[i], b[i], c[i])

    @njit(**_opts)
    def nd(a, b, c, out):
        n1, n2 = out.shape[1], out.shape[2]
        for r in range(out.shape[0] * n1):
            i, j = r // n1, r % n1
            for k in range(n2):
                out[i, j, k] = f(a[i, j, k], b[i, j, k], c[i, j, k])

    @njit(parallel=True, **_opts)
    def nd_p(a, b, c, out):
        n1, n2 = out.shape[1], out.shape[2]
        for r in prange(out.shape[0] * n1):
            i, j = r // n1, r % n1
            for k in range(n2):
                out[i, j, k] = f(a[i, j, k], b[i, j, k], c[i, j, k])

    @njit(**_opts)
    def flat_s(a, b, s, out):  # third operand is one value
        for i in range(out.size):
            out[i] = f(a[i], b[i], s)

    @njit(parallel=True, **_opts)
    def flat_s_p(a, b, s, out):
        for i in prange(out.size):
            out[i] = f(a[i], b[i], s)

    return flat, flat_p, nd, nd_p, flat_s, flat_s_p


class _Kernel:
    """The loops of one scalar function, compiled on first use; ``_run(i, n, *args)`` calls
    loop ``i`` serially, or its parallel twin ``i + 1`` from PARALLEL_MIN elements."""

    __slots__ = ("f", "_k")
    _factory = None

    def __init__(self, f):
        self.f = f
        self._k = None

    def entry(self, i, *argtypes):
        """Serial loop ``i`` compiled for the Numba types ``argtypes``, as its bare entry
        point: a call skips Numba's argument typing (~0.1 µs), so every caller must pass
        exactly those types."""
        k = self._k
        if k is None:
            k = self._k = build(self._factory, self.f)
        d = k[i]
        return d.compile(argtypes) if hasattr(d, "compile") else d  # (NUMBA_DISABLE_JIT)

    def _run(self, i, n, *args):
        k = self._k
        if k is None:
            k = self._k = build(self._factory, self.f)
        if n < _par.PARALLEL_MIN:  # (checked here first: the hot path of small ops)
            return k[i](*args)
        return _par.run(k[i], k[i + 1], n, *args)


class UnaryKernel(_Kernel):
    """``out = f(x)``; ``x`` is a flat contiguous array or a 3-d or 4-d view."""

    __slots__ = ()
    _factory = staticmethod(_unary)

    def flat(self, x, out):
        """Both arguments 1-d and contiguous."""
        self._run(0, out.size, x, out)

    def broadcast(self, x, out):
        """C-contiguous 3-d ``x`` whose dims are ``out``'s or 1 (broadcast)."""
        self._run(4, out.size, x, out)

    def __call__(self, x, out):
        """1-d contiguous arrays, or 3-d or 4-d views of one shape."""
        n = x.ndim
        self._run(0 if n == 1 else 2 if n == 3 else 6, out.size, x, out)


class BinaryKernel(_Kernel):
    """``out = f(a, b)``; operands flat, 3-d or 4-d views, or 0-d (one value)."""

    __slots__ = ()
    _factory = staticmethod(_binary)

    def flat(self, a, b, out):
        """All arguments 1-d, contiguous, same length."""
        self._run(0, out.size, a, b, out)

    def flat_s(self, a, s, out):
        """``a`` 1-d contiguous, ``s`` one value of the same dtype."""
        self._run(2, out.size, a, s, out)

    def s_flat(self, s, b, out):
        """``s`` one value, ``b`` 1-d contiguous of the same dtype."""
        self._run(4, out.size, s, b, out)

    def broadcast(self, a, b, out):
        """C-contiguous 3-d operands whose dims are ``out``'s or 1 (broadcast)."""
        self._run(8, out.size, a, b, out)

    def into(self, out, b):
        """``out = f(out, b)`` in place: flat contiguous arrays of one length, or a
        C-contiguous 3-d ``out`` and ``b`` with size-1 (broadcast) dims."""
        self._run(10 if out.ndim == 1 else 12, out.size, out, b)

    def __call__(self, a, b, out):
        n = out.size
        if a.ndim == 1:
            if b.ndim == 1:
                self._run(0, n, a, b, out)
            else:
                self._run(2, n, a, b[()], out)
        elif a.ndim == 0:
            self._run(4, n, a[()], b, out)
        elif a.ndim == 3:
            self._run(6, n, a, b, out)
        else:  # 4-d views
            self._run(14, n, a, b, out)


class TernaryKernel(_Kernel):
    """``out = f(a, b, c)``; operands all flat or all 3-d views."""

    __slots__ = ()
    _factory = staticmethod(_ternary)

    def __call__(self, a, b, c, out):
        self._run(0 if a.ndim == 1 else 2, out.size, a, b, c, out)

    def flat_s(self, a, b, s, out):
        """``a``, ``b`` 1-d contiguous, ``s`` one value of the output's dtype."""
        self._run(4, out.size, a, b, s, out)
