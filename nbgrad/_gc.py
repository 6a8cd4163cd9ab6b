"""The cyclic garbage collector while nbgrad is imported: paused as it builds its long-lived
tables, then told to leave what exists at the end of the import alone until exit
(``gc.freeze``)."""

import atexit
import contextlib
import gc
import sys

from . import _config


@contextlib.contextmanager
def paused():
    """Run the block with the cyclic garbage collector off, and turn it back on after
    (unless it was already off).

    ``import nbgrad`` allocates tens of thousands of objects that live as long as the
    process (the op table, its node classes, Numba's dispatchers) and frees almost none:
    each collection during it walks a growing heap to find nothing. Over a warm-cache start
    (import, the first MLP step) those collections took ~30 ms of ~0.4 s, and they brought
    on a second full collection in the step. Nothing is lost: what the block leaves
    unreachable is collected after it, as the collector runs again."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


@contextlib.contextmanager
def importing():
    """``import nbgrad``'s block: the collector ``paused`` in it, ``freeze_imported``
    after it (not after an error: a failed import leaves the collector as it was)."""
    with paused():
        yield
    freeze_imported()


def freeze_imported():
    """Move every object that exists now (the end of ``import nbgrad``) to the collector's
    permanent generation, which the collections of the run do not walk, and put it back at
    exit; returns whether it did.

    After the import a process holds ~100,000 objects the collector tracks (NumPy's, Numba's
    typing and target registries, nbgrad's tables), nearly all of them alive until the
    process ends, and every full collection walked them all again. A long autograd graph
    sets off such collections as it grows (the 20,000-op deep_chain: a full collection
    every other step, its median step 117-144 ms -> 99-103 ms frozen, PyTorch's 118-153),
    and so does Numba's cache loading in a first step. At exit they are unfrozen
    (``atexit``), so the interpreter's last collections find what they always found: a
    module's objects in reference cycles are finalized as usual (left frozen, a
    module-level object in a cycle was never finalized: a ``__del__`` that writes a file
    did not run). The cost: an object that existed before the import (or a little garbage
    the import itself left) and becomes unreachable through a cycle during the run is
    collected only at exit (a script imports its libraries before it makes its data). Not
    done in an interactive session (IPython, Jupyter, ``python -i``), where the user's
    earlier work precedes the import, nor where the collector is off or
    ``NBGRAD_GC_FREEZE=0``."""
    if (not _config.GC_FREEZE or not gc.isenabled() or sys.flags.interactive
            or hasattr(sys, "ps1") or "IPython" in sys.modules):
        return False
    # (no collection first: a pass over the import's young objects took 30-60 ms to find the
    # little garbage it leaves, which the collections at exit find instead)
    gc.freeze()
    atexit.register(gc.unfreeze)
    return True
