"""A caching allocator for CUDA device memory, plugged into Numba through its External
Memory Management (EMM) interface, so that every device array made in the process (by
nbgrad's storage and kernels, and by Numba itself) draws from it. PyTorch's CUDA caching
allocator is the model:

- a request is rounded up to a multiple of 512 bytes, its size class; a block whose last
  array is gone goes to its class's free list, not back to the driver, and the next request
  of that class takes it without ``cuMemAlloc`` / ``cuMemFree`` (the driver's calls cost
  microseconds each, and ``cuMemFree`` synchronises the device). A training loop asks for
  the same sizes every step, so after the first step it allocates nothing from the driver;
- nbgrad's work all runs on the legacy default stream, in order, so a block handed on is
  never still in use by earlier work when later work writes it (Numba's own arrays use
  that stream too unless given another);
- when the driver is out of memory, the cached blocks are given back and the request tried
  once more; then ``OutOfMemoryError`` (PyTorch's wording). ``nbgrad.cuda.empty_cache()``
  gives them back on demand;
- statistics under PyTorch's names, per device: ``memory_allocated`` (bytes of the blocks
  arrays hold, rounded sizes), ``max_memory_allocated``, ``memory_reserved`` (those and the
  cached ones), ``max_memory_reserved``, ``reset_peak_memory_stats``.

Exact size classes, unlike PyTorch's splitting of large segments: sizes that change from
step to step leave blocks of old sizes cached until memory runs short (then they go back)
or ``empty_cache()``. ``NBGRAD_CUDA_CACHING=0`` keeps Numba's own allocator (every array
from and back to the driver; statistics then read 0). The plugin takes effect for contexts
made after ``install()``, which the CUDA storage calls on import, before its first device
array: a context some other code made earlier keeps Numba's allocator. The simulator has no
device memory: nothing is installed, and the statistics read 0.
"""

import threading
import weakref

from .. import _config

_ROUND = 512


class OutOfMemoryError(RuntimeError):
    """Raised when the device has no memory left for a request, even after nbgrad's cache
    of free blocks was given back to the driver (PyTorch's ``torch.cuda.OutOfMemoryError``,
    a ``RuntimeError``)."""


class Pool:
    """The cache of one device: blocks by size class, and the statistics. ``raw_alloc(n)``
    and ``raw_free(ptr)`` are the driver's (an integer address); ``is_oom(error)`` tells
    an out-of-memory failure of ``raw_alloc``."""

    def __init__(self, raw_alloc, raw_free, is_oom, device=0):
        self._alloc, self._free, self._is_oom = raw_alloc, raw_free, is_oom
        self.device = device
        self._cached = {}  # size class -> addresses of free blocks
        self._lock = threading.Lock()
        self.allocated = self.reserved = self.peak_allocated = self.peak_reserved = 0

    @staticmethod
    def size_class(nbytes):
        return max(_ROUND, -(-nbytes // _ROUND) * _ROUND)

    def take(self, nbytes):
        """A block of at least ``nbytes``: ``(address, its size class)``."""
        n = self.size_class(nbytes)
        with self._lock:
            free = self._cached.get(n)
            ptr = free.pop() if free else None
        if ptr is None:
            try:
                ptr = self._alloc(n)
            except Exception as e:
                if not self._is_oom(e):
                    raise
                self.empty_cache()
                try:
                    ptr = self._alloc(n)
                except Exception as e2:
                    if not self._is_oom(e2):
                        raise
                    raise OutOfMemoryError(
                        f"CUDA out of memory. Tried to allocate {_size(n)}. GPU {self.device}: "
                        f"{_size(self.allocated)} is allocated by nbgrad and the cache was "
                        "emptied first. Free tensors you no longer need (and their "
                        "gradients), or use smaller batches.") from None
            with self._lock:
                self.reserved += n
                self.peak_reserved = max(self.peak_reserved, self.reserved)
        with self._lock:
            self.allocated += n
            self.peak_allocated = max(self.peak_allocated, self.allocated)
        return ptr, n

    def give(self, ptr, n):
        """The block at ``ptr`` (size class ``n``) is free: cached for the next request."""
        with self._lock:
            self.allocated -= n
            self._cached.setdefault(n, []).append(ptr)

    def empty_cache(self):
        """Give every cached block back to the driver."""
        with self._lock:
            blocks = [(p, n) for n, ps in self._cached.items() for p in ps]
            self._cached.clear()
        for p, n in blocks:
            self._free(p)
            with self._lock:
                self.reserved -= n

    def reset_peaks(self):
        with self._lock:
            self.peak_allocated, self.peak_reserved = self.allocated, self.reserved

    def forget(self):
        """After a context reset: every block, cached or held, is gone with the context."""
        with self._lock:
            self._cached.clear()
            self.allocated = self.reserved = 0


def _size(n):
    """Bytes as PyTorch's allocator writes them in its messages."""
    if n <= 1024:
        return f"{n} bytes"
    for unit, k in (("KiB", 1), ("MiB", 2), ("GiB", 3)):
        if n < 1024 ** (k + 1) or unit == "GiB":
            return f"{n / 1024 ** k:.2f} {unit}"


_POOLS = {}  # device id -> Pool of the manager installed for it
_STATE = {"installed": False}


def _manager_class():
    import ctypes

    from numba.cuda.cudadrv import driver as drv

    # (numba-cuda speaks NVIDIA's cuda-python bindings; Numba's older built-in CUDA target
    # speaks ctypes: addresses and error codes in either)
    nv = getattr(drv, "binding", None)
    oom = (nv.CUresult.CUDA_ERROR_OUT_OF_MEMORY if nv is not None
           else drv.enums.CUDA_ERROR_OUT_OF_MEMORY)

    def is_oom(e):
        return isinstance(e, drv.CudaAPIError) and e.code == oom

    def address(p):
        return p.value if isinstance(p, ctypes.c_void_p) else int(p)

    def pointer(a):
        return nv.CUdeviceptr(a) if nv is not None else ctypes.c_void_p(a)

    class CachingMemoryManager(drv.GetIpcHandleMixin, drv.HostOnlyCUDAMemoryManager):
        """Numba's EMM plugin over a ``Pool`` (one per context, hence per device)."""

        def initialize(self):
            # (as Numba's own: the pinned host memory it frees late is bounded by the
            # device's size)
            if self.deallocations.memory_capacity == 0:
                self.deallocations.memory_capacity = self.get_memory_info().total
            dev = self.context.device.id
            self.pool = _POOLS[dev] = Pool(lambda n: address(drv.driver.cuMemAlloc(n)),
                                           lambda a: drv.driver.cuMemFree(pointer(a)), is_oom,
                                           dev)

        def memalloc(self, size):
            ptr, n = self.pool.take(size)
            pool = self.pool

            def release():
                self.allocations.pop(ptr, None)
                pool.give(ptr, n)

            # (as Numba's own: the pointer counts its owners and views, and the block is
            # released when the last is gone)
            mem = drv.AutoFreePointer(weakref.proxy(self.context), ctypes.c_void_p(ptr), size,
                                      finalizer=release)
            self.allocations[ptr] = mem
            return mem.own()

        def get_memory_info(self):
            free, total = drv.driver.cuMemGetInfo()
            return drv.MemoryInfo(free=free, total=total)

        def reset(self):
            super().reset()
            if getattr(self, "pool", None) is not None:
                self.pool.forget()

        @property
        def interface_version(self):
            return 1

    return CachingMemoryManager


def install():
    """Make the caching allocator Numba's, for the contexts made from now on (once; not
    under the simulator, nor with ``NBGRAD_CUDA_CACHING=0``)."""
    if _STATE["installed"]:
        return
    _STATE["installed"] = True
    from numba import config

    if config.ENABLE_CUDASIM or not _config.CUDA_CACHING:
        return
    from numba import cuda

    cuda.set_memory_manager(_manager_class())


def pool(device=None):
    """The pool of ``device`` (an index, or None for the current one), or None when nbgrad's
    allocator does not serve it."""
    if not _POOLS:
        return None
    if device is None:
        from numba import cuda

        device = cuda.get_current_device().id
    return _POOLS.get(device)
