"""Margin, embedding and count losses, each PyTorch's formula composed of ops with rows
(so on every device, differentiable twice): ``margin_ranking_loss``,
``hinge_embedding_loss``, ``soft_margin_loss``, ``cosine_embedding_loss``,
``triplet_margin_loss``, ``triplet_margin_with_distance_loss``,
``multilabel_soft_margin_loss``, ``multilabel_margin_loss``, ``poisson_nll_loss``."""

import math

from ..amp.policy import autocast_op
from ._core import check_tensor
from .activation import logsigmoid
from .elementwise import clamp_min, exp, log, log1p, minimum, sqrt
from .loss import _legacy, _reduce
from .norm import pairwise_distance
from .reduce import sum as _sum
from .selection import where


def _checked(name, *ts):
    for t in ts:
        check_tensor(t, name)


@autocast_op("margin_ranking_loss")
def margin_ranking_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None,
                        reduction="mean"):
    """``max(0, -target * (input1 - input2) + margin)``, reduced.

    Example::

        >>> import nbgrad
        >>> F = nbgrad.nn.functional
        >>> F.margin_ranking_loss(nbgrad.tensor([1.0, 2.0]), nbgrad.tensor([2.0, 1.0]),
        ...                       nbgrad.tensor([1.0, 1.0]))
        tensor(0.5000)
    """
    _checked("margin_ranking_loss", input1, input2, target)
    loss = clamp_min(-target * (input1 - input2) + margin, 0)
    return _reduce(loss, _legacy(size_average, reduce, reduction))


@autocast_op("hinge_embedding_loss")
def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction="mean"):
    """``input`` where ``target`` is 1, ``max(0, margin - input)`` where it is -1, reduced."""
    _checked("hinge_embedding_loss", input, target)
    zero = input * 0
    loss = (where(target != 1, clamp_min(margin - input, 0), zero)
            + where(target != -1, input, zero))
    return _reduce(loss, _legacy(size_average, reduce, reduction))


@autocast_op("soft_margin_loss")
def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """``log(1 + exp(-target * input))``, reduced."""
    _checked("soft_margin_loss", input, target)
    return _reduce(log1p(exp(-target * input)), _legacy(size_average, reduce, reduction))


@autocast_op("cosine_embedding_loss")
def cosine_embedding_loss(input1, input2, target, margin=0.0, size_average=None,
                          reduce=None, reduction="mean"):
    """``1 - cos(input1, input2)`` where ``target`` is 1, ``max(0, cos - margin)`` where it
    is -1 (the cosine along the last dim, each squared norm plus 1e-12), reduced."""
    _checked("cosine_embedding_loss", input1, input2, target)
    d = input1.ndim - 1
    if input1.ndim not in (1, 2) or input1.shape != input2.shape:
        raise RuntimeError(f"cosine_embedding_loss: 1D or 2D inputs of the same shape "
                           f"expected, got {list(input1.shape)} and {list(input2.shape)}")
    prod = _sum(input1 * input2, d)
    denom = sqrt((_sum(input1 * input1, d) + 1e-12) * (_sum(input2 * input2, d) + 1e-12))
    cos = prod / denom
    zero = cos * 0
    loss = where(target == 1, 1 - cos, zero) + where(target == -1, clamp_min(cos - margin, 0),
                                                     zero)
    return _reduce(loss, _legacy(size_average, reduce, reduction))


@autocast_op("triplet_margin_loss")
def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    """``max(0, margin + d(anchor, positive) - d(anchor, negative))`` with ``d`` the
    ``p``-norm ``pairwise_distance`` (``swap``: the smaller of d(anchor, negative) and
    d(positive, negative)), reduced."""
    _checked("triplet_margin_loss", anchor, positive, negative)
    if not anchor.ndim == positive.ndim == negative.ndim:
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have "
                           f"the same number of dimensions, but got: anchor {anchor.ndim}D, "
                           f"positive {positive.ndim}D, and negative {negative.ndim}D inputs")
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    loss = clamp_min(margin + d_pos - d_neg, 0)
    return _reduce(loss, _legacy(size_average, reduce, reduction))


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction="mean"):
    """The binary cross-entropy of each class's logit, averaged over the classes (last
    dim), then reduced over the batch."""
    _checked("multilabel_soft_margin_loss", input, target)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    loss = _sum(loss, input.ndim - 1) / input.shape[-1]
    return _reduce(loss, _legacy(size_average, reduce, reduction))


@autocast_op("poisson_nll_loss")
def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction="mean"):
    """The Poisson negative log-likelihood: ``exp(input) - target * input`` (``log_input``)
    or ``input - target * log(input + eps)``; ``full`` adds Stirling's term where
    ``target > 1``."""
    _checked("poisson_nll_loss", input, target)
    if log_input:
        loss = exp(input) - target * input
    else:
        loss = input - target * log(input + eps)
    if full:
        stirling = target * log(target) - target + 0.5 * log(2 * math.pi * target)
        loss = loss + stirling.masked_fill(target <= 1, 0.0)
    return _reduce(loss, _legacy(size_average, reduce, reduction))


@autocast_op("multi_margin_loss")
def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
                      reduce=None, reduction="mean"):
    """The multi-class hinge loss: for each sample, the mean over classes ``i != y`` of
    ``max(0, margin - input[y] + input[i]) ** p`` (times ``weight[y]``)."""
    from ..creation import arange
    from .elementwise import ne
    from .index import gather
    from .shape import reshape, unsqueeze

    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    reduction = _legacy(size_average, reduce, reduction)
    x = input if input.ndim == 2 else reshape(input, (1, -1))
    y = reshape(target, (-1, 1))
    if x.shape[0] != y.shape[0] or input.ndim > 2:
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: "
                           f"{list(input.shape)}")
    z = clamp_min(margin - gather(x, 1, y) + x, 0)
    if p == 2:
        z = z * z
    if weight is not None:
        z = z * unsqueeze(weight[reshape(y, (-1,))], 1)
    classes = unsqueeze(arange(x.shape[1], device=x.device), 0)
    z = where(ne(classes, y), z, 0.0)
    loss = z.sum(1) / x.shape[1]
    if input.ndim < 2 and reduction == "none":
        loss = reshape(loss, ())
    return _reduce(loss, reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):
    """``triplet_margin_loss`` with any ``distance_function`` (default
    ``pairwise_distance``).

    Example::

        >>> import nbgrad
        >>> a, p, n = nbgrad.zeros(1, 2), nbgrad.zeros(1, 2), nbgrad.ones(1, 2)
        >>> nbgrad.nn.functional.triplet_margin_with_distance_loss(a, p, n, margin=2.0)
        tensor(0.5858)
    """
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _checked("triplet_margin_with_distance_loss", anchor, positive, negative)
    if not anchor.ndim == positive.ndim == negative.ndim:
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have "
                           f"the same number of dimensions, but got: anchor {anchor.ndim}D, "
                           f"positive {positive.ndim}D, and negative {negative.ndim}D inputs")
    dist = distance_function if distance_function is not None else pairwise_distance
    d_pos, d_neg = dist(anchor, positive), dist(anchor, negative)
    if swap:
        d_neg = minimum(d_neg, dist(positive, negative))
    return _reduce(clamp_min(margin + d_pos - d_neg, 0), _legacy(None, None, reduction))


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """For each sample, ``sum_j sum_i max(0, 1 - (x[y_j] - x[i])) / C`` over its target
    classes ``y_j`` (``target``'s leading entries, up to the first -1) and the other classes
    ``i``, reduced over the batch.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([[0.1, 0.2, 0.4, 0.8]])
        >>> nbgrad.nn.functional.multilabel_margin_loss(x, nbgrad.tensor([[3, 0, -1, 1]]))
        tensor(0.8500)
    """
    import numpy as np

    from ..creation import tensor
    from .index import _host

    _checked("multilabel_margin_loss", input, target)
    if input.ndim > 2 or tuple(target.shape) != tuple(input.shape):
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: "
                           f"{list(input.shape)}")
    one = input.ndim <= 1
    x = input.reshape(1, -1) if one else input
    t = _host(target).reshape(x.shape).astype(np.int64)
    C = x.shape[1]
    valid = np.cumprod(t >= 0, axis=1).astype(bool)  # (the targets before the first -1)
    if ((t >= C) & valid).any():
        raise RuntimeError(f"target index out of bounds: {int(t[valid].max())}")
    is_target = np.zeros(x.shape, bool)
    rows = np.nonzero(valid)[0]
    is_target[rows, t[valid]] = True
    dev, dt = input.device, input.dtype
    xt = x.gather(1, tensor(np.where(valid, t, 0), device=dev))  # (N, T)
    gaps = clamp_min(1 - xt.unsqueeze(2) + x.unsqueeze(1), 0)  # (N, T, C)
    keep = valid[:, :, None] & ~is_target[:, None, :]
    loss = (gaps * tensor(keep, dtype=dt, device=dev)).sum((1, 2)) / C
    if one:
        loss = loss.reshape(())
    return _reduce(loss, _legacy(size_average, reduce, reduction))
