"""Environment knobs, read once at import.

NBGRAD_PARALLEL_MIN   element count from which CPU kernels use their ``parallel=True``
                      variant (default 524288). Smaller tensors take the serial kernels,
                      since entering a thread pool costs microseconds.
NBGRAD_NUM_THREADS    threads for Numba's parallel kernels (default: Numba's own choice).
NBGRAD_CACHE          ``1`` keeps compiled kernels on disk (Numba's cache) so later processes
                      start without compiling; off by default.
NBGRAD_CACHE_DIR      where generated kernel modules go (default ``~/.cache/nbgrad``);
                      Numba's own ``NUMBA_CACHE_DIR`` still decides where machine code goes.
NBGRAD_THREADING_LAYER Numba threading layer (default ``workqueue``; ``omp`` or ``tbb``
                      when installed). ``workqueue`` does not spin, so it leaves BLAS alone;
                      with ``omp`` nbgrad sets OMP_WAIT_POLICY=PASSIVE unless it is set.
NBGRAD_WIDE_VECTORS   ``1`` (default) lets LLVM use 512-bit vectors on AVX-512 CPUs (Numba's
                      default tuning prefers 256 bits); process-wide for Numba, and skipped
                      when NUMBA_CPU_NAME or NUMBA_CPU_FEATURES is set. ``0`` keeps Numba's.
NBGRAD_POOL_BYTES     bytes of idle large (>= 128 KiB) CPU buffers kept for reuse, so big
                      temporaries do not fault in fresh pages every step (default 256 MiB;
                      0 turns the pool off; idle ones go back after a second, and
                      ``nbgrad.cpu.empty_cache()`` frees them at once). The older
                      NBGRAD_CPU_POOL_MB (megabytes) is read when this is not set.
"""

import os

PARALLEL_MIN = int(os.environ.get("NBGRAD_PARALLEL_MIN", "524288"))
NUM_THREADS = os.environ.get("NBGRAD_NUM_THREADS")
THREADING_LAYER = os.environ.get("NBGRAD_THREADING_LAYER", "workqueue")
CACHE = os.environ.get("NBGRAD_CACHE", "0") == "1"
WIDE_VECTORS = os.environ.get("NBGRAD_WIDE_VECTORS", "1") == "1"
POOL_BYTES = int(os.environ.get("NBGRAD_POOL_BYTES")
                 or int(os.environ.get("NBGRAD_CPU_POOL_MB", "256")) << 20)
CACHE_DIR = os.environ.get(
    "NBGRAD_CACHE_DIR", os.path.join(os.path.expanduser("~"), ".cache", "nbgrad")
)
