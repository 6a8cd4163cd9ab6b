"""Instance norm layers: InstanceNorm1d, InstanceNorm2d, InstanceNorm3d, their lazy forms (the batch-norm layers' parameters
and buffers, ``F.instance_norm``'s statistics)."""

from .batchnorm import _BatchNorm
from .lazy import lazy_norm

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LazyInstanceNorm1d",
           "LazyInstanceNorm2d", "LazyInstanceNorm3d"]


class _InstanceNorm(_BatchNorm):
    """Instance norm (``F.instance_norm``): each sample's channels over their positions;
    PyTorch's defaults (no affine, no running statistics) and unbatched input."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False,
                 track_running_stats=False, device=None, dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype, bias=bias)

    def forward(self, input):
        from .. import functional as F

        batched = self._dims[-1]
        if input.ndim not in (batched - 1, batched):
            raise ValueError(f"expected {batched - 1}D or {batched}D input (got {input.ndim}D "
                             "input)")
        if input.ndim == batched - 1:
            return self.forward(input.unsqueeze(0)).squeeze(0)
        out = F.instance_norm(input, self.running_mean, self.running_var, self.weight,
                              self.bias, self.training or not self.track_running_stats,
                              self.momentum if self.momentum is not None else 0.0, self.eps)
        return out


class InstanceNorm1d(_InstanceNorm):
    r"""Apply instance normalization over a 2-D or 3-D input: each sample's each channel
    on its own.

    From Ulyanov et al., "Instance Normalization: The Missing Ingredient for Fast
    Stylization":
    :math:`y = (x - \mathrm{E}[x]) / \sqrt{\mathrm{Var}[x] + \epsilon} \cdot \gamma + \beta`,
    the mean and (biased) variance taken over the length of one sample's channel. Unlike
    :class:`BatchNorm1d`, by default it learns no :math:`\gamma`, :math:`\beta` and keeps
    no running statistics, so training and eval modes agree. The functional form is
    :func:`nbgrad.nn.functional.instance_norm`.

    Args:
        num_features (int): the number of channels :math:`C`.
        eps (float, optional): value added to the variance for numerical stability.
            Default: ``1e-5``.
        momentum (float or None, optional): weight of each batch's statistics in the
            running estimates (with ``track_running_stats``). Default: ``0.1``.
        affine (bool, optional): learn a per-channel :math:`\gamma` (ones) and
            :math:`\beta` (zeros). Default: ``False``.
        track_running_stats (bool, optional): keep running estimates of the mean and
            variance, used in eval mode instead of each sample's. Default: ``False``.
        device (nbgrad.device, optional): the device of the parameters and buffers.
            Default: the default device.
        dtype (nbgrad.dtype, optional): their dtype. Default: the default dtype.
        bias (bool, optional): with ``affine``, learn :math:`\beta` too (keyword only).
            Default: ``True``.

    Shape:
        - Input: :math:`(N, C, L)` or :math:`(C, L)`.
        - Output: the input's shape.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([[[1., 2., 3., 4.], [2., 2., 2., 2.]]])
        >>> nbgrad.nn.InstanceNorm1d(2)(x)
        tensor([[[-1.3416, -0.4472,  0.4472,  1.3416],
                 [ 0.0000,  0.0000,  0.0000,  0.0000]]])
    """

    _dims = (3,)


class InstanceNorm2d(_InstanceNorm):
    r"""Apply instance normalization over a 3-D or 4-D input: each image's each channel on
    its own.

    As :class:`InstanceNorm1d`, the statistics taken over the positions of one sample's
    channel.

    Args:
        num_features (int): the number of channels :math:`C`.
        eps (float, optional): value added to the variance for numerical stability.
            Default: ``1e-5``.
        momentum (float or None, optional): weight of each batch's statistics in the
            running estimates (with ``track_running_stats``). Default: ``0.1``.
        affine (bool, optional): learn a per-channel scale and shift. Default: ``False``.
        track_running_stats (bool, optional): keep running estimates for eval mode.
            Default: ``False``.
        device (nbgrad.device, optional): the device of the parameters and buffers.
            Default: the default device.
        dtype (nbgrad.dtype, optional): their dtype. Default: the default dtype.
        bias (bool, optional): with ``affine``, learn :math:`\beta` too (keyword only).
            Default: ``True``.

    Shape:
        - Input: :math:`(N, C, H, W)` or :math:`(C, H, W)`.
        - Output: the input's shape.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.InstanceNorm2d(3, affine=True)
        >>> m(nbgrad.randn(2, 3, 4, 4)).shape, m.weight.shape
        (nbgrad.Size([2, 3, 4, 4]), nbgrad.Size([3]))
    """

    _dims = (4,)


class InstanceNorm3d(_InstanceNorm):
    r"""Apply instance normalization over a 4-D or 5-D input: each volume's each channel on
    its own.

    As :class:`InstanceNorm1d`, the statistics taken over the positions of one sample's
    channel.

    Args:
        num_features (int): the number of channels :math:`C`.
        eps (float, optional): value added to the variance for numerical stability.
            Default: ``1e-5``.
        momentum (float or None, optional): weight of each batch's statistics in the
            running estimates (with ``track_running_stats``). Default: ``0.1``.
        affine (bool, optional): learn a per-channel scale and shift. Default: ``False``.
        track_running_stats (bool, optional): keep running estimates for eval mode.
            Default: ``False``.
        device (nbgrad.device, optional): the device of the parameters and buffers.
            Default: the default device.
        dtype (nbgrad.dtype, optional): their dtype. Default: the default dtype.
        bias (bool, optional): with ``affine``, learn :math:`\beta` too (keyword only).
            Default: ``True``.

    Shape:
        - Input: :math:`(N, C, D, H, W)` or :math:`(C, D, H, W)`.
        - Output: the input's shape.

    Example::

        >>> import nbgrad
        >>> nbgrad.nn.InstanceNorm3d(3)(nbgrad.randn(3, 2, 4, 4)).shape   # unbatched
        nbgrad.Size([3, 2, 4, 4])
    """

    _dims = (5,)


LazyInstanceNorm1d, LazyInstanceNorm2d, LazyInstanceNorm3d = (
    lazy_norm(f"LazyInstanceNorm{n}d", b)
    for n, b in ((1, InstanceNorm1d), (2, InstanceNorm2d), (3, InstanceNorm3d)))

LazyInstanceNorm1d.__doc__ = r"""An :class:`InstanceNorm1d` whose ``num_features`` is read
    from its first input (its dimension 1).

    Until the first call its parameters and running statistics are uninitialized; the
    first call shapes and initializes them and turns the module into an
    ``InstanceNorm1d``. Its defaults are PyTorch's, unlike ``InstanceNorm1d``'s: affine,
    with running statistics.

    Args:
        eps (float, optional): value added to the variance for numerical stability.
            Default: ``1e-5``.
        momentum (float or None, optional): weight of each batch's statistics in the
            running estimates. Default: ``0.1``.
        affine (bool, optional): learn a per-channel scale and shift. Default: ``True``.
        track_running_stats (bool, optional): keep running estimates for eval mode.
            Default: ``True``.
        device (nbgrad.device, optional): the device of the parameters and buffers.
            Default: the default device.
        dtype (nbgrad.dtype, optional): their dtype. Default: the default dtype.
        bias (bool, optional): with ``affine``, learn :math:`\beta` too (keyword only).
            Default: ``True``.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.LazyInstanceNorm1d()
        >>> _ = m(nbgrad.randn(2, 3, 5))
        >>> type(m).__name__, m.num_features, m.weight.shape
        ('InstanceNorm1d', 3, nbgrad.Size([3]))
    """

LazyInstanceNorm2d.__doc__ = r"""An :class:`InstanceNorm2d` whose ``num_features`` is read
    from its first input (its dimension 1).

    Until the first call its parameters and running statistics are uninitialized; the
    first call shapes and initializes them and turns the module into an
    ``InstanceNorm2d``. Its defaults are PyTorch's: affine, with running statistics.

    Args:
        eps (float, optional): value added to the variance for numerical stability.
            Default: ``1e-5``.
        momentum (float or None, optional): weight of each batch's statistics in the
            running estimates. Default: ``0.1``.
        affine (bool, optional): learn a per-channel scale and shift. Default: ``True``.
        track_running_stats (bool, optional): keep running estimates for eval mode.
            Default: ``True``.
        device (nbgrad.device, optional): the device of the parameters and buffers.
            Default: the default device.
        dtype (nbgrad.dtype, optional): their dtype. Default: the default dtype.
        bias (bool, optional): with ``affine``, learn :math:`\beta` too (keyword only).
            Default: ``True``.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.LazyInstanceNorm2d()
        >>> _ = m(nbgrad.randn(2, 3, 4, 4))
        >>> type(m).__name__, m.running_mean.shape
        ('InstanceNorm2d', nbgrad.Size([3]))
    """

LazyInstanceNorm3d.__doc__ = r"""An :class:`InstanceNorm3d` whose ``num_features`` is read
    from its first input (its dimension 1).

    Until the first call its parameters and running statistics are uninitialized; the
    first call shapes and initializes them and turns the module into an
    ``InstanceNorm3d``. Its defaults are PyTorch's: affine, with running statistics.

    Args:
        eps (float, optional): value added to the variance for numerical stability.
            Default: ``1e-5``.
        momentum (float or None, optional): weight of each batch's statistics in the
            running estimates. Default: ``0.1``.
        affine (bool, optional): learn a per-channel scale and shift. Default: ``True``.
        track_running_stats (bool, optional): keep running estimates for eval mode.
            Default: ``True``.
        device (nbgrad.device, optional): the device of the parameters and buffers.
            Default: the default device.
        dtype (nbgrad.dtype, optional): their dtype. Default: the default dtype.
        bias (bool, optional): with ``affine``, learn :math:`\beta` too (keyword only).
            Default: ``True``.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.LazyInstanceNorm3d()
        >>> _ = m(nbgrad.randn(2, 3, 2, 2, 2))
        >>> type(m).__name__, m.num_features
        ('InstanceNorm3d', 3)
    """
