"""Choosing between the serial and the parallel variant of a kernel.

Numba's ``workqueue`` threading layer aborts the process when two Python threads enter
parallel code at once, so only one thread at a time may run a parallel kernel; a thread
that finds the pool busy runs the serial variant instead, which gives the same result.
"""

import threading

from ... import _config

_pool = threading.Lock()
PARALLEL_MIN = _config.PARALLEL_MIN


def run(serial, parallel, n, *args):
    """Call ``parallel(*args)`` for ``n`` >= PARALLEL_MIN elements when the pool is free."""
    if n >= PARALLEL_MIN and _pool.acquire(blocking=False):
        try:
            return parallel(*args)
        finally:
            _pool.release()
    return serial(*args)
