"""The MPI side of ``nbgrad.distributed``: importing mpi4py, and a tensor's memory as a
buffer MPI can read and write.

A contiguous CPU tensor whose dtype MPI knows is handed to MPI as it is (its NumPy array,
through the buffer protocol: no pickling, no copy). Anything else goes through a host
buffer that ``finish`` writes back: a strided view (a contiguous copy), a CUDA tensor (a
pinned host buffer: the pip MPI builds cannot read GPU memory), bfloat16 (MPI has no such
type: float32 for reductions, raw 16-bit words for copies) and bool (bytes, reduced with
logical operators).
"""

import numpy as np

from .. import dtypes as _dt

_MPI = []


def mpi():
    """mpi4py's ``MPI`` module, imported on first use (initializing MPI)."""
    if not _MPI:
        try:
            from mpi4py import MPI
        except ImportError:
            raise RuntimeError(
                "nbgrad.distributed runs on MPI through mpi4py, which is not installed: "
                "pip install 'nbgrad[mpi]' (mpi4py and the mpich wheel, whose mpiexec "
                "starts the processes)") from None
        _MPI.append(MPI)
    return _MPI[0]


def threads_allowed():
    """Whether two threads may call MPI at once (``MPI_THREAD_MULTIPLE``, what mpi4py asks
    for and the mpich wheel gives; another MPI may give less: then no progress thread)."""
    MPI = mpi()
    return MPI.Query_thread() == MPI.THREAD_MULTIPLE


def available():
    """Whether mpi4py can be imported (without importing it)."""
    import importlib.util

    return importlib.util.find_spec("mpi4py") is not None


class Buffer:
    """``tensor``'s memory for one collective: ``array`` is what MPI reads and writes;
    ``finish()`` puts what MPI wrote back into the tensor (nothing to do when ``array`` is
    the tensor's own memory). ``reduce``: the values will be combined arithmetically (so a
    bfloat16 tensor is widened, not reinterpreted)."""

    __slots__ = ("tensor", "array", "back", "kind")

    def __init__(self, tensor, reduce=False, read=True):
        self.tensor = tensor
        d = tensor._data
        dtype = tensor.dtype
        self.kind = "bool" if dtype is _dt.bool_ else "bf16" if dtype is _dt.bfloat16 else None
        cpu = tensor.device.type == "cpu"
        if cpu and self.kind is None and d.flags.c_contiguous and d.flags.writeable:
            self.array, self.back = d, False
            return
        self.back = True
        host = _to_host(d, cpu) if read else np.empty(d.shape, d.dtype)
        if self.kind == "bool":
            host = host.view(np.uint8)
        elif self.kind == "bf16":
            host = host.astype(np.float32) if reduce else host.view(np.uint16)
        self.array = host

    def finish(self):
        if not self.back:
            return
        t = self.tensor
        host = self.array
        if self.kind == "bool":
            host = host.view(np.bool_)
        elif self.kind == "bf16":
            host = host.astype(t._data.dtype) if host.dtype == np.float32 \
                else host.view(t._data.dtype)
        d = t._data
        if t.device.type == "cpu":
            np.copyto(d, host.reshape(d.shape))
        elif d.is_c_contiguous():
            d.copy_to_device(np.ascontiguousarray(host.reshape(d.shape)))
        else:
            from ..creation import from_numpy

            with _no_grad():
                t.detach().copy_(from_numpy(host.reshape(d.shape).copy()).to(t.device))


def _to_host(d, cpu):
    if cpu:
        return np.ascontiguousarray(d)
    if d.is_c_contiguous():
        from numba import cuda

        host = cuda.pinned_array(d.shape, d.dtype)
        d.copy_to_host(host)
        return host
    return np.ascontiguousarray(d.copy_to_host())


def _no_grad():
    from ..autograd.grad_mode import no_grad

    return no_grad()


class Progress:
    """Moves started non-blocking collectives on while the caller computes.

    MPICH advances a non-blocking collective only inside MPI calls, so a bucket started
    early in backward would otherwise move only when backward waits for it at the end.
    This thread calls ``Testall`` on the requests given to ``add`` every ``interval``
    seconds until ``stop``; nbgrad's kernels release the GIL, so it runs beside them.
    (MPICH's own progress thread, ``MPIR_CVAR_ASYNC_PROGRESS``, spins a core per process.)
    The copying and summing are CPU work: they hide behind backward only where a core is
    free (not with two processes on two cores: asv_bench/ddp.py measures it)."""

    interval = 1e-3  # seconds between two tests

    def __init__(self):
        import threading

        self._cv = threading.Condition()
        self._requests = []
        self._active = False
        self._busy = False
        self._thread = threading.Thread(target=self._run, name="nbgrad-mpi-progress",
                                        daemon=True)
        self._thread.start()

    def add(self, request):
        with self._cv:
            self._requests.append(request)
            self._active = True
            self._cv.notify()

    def stop(self):
        """No more testing (returns once the thread is not inside MPI): the caller waits
        on the requests itself."""
        with self._cv:
            self._active = False
            self._requests = []
            while self._busy:
                self._cv.wait()

    def _run(self):
        import time

        MPI = mpi()
        while True:
            with self._cv:
                while not self._active:
                    self._cv.wait()
                reqs = list(self._requests)
                self._busy = True
            try:
                if MPI.Request.Testall(reqs):
                    with self._cv:  # (all done: sleep until new work comes)
                        if len(self._requests) == len(reqs):
                            self._active = False
            finally:
                with self._cv:
                    self._busy = False
                    self._cv.notify_all()
            time.sleep(self.interval)
