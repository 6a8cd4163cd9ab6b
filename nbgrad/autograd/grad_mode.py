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
    """is_grad_enabled() -> bool

    Whether operations record an autograd graph in this thread: ``True`` unless turned off
    by :class:`no_grad`, ``set_grad_enabled(False)`` or :class:`inference_mode`.

    Example::

        >>> import nbgrad
        >>> nbgrad.is_grad_enabled()
        True
        >>> with nbgrad.no_grad():
        ...     print(nbgrad.is_grad_enabled())
        False
    """
    return STATE.enabled


def is_inference_mode_enabled():
    """is_inference_mode_enabled() -> bool

    Whether this thread is inside an :class:`inference_mode` block (or a function it
    decorates) whose mode is on.

    Example::

        >>> import nbgrad
        >>> nbgrad.is_inference_mode_enabled()
        False
        >>> with nbgrad.inference_mode():
        ...     print(nbgrad.is_inference_mode_enabled())
        True
    """
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
    """Context manager (and decorator) that turns off graph recording.

    Inside the block, operations build no autograd graph and their results have
    ``requires_grad=False``, even when their inputs require grad. Use it for inference
    and evaluation (less memory: nothing is saved for backward) and for updates that must
    not be recorded, such as an optimizer's in-place step on the parameters. Tensors made
    inside are ordinary tensors that may be used with autograd later (unlike
    :class:`inference_mode`'s).

    The mode is per thread, and the previous mode is restored on exit (also when the block
    raises). It can decorate a function, written ``@nbgrad.no_grad`` or
    ``@nbgrad.no_grad()``: each call then runs with recording off; a decorated generator
    function runs each of its steps so.

    Args:
        orig_func (callable, optional): the function to decorate, when the class itself is
            the decorator (``@nbgrad.no_grad``, no parentheses); ``no_grad()`` takes
            nothing. Default: ``None``.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([1.0, 2.0], requires_grad=True)
        >>> with nbgrad.no_grad():
        ...     y = x * 2
        >>> y.requires_grad
        False
        >>> @nbgrad.no_grad
        ... def double(t):
        ...     return t * 2
        >>> double(x).requires_grad
        False
    """

    def __enter__(self):
        self._prev = STATE.enabled
        STATE.enabled = False
        return self


class enable_grad(_NoParam):
    """Context manager (and decorator) that turns graph recording on.

    The counterpart of :class:`no_grad`: inside a ``no_grad`` block (or with
    ``set_grad_enabled(False)``), it makes ops record a graph again for a nested block or a
    decorated function. The mode is per thread and restored on exit. It does not undo
    :class:`inference_mode`'s inference tensors.

    Args:
        orig_func (callable, optional): the function to decorate, when the class itself is
            the decorator (``@nbgrad.enable_grad``, no parentheses); ``enable_grad()``
            takes nothing. Default: ``None``.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([1.0], requires_grad=True)
        >>> with nbgrad.no_grad():
        ...     with nbgrad.enable_grad():
        ...         y = x * 2
        ...     z = x * 2
        >>> y.requires_grad, z.requires_grad
        (True, False)
    """

    def __enter__(self):
        self._prev = STATE.enabled
        STATE.enabled = True
        return self


class set_grad_enabled(_Mode):
    """Turn graph recording on or off, as a function call or for a ``with`` block.

    Called as a function, ``set_grad_enabled(mode)`` switches the mode at once and leaves
    it so (for this thread). Used as a context manager, the previous mode comes back when
    the block exits; as a decorator (``@set_grad_enabled(False)``), each call of the
    function runs in ``mode`` and the caller's mode is unchanged. Handy to share one code
    path between training and evaluation: ``with set_grad_enabled(is_train): ...``.

    Args:
        mode (bool): ``True`` records a graph (as :class:`enable_grad`), ``False`` does not
            (as :class:`no_grad`).

    Example::

        >>> x = nbgrad.tensor([1.0], requires_grad=True)
        >>> with nbgrad.set_grad_enabled(False):
        ...     y = x * 2
        >>> y.requires_grad
        False
        >>> _ = nbgrad.set_grad_enabled(False)
        >>> (x * 2).requires_grad, nbgrad.is_grad_enabled()
        (False, False)
        >>> _ = nbgrad.set_grad_enabled(True)
    """

    def __init__(self, mode):
        if mode.__class__ is not bool:
            raise TypeError("set_grad_enabled(): argument 'enabled' (position 1) must be bool, "
                            f"not {type(mode).__name__}")
        self._prev = STATE.enabled
        self.mode = mode
        STATE.enabled = self.mode

    def _args(self):
        return (self.mode,)

    def __call__(self, fn):
        STATE.enabled = self._prev  # used as a decorator: undo the eager switch
        return super().__call__(fn)

    def __enter__(self):
        return self


class inference_mode(_Mode):
    """Context manager (and decorator) for code that will never need gradients.

    Like :class:`no_grad`, no graph is recorded inside. In addition, the tensors made
    inside are *inference tensors* (``Tensor.is_inference()`` says so, and so do their
    views): outside inference mode they cannot be saved for backward by an op that records
    a graph, modified in place, or made to require grad (each is a ``RuntimeError``); use
    ``clone()`` to get a normal tensor. They do not track ``_version``.

    It works as a context manager, as ``@nbgrad.inference_mode`` and as
    ``@nbgrad.inference_mode()`` on a function; the mode is per thread and restored on exit.

    Args:
        mode (bool, optional): ``True`` turns inference mode on; ``False`` makes the block
            a normal grad-enabled one (so one code path can switch it). Default: ``True``.

    Example::

        >>> x = nbgrad.ones(2, requires_grad=True)
        >>> with nbgrad.inference_mode():
        ...     y = x * 2
        >>> y.is_inference(), y.requires_grad
        (True, False)
        >>> y.clone().is_inference()
        False
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
