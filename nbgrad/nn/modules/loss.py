"""Loss layers: MSELoss, CrossEntropyLoss, NLLLoss, L1Loss, SmoothL1Loss, HuberLoss, BCELoss,
BCEWithLogitsLoss, KLDivLoss, the margin losses, CTCLoss."""

import inspect
import warnings

from ...ops.loss import _legacy
from .module import Module
from .utils import KEYWORD_ONLY, make_init

__all__ = ["MSELoss", "CrossEntropyLoss", "NLLLoss", "L1Loss", "SmoothL1Loss", "HuberLoss",
           "BCELoss", "BCEWithLogitsLoss", "KLDivLoss"]


def _legacy_reduction(size_average, reduce, reduction, stacklevel=3):
    """The functional form's reading of the legacy arguments, with PyTorch's warning
    (``stacklevel`` frames up: the caller of the layer's constructor)."""
    return _legacy(size_average, reduce, reduction, stacklevel + 1)


class MSELoss(Module):
    r"""Measure the mean squared error between the input and the target, element-wise.

    The unreduced loss of each element is :math:`\ell_n = (x_n - y_n)^2`; ``reduction``
    then keeps these (``'none'``), averages them (``'mean'``) or sums them (``'sum'``).

    Args:
        size_average (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduce (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduction (str, optional): ``'none'`` (the loss of each element), ``'mean'`` (their
            mean) or ``'sum'`` (their sum); a ``size_average`` or ``reduce`` given
            overrides it, with a deprecation warning. Default: ``'mean'``.

    Shape:
        - Input: :math:`(*)`, any number of dimensions.
        - Target: :math:`(*)`, the shape of the input.
        - Output: a scalar; with ``reduction='none'``, :math:`(*)`, the shape of the input.

    Example::

        >>> import nbgrad
        >>> loss = nbgrad.nn.MSELoss()
        >>> input = nbgrad.tensor([[0.5, 1.0], [2.0, -1.0]], requires_grad=True)
        >>> target = nbgrad.tensor([[1.0, 1.0], [0.0, 0.0]])
        >>> output = loss(input, target)
        >>> output
        tensor(1.3125, grad_fn=<MseLossBackward0>)
        >>> output.backward()
        >>> input.grad
        tensor([[-0.2500,  0.0000],
                [ 1.0000, -0.5000]])
        >>> nbgrad.nn.MSELoss(reduction='none')(input, target)
        tensor([[0.2500, 0.0000],
                [4.0000, 1.0000]], grad_fn=<MseLossBackward0>)
    """

    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        self.reduction = _legacy_reduction(size_average, reduce, reduction)

    def forward(self, input, target):
        from .. import functional as F

        return F.mse_loss(input, target, reduction=self.reduction)


class CrossEntropyLoss(Module):
    r"""Compute the cross-entropy loss between logits and class targets.

    It is ``LogSoftmax`` over the class dimension followed by ``NLLLoss``, in one step. With
    :math:`C` classes, :math:`x_n` the logits of sample :math:`n` and
    :math:`p_n = \text{softmax}(x_n)`, the unreduced loss of a class-index target
    :math:`y_n` is :math:`\ell_n = -w_{y_n} \log p_{n, y_n}`, and that of a
    class-probability target :math:`\ell_n = -\sum_c w_c \, y_{n, c} \log p_{n, c}`. With
    ``reduction='mean'``, class-index losses are divided by the sum of the weights
    :math:`w_{y_n}` of the targets not ignored, class-probability losses by their number
    (the samples, times the positions of a map).

    Args:
        weight (Tensor, optional): a rescaling weight for each class, of shape
            :math:`(C)`, registered as a buffer (it is in ``state_dict`` and moves with
            ``to()``). Default: ``None`` (every class weighs 1).
        size_average (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        ignore_index (int, optional): a class-index target value to ignore: it adds
            nothing to the loss nor to the input's gradient (and nothing to the divisor of
            ``'mean'``). Default: ``-100``.
        reduce (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduction (str, optional): ``'none'`` (the loss of each sample), ``'mean'`` (their
            weighted mean) or ``'sum'`` (their sum); a ``size_average`` or ``reduce`` given
            overrides it, with a deprecation warning. Default: ``'mean'``.
        label_smoothing (float, optional): the amount :math:`\varepsilon` in
            :math:`[0, 1]` of smoothing: the target becomes
            :math:`(1 - \varepsilon)\, y + \varepsilon / C`, a mix of itself and the uniform
            distribution over the classes. Default: ``0.0``.

    Shape:
        - Input: :math:`(C)`, :math:`(N, C)`, or :math:`(N, C, d_1, ..., d_K)` with
          :math:`K \geq 1` (a loss at each position of a K-dimensional map).
        - Target: class indices in :math:`[0, C)`, an integer tensor of shape :math:`()`,
          :math:`(N)` or :math:`(N, d_1, ..., d_K)`; or class probabilities, a
          floating-point tensor of the shape of the input.
        - Output: a scalar; with ``reduction='none'``, :math:`()`, :math:`(N)` or
          :math:`(N, d_1, ..., d_K)`.

    Example::

        >>> import nbgrad
        >>> loss = nbgrad.nn.CrossEntropyLoss()
        >>> logits = nbgrad.tensor([[2.0, 0.5, -1.0], [0.0, 1.0, 0.0]], requires_grad=True)
        >>> target = nbgrad.tensor([0, 1])
        >>> output = loss(logits, target)
        >>> output
        tensor(0.3964, grad_fn=<NllLossBackward0>)
        >>> output.backward()
        >>> logits.grad.shape
        nbgrad.Size([2, 3])
        >>> nbgrad.nn.CrossEntropyLoss(reduction='none', label_smoothing=0.1)(logits, target)
        tensor([0.3913, 0.6181], grad_fn=<AddBackward0>)
        >>> nbgrad.nn.CrossEntropyLoss(weight=nbgrad.tensor([1.0, 2.0, 1.0]))(logits, target)
        tensor(0.4481, grad_fn=<NllLossBackward0>)
        >>> probs = nbgrad.tensor([[1.0, 0.0, 0.0], [0.0, 0.5, 0.5]])
        >>> loss(logits, probs)
        tensor(0.6464, grad_fn=<DivBackward0>)
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
    r"""Compute the negative log-likelihood loss of class-index targets, given
    log-probabilities.

    The input holds a log-probability per class (the output of ``LogSoftmax``, say; for
    raw logits use ``CrossEntropyLoss``). The unreduced loss of sample :math:`n` with
    target class :math:`y_n` is :math:`\ell_n = -w_{y_n} x_{n, y_n}`; with
    ``reduction='mean'`` the losses are summed and divided by the sum of the weights
    :math:`w_{y_n}` of the targets not ignored.

    Args:
        weight (Tensor, optional): a rescaling weight for each class, of shape
            :math:`(C)`, registered as a buffer (it is in ``state_dict`` and moves with
            ``to()``). Default: ``None`` (every class weighs 1).
        size_average (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        ignore_index (int, optional): a target value to ignore: it adds nothing to the
            loss nor to the input's gradient (and nothing to the divisor of ``'mean'``).
            Default: ``-100``.
        reduce (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduction (str, optional): ``'none'`` (the loss of each sample), ``'mean'`` (their
            weighted mean) or ``'sum'`` (their sum); a ``size_average`` or ``reduce`` given
            overrides it, with a deprecation warning. Default: ``'mean'``.

    Shape:
        - Input: :math:`(C)`, :math:`(N, C)`, or :math:`(N, C, d_1, ..., d_K)` with
          :math:`K \geq 1`.
        - Target: class indices in :math:`[0, C)`, an integer tensor of shape :math:`()`,
          :math:`(N)` or :math:`(N, d_1, ..., d_K)`.
        - Output: a scalar; with ``reduction='none'``, the shape of the target.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.LogSoftmax(dim=1)
        >>> loss = nbgrad.nn.NLLLoss()
        >>> logits = nbgrad.tensor([[2.0, 0.5, -1.0], [0.0, 1.0, 0.0]], requires_grad=True)
        >>> target = nbgrad.tensor([0, 1])
        >>> output = loss(m(logits), target)
        >>> output
        tensor(0.3964, grad_fn=<NllLossBackward0>)
        >>> output.backward()
        >>> nbgrad.nn.NLLLoss(reduction='none')(m(logits), target)
        tensor([0.2413, 0.5514], grad_fn=<NllLossBackward0>)
        >>> _ = nbgrad.manual_seed(0)
        >>> images = nbgrad.randn(2, 3, 4, 4)
        >>> labels = nbgrad.randint(0, 3, (2, 4, 4))
        >>> nbgrad.nn.NLLLoss(reduction='none')(m(images), labels).shape
        nbgrad.Size([2, 4, 4])
    """

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
    r"""Measure the mean absolute error between the input and the target, element-wise.

    The unreduced loss of each element is :math:`\ell_n = |x_n - y_n|`; ``reduction`` then
    keeps, averages or sums these.

    Args:
        size_average (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduce (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduction (str, optional): ``'none'`` (the loss of each element), ``'mean'`` (their
            mean) or ``'sum'`` (their sum); a ``size_average`` or ``reduce`` given
            overrides it, with a deprecation warning. Default: ``'mean'``.

    Shape:
        - Input: :math:`(*)`, any number of dimensions.
        - Target: :math:`(*)`, the shape of the input.
        - Output: a scalar; with ``reduction='none'``, :math:`(*)`, the shape of the input.

    Example::

        >>> import nbgrad
        >>> loss = nbgrad.nn.L1Loss()
        >>> input = nbgrad.tensor([[0.5, 1.0], [2.0, -1.0]], requires_grad=True)
        >>> target = nbgrad.tensor([[1.0, 1.0], [0.0, 0.0]])
        >>> output = loss(input, target)
        >>> output
        tensor(0.8750, grad_fn=<MeanBackward0>)
        >>> output.backward()
        >>> input.grad
        tensor([[-0.2500,  0.0000],
                [ 0.2500, -0.2500]])
        >>> nbgrad.nn.L1Loss(reduction='none')(input, target)
        tensor([[0.5000, 0.0000],
                [2.0000, 1.0000]], grad_fn=<AbsBackward0>)
    """

    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        self.reduction = _legacy_reduction(size_average, reduce, reduction)

    def forward(self, input, target):
        from .. import functional as F

        return F.l1_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(Module):
    r"""Measure a smoothed absolute error: quadratic for small differences, linear beyond.

    The unreduced loss of each element, with :math:`d_n = |x_n - y_n|`, is
    :math:`\ell_n = 0.5\, d_n^2 / \beta` where :math:`d_n < \beta`, else
    :math:`d_n - 0.5\, \beta`. It is less sensitive to outliers than ``MSELoss``; with
    ``beta=0`` it is ``L1Loss``, and ``HuberLoss(delta)`` equals ``delta`` times it with
    ``beta=delta``.

    Args:
        size_average (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduce (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduction (str, optional): ``'none'`` (the loss of each element), ``'mean'`` (their
            mean) or ``'sum'`` (their sum); a ``size_average`` or ``reduce`` given
            overrides it, with a deprecation warning. Default: ``'mean'``.
        beta (float, optional): the difference at which the loss turns from quadratic to
            linear (not negative). Default: ``1.0``.

    Shape:
        - Input: :math:`(*)`, any number of dimensions.
        - Target: :math:`(*)`, the shape of the input.
        - Output: a scalar; with ``reduction='none'``, :math:`(*)`, the shape of the input.

    Example::

        >>> import nbgrad
        >>> loss = nbgrad.nn.SmoothL1Loss()
        >>> input = nbgrad.tensor([0.5, 1.0, 3.0, -2.0])
        >>> target = nbgrad.zeros(4)
        >>> loss(input, target)
        tensor(1.1562)
        >>> nbgrad.nn.SmoothL1Loss(reduction='none')(input, target)
        tensor([0.1250, 0.5000, 2.5000, 1.5000])
        >>> nbgrad.nn.SmoothL1Loss(reduction='none', beta=2.0)(input, target)
        tensor([0.0625, 0.2500, 2.0000, 1.0000])
    """

    def __init__(self, size_average=None, reduce=None, reduction="mean", beta=1.0):
        super().__init__()
        self.reduction = _legacy_reduction(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input, target):
        from .. import functional as F

        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(Module):
    r"""Measure the Huber loss: squared error for small differences, absolute beyond.

    The unreduced loss of each element, with :math:`d_n = |x_n - y_n|`, is
    :math:`\ell_n = 0.5\, d_n^2` where :math:`d_n < \delta`, else
    :math:`\delta (d_n - 0.5\, \delta)`: its slope is capped at :math:`\delta`. It equals
    ``delta`` times ``SmoothL1Loss(beta=delta)``.

    Args:
        reduction (str, optional): ``'none'`` (the loss of each element), ``'mean'`` (their
            mean) or ``'sum'`` (their sum). Default: ``'mean'``.
        delta (float, optional): the difference at which the loss turns from quadratic to
            linear (positive). Default: ``1.0``.

    Shape:
        - Input: :math:`(*)`, any number of dimensions.
        - Target: :math:`(*)`, the shape of the input.
        - Output: a scalar; with ``reduction='none'``, :math:`(*)`, the shape of the input.

    Example::

        >>> import nbgrad
        >>> loss = nbgrad.nn.HuberLoss()
        >>> input = nbgrad.tensor([0.5, 1.0, 3.0, -2.0])
        >>> target = nbgrad.zeros(4)
        >>> loss(input, target)
        tensor(1.1562)
        >>> nbgrad.nn.HuberLoss(reduction='none')(input, target)
        tensor([0.1250, 0.5000, 2.5000, 1.5000])
        >>> nbgrad.nn.HuberLoss(reduction='none', delta=2.0)(input, target)
        tensor([0.1250, 0.5000, 4.0000, 2.0000])
    """

    def __init__(self, reduction="mean", delta=1.0):
        super().__init__()
        self.reduction, self.delta = reduction, delta

    def forward(self, input, target):
        from .. import functional as F

        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class BCELoss(Module):
    r"""Measure the binary cross-entropy between predicted probabilities and targets.

    The unreduced loss of each element is
    :math:`\ell_n = -w_n \left[ y_n \log x_n + (1 - y_n) \log (1 - x_n) \right]`, where the
    input :math:`x_n` is a probability (the output of ``Sigmoid``, say) and the target
    :math:`y_n` lies in :math:`[0, 1]`. Each logarithm is clamped to at least -100, so
    that a probability of exactly 0 or 1 gives a finite loss. For logits,
    ``BCEWithLogitsLoss`` is more stable.

    Args:
        weight (Tensor, optional): a rescaling weight, broadcastable to the input (one per
            batch element, for instance), registered as a buffer. Default: ``None``.
        size_average (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduce (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduction (str, optional): ``'none'`` (the loss of each element), ``'mean'`` (their
            mean) or ``'sum'`` (their sum); a ``size_average`` or ``reduce`` given
            overrides it, with a deprecation warning. Default: ``'mean'``.

    Shape:
        - Input: :math:`(*)`, any number of dimensions, values in :math:`[0, 1]`.
        - Target: :math:`(*)`, the shape of the input.
        - Output: a scalar; with ``reduction='none'``, :math:`(*)`, the shape of the input.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.Sigmoid()
        >>> loss = nbgrad.nn.BCELoss()
        >>> logits = nbgrad.tensor([0.8, -1.0, 2.0], requires_grad=True)
        >>> target = nbgrad.tensor([1.0, 0.0, 0.0])
        >>> output = loss(m(logits), target)
        >>> output
        tensor(0.9371, grad_fn=<BinaryCrossEntropyBackward0>)
        >>> output.backward()
        >>> logits.grad
        tensor([-0.1033,  0.0896,  0.2936])
    """

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        self.reduction = _legacy_reduction(size_average, reduce, reduction)
        self.register_buffer("weight", weight)

    def forward(self, input, target):
        from .. import functional as F

        return F.binary_cross_entropy(input, target, weight=self.weight,
                                      reduction=self.reduction)


class BCEWithLogitsLoss(Module):
    r"""Measure the binary cross-entropy between logits and targets, with the sigmoid built
    in.

    The unreduced loss of each element is
    :math:`\ell_n = -w_n \left[ p\, y_n \log \sigma(x_n) + (1 - y_n) \log (1 - \sigma(x_n))
    \right]`, with :math:`\sigma` the logistic sigmoid and :math:`p` the ``pos_weight`` of
    the element's class. Computed in one expression (the log-sum-exp trick), it is
    numerically more stable than ``Sigmoid`` followed by ``BCELoss``.

    Args:
        weight (Tensor, optional): a rescaling weight, broadcastable to the input,
            registered as a buffer. Default: ``None``.
        size_average (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduce (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduction (str, optional): ``'none'`` (the loss of each element), ``'mean'`` (their
            mean) or ``'sum'`` (their sum); a ``size_average`` or ``reduce`` given
            overrides it, with a deprecation warning. Default: ``'mean'``.
        pos_weight (Tensor, optional): a weight for the positive targets, broadcast
            against the input along its last dimension (one per class, say the ratio of
            negative to positive examples of the class): above 1 it raises recall, below 1
            precision. Registered as a buffer. Default: ``None``.

    Shape:
        - Input: :math:`(*)`, any number of dimensions.
        - Target: :math:`(*)`, the shape of the input.
        - Output: a scalar; with ``reduction='none'``, :math:`(*)`, the shape of the input.

    Example::

        >>> import nbgrad
        >>> loss = nbgrad.nn.BCEWithLogitsLoss()
        >>> logits = nbgrad.tensor([0.8, -1.0, 2.0], requires_grad=True)
        >>> target = nbgrad.tensor([1.0, 0.0, 0.0])
        >>> output = loss(logits, target)
        >>> output
        tensor(0.9371, grad_fn=<BinaryCrossEntropyWithLogitsBackward0>)
        >>> output.backward()
        >>> logits.grad
        tensor([-0.1033,  0.0896,  0.2936])
        >>> logits = nbgrad.tensor([[0.8, -1.0], [2.0, 0.0]])
        >>> target = nbgrad.tensor([[1.0, 0.0], [0.0, 1.0]])
        >>> loss = nbgrad.nn.BCEWithLogitsLoss(pos_weight=nbgrad.tensor([3.0, 1.0]),
        ...                                    reduction='none')
        >>> loss(logits, target)
        tensor([[1.1133, 0.3133],
                [2.1269, 0.6931]])
    """

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
    r"""Measure the Kullback-Leibler divergence of a target distribution from a predicted
    one.

    The input :math:`x` holds log-probabilities (the output of ``LogSoftmax``, say) and the
    target :math:`y` probabilities, or log-probabilities with ``log_target=True``. The
    unreduced loss of each element is :math:`\ell_n = y_n (\log y_n - x_n)`, or
    :math:`e^{y_n} (y_n - x_n)` with ``log_target=True``; a target of 0 contributes 0.

    Args:
        size_average (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduce (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduction (str, optional): ``'none'`` (the loss of each element), ``'batchmean'``
            (the sum divided by the batch size, the input's first dimension: the true
            KL divergence per sample), ``'sum'``, or ``'mean'`` (the sum divided by the
            number of elements, which warns that ``'batchmean'`` is what the divergence
            needs); a ``size_average`` or ``reduce`` given overrides it, with a deprecation
            warning. Default: ``'mean'``.
        log_target (bool, optional): whether the target holds log-probabilities.
            Default: ``False``.

    Shape:
        - Input: :math:`(*)`, any number of dimensions.
        - Target: :math:`(*)`, the shape of the input.
        - Output: a scalar; with ``reduction='none'``, :math:`(*)`, the shape of the input.

    Example::

        >>> import nbgrad
        >>> loss = nbgrad.nn.KLDivLoss(reduction='batchmean')
        >>> input = nbgrad.tensor([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]]).log()
        >>> target = nbgrad.tensor([[0.3, 0.3, 0.4], [0.1, 0.2, 0.7]])
        >>> loss(input, target)
        tensor(0.0388)
        >>> nbgrad.nn.KLDivLoss(reduction='batchmean', log_target=True)(input, target.log())
        tensor(0.0388)
        >>> nbgrad.nn.KLDivLoss(reduction='none')(input, target)
        tensor([[ 0.1216,  0.0000, -0.0893],
                [ 0.0000,  0.1386, -0.0935]])
    """

    def __init__(self, size_average=None, reduce=None, reduction="mean", log_target=False):
        super().__init__()
        self.reduction = _legacy_reduction(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input, target):
        from .. import functional as F

        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


_LEGACY = (("size_average", None), ("reduce", None), ("reduction", "mean"))
_REDUCTION_ARGS = ("size_average", "reduce", "reduction")


def _margin_layer(name, fn, params, doc, defined_in=None, inputs=None):
    """A loss layer around ``F.<fn>``, whose constructor has PyTorch's signature ``params``
    (see ``make_init``): the reduction arguments become ``reduction`` (with PyTorch's
    deprecation warning for the legacy two), a ``weight`` or ``pos_weight`` a buffer (as
    PyTorch's ``_WeightedLoss`` registers it), and the others keyword arguments of ``fn``.
    ``defined_in``: the base class whose constructor PyTorch's layer inherits (its errors
    name it); ``inputs``: the names of ``forward``'s tensors (default: ``F.<fn>``'s
    parameters without a default), which it also takes by keyword."""
    options = [p for p, _ in params if p != "*" and p not in _REDUCTION_ARGS]
    if inputs is None:
        from .. import functional as F

        inputs = [p.name for p in inspect.signature(getattr(F, fn)).parameters.values()
                  if p.default is p.empty]
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    sig = inspect.Signature([inspect.Parameter(n, kind) for n in ("self", *inputs)])

    def setup(self, values):
        for key in options:
            if key in ("weight", "pos_weight"):
                self.register_buffer(key, values[key])
            else:
                setattr(self, key, values[key])
        self.reduction = _legacy_reduction(values.get("size_average"), values.get("reduce"),
                                           values["reduction"], stacklevel=4)

    def forward(self, *inputs, **named):
        from .. import functional as F

        if named:  # (forward's tensors by name, as PyTorch's layers take them)
            inputs = tuple(sig.bind(self, *inputs, **named).arguments.values())[1:]
        kw = {key: getattr(self, key) for key in options}
        return getattr(F, fn)(*inputs, reduction=self.reduction, **kw)

    forward.__signature__ = sig

    return type(name, (Module,), {"__init__": make_init(name, params, setup, defined_in),
                                  "forward": forward, "__doc__": doc, "__module__": __name__})


MarginRankingLoss = _margin_layer("MarginRankingLoss", "margin_ranking_loss",
                                  (("margin", 0.0),) + _LEGACY, r"""
    Measure how well pairs of scores are ranked, given which of each pair should be higher.

    With :math:`y_n = 1` the first input should be the larger, with :math:`y_n = -1` the
    second; the unreduced loss of each pair is
    :math:`\ell_n = \max(0, -y_n (x_{1,n} - x_{2,n}) + \text{margin})`.
    ``forward(input1, input2, target)``.

    Args:
        margin (float, optional): the margin by which the right score should win.
            Default: ``0.0``.
        size_average (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduce (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduction (str, optional): ``'none'`` (the loss of each pair), ``'mean'`` (their
            mean) or ``'sum'`` (their sum); a ``size_average`` or ``reduce`` given
            overrides it, with a deprecation warning. Default: ``'mean'``.

    Shape:
        - Input1: :math:`(N)` or :math:`()`.
        - Input2: the shape of input1.
        - Target: the shape of input1, values 1 or -1.
        - Output: a scalar; with ``reduction='none'``, the shape of input1.

    Example::

        >>> import nbgrad
        >>> loss = nbgrad.nn.MarginRankingLoss(margin=0.5)
        >>> x1 = nbgrad.tensor([1.0, 0.2, -1.0])
        >>> x2 = nbgrad.tensor([0.0, 0.5, -0.8])
        >>> y = nbgrad.tensor([1.0, 1.0, -1.0])
        >>> loss(x1, x2, y)
        tensor(0.3667)
        >>> nbgrad.nn.MarginRankingLoss(margin=0.5, reduction='none')(x1, x2, y)
        tensor([0.0000, 0.8000, 0.3000])
    """)
HingeEmbeddingLoss = _margin_layer("HingeEmbeddingLoss", "hinge_embedding_loss",
                                   (("margin", 1.0),) + _LEGACY, r"""
    Measure a hinge loss for inputs labelled similar (1) or dissimilar (-1).

    The input is typically a distance between two embeddings (such as their L1 distance).
    The unreduced loss of each element is :math:`\ell_n = x_n` where :math:`y_n = 1`, and
    :math:`\max(0, \text{margin} - x_n)` where :math:`y_n = -1`: similar pairs are pulled
    together, dissimilar ones pushed at least ``margin`` apart.
    ``forward(input, target)``.

    Args:
        margin (float, optional): the distance beyond which dissimilar pairs cost nothing.
            Default: ``1.0``.
        size_average (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduce (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduction (str, optional): ``'none'`` (the loss of each element), ``'mean'`` (their
            mean) or ``'sum'`` (their sum); a ``size_average`` or ``reduce`` given
            overrides it, with a deprecation warning. Default: ``'mean'``.

    Shape:
        - Input: :math:`(*)`, any number of dimensions.
        - Target: :math:`(*)`, the shape of the input, values 1 or -1.
        - Output: a scalar; with ``reduction='none'``, :math:`(*)`, the shape of the input.

    Example::

        >>> import nbgrad
        >>> loss = nbgrad.nn.HingeEmbeddingLoss()
        >>> x = nbgrad.tensor([0.3, 2.0, 0.4, 1.5])
        >>> y = nbgrad.tensor([1.0, 1.0, -1.0, -1.0])
        >>> loss(x, y)
        tensor(0.7250)
        >>> nbgrad.nn.HingeEmbeddingLoss(reduction='none')(x, y)
        tensor([0.3000, 2.0000, 0.6000, 0.0000])
    """)
SoftMarginLoss = _margin_layer("SoftMarginLoss", "soft_margin_loss", _LEGACY, r"""
    Measure the logistic loss of two-class classification with targets 1 or -1.

    The unreduced loss of each element is :math:`\ell_n = \log(1 + e^{-y_n x_n})`.
    ``forward(input, target)``.

    Args:
        size_average (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduce (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduction (str, optional): ``'none'`` (the loss of each element), ``'mean'`` (their
            mean) or ``'sum'`` (their sum); a ``size_average`` or ``reduce`` given
            overrides it, with a deprecation warning. Default: ``'mean'``.

    Shape:
        - Input: :math:`(*)`, any number of dimensions.
        - Target: :math:`(*)`, the shape of the input, values 1 or -1.
        - Output: a scalar; with ``reduction='none'``, :math:`(*)`, the shape of the input.

    Example::

        >>> import nbgrad
        >>> loss = nbgrad.nn.SoftMarginLoss()
        >>> x = nbgrad.tensor([2.0, -1.0, 0.0])
        >>> y = nbgrad.tensor([1.0, 1.0, -1.0])
        >>> loss(x, y)
        tensor(0.7111)
        >>> nbgrad.nn.SoftMarginLoss(reduction='none')(x, y)
        tensor([0.1269, 1.3133, 0.6931])
    """, defined_in="_Loss")
CosineEmbeddingLoss = _margin_layer("CosineEmbeddingLoss", "cosine_embedding_loss",
                                    (("margin", 0.0),) + _LEGACY, r"""
    Measure whether pairs of vectors point alike (target 1) or apart (target -1), by their
    cosine similarity.

    With :math:`c_n = \cos(x_{1,n}, x_{2,n})`, the unreduced loss of each pair is
    :math:`\ell_n = 1 - c_n` where :math:`y_n = 1`, and :math:`\max(0, c_n -
    \text{margin})` where :math:`y_n = -1`. ``forward(input1, input2, target)``.

    Args:
        margin (float, optional): in :math:`[-1, 1]`, the similarity below which
            dissimilar pairs cost nothing (0 to 0.5 is a usual choice). Default: ``0.0``.
        size_average (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduce (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduction (str, optional): ``'none'`` (the loss of each pair), ``'mean'`` (their
            mean) or ``'sum'`` (their sum); a ``size_average`` or ``reduce`` given
            overrides it, with a deprecation warning. Default: ``'mean'``.

    Shape:
        - Input1: :math:`(N, D)` or :math:`(D)`, with :math:`D` the vectors' size.
        - Input2: the shape of input1.
        - Target: :math:`(N)` or :math:`()`, values 1 or -1.
        - Output: a scalar; with ``reduction='none'``, :math:`(N)` or :math:`()`.

    Example::

        >>> import nbgrad
        >>> loss = nbgrad.nn.CosineEmbeddingLoss(margin=0.2)
        >>> x1 = nbgrad.tensor([[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
        >>> x2 = nbgrad.tensor([[1.0, 1.0], [1.0, 1.0], [0.0, -1.0]])
        >>> y = nbgrad.tensor([1.0, -1.0, -1.0])
        >>> loss(x1, x2, y)
        tensor(0.3643)
        >>> nbgrad.nn.CosineEmbeddingLoss(margin=0.2, reduction='none')(x1, x2, y)
        tensor([0.2929, 0.8000, 0.0000])
    """)
TripletMarginLoss = _margin_layer("TripletMarginLoss", "triplet_margin_loss",
                                  (("margin", 1.0), ("p", 2.0), ("eps", 1e-6), ("swap", False))
                                  + _LEGACY, r"""
    Measure the triplet loss: an anchor should be nearer its positive than its negative.

    With :math:`d(x, y) = \lVert x - y + \epsilon \rVert_p` (``PairwiseDistance``), the
    unreduced loss of each triplet is
    :math:`\ell_n = \max(0, d(a_n, p_n) - d(a_n, n_n) + \text{margin})`.
    ``forward(anchor, positive, negative)``.

    Args:
        margin (float, optional): the margin by which the negative should be farther.
            Default: ``1.0``.
        p (float, optional): the order of the norm of the distance. Default: ``2.0``.
        eps (float, optional): the small constant added to the differences.
            Default: ``1e-6``.
        swap (bool, optional): if ``True``, the distance to the negative is the smaller
            of its distances to the anchor and to the positive (the distance swap of
            "Learning shallow convolutional feature descriptors with triplet losses").
            Default: ``False``.
        size_average (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduce (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduction (str, optional): ``'none'`` (the loss of each triplet), ``'mean'`` (their
            mean) or ``'sum'`` (their sum); a ``size_average`` or ``reduce`` given
            overrides it, with a deprecation warning. Default: ``'mean'``.

    Shape:
        - Anchor, positive, negative: :math:`(N, D)` or :math:`(D)`, with :math:`D` the
          vectors' size.
        - Output: a scalar; with ``reduction='none'``, :math:`(N)` or :math:`()`.

    Example::

        >>> import nbgrad
        >>> loss = nbgrad.nn.TripletMarginLoss(margin=1.0)
        >>> anchor = nbgrad.tensor([[0.0, 0.0], [1.0, 1.0]])
        >>> positive = nbgrad.tensor([[0.0, 1.0], [1.0, 1.5]])
        >>> negative = nbgrad.tensor([[3.0, 0.0], [1.0, 2.0]])
        >>> loss(anchor, positive, negative)
        tensor(0.2500)
        >>> nbgrad.nn.TripletMarginLoss(reduction='none')(anchor, positive, negative)
        tensor([0.0000, 0.5000])
    """)
MultiLabelSoftMarginLoss = _margin_layer("MultiLabelSoftMarginLoss",
                                         "multilabel_soft_margin_loss",
                                         (("weight", None),) + _LEGACY, r"""
    Measure the one-versus-all logistic loss of multi-label classification.

    Each of the :math:`C` classes is a separate yes/no decision: with targets
    :math:`y_{n,c} \in \{0, 1\}` the unreduced loss of sample :math:`n` is
    :math:`\ell_n = -\frac{1}{C} \sum_c w_c \left[ y_{n,c} \log \sigma(x_{n,c})
    + (1 - y_{n,c}) \log \sigma(-x_{n,c}) \right]`. ``forward(input, target)``.

    Args:
        weight (Tensor, optional): a rescaling weight for each class, of shape
            :math:`(C)`; registered as a buffer (so in ``state_dict`` and moved by
            ``to()``). Default: ``None``.
        size_average (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduce (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduction (str, optional): ``'none'`` (the loss of each sample), ``'mean'`` (their
            mean) or ``'sum'`` (their sum); a ``size_average`` or ``reduce`` given
            overrides it, with a deprecation warning. Default: ``'mean'``.

    Shape:
        - Input: :math:`(N, C)` or :math:`(C)`.
        - Target: the shape of the input, values 0 or 1.
        - Output: a scalar; with ``reduction='none'``, :math:`(N)` or :math:`()`.

    Example::

        >>> import nbgrad
        >>> loss = nbgrad.nn.MultiLabelSoftMarginLoss()
        >>> x = nbgrad.tensor([[2.0, -1.0, 0.5], [0.0, 1.0, -2.0]])
        >>> y = nbgrad.tensor([[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]])
        >>> loss(x, y)
        tensor(0.3413)
        >>> nbgrad.nn.MultiLabelSoftMarginLoss(reduction='none')(x, y)
        tensor([0.3048, 0.3778])
    """, defined_in="_WeightedLoss")
PoissonNLLLoss = _margin_layer("PoissonNLLLoss", "poisson_nll_loss",
                               (("log_input", True), ("full", False), ("size_average", None),
                                ("eps", 1e-8), ("reduce", None), ("reduction", "mean")), r"""
    Measure the negative log-likelihood of targets drawn from Poisson distributions.

    The input is the rate :math:`\lambda` of each Poisson distribution (its logarithm by
    default) and the target a count. The unreduced loss of each element is
    :math:`\ell_n = e^{x_n} - y_n x_n` with ``log_input=True``, and
    :math:`x_n - y_n \log(x_n + \text{eps})` otherwise; ``full=True`` adds the Stirling
    approximation of :math:`\log(y_n!)`,
    :math:`y_n \log y_n - y_n + \frac{1}{2} \log(2 \pi y_n)`, for the targets above 1.
    ``forward(input, target)``.

    Args:
        log_input (bool, optional): whether the input is :math:`\log \lambda` rather than
            :math:`\lambda`. Default: ``True``.
        full (bool, optional): whether to add the Stirling term. Default: ``False``.
        eps (float, optional): keeps the logarithm finite at :math:`\lambda = 0` when
            ``log_input=False``. Default: ``1e-8``. (Positionally it is the third argument
            here; PyTorch's third is ``size_average``: pass it by keyword.)
        size_average (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduce (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduction (str, optional): ``'none'`` (the loss of each element), ``'mean'`` (their
            mean) or ``'sum'`` (their sum); a ``size_average`` or ``reduce`` given
            overrides it, with a deprecation warning. Default: ``'mean'``.

    Shape:
        - Input: :math:`(*)`, any number of dimensions.
        - Target: :math:`(*)`, the shape of the input.
        - Output: a scalar; with ``reduction='none'``, :math:`(*)`, the shape of the input.

    Example::

        >>> import nbgrad
        >>> loss = nbgrad.nn.PoissonNLLLoss()
        >>> log_rate = nbgrad.tensor([0.0, 1.0, 2.0])
        >>> counts = nbgrad.tensor([1.0, 3.0, 5.0])
        >>> loss(log_rate, counts)
        tensor(-0.6309)
        >>> nbgrad.nn.PoissonNLLLoss(log_input=False)(log_rate.exp(), counts)
        tensor(-0.6309)
        >>> nbgrad.nn.PoissonNLLLoss(full=True)(log_rate, counts)
        tensor(1.5474)
    """, inputs=("log_input", "target"))
__all__ += ["MarginRankingLoss", "HingeEmbeddingLoss", "SoftMarginLoss", "CosineEmbeddingLoss",
            "TripletMarginLoss", "MultiLabelSoftMarginLoss", "PoissonNLLLoss"]

GaussianNLLLoss = _margin_layer("GaussianNLLLoss", "gaussian_nll_loss",
                                (KEYWORD_ONLY, ("full", False), ("eps", 1e-6),
                                 ("reduction", "mean")), r"""
    Measure the negative log-likelihood of targets under Gaussian distributions of
    predicted means and variances.

    ``forward(input, target, var)``: the input holds the means and ``var`` the variances
    (positive). The unreduced loss of each element is
    :math:`\ell_n = \frac{1}{2} \left( \log v_n + \frac{(x_n - y_n)^2}{v_n} \right)`, with
    :math:`v_n = \max(\text{var}_n, \text{eps})`; ``full=True`` adds the constant
    :math:`\frac{1}{2} \log(2\pi)`.

    Args:
        full (bool, optional): whether to add the constant term. Default: ``False``.
        eps (float, optional): the floor of the variances, for stability.
            Default: ``1e-6``.
        reduction (str, optional): ``'none'`` (the loss of each element), ``'mean'`` (their
            mean) or ``'sum'`` (their sum). Default: ``'mean'``.

    Shape:
        - Input: :math:`(N, *)` or :math:`(*)`, any number of dimensions.
        - Target: the shape of the input.
        - Var: the shape of the input, or that shape with one dimension of size 1 or with
          the last dimension left out (one variance shared along it).
        - Output: a scalar; with ``reduction='none'``, the shape of the input.

    Example::

        >>> import nbgrad
        >>> loss = nbgrad.nn.GaussianNLLLoss()
        >>> mean = nbgrad.tensor([[0.0, 1.0], [2.0, 2.0]])
        >>> target = nbgrad.tensor([[0.5, 1.0], [1.0, 3.0]])
        >>> var = nbgrad.tensor([[1.0, 0.5], [2.0, 2.0]])
        >>> loss(mean, target, var)
        tensor(0.2429)
        >>> nbgrad.nn.GaussianNLLLoss(reduction='none')(mean, target, var)
        tensor([[ 0.1250, -0.3466],
                [ 0.5966,  0.5966]])
        >>> loss(mean, target, nbgrad.tensor([[1.0], [2.0]]))
        tensor(0.3295)
    """)
MultiMarginLoss = _margin_layer("MultiMarginLoss", "multi_margin_loss",
                                (("p", 1), ("margin", 1.0), ("weight", None)) + _LEGACY, r"""
    Measure the multi-class hinge loss: the target class's score should beat every other
    by ``margin``.

    With :math:`C` classes and target class :math:`y` of a sample with scores :math:`x`,
    the unreduced loss is :math:`\ell = \frac{1}{C} \sum_{i \neq y} w_y \max(0,
    \text{margin} - x_y + x_i)^p`. ``forward(input, target)``.

    Args:
        p (int, optional): the power, 1 or 2. Default: ``1``.
        margin (float, optional): the margin. Default: ``1.0``.
        weight (Tensor, optional): a rescaling weight for each class, of shape
            :math:`(C)`; registered as a buffer (so in ``state_dict`` and moved by
            ``to()``). Default: ``None``.
        size_average (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduce (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduction (str, optional): ``'none'`` (the loss of each sample), ``'mean'`` (their
            mean) or ``'sum'`` (their sum); a ``size_average`` or ``reduce`` given
            overrides it, with a deprecation warning. Default: ``'mean'``.

    Shape:
        - Input: :math:`(N, C)` or :math:`(C)`.
        - Target: :math:`(N)` or :math:`()`, class indices in :math:`[0, C)`.
        - Output: a scalar; with ``reduction='none'``, the shape of the target.

    Example::

        >>> import nbgrad
        >>> loss = nbgrad.nn.MultiMarginLoss()
        >>> x = nbgrad.tensor([[0.1, 0.2, 0.4, 0.8], [1.0, 0.0, 0.5, -1.0]])
        >>> y = nbgrad.tensor([3, 0])
        >>> loss(x, y)
        tensor(0.2250)
        >>> nbgrad.nn.MultiMarginLoss(reduction='none')(x, y)
        tensor([0.3250, 0.1250])
        >>> nbgrad.nn.MultiMarginLoss(p=2, margin=0.5)(x, y)
        tensor(0.0012)
    """)
__all__ += ["GaussianNLLLoss", "MultiMarginLoss"]

MultiLabelMarginLoss = _margin_layer("MultiLabelMarginLoss", "multilabel_margin_loss", _LEGACY,
                                     r"""
    Measure the multi-label hinge loss: every target class should beat every other class
    by a margin of 1.

    The target of a sample lists its classes' indices, ended by the first -1 (or by the
    end of the row). With :math:`C` classes, the unreduced loss of a sample is
    :math:`\ell = \frac{1}{C} \sum_{j} \sum_{i} \max(0, 1 - (x_{y_j} - x_i))`, :math:`j`
    running over the target classes and :math:`i` over the other classes.
    ``forward(input, target)``.

    Args:
        size_average (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduce (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduction (str, optional): ``'none'`` (the loss of each sample), ``'mean'`` (their
            mean) or ``'sum'`` (their sum); a ``size_average`` or ``reduce`` given
            overrides it, with a deprecation warning. Default: ``'mean'``.

    Shape:
        - Input: :math:`(N, C)` or :math:`(C)`.
        - Target: the shape of the input, an integer tensor of class indices padded with
          -1.
        - Output: a scalar; with ``reduction='none'``, :math:`(N)` or :math:`()`.

    Example::

        >>> import nbgrad
        >>> loss = nbgrad.nn.MultiLabelMarginLoss()
        >>> x = nbgrad.tensor([[0.1, 0.2, 0.4, 0.8]])
        >>> y = nbgrad.tensor([[3, 0, -1, 1]])
        >>> loss(x, y)
        tensor(0.8500)
    """, defined_in="_Loss")


class TripletMarginWithDistanceLoss(Module):
    r"""Measure the triplet loss under a distance function of your choice.

    With :math:`d` the distance function, the unreduced loss of each triplet is
    :math:`\ell_n = \max(0, d(a_n, p_n) - d(a_n, n_n) + \text{margin})`.
    ``forward(anchor, positive, negative)``. Its arguments are keyword-only.

    Args:
        distance_function (callable, optional): a function of two tensors that returns
            one non-negative distance per sample. Default: ``None``, which uses a
            ``PairwiseDistance()`` (the Euclidean distance), kept as a submodule.
        margin (float, optional): the margin by which the negative should be farther;
            positive (a ``ValueError`` otherwise). Default: ``1.0``.
        swap (bool, optional): if ``True``, the distance to the negative is the smaller of
            its distances to the anchor and to the positive. Default: ``False``.
        reduction (str, optional): ``'none'`` (the loss of each triplet), ``'mean'`` (their
            mean) or ``'sum'`` (their sum). Default: ``'mean'``.

    Shape:
        - Anchor, positive, negative: :math:`(N, *)`, any shape the distance function
          takes.
        - Output: a scalar; with ``reduction='none'``, :math:`(N)`.

    Example::

        >>> import nbgrad
        >>> loss = nbgrad.nn.TripletMarginWithDistanceLoss()
        >>> anchor = nbgrad.tensor([[0.0, 0.0], [1.0, 1.0]])
        >>> positive = nbgrad.tensor([[0.0, 1.0], [1.0, 1.5]])
        >>> negative = nbgrad.tensor([[3.0, 0.0], [1.0, 2.0]])
        >>> loss(anchor, positive, negative)
        tensor(0.2500)
        >>> def cosine_distance(x, y):
        ...     return 1.0 - nbgrad.nn.functional.cosine_similarity(x, y)
        >>> loss = nbgrad.nn.TripletMarginWithDistanceLoss(
        ...     distance_function=cosine_distance, margin=0.5, reduction='none')
        >>> loss(anchor + 1, positive, negative)
        tensor([0.5000, 0.4681])
    """

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
    r"""Compute the connectionist temporal classification (CTC) loss of unsegmented
    sequences.

    The loss of a sample is the negative log of the probability of its target sequence,
    summed over every alignment of the target to the input's time steps (repeats merged,
    blanks removed). ``forward(log_probs, targets, input_lengths, target_lengths)``;
    ``log_probs`` holds log-probabilities (the output of ``log_softmax`` over the classes).

    Args:
        blank (int, optional): the class index of the blank label. Default: ``0``.
        reduction (str, optional): ``'none'`` (the loss of each sample), ``'mean'`` (each
            sample's loss divided by its target length, then averaged over the batch) or
            ``'sum'`` (their sum). Default: ``'mean'``.
        zero_infinity (bool, optional): whether to set infinite losses (inputs too short
            to align with their targets) and their gradients to zero. Default: ``False``.

    Shape:
        - Log_probs: :math:`(T, N, C)` or :math:`(T, C)`: :math:`T` the input length,
          :math:`N` the batch size, :math:`C` the number of classes (blank included).
        - Targets: :math:`(N, S)`, each row padded to the longest target length
          :math:`S`, or the targets concatenated, :math:`(\sum \text{target\_lengths})`;
          no target may be the blank.
        - Input_lengths: :math:`(N)` or :math:`()`, each at most :math:`T`.
        - Target_lengths: :math:`(N)` or :math:`()`.
        - Output: a scalar; with ``reduction='none'``, :math:`(N)` or :math:`()`.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> T, N, C, S = 6, 2, 4, 3
        >>> log_probs = nbgrad.randn(T, N, C).log_softmax(2).requires_grad_()
        >>> targets = nbgrad.randint(1, C, (N, S))
        >>> input_lengths = nbgrad.full((N,), T, dtype=nbgrad.long)
        >>> target_lengths = nbgrad.tensor([3, 2])
        >>> loss = nbgrad.nn.CTCLoss()
        >>> output = loss(log_probs, targets, input_lengths, target_lengths)
        >>> output
        tensor(2.5041, grad_fn=<MeanBackward0>)
        >>> output.backward()
        >>> log_probs.grad.shape
        nbgrad.Size([6, 2, 4])
    """

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__()
        self.blank, self.reduction, self.zero_infinity = blank, reduction, zero_infinity

    def forward(self, log_probs, targets, input_lengths, target_lengths):
        from .. import functional as F

        return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank,
                          self.reduction, self.zero_infinity)


__all__ += ["CTCLoss"]


class NLLLoss2d(NLLLoss):
    r"""``NLLLoss`` under its older name, deprecated: constructing one warns (a
    ``FutureWarning``); use ``NLLLoss``, which takes the same arguments and inputs.

    Args:
        weight (Tensor, optional): a rescaling weight for each class, of shape
            :math:`(C)`, registered as a buffer. Default: ``None``.
        size_average (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        ignore_index (int, optional): a target value to ignore. Default: ``-100``.
        reduce (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduction (str, optional): ``'none'`` (the loss of each element), ``'mean'`` (their
            weighted mean) or ``'sum'`` (their sum); a ``size_average`` or ``reduce`` given
            overrides it, with a deprecation warning. Default: ``'mean'``.

    Shape:
        - Input: :math:`(N, C, H, W)`, log-probabilities (any shape ``NLLLoss`` takes).
        - Target: :math:`(N, H, W)`, class indices in :math:`[0, C)`.
        - Output: a scalar; with ``reduction='none'``, the shape of the target.

    Example::

        >>> import nbgrad
        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter('ignore', FutureWarning)
        ...     loss = nbgrad.nn.NLLLoss2d()
        >>> log_probs = nbgrad.zeros(1, 2, 2, 2).log_softmax(dim=1)
        >>> loss(log_probs, nbgrad.tensor([[[0, 1], [1, 1]]]))
        tensor(0.6931)
    """

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean"):
        warnings.warn(
            "`NLLLoss2d` has been deprecated. Please use `NLLLoss` instead as a drop-in "
            "replacement and see https://pytorch.org/docs/main/nn.html#torch.nn.NLLLoss for "
            "more details.", FutureWarning, stacklevel=2)
        super().__init__(weight, size_average, ignore_index, reduce, reduction)


__all__ += ["NLLLoss2d"]
