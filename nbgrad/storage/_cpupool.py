"""Reuse of large CPU buffers.

A fresh multi-megabyte array is fresh memory: the C allocator maps new pages (or takes back
what it just trimmed) and the first write faults every page in. In an eager loop the same
big temporaries come and go every step, so nbgrad keeps the buffers of arrays of at least
``MIN_BYTES`` in a pool and hands one out again once nothing refers to it any more: the
pool's own references are the only ones left (reference counts, so a live array, a view of
one or a NumPy array a user holds is never reused). On the elementwise workload of PERF.md
this removed ~1000 page faults per step and the run-to-run spread that came with them.

``NBGRAD_CPU_POOL_MB`` caps what the pool keeps (default 1024; 0 turns it off);
``nbgrad.cpu.empty_cache()`` gives the free buffers back.
"""

import sys
import threading

import numpy as np

from .. import _config

MIN_BYTES = 1 << 20
_pool = {}  # nbytes -> [uint8 buffers]
_lock = threading.Lock()
_state = {"bytes": 0, "cap": _config.CPU_POOL_MB << 20}
_getrefcount = sys.getrefcount


def _calibrate():
    """The reference count of a pooled buffer nobody else holds, as ``_take`` sees it; None
    (pool off) when a held view would not show in the count."""

    def probe(lst):
        for b in lst:
            return _getrefcount(b)

    lst = [np.empty(8, np.uint8)]
    free = probe(lst)
    held = lst[0].view(np.float32)  # noqa: F841 (a live view must raise the count)
    return free if probe(lst) > free else None


_FREE = _calibrate()


_ids = set()  # id() of every pooled buffer


def _take(nbytes):
    with _lock:
        lst = _pool.get(nbytes)
        if lst is None:
            lst = _pool[nbytes] = []
        for b in lst:
            if _getrefcount(b) == _FREE:
                return b
        b = np.empty(nbytes, np.uint8)
        if _state["bytes"] + nbytes <= _state["cap"]:
            lst.append(b)
            _ids.add(id(b))
            _state["bytes"] += nbytes
        return b


def sole_view(a):
    """Whether ``a`` is the only array on a pooled buffer (no other view of it is alive):
    then whoever holds ``a`` alone holds the memory."""
    b = a.base
    # held by the pool's list, by ``b`` here, by ``a`` and by getrefcount's argument
    return b is not None and id(b) in _ids and _getrefcount(b) == _FREE + 1


def empty(shape, np_dtype, nbytes):
    """An uninitialized C-contiguous array; ``nbytes`` is its size in bytes."""
    try:
        if nbytes < MIN_BYTES or _FREE is None or not _state["cap"]:
            return np.empty(shape, np_dtype)
        return _take(nbytes).view(np_dtype).reshape(shape)
    except MemoryError:
        raise out_of_memory(nbytes) from None


def out_of_memory(nbytes):
    """PyTorch's error for memory the system refuses (NumPy raises MemoryError)."""
    return RuntimeError(
        f"DefaultCPUAllocator: can't allocate memory: you tried to allocate {nbytes} bytes. "
        "Error code 12 (Cannot allocate memory)"
    )


def empty_cache():
    """Drop the pooled buffers that nothing uses (their memory goes back to the allocator)."""
    with _lock:
        for nbytes, lst in list(_pool.items()):
            keep = [b for b in lst if _getrefcount(b) > _FREE]
            for b in lst:
                if not any(b is k for k in keep):
                    _ids.discard(id(b))
            _state["bytes"] -= nbytes * (len(lst) - len(keep))
            if keep:
                _pool[nbytes] = keep
            else:
                del _pool[nbytes]


def pooled_bytes():
    """Bytes held by the pool (in use or free)."""
    return _state["bytes"]
