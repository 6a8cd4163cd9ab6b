"""Fused optimizer updates: one pass over a parameter updates it and its state buffers.

Every array is flat and C-contiguous, of the parameter's dtype. ``update_loops`` makes the
serial and the parallel loop of any step body of ``kernels/updates.py`` (the CUDA target
makes its kernel from the same body); the body does the loads and stores of its element,
so the loop is the same for every update and LLVM sees each update's arithmetic inline.
"""

from numba import njit, prange

from ... import _config
from . import _par
from ._codegen import build

# (no_cfunc_wrapper: see reduce.py)
_opts = dict(nogil=True, error_model="numpy", cache=_config.CACHE, no_cfunc_wrapper=True)


def update_loops(f):
    """The serial and the parallel loop of step body ``f`` over a flat parameter."""

    @njit(**_opts)
    def loop(p, g, s, hp):
        for i in range(p.size):
            f(i, p, g, s, hp)

    @njit(parallel=True, **_opts)
    def loop_p(p, g, s, hp):
        for i in prange(p.size):
            f(i, p, g, s, hp)

    return loop, loop_p


_LOOPS = {}  # step body -> (serial loop, parallel loop), built on first use


def loops(f):
    """``update_loops(f)``, built once (from the disk cache when it is on)."""
    k = _LOOPS.get(f)
    if k is None:
        k = _LOOPS[f] = build(update_loops, f)
    return k


def update(f, p, g, s, hp):
    """Run step body ``f`` over every element of ``p`` (state arrays ``s``, hyperparameters
    ``hp``), on the thread pool from ``_par.PARALLEL_MIN`` elements."""
    serial, parallel = loops(f)
    _par.run(serial, parallel, p.size, p, g, s, hp)
