"""Elementwise losses, then reduced: mse_loss, binary_cross_entropy(_with_logits), one
``deffunc`` row each (``ops/funcdef.py``) with PyTorch's derivative formulas as helpers; and
l1, smooth l1, huber and kl_div, composed of table ops (their nodes are the parts')."""

import math

from .. import dtypes as _dt
from ..amp.policy import autocast_op
from ..autograd.grad_mode import no_grad
from ..storage.layout import cast_data
from ..tensor import _wrap
from ._core import Tensor, broadcast_shapes, needs_grad, no_kernel_for, same_device
from .elementwise import (
    _shape,
    abs,  # noqa: A004
    add,
    clamp,
    div,
    eq,
    exp,
    ge,
    le,
    log,
    log1p,
    logical_and,
    mul,
    neg,
    refuse_integers,
    rsub,
    sigmoid,
    sub,
    sum_to,
    where,
)
from .elementwise_data import binary_data
from .funcdef import deffunc, surface
from .loss import _REDUCTION, _legacy, _reduce
from .reduce import reduce_data


def mse_loss_backward(grad, input, target, reduction):
    """``2 * (input - target) * grad`` (over the element count for the mean), summed to
    ``input``'s shape (PyTorch's formula, for either operand with the other as target)."""
    if reduction == 1:
        n = math.prod(broadcast_shapes(tuple(input.shape), tuple(target.shape)))
        grad = div(grad, n if n else math.nan)
    return sum_to(mul(mul(sub(input, target), 2.0), grad), _shape(input))


def _mse_forward(x, t, odt, dev, reduction):
    fx, ft = _dt._FROM_NP[x.dtype], _dt._FROM_NP[t.dtype]
    d = binary_data("sub", _wrap(x, fx, dev), _wrap(t, ft, dev), odt, odt, dev)
    dd = _wrap(d, odt, dev)
    sq = binary_data("mul", dd, dd, odt, odt, dev)
    if reduction == 0:
        return sq
    out = reduce_data("sum", sq, tuple(range(sq.ndim)), False, odt, dev)
    if reduction == 1:
        out = binary_data("div", _wrap(out, odt, dev), sq.size if sq.size else math.nan, odt,
                          odt, dev)
    return out


MSE_LOSS = deffunc(
    "mse_loss", params=("input", "target"), kernels=("sub", "mul", "sum", "div"),
    forward=_mse_forward, dtype=lambda x, t, r: _dt.promote_types(x, t),
    shape=lambda sx, st, r: broadcast_shapes(tuple(sx), tuple(st)) if r == 0 else (),
    args=("reduction",), fn=False, method=False, functional=True,
    grads=("mse_loss_backward(grad, input, target, reduction)",
           "mse_loss_backward(grad, target, input, reduction)"))


@surface(MSE_LOSS)
@autocast_op("mse_loss")
def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    r"""Compute the mean squared error: :math:`\ell_n = (x_n - y_n)^2`, reduced.

    ``input`` and ``target`` should have the same shape; different shapes broadcast, with a
    warning (as in PyTorch).

    Args:
        input (Tensor): the predictions :math:`x`.
        target (Tensor): the targets :math:`y`.
        size_average (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduce (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduction (str, optional): ``"none"`` (the loss of each element), ``"mean"`` (their
            mean) or ``"sum"`` (their sum). Default: ``"mean"``.
        weight (Tensor, optional): a weight of each element's loss, of the shape of
            ``input``; the mean is then the weighted one (divided by the sum of the
            weights). Default: ``None``.

    Returns:
        Tensor: the loss; a scalar unless ``reduction="none"``.

    Shape:
        - Input: :math:`(*)`, any shape.
        - Target: :math:`(*)`, the shape of the input.
        - Output: a scalar, or with ``reduction="none"`` the shape of the input.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> F.mse_loss(nbgrad.tensor([1.0, 3.0]), nbgrad.tensor([0.0, 0.0]))
        tensor(5.)
        >>> F.mse_loss(nbgrad.tensor([1.0, 3.0]), nbgrad.tensor([0.0, 0.0]), reduction="none")
        tensor([1., 9.])
        >>> F.mse_loss(nbgrad.tensor([1.0, 3.0]), nbgrad.tensor([0.0, 0.0]),
        ...            weight=nbgrad.tensor([3.0, 1.0]))
        tensor(3.)
    """
    reduction = _legacy(size_average, reduce, reduction)
    _refuse_integers("mse_cpu", input, target)
    if weight is not None:
        return _weighted("mse_loss", input, target, weight, reduction,
                         lambda x, t: mul(sub(x, t), sub(x, t)))
    _check_operands("mse_loss", input, target, reduction)
    return MSE_LOSS.call(input, target, _REDUCTION[reduction])


def _refuse_integers(kernel, input, target):
    """PyTorch's refusal of a float-only loss whose operands promote to an integer or bool
    dtype: ``NotImplementedError`` naming its kernel and that dtype."""
    if isinstance(input, Tensor) and isinstance(target, Tensor):
        dt = _dt.result_type((input, target))
        if dt._cat < 2:
            raise no_kernel_for(kernel, dt)


def _check_cast(result, out):
    """PyTorch's error when a result of dtype ``result`` goes into ``out``'s dtype (an
    integer input: the loss's in-place steps write into its dtype)."""
    if result._cat > out._cat:
        raise RuntimeError(f"result type {result.scalar_type} can't be cast to the desired "
                           f"output type {out.scalar_type}")


def _check_operands(name, input, target, reduction):
    """PyTorch's checks of a pointwise loss's operands, and its warning when they differ
    in shape (then they broadcast)."""
    if reduction not in _REDUCTION:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if not isinstance(input, Tensor) or not isinstance(target, Tensor):
        bad = "input" if not isinstance(input, Tensor) else "target"
        raise TypeError(f"{name}(): argument '{bad}' must be Tensor, not "
                        f"{type(input if bad == 'input' else target).__name__}")
    same_device(name, input, target)
    if tuple(target.shape) != tuple(input.shape):
        import warnings

        warnings.warn(f"Using a target size ({target.shape}) that is different to the input "
                      f"size ({input.shape}). This will likely lead to incorrect results due "
                      "to broadcasting. Please ensure they have the same size.", stacklevel=3)
        broadcast_shapes(tuple(input.shape), tuple(target.shape))  # (PyTorch's error)


def _softplus_neg(x):
    # log(1 + exp(-|x|)) + max(-x, 0) == softplus(-x), finite for any x; |x| via where (not
    # abs/relu, whose kinks at 0 would give a wrong gradient and Hessian at x == 0)
    ax = where(x >= 0, x, neg(x))
    return add(log1p(exp(neg(ax))), mul(sub(ax, x), 0.5))


def _bce_logits(input, target, weight, pos_weight, reduction):
    sp = _softplus_neg(input)
    if pos_weight is not None:
        lw = add(mul(sub(pos_weight, 1), target), 1)
        loss = add(mul(rsub(target, 1), input), mul(lw, sp))
    else:
        loss = add(mul(rsub(target, 1), input), sp)
    if weight is not None:
        loss = mul(loss, weight)
    return _reduce(loss, reduction)


def _bce_grad(grad, input, weight, reduction):
    """The loss's incoming gradient per element: over the count for the mean, times the
    weight."""
    if reduction == 1:
        n = input.numel()
        grad = div(grad, n if n else math.nan)
    return mul(grad, weight) if weight is not None else grad


def binary_cross_entropy_with_logits_backward(grad, input, target, weight, pos_weight,
                                              reduction):
    """d/d input: ``lw * sigmoid(x) - pos_weight * t`` (``lw = pos_weight * t + 1 - t``;
    ``sigmoid(x) - t`` without pos_weight), times the incoming gradient."""
    g = _bce_grad(grad, input, weight, reduction)
    if pos_weight is not None:
        pt = mul(pos_weight, target)
        gx = sub(mul(add(rsub(target, 1), pt), sigmoid(input)), pt)
    else:
        gx = sub(sigmoid(input), target)
    return sum_to(mul(gx, g), _shape(input))


def binary_cross_entropy_with_logits_target_backward(grad, input, target, weight, pos_weight,
                                                     reduction):
    """d/d target: ``(pos_weight - 1) * softplus(-x) - x`` (``-x`` without pos_weight),
    times the incoming gradient."""
    g = _bce_grad(grad, input, weight, reduction)
    gt = neg(input) if pos_weight is None else sub(mul(sub(pos_weight, 1), _softplus_neg(input)),
                                                   input)
    return sum_to(mul(gt, g), _shape(target))


_NAMES = {v: k for k, v in _REDUCTION.items()}


def _bce_forward(x, t, w, pw, odt, dev, reduction):
    def tensor(a):
        return None if a is None else _wrap(a, _dt._FROM_NP[a.dtype], dev)

    with no_grad():  # the composed expression's values, no graph
        out = _bce_logits(tensor(x), tensor(t), tensor(w), tensor(pw), _NAMES[reduction])
    return cast_data(out._data, odt, dev)


def _promoted(*dtypes_reduction):
    dt = dtypes_reduction[0]
    for d in dtypes_reduction[1:-1]:
        if d is not None:
            dt = _dt.promote_types(dt, d)
    return dt


_BCE_ARGS = "grad, input, target, weight, pos_weight, reduction"
BCE_WITH_LOGITS = deffunc(
    "binary_cross_entropy_with_logits", params=("input", "target", "weight", "pos_weight"),
    optional=("weight", "pos_weight"), kernels=("sigmoid", "log1p", "exp", "where", "sum"),
    forward=_bce_forward, dtype=_promoted,
    shape=lambda sx, st, sw, sp, r: tuple(sx) if r == 0 else (), args=("reduction",),
    grads=(f"binary_cross_entropy_with_logits_backward({_BCE_ARGS})",
           f"binary_cross_entropy_with_logits_target_backward({_BCE_ARGS})", None, None),
    fn=False, method=False, functional=True)


@surface(BCE_WITH_LOGITS)
@autocast_op("binary_cross_entropy_with_logits")
def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None,
                                     reduce=None, reduction="mean", pos_weight=None):
    r"""Compute the binary cross-entropy of logits, a sigmoid and :func:`binary_cross_entropy`.

    The two steps are one formula, finite for any logit:
    :math:`\ell_n = -w_n (p \, y_n \log \sigma(x_n) + (1 - y_n) \log(1 - \sigma(x_n)))`, reduced,
    with :math:`p` the ``pos_weight`` of the element's class.

    Args:
        input (Tensor): the logits :math:`x`.
        target (Tensor): the targets :math:`y`, of the shape of ``input``, usually in
            :math:`[0, 1]`.
        weight (Tensor, optional): a rescaling weight :math:`w`, broadcast with ``input``.
            Default: ``None``.
        size_average (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduce (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduction (str, optional): ``"none"`` (the loss of each element), ``"mean"`` (their
            mean) or ``"sum"`` (their sum). Default: ``"mean"``.
        pos_weight (Tensor, optional): a weight of the positive examples, broadcast with
            ``input`` (e.g. one per class along the last dimension): above 1 raises the
            recall, below 1 the precision. Default: ``None``.

    Returns:
        Tensor: the loss; a scalar unless ``reduction="none"`` (then the input's shape).

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> x = nbgrad.tensor([[2.0, -1.0], [0.0, 3.0]], requires_grad=True)
        >>> y = nbgrad.tensor([[1.0, 0.0], [1.0, 1.0]])
        >>> loss = F.binary_cross_entropy_with_logits(x, y)
        >>> loss
        tensor(0.2955, grad_fn=<BinaryCrossEntropyWithLogitsBackward0>)
        >>> loss.backward()
        >>> x.grad
        tensor([[-0.0298,  0.0672],
                [-0.1250, -0.0119]])
        >>> F.binary_cross_entropy_with_logits(x, y, pos_weight=nbgrad.tensor([2.0, 1.0]))
        tensor(0.5005, grad_fn=<BinaryCrossEntropyWithLogitsBackward0>)
    """
    reduction = _legacy(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(
            f"Target size ({target.shape}) must be the same as input size ({input.shape})"
        )
    if reduction not in _REDUCTION:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    refuse_integers(input, "log_sigmoid_cpu")
    _check_cast(input._dtype, target._dtype)
    if needs_grad(weight, pos_weight):  # their gradients: the composed form's
        return _bce_logits(input, target, weight, pos_weight, reduction)
    same_device("binary_cross_entropy_with_logits", input, target, weight, pos_weight)
    return BCE_WITH_LOGITS.call(input, target, weight, pos_weight, _REDUCTION[reduction])


# ----- l1, smooth l1, huber, binary cross-entropy, kl divergence --------------------------
def _pointwise_loss(name, input, target, reduction, loss):
    """``loss(input, target)`` per element, reduced, after ``mse_loss``'s checks: the
    losses composed of table ops."""
    _check_operands(name, input, target, reduction)
    return _reduce(loss(input, target), reduction)


@autocast_op("l1_loss")
def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    r"""Compute the mean absolute error: :math:`\ell_n = |x_n - y_n|`, reduced.

    ``input`` and ``target`` should have the same shape; different shapes broadcast, with a
    warning (as in PyTorch).

    Args:
        input (Tensor): the predictions :math:`x`.
        target (Tensor): the targets :math:`y`.
        size_average (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduce (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduction (str, optional): ``"none"`` (the loss of each element), ``"mean"`` (their
            mean) or ``"sum"`` (their sum). Default: ``"mean"``.
        weight (Tensor, optional): a weight of each element's loss, of the shape of
            ``input``; the mean is then the weighted one (divided by the sum of the
            weights). Default: ``None``.

    Returns:
        Tensor: the loss; a scalar unless ``reduction="none"``.

    Shape:
        - Input: :math:`(*)`, any shape.
        - Target: :math:`(*)`, the shape of the input.
        - Output: a scalar, or with ``reduction="none"`` the shape of the input.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> F.l1_loss(nbgrad.tensor([1.0, -3.0]), nbgrad.tensor([0.0, 0.0]))
        tensor(2.)
        >>> F.l1_loss(nbgrad.tensor([1.0, -3.0]), nbgrad.tensor([0.0, 0.0]), reduction="sum")
        tensor(4.)
        >>> F.l1_loss(nbgrad.tensor([1.0, -3.0]), nbgrad.tensor([0.0, 0.0]),
        ...           weight=nbgrad.tensor([1.0, 3.0]))
        tensor(2.5000)
    """
    reduction = _legacy(size_average, reduce, reduction)
    if weight is not None:
        return _weighted("l1_loss", input, target, weight, reduction,
                         lambda x, t: abs(sub(x, t)))
    return _pointwise_loss("l1_loss", input, target, reduction, lambda x, t: abs(sub(x, t)))


def _weighted(name, input, target, weight, reduction, loss):
    """PyTorch's weighted form of mse_loss and l1_loss, composed of table ops:
    ``loss(input, target) * weight``, whose mean is divided by the sum of the weights."""
    _check_operands(name, input, target, "mean")  # (the reduction is checked last, below)
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")
    out = mul(loss(input, target), weight)
    if reduction == "none":
        return out
    if reduction == "sum":
        return _reduce(out, "sum")
    if reduction == "mean":
        return div(_reduce(out, "sum"), _reduce(weight, "sum"))
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', "
                     "'sum'.")


def _quadratic_near_zero(d, width, scale):
    """``0.5 d^2 / scale`` where ``|d| < width``, else ``(|d| - 0.5 width) * width / scale``:
    smooth_l1 (``scale = width = beta``) and huber (``scale = 1``, ``width = delta``)."""
    ad = abs(d)
    return where(ad < width, div(mul(mul(d, d), 0.5), scale),
                 div(mul(sub(ad, 0.5 * width), width), scale))


@autocast_op("smooth_l1_loss")
def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    r"""Compute the smooth L1 loss: quadratic for small errors, linear for large ones.

    With :math:`d = x_n - y_n`: :math:`\ell_n = 0.5 d^2 / \beta` if :math:`|d| < \beta`, else
    :math:`|d| - 0.5 \beta`; ``beta=0`` gives :func:`l1_loss`.

    Args:
        input (Tensor): the predictions :math:`x`.
        target (Tensor): the targets :math:`y`, of the shape of ``input``.
        size_average (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduce (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduction (str, optional): ``"none"`` (the loss of each element), ``"mean"`` (their
            mean) or ``"sum"`` (their sum). Default: ``"mean"``.
        beta (float, optional): the threshold :math:`\beta \ge 0` between the two parts.
            Default: ``1.0``.

    Returns:
        Tensor: the loss; a scalar unless ``reduction="none"`` (then the input's shape).

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> x, y = nbgrad.tensor([0.5, 3.0]), nbgrad.tensor([0.0, 0.0])
        >>> F.smooth_l1_loss(x, y, reduction="none")
        tensor([0.1250, 2.5000])
        >>> F.smooth_l1_loss(x, y, beta=2.0)
        tensor(1.0312)
    """
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    reduction = _legacy(size_average, reduce, reduction)
    _refuse_integers("smooth_l1_cpu", input, target)
    if beta == 0:
        return l1_loss(input, target, reduction=reduction)
    return _pointwise_loss("smooth_l1_loss", input, target, reduction,
                           lambda x, t: _quadratic_near_zero(sub(x, t), beta, beta))


@autocast_op("huber_loss")
def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    r"""Compute the Huber loss: quadratic for small errors, linear for large ones.

    With :math:`d = x_n - y_n`: :math:`\ell_n = 0.5 d^2` if :math:`|d| \le \delta`, else
    :math:`\delta (|d| - 0.5 \delta)`; it is ``delta * smooth_l1_loss(..., beta=delta)``.

    Args:
        input (Tensor): the predictions :math:`x`.
        target (Tensor): the targets :math:`y`, of the shape of ``input``.
        reduction (str, optional): ``"none"`` (the loss of each element), ``"mean"`` (their
            mean) or ``"sum"`` (their sum). Default: ``"mean"``.
        delta (float, optional): the threshold :math:`\delta > 0` between the two parts.
            Default: ``1.0``.
        weight (Tensor, optional): a weight multiplied into each element's loss before the
            reduction, broadcast with ``input``. Default: ``None``.

    Returns:
        Tensor: the loss; a scalar unless ``reduction="none"`` (then the input's shape).

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> x, y = nbgrad.tensor([0.5, 3.0]), nbgrad.tensor([0.0, 0.0])
        >>> F.huber_loss(x, y, reduction="none")
        tensor([0.1250, 2.5000])
        >>> F.huber_loss(x, y, delta=2.0)
        tensor(2.0625)
    """
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    _refuse_integers("huber_cpu", input, target)
    if isinstance(input, Tensor) and isinstance(target, Tensor):
        _check_cast(_dt.result_type((input, target)), input._dtype)

    def loss(x, t):
        out = _quadratic_near_zero(sub(x, t), delta, 1.0)
        if out._dtype is not input._dtype:  # (PyTorch writes the losses in input's dtype)
            out = out.to(input._dtype)
        return out if weight is None else mul(out, weight)

    return _pointwise_loss("huber_loss", input, target, reduction, loss)


def binary_cross_entropy_backward(grad, input, target, weight, reduction):
    """PyTorch's: ``grad * w * (x - t) / max(x (1 - x), 1e-12)`` (over the count for the
    mean), finite at x = 0 and 1 where the logs are clamped."""
    g = _bce_grad(grad, input, weight, reduction)
    denom = clamp(mul(input, rsub(input, 1)), min=1e-12)
    return mul(div(sub(input, target), denom), g)


def binary_cross_entropy_target_backward(grad, input, target, weight, reduction):
    """d/d target: ``grad * w * (log(1 - x) - log(x))``, each log clamped at -100."""
    g = _bce_grad(grad, input, weight, reduction)
    return mul(sub(clamp(log1p(neg(input)), min=-100), clamp(log(input), min=-100)), g)


def _bce_probs(x, t, w):
    loss = neg(add(mul(t, clamp(log(x), min=-100)),
                   mul(rsub(t, 1), clamp(log1p(neg(x)), min=-100))))
    return loss if w is None else mul(loss, w)


def _bce_probs_forward(x, t, w, odt, dev, reduction):
    def tensor(a):
        return None if a is None else _wrap(a, _dt._FROM_NP[a.dtype], dev)

    with no_grad():  # the composed expression's values, no graph
        out = _reduce(_bce_probs(tensor(x), tensor(t), tensor(w)), _NAMES[reduction])
    return cast_data(out._data, odt, dev)


_BCEP_ARGS = "grad, input, target, weight, reduction"
BCE = deffunc(
    "binary_cross_entropy", params=("input", "target", "weight"), optional=("weight",),
    kernels=("log", "log1p", "clamp_min", "mul", "sum"), forward=_bce_probs_forward,
    dtype=lambda x, t, w, r: _promoted(x, t, w, r),
    shape=lambda sx, st, sw, r: tuple(sx) if r == 0 else (), args=("reduction",),
    grads=(f"binary_cross_entropy_backward({_BCEP_ARGS})",
           f"binary_cross_entropy_target_backward({_BCEP_ARGS})", None),
    fn=False, method=False)


@surface(BCE)
@autocast_op("binary_cross_entropy")
def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    r"""Compute the binary cross-entropy between probabilities ``input`` and ``target``.

    :math:`\ell_n = -w_n (y_n \log x_n + (1 - y_n) \log(1 - x_n))`, reduced. As in PyTorch,
    each log is clamped at :math:`-100`, so inputs of exactly 0 or 1 give finite losses.
    For logits, use :func:`binary_cross_entropy_with_logits`, which is more stable.

    Args:
        input (Tensor): the probabilities :math:`x`, in :math:`[0, 1]`.
        target (Tensor): the targets :math:`y`, of the shape of ``input``, usually in
            :math:`[0, 1]`.
        weight (Tensor, optional): a rescaling weight :math:`w`, broadcast with ``input``.
            Default: ``None``.
        size_average (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduce (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduction (str, optional): ``"none"`` (the loss of each element), ``"mean"`` (their
            mean) or ``"sum"`` (their sum). Default: ``"mean"``.

    Returns:
        Tensor: the loss; a scalar unless ``reduction="none"`` (then the input's shape).

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> F.binary_cross_entropy(nbgrad.tensor([0.5, 1.0]), nbgrad.tensor([1.0, 1.0]))
        tensor(0.3466)
        >>> p = nbgrad.tensor([0.9, 0.2], requires_grad=True)
        >>> loss = F.binary_cross_entropy(p, nbgrad.tensor([1.0, 0.0]), reduction="sum")
        >>> loss
        tensor(0.3285, grad_fn=<BinaryCrossEntropyBackward0>)
        >>> loss.backward()
        >>> p.grad
        tensor([-1.1111,  1.2500])
    """
    reduction = _legacy(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({target.shape}) that is different to the "
                         f"input size ({input.shape}) is deprecated. Please ensure they have "
                         "the same size.")
    if reduction not in _REDUCTION:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    same_device("binary_cross_entropy", input, target, weight)
    if target._dtype is not input._dtype:
        raise RuntimeError(f"Found dtype {target._dtype.scalar_type} but expected "
                           f"{input._dtype.scalar_type}")
    _refuse_integers("binary_cross_entropy", input, target)
    with no_grad():  # (NaN is outside too, as in PyTorch)
        for name, t in (("input", input), ("target", target)):
            if not bool(logical_and(ge(t, 0), le(t, 1)).all()):
                raise RuntimeError(f"all elements of {name} should be between 0 and 1")
    if needs_grad(weight):  # its gradient: the composed form's
        return _reduce(_bce_probs(input, target, weight), reduction)
    return BCE.call(input, target, weight, _REDUCTION[reduction])


@autocast_op("kl_div")
def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    r"""Compute the Kullback-Leibler divergence of ``target`` from the distribution ``input``.

    ``input`` holds log-probabilities; ``target`` holds probabilities :math:`y`, or
    log-probabilities with ``log_target=True``. Each element gives
    :math:`\ell = y (\log y - x)` (0 where :math:`y = 0`), reduced.

    Args:
        input (Tensor): the log-probabilities :math:`x`.
        target (Tensor): the target probabilities (or log-probabilities), of the shape of
            ``input``.
        size_average (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduce (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduction (str, optional): ``"none"``, ``"mean"`` (the mean over all elements; a
            warning says it is not the divergence), ``"batchmean"`` (the sum divided by the
            batch size, the divergence's value) or ``"sum"``. Default: ``"mean"``.
        log_target (bool, optional): ``target`` holds log-probabilities; the loss is then
            :math:`\exp(y) (y - x)`. Default: ``False``.

    Returns:
        Tensor: the loss; a scalar unless ``reduction="none"`` (then the input's shape).

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> logq = nbgrad.log_softmax(nbgrad.tensor([[1.0, 2.0, 3.0]]), dim=1)
        >>> p = nbgrad.tensor([[0.2, 0.3, 0.5]])
        >>> F.kl_div(logq, p, reduction="batchmean")
        tensor(0.0780)
        >>> F.kl_div(logq, p.log(), reduction="batchmean", log_target=True)
        tensor(0.0780)
    """
    reduction = _legacy(size_average, reduce, reduction)
    if any(isinstance(t, Tensor) and t._dtype._cat < 2 for t in (input, target)):
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if reduction == "mean":
        import warnings

        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and "
                      "the support size.'batchmean' divides only by the batch size, and "
                      "aligns with the KL div math definition.'mean' will be changed to "
                      "behave the same as 'batchmean' in the next major release.",
                      stacklevel=2)
    if log_target:
        loss = mul(exp(target), sub(target, input))
    else:  # xlogy(t, t) - t x: 0 where t == 0, whatever x is there
        safe = where(eq(target, 0), 1.0, target)
        loss = sub(where(eq(target, 0), 0.0, mul(target, log(safe))), mul(target, input))
    if reduction == "batchmean":
        return div(_reduce(loss, "sum"), input.shape[0]) if input.ndim else _reduce(loss, "sum")
    return _reduce(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    r"""Compute the negative log-likelihood of ``target`` under Gaussians of means ``input``.

    The variances are ``var``: the loss is
    :math:`\ell_n = 0.5 (\log \max(\text{var}_n, \epsilon) + (x_n - y_n)^2 / \max(\text{var}_n,
    \epsilon))`, plus :math:`0.5 \log(2 \pi)` with ``full=True``, reduced. The clamp to
    ``eps`` does not stop the gradient of ``var``, as in PyTorch.

    Args:
        input (Tensor): the expected values :math:`x`.
        target (Tensor): the samples :math:`y`, of the shape of ``input``.
        var (Tensor or float): the variances, positive: of the shape of ``input``, or
            shared along one dimension (``input``'s shape without its last dimension, or
            with one dimension of size 1); a float is one variance for every element.
        full (bool, optional): add the constant :math:`0.5 \log(2 \pi)`. Default: ``False``.
        eps (float, optional): the lower clamp of ``var``, for stability. Default: ``1e-6``.
        reduction (str, optional): ``"none"`` (the loss of each element), ``"mean"`` (their
            mean) or ``"sum"`` (their sum). Default: ``"mean"``.

    Returns:
        Tensor: the loss; a scalar unless ``reduction="none"`` (then the input's shape).

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> mu, y = nbgrad.tensor([[0.0, 1.0]]), nbgrad.tensor([[1.0, 1.0]])
        >>> F.gaussian_nll_loss(mu, y, nbgrad.tensor([[1.0, 2.0]]))
        tensor(0.4233)
        >>> F.gaussian_nll_loss(mu, y, nbgrad.tensor([0.5]), full=True)
        tensor(1.0724)
        >>> F.gaussian_nll_loss(mu, y, 1.0)
        tensor(0.2500)
    """
    import math

    from ..autograd.grad_mode import no_grad

    if isinstance(var, float):  # (PyTorch's test: a Python float, one variance for all)
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = input.new_full(tuple(input.shape), var)
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        # else one variance shared along one dimension: var's size there is 1
        elif not (var.ndim == input.ndim
                  and sum(v for i, v in zip(input.shape, var.shape) if i != v) == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return loss.mean() if reduction == "mean" else loss.sum() if reduction == "sum" else loss
