"""Margin, embedding and count losses, each PyTorch's formula composed of ops with rows
(so on every device, differentiable twice): ``margin_ranking_loss``,
``hinge_embedding_loss``, ``soft_margin_loss``, ``cosine_embedding_loss``,
``triplet_margin_loss``, ``triplet_margin_with_distance_loss``,
``multilabel_soft_margin_loss``, ``multilabel_margin_loss``, ``poisson_nll_loss``."""

import math

from ..amp.policy import autocast_op
from ._core import check_tensor
from .activation import logsigmoid
from .elementwise import clamp_min, exp, log, log1p, minimum, refuse_integers, sqrt
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
    r"""Compute the margin ranking loss of pairs of scores and the order ``target`` wants.

    :math:`\ell_n = \max(0, -y_n (x_{1, n} - x_{2, n}) + \text{margin})`, reduced: 0 once the
    right input leads by at least the margin (:math:`y = 1`: ``input1`` should be larger;
    :math:`y = -1`: ``input2``).

    Args:
        input1 (Tensor): the first scores :math:`x_1`.
        input2 (Tensor): the second scores :math:`x_2`, of the shape of ``input1``.
        target (Tensor): :math:`y`, 1 or -1 per element.
        margin (float, optional): the margin. Default: ``0.0``.
        size_average (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduce (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduction (str, optional): ``"none"`` (the loss of each element), ``"mean"`` (their
            mean) or ``"sum"`` (their sum). Default: ``"mean"``.

    Returns:
        Tensor: the loss; a scalar unless ``reduction="none"`` (then the inputs' shape).

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> x1, x2 = nbgrad.tensor([1.0, 2.0]), nbgrad.tensor([2.0, 1.0])
        >>> F.margin_ranking_loss(x1, x2, nbgrad.tensor([1.0, 1.0]))
        tensor(0.5000)
        >>> F.margin_ranking_loss(x1, x2, nbgrad.tensor([1.0, -1.0]), margin=0.5, reduction="none")
        tensor([1.5000, 1.5000])
    """
    _checked("margin_ranking_loss", input1, input2, target)
    loss = clamp_min(-target * (input1 - input2) + margin, 0)
    return _reduce(loss, _legacy(size_average, reduce, reduction))


@autocast_op("hinge_embedding_loss")
def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction="mean"):
    r"""Compute the hinge embedding loss of distances between pairs labelled similar or not.

    :math:`\ell_n = x_n` where :math:`y_n = 1` and :math:`\max(0, \text{margin} - x_n)` where
    :math:`y_n = -1`, reduced.

    Args:
        input (Tensor): the inputs :math:`x`, e.g. distances.
        target (Tensor): :math:`y`, 1 or -1 per element, of the shape of ``input``.
        margin (float, optional): the margin. Default: ``1.0``.
        size_average (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduce (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduction (str, optional): ``"none"`` (the loss of each element), ``"mean"`` (their
            mean) or ``"sum"`` (their sum). Default: ``"mean"``.

    Returns:
        Tensor: the loss; a scalar unless ``reduction="none"`` (then the input's shape).

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> d = nbgrad.tensor([0.3, 0.3, 2.0])
        >>> F.hinge_embedding_loss(d, nbgrad.tensor([1.0, -1.0, -1.0]), reduction="none")
        tensor([0.3000, 0.7000, 0.0000])
    """
    _checked("hinge_embedding_loss", input, target)
    if not input._dtype.is_floating_point:
        margin = int(margin)  # (PyTorch fills a tensor of input's dtype with the margin)
    zero = input * 0
    loss = (where(target != 1, clamp_min(margin - input, 0), zero)
            + where(target != -1, input, zero))
    return _reduce(loss, _legacy(size_average, reduce, reduction))


@autocast_op("soft_margin_loss")
def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    r"""Compute the two-class soft margin (logistic) loss of labels ``target`` of 1 or -1.

    :math:`\ell_n = \log(1 + \exp(-y_n x_n))`, reduced.

    Args:
        input (Tensor): the scores :math:`x`.
        target (Tensor): :math:`y`, 1 or -1 per element, of the shape of ``input``.
        size_average (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduce (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduction (str, optional): ``"none"`` (the loss of each element), ``"mean"`` (their
            mean) or ``"sum"`` (their sum). Default: ``"mean"``.

    Returns:
        Tensor: the loss; a scalar unless ``reduction="none"`` (then the input's shape).

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> F.soft_margin_loss(nbgrad.tensor([2.0, -1.0]), nbgrad.tensor([1.0, 1.0]))
        tensor(0.7201)
    """
    _checked("soft_margin_loss", input, target)
    if not input._dtype.is_floating_point:  # (PyTorch computes in place in input's dtype)
        raise RuntimeError(f"result type Float can't be cast to the desired output type "
                           f"{input._dtype.scalar_type}")
    z = -target * input
    if z._dtype is not input._dtype:
        z = z.to(input._dtype)
    return _reduce(log1p(exp(z)), _legacy(size_average, reduce, reduction))


@autocast_op("cosine_embedding_loss")
def cosine_embedding_loss(input1, input2, target, margin=0.0, size_average=None,
                          reduce=None, reduction="mean"):
    r"""Compute the cosine embedding loss of pairs of vectors labelled similar (1) or not (-1).

    With :math:`c_n` the cosine similarity of the pair (along the last dimension):
    :math:`\ell_n = 1 - c_n` where :math:`y_n = 1`, and :math:`\max(0, c_n - \text{margin})`
    where :math:`y_n = -1`, reduced. (Each squared norm gets :math:`10^{-12}` added, as in
    PyTorch.)

    Args:
        input1 (Tensor): the first vectors, :math:`(N, D)` or :math:`(D)`.
        input2 (Tensor): the second vectors, of the shape of ``input1``.
        target (Tensor): :math:`y`, 1 or -1 per pair: :math:`(N)` or :math:`()`.
        margin (float, optional): the margin, in :math:`[-1, 1]`; 0 to 0.5 is typical.
            Default: ``0.0``.
        size_average (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduce (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduction (str, optional): ``"none"`` (the loss of each sample), ``"mean"`` or
            ``"sum"`` (of the samples' losses). Default: ``"mean"``.

    Returns:
        Tensor: the loss; a scalar unless ``reduction="none"`` (then :math:`(N)`).

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> a = nbgrad.tensor([[1.0, 0.0], [1.0, 1.0]])
        >>> b = nbgrad.tensor([[0.0, 1.0], [1.0, 1.0]])
        >>> F.cosine_embedding_loss(a, b, nbgrad.tensor([1.0, -1.0]), reduction="none")
        tensor([1., 1.])
    """
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
    r"""Compute the triplet margin loss: anchors should be nearer their positives than negatives.

    :math:`\ell_n = \max(0, \text{margin} + d(a_n, p_n) - d(a_n, n_n))`, reduced, with
    :math:`d` the ``p``-norm distance of :func:`pairwise_distance` (along the last dimension).

    Args:
        anchor (Tensor): the anchors :math:`a`, :math:`(N, D)` or :math:`(D)`.
        positive (Tensor): the positive examples :math:`p`, of the anchor's shape.
        negative (Tensor): the negative examples :math:`n`, of the anchor's shape.
        margin (float, optional): the margin. Default: ``1.0``.
        p (float, optional): the norm's degree. Default: ``2``.
        eps (float, optional): added to the differences, as in :func:`pairwise_distance`.
            Default: ``1e-6``.
        swap (bool, optional): use the smaller of :math:`d(a, n)` and :math:`d(p, n)` as the
            negative distance (the distance swap of Balntas et al.). Default: ``False``.
        size_average (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduce (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduction (str, optional): ``"none"`` (the loss of each sample), ``"mean"`` or
            ``"sum"`` (of the samples' losses). Default: ``"mean"``.

    Returns:
        Tensor: the loss; a scalar unless ``reduction="none"`` (then :math:`(N)`).

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> a = nbgrad.zeros(2, 2)
        >>> p = nbgrad.tensor([[1.0, 0.0], [0.0, 2.0]])
        >>> n = nbgrad.tensor([[1.0, 1.0], [3.0, 0.0]])
        >>> F.triplet_margin_loss(a, p, n, reduction="none")
        tensor([0.5858, 0.0000])
        >>> F.triplet_margin_loss(a, p, n, margin=2.0, p=1)
        tensor(1.0000)
    """
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
    r"""Compute the multi-label one-versus-all loss: a binary cross-entropy on each class's logit.

    :math:`\ell_n = -\frac{1}{C} \sum_c w_c (y_{n,c} \log \sigma(x_{n,c}) + (1 - y_{n,c}) \log
    \sigma(-x_{n,c}))`, reduced over the samples.

    Args:
        input (Tensor): the logits :math:`x`, :math:`(N, C)` or :math:`(C)`.
        target (Tensor): :math:`y`, 1 or 0 for each class, of the shape of ``input``.
        weight (Tensor, optional): a weight :math:`w_c` for each class, of shape :math:`(C)`.
            Default: ``None``.
        size_average (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduce (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduction (str, optional): ``"none"`` (the loss of each sample), ``"mean"`` or
            ``"sum"`` (of the samples' losses). Default: ``"mean"``.

    Returns:
        Tensor: the loss; a scalar unless ``reduction="none"`` (then :math:`(N)`).

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> x = nbgrad.tensor([[2.0, -1.0, 0.0]])
        >>> F.multilabel_soft_margin_loss(x, nbgrad.tensor([[1.0, 0.0, 1.0]]))
        tensor(0.3778)
    """
    _checked("multilabel_soft_margin_loss", input, target)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    loss = _sum(loss, input.ndim - 1) / input.shape[-1]
    return _reduce(loss, _legacy(size_average, reduce, reduction))


@autocast_op("poisson_nll_loss")
def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction="mean"):
    r"""Compute the negative log-likelihood of counts ``target`` under Poisson distributions.

    With ``log_input=True`` the input is the log of the rate: :math:`\ell_n = \exp(x_n) - y_n
    x_n`; otherwise the rate itself: :math:`\ell_n = x_n - y_n \log(x_n + \epsilon)`. Reduced.

    Args:
        input (Tensor): the (log of the) expected counts :math:`x`.
        target (Tensor): the counts :math:`y`, of the shape of ``input``.
        log_input (bool, optional): ``input`` is the log of the rate. Default: ``True``.
        full (bool, optional): add Stirling's approximation of :math:`\log(y!)`,
            :math:`y \log y - y + 0.5 \log(2 \pi y)`, where :math:`y > 1`. Default: ``False``.
        size_average (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        eps (float, optional): :math:`\epsilon`, which keeps the log finite at a zero rate
            when ``log_input=False``. Default: ``1e-8``.
        reduce (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduction (str, optional): ``"none"`` (the loss of each element), ``"mean"`` (their
            mean) or ``"sum"`` (their sum). Default: ``"mean"``.

    Returns:
        Tensor: the loss; a scalar unless ``reduction="none"`` (then the input's shape).

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> rate, k = nbgrad.tensor([1.0, 4.0]), nbgrad.tensor([2.0, 3.0])
        >>> F.poisson_nll_loss(rate.log(), k)
        tensor(0.4206)
        >>> F.poisson_nll_loss(rate, k, log_input=False, full=True, reduction="none")
        tensor([1.6518, 1.6052])
    """
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
    r"""Compute the multi-class hinge (margin) loss of class indices ``target``.

    For a sample of scores :math:`x` and class :math:`y`:
    :math:`\ell = \frac{1}{C} \sum_{i \ne y} w_y \max(0, \text{margin} - x_y + x_i)^p`,
    then reduced over the samples.

    Args:
        input (Tensor): the scores :math:`x`, :math:`(N, C)` or :math:`(C)`.
        target (Tensor): the class indices, :math:`(N)` or :math:`()`, in :math:`[0, C)`.
        p (int, optional): the power, 1 or 2. Default: ``1``.
        margin (float, optional): the margin. Default: ``1.0``.
        weight (Tensor, optional): a weight :math:`w` for each class, of shape :math:`(C)`.
            Default: ``None``.
        size_average (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduce (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduction (str, optional): ``"none"`` (the loss of each sample), ``"mean"`` or
            ``"sum"`` (of the samples' losses). Default: ``"mean"``.

    Returns:
        Tensor: the loss; a scalar unless ``reduction="none"`` (then :math:`(N)`).

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> x = nbgrad.tensor([[0.1, 0.2, 0.4, 0.8], [1.0, 0.0, 0.0, 0.0]])
        >>> F.multi_margin_loss(x, nbgrad.tensor([3, 0]), reduction="none")
        tensor([0.3250, 0.0000])
        >>> F.multi_margin_loss(x, nbgrad.tensor([3, 0]), p=2, margin=2.0)
        tensor(1.1513)
    """
    from ..creation import arange
    from .elementwise import ne
    from .index import gather
    from .shape import reshape, unsqueeze

    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    refuse_integers(input, "multi_margin_loss_cpu_kernel")
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
        if weight._dtype is not input._dtype:
            raise RuntimeError(f"expected scalar type {input._dtype.scalar_type} but found "
                               f"{weight._dtype.scalar_type}")
        z = z * unsqueeze(weight[reshape(y, (-1,))], 1)
    classes = unsqueeze(arange(x.shape[1], device=x.device), 0)
    z = where(ne(classes, y), z, 0.0)
    loss = z.sum(1) / x.shape[1]
    if input.ndim < 2 and reduction == "none":
        loss = reshape(loss, ())
    return _reduce(loss, reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):
    r"""Compute the triplet margin loss with a distance function of your choice.

    :math:`\ell_n = \max(0, \text{margin} + d(a_n, p_n) - d(a_n, n_n))`, reduced, as
    :func:`triplet_margin_loss` but with :math:`d` = ``distance_function``.

    Args:
        anchor (Tensor): the anchors :math:`a`, :math:`(N, *)`.
        positive (Tensor): the positive examples :math:`p`, of the anchor's shape.
        negative (Tensor): the negative examples :math:`n`, of the anchor's shape.
        distance_function (callable, optional): a function of two tensors that returns their
            distances (one per sample, non-negative). Keyword only. Default: ``None``,
            :func:`pairwise_distance`.
        margin (float, optional): the margin, above 0. Keyword only. Default: ``1.0``.
        swap (bool, optional): use the smaller of :math:`d(a, n)` and :math:`d(p, n)` as the
            negative distance. Keyword only. Default: ``False``.
        reduction (str, optional): ``"none"`` (the loss of each sample), ``"mean"`` or
            ``"sum"``. Keyword only. Default: ``"mean"``.

    Returns:
        Tensor: the loss; a scalar unless ``reduction="none"`` (then :math:`(N)`).

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> a, p, n = nbgrad.zeros(1, 2), nbgrad.zeros(1, 2), nbgrad.ones(1, 2)
        >>> F.triplet_margin_with_distance_loss(a, p, n, margin=2.0)
        tensor(0.5858)
        >>> cos = lambda x, y: 1.0 - F.cosine_similarity(x, y)
        >>> a, p = nbgrad.tensor([[1.0, 0.0]]), nbgrad.tensor([[1.0, 0.1]])
        >>> n = nbgrad.tensor([[0.0, 1.0]])
        >>> F.triplet_margin_with_distance_loss(a, p, n, distance_function=cos)
        tensor(0.0050)
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
    r"""Compute the multi-label hinge (margin) loss: target classes should score 1 above others.

    For a sample of scores :math:`x` whose target classes are :math:`y_1, ..., y_T`:
    :math:`\ell = \sum_j \sum_{i \notin \{y\}} \max(0, 1 - (x_{y_j} - x_i)) / C`, then reduced
    over the samples. ``target`` holds the classes first, then -1: the classes after the first
    -1 are ignored.

    Args:
        input (Tensor): the scores :math:`x`, :math:`(N, C)` or :math:`(C)`.
        target (Tensor): the target classes (an integer tensor), of the shape of ``input``,
            padded with -1.
        size_average (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduce (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduction (str, optional): ``"none"`` (the loss of each sample), ``"mean"`` or
            ``"sum"`` (of the samples' losses). Default: ``"mean"``.

    Returns:
        Tensor: the loss; a scalar unless ``reduction="none"`` (then :math:`(N)`).

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> x = nbgrad.tensor([[0.1, 0.2, 0.4, 0.8]])
        >>> F.multilabel_margin_loss(x, nbgrad.tensor([[3, 0, -1, 1]]))
        tensor(0.8500)
    """
    import numpy as np

    from ..creation import tensor
    from .index import _host

    _checked("multilabel_margin_loss", input, target)
    if input.ndim > 2 or tuple(target.shape) != tuple(input.shape):
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: "
                           f"{list(input.shape)}")
    refuse_integers(input, "multilabel_margin_loss_forward_out_frame")
    if target._dtype.name != "int64":
        raise RuntimeError(f"expected scalar type Long but found {target._dtype.scalar_type}")
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
