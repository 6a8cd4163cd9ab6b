"""Reuse of large CPU buffers.

A fresh multi-megabyte array is fresh memory: the kernel maps new pages and zeroes each one
as the first write faults it in. In an eager loop the same big temporaries come and go
every step, so arrays of at least ``MIN_BYTES`` live on buffers of their own (anonymous
memory maps) that go back to a free list when the last array on them dies, and a later
array of the same size takes one from there: on the elementwise workload of PERF.md this
removed ~1000 page faults a step and the run-to-run spread that came with them.

When is a buffer free? Each array handed out is made by ``np.frombuffer``, whose base is a
memoryview that every view of the array keeps alive (directly or through the array);
when the last of them dies, CPython drops that memoryview and a weak reference's callback
puts the buffer back. No reference counts are read, and an array a user still holds
(``.numpy()``, a view) keeps its buffer out of the free list for as long as it lives.

The free list is bounded and gives memory back: it keeps at most ``limit`` bytes
(``NBGRAD_POOL_BYTES``, default 256 MiB; 0 turns the pool off), and a buffer nobody took
again within ``DECAY_S`` seconds is unmapped (a daemon thread looks twice a second while
the pool holds buffers), so the memory a big graph used goes back to the system soon after the graph dies.
``nbgrad.cpu.empty_cache()`` unmaps the free buffers at once.
"""

import mmap
import os
import threading
import time
import weakref

import numpy as np

from .. import _config

# glibc's default mmap threshold: a malloc of this size or more is a fresh map (or heap
# that gets trimmed away again) whose pages fault in at first touch, every step. Measured on
# gpt_block (arrays of 256-512 KiB): with a 1 MiB threshold its residual adds and attention
# scaling ran 2-4x slower, the difference being page faults.
MIN_BYTES = 1 << 17
DECAY_S = 1.0

_free = {}  # nbytes -> [(buffer, time it came back)], newest last
# id of a weak reference to the memoryview under a handed-out array -> (that reference,
# its buffer): the reference must live for its callback to run
_leases = {}
# a callback may run in any thread, and inside a locked section of this one (when a
# collection there frees an array): a lock the same thread can take again
_lock = threading.RLock()
_state = {"limit": _config.POOL_BYTES, "free": 0, "used": 0, "sweeper": None}


def _release(ref):
    """The last array on a buffer died: keep the buffer for reuse, or unmap it."""
    buf = _leases.pop(id(ref))[1]
    n = len(buf)
    with _lock:
        _state["used"] -= n
        if _state["free"] + n <= _state["limit"]:
            _free.setdefault(n, []).append((buf, time.monotonic()))
            _state["free"] += n
            return
    buf.close()


def _ensure_sweeper():
    """Start the thread that unmaps idle buffers, if it is not running.

    Called from ``empty`` only, never from ``_release``: that callback may run inside
    ``threading``'s own locked sections (a collection there frees an array), where starting
    a thread would wait on a lock its own thread holds."""
    with _lock:  # (the sweeper decides to stop under it too)
        if _state["sweeper"] is None:
            t = threading.Thread(target=_sweep, name="nbgrad-pool-sweeper", daemon=True)
            _state["sweeper"] = t
            t.start()


def _sweep():
    """Unmap idle buffers every half ``DECAY_S`` while the pool holds any; then stop."""
    while True:
        time.sleep(DECAY_S / 2)
        _decay()
        with _lock:
            if not _free and not _state["used"]:
                _state["sweeper"] = None
                return


def _decay():
    """Unmap the free buffers that waited ``DECAY_S`` seconds or more."""
    old = []
    with _lock:
        now = time.monotonic()
        cut = now - DECAY_S
        for n, lst in list(_free.items()):
            k = 0
            while k < len(lst) and lst[k][1] <= cut:
                k += 1
            if k:
                old += lst[:k]
                del lst[:k]
                _state["free"] -= n * k
            if not lst:
                del _free[n]
    for buf, _ in old:
        buf.close()


def _take(nbytes):
    """A buffer of ``nbytes`` bytes nobody uses: the newest free one, or a fresh map."""
    with _lock:
        lst = _free.get(nbytes)
        if lst:
            buf = lst.pop()[0]
            _state["free"] -= nbytes
            _state["used"] += nbytes
            return buf
    try:
        buf = mmap.mmap(-1, nbytes)
    except (OSError, OverflowError):
        raise MemoryError from None
    with _lock:
        _state["used"] += nbytes
    return buf


def empty(shape, np_dtype, nbytes):
    """An uninitialized C-contiguous array; ``nbytes`` is its size in bytes."""
    try:
        if nbytes < MIN_BYTES or not _state["limit"]:
            return np.empty(shape, np_dtype)
        buf = _take(nbytes)
        _ensure_sweeper()
        a = np.frombuffer(buf, np_dtype)
        r = weakref.ref(a.base, _release)
        _leases[id(r)] = (r, buf)
        return a.reshape(shape)
    except MemoryError:
        raise out_of_memory(nbytes) from None


def out_of_memory(nbytes):
    """PyTorch's error for memory the system refuses (NumPy raises MemoryError)."""
    return RuntimeError(
        f"DefaultCPUAllocator: can't allocate memory: you tried to allocate {nbytes} bytes. "
        "Error code 12 (Cannot allocate memory)"
    )


def empty_cache():
    """Unmap the pooled buffers that nothing uses (their memory goes back to the system)."""
    with _lock:
        old = [b for lst in _free.values() for b, _ in lst]
        _free.clear()
        _state["free"] = 0
    for buf in old:
        buf.close()


def set_limit(nbytes):
    """Keep at most ``nbytes`` of free buffers (0: no pooling from now on)."""
    _state["limit"] = int(nbytes)
    empty_cache()


def pooled_bytes():
    """Bytes of the pool's buffers, in use or free."""
    return _state["used"] + _state["free"]


def _after_fork():
    # the sweeper thread does not survive a fork: the child starts its own
    _state["sweeper"] = None


os.register_at_fork(after_in_child=_after_fork)
