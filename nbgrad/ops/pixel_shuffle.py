"""``pixel_shuffle`` and ``pixel_unshuffle``: channels to space and back, a reshape, a
permutation and a reshape (views and a copy, differentiable through them)."""

from ._core import check_tensor


def pixel_shuffle(input, upscale_factor):
    r"""Rearrange channels into space: :math:`(*, C r^2, H, W)` to :math:`(*, C, H r, W r)`.

    Each group of :math:`r^2` channels becomes an :math:`r \times r` block of pixels (the
    sub-pixel convolution step of Shi et al., 2016).

    Args:
        input (Tensor): the input, :math:`(*, C r^2, H, W)`.
        upscale_factor (int): the factor :math:`r` of the spatial sizes.

    Shape:
        - Input: :math:`(*, C \times r^2, H, W)`, :math:`*` zero or more batch dims.
        - Output: :math:`(*, C, H \times r, W \times r)`.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> F.pixel_shuffle(nbgrad.arange(4.0).reshape(1, 4, 1, 1), 2)
        tensor([[[[0., 1.],
                  [2., 3.]]]])
        >>> F.pixel_shuffle(nbgrad.zeros(2, 18, 4, 4), 3).shape
        nbgrad.Size([2, 2, 12, 12])
    """
    check_tensor(input, "pixel_shuffle")
    r = int(upscale_factor)
    if input.ndim < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but "
                           f"got input with {input.ndim} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    *lead, c, h, w = input.shape
    if c % (r * r):
        raise RuntimeError("pixel_shuffle expects its input's 'channel' dimension to be "
                           f"divisible by the square of upscale_factor, but input.size(-3)={c}"
                           f" is not divisible by {r * r}")
    n = len(lead)
    x = input.reshape(*lead, c // (r * r), r, r, h, w)
    x = x.permute(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return x.reshape(*lead, c // (r * r), h * r, w * r)


def pixel_unshuffle(input, downscale_factor):
    r"""Rearrange space into channels: :math:`(*, C, H r, W r)` to :math:`(*, C r^2, H, W)`.

    The inverse of :func:`pixel_shuffle`: each :math:`r \times r` block of pixels becomes
    :math:`r^2` channels.

    Args:
        input (Tensor): the input, :math:`(*, C, H r, W r)`.
        downscale_factor (int): the factor :math:`r` the spatial sizes are divided by.

    Shape:
        - Input: :math:`(*, C, H \times r, W \times r)`, :math:`*` zero or more batch dims.
        - Output: :math:`(*, C \times r^2, H, W)`.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> F.pixel_unshuffle(nbgrad.arange(4.0).reshape(1, 1, 2, 2), 2)
        tensor([[[[0.]],
        <BLANKLINE>
                 [[1.]],
        <BLANKLINE>
                 [[2.]],
        <BLANKLINE>
                 [[3.]]]])
        >>> x = nbgrad.arange(16.0).reshape(1, 1, 4, 4)
        >>> nbgrad.equal(F.pixel_shuffle(F.pixel_unshuffle(x, 2), 2), x)
        True
    """
    check_tensor(input, "pixel_unshuffle")
    r = int(downscale_factor)
    if input.ndim < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but "
                           f"got input with {input.ndim} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    *lead, c, h, w = input.shape
    for name, d, size in (("height", -2, h), ("width", -1, w)):
        if size % r:
            raise RuntimeError(f"pixel_unshuffle expects {name} to be divisible by "
                               f"downscale_factor, but input.size({d})={size} is not divisible "
                               f"by {r}")
    n = len(lead)
    x = input.reshape(*lead, c, h // r, r, w // r, r)
    x = x.permute(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return x.reshape(*lead, c * r * r, h // r, w // r)


def channel_shuffle(input, groups):
    """Shuffle the channels (dim 1) of ``input`` across ``groups`` groups (ShuffleNet's shuffle).

    The :math:`C` channels are seen as a ``(groups, C / groups)`` grid and read column by
    column, so the channels of each group spread over all groups.
    ``nbgrad.native_channel_shuffle`` is the same function.

    Args:
        input (Tensor): the input, :math:`(N, C, *)` with at least one dim after :math:`C`.
        groups (int): the number of groups; it must divide :math:`C`.

    Shape:
        - Input: :math:`(N, C, *)`.
        - Output: the shape of the input.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> F.channel_shuffle(nbgrad.arange(4.0).reshape(1, 4, 1), 2)
        tensor([[[0.],
                 [2.],
                 [1.],
                 [3.]]])
        >>> F.channel_shuffle(nbgrad.arange(6.0).reshape(1, 6, 1), 3).flatten()
        tensor([0., 2., 4., 1., 3., 5.])
    """
    check_tensor(input, "channel_shuffle")
    if input.ndim < 3:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with "
                           f"sizes {list(input.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of "
                           f"groups:{groups}")
    C = input.shape[1]
    if C % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {C} channels "
                           f"and {groups} groups.")
    n, rest = input.shape[0], tuple(input.shape[2:])
    return input.reshape((n, groups, C // groups) + rest).transpose(1, 2).reshape(
        (n, C) + rest)
