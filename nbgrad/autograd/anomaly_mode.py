"""Anomaly detection: remember where each node was created, and fail on NaN in backward."""

import traceback
import warnings

import numpy as np

ENABLED = [False, True]  # [detect, check_nan]


class set_detect_anomaly:
    """Turn anomaly detection on or off (function or context manager)."""

    def __init__(self, mode, check_nan=True):
        self.prev = list(ENABLED)
        ENABLED[0] = bool(mode)
        ENABLED[1] = bool(check_nan)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        ENABLED[:] = self.prev
        return False


class detect_anomaly(set_detect_anomaly):
    """Context manager / decorator enabling anomaly detection for its block."""

    def __init__(self, check_nan=True):
        self.check_nan = check_nan
        self.prev = None

    def __enter__(self):
        # warn first: a warning made an error must leave the mode off (no __exit__ follows)
        warnings.warn(
            "Anomaly Detection has been enabled. This mode will increase the runtime and "
            "should only be enabled for debugging.", UserWarning, stacklevel=2,
        )
        self.prev = list(ENABLED)
        ENABLED[:] = [True, bool(self.check_nan)]
        return self

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*a, **k):
            with detect_anomaly(self.check_nan):
                return fn(*a, **k)

        return wrapper


def is_anomaly_enabled():
    """is_anomaly_enabled() -> bool

    Whether anomaly detection is on (:class:`nbgrad.autograd.detect_anomaly` or
    :class:`nbgrad.autograd.set_detect_anomaly`): backward then reports where the operation
    that failed was created, and checks its gradients for NaN.

    Example::

        >>> import nbgrad
        >>> nbgrad.is_anomaly_enabled()
        False
        >>> with nbgrad.autograd.set_detect_anomaly(True):
        ...     print(nbgrad.is_anomaly_enabled())
        True
    """
    return ENABLED[0]


def remember(node):
    """Store the forward stack of the op that made ``node``."""
    node._anomaly = "".join(traceback.format_stack()[:-3])


def check(node, outs):
    """Raise when a backward output of ``node`` holds NaN, showing the forward stack."""
    if not ENABLED[1]:
        return
    from ..storage import for_device

    for i, g in enumerate(outs):
        if g is None:
            continue
        arr = np.asarray(for_device(g._device).to_host(g._data))
        if arr.dtype.kind == "f" and np.isnan(arr).any():
            if node._anomaly:
                warnings.warn(
                    f"Error detected in {node.name()}. Traceback of forward call that caused "
                    f"the error:\n{node._anomaly}", UserWarning, stacklevel=2,
                )
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")
