"""CUDA kernels (``@numba.cuda.jit``), imported only by the CUDA backend."""
