"""Devices: ``cpu`` and ``cuda:N``.

This module knows the names only. Storage for each device type lives in a backend
(``nbgrad.storage``); ``numba.cuda`` is imported by the CUDA backend alone, and only when
the first CUDA tensor is made.
"""

import re

# PyTorch's device-string grammar: a type, then optionally ':' and a decimal index without
# sign, spaces, underscores or leading zeros ("cuda:-7", "cuda: 1_0" and "cuda:01" are errors).
_SPEC = re.compile(r"([a-zA-Z_]+)(?::(0|[1-9][0-9]*))?")


def _typename(x):
    return type(x).__name__


# Valid device strings already parsed -> (type, index). Programs name a handful of devices;
# a file being loaded may name many, so past _CACHE_MAX entries new names are parsed each
# time instead of cached (here and in as_device's _cache), and neither cache grows.
_parsed = {}
_CACHE_MAX = 64
# the device types PyTorch knows, in the order of its message for an unknown one
_TORCH_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve",
                "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
                "privateuseone")


class device:
    """A device a tensor's memory is on: the CPU, or a CUDA GPU, as PyTorch's
    ``torch.device``.

    A device is made from a string (``"cpu"``, ``"cuda"``, ``"cuda:1"``), or a type and an
    index. Wherever nbgrad takes a device it also takes such a string. Used as a context
    manager, it is the default device of the factory functions inside the block (as
    :func:`nbgrad.set_default_device`, undone on exit).

    Args:
        type (str or nbgrad.device): ``"cpu"`` or ``"cuda"``, optionally with an index after
            a colon (``"cuda:0"``); or a device, copied.
        index (int, optional): the device's index, when ``type`` has none. Default: ``None``
            (the CPU has none; ``"cuda"`` means device 0).

    Attributes:
        type (str): ``"cpu"`` or ``"cuda"``.
        index (int or None): the device's index, ``None`` for the CPU.

    Example::

        >>> import nbgrad
        >>> nbgrad.device("cuda:1")
        device(type='cuda', index=1)
        >>> d = nbgrad.device("cpu")
        >>> d.type, d.index, d == "cpu"
        ('cpu', None, True)
        >>> with nbgrad.device("cpu"):
        ...     print(nbgrad.zeros(2).device)
        cpu
    """

    __slots__ = ("type", "index")

    def __init__(self, type, index=None):
        cacheable = index is None and type.__class__ is str
        if cacheable:
            parsed = _parsed.get(type)  # a valid string seen before: no parsing
            if parsed is not None:
                self.type, self.index = parsed
                return
        if isinstance(type, device):
            self.type, self.index = type.type, type.index
            return
        if not isinstance(type, str):
            raise TypeError(f"device(): expected a string like 'cpu' or 'cuda:0', got {type!r}")
        m = _SPEC.fullmatch(type)
        if m is None:
            raise RuntimeError(f"Invalid device string: '{type}'")
        name, idx = m.groups()
        if idx is not None:
            if index is not None:
                raise RuntimeError(
                    "type (string) must not include an index because index was passed "
                    f"explicitly: {type}"
                )
            # PyTorch parses the index as a C int; a longer one is an error, not a wrap-around
            if len(idx) > 10 or int(idx) > 2147483647:
                raise RuntimeError(
                    f"Could not parse device index '{idx}' in device string '{type}'"
                )
            index = int(idx)
        elif index is not None:
            if isinstance(index, bool) or not hasattr(index, "__index__"):
                raise TypeError(
                    f"device(): argument 'index' (position 2) must be int, not {_typename(index)}"
                )
            index = index.__index__()
            if index < 0:
                raise RuntimeError("Device index must not be negative")
        if name not in ("cpu", "cuda"):
            if name in _TORCH_TYPES:
                raise RuntimeError(f"nbgrad has cpu and cuda devices only: '{type}' names a "
                                   "PyTorch device type it does not have")
            raise RuntimeError(f"Expected one of {', '.join(_TORCH_TYPES)} device type at start "
                               f"of device string: {name}")
        if name == "cuda" and index is None:
            index = 0
        self.type = name
        self.index = index
        if cacheable and len(_parsed) < _CACHE_MAX:
            _parsed[type] = (name, index)

    def __enter__(self):
        """Inside ``with nbgrad.device(...)``, factories make tensors on this device by
        default (as ``set_default_device``, undone on exit)."""
        _entered.append(_default[0])
        _default[0] = None if self == CPU_NAME else self
        return self

    def __exit__(self, *exc):
        _default[0] = _entered.pop()
        return False

    def __eq__(self, other):
        if other is self:
            return True
        if isinstance(other, str):
            try:
                other = as_device(other)
            except RuntimeError:  # as torch.device: an invalid string is just unequal
                return False
        return isinstance(other, device) and self.type == other.type and self.index == other.index

    def __hash__(self):
        return hash((self.type, self.index))

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"


CPU = device("cpu")
CPU_NAME = "cpu"
_cache = {"cpu": CPU}
# the device factories use when given none (None: the CPU), and the ones that ``with
# device(...)`` blocks replaced, innermost last
_default = [None]
_entered = []


def set_default_device(device):
    """set_default_device(device) -> None

    Make ``device`` the device that factory functions (``zeros``, ``tensor``, ``randn``, the
    layers' parameters, ...) use when they are given none.

    Args:
        device (nbgrad.device or str or None): the device; ``None`` restores the CPU.

    Example::

        >>> import nbgrad
        >>> nbgrad.set_default_device("cpu")
        >>> nbgrad.get_default_device()
        device(type='cpu')
    """
    d = None if device is None else as_device(device)
    _default[0] = None if d == CPU else d


def get_default_device():
    """get_default_device() -> nbgrad.device

    The device factory functions use when given none: the one set by
    :func:`set_default_device` or an enclosing ``with nbgrad.device(...)`` block, else the
    CPU.

    Example::

        >>> import nbgrad
        >>> nbgrad.get_default_device()
        device(type='cpu')
    """
    return _default[0] or CPU


def factory_device(d):
    """``as_device`` for a factory's ``device`` argument: ``None`` is the default device."""
    if d is None:
        return _default[0] or CPU
    return as_device(d)


def as_device(d):
    """Normalise ``None``, a string or a ``device`` to a ``device`` (``None`` is the CPU)."""
    if d is None:
        return CPU
    if isinstance(d, device):
        return d
    r = _cache.get(d)
    if r is None:
        if isinstance(d, int):
            r = device("cuda", d)
        else:
            r = device(d)
        if len(_cache) < _CACHE_MAX:
            _cache[d] = r
    return r
