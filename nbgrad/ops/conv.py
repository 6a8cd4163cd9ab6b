"""Convolution and pooling: ``conv2d`` (columns + conv_mm) and ``max_pool2d`` (fused kernel).

conv_mm is the matrix product of the weights and the columns that sums every output
position's products in the same order (BLAS does not, so a constant image would give
several values and break max-pool ties that PyTorch keeps exact). conv2d runs as one kernel
(``conv2d_forward``: each image's columns made and multiplied while in cache; no columns
array is kept). Its backward: grad_input = col2im(conv_mm(W^T, grad)) (``conv2d_input_grad``,
image by image too), grad_weight = sum_n grad[n] @ im2col(input)[n]^T (``conv2d_weight_grad``
per image on BLAS, then the sum), grad_bias = grad summed over (N, H, W). Under create_graph
the same formulas are recorded as differentiable ops (``conv_mm``, ``im2col``, ``col2im``,
matmul), so double backward works; ``im2col`` and ``col2im`` are ops whose backward is each
other (they are adjoint linear maps). max_pool2d's backward is the op
``max_pool2d_backward`` (scatter to the argmax positions), whose backward is
``max_pool2d_gather`` (read at the same positions), whose backward is the scatter again.
"""

import operator

import numpy as np

from .. import dtypes as _dt
from ..amp.policy import autocast_op
from ..storage.layout import c_data
from ..tensor import _fresh, _wrap
from ._core import (
    SCALAR_TYPE,
    Tensor,
    backend,
    contiguous_data,
    in_float32,
    kernel,
    needs_grad,
    same_device,
)
from .funcdef import deffunc, same_dtype, surface
from .linalg import matmul
from .reduce import sum as _sum
from .shape import reshape, squeeze, transpose, unsqueeze

__all__ = ["conv2d", "max_pool2d"]

def _trivial(ks, stride, pad, dil):
    # a 1x1 kernel, stride 1, no padding: the columns are the image itself
    return ks == (1, 1) and stride == (1, 1) and pad == (0, 0)


# ----- im2col / col2im: adjoint ops ----------------------------------------------------------
def _im2col_forward(x, odt, dev, kernel_size, stride, padding, dilation, out_hw):
    N, C = x.shape[:2]
    (kh, kw), (Ho, Wo) = kernel_size, out_hw
    cols = backend(dev).empty((N, C * kh * kw, Ho * Wo), odt.np)
    if cols.size:
        kernel("im2col", dev)(c_data(x, dev, odt), cols, kh, kw, *stride, *padding, *dilation,
                              Ho, Wo)
    return cols


def _col2im_forward(c, odt, dev, hw, kernel_size, stride, padding, dilation, out_hw):
    N, CK, _ = c.shape
    kh, kw = kernel_size
    img = backend(dev).empty((N, CK // (kh * kw), *hw), odt.np)
    if img.size:
        kernel("col2im", dev)(c_data(c, dev, odt), img, kh, kw, *stride, *padding, *dilation,
                              *out_hw)
    return img


_ARGS = ("kernel_size", "stride", "padding", "dilation", "out_hw")
IM2COL = deffunc("im2col", kernels=("im2col",), forward=_im2col_forward, dtype=same_dtype,
                 shape=lambda s, ks, st, pad, dil, ohw: (s[0], s[1] * ks[0] * ks[1],
                                                        ohw[0] * ohw[1]),
                 args=_ARGS, fn=False, method=False, node="Im2ColBackward0",
                 grads=("col2im(grad, input_shape[2:], kernel_size, stride, padding, dilation, "
                        "out_hw)",))
COL2IM = deffunc("col2im", kernels=("col2im",), forward=_col2im_forward, dtype=same_dtype,
                 shape=lambda s, hw, ks, *a: (s[0], s[1] // (ks[0] * ks[1])) + tuple(hw),
                 args=("hw",) + _ARGS, fn=False, method=False, node="Col2ImBackward0",
                 grads=("im2col(grad, kernel_size, stride, padding, dilation, out_hw)",))


@surface(IM2COL)
def im2col(input, kernel_size, stride, padding, dilation, out_hw):
    """Columns ``(N, C*kh*kw, Ho*Wo)`` of ``input`` ``(N, C, H, W)`` (PyTorch's ``unfold``).

    ``padding`` is (top, left); ``out_hw`` = (Ho, Wo) fixes the bottom/right padding.
    """
    N, C, H, W = input.shape
    if _trivial(kernel_size, stride, padding, dilation) and tuple(out_hw) == (H, W):
        return reshape(input, (N, C, H * W))
    return IM2COL.call(input, tuple(kernel_size), tuple(stride), tuple(padding),
                       tuple(dilation), tuple(out_hw))


@surface(COL2IM)
def col2im(input, hw, kernel_size, stride, padding, dilation, out_hw):
    """The adjoint of ``im2col``: columns ``(N, C*kh*kw, Ho*Wo)`` summed back onto an
    ``(N, C, H, W)`` image (PyTorch's ``fold``)."""
    N, CK, L = input.shape
    H, W = hw
    C = CK // (kernel_size[0] * kernel_size[1])
    if _trivial(kernel_size, stride, padding, dilation) and tuple(out_hw) == (H, W):
        return reshape(input, (N, C, H, W))
    return COL2IM.call(input, tuple(hw), tuple(kernel_size), tuple(stride), tuple(padding),
                       tuple(dilation), tuple(out_hw))


# ----- conv_mm: the weights times the columns, the same summation order at every position ----
def _conv_mm_forward(a, b, odt, dev):
    G, O, K = a.shape
    N, _, _, L = b.shape
    out = backend(dev).empty((N, G, O, L), odt.np)
    if out.size:
        kernel("conv_mm", dev)(c_data(a, dev, odt), c_data(b, dev, odt), out)
    return out


CONV_MM = deffunc("conv_mm", params=("a", "b"), kernels=("conv_mm",), forward=_conv_mm_forward,
                  dtype=lambda a, b: a, shape=lambda sa, sb: (sb[0], sa[0], sa[1], sb[3]),
                  fn=False, method=False, torch_names={},
                  # a reduction over positions (no order to keep), and conv_mm again
                  grads=("_sum(matmul(grad, transpose(b, 2, 3)), 0)",
                         "conv_mm(transpose(a, 1, 2), grad)"))


@surface(CONV_MM)
def conv_mm(a, b):
    """``a[g] @ b[n, g]`` for ``a`` (G, O, K) and ``b`` (N, G, K, L): (N, G, O, L), each
    output summing its K products in k order, the same at every position."""
    return CONV_MM.call(a, b)


# ----- conv2d ----------------------------------------------------------------------------------
def _int(v, op, name):
    try:
        if isinstance(v, bool):
            raise TypeError
        return int(operator.index(v))
    except TypeError:
        raise TypeError(
            f"{op}(): argument '{name}' must be tuple of ints, but found element of type "
            f"{type(v).__name__}"
        ) from None


def _conv_pair(v, name, n=2):
    if isinstance(v, (tuple, list)):
        vals = [_int(x, "conv2d", name) for x in v]
        if len(vals) == 1:
            vals = vals * n
        if len(vals) != n:
            raise RuntimeError(
                f"expected {name} to be a single integer value or a list of {n} values to "
                f"match the convolution dimensions, but got {name}={vals}"
            )
        return tuple(vals)
    x = _int(v, "conv2d", name)
    return (x,) * n


def _tensor_arg(x, name, op, pos):
    if not isinstance(x, Tensor):
        raise TypeError(
            f"{op}(): argument '{name}' (position {pos}) must be Tensor, not {type(x).__name__}"
        )


@in_float32
def convolution_backward(g, x, w, stride, pad, dil, groups, ohw, mask):
    """conv2d's gradients ``(grad_input, grad_weight, grad_bias)`` (None where ``mask`` is
    False). Without a graph to record, each from one kernel (image by image where it
    can); under create_graph from the differentiable ops (``conv_mm``, ``col2im``,
    ``im2col``, matmul) with the same values, so derivatives of any order work."""
    xs, ws = tuple(x.shape), tuple(w.shape)
    N, C, H, W = xs
    O, Cg, kh, kw = ws
    G, Og, Kg, L = groups, O // groups, Cg * kh * kw, ohw[0] * ohw[1]
    ks = (kh, kw)
    gx = gw = gb = None
    # one copy of an expanded grad (from .sum()) keeps the GEMMs below on BLAS
    g = g.contiguous()
    if mask[0]:
        wt = transpose(reshape(w, (G, Og, Kg)), 1, 2)  # (G, Kg, Og)
        g4 = reshape(g, (N, G, Og, L))
        if needs_grad(g, w):  # a double backward: the ops, recorded
            gcols = reshape(conv_mm(wt, g4), (N, C * kh * kw, L))
            gx = col2im(gcols, (H, W), ks, stride, pad, dil, ohw)
        else:  # the same values from one kernel (image by image where it can)
            gxd = backend(g._device).empty(xs, g._dtype.np)
            if gxd.size:
                kernel("conv2d_input_grad", g._device)(wt._data, g4._data, gxd, kh, kw,
                                                       *stride, *pad, *dil, *ohw)
            gx = _fresh(gxd, g._dtype, g._device)
    if mask[1]:
        image = _trivial(ks, stride, pad, dil) and tuple(ohw) == (H, W)  # its own columns
        if not image and not needs_grad(x, g):
            # one kernel (each image's columns made and used in cache), then the sum over
            # the images: the values of the ops below
            gwd = backend(g._device).empty((N, G, Og, Kg), g._dtype.np)
            if gwd.size:
                kernel("conv2d_weight_grad", g._device)(
                    contiguous_data(x), reshape(g, (N, G, Og, L))._data, gwd, kh, kw,
                    *stride, *pad, *dil, *ohw)
            gw = reshape(_sum(_fresh(gwd, g._dtype, g._device), 0), ws)
        else:
            cols = reshape(im2col(x, ks, stride, pad, dil, ohw), (N, G, Kg, L))
            gw = reshape(_sum(matmul(reshape(g, (N, G, Og, L)), transpose(cols, 2, 3)), 0), ws)
    if mask[2]:
        # a GEMV with ones runs ~10x faster here than the (0, 2, 3) reduction
        ones = _wrap(backend(g._device).full((L,), 1, g._dtype.np), g._dtype, g._device)
        gb = _sum(matmul(reshape(g, (N, O, L)), ones), 0)
    return gx, gw, gb


def check_shapes(x, ws, bias, groups, padded, eff):
    """PyTorch's checks of a convolution's operands against each other, in its order:
    ``x`` the batched input, ``ws`` the weight's sizes, ``padded`` the input's padded
    spatial sizes and ``eff`` the dilated kernel's."""
    O, Cg = ws[0], ws[1]
    C = x.shape[1]
    if O < groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, "
            f"but got weight of size {list(ws)} instead"
        )
    if O % groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension "
            f"0, but got weight of size [{list(ws)}] instead"
        )
    if C != Cg * groups:
        raise RuntimeError(
            f"Given groups={groups}, weight of size {list(ws)}, expected input{list(x.shape)} to "
            f"have {Cg * groups} channels, but got {C} channels instead"
        )
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != O):
        raise RuntimeError(
            f"Given weight of size {list(ws)}, expected bias to be 1-dimensional with {O} "
            f"elements, but got bias of size {list(bias.shape)} instead"
        )
    if any(p < e for p, e in zip(padded, eff)):
        raise RuntimeError(
            f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). "
            f"Kernel size: ({' x '.join(map(str, eff))}). Kernel size can't be greater than "
            "actual input size"
        )


def _conv2d_forward(x, w, b, odt, dev, stride, padding, dilation, groups, out_hw):
    N, C, H, W = x.shape
    O, Cg, kh, kw = w.shape
    G, Og, Kg, L = groups, O // groups, Cg * kh * kw, out_hw[0] * out_hw[1]
    be = backend(dev)
    out = (be.zeros if Kg == 0 else be.empty)((N, O) + tuple(out_hw), odt.np)
    if out.size:
        if Kg:
            w3 = c_data(w, dev, odt).reshape(G, Og, Kg)
            if _trivial((kh, kw), stride, padding, dilation) and tuple(out_hw) == (H, W):
                cols = c_data(x, dev, odt).reshape(N, G, Kg, L)  # the image is its own columns
                kernel("conv_mm", dev)(w3, cols, out.reshape(N, G, Og, L))
            else:
                kernel("conv2d_forward", dev)(c_data(x, dev, odt), w3, out.reshape(N, O, L), kh,
                                              kw, *stride, *padding, *dilation, *out_hw)
        if b is not None:
            kernel("conv2d_bias_add", dev)(out.reshape(N, O, L), c_data(b, dev, odt))
    return out


CONV2D = deffunc(
    "conv2d", params=("input", "weight", "bias"), optional=("bias",),
    kernels=("conv2d_forward", "conv_mm", "conv2d_bias_add"), forward=_conv2d_forward,
    dtype=lambda x, w, b, *args: x,
    shape=lambda sx, sw, sb, st, pad, dil, groups, ohw: (sx[0], sw[0]) + tuple(ohw),
    args=("stride", "padding", "dilation", "groups", "out_hw"), node="ConvolutionBackward0",
    grads={"input, weight, bias": "convolution_backward(grad, input, weight, stride, "
           "padding, dilation, groups, out_hw, grad_input_mask)"},
    torch_names={}, method=False)


@surface(CONV2D)
@autocast_op("conv2d")
def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    r"""Apply a 2-D convolution over an input image of several channels.

    As in PyTorch, it is a cross-correlation (:math:`\star`):
    :math:`\text{out}(N_i, C_{out, j}) = \text{bias}(j) + \sum_k \text{weight}(j, k) \star
    \text{input}(N_i, k)`, the sum over the input channels :math:`k` of the group of
    :math:`j`.

    Args:
        input (Tensor): the input, :math:`(N, C_{in}, H_{in}, W_{in})` or unbatched.
        weight (Tensor): the filters, :math:`(C_{out}, C_{in} / \text{groups}, kH, kW)`.
        bias (Tensor, optional): the bias, of shape :math:`(C_{out})`. Default: ``None``.
        stride (int or tuple, optional): the step of the sliding window: one int or one per
            spatial dimension. Default: ``1``.
        padding (int, tuple or str, optional): the implicit zeros added on both sides of each
            spatial dimension: one int, one per dimension, ``"valid"`` (none) or ``"same"``
            (the output keeps the input's size; only with a stride of 1). Default: ``0``.
        dilation (int or tuple, optional): the spacing between the kernel's taps.
            Default: ``1``.
        groups (int, optional): the number of groups the input channels are split into, each
            convolved with its own :math:`C_{out} / \text{groups}` filters; it must divide
            :math:`C_{in}` and :math:`C_{out}`. Default: ``1``.

    Shape:
        - Input: :math:`(N, C_{in}, H_{in}, W_{in})` or unbatched.
        - Output: :math:`(N, C_{out}, H_{out}, W_{out})`, each spatial size
          :math:`\lfloor (L_{in} + 2 \text{padding} - \text{dilation} (k - 1) - 1)
          / \text{stride} \rfloor + 1` for a kernel size :math:`k`.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> x = nbgrad.arange(16.0).reshape(1, 1, 4, 4)
        >>> w = nbgrad.ones(2, 1, 3, 3)
        >>> F.conv2d(x, w, bias=nbgrad.tensor([0.0, 100.0]))
        tensor([[[[ 45.,  54.],
                  [ 81.,  90.]],
        <BLANKLINE>
                 [[145., 154.],
                  [181., 190.]]]])
        >>> F.conv2d(x, w, stride=2, padding=1).shape
        nbgrad.Size([1, 2, 2, 2])
        >>> _ = nbgrad.manual_seed(0)
        >>> F.conv2d(nbgrad.randn(8, 4, 5, 5), nbgrad.randn(6, 2, 3, 3), groups=2).shape
        nbgrad.Size([8, 6, 3, 3])
    """
    _tensor_arg(input, "input", "conv2d", 1)
    _tensor_arg(weight, "weight", "conv2d", 2)
    if bias is not None:
        _tensor_arg(bias, "bias", "conv2d", 3)
    if input.ndim not in (3, 4):
        raise RuntimeError(
            "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: "
            f"{list(input.shape)}"
        )
    stride = _conv_pair(stride, "stride")
    dilation = _conv_pair(dilation, "dilation")
    same = False
    if isinstance(padding, str):
        if padding not in ("valid", "same"):
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        same = padding == "same"
        pad = (0, 0)
    else:
        pad = _conv_pair(padding, "padding")
    if weight.ndim < 3:
        raise RuntimeError("weight should have at least three dimensions")
    if weight.ndim != 4:
        raise RuntimeError(
            f"expected stride to be a single integer value or a list of {weight.ndim - 2} "
            f"values to match the convolution dimensions, but got stride={list(stride)}"
        )
    same_device("conv2d", input, weight, bias)
    dt = input._dtype
    if bias is not None and bias._dtype is not dt:
        raise RuntimeError(
            f"Input type ({dt.cpp}) and bias type ({bias._dtype.cpp}) should be "
            "the same"
        )
    groups = _int(groups, "conv2d", "groups")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if min(pad) < 0:
        raise RuntimeError("negative padding is not supported")
    if min(stride) <= 0:
        raise RuntimeError("non-positive stride is not supported")
    if min(dilation) < 0:
        raise RuntimeError("dilation should be greater than zero")
    if min(dilation) == 0:
        raise RuntimeError(f"dilation should be greater than zero, but got {list(dilation)}")
    if same and stride != (1, 1):
        raise RuntimeError("padding='same' is not supported for strided convolutions")

    x = input if input.ndim == 4 else unsqueeze(input, 0)
    N, C, H, W = x.shape
    ws = tuple(weight.shape)
    O, Cg, kh, kw = ws
    dh, dw = dilation
    if same:  # total padding d*(k-1) per dim, the odd one extra at the bottom/right
        th, tw = dh * (kh - 1), dw * (kw - 1)
        pad = (th // 2, tw // 2)
        pad_hw = (th, tw)
    else:
        pad_hw = (2 * pad[0], 2 * pad[1])
    eff = (dh * (kh - 1) + 1, dw * (kw - 1) + 1)
    check_shapes(x, ws, bias, groups, (H + pad_hw[0], W + pad_hw[1]), eff)
    if kh <= 0 or kw <= 0:
        raise RuntimeError(
            f"kernel size should be greater than zero, but got kernel_height: {kh} "
            f"kernel_width: {kw}"
        )
    if weight._dtype is not dt:
        raise RuntimeError(
            f"expected scalar type {SCALAR_TYPE[dt.name]} but found {SCALAR_TYPE[weight._dtype.name]}"
        )
    if dt is _dt.bool_:
        raise NotImplementedError("\"slow_conv2d_cpu\" not implemented for 'Bool'")

    Ho = (H + pad_hw[0] - eff[0]) // stride[0] + 1
    Wo = (W + pad_hw[1] - eff[1]) // stride[1] + 1
    res = CONV2D.call(x, weight, bias, stride, pad, dilation, groups, (Ho, Wo))
    return res if input.ndim == 4 else squeeze(res, 0)


# ----- max_pool2d --------------------------------------------------------------------------
def _pool_pair(v, what, allow_none=False):
    if allow_none and (v is None or (isinstance(v, (tuple, list)) and len(v) == 0)):
        return None
    msg = {
        "kernel_size": "max_pool2d: kernel_size must either be a single int, or a tuple of two ints",
        "stride": "max_pool2d: stride must either be omitted, a single int, or a tuple of two ints",
        "padding": "max_pool2d: padding must either be a single int, or a tuple of two ints",
        "dilation": "max_pool2d: dilation must be either a single int, or a tuple of two ints",
    }[what]
    if isinstance(v, (tuple, list)):
        if len(v) not in (1, 2):
            raise RuntimeError(msg)
        vals = tuple(_int(x, "max_pool2d", what) for x in v)
        return vals * 2 if len(vals) == 1 else vals
    x = _int(v, "max_pool2d", what)
    return (x, x)


def _cdiv(a, b):
    """C's integer division (truncates toward zero)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def _pool_out(size, k, pad, stride, dil, ceil_mode):
    """PyTorch's pooling_output_shape, with its checks."""
    if stride == 0:
        raise RuntimeError("stride should not be zero")
    if pad < 0:
        raise RuntimeError(f"pad must be non-negative, but got pad: {pad}")
    if pad > _cdiv((k - 1) * dil + 1, 2):
        raise RuntimeError(
            f"pad should be at most half of effective kernel size, but got pad={pad}, "
            f"kernel_size={k} and dilation={dil}"
        )
    num = size + 2 * pad - dil * (k - 1) - 1 + (stride - 1 if ceil_mode else 0)
    out = num // stride + 1
    if ceil_mode and (out - 1) * stride >= size + pad:
        out -= 1
    return out


def _pool_forward(x, odts, dev, kernel_size, stride, padding, dilation, out_hw):
    dt = odts[0]
    lead = x.shape[:-2]
    P = int(np.prod(lead, dtype=np.int64))
    be = backend(dev)
    vals = be.empty((P,) + tuple(out_hw), dt.np)
    idx = be.empty((P,) + tuple(out_hw), np.int64)
    if vals.size:
        lowest = dt.np.type(-np.inf if dt.is_floating_point else np.iinfo(dt.np).min)
        kernel("max_pool2d", dev)(c_data(x, dev, dt).reshape((P,) + x.shape[-2:]), vals, idx,
                                  *kernel_size, *stride, *padding, *dilation, lowest)
    oshape = tuple(lead) + tuple(out_hw)
    return vals.reshape(oshape), idx.reshape(oshape)


_POOL = ("kernel_size", "stride", "padding", "dilation", "out_hw")
# the values and the flat ``h*W + w`` positions of the maxima in each input plane; the
# gradient is scattered to those positions, and that scatter's derivative reads them
MAX_POOL2D = deffunc(
    "max_pool2d", kernels=("max_pool2d",), forward=_pool_forward,
    dtype=lambda dt, *args: (dt, _dt.int64),
    shape=lambda s, ks, st, pad, dil, ohw: (tuple(s[:-2]) + tuple(ohw),) * 2,
    args=_POOL, outputs=("result", "result1"), node="MaxPool2DWithIndicesBackward0",
    grads=("max_pool2d_backward(grad, result1, input_shape)",), method=False)


def _planes(a, lead, dev, dt=None):
    """Array ``a`` as C-contiguous (P, rest) of dtype ``dt`` (its own when None), with P the
    product of its ``lead`` dims."""
    a = c_data(a, dev, dt)
    return a.reshape(int(np.prod(a.shape[:lead], dtype=np.int64)), -1)


def _scatter_forward(g, idx, odt, dev, input_shape):
    lead = len(input_shape) - 2
    out = backend(dev).empty(tuple(input_shape), odt.np)
    if out.size:
        kernel("max_pool2d_backward", dev)(_planes(g, lead, dev, odt), _planes(idx, lead, dev),
                                           _planes(out, lead, dev))
    return out


def _gather_forward(x, idx, odt, dev):
    lead = x.ndim - 2
    out = backend(dev).empty(tuple(idx.shape), odt.np)
    if out.size:
        kernel("max_pool2d_gather", dev)(_planes(x, lead, dev, odt), _planes(idx, lead, dev),
                                         _planes(out, lead, dev))
    return out


MAX_POOL2D_BACKWARD = deffunc(
    "max_pool2d_backward", params=("grad_output", "indices"), kernels=("max_pool2d_backward",),
    forward=_scatter_forward, dtype=lambda g, i, s: g, shape=lambda sg, si, s: tuple(s),
    args=("input_shape",), node="MaxPool2DWithIndicesBackwardBackward0", torch_names={},
    fn=False, method=False, grads=("max_pool2d_gather(grad, indices)", None))
MAX_POOL2D_GATHER = deffunc(
    "max_pool2d_gather", params=("input", "indices"), kernels=("max_pool2d_gather",),
    forward=_gather_forward, dtype=lambda x, i: x, shape=lambda sx, si: tuple(si),
    node="MaxPool2DGatherBackward0", fn=False, method=False,
    grads=("max_pool2d_backward(grad, indices, input_shape)", None))


@surface(MAX_POOL2D_BACKWARD)
def max_pool2d_backward(grad, indices, input_shape):
    """max_pool2d's backward: zeros of ``input_shape`` with ``grad`` added at ``indices``."""
    return MAX_POOL2D_BACKWARD.call(grad, indices, tuple(input_shape))


@surface(MAX_POOL2D_GATHER)
def max_pool2d_gather(input, indices):
    """``input`` (..., H, W) read at max_pool2d's flat ``indices`` (..., Ho, Wo)."""
    return MAX_POOL2D_GATHER.call(input, indices)


@surface(MAX_POOL2D)
def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    r"""Apply 2-D max pooling: the maximum of each window sliding over the input's last 2 dims.

    Args:
        input (Tensor): the input, :math:`(N, C, H_{in}, W_{in})` or unbatched.
        kernel_size (int or tuple): the window's size, an int or a pair.
        stride (int or tuple, optional): the window's step, an int or a pair. Default: ``None``,
            the kernel size.
        padding (int or tuple, optional): the implicit :math:`-\infty` added on both sides of
            each pooled dimension; at most half the kernel size. Default: ``0``.
        dilation (int or tuple, optional): the spacing between the window's elements.
            Default: ``1``.
        ceil_mode (bool, optional): round the output size up rather than down, so a last
            window may start in the input and run past its end. Default: ``False``.
        return_indices (bool, optional): also return the indices of the maxima, which
            :func:`max_unpool2d` takes: int64, the flat position ``h * W + w`` of each in its plane.
            Default: ``False``.

    Returns:
        Tensor, or (Tensor, Tensor) with ``return_indices``: the maxima, and their indices.

    Shape:
        - Input: :math:`(N, C, H_{in}, W_{in})` or unbatched.
        - Output: :math:`(N, C, H_{out}, W_{out})`, each size
          :math:`\lfloor (L_{in} + 2 \text{padding} - \text{dilation}
          (\text{kernel\_size} - 1) - 1) / \text{stride} \rfloor + 1` (rounded up with
          ``ceil_mode``).

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> x = nbgrad.arange(16.0).reshape(1, 1, 4, 4)
        >>> F.max_pool2d(x, 2)
        tensor([[[[ 5.,  7.],
                  [13., 15.]]]])
        >>> F.max_pool2d(x, 3, stride=1, padding=1).shape
        nbgrad.Size([1, 1, 4, 4])
        >>> values, indices = F.max_pool2d(x, 2, return_indices=True)
        >>> indices
        tensor([[[[ 5,  7],
                  [13, 15]]]])
    """
    _tensor_arg(input, "input", "max_pool2d", 1)
    ks = _pool_pair(kernel_size, "kernel_size")
    st = _pool_pair(stride, "stride", allow_none=True)
    st = ks if st is None else st
    pad = _pool_pair(padding, "padding")
    dil = _pool_pair(dilation, "dilation")
    shape = tuple(input.shape)
    nd = len(shape)
    if nd not in (3, 4):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    H, W = shape[-2:]
    Ho = _pool_out(H, ks[0], pad[0], st[0], dil[0], ceil_mode)
    Wo = _pool_out(W, ks[1], pad[1], st[1], dil[1], ceil_mode)
    kh, kw = ks
    if kh <= 0 or kw <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {kh} kW: {kw}")
    if st[0] <= 0 or st[1] <= 0:
        raise RuntimeError(
            f"stride should be greater than zero, but got dH: {st[0]} dW: {st[1]}"
        )
    if dil[0] <= 0 or dil[1] <= 0:
        raise RuntimeError(
            f"dilation should be greater than zero, but got dilationH: {dil[0]} "
            f"dilationW: {dil[1]}"
        )
    if (0 in shape[1:]) if nd == 4 else (0 in shape):
        raise RuntimeError(
            "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, "
            f"but got:{list(shape)}"
        )
    if _cdiv(kw, 2) < pad[1] or _cdiv(kh, 2) < pad[0]:
        raise RuntimeError(
            "pad should be smaller than or equal to half of kernel size, but got "
            f"padW = {pad[1]}, padH = {pad[0]}, kW = {kw}, kH = {kh}"
        )
    if Ho < 1 or Wo < 1:
        C = shape[-3]
        raise RuntimeError(
            f"Given input size: ({C}x{H}x{W}). Calculated output size: ({C}x{Ho}x{Wo}). "
            "Output size is too small"
        )
    if input._dtype is _dt.bool_:
        raise NotImplementedError("\"max_pool2d\" not implemented for 'Bool'")
    out, ind = MAX_POOL2D.call(input, ks, st, pad, dil, (Ho, Wo))
    return (out, ind) if return_indices else out
