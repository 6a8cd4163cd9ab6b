"""``nbgrad.backends.openmp``: OpenMP, one of Numba's threading layers."""

import importlib.util


def is_available():
    r"""Return whether nbgrad can run its parallel kernels on OpenMP threads: whether this
    Numba has its OpenMP threading layer. nbgrad uses it only when asked
    (``NBGRAD_THREADING_LAYER=omp``); its default layer is Numba's ``workqueue``."""
    return importlib.util.find_spec("numba.np.ufunc.omppool") is not None
