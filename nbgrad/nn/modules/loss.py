"""Loss layers: MSELoss, CrossEntropyLoss, NLLLoss, L1Loss, SmoothL1Loss, HuberLoss, BCELoss,
BCEWithLogitsLoss, KLDivLoss."""

import warnings

from ...ops.loss import _legacy
from .module import Module

__all__ = ["MSELoss", "CrossEntropyLoss", "NLLLoss", "L1Loss", "SmoothL1Loss", "HuberLoss",
           "BCELoss", "BCEWithLogitsLoss", "KLDivLoss"]


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


class L1Loss(Module):
    """Mean absolute error (``F.l1_loss``)."""

    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        self.reduction = _legacy_reduction(size_average, reduce, reduction)

    def forward(self, input, target):
        from .. import functional as F

        return F.l1_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(Module):
    """Quadratic below ``beta``, absolute above it (``F.smooth_l1_loss``)."""

    def __init__(self, size_average=None, reduce=None, reduction="mean", beta=1.0):
        super().__init__()
        self.reduction = _legacy_reduction(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input, target):
        from .. import functional as F

        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(Module):
    """Quadratic up to ``delta``, linear beyond it (``F.huber_loss``)."""

    def __init__(self, reduction="mean", delta=1.0):
        super().__init__()
        self.reduction, self.delta = reduction, delta

    def forward(self, input, target):
        from .. import functional as F

        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class BCELoss(Module):
    """Binary cross-entropy of probabilities (``F.binary_cross_entropy``); ``weight`` is a
    buffer."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        self.reduction = _legacy_reduction(size_average, reduce, reduction)
        self.register_buffer("weight", weight)

    def forward(self, input, target):
        from .. import functional as F

        return F.binary_cross_entropy(input, target, weight=self.weight,
                                      reduction=self.reduction)


class BCEWithLogitsLoss(Module):
    """Sigmoid and binary cross-entropy in one stable expression
    (``F.binary_cross_entropy_with_logits``); ``weight`` and ``pos_weight`` are buffers."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean",
                 pos_weight=None):
        super().__init__()
        self.reduction = _legacy_reduction(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input, target):
        from .. import functional as F

        return F.binary_cross_entropy_with_logits(input, target, self.weight,
                                                  reduction=self.reduction,
                                                  pos_weight=self.pos_weight)


class KLDivLoss(Module):
    """Kullback-Leibler divergence of ``target`` from log-probabilities (``F.kl_div``)."""

    def __init__(self, size_average=None, reduce=None, reduction="mean", log_target=False):
        super().__init__()
        self.reduction = _legacy_reduction(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input, target):
        from .. import functional as F

        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)
