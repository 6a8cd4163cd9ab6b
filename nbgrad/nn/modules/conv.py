"""Convolution layers: Conv1d/2d/3d, ConvTranspose1d/2d/3d (and their lazy forms), one base class with
PyTorch's arguments, checks, parameter shapes, initialisation and repr."""

import math

from .. import init
from .lazy import lazy_conv, lazy_conv_transpose
from .module import Module
from .utils import _factory

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
           "ConvTranspose3d", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d",
           "LazyConvTranspose2d", "LazyConvTranspose3d"]


def _ntuple(x, n):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,) * n


class _ConvNd(Module):
    """The layers' common part. Weight ``(out_channels, in_channels // groups, *kernel)``
    (``(in_channels, out_channels // groups, *kernel)`` for the transposed ones),
    initialised as PyTorch: ``kaiming_uniform_(a=sqrt(5))``, bias U(-1/sqrt(fan_in),
    1/sqrt(fan_in)). A ``padding_mode`` other than ``'zeros'`` pads the input with
    ``F.pad`` first, as PyTorch does (the transposed layers have zeros only)."""

    _dims = 2
    transposed = False

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None,
                 output_padding=0):
        super().__init__()
        n = self._dims
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        valid_padding_strings = {"same", "valid"}
        if isinstance(padding, str):
            if padding not in valid_padding_strings:
                raise ValueError(
                    f"Invalid padding string {padding!r}, should be one of {valid_padding_strings}"
                )
            if padding == "same" and any(s != 1 for s in _ntuple(stride, n)):
                raise ValueError("padding='same' is not supported for strided convolutions")
        valid_padding_modes = {"zeros", "reflect", "replicate", "circular"}
        if padding_mode not in valid_padding_modes:
            raise ValueError(
                f"padding_mode must be one of {valid_padding_modes}, but got padding_mode='{padding_mode}'"
            )
        if padding_mode != "zeros" and self.transposed:
            raise ValueError(f'Only "zeros" padding mode is supported for '
                             f"{type(self).__name__}")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = _ntuple(kernel_size, n)
        self.stride = _ntuple(stride, n)
        self.padding = padding if isinstance(padding, str) else _ntuple(padding, n)
        self.dilation = _ntuple(dilation, n)
        self.groups = groups
        self.padding_mode = padding_mode
        self.output_padding = _ntuple(output_padding, n)
        # F.pad's amounts for a padding_mode other than zeros: last dim first, (left, right)
        # each; "same" puts the odd one on the right, as PyTorch
        if padding == "same":
            total = [d * (k - 1) for d, k in zip(self.dilation, self.kernel_size)]
            pads = [(t // 2, t - t // 2) for t in total]
        else:
            pads = [(p, p) for p in ((0,) * n if padding == "valid" else self.padding)]
        pads = [a for pair in reversed(pads) for a in pair]
        self._reversed_padding_repeated_twice = pads if isinstance(padding, str) else tuple(pads)
        new = _factory(device, dtype)
        if self.transposed:
            self.weight = new(in_channels, out_channels // groups, *self.kernel_size)
        else:
            self.weight = new(out_channels, in_channels // groups, *self.kernel_size)
        if bias:
            self.bias = new(out_channels)
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self):
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * len(self.kernel_size):
            s += ", padding={padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += ", dilation={dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += ", output_padding={output_padding}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={padding_mode}"
        return s.format(**self.__dict__)

    def _conv_forward(self, input, conv):
        padding = self.padding
        if self.padding_mode != "zeros":
            from .. import functional as F

            input = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            padding = 0
        return conv(input, self.weight, self.bias, self.stride, padding, self.dilation,
                    self.groups)


class Conv1d(_ConvNd):
    r"""Apply a 1-D convolution over an input signal of several channels.

    Each output channel is the cross-correlation of the input channels of its group with
    a learned kernel, summed over those channels, plus a bias. The functional form is
    :func:`nbgrad.nn.functional.conv1d`.

    Args:
        in_channels (int): number of channels of the input.
        out_channels (int): number of channels of the output (the number of filters).
        kernel_size (int or tuple): size of the convolving kernel.
        stride (int or tuple, optional): step of the kernel between positions. Default: ``1``.
        padding (int, tuple or str, optional): zeros added on both sides, or ``"valid"``
            (none) or ``"same"`` (what keeps the input's length; ``stride`` must be 1).
            Default: ``0``.
        dilation (int or tuple, optional): spacing between the kernel's elements.
            Default: ``1``.
        groups (int, optional): number of groups the channels are split into, each group
            convolved with its own filters; it must divide ``in_channels`` and
            ``out_channels``. Default: ``1``.
        bias (bool, optional): if ``True``, add a learnable bias to the output.
            Default: ``True``.
        padding_mode (str, optional): what the padding holds: ``"zeros"``, or the input
            continued by ``"reflect"``, ``"replicate"`` or ``"circular"`` (as ``F.pad``'s
            modes). Default: ``"zeros"``.
        device (nbgrad.device, optional): the device of the parameters. Default: the
            default device.
        dtype (nbgrad.dtype, optional): the dtype of the parameters. Default: the default
            dtype.

    Shape:
        - Input: :math:`(N, C_{in}, L_{in})` or :math:`(C_{in}, L_{in})`.
        - Output: :math:`(N, C_{out}, L_{out})` or :math:`(C_{out}, L_{out})`, where
          :math:`L_{out} = \left\lfloor (L_{in} + 2 \cdot \text{padding} - \text{dilation}
          \cdot (\text{kernel\_size} - 1) - 1) / \text{stride} + 1 \right\rfloor`.

    Attributes:
        weight (Parameter): the learnable filters, of shape
            ``(out_channels, in_channels // groups, kernel_size)``, drawn from
            :math:`\mathcal{U}(-\sqrt{k}, \sqrt{k})` with
            :math:`k = \text{groups} / (C_{in} \cdot \text{kernel\_size})`.
        bias (Parameter or None): the learnable bias, of shape ``(out_channels,)``, drawn
            from the same distribution (``None`` when ``bias=False``).

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> m = nbgrad.nn.Conv1d(4, 2, 3, padding="same")
        >>> m
        Conv1d(4, 2, kernel_size=(3,), stride=(1,), padding=same)
        >>> m(nbgrad.randn(1, 4, 10)).shape
        nbgrad.Size([1, 2, 10])
        >>> m.weight.shape
        nbgrad.Size([2, 4, 3])
    """

    _dims = 1

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, device, dtype)

    def forward(self, input):
        from .. import functional as F

        return self._conv_forward(input, F.conv1d)


class Conv2d(_ConvNd):
    r"""Apply a 2-D convolution over an input image of several channels.

    Each output channel is the cross-correlation of the input channels of its group with
    a learned kernel, summed over those channels, plus a bias:

    .. math::
        \text{out}(N_i, C_{out_j}) = \text{bias}(C_{out_j})
        + \sum_{k} \text{weight}(C_{out_j}, k) \star \text{input}(N_i, k)

    The functional form is :func:`nbgrad.nn.functional.conv2d`.

    Args:
        in_channels (int): number of channels of the input image.
        out_channels (int): number of channels of the output (the number of filters).
        kernel_size (int or tuple): size of the convolving kernel, one int for both
            dimensions or ``(kH, kW)``.
        stride (int or tuple, optional): step of the kernel between positions. Default: ``1``.
        padding (int, tuple or str, optional): zeros added on both sides of each
            dimension, or ``"valid"`` (none) or ``"same"`` (what keeps the input's size;
            ``stride`` must be 1). Default: ``0``.
        dilation (int or tuple, optional): spacing between the kernel's elements.
            Default: ``1``.
        groups (int, optional): number of groups the channels are split into, each group
            convolved with its own filters (``groups == in_channels`` is a depthwise
            convolution); it must divide ``in_channels`` and ``out_channels``.
            Default: ``1``.
        bias (bool, optional): if ``True``, add a learnable bias to the output.
            Default: ``True``.
        padding_mode (str, optional): what the padding holds: ``"zeros"``, or the input
            continued by ``"reflect"``, ``"replicate"`` or ``"circular"`` (as ``F.pad``'s
            modes). Default: ``"zeros"``.
        device (nbgrad.device, optional): the device of the parameters. Default: the
            default device.
        dtype (nbgrad.dtype, optional): the dtype of the parameters. Default: the default
            dtype.

    Shape:
        - Input: :math:`(N, C_{in}, H_{in}, W_{in})` or :math:`(C_{in}, H_{in}, W_{in})`.
        - Output: :math:`(N, C_{out}, H_{out}, W_{out})` or
          :math:`(C_{out}, H_{out}, W_{out})`, where, per dimension,
          :math:`H_{out} = \left\lfloor (H_{in} + 2 \cdot \text{padding}[0]
          - \text{dilation}[0] \cdot (\text{kernel\_size}[0] - 1) - 1) / \text{stride}[0]
          + 1 \right\rfloor` (and the same for :math:`W_{out}` with index 1).

    Attributes:
        weight (Parameter): the learnable filters, of shape
            ``(out_channels, in_channels // groups, kH, kW)``, drawn from
            :math:`\mathcal{U}(-\sqrt{k}, \sqrt{k})` with
            :math:`k = \text{groups} / (C_{in} \cdot kH \cdot kW)`.
        bias (Parameter or None): the learnable bias, of shape ``(out_channels,)``, drawn
            from the same distribution (``None`` when ``bias=False``).

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> m = nbgrad.nn.Conv2d(3, 8, 3, padding=1)
        >>> m
        Conv2d(3, 8, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))
        >>> m(nbgrad.randn(2, 3, 5, 5)).shape
        nbgrad.Size([2, 8, 5, 5])
        >>> m.weight.shape, m.bias.shape
        (nbgrad.Size([8, 3, 3, 3]), nbgrad.Size([8]))
        >>> nbgrad.nn.Conv2d(3, 6, (3, 5), stride=2, groups=3, bias=False)
        Conv2d(3, 6, kernel_size=(3, 5), stride=(2, 2), groups=3, bias=False)
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, device, dtype)

    def forward(self, input):
        from .. import functional as F

        return self._conv_forward(input, F.conv2d)


class Conv3d(_ConvNd):
    r"""Apply a 3-D convolution over an input volume of several channels.

    As :class:`Conv2d`, over three spatial dimensions. The functional form is
    :func:`nbgrad.nn.functional.conv3d`.

    Args:
        in_channels (int): number of channels of the input.
        out_channels (int): number of channels of the output (the number of filters).
        kernel_size (int or tuple): size of the convolving kernel, one int for all
            dimensions or ``(kD, kH, kW)``.
        stride (int or tuple, optional): step of the kernel between positions. Default: ``1``.
        padding (int, tuple or str, optional): zeros added on both sides of each
            dimension, or ``"valid"`` or ``"same"`` (``stride`` must be 1). Default: ``0``.
        dilation (int or tuple, optional): spacing between the kernel's elements.
            Default: ``1``.
        groups (int, optional): number of groups the channels are split into; it must
            divide ``in_channels`` and ``out_channels``. Default: ``1``.
        bias (bool, optional): if ``True``, add a learnable bias to the output.
            Default: ``True``.
        padding_mode (str, optional): what the padding holds: ``"zeros"``, or the input
            continued by ``"reflect"``, ``"replicate"`` or ``"circular"`` (as ``F.pad``'s
            modes). Default: ``"zeros"``.
        device (nbgrad.device, optional): the device of the parameters. Default: the
            default device.
        dtype (nbgrad.dtype, optional): the dtype of the parameters. Default: the default
            dtype.

    Shape:
        - Input: :math:`(N, C_{in}, D_{in}, H_{in}, W_{in})` or without :math:`N`.
        - Output: :math:`(N, C_{out}, D_{out}, H_{out}, W_{out})` or without :math:`N`,
          each spatial size given by :class:`Conv2d`'s formula.

    Attributes:
        weight (Parameter): the learnable filters, of shape
            ``(out_channels, in_channels // groups, kD, kH, kW)``, drawn from
            :math:`\mathcal{U}(-\sqrt{k}, \sqrt{k})` with
            :math:`k = \text{groups} / (C_{in} \cdot kD \cdot kH \cdot kW)`.
        bias (Parameter or None): the learnable bias, of shape ``(out_channels,)``
            (``None`` when ``bias=False``).

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> m = nbgrad.nn.Conv3d(2, 4, 3, stride=2)
        >>> m(nbgrad.randn(1, 2, 5, 6, 7)).shape
        nbgrad.Size([1, 4, 2, 2, 3])
    """

    _dims = 3

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, device, dtype)

    def forward(self, input):
        from .. import functional as F

        return self._conv_forward(input, F.conv3d)


class _ConvTransposeNd(_ConvNd):
    transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None):
        if isinstance(padding, str):
            raise ValueError(f"{type(self).__name__} does not support padding={padding!r}")
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, device, dtype, output_padding)

    def _output_padding(self, input, output_size):
        """PyTorch's: the output padding that gives ``output_size`` (the default padding
        when None), checked to be reachable."""
        if output_size is None:
            return self.output_padding
        n = self._dims
        output_size = list(output_size)[-n:]
        if len(output_size) != n:
            raise ValueError(f"ConvTranspose{n}D: for {input.ndim}D input, output_size must "
                             f"have {n} or {n + 2} elements (got {len(output_size)})")
        pads = []
        for d in range(n):
            size = input.shape[input.ndim - n + d]
            low = ((size - 1) * self.stride[d] - 2 * self.padding[d]
                   + self.dilation[d] * (self.kernel_size[d] - 1) + 1)
            if not low <= output_size[d] < low + self.stride[d]:
                raise ValueError(f"requested an output size of {output_size}, but valid sizes "
                                 f"range from {low} to {low + self.stride[d] - 1} (for an "
                                 f"input of {list(input.shape)[2:]})")
            pads.append(output_size[d] - low)
        return tuple(pads)


class ConvTranspose1d(_ConvTransposeNd):
    r"""Apply a 1-D transposed convolution over an input signal of several channels.

    The gradient of :class:`Conv1d` with respect to its input (sometimes called a
    fractionally-strided convolution or, wrongly, a deconvolution): it maps a length
    that ``Conv1d`` produces back to the length it came from. The functional form is
    :func:`nbgrad.nn.functional.conv_transpose1d`.

    ``forward(input, output_size=None)``: ``output_size`` (the spatial sizes, or the whole
    shape) asks for one output size among those reachable, in place of ``output_padding``.

    Args:
        in_channels (int): number of channels of the input.
        out_channels (int): number of channels of the output.
        kernel_size (int or tuple): size of the convolving kernel.
        stride (int or tuple, optional): step of the kernel between positions (the factor
            by which the input is spread out). Default: ``1``.
        padding (int or tuple, optional): ``dilation * (kernel_size - 1) - padding`` zeros
            are added on both sides of each dimension of the input, so that ``padding``
            undoes the same padding of the matching :class:`Conv1d`. Default: ``0``.
        output_padding (int or tuple, optional): extra size added to one side of each
            dimension of the output (to pick among the sizes that a strided convolution
            maps to the same size); it must be smaller than ``stride`` or ``dilation``.
            Default: ``0``.
        groups (int, optional): number of groups the channels are split into; it must
            divide ``in_channels`` and ``out_channels``. Default: ``1``.
        bias (bool, optional): if ``True``, add a learnable bias to the output.
            Default: ``True``.
        dilation (int or tuple, optional): spacing between the kernel's elements.
            Default: ``1``.
        padding_mode (str, optional): only ``"zeros"`` is supported. Default: ``"zeros"``.
        device (nbgrad.device, optional): the device of the parameters. Default: the
            default device.
        dtype (nbgrad.dtype, optional): the dtype of the parameters. Default: the default
            dtype.

    Shape:
        - Input: :math:`(N, C_{in}, L_{in})` or :math:`(C_{in}, L_{in})`.
        - Output: :math:`(N, C_{out}, L_{out})` or :math:`(C_{out}, L_{out})`, where
          :math:`L_{out} = (L_{in} - 1) \cdot \text{stride} - 2 \cdot \text{padding}
          + \text{dilation} \cdot (\text{kernel\_size} - 1) + \text{output\_padding} + 1`.

    Attributes:
        weight (Parameter): the learnable filters, of shape
            ``(in_channels, out_channels // groups, kernel_size)``, drawn from
            :math:`\mathcal{U}(-\sqrt{k}, \sqrt{k})` with
            :math:`k = \text{groups} / (C_{out} \cdot \text{kernel\_size})`.
        bias (Parameter or None): the learnable bias, of shape ``(out_channels,)``
            (``None`` when ``bias=False``).

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> m = nbgrad.nn.ConvTranspose1d(4, 2, 3, stride=2)
        >>> x = nbgrad.randn(1, 4, 5)
        >>> m(x).shape
        nbgrad.Size([1, 2, 11])
        >>> m(x, output_size=[12]).shape
        nbgrad.Size([1, 2, 12])
        >>> m.weight.shape
        nbgrad.Size([4, 2, 3])
    """

    _dims = 1

    def forward(self, input, output_size=None):
        from .. import functional as F

        return F.conv_transpose1d(input, self.weight, self.bias, self.stride, self.padding,
                                  self._output_padding(input, output_size), self.groups,
                                  self.dilation)


class ConvTranspose2d(_ConvTransposeNd):
    r"""Apply a 2-D transposed convolution over an input image of several channels.

    The gradient of :class:`Conv2d` with respect to its input: it maps a size that
    ``Conv2d`` produces back to the size it came from (an upsampling with learned
    filters). The functional form is :func:`nbgrad.nn.functional.conv_transpose2d`.

    ``forward(input, output_size=None)``: ``output_size`` (the spatial sizes, or the whole
    shape) asks for one output size among those reachable, in place of ``output_padding``.

    Args:
        in_channels (int): number of channels of the input.
        out_channels (int): number of channels of the output.
        kernel_size (int or tuple): size of the convolving kernel.
        stride (int or tuple, optional): step of the kernel between positions (the factor
            by which the input is spread out). Default: ``1``.
        padding (int or tuple, optional): ``dilation * (kernel_size - 1) - padding`` zeros
            are added on both sides of each dimension of the input, so that ``padding``
            undoes the same padding of the matching :class:`Conv2d`. Default: ``0``.
        output_padding (int or tuple, optional): extra size added to one side of each
            dimension of the output (to pick among the sizes that a strided convolution
            maps to the same size); it must be smaller than ``stride`` or ``dilation``.
            Default: ``0``.
        groups (int, optional): number of groups the channels are split into; it must
            divide ``in_channels`` and ``out_channels``. Default: ``1``.
        bias (bool, optional): if ``True``, add a learnable bias to the output.
            Default: ``True``.
        dilation (int or tuple, optional): spacing between the kernel's elements.
            Default: ``1``.
        padding_mode (str, optional): only ``"zeros"`` is supported. Default: ``"zeros"``.
        device (nbgrad.device, optional): the device of the parameters. Default: the
            default device.
        dtype (nbgrad.dtype, optional): the dtype of the parameters. Default: the default
            dtype.

    Shape:
        - Input: :math:`(N, C_{in}, H_{in}, W_{in})` or :math:`(C_{in}, H_{in}, W_{in})`.
        - Output: :math:`(N, C_{out}, H_{out}, W_{out})` or
          :math:`(C_{out}, H_{out}, W_{out})`, where
          :math:`H_{out} = (H_{in} - 1) \cdot \text{stride}[0] - 2 \cdot \text{padding}[0]
          + \text{dilation}[0] \cdot (\text{kernel\_size}[0] - 1)
          + \text{output\_padding}[0] + 1` (and the same for :math:`W_{out}` with index 1).

    Attributes:
        weight (Parameter): the learnable filters, of shape
            ``(in_channels, out_channels // groups, kH, kW)``, drawn from
            :math:`\mathcal{U}(-\sqrt{k}, \sqrt{k})` with
            :math:`k = \text{groups} / (C_{out} \cdot kH \cdot kW)`.
        bias (Parameter or None): the learnable bias, of shape ``(out_channels,)``
            (``None`` when ``bias=False``).

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> up = nbgrad.nn.ConvTranspose2d(8, 3, 4, stride=2, padding=1)
        >>> up
        ConvTranspose2d(8, 3, kernel_size=(4, 4), stride=(2, 2), padding=(1, 1))
        >>> up(nbgrad.randn(1, 8, 5, 5)).shape
        nbgrad.Size([1, 3, 10, 10])
        >>> up.weight.shape
        nbgrad.Size([8, 3, 4, 4])
    """

    def forward(self, input, output_size=None):
        from .. import functional as F

        return F.conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding,
                                  self._output_padding(input, output_size), self.groups,
                                  self.dilation)


class ConvTranspose3d(_ConvTransposeNd):
    r"""Apply a 3-D transposed convolution over an input volume of several channels.

    As :class:`ConvTranspose2d`, over three spatial dimensions. The functional form is
    :func:`nbgrad.nn.functional.conv_transpose3d`.

    ``forward(input, output_size=None)``: ``output_size`` (the spatial sizes, or the whole
    shape) asks for one output size among those reachable, in place of ``output_padding``.

    Args:
        in_channels (int): number of channels of the input.
        out_channels (int): number of channels of the output.
        kernel_size (int or tuple): size of the convolving kernel.
        stride (int or tuple, optional): step of the kernel between positions (the factor
            by which the input is spread out). Default: ``1``.
        padding (int or tuple, optional): ``dilation * (kernel_size - 1) - padding`` zeros
            are added on both sides of each dimension of the input, so that ``padding``
            undoes the same padding of the matching :class:`Conv3d`. Default: ``0``.
        output_padding (int or tuple, optional): extra size added to one side of each
            dimension of the output (to pick among the sizes that a strided convolution
            maps to the same size); it must be smaller than ``stride`` or ``dilation``.
            Default: ``0``.
        groups (int, optional): number of groups the channels are split into; it must
            divide ``in_channels`` and ``out_channels``. Default: ``1``.
        bias (bool, optional): if ``True``, add a learnable bias to the output.
            Default: ``True``.
        dilation (int or tuple, optional): spacing between the kernel's elements.
            Default: ``1``.
        padding_mode (str, optional): only ``"zeros"`` is supported. Default: ``"zeros"``.
        device (nbgrad.device, optional): the device of the parameters. Default: the
            default device.
        dtype (nbgrad.dtype, optional): the dtype of the parameters. Default: the default
            dtype.

    Shape:
        - Input: :math:`(N, C_{in}, D_{in}, H_{in}, W_{in})` or without :math:`N`.
        - Output: :math:`(N, C_{out}, D_{out}, H_{out}, W_{out})` or without :math:`N`,
          each spatial size given by :class:`ConvTranspose2d`'s formula.

    Attributes:
        weight (Parameter): the learnable filters, of shape
            ``(in_channels, out_channels // groups, kD, kH, kW)``, drawn from
            :math:`\mathcal{U}(-\sqrt{k}, \sqrt{k})` with
            :math:`k = \text{groups} / (C_{out} \cdot kD \cdot kH \cdot kW)`.
        bias (Parameter or None): the learnable bias, of shape ``(out_channels,)``
            (``None`` when ``bias=False``).

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> m = nbgrad.nn.ConvTranspose3d(4, 2, 2, stride=2)
        >>> m(nbgrad.randn(1, 4, 2, 3, 4)).shape
        nbgrad.Size([1, 2, 4, 6, 8])
    """

    _dims = 3

    def forward(self, input, output_size=None):
        from .. import functional as F

        return F.conv_transpose3d(input, self.weight, self.bias, self.stride, self.padding,
                                  self._output_padding(input, output_size), self.groups,
                                  self.dilation)


LazyConv1d, LazyConv2d, LazyConv3d = (lazy_conv(f"LazyConv{n}d", b)
                                      for n, b in ((1, Conv1d), (2, Conv2d), (3, Conv3d)))
LazyConvTranspose1d, LazyConvTranspose2d, LazyConvTranspose3d = (
    lazy_conv_transpose(f"LazyConvTranspose{n}d", b)
    for n, b in ((1, ConvTranspose1d), (2, ConvTranspose2d), (3, ConvTranspose3d)))

LazyConv1d.__doc__ = r"""A :class:`Conv1d` whose ``in_channels`` is read from its first input.

    Until the first call its ``weight`` and ``bias`` are
    :class:`~nbgrad.nn.UninitializedParameter`; the first call gives them their shapes,
    initializes them as ``Conv1d`` does and turns the module into a ``Conv1d``.

    Args:
        out_channels (int): number of channels of the output.
        kernel_size (int or tuple): size of the convolving kernel.
        stride (int or tuple, optional): step of the kernel. Default: ``1``.
        padding (int, tuple or str, optional): as :class:`Conv1d`'s. Default: ``0``.
        dilation (int or tuple, optional): spacing between the kernel's elements.
            Default: ``1``.
        groups (int, optional): number of groups of channels. Default: ``1``.
        bias (bool, optional): if ``True``, add a learnable bias. Default: ``True``.
        padding_mode (str, optional): what the padding holds: ``"zeros"``, or the input
            continued by ``"reflect"``, ``"replicate"`` or ``"circular"`` (as ``F.pad``'s
            modes). Default: ``"zeros"``.
        device (nbgrad.device, optional): the device of the parameters. Default: the
            default device.
        dtype (nbgrad.dtype, optional): the dtype of the parameters. Default: the default
            dtype.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.LazyConv1d(2, 3)
        >>> m(nbgrad.ones(1, 4, 10)).shape
        nbgrad.Size([1, 2, 8])
        >>> type(m).__name__, m.in_channels, m.weight.shape
        ('Conv1d', 4, nbgrad.Size([2, 4, 3]))
    """

LazyConv2d.__doc__ = r"""A :class:`Conv2d` whose ``in_channels`` is read from its first input.

    Until the first call its ``weight`` and ``bias`` are
    :class:`~nbgrad.nn.UninitializedParameter`; the first call gives them their shapes,
    initializes them as ``Conv2d`` does and turns the module into a ``Conv2d``.

    Args:
        out_channels (int): number of channels of the output.
        kernel_size (int or tuple): size of the convolving kernel.
        stride (int or tuple, optional): step of the kernel. Default: ``1``.
        padding (int, tuple or str, optional): as :class:`Conv2d`'s. Default: ``0``.
        dilation (int or tuple, optional): spacing between the kernel's elements.
            Default: ``1``.
        groups (int, optional): number of groups of channels. Default: ``1``.
        bias (bool, optional): if ``True``, add a learnable bias. Default: ``True``.
        padding_mode (str, optional): what the padding holds: ``"zeros"``, or the input
            continued by ``"reflect"``, ``"replicate"`` or ``"circular"`` (as ``F.pad``'s
            modes). Default: ``"zeros"``.
        device (nbgrad.device, optional): the device of the parameters. Default: the
            default device.
        dtype (nbgrad.dtype, optional): the dtype of the parameters. Default: the default
            dtype.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.LazyConv2d(8, 3)
        >>> m(nbgrad.ones(1, 3, 5, 5)).shape
        nbgrad.Size([1, 8, 3, 3])
        >>> m
        Conv2d(3, 8, kernel_size=(3, 3), stride=(1, 1))
    """

LazyConv3d.__doc__ = r"""A :class:`Conv3d` whose ``in_channels`` is read from its first input.

    Until the first call its ``weight`` and ``bias`` are
    :class:`~nbgrad.nn.UninitializedParameter`; the first call gives them their shapes,
    initializes them as ``Conv3d`` does and turns the module into a ``Conv3d``.

    Args:
        out_channels (int): number of channels of the output.
        kernel_size (int or tuple): size of the convolving kernel.
        stride (int or tuple, optional): step of the kernel. Default: ``1``.
        padding (int, tuple or str, optional): as :class:`Conv3d`'s. Default: ``0``.
        dilation (int or tuple, optional): spacing between the kernel's elements.
            Default: ``1``.
        groups (int, optional): number of groups of channels. Default: ``1``.
        bias (bool, optional): if ``True``, add a learnable bias. Default: ``True``.
        padding_mode (str, optional): what the padding holds: ``"zeros"``, or the input
            continued by ``"reflect"``, ``"replicate"`` or ``"circular"`` (as ``F.pad``'s
            modes). Default: ``"zeros"``.
        device (nbgrad.device, optional): the device of the parameters. Default: the
            default device.
        dtype (nbgrad.dtype, optional): the dtype of the parameters. Default: the default
            dtype.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.LazyConv3d(4, 2)
        >>> m(nbgrad.ones(1, 2, 3, 3, 3)).shape
        nbgrad.Size([1, 4, 2, 2, 2])
        >>> m.weight.shape
        nbgrad.Size([4, 2, 2, 2, 2])
    """

LazyConvTranspose1d.__doc__ = r"""A :class:`ConvTranspose1d` whose ``in_channels`` is read
    from its first input.

    Until the first call its ``weight`` and ``bias`` are
    :class:`~nbgrad.nn.UninitializedParameter`; the first call gives them their shapes,
    initializes them as ``ConvTranspose1d`` does and turns the module into one.

    Args:
        out_channels (int): number of channels of the output.
        kernel_size (int or tuple): size of the convolving kernel.
        stride (int or tuple, optional): step of the kernel. Default: ``1``.
        padding (int or tuple, optional): as :class:`ConvTranspose1d`'s. Default: ``0``.
        output_padding (int or tuple, optional): extra size added to one side of the
            output. Default: ``0``.
        groups (int, optional): number of groups of channels. Default: ``1``.
        bias (bool, optional): if ``True``, add a learnable bias. Default: ``True``.
        dilation (int or tuple, optional): spacing between the kernel's elements.
            Default: ``1``.
        padding_mode (str, optional): only ``"zeros"`` is supported. Default: ``"zeros"``.
        device (nbgrad.device, optional): the device of the parameters. Default: the
            default device.
        dtype (nbgrad.dtype, optional): the dtype of the parameters. Default: the default
            dtype.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.LazyConvTranspose1d(2, 3, stride=2)
        >>> m(nbgrad.ones(1, 4, 5)).shape
        nbgrad.Size([1, 2, 11])
        >>> type(m).__name__, m.weight.shape
        ('ConvTranspose1d', nbgrad.Size([4, 2, 3]))
    """

LazyConvTranspose2d.__doc__ = r"""A :class:`ConvTranspose2d` whose ``in_channels`` is read
    from its first input.

    Until the first call its ``weight`` and ``bias`` are
    :class:`~nbgrad.nn.UninitializedParameter`; the first call gives them their shapes,
    initializes them as ``ConvTranspose2d`` does and turns the module into one.

    Args:
        out_channels (int): number of channels of the output.
        kernel_size (int or tuple): size of the convolving kernel.
        stride (int or tuple, optional): step of the kernel. Default: ``1``.
        padding (int or tuple, optional): as :class:`ConvTranspose2d`'s. Default: ``0``.
        output_padding (int or tuple, optional): extra size added to one side of each
            output dimension. Default: ``0``.
        groups (int, optional): number of groups of channels. Default: ``1``.
        bias (bool, optional): if ``True``, add a learnable bias. Default: ``True``.
        dilation (int or tuple, optional): spacing between the kernel's elements.
            Default: ``1``.
        padding_mode (str, optional): only ``"zeros"`` is supported. Default: ``"zeros"``.
        device (nbgrad.device, optional): the device of the parameters. Default: the
            default device.
        dtype (nbgrad.dtype, optional): the dtype of the parameters. Default: the default
            dtype.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.LazyConvTranspose2d(8, 2, stride=2)
        >>> m(nbgrad.ones(1, 3, 5, 5)).shape
        nbgrad.Size([1, 8, 10, 10])
        >>> type(m).__name__, m.weight.shape
        ('ConvTranspose2d', nbgrad.Size([3, 8, 2, 2]))
    """

LazyConvTranspose3d.__doc__ = r"""A :class:`ConvTranspose3d` whose ``in_channels`` is read
    from its first input.

    Until the first call its ``weight`` and ``bias`` are
    :class:`~nbgrad.nn.UninitializedParameter`; the first call gives them their shapes,
    initializes them as ``ConvTranspose3d`` does and turns the module into one.

    Args:
        out_channels (int): number of channels of the output.
        kernel_size (int or tuple): size of the convolving kernel.
        stride (int or tuple, optional): step of the kernel. Default: ``1``.
        padding (int or tuple, optional): as :class:`ConvTranspose3d`'s. Default: ``0``.
        output_padding (int or tuple, optional): extra size added to one side of each
            output dimension. Default: ``0``.
        groups (int, optional): number of groups of channels. Default: ``1``.
        bias (bool, optional): if ``True``, add a learnable bias. Default: ``True``.
        dilation (int or tuple, optional): spacing between the kernel's elements.
            Default: ``1``.
        padding_mode (str, optional): only ``"zeros"`` is supported. Default: ``"zeros"``.
        device (nbgrad.device, optional): the device of the parameters. Default: the
            default device.
        dtype (nbgrad.dtype, optional): the dtype of the parameters. Default: the default
            dtype.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.LazyConvTranspose3d(2, 2, stride=2)
        >>> m(nbgrad.ones(1, 4, 2, 2, 2)).shape
        nbgrad.Size([1, 2, 4, 4, 4])
    """
