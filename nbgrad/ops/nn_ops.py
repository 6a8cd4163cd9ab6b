"""Neural-network ops: softmax family (fused kernels), losses, linear, dropout, activations."""

import math

import numpy as np

from .. import dtypes as _dt
from ..autograd.grad_mode import STATE as _STATE
from ..autograd.graph import edge_of
from ..storage.layout import bcast3, copy_data, layout3
from ..tensor import _wrap
from ._core import (
    Node,
    Tensor,
    attach,
    backend,
    kernel,
    needs_grad,
    record,
    same_device,
    save,
    save_output,
    to_dtype_data,
)
from .elementwise import (
    add,
    div,
    eq,
    exp,
    mul,
    neg,
    rsub,
    sigmoid,
    sub,
    tanh,
    where,
)
from .linalg import matmul, matmul_data
from .math import log1p
from .reduce import mean as _mean
from .reduce import sum as _sum
from .shape import _wrap_dim, expand, permute, reshape, squeeze, transpose, unsqueeze


def _arb_view(x, dim):
    """Storage of ``x`` as a C-contiguous ``(A, R, B)`` array with ``dim`` in the middle."""
    d = x._data
    if not (d.flags.c_contiguous if d.__class__ is np.ndarray else backend(x._device).is_contiguous(d)):
        d = copy_data(d, x._dtype, x._device)
    shape = d.shape
    A = int(np.prod(shape[:dim], dtype=np.int64))
    B = int(np.prod(shape[dim + 1:], dtype=np.int64))
    return d.reshape(A, shape[dim] if shape else 1, B)


def _float_input(x, op):
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): argument 'input' must be Tensor, not {type(x).__name__}")
    if not x._dtype.is_floating_point:
        raise RuntimeError(f'"{op}_lastdim_kernel_impl" not implemented for \'{x._dtype.name}\'; use a floating-point tensor')
    return x


def _fused(kname, x, dim):
    dev = x._device
    out = backend(dev).empty(tuple(x.shape), x._dtype.np)
    if out.size:
        kernel(kname, dev)(_arb_view(x, dim), out.reshape(_arb_view(x, dim).shape))
    return _wrap(out, x._dtype, dev)


def _fused2(kname, g, y, dim):
    dev = g._device
    if g._dtype is not y._dtype:
        g = g.to(y._dtype)
    out = backend(dev).empty(tuple(y.shape), y._dtype.np)
    if out.size:
        yv = _arb_view(y, dim)
        kernel(kname, dev)(_arb_view(g, dim), yv, out.reshape(yv.shape))
    return _wrap(out, y._dtype, dev)


def _dim(x, dim, op="softmax"):
    if dim is None:
        # PyTorch's legacy implicit dim (deprecated there, with this warning)
        import warnings

        warnings.warn(f"Implicit dimension choice for {op} has been deprecated. Change the call "
                      "to include dim=X as an argument.", UserWarning, stacklevel=3)
        dim = 0 if x.ndim in (0, 1, 3) else 1
    return _wrap_dim(dim, x.ndim) if x.ndim else 0


class LogSoftmaxBackward0(Node):
    __slots__ = ()

    def backward(self, saved, g):
        (y,) = saved
        return (log_softmax_backward(g, y, self.attrs),)


def log_softmax(input, dim=None, dtype=None):
    """``log(softmax(input))`` along ``dim``, computed stably in one pass."""
    x = _float_input(input if dtype is None else input.to(dtype), "log_softmax")
    d = _dim(x, dim, "log_softmax")
    out = _fused("log_softmax", x, d)
    if needs_grad(x):
        record(LogSoftmaxBackward0, out, (x,), (save_output(out),), d)
    return out


class LogSoftmaxBackwardBackward0(Node):
    __slots__ = ()

    def backward(self, saved, gg):
        g, y = saved
        d = self.attrs
        fg, fy = self.next_functions
        e = exp(y)
        dg = sub(gg, _sum(mul(gg, e), d, keepdim=True)) if fg[0] is not None else None
        dy = neg(mul(mul(gg, e), _sum(g, d, keepdim=True))) if fy[0] is not None else None
        return dg, dy


def log_softmax_backward(grad, output, dim):
    """``grad - exp(output) * grad.sum(dim)``: log_softmax's backward as one kernel."""
    out = _fused2("log_softmax_backward", grad, output, dim)
    if needs_grad(grad, output):
        record(LogSoftmaxBackwardBackward0, out, (grad, output), (save(grad), save(output)), dim)
    return out


class SoftmaxBackward0(Node):
    __slots__ = ()

    def backward(self, saved, g):
        (y,) = saved
        return (softmax_backward(g, y, self.attrs),)


def softmax(input, dim=None, dtype=None):
    """Softmax along ``dim``, stable for any logits."""
    x = _float_input(input if dtype is None else input.to(dtype), "softmax")
    d = _dim(x, dim)
    out = _fused("softmax", x, d)
    if needs_grad(x):
        record(SoftmaxBackward0, out, (x,), (save_output(out),), d)
    return out


class SoftmaxBackwardBackward0(Node):
    __slots__ = ()

    def backward(self, saved, gg):
        g, y = saved
        d = self.attrs
        fg, fy = self.next_functions
        dg = softmax_backward(gg, y, d) if fg[0] is not None else None
        dy = None
        if fy[0] is not None:
            s = _sum(mul(g, y), d, keepdim=True)
            dy = sub(mul(gg, sub(g, s)), mul(g, _sum(mul(gg, y), d, keepdim=True)))
        return dg, dy


def softmax_backward(grad, output, dim):
    """``output * (grad - (grad * output).sum(dim))``: softmax's backward as one kernel."""
    out = _fused2("softmax_backward", grad, output, dim)
    if needs_grad(grad, output):
        record(SoftmaxBackwardBackward0, out, (grad, output), (save(grad), save(output)), dim)
    return out


# ----- losses -----------------------------------------------------------------------------
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


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    """Negative log-likelihood of class indices ``target`` under log-probabilities ``input``."""
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
    C = input.shape[1] if input.ndim > 1 else input.shape[0]
    rows = _to_rows(input)
    mask, wsum = _class_mask(target, weight, ignore_index, C, input._dtype, input._device)
    per = neg(_sum(mul(rows, mask), 1))
    if reduction == "none":
        return reshape(per, tuple(target.shape))
    if reduction == "sum":
        return _sum(per)
    if reduction != "mean":
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return div(_sum(per), wsum if wsum != 0 else math.nan)


def _legacy(size_average, reduce, reduction):
    if size_average is None and reduce is None:
        return reduction
    sa = True if size_average is None else size_average
    rd = True if reduce is None else reduce
    return ("mean" if sa else "sum") if rd else "none"


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100,
                  reduce=None, reduction="mean", label_smoothing=0.0):
    """Softmax cross-entropy of logits ``input`` (N, C, ...) against class indices or
    class probabilities ``target``."""
    reduction = _legacy(size_average, reduce, reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    if (label_smoothing <= 0 and isinstance(target, Tensor) and isinstance(input, Tensor)
            and target._dtype._cat == 1):
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
    d = t._data
    be = backend(dev)
    if t._dtype is not _dt.int64 or not (d.flags.c_contiguous if d.__class__ is np.ndarray
                                         else be.is_contiguous(d)):
        d = copy_data(d, _dt.int64, dev)
    return d.reshape((d.size,))


def _ce_weight(weight, C, dt, dev):
    if weight is not None and tuple(weight.shape) != (C,):
        raise RuntimeError(
            f"weight tensor should be defined either for all {C} classes or no classes but got "
            f"weight tensor of shape: {list(weight.shape)}"
        )
    return _flat_param(weight, C, dt, dev)


def _ce_rows(x, cdim, target, wv, has_w, ignore_index):
    """Run the fused forward kernel: per-row losses (target's shape), the per-row
    (max, log-sum-exp) statistics and the weight sum; IndexError for a bad target."""
    dev, dt = x._device, x._dtype
    be = backend(dev)
    xv = _class_rows(x, cdim)
    tv = _flat_int64(target, dev)
    M = tv.size
    loss = be.empty(tuple(target.shape), dt.np)
    stats = be.empty((M, 2), dt.np)
    wsum = np.zeros(1, np.float64)
    bad = kernel("cross_entropy", dev)(xv, tv, wv, has_w, ignore_index, loss.reshape((M,)),
                                       stats, wsum)
    if bad is not None:
        raise IndexError(f"Target {bad} is out of bounds.")
    return loss, stats, float(wsum[0]), xv, tv


class NllLossBackward0(Node):
    """cross_entropy's node (named as PyTorch's): the reduction's gradient, then the fused
    ``cross_entropy_backward``."""

    __slots__ = ()

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


def _log_probs(x, xv, stats):
    """``log_softmax(x)`` in ``x``'s layout from the fused forward's rows ``xv`` and their
    (max, log-sum-exp) ``stats``, as ``(x - max) - lse``: what PyTorch's cross-entropy saves
    (its log_softmax's output) instead of the logits, so that the logits may change in place
    before backward. Also zero statistics for the backward kernel to read them with."""
    from ..autograd.grad_mode import no_grad

    dev, dt = x._device, x._dtype
    be = backend(dev)
    if xv.__class__ is np.ndarray:
        # two NumPy passes, the same roundings as the ops below: on a batch's logits the op
        # layer's broadcasting setup cost more than the work (mlp_step lost ~0.5 ms)
        with np.errstate(invalid="ignore"):  # (inf - inf is NaN, without NumPy's warning)
            rows = np.subtract(xv, stats[:, :1])
            np.subtract(rows, stats[:, 1:], out=rows)
    else:
        with no_grad():
            rows = sub(sub(_wrap(xv, dt, dev), _wrap(stats[:, :1], dt, dev)),
                       _wrap(stats[:, 1:], dt, dev))._data
    if x.ndim <= 2:
        lp = rows.reshape(tuple(x.shape))
    else:  # rows in (N, d1, ..., C) order: a view in (N, C, d1, ...) order
        nd = x.ndim
        lead = (x.shape[0],) + tuple(x.shape[2:]) + (x.shape[1],)
        lp = be.permute(rows.reshape(lead), (0, nd - 1) + tuple(range(1, nd - 1)))
    return _wrap(lp, dt, dev), be.zeros(tuple(stats.shape), dt.np)


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
    loss, stats, wsum, xv, _ = _ce_rows(x, cdim, target, wv, has_w, ignore_index)
    per = _wrap(loss, dt, dev)
    if reduction == "none":
        out = per
    elif reduction == "sum":
        out = _sum(per)
    else:
        out = div(_sum(per), wsum if wsum != 0 else math.nan)
    if needs_grad(x):
        lp, zstats = _log_probs(x, xv, stats)
        record(NllLossBackward0, out, (x,), (lp, save(target), save(weight), zstats),
               (ignore_index, reduction, wsum))
    return out


class CrossEntropyBackwardBackward0(Node):
    """Derivatives of ``w[t] * g * (softmax(x) - onehot(t))`` with respect to ``g`` and
    ``x``, written with softmax / softmax_backward so they are differentiable again."""

    __slots__ = ()

    def backward(self, saved, gg):
        g, x, target, weight = saved
        ignore_index = self.attrs
        fg, fx = (f[0] is not None for f in self.next_functions)
        cdim = 1 if x.ndim > 1 else 0
        dt = x._dtype
        from .index import gather

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
            dx = softmax_backward(mul(gg, unsqueeze(mul(wr, g), cdim)), p, cdim)
        return dg, dx


def cross_entropy_backward(grad, input, target, weight=None, ignore_index=-100, stats=None,
                           _edge=None):
    """Gradient of the per-row cross-entropy ``w[t] * (logsumexp(x_row) - x_row[t])`` with
    respect to the logits ``input`` (N, C, ...), given ``grad`` per row (target's shape):
    ``w[t] * grad * (softmax(x_row) - onehot(t))``, 0 for ignored rows, in one fused pass.
    ``stats`` are the forward's per-row (max, log-sum-exp) (recomputed when None). With
    ``_edge``, ``input`` holds log-probabilities standing in for logits whose autograd edge
    ``_edge`` is (see ``NllLossBackward0``)."""
    x = input
    dev, dt = x._device, x._dtype
    cdim = 1 if x.ndim > 1 else 0
    wv, has_w = _ce_weight(weight, x.shape[cdim], dt, dev)
    if stats is None:
        _, stats, _, xv, tv = _ce_rows(x, cdim, target, wv, has_w, ignore_index)
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


class MseLossBackward0(Node):
    """``2 * (input - target) * grad`` (over the element count for 'mean'), from the saved
    input and target, as PyTorch's (so both are checked for in-place changes)."""

    __slots__ = ()

    def backward(self, saved, g):
        x, t = saved
        reduction, n = self.attrs
        fx, ft = self.next_functions
        if reduction == "mean":
            g = div(g, n if n else math.nan)
        d = mul(mul(sub(x, t), 2.0), g)
        from .elementwise import _shape, sum_to

        gx = sum_to(d, _shape(x)) if fx[0] is not None else None
        gt = sum_to(neg(d), _shape(t)) if ft[0] is not None else None
        return gx, gt


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Mean squared error."""
    from ..autograd.grad_mode import no_grad

    reduction = _legacy(size_average, reduce, reduction)
    with no_grad():
        d = sub(input, target)
        out = _reduce(mul(d, d), reduction)
    if needs_grad(input, target):
        record(MseLossBackward0, out, (input, target), (save(input), save(target)),
               (reduction, d.numel()))
    return out


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None,
                                     reduce=None, reduction="mean", pos_weight=None):
    """Sigmoid + binary cross-entropy in one stable expression."""
    reduction = _legacy(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(
            f"Target size ({target.shape}) must be the same as input size ({input.shape})"
        )
    if needs_grad(weight, pos_weight):  # their gradients: the composed form's
        return _bce_logits(input, target, weight, pos_weight, reduction)
    from ..autograd.grad_mode import no_grad

    with no_grad():
        out = _bce_logits(input, target, weight, pos_weight, reduction)
    if needs_grad(input, target):
        record(BinaryCrossEntropyWithLogitsBackward0, out, (input, target),
               (save(input), save(target), save(weight), save(pos_weight)),
               (reduction, input.numel()))
    return out


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


class BinaryCrossEntropyWithLogitsBackward0(Node):
    """PyTorch's rule from the saved input, target, weight and pos_weight: d/dx is
    ``lw * sigmoid(x) - pos_weight * t`` (``lw = pos_weight * t + 1 - t``; ``sigmoid(x) - t``
    without pos_weight), d/dt is ``(pos_weight - 1) * softplus(-x) - x``."""

    __slots__ = ()

    def backward(self, saved, g):
        x, t, w, pw = saved
        reduction, n = self.attrs
        fx, ft = self.next_functions
        if reduction == "mean":
            g = div(g, n if n else math.nan)
        if w is not None:
            g = mul(g, w)
        gx = gt = None
        if fx[0] is not None:
            if pw is not None:
                pt = mul(pw, t)
                gx = sub(mul(add(rsub(t, 1), pt), sigmoid(x)), pt)
            else:
                gx = sub(sigmoid(x), t)
            gx = mul(gx, g)
        if ft[0] is not None:
            gt = neg(x) if pw is None else sub(mul(sub(pw, 1), _softplus_neg(x)), x)
            gt = mul(gt, g)
        from .elementwise import _shape, sum_to

        return (sum_to(gx, _shape(x)) if gx is not None else None,
                sum_to(gt, _shape(t)) if gt is not None else None)


# ----- layers and activations -------------------------------------------------------------
class AddmmBackward0(Node):
    """Backward of ``linear``: the weight's gradient comes out as one contiguous GEMM."""

    __slots__ = ()

    def backward(self, saved, g):
        x, w = saved
        xshape, n_out = self.attrs
        fx, fw, *fb = self.next_functions
        g2 = reshape(g, (-1, n_out)) if g.ndim != 2 else g
        gx = gw = gb = None
        if fx[0] is not None:
            gx = matmul(g2, w)
            if len(xshape) != 2:
                gx = reshape(gx, xshape)
        if fw[0] is not None:
            x2 = reshape(x, (-1, xshape[-1])) if len(xshape) != 2 else x
            gw = matmul(transpose(g2, 0, 1), x2)
        if fb and fb[0][0] is not None:
            gb = _sum(g2, 0)
        return (gx, gw, gb) if fb else (gx, gw)


class MmBackward0(AddmmBackward0):
    __slots__ = ()


def linear(input, weight, bias=None):
    """``input @ weight.T + bias`` for input (..., in), weight (out, in), bias (out,)."""
    if not isinstance(input, Tensor) or not isinstance(weight, Tensor):
        raise TypeError("linear(): input and weight must be Tensors")
    xs, ws = input._data.shape, weight._data.shape
    if len(ws) != 2:
        raise RuntimeError(f"linear(): weight must be 2-D, got {len(ws)}-D")
    if not xs or xs[-1] != ws[1]:
        lead = xs[:-1]
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied "
            f"({int(np.prod(lead, dtype=np.int64)) if len(xs) > 1 else 1}x"
            f"{xs[-1] if xs else 0} and {ws[1]}x{ws[0]})"
        )
    if input._dtype is not weight._dtype or (bias is not None and bias._dtype is not input._dtype):
        raise RuntimeError(
            "mat1 and mat2 must have the same dtype, but got "
            f"{input._dtype.name} and {weight._dtype.name}"
        )
    dev = same_device("linear", input, weight, bias)
    be = backend(dev)
    data = matmul_data(input._data, be.permute(weight._data, (1, 0)), input._dtype, dev)
    if bias is not None:
        if bias._data.shape != (ws[0],):
            raise RuntimeError(
                f"linear(): bias of shape {list(bias.shape)} does not match "
                f"{ws[0]} output features"
            )
        bd = bias._data
        b3 = None
        if data.size and bd.__class__ is np.ndarray and bd.flags.c_contiguous:
            b3 = bcast3(data.shape, (data, bd))  # the rows of a fresh product, in place
        if b3 is not None:
            kernel("add", dev).into(b3[1][0], b3[1][1])
        elif data.size:
            views = layout3(be, data.shape, [data, bias._data, data])
            if views is None:
                d2 = data.reshape(-1, data.shape[-1])
                views = layout3(be, d2.shape, [d2, bias._data, d2])
            kernel("add", dev)(*views)
    out = _wrap(data, input._dtype, dev)
    if needs_grad(input, weight, bias):
        cls = AddmmBackward0 if bias is not None else MmBackward0
        ins = (input, weight, bias) if bias is not None else (input, weight)
        record(cls, out, ins,
               (save(input) if weight._rg else None, save(weight) if input._rg else None),
               (xs, ws[0]))
    return out


def dropout(input, p=0.5, training=True, inplace=False):
    """Zero elements with probability ``p`` and scale the rest by ``1/(1-p)`` (training)."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0:
        return input
    if p == 1:
        return mul(input, 0.0)
    from ..creation import generator

    keep = generator().random(tuple(input.shape)) >= p
    scale = (keep / (1.0 - p)).astype(input._dtype.np)
    mask = _wrap(backend(input._device).from_host(scale), input._dtype, input._device)
    return mul(input, mask)


def gelu(input, approximate="none"):
    """Gaussian error linear unit, exact (erf) or ``approximate='tanh'``."""
    from ..autograd.grad_mode import no_grad
    from .math import erf

    if approximate not in ("none", "tanh"):
        raise RuntimeError(f"approximate argument must be either none or tanh, got {approximate!r}")
    with no_grad():
        if approximate == "none":
            out = mul(mul(input, 0.5), add(erf(mul(input, 1 / math.sqrt(2))), 1.0))
        else:
            inner = mul(add(input, mul(mul(mul(input, input), input), 0.044715)),
                        math.sqrt(2 / math.pi))
            out = mul(mul(input, 0.5), add(tanh(inner), 1.0))
    if needs_grad(input):
        record(GeluBackward0, out, (input,), (save(input),), approximate)
    return out


class GeluBackward0(Node):
    """gelu's derivative from the saved input (PyTorch saves the input, not intermediates)."""

    __slots__ = ()

    def backward(self, saved, g):
        from .math import erf

        (x,) = saved
        if self.attrs == "none":
            cdf = mul(add(erf(mul(x, 1 / math.sqrt(2))), 1.0), 0.5)
            pdf = mul(exp(mul(mul(x, x), -0.5)), 1 / math.sqrt(2 * math.pi))
            return (mul(g, add(cdf, mul(x, pdf))),)
        k = math.sqrt(2 / math.pi)
        x2 = mul(x, x)
        t = tanh(mul(add(x, mul(mul(x2, x), 0.044715)), k))
        dinner = mul(add(mul(x2, 3 * 0.044715), 1.0), k)
        d = add(mul(add(t, 1.0), 0.5), mul(mul(mul(x, 0.5), rsub(mul(t, t), 1.0)), dinner))
        return (mul(g, d),)


def silu(input, inplace=False):
    """``input * sigmoid(input)``."""
    return mul(input, sigmoid(input))


# ----- layer norm -------------------------------------------------------------------------
def _as_2d(t, M, R):
    """Storage of ``t`` as a C-contiguous ``(M, R)`` array (a view when it is contiguous; a
    copy otherwise, e.g. for the broadcast gradient of a sum, which the kernels would read
    slower than the copy costs)."""
    d = t._data
    if not (d.flags.c_contiguous if d.__class__ is np.ndarray
            else backend(t._device).is_contiguous(d)):
        d = copy_data(d, t._dtype, t._device)
    return d.reshape(M, R)


def _class_rows(x, cdim):
    """Logits (N, C, d1, ...) as C-contiguous rows ``(M, C)``, classes last (a copy only
    for K-dim or non-contiguous input)."""
    C = x.shape[cdim]
    M = x.numel() // C if C else _prod(x.shape[:cdim] + x.shape[cdim + 1:])
    if x.ndim <= 2:
        return _as_2d(x, M, C)
    perm = (0,) + tuple(range(2, x.ndim)) + (1,)
    return copy_data(backend(x._device).permute(x._data, perm), x._dtype, x._device).reshape(M, C)


def _flat_param(p, n, dt, dev):
    """A weight/bias as a 1-D array of dtype ``dt``, or a 1-element dummy when absent."""
    be = backend(dev)
    if p is None:
        return be.empty((1,), dt.np), False
    return _as_2d(p if p._dtype is dt else p.to(dt), 1, n).reshape(n), True


def _prod(shape):
    n = 1
    for s in shape:
        n *= s
    return n


class NativeLayerNormBackward0(Node):
    __slots__ = ()

    def backward(self, saved, g):
        x, mean, rstd, w, _ = saved  # bias saved only as PyTorch saves it (in-place checks)
        fx, fw, fb = self.next_functions
        mask = (fx[0] is not None, fw[0] is not None, fb[0] is not None)
        return layer_norm_backward(g, x, mean, rstd, w, mask, self.attrs)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalize over the trailing ``normalized_shape`` dims, then scale and shift: one fused
    kernel per row (float64 statistics), saving the row mean and ``1/sqrt(var + eps)``."""
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    normalized_shape = tuple(normalized_shape)
    k = len(normalized_shape)
    if tuple(input.shape[input.ndim - k:]) != normalized_shape:
        raise RuntimeError(
            f"Given normalized_shape={list(normalized_shape)}, expected input with shape "
            f"[*, {', '.join(str(s) for s in normalized_shape)}], but got input of size{list(input.shape)}"
        )
    for name, p in (("weight", weight), ("bias", bias)):
        if p is not None and tuple(p.shape) != normalized_shape:
            raise RuntimeError(
                f"Expected {name} to be of same shape as normalized_shape, but got {name} of "
                f"shape {list(p.shape)} and normalized_shape = {list(normalized_shape)}"
            )
    dt = input._dtype
    if not dt.is_floating_point or any(p is not None and p._dtype is not dt for p in (weight, bias)):
        # integer input or mixed dtypes: the composed form (promotes like the ops it uses)
        return _layer_norm_composed(input, normalized_shape, weight, bias, eps)
    dev = same_device("layer_norm", input, weight, bias)
    be = backend(dev)
    shape = tuple(input.shape)
    lead = shape[:len(shape) - k]
    M, R = _prod(lead), _prod(normalized_shape)
    out = be.empty(shape, dt.np)
    mean = be.empty(lead + (1,) * k, dt.np)
    rstd = be.empty(lead + (1,) * k, dt.np)
    if M and R:
        w, has_w = _flat_param(weight, R, dt, dev)
        b, has_b = _flat_param(bias, R, dt, dev)
        kernel("layer_norm", dev)(_as_2d(input, M, R), w, b, has_w, has_b, float(eps),
                                  out.reshape(M, R), mean.reshape(M), rstd.reshape(M))
    elif M:  # empty rows: statistics of nothing
        mean = be.full(lead + (1,) * k, math.nan, dt.np)
        rstd = be.full(lead + (1,) * k, math.nan, dt.np)
    res = _wrap(out, dt, dev)
    if needs_grad(input, weight, bias):
        record(NativeLayerNormBackward0, res, (input, weight, bias),
               (save(input), _wrap(mean, dt, dev), _wrap(rstd, dt, dev), save(weight),
                save(bias)),
               normalized_shape)
    return res


def _layer_norm_composed(input, normalized_shape, weight, bias, eps):
    k = len(normalized_shape)
    dims = tuple(range(input.ndim - k, input.ndim))
    mu = _mean(input, dims, keepdim=True)
    xc = sub(input, mu)
    var = _mean(mul(xc, xc), dims, keepdim=True)
    from .math import rsqrt

    out = mul(xc, rsqrt(add(var, eps)))
    if weight is not None:
        out = mul(out, weight)
    if bias is not None:
        out = add(out, bias)
    return out


def _acc(a, b):
    return b if a is None else (a if b is None else add(a, b))


class NativeLayerNormBackwardBackward0(Node):
    """Derivatives of ``(grad_input, grad_weight, grad_bias)`` with respect to ``(grad,
    input, weight)``; the row mean and rstd depend on the input, which the formulas for
    ``d/d input`` account for. When these derivatives are differentiated again, the saved
    mean and rstd get their first derivatives attached (same values), so third derivatives
    are exact too."""

    __slots__ = ()
    materialize_grads = False

    def backward(self, saved, *ggs):
        g, x, mean, rstd, w = saved
        nshape, mask = self.attrs
        it = iter(ggs)
        ggx, ggw, ggb = (next(it) if m else None for m in mask)
        fg, fx, fw = (f[0] is not None for f in self.next_functions)
        k = len(nshape)
        nd = x.ndim
        dn = tuple(range(nd - k, nd))  # normalized dims
        dl = tuple(range(nd - k))  # leading dims
        n = _prod(nshape)
        only_gx = (True, False, False)
        mean, rstd = mean.detach(), rstd.detach()
        if needs_grad(x):
            # mean + mean(dx) and rstd - rstd^2 * mean(xhat * dx), dx = x - x.detach() = 0
            dx0 = sub(x, x.detach())
            xh0 = mul(sub(x.detach(), mean), rstd)
            mean = add(mean, _mean(dx0, dn, keepdim=True))
            rstd = sub(rstd, mul(mul(rstd, rstd), _mean(mul(xh0, dx0), dn, keepdim=True)))
        xh = mul(sub(x, mean), rstd)
        h = mul(g, w) if w is not None else g
        dg = dx = dw = pvec = extra = None
        if ggx is not None:
            # q = rstd * P(ggx), P(v) = v - mean(v) - xhat * mean(xhat * v): symmetric, so
            # it is also d<ggx, gx>/dh
            q = layer_norm_backward(ggx, x, mean, rstd, None, only_gx, nshape)[0]
            if fg:
                dg = mul(q, w) if w is not None else q
            if fw and w is not None:
                dw = _sum(mul(g, q), dl) if dl else mul(g, q)
            if fx:
                c = div(rstd, -n)
                big_l = _sum(mul(h, q), dn, keepdim=True)  # <ggx, gx> per row
                v = add(mul(_sum(mul(ggx, xh), dn, keepdim=True), h),
                        mul(_sum(mul(h, xh), dn, keepdim=True), ggx))
                pvec = mul(v, c)
                extra = mul(mul(big_l, c), xh)
        if ggw is not None:
            if fg:
                dg = _acc(dg, mul(ggw, xh))
            if fx:
                pvec = _acc(pvec, mul(ggw, g))
        if ggb is not None and fg:
            dg = _acc(dg, expand(ggb, tuple(x.shape)))
        if fx and pvec is not None:
            dx = _acc(layer_norm_backward(pvec, x, mean, rstd, None, only_gx, nshape)[0], extra)
        elif fx:
            dx = extra
        return dg, dx, dw


def layer_norm_backward(grad, input, mean, rstd, weight=None, output_mask=(True, True, True),
                        normalized_shape=None):
    """Layer norm's backward in one fused pass per row: ``(grad_input, grad_weight,
    grad_bias)`` with None where ``output_mask`` is False. ``mean`` and ``rstd`` are the
    saved row statistics (shape ``input.shape[:-k] + (1,) * k``); ``grad_weight`` is
    ``sum(grad * xhat)`` and ``grad_bias`` ``sum(grad)`` over the leading dims.
    ``normalized_shape`` defaults to the weight's shape, else to the fewest trailing dims
    of ``input`` that hold a row."""
    dev, dt = input._device, input._dtype
    shape = tuple(input.shape)
    M = mean.numel()
    if normalized_shape is None:
        if weight is not None:
            normalized_shape = tuple(weight.shape)
        else:
            R = input.numel() // M if M else 0
            k = next((i for i in range(len(shape) + 1) if _prod(shape[len(shape) - i:]) == R), 0)
            normalized_shape = shape[len(shape) - k:]
    nshape = tuple(normalized_shape)
    R = _prod(nshape)
    M = _prod(shape[:len(shape) - len(nshape)])
    if grad._dtype is not dt:
        grad = grad.to(dt)
    be = backend(dev)
    mask = tuple(bool(m) for m in output_mask)
    gx = be.empty(shape, dt.np) if mask[0] else None
    gw = be.empty(nshape, dt.np) if mask[1] else None
    gb = be.empty(nshape, dt.np) if mask[2] else None
    if M and R:
        w, has_w = _flat_param(weight, R, dt, dev)
        kernel("layer_norm_backward", dev)(
            _as_2d(grad, M, R), _as_2d(input, M, R), _as_2d(mean, M, 1).reshape(M),
            _as_2d(rstd, M, 1).reshape(M), w, has_w,
            None if gx is None else gx.reshape(M, R),
            None if gw is None else gw.reshape(R), None if gb is None else gb.reshape(R))
    else:
        gw = be.zeros(nshape, dt.np) if mask[1] else None
        gb = be.zeros(nshape, dt.np) if mask[2] else None
    outs = tuple(None if a is None else _wrap(a, dt, dev) for a in (gx, gw, gb))
    if needs_grad(grad, input, weight):
        from ._core import record_multi

        record_multi(NativeLayerNormBackwardBackward0, [o for o in outs if o is not None],
                     (grad, input, weight),
                     (save(grad), save(input), mean, rstd, save(weight)), (nshape, mask))
    return outs
