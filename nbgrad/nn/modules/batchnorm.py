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

    def _step_momentum(self):
        """The weight of this batch's statistics in the running ones (counting the batch
        in ``num_batches_tracked`` when training with them)."""
        momentum = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            with no_grad():
                self.num_batches_tracked.add_(1)
            if self.momentum is None:  # a cumulative moving average
                momentum = 1.0 / float(self.num_batches_tracked.item())
        return momentum

    def _normalize(self, input):
        from .. import functional as F

        momentum = self._step_momentum()
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
    r"""Apply batch normalization over a 2-D or 3-D input, per channel.

    From Ioffe and Szegedy, "Batch Normalization: Accelerating Deep Network Training by
    Reducing Internal Covariate Shift":

    .. math::
        y = \frac{x - \mathrm{E}[x]}{\sqrt{\mathrm{Var}[x] + \epsilon}} \cdot \gamma + \beta

    with the mean and (biased) variance taken per channel over the batch (and the length
    ``L``), and :math:`\gamma`, :math:`\beta` learnable per channel. In training mode the
    batch's statistics are used and, with ``track_running_stats``, folded into running
    estimates: ``running = (1 - momentum) * running + momentum * batch_stat`` (the
    variance unbiased there). In eval mode the running estimates are used instead. The
    functional form is :func:`nbgrad.nn.functional.batch_norm`.

    Args:
        num_features (int): the number of channels :math:`C`.
        eps (float, optional): value added to the variance for numerical stability.
            Default: ``1e-5``.
        momentum (float or None, optional): weight of the batch's statistics in the
            running estimates; ``None`` makes them a cumulative (equal-weight) average.
            Default: ``0.1``.
        affine (bool, optional): learn :math:`\gamma` and :math:`\beta`. Default: ``True``.
        track_running_stats (bool, optional): keep the running estimates (as buffers);
            without them the batch's statistics are used in eval mode too.
            Default: ``True``.
        device (nbgrad.device, optional): the device of the parameters and buffers.
            Default: the default device.
        dtype (nbgrad.dtype, optional): their dtype. Default: the default dtype.
        bias (bool, optional): with ``affine``, learn :math:`\beta` too (keyword only).
            Default: ``True``.

    Shape:
        - Input: :math:`(N, C)` or :math:`(N, C, L)`.
        - Output: the input's shape.

    Attributes:
        weight (Parameter or None): :math:`\gamma`, of shape ``(C,)``, initialized to ones.
        bias (Parameter or None): :math:`\beta`, of shape ``(C,)``, initialized to zeros.
        running_mean (Tensor or None): buffer, initialized to zeros.
        running_var (Tensor or None): buffer, initialized to ones.
        num_batches_tracked (Tensor or None): buffer, the number of training batches seen.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.BatchNorm1d(3)
        >>> x = nbgrad.tensor([[1., 2., 3.], [3., 6., 9.]])
        >>> m(x)
        tensor([[-1.0000, -1.0000, -1.0000],
                [ 1.0000,  1.0000,  1.0000]], grad_fn=<AddBackward0>)
        >>> m.running_mean, m.running_var
        (tensor([0.2000, 0.4000, 0.6000]), tensor([1.1000, 1.7000, 2.7000]))
        >>> _ = m.eval()
        >>> m(x)
        tensor([[0.7628, 1.2271, 1.4606],
                [2.6697, 4.2950, 5.1121]], grad_fn=<AddBackward0>)
    """

    _dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    r"""Apply batch normalization over a 4-D input (a batch of images), per channel.

    As :class:`BatchNorm1d`, the statistics of each channel taken over the batch and the
    image's positions:
    :math:`y = (x - \mathrm{E}[x]) / \sqrt{\mathrm{Var}[x] + \epsilon} \cdot \gamma + \beta`.

    Args:
        num_features (int): the number of channels :math:`C`.
        eps (float, optional): value added to the variance for numerical stability.
            Default: ``1e-5``.
        momentum (float or None, optional): weight of the batch's statistics in the
            running estimates; ``None`` for a cumulative average. Default: ``0.1``.
        affine (bool, optional): learn :math:`\gamma` and :math:`\beta`. Default: ``True``.
        track_running_stats (bool, optional): keep running estimates for eval mode.
            Default: ``True``.
        device (nbgrad.device, optional): the device of the parameters and buffers.
            Default: the default device.
        dtype (nbgrad.dtype, optional): their dtype. Default: the default dtype.
        bias (bool, optional): with ``affine``, learn :math:`\beta` too (keyword only).
            Default: ``True``.

    Shape:
        - Input: :math:`(N, C, H, W)`.
        - Output: the input's shape.

    Attributes:
        weight (Parameter or None): :math:`\gamma`, of shape ``(C,)``, initialized to ones.
        bias (Parameter or None): :math:`\beta`, of shape ``(C,)``, initialized to zeros.
        running_mean (Tensor or None): buffer, of shape ``(C,)``, initialized to zeros.
        running_var (Tensor or None): buffer, of shape ``(C,)``, initialized to ones.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> m = nbgrad.nn.BatchNorm2d(4)
        >>> y = m(nbgrad.randn(8, 4, 5, 5) * 3 + 1)
        >>> y.shape, round(y.mean().item(), 4), round(y.std(unbiased=False).item(), 4)
        (nbgrad.Size([8, 4, 5, 5]), 0.0, 1.0)
    """

    _dims = (4,)



class BatchNorm3d(_BatchNorm):
    r"""Apply batch normalization over a 5-D input (a batch of volumes), per channel.

    As :class:`BatchNorm1d`, the statistics of each channel taken over the batch and the
    volume's positions.

    Args:
        num_features (int): the number of channels :math:`C`.
        eps (float, optional): value added to the variance for numerical stability.
            Default: ``1e-5``.
        momentum (float or None, optional): weight of the batch's statistics in the
            running estimates; ``None`` for a cumulative average. Default: ``0.1``.
        affine (bool, optional): learn :math:`\gamma` and :math:`\beta`. Default: ``True``.
        track_running_stats (bool, optional): keep running estimates for eval mode.
            Default: ``True``.
        device (nbgrad.device, optional): the device of the parameters and buffers.
            Default: the default device.
        dtype (nbgrad.dtype, optional): their dtype. Default: the default dtype.
        bias (bool, optional): with ``affine``, learn :math:`\beta` too (keyword only).
            Default: ``True``.

    Shape:
        - Input: :math:`(N, C, D, H, W)`.
        - Output: the input's shape.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.BatchNorm3d(2, affine=False)
        >>> m(nbgrad.ones(2, 2, 3, 3, 3)).shape
        nbgrad.Size([2, 2, 3, 3, 3])
        >>> m.weight is None
        True
    """

    _dims = (5,)


class SyncBatchNorm(_BatchNorm):
    """Batch norm over (N, C, ...) input whose statistics, in distributed training, are
    those of the whole batch across the processes of ``process_group`` (see
    ``nbgrad.distributed``): in training, every process normalizes with the mean and
    variance of all the processes' batches together, and the running estimates are
    updated from them. In one process, or in eval mode, it is ``BatchNorm``'s computation
    on any input of two or more dims. ``convert_sync_batchnorm`` swaps a model's batch
    norms for it, as in PyTorch.

    Args:
        num_features (int): the number of channels :math:`C`.
        eps (float, optional): value added to the variance for numerical stability.
            Default: ``1e-5``.
        momentum (float or None, optional): weight of the batch's statistics in the
            running estimates; ``None`` for a cumulative average. Default: ``0.1``.
        affine (bool, optional): learn a per-channel scale and shift. Default: ``True``.
        track_running_stats (bool, optional): keep running estimates for eval mode.
            Default: ``True``.
        process_group (ProcessGroup, optional): the processes whose batches are pooled.
            Default: ``None``, the default group when one is initialized.
        device (nbgrad.device, optional): the device of the parameters and buffers.
            Default: the default device.
        dtype (nbgrad.dtype, optional): their dtype. Default: the default dtype.
        bias (bool, optional): with ``affine``, learn the shift too (keyword only).
            Default: ``True``.

    Shape:
        - Input: :math:`(N, C, *)`.
        - Output: the input's shape.

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
        batch_stats = self.training or self.running_mean is None
        world = self._world() if batch_stats else 1
        if world == 1:
            return self._normalize(input)
        from ._sync_batchnorm import SyncBatchNormFunction

        momentum = self._step_momentum()
        track = self.training and self.track_running_stats
        return SyncBatchNormFunction.apply(
            input, self.weight, self.bias, self.running_mean if track else None,
            self.running_var if track else None, self.eps, momentum, self.process_group,
            world)

    def _world(self):
        """How many processes pool their batches here (1: none to sync with)."""
        from ... import distributed as dist

        if not dist.is_initialized():
            return 1
        size = dist.get_world_size(self.process_group)
        return max(size, 1)

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

LazyBatchNorm1d.__doc__ = r"""A :class:`BatchNorm1d` whose ``num_features`` is read from its
    first input (its dimension 1).

    Until the first call ``weight``, ``bias``, ``running_mean`` and ``running_var`` are
    uninitialized (:class:`~nbgrad.nn.UninitializedParameter`,
    :class:`~nbgrad.nn.UninitializedBuffer`); the first call shapes and initializes them
    and turns the module into a ``BatchNorm1d``.

    Args:
        eps (float, optional): value added to the variance for numerical stability.
            Default: ``1e-5``.
        momentum (float or None, optional): weight of the batch's statistics in the
            running estimates; ``None`` for a cumulative average. Default: ``0.1``.
        affine (bool, optional): learn a per-channel scale and shift. Default: ``True``.
        track_running_stats (bool, optional): keep running estimates for eval mode.
            Default: ``True``.
        device (nbgrad.device, optional): the device of the parameters and buffers.
            Default: the default device.
        dtype (nbgrad.dtype, optional): their dtype. Default: the default dtype.
        bias (bool, optional): with ``affine``, learn the shift too (keyword only).
            Default: ``True``.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.LazyBatchNorm1d()
        >>> m(nbgrad.randn(4, 3)).shape
        nbgrad.Size([4, 3])
        >>> m
        BatchNorm1d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
    """

LazyBatchNorm2d.__doc__ = r"""A :class:`BatchNorm2d` whose ``num_features`` is read from its
    first input (its dimension 1).

    Until the first call its parameters and running statistics are uninitialized; the
    first call shapes and initializes them and turns the module into a ``BatchNorm2d``.

    Args:
        eps (float, optional): value added to the variance for numerical stability.
            Default: ``1e-5``.
        momentum (float or None, optional): weight of the batch's statistics in the
            running estimates; ``None`` for a cumulative average. Default: ``0.1``.
        affine (bool, optional): learn a per-channel scale and shift. Default: ``True``.
        track_running_stats (bool, optional): keep running estimates for eval mode.
            Default: ``True``.
        device (nbgrad.device, optional): the device of the parameters and buffers.
            Default: the default device.
        dtype (nbgrad.dtype, optional): their dtype. Default: the default dtype.
        bias (bool, optional): with ``affine``, learn the shift too (keyword only).
            Default: ``True``.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.LazyBatchNorm2d()
        >>> _ = m(nbgrad.randn(2, 3, 4, 4))
        >>> type(m).__name__, m.num_features, m.running_mean.shape
        ('BatchNorm2d', 3, nbgrad.Size([3]))
    """

LazyBatchNorm3d.__doc__ = r"""A :class:`BatchNorm3d` whose ``num_features`` is read from its
    first input (its dimension 1).

    Until the first call its parameters and running statistics are uninitialized; the
    first call shapes and initializes them and turns the module into a ``BatchNorm3d``.

    Args:
        eps (float, optional): value added to the variance for numerical stability.
            Default: ``1e-5``.
        momentum (float or None, optional): weight of the batch's statistics in the
            running estimates; ``None`` for a cumulative average. Default: ``0.1``.
        affine (bool, optional): learn a per-channel scale and shift. Default: ``True``.
        track_running_stats (bool, optional): keep running estimates for eval mode.
            Default: ``True``.
        device (nbgrad.device, optional): the device of the parameters and buffers.
            Default: the default device.
        dtype (nbgrad.dtype, optional): their dtype. Default: the default dtype.
        bias (bool, optional): with ``affine``, learn the shift too (keyword only).
            Default: ``True``.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.LazyBatchNorm3d()
        >>> _ = m(nbgrad.randn(2, 3, 2, 2, 2))
        >>> type(m).__name__, m.weight.shape
        ('BatchNorm3d', nbgrad.Size([3]))
    """
