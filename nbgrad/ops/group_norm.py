"""Group, instance and RMS normalisation, composed of ops that have rows (means, variances,
``rsqrt``, products), like ``batch_norm``: every device, derivatives of any order through
the parts (whose nodes they are)."""

import numpy as np

from ..amp.policy import autocast_op
from ._core import check_tensor, mixed_norm_dtypes
from .batch_norm import _per_channel, batch_norm
from .elementwise import add, mul, rsqrt, sub
from .reduce import mean as _mean
from .shape import reshape
from .stats import var as _var


@autocast_op("group_norm")
def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Normalise ``input`` (N, C, ...) over each group of ``C / num_groups`` channels (and
    all positions), then scale and shift per channel.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([[[1.0], [3.0], [10.0], [30.0]]])
        >>> nbgrad.nn.functional.group_norm(x, 2).reshape(-1)
        tensor([-1.0000,  1.0000, -1.0000,  1.0000])
    """
    check_tensor(input, "group_norm")
    if input.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received "
                           f"{input.ndim}")
    N, C = input.shape[:2]
    if C % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by "
                           f"num_groups, but got input of shape {list(input.shape)} and "
                           f"num_groups={num_groups}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != (C,):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number "
                               f"of channels in input, but got {name} of shape "
                               f"{list(t.shape)} and input of shape {list(input.shape)}")
    if mixed_norm_dtypes(input, weight, bias):  # (16-bit input, float32 weight and bias)
        return group_norm(input.float(), num_groups, weight, bias, eps).to(input.dtype)
    g = reshape(input, (N, num_groups, -1))
    mean, var = _mean(g, -1, keepdim=True), _var(g, -1, keepdim=True, correction=0)
    out = reshape(mul(sub(g, mean), rsqrt(add(var, eps))), tuple(input.shape))
    if weight is not None:
        out = mul(out, _per_channel(weight, input.ndim))
    if bias is not None:
        out = add(out, _per_channel(bias, input.ndim))
    return out


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    """Normalise each channel of each sample of ``input`` (N, C, ...) over its positions:
    batch norm of the (1, N * C, ...) view, as PyTorch computes it (with running statistics,
    the batch's mean over the samples updates them).

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([[[1.0, 3.0], [10.0, 30.0]]])
        >>> nbgrad.nn.functional.instance_norm(x)
        tensor([[[-1.0000,  1.0000],
                 [-1.0000,  1.0000]]])
    """
    check_tensor(input, "instance_norm")
    N, C = input.shape[:2]
    shape = tuple(input.shape)
    if use_input_stats and int(np.prod(shape[2:], dtype=np.int64)) <= 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input "
                         f"size {list(shape)}")

    def rep(t):
        return None if t is None else t.repeat(N)

    rm, rv = rep(running_mean), rep(running_var)
    out = batch_norm(reshape(input, (1, N * C) + shape[2:]), rm, rv, rep(weight), rep(bias),
                     use_input_stats, momentum, eps)
    if use_input_stats:  # the samples' statistics, averaged, into the caller's buffers
        for stat, moved in ((running_mean, rm), (running_var, rv)):
            if stat is not None:
                stat.copy_(_mean(reshape(moved, (N, C)), 0))
    return reshape(out, shape)


@autocast_op("rms_norm")
def rms_norm(input, normalized_shape, weight=None, eps=None):
    """``input`` divided by the root mean square over its trailing ``normalized_shape``
    dims (plus ``eps``, by default the dtype's machine epsilon), times ``weight``.

    Example::

        >>> import nbgrad
        >>> nbgrad.nn.functional.rms_norm(nbgrad.tensor([[3.0, 4.0]]), (2,))
        tensor([[0.8485, 1.1314]])
    """
    check_tensor(input, "rms_norm")
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(
        normalized_shape)
    if tuple(input.shape[input.ndim - len(shape):]) != shape:
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*, {', '.join(map(str, shape))}], but got input of size"
                           f"{list(input.shape)}")
    if eps is None:
        eps = float(np.finfo(input.dtype.np).eps)
    dims = tuple(range(input.ndim - len(shape), input.ndim))
    if input.dtype.low:  # (PyTorch's: computed in float32, each result in input's dtype)
        x = input.float()
        out = mul(x, rsqrt(add(_mean(mul(x, x), dims, keepdim=True), eps))).to(input.dtype)
        return out if weight is None else mul(out, weight).to(input.dtype)
    out = mul(input, rsqrt(add(_mean(mul(input, input), dims, keepdim=True), eps)))
    return out if weight is None else mul(out, weight)
