"""The rest of PyTorch's 1-d and 2-d pooling, composed of ops that have rows (so each runs
on every device and differentiates through its parts): ``adaptive_avg_pool1d``,
``adaptive_max_pool1d/2d`` (PyTorch's adaptive windows, indices into the flattened plane),
``lp_pool1d/2d`` (the p-norm of each window, PyTorch's formula), ``max_unpool1d/2d`` (the
values scattered back to the indices max pooling gave), ``fold`` / ``unfold`` (columns of
sliding blocks: the convolution's ``col2im`` / ``im2col`` rows) and ``local_response_norm``."""

import math

from ..creation import zeros
from ._core import check_tensor
from .concat import stack
from .conv import col2im, im2col, max_pool2d
from .pooling import _adaptive_sizes, _windows, adaptive_avg_pool2d, avg_pool2d


def _pair(v, name):
    v = tuple(v) if isinstance(v, (tuple, list)) else (v, v)
    if len(v) != 2:
        raise ValueError(f"{name} must be an int or a pair of ints")
    return tuple(int(x) for x in v)


def _single(v):
    """A 1-d size given as an int or a 1-sequence, as an int."""
    return v[0] if isinstance(v, (tuple, list)) else v


def _sequence(input, output_size, name):
    """The 1-d adaptive pools' check (PyTorch's message) and their output size."""
    check_tensor(input, name)
    if input.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional "
                           f"tensor for argument #1 'self' (while checking arguments for "
                           f"{name})")
    return _single(output_size)


def adaptive_avg_pool1d(input, output_size):
    r"""Apply 1-D adaptive avg pooling: an output of size ``output_size`` whatever the input's.

    Each output element is the mean of a window of the input.

    Output index :math:`i` along a dimension of size :math:`L_{in}` pools the elements
    :math:`\lfloor i L_{in} / L_{out} \rfloor` to :math:`\lceil (i + 1) L_{in} / L_{out}
    \rceil - 1`, as in PyTorch.

    Args:
        input (Tensor): the input, :math:`(N, C, L_{in})` or unbatched.
        output_size (int or tuple): the target size of the last 1 dim(s):
            an int.

    Shape:
        - Input: :math:`(N, C, L_{in})` or unbatched.
        - Output: :math:`(N, C, L_{out})`, the sizes ``output_size``.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> F.adaptive_avg_pool1d(nbgrad.arange(6.0).reshape(1, 1, 6), 2)
        tensor([[[1., 4.]]])
        >>> F.adaptive_avg_pool1d(nbgrad.arange(5.0).reshape(1, 5), 3)
        tensor([[0.5000, 2.0000, 3.5000]])
    """
    size = _sequence(input, output_size, "adaptive_avg_pool1d")
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, size)).squeeze(-2)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    r"""Apply 2-D adaptive max pooling: an output of size ``output_size`` whatever the input's.

    Each output element is the maximum of a window of the input.

    Output index :math:`i` along a dimension of size :math:`L_{in}` pools the elements
    :math:`\lfloor i L_{in} / L_{out} \rfloor` to :math:`\lceil (i + 1) L_{in} / L_{out}
    \rceil - 1`, as in PyTorch.

    Args:
        input (Tensor): the input, :math:`(N, C, H_{in}, W_{in})` or unbatched.
        output_size (int or tuple): the target size of the last 2 dim(s):
            an int, or a pair whose entries may be ``None`` (to keep that size).
        return_indices (bool, optional): also return the index of each maximum, as for
            :func:`max_pool2d`. Default: ``False``.

    Shape:
        - Input: :math:`(N, C, H_{in}, W_{in})` or unbatched.
        - Output: :math:`(N, C, H_{out}, W_{out})`, the sizes ``output_size``.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> x = nbgrad.arange(16.0).reshape(1, 1, 4, 4)
        >>> F.adaptive_max_pool2d(x, 1)
        tensor([[[[15.]]]])
        >>> F.adaptive_max_pool2d(x, (1, 3), return_indices=True)
        (tensor([[[[13., 14., 15.]]]]), tensor([[[[13, 14, 15]]]]))
    """
    check_tensor(input, "adaptive_max_pool2d")
    if input.ndim not in (3, 4):
        raise RuntimeError(f"adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: "
                           f"{list(input.shape)}")
    H, W = input.shape[-2:]
    oh, ow = _adaptive_sizes(output_size)
    oh, ow = H if oh is None else int(oh), W if ow is None else int(ow)
    if oh and ow and H % oh == 0 and W % ow == 0:  # equal windows that tile the plane
        return max_pool2d(input, (H // oh, W // ow), return_indices=return_indices)
    vals, idx = [], []
    for r0, r1 in _windows(H, oh):
        rv, ri = [], []
        for c0, c1 in _windows(W, ow):
            v, a = input[..., r0:r1, c0:c1].flatten(-2).max(-1)
            rv.append(v)
            ri.append((a // (c1 - c0) + r0) * W + a % (c1 - c0) + c0)
        vals.append(stack(rv, -1))
        idx.append(stack(ri, -1))
    out = stack(vals, -2)
    return (out, stack(idx, -2)) if return_indices else out


def adaptive_max_pool1d(input, output_size, return_indices=False):
    r"""Apply 1-D adaptive max pooling: an output of size ``output_size`` whatever the input's.

    Each output element is the maximum of a window of the input.

    Output index :math:`i` along a dimension of size :math:`L_{in}` pools the elements
    :math:`\lfloor i L_{in} / L_{out} \rfloor` to :math:`\lceil (i + 1) L_{in} / L_{out}
    \rceil - 1`, as in PyTorch.

    Args:
        input (Tensor): the input, :math:`(N, C, L_{in})` or unbatched.
        output_size (int or tuple): the target size of the last 1 dim(s):
            an int.
        return_indices (bool, optional): also return the index of each maximum, as for
            :func:`max_pool1d`. Default: ``False``.

    Shape:
        - Input: :math:`(N, C, L_{in})` or unbatched.
        - Output: :math:`(N, C, L_{out})`, the sizes ``output_size``.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> x = nbgrad.tensor([[[1.0, 5.0, 2.0, 0.0, 3.0, 4.0]]])
        >>> F.adaptive_max_pool1d(x, 2)
        tensor([[[5., 4.]]])
        >>> F.adaptive_max_pool1d(x, 4, return_indices=True)
        (tensor([[[5., 5., 3., 4.]]]), tensor([[[1, 1, 4, 5]]]))
    """
    size = _sequence(input, output_size, "adaptive_max_pool1d")
    out = adaptive_max_pool2d(input.unsqueeze(-2), (1, size), return_indices)
    if return_indices:
        return out[0].squeeze(-2), out[1].squeeze(-2)
    return out.squeeze(-2)


def lp_from_mean(mean, size, norm_type):
    """The ``norm_type``-norm of windows of ``size`` elements from the mean ``a`` of their
    ``x^p``, as PyTorch computes it: ``(sign(a) relu(|a|) size)^(1/p)``."""
    return (mean.sign() * mean.abs().relu()).mul(size).pow(1.0 / norm_type)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    r"""Apply 2-D power-average pooling over the input's last 2 dims.

    Each window gives :math:`(\sum_{x \in \text{window}} x^p)^{1 / p}`.

    As in PyTorch it is computed from the windows' mean :math:`a` of :math:`x^p` as
    :math:`(\text{sign}(a) \, \text{relu}(|a|) \, n)^{1 / p}` with :math:`n` elements a window
    (so windows of negative sums give 0, and odd powers of negative inputs may give NaN).

    Args:
        input (Tensor): the input, :math:`(N, C, H_{in}, W_{in})` or unbatched.
        norm_type (float): the power :math:`p`.
        kernel_size (int or tuple): the window's size, an int or a pair.
        stride (int or tuple, optional): the window's step, an int or a pair. Default: ``None``,
            the kernel size.
        ceil_mode (bool, optional): round the output size up rather than down.
            Default: ``False``.

    Shape:
        - Input: :math:`(N, C, H_{in}, W_{in})` or unbatched.
        - Output: :math:`(N, C, H_{out}, W_{out})`, each size
          :math:`\lfloor (L_{in} - \text{kernel\_size}) / \text{stride} \rfloor + 1`
          (rounded up with ``ceil_mode``).

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> F.lp_pool2d(nbgrad.ones(1, 1, 2, 2) * 3, 2, 2)
        tensor([[[[6.]]]])
        >>> F.lp_pool2d(nbgrad.ones(1, 1, 4, 6), 1.0, (2, 3)).shape
        nbgrad.Size([1, 1, 2, 2])
    """
    if norm_type in (math.inf, -math.inf):  # the limits: the largest / smallest |x|
        sign = 1 if norm_type > 0 else -1
        return sign * max_pool2d(sign * input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    kh, kw = _pair(kernel_size, "kernel_size")
    out = avg_pool2d(input.pow(norm_type), (kh, kw), stride, 0, ceil_mode)
    return lp_from_mean(out, kh * kw, norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    r"""Apply 1-D power-average pooling over the input's last 1 dims.

    Each window gives :math:`(\sum_{x \in \text{window}} x^p)^{1 / p}`.

    As in PyTorch it is computed from the windows' mean :math:`a` of :math:`x^p` as
    :math:`(\text{sign}(a) \, \text{relu}(|a|) \, n)^{1 / p}` with :math:`n` elements a window
    (so windows of negative sums give 0, and odd powers of negative inputs may give NaN).

    Args:
        input (Tensor): the input, :math:`(N, C, L_{in})` or unbatched.
        norm_type (float): the power :math:`p`.
        kernel_size (int or tuple): the window's size, an int.
        stride (int or tuple, optional): the window's step, an int. Default: ``None``,
            the kernel size.
        ceil_mode (bool, optional): round the output size up rather than down.
            Default: ``False``.

    Shape:
        - Input: :math:`(N, C, L_{in})` or unbatched.
        - Output: :math:`(N, C, L_{out})`, each size
          :math:`\lfloor (L_{in} - \text{kernel\_size}) / \text{stride} \rfloor + 1`
          (rounded up with ``ceil_mode``).

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> F.lp_pool1d(nbgrad.tensor([[[3.0, 4.0, 1.0, 1.0]]]), 2, 2)
        tensor([[[5.0000, 1.4142]]])
    """
    k = _single(kernel_size)
    s = None if stride is None else (1, _single(stride))
    if norm_type in (math.inf, -math.inf):  # (as lp_pool2d)
        sign = 1 if norm_type > 0 else -1
        return sign * max_pool2d(sign * input.abs().unsqueeze(-2), (1, k), s, 0, 1,
                                 ceil_mode).squeeze(-2)
    out = avg_pool2d(input.pow(norm_type).unsqueeze(-2), (1, k), s, 0, ceil_mode).squeeze(-2)
    return lp_from_mean(out, k, norm_type)


def _unpool_size(input, k, s, p, output_size, n):
    default = [(input.shape[-n + i] - 1) * s[i] - 2 * p[i] + k[i] for i in range(n)]
    if output_size is None:
        return default
    size = list(output_size)[-n:]
    if len(size) != n:
        raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} "
                         f"elements, but it has a length of '{len(list(output_size))}'")
    return [int(v) for v in size]


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    r"""Compute a partial inverse of :func:`max_pool2d`, from the values and their indices.

    Each value of ``input`` goes back to the position of its maximum that ``indices`` gives;
    all other elements are zeros.

    Args:
        input (Tensor): the pooled values, :math:`(N, C, H_{in}, W_{in})` or unbatched.
        indices (Tensor): the indices that ``max_pool2d(..., return_indices=True)`` returned
            with ``input``, of its shape.
        kernel_size (int or tuple): the pooling's window size, an int or a pair.
        stride (int or tuple, optional): the pooling's stride. Default: ``None``, the kernel
            size.
        padding (int or tuple, optional): the pooling's padding. Default: ``0``.
        output_size (sequence of int, optional): the size of the output's last 2 dims (the
            whole shape may be given), to tell apart the input sizes that pooled to the same
            size. Default: ``None``, :math:`(L_{in} - 1) \text{stride} - 2 \text{padding} +
            \text{kernel\_size}` each.

    Shape:
        - Input: :math:`(N, C, H_{in}, W_{in})` or unbatched; ``indices`` of the same shape.
        - Output: :math:`(N, C, H_{out}, W_{out})`.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> v, i = F.max_pool2d(nbgrad.arange(16.0).reshape(1, 1, 4, 4), 2, return_indices=True)
        >>> F.max_unpool2d(v, i, 2)
        tensor([[[[ 0.,  0.,  0.,  0.],
                  [ 0.,  5.,  0.,  7.],
                  [ 0.,  0.,  0.,  0.],
                  [ 0., 13.,  0., 15.]]]])
    """
    k = _pair(kernel_size, "kernel_size")
    s = _pair(stride if stride is not None else kernel_size, "stride")
    H, W = _unpool_size(input, k, s, _pair(padding, "padding"), output_size, 2)
    lead = tuple(input.shape[:-2])
    plane = zeros(lead + (H * W,), dtype=input.dtype, device=input.device)
    out = plane.scatter(-1, indices.flatten(-2), input.flatten(-2))
    return out.reshape(lead + (H, W))


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    r"""Compute a partial inverse of :func:`max_pool1d`, from the values and their indices.

    Each value of ``input`` goes back to the position of its maximum that ``indices`` gives;
    all other elements are zeros.

    Args:
        input (Tensor): the pooled values, :math:`(N, C, L_{in})` or unbatched.
        indices (Tensor): the indices that ``max_pool1d(..., return_indices=True)`` returned
            with ``input``, of its shape.
        kernel_size (int or tuple): the pooling's window size, an int.
        stride (int or tuple, optional): the pooling's stride. Default: ``None``, the kernel
            size.
        padding (int or tuple, optional): the pooling's padding. Default: ``0``.
        output_size (sequence of int, optional): the size of the output's last 1 dims (the
            whole shape may be given), to tell apart the input sizes that pooled to the same
            size. Default: ``None``, :math:`(L_{in} - 1) \text{stride} - 2 \text{padding} +
            \text{kernel\_size}` each.

    Shape:
        - Input: :math:`(N, C, L_{in})` or unbatched; ``indices`` of the same shape.
        - Output: :math:`(N, C, L_{out})`.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> x = nbgrad.tensor([[[1.0, 5.0, 2.0, 0.0, 3.0]]])
        >>> v, i = F.max_pool1d(x, 2, return_indices=True)
        >>> F.max_unpool1d(v, i, 2)
        tensor([[[0., 5., 2., 0.]]])
        >>> F.max_unpool1d(v, i, 2, output_size=[5])
        tensor([[[0., 5., 2., 0., 0.]]])
    """
    k = _single(kernel_size)
    s = _single(stride) if stride is not None else k
    (L,) = _unpool_size(input, (k,), (s,), (_single(padding),), output_size, 1)
    lead = tuple(input.shape[:-1])
    plane = zeros(lead + (L,), dtype=input.dtype, device=input.device)
    return plane.scatter(-1, indices, input)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    r"""Extract the sliding blocks of a batch of images as columns (PyTorch's ``im2col``).

    Each column holds one block of every channel: :math:`C \times kH \times kW` values.

    Args:
        input (Tensor): the images, :math:`(N, C, H, W)` or unbatched :math:`(C, H, W)`.
        kernel_size (int or tuple): the size of the blocks, an int or a pair.
        dilation (int or tuple, optional): the spacing between a block's elements.
            Default: ``1``.
        padding (int or tuple, optional): the implicit zeros added on both sides of each
            spatial dimension. Default: ``0``.
        stride (int or tuple, optional): the step between blocks. Default: ``1``.

    Shape:
        - Input: :math:`(N, C, H, W)` or :math:`(C, H, W)`.
        - Output: :math:`(N, C \times kH \times kW, L)` or :math:`(C \times kH \times kW, L)`,
          :math:`L` the number of blocks: the product over the two dims of
          :math:`\lfloor (n + 2 \text{padding} - \text{dilation} (k - 1) - 1) / \text{stride}
          \rfloor + 1`.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> F.unfold(nbgrad.arange(4.0).reshape(1, 1, 2, 2), 2)
        tensor([[[0.],
                 [1.],
                 [2.],
                 [3.]]])
        >>> F.unfold(nbgrad.ones(2, 3, 5, 5), 3, padding=1).shape
        nbgrad.Size([2, 27, 25])
    """
    check_tensor(input, "unfold")
    if input.ndim not in (3, 4):
        raise NotImplementedError(f"Input Error: Only 3D or 4D input Tensors are supported "
                                  f"(got {input.ndim}D)")
    x = input if input.ndim == 4 else input.unsqueeze(0)
    k, d = _pair(kernel_size, "kernel_size"), _pair(dilation, "dilation")
    p, s = _pair(padding, "padding"), _pair(stride, "stride")
    H, W = x.shape[-2:]
    out_hw = tuple((n + 2 * p[i] - d[i] * (k[i] - 1) - 1) // s[i] + 1
                   for i, n in enumerate((H, W)))
    cols = im2col(x, k, s, p, d, out_hw)
    return cols if input.ndim == 4 else cols.squeeze(0)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    r"""Sum columns of sliding blocks back into a batch of images (PyTorch's ``col2im``).

    The adjoint of :func:`unfold`: each column is one block, added at its place in the
    output, where overlapping blocks sum.

    Args:
        input (Tensor): the columns, :math:`(N, C \times kH \times kW, L)` or unbatched.
        output_size (int or tuple): the spatial size :math:`(H, W)` of the images, an int or
            a pair.
        kernel_size (int or tuple): the size of the blocks, an int or a pair.
        dilation (int or tuple, optional): the spacing between a block's elements.
            Default: ``1``.
        padding (int or tuple, optional): the implicit zeros on both sides of each spatial
            dimension, dropped from the output. Default: ``0``.
        stride (int or tuple, optional): the step between blocks. Default: ``1``.

    Shape:
        - Input: :math:`(N, C \times kH \times kW, L)` or :math:`(C \times kH \times kW, L)`,
          :math:`L` the number of blocks that fit in ``output_size``.
        - Output: :math:`(N, C, H, W)` or :math:`(C, H, W)`.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> F.fold(nbgrad.ones(1, 4, 4), (3, 3), 2)
        tensor([[[[1., 2., 1.],
                  [2., 4., 2.],
                  [1., 2., 1.]]]])
        >>> x = nbgrad.arange(16.0).reshape(1, 1, 4, 4)
        >>> nbgrad.equal(F.fold(F.unfold(x, 2, stride=2), (4, 4), 2, stride=2), x)
        True
    """
    check_tensor(input, "fold")
    if input.ndim not in (2, 3):
        raise NotImplementedError(f"Input Error: Only unbatched (2D) or batched (3D) input "
                                  f"Tensors are supported (got {input.ndim}D)")
    x = input if input.ndim == 3 else input.unsqueeze(0)
    hw = _pair(output_size, "output_size")
    k, d = _pair(kernel_size, "kernel_size"), _pair(dilation, "dilation")
    p, s = _pair(padding, "padding"), _pair(stride, "stride")
    out_hw = tuple((n + 2 * p[i] - d[i] * (k[i] - 1) - 1) // s[i] + 1
                   for i, n in enumerate(hw))
    if out_hw[0] * out_hw[1] != x.shape[-1]:
        raise RuntimeError(f"Given output_size={hw}, kernel_size={k}, dilation={d}, "
                           f"padding={p}, stride={s}, expected size of input's dimension 2 to "
                           f"match the calculated number of sliding blocks {out_hw[0]} * "
                           f"{out_hw[1]} = {out_hw[0] * out_hw[1]}, but got "
                           f"input.size(2)={x.shape[-1]}.")
    img = col2im(x, hw, k, s, p, d, out_hw)
    return img if input.ndim == 3 else img.squeeze(0)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    r"""Apply local response normalization across channels.

    :math:`b_c = a_c \left(k + \frac{\alpha}{n} \sum_{c'} a_{c'}^2\right)^{-\beta}`, the sum over
    the ``size`` channels :math:`c'` around :math:`c` (zeros past the first and last
    channel), as in PyTorch.

    Args:
        input (Tensor): the input, :math:`(N, C, *)` with at least 3 dimensions.
        size (int): the number :math:`n` of channels each sum covers.
        alpha (float, optional): the multiplicative factor :math:`\alpha`. Default: ``1e-4``.
        beta (float, optional): the exponent :math:`\beta`. Default: ``0.75``.
        k (float, optional): the additive term :math:`k`. Default: ``1.0``.

    Shape:
        - Input: :math:`(N, C, *)`.
        - Output: :math:`(N, C, *)`, the shape of the input.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> F.local_response_norm(nbgrad.ones(1, 2, 1, 1), 2, alpha=1.0)
        tensor([[[[0.7378]],
        <BLANKLINE>
                 [[0.5946]]]])
    """
    check_tensor(input, "local_response_norm")
    if input.ndim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          "
                         f"input (got {input.ndim} dimensions)")  # (PyTorch's spacing)
    if input.numel() == 0:
        return input
    from .pad import pad

    sq = (input * input).unsqueeze(1)  # (N, 1, C, ...)
    sq = sq.reshape(tuple(sq.shape[:3]) + (-1,))  # (N, 1, C, rest)
    sq = pad(sq, (0, 0, size // 2, (size - 1) // 2))
    div = avg_pool2d(sq, (size, 1), stride=1).squeeze(1).reshape(tuple(input.shape))
    return input / div.mul(alpha).add(k).pow(beta)
