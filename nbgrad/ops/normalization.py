"""Layer norm: two ``deffunc`` rows (``ops/funcdef.py``), PyTorch's ``native_layer_norm``
(one fused kernel per row, float64 statistics, saving the row mean and
``1/sqrt(var + eps)``) and ``native_layer_norm_backward`` (one fused pass per row), whose
own derivative (``layer_norm_double_backward``) is written in nbgrad ops, so derivatives of
any order are exact."""

import math

from ..amp.policy import autocast_op
from ..storage import for_device as backend
from ..storage.layout import c_data
from ._core import kernel, mixed_norm_dtypes, needs_grad, same_device
from .elementwise import add, add_grads, div, mul, rsqrt, sub
from .funcdef import deffunc, surface
from .reduce import mean as _mean
from .reduce import sum as _sum
from .shape import expand


def flat_param(p, n, odt, dev):
    """A weight/bias array as 1-D of dtype ``odt``, or a 1-element dummy when absent."""
    if p is None:
        return backend(dev).empty((1,), odt.np), False
    return c_data(p, dev, odt).reshape(n), True


def _sizes(shape, nshape):
    k = len(nshape)
    lead = tuple(shape[:len(shape) - k])
    return lead, math.prod(lead), math.prod(nshape)


def _forward(x, w, b, odts, dev, normalized_shape, eps):
    odt, be = odts[0], backend(dev)
    lead, M, R = _sizes(x.shape, normalized_shape)
    stat = lead + (1,) * len(normalized_shape)
    out = be.empty(x.shape, odt.np)
    if M and R:
        mean, rstd = be.empty(stat, odt.np), be.empty(stat, odt.np)
        wf, has_w = flat_param(w, R, odt, dev)
        bf, has_b = flat_param(b, R, odt, dev)
        kernel("layer_norm", dev)(c_data(x, dev, odt).reshape(M, R), wf, bf, has_w, has_b, eps,
                                  out.reshape(M, R), mean.reshape(M), rstd.reshape(M))
    else:  # empty rows: statistics of nothing
        mean, rstd = be.full(stat, math.nan, odt.np), be.full(stat, math.nan, odt.np)
    return out, mean, rstd


def _backward_forward(g, x, mean, rstd, w, b, odts, dev, normalized_shape, output_mask):
    odt, be = odts[0], backend(dev)
    nshape = tuple(normalized_shape)
    _, M, R = _sizes(x.shape, nshape)
    gx = be.empty(x.shape, odt.np) if output_mask[0] else None
    if M and R:
        gw = be.empty(nshape, odt.np) if output_mask[1] else None
        gb = be.empty(nshape, odt.np) if output_mask[2] else None
        wf, has_w = flat_param(w, R, odt, dev)
        kernel("layer_norm_backward", dev)(
            c_data(g, dev, odt).reshape(M, R), c_data(x, dev, odt).reshape(M, R),
            c_data(mean, dev, odt).reshape(M), c_data(rstd, dev, odt).reshape(M), wf, has_w,
            None if gx is None else gx.reshape(M, R),
            None if gw is None else gw.reshape(R), None if gb is None else gb.reshape(R))
    else:
        gw = be.zeros(nshape, odt.np) if output_mask[1] else None
        gb = be.zeros(nshape, odt.np) if output_mask[2] else None
    return gx, gw, gb


def _ln_shapes(xs, ws, bs, normalized_shape, eps):
    lead, _, _ = _sizes(xs, normalized_shape)
    stat = lead + (1,) * len(normalized_shape)
    return tuple(xs), stat, stat


def _ln_backward_shapes(gs, xs, ms, rs, ws, bs, normalized_shape, output_mask):
    return tuple(tuple(s) if m else None
                 for s, m in zip((xs, normalized_shape, normalized_shape), output_mask))


def _ln_dtypes(x, w, b, normalized_shape, eps):
    return x, x, x


def _ln_backward_dtypes(g, x, mean, rstd, w, b, normalized_shape, output_mask):
    return x, x, x  # (the input's: grad_out is converted to it)


NATIVE_LAYER_NORM = deffunc(
    "native_layer_norm", params=("input", "weight", "bias"), optional=("weight", "bias"),
    kernels=("layer_norm",), forward=_forward, dtype=_ln_dtypes, shape=_ln_shapes,
    args=("normalized_shape", "eps"), outputs=("result", "result1", "result2"),
    grads={"input, weight, bias": "native_layer_norm_backward(grad, input, normalized_shape, "
           "result1, result2, weight, bias, grad_input_mask)"},
    torch_names={}, fn=False, method=False)
# its derivative in (grad_out, input, weight) is one formula; the statistics' dependence on
# the input is accounted for inside it, so mean and rstd get none of their own
NATIVE_LAYER_NORM_BACKWARD = deffunc(
    "native_layer_norm_backward", params=("grad_out", "input", "mean", "rstd", "weight", "bias"),
    optional=("weight", "bias"), kernels=("layer_norm_backward",), forward=_backward_forward,
    dtype=_ln_backward_dtypes, shape=_ln_backward_shapes, args=("normalized_shape", "output_mask"),
    outputs=("result0", "result1", "result2"), differentiable=3,
    grads={"grad_out, input, weight": "layer_norm_double_backward(input, weight, grads[0], "
           "grads[1], grads[2], grad_out, mean, rstd, normalized_shape, grad_input_mask)",
           "mean": "None", "rstd": "None", "bias": "None"},
    torch_names={}, fn=False, method=False)


@surface(NATIVE_LAYER_NORM)
def native_layer_norm(input, normalized_shape, weight, bias, eps):
    """``(output, mean, rstd)`` of layer norm over the trailing ``normalized_shape`` dims
    (PyTorch's ``aten.native_layer_norm``): one fused kernel per row."""
    return NATIVE_LAYER_NORM.call(input, weight, bias, tuple(normalized_shape), float(eps))


@surface(NATIVE_LAYER_NORM_BACKWARD)
def native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias,
                               output_mask):
    """Layer norm's backward in one fused pass per row (PyTorch's
    ``aten.native_layer_norm_backward``): ``(grad_input, grad_weight, grad_bias)``, None
    where ``output_mask`` is False. ``mean`` and ``rstd`` are the saved row statistics;
    ``grad_weight`` is ``sum(grad_out * xhat)`` and ``grad_bias`` ``sum(grad_out)`` over the
    leading dims."""
    return NATIVE_LAYER_NORM_BACKWARD.call(grad_out, input, mean, rstd, weight, bias,
                                           tuple(normalized_shape),
                                           tuple(bool(m) for m in output_mask))


@autocast_op("layer_norm")
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    r"""Apply layer normalization over the last dimensions of ``input``.

    :math:`y = \frac{x - \mathrm{E}[x]}{\sqrt{\mathrm{Var}[x] + \epsilon}} \gamma + \beta`, the
    mean and the (biased) variance taken over the trailing ``normalized_shape`` dims of each
    sample. One fused kernel a row, with float64 statistics.

    Args:
        input (Tensor): the input, :math:`(*, \text{normalized\_shape})`.
        normalized_shape (int or sequence of int): the trailing shape to normalize over; an
            int is one last dimension.
        weight (Tensor, optional): the scale :math:`\gamma`, of shape ``normalized_shape``.
            Default: ``None`` (1).
        bias (Tensor, optional): the shift :math:`\beta`, of shape ``normalized_shape``.
            Default: ``None`` (0).
        eps (float, optional): added to the variance, for stability. Default: ``1e-5``.

    Shape:
        - Input: :math:`(*, \text{normalized\_shape})`.
        - Output: the shape of the input.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> F.layer_norm(nbgrad.tensor([[1.0, 3.0]]), (2,))
        tensor([[-1.0000,  1.0000]])
        >>> x = nbgrad.tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 6.0]])
        >>> F.layer_norm(x, 3, weight=nbgrad.tensor([1.0, 1.0, 2.0]), bias=nbgrad.ones(3))
        tensor([[-0.2247,  1.0000,  3.4495],
                [ 0.2929,  0.2929,  3.8284]])
    """
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    normalized_shape = tuple(normalized_shape)
    k = len(normalized_shape)
    if not k:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., "
                           "containing at least one element, but got normalized_shape = []")
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
    if mixed_norm_dtypes(input, weight, bias):  # (16-bit input, float32 weight and bias)
        out = layer_norm(input.float(), normalized_shape, weight, bias, eps)
        return out.to(dt)
    if not dt.is_floating_point:  # integer input: the composed form (it promotes)
        return _layer_norm_composed(input, normalized_shape, weight, bias, eps)
    same_device("layer_norm", input, weight, bias)
    return NATIVE_LAYER_NORM.call(input, weight, bias, normalized_shape, float(eps))[0]


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


def layer_norm_double_backward(x, w, ggx, ggw, ggb, g, mean, rstd, nshape, mask):
    """Derivatives of ``(grad_input, grad_weight, grad_bias)`` with respect to ``(grad_out,
    input, weight)`` (those of them ``mask`` asks for), given the incoming ``ggx, ggw, ggb``
    (None where none came). The row mean and rstd depend on the input, which the formulas
    for ``d/d input`` account for; when these derivatives are differentiated again, the
    saved mean and rstd get their first derivatives attached (same values), so third
    derivatives are exact too."""
    fg, fx, fw = mask
    k = len(nshape)
    nd = x.ndim
    dn = tuple(range(nd - k, nd))  # normalized dims
    dl = tuple(range(nd - k))  # leading dims
    n = math.prod(nshape)
    only_gx = (True, False, False)
    mean, rstd = mean.detach(), rstd.detach()
    if needs_grad(x):  # (a graph is being recorded through x)
        # mean + mean(dx) and rstd - rstd^2 * mean(xhat * dx), dx = x - x.detach() = 0
        dx0 = sub(x, x.detach())
        xh0 = mul(sub(x.detach(), mean), rstd)
        mean = add(mean, _mean(dx0, dn, keepdim=True))
        rstd = sub(rstd, mul(mul(rstd, rstd), _mean(mul(xh0, dx0), dn, keepdim=True)))
    xh = mul(sub(x, mean), rstd)
    h = mul(g, w) if w is not None else g
    dg = dx = dw = pvec = extra = None
    if ggx is not None:
        # q = rstd * P(ggx), P(v) = v - mean(v) - xhat * mean(xhat * v): symmetric, so it is
        # also d<ggx, gx>/dh
        q = native_layer_norm_backward(ggx, x, nshape, mean, rstd, None, None, only_gx)[0]
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
        dx = add_grads(native_layer_norm_backward(pvec, x, nshape, mean, rstd, None, None,
                                                  only_gx)[0], extra)
    elif fx:
        dx = extra
    return dg, dx, dw
