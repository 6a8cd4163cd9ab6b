"""Process-wide switches that PyTorch programs set and read: thread counts, deterministic
algorithms, float32 matrix-product precision, flushing denormals, warnings. nbgrad's
kernels are deterministic and compute float32 products in float32 whatever is set; the
settings are kept and read back as PyTorch's are."""

import os

_STATE = {"interop": None, "deterministic": False, "warn_only": False, "precision": "highest",
          "warn_always": False}


def get_num_threads():
    """The number of threads nbgrad's parallel kernels use (Numba's, for this thread).

    Example::

        >>> import nbgrad
        >>> nbgrad.get_num_threads() >= 1
        True
    """
    import numba

    return numba.get_num_threads()


def set_num_threads(int):  # noqa: A002  (PyTorch's argument name)
    """Use ``int`` threads for parallel kernels on this thread (at most Numba's pool size,
    ``NUMBA_NUM_THREADS``, fixed when its pool starts)."""
    import numba

    if isinstance(int, bool) or not isinstance(int, type(1)) or int <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")
    numba.set_num_threads(min(int, numba.config.NUMBA_NUM_THREADS))


def get_num_interop_threads():
    """The inter-op thread count PyTorch programs read (nbgrad runs ops one at a time: the
    value set, else the number of cores)."""
    n = _STATE["interop"]
    return n if n is not None else (os.cpu_count() or 1)


def set_num_interop_threads(int):  # noqa: A002
    """Record the inter-op thread count (PyTorch's call; nbgrad has no inter-op pool)."""
    if isinstance(int, bool) or not isinstance(int, type(1)) or int <= 0:
        raise RuntimeError("set_num_interop_threads expects a positive integer")
    _STATE["interop"] = int


def use_deterministic_algorithms(mode, *, warn_only=False):
    """Ask for deterministic algorithms: nbgrad's are (no atomics, no order that depends on
    timing), so this records the setting for ``are_deterministic_algorithms_enabled``."""
    if not isinstance(mode, bool):
        raise TypeError(f"_set_deterministic_algorithms(): argument 'mode' (position 1) must "
                        f"be bool, not {type(mode).__name__}")
    _STATE["deterministic"], _STATE["warn_only"] = mode, bool(warn_only)


def are_deterministic_algorithms_enabled():
    """Whether ``use_deterministic_algorithms(True)`` is in effect."""
    return _STATE["deterministic"]


def is_deterministic_algorithms_warn_only_enabled():
    """Whether it was set with ``warn_only=True``."""
    return _STATE["warn_only"]


def set_deterministic_debug_mode(debug_mode):
    """PyTorch's ``"default"``/0, ``"warn"``/1, ``"error"``/2 form of the setting above."""
    modes = {"default": 0, "warn": 1, "error": 2}
    if isinstance(debug_mode, str):
        if debug_mode not in modes:
            raise RuntimeError(f"invalid value of debug_mode, expected one of `default`, "
                               f"`warn`, `error`, but got {debug_mode}")
        debug_mode = modes[debug_mode]
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got "
                           f"{debug_mode}")
    use_deterministic_algorithms(debug_mode > 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode():
    """0, 1 or 2 for the deterministic setting (off, warn only, on)."""
    if not _STATE["deterministic"]:
        return 0
    return 1 if _STATE["warn_only"] else 2


def set_float32_matmul_precision(precision):
    """``"highest"``, ``"high"`` or ``"medium"``: a hint PyTorch may use for TF32 or
    bfloat16 products; nbgrad always computes float32 products in float32."""
    if precision not in ("highest", "high", "medium"):
        import warnings

        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      "setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=2)
        return
    _STATE["precision"] = precision


def get_float32_matmul_precision():
    """The precision last set (``"highest"`` by default)."""
    return _STATE["precision"]


def set_flush_denormal(mode):
    """PyTorch flushes denormal floats to zero where the CPU can; nbgrad's kernels do not:
    returns False, PyTorch's answer where it is not supported."""
    return False


def set_warn_always(b):
    """Record whether warnings PyTorch gives once should be given every time."""
    _STATE["warn_always"] = bool(b)


def is_warn_always_enabled():
    """The value set by ``set_warn_always``."""
    return _STATE["warn_always"]
