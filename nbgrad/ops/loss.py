"""Losses over classes: nll_loss and its backward (rows), cross_entropy (a fused kernel for
class indices). The elementwise losses are in ``ops/elementwise_loss.py``."""

import math
import warnings

import numpy as np

from .. import dtypes as _dt
from ..amp.policy import autocast_op
from ..storage.layout import c_data, cast_data, copy_data
from ..tensor import _wrap
from ._core import (
    Tensor,
    backend,
    kernel,
    needs_grad,
    same_device,
    to_dtype_data,
)
from .elementwise import (
    add,
    div,
    eq,
    mul,
    neg,
    rsub,
    sub,
    where,
    zeros_like,  # noqa: F401  (a formula names it)
)
from .funcdef import deffunc, surface
from .index import gather
from .normalization import flat_param
from .reduce import mean as _mean
from .reduce import sum as _sum
from .shape import expand, permute, reshape, squeeze, unsqueeze
from .softmax import _float_input, _softmax_backward_data, log_softmax, softmax


def _reduce(loss, reduction):
    if reduction == "mean":
        return _mean(loss)
    if reduction == "sum":
        return _sum(loss)
    if reduction == "none":
        return loss
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _to_rows(x):
    """(N, C, d1, ...) -> (N*d1*..., C) with classes last; (C,) -> (1, C)."""
    if x.ndim == 1:
        return reshape(x, (1, -1))
    if x.ndim == 2:
        return x
    perm = (0,) + tuple(range(2, x.ndim)) + (1,)
    return reshape(permute(x, perm), (-1, x.shape[1]))


def _class_mask(target, weight, ignore_index, n_classes, dtype, device):
    """Constant (M, C) matrix: weight[t] at each row's target class, 0 for ignored rows."""
    t = to_dtype_data(target, _dt.int64, device).reshape(-1)
    be = backend(device)
    out = be.zeros((t.size, n_classes), dtype.np)
    w = (weight.to(dtype)._data if weight is not None else be.full((n_classes,), 1, dtype.np))
    wsum = np.zeros(1, np.float64)
    bad = kernel("class_mask", device)(t, w, ignore_index, n_classes, out, wsum)
    if bad is not None:
        raise IndexError(f"Target {bad} is out of bounds.")
    return _wrap(out, dtype, device), float(wsum[0])


_REDUCTION = {"none": 0, "mean": 1, "sum": 2}  # PyTorch's enum, as its nodes save it
_REDUCTION_NAME = {v: k for k, v in _REDUCTION.items()}


def _acb_data(x, dt, dev):
    """Array ``x`` (N, C, d1, ...) / (N, C) / (C,) as an ``(A, C, B)`` array of dtype
    ``dt``, a view when the layout allows."""
    shp = (1, x.shape[0], 1) if x.ndim == 1 else (x.shape[0], x.shape[1],
                                                   math.prod(x.shape[2:]))
    v = backend(dev).reshape_view(x, shp) if x.dtype == dt.np else None
    return v if v is not None else copy_data(x, dt, dev).reshape(shp)


def _int64_data(t, dev):
    """Contiguous 1-D int64 storage of index array ``t``."""
    t = c_data(t, dev, _dt.int64)
    return t.reshape((t.size,))


def _nll_forward(x, t, w, odts, dev, reduction, ignore_index):
    dt, be = odts[0], backend(dev)
    wv, has_w = flat_param(w, x.shape[1] if x.ndim > 1 else x.shape[0], dt, dev)
    tv = _int64_data(t, dev)
    loss = be.empty(tuple(t.shape), dt.np)
    sums = np.zeros(2, np.float64)
    bad = kernel("nll_loss", dev)(_acb_data(x, dt, dev), tv, wv, has_w, ignore_index,
                                  loss.reshape((tv.size,)), sums)
    if bad is not None:
        raise IndexError(f"Target {bad} is out of bounds.")
    if reduction == 0:
        return loss, be.full((), 0.0, dt.np)  # (PyTorch's total weight there: not summed)
    # the sum in float64, then one rounding to the dtype (mean: 0/0 is nan, as PyTorch)
    wsum = float(sums[1])
    v = float(sums[0]) if reduction == 2 else (float(sums[0]) / wsum if wsum else math.nan)
    return be.full((), v, dt.np), be.full((), wsum, dt.np)


def _nll_backward_forward(g, x, t, w, tw, odt, dev, reduction, ignore_index):
    be = backend(dev)
    wv, has_w = flat_param(w, x.shape[1] if x.ndim > 1 else x.shape[0], odt, dev)
    gv = cast_data(g, odt, dev)
    gv = be.reshape_view(gv, (gv.size,)) if gv.size else gv.reshape((0,))
    if gv is None:
        gv = copy_data(g, odt, dev).reshape((g.size,))
    d = float(np.asarray(be.to_host(tw))) if reduction == 1 else 1.0
    out = be.empty(tuple(x.shape), odt.np)
    if out.size:
        kernel("nll_loss_backward", dev)(gv, reduction == 0, d, _int64_data(t, dev), wv, has_w,
                                         ignore_index, _acb_data(out, odt, dev))
    return out


def _nll_shapes(sx, st, sw, reduction, ignore_index):
    return (tuple(st) if reduction == 0 else (), ())


NLL_LOSS = deffunc(
    "nll_loss", params=("input", "target", "weight"), optional=("weight",),
    kernels=("nll_loss",), forward=_nll_forward, dtype=lambda x, t, w, *args: (x, x),
    shape=_nll_shapes, args=("reduction", "ignore_index"),
    outputs=("result", "total_weight"), node="NllLossBackward0",
    grads=("nll_loss_backward(grad, input, target, weight, reduction, ignore_index, "
           "total_weight)", None, None), fn=False, method=False, functional=True)
# linear in grad_output (nll_loss itself of the incoming gradient), constant in the input
NLL_LOSS_BACKWARD = deffunc(
    "nll_loss_backward", params=("grad_output", "input", "target", "weight", "total_weight"),
    optional=("weight",), kernels=("nll_loss_backward",), forward=_nll_backward_forward,
    dtype=lambda g, x, *rest: x, shape=lambda sg, sx, *rest: tuple(sx),
    args=("reduction", "ignore_index"), node="NllLossBackwardBackward0",
    grads=("NLL_LOSS.call(grad, target, weight, reduction, ignore_index)[0]",
           "zeros_like(grad)", None, None, None), fn=False, method=False)


@surface(NLL_LOSS)
@autocast_op("nll_loss")
def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    r"""Compute the negative log-likelihood loss of class indices ``target``.

    ``input`` holds log-probabilities (e.g. from :func:`log_softmax`; :func:`cross_entropy`
    does both steps). Each sample's loss is :math:`\ell_n = -w_{y_n} x_{n, y_n}`, 0 where
    :math:`y_n` is ``ignore_index``; the mean divides by the sum of the weights of the targets
    counted, :math:`\sum_n w_{y_n}`.

    Args:
        input (Tensor): the log-probabilities; see Shape.
        target (Tensor): the class indices, in :math:`[0, C)` (an int64 tensor).
        weight (Tensor, optional): a manual rescaling weight for each class, of shape
            ``(C,)``. Default: ``None``.
        size_average (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        ignore_index (int, optional): a target value that is ignored and adds no gradient.
            Default: ``-100``.
        reduce (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduction (str, optional): ``"none"`` (the loss of each sample), ``"mean"`` (the
            weighted mean) or ``"sum"``. Default: ``"mean"``.

    Returns:
        Tensor: the loss; a scalar unless ``reduction="none"``.

    Shape:
        - Input: :math:`(C)`, :math:`(N, C)` or :math:`(N, C, d_1, ..., d_K)`.
        - Target: :math:`()`, :math:`(N)` or :math:`(N, d_1, ..., d_K)`.
        - Output: a scalar, or with ``reduction="none"`` the target's shape.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> logp = nbgrad.log_softmax(nbgrad.tensor([[2.0, 0.5, -1.0], [0.0, 1.0, 0.0]]), dim=1)
        >>> target = nbgrad.tensor([0, 1])
        >>> F.nll_loss(logp, target)
        tensor(0.3964)
        >>> F.nll_loss(logp, target, weight=nbgrad.tensor([1.0, 2.0, 1.0]), reduction="none")
        tensor([0.2413, 1.1029])
        >>> F.nll_loss(logp, nbgrad.tensor([0, -100]))
        tensor(0.2413)
    """
    reduction = _legacy(size_average, reduce, reduction)
    if not isinstance(target, Tensor):
        raise TypeError("nll_loss_nd(): argument 'target' (position 2) must be Tensor, not "
                        f"{type(target).__name__}")
    if input.ndim < 1:
        raise ValueError("Expected input to have at least 1 dimension")
    n = input.shape[0] if input.ndim > 1 else 1
    if input.ndim > 1 and target.shape[0] != n or (input.ndim == 1 and target.ndim != 0):
        raise ValueError(
            f"Expected input batch_size ({n}) to match target batch_size "
            f"({target.shape[0] if target.ndim else 1})."
        )
    if input.ndim == 2 and target.ndim != 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if input.ndim > 2 and tuple(target.shape) != (n,) + tuple(input.shape[2:]):
        want = [n] + list(input.shape[2:])
        raise RuntimeError(f"Expected target size {want}, got {list(target.shape)}")
    _check_class_targets(target)
    if reduction not in _REDUCTION:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    same_device("nll_loss", input, target, weight)
    _ce_weight(weight, input.shape[1] if input.ndim > 1 else input.shape[0])
    return NLL_LOSS.call(input, target, weight, _REDUCTION[reduction], int(ignore_index))[0]


@surface(NLL_LOSS_BACKWARD)
def nll_loss_backward(grad, input, target, weight, reduction, ignore_index, total_weight):
    """Gradient of ``nll_loss`` with respect to ``input`` given the output's ``grad``: one
    pass writing ``-weight[t] * grad / total_weight`` (mean) at each target, 0 elsewhere.
    ``reduction`` is PyTorch's enum (0 none, 1 mean, 2 sum) or its name; ``total_weight``
    a 0-d tensor or a number."""
    reduction = _REDUCTION.get(reduction, reduction)
    if not isinstance(total_weight, Tensor):
        total_weight = _wrap(backend(input._device).full((), total_weight, input._dtype.np),
                             input._dtype, input._device)
    return NLL_LOSS_BACKWARD.call(grad, input, target, weight, total_weight, reduction,
                                  ignore_index)


def _check_class_targets(target):
    """PyTorch's class-index targets: int64, or uint8."""
    if target._dtype is not _dt.int64 and target._dtype is not _dt.uint8:
        raise RuntimeError("expected target dtype to be Long or Byte, but got "
                           f"{target._dtype.scalar_type}")


def _legacy(size_average, reduce, reduction, stacklevel=3):
    """The reduction the deprecated ``size_average`` / ``reduce`` arguments mean when either
    is given (PyTorch's reading, and its warning, ``stacklevel`` frames up: the caller of
    the loss), else ``reduction``."""
    if size_average is None and reduce is None:
        return reduction
    sa = True if size_average is None else size_average
    rd = True if reduce is None else reduce
    ret = ("mean" if sa else "sum") if rd else "none"
    warnings.warn(f"size_average and reduce args will be deprecated, please use "
                  f"reduction='{ret}' instead.", UserWarning, stacklevel=stacklevel)
    return ret


@autocast_op("cross_entropy")
def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100,
                  reduce=None, reduction="mean", label_smoothing=0.0):
    r"""Compute the cross-entropy loss between logits ``input`` and ``target``.

    The loss is ``-log_softmax(input)`` along the class dimension (dimension 1, or 0 for
    an unbatched input), picked at each target class or, for targets holding class
    probabilities, summed against them. For class-index targets without label smoothing it
    runs as one fused kernel per row (the graph node is PyTorch's ``NllLossBackward0``).

    Args:
        input (Tensor): the predicted unnormalized logits; see Shape.
        target (Tensor): either class indices in :math:`[0, C)` (an integer tensor), or
            class probabilities (a floating-point tensor of the shape of ``input``).
        weight (Tensor, optional): a manual rescaling weight for each class, of shape
            ``(C,)``. Default: ``None``.
        size_average (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        ignore_index (int, optional): a target value that is ignored and does not
            contribute to the input gradient; with ``reduction="mean"`` the loss is
            averaged over the non-ignored targets only. Applies to class-index targets.
            Default: ``-100``.
        reduce (bool, optional): deprecated (see ``reduction``). Default: ``None``.
        reduction (str, optional): ``"none"`` (the loss of each sample), ``"mean"``
            (the weighted mean of the losses) or ``"sum"``. Default: ``"mean"``.
        label_smoothing (float, optional): in :math:`[0.0, 1.0]`, the amount of smoothing:
            the target becomes a mix of the original and a uniform distribution over the
            classes, as in "Rethinking the Inception Architecture for Computer Vision".
            Default: ``0.0``.

    Returns:
        Tensor: the loss; a scalar unless ``reduction="none"``.

    Shape:
        - Input: :math:`(C)`, :math:`(N, C)` or :math:`(N, C, d_1, ..., d_K)` with
          :math:`K \geq 1` (a loss per element of a K-dimensional map).
        - Target: for class indices, :math:`()`, :math:`(N)` or
          :math:`(N, d_1, ..., d_K)`; for class probabilities, the shape of the input.
        - Output: a scalar, or with ``reduction="none"`` the target's shape without the
          class dimension: :math:`()`, :math:`(N)` or :math:`(N, d_1, ..., d_K)`.

    Example::

        >>> import nbgrad.nn.functional as F
        >>> logits = nbgrad.tensor([[2.0, 0.5, -1.0], [0.0, 1.0, 0.0]], requires_grad=True)
        >>> target = nbgrad.tensor([0, 1])
        >>> loss = F.cross_entropy(logits, target)
        >>> loss
        tensor(0.3964, grad_fn=<NllLossBackward0>)
        >>> loss.backward()
        >>> logits.grad.shape
        nbgrad.Size([2, 3])
        >>> F.cross_entropy(logits, target, reduction="none")
        tensor([0.2413, 0.5514], grad_fn=<NllLossBackward0>)
        >>> probs = nbgrad.tensor([[1.0, 0.0, 0.0], [0.0, 0.5, 0.5]])
        >>> F.cross_entropy(logits, probs)
        tensor(0.6464, grad_fn=<DivBackward0>)
    """
    reduction = _legacy(size_average, reduce, reduction)
    for i, (name, v) in enumerate((("input", input), ("target", target))):
        if not isinstance(v, Tensor):
            raise TypeError(f"cross_entropy_loss(): argument '{name}' (position {i + 1}) must "
                            f"be Tensor, not {type(v).__name__}")
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    # (PyTorch's reading: a target of the input's shape holds class probabilities, any
    # other class indices)
    probs = target._meta.shape == input._meta.shape
    if probs and not target._dtype.is_floating_point:
        raise RuntimeError("Expected floating point type for target with class probabilities, "
                           f"got {target._dtype.scalar_type}")
    if probs and ignore_index != -100:
        raise RuntimeError("ignore_index is not supported for floating point target")
    if (label_smoothing <= 0 and not probs
            and (target._dtype is _dt.int64 or target._dtype is _dt.uint8)):
        return cross_entropy_loss(input, target, weight, reduction, ignore_index)
    cdim = 1 if input.ndim > 1 else 0
    C = input.shape[cdim]
    logp = log_softmax(input, cdim)
    if probs:  # class probabilities
        t = target
        if label_smoothing > 0:
            t = add(mul(t, 1 - label_smoothing), label_smoothing / C)
        prod = mul(logp, t)
        if weight is not None:
            wshape = [1] * input.ndim
            wshape[cdim] = C
            prod = mul(prod, reshape(weight, tuple(wshape)))
        loss = neg(_sum(prod, cdim))
        if reduction == "mean":
            return div(_sum(loss), input.numel() / C if C else math.nan)
        return _reduce(loss, reduction)
    nll = nll_loss(logp, target, weight, None, ignore_index, None, reduction)
    if label_smoothing <= 0:
        return nll
    rows = _to_rows(logp)
    if weight is not None:
        rows = mul(rows, reshape(weight, (1, -1)))
    smooth = neg(_sum(rows, 1))
    ignore = eq(reshape(target, (-1,)), ignore_index)
    smooth = where(ignore, 0.0, smooth)
    if reduction == "mean":
        if weight is not None:
            _, wsum = _class_mask(target, weight, ignore_index, C, input._dtype, input._device)
        else:
            wsum = float(_sum(eq(ignore, False)).item())
        ret = div(_sum(smooth), wsum if wsum else math.nan)
    elif reduction == "sum":
        ret = _sum(smooth)
    else:
        ret = reshape(smooth, tuple(target.shape))
    return add(mul(nll, 1 - label_smoothing), mul(ret, label_smoothing / C))


def _ce_weight(weight, C):
    """PyTorch's check of a class weight's shape."""
    if weight is not None and tuple(weight.shape) != (C,):
        raise RuntimeError(
            f"weight tensor should be defined either for all {C} classes or no classes but got "
            f"weight tensor of shape: {list(weight.shape)}"
        )


def _class_rows(x, odt, dev):
    """Logits array (N, C, d1, ...), (N, C) or (C,) as C-contiguous rows ``(M, C)``,
    classes last, of dtype ``odt`` (a copy only for K-dim, non-contiguous or other-dtype
    input)."""
    cdim = 1 if x.ndim > 1 else 0
    C = x.shape[cdim]
    M = math.prod(x.shape[:cdim] + x.shape[cdim + 1:])
    if x.ndim <= 2:
        return c_data(x, dev, odt).reshape(M, C)
    perm = (0,) + tuple(range(2, x.ndim)) + (1,)
    return copy_data(backend(dev).permute(x, perm), odt, dev).reshape(M, C)


def _in_layout(rows, shape, dev, copy):
    """Rows ``(M, C)`` (classes last) as an array of the logits' ``shape`` (N, C, d1, ...):
    a view, or with ``copy`` a C-contiguous copy."""
    if len(shape) <= 2:
        return rows.reshape(shape)
    nd = len(shape)
    lead = (shape[0],) + tuple(shape[2:]) + (shape[1],)
    v = backend(dev).permute(rows.reshape(lead), (0, nd - 1) + tuple(range(1, nd - 1)))
    return copy_data(v, _dt.from_numpy_dtype(rows.dtype), dev) if copy else v


def _ce_kernel(xv, t, wv, has_w, ignore_index, odt, dev, want_lp, reduction=0):
    """The fused forward kernel over logits rows ``xv``: per-row losses (``t``'s shape),
    per-row (max, log-sum-exp), the weight sum (a float), with ``want_lp`` the rows of
    log-probabilities (else None) and, for ``reduction`` 1 (mean) or 2 (sum), the reduced
    loss (0-d; else None); IndexError for a bad target."""
    be = backend(dev)
    tv = _int64_data(t, dev)
    M = tv.size
    loss = be.empty(tuple(t.shape), odt.np)
    stats = be.empty((M, 2), odt.np)
    lp = be.empty(tuple(xv.shape), odt.np) if want_lp else None
    total = be.empty((), odt.np) if reduction else None
    wsum = np.zeros(1, np.float64)
    bad = kernel("cross_entropy", dev)(xv, tv, wv, has_w, ignore_index, loss.reshape((M,)),
                                       stats, wsum, lp, reduction, total)
    if bad is not None:
        raise IndexError(f"Target {bad} is out of bounds.")
    return loss, stats, float(wsum[0]), tv, lp, total


def _ce_forward(x, t, w, odts, dev, reduction, ignore_index, keep):
    odt = odts[0]
    xv = _class_rows(x, odt, dev)
    wv, has_w = flat_param(w, xv.shape[1], odt, dev)
    # the kernel also reduces: the losses' sum, over the weight sum for a mean (0/0 is nan,
    # as PyTorch's mean over no weight)
    loss, _, wsum, _, rows, total = _ce_kernel(xv, t, wv, has_w, ignore_index, odt, dev, keep,
                                               reduction)
    # what PyTorch's cross-entropy saves is its log_softmax's output, not the logits (which
    # may then change in place before backward): the rows of log-probabilities, in x's layout
    lp = None if rows is None else _in_layout(rows, x.shape, dev, False)
    be = backend(dev)
    if reduction == 0:
        return loss, lp, be.full((), 0.0, odt.np)  # (PyTorch's total weight there)
    return total, lp, be.full((), wsum, odt.np)


def _ce_shapes(sx, st, sw, reduction, ignore_index, keep):
    return (tuple(st) if reduction == 0 else (), tuple(sx) if keep else None, ())


def _ce_input_grad(grads, log_probs, target, weight, total_weight, reduction, ignore_index):
    """The logits' gradient from the loss's (``grads[0]``) and, in a higher-order backward,
    the log-probabilities' (``grads[1]``: they stand in for the logits in the loss's own
    backward, whose derivative in them comes back here, through log_softmax's)."""
    g, glp = grads
    gx = None
    if g is not None:
        if reduction == 1:
            g = div(g, total_weight)
        if reduction != 0:
            g = expand(g, tuple(target.shape))
        gx = CROSS_ENTROPY_BACKWARD.call(g, log_probs, target, weight, ignore_index, True)
    if glp is not None:
        cdim = 1 if log_probs.ndim > 1 else 0
        # softmax(lp) rather than exp(lp): an ignored row holds the logits themselves
        d = sub(glp, mul(softmax(log_probs, cdim), _sum(glp, cdim, keepdim=True)))
        gx = d if gx is None else add(gx, d)
    return gx


def _ce_backward_forward(g, x, t, w, odt, dev, ignore_index, log_probs):
    be = backend(dev)
    xv = _class_rows(x, odt, dev)
    wv, has_w = flat_param(w, xv.shape[1], odt, dev)
    if log_probs:  # (the statistics of log-probabilities are 0: exp(lp) is the softmax)
        tv = _int64_data(t, dev)
        stats = be.zeros((tv.size, 2), odt.np)
    else:
        _, stats, _, tv, _, _ = _ce_kernel(xv, t, wv, has_w, ignore_index, odt, dev, False)
    M = tv.size
    gv = cast_data(g, odt, dev)
    gv = be.reshape_view(gv, (M,)) if gv.size else gv.reshape((0,))
    if gv is None:
        gv = copy_data(g, odt, dev).reshape((M,))
    rows = be.empty(tuple(xv.shape), odt.np)
    if rows.size:
        kernel("cross_entropy_backward", dev)(gv, xv, tv, wv, has_w, ignore_index, stats, rows)
    return _in_layout(rows, x.shape, dev, True)


def _ce_double_backward(grad, grad_output, input, target, weight, ignore_index, mask):
    """Derivatives of ``w[t] * g * (softmax(x) - onehot(t))`` in ``g`` (``grad_output``) and
    ``x`` (``input``), in ops (softmax and its backward), so differentiable again."""
    cdim = 1 if input.ndim > 1 else 0
    ign = eq(target, ignore_index)
    keep = rsub(ign.to(input.dtype), 1)
    ts = mul(target, eq(ign, False).to(target.dtype))  # ignored rows -> class 0
    wr = keep if weight is None else mul(weight.detach().to(input.dtype)[ts], keep)
    p = softmax(input, cdim)
    dg = dx = None
    if mask[0]:
        picked = squeeze(gather(grad, cdim, unsqueeze(ts, cdim)), cdim)
        dg = mul(wr, sub(_sum(mul(grad, p), cdim), picked))
    if mask[1]:
        dx = _softmax_backward_data(mul(grad, unsqueeze(mul(wr, grad_output), cdim)), p, cdim)
    return dg, dx


# PyTorch's cross_entropy is log_softmax then nll_loss; here one fused kernel a row, its node
# named as PyTorch's last one. It saves the log-probabilities (an output, differentiable
# only so that a higher-order gradient through them reaches the logits), not the logits.
CROSS_ENTROPY = deffunc(
    "cross_entropy_loss", params=("input", "target", "weight"), optional=("weight",),
    kernels=("cross_entropy",), forward=_ce_forward,
    dtype=lambda x, t, w, *args: (x, x, x), shape=_ce_shapes,
    args=("reduction", "ignore_index", "keep"),
    outputs=("result", "log_probs", "total_weight"), differentiable=2,
    node="NllLossBackward0", torch_names={"log_probs": "self"},
    grads=("_ce_input_grad(grads, log_probs, target, weight, total_weight, reduction, "
           "ignore_index)", None, None), fn=False, method=False)
# the per-row gradient w[t] * g * (softmax(x) - onehot(t)) in one pass (``log_probs``: the
# input holds log-probabilities, else logits)
CROSS_ENTROPY_BACKWARD = deffunc(
    "cross_entropy_backward", params=("grad_output", "input", "target", "weight"),
    optional=("weight",), kernels=("cross_entropy", "cross_entropy_backward"),
    forward=_ce_backward_forward, dtype=lambda g, x, *rest: x,
    shape=lambda sg, sx, *rest: tuple(sx), args=("ignore_index", "log_probs"),
    node="CrossEntropyBackwardBackward0",
    grads={"grad_output, input": "_ce_double_backward(grad, grad_output, input, target, "
           "weight, ignore_index, grad_input_mask)", "target": None, "weight": None},
    torch_names={}, fn=False, method=False)


@surface(CROSS_ENTROPY)
def cross_entropy_loss(input, target, weight=None, reduction="mean", ignore_index=-100):
    """Softmax cross-entropy of logits ``input`` (N, C, d1, ...) or (C,) against class
    indices ``target`` in one fused pass per row (PyTorch's ``cross_entropy`` for index
    targets without label smoothing; ``reduction`` its name or PyTorch's enum, 0 none,
    1 mean, 2 sum)."""
    x = _float_input(input, "log_softmax")
    reduction = _REDUCTION_NAME.get(reduction, reduction)
    if reduction not in _REDUCTION:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    # (`_meta`, not `_data`: inside a compiled function a queued tensor knows its shape,
    # and reading its data would run the queue, a graph break at every loss)
    xs, ts = x._meta.shape, target._meta.shape
    if not xs:
        raise ValueError("Expected input to have at least 1 dimension")
    cdim = 1 if len(xs) > 1 else 0
    n = xs[0] if cdim else 1
    if cdim and (not ts or ts[0] != n) or (not cdim and ts):
        raise ValueError(
            f"Expected input batch_size ({n}) to match target batch_size "
            f"({ts[0] if ts else 1})."
        )
    want = xs[:cdim] + xs[cdim + 1:]
    if ts != want:
        raise RuntimeError(f"Expected target size {list(want)}, got {list(ts)}")
    same_device("cross_entropy", x, target, weight)
    _ce_weight(weight, xs[cdim])
    return CROSS_ENTROPY.call(x, target, weight, _REDUCTION[reduction], int(ignore_index),
                              needs_grad(x))[0]


@surface(CROSS_ENTROPY_BACKWARD)
def cross_entropy_backward(grad, input, target, weight=None, ignore_index=-100):
    """Gradient of the per-row cross-entropy ``w[t] * (logsumexp(x_row) - x_row[t])`` with
    respect to the logits ``input`` (N, C, ...), given ``grad`` per row (target's shape):
    ``w[t] * grad * (softmax(x_row) - onehot(t))``, 0 for ignored rows, in one fused pass."""
    return CROSS_ENTROPY_BACKWARD.call(grad, input, target, weight, int(ignore_index), False)
