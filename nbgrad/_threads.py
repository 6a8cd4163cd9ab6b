"""Numba process setup, applied when this module is imported (``import nbgrad`` imports it
first), before Numba compiles anything or starts its thread pool (see _config): the
threading layer, the thread count, the vector width, where the kernel cache lives, and the first-compile notice."""

import os
import sys

# OpenBLAS's idle workers spin for about 0.1 s after each call (its default timeout, 2**28
# cycles) and take a core from the Numba parallel kernel that runs next: beside a matmul,
# a parallel conv2d took 19 ms instead of 10.7, and cnn_step ran 1.5x torch instead of 1.0x.
# OpenBLAS reads this once, when NumPy loads it, so it helps only when nbgrad is imported
# before NumPy; a user's own value wins.
if "numpy" not in sys.modules:
    os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")

import numba  # noqa: E402

from . import _config


def setup():
    """Apply the threading layer and thread count chosen by environment variables."""
    if numba.config.THREADING_LAYER == "default":
        if _config.THREADING_LAYER:
            numba.config.THREADING_LAYER = _config.THREADING_LAYER
        else:
            # OpenMP first: its threads spin a little (GNU's default, about 0.1 ms) before
            # they sleep, so a parallel loop starts in microseconds; waking sleeping threads
            # (workqueue, or OpenMP told to be passive) cost 100-300 µs a loop on a virtual
            # machine, more than a 262,144-element add takes serially. The spinning no
            # longer fights OpenBLAS's threads: matrix products run on this same pool
            # (kernels/cpu/blas.py).
            numba.config.THREADING_LAYER_PRIORITY = ["omp", "tbb", "workqueue"]
    if _config.NUM_THREADS:
        numba.config.NUMBA_NUM_THREADS = int(_config.NUM_THREADS)
    if _config.WIDE_VECTORS:
        _prefer_512_bit_vectors()
    from .kernels.cpu import _disk, _notice

    if _config.CACHE:
        _disk.install()
    _notice.install()


def _prefer_512_bit_vectors():
    """Let LLVM use 512-bit vectors where the CPU has AVX-512.

    LLVM's tuning for Intel's AVX-512 cores prefers 256-bit vectors (older parts lowered
    their clock for 512-bit code). nbgrad's float32 math is compute-bound there: with the
    tuning flag off, exp and tanh over 4M elements ran 25-35% faster on this project's
    Xeon; memory-bound loops do not change. Numba reads the features once, when it first
    compiles, so this applies to every Numba function in the process; a user's own
    NUMBA_CPU_NAME / NUMBA_CPU_FEATURES win, and NBGRAD_WIDE_VECTORS=0 turns it off.
    """
    if numba.config.CPU_FEATURES is not None or numba.config.CPU_NAME is not None:
        return
    try:
        from numba.core.codegen import get_host_cpu_features

        features = get_host_cpu_features()
    except Exception:  # no LLVM host information: leave Numba's defaults
        return
    if "+avx512f" in features.split(","):
        numba.config.CPU_FEATURES = features + ",-prefer-256-bit"


setup()
