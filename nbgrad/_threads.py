"""Threading setup, chosen before Numba starts its thread pool (see _config)."""

import numba

from . import _config


def setup():
    """Apply the threading layer and thread count chosen by environment variables."""
    if numba.config.THREADING_LAYER == "default" and _config.THREADING_LAYER:
        numba.config.THREADING_LAYER = _config.THREADING_LAYER
    if _config.NUM_THREADS:
        numba.config.NUMBA_NUM_THREADS = int(_config.NUM_THREADS)
