"""``autocast``: accepted as PyTorch's context manager and decorator; ops keep their dtypes
(it does not cast to float16 / bfloat16 yet: cast a model with ``.half()`` or
``.bfloat16()`` for 16-bit)."""

import functools
import warnings

_WARNED = []


def is_autocast_available(device_type):
    """Whether ``autocast`` accepts ``device_type`` (``"cpu"`` or ``"cuda"``)."""
    return device_type in ("cpu", "cuda")


class autocast:  # noqa: N801  (PyTorch's name)
    """``autocast(device_type, dtype=None, enabled=True, cache_enabled=None)``: in PyTorch,
    the region's matrix products run in a reduced precision; nbgrad's autocast does not
    cast yet, so they run in their own dtype (a warning says so once, when an enabled
    region is entered).

    Example::

        >>> import nbgrad
        >>> with nbgrad.autocast("cpu", enabled=False):
        ...     y = nbgrad.ones(2, 2) @ nbgrad.ones(2, 2)
        >>> y.dtype
        nbgrad.float32
    """

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        if not is_autocast_available(device_type):
            raise RuntimeError(f"User specified an unsupported autocast device_type "
                               f"'{device_type}'")
        self.device = device_type
        self.fast_dtype = dtype
        self._enabled = enabled
        self.cache_enabled = cache_enabled

    def __enter__(self):
        if self._enabled and not _WARNED:
            _WARNED.append(True)
            warnings.warn("nbgrad's autocast does not cast to float16 / bfloat16 yet: every "
                          "op runs in its own dtype (cast the model with .half() or "
                          ".bfloat16() for 16-bit)", stacklevel=2)
        return self

    def __exit__(self, *exc):
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)

        return wrapper
