"""LayerNorm, GroupNorm, RMSNorm."""

from .. import init
from .module import Module
from .utils import _factory

__all__ = ["LayerNorm", "GroupNorm", "RMSNorm", "LocalResponseNorm"]


class LayerNorm(Module):
    r"""Apply layer normalization over the last dimensions of the input.

    From Ba et al., "Layer Normalization":

    .. math::
        y = \frac{x - \mathrm{E}[x]}{\sqrt{\mathrm{Var}[x] + \epsilon}} \cdot \gamma + \beta

    with the mean and (biased) variance taken over the trailing ``normalized_shape``
    dimensions of each sample, and :math:`\gamma`, :math:`\beta` learnable per element
    of ``normalized_shape``. The statistics are each sample's own, so training and eval
    modes agree. The functional form is :func:`nbgrad.nn.functional.layer_norm`.

    Args:
        normalized_shape (int or tuple): the shape of the trailing dimensions to normalize
            over; an int normalizes over the last dimension, which must have that size.
        eps (float, optional): value added to the variance for numerical stability.
            Default: ``1e-5``.
        elementwise_affine (bool, optional): learn :math:`\gamma` (ones) and :math:`\beta`
            (zeros). Default: ``True``.
        bias (bool, optional): with ``elementwise_affine``, learn :math:`\beta` too.
            Default: ``True``.
        device (nbgrad.device, optional): the device of the parameters. Default: the
            default device.
        dtype (nbgrad.dtype, optional): the dtype of the parameters. Default: the default
            dtype.

    Shape:
        - Input: :math:`(N, *)`, ending in ``normalized_shape``.
        - Output: the input's shape.

    Attributes:
        weight (Parameter or None): :math:`\gamma`, of shape ``normalized_shape``.
        bias (Parameter or None): :math:`\beta`, of shape ``normalized_shape``.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.LayerNorm(4)
        >>> m
        LayerNorm((4,), eps=1e-05, elementwise_affine=True, bias=True)
        >>> m(nbgrad.tensor([[1., 2., 3., 4.], [2., 2., 2., 2.]]))
        tensor([[-1.3416, -0.4472,  0.4472,  1.3416],
                [ 0.0000,  0.0000,  0.0000,  0.0000]], grad_fn=<NativeLayerNormBackward0>)
        >>> nbgrad.nn.LayerNorm([5, 5])(nbgrad.randn(2, 3, 5, 5)).shape
        nbgrad.Size([2, 3, 5, 5])
    """

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True,
                 device=None, dtype=None):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        new = _factory(device, dtype)
        if elementwise_affine:
            self.weight = new(*self.normalized_shape)
            if bias:
                self.bias = new(*self.normalized_shape)
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.elementwise_affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input):
        from .. import functional as F

        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}")


class GroupNorm(Module):
    r"""Apply group normalization: the channels split into groups, each sample's groups
    normalized on their own.

    From Wu and He, "Group Normalization":
    :math:`y = (x - \mathrm{E}[x]) / \sqrt{\mathrm{Var}[x] + \epsilon} \cdot \gamma + \beta`,
    the mean and (biased) variance taken over the ``num_channels / num_groups`` channels
    of a group and all their positions, per sample; :math:`\gamma` and :math:`\beta`
    are learnable per channel. With one group it is a layer norm over ``(C, *)``; with
    ``num_channels`` groups an instance norm. The functional form is
    :func:`nbgrad.nn.functional.group_norm`.

    Args:
        num_groups (int): the number of groups; it must divide ``num_channels``.
        num_channels (int): the number of channels :math:`C` of the input.
        eps (float, optional): value added to the variance for numerical stability.
            Default: ``1e-5``.
        affine (bool, optional): learn :math:`\gamma` (ones) and :math:`\beta` (zeros).
            Default: ``True``.
        device (nbgrad.device, optional): the device of the parameters. Default: the
            default device.
        dtype (nbgrad.dtype, optional): the dtype of the parameters. Default: the default
            dtype.
        bias (bool, optional): with ``affine``, learn :math:`\beta` too (keyword only).
            Default: ``True``.

    Shape:
        - Input: :math:`(N, C, *)`.
        - Output: the input's shape.

    Attributes:
        weight (Parameter or None): :math:`\gamma`, of shape ``(num_channels,)``.
        bias (Parameter or None): :math:`\beta`, of shape ``(num_channels,)``.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.GroupNorm(2, 4)
        >>> x = nbgrad.tensor([[[1., 3.], [1., 3.], [0., 0.], [5., 5.]]])
        >>> m(x)
        tensor([[[-1.0000,  1.0000],
                 [-1.0000,  1.0000],
                 [-1.0000, -1.0000],
                 [ 1.0000,  1.0000]]], grad_fn=<AddBackward0>)
    """

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None,
                 dtype=None, *, bias=True):
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups, self.num_channels, self.eps, self.affine = (num_groups, num_channels,
                                                                    eps, affine)
        new = _factory(device, dtype)
        for name, keep in (("weight", affine), ("bias", affine and bias)):
            if keep:
                setattr(self, name, new(num_channels))
            else:
                self.register_parameter(name, None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input):
        from .. import functional as F

        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, "
                f"affine={self.affine}, bias={self.bias is not None}")


class RMSNorm(Module):
    r"""Apply root-mean-square normalization over the last dimensions of the input.

    From Zhang and Sennrich, "Root Mean Square Layer Normalization":

    .. math::
        y = \frac{x}{\sqrt{\mathrm{mean}(x^2) + \epsilon}} \cdot \gamma

    with the mean taken over the trailing ``normalized_shape`` dimensions of each sample:
    a :class:`LayerNorm` that neither centers nor shifts. The functional form is
    :func:`nbgrad.nn.functional.rms_norm`.

    Args:
        normalized_shape (int or tuple): the shape of the trailing dimensions to normalize
            over; an int normalizes over the last dimension.
        eps (float, optional): value added to the mean square for numerical stability;
            ``None`` uses the machine epsilon of the input's dtype
            (``nbgrad.finfo(x.dtype).eps``). Default: ``None``.
        elementwise_affine (bool, optional): learn :math:`\gamma` (ones).
            Default: ``True``.
        device (nbgrad.device, optional): the device of the parameters. Default: the
            default device.
        dtype (nbgrad.dtype, optional): the dtype of the parameters. Default: the default
            dtype.

    Shape:
        - Input: :math:`(N, *)`, ending in ``normalized_shape``.
        - Output: the input's shape.

    Attributes:
        weight (Parameter or None): :math:`\gamma`, of shape ``normalized_shape``.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.RMSNorm(2)
        >>> m
        RMSNorm((2,), eps=None, elementwise_affine=True)
        >>> m(nbgrad.tensor([[3., 4.], [1., 1.]]))
        tensor([[0.8485, 1.1314],
                [1.0000, 1.0000]], grad_fn=<MulBackward0>)
    """

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None,
                 dtype=None):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        if elementwise_affine:
            self.weight = _factory(device, dtype)(*self.normalized_shape)
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, x):
        from .. import functional as F

        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")


class LocalResponseNorm(Module):
    r"""Apply local response normalization: each value divided by a power of the squares of
    its neighbouring channels.

    As in Krizhevsky et al.'s AlexNet:

    .. math::
        b_c = a_c \left(k + \frac{\alpha}{n} \sum_{c'=\max(0, c - n/2)}^{\min(N-1, c + n/2)}
        a_{c'}^2\right)^{-\beta}

    with :math:`n` = ``size`` and :math:`N` the number of channels (padded with zeros at
    the ends). The functional form is :func:`nbgrad.nn.functional.local_response_norm`.

    Args:
        size (int): the number of neighbouring channels summed over.
        alpha (float, optional): multiplicative factor. Default: ``1e-4``.
        beta (float, optional): exponent. Default: ``0.75``.
        k (float, optional): additive factor. Default: ``1.0``.

    Shape:
        - Input: :math:`(N, C, *)`.
        - Output: the input's shape.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.LocalResponseNorm(2, alpha=1.0, beta=1.0, k=1.0)
        >>> m(nbgrad.tensor([[[1.], [2.], [0.]]])).flatten()
        tensor([0.6667, 0.5714, 0.0000])
    """

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        from .. import functional as F

        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
