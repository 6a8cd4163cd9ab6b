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
    """1-D convolution of ``input`` (N, C, L) or (C, L) with ``weight`` (O, C/groups, k):
    conv2d over a height of one.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.arange(5.0).reshape(1, 1, 5)
        >>> nbgrad.nn.functional.conv1d(x, nbgrad.ones(1, 1, 2))
        tensor([[[1., 3., 5., 7.]]])
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
    """2-D transposed convolution ("deconvolution") of ``input`` (N, C_in, H, W) or
    (C_in, H, W) with ``weight`` (C_in, C_out/groups, kh, kw): the gradient of a conv2d
    with that weight, so an output of ``(H - 1) * stride - 2 * padding + dilation * (kh - 1)
    + output_padding + 1`` rows (and columns likewise).

    Example::

        >>> import nbgrad
        >>> x = nbgrad.ones(1, 1, 2, 2)
        >>> nbgrad.nn.functional.conv_transpose2d(x, nbgrad.ones(1, 1, 2, 2), stride=2)
        tensor([[[[1., 1., 1., 1.],
                  [1., 1., 1., 1.],
                  [1., 1., 1., 1.],
                  [1., 1., 1., 1.]]]])
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
    """1-D transposed convolution of ``input`` (N, C_in, L) or (C_in, L) with ``weight``
    (C_in, C_out/groups, k): conv_transpose2d over a height of one."""
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
    """1-D max pooling over (N, C, L) or (C, L): max_pool2d over a height of one."""
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
    """1-D average pooling over (N, C, L) or (C, L): avg_pool2d over a height of one."""
    if input.ndim not in (2, 3):
        raise RuntimeError(f"avg_pool1d() Expected 2D or 3D input tensor, but got "
                           f"{list(input.shape)}")
    st = None if stride is None or stride == [] else (1, _one(stride, "stride"))
    out = avg_pool2d(unsqueeze(input, -2), (1, _one(kernel_size, "kernel_size")), st,
                     (0, _one(padding, "padding")), ceil_mode, count_include_pad)
    return squeeze(out, -2)
