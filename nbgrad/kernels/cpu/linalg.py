"""Matrix products: big float ones on nbgrad's own threads, BLAS called from compiled code
(``blas.py``), operands read in place by their strides (no copy for ``a.T @ b`` in
backward); the rest through NumPy, kept to the calling thread."""

from .blas import matmul  # noqa: F401
