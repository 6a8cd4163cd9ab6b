"""Warnings PyTorch gives once per process (its ``TORCH_WARN_ONCE``): each is keyed, given
the first time its key is met, and every time while ``nbgrad.set_warn_always(True)``."""

import warnings

from ._runtime import _STATE

_GIVEN = set()  # the keys of the warnings given so far


def warn_once(key, message, category=UserWarning, stacklevel=2):
    """Warn ``message`` unless the warning keyed ``key`` was given already; ``stacklevel``
    counts from the caller of ``warn_once``, as ``warnings.warn``'s does from its caller."""
    if not _STATE["warn_always"]:  # (one given meanwhile does not count: PyTorch's either)
        if key in _GIVEN:
            return
        _GIVEN.add(key)
    warnings.warn(message, category, stacklevel=stacklevel + 1)
