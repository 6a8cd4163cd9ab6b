"""``autocast``: PyTorch's mixed-precision regions. Inside one, the ops of autocast's table
(``policy.py``: matrix products and convolutions in bfloat16 / float16, losses and other
precision-sensitive ops in float32) cast their floating-point inputs; every other op runs
in the dtypes it is given, as PyTorch's autocast does."""

import functools
import warnings

from .. import dtypes as _dt
from .policy import STATE


def is_autocast_available(device_type):
    """Whether ``autocast`` accepts ``device_type`` (``"cpu"`` or ``"cuda"``)."""
    return device_type in ("cpu", "cuda")


def _device_type(device_type):
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if not is_autocast_available(device_type):
        raise RuntimeError(f"User specified an unsupported autocast device_type "
                           f"'{device_type}'")
    return device_type


def is_autocast_enabled(device_type=None):
    """is_autocast_enabled(device_type=None) -> bool

    Whether autocast is on for ``device_type`` in this thread (inside an
    :class:`nbgrad.autocast` region, or after :func:`set_autocast_enabled`).

    Args:
        device_type (str, optional): ``"cpu"`` or ``"cuda"``. Default: ``None``, CUDA (as
            PyTorch's ``torch.is_autocast_enabled()``).

    Example::

        >>> import nbgrad
        >>> with nbgrad.autocast("cpu"):
        ...     print(nbgrad.is_autocast_enabled("cpu"))
        True
        >>> nbgrad.is_autocast_enabled("cpu")
        False
    """
    return STATE.enabled[_device_type("cuda" if device_type is None else device_type)]


def set_autocast_enabled(device_type, enabled=None):
    """set_autocast_enabled(device_type, enabled) -> None

    Turn autocast on or off for ``device_type`` in this thread, as entering and leaving an
    :class:`nbgrad.autocast` region does (the region also restores the previous state; a
    direct call does not). ``set_autocast_enabled(True)`` with one argument means CUDA, as
    PyTorch's older form.

    Args:
        device_type (str): ``"cpu"`` or ``"cuda"``.
        enabled (bool): turn it on.

    Example::

        >>> import nbgrad
        >>> nbgrad.set_autocast_enabled("cpu", True)
        >>> nbgrad.is_autocast_enabled("cpu")
        True
        >>> nbgrad.set_autocast_enabled("cpu", False)
    """
    if enabled is None:
        device_type, enabled = "cuda", device_type
    STATE.enabled[_device_type(device_type)] = bool(enabled)
    STATE.refresh()


def get_autocast_dtype(device_type):
    """get_autocast_dtype(device_type) -> nbgrad.dtype

    The lower-precision dtype autocast casts to on ``device_type``: ``nbgrad.bfloat16`` on
    the CPU and ``nbgrad.float16`` on CUDA unless set (:func:`set_autocast_dtype`, or the
    ``dtype`` of an :class:`nbgrad.autocast` region).

    Args:
        device_type (str): ``"cpu"`` or ``"cuda"``.

    Example::

        >>> import nbgrad
        >>> nbgrad.get_autocast_dtype("cpu")
        nbgrad.bfloat16
        >>> with nbgrad.autocast("cpu", dtype=nbgrad.float16):
        ...     print(nbgrad.get_autocast_dtype("cpu"))
        nbgrad.float16
    """
    return STATE.dtype[_device_type(device_type)]


def set_autocast_dtype(device_type, dtype):
    """set_autocast_dtype(device_type, dtype) -> None

    Set the dtype autocast casts to on ``device_type`` in this thread (an
    :class:`nbgrad.autocast` region sets it from its ``dtype`` and restores it on exit).

    Args:
        device_type (str): ``"cpu"`` or ``"cuda"``.
        dtype (nbgrad.dtype): the dtype, ``nbgrad.bfloat16`` or ``nbgrad.float16``.

    Example::

        >>> import nbgrad
        >>> nbgrad.set_autocast_dtype("cpu", nbgrad.float16)
        >>> nbgrad.get_autocast_dtype("cpu")
        nbgrad.float16
        >>> nbgrad.set_autocast_dtype("cpu", nbgrad.bfloat16)
    """
    STATE.dtype[_device_type(device_type)] = dtype


def is_autocast_cache_enabled():
    """is_autocast_cache_enabled() -> bool

    Whether autocast keeps the lower-precision copy of each float32 leaf tensor (a weight)
    it casts, reusing it for the rest of the region instead of casting again (on unless
    turned off by :func:`set_autocast_cache_enabled` or ``autocast(cache_enabled=False)``).

    Example::

        >>> import nbgrad
        >>> nbgrad.is_autocast_cache_enabled()
        True
    """
    return STATE.cache_enabled


def set_autocast_cache_enabled(enabled):
    """set_autocast_cache_enabled(enabled) -> None

    Turn autocast's cache of cast leaf tensors on or off (see
    :func:`is_autocast_cache_enabled`).

    Args:
        enabled (bool): keep the casts.

    Example::

        >>> import nbgrad
        >>> nbgrad.set_autocast_cache_enabled(False)
        >>> nbgrad.is_autocast_cache_enabled()
        False
        >>> nbgrad.set_autocast_cache_enabled(True)
    """
    STATE.cache_enabled = bool(enabled)


def clear_autocast_cache():
    """clear_autocast_cache() -> None

    Drop the casts autocast's cache holds (leaving the outermost :class:`nbgrad.autocast`
    region does it).

    Example::

        >>> import nbgrad
        >>> nbgrad.clear_autocast_cache()
    """
    STATE.cache.clear()


def is_autocast_cpu_enabled():
    """is_autocast_cpu_enabled() -> bool

    Whether autocast is on for the CPU. Deprecated, as PyTorch's: use
    ``is_autocast_enabled("cpu")``.

    Example::

        >>> import nbgrad, warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     print(nbgrad.is_autocast_cpu_enabled())
        False
    """
    warnings.warn("torch.is_autocast_cpu_enabled() is deprecated. Please use "
                  "torch.is_autocast_enabled('cpu') instead.", DeprecationWarning, stacklevel=2)
    return STATE.enabled["cpu"]


def get_autocast_cpu_dtype():
    """get_autocast_cpu_dtype() -> nbgrad.dtype

    The dtype autocast casts to on the CPU. Deprecated, as PyTorch's: use
    ``get_autocast_dtype("cpu")``.

    Example::

        >>> import nbgrad, warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     print(nbgrad.get_autocast_cpu_dtype())
        nbgrad.bfloat16
    """
    warnings.warn("torch.get_autocast_cpu_dtype() is deprecated. Please use "
                  "torch.get_autocast_dtype('cpu') instead.", DeprecationWarning, stacklevel=2)
    return STATE.dtype["cpu"]


_SUPPORTED = {"cpu": (_dt.bfloat16, _dt.float16), "cuda": (_dt.float16, _dt.bfloat16)}


class autocast:  # noqa: N801  (PyTorch's name)
    """``autocast(device_type, dtype=None, enabled=True, cache_enabled=None)``: a region
    (context manager or decorator) in which matrix products, linear layers, convolutions
    and attention run in ``dtype`` (default: ``get_autocast_dtype(device_type)``,
    bfloat16 on the CPU, float16 on CUDA), losses and other precision-sensitive ops in
    float32, and the rest in the dtypes they are given — PyTorch's op lists per device
    type (``nbgrad/amp/policy.py``). Casts are differentiable: gradients reach float32
    weights in float32. A float32 weight is cast once per region when ``cache_enabled``.
    Run the backward pass after the region, as PyTorch recommends.

    Args:
        device_type (str): ``"cpu"`` or ``"cuda"``.
        dtype: the lower precision (``nbgrad.bfloat16`` or ``nbgrad.float16``); another
            dtype warns and leaves the region disabled, as PyTorch's.
        enabled (bool): ``False`` makes a region where autocast is off (inside an enabled
            one too).
        cache_enabled (bool): keep one cast per float32 leaf for the region.

    Example::

        >>> import nbgrad
        >>> lin = nbgrad.nn.Linear(3, 2)
        >>> with nbgrad.autocast("cpu"):
        ...     y = lin(nbgrad.ones(4, 3))
        ...     loss = nbgrad.nn.functional.mse_loss(y, nbgrad.zeros(4, 2))
        >>> y.dtype, loss.dtype
        (nbgrad.bfloat16, nbgrad.float32)
        >>> loss.backward()
        >>> lin.weight.grad.dtype
        nbgrad.float32
    """

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        self.device = _device_type(device_type)
        self.fast_dtype = get_autocast_dtype(self.device) if dtype is None else dtype
        self._cache_enabled = (is_autocast_cache_enabled() if cache_enabled is None
                               else bool(cache_enabled))
        if not isinstance(enabled, bool):
            raise TypeError(f"autocast(): enabled must be a bool, got {type(enabled).__name__}")
        if enabled and self.fast_dtype not in _SUPPORTED[self.device]:
            if self.device == "cpu":
                warnings.warn("In CPU autocast, but the target dtype is not supported. "
                              "Disabling autocast.\nCPU Autocast only supports dtypes of "
                              "torch.bfloat16, torch.float16 currently.", stacklevel=2)
            else:
                warnings.warn("In CUDA autocast, but the target dtype is not supported. "
                              "Disabling autocast.\nCUDA Autocast only supports dtypes of "
                              "torch.float16 and torch.bfloat16 currently.", stacklevel=2)
            enabled = False
        if enabled and self.device == "cuda":
            from .. import cuda

            if not cuda.is_available():
                warnings.warn("CUDA is not available or torch_xla is imported. Disabling "
                              "autocast.", stacklevel=2)
                enabled = False
        self._enabled = enabled

    def __enter__(self):
        st = STATE
        self.prev = st.enabled[self.device]
        self.prev_fastdtype = st.dtype[self.device]
        self.prev_cache_enabled = st.cache_enabled
        st.enabled[self.device] = self._enabled
        st.dtype[self.device] = self.fast_dtype
        st.nesting += 1
        st.cache_enabled = self._cache_enabled
        st.refresh()
        return self

    def __exit__(self, *exc):
        st = STATE
        st.nesting -= 1
        if st.nesting == 0:
            st.cache.clear()
        st.enabled[self.device] = self.prev
        st.dtype[self.device] = self.prev_fastdtype
        st.cache_enabled = self.prev_cache_enabled
        st.refresh()
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)

        return wrapper


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """Decorator for a custom ``Function``'s ``forward``: with ``cast_inputs`` (a dtype),
    inside an enabled region its floating-point tensor arguments on ``device_type`` are
    cast to it and it runs with autocast off; without, it runs as called, and
    ``custom_bwd`` gives its ``backward`` the same autocast state."""
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type,
                                 cast_inputs=cast_inputs)
    device_type = _device_type(device_type)

    @functools.wraps(fwd)
    def forward(*args, **kwargs):
        ctx = args[0]
        ctx._dtype = get_autocast_dtype(device_type)
        if cast_inputs is None:
            ctx._fwd_used_autocast = is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        autocast_context = is_autocast_enabled(device_type)
        ctx._fwd_used_autocast = False
        if not autocast_context:
            return fwd(*args, **kwargs)
        from .policy import _cast

        with autocast(device_type, enabled=False):
            return fwd(*_cast(args, cast_inputs, device_type),
                       **_cast(kwargs, cast_inputs, device_type))

    return forward


def custom_bwd(bwd=None, *, device_type):
    """Decorator for a custom ``Function``'s ``backward``: it runs with the autocast state
    its ``forward`` (decorated with ``custom_fwd``) ran with."""
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)
    device_type = _device_type(device_type)

    @functools.wraps(bwd)
    def backward(*args, **kwargs):
        ctx = args[0]
        with autocast(device_type, enabled=ctx._fwd_used_autocast, dtype=ctx._dtype):
            return bwd(*args, **kwargs)

    return backward



def _deprecated_autocast(device_type, lower):
    """``torch.cpu.amp.autocast`` / ``torch.cuda.amp.autocast``: the device's autocast,
    with PyTorch's FutureWarning."""
    class _Autocast(autocast):
        def __init__(self, enabled=True, dtype=lower, cache_enabled=True):
            warnings.warn(f"`torch.{device_type}.amp.autocast(args...)` is deprecated. Please "
                          f"use `torch.amp.autocast('{device_type}', args...)` instead.",
                          FutureWarning, stacklevel=2)
            super().__init__(device_type, dtype, enabled, cache_enabled)

    _Autocast.__name__ = _Autocast.__qualname__ = "autocast"
    _Autocast.__module__ = f"nbgrad.{device_type}.amp"
    return _Autocast
