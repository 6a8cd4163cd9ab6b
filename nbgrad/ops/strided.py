"""Views with computed strides: ``diagonal``, ``Tensor.unfold`` and ``as_strided``. Each
is a view of its input's storage (a write through it writes the input, as in PyTorch), on
every device: the backend's ``getitem`` moves the start, ``as_strided`` sets the strides,
``storage_view`` places a view anywhere in the storage."""

import numpy as np

from ..storage.layout import copy_data
from ..tensor import _wrap_dim
from ._core import backend, check_tensor
from .funcdef import deffunc, same_dtype, surface
from .shape import _view


# ----- diagonal ----------------------------------------------------------------------------
def _diag_dims(ndim, offset, dim1, dim2):
    d1, d2 = _wrap_dim(dim1, ndim), _wrap_dim(dim2, ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return d1, d2


def _diag_len(shape, offset, d1, d2):
    n1, n2 = shape[d1], shape[d2]
    return max(0, min(n1, n2 - offset) if offset >= 0 else min(n1 + offset, n2))


def _diag_shape(s, offset, d1, d2):
    return tuple(n for d, n in enumerate(s) if d not in (d1, d2)) + (_diag_len(s, offset, d1, d2),)


def _diag_view(be, x, offset, d1, d2):
    """The diagonal of array ``x`` over dims ``d1``, ``d2`` as a view, its length last."""
    key = [slice(None)] * x.ndim
    n = _diag_len(x.shape, offset, d1, d2)
    if n:  # (an empty diagonal starts anywhere)
        key[d2 if offset >= 0 else d1] = slice(abs(offset), None)
    start = be.getitem(x, tuple(key))
    st = start.strides
    keep = [d for d in range(x.ndim) if d not in (d1, d2)]
    return be.as_strided(start, _diag_shape(x.shape, offset, d1, d2),
                         tuple(st[d] for d in keep) + (st[d1] + st[d2],))


DIAGONAL = deffunc(
    "diagonal", forward=lambda x, odt, dev, offset, d1, d2: _diag_view(backend(dev), x, offset,
                                                                       d1, d2),
    dtype=same_dtype, shape=_diag_shape, args=("offset", "dim1", "dim2"),
    grads=("diagonal_backward(grad, input_shape, offset, dim1, dim2)",), view=_view, fn=False,
    method=False)


def _diagonal_backward_forward(g, odt, dev, shape, offset, d1, d2):
    be = backend(dev)
    data = be.zeros(shape, odt.np)
    copy_data(g, odt, dev, out=_diag_view(be, data, offset, d1, d2))
    return data


DIAGONAL_BACKWARD = deffunc(
    "diagonal_backward", params=("grad_output",), kernels=("copy",),
    forward=_diagonal_backward_forward, dtype=same_dtype,
    shape=lambda s, shape, offset, d1, d2: tuple(shape),
    args=("input_sizes", "offset", "dim1", "dim2"),
    grads=("diagonal(grad, offset, dim1, dim2)",), node="DiagonalBackwardBackward0",
    torch_names={}, fn=False, method=False)


@surface(DIAGONAL)
def diagonal(input, offset=0, dim1=0, dim2=1):
    """A diagonal of ``input`` over two of its dims, as a view.

    The dims ``dim1`` and ``dim2`` are removed and the diagonal becomes the last dim of the
    result; the other dims stay, in order. Writing the view writes ``input``.

    Args:
        input (Tensor): the input, at least 2-d.
        offset (int, optional): which diagonal: 0 the main one, positive above it, negative
            below it. Default: ``0``.
        dim1 (int, optional): the first dim of the planes. Default: ``0``.
        dim2 (int, optional): the second dim of the planes. Default: ``1``.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.arange(9.0).reshape(3, 3)
        >>> x.diagonal(), nbgrad.diagonal(x, 1)
        (tensor([0., 4., 8.]), tensor([1., 5.]))
        >>> nbgrad.diagonal(nbgrad.zeros(2, 3, 4), dim1=1, dim2=2).shape
        nbgrad.Size([2, 3])
        >>> x.diagonal().zero_()  # a view: this writes x
        tensor([0., 0., 0.])
        >>> x[1]
        tensor([3., 0., 5.])
    """
    check_tensor(input, "diagonal")
    d1, d2 = _diag_dims(input.ndim, offset, dim1, dim2)
    return DIAGONAL.call(input, int(offset), d1, d2)


@surface(DIAGONAL_BACKWARD)
def diagonal_backward(grad, input_sizes, offset, dim1, dim2):
    """Zeros of ``input_sizes`` with ``grad`` on the diagonal (``diagonal``'s backward)."""
    return DIAGONAL_BACKWARD.call(grad, tuple(input_sizes), offset, dim1, dim2)


# ----- unfold ------------------------------------------------------------------------------
def _unfold_shape(s, dim, size, step):
    if not s:
        return (size,)
    return tuple(s[:dim]) + ((s[dim] - size) // step + 1,) + tuple(s[dim + 1:]) + (size,)


def _unfold_view(x, odt, dev, dim, size, step):
    if x.ndim == 0:
        return backend(dev).as_strided(x, (size,), (0,))
    st = x.strides
    strides = st[:dim] + (st[dim] * step,) + st[dim + 1:] + (st[dim],)
    return backend(dev).as_strided(x, _unfold_shape(x.shape, dim, size, step), strides)


UNFOLD = deffunc(
    "unfold", forward=_unfold_view, dtype=same_dtype, shape=_unfold_shape,
    args=("dimension", "size", "step"),
    grads=("unfold_backward(grad, input_shape, dimension, size, step)",), view=_view,
    fn=False, method=False)


def unfold_backward(grad, input_sizes, dim, size, step):
    """``unfold``'s backward: each window's gradient added back at its positions (composed
    of ``index_add``, so it has a backward of its own)."""
    from ..creation import arange, zeros
    from .index import index_add

    shape = tuple(input_sizes)
    if not shape:
        return grad.sum().reshape(())
    n_win = grad.shape[dim]
    pos = (arange(n_win, device=grad.device).unsqueeze(1) * step
           + arange(size, device=grad.device).unsqueeze(0)).reshape(-1)
    perm = list(range(grad.ndim - 1))
    perm.insert(dim + 1, grad.ndim - 1)
    g = grad.permute(*perm).reshape(shape[:dim] + (n_win * size,) + shape[dim + 1:])
    return index_add(zeros(shape, dtype=grad.dtype, device=grad.device), dim, pos, g)


@surface(UNFOLD)
def unfold(self, dimension, size, step):
    """A view of every slice of ``size`` elements along ``dimension``, ``step`` apart: that
    dim becomes the window count and the windows' elements a new last dim.

    Args:
        dimension (int): the dimension the windows slide along.
        size (int): the number of elements in each window.
        step (int): the distance between the starts of consecutive windows.

    Example::

        >>> import nbgrad
        >>> nbgrad.arange(6.0).unfold(0, 3, 2)
        tensor([[0., 1., 2.],
                [2., 3., 4.]])
    """
    n = self.ndim
    d = _wrap_dim(dimension, n)
    length = self.shape[d] if n else 1
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if size > length:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {length} but size "
                           f"is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    return UNFOLD.call(self, d, int(size), int(step))


# ----- as_strided --------------------------------------------------------------------------
def _as_strided_view(x, odt, dev, size, stride, offset, in_strides, in_offset):
    return backend(dev).storage_view(x, offset - in_offset, size, stride)


AS_STRIDED = deffunc(
    "as_strided", forward=_as_strided_view, dtype=same_dtype,
    shape=lambda s, size, stride, offset, in_strides, in_offset: tuple(size),
    args=("size", "stride", "storage_offset", "input_strides", "input_offset"),
    grads=("as_strided_backward(grad, input_shape, input_strides, input_offset, size, stride, "
           "storage_offset)",), view=_view, fn=False, method=False)


def _positions(offset, sizes, strides):
    """The storage positions of a geometry's elements, in row-major order (int64)."""
    pos = np.full((), offset, np.int64)
    for n, st in zip(sizes, strides):
        pos = pos[..., None] + np.arange(n, dtype=np.int64) * st
    return pos.reshape(-1)


def as_strided_backward(grad, input_sizes, input_strides, input_offset, size, stride,
                        storage_offset):
    """``as_strided``'s backward: the output's gradient added up per storage element, read
    back at the input's elements (shared by several of the input's own elements: divided
    among them, as PyTorch). Composed of ``index_add`` and ``index_select``: differentiable
    again."""
    from ..creation import tensor, zeros
    from .index import index_add, index_select

    shape = tuple(input_sizes)
    pin = _positions(input_offset, shape, input_strides)
    pout = _positions(storage_offset, size, stride)
    if not pin.size:
        return zeros(shape, dtype=grad.dtype, device=grad.device)
    lo = int(min(pin.min(), pout.min() if pout.size else pin.min()))
    hi = int(max(pin.max(), pout.max() if pout.size else pin.max())) + 1
    dev = grad.device
    buf = zeros(hi - lo, dtype=grad.dtype, device=dev)
    if pout.size:
        buf = index_add(buf, 0, tensor(pout - lo, device=dev), grad.reshape(-1))
    g = index_select(buf, 0, tensor(pin - lo, device=dev)).reshape(shape)
    counts = np.bincount(pin - lo)
    if counts.max() > 1:  # (an expanded input: its elements share storage)
        g = g / tensor(counts[pin - lo].reshape(shape).astype(grad.dtype.np), device=dev)
    return g


def _storage_size(t):
    """Elements in the storage under ``t`` (its root tensor's span)."""
    root = t._base if t._base is not None else t
    if root.is_contiguous():
        return root.numel()
    return 0 if not root.numel() else 1 + sum((n - 1) * s for n, s in zip(root.shape,
                                                                           root.stride()))


@surface(AS_STRIDED)
def as_strided(input, size, stride, storage_offset=None):
    """A view of the storage of ``input`` with the given sizes and strides.

    Element ``[i0, i1, ...]`` of the view is element ``storage_offset + i0 * stride[0] + i1 *
    stride[1] + ...`` of the storage (counted in elements, not bytes). The view may overlap
    itself (its gradient then adds up where it does).

    Args:
        input (Tensor): the tensor whose storage to view.
        size (tuple of ints): the shape of the view.
        stride (tuple of ints): the stride of each dim of the view.
        storage_offset (int, optional): the position of the first element in the storage.
            Default: ``None`` (``input``'s own offset).

    Example::

        >>> import nbgrad
        >>> x = nbgrad.arange(6.0)
        >>> nbgrad.as_strided(x, (2, 3), (1, 1))  # sliding windows
        tensor([[0., 1., 2.],
                [1., 2., 3.]])
        >>> nbgrad.as_strided(x, (2, 2), (3, 1), 1)
        tensor([[1., 2.],
                [4., 5.]])
    """
    check_tensor(input, "as_strided")
    size, stride = tuple(int(n) for n in size), tuple(int(s) for s in stride)
    in_offset = input.storage_offset()
    offset = in_offset if storage_offset is None else int(storage_offset)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError("as_strided: Negative strides are not supported at the moment, "
                           f"got strides: {list(stride)}")
    if any(n < 0 for n in size):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} and "
                           f"strides={list(stride)}")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    if all(size):
        need = offset + 1 + sum((n - 1) * s for n, s in zip(size, stride))
        have = _storage_size(input)
        if need > have:
            it = input.dtype.itemsize
            raise RuntimeError(
                f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset "
                f"{offset}, and itemsize {it} requiring a storage size of {need * it} are out "
                f"of bounds for storage of size {have * it}")
    return AS_STRIDED.call(input, size, stride, offset, input.stride(), in_offset)

