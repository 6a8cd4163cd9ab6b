"""Batch norm layers: BatchNorm1d, BatchNorm2d, BatchNorm3d (running statistics as buffers)
and their lazy forms."""

from ... import dtypes
from ...autograd.grad_mode import no_grad
from ...creation import ones, tensor, zeros
from .. import init
from .lazy import lazy_norm
from .module import Module
from .utils import _factory

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LazyBatchNorm1d", "LazyBatchNorm2d",
           "LazyBatchNorm3d", "SyncBatchNorm"]


class _BatchNorm(Module):
    _dims = ()  # the input ranks the layer takes

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, device=None, dtype=None, *, bias=True):
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            new = _factory(device, dtype)
            self.weight = new(num_features)
            if bias:
                self.bias = new(num_features)
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            dt = dtype if dtype is not None else dtypes.get_default_dtype()
            self.register_buffer("running_mean", zeros(num_features, dtype=dt, device=device))
            self.register_buffer("running_var", ones(num_features, dtype=dt, device=device))
            self.register_buffer("num_batches_tracked",
                                 tensor(0, dtype=dtypes.int64, device=device))
        else:
            for name in ("running_mean", "running_var", "num_batches_tracked"):
                self.register_buffer(name, None)
        self.reset_parameters()

    def reset_running_stats(self):
        if self.track_running_stats:
            with no_grad():
                self.running_mean.zero_()
                self.running_var.fill_(1)
                self.num_batches_tracked.zero_()

    def reset_parameters(self):
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input):
        if input.ndim not in self._dims:
            want = " or ".join(f"{d}D" for d in self._dims)
            raise ValueError(f"expected {want} input (got {input.ndim}D input)")
        return self._normalize(input)

    def _normalize(self, input):
        from .. import functional as F

        momentum = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            with no_grad():
                self.num_batches_tracked.add_(1)
            if self.momentum is None:  # a cumulative moving average
                momentum = 1.0 / float(self.num_batches_tracked.item())
        use_batch = self.training or self.running_mean is None
        track = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if track else None,
                            self.running_var if track else None, self.weight, self.bias,
                            use_batch, momentum, self.eps)

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    """Batch norm over (N, C) or (N, C, L) input, per channel C."""

    _dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch norm over (N, C, H, W) input, per channel C."""

    _dims = (4,)



class BatchNorm3d(_BatchNorm):
    """Batch norm over (N, C, D, H, W) input, per channel C."""

    _dims = (5,)


class SyncBatchNorm(_BatchNorm):
    """Batch norm over (N, C, ...) input whose statistics, in distributed training, are
    those of the whole batch across processes. In one process (nbgrad has no process
    groups yet: issue #18) it is ``BatchNorm``'s computation on any input of two or more
    dims; ``convert_sync_batchnorm`` swaps a model's batch norms for it, as in PyTorch.

    Example::

        >>> import nbgrad
        >>> net = nbgrad.nn.Sequential(nbgrad.nn.Conv2d(1, 2, 1), nbgrad.nn.BatchNorm2d(2))
        >>> nbgrad.nn.SyncBatchNorm.convert_sync_batchnorm(net)[1]
        SyncBatchNorm(2, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
    """

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, process_group=None, device=None, dtype=None, *,
                 bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype, bias=bias)
        self.process_group = process_group

    def forward(self, input):
        if input.ndim < 2:
            raise ValueError(f"expected at least 2D input (got {input.ndim}D input)")
        if input.shape[1] == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")
        return self._normalize(input)

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """``module`` with every batch norm layer in it replaced by a ``SyncBatchNorm``
        holding the same parameters and running statistics (the tensors themselves)."""
        out = module
        if isinstance(module, _BatchNorm):
            out = cls(module.num_features, module.eps, module.momentum, module.affine,
                      module.track_running_stats, process_group,
                      bias=module.bias is not None)
            if module.affine:
                with no_grad():
                    out.weight = module.weight
                    out.bias = module.bias
            out.running_mean = module.running_mean
            out.running_var = module.running_var
            out.num_batches_tracked = module.num_batches_tracked
            out.training = module.training
        for name, child in module.named_children():
            out.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return out


LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d = (
    lazy_norm(f"LazyBatchNorm{n}d", b)
    for n, b in ((1, BatchNorm1d), (2, BatchNorm2d), (3, BatchNorm3d)))
