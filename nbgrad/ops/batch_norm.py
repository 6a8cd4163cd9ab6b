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
    """Normalize each channel (dim 1) of ``input`` (N, C, ...) by its mean and variance:
    over the batch when ``training`` (then ``running_mean`` / ``running_var``, if given,
    move ``momentum`` of the way to the batch's mean and unbiased variance), else by the
    running statistics; then scale by ``weight`` and shift by ``bias``.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([[1.0, 10.0], [3.0, 30.0]])
        >>> nbgrad.nn.functional.batch_norm(x, None, None, training=True)
        tensor([[-1.0000, -1.0000],
                [ 1.0000,  1.0000]])
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
        n = input.numel() // input.shape[1]
        if n <= 1:
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
