"""PixelShuffle and PixelUnshuffle (``F.pixel_shuffle`` / ``F.pixel_unshuffle``)."""

from .module import Module

__all__ = ["PixelShuffle", "PixelUnshuffle"]


class PixelShuffle(Module):
    r"""Rearrange channels into space: :math:`(*, C r^2, H, W)` to :math:`(*, C, H r, W r)`.

    Each group of :math:`r^2` channels becomes an :math:`r \times r` block of pixels of one
    channel, with :math:`r` the upscale factor: the step that turns a convolution's output
    into a higher resolution image in sub-pixel convolution ("Real-Time Single Image and
    Video Super-Resolution Using an Efficient Sub-Pixel Convolutional Neural Network").

    Args:
        upscale_factor (int): the factor :math:`r` by which height and width grow.

    Shape:
        - Input: :math:`(*, C_{in}, H_{in}, W_{in})`, :math:`*` zero or more batch
          dimensions and :math:`C_{in}` divisible by :math:`r^2`.
        - Output: :math:`(*, C_{out}, H_{out}, W_{out})`, with
          :math:`C_{out} = C_{in} / r^2`, :math:`H_{out} = H_{in} r` and
          :math:`W_{out} = W_{in} r`.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.PixelShuffle(2)
        >>> m
        PixelShuffle(upscale_factor=2)
        >>> y = m(nbgrad.arange(8.0).reshape(1, 8, 1, 1))
        >>> y.shape
        nbgrad.Size([1, 2, 2, 2])
        >>> y[0, 0]
        tensor([[0., 1.],
                [2., 3.]])
    """

    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input):
        from .. import functional as F

        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self):
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    r"""Rearrange space into channels: :math:`(*, C, H r, W r)` to :math:`(*, C r^2, H, W)`.

    The inverse of ``PixelShuffle``: each :math:`r \times r` block of pixels of a channel
    becomes :math:`r^2` channels, with :math:`r` the downscale factor.

    Args:
        downscale_factor (int): the factor :math:`r` by which height and width shrink.

    Shape:
        - Input: :math:`(*, C_{in}, H_{in}, W_{in})`, :math:`*` zero or more batch
          dimensions and :math:`H_{in}`, :math:`W_{in}` divisible by :math:`r`.
        - Output: :math:`(*, C_{out}, H_{out}, W_{out})`, with
          :math:`C_{out} = C_{in} r^2`, :math:`H_{out} = H_{in} / r` and
          :math:`W_{out} = W_{in} / r`.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.PixelUnshuffle(2)
        >>> m
        PixelUnshuffle(downscale_factor=2)
        >>> x = nbgrad.arange(16.0).reshape(1, 1, 4, 4)
        >>> y = m(x)
        >>> y.shape
        nbgrad.Size([1, 4, 2, 2])
        >>> y[0, :, 0, 0]
        tensor([0., 1., 4., 5.])
        >>> nbgrad.nn.PixelShuffle(2)(y).equal(x)
        True
    """

    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input):
        from .. import functional as F

        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self):
        return f"downscale_factor={self.downscale_factor}"
