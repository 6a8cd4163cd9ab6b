"""Matrix products: BLAS called from compiled code on nbgrad's own threads (``blas.py``)
for float matrices BLAS can read in place, transposed operands included (no copy for
``a.T @ b`` in backward); anything else through NumPy."""

import numpy as np

from .blas import gemm


def matmul(a, b, out):
    """``out = a @ b`` for 2-d or batched 3-d operands of the same batch size."""
    if not gemm(a, b, out):
        np.matmul(a, b, out=out)
