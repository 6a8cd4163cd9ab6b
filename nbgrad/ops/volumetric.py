"""3-d convolution and pooling over (N, C, D, H, W), composed of the 2-d rows: a plane of
depth is an image, so each op runs its 2-d form over the planes (or, for a convolution,
over the kernel's depth taps) and combines the depth windows with ops that have backward
rules. Every device, derivatives of any order; the nodes are the parts'."""

import math

import numpy as np

from ..amp.policy import autocast_op
from ..creation import tensor, zeros
from ._core import check_tensor
from .concat import stack
from .conv import _conv_pair, _pool_out, _tensor_arg, check_shapes, conv2d, max_pool2d
from .conv_variants import _transposed_sizes, conv_transpose2d
from .elementwise import add, div, mul
from .index import gather
from .pad import pad as _pad
from .pooling import _windows, adaptive_avg_pool2d, avg_pool2d
from .pooling_more import _unpool_size, adaptive_max_pool2d, lp_from_mean
from .shape import permute, reshape, squeeze, unsqueeze


def _batched(input):
    """``input`` (N, C, D, H, W), an unbatched (C, D, H, W) one given a batch of one."""
    return input if input.ndim == 5 else unsqueeze(input, 0)


def _triple(v, what, op):
    """A pooling size: an int, or a sequence of one or three ints."""
    if isinstance(v, (tuple, list)):
        if len(v) not in (1, 3):
            raise RuntimeError(f"{op}: {what} must either be a single int, or a tuple of "
                               "three ints")
        v = tuple(int(x) for x in v)
        return v * 3 if len(v) == 1 else v
    return (int(v),) * 3


def _operands(op, input, weight, stride):
    """A 3-d convolution's checks of its tensors (PyTorch's messages): its stride triple."""
    _tensor_arg(input, "input", op, 1)
    _tensor_arg(weight, "weight", op, 2)
    if input.ndim not in (4, 5):
        raise RuntimeError(f"Expected 4D (unbatched) or 5D (batched) input to {op}, but got "
                           f"input of size: {list(input.shape)}")
    stride = _conv_pair(stride, "stride", 3)
    if weight.ndim != 5:
        raise RuntimeError(
            f"expected stride to be a single integer value or a list of {weight.ndim - 2} "
            f"values to match the convolution dimensions, but got stride={list(stride)}")
    return stride


@autocast_op("conv3d")
def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-D convolution (cross-correlation) of ``input`` (N, C, D, H, W) or (C, D, H, W) with
    ``weight`` (O, C/groups, kd, kh, kw); ``padding`` an int, a triple, 'valid' or 'same'.
    Runs as ``kd`` 2-D convolutions, one per depth tap, over the planes that tap reads.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.ones(1, 1, 3, 3, 3)
        >>> nbgrad.nn.functional.conv3d(x, nbgrad.ones(1, 1, 2, 2, 2)).shape
        nbgrad.Size([1, 1, 2, 2, 2])
    """
    stride = _operands("conv3d", input, weight, stride)
    dilation = _conv_pair(dilation, "dilation", 3)
    same = padding == "same"
    if isinstance(padding, str):
        if padding not in ("valid", "same"):
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        if same and stride != (1, 1, 1):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        pads = (0, 0, 0)
    else:
        pads = _conv_pair(padding, "padding", 3)
    if min(pads) < 0:
        raise RuntimeError("negative padding is not supported")
    if min(stride) <= 0:
        raise RuntimeError("non-positive stride is not supported")
    if min(dilation) <= 0:
        raise RuntimeError("non-positive dilation is not supported")
    x = _batched(input)
    N, C, D, H, W = x.shape
    ws = tuple(weight.shape)
    O, kd = ws[0], ws[2]
    eff = tuple(d * (k - 1) + 1 for d, k in zip(dilation, ws[2:]))
    # 'same': each dim's total padding d * (k - 1), the odd one extra at the end
    total = tuple(e - 1 for e in eff) if same else tuple(2 * p for p in pads)
    check_shapes(x, ws, bias, int(groups), tuple(n + t for n, t in zip((D, H, W), total)), eff)
    if total[0]:
        x = _pad(x, (0, 0, 0, 0, total[0] // 2, total[0] - total[0] // 2))
    Do = (D + total[0] - eff[0]) // stride[0] + 1
    flat = None
    for a in range(kd):
        start = a * dilation[0]
        planes = x[:, :, start:start + (Do - 1) * stride[0] + 1:stride[0]]
        planes = reshape(permute(planes, (0, 2, 1, 3, 4)), (N * Do, C, H, W))
        y = conv2d(planes, weight[:, :, a], None, stride[1:], "same" if same else pads[1:],
                   dilation[1:], groups)
        flat = y if flat is None else add(flat, y)
    out = permute(reshape(flat, (N, Do, O) + tuple(flat.shape[2:])), (0, 2, 1, 3, 4))
    if bias is not None:
        out = add(out, reshape(bias, (1, O, 1, 1, 1)))
    return out if input.ndim == 5 else squeeze(out, 0)


@autocast_op("conv_transpose3d")
def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                     groups=1, dilation=1):
    """3-D transposed convolution of ``input`` (N, C_in, D, H, W) or (C_in, D, H, W) with
    ``weight`` (C_in, C_out/groups, kd, kh, kw): the gradient of a conv3d with that weight.
    Each depth tap's ``conv_transpose2d`` of every input plane lands on the output planes
    ``d * stride + tap * dilation``; those are summed, then ``padding`` cropped.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.ones(1, 1, 2, 2, 2)
        >>> nbgrad.nn.functional.conv_transpose3d(x, nbgrad.ones(1, 1, 2, 2, 2)).shape
        nbgrad.Size([1, 1, 3, 3, 3])
    """
    st = _operands("conv_transpose3d", input, weight, stride)
    pad, opad = _conv_pair(padding, "padding", 3), _conv_pair(output_padding, "output_padding", 3)
    dil = _conv_pair(dilation, "dilation", 3)
    x = _batched(input)
    N, C, D, H, W = x.shape
    kd = weight.shape[2]
    Cout, (Do, Ho, Wo) = _transposed_sizes(x, weight, bias, int(groups), st, pad, opad, dil)
    full = Do + 2 * pad[0]  # (the depth before the padding is cropped)
    planes = reshape(permute(x, (0, 2, 1, 3, 4)), (N * D, C, H, W))
    out = None
    for a in range(kd):
        y = conv_transpose2d(planes, weight[:, :, a], None, st[1:], pad[1:], opad[1:], groups,
                             dil[1:])
        y = permute(reshape(y, (N, D, Cout, Ho, Wo)), (0, 2, 1, 3, 4))
        if st[0] > 1:  # (stride - 1 empty planes after each)
            gaps = [y] + [mul(y, 0.0).detach()] * (st[0] - 1)
            y = reshape(stack(gaps, 3), (N, Cout, D * st[0], Ho, Wo))[:, :, :(D - 1) * st[0] + 1]
        first = a * dil[0]
        y = _pad(y, (0, 0, 0, 0, first, full - first - y.shape[2]))
        out = y if out is None else add(out, y)
    out = out[:, :, pad[0]:pad[0] + Do]
    if bias is not None:
        out = add(out, reshape(bias, (1, Cout, 1, 1, 1)))
    return out if input.ndim == 5 else squeeze(out, 0)


def _pool_args(input, kernel_size, stride, padding, dilation, op):
    check_tensor(input, op)
    if input.ndim not in (4, 5) or 0 in input.shape[-4:]:
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    k = _triple(kernel_size, "kernel_size", op)
    s = k if stride is None or stride == [] or stride == () else _triple(stride, "stride", op)
    return k, s, _triple(padding, "padding", op), _triple(dilation, "dilation", op)


def _depth_windows(v, k, s, p, d, Do, fill):
    """The depth windows of ``v`` (N, C, D, ...): (N, C, Do, ..., k) of the taps each
    output plane reads (``fill`` where a tap lies in the padding)."""
    D = v.shape[2]
    span = (k - 1) * d + 1
    right = max(0, (Do - 1) * s + span - D - p)
    if p or right:
        v = _pad(v, (0, 0, 0, 0, p, right), value=fill)
    w = v.unfold(2, span, s)
    return w[..., ::d] if d > 1 else w


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """3-D max pooling over (N, C, D, H, W) or (C, D, H, W): ``max_pool2d`` over each depth
    plane, then the maximum over each depth window (the first of equal maxima in (d, h, w)
    order, as PyTorch's, which the gradient follows); ``return_indices``: positions in the
    flattened D*H*W volume.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.arange(8.0).reshape(1, 1, 2, 2, 2)
        >>> nbgrad.nn.functional.max_pool3d(x, 2)
        tensor([[[[[7.]]]]])
    """
    k, s, p, d = _pool_args(input, kernel_size, stride, padding, dilation, "max_pool3d")
    x = _batched(input)
    N, C, D, H, W = x.shape
    Do = _pool_out(D, k[0], p[0], s[0], d[0], ceil_mode)
    Ho = _pool_out(H, k[1], p[1], s[1], d[1], ceil_mode)
    Wo = _pool_out(W, k[2], p[2], s[2], d[2], ceil_mode)
    if min(Do, Ho, Wo) <= 0:
        raise RuntimeError(f"Given input size: ({C}x{D}x{H}x{W}). Calculated output size: "
                           f"({C}x{Do}x{Ho}x{Wo}). Output size is too small")
    v2, i2 = max_pool2d(reshape(x, (N, C * D, H, W)), k[1:], s[1:], p[1:], d[1:], ceil_mode,
                        return_indices=True)
    v2 = reshape(v2, (N, C, D, Ho, Wo))
    out, a = _depth_windows(v2, k[0], s[0], p[0], d[0], Do, -math.inf).max(-1)
    if not return_indices:
        return out if input.ndim == 5 else squeeze(out, 0)
    # the chosen plane, and the position in it max_pool2d found there
    planes = reshape(i2, (N, C, D, Ho, Wo))
    win = _depth_windows(planes, k[0], s[0], p[0], d[0], Do, 0)
    hw = squeeze(gather(win, -1, unsqueeze(a, -1)), -1)
    starts = tensor(np.arange(Do) * s[0] - p[0], device=x.device).reshape(1, 1, Do, 1, 1)
    idx = add(mul(add(starts, mul(a, d[0])), H * W), hw)
    if input.ndim == 4:
        return squeeze(out, 0), squeeze(idx, 0)
    return out, idx


def _counts(n, k, s, p, m, include_pad):
    """PyTorch's divisor of each of ``m`` average windows along one dim: the window's size
    inside the padded input, or (``include_pad=False``) inside the input."""
    out = []
    for o in range(m):
        start = o * s - p
        end = min(start + k, n + p)
        size = end - start
        out.append(size if include_pad else min(end, n) - max(start, 0))
    return np.array(out, dtype=np.float64)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """3-D average pooling over (N, C, D, H, W) or (C, D, H, W): the window sums of each
    depth plane (``avg_pool2d`` with a divisor of 1), summed over each depth window, over
    PyTorch's divisor (the window's size, without the padding when
    ``count_include_pad=False``, or ``divisor_override``).

    Example::

        >>> import nbgrad
        >>> x = nbgrad.arange(8.0).reshape(1, 1, 2, 2, 2)
        >>> nbgrad.nn.functional.avg_pool3d(x, 2)
        tensor([[[[[3.5000]]]]])
    """
    k, s, p, _ = _pool_args(input, kernel_size, stride, padding, 1, "avg_pool3d")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    x = _batched(input)
    N, C, D, H, W = x.shape
    if any(n + 2 * q < kk for n, q, kk in zip((D, H, W), p, k)):
        raise RuntimeError(f"input image (T: {D} H: {H} W: {W}) smaller than kernel size "
                           f"(kT: {k[0]} kH: {k[1]} kW: {k[2]})")
    Do = _pool_out(D, k[0], p[0], s[0], 1, ceil_mode)
    sums = avg_pool2d(reshape(x, (N, C * D, H, W)), k[1:], s[1:], p[1:], ceil_mode, True, 1)
    Ho, Wo = sums.shape[-2:]
    sums = _depth_windows(reshape(sums, (N, C, D, Ho, Wo)), k[0], s[0], p[0], 1, Do, 0.0)
    total = sums.sum(-1)
    if divisor_override is not None:
        out = div(total, divisor_override)
    else:
        c = [_counts(n, kk, ss, q, m, count_include_pad)
             for n, kk, ss, q, m in zip((D, H, W), k, s, p, (Do, Ho, Wo))]
        divisor = c[0][:, None, None] * c[1][None, :, None] * c[2][None, None, :]
        out = div(total, tensor(divisor, dtype=x.dtype, device=x.device))
    return out if input.ndim == 5 else squeeze(out, 0)


def _adaptive_triple(input, output_size, op):
    check_tensor(input, op)
    if input.ndim not in (4, 5):
        sep = ":" if op == "adaptive_max_pool3d" else ""
        raise RuntimeError(f"{op}(): Expected 4D or 5D tensor, but got{sep} "
                           f"{list(input.shape)}")
    sizes = output_size if isinstance(output_size, (tuple, list)) else (output_size,) * 3
    if len(sizes) != 3:
        raise RuntimeError(f"{op}: output_size must be 3")
    return tuple(n if o is None else int(o) for n, o in zip(input.shape[-3:], sizes))


def adaptive_avg_pool3d(input, output_size):
    """3-D average pooling to a fixed ``output_size`` (an int, a triple; None keeps a dim)
    over (N, C, D, H, W) or (C, D, H, W), with PyTorch's windows: each depth plane pooled
    by ``adaptive_avg_pool2d``, then the planes of each depth window averaged.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.arange(8.0).reshape(1, 1, 2, 2, 2)
        >>> nbgrad.nn.functional.adaptive_avg_pool3d(x, 1)
        tensor([[[[[3.5000]]]]])
    """
    od, oh, ow = _adaptive_triple(input, output_size, "adaptive_avg_pool3d")
    x = _batched(input)
    N, C, D, H, W = x.shape
    planes = reshape(adaptive_avg_pool2d(reshape(x, (N, C * D, H, W)), (oh, ow)),
                     (N, C, D, oh, ow))
    out = stack([planes[:, :, a:b].mean(2) for a, b in _windows(D, od)], 2)
    return out if input.ndim == 5 else squeeze(out, 0)


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """3-D max pooling to a fixed ``output_size`` over (N, C, D, H, W) or (C, D, H, W), with
    PyTorch's windows (``return_indices``: positions in the flattened D*H*W volume).

    Example::

        >>> import nbgrad
        >>> x = nbgrad.arange(8.0).reshape(1, 1, 2, 2, 2)
        >>> nbgrad.nn.functional.adaptive_max_pool3d(x, 1)
        tensor([[[[[7.]]]]])
    """
    od, oh, ow = _adaptive_triple(input, output_size, "adaptive_max_pool3d")
    x = _batched(input)
    N, C, D, H, W = x.shape
    v2, i2 = adaptive_max_pool2d(reshape(x, (N, C * D, H, W)), (oh, ow), return_indices=True)
    v2, i2 = reshape(v2, (N, C, D, oh, ow)), reshape(i2, (N, C, D, oh, ow))
    vals, idx = [], []
    for a, b in _windows(D, od):
        v, j = v2[:, :, a:b].max(2)
        vals.append(v)
        hw = squeeze(gather(i2[:, :, a:b], 2, unsqueeze(j, 2)), 2)
        idx.append(add(mul(add(j, a), H * W), hw))
    out, idx = stack(vals, 2), stack(idx, 2)
    if input.ndim == 4:
        out, idx = squeeze(out, 0), squeeze(idx, 0)
    return (out, idx) if return_indices else out


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """The ``norm_type``-norm of each 3-d window, computed as PyTorch's: ``(sign(a) relu(|a|)
    kd kh kw)^(1/p)`` of the windows' mean ``a`` of ``x^p`` (``avg_pool3d``).

    Example::

        >>> import nbgrad
        >>> nbgrad.nn.functional.lp_pool3d(nbgrad.ones(1, 1, 2, 2, 2) * 3, 2, 2)
        tensor([[[[[8.4853]]]]])
    """
    k = _triple(kernel_size, "kernel_size", "lp_pool3d")
    out = avg_pool3d(input.pow(norm_type), k, stride, 0, ceil_mode)
    return lp_from_mean(out, math.prod(k), norm_type)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of ``max_pool3d`` with ``return_indices``: a zero (D, H, W) volume with
    each value at its index (into the flattened volume).

    Example::

        >>> import nbgrad
        >>> F = nbgrad.nn.functional
        >>> v, i = F.max_pool3d(nbgrad.arange(8.0).reshape(1, 1, 2, 2, 2), 2, return_indices=True)
        >>> F.max_unpool3d(v, i, 2).flatten().tolist()
        [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 7.0]
    """
    k = _triple(kernel_size, "kernel_size", "max_unpool3d")
    s = k if stride is None else _triple(stride, "stride", "max_unpool3d")
    p = _triple(padding, "padding", "max_unpool3d")
    D, H, W = _unpool_size(input, k, s, p, output_size, 3)
    lead = tuple(input.shape[:-3])
    volume = zeros(lead + (D * H * W,), dtype=input.dtype, device=input.device)
    out = volume.scatter(-1, indices.flatten(-3), input.flatten(-3))
    return out.reshape(lead + (D, H, W))
