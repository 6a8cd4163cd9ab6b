"""nbgrad's compiler (issue #15, in progress): programs of elementwise ops fused into one
generated kernel each (``fuse``). Tracing a function into such programs, and
``nbgrad.compile`` itself, come next; nothing here changes how eager code runs."""

from .fuse import FusedKernel, Program

__all__ = ["FusedKernel", "Program"]
