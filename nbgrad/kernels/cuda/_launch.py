"""Launch configuration shared by the CUDA kernels: grid-stride loops over n items, and
the block size of the block-wide tree reductions."""

from ._view import SIMULATOR

# Numba's simulator runs every thread of a block as a Python thread: starting 256 of them
# per launch cost more than the tiny tensors the tests run. The kernels are written for
# any block size (grid-stride loops; tree reductions over any power of two), so under the
# simulator the blocks are small; a real GPU gets the sizes chosen for it.
THREADS = 32 if SIMULATOR else 256
TPB = 32 if SIMULATOR else 128  # block reductions (a power of two)
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
