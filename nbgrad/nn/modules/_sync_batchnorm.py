"""Batch norm whose statistics are the whole batch's, across the processes of a group
(``SyncBatchNorm`` in training with more than one process).

Forward: each process's per-channel count, mean and sum of squared deviations are
gathered and combined (Chan's pairwise formula: no catastrophic cancellation, unlike a
sum of squares); every process normalizes with the global statistics. Backward: the
per-channel sums of ``dy`` and ``dy * (x - mean)`` are summed across processes, which the
input's gradient needs; the weight's and bias's gradients stay local, as DDP averages
them. As PyTorch's, it is differentiable once.
"""

from ... import distributed as dist
from ...autograd.function import Function, once_differentiable
from ...creation import zeros
from ...ops.concat import cat


def _dims(x):
    return [0, *range(2, x.ndim)]


def _channel(t, x):
    """A per-channel vector shaped to broadcast against ``x`` (N, C, ...)."""
    return t.reshape(1, -1, *([1] * (x.ndim - 2)))


class SyncBatchNormFunction(Function):
    @staticmethod
    def forward(ctx, x, weight, bias, running_mean, running_var, eps, momentum, group,
                world):
        c = x.shape[1]
        dims = _dims(x)
        count = x.numel() // c
        if count:
            mean = x.mean(dims)
            m2 = (x - _channel(mean, x)).square().sum(dims)
        else:  # (a process with an empty batch adds nothing)
            mean = m2 = zeros(c, dtype=x.dtype, device=x.device)
        mine = cat([zeros(1, dtype=x.dtype, device=x.device) + count, mean, m2])
        every = zeros(world * (2 * c + 1), dtype=x.dtype, device=x.device)
        dist.all_gather_into_tensor(every, mine, group=group)
        every = every.reshape(world, 2 * c + 1)
        counts, means, m2s = every[:, :1], every[:, 1:c + 1], every[:, c + 1:]
        total = counts.sum()
        if total.item() <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got "
                             f"input size {list(x.shape)} over {world} processes")
        gmean = (counts * means).sum(0) / total
        var = (m2s + counts * (means - gmean).square()).sum(0) / total
        invstd = (var + eps).rsqrt()
        if running_mean is not None:
            n = total.item()
            running_mean.mul_(1 - momentum).add_(gmean.to(running_mean.dtype) * momentum)
            running_var.mul_(1 - momentum).add_(
                (var * (n / (n - 1))).to(running_var.dtype) * momentum)
        y = (x - _channel(gmean, x)) * _channel(invstd, x)
        if weight is not None:
            y = y * _channel(weight, x)
        if bias is not None:
            y = y + _channel(bias, x)
        ctx.save_for_backward(x, weight, gmean, invstd)
        ctx.total, ctx.group, ctx.has_bias = total, group, bias is not None
        return y

    @staticmethod
    @once_differentiable
    def backward(ctx, dy):
        x, weight, mean, invstd = ctx.saved_tensors
        dims = _dims(x)
        c = x.shape[1]
        xmu = x - _channel(mean, x)
        sum_dy = dy.sum(dims)
        sum_dy_xmu = (dy * xmu).sum(dims)
        grad_w = sum_dy_xmu * invstd if weight is not None else None
        grad_b = sum_dy if ctx.has_bias else None
        sums = cat([sum_dy, sum_dy_xmu])  # (a new tensor: the local ones stay local)
        dist.all_reduce(sums, group=ctx.group)
        mean_dy = sums[:c] / ctx.total
        mean_dy_xmu = sums[c:] / ctx.total
        scale = invstd if weight is None else invstd * weight
        dx = (dy - _channel(mean_dy, x) - xmu * _channel(invstd.square() * mean_dy_xmu, x)) \
            * _channel(scale, x)
        return dx, grad_w, grad_b, None, None, None, None, None, None
