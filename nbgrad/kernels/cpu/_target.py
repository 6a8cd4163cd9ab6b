"""What the CPU kernels are compiled for, as Numba was set up (``nbgrad._threads`` sets it
up before any kernel module is imported)."""

import numba


def vector_bits():
    """The widest vectors LLVM may use for nbgrad's kernels here: 512 where the CPU has
    AVX-512 and its 256-bit preference is off (NBGRAD_WIDE_VECTORS, or the user's own
    NUMBA_CPU_FEATURES), else 256. Hand-blocked kernels size their register tiles by it."""
    features = numba.config.CPU_FEATURES or ""
    return 512 if "+avx512f" in features and "-prefer-256-bit" in features else 256
