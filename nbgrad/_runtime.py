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
    """set_num_threads(int) -> None

    Set the number of threads nbgrad's parallel kernels use on this thread: Numba's thread
    count, at most the size of its pool (``NUMBA_NUM_THREADS``, fixed when the pool starts).

    Args:
        int (int): the number of threads, at least 1 (a larger number than the pool's is
            taken as the pool's size).

    Example::

        >>> import nbgrad
        >>> n = nbgrad.get_num_threads()
        >>> nbgrad.set_num_threads(1)
        >>> nbgrad.get_num_threads()
        1
        >>> nbgrad.set_num_threads(n)
    """
    import numba

    if isinstance(int, bool) or not isinstance(int, type(1)) or int <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")
    numba.set_num_threads(min(int, numba.config.NUMBA_NUM_THREADS))


def get_num_interop_threads():
    """get_num_interop_threads() -> int

    The number of threads for inter-op parallelism that PyTorch programs read. nbgrad runs
    operations one at a time and has no inter-op pool: the value last set with
    :func:`set_num_interop_threads`, else the number of CPU cores.

    Example::

        >>> import nbgrad
        >>> nbgrad.get_num_interop_threads() >= 1
        True
    """
    n = _STATE["interop"]
    return n if n is not None else (os.cpu_count() or 1)


def set_num_interop_threads(int):  # noqa: A002
    """set_num_interop_threads(int) -> None

    Record the number of inter-op threads, which :func:`get_num_interop_threads` then
    returns. nbgrad has no inter-op pool: the value changes nothing else.

    Args:
        int (int): the number of threads, at least 1.

    Example::

        >>> import nbgrad
        >>> n = nbgrad.get_num_interop_threads()
        >>> nbgrad.set_num_interop_threads(2)
        >>> nbgrad.get_num_interop_threads()
        2
        >>> nbgrad.set_num_interop_threads(n)
    """
    if isinstance(int, bool) or not isinstance(int, type(1)) or int <= 0:
        raise RuntimeError("set_num_interop_threads expects a positive integer")
    _STATE["interop"] = int


def use_deterministic_algorithms(mode, *, warn_only=False):
    """use_deterministic_algorithms(mode, *, warn_only=False) -> None

    Ask for deterministic algorithms only. nbgrad's kernels are all deterministic (no atomic
    accumulations, no order that depends on thread timing), so nothing changes; the setting is
    recorded for :func:`are_deterministic_algorithms_enabled` and
    :func:`is_deterministic_algorithms_warn_only_enabled`.

    Args:
        mode (bool): whether deterministic algorithms are required.
        warn_only (bool, optional): PyTorch would warn instead of raising for an operation
            without a deterministic form. Default: ``False``.

    Example::

        >>> import nbgrad
        >>> nbgrad.use_deterministic_algorithms(True)
        >>> nbgrad.are_deterministic_algorithms_enabled()
        True
        >>> nbgrad.use_deterministic_algorithms(False)
    """
    if not isinstance(mode, bool):
        raise TypeError(f"_set_deterministic_algorithms(): argument 'mode' (position 1) must "
                        f"be bool, not {type(mode).__name__}")
    _STATE["deterministic"], _STATE["warn_only"] = mode, bool(warn_only)


def are_deterministic_algorithms_enabled():
    """are_deterministic_algorithms_enabled() -> bool

    Whether deterministic algorithms were asked for, by
    :func:`use_deterministic_algorithms` (``mode=True``) or
    :func:`set_deterministic_debug_mode` (1 or 2).

    Example::

        >>> import nbgrad
        >>> nbgrad.use_deterministic_algorithms(False)
        >>> nbgrad.are_deterministic_algorithms_enabled()
        False
    """
    return _STATE["deterministic"]


def is_deterministic_algorithms_warn_only_enabled():
    """is_deterministic_algorithms_warn_only_enabled() -> bool

    Whether :func:`use_deterministic_algorithms` was last called with ``warn_only=True``.

    Example::

        >>> import nbgrad
        >>> nbgrad.use_deterministic_algorithms(True, warn_only=True)
        >>> nbgrad.is_deterministic_algorithms_warn_only_enabled()
        True
        >>> nbgrad.use_deterministic_algorithms(False)
    """
    return _STATE["warn_only"]


def set_deterministic_debug_mode(debug_mode):
    """set_deterministic_debug_mode(debug_mode) -> None

    The deterministic setting as a debug mode: ``"default"`` or ``0`` (off), ``"warn"`` or
    ``1`` (``use_deterministic_algorithms(True, warn_only=True)``), ``"error"`` or ``2``
    (``use_deterministic_algorithms(True)``).

    Args:
        debug_mode (str or int): the mode, by name or number.

    Example::

        >>> import nbgrad
        >>> nbgrad.set_deterministic_debug_mode("warn")
        >>> nbgrad.get_deterministic_debug_mode()
        1
        >>> nbgrad.set_deterministic_debug_mode(0)
    """
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
    """get_deterministic_debug_mode() -> int

    The deterministic setting as a number: ``0`` off, ``1`` warn only, ``2`` on (see
    :func:`set_deterministic_debug_mode`).

    Example::

        >>> import nbgrad
        >>> nbgrad.use_deterministic_algorithms(True)
        >>> nbgrad.get_deterministic_debug_mode()
        2
        >>> nbgrad.use_deterministic_algorithms(False)
    """
    if not _STATE["deterministic"]:
        return 0
    return 1 if _STATE["warn_only"] else 2


def set_float32_matmul_precision(precision):
    """set_float32_matmul_precision(precision) -> None

    Set the precision of float32 matrix products: ``"highest"``, ``"high"`` or ``"medium"``,
    a hint PyTorch may follow with TF32 or bfloat16 arithmetic. nbgrad always multiplies
    float32 matrices in float32; the value is recorded for
    :func:`get_float32_matmul_precision`. Another string warns and changes nothing.

    Args:
        precision (str): ``"highest"``, ``"high"`` or ``"medium"``.

    Example::

        >>> import nbgrad
        >>> nbgrad.set_float32_matmul_precision("high")
        >>> nbgrad.get_float32_matmul_precision()
        'high'
        >>> nbgrad.set_float32_matmul_precision("highest")
    """
    if precision not in ("highest", "high", "medium"):
        import warnings

        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      "setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=2)
        return
    _STATE["precision"] = precision


def get_float32_matmul_precision():
    """get_float32_matmul_precision() -> str

    The precision of float32 matrix products last set with
    :func:`set_float32_matmul_precision`: ``"highest"`` unless changed.

    Example::

        >>> import nbgrad
        >>> nbgrad.get_float32_matmul_precision() in ("highest", "high", "medium")
        True
    """
    return _STATE["precision"]


def set_flush_denormal(mode):
    """set_flush_denormal(mode) -> bool

    Ask for denormal floating-point numbers to be flushed to zero. nbgrad's kernels do not
    support it: it returns ``False``, PyTorch's answer on a CPU without the feature, and
    changes nothing.

    Args:
        mode (bool): whether to flush denormals.

    Example::

        >>> import nbgrad
        >>> nbgrad.set_flush_denormal(True)
        False
    """
    return False


def set_warn_always(b):
    """set_warn_always(b) -> None

    Give the warnings that are given once per process (deprecations, ``float()`` of a
    tensor that requires grad, ...) every time while ``b`` is true; one given meanwhile does
    not use up its once, as in PyTorch. :func:`is_warn_always_enabled` returns it.

    Args:
        b (bool): give them every time.

    Example::

        >>> import nbgrad
        >>> nbgrad.set_warn_always(True)
        >>> nbgrad.is_warn_always_enabled()
        True
        >>> nbgrad.set_warn_always(False)
    """
    _STATE["warn_always"] = bool(b)


def is_warn_always_enabled():
    """is_warn_always_enabled() -> bool

    The value last set with :func:`set_warn_always` (``False`` unless changed).

    Example::

        >>> import nbgrad
        >>> nbgrad.set_warn_always(False)
        >>> nbgrad.is_warn_always_enabled()
        False
    """
    return _STATE["warn_always"]
