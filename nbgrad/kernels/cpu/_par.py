"""Choosing between the serial and the parallel variant of a kernel.

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

from ... import _config

_pool = threading.Lock()
PARALLEL_MIN = _config.PARALLEL_MIN
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
    """Call ``parallel(*args)`` for ``n`` >= PARALLEL_MIN elements when the pool is free."""
    if n >= PARALLEL_MIN and not _state["no_pool"] and _pool.acquire(blocking=False):
        try:
            _state["started"] = True
            return parallel(*args)
        finally:
            _pool.release()
    return serial(*args)


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
