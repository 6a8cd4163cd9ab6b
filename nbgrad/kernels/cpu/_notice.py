"""One line on stderr when a process starts compiling nbgrad's kernels, so a first call
that stalls for seconds says why: ``nbgrad: compiling kernels for float32 on first use;
cached for later runs``. Once per process; ``NBGRAD_QUIET=1`` hides it. Numba announces
real compiles only (a kernel loaded from the disk cache says nothing), so a warm start
prints nothing."""

import os
import sys

from numba.core import event, types

from ... import _config


def _dtype(args):
    """The element type of the first array argument (else the first number's), as text."""
    args = tuple(args or ())
    for a in args:
        if isinstance(a, types.Array):
            return str(a.dtype)
    for a in args:
        if isinstance(a, types.Number):
            return str(a)
    return "these inputs"


def _ours(dispatcher):
    py = getattr(dispatcher, "py_func", None)
    code = getattr(py, "__code__", None)
    return ((getattr(py, "__module__", None) or "").startswith("nbgrad")
            or "nbgrad" in getattr(code, "co_filename", ""))


class _Notice(event.Listener):
    def __init__(self, stream=None):
        self.stream = stream
        self.said = False

    def on_start(self, ev):
        if self.said or not _ours((ev.data or {}).get("dispatcher")):
            return
        self.said = True
        off = " (NBGRAD_CACHE=0)" if os.environ.get("NBGRAD_CACHE") == "0" else ""
        later = "cached for later runs" if _config.CACHE else f"not cached{off}"
        print(f"nbgrad: compiling kernels for {_dtype(ev.data.get('args'))} on first use; "
              f"{later}", file=self.stream or sys.stderr, flush=True)

    def on_end(self, ev):
        pass


def install():
    """Listen for Numba's compile events (once), unless ``NBGRAD_QUIET=1``."""
    if not _config.QUIET and not any(isinstance(x, _Notice)
                                     for x in event._registered["numba:compile"]):
        event.register("numba:compile", _Notice())


def hush():
    """Say nothing from now on in this process (``warmup`` shows its own progress)."""
    for x in event._registered["numba:compile"]:
        if isinstance(x, _Notice):
            x.said = True
