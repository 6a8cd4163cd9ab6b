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
    r"""Apply a 3-D convolution over an input volume of several channels.

    As in PyTorch, it is a cross-correlation (:math:`\star`):
    :math:`\text{out}(N_i, C_{out, j}) = \text{bias}(j) + \sum_k \text{weight}(j, k) \star
    \text{input}(N_i, k)`, the sum over the input channels :math:`k` of the group of
    :math:`j`.

    It runs as one 2-D convolution per depth tap of the kernel.

    Args:
        input (Tensor): the input, :math:`(N, C_{in}, D_{in}, H_{in}, W_{in})` or unbatched.
        weight (Tensor): the filters, :math:`(C_{out}, C_{in} / \text{groups}, kD, kH, kW)`.
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
        - Input: :math:`(N, C_{in}, D_{in}, H_{in}, W_{in})` or unbatched.
        - Output: :math:`(N, C_{out}, D_{out}, H_{out}, W_{out})`, each spatial size
          :math:`\lfloor (L_{in} + 2 \text{padding} - \text{dilation} (k - 1) - 1)
          / \text{stride} \rfloor + 1` for a kernel size :math:`k`.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> x = nbgrad.ones(1, 1, 3, 3, 3)
        >>> F.conv3d(x, nbgrad.ones(1, 1, 2, 2, 2)).shape
        nbgrad.Size([1, 1, 2, 2, 2])
        >>> F.conv3d(x, nbgrad.ones(1, 1, 2, 2, 2)).flatten()
        tensor([8., 8., 8., 8., 8., 8., 8., 8.])
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
    r"""Apply a 3-D transposed convolution ("deconvolution") over an input volume.

    It is the gradient of :func:`conv3d` with respect to its input, for the same ``weight``:
    each input element spreads its kernel-weighted copy over the output.

    Args:
        input (Tensor): the input, :math:`(N, C_{in}, D_{in}, H_{in}, W_{in})` or unbatched.
        weight (Tensor): the filters, :math:`(C_{in}, C_{out} / \text{groups}, kD, kH, kW)`.
        bias (Tensor, optional): the bias, of shape :math:`(C_{out})`. Default: ``None``.
        stride (int or tuple, optional): the step of the sliding window: one int or one per
            spatial dimension. Default: ``1``.
        padding (int or tuple, optional): ``dilation * (kernel_size - 1) - padding`` zeros are
            added on both sides of each spatial dimension of the input; in effect ``padding``
            is cropped from each side of the output. Default: ``0``.
        output_padding (int or tuple, optional): extra size added to one side of each spatial
            dimension of the output; it must be smaller than the stride or the dilation.
            Default: ``0``.
        groups (int, optional): the number of groups of input channels, each with its own
            filters; it must divide :math:`C_{in}`. Default: ``1``.
        dilation (int or tuple, optional): the spacing between the kernel's taps.
            Default: ``1``.

    Shape:
        - Input: :math:`(N, C_{in}, D_{in}, H_{in}, W_{in})` or unbatched.
        - Output: :math:`(N, C_{out}, D_{out}, H_{out}, W_{out})`, each spatial size
          :math:`(L_{in} - 1) \text{stride} - 2 \text{padding} + \text{dilation} (k - 1)
          + \text{output\_padding} + 1` for a kernel size :math:`k`.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> x = nbgrad.ones(1, 1, 2, 2, 2)
        >>> F.conv_transpose3d(x, nbgrad.ones(1, 1, 2, 2, 2)).shape
        nbgrad.Size([1, 1, 3, 3, 3])
        >>> F.conv_transpose3d(x, nbgrad.ones(1, 2, 2, 2, 2), stride=2).shape
        nbgrad.Size([1, 2, 4, 4, 4])
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
    r"""Apply 3-D max pooling: the maximum of each window sliding over the input's last 3 dims.

    Among equal maxima the first in :math:`(d, h, w)` order is taken, as in PyTorch, and
    the gradient goes to it.

    Args:
        input (Tensor): the input, :math:`(N, C, D_{in}, H_{in}, W_{in})` or unbatched.
        kernel_size (int or tuple): the window's size, an int or a triple.
        stride (int or tuple, optional): the window's step, an int or a triple. Default: ``None``,
            the kernel size.
        padding (int or tuple, optional): the implicit :math:`-\infty` added on both sides of
            each pooled dimension; at most half the kernel size. Default: ``0``.
        dilation (int or tuple, optional): the spacing between the window's elements.
            Default: ``1``.
        ceil_mode (bool, optional): round the output size up rather than down, so a last
            window may start in the input and run past its end. Default: ``False``.
        return_indices (bool, optional): also return the indices of the maxima, which
            :func:`max_unpool3d` takes: int64, the flat position ``(d * H + h) * W + w``
            of each in its volume. Default: ``False``.

    Returns:
        Tensor, or (Tensor, Tensor) with ``return_indices``: the maxima, and their indices.

    Shape:
        - Input: :math:`(N, C, D_{in}, H_{in}, W_{in})` or unbatched.
        - Output: :math:`(N, C, D_{out}, H_{out}, W_{out})`, each size
          :math:`\lfloor (L_{in} + 2 \text{padding} - \text{dilation}
          (\text{kernel\_size} - 1) - 1) / \text{stride} \rfloor + 1` (rounded up with
          ``ceil_mode``).

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> x = nbgrad.arange(8.0).reshape(1, 1, 2, 2, 2)
        >>> F.max_pool3d(x, 2)
        tensor([[[[[7.]]]]])
        >>> F.max_pool3d(x, (1, 2, 2), return_indices=True)
        (tensor([[[[[3.]],
        <BLANKLINE>
                  [[7.]]]]]), tensor([[[[[3]],
        <BLANKLINE>
                  [[7]]]]]))
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
    r"""Apply 3-D average pooling: the mean of each window sliding over the input's last 3 dims.

    Args:
        input (Tensor): the input, :math:`(N, C, D_{in}, H_{in}, W_{in})` or unbatched.
        kernel_size (int or tuple): the window's size, an int or a triple.
        stride (int or tuple, optional): the window's step, an int or a triple. Default: ``None``,
            the kernel size.
        padding (int or tuple, optional): the implicit zeros added on both sides of each
            pooled dimension; at most half the kernel size. Default: ``0``.
        ceil_mode (bool, optional): round the output size up rather than down, so a last
            window may start in the input and run past its end. Default: ``False``.
        count_include_pad (bool, optional): count the padding zeros in each window's divisor.
            Default: ``True``.
        divisor_override (int, optional): if given, the divisor of every window instead of
            its number of elements. Default: ``None``.

    Shape:
        - Input: :math:`(N, C, D_{in}, H_{in}, W_{in})` or unbatched.
        - Output: :math:`(N, C, D_{out}, H_{out}, W_{out})`, each size
          :math:`\lfloor (L_{in} + 2 \text{padding} - \text{kernel\_size}) / \text{stride}
          \rfloor + 1` (rounded up with ``ceil_mode``).

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> x = nbgrad.arange(8.0).reshape(1, 1, 2, 2, 2)
        >>> F.avg_pool3d(x, 2)
        tensor([[[[[3.5000]]]]])
        >>> F.avg_pool3d(x, (2, 1, 1)).flatten()
        tensor([2., 3., 4., 5.])
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
    r"""Apply 3-D adaptive avg pooling: an output of size ``output_size`` whatever the input's.

    Each output element is the mean of a window of the input.

    Output index :math:`i` along a dimension of size :math:`L_{in}` pools the elements
    :math:`\lfloor i L_{in} / L_{out} \rfloor` to :math:`\lceil (i + 1) L_{in} / L_{out}
    \rceil - 1`, as in PyTorch.

    Args:
        input (Tensor): the input, :math:`(N, C, D_{in}, H_{in}, W_{in})` or unbatched.
        output_size (int or tuple): the target size of the last 3 dim(s):
            an int, or a triple whose entries may be ``None`` (to keep that size).

    Shape:
        - Input: :math:`(N, C, D_{in}, H_{in}, W_{in})` or unbatched.
        - Output: :math:`(N, C, D_{out}, H_{out}, W_{out})`, the sizes ``output_size``.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> x = nbgrad.arange(8.0).reshape(1, 1, 2, 2, 2)
        >>> F.adaptive_avg_pool3d(x, 1)
        tensor([[[[[3.5000]]]]])
        >>> F.adaptive_avg_pool3d(x, (None, 1, 1)).flatten()
        tensor([1.5000, 5.5000])
    """
    od, oh, ow = _adaptive_triple(input, output_size, "adaptive_avg_pool3d")
    x = _batched(input)
    N, C, D, H, W = x.shape
    planes = reshape(adaptive_avg_pool2d(reshape(x, (N, C * D, H, W)), (oh, ow)),
                     (N, C, D, oh, ow))
    out = stack([planes[:, :, a:b].mean(2) for a, b in _windows(D, od)], 2)
    return out if input.ndim == 5 else squeeze(out, 0)


def adaptive_max_pool3d(input, output_size, return_indices=False):
    r"""Apply 3-D adaptive max pooling: an output of size ``output_size`` whatever the input's.

    Each output element is the maximum of a window of the input.

    Output index :math:`i` along a dimension of size :math:`L_{in}` pools the elements
    :math:`\lfloor i L_{in} / L_{out} \rfloor` to :math:`\lceil (i + 1) L_{in} / L_{out}
    \rceil - 1`, as in PyTorch.

    Args:
        input (Tensor): the input, :math:`(N, C, D_{in}, H_{in}, W_{in})` or unbatched.
        output_size (int or tuple): the target size of the last 3 dim(s):
            an int, or a triple whose entries may be ``None`` (to keep that size).
        return_indices (bool, optional): also return the index of each maximum, as for
            :func:`max_pool3d`. Default: ``False``.

    Shape:
        - Input: :math:`(N, C, D_{in}, H_{in}, W_{in})` or unbatched.
        - Output: :math:`(N, C, D_{out}, H_{out}, W_{out})`, the sizes ``output_size``.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> x = nbgrad.arange(8.0).reshape(1, 1, 2, 2, 2)
        >>> F.adaptive_max_pool3d(x, 1)
        tensor([[[[[7.]]]]])
        >>> F.adaptive_max_pool3d(x, (2, 1, 1), return_indices=True)
        (tensor([[[[[3.]],
        <BLANKLINE>
                  [[7.]]]]]), tensor([[[[[3]],
        <BLANKLINE>
                  [[7]]]]]))
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
    r"""Apply 3-D power-average pooling over the input's last 3 dims.

    Each window gives :math:`(\sum_{x \in \text{window}} x^p)^{1 / p}`.

    As in PyTorch it is computed from the windows' mean :math:`a` of :math:`x^p` as
    :math:`(\text{sign}(a) \, \text{relu}(|a|) \, n)^{1 / p}` with :math:`n` elements a window
    (so windows of negative sums give 0, and odd powers of negative inputs may give NaN).

    Args:
        input (Tensor): the input, :math:`(N, C, D_{in}, H_{in}, W_{in})` or unbatched.
        norm_type (float): the power :math:`p`.
        kernel_size (int or tuple): the window's size, an int or a triple.
        stride (int or tuple, optional): the window's step, an int or a triple. Default: ``None``,
            the kernel size.
        ceil_mode (bool, optional): round the output size up rather than down.
            Default: ``False``.

    Shape:
        - Input: :math:`(N, C, D_{in}, H_{in}, W_{in})` or unbatched.
        - Output: :math:`(N, C, D_{out}, H_{out}, W_{out})`, each size
          :math:`\lfloor (L_{in} - \text{kernel\_size}) / \text{stride} \rfloor + 1`
          (rounded up with ``ceil_mode``).

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> F.lp_pool3d(nbgrad.ones(1, 1, 2, 2, 2) * 3, 2, 2)
        tensor([[[[[8.4853]]]]])
    """
    k = _triple(kernel_size, "kernel_size", "lp_pool3d")
    out = avg_pool3d(input.pow(norm_type), k, stride, 0, ceil_mode)
    return lp_from_mean(out, math.prod(k), norm_type)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    r"""Compute a partial inverse of :func:`max_pool3d`, from the values and their indices.

    Each value of ``input`` goes back to the position of its maximum that ``indices`` gives;
    all other elements are zeros.

    Args:
        input (Tensor): the pooled values, :math:`(N, C, D_{in}, H_{in}, W_{in})` or unbatched.
        indices (Tensor): the indices that ``max_pool3d(..., return_indices=True)`` returned
            with ``input``, of its shape.
        kernel_size (int or tuple): the pooling's window size, an int or a triple.
        stride (int or tuple, optional): the pooling's stride. Default: ``None``, the kernel
            size.
        padding (int or tuple, optional): the pooling's padding. Default: ``0``.
        output_size (sequence of int, optional): the size of the output's last 3 dims (the
            whole shape may be given), to tell apart the input sizes that pooled to the same
            size. Default: ``None``, :math:`(L_{in} - 1) \text{stride} - 2 \text{padding} +
            \text{kernel\_size}` each.

    Shape:
        - Input: :math:`(N, C, D_{in}, H_{in}, W_{in})` or unbatched; ``indices`` of the same shape.
        - Output: :math:`(N, C, D_{out}, H_{out}, W_{out})`.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> x = nbgrad.arange(8.0).reshape(1, 1, 2, 2, 2)
        >>> v, i = F.max_pool3d(x, 2, return_indices=True)
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
