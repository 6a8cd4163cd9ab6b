"""Choosing between the serial and the parallel variant of a kernel.

A kernel over ``PARALLEL_MIN`` elements or more takes its parallel variant from the first
call. From ``PARALLEL_HOT`` elements it does so once it has run ``HOT_CALLS`` times at such
sizes: the repeated mid-size ops of a training step gain (a bias add over a (512, 128)
product took 14 µs serially, reading rows that both threads had written, against 5 in
parallel; a GPT block's step 3% less), while a program that calls them a few times does
not wait for parallel variants to compile (a small MLP's first step would take 1.8 s more
with the lower threshold alone). Both variants give the same result.

Only one Python thread at a time runs a parallel kernel (Numba's ``workqueue`` layer
aborts the process when two enter at once); a thread that finds the pool busy runs the
serial variant instead, which gives the same result. A child process forked after the
parent started an OpenMP thread pool runs serial kernels only: GNU OpenMP's threads do not
survive ``fork`` (Numba would stop the child rather than hang).
"""

import os
import threading

from ... import _config

_pool = threading.Lock()
PARALLEL_MIN = _config.PARALLEL_MIN
PARALLEL_HOT = _config.PARALLEL_HOT
HOT_CALLS = 20
_calls = {}  # parallel variant -> its calls at PARALLEL_HOT <= n < PARALLEL_MIN so far
_state = {"started": False, "forked": False}


def _after_fork_in_child():
    if _state["started"]:
        import numba

        try:  # workqueue survives fork; GNU OpenMP does not
            _state["forked"] = numba.threading_layer() == "omp"
        except ValueError:  # no layer loaded after all
            pass


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def wanted(parallel, n):
    """Whether a call over ``n`` elements should take the ``parallel`` variant (counted
    toward ``HOT_CALLS`` in the mid-size range)."""
    if n >= PARALLEL_MIN:
        return True
    if n < PARALLEL_HOT:
        return False
    c = _calls.get(parallel, 0)
    if c >= HOT_CALLS:
        return True
    _calls[parallel] = c + 1
    return False


def run(serial, parallel, n, *args):
    """Call ``parallel(*args)`` for ``n`` elements when ``wanted`` and the pool is free,
    else ``serial(*args)``."""
    return call(serial, parallel, wanted(parallel, n), *args)


def call(serial, parallel, par, *args):
    """``parallel(*args)`` when ``par`` and the pool is free, else ``serial(*args)``."""
    if par and not _state["forked"] and _pool.acquire(blocking=False):
        try:
            _state["started"] = True
            return parallel(*args)
        finally:
            _pool.release()
    return serial(*args)


def call_parallel(parallel, *args):
    """``parallel(*args)``'s result, or None when the pool is busy or unusable (the caller
    then runs serially)."""
    if not _state["forked"] and _pool.acquire(blocking=False):
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
