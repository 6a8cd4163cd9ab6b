"""The other convolutions and 1-d pooling, composed of rows that have backward rules (so
they run on every device and differentiate twice; their nodes are the parts'):
``conv_transpose2d`` is conv2d's input gradient (``conv_mm`` then ``col2im``), and the 1-d
forms are the 2-d ones over a height of one."""

from ..amp.policy import autocast_op
from .conv import _conv_pair, _tensor_arg, col2im, conv2d, conv_mm, max_pool2d
from .pooling import avg_pool2d
from .shape import reshape, squeeze, transpose, unsqueeze


def _one(v, name):
    """A 1-d argument (an int or a one-element sequence) as the 2-d pair ``(1 or 0, v)``."""
    if isinstance(v, (tuple, list)):
        if len(v) != 1:
            raise RuntimeError(f"expected {name} to be a single integer value or a list of 1 "
                               f"values to match the convolution dimensions, but got "
                               f"{name}={list(v)}")
        v = v[0]
    return v


@autocast_op("conv1d")
def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    r"""Apply a 1-D convolution over an input signal of several channels.

    As in PyTorch, it is a cross-correlation (:math:`\star`):
    :math:`\text{out}(N_i, C_{out, j}) = \text{bias}(j) + \sum_k \text{weight}(j, k) \star
    \text{input}(N_i, k)`, the sum over the input channels :math:`k` of the group of
    :math:`j`.

    It runs as :func:`conv2d` over a height of one.

    Args:
        input (Tensor): the input, :math:`(N, C_{in}, L_{in})` or unbatched.
        weight (Tensor): the filters, :math:`(C_{out}, C_{in} / \text{groups}, k)`.
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
        - Input: :math:`(N, C_{in}, L_{in})` or unbatched.
        - Output: :math:`(N, C_{out}, L_{out})`, each spatial size
          :math:`\lfloor (L_{in} + 2 \text{padding} - \text{dilation} (k - 1) - 1)
          / \text{stride} \rfloor + 1` for a kernel size :math:`k`.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> x = nbgrad.arange(5.0).reshape(1, 1, 5)
        >>> F.conv1d(x, nbgrad.ones(1, 1, 2))
        tensor([[[1., 3., 5., 7.]]])
        >>> F.conv1d(x, nbgrad.ones(1, 1, 3), padding="same")
        tensor([[[1., 3., 6., 9., 7.]]])
    """
    _tensor_arg(input, "input", "conv1d", 1)
    _tensor_arg(weight, "weight", "conv1d", 2)
    if input.ndim not in (2, 3):
        raise RuntimeError("Expected 2D (unbatched) or 3D (batched) input to conv1d, but got "
                           f"input of size: {list(input.shape)}")
    if weight.ndim != 3:
        raise RuntimeError(f"Expected 3-dimensional weight for 3-dimensional input, but got "
                           f"{weight.ndim}-dimensional weight of size {list(weight.shape)}")
    pad = padding if isinstance(padding, str) else (0, _one(padding, "padding"))
    out = conv2d(unsqueeze(input, -2), unsqueeze(weight, -2), bias,
                 (1, _one(stride, "stride")), pad, (1, _one(dilation, "dilation")), groups)
    return squeeze(out, -2)


def _transposed_sizes(x, weight, bias, G, st, pad, opad, dil):
    """A transposed convolution's checks (PyTorch's messages) of batched ``x`` (N, C_in,
    *spatial) and ``weight`` (C_in, C_out/G, *kernel): its output channels and sizes."""
    if G <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if min(st) <= 0:
        raise RuntimeError("non-positive stride is not supported")
    if min(pad) < 0:
        raise RuntimeError("negative padding is not supported")
    if min(opad) < 0:
        raise RuntimeError("negative output_padding is not supported")
    if min(dil) <= 0:
        raise RuntimeError("non-positive dilation is not supported")
    names = ("depth", "height", "width")[3 - len(st):]
    if any(o >= s and o >= d for o, s, d in zip(opad, st, dil)):
        raise RuntimeError(
            "output padding must be smaller than either stride or dilation, but got "
            + " ".join(f"output_padding_{n}: {o}" for n, o in zip(names, opad)) + " "
            + " ".join(f"stride_{n}: {s}" for n, s in zip(names, st)) + " "
            + " ".join(f"dilation_{n}: {d}" for n, d in zip(names, dil)))
    ws, C = list(weight.shape), x.shape[1]
    Cin, Cog = ws[0], ws[1]
    if Cin % G:
        raise RuntimeError(f"Given groups={G}, expected weight to be divisible by {G} at "
                           f"dimension 0, but got weight of size [{ws}] instead")
    if C != Cin:
        raise RuntimeError(f"Given transposed=1, weight of size {ws}, expected "
                           f"input{list(x.shape)} to have {Cin} channels, but got {C} channels "
                           "instead")
    Cout = Cog * G
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != Cout):
        raise RuntimeError(f"Given transposed=1, weight of size {ws}, expected bias to be "
                           f"1-dimensional with {Cout} elements, but got bias of size "
                           f"{list(bias.shape)} instead")
    size = tuple(x.shape[2:])
    out = tuple((n - 1) * s - 2 * p + d * (k - 1) + o + 1
                for n, s, p, d, k, o in zip(size, st, pad, dil, ws[2:], opad))
    if min(out) <= 0:
        raise RuntimeError(f"Given input size per channel: ({' x '.join(map(str, size))}). "
                           f"Calculated output size per channel: "
                           f"({' x '.join(map(str, out))}). Output size is too small")
    return Cout, out


@autocast_op("conv_transpose2d")
def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                     groups=1, dilation=1):
    r"""Apply a 2-D transposed convolution ("deconvolution") over an input image.

    It is the gradient of :func:`conv2d` with respect to its input, for the same ``weight``:
    each input element spreads its kernel-weighted copy over the output.

    Args:
        input (Tensor): the input, :math:`(N, C_{in}, H_{in}, W_{in})` or unbatched.
        weight (Tensor): the filters, :math:`(C_{in}, C_{out} / \text{groups}, kH, kW)`.
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
        - Input: :math:`(N, C_{in}, H_{in}, W_{in})` or unbatched.
        - Output: :math:`(N, C_{out}, H_{out}, W_{out})`, each spatial size
          :math:`(L_{in} - 1) \text{stride} - 2 \text{padding} + \text{dilation} (k - 1)
          + \text{output\_padding} + 1` for a kernel size :math:`k`.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> x = nbgrad.ones(1, 1, 2, 2)
        >>> F.conv_transpose2d(x, nbgrad.ones(1, 1, 2, 2), stride=2)
        tensor([[[[1., 1., 1., 1.],
                  [1., 1., 1., 1.],
                  [1., 1., 1., 1.],
                  [1., 1., 1., 1.]]]])
        >>> F.conv_transpose2d(x, nbgrad.ones(1, 3, 3, 3), stride=2, padding=1,
        ...                    output_padding=1).shape
        nbgrad.Size([1, 3, 4, 4])
    """
    _tensor_arg(input, "input", "conv_transpose2d", 1)
    _tensor_arg(weight, "weight", "conv_transpose2d", 2)
    if input.ndim not in (3, 4):
        raise RuntimeError("Expected 3D (unbatched) or 4D (batched) input to conv_transpose2d, "
                           f"but got input of size: {list(input.shape)}")
    if weight.ndim != 4:
        raise RuntimeError(f"weight should have 4 dimensions, got {weight.ndim}")
    st, pad = _conv_pair(stride, "stride"), _conv_pair(padding, "padding")
    opad, dil = _conv_pair(output_padding, "output_padding"), _conv_pair(dilation, "dilation")
    x = input if input.ndim == 4 else unsqueeze(input, 0)
    N, C, H, W = x.shape
    Cin, Cog, kh, kw = weight.shape
    G = int(groups)
    Cout, (Ho, Wo) = _transposed_sizes(x, weight, bias, G, st, pad, opad, dil)
    # the columns each input pixel spreads over its output window, then those windows summed
    wt = transpose(reshape(weight, (G, Cin // G, Cog * kh * kw)), 1, 2)
    cols = conv_mm(wt, reshape(x, (N, G, Cin // G, H * W)))
    out = col2im(reshape(cols, (N, Cout * kh * kw, H * W)), (Ho, Wo), (kh, kw), st, pad, dil,
                 (H, W))
    if bias is not None:
        out = out + reshape(bias, (1, Cout, 1, 1))
    return out if input.ndim == 4 else squeeze(out, 0)


@autocast_op("conv_transpose1d")
def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                     groups=1, dilation=1):
    r"""Apply a 1-D transposed convolution ("deconvolution") over an input signal.

    It is the gradient of :func:`conv1d` with respect to its input, for the same ``weight``:
    each input element spreads its kernel-weighted copy over the output.

    It runs as :func:`conv_transpose2d` over a height of one.

    Args:
        input (Tensor): the input, :math:`(N, C_{in}, L_{in})` or unbatched.
        weight (Tensor): the filters, :math:`(C_{in}, C_{out} / \text{groups}, k)`.
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
        - Input: :math:`(N, C_{in}, L_{in})` or unbatched.
        - Output: :math:`(N, C_{out}, L_{out})`, each spatial size
          :math:`(L_{in} - 1) \text{stride} - 2 \text{padding} + \text{dilation} (k - 1)
          + \text{output\_padding} + 1` for a kernel size :math:`k`.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> x = nbgrad.tensor([[[1.0, 2.0, 3.0]]])
        >>> F.conv_transpose1d(x, nbgrad.ones(1, 1, 2))
        tensor([[[1., 3., 5., 3.]]])
        >>> F.conv_transpose1d(x, nbgrad.ones(1, 1, 2), stride=2)
        tensor([[[1., 1., 2., 2., 3., 3.]]])
    """
    _tensor_arg(input, "input", "conv_transpose1d", 1)
    if input.ndim not in (2, 3):
        raise RuntimeError("Expected 2D (unbatched) or 3D (batched) input to conv_transpose1d, "
                           f"but got input of size: {list(input.shape)}")
    out = conv_transpose2d(unsqueeze(input, -2), unsqueeze(weight, -2), bias,
                           (1, _one(stride, "stride")), (0, _one(padding, "padding")),
                           (0, _one(output_padding, "output_padding")), groups,
                           (1, _one(dilation, "dilation")))
    return squeeze(out, -2)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    r"""Apply 1-D max pooling: the maximum of each window sliding over the input's last 1 dims.

    Args:
        input (Tensor): the input, :math:`(N, C, L_{in})` or unbatched.
        kernel_size (int or tuple): the window's size, an int.
        stride (int or tuple, optional): the window's step, an int. Default: ``None``,
            the kernel size.
        padding (int or tuple, optional): the implicit :math:`-\infty` added on both sides of
            each pooled dimension; at most half the kernel size. Default: ``0``.
        dilation (int or tuple, optional): the spacing between the window's elements.
            Default: ``1``.
        ceil_mode (bool, optional): round the output size up rather than down, so a last
            window may start in the input and run past its end. Default: ``False``.
        return_indices (bool, optional): also return the indices of the maxima, which
            :func:`max_unpool1d` takes: int64, the position of each along :math:`L`.
            Default: ``False``.

    Returns:
        Tensor, or (Tensor, Tensor) with ``return_indices``: the maxima, and their indices.

    Shape:
        - Input: :math:`(N, C, L_{in})` or unbatched.
        - Output: :math:`(N, C, L_{out})`, each size
          :math:`\lfloor (L_{in} + 2 \text{padding} - \text{dilation}
          (\text{kernel\_size} - 1) - 1) / \text{stride} \rfloor + 1` (rounded up with
          ``ceil_mode``).

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> x = nbgrad.tensor([[[1.0, 5.0, 2.0, 0.0, 3.0, 4.0]]])
        >>> F.max_pool1d(x, 2)
        tensor([[[5., 2., 4.]]])
        >>> F.max_pool1d(x, 3, stride=1)
        tensor([[[5., 5., 3., 4.]]])
        >>> F.max_pool1d(x, 2, return_indices=True)
        (tensor([[[5., 2., 4.]]]), tensor([[[1, 2, 5]]]))
    """
    if input.ndim not in (2, 3):
        raise RuntimeError(f"max_pool1d() Expected 2D or 3D input tensor, but got "
                           f"{list(input.shape)}")
    st = None if stride is None or stride == [] else (1, _one(stride, "stride"))
    out = max_pool2d(unsqueeze(input, -2), (1, _one(kernel_size, "kernel_size")), st,
                     (0, _one(padding, "padding")), (1, _one(dilation, "dilation")), ceil_mode,
                     return_indices)
    if return_indices:
        return squeeze(out[0], -2), squeeze(out[1], -2)
    return squeeze(out, -2)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    r"""Apply 1-D average pooling: the mean of each window sliding over the input's last 1 dims.

    Args:
        input (Tensor): the input, :math:`(N, C, L_{in})` or unbatched.
        kernel_size (int or tuple): the window's size, an int.
        stride (int or tuple, optional): the window's step, an int. Default: ``None``,
            the kernel size.
        padding (int or tuple, optional): the implicit zeros added on both sides of each
            pooled dimension; at most half the kernel size. Default: ``0``.
        ceil_mode (bool, optional): round the output size up rather than down, so a last
            window may start in the input and run past its end. Default: ``False``.
        count_include_pad (bool, optional): count the padding zeros in each window's divisor.
            Default: ``True``.

    Shape:
        - Input: :math:`(N, C, L_{in})` or unbatched.
        - Output: :math:`(N, C, L_{out})`, each size
          :math:`\lfloor (L_{in} + 2 \text{padding} - \text{kernel\_size}) / \text{stride}
          \rfloor + 1` (rounded up with ``ceil_mode``).

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> x = nbgrad.tensor([[[1.0, 2.0, 3.0, 4.0, 5.0]]])
        >>> F.avg_pool1d(x, 2)
        tensor([[[1.5000, 3.5000]]])
        >>> F.avg_pool1d(x, 3, stride=2, padding=1)
        tensor([[[1., 3., 3.]]])
        >>> F.avg_pool1d(x, 3, stride=2, padding=1, count_include_pad=False)
        tensor([[[1.5000, 3.0000, 4.5000]]])
    """
    if input.ndim not in (2, 3):
        raise RuntimeError(f"avg_pool1d() Expected 2D or 3D input tensor, but got "
                           f"{list(input.shape)}")
    st = None if stride is None or stride == [] else (1, _one(stride, "stride"))
    out = avg_pool2d(unsqueeze(input, -2), (1, _one(kernel_size, "kernel_size")), st,
                     (0, _one(padding, "padding")), ceil_mode, count_include_pad)
    return squeeze(out, -2)
