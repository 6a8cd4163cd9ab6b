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
    r"""Apply group normalization: normalize each group of channels of each sample.

    The :math:`C` channels are split into ``num_groups`` groups; each group of each sample is
    normalized by its own mean and (biased) variance over its channels and positions,
    :math:`y = (x - \mathrm{E}[x]) / \sqrt{\mathrm{Var}[x] + \epsilon}`, then scaled by
    ``weight`` and shifted by ``bias``, per channel.

    Args:
        input (Tensor): the input, :math:`(N, C, *)`.
        num_groups (int): the number of groups; it must divide :math:`C`.
        weight (Tensor, optional): the scale of each channel, of shape :math:`(C)`.
            Default: ``None`` (1).
        bias (Tensor, optional): the shift of each channel, of shape :math:`(C)`.
            Default: ``None`` (0).
        eps (float, optional): added to the variance, for stability. Default: ``1e-5``.

    Shape:
        - Input: :math:`(N, C, *)`.
        - Output: the shape of the input.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> x = nbgrad.tensor([[[1.0], [3.0], [10.0], [30.0]]])
        >>> F.group_norm(x, 2).reshape(-1)
        tensor([-1.0000,  1.0000, -1.0000,  1.0000])
        >>> F.group_norm(x, 1, weight=nbgrad.full((4,), 2.0)).reshape(-1)
        tensor([-1.7441, -1.3953, -0.1744,  3.3138])
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
    r"""Apply instance normalization: normalize each channel of each sample over its positions.

    :math:`y = (x - \mathrm{E}[x]) / \sqrt{\mathrm{Var}[x] + \epsilon} \cdot \gamma + \beta`,
    the statistics taken per sample and channel. It runs as :func:`batch_norm` of the
    :math:`(1, N C, *)` view, as PyTorch does.

    Args:
        input (Tensor): the input, :math:`(N, C, *)`.
        running_mean (Tensor, optional): the running mean of each channel, :math:`(C)`;
            updated in place when ``use_input_stats``, read otherwise. Default: ``None``.
        running_var (Tensor, optional): the running (unbiased) variance of each channel,
            :math:`(C)`, as ``running_mean``. Default: ``None``.
        weight (Tensor, optional): the scale :math:`\gamma` of each channel, :math:`(C)`.
            Default: ``None`` (1).
        bias (Tensor, optional): the shift :math:`\beta` of each channel, :math:`(C)`.
            Default: ``None`` (0).
        use_input_stats (bool, optional): normalize by the input's statistics (and update the
            running ones, if given); ``False``: by ``running_mean`` and ``running_var``.
            Default: ``True``.
        momentum (float, optional): the fraction of the way the running statistics move to
            the input's. Default: ``0.1``.
        eps (float, optional): added to the variance, for stability. Default: ``1e-5``.

    Shape:
        - Input: :math:`(N, C, *)`, with more than one position when ``use_input_stats``.
        - Output: the shape of the input.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> x = nbgrad.tensor([[[1.0, 3.0], [10.0, 30.0]]])
        >>> F.instance_norm(x)
        tensor([[[-1.0000,  1.0000],
                 [-1.0000,  1.0000]]])
        >>> mean, var = nbgrad.zeros(2), nbgrad.ones(2)
        >>> _ = F.instance_norm(x, mean, var)
        >>> mean
        tensor([0.2000, 2.0000])
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
    r"""Apply root mean square normalization over the last dimensions of ``input``.

    :math:`y = \frac{x}{\sqrt{\mathrm{E}[x^2] + \epsilon}} \gamma`, the mean taken over the
    trailing ``normalized_shape`` dims of each sample.

    Args:
        input (Tensor): the input, :math:`(*, \text{normalized\_shape})`.
        normalized_shape (int or sequence of int): the trailing shape to normalize over; an
            int is one last dimension.
        weight (Tensor, optional): the scale :math:`\gamma`, of shape ``normalized_shape``.
            Default: ``None`` (1).
        eps (float, optional): added to the mean square, for stability. Default: ``None``,
            the machine epsilon of the input's dtype (of float32 for a 16-bit input).

    Shape:
        - Input: :math:`(*, \text{normalized\_shape})`.
        - Output: the shape of the input.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> F.rms_norm(nbgrad.tensor([[3.0, 4.0]]), (2,))
        tensor([[0.8485, 1.1314]])
        >>> F.rms_norm(nbgrad.tensor([[3.0, 4.0]]), 2, weight=nbgrad.tensor([1.0, 0.5]))
        tensor([[0.8485, 0.5657]])
    """
    check_tensor(input, "rms_norm")
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(
        normalized_shape)
    if tuple(input.shape[input.ndim - len(shape):]) != shape:
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*, {', '.join(map(str, shape))}], but got input of size"
                           f"{list(input.shape)}")
    if eps is None:  # (of the dtype computed in: float32 for a 16-bit input, as PyTorch's)
        eps = float(np.finfo(np.float32 if input.dtype.low else input.dtype.np).eps)
    dims = tuple(range(input.ndim - len(shape), input.ndim))
    if input.dtype.low:  # (PyTorch's: computed in float32, each result in input's dtype)
        x = input.float()
        out = mul(x, rsqrt(add(_mean(mul(x, x), dims, keepdim=True), eps))).to(input.dtype)
        return out if weight is None else mul(out, weight).to(input.dtype)
    out = mul(input, rsqrt(add(_mean(mul(input, input), dims, keepdim=True), eps)))
    return out if weight is None else mul(out, weight)
