"""Memory formats and layouts: ``torch.channels_last`` and its kin, ``torch.strided``.

A memory format names an order of a tensor's dims in memory: ``contiguous_format`` the
dims' own order (row-major), ``channels_last`` a 4-d tensor's ``(N, C, H, W)`` stored as
``(N, H, W, C)`` (``channels_last_3d`` the 5-d form), ``preserve_format`` the input's
order (where an operation has an input: ``clone``, the ``*_like`` factories, ``to``). The
values do not change, only the strides: ops read any strides.

Example::

    >>> import nbgrad
    >>> x = nbgrad.zeros(2, 3, 4, 5).contiguous(memory_format=nbgrad.channels_last)
    >>> x.stride()
    (60, 1, 15, 3)
    >>> x.is_contiguous(memory_format=nbgrad.channels_last)
    True
"""

import numpy as np


class memory_format:
    """The order in which a tensor's dims are laid out in memory, as PyTorch's
    ``torch.memory_format``.

    Its values are the constants ``nbgrad.contiguous_format`` (row-major, the dims' own
    order), ``nbgrad.channels_last`` (a 4-D ``(N, C, H, W)`` tensor stored as
    ``(N, H, W, C)``), ``nbgrad.channels_last_3d`` (the 5-D form) and
    ``nbgrad.preserve_format`` (the input's order, for ``clone``, ``to`` and the ``*_like``
    factories). A program uses these constants and makes no other.

    Args:
        name (str): the constant's name.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.zeros(1, 3, 2, 2).contiguous(memory_format=nbgrad.channels_last)
        >>> x.stride(), isinstance(nbgrad.channels_last, nbgrad.memory_format)
        ((12, 1, 6, 3), True)
    """

    __slots__ = ("_name",)

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"torch.{self._name}"

    def __reduce__(self):  # (pickled by name: the same object after a load)
        return self._name


class layout:
    """The memory layout of a tensor, as PyTorch's ``torch.layout``. nbgrad's tensors are
    all dense and strided: the one value is ``nbgrad.strided``, every tensor's ``layout``.

    Args:
        name (str): the constant's name.

    Example::

        >>> import nbgrad
        >>> nbgrad.ones(2).layout
        torch.strided
        >>> nbgrad.ones(2).layout is nbgrad.strided
        True
    """

    __slots__ = ("_name",)

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"torch.{self._name}"

    def __reduce__(self):
        return self._name


contiguous_format = memory_format("contiguous_format")
legacy_contiguous_format = contiguous_format  # (one object in PyTorch too)
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
preserve_format = memory_format("preserve_format")
strided = layout("strided")

# the dims in memory order, outermost first, for a format that fixes them
_ORDERS = {channels_last: (4, (0, 2, 3, 1)), channels_last_3d: (5, (0, 2, 3, 4, 1))}


def _check(fmt):
    if not isinstance(fmt, memory_format):
        raise TypeError(f"memory_format must be torch.memory_format, not {type(fmt).__name__}")


def is_contiguous_as(shape, strides, fmt):
    """Whether a tensor of ``shape`` and ``strides`` (in elements) is dense in the order
    ``fmt`` names (dims of size 1 may have any stride, as PyTorch counts them)."""
    _check(fmt)
    if fmt is contiguous_format or fmt is preserve_format:  # (PyTorch reads preserve so)
        order = tuple(range(len(shape)))
    else:
        ndim, order = _ORDERS[fmt]
        if len(shape) != ndim:
            return False
    expected = 1
    for d in reversed(order):
        if shape[d] != 1:
            if strides[d] != expected:
                return False
            expected *= shape[d]
    return True


def dim_order(t, fmt, what):
    """The memory order of the dims (outermost first) for a result laid out as ``fmt`` says,
    ``None`` for row-major; ``t`` is the input that ``preserve_format`` follows. ``what``
    names the operation in errors."""
    # (on every clone, to and *_like: the common answers first, from flags alone)
    if fmt is preserve_format:
        if t is None:
            raise RuntimeError(f"{what}: preserve_format needs an input tensor to follow")
        # a channels-last input stays channels-last (PyTorch's suggested format); other
        # strides come back row-major (PyTorch would keep any dense strides)
        if t.ndim not in (4, 5) or t.is_contiguous():
            return None
        f = channels_last if t.ndim == 4 else channels_last_3d
        return _ORDERS[f][1] if is_contiguous_as(tuple(t.shape), t.stride(), f) else None
    if fmt is contiguous_format:
        return None
    _check(fmt)
    ndim, order = _ORDERS[fmt]
    if t is not None and t.ndim != ndim:
        name = "channels_last" if ndim == 4 else "channels_last_3d"
        raise RuntimeError(f"required rank {ndim} tensor to use {name} format")
    return order


def ordered(be, shape, np_dtype, order, fill=None):
    """A storage array of ``shape`` whose memory holds its dims in ``order`` (a view of a
    row-major array of the permuted shape); ``fill`` makes that array (the default, empty)."""
    phys = tuple(shape[d] for d in order)
    data = be.empty(phys, np_dtype) if fill is None else fill(phys)
    return be.permute(data, tuple(int(i) for i in np.argsort(order)))
