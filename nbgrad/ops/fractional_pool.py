"""Fractional max pooling (Graham, 2014), as PyTorch's ``fractional_max_pool2d`` /
``fractional_max_pool3d``: windows of ``kernel_size`` whose starts step pseudo-randomly
by ``floor`` or ``ceil`` of ``input / output`` size, one random offset per plane and dim
(``_random_samples``, uniform in [0, 1), drawn with ``rand`` as PyTorch draws them). The
maxima (first of equal ones, a NaN wins) and their flat positions in each input plane are
found on the host; the gradient scatters to those positions."""

import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor
from ._core import SCALAR_TYPE, backend, check_tensor
from .conv import max_pool2d_backward  # noqa: F401  (formulas)
from .funcdef import deffunc, surface


def _intervals(samples, in_size, out_size, k):
    """PyTorch's window starts (P, out_size) from per-plane samples (P,), computed in the
    samples' dtype as its kernel computes them."""
    t = samples.dtype.type
    starts = np.empty((samples.shape[0], out_size), np.int64)
    if out_size > 1:
        alpha = t(in_size - k) / t(out_size - 1)
        i = np.arange(out_size - 1).astype(samples.dtype)
        starts[:, :-1] = ((i[None, :] + samples[:, None]) * alpha).astype(np.int64) - (
            samples * alpha).astype(np.int64)[:, None]
    if out_size > 0:
        starts[:, -1] = in_size - k
    return starts


def _forward(x, samples, odts, dev, kernel_size, output_size, dtype):
    from ..kernels.cpu.pool_fractional import fractional_max_pool

    be = backend(dev)
    a = np.ascontiguousarray(be.to_host(x))
    s = np.ascontiguousarray(be.to_host(samples))
    nd = len(kernel_size)
    spatial = a.shape[-nd:]
    lead = a.shape[:-nd]
    planes = int(np.prod(lead, dtype=np.int64))
    s = s.reshape(planes, nd) if planes else s.reshape(0, nd)
    own = getattr(_dt, dtype).np
    if s.dtype != own:
        # (16-bit operands arrive widened; the starts are computed in their own precision)
        s = s.astype(own)
    # PyTorch's sample order: (W, H) in 2-d, (T, H, W) in 3-d
    order = (1, 0) if nd == 2 else (0, 1, 2)
    starts = [_intervals(s[:, order[d]], spatial[d], output_size[d], kernel_size[d])
              for d in range(nd)]
    if nd == 2:
        starts = [np.zeros((planes, 1), np.int64)] + starts
        dims, ks = (1,) + tuple(spatial), (1,) + tuple(kernel_size)
    else:
        dims, ks = tuple(spatial), tuple(kernel_size)
    out_shape = tuple(lead) + tuple(output_size)
    n_out = int(np.prod(output_size, dtype=np.int64))
    vals = np.empty((planes, n_out), a.dtype)
    idx = np.empty((planes, n_out), np.int64)
    if planes and n_out:
        work = a.reshape(planes, -1)
        if work.dtype.char in "eE" or work.dtype == np.dtype("V2"):
            work = work.astype(np.float32)
        v32 = np.empty((planes, n_out), work.dtype)
        fractional_max_pool(work, *starts, *dims, *ks, v32, idx)
        vals = v32.astype(a.dtype)
    return be.from_host(vals.reshape(out_shape)), be.from_host(idx.reshape(out_shape))


def _pool_backward(grad, indices, input, kernel_size, output_size):
    """The gradient of the input: ``grad`` added at the flat positions ``indices`` (the
    input, kernel and output sizes kept as PyTorch's node keeps them)."""
    nd = len(kernel_size)
    input_shape = tuple(input.shape)
    if nd == 2:
        return max_pool2d_backward(grad, indices, input_shape)
    lead = tuple(input_shape[:-3])
    d, h, w = input_shape[-3:]
    od = grad.shape[-3]
    flat = (lead + (od, -1))
    g = max_pool2d_backward(grad.reshape(flat), indices.reshape(flat), lead + (d, h * w))
    return g.reshape(tuple(input_shape))


def _row(nd):
    return deffunc(
        f"fractional_max_pool{nd}d", params=("input", "random_samples"), kernels=(),
        forward=_forward, dtype=lambda dt, sdt, *args: (dt, _dt.int64),
        shape=lambda s, ss, ks, os, dt: (tuple(s[:-nd]) + tuple(os),) * 2,
        args=("kernel_size", "output_size", "dtype"), outputs=("result", "result1"),
        node=f"FractionalMaxPool{nd}DBackward0",
        grads=("_pool_backward(grad, result1, input, kernel_size, output_size)", None),
        torch_names={"input": "self"}, fn=False, method=False)


FRACTIONAL_MAX_POOL2D = _row(2)
FRACTIONAL_MAX_POOL3D = _row(3)


def _tuple(v, n, name, what):
    if isinstance(v, (tuple, list)):
        if len(v) not in (1, n):
            raise RuntimeError(f"fractional_max_pool{n}d: {what} must either be a single Int "
                               "or tuple of Ints")
        v = tuple(v) * (n if len(v) == 1 else 1)
    else:
        v = (v,) * n
    return tuple(int(x) for x in v)


def _checked(input, kernel_size, output_size, output_ratio, samples, nd):
    name = f"fractional_max_pool{nd}d"
    check_tensor(input, name)
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an "
                         "output_ratio")
    ks = _tuple(kernel_size, nd, name, "kernel_size")
    if output_size is None:
        ratio = output_ratio if isinstance(output_ratio, (tuple, list)) else (output_ratio,)
        if len(ratio) > nd:
            raise ValueError(f"{name} requires output_ratio to either be a single Int or "
                             "tuple of Ints.")
        ratio = tuple(ratio) * (nd if len(ratio) == 1 else 1)
        output_size = [int(input.shape[-nd + d] * ratio[d]) for d in range(nd)]
    os_ = _tuple(output_size, nd, name, "output_size")
    if input.ndim not in (nd + 1, nd + 2):
        if input.ndim < nd + 1:
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-input.ndim}, {input.ndim - 1}], but got {-nd - 1})")
    if not input._dtype.is_floating_point:
        raise NotImplementedError(f"\"check_uniform_bounds\" not implemented for "
                                  f"'{SCALAR_TYPE[input._dtype.name]}'")
    if samples is None:
        from ..creation import rand

        n_batch = 1 if input.ndim == nd + 1 else input.shape[0]
        samples = rand(n_batch, input.shape[-nd - 1], nd, dtype=input.dtype,
                       device=input.device)
    elif not isinstance(samples, Tensor):
        raise TypeError(f"{name}(): argument 'random_samples' must be Tensor, not "
                        f"{type(samples).__name__}")
    if nd == 2:
        if input.ndim not in (3, 4):
            raise RuntimeError(f"fractional_max_pool2d(): Expected 3D or 4D tensor, but got: "
                               f"{list(input.shape)}")
        for i in range(1, input.ndim):
            if input.shape[i] == 0:
                raise RuntimeError(
                    "fractional_max_pool2d(): Expected input to have non-zero size for "
                    f"non-batch dimensions, but got{list(input.shape)} with dimension {i} "
                    "being empty.")
    elif input.numel() == 0 or input.ndim not in (4, 5):
        raise RuntimeError("fractional_max_pool3d_out(): non-empty 4D or 5D (batch mode) "
                           f"tensor  expected for input, but got: {input.ndim}")
    if samples.ndim != 3:
        raise RuntimeError("Expect _random_samples to have 3 dimensions")
    if samples.dtype != input.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    if samples.shape[1] != input.shape[-nd - 1]:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if samples.shape[2] != nd:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {nd}; got "
                           f"{samples.shape[2]}.")
    n_batch = 1 if input.ndim == nd + 1 else input.shape[0]
    if samples.shape[0] < n_batch:
        raise RuntimeError(f"Expect _random_samples.size(0) no less then input batch size; "
                           f"got {samples.shape[0]} < {n_batch}.")
    spatial = input.shape[-nd:]
    if nd == 2:
        for d, what in ((0, "height"), (1, "width")):
            if os_[d] + ks[d] - 1 > spatial[d]:
                raise RuntimeError(f"fractional_max_pool2d(): pool {what} {ks[d]} too large "
                                   f"relative to input {what} {spatial[d]}")
    else:
        for d, what in ((0, "time"), (2, "width"), (1, "height")):
            if os_[d] + ks[d] - 1 >= spatial[d]:
                raise RuntimeError(f"fractional_max_pool3d_out(): pool {what} {ks[d]} too "
                                   f"large relative to input {what} {spatial[d]}")
    planes = int(np.prod(input.shape[:-nd], dtype=np.int64))
    return ks, os_, samples.reshape(-1)[:planes * nd].reshape(tuple(input.shape[:-nd]) + (nd,))


@surface(FRACTIONAL_MAX_POOL2D)
def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """Apply 2-D fractional max pooling: max pooling at pseudo-random strides.

    The windows of ``kernel_size`` start at positions drawn, one random offset per sample,
    channel and dimension, so that the output has ``output_size`` (Graham, "Fractional
    Max-Pooling", 2014); their maxima form the output.

    Args:
        input (Tensor): the input, :math:`(N, C, H, W)` or unbatched.
        kernel_size (int or tuple): the window's size: one int, or one per pooled dimension.
        output_size (int or tuple, optional): the output's size in the pooled dimensions.
            Default: ``None``; give it or ``output_ratio``.
        output_ratio (float or tuple, optional): the output's size as a fraction of the
            input's, in :math:`(0, 1)`. Default: ``None``.
        return_indices (bool, optional): also return the flat position ``h * W + w`` of each
            maximum in its input plane (as int64), for :func:`max_unpool2d`.
            Default: ``False``.
        _random_samples (Tensor, optional): the offsets, in :math:`[0, 1)`, of shape
            :math:`(N, C, 2)` and the input's dtype; by default drawn from the default
            generator. Default: ``None``.

    Returns:
        Tensor, or (Tensor, Tensor) with ``return_indices``: the maxima, and their indices.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> x = nbgrad.arange(25.0).reshape(1, 1, 5, 5)
        >>> u = nbgrad.full((1, 1, 2), 0.5)
        >>> F.fractional_max_pool2d(x, 2, output_size=2, _random_samples=u)
        tensor([[[[ 6.,  9.],
                  [21., 24.]]]])
        >>> _ = nbgrad.manual_seed(0)
        >>> F.fractional_max_pool2d(nbgrad.randn(2, 3, 10, 10), 3, output_ratio=0.5).shape
        nbgrad.Size([2, 3, 5, 5])
    """
    ks, os_, samples = _checked(input, kernel_size, output_size, output_ratio,
                                _random_samples, 2)
    out, idx = FRACTIONAL_MAX_POOL2D.call(input, samples, ks, os_, input.dtype.name)
    return (out, idx) if return_indices else out


@surface(FRACTIONAL_MAX_POOL3D)
def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """Apply 3-D fractional max pooling: max pooling at pseudo-random strides.

    The windows of ``kernel_size`` start at positions drawn, one random offset per sample,
    channel and dimension, so that the output has ``output_size`` (Graham, "Fractional
    Max-Pooling", 2014); their maxima form the output.

    Args:
        input (Tensor): the input, :math:`(N, C, T, H, W)` or unbatched.
        kernel_size (int or tuple): the window's size: one int, or one per pooled dimension.
        output_size (int or tuple, optional): the output's size in the pooled dimensions.
            Default: ``None``; give it or ``output_ratio``.
        output_ratio (float or tuple, optional): the output's size as a fraction of the
            input's, in :math:`(0, 1)`. Default: ``None``.
        return_indices (bool, optional): also return the flat position
            ``(t * H + h) * W + w`` of each maximum in its input volume (as int64), for
            :func:`max_unpool3d`.
            Default: ``False``.
        _random_samples (Tensor, optional): the offsets, in :math:`[0, 1)`, of shape
            :math:`(N, C, 3)` and the input's dtype; by default drawn from the default
            generator. Default: ``None``.

    Returns:
        Tensor, or (Tensor, Tensor) with ``return_indices``: the maxima, and their indices.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> x = nbgrad.arange(64.0).reshape(1, 1, 4, 4, 4)
        >>> F.fractional_max_pool3d(
        ...     x, 2, output_size=1, _random_samples=nbgrad.full((1, 1, 3), 0.5)).flatten()
        tensor([63.])
        >>> _ = nbgrad.manual_seed(0)
        >>> F.fractional_max_pool3d(nbgrad.randn(1, 2, 8, 8, 8), 2, output_size=(4, 3, 5)).shape
        nbgrad.Size([1, 2, 4, 3, 5])
    """
    ks, os_, samples = _checked(input, kernel_size, output_size, output_ratio,
                                _random_samples, 3)
    out, idx = FRACTIONAL_MAX_POOL3D.call(input, samples, ks, os_, input.dtype.name)
    return (out, idx) if return_indices else out


__all__ = ["fractional_max_pool2d", "fractional_max_pool3d"]
