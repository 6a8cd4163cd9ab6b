"""Thread-local grad mode: ``no_grad``, ``enable_grad``, ``set_grad_enabled``,
``inference_mode``. Each works as a context manager and as a decorator."""

import functools
import threading


class _State(threading.local):
    enabled = True
    inference = False
    # a gradient tensor that only the backward engine holds, lent to the running node's
    # backward rule: the first op given it as its first operand may write into it
    owned = None


STATE = _State()


def is_grad_enabled():
    """True when ops record a graph in this thread."""
    return STATE.enabled


def is_inference_mode_enabled():
    """True inside ``inference_mode()`` in this thread."""
    return STATE.inference


class _Mode:
    """Base: subclasses set the state in ``__enter__`` and restore it in ``__exit__``."""

    def __call__(self, fn):
        mode = self

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with mode.__class__(*mode._args()):
                return fn(*args, **kwargs)

        return wrapper

    def _args(self):
        return ()

    def __exit__(self, *exc):
        STATE.enabled = self._prev
        return False


class _NoParam(_Mode):
    """Also usable as a bare decorator: ``@nbgrad.no_grad``."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_NoParam):
    """Disable graph recording: ``with nbgrad.no_grad(): y = model(x)``."""

    def __enter__(self):
        self._prev = STATE.enabled
        STATE.enabled = False
        return self


class enable_grad(_NoParam):
    """Enable graph recording, e.g. inside a ``no_grad`` block."""

    def __enter__(self):
        self._prev = STATE.enabled
        STATE.enabled = True
        return self


class set_grad_enabled(_Mode):
    """Set grad mode now (as a function) or for a block (as a context manager)."""

    def __init__(self, mode):
        self._prev = STATE.enabled
        self.mode = bool(mode)
        STATE.enabled = self.mode

    def _args(self):
        return (self.mode,)

    def __call__(self, fn):
        STATE.enabled = self._prev  # used as a decorator: undo the eager switch
        return super().__call__(fn)

    def __enter__(self):
        return self


class inference_mode(_Mode):
    """Like ``no_grad`` (nbgrad differs: inference tensors carry no extra flag)."""

    def __new__(cls, mode=True):
        if callable(mode):  # bare ``@inference_mode``
            return cls()(mode)
        return super().__new__(cls)

    def __init__(self, mode=True):
        self.mode = bool(mode)

    def _args(self):
        return (self.mode,)

    def __enter__(self):
        self._prev = STATE.enabled
        self._prev_inf = STATE.inference
        STATE.enabled = not self.mode  # inference_mode(False) turns grad mode on, as torch
        STATE.inference = self.mode
        return self

    def __exit__(self, *exc):
        STATE.enabled = self._prev
        STATE.inference = self._prev_inf
        return False
