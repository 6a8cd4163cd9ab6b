"""Sliding blocks: Unfold (an image's blocks as columns) and Fold (columns summed back onto
an image)."""

from .module import Module

__all__ = ["Fold", "Unfold"]


def _F():
    from .. import functional

    return functional


class Unfold(Module):
    r"""Extract sliding local blocks of a batch of images, each flattened into a column
    (im2col).

    For an input :math:`(N, C, H, W)`, every position of a ``kernel_size`` window sliding
    over the (padded) image gives a column of :math:`C \times \prod \text{kernel\_size}`
    values (channel-major); the :math:`L` columns are the positions, in row-major order.
    A convolution is then a matrix product with these columns. Only 4-d (or unbatched
    3-d) inputs are supported, as in PyTorch.

    Args:
        kernel_size (int or tuple): the size of the blocks.
        dilation (int or tuple, optional): the spacing between the elements of a block.
            Default: ``1``.
        padding (int or tuple, optional): the zero padding added to both sides of each
            spatial dimension. Default: ``0``.
        stride (int or tuple, optional): the step of the sliding window. Default: ``1``.

    Shape:
        - Input: :math:`(N, C, H, W)` or :math:`(C, H, W)`.
        - Output: :math:`(N, C \times \prod \text{kernel\_size}, L)` or
          :math:`(C \times \prod \text{kernel\_size}, L)`, with :math:`L = \prod_d
          \left\lfloor \frac{\text{size}_d + 2\,\text{padding}_d - \text{dilation}_d
          (\text{kernel\_size}_d - 1) - 1}{\text{stride}_d} + 1 \right\rfloor` over the
          two spatial dimensions :math:`d`.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.Unfold(kernel_size=2)
        >>> m
        Unfold(kernel_size=2, dilation=1, padding=0, stride=1)
        >>> x = nbgrad.arange(9.0).reshape(1, 1, 3, 3)
        >>> m(x)
        tensor([[[0., 1., 3., 4.],
                 [1., 2., 4., 5.],
                 [3., 4., 6., 7.],
                 [4., 5., 7., 8.]]])
        >>> m = nbgrad.nn.Unfold(kernel_size=(2, 3), padding=1, stride=2)
        >>> m(nbgrad.zeros(2, 3, 5, 5)).shape
        nbgrad.Size([2, 18, 9])
    """

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size, self.dilation = kernel_size, dilation
        self.padding, self.stride = padding, stride

    def forward(self, input):
        return _F().unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, dilation={self.dilation}, "
                f"padding={self.padding}, stride={self.stride}")


class Fold(Unfold):
    r"""Combine columns of sliding local blocks back into a batch of images (col2im).

    The reverse arrangement of ``Unfold``: each of the :math:`L` columns is a block of
    :math:`C \times \prod \text{kernel\_size}` values placed at its window's position in an
    image of size ``output_size``, and where blocks overlap their values are summed. (So
    ``Fold`` is not the inverse of ``Unfold`` when blocks overlap: it multiplies each
    pixel by the number of blocks that cover it.)

    Args:
        output_size (int or tuple): the spatial size :math:`(H, W)` of the output.
        kernel_size (int or tuple): the size of the blocks.
        dilation (int or tuple, optional): the spacing between the elements of a block.
            Default: ``1``.
        padding (int or tuple, optional): the implicit zero padding on both sides of each
            spatial dimension, cut away from the result. Default: ``0``.
        stride (int or tuple, optional): the step of the sliding window. Default: ``1``.

    Shape:
        - Input: :math:`(N, C \times \prod \text{kernel\_size}, L)` or
          :math:`(C \times \prod \text{kernel\_size}, L)`, :math:`L` the number of window
          positions in ``output_size`` (as computed for ``Unfold``).
        - Output: :math:`(N, C, H, W)` or :math:`(C, H, W)`, with :math:`(H, W)` =
          ``output_size``.

    Example::

        >>> import nbgrad
        >>> fold = nbgrad.nn.Fold(output_size=(3, 3), kernel_size=2)
        >>> fold
        Fold(output_size=(3, 3), kernel_size=2, dilation=1, padding=0, stride=1)
        >>> unfold = nbgrad.nn.Unfold(kernel_size=2)
        >>> fold(unfold(nbgrad.ones(1, 1, 3, 3)))
        tensor([[[[1., 2., 1.],
                  [2., 4., 2.],
                  [1., 2., 1.]]]])
        >>> nbgrad.nn.Fold((4, 5), (2, 2))(nbgrad.zeros(2, 12, 12)).shape
        nbgrad.Size([2, 3, 4, 5])
    """

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__(kernel_size, dilation, padding, stride)
        self.output_size = output_size

    def forward(self, input):
        return _F().fold(input, self.output_size, self.kernel_size, self.dilation,
                         self.padding, self.stride)

    def extra_repr(self):
        return f"output_size={self.output_size}, " + super().extra_repr()
