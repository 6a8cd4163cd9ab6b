"""nbgrad's caching allocator for CUDA memory (storage/cuda_memory.py), checked on the host:
the pool's size classes, reuse, statistics and out-of-memory path with a stand-in for the
driver, and the Numba EMM plugin's pointers (Numba's own MemoryPointer classes, a fake
context) and nbgrad.cuda's statistics over it. A GPU run is python -m nbgrad.testing.gpu_check."""

import threading

import pytest

import nbgrad
from nbgrad.storage import cuda_memory as cm


class FakeDriver:
    def __init__(self, capacity=1 << 20):
        self.capacity, self.used, self.next = capacity, 0, 1 << 16
        self.live = {}
        self.allocs = self.frees = 0

    def alloc(self, n):
        if self.used + n > self.capacity:
            raise MemoryError("out of memory")
        self.used += n
        self.allocs += 1
        p, self.next = self.next, self.next + n + 4096
        self.live[p] = n
        return p

    def free(self, p):
        self.used -= self.live.pop(p)
        self.frees += 1


def _pool(capacity=1 << 20):
    d = FakeDriver(capacity)
    return cm.Pool(d.alloc, d.free, lambda e: isinstance(e, MemoryError)), d


def test_blocks_are_size_classes_of_512_bytes_and_come_back_for_reuse():
    p, d = _pool()
    assert [p.size_class(n) for n in (0, 1, 512, 513, 4000)] == [512, 512, 512, 1024, 4096]
    a, na = p.take(1000)
    b, nb = p.take(1000)
    assert na == nb == 1024 and a != b and d.allocs == 2
    assert (p.allocated, p.reserved) == (2048, 2048)
    p.give(a, na)
    assert (p.allocated, p.reserved) == (1024, 2048)
    c, nc = p.take(600)  # the same class: the cached block, no driver call
    assert (c, nc) == (a, 1024) and d.allocs == 2
    e, ne = p.take(5000)  # another class: from the driver
    assert ne == 5120 and d.allocs == 3
    assert (p.peak_allocated, p.peak_reserved) == (7168, 7168)


def test_empty_cache_gives_back_only_free_blocks_and_peaks_reset():
    p, d = _pool()
    a, na = p.take(100)
    b, nb = p.take(3000)
    p.give(b, nb)
    p.empty_cache()
    assert d.frees == 1 and b not in d.live and a in d.live
    assert (p.allocated, p.reserved) == (512, 512)
    assert p.peak_reserved == 512 + 3072
    p.reset_peaks()
    assert (p.peak_allocated, p.peak_reserved) == (512, 512)


def test_out_of_memory_empties_the_cache_and_retries_then_raises_pytorchs_error():
    p, d = _pool(capacity=8192)
    a, na = p.take(4096)
    b, nb = p.take(4096)
    p.give(b, nb)  # cached: 4096 free bytes the driver cannot give again
    c, nc = p.take(2048)  # another class: the driver is full, the cache goes back
    assert d.frees == 1 and nc == 2048 and p.reserved == 4096 + 2048
    with pytest.raises(cm.OutOfMemoryError, match=r"^CUDA out of memory\. Tried to allocate "
                       r"8\.00 KiB\. GPU 0: 6\.00 KiB is allocated by nbgrad"):
        p.take(8192)
    assert [cm._size(n) for n in (512, 1536, 3 << 20, 5 << 30)] == [
        "512 bytes", "1.50 KiB", "3.00 MiB", "5.00 GiB"]
    assert issubclass(nbgrad.cuda.OutOfMemoryError, RuntimeError)
    assert cm.OutOfMemoryError is nbgrad.cuda.OutOfMemoryError
    assert p.allocated == 4096 + 2048  # nothing leaked by the failed request


def test_other_driver_errors_pass_through():
    def broken(n):
        raise ValueError("invalid context")

    p = cm.Pool(broken, None, lambda e: False)
    with pytest.raises(ValueError, match="invalid context"):
        p.take(10)


def test_threads_taking_and_giving_keep_the_counts():
    p, d = _pool(capacity=1 << 30)

    def work():
        for i in range(300):
            ptr, n = p.take(512 * (1 + i % 5))
            p.give(ptr, n)

    ts = [threading.Thread(target=work) for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert p.allocated == 0 and p.reserved == sum(d.live.values())
    assert d.allocs <= 4 * 5  # reuse: at most a block per class per thread in flight


def _manager(monkeypatch):
    pytest.importorskip("numba.cuda.cudadrv.driver")
    cls = cm._manager_class()

    class Dev:
        id = 0

    class Ctx:
        device = Dev()

    ctx = Ctx()
    mgr = cls(context=ctx)
    p, d = _pool()
    mgr.pool = p
    monkeypatch.setitem(cm._POOLS, 0, p)
    return mgr, ctx, p, d


def test_the_numba_plugin_hands_out_pool_blocks_and_takes_them_back(monkeypatch):
    mgr, ctx, p, d = _manager(monkeypatch)
    assert mgr.interface_version == 1
    mem = mgr.memalloc(1000)
    assert mem.device_pointer_value in d.live and mem.size == 1000
    assert p.allocated == 1024
    view = mem.view(100)  # a view keeps the block held
    ptr = mem.device_pointer_value
    del mem
    assert p.allocated == 1024
    del view
    import gc

    gc.collect()
    assert p.allocated == 0 and p.reserved == 1024
    again = mgr.memalloc(900)  # the same class: the same block
    assert again.device_pointer_value == ptr and d.allocs == 1
    del again


def test_nbgrad_cuda_statistics_read_the_pool(monkeypatch):
    _, _, p, d = _manager(monkeypatch)
    a = p.take(3000)
    p.take(100)
    p.give(*a)
    assert nbgrad.cuda.memory_allocated(0) == 512
    assert nbgrad.cuda.memory_allocated("cuda:0") == 512
    assert nbgrad.cuda.memory_reserved(0) == 3072 + 512
    assert nbgrad.cuda.max_memory_allocated(0) == 3072 + 512
    nbgrad.cuda.reset_peak_memory_stats(0)
    assert nbgrad.cuda.max_memory_allocated(0) == 512
    nbgrad.cuda.empty_cache()
    assert nbgrad.cuda.memory_reserved(0) == 512 and d.frees == 1
    assert nbgrad.cuda.max_memory_reserved(0) == 3072 + 512


def test_without_the_allocator_the_statistics_read_zero(monkeypatch):
    monkeypatch.setattr(cm, "_POOLS", {})
    for f in (nbgrad.cuda.memory_allocated, nbgrad.cuda.max_memory_allocated,
              nbgrad.cuda.memory_reserved, nbgrad.cuda.max_memory_reserved):
        assert f() == 0
    assert nbgrad.cuda.empty_cache() is None and nbgrad.cuda.reset_peak_memory_stats() is None
