"""Scans along a dim: ``cumsum`` and ``cumprod``. Rows of ``ops/funcdef.py`` whose forward
runs the ``scan`` kernel (``kernels/rows.scan_line``, one body for both targets and both
scans) on the ``(A, R, B)`` view with the scanned dim in the middle."""


import numpy as np

from .. import dtypes as _dt
from .. import return_types as RT
from ..amp.policy import autocast_op
from ..storage.layout import cast_data, copy_data
from ..tensor import _wrap_dim
from ._core import backend, check_tensor, is_c, kernel
from .funcdef import deffunc, surface
from .reduce import low_dtype_first
from .shape import flip


def _scan_forward(x, odt, dev, dim, dtype, mul=False):
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
    kernel("scan", dev)(x.reshape(A, R, B), out, mul)
    return out.reshape(shape)


def cumsum_backward(grad, dim, dtype):
    """The sums of ``grad`` from each position to the end, in the input's ``dtype``:
    cumsum's gradient."""
    if grad._dtype is not dtype:
        grad = grad.to(dtype)
    if grad.ndim == 0:
        return grad
    return flip(cumsum(flip(grad, (dim,)), dim), (dim,))


def _scan_dtype(idt, dim, dtype):
    if dtype is not None:
        return dtype
    return idt if idt.is_floating_point else _dt.int64


CUMSUM = deffunc("cumsum", kernels=("scan",), forward=_scan_forward,
                 dtype=_scan_dtype, shape=lambda s, dim, dtype: tuple(s),
                 args=("dim", "dtype"), grads=("cumsum_backward(grad, dim, input_dtype)",),
                 fn=False, method=False)


@surface(CUMSUM)
@autocast_op("cumsum")
def cumsum(input, dim, *, dtype=None):
    r"""The cumulative sums of ``input`` along ``dim``.

    .. math::
        y_i = x_1 + x_2 + x_3 + \dots + x_i

    Bool and integer inputs are summed as ``int64`` unless ``dtype`` says otherwise; floats
    accumulate in float64 and round each output to their dtype.

    Args:
        input (Tensor): the input tensor.
        dim (int): the dimension to sum along.
        dtype (nbgrad.dtype, optional): the dtype of the result; ``input`` is cast to it
            first. Default: ``None``, ``input``'s dtype (``int64`` for bool and integer
            inputs).

    Example::

        >>> import nbgrad
        >>> nbgrad.cumsum(nbgrad.tensor([[1, 2, 3], [4, 5, 6]]), dim=1)
        tensor([[ 1,  3,  6],
                [ 4,  9, 15]])
    """
    check_tensor(input, "cumsum")
    d = _wrap_dim(int(dim), max(input.ndim, 1))
    input, dtype = low_dtype_first(input, dtype)
    odt = _dt.as_dtype(dtype) if dtype is not None else None
    return CUMSUM.call(input, d, odt)


def _cumsum_(self, dim, *, dtype=None):
    from .inplace import inplace_binary

    return inplace_binary("cumsum_", lambda a, _b: cumsum(a, dim, dtype=dtype), self, False)



def _cumprod_forward(x, odt, dev, dim, dtype):
    return _scan_forward(x, odt, dev, dim, dtype, True)


def cumprod_backward(grad, input, dim, result):
    """cumprod's gradient, as PyTorch computes it: ``reversed_cumsum(grad * result) /
    input`` when no input is zero; otherwise, for each position ``k``, the sum over
    ``j >= k`` of ``grad[j]`` times the product of ``input[:j+1]`` without ``input[k]``
    (quadratic in the scanned length, and differentiable again)."""
    from ..creation import ones
    from .concat import cat
    from .elementwise import eq
    from .reduce import prod, sum

    if grad._dtype is not input._dtype:
        grad = grad.to(input._dtype)
    n = input.shape[dim] if input.ndim else 1
    if input.numel() <= 1 or n == 1:
        return grad
    if not bool(eq(input, 0).any()):
        return cumsum_backward(grad * result, dim, input._dtype) / input
    parts = []
    for k in range(n):
        before = prod(input.narrow(dim, 0, k), dim, keepdim=True) if k else None
        after = cumprod(input.narrow(dim, k + 1, n - k - 1), dim) if k < n - 1 else None
        if after is None:
            omitted = before
        elif before is None:
            edge = tuple(1 if d == dim else m for d, m in enumerate(input.shape))
            omitted = cat([ones(edge, dtype=input.dtype, device=input.device), after], dim)
        else:
            omitted = cat([before, before.expand_as(after) * after], dim)
        parts.append(sum(grad.narrow(dim, k, n - k) * omitted, dim, keepdim=True))
    return cat(parts, dim)


CUMPROD = deffunc("cumprod", kernels=("scan",), forward=_cumprod_forward,
                  dtype=_scan_dtype, shape=lambda s, dim, dtype: tuple(s),
                  args=("dim", "dtype"), grads=("cumprod_backward(grad, input, dim, result)",),
                  fn=False, method=False)


@surface(CUMPROD)
@autocast_op("cumprod")
def cumprod(input, dim, *, dtype=None):
    r"""The cumulative products of ``input`` along ``dim``.

    .. math::
        y_i = x_1 \times x_2 \times x_3 \times \dots \times x_i

    Bool and integer inputs multiply as ``int64`` unless ``dtype`` says otherwise; floats
    in float64, rounded to their dtype (as PyTorch's CPU kernel). The gradient is right
    where inputs are zero too.

    Args:
        input (Tensor): the input tensor.
        dim (int): the dimension to multiply along.
        dtype (nbgrad.dtype, optional): the dtype of the result; ``input`` is cast to it
            first. Default: ``None``, ``input``'s dtype (``int64`` for bool and integer
            inputs).

    Example::

        >>> import nbgrad
        >>> nbgrad.cumprod(nbgrad.tensor([1.0, 2.0, 3.0, 4.0]), dim=0)
        tensor([ 1.,  2.,  6., 24.])
    """
    check_tensor(input, "cumprod")
    d = _wrap_dim(int(dim), max(input.ndim, 1))
    input, dtype = low_dtype_first(input, dtype)
    odt = _dt.as_dtype(dtype) if dtype is not None else None
    return CUMPROD.call(input, d, odt)


def _cumprod_(self, dim, *, dtype=None):
    from .inplace import inplace_binary

    return inplace_binary("cumprod_", lambda a, _b: cumprod(a, dim, dtype=dtype), self, False)




def _running_extreme(name, better, accumulate):
    """``cummax`` / ``cummin``: the indices found on the host (where the value is NaN, or,
    the extreme so far being a number, where it is at least as good: ties take the later
    index, and a NaN once met stays, as PyTorch's scan), the values gathered at them (so
    with gradients)."""
    result = getattr(RT, name)

    def op(input, dim):
        from ..creation import tensor
        from .index import _host, gather

        check_tensor(input, name)
        d = _wrap_dim(int(dim), max(input.ndim, 1))
        h = _host(input)
        x = np.moveaxis(h.reshape(h.shape or (1,)), d, -1)
        x = x.astype(np.float32) if x.dtype.char in "eE" else x
        n = x.shape[-1]
        nan = np.isnan(x) if x.dtype.kind == "f" else np.zeros(x.shape, bool)
        before = np.zeros(x.shape[:-1] + (min(n, 1),), x.dtype)
        prev = np.concatenate([before, accumulate(x, -1)[..., :-1]], -1)
        prev_nan = np.concatenate([np.zeros(before.shape, bool),
                                   np.logical_or.accumulate(nan, -1)[..., :-1]], -1)
        moves = nan | (~prev_nan & better(x, prev))
        moves[..., :1] = True
        pos = np.where(moves, np.arange(n), 0)
        idx = np.moveaxis(np.maximum.accumulate(pos, -1), -1, d).reshape(h.shape)
        idx = tensor(np.array(idx, order="C"), dtype=_dt.int64, device=input._device)
        if not input.ndim:
            return result(input.clone(), idx)
        return result(gather(input, d, idx), idx)

    op.__name__ = name
    op.__doc__ = (f"The running {'maximum' if name == 'cummax' else 'minimum'} along ``dim`` "
                  "and where each was found, as a ``(values, indices)`` named tuple (ties "
                  "take the later index; a NaN, once met, stays), with gradients.")
    return op


cummax = _running_extreme("cummax", np.greater_equal, np.fmax.accumulate)
cummax.__doc__ = """The cumulative maximum of ``input`` along ``dim``, and where each was
    found, as a named tuple ``(values, indices)``.

    ``values[i]`` is the largest of ``input[0], ..., input[i]`` along ``dim`` and
    ``indices[i]`` its position; where several are equal, the last one's. A NaN, once met,
    stays the maximum. The gradient flows to the positions of ``indices``.

    Args:
        input (Tensor): the input tensor.
        dim (int): the dimension to scan along.

    Returns:
        (Tensor, Tensor): the named tuple ``(values, indices)``, ``indices`` of ``int64``.

    Example::

        >>> import nbgrad
        >>> values, indices = nbgrad.cummax(nbgrad.tensor([1.0, 3.0, 2.0, 3.0, 5.0]), dim=0)
        >>> values, indices
        (tensor([1., 3., 3., 3., 5.]), tensor([0, 1, 1, 3, 4]))
    """
cummin = _running_extreme("cummin", np.less_equal, np.fmin.accumulate)
cummin.__doc__ = """The cumulative minimum of ``input`` along ``dim``, and where each was
    found, as a named tuple ``(values, indices)``.

    ``values[i]`` is the smallest of ``input[0], ..., input[i]`` along ``dim`` and
    ``indices[i]`` its position; where several are equal, the last one's. A NaN, once met,
    stays the minimum. The gradient flows to the positions of ``indices``.

    Args:
        input (Tensor): the input tensor.
        dim (int): the dimension to scan along.

    Returns:
        (Tensor, Tensor): the named tuple ``(values, indices)``, ``indices`` of ``int64``.

    Example::

        >>> import nbgrad
        >>> values, indices = nbgrad.cummin(nbgrad.tensor([3.0, 1.0, 2.0, 1.0, 0.0]), dim=0)
        >>> values, indices
        (tensor([3., 1., 1., 1., 0.]), tensor([0, 1, 1, 3, 4]))
    """


# ----- logcumsumexp: the running log-sum-exp, on the host with NumPy's logaddexp (stable
# for any range of values), its gradient PyTorch's formula in log space
def _logcumsumexp_forward(x, odt, dev, dim):
    be = backend(dev)
    h = np.asarray(be.to_host(x), dtype=np.float64)
    out = np.logaddexp.accumulate(h, axis=dim) if h.ndim else h
    return be.from_host(np.ascontiguousarray(out.astype(odt.np)))


def logcumsumexp_backward(grad, input, result, dim):
    """``d logcumsumexp / d input`` applied to ``grad``: sums of ``grad_i * exp(x_j - out_i)``
    over ``i >= j``, taken apart by the gradient's sign and accumulated as reversed
    log-cumsum-exps, so nothing overflows (PyTorch's formula, differentiable again)."""
    from .elementwise import abs, exp, gt, log, lt, sub, where

    if grad.ndim == 0:
        return grad
    lowest = float(np.finfo(np.float32 if grad.dtype.low else grad.dtype.np).min)
    log_abs = log(abs(grad))

    def reverse(x):
        return flip(logcumsumexp(flip(x, (dim,)), dim), (dim,))

    pos = where(gt(grad, 0), log_abs, lowest)
    neg = where(lt(grad, 0), log_abs, lowest)
    return sub(exp(reverse(pos - result) + input), exp(reverse(neg - result) + input))


LOGCUMSUMEXP = deffunc("logcumsumexp", kernels=(), forward=_logcumsumexp_forward,
                       dtype=lambda idt, dim: idt, shape=lambda s, dim: tuple(s),
                       args=("dim",),
                       grads=("logcumsumexp_backward(grad, input, result, dim)",),
                       fn=False, method=False)


@surface(LOGCUMSUMEXP)
def logcumsumexp(input, dim):
    r"""The logarithm of the cumulative sums of the exponentials of ``input`` along
    ``dim``.

    .. math::
        \text{logcumsumexp}(x)_{i} = \log \sum_{j=0}^{i} \exp(x_{j})

    Computed without overflow or underflow, for any range of values.

    Args:
        input (Tensor): the input tensor.
        dim (int): the dimension to scan along.

    Example::

        >>> import nbgrad
        >>> nbgrad.logcumsumexp(nbgrad.tensor([0.0, 0.0, 1000.0]), 0)
        tensor([0.0000e+00, 6.9315e-01, 1.0000e+03])
    """
    check_tensor(input, "logcumsumexp")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"\"logcumsumexp_out_cpu\" not implemented for "
                           f"'{input.dtype.scalar_type}'")
    r = LOGCUMSUMEXP.call(input, _wrap_dim(int(dim), max(input.ndim, 1)))
    return r if input.ndim else r.reshape(())  # (a 0-d input's result is 0-d)
