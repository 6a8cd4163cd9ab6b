"""nbgrad's compiler (issue #15, in progress): ``compile`` traces a function once per call
signature (``trace``) and runs its elementwise ops as one generated kernel (``fuse``).
Eager code does not import it; it reads the op table."""

from .api import CompiledFunction, ExplainOutput, compile, explain, reset
from .fuse import FusedKernel, Program
from .trace import GraphBreak

__all__ = ["CompiledFunction", "ExplainOutput", "FusedKernel", "GraphBreak", "Program", "compile",
           "explain", "reset"]
