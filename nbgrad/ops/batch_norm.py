"""Batch norm, composed of ops that have rows (means, variances, ``rsqrt``, products): every
device, and derivatives of any order through its parts (the nodes are the parts', not
PyTorch's ``NativeBatchNormBackward0``). The running statistics are updated in place, with
no graph, as PyTorch updates its buffers."""

from ..autograd.grad_mode import no_grad
from ._core import Tensor, check_tensor, mixed_norm_dtypes
from .elementwise import add, mul, rsqrt, sub
from .reduce import mean as _mean
from .shape import reshape
from .stats import var as _var


def _per_channel(t, ndim):
    """A (C,) tensor shaped to broadcast over (N, C, ...) input of ``ndim`` dims."""
    return reshape(t, (1, -1) + (1,) * (ndim - 2))


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    r"""Apply batch normalization: normalize each channel (dim 1) by its mean and variance.

    :math:`y = \frac{x - \mathrm{E}[x]}{\sqrt{\mathrm{Var}[x] + \epsilon}} \gamma + \beta` per
    channel. With ``training=True`` the statistics are the batch's (over all dims but 1, the
    variance biased), and the running statistics, if given, move ``momentum`` of the way to
    them (the variance unbiased there); with ``training=False`` they are ``running_mean`` and
    ``running_var``.

    Args:
        input (Tensor): the input, :math:`(N, C, *)`.
        running_mean (Tensor or None): the running mean of each channel, :math:`(C)`; updated
            in place when training. Required when not training.
        running_var (Tensor or None): the running variance of each channel, :math:`(C)`, as
            ``running_mean``.
        weight (Tensor, optional): the scale :math:`\gamma` of each channel, :math:`(C)`.
            Default: ``None`` (1).
        bias (Tensor, optional): the shift :math:`\beta` of each channel, :math:`(C)`.
            Default: ``None`` (0).
        training (bool, optional): use the batch's statistics (see above). Default: ``False``.
        momentum (float, optional): the fraction of the way the running statistics move:
            :math:`\hat{x}_{new} = (1 - \text{momentum}) \hat{x} + \text{momentum} \, x_t`.
            Default: ``0.1``.
        eps (float, optional): added to the variance, for stability. Default: ``1e-5``.

    Shape:
        - Input: :math:`(N, C, *)`, with more than one value per channel when training.
        - Output: the shape of the input.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> x = nbgrad.tensor([[1.0, 10.0], [3.0, 30.0]])
        >>> F.batch_norm(x, None, None, training=True)
        tensor([[-1.0000, -1.0000],
                [ 1.0000,  1.0000]])
        >>> mean, var = nbgrad.zeros(2), nbgrad.ones(2)
        >>> _ = F.batch_norm(x, mean, var, training=True)
        >>> mean, var
        (tensor([0.2000, 2.0000]), tensor([ 1.1000, 20.9000]))
        >>> F.batch_norm(x, mean, var)
        tensor([[0.7628, 1.7499],
                [2.6697, 6.1247]])
    """
    check_tensor(input, "batch_norm")
    if input.ndim < 2:
        raise ValueError(f"expected 2D or 3D input (got {input.ndim}D input)")
    if mixed_norm_dtypes(input, weight, bias, running_mean, running_var):
        # (16-bit input, float32 parameters and statistics: computed in float32)
        return batch_norm(input.float(), running_mean, running_var, weight, bias, training,
                          momentum, eps).to(input.dtype)
    nd = input.ndim
    dims = (0,) + tuple(range(2, nd))
    if training:
        n = input.numel() // input.shape[1] if input.shape[1] else 0
        if n == 0:  # (an empty batch: nothing to normalize, no statistic to update; the
            # result still depends on the affine parameters, as PyTorch's)
            shape = (1, input.shape[1]) + (1,) * (nd - 2)
            out = input * 1.0
            if weight is not None:
                out = out * weight.reshape(shape)
            return out if bias is None else out + bias.reshape(shape)
        if n == 1:
            raise ValueError("Expected more than 1 value per channel when training, got "
                             f"input size {input.shape}")
        mean = _mean(input, dims)
        var = _var(input, dims, correction=0)
        if running_mean is not None or running_var is not None:
            with no_grad():
                _update(running_mean, mean, momentum)
                _update(running_var, mul(var, n / (n - 1)), momentum)
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError("running_mean and running_var must be defined in evaluation "
                               "mode")
        mean, var = running_mean, running_var
    out = mul(sub(input, _per_channel(mean, nd)), _per_channel(rsqrt(add(var, eps)), nd))
    if weight is not None:
        out = mul(out, _per_channel(weight, nd))
    if bias is not None:
        out = add(out, _per_channel(bias, nd))
    return out


def _update(stat, batch, momentum):
    """``stat = (1 - momentum) * stat + momentum * batch``, in place."""
    if stat.__class__ is Tensor:
        stat.mul_(1.0 - momentum).add_(batch.detach().to(stat.dtype), alpha=momentum)
