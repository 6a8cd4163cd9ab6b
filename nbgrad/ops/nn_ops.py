"""Neural-network ops: softmax family (fused kernels), losses, linear, dropout, activations."""

import math

import numpy as np

from .. import dtypes as _dt
from ..tensor import _wrap
from ._core import (
    Node,
    Tensor,
    backend,
    copy_data,
    kernel,
    needs_grad,
    record,
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
from .math import log1p
from .reduce import mean as _mean
from .reduce import sum as _sum
from .shape import _wrap_dim, permute, reshape


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


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Mean squared error."""
    reduction = _legacy(size_average, reduce, reduction)
    d = sub(input, target)
    return _reduce(mul(d, d), reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None,
                                     reduce=None, reduction="mean", pos_weight=None):
    """Sigmoid + binary cross-entropy in one stable expression."""
    reduction = _legacy(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(
            f"Target size ({target.shape}) must be the same as input size ({input.shape})"
        )
    # log(1 + exp(-|x|)) + max(-x, 0) == softplus(-x), finite for any x; |x| via where (not
    # abs/relu, whose kinks at 0 would give a wrong gradient and Hessian at x == 0)
    ax = where(input >= 0, input, neg(input))
    sp = add(log1p(exp(neg(ax))), mul(sub(ax, input), 0.5))
    if pos_weight is not None:
        lw = add(mul(sub(pos_weight, 1), target), 1)
        loss = add(mul(rsub(target, 1), input), mul(lw, sp))
    else:
        loss = add(mul(rsub(target, 1), input), sp)
    if weight is not None:
        loss = mul(loss, weight)
    return _reduce(loss, reduction)


# ----- layers and activations -------------------------------------------------------------
class AddmmBackward0(Node):
    """Backward of ``linear``: the weight's gradient comes out as one contiguous GEMM."""

    __slots__ = ()

    def backward(self, saved, g):
        from .linalg import matmul
        from .shape import transpose

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
    from .linalg import matmul_data

    if not isinstance(input, Tensor) or not isinstance(weight, Tensor):
        raise TypeError("linear(): input and weight must be Tensors")
    if weight.ndim != 2:
        raise RuntimeError(f"linear(): weight must be 2-D, got {weight.ndim}-D")
    if input.ndim == 0 or input.shape[-1] != weight.shape[1]:
        lead = input.shape[:-1] if input.ndim else ()
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied "
            f"({int(np.prod(lead, dtype=np.int64)) if input.ndim > 1 else 1}x"
            f"{input.shape[-1] if input.ndim else 0} and {weight.shape[1]}x{weight.shape[0]})"
        )
    if input._dtype is not weight._dtype or (bias is not None and bias._dtype is not input._dtype):
        raise RuntimeError(
            "mat1 and mat2 must have the same dtype, but got "
            f"{input._dtype.name} and {weight._dtype.name}"
        )
    from ._core import same_device

    dev = same_device("linear", input, weight, bias)
    be = backend(dev)
    data = matmul_data(input._data, be.permute(weight._data, (1, 0)), input._dtype, dev)
    if bias is not None:
        if tuple(bias.shape) != (weight.shape[0],):
            raise RuntimeError(
                f"linear(): bias of shape {list(bias.shape)} does not match "
                f"{weight.shape[0]} output features"
            )
        from ._core import layout3

        if data.size:
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
               (tuple(input.shape), weight.shape[0]))
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
    from .math import erf

    if approximate == "none":
        return mul(mul(input, 0.5), add(erf(mul(input, 1 / math.sqrt(2))), 1.0))
    if approximate == "tanh":
        inner = mul(add(input, mul(mul(mul(input, input), input), 0.044715)), math.sqrt(2 / math.pi))
        return mul(mul(input, 0.5), add(tanh(inner), 1.0))
    raise RuntimeError(f"approximate argument must be either none or tanh, got {approximate!r}")


def silu(input, inplace=False):
    """``input * sigmoid(input)``."""
    return mul(input, sigmoid(input))


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalize over the trailing ``normalized_shape`` dims, then scale and shift."""
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

