"""Environment knobs, read once at import.

NBGRAD_PARALLEL_MIN   element count from which CPU kernels use their ``parallel=True``
                      variant (default 131072; row kernels count each element 4 times).
                      Smaller tensors take the serial kernels, since entering a thread pool
                      costs microseconds.
NBGRAD_TIER_UP        seconds a kernel's serial variant runs on inputs that big before its
                      parallel variant is compiled, on a background thread, and then used
                      (default 0.005; 0: at first use, in the calling thread, as
                      ``python -m nbgrad warmup`` does). A first step compiles no parallel
                      loop; a kernel in a loop gets its threads within a few calls, and no
                      call waits for their compile.
NBGRAD_NUM_THREADS    threads for Numba's parallel kernels (default: Numba's own choice).
NBGRAD_CACHE          ``0`` turns off the kernel cache: by default compiled kernels are kept on
                      disk (Numba's cache), so a later process loads them instead of
                      compiling (``python -m nbgrad cache info|clear``).
NBGRAD_CACHE_DIR      the kernel cache's folder (default ``~/.cache/nbgrad``): one subfolder
                      per nbgrad/Numba/Python version and kernel source (kernels/cpu/_disk.py).
NBGRAD_QUIET          ``1`` hides the one line on stderr that says, the first time a process
                      compiles kernels, that the stall is compiling.
NBGRAD_THREADING_LAYER Numba threading layer (default: ``omp`` where Numba has it, else
                      ``tbb``, else ``workqueue``). OpenMP's threads spin briefly after a
                      loop, so the next starts in microseconds; matrix products run on the
                      same threads (kernels/cpu/blas.py), so no second pool competes.
NBGRAD_BLAS           which BLAS the CPU's matrix products call (kernels/cpu/blas.py):
                      ``auto`` (default: on an Intel CPU, Intel's MKL when the ``mkl``
                      package is installed; otherwise, and on other vendors' CPUs, the
                      OpenBLAS NumPy loaded), ``mkl``, ``openblas``, or ``numpy``
                      (every product through ``np.matmul``).
NBGRAD_CUDA_BLAS      which library CUDA matrix products call (kernels/cuda/cublas.py): ``auto``
                      (default: cuBLAS through nvmath-python when it loads, else nbgrad's
                      own tiled kernel, with a warning once), ``cublas`` (an error when it
                      cannot load) or ``nbgrad`` (always the tiled kernel).
NBGRAD_CUDA_CACHING   ``0`` keeps Numba's own allocator for CUDA memory (every array from and
                      back to the driver) instead of nbgrad's caching allocator
                      (storage/cuda_memory.py; default 1).
NBGRAD_WIDE_VECTORS   ``1`` (default) lets LLVM use 512-bit vectors on AVX-512 CPUs (Numba's
                      default tuning prefers 256 bits); process-wide for Numba, and skipped
                      when NUMBA_CPU_NAME or NUMBA_CPU_FEATURES is set. ``0`` keeps Numba's.
NBGRAD_POOL_BYTES     bytes of idle large (>= 128 KiB) CPU buffers kept for reuse, so big
                      temporaries do not fault in fresh pages every step (default 256 MiB;
                      0 turns the pool off; idle ones go back after a second, and
                      ``nbgrad.cpu.empty_cache()`` frees them at once). The older
                      NBGRAD_CPU_POOL_MB (megabytes) is read when this is not set.
NBGRAD_GC_FREEZE      1 (default): at the end of ``import nbgrad``, move what exists to the
                      garbage collector's permanent generation (``gc.freeze``) until exit,
                      so the run's collections do not walk it again and again (a long
                      graph's steps); not in an interactive session. 0: leave it alone.
NBGRAD_HEAP_TRIM_BYTES free memory glibc's malloc may keep at the top of its heap instead of
                      returning it at once (default 32 MiB; 0 leaves malloc's settings alone).
                      The smaller buffers an eager step frees (gradients, activations under
                      the pool's 128 KiB) sit at the heap's top: by default glibc gives them back
                      to the system every step and faults the pages in again the next (a
                      gradient's ``zero_grad`` cost 0.8 ms a step on gpt_block). With this set,
                      nbgrad also fixes malloc's mmap threshold at 4 MiB (glibc's own grows up
                      to 32 MiB). Linux with glibc only; skipped when MALLOC_TRIM_THRESHOLD_,
                      MALLOC_MMAP_THRESHOLD_, MALLOC_TOP_PAD_ or a GLIBC_TUNABLES malloc
                      setting is in the environment (the user's choice wins).
"""

import os
import sys

PARALLEL_MIN = int(os.environ.get("NBGRAD_PARALLEL_MIN", "131072"))
try:
    TIER_UP = float(os.environ.get("NBGRAD_TIER_UP", "0.005"))
except ValueError:
    TIER_UP = -1.0
if not TIER_UP >= 0:  # (nan too)
    raise ValueError("NBGRAD_TIER_UP must be a number of seconds, 0 or more, not "
                     f"{os.environ.get('NBGRAD_TIER_UP')!r}")
NUM_THREADS = os.environ.get("NBGRAD_NUM_THREADS")
THREADING_LAYER = os.environ.get("NBGRAD_THREADING_LAYER")
BLAS = os.environ.get("NBGRAD_BLAS", "auto").strip().lower()
if BLAS not in ("auto", "mkl", "openblas", "numpy"):
    raise ValueError(f"NBGRAD_BLAS must be auto, mkl, openblas or numpy, not {BLAS!r}")
CUDA_BLAS = os.environ.get("NBGRAD_CUDA_BLAS", "auto").strip().lower()
if CUDA_BLAS not in ("auto", "cublas", "nbgrad"):
    raise ValueError(f"NBGRAD_CUDA_BLAS must be auto, cublas or nbgrad, not {CUDA_BLAS!r}")
CUDA_CACHING = os.environ.get("NBGRAD_CUDA_CACHING", "1") != "0"
CACHE = os.environ.get("NBGRAD_CACHE", "1") != "0"
QUIET = os.environ.get("NBGRAD_QUIET", "0") == "1"
WIDE_VECTORS = os.environ.get("NBGRAD_WIDE_VECTORS", "1") == "1"
POOL_BYTES = int(os.environ.get("NBGRAD_POOL_BYTES")
                 or int(os.environ.get("NBGRAD_CPU_POOL_MB", "256")) << 20)
CACHE_DIR = os.environ.get(
    "NBGRAD_CACHE_DIR", os.path.join(os.path.expanduser("~"), ".cache", "nbgrad")
)
GC_FREEZE = os.environ.get("NBGRAD_GC_FREEZE", "1") != "0"
HEAP_TRIM_BYTES = int(os.environ.get("NBGRAD_HEAP_TRIM_BYTES", str(32 << 20)))
MMAP_THRESHOLD_BYTES = 4 << 20
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # glibc's malloc.h


def _tune_malloc():
    """Apply NBGRAD_HEAP_TRIM_BYTES (see above); True when malloc's settings were changed."""
    env = os.environ
    if (HEAP_TRIM_BYTES <= 0 or not sys.platform.startswith("linux")
            or any(k in env for k in ("MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_",
                                      "MALLOC_TOP_PAD_"))
            or "glibc.malloc" in env.get("GLIBC_TUNABLES", "")):
        return False
    try:
        if not os.confstr("CS_GNU_LIBC_VERSION"):  # musl and others: not glibc's knobs
            return False
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
    except (ValueError, OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    # (setting either turns off glibc's moving thresholds, so both are set)
    ok = mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES)
    return bool(mallopt(_M_TRIM_THRESHOLD, min(HEAP_TRIM_BYTES, 2**31 - 1)) and ok)


MALLOC_TUNED = _tune_malloc()
