"""Losses over classes: nll_loss and its backward (rows), cross_entropy (a fused kernel for
class indices). The elementwise losses are in ``ops/elementwise_loss.py``."""

import math

import numpy as np

from .. import dtypes as _dt
from ..amp.policy import autocast_op
from ..autograd.grad_mode import STATE as _STATE
from ..autograd.graph import edge_of
from ..storage.layout import c_data, cast_data, copy_data
from ..tensor import _wrap
from . import dispatch as _dispatch
from ._core import (
    Node,
    Tensor,
    attach,
    backend,
    contiguous_data,
    in_float32,
    kernel,
    needs_grad,
    record,
    same_device,
    save,
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
    """Negative log-likelihood of class indices ``target`` under log-probabilities ``input``
    (N, C, d1, ...) or (C,): ``-weight[t] * input[n, t]`` per element, 0 where
    ``target == ignore_index``; the mean divides by the sum of the weights taken."""
    reduction = _legacy(size_average, reduce, reduction)
    if not isinstance(target, Tensor) or target._dtype._cat != 1:
        raise RuntimeError(
            "expected scalar type Long but found "
            f"{target._dtype.name if isinstance(target, Tensor) else type(target).__name__}"
        )
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
    if reduction not in _REDUCTION:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    same_device("nll_loss", input, target, weight)
    _ce_weight(weight, input.shape[1] if input.ndim > 1 else input.shape[0], input._dtype,
               input._device)  # (its shape check)
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


def _legacy(size_average, reduce, reduction):
    if size_average is None and reduce is None:
        return reduction
    sa = True if size_average is None else size_average
    rd = True if reduce is None else reduce
    return ("mean" if sa else "sum") if rd else "none"


@autocast_op("cross_entropy")
def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100,
                  reduce=None, reduction="mean", label_smoothing=0.0):
    """Softmax cross-entropy of logits ``input`` (N, C, ...) against class indices or
    class probabilities ``target``."""
    reduction = _legacy(size_average, reduce, reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    # (the fused op's node is not a table row: while the compiler traces, the same loss
    # runs as its rows, log_softmax then nll_loss, which a trace can hold)
    if (label_smoothing <= 0 and isinstance(target, Tensor) and isinstance(input, Tensor)
            and target._dtype._cat == 1 and not _dispatch._TRACING):
        return _cross_entropy_fused(input, target, weight, ignore_index, reduction)
    cdim = 1 if input.ndim > 1 else 0
    C = input.shape[cdim]
    logp = log_softmax(input, cdim)
    if target._dtype.is_floating_point:  # class probabilities
        if tuple(target.shape) != tuple(input.shape):
            raise RuntimeError(
                "Expected target size to match input size when target holds class probabilities"
            )
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


def _flat_int64(t, dev):
    """Contiguous 1-D int64 storage of index tensor ``t``."""
    return _int64_data(t._data, dev)


def _ce_weight(weight, C, dt, dev):
    if weight is not None and tuple(weight.shape) != (C,):
        raise RuntimeError(
            f"weight tensor should be defined either for all {C} classes or no classes but got "
            f"weight tensor of shape: {list(weight.shape)}"
        )
    return flat_param(None if weight is None else weight._data, C, dt, dev)


def _ce_rows(x, cdim, target, wv, has_w, ignore_index, want_lp=False):
    """Run the fused forward kernel: per-row losses (target's shape), the per-row
    (max, log-sum-exp) statistics, the weight sum and, with ``want_lp``, the rows of
    log-probabilities (else None); IndexError for a bad target."""
    dev, dt = x._device, x._dtype
    be = backend(dev)
    xv = _class_rows(x, cdim)
    tv = _flat_int64(target, dev)
    M = tv.size
    loss = be.empty(tuple(target.shape), dt.np)
    stats = be.empty((M, 2), dt.np)
    lp = be.empty(tuple(xv.shape), dt.np) if want_lp else None
    wsum = np.zeros(1, np.float64)
    bad = kernel("cross_entropy", dev)(xv, tv, wv, has_w, ignore_index, loss.reshape((M,)),
                                       stats, wsum, lp)
    if bad is not None:
        raise IndexError(f"Target {bad} is out of bounds.")
    return loss, stats, float(wsum[0]), xv, tv, lp


class _CrossEntropyBackward(Node):
    """The fused cross_entropy's node (named as PyTorch's there, whose last op is
    nll_loss): the reduction's gradient, then the fused ``cross_entropy_backward``. Not a
    row yet: it saves the log-probabilities in place of the logits, whose edge it keeps."""

    __slots__ = ()

    @classmethod
    def name(cls):
        return "NllLossBackward0"

    def backward(self, saved, g):
        lp, target, weight, stats = saved
        ignore_index, reduction, wsum = self.attrs
        tshape = tuple(target.shape)
        if reduction == "sum":
            g = expand(g, tshape)
        elif reduction == "mean":
            g = expand(div(g, wsum if wsum != 0 else math.nan), tshape)
        # the log-probabilities stand in for the logits (softmax(lp) == softmax(x), and the
        # statistics of lp are 0), their gradient going to the logits' edge
        return (cross_entropy_backward(g, lp, target, weight, ignore_index, stats,
                                       _edge=self.next_functions[0]),)

    # PyTorch's saved attributes (grad_fn._saved_<name>): the log-probabilities, target,
    # weight, total weight (a 0-d tensor), ignore_index and reduction (0 none, 1 mean, 2 sum)
    _saved_self = property(lambda self: self.unpack_saved()[0])
    _saved_target = property(lambda self: self.unpack_saved()[1])
    _saved_weight = property(lambda self: self.unpack_saved()[2])
    _saved_ignore_index = property(lambda self: self.attrs[0])
    _saved_reduction = property(lambda self: {"none": 0, "mean": 1, "sum": 2}[self.attrs[1]])

    @property
    def _saved_total_weight(self):
        x = self.unpack_saved()[0]
        v = self.attrs[2] if self.attrs[1] != "none" else 0.0  # (PyTorch's: not summed)
        return _wrap(backend(x._device).full((), v, x._dtype.np), x._dtype, x._device)


def _log_probs(x, rows, stats):
    """``log_softmax(x)`` in ``x``'s layout from the fused forward's rows of
    log-probabilities (``(x - max) - lse``): what PyTorch's cross-entropy saves (its
    log_softmax's output) instead of the logits, so that the logits may change in place
    before backward. Also zero statistics for the backward kernel to read them with."""
    dev, dt = x._device, x._dtype
    be = backend(dev)
    if x.ndim <= 2:
        lp = rows.reshape(tuple(x.shape))
    else:  # rows in (N, d1, ..., C) order: a view in (N, C, d1, ...) order
        nd = x.ndim
        lead = (x.shape[0],) + tuple(x.shape[2:]) + (x.shape[1],)
        lp = be.permute(rows.reshape(lead), (0, nd - 1) + tuple(range(1, nd - 1)))
    return _wrap(lp, dt, dev), be.zeros(tuple(stats.shape), dt.np)


@in_float32
def _cross_entropy_fused(input, target, weight, ignore_index, reduction):
    x = _float_input(input, "log_softmax")
    if reduction not in ("none", "sum", "mean"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if x.ndim < 1:
        raise ValueError("Expected input to have at least 1 dimension")
    cdim = 1 if x.ndim > 1 else 0
    n = x.shape[0] if x.ndim > 1 else 1
    if x.ndim > 1 and (target.ndim == 0 or target.shape[0] != n) or (x.ndim == 1 and target.ndim != 0):
        raise ValueError(
            f"Expected input batch_size ({n}) to match target batch_size "
            f"({target.shape[0] if target.ndim else 1})."
        )
    want = tuple(x.shape[:cdim]) + tuple(x.shape[cdim + 1:])
    if tuple(target.shape) != want:
        raise RuntimeError(f"Expected target size {list(want)}, got {list(target.shape)}")
    dev, dt = same_device("cross_entropy", x, target, weight), x._dtype
    wv, has_w = _ce_weight(weight, x.shape[cdim], dt, dev)
    loss, stats, wsum, _, _, rows = _ce_rows(x, cdim, target, wv, has_w, ignore_index,
                                             needs_grad(x))
    per = _wrap(loss, dt, dev)
    if reduction == "none":
        out = per
    elif reduction == "sum":
        out = _sum(per)
    else:
        out = div(_sum(per), wsum if wsum != 0 else math.nan)
    if needs_grad(x):
        lp, zstats = _log_probs(x, rows, stats)
        record(_CrossEntropyBackward, out, (x,), (lp, save(target), save(weight), zstats),
               (ignore_index, reduction, wsum))
    return out


class CrossEntropyBackwardBackward0(Node):
    """Derivatives of ``w[t] * g * (softmax(x) - onehot(t))`` with respect to ``g`` and
    ``x``, written with softmax / _softmax_backward_data so they are differentiable again."""

    __slots__ = ()

    def backward(self, saved, gg):
        g, x, target, weight = saved
        ignore_index = self.attrs
        fg, fx = self.needs_input_grad
        cdim = 1 if x.ndim > 1 else 0
        dt = x._dtype
        ign = eq(target, ignore_index)
        keep = rsub(ign.to(dt), 1)
        ts = mul(target, eq(ign, False).to(target._dtype))  # ignored rows -> class 0
        wr = keep if weight is None else mul(weight.detach().to(dt)[ts], keep)
        p = softmax(x, cdim)
        dg = dx = None
        if fg:
            picked = squeeze(gather(gg, cdim, unsqueeze(ts, cdim)), cdim)
            dg = mul(wr, sub(_sum(mul(gg, p), cdim), picked))
        if fx:
            dx = _softmax_backward_data(mul(gg, unsqueeze(mul(wr, g), cdim)), p, cdim)
        return dg, dx


@in_float32
def cross_entropy_backward(grad, input, target, weight=None, ignore_index=-100, stats=None,
                           _edge=None):
    """Gradient of the per-row cross-entropy ``w[t] * (logsumexp(x_row) - x_row[t])`` with
    respect to the logits ``input`` (N, C, ...), given ``grad`` per row (target's shape):
    ``w[t] * grad * (softmax(x_row) - onehot(t))``, 0 for ignored rows, in one fused pass.
    ``stats`` are the forward's per-row (max, log-sum-exp) (recomputed when None). With
    ``_edge``, ``input`` holds log-probabilities standing in for logits whose autograd edge
    ``_edge`` is (see ``_CrossEntropyBackward``)."""
    x = input
    dev, dt = x._device, x._dtype
    cdim = 1 if x.ndim > 1 else 0
    wv, has_w = _ce_weight(weight, x.shape[cdim], dt, dev)
    if stats is None:
        _, stats, _, xv, tv, _ = _ce_rows(x, cdim, target, wv, has_w, ignore_index)
    else:
        xv, tv = _class_rows(x, cdim), _flat_int64(target, dev)
    M = tv.size
    if grad._dtype is not dt:
        grad = grad.to(dt)
    gv = grad._data
    be = backend(dev)
    if tuple(gv.shape) != (M,):
        gv = be.reshape_view(gv, (M,))
        if gv is None:
            gv = copy_data(grad._data, dt, dev).reshape((M,))
    if x.ndim <= 2:
        out = be.empty(tuple(x.shape), dt.np)
        rows = out.reshape(xv.shape)
    else:  # rows in (N, d1, ..., C) order, then back to (N, C, d1, ...)
        rows = be.empty(xv.shape, dt.np)
    if rows.size:
        kernel("cross_entropy_backward", dev)(gv, xv, tv, wv, has_w, ignore_index, stats, rows)
    if x.ndim > 2:
        nd = x.ndim
        lead = (x.shape[0],) + tuple(x.shape[2:]) + (x.shape[1],)
        back = (0, nd - 1) + tuple(range(1, nd - 1))
        out = copy_data(be.permute(rows.reshape(lead), back), dt, dev)
    res = _wrap(out, dt, dev)
    if _edge is None:
        if needs_grad(grad, x):
            record(CrossEntropyBackwardBackward0, res, (grad, x),
                   (save(grad), save(x), save(target), weight), ignore_index)
    elif _STATE.enabled and (grad._rg or _edge[0] is not None):
        attach(CrossEntropyBackwardBackward0, res, (edge_of(grad), _edge),
               (save(grad), x, save(target), weight), ignore_index)
    return res


def _class_rows(x, cdim):
    """Logits (N, C, d1, ...) as C-contiguous rows ``(M, C)``, classes last (a copy only
    for K-dim or non-contiguous input)."""
    C = x.shape[cdim]
    M = x.numel() // C if C else math.prod(x.shape[:cdim] + x.shape[cdim + 1:])
    if x.ndim <= 2:
        return contiguous_data(x).reshape(M, C)
    perm = (0,) + tuple(range(2, x.ndim)) + (1,)
    return copy_data(backend(x._device).permute(x._data, perm), x._dtype, x._device).reshape(M, C)
