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


def _variant(name, fn, doc):
    """A ``Dropout`` whose forward is ``F.<fn>(input, p, training)``."""
    def forward(self, input):
        from .. import functional as F

        return getattr(F, fn)(input, self.p, self.training)

    return type(name, (Dropout,), {"forward": forward, "__doc__": doc, "__module__": __name__})


Dropout1d = _variant("Dropout1d", "dropout1d",
                     "Zero whole channels of (N, C, L) inputs with probability ``p``.")
Dropout2d = _variant("Dropout2d", "dropout2d",
                     "Zero whole channels of (N, C, H, W) inputs with probability ``p``.")
Dropout3d = _variant("Dropout3d", "dropout3d",
                     "Zero whole channels of (N, C, D, H, W) inputs with probability ``p``.")
AlphaDropout = _variant("AlphaDropout", "alpha_dropout",
                        "Dropout that keeps SELU's mean and variance (``F.alpha_dropout``).")
FeatureAlphaDropout = _variant("FeatureAlphaDropout", "feature_alpha_dropout",
                               "``F.feature_alpha_dropout`` of whole channels.")
