"""The rest of PyTorch's 1-d and 2-d pooling, composed of ops that have rows (so each runs
on every device and differentiates through its parts): ``adaptive_avg_pool1d``,
``adaptive_max_pool1d/2d`` (PyTorch's adaptive windows, indices into the flattened plane),
``lp_pool1d/2d`` (the p-norm of each window, PyTorch's formula), ``max_unpool1d/2d`` (the
values scattered back to the indices max pooling gave), ``fold`` / ``unfold`` (columns of
sliding blocks: the convolution's ``col2im`` / ``im2col`` rows) and ``local_response_norm``."""

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
    """1-d average pooling to ``output_size`` over (N, C, L) or (C, L).

    Example::

        >>> import nbgrad
        >>> nbgrad.nn.functional.adaptive_avg_pool1d(nbgrad.arange(6.0).reshape(1, 1, 6), 2)
        tensor([[[1., 4.]]])
    """
    size = _sequence(input, output_size, "adaptive_avg_pool1d")
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, size)).squeeze(-2)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """2-d max pooling to a fixed ``output_size`` over (N, C, H, W) or (C, H, W): the
    maximum of each of PyTorch's adaptive windows, with (``return_indices``) its position
    in the flattened H*W plane.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.arange(16.0).reshape(1, 1, 4, 4)
        >>> nbgrad.nn.functional.adaptive_max_pool2d(x, 1)
        tensor([[[[15.]]]])
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
    """1-d ``adaptive_max_pool2d`` over (N, C, L) or (C, L)."""
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
    """The ``norm_type``-norm of each window: ``(sum x^p)^(1/p)``, computed as PyTorch's
    ``(sign(a) relu(|a|) kh kw)^(1/p)`` of the windows' mean ``a`` of ``x^p``.

    Example::

        >>> import nbgrad
        >>> nbgrad.nn.functional.lp_pool2d(nbgrad.ones(1, 1, 2, 2) * 3, 2, 2)
        tensor([[[[6.]]]])
    """
    kh, kw = _pair(kernel_size, "kernel_size")
    out = avg_pool2d(input.pow(norm_type), (kh, kw), stride, 0, ceil_mode)
    return lp_from_mean(out, kh * kw, norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """1-d ``lp_pool2d`` over (N, C, L) or (C, L)."""
    k = _single(kernel_size)
    s = None if stride is None else (1, _single(stride))
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
    """The inverse of ``max_pool2d`` with ``return_indices``: a zero (H, W) plane with each
    value at its index (into the flattened plane).

    Example::

        >>> import nbgrad
        >>> F = nbgrad.nn.functional
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
    """The inverse of ``max_pool1d`` with ``return_indices``."""
    k = _single(kernel_size)
    s = _single(stride) if stride is not None else k
    (L,) = _unpool_size(input, (k,), (s,), (_single(padding),), output_size, 1)
    lead = tuple(input.shape[:-1])
    plane = zeros(lead + (L,), dtype=input.dtype, device=input.device)
    return plane.scatter(-1, indices, input)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Sliding blocks of (N, C, H, W) as columns (N, C*kh*kw, L) (PyTorch's im2col).

    Example::

        >>> import nbgrad
        >>> nbgrad.nn.functional.unfold(nbgrad.arange(4.0).reshape(1, 1, 2, 2), 2)
        tensor([[[0.],
                 [1.],
                 [2.],
                 [3.]]])
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
    """Columns (N, C*kh*kw, L) summed back onto an (N, C, H, W) image: the adjoint of
    ``unfold`` (PyTorch's col2im).

    Example::

        >>> import nbgrad
        >>> nbgrad.nn.functional.fold(nbgrad.ones(1, 4, 4), (3, 3), 2)
        tensor([[[[1., 2., 1.],
                  [2., 4., 2.],
                  [1., 2., 1.]]]])
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
    """Each value divided by ``(k + alpha / size * sum of squares over the size nearest
    channels) ** beta`` (PyTorch's formula: the channel window padded with zeros).

    Example::

        >>> import nbgrad
        >>> nbgrad.nn.functional.local_response_norm(nbgrad.ones(1, 2, 1, 1), 2, alpha=1.0)
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
