"""Upsample, UpsamplingNearest2d, UpsamplingBilinear2d (``F.interpolate``)."""

from .module import Module

__all__ = ["Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d"]


class Upsample(Module):
    r"""Upsample (or resize) 1-d, 2-d or 3-d spatial data to a given size or by a given
    factor.

    The input is :math:`(N, C, W)`, :math:`(N, C, H, W)` or :math:`(N, C, D, H, W)`: the
    dimensions after the first two are resized, by ``F.interpolate``. Give either ``size``
    or ``scale_factor``.

    Args:
        size (int or tuple of ints, optional): the output's spatial size. Default: ``None``.
        scale_factor (float or tuple of floats, optional): the multiplier of the spatial
            size (stored as float). Default: ``None``.
        mode (str, optional): the algorithm: ``'nearest'``, ``'nearest-exact'``,
            ``'linear'`` (3-d input), ``'bilinear'`` or ``'bicubic'`` (4-d input),
            ``'trilinear'`` (5-d input) or ``'area'`` (see
            :func:`~nbgrad.nn.functional.interpolate`). Default: ``'nearest'``.
        align_corners (bool, optional): for the linear modes: if ``True``, the corner
            pixels of input and output are aligned, keeping their values; if ``False``,
            the pixels are treated as areas, aligned at their outer edges (``None`` means
            ``False``). Default: ``None``.
        recompute_scale_factor (bool, optional): if ``True``, the interpolation uses the
            scale implied by the computed output size rather than the ``scale_factor``
            given (which can differ when the size was rounded down). Default: ``None``.

    Shape:
        - Input: :math:`(N, C, W_{in})`, :math:`(N, C, H_{in}, W_{in})` or
          :math:`(N, C, D_{in}, H_{in}, W_{in})`.
        - Output: :math:`(N, C, W_{out})`, :math:`(N, C, H_{out}, W_{out})` or
          :math:`(N, C, D_{out}, H_{out}, W_{out})`: ``size``, or each input size times
          its scale factor, rounded down.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([[[[1.0, 2.0], [3.0, 4.0]]]])
        >>> m = nbgrad.nn.Upsample(scale_factor=2, mode='nearest')
        >>> m
        Upsample(scale_factor=2.0, mode='nearest')
        >>> m(x)
        tensor([[[[1., 1., 2., 2.],
                  [1., 1., 2., 2.],
                  [3., 3., 4., 4.],
                  [3., 3., 4., 4.]]]])
        >>> nbgrad.nn.Upsample(size=(3, 3), mode='bilinear', align_corners=True)(x)
        tensor([[[[1.0000, 1.5000, 2.0000],
                  [2.0000, 2.5000, 3.0000],
                  [3.0000, 3.5000, 4.0000]]]])
        >>> nbgrad.nn.Upsample(scale_factor=1.5)(nbgrad.zeros(1, 1, 3, 3)).shape
        nbgrad.Size([1, 1, 4, 4])
    """

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None,
                 recompute_scale_factor=None):
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        if isinstance(scale_factor, (tuple, list)):
            self.scale_factor = tuple(float(f) for f in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode, self.align_corners = mode, align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input):
        from .. import functional as F

        return F.interpolate(input, self.size, self.scale_factor, self.mode,
                             self.align_corners, recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self):
        if self.scale_factor is not None:
            info = f"scale_factor={self.scale_factor!r}"
        else:
            info = f"size={self.size!r}"
        return f"{info}, mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    r"""Upsample 2-d images by nearest-neighbour interpolation.

    The same as ``Upsample(size, scale_factor, mode='nearest')``, which PyTorch prefers.

    Args:
        size (int or tuple of ints, optional): the output's size :math:`(H_{out},
            W_{out})`. Default: ``None``.
        scale_factor (float or tuple of floats, optional): the multiplier of height and
            width. Default: ``None``.

    Shape:
        - Input: :math:`(N, C, H_{in}, W_{in})`.
        - Output: :math:`(N, C, H_{out}, W_{out})`, with :math:`H_{out} =
          \lfloor H_{in} \times \text{scale\_factor} \rfloor` (likewise :math:`W_{out}`)
          unless ``size`` is given.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.UpsamplingNearest2d(scale_factor=2)
        >>> m
        UpsamplingNearest2d(scale_factor=2.0, mode='nearest')
        >>> m(nbgrad.tensor([[[[1.0, 2.0], [3.0, 4.0]]]]))
        tensor([[[[1., 1., 2., 2.],
                  [1., 1., 2., 2.],
                  [3., 3., 4., 4.],
                  [3., 3., 4., 4.]]]])
    """

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    r"""Upsample 2-d images by bilinear interpolation, with the corners aligned.

    The same as ``Upsample(size, scale_factor, mode='bilinear', align_corners=True)``,
    which PyTorch prefers.

    Args:
        size (int or tuple of ints, optional): the output's size :math:`(H_{out},
            W_{out})`. Default: ``None``.
        scale_factor (float or tuple of floats, optional): the multiplier of height and
            width. Default: ``None``.

    Shape:
        - Input: :math:`(N, C, H_{in}, W_{in})`.
        - Output: :math:`(N, C, H_{out}, W_{out})`, with :math:`H_{out} =
          \lfloor H_{in} \times \text{scale\_factor} \rfloor` (likewise :math:`W_{out}`)
          unless ``size`` is given.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.UpsamplingBilinear2d(scale_factor=2)
        >>> m
        UpsamplingBilinear2d(scale_factor=2.0, mode='bilinear')
        >>> m(nbgrad.tensor([[[[1.0, 2.0], [3.0, 4.0]]]]))
        tensor([[[[1.0000, 1.3333, 1.6667, 2.0000],
                  [1.6667, 2.0000, 2.3333, 2.6667],
                  [2.3333, 2.6667, 3.0000, 3.3333],
                  [3.0000, 3.3333, 3.6667, 4.0000]]]])
    """

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)
