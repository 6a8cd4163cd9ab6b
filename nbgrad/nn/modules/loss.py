"""Loss layers: MSELoss, CrossEntropyLoss, NLLLoss, L1Loss, SmoothL1Loss, HuberLoss, BCELoss,
BCEWithLogitsLoss, KLDivLoss, the margin losses, CTCLoss."""

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


def _margin_layer(name, fn, options, doc):
    """A loss layer around ``F.<fn>``: ``options`` its keyword arguments and defaults (in
    PyTorch's constructor order, before the reduction arguments)."""

    def __init__(self, *args, size_average=None, reduce=None, reduction="mean", **kwargs):
        Module.__init__(self)
        values = dict(options)
        for (key, _), v in zip(options, args):
            values[key] = v
        for key, v in kwargs.items():
            if key not in values:
                raise TypeError(f"{name}.__init__() got an unexpected keyword argument '{key}'")
            values[key] = v
        for key, v in values.items():
            setattr(self, key, v)
        self.reduction = _legacy_reduction(size_average, reduce, reduction)

    def forward(self, *inputs):
        from .. import functional as F

        kw = {key: getattr(self, key) for key, _ in options}
        return getattr(F, fn)(*inputs, reduction=self.reduction, **kw)

    return type(name, (Module,), {"__init__": __init__, "forward": forward, "__doc__": doc,
                                  "__module__": __name__})


MarginRankingLoss = _margin_layer("MarginRankingLoss", "margin_ranking_loss",
                                  (("margin", 0.0),), "``F.margin_ranking_loss``.")
HingeEmbeddingLoss = _margin_layer("HingeEmbeddingLoss", "hinge_embedding_loss",
                                   (("margin", 1.0),), "``F.hinge_embedding_loss``.")
SoftMarginLoss = _margin_layer("SoftMarginLoss", "soft_margin_loss", (),
                               "``F.soft_margin_loss``.")
CosineEmbeddingLoss = _margin_layer("CosineEmbeddingLoss", "cosine_embedding_loss",
                                    (("margin", 0.0),), "``F.cosine_embedding_loss``.")
TripletMarginLoss = _margin_layer("TripletMarginLoss", "triplet_margin_loss",
                                  (("margin", 1.0), ("p", 2.0), ("eps", 1e-6), ("swap", False)),
                                  "``F.triplet_margin_loss``.")
MultiLabelSoftMarginLoss = _margin_layer("MultiLabelSoftMarginLoss",
                                         "multilabel_soft_margin_loss", (("weight", None),),
                                         "``F.multilabel_soft_margin_loss``.")
PoissonNLLLoss = _margin_layer("PoissonNLLLoss", "poisson_nll_loss",
                               (("log_input", True), ("full", False), ("eps", 1e-8)),
                               "``F.poisson_nll_loss``.")
__all__ += ["MarginRankingLoss", "HingeEmbeddingLoss", "SoftMarginLoss", "CosineEmbeddingLoss",
            "TripletMarginLoss", "MultiLabelSoftMarginLoss", "PoissonNLLLoss"]

GaussianNLLLoss = _margin_layer("GaussianNLLLoss", "gaussian_nll_loss",
                                (("full", False), ("eps", 1e-6)), "``F.gaussian_nll_loss``.")
MultiMarginLoss = _margin_layer("MultiMarginLoss", "multi_margin_loss",
                                (("p", 1), ("margin", 1.0), ("weight", None)),
                                "``F.multi_margin_loss``.")
__all__ += ["GaussianNLLLoss", "MultiMarginLoss"]

MultiLabelMarginLoss = _margin_layer("MultiLabelMarginLoss", "multilabel_margin_loss", (),
                                     "``F.multilabel_margin_loss``.")


class TripletMarginWithDistanceLoss(Module):
    """``F.triplet_margin_with_distance_loss``; the default distance is a
    ``PairwiseDistance`` submodule, as PyTorch's."""

    def __init__(self, *, distance_function=None, margin=1.0, swap=False, reduction="mean"):
        super().__init__()
        if margin <= 0:
            raise ValueError(f"TripletMarginWithDistanceLoss: expected margin to be greater "
                             f"than 0, got {margin} instead")
        from .distance import PairwiseDistance

        self.distance_function = (distance_function if distance_function is not None
                                  else PairwiseDistance())
        self.margin, self.swap, self.reduction = margin, swap, reduction

    def forward(self, anchor, positive, negative):
        from .. import functional as F

        return F.triplet_margin_with_distance_loss(
            anchor, positive, negative, distance_function=self.distance_function,
            margin=self.margin, swap=self.swap, reduction=self.reduction)

__all__ += ["MultiLabelMarginLoss", "TripletMarginWithDistanceLoss"]


class CTCLoss(Module):
    """The connectionist temporal classification loss (``F.ctc_loss``): ``forward(log_probs,
    targets, input_lengths, target_lengths)``."""

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__()
        self.blank, self.reduction, self.zero_infinity = blank, reduction, zero_infinity

    def forward(self, log_probs, targets, input_lengths, target_lengths):
        from .. import functional as F

        return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank,
                          self.reduction, self.zero_infinity)


__all__ += ["CTCLoss"]


class NLLLoss2d(NLLLoss):
    """``NLLLoss`` under its older name (PyTorch keeps it, deprecated, for (N, C, H, W)
    input)."""

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean"):
        warnings.warn(
            "`NLLLoss2d` has been deprecated. Please use `NLLLoss` instead as a drop-in "
            "replacement and see https://pytorch.org/docs/main/nn.html#torch.nn.NLLLoss for "
            "more details.", FutureWarning, stacklevel=2)
        super().__init__(weight, size_average, ignore_index, reduce, reduction)


__all__ += ["NLLLoss2d"]
