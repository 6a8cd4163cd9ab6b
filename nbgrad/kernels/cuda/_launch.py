"""Launch configuration shared by the CUDA kernels: grid-stride loops over n items."""

THREADS = 256
MAX_BLOCKS = 4096


def grid(n):
    """(blocks, threads) covering ``n`` items with grid-stride loops."""
    blocks = max(1, min(MAX_BLOCKS, (n + THREADS - 1) // THREADS))
    return blocks, THREADS


def device_fn(f):
    """A CUDA device function compiled from the Python source of an ``@njit`` scalar function."""
    from numba import cuda

    py = getattr(f, "py_func", f)
    return cuda.jit(device=True)(py)
