"""Thread-local grad mode: ``no_grad``, ``enable_grad``, ``set_grad_enabled``,
``inference_mode``. Each works as a context manager and as a decorator."""

import functools
import inspect
import threading


class _State(threading.local):
    enabled = True
    inference = False
    # a gradient tensor that only the backward engine holds, lent to the running node's
    # backward rule: the first op given it as its first operand may write into it
    owned = None


STATE = _State()

# ----- inference tensors: made inside inference_mode, marked by their version counter's type
# (views and detached aliases share the counter, so they are inference tensors too)
ACTIVE = [0]  # inference_mode blocks open in any thread: while none is, no new tensor is one
_LOCK = threading.Lock()
INPLACE_ERROR = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a "
    "clone to get a normal tensor before doing inplace update.See "
    "https://github.com/pytorch/rfcs/pull/17 for more details."
)
SAVED_ERROR = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a "
    "clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead of "
    "`torch.inference_mode()`."
)


class InferenceVersion(list):
    """The version counter of an inference tensor: a write to it (an in-place op) outside
    inference mode is PyTorch's error."""

    __slots__ = ()

    def __setitem__(self, i, v):
        if not STATE.inference:
            raise RuntimeError(INPLACE_ERROR)
        list.__setitem__(self, i, v)


def version_counter():
    """A new tensor's version counter (an inference tensor's in inference mode); callers
    ask only while ``ACTIVE[0]``, so other tensors cost one list read."""
    return InferenceVersion([0]) if STATE.inference else [0]


def check_not_inference(t):
    """Before an in-place write into ``t``: PyTorch's error for an inference tensor outside
    inference mode (the version counter would raise too, but after the write)."""
    if t._vc.__class__ is InferenceVersion and not STATE.inference:
        raise RuntimeError(INPLACE_ERROR)


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

        def block():
            return mode.__class__(*mode._args())

        if inspect.isgeneratorfunction(fn):
            return _generator_wrapper(fn, block)

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with block():
                return fn(*args, **kwargs)

        return wrapper

    def _args(self):
        return ()

    def __exit__(self, *exc):
        STATE.enabled = self._prev
        return False


def _generator_wrapper(fn, block):
    """A decorated generator function: its body runs in the mode at each step, the caller's
    mode is back between steps (as PyTorch's decorators do)."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        gen = fn(*args, **kwargs)
        try:
            with block():
                response = gen.send(None)
            while True:
                try:
                    request = yield response
                except GeneratorExit:
                    with block():
                        gen.close()
                    raise
                except BaseException as e:  # noqa: BLE001 (thrown in: pass it on)
                    with block():
                        response = gen.throw(e)
                else:
                    with block():
                        response = gen.send(request)
        except StopIteration as e:
            return e.value

    return wrapper


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
    """Like ``no_grad``, and tensors made inside are inference tensors (as PyTorch's): they
    cannot be saved for backward, modified in place outside inference mode, or made to
    require grad; ``Tensor.is_inference()`` tells one.

    Example::

        >>> import nbgrad
        >>> with nbgrad.inference_mode():
        ...     y = nbgrad.ones(2) * 2
        >>> y.is_inference(), y.requires_grad
        (True, False)
    """

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
        with _LOCK:
            ACTIVE[0] += 1
        return self

    def __exit__(self, *exc):
        STATE.enabled = self._prev
        STATE.inference = self._prev_inf
        with _LOCK:
            ACTIVE[0] -= 1
        return False
