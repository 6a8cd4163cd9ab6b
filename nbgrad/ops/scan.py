"""Scans along a dim: ``cumsum``. A row of ``ops/funcdef.py`` whose forward runs the
``cumsum`` kernel (``kernels/rows.cumsum_line``, one body for both targets) on the
``(A, R, B)`` view with the scanned dim in the middle."""

from .. import dtypes as _dt
from ..storage.layout import cast_data, copy_data
from ..tensor import _wrap_dim
from ._core import backend, check_tensor, is_c, kernel
from .funcdef import deffunc, surface
from .shape import flip


def _cumsum_forward(x, odt, dev, dim, dtype):
    x = cast_data(x, odt, dev)
    if not is_c(x):
        x = copy_data(x, odt, dev)
    shape = tuple(x.shape)
    A = B = 1
    for s in shape[:dim]:
        A *= s
    for s in shape[dim + 1:]:
        B *= s
    R = shape[dim] if shape else 1
    out = backend(dev).empty((A, R, B), odt.np)
    kernel("cumsum", dev)(x.reshape(A, R, B), out)
    return out.reshape(shape)


def cumsum_backward(grad, dim, dtype):
    """The sums of ``grad`` from each position to the end, in the input's ``dtype``:
    cumsum's gradient."""
    if grad._dtype is not dtype:
        grad = grad.to(dtype)
    if grad.ndim == 0:
        return grad
    return flip(cumsum(flip(grad, (dim,)), dim), (dim,))


def _cumsum_dtype(idt, dim, dtype):
    if dtype is not None:
        return dtype
    return idt if idt.is_floating_point else _dt.int64


CUMSUM = deffunc("cumsum", kernels=("cumsum",), forward=_cumsum_forward,
                 dtype=_cumsum_dtype, shape=lambda s, dim, dtype: tuple(s),
                 args=("dim", "dtype"), grads=("cumsum_backward(grad, dim, input_dtype)",),
                 fn=False, method=False)


@surface(CUMSUM)
def cumsum(input, dim, *, dtype=None):
    """The running sums of ``input`` along ``dim``: ``out[i] = input[0] + ... + input[i]``.
    Integers and bools sum in int64 unless ``dtype`` is given (the input is cast to it
    first); floats accumulate in float64 and round each output to their dtype.

    Example::

        >>> import nbgrad
        >>> nbgrad.cumsum(nbgrad.tensor([[1, 2, 3], [4, 5, 6]]), dim=1)
        tensor([[ 1,  3,  6],
                [ 4,  9, 15]])
    """
    check_tensor(input, "cumsum")
    d = _wrap_dim(int(dim), max(input.ndim, 1))
    odt = _dt.as_dtype(dtype) if dtype is not None else None
    return CUMSUM.call(input, d, odt)


def _cumsum_(self, dim, *, dtype=None):
    from .inplace import inplace_binary

    return inplace_binary("cumsum_", lambda a, _b: cumsum(a, dim, dtype=dtype), self, False)

