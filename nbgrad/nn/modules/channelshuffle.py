"""ChannelShuffle."""

from .module import Module

__all__ = ["ChannelShuffle"]


class ChannelShuffle(Module):
    r"""Shuffle the channels across groups, as in ShuffleNet.

    The :math:`C` channels are read as ``groups`` groups of :math:`C / g` channels, and
    interleaved: the output takes the first channel of every group, then the second of
    every group, and so on (a transpose of the :math:`(g, C / g)` grid of channels). It
    lets information flow between the groups of consecutive grouped convolutions.

    Args:
        groups (int): the number :math:`g` of groups; it must divide the channels.

    Shape:
        - Input: :math:`(N, C, *)`, with :math:`C` divisible by ``groups``.
        - Output: :math:`(N, C, *)`, the shape of the input.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.ChannelShuffle(2)
        >>> m
        ChannelShuffle(groups=2)
        >>> x = nbgrad.arange(6.0).reshape(1, 6, 1, 1)
        >>> m(x).flatten()
        tensor([0., 3., 1., 4., 2., 5.])
    """

    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        from .. import functional as F

        return F.channel_shuffle(input, self.groups)

    def extra_repr(self):
        return f"groups={self.groups}"
