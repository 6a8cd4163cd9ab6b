"""Elementwise losses, then reduced: mse_loss and binary_cross_entropy_with_logits, one
``deffunc`` row each (``ops/funcdef.py``) with PyTorch's derivative formulas as helpers."""

import math

from .. import dtypes as _dt
from ..autograd.grad_mode import no_grad
from ..storage.layout import cast_data
from ..tensor import _wrap
from ._core import Tensor, broadcast_shapes, needs_grad, same_device
from .elementwise import (
    _shape,
    add,
    div,
    exp,
    log1p,
    mul,
    neg,
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
def mse_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Mean squared error: ``(input - target) ** 2``, averaged (``"mean"``), summed
    (``"sum"``) or per element (``"none"``).

    Example::

        >>> import nbgrad
        >>> nbgrad.nn.functional.mse_loss(nbgrad.tensor([1.0, 3.0]), nbgrad.tensor([0.0, 0.0]))
        tensor(5.)
    """
    reduction = _legacy(size_average, reduce, reduction)
    if reduction not in _REDUCTION:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if not isinstance(input, Tensor) or not isinstance(target, Tensor):
        bad = "input" if not isinstance(input, Tensor) else "target"
        raise TypeError(f"mse_loss(): argument '{bad}' must be Tensor, not "
                        f"{type(input if bad == 'input' else target).__name__}")
    same_device("mse_loss", input, target)
    if tuple(target.shape) != tuple(input.shape):
        import warnings

        warnings.warn(f"Using a target size ({target.shape}) that is different to the input "
                      f"size ({input.shape}). This will likely lead to incorrect results due "
                      "to broadcasting. Please ensure they have the same size.", stacklevel=2)
        broadcast_shapes(tuple(input.shape), tuple(target.shape))  # (PyTorch's error)
    return MSE_LOSS.call(input, target, _REDUCTION[reduction])


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
def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None,
                                     reduce=None, reduction="mean", pos_weight=None):
    """Sigmoid + binary cross-entropy in one stable expression. A ``weight`` or
    ``pos_weight`` that requires grad gets its gradient through the composed ops."""
    reduction = _legacy(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(
            f"Target size ({target.shape}) must be the same as input size ({input.shape})"
        )
    if reduction not in _REDUCTION:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if needs_grad(weight, pos_weight):  # their gradients: the composed form's
        return _bce_logits(input, target, weight, pos_weight, reduction)
    same_device("binary_cross_entropy_with_logits", input, target, weight, pos_weight)
    return BCE_WITH_LOGITS.call(input, target, weight, pos_weight, _REDUCTION[reduction])
