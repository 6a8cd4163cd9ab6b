"""nbgrad's compiler (issue #15): ``compile`` traces a function once per call signature
(``trace``) into a graph of fused elementwise regions and row calls (``graph``), each region
one generated kernel (``fuse``), forward and backward. Eager code does not import it; it
reads the op table."""

from .api import CompiledFunction, ExplainOutput, compile, explain, reset
from .fuse import FusedKernel, Program
from .graph import GraphBreak
from .trace import kernel_count

__all__ = ["CompiledFunction", "ExplainOutput", "FusedKernel", "GraphBreak", "Program", "compile",
           "explain", "kernel_count", "reset"]
