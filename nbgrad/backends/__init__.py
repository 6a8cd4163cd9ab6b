"""``nbgrad.backends``: what nbgrad was built with, and flags programs set, as in
``torch.backends``.

A small subset of PyTorch's module, each entry true of nbgrad: ``cpu.get_cpu_capability()``,
``cuda.is_built()`` and ``cuda.matmul.allow_tf32``, ``cudnn`` (not used: ``is_available()``
is False and its flags change nothing), ``mkldnn`` and ``mps`` (not used), ``openmp``.
Importing it imports no ``numba.cuda``. (Storage per device lives in ``nbgrad.storage``.)
"""

from . import cpu, cuda, cudnn, mkldnn, mps, openmp

__all__ = ["cpu", "cuda", "cudnn", "mkldnn", "mps", "openmp"]
