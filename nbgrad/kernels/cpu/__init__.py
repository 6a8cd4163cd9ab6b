"""Numba CPU kernels: each has a serial and a ``parallel=True`` variant."""

import importlib.util
import sys


def _probe_blas_without_scipy_import():
    """Numba's CPU target setup (first compile or cache load in a process) imports
    ``numba.np.arraymath``, which imports ``scipy.linalg`` (~0.2 s, a fifth of a warm
    start) only to learn whether ``np.dot`` in compiled code can call BLAS. No nbgrad kernel
    does (matmul goes to NumPy), so import that module first with a probe that finds
    ``scipy.linalg`` without importing it. The answer is the same wherever SciPy is
    installed, and Numba still imports it for real when a program compiles ``np.dot``."""
    if "numba.np.arraymath" in sys.modules:
        return
    from numba.np import linalg

    real = getattr(linalg, "ensure_blas", None)
    if real is None:
        return

    def probe():
        # (a missing scipy raises ModuleNotFoundError here, an ImportError, as Numba expects)
        if importlib.util.find_spec("scipy.linalg") is None:
            raise ImportError("scipy 0.16+ is required for linear algebra")

    linalg.ensure_blas = probe
    try:
        from numba.np import arraymath
    finally:
        linalg.ensure_blas = real
    if getattr(arraymath, "ensure_blas", None) is probe:
        arraymath.ensure_blas = real


_probe_blas_without_scipy_import()
