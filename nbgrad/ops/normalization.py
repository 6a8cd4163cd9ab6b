"""Layer norm: one fused kernel per row forward (float64 statistics, saving the row mean
and ``1/sqrt(var + eps)``) and one backward, itself an op with a node, so derivatives of
any order are exact."""

import math

from ..tensor import _fresh, _wrap
from ._core import (
    Node,
    backend,
    contiguous_data,
    kernel,
    needs_grad,
    record,
    record_multi,
    same_device,
    save,
)
from .elementwise import add, add_grads, div, mul, rsqrt, sub
from .reduce import mean as _mean
from .reduce import sum as _sum
from .shape import expand


def flat_param(p, n, dt, dev):
    """A weight/bias as a 1-D array of dtype ``dt``, or a 1-element dummy when absent."""
    be = backend(dev)
    if p is None:
        return be.empty((1,), dt.np), False
    return contiguous_data(p if p._dtype is dt else p.to(dt)).reshape(n), True


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
    M, R = math.prod(lead), math.prod(normalized_shape)
    out = be.empty(shape, dt.np)
    mean = be.empty(lead + (1,) * k, dt.np)
    rstd = be.empty(lead + (1,) * k, dt.np)
    if M and R:
        w, has_w = flat_param(weight, R, dt, dev)
        b, has_b = flat_param(bias, R, dt, dev)
        kernel("layer_norm", dev)(contiguous_data(input).reshape(M, R), w, b, has_w, has_b, float(eps),
                                  out.reshape(M, R), mean.reshape(M), rstd.reshape(M))
    elif M:  # empty rows: statistics of nothing
        mean = be.full(lead + (1,) * k, math.nan, dt.np)
        rstd = be.full(lead + (1,) * k, math.nan, dt.np)
    res = _fresh(out, dt, dev)
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
    out = mul(xc, rsqrt(add(var, eps)))
    if weight is not None:
        out = mul(out, weight)
    if bias is not None:
        out = add(out, bias)
    return out


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
        n = math.prod(nshape)
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
                dg = add_grads(dg, mul(ggw, xh))
            if fx:
                pvec = add_grads(pvec, mul(ggw, g))
        if ggb is not None and fg:
            dg = add_grads(dg, expand(ggb, tuple(x.shape)))
        if fx and pvec is not None:
            dx = add_grads(layer_norm_backward(pvec, x, mean, rstd, None, only_gx, nshape)[0], extra)
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
            k = next((i for i in range(len(shape) + 1) if math.prod(shape[len(shape) - i:]) == R), 0)
            normalized_shape = shape[len(shape) - k:]
    nshape = tuple(normalized_shape)
    R = math.prod(nshape)
    M = math.prod(shape[:len(shape) - len(nshape)])
    if grad._dtype is not dt:
        grad = grad.to(dt)
    be = backend(dev)
    mask = tuple(bool(m) for m in output_mask)
    gx = be.empty(shape, dt.np) if mask[0] else None
    gw = be.empty(nshape, dt.np) if mask[1] else None
    gb = be.empty(nshape, dt.np) if mask[2] else None
    if M and R:
        w, has_w = flat_param(weight, R, dt, dev)
        kernel("layer_norm_backward", dev)(
            contiguous_data(grad).reshape(M, R), contiguous_data(input).reshape(M, R),
            contiguous_data(mean).reshape(M), contiguous_data(rstd).reshape(M), w, has_w,
            None if gx is None else gx.reshape(M, R),
            None if gw is None else gw.reshape(R), None if gb is None else gb.reshape(R))
    else:
        gw = be.zeros(nshape, dt.np) if mask[1] else None
        gb = be.zeros(nshape, dt.np) if mask[2] else None
    outs = tuple(None if a is None else _fresh(a, dt, dev) for a in (gx, gw, gb))
    if needs_grad(grad, input, weight):
        record_multi(NativeLayerNormBackwardBackward0, [o for o in outs if o is not None],
                     (grad, input, weight),
                     (save(grad), save(input), mean, rstd, save(weight)), (nshape, mask))
    return outs
