"""Numba CPU kernels: each has a serial and a ``parallel=True`` variant."""
