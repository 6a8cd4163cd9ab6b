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
    1/sqrt(fan_in)). Only ``padding_mode='zeros'`` is supported."""

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
        if padding_mode != "zeros":
            if self.transposed:
                raise ValueError(f'Only "zeros" padding mode is supported for '
                                 f"{type(self).__name__}")
            raise NotImplementedError(
                f"{type(self).__name__}: padding_mode='{padding_mode}' is not supported by "
                "nbgrad yet; use 'zeros'"
            )
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = _ntuple(kernel_size, n)
        self.stride = _ntuple(stride, n)
        self.padding = padding if isinstance(padding, str) else _ntuple(padding, n)
        self.dilation = _ntuple(dilation, n)
        self.groups = groups
        self.padding_mode = padding_mode
        self.output_padding = _ntuple(output_padding, n)
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


class Conv1d(_ConvNd):
    """1-D convolution over ``(N, C, L)`` input, through ``nn.functional.conv1d``."""

    _dims = 1

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, device, dtype)

    def forward(self, input):
        from .. import functional as F

        return F.conv1d(input, self.weight, self.bias, self.stride, self.padding,
                        self.dilation, self.groups)


class Conv2d(_ConvNd):
    """2-D convolution over ``(N, C, H, W)`` input, through ``nn.functional.conv2d``.

    Example::

        >>> import nbgrad
        >>> conv = nbgrad.nn.Conv2d(3, 8, 3, padding=1)
        >>> tuple(conv(nbgrad.ones(2, 3, 5, 5)).shape)
        (2, 8, 5, 5)
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, device, dtype)

    def forward(self, input):
        from .. import functional as F

        return F.conv2d(input, self.weight, self.bias, self.stride, self.padding,
                        self.dilation, self.groups)


class Conv3d(_ConvNd):
    """3-D convolution over ``(N, C, D, H, W)`` input, through ``nn.functional.conv3d``."""

    _dims = 3

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, device, dtype)

    def forward(self, input):
        from .. import functional as F

        return F.conv3d(input, self.weight, self.bias, self.stride, self.padding,
                        self.dilation, self.groups)


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
    """1-D transposed convolution over ``(N, C, L)`` input
    (``nn.functional.conv_transpose1d``); ``forward(input, output_size=None)``."""

    _dims = 1

    def forward(self, input, output_size=None):
        from .. import functional as F

        return F.conv_transpose1d(input, self.weight, self.bias, self.stride, self.padding,
                                  self._output_padding(input, output_size), self.groups,
                                  self.dilation)


class ConvTranspose2d(_ConvTransposeNd):
    """2-D transposed convolution over ``(N, C, H, W)`` input
    (``nn.functional.conv_transpose2d``); ``forward(input, output_size=None)``.

    Example::

        >>> import nbgrad
        >>> up = nbgrad.nn.ConvTranspose2d(8, 3, 4, stride=2, padding=1)
        >>> tuple(up(nbgrad.ones(1, 8, 5, 5)).shape)
        (1, 3, 10, 10)
    """

    def forward(self, input, output_size=None):
        from .. import functional as F

        return F.conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding,
                                  self._output_padding(input, output_size), self.groups,
                                  self.dilation)


class ConvTranspose3d(_ConvTransposeNd):
    """3-D transposed convolution over ``(N, C, D, H, W)`` input
    (``nn.functional.conv_transpose3d``); ``forward(input, output_size=None)``."""

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
