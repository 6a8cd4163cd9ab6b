"""ChannelShuffle."""

from .module import Module

__all__ = ["ChannelShuffle"]


class ChannelShuffle(Module):
    """The channels regrouped across ``groups`` groups (``F.channel_shuffle``)."""

    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        from .. import functional as F

        return F.channel_shuffle(input, self.groups)

    def extra_repr(self):
        return f"groups={self.groups}"
