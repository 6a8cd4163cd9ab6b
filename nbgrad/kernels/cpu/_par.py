"""Choosing between the serial and the parallel variant of a kernel.

A kernel starts on its serial variant and takes its parallel one (from ``PARALLEL_MIN``
elements) once it has earned it: after its serial variant has run ``TIER_UP`` seconds on
calls that big (its first call, which compiles, not counted), or at once for a call whose
work alone would take ``AT_ONCE_S`` serially (``_UNIT_S`` a unit), about what compiling a
big parallel loop costs: only there does compiling it first pay. Compiling a
``parallel=True`` loop costs ~0.2 s (a convolution's seconds), several times its serial
variant, so a program's first step, and any kernel used only a few times, no longer pays
for threads it would hardly use; a kernel in a loop earns them within a few calls (an MLP's
products in its third step) and stays parallel from then on. What it earns that way
compiles on a background thread (``_background``) while the kernel goes on serially, so no
later step stalls on it either; the parallel variant of a call of ``AT_ONCE_S``'s work,
and any with ``TIER_UP`` 0, compiles at its first call, in the caller's thread.

Only one Python thread at a time runs a parallel kernel (Numba's ``workqueue`` layer
aborts the process when two enter at once); a thread that finds the pool busy runs the
serial variant instead, which gives the same result. A child process forked after the
parent started an OpenMP thread pool runs serial kernels only: GNU OpenMP's threads do not
survive ``fork`` (Numba would stop the child rather than hang). Inside ``serial()`` every
thread runs serial variants: the compiler's traced calls, whose eager kernels would
otherwise compile parallel variants (a parfor compile is ~0.5 s) that a compiled replay
never calls.
"""

import os
import threading
from time import perf_counter

from ... import _config
from . import _background

_pool = threading.Lock()
PARALLEL_MIN = _config.PARALLEL_MIN
TIER_UP = _config.TIER_UP
# parallel variants in use, and the seconds their serial variants have run so far (a key
# is the parallel variant, or whatever names one family of them)
_hot = set()
_spent = {}
# kernels whose parallel variant the background thread was asked to compile
_ahead = set()
# a serial run's time per unit of ``run``'s work count, roughly (an elementwise op's element;
# a convolution counts its multiply-adds' rows, a few ns each): a call of AT_ONCE_S / _UNIT_S
# units or more (1G) takes its parallel variant at once. (The bar was TIER_UP's 5M units:
# the MNIST CNN's first step then compiled three parallel convolution loops, 3-7 s each, to
# save milliseconds; its first step 21 s, 8-11 s with this bar, later steps no slower)
_UNIT_S = 1e-9
AT_ONCE_S = 1.0
# ``no_pool``: forked, or inside serial() (``serial``: how many are open)
_state = {"started": False, "forked": False, "serial": 0, "no_pool": False}
_serial_lock = threading.Lock()


def _after_fork_in_child():
    if _state["started"]:
        import numba

        try:  # workqueue survives fork; GNU OpenMP does not
            _state["forked"] = numba.threading_layer() == "omp"
        except ValueError:  # no layer loaded after all
            pass
        _state["no_pool"] = _state["forked"] or _state["serial"] > 0


class serial:
    """Inside the ``with`` block, kernels run their serial variants (in every thread)."""

    def __enter__(self):
        self._step(1)

    def __exit__(self, *exc):
        self._step(-1)
        return False

    @staticmethod
    def _step(d):
        with _serial_lock:
            _state["serial"] += d
            _state["no_pool"] = _state["forked"] or _state["serial"] > 0


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def run(serial, parallel, n, *args):
    """Call ``parallel(*args)`` for ``n`` >= PARALLEL_MIN elements when the pool is free
    and the kernel has earned its parallel variant, else ``serial(*args)``."""
    if n >= PARALLEL_MIN and not _state["no_pool"]:
        if parallel not in _hot and not earned(parallel, n, _compiles(parallel, args)):
            return timed(parallel, serial, *args)
        if _pool.acquire(blocking=False):
            try:
                _state["started"] = True
                return parallel(*args)
            finally:
                _pool.release()
    return serial(*args)


def earned(key, n=0, ahead=None):
    """Whether the kernel ``key`` names runs its parallel variant from now on: ``TIER_UP``
    is 0, or this call's ``n`` units of work would take ``AT_ONCE_S`` seconds serially
    (compiled in this thread, now), or its serial variant has run ``TIER_UP`` seconds on
    calls big enough for it and its parallel variant is compiled. ``ahead``, when given, is
    called then (once) and returns the job that compiles it: the background thread runs
    the job (``_background``) while this kernel goes on serially; without one, the
    parallel variant compiles at its first call."""
    if key in _hot:
        return True
    if not TIER_UP or n * _UNIT_S >= max(TIER_UP, AT_ONCE_S):
        _hot.add(key)
        return True
    if _spent.get(key, 0.0) >= TIER_UP and key not in _ahead:
        job = ahead() if ahead is not None else None
        if job is None:  # nothing to compile ahead
            _hot.add(key)
            return True
        _ahead.add(key)
        _background.submit(job, lambda: _hot.add(key))
    return False


def _compiles(kernel, args):
    """``earned``'s ``ahead`` for a kernel called with ``args``: for a Numba kernel, the job
    that compiles it for their types (typed here: the job holds no array), else None."""
    def ahead():
        if not hasattr(kernel, "typeof_pyval"):
            return None
        sig = tuple(kernel.typeof_pyval(a) for a in args)
        return lambda: kernel.compile(sig)
    return ahead


def timed(key, serial, *args):
    """``serial(*args)``, its time counted toward ``key``'s parallel variant; a first call
    (which compiles) is not counted."""
    spent = _spent.get(key)
    if spent is None:
        _spent[key] = 0.0
        return serial(*args)
    t = perf_counter()
    try:
        return serial(*args)
    finally:
        _spent[key] = spent + (perf_counter() - t)


def call_parallel(parallel, *args):
    """``parallel(*args)``'s result, or None when the pool is busy or unusable (the caller
    then runs serially)."""
    if not _state["no_pool"] and _pool.acquire(blocking=False):
        try:
            _state["started"] = True
            return parallel(*args)
        finally:
            _pool.release()
    return None


def threads():
    """How many threads a parallel kernel runs on."""
    if _state.get("count") is None:
        import numba
        from numba.np.ufunc import parallel

        numba.get_num_threads()  # starts the pool, so its counter exists
        # the pool's own counter (what numba.get_num_threads returns, after checks that
        # cost 0.5 µs a product)
        _state["count"] = getattr(parallel, "_get_num_threads", numba.get_num_threads)
    return _state["count"]()
