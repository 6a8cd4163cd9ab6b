"""Average pooling, composed of ops that have rows: ``avg_pool2d`` is a grouped convolution
with a constant kernel (one group per channel), ``adaptive_avg_pool2d`` the means of
PyTorch's adaptive windows. Both run on every device and differentiate twice through their
parts (the nodes are the parts', not PyTorch's ``AvgPool2DBackward0``). Max pooling is a
row of its own (``ops/conv.py``)."""

import math

from ..creation import ones
from ..dtypes import float64, int64
from ._core import check_tensor, no_kernel_for
from .concat import stack
from .conv import _pool_out, _pool_pair, conv2d
from .elementwise import div, mul
from .pad import pad
from .shape import reshape


def _planes(input):
    """``input`` (N, C, H, W) or (C, H, W) as (N*C, 1, H, W), and the function that gives
    a result of that form back the input's leading dims."""
    shape = tuple(input.shape)
    lead = shape[:-2]

    def back(r):
        return reshape(r, lead + tuple(r.shape[-2:]))

    return reshape(input, (math.prod(lead), 1) + shape[-2:]), back


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    r"""Apply 2-D average pooling: the mean of each window sliding over the input's last 2 dims.

    Args:
        input (Tensor): the input, :math:`(N, C, H_{in}, W_{in})` or unbatched.
        kernel_size (int or tuple): the window's size, an int or a pair.
        stride (int or tuple, optional): the window's step, an int or a pair. Default: ``None``,
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
        - Input: :math:`(N, C, H_{in}, W_{in})` or unbatched.
        - Output: :math:`(N, C, H_{out}, W_{out})`, each size
          :math:`\lfloor (L_{in} + 2 \text{padding} - \text{kernel\_size}) / \text{stride}
          \rfloor + 1` (rounded up with ``ceil_mode``).

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> x = nbgrad.arange(16.0).reshape(1, 1, 4, 4)
        >>> F.avg_pool2d(x, 2)
        tensor([[[[ 2.5000,  4.5000],
                  [10.5000, 12.5000]]]])
        >>> F.avg_pool2d(x, 2, divisor_override=1)
        tensor([[[[10., 18.],
                  [42., 50.]]]])
    """
    check_tensor(input, "avg_pool2d")
    if input.ndim < 3:  # (PyTorch reads dim -3 first)
        n = input.ndim
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}]"
                         ", but got -3)")
    if input.ndim not in (3, 4):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    if input._dtype.low:  # (computed in float32, rounded once, as PyTorch's CPU kernel)
        return avg_pool2d(input.float(), kernel_size, stride, padding, ceil_mode,
                          count_include_pad, divisor_override).to(input._dtype)
    if input._dtype.name not in ("float32", "float64", "int64"):
        raise no_kernel_for("avg_pool2d", input._dtype)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    kh, kw = _pool_pair(kernel_size, "kernel_size")
    st = _pool_pair(stride, "stride", allow_none=True)
    sh, sw = (kh, kw) if st is None else st
    ph, pw = _pool_pair(padding, "padding")
    if ph > kh // 2 or pw > kw // 2:
        raise RuntimeError("pad should be at most half of effective kernel size, but got "
                           f"pad={max(ph, pw)}, kernel_size={max(kh, kw)} and dilation=1")
    H, W = input.shape[-2:]
    Ho, Wo = _pool_out(H, kh, ph, sh, 1, ceil_mode), _pool_out(W, kw, pw, sw, 1, ceil_mode)
    if Ho <= 0 or Wo <= 0:
        c = input.shape[-3]
        raise RuntimeError(f"Given input size: ({c}x{H}x{W}). Calculated output size: "
                           f"({c}x{max(Ho, 0)}x{max(Wo, 0)}). Output size is too small")
    planes, back = _planes(input)
    integer = not input._dtype.is_floating_point
    if integer:  # summed exactly in float64, then divided as integers are (toward zero)
        if input.numel() and float(abs(input).max()) * kh * kw >= 2.0**53:
            raise RuntimeError("avg_pool2d of int64 values this large is not supported by "
                               "nbgrad yet (their window sums would round)")
        planes = planes.to(float64)
    dt, dev = planes._dtype, planes._device
    # ceil_mode: the last windows may run past the padding; they see zeros there that do not
    # count (PyTorch divides by the window clipped to the padded input)
    eh, ew = (Ho - 1) * sh + kh - (H + 2 * ph), (Wo - 1) * sw + kw - (W + 2 * pw)
    eh, ew = max(eh, 0), max(ew, 0)
    window = ones(1, 1, kh, kw, dtype=dt, device=dev)

    def windows_over(x, p_h, p_w):
        return conv2d(pad(x, (p_w, p_w + ew, p_h, p_h + eh)), window, stride=(sh, sw))

    sums = windows_over(planes, ph, pw)
    if divisor_override:
        count = divisor_override
    elif (count_include_pad or not (ph or pw)) and not (eh or ew):
        count = kh * kw
    elif count_include_pad:  # the padded input's elements under each window
        count = windows_over(ones(1, 1, H + 2 * ph, W + 2 * pw, dtype=dt, device=dev), 0, 0)
    else:  # the real elements under each window
        count = windows_over(ones(1, 1, H, W, dtype=dt, device=dev), ph, pw)
    out = div(sums, count)
    return back(out.trunc().to(int64) if integer else out)


def _adaptive_sizes(output_size):
    if isinstance(output_size, (tuple, list)):
        if len(output_size) != 2:
            raise ValueError("adaptive_avg_pool2d: output_size must be 2")
        return tuple(output_size)
    return (output_size, output_size)


def _windows(n, m):
    """PyTorch's adaptive windows: ``m`` spans ``[floor(i n / m), ceil((i + 1) n / m))``."""
    return [((i * n) // m, -(-((i + 1) * n) // m)) for i in range(m)]


def adaptive_avg_pool2d(input, output_size):
    r"""Apply 2-D adaptive avg pooling: an output of size ``output_size`` whatever the input's.

    Each output element is the mean of a window of the input.

    Output index :math:`i` along a dimension of size :math:`L_{in}` pools the elements
    :math:`\lfloor i L_{in} / L_{out} \rfloor` to :math:`\lceil (i + 1) L_{in} / L_{out}
    \rceil - 1`, as in PyTorch.

    Args:
        input (Tensor): the input, :math:`(N, C, H_{in}, W_{in})` or unbatched.
        output_size (int or tuple): the target size of the last 2 dim(s):
            an int, or a pair whose entries may be ``None`` (to keep that size).

    Shape:
        - Input: :math:`(N, C, H_{in}, W_{in})` or unbatched.
        - Output: :math:`(N, C, H_{out}, W_{out})`, the sizes ``output_size``.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> x = nbgrad.arange(16.0).reshape(1, 1, 4, 4)
        >>> F.adaptive_avg_pool2d(x, 1)
        tensor([[[[7.5000]]]])
        >>> F.adaptive_avg_pool2d(x, (3, None)).shape
        nbgrad.Size([1, 1, 3, 4])
    """
    check_tensor(input, "adaptive_avg_pool2d")
    if input.ndim not in (3, 4):
        raise RuntimeError("adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got "
                           f"{list(input.shape)}")
    H, W = input.shape[-2:]
    oh, ow = _adaptive_sizes(output_size)
    oh, ow = H if oh is None else int(oh), W if ow is None else int(ow)
    if oh == 0 or ow == 0:  # (an empty result, still in the graph)
        return mul(input[..., :1, :1], 0.0).expand(tuple(input.shape[:-2]) + (oh, ow))
    if H % oh == 0 and W % ow == 0:  # equal windows that tile the plane: one pooling
        return avg_pool2d(input, (H // oh, W // ow))
    rows = []
    for r0, r1 in _windows(H, oh):
        rows.append(stack([input[..., r0:r1, c0:c1].mean((-2, -1))
                           for c0, c1 in _windows(W, ow)], -1))
    return stack(rows, -2)
