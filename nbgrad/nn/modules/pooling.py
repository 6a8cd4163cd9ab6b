"""Pooling layers: MaxPool1d/2d/3d, AvgPool1d/2d/3d, AdaptiveAvgPool1d/2d/3d,
AdaptiveMaxPool1d/2d/3d, LPPool1d/2d/3d, MaxUnpool1d/2d/3d, FractionalMaxPool2d/3d."""

from .module import Module

__all__ = ["MaxPool1d", "MaxPool2d", "AvgPool1d", "AvgPool2d", "AdaptiveAvgPool2d",
           "AdaptiveAvgPool1d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "LPPool1d",
           "LPPool2d", "MaxUnpool1d", "MaxUnpool2d", "MaxPool3d", "AvgPool3d",
           "AdaptiveAvgPool3d", "AdaptiveMaxPool3d", "LPPool3d", "MaxUnpool3d",
           "FractionalMaxPool2d", "FractionalMaxPool3d"]


class MaxPool2d(Module):
    r"""Apply a 2-D max pooling over an input of several channels.

    Each output value is the largest input value in its window of ``kernel_size``
    (windows ``stride`` apart, their elements ``dilation`` apart); each channel is pooled
    on its own. The functional form is :func:`nbgrad.nn.functional.max_pool2d`.

    Args:
        kernel_size (int or tuple): size of the window, one int for both dimensions or
            ``(kH, kW)``.
        stride (int or tuple, optional): step between windows. Default: ``None``, the
            ``kernel_size``.
        padding (int or tuple, optional): implicit ``-inf`` padding added on both sides
            (at most half the kernel size). Default: ``0``.
        dilation (int or tuple, optional): spacing between a window's elements.
            Default: ``1``.
        return_indices (bool, optional): also return the flat index of each maximum in
            its channel's plane (what :class:`MaxUnpool2d` takes). Default: ``False``.
        ceil_mode (bool, optional): round the output size up rather than down, so that a
            last, partial window is kept. Default: ``False``.

    Shape:
        - Input: :math:`(N, C, H_{in}, W_{in})` or :math:`(C, H_{in}, W_{in})`.
        - Output: :math:`(N, C, H_{out}, W_{out})` or :math:`(C, H_{out}, W_{out})`, where
          :math:`H_{out} = \left\lfloor (H_{in} + 2 \cdot \text{padding}[0]
          - \text{dilation}[0] \cdot (\text{kernel\_size}[0] - 1) - 1) / \text{stride}[0]
          + 1 \right\rfloor` (the ceiling with ``ceil_mode``), and the same for
          :math:`W_{out}` with index 1.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.arange(16.).reshape(1, 1, 4, 4)
        >>> nbgrad.nn.MaxPool2d(2)(x)
        tensor([[[[ 5.,  7.],
                  [13., 15.]]]])
        >>> nbgrad.nn.MaxPool2d(3, stride=2, padding=1)(nbgrad.ones(2, 3, 7, 7)).shape
        nbgrad.Size([2, 3, 4, 4])
    """

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
    r"""Apply a 1-D max pooling over an input signal of several channels.

    Each output value is the largest input value in its window. The functional form is
    :func:`nbgrad.nn.functional.max_pool1d`.

    Args:
        kernel_size (int): size of the window.
        stride (int, optional): step between windows. Default: ``None``, the
            ``kernel_size``.
        padding (int, optional): implicit ``-inf`` padding added on both sides (at most
            half the kernel size). Default: ``0``.
        dilation (int, optional): spacing between a window's elements. Default: ``1``.
        return_indices (bool, optional): also return the index of each maximum (what
            :class:`MaxUnpool1d` takes). Default: ``False``.
        ceil_mode (bool, optional): round the output size up rather than down.
            Default: ``False``.

    Shape:
        - Input: :math:`(N, C, L_{in})` or :math:`(C, L_{in})`.
        - Output: :math:`(N, C, L_{out})` or :math:`(C, L_{out})`, where
          :math:`L_{out} = \left\lfloor (L_{in} + 2 \cdot \text{padding} - \text{dilation}
          \cdot (\text{kernel\_size} - 1) - 1) / \text{stride} + 1 \right\rfloor`
          (the ceiling with ``ceil_mode``).

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([[[1., 3., 2., 5., 4., 0.]]])
        >>> nbgrad.nn.MaxPool1d(2)(x)
        tensor([[[3., 5., 4.]]])
    """

    def forward(self, input):
        from .. import functional as F

        return F.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class AvgPool1d(Module):
    r"""Apply a 1-D average pooling over an input signal of several channels.

    Each output value is the mean of its window. The functional form is
    :func:`nbgrad.nn.functional.avg_pool1d`; the sizes are kept as 1-tuples, as PyTorch
    keeps them.

    Args:
        kernel_size (int): size of the window.
        stride (int, optional): step between windows. Default: ``None``, the
            ``kernel_size``.
        padding (int, optional): implicit zero padding added on both sides (at most half
            the kernel size). Default: ``0``.
        ceil_mode (bool, optional): round the output size up rather than down.
            Default: ``False``.
        count_include_pad (bool, optional): count the padding zeros in each mean's
            divisor. Default: ``True``.

    Shape:
        - Input: :math:`(N, C, L_{in})` or :math:`(C, L_{in})`.
        - Output: :math:`(N, C, L_{out})` or :math:`(C, L_{out})`, where
          :math:`L_{out} = \left\lfloor (L_{in} + 2 \cdot \text{padding}
          - \text{kernel\_size}) / \text{stride} + 1 \right\rfloor`
          (the ceiling with ``ceil_mode``).

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.AvgPool1d(2)
        >>> m
        AvgPool1d(kernel_size=(2,), stride=(2,), padding=(0,))
        >>> m(nbgrad.tensor([[[1., 3., 2., 5., 4., 0.]]]))
        tensor([[[2.0000, 3.5000, 2.0000]]])
    """

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
    r"""Apply a 2-D average pooling over an input of several channels.

    Each output value is the mean of its window of ``kernel_size``; each channel is
    pooled on its own. The functional form is :func:`nbgrad.nn.functional.avg_pool2d`.

    Args:
        kernel_size (int or tuple): size of the window, one int for both dimensions or
            ``(kH, kW)``.
        stride (int or tuple, optional): step between windows. Default: ``None``, the
            ``kernel_size``.
        padding (int or tuple, optional): implicit zero padding added on both sides (at
            most half the kernel size). Default: ``0``.
        ceil_mode (bool, optional): round the output size up rather than down.
            Default: ``False``.
        count_include_pad (bool, optional): count the padding zeros in each mean's
            divisor. Default: ``True``.
        divisor_override (int, optional): divide every window's sum by this number
            instead of by the window's size. Default: ``None``.

    Shape:
        - Input: :math:`(N, C, H_{in}, W_{in})` or :math:`(C, H_{in}, W_{in})`.
        - Output: :math:`(N, C, H_{out}, W_{out})` or :math:`(C, H_{out}, W_{out})`, where
          :math:`H_{out} = \left\lfloor (H_{in} + 2 \cdot \text{padding}[0]
          - \text{kernel\_size}[0]) / \text{stride}[0] + 1 \right\rfloor` (the ceiling
          with ``ceil_mode``), and the same for :math:`W_{out}` with index 1.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.arange(16.).reshape(1, 1, 4, 4)
        >>> nbgrad.nn.AvgPool2d(2)(x)
        tensor([[[[ 2.5000,  4.5000],
                  [10.5000, 12.5000]]]])
        >>> nbgrad.nn.AvgPool2d(3, stride=1, padding=1, count_include_pad=False)(x)[0, 0, 0]
        tensor([2.5000, 3.0000, 4.0000, 4.5000])
    """

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
    r"""Apply a 2-D average pooling whose windows are chosen to give an output of a set size.

    Whatever the input's size, the output is ``output_size``: output cell ``i`` of a
    dimension of input size ``L`` and output size ``S`` averages the input from
    ``floor(i * L / S)`` to ``ceil((i + 1) * L / S)``. The functional form is
    :func:`nbgrad.nn.functional.adaptive_avg_pool2d`.

    Args:
        output_size (int or tuple): the output's size ``(H_out, W_out)``, or one int for
            a square; ``None`` for a dimension keeps the input's size there.

    Shape:
        - Input: :math:`(N, C, H_{in}, W_{in})` or :math:`(C, H_{in}, W_{in})`.
        - Output: :math:`(N, C, H_{out}, W_{out})` or :math:`(C, H_{out}, W_{out})`.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.arange(16.).reshape(1, 1, 4, 4)
        >>> nbgrad.nn.AdaptiveAvgPool2d(1)(x)
        tensor([[[[7.5000]]]])
        >>> nbgrad.nn.AdaptiveAvgPool2d((2, None))(nbgrad.ones(1, 3, 5, 7)).shape
        nbgrad.Size([1, 3, 2, 7])
    """

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
    r"""Apply a 1-D average pooling whose windows are chosen to give an output of a set size.

    As :class:`AdaptiveAvgPool2d`, over one dimension. The functional form is
    :func:`nbgrad.nn.functional.adaptive_avg_pool1d`.

    Args:
        output_size (int): the output's length.

    Shape:
        - Input: :math:`(N, C, L_{in})` or :math:`(C, L_{in})`.
        - Output: :math:`(N, C, L_{out})` or :math:`(C, L_{out})`, with
          :math:`L_{out} = \text{output\_size}`.

    Example::

        >>> import nbgrad
        >>> nbgrad.nn.AdaptiveAvgPool1d(3)(nbgrad.tensor([[[1., 3., 2., 5., 4., 0.]]]))
        tensor([[[2.0000, 3.5000, 2.0000]]])
    """

    def forward(self, input):
        return _F().adaptive_avg_pool1d(input, self.output_size)


class AdaptiveMaxPool2d(Module):
    r"""Apply a 2-D max pooling whose windows are chosen to give an output of a set size.

    The windows are :class:`AdaptiveAvgPool2d`'s; each output value is its window's
    largest. The functional form is :func:`nbgrad.nn.functional.adaptive_max_pool2d`.

    Args:
        output_size (int or tuple): the output's size ``(H_out, W_out)``, or one int for
            a square; ``None`` for a dimension keeps the input's size there.
        return_indices (bool, optional): also return the flat index of each maximum in
            its channel's plane. Default: ``False``.

    Shape:
        - Input: :math:`(N, C, H_{in}, W_{in})` or :math:`(C, H_{in}, W_{in})`.
        - Output: :math:`(N, C, H_{out}, W_{out})` or :math:`(C, H_{out}, W_{out})`.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.arange(16.).reshape(1, 1, 4, 4)
        >>> nbgrad.nn.AdaptiveMaxPool2d(2)(x)
        tensor([[[[ 5.,  7.],
                  [13., 15.]]]])
    """

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def forward(self, input):
        return _F().adaptive_max_pool2d(input, self.output_size, self.return_indices)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(AdaptiveMaxPool2d):
    r"""Apply a 1-D max pooling whose windows are chosen to give an output of a set size.

    As :class:`AdaptiveMaxPool2d`, over one dimension. The functional form is
    :func:`nbgrad.nn.functional.adaptive_max_pool1d`.

    Args:
        output_size (int): the output's length.
        return_indices (bool, optional): also return the index of each maximum.
            Default: ``False``.

    Shape:
        - Input: :math:`(N, C, L_{in})` or :math:`(C, L_{in})`.
        - Output: :math:`(N, C, L_{out})` or :math:`(C, L_{out})`, with
          :math:`L_{out} = \text{output\_size}`.

    Example::

        >>> import nbgrad
        >>> nbgrad.nn.AdaptiveMaxPool1d(3)(nbgrad.tensor([[[1., 3., 2., 5., 4., 0.]]]))
        tensor([[[3., 5., 4.]]])
    """

    def forward(self, input):
        return _F().adaptive_max_pool1d(input, self.output_size, self.return_indices)


class MaxPool3d(MaxPool2d):
    r"""Apply a 3-D max pooling over an input of several channels.

    As :class:`MaxPool2d`, over three spatial dimensions. The functional form is
    :func:`nbgrad.nn.functional.max_pool3d`.

    Args:
        kernel_size (int or tuple): size of the window, one int or ``(kD, kH, kW)``.
        stride (int or tuple, optional): step between windows. Default: ``None``, the
            ``kernel_size``.
        padding (int or tuple, optional): implicit ``-inf`` padding added on both sides.
            Default: ``0``.
        dilation (int or tuple, optional): spacing between a window's elements.
            Default: ``1``.
        return_indices (bool, optional): also return the flat index of each maximum in
            its channel's volume (what :class:`MaxUnpool3d` takes). Default: ``False``.
        ceil_mode (bool, optional): round the output size up rather than down.
            Default: ``False``.

    Shape:
        - Input: :math:`(N, C, D_{in}, H_{in}, W_{in})` or without :math:`N`.
        - Output: :math:`(N, C, D_{out}, H_{out}, W_{out})` or without :math:`N`, each
          size given by :class:`MaxPool2d`'s formula.

    Example::

        >>> import nbgrad
        >>> nbgrad.nn.MaxPool3d(2)(nbgrad.ones(1, 2, 4, 4, 4)).shape
        nbgrad.Size([1, 2, 2, 2, 2])
    """

    def forward(self, input):
        return _F().max_pool3d(input, self.kernel_size, self.stride, self.padding,
                               self.dilation, ceil_mode=self.ceil_mode,
                               return_indices=self.return_indices)


class AvgPool3d(AvgPool2d):
    r"""Apply a 3-D average pooling over an input of several channels.

    As :class:`AvgPool2d`, over three spatial dimensions. The functional form is
    :func:`nbgrad.nn.functional.avg_pool3d`.

    Args:
        kernel_size (int or tuple): size of the window, one int or ``(kD, kH, kW)``.
        stride (int or tuple, optional): step between windows. Default: ``None``, the
            ``kernel_size``.
        padding (int or tuple, optional): implicit zero padding added on both sides.
            Default: ``0``.
        ceil_mode (bool, optional): round the output size up rather than down.
            Default: ``False``.
        count_include_pad (bool, optional): count the padding zeros in each mean's
            divisor. Default: ``True``.
        divisor_override (int, optional): divide every window's sum by this number
            instead. Default: ``None``.

    Shape:
        - Input: :math:`(N, C, D_{in}, H_{in}, W_{in})` or without :math:`N`.
        - Output: :math:`(N, C, D_{out}, H_{out}, W_{out})` or without :math:`N`, each
          size given by :class:`AvgPool2d`'s formula.

    Example::

        >>> import nbgrad
        >>> nbgrad.nn.AvgPool3d(2)(nbgrad.ones(1, 2, 4, 4, 4)).shape
        nbgrad.Size([1, 2, 2, 2, 2])
    """

    def forward(self, input):
        return _F().avg_pool3d(input, self.kernel_size, self.stride, self.padding,
                               self.ceil_mode, self.count_include_pad, self.divisor_override)


class AdaptiveAvgPool3d(AdaptiveAvgPool2d):
    r"""Apply a 3-D average pooling whose windows are chosen to give an output of a set size.

    As :class:`AdaptiveAvgPool2d`, over three dimensions. The functional form is
    :func:`nbgrad.nn.functional.adaptive_avg_pool3d`.

    Args:
        output_size (int or tuple): the output's size ``(D_out, H_out, W_out)``, or one
            int for a cube; ``None`` for a dimension keeps the input's size there.

    Shape:
        - Input: :math:`(N, C, D_{in}, H_{in}, W_{in})` or without :math:`N`.
        - Output: :math:`(N, C, D_{out}, H_{out}, W_{out})` or without :math:`N`.

    Example::

        >>> import nbgrad
        >>> nbgrad.nn.AdaptiveAvgPool3d(1)(nbgrad.ones(1, 2, 3, 4, 5)).shape
        nbgrad.Size([1, 2, 1, 1, 1])
    """

    def forward(self, input):
        return _F().adaptive_avg_pool3d(input, self.output_size)


class AdaptiveMaxPool3d(AdaptiveMaxPool2d):
    r"""Apply a 3-D max pooling whose windows are chosen to give an output of a set size.

    As :class:`AdaptiveMaxPool2d`, over three dimensions. The functional form is
    :func:`nbgrad.nn.functional.adaptive_max_pool3d`.

    Args:
        output_size (int or tuple): the output's size ``(D_out, H_out, W_out)``, or one
            int for a cube; ``None`` for a dimension keeps the input's size there.
        return_indices (bool, optional): also return the flat index of each maximum.
            Default: ``False``.

    Shape:
        - Input: :math:`(N, C, D_{in}, H_{in}, W_{in})` or without :math:`N`.
        - Output: :math:`(N, C, D_{out}, H_{out}, W_{out})` or without :math:`N`.

    Example::

        >>> import nbgrad
        >>> nbgrad.nn.AdaptiveMaxPool3d((1, 2, 2))(nbgrad.ones(1, 2, 3, 4, 5)).shape
        nbgrad.Size([1, 2, 1, 2, 2])
    """

    def forward(self, input):
        return _F().adaptive_max_pool3d(input, self.output_size, self.return_indices)


class LPPool2d(Module):
    r"""Apply a 2-D power-average pooling over an input of several channels.

    Each output value is :math:`(\sum_{x \in \text{window}} x^{p})^{1 / p}` with
    :math:`p` = ``norm_type``: the sum for :math:`p = 1`, the maximum as :math:`p \to
    \infty`. There is no padding. The functional form is
    :func:`nbgrad.nn.functional.lp_pool2d`.

    Args:
        norm_type (float): the power :math:`p`.
        kernel_size (int or tuple): size of the window, one int or ``(kH, kW)``.
        stride (int or tuple, optional): step between windows. Default: ``None``, the
            ``kernel_size``.
        ceil_mode (bool, optional): round the output size up rather than down.
            Default: ``False``.

    Shape:
        - Input: :math:`(N, C, H_{in}, W_{in})` or :math:`(C, H_{in}, W_{in})`.
        - Output: :math:`(N, C, H_{out}, W_{out})` or :math:`(C, H_{out}, W_{out})`, where
          :math:`H_{out} = \left\lfloor (H_{in} - \text{kernel\_size}[0]) / \text{stride}[0]
          + 1 \right\rfloor`, and the same for :math:`W_{out}` with index 1.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.arange(16.).reshape(1, 1, 4, 4)
        >>> nbgrad.nn.LPPool2d(1, 2)(x)                  # p = 1: each window's sum
        tensor([[[[10., 18.],
                  [42., 50.]]]])
    """

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
    r"""Apply a 1-D power-average pooling over an input signal of several channels.

    As :class:`LPPool2d`, over one dimension: each output value is
    :math:`(\sum_{x \in \text{window}} x^{p})^{1 / p}`. The functional form is
    :func:`nbgrad.nn.functional.lp_pool1d`.

    Args:
        norm_type (float): the power :math:`p`.
        kernel_size (int): size of the window.
        stride (int, optional): step between windows. Default: ``None``, the
            ``kernel_size``.
        ceil_mode (bool, optional): round the output size up rather than down.
            Default: ``False``.

    Shape:
        - Input: :math:`(N, C, L_{in})` or :math:`(C, L_{in})`.
        - Output: :math:`(N, C, L_{out})` or :math:`(C, L_{out})`, where
          :math:`L_{out} = \left\lfloor (L_{in} - \text{kernel\_size}) / \text{stride}
          + 1 \right\rfloor`.

    Example::

        >>> import nbgrad
        >>> nbgrad.nn.LPPool1d(2, 2)(nbgrad.tensor([[[1., 3., 2., 5., 4., 0.]]]))
        tensor([[[3.1623, 5.3852, 4.0000]]])
    """

    def forward(self, input):
        return _F().lp_pool1d(input, float(self.norm_type), self.kernel_size, self.stride,
                              self.ceil_mode)


class MaxUnpool2d(Module):
    r"""Undo a :class:`MaxPool2d` as far as can be: each maximum back in its place, zeros
    elsewhere.

    ``forward(input, indices, output_size=None)`` takes the pooled values and the
    ``indices`` that ``MaxPool2d(return_indices=True)`` gave with them; ``output_size``
    picks the output's size where several input sizes pool to the same one. The
    functional form is :func:`nbgrad.nn.functional.max_unpool2d`.

    Args:
        kernel_size (int or tuple): the pooling's window size.
        stride (int or tuple, optional): the pooling's stride. Default: ``None``, the
            ``kernel_size``.
        padding (int or tuple, optional): the pooling's padding. Default: ``0``.

    Shape:
        - Input: :math:`(N, C, H_{in}, W_{in})` or :math:`(C, H_{in}, W_{in})`.
        - Output: :math:`(N, C, H_{out}, W_{out})` or :math:`(C, H_{out}, W_{out})`, where
          :math:`H_{out} = (H_{in} - 1) \cdot \text{stride}[0] - 2 \cdot \text{padding}[0]
          + \text{kernel\_size}[0]`, and the same for :math:`W_{out}` with index 1 (or
          ``output_size``).

    Example::

        >>> import nbgrad
        >>> x = nbgrad.arange(16.).reshape(1, 1, 4, 4)
        >>> out, idx = nbgrad.nn.MaxPool2d(2, return_indices=True)(x)
        >>> nbgrad.nn.MaxUnpool2d(2)(out, idx)
        tensor([[[[ 0.,  0.,  0.,  0.],
                  [ 0.,  5.,  0.,  7.],
                  [ 0.,  0.,  0.,  0.],
                  [ 0., 13.,  0., 15.]]]])
    """

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
    r"""Undo a :class:`MaxPool1d` as far as can be: each maximum back in its place, zeros
    elsewhere.

    ``forward(input, indices, output_size=None)``, as :class:`MaxUnpool2d`'s. The
    functional form is :func:`nbgrad.nn.functional.max_unpool1d`.

    Args:
        kernel_size (int): the pooling's window size.
        stride (int, optional): the pooling's stride. Default: ``None``, the
            ``kernel_size``.
        padding (int, optional): the pooling's padding. Default: ``0``.

    Shape:
        - Input: :math:`(N, C, L_{in})` or :math:`(C, L_{in})`.
        - Output: :math:`(N, C, L_{out})` or :math:`(C, L_{out})`, where
          :math:`L_{out} = (L_{in} - 1) \cdot \text{stride} - 2 \cdot \text{padding}
          + \text{kernel\_size}` (or ``output_size``).

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([[[1., 3., 2., 5., 4., 0.]]])
        >>> out, idx = nbgrad.nn.MaxPool1d(2, return_indices=True)(x)
        >>> nbgrad.nn.MaxUnpool1d(2)(out, idx)
        tensor([[[0., 3., 0., 5., 4., 0.]]])
    """

    _n = 1

    def forward(self, input, indices, output_size=None):
        return _F().max_unpool1d(input, indices, self.kernel_size, self.stride, self.padding,
                                 output_size)


class LPPool3d(LPPool2d):
    r"""Apply a 3-D power-average pooling over an input of several channels.

    As :class:`LPPool2d`, over three dimensions. The functional form is
    :func:`nbgrad.nn.functional.lp_pool3d`.

    Args:
        norm_type (float): the power :math:`p`.
        kernel_size (int or tuple): size of the window, one int or ``(kD, kH, kW)``.
        stride (int or tuple, optional): step between windows. Default: ``None``, the
            ``kernel_size``.
        ceil_mode (bool, optional): round the output size up rather than down.
            Default: ``False``.

    Shape:
        - Input: :math:`(N, C, D_{in}, H_{in}, W_{in})` or without :math:`N`.
        - Output: :math:`(N, C, D_{out}, H_{out}, W_{out})` or without :math:`N`, each
          size given by :class:`LPPool2d`'s formula.

    Example::

        >>> import nbgrad
        >>> nbgrad.nn.LPPool3d(2, 2)(nbgrad.ones(1, 1, 2, 2, 2))   # sqrt(8)
        tensor([[[[[2.8284]]]]])
    """

    def forward(self, input):
        return _F().lp_pool3d(input, float(self.norm_type), self.kernel_size, self.stride,
                              self.ceil_mode)


class MaxUnpool3d(MaxUnpool2d):
    r"""Undo a :class:`MaxPool3d` as far as can be: each maximum back in its place, zeros
    elsewhere.

    ``forward(input, indices, output_size=None)``, as :class:`MaxUnpool2d`'s. The
    functional form is :func:`nbgrad.nn.functional.max_unpool3d`.

    Args:
        kernel_size (int or tuple): the pooling's window size.
        stride (int or tuple, optional): the pooling's stride. Default: ``None``, the
            ``kernel_size``.
        padding (int or tuple, optional): the pooling's padding. Default: ``0``.

    Shape:
        - Input: :math:`(N, C, D_{in}, H_{in}, W_{in})` or without :math:`N`.
        - Output: :math:`(N, C, D_{out}, H_{out}, W_{out})` or without :math:`N`, each
          size given by :class:`MaxUnpool2d`'s formula (or ``output_size``).

    Example::

        >>> import nbgrad
        >>> x = nbgrad.arange(8.).reshape(1, 1, 2, 2, 2)
        >>> out, idx = nbgrad.nn.MaxPool3d(2, return_indices=True)(x)
        >>> y = nbgrad.nn.MaxUnpool3d(2)(out, idx)
        >>> y.shape, y.sum()
        (nbgrad.Size([1, 1, 2, 2, 2]), tensor(7.))
    """

    _n = 3

    def forward(self, input, indices, output_size=None):
        return _F().max_unpool3d(input, indices, self.kernel_size, self.stride, self.padding,
                                 output_size)


class FractionalMaxPool2d(Module):
    r"""Apply a 2-D fractional max pooling over an input of several channels.

    From Graham, "Fractional Max-Pooling": windows of ``kernel_size`` placed at
    pseudo-random steps, so that the output has a size that need not divide the input's
    (``output_size``, or ``output_ratio`` of the input's size); the steps are drawn anew
    at each call. The functional form is
    :func:`nbgrad.nn.functional.fractional_max_pool2d`.

    Args:
        kernel_size (int or tuple): size of the window, one int or ``(kH, kW)``.
        output_size (int or tuple, optional): the output's size ``(H_out, W_out)``.
            Default: ``None``.
        output_ratio (float or tuple, optional): the output's size as a fraction of the
            input's, each in (0, 1). Exactly one of ``output_size`` and ``output_ratio``
            must be given. Default: ``None``.
        return_indices (bool, optional): also return the flat index of each maximum.
            Default: ``False``.
        _random_samples (Tensor, optional): fixed samples, of shape ``(N, C, 2)``, that
            place the windows instead of random draws (kept as a buffer). Default:
            ``None``.

    Shape:
        - Input: :math:`(N, C, H_{in}, W_{in})` or :math:`(C, H_{in}, W_{in})`.
        - Output: :math:`(N, C, H_{out}, W_{out})` or :math:`(C, H_{out}, W_{out})`.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> x = nbgrad.randn(1, 2, 10, 10)
        >>> nbgrad.nn.FractionalMaxPool2d(3, output_size=5)(x).shape
        nbgrad.Size([1, 2, 5, 5])
        >>> nbgrad.nn.FractionalMaxPool2d(2, output_ratio=0.7)(x).shape
        nbgrad.Size([1, 2, 7, 7])
    """

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
    r"""Apply a 3-D fractional max pooling over an input of several channels.

    As :class:`FractionalMaxPool2d`, over three dimensions. The functional form is
    :func:`nbgrad.nn.functional.fractional_max_pool3d`.

    Args:
        kernel_size (int or tuple): size of the window, one int or ``(kD, kH, kW)``.
        output_size (int or tuple, optional): the output's size ``(D_out, H_out, W_out)``.
            Default: ``None``.
        output_ratio (float or tuple, optional): the output's size as a fraction of the
            input's, each in (0, 1); exactly one of the two must be given.
            Default: ``None``.
        return_indices (bool, optional): also return the flat index of each maximum.
            Default: ``False``.
        _random_samples (Tensor, optional): fixed samples, of shape ``(N, C, 3)``, that
            place the windows instead of random draws. Default: ``None``.

    Shape:
        - Input: :math:`(N, C, D_{in}, H_{in}, W_{in})` or without :math:`N`.
        - Output: :math:`(N, C, D_{out}, H_{out}, W_{out})` or without :math:`N`.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> nbgrad.nn.FractionalMaxPool3d(2, output_ratio=0.5)(nbgrad.randn(1, 2, 8, 8, 8)).shape
        nbgrad.Size([1, 2, 4, 4, 4])
    """

    _n = 3


def _ntuple(v, n):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n
