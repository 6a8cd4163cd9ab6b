"""The cyclic garbage collector paused while nbgrad builds its long-lived tables."""

import contextlib
import gc


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
