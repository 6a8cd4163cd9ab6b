"""Loss layers: MSELoss, CrossEntropyLoss."""

import warnings

from ...ops.loss import _legacy
from .module import Module

__all__ = ["MSELoss", "CrossEntropyLoss"]


def _legacy_reduction(size_average, reduce, reduction):
    """The functional form's reading of the legacy arguments, with PyTorch's warning."""
    if size_average is None and reduce is None:
        return reduction
    warnings.warn(
        "size_average and reduce args will be deprecated, please use reduction='mean' instead.",
        stacklevel=3,
    )
    return _legacy(size_average, reduce, reduction)


class MSELoss(Module):
    """Mean squared error (``reduction='mean' | 'sum' | 'none'``)."""

    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        self.reduction = _legacy_reduction(size_average, reduce, reduction)

    def forward(self, input, target):
        from .. import functional as F

        return F.mse_loss(input, target, reduction=self.reduction)


class CrossEntropyLoss(Module):
    """Cross-entropy of logits against class indices or probabilities.

    ``weight`` is registered as a buffer (in ``state_dict`` when given), as in PyTorch.
    """

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean", label_smoothing=0.0):
        super().__init__()
        self.reduction = _legacy_reduction(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input, target):
        from .. import functional as F

        return F.cross_entropy(input, target, weight=self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, label_smoothing=self.label_smoothing)


class NLLLoss(Module):
    """Negative log-likelihood of class indices under log-probabilities (``nll_loss``);
    ``weight`` is a buffer, as in ``CrossEntropyLoss``."""

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean"):
        super().__init__()
        self.reduction = _legacy_reduction(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.ignore_index = ignore_index

    def forward(self, input, target):
        from .. import functional as F

        return F.nll_loss(input, target, weight=self.weight, ignore_index=self.ignore_index,
                          reduction=self.reduction)
