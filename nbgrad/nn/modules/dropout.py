"""Dropout and its channel and alpha forms."""

from .module import Module

__all__ = ["Dropout", "Dropout2d", "Dropout1d", "Dropout3d", "AlphaDropout",
           "FeatureAlphaDropout"]


class Dropout(Module):
    """Zero each element with probability ``p`` while training, scaling the rest by 1/(1-p)."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input):
        from .. import functional as F

        return F.dropout(input, self.p, self.training)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout2d(Dropout):
    """Zero whole channels with probability ``p`` while training (``F.dropout2d``)."""

    def forward(self, input):
        from .. import functional as F

        return F.dropout2d(input, self.p, self.training)


class Dropout1d(Dropout):
    """Zero whole channels of (N, C, L) inputs with probability ``p`` (``F.dropout1d``)."""

    def forward(self, input):
        from .. import functional as F

        return F.dropout1d(input, self.p, self.training)


class Dropout3d(Dropout):
    """Zero whole channels of (N, C, D, H, W) inputs (``F.dropout3d``)."""

    def forward(self, input):
        from .. import functional as F

        return F.dropout3d(input, self.p, self.training)


class AlphaDropout(Dropout):
    """``F.alpha_dropout`` while training: dropout that keeps SELU's mean and variance."""

    def forward(self, input):
        from .. import functional as F

        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(Dropout):
    """``F.feature_alpha_dropout`` while training."""

    def forward(self, input):
        from .. import functional as F

        return F.feature_alpha_dropout(input, self.p, self.training)
