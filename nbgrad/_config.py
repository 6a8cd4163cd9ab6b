"""Environment knobs, read once at import.

NBGRAD_PARALLEL_MIN   element count from which CPU kernels use their ``parallel=True``
                      variant (default 131072). Smaller tensors take the serial kernels,
                      since entering a thread pool costs microseconds.
NBGRAD_NUM_THREADS    threads for Numba's parallel kernels (default: Numba's own choice).
NBGRAD_THREADING_LAYER Numba threading layer (default ``workqueue``; ``omp`` or ``tbb``
                      when installed). ``workqueue`` does not spin, so it leaves BLAS alone.
"""

import os

PARALLEL_MIN = int(os.environ.get("NBGRAD_PARALLEL_MIN", "131072"))
NUM_THREADS = os.environ.get("NBGRAD_NUM_THREADS")
THREADING_LAYER = os.environ.get("NBGRAD_THREADING_LAYER", "workqueue")
