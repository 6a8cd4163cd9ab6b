"""Pooling layers: MaxPool1d/2d/3d, AvgPool1d/2d/3d, AdaptiveAvgPool1d/2d/3d,
AdaptiveMaxPool1d/2d/3d, LPPool1d/2d/3d, MaxUnpool1d/2d/3d, FractionalMaxPool2d/3d."""

from .module import Module

__all__ = ["MaxPool1d", "MaxPool2d", "AvgPool1d", "AvgPool2d", "AdaptiveAvgPool2d",
           "AdaptiveAvgPool1d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "LPPool1d",
           "LPPool2d", "MaxUnpool1d", "MaxUnpool2d", "MaxPool3d", "AvgPool3d",
           "AdaptiveAvgPool3d", "AdaptiveMaxPool3d", "LPPool3d", "MaxUnpool3d",
           "FractionalMaxPool2d", "FractionalMaxPool3d"]


class MaxPool2d(Module):
    """2-D max pooling (``F.max_pool2d``); ``stride`` defaults to the kernel size."""

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, input):
        from .. import functional as F

        return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"
                f", dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class MaxPool1d(MaxPool2d):
    """1-D max pooling (``F.max_pool1d``) over (N, C, L)."""

    def forward(self, input):
        from .. import functional as F

        return F.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class AvgPool1d(Module):
    """1-D average pooling (``F.avg_pool1d``) over (N, C, L); its sizes kept as 1-tuples,
    as PyTorch keeps them."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True):
        super().__init__()
        one = (lambda v: tuple(v) if isinstance(v, (tuple, list)) else (v,))
        self.kernel_size = one(kernel_size)
        self.stride = one(stride if stride is not None else kernel_size)
        self.padding, self.ceil_mode = one(padding), ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input):
        from .. import functional as F

        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool2d(Module):
    """2-D average pooling (``F.avg_pool2d``); ``stride`` defaults to the kernel size."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, input):
        from .. import functional as F

        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool2d(Module):
    """Average pooling to a fixed output size (``F.adaptive_avg_pool2d``)."""

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        from .. import functional as F

        return F.adaptive_avg_pool2d(input, self.output_size)

    def extra_repr(self):
        return f"output_size={self.output_size}"


def _F():
    from .. import functional

    return functional


class AdaptiveAvgPool1d(AdaptiveAvgPool2d):
    """1-d average pooling to a fixed output size (``F.adaptive_avg_pool1d``)."""

    def forward(self, input):
        return _F().adaptive_avg_pool1d(input, self.output_size)


class AdaptiveMaxPool2d(Module):
    """Max pooling to a fixed output size (``F.adaptive_max_pool2d``)."""

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def forward(self, input):
        return _F().adaptive_max_pool2d(input, self.output_size, self.return_indices)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(AdaptiveMaxPool2d):
    """1-d max pooling to a fixed output size (``F.adaptive_max_pool1d``)."""

    def forward(self, input):
        return _F().adaptive_max_pool1d(input, self.output_size, self.return_indices)


class MaxPool3d(MaxPool2d):
    """3-D max pooling (``F.max_pool3d``) over (N, C, D, H, W)."""

    def forward(self, input):
        return _F().max_pool3d(input, self.kernel_size, self.stride, self.padding,
                               self.dilation, ceil_mode=self.ceil_mode,
                               return_indices=self.return_indices)


class AvgPool3d(AvgPool2d):
    """3-D average pooling (``F.avg_pool3d``) over (N, C, D, H, W)."""

    def forward(self, input):
        return _F().avg_pool3d(input, self.kernel_size, self.stride, self.padding,
                               self.ceil_mode, self.count_include_pad, self.divisor_override)


class AdaptiveAvgPool3d(AdaptiveAvgPool2d):
    """3-d average pooling to a fixed output size (``F.adaptive_avg_pool3d``)."""

    def forward(self, input):
        return _F().adaptive_avg_pool3d(input, self.output_size)


class AdaptiveMaxPool3d(AdaptiveMaxPool2d):
    """3-d max pooling to a fixed output size (``F.adaptive_max_pool3d``)."""

    def forward(self, input):
        return _F().adaptive_max_pool3d(input, self.output_size, self.return_indices)


class LPPool2d(Module):
    """The ``norm_type``-norm of each window (``F.lp_pool2d``)."""

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type, self.kernel_size = norm_type, kernel_size
        self.stride, self.ceil_mode = stride, ceil_mode

    def forward(self, input):
        return _F().lp_pool2d(input, float(self.norm_type), self.kernel_size, self.stride,
                              self.ceil_mode)

    def extra_repr(self):
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, ceil_mode={self.ceil_mode}")


class LPPool1d(LPPool2d):
    """1-d ``LPPool2d`` (``F.lp_pool1d``)."""

    def forward(self, input):
        return _F().lp_pool1d(input, float(self.norm_type), self.kernel_size, self.stride,
                              self.ceil_mode)


class MaxUnpool2d(Module):
    """The inverse of ``MaxPool2d(return_indices=True)`` (``F.max_unpool2d``)."""

    _n = 2

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        as_n = (lambda v: tuple(v) if isinstance(v, (tuple, list)) else (v,) * self._n)
        self.kernel_size = as_n(kernel_size)
        self.stride = as_n(stride if stride is not None else kernel_size)
        self.padding = as_n(padding)

    def forward(self, input, indices, output_size=None):
        return _F().max_unpool2d(input, indices, self.kernel_size, self.stride, self.padding,
                                 output_size)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(MaxUnpool2d):
    """The inverse of ``MaxPool1d(return_indices=True)`` (``F.max_unpool1d``)."""

    _n = 1

    def forward(self, input, indices, output_size=None):
        return _F().max_unpool1d(input, indices, self.kernel_size, self.stride, self.padding,
                                 output_size)


class LPPool3d(LPPool2d):
    """3-d ``LPPool2d`` (``F.lp_pool3d``)."""

    def forward(self, input):
        return _F().lp_pool3d(input, float(self.norm_type), self.kernel_size, self.stride,
                              self.ceil_mode)


class MaxUnpool3d(MaxUnpool2d):
    """The inverse of ``MaxPool3d(return_indices=True)`` (``F.max_unpool3d``)."""

    _n = 3

    def forward(self, input, indices, output_size=None):
        return _F().max_unpool3d(input, indices, self.kernel_size, self.stride, self.padding,
                                 output_size)


class FractionalMaxPool2d(Module):
    """2-d fractional max pooling (``F.fractional_max_pool2d``): ``kernel_size`` windows at
    pseudo-random strides, to ``output_size`` or ``output_ratio`` (in (0, 1)) of the input's
    size; ``_random_samples`` (a buffer) fixes the strides."""

    _n = 2

    def __init__(self, kernel_size, output_size=None, output_ratio=None,
                 return_indices=False, _random_samples=None):
        super().__init__()
        n = self._n
        self.kernel_size = _ntuple(kernel_size, n)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = _ntuple(output_size, n) if output_size is not None else None
        self.output_ratio = _ntuple(output_ratio, n) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(f"FractionalMaxPool{n}d requires specifying either an output "
                             "size, or a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input):
        fn = _F().fractional_max_pool2d if self._n == 2 else _F().fractional_max_pool3d
        return fn(input, self.kernel_size, self.output_size, self.output_ratio,
                  self.return_indices, _random_samples=self._random_samples)


class FractionalMaxPool3d(FractionalMaxPool2d):
    """3-d fractional max pooling (``F.fractional_max_pool3d``)."""

    _n = 3


def _ntuple(v, n):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n
