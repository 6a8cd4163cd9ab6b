"""``interpolate`` (``nn.Upsample``): resize the spatial dims of (N, C, *spatial) input by
``nearest``, ``nearest-exact``, ``linear``, ``bilinear``, ``bicubic`` or ``trilinear``
interpolation (bilinear and bicubic also antialiased), or ``area`` (adaptive average
pooling). Source indices and weights are
PyTorch's (computed on the host in the input's precision); the resize is ``index_select``
and products along each dim (the last dim first, as PyTorch's kernels sum), so it runs on
every device and differentiates twice."""

import math

import numpy as np

from ..amp.policy import autocast_op
from ..creation import tensor
from ..dtypes import int64
from ._core import check_tensor
from .elementwise import add, mul
from .selection import where

_LINEAR = {"linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5}
_CUBIC_A = -0.75  # the cubic convolution's parameter, as PyTorch's


def _sizes(input, size, scale_factor, recompute_scale_factor):
    """PyTorch's output sizes and the scales its kernels use (None: from the sizes)."""
    dim = input.ndim - 2
    spatial = list(input.shape[2:])
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if recompute_scale_factor:
            raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
        out = list(size) if isinstance(size, (tuple, list)) else [size] * dim
        if len(out) != dim:
            raise ValueError(
                "Input and output must have the same number of spatial dimensions, but got "
                f"input with spatial dimensions of {spatial} and output size of {size}. Please "
                "provide input tensor in (N, C, d1, d2, ...,dK) format and output size in "
                "(o1, o2, ...,oK) format.")
        return [int(o) for o in out], [None] * dim
    if scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    scales = (list(scale_factor) if isinstance(scale_factor, (tuple, list))
              else [scale_factor] * dim)
    if len(scales) != dim:
        raise ValueError(
            "Input and scale_factor must have the same number of spatial dimensions, but got "
            f"input with spatial dimensions of {spatial} and scale_factor of shape "
            f"{scale_factor}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
            "scale_factor in (s1, s2, ...,sK) format.")
    out = [math.floor(n * float(s)) for n, s in zip(spatial, scales)]
    return out, ([None] * dim if recompute_scale_factor else [float(s) for s in scales])


def _scale(t, n_in, n_out, scale, align_corners):
    """PyTorch's area_pixel_compute_scale (``t``: the computing precision)."""
    if align_corners:
        return t(n_in - 1) / t(n_out - 1) if n_out > 1 else t(0)
    return t(1.0 / scale) if scale is not None and scale > 0 else t(n_in) / t(n_out)


def _nearest(n_in, n_out, scale, exact):
    """Source index of each output position (PyTorch's nearest / nearest-exact, float)."""
    s = np.float32(1.0 / scale) if scale is not None and scale > 0 else (
        np.float32(n_in) / np.float32(n_out))
    dst = np.arange(n_out, dtype=np.float32)
    src = np.floor((dst + np.float32(0.5)) * s if exact else dst * s).astype(np.int64)
    return np.minimum(src, n_in - 1)


def _linear(t, n_in, n_out, scale, align_corners):
    """``(i0, i1, w0, w1)``: the two source indices and weights of each output position."""
    s = _scale(t, n_in, n_out, scale, align_corners)
    dst = np.arange(n_out).astype(t)
    src = dst * s if align_corners else np.maximum(s * (dst + t(0.5)) - t(0.5), t(0))
    i0 = np.floor(src).astype(np.int64)
    i0 = np.minimum(i0, n_in - 1)
    i1 = i0 + (i0 < n_in - 1)
    w1 = (src - i0).astype(t)
    return i0, i1, (t(1) - w1).astype(t), w1


def _cubic_near(x, a, t):
    """Keys' cubic convolution weight of a tap at distance ``|x| <= 1`` (parameter ``a``)."""
    return ((a + t(2)) * x - (a + t(3))) * x * x + t(1)


def _cubic_far(x, a, t):
    """The weight of a tap at distance ``1 < |x| < 2``."""
    return ((a * x - t(5) * a) * x + t(8) * a) * x - t(4) * a


def _cubic(t, n_in, n_out, scale, align_corners):
    """``(indices, weights)``: the four source indices (clamped to the edges) and the
    cubic-convolution weights of each output position, as PyTorch's bicubic computes them
    (the source position is not clamped at 0 first, as the linear modes' is)."""
    s = _scale(t, n_in, n_out, scale, align_corners)
    dst = np.arange(n_out).astype(t)
    src = dst * s if align_corners else s * (dst + t(0.5)) - t(0.5)
    i = np.minimum(np.floor(src).astype(np.int64), n_in - 1)
    lam = np.minimum(np.maximum(src - i.astype(t), t(0)), t(1)).astype(t)
    a = t(_CUBIC_A)
    x2 = t(1) - lam
    weights = [_cubic_far(lam + t(1), a, t), _cubic_near(lam, a, t), _cubic_near(x2, a, t),
               _cubic_far(x2 + t(1), a, t)]
    indices = [np.clip(i - 1 + j, 0, n_in - 1) for j in range(4)]
    return indices, [w.astype(t) for w in weights]


def _aa_filter(x, cubic, t):
    """PyTorch's (Pillow's) antialiasing filters: the triangle for bilinear, Keys' cubic
    with :math:`a = -0.5` for bicubic."""
    x = np.abs(x)
    if not cubic:
        return np.where(x < t(1), t(1) - x, t(0)).astype(t)
    a = t(-0.5)
    return np.where(x < t(1), _cubic_near(x, a, t),
                    np.where(x < t(2), _cubic_far(x, a, t), t(0))).astype(t)


def _antialiased(t, n_in, n_out, scale, align_corners, cubic):
    """``(indices, weights, used)``: for each output position, the taps of PyTorch's
    antialiased resampling (a filter widened by the downscaling factor over the input
    positions it covers, its weights summing to 1), as ``k`` columns: tap ``j``'s source
    index, weight and whether the position has a tap ``j`` (unused taps: index 0, weight 0;
    None when every position uses it)."""
    s = _scale(t, n_in, n_out, scale, align_corners)
    size = 4 if cubic else 2
    support = t(size * 0.5 * s) if s >= 1 else t(size * 0.5)
    k = int(math.ceil(support)) * 2 + 1
    invscale = t(1.0 / s) if s >= 1 else t(1)
    center = (s * (np.arange(n_out) + 0.5)).astype(t)
    xmin = np.maximum((center - support + 0.5).astype(np.int64), 0)
    xsize = np.clip(np.minimum((center + support + 0.5).astype(np.int64), n_in) - xmin, 0, k)
    j = np.arange(k)
    pos = xmin[:, None] + j[None, :]
    used = j[None, :] < xsize[:, None]
    w = _aa_filter(((pos - center[:, None]).astype(t) + t(0.5)) * invscale, cubic, t)
    w = np.where(used, w, t(0)).astype(t)
    total = np.zeros(n_out, t)
    for c in range(k):  # one tap after another, as PyTorch adds them
        total = (total + w[:, c]).astype(t)
    w = np.where(total[:, None] != 0, w / np.where(total == 0, t(1), total)[:, None], w)
    idx = np.where(used, pos, 0)
    return ([idx[:, c] for c in range(k)], [w[:, c].astype(t) for c in range(k)],
            [None if used[:, c].all() else used[:, c] for c in range(k)])


@autocast_op("interpolate")
def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    r"""Resize the spatial dimensions of ``input`` to ``size`` or by ``scale_factor``.

    The spatial dimensions are all but the first two (the batch and the channels).

    Args:
        input (Tensor): the input, :math:`(N, C, *)` with 1 to 3 spatial dims.
        size (int or sequence of int, optional): the output's spatial size: one int for every
            spatial dim, or one per dim. Give it or ``scale_factor``, not both.
            Default: ``None``.
        scale_factor (float or sequence of float, optional): the multiplier of each spatial
            size (the output size rounded down). Default: ``None``.
        mode (str, optional): the sampling: ``"nearest"`` (PyTorch's legacy nearest neighbour,
            rounding the source index down), ``"nearest-exact"`` (the pixel-centre nearest
            neighbour, as in image libraries), ``"linear"`` (3-D input), ``"bilinear"`` (4-D
            input), ``"bicubic"`` (4-D input: cubic convolution over 4x4 taps, :math:`a =
            -0.75`, edges repeated; values may overshoot the input's range),
            ``"trilinear"`` (5-D input) or ``"area"`` (the mean of each output's window:
            adaptive average pooling). Default: ``"nearest"``.
        align_corners (bool, optional): for the linear modes: ``True`` maps the centres of the
            corner pixels of input and output onto each other; ``False`` maps the corners of
            the grids, and samples outside the input take the edge value. Must stay ``None``
            for the nearest modes. Default: ``None`` (``False``).
        recompute_scale_factor (bool, optional): with ``scale_factor``, compute the sampling
            from the output size rather than from the scale itself (they differ when the size
            was rounded). Default: ``None``.
        antialias (bool, optional): for ``"bilinear"`` and ``"bicubic"`` on 4-D input:
            when shrinking, widen the filter by the shrink factor so that every input
            pixel counts (PyTorch's, as Pillow's resize; bicubic then uses :math:`a =
            -0.5`); edge weights are renormalized rather than edge pixels repeated. Other
            modes raise PyTorch's ``ValueError``. Default: ``False``.

    Shape:
        - Input: :math:`(N, C, L_{in})`, :math:`(N, C, H_{in}, W_{in})` or
          :math:`(N, C, D_{in}, H_{in}, W_{in})`.
        - Output: the input's shape with each spatial size replaced: by ``size``, or by
          :math:`\lfloor \text{size}_{in} \times \text{scale\_factor} \rfloor`.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> x = nbgrad.tensor([[[1.0, 2.0]]])
        >>> F.interpolate(x, scale_factor=2)
        tensor([[[1., 1., 2., 2.]]])
        >>> F.interpolate(x, size=4, mode="linear", align_corners=True)
        tensor([[[1.0000, 1.3333, 1.6667, 2.0000]]])
        >>> F.interpolate(x, size=4, mode="linear")
        tensor([[[1.0000, 1.2500, 1.7500, 2.0000]]])
        >>> img = nbgrad.arange(4.0).reshape(1, 1, 2, 2)
        >>> F.interpolate(img, size=(3, 3), mode="bilinear", align_corners=True)
        tensor([[[[0.0000, 0.5000, 1.0000],
                  [1.0000, 1.5000, 2.0000],
                  [2.0000, 2.5000, 3.0000]]]])
        >>> img = nbgrad.arange(16.0).reshape(1, 1, 4, 4)
        >>> F.interpolate(img, size=(2, 2), mode="area")
        tensor([[[[ 2.5000,  4.5000],
                  [10.5000, 12.5000]]]])
        >>> F.interpolate(img, size=(2, 2), mode="bilinear", antialias=True)
        tensor([[[[ 3.5714,  5.1429],
                  [ 9.8571, 11.4286]]]])
    """
    check_tensor(input, "interpolate")
    # PyTorch's checks, in its order: align_corners, the sizes, antialias, the rank
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating "
                             "modes: linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    out_sizes, scales = _sizes(input, size, scale_factor, recompute_scale_factor)
    if antialias:
        if not (mode in ("bilinear", "bicubic", "lanczos") and input.ndim == 4):
            raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and "
                             "lanczos modes and requires a 4-D tensor as input")
    ok = (input.ndim in (3, 4, 5) and mode in ("nearest", "nearest-exact", "area")
          or input.ndim == _LINEAR.get(mode))
    if not ok:
        if mode == "lanczos" and input.ndim == 4:
            raise ValueError("Lanczos mode requires antialias=True")
        if input.ndim in (3, 4, 5) and mode in ("linear", "bilinear", "trilinear"):
            raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs "
                                      f"{_LINEAR[mode]}D input")
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for "
            "the modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | area | "
            f"nearest-exact (got {mode})")
    if mode not in ("nearest", "nearest-exact") and not input.dtype.is_floating_point:
        # (the weighted modes have no integer kernels in PyTorch either)
        raise NotImplementedError(f"\"upsample_{mode}\" not implemented for "
                                  f"'{input.dtype.scalar_type}'")
    if any(o <= 0 for o in out_sizes):
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input "
                           f"({', '.join(map(str, input.shape[2:]))}) and output "
                           f"({', '.join(map(str, out_sizes))})")
    if mode == "area":  # PyTorch's: adaptive average pooling to the output size
        from . import pooling, pooling_more, volumetric

        pool = (pooling_more.adaptive_avg_pool1d, pooling.adaptive_avg_pool2d,
                volumetric.adaptive_avg_pool3d)[input.ndim - 3]
        return pool(input, out_sizes)
    t = input.dtype.np.type if input.dtype.is_floating_point else np.float32
    out = input
    # the last dim first: PyTorch's kernels combine the taps of the last dim innermost, so
    # each output is the same sums of the same products (in the same order)
    for k in reversed(range(len(out_sizes))):
        n_out, scale = out_sizes[k], scales[k]
        d = 2 + k
        n_in = input.shape[d]
        if mode.startswith("nearest"):
            idx = _nearest(n_in, n_out, scale, mode == "nearest-exact")
            if not np.array_equal(idx, np.arange(n_in)) or n_in != n_out:
                out = out.index_select(d, tensor(idx, dtype=int64, device=input.device))
            continue
        used = None
        if antialias:
            if n_in == n_out:  # (PyTorch's resamples only the dims whose size changes)
                continue
            indices, weights, used = _antialiased(t, n_in, n_out, scale, align_corners,
                                                  mode == "bicubic")
        elif mode == "bicubic":
            indices, weights = _cubic(t, n_in, n_out, scale, align_corners)
        else:
            i0, i1, w0, w1 = _linear(t, n_in, n_out, scale, align_corners)
            indices, weights = (i0, i1), (w0, w1)
        shape = [1] * input.ndim
        shape[d] = n_out
        dev = input.device
        total = None
        for c, (i, w) in enumerate(zip(indices, weights)):
            term = mul(out.index_select(d, tensor(i, dtype=int64, device=dev)),
                       tensor(w, dtype=input.dtype, device=dev).reshape(shape))
            if used is not None and used[c] is not None:  # positions without this tap add
                # nothing (not 0 times a pixel, which is nan for an infinite one)
                term = where(tensor(used[c], device=dev).reshape(shape), term, 0.0)
            total = term if total is None else add(total, term)
        out = total
    return out


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Resize the spatial dimensions of ``input``: :func:`interpolate` by its older name.

    Args:
        input (Tensor): the input, :math:`(N, C, *)`.
        size (int or sequence of int, optional): the output's spatial size. Default: ``None``.
        scale_factor (float or sequence of float, optional): the multiplier of each spatial
            size. Default: ``None``.
        mode (str, optional): the sampling, as for :func:`interpolate`. Default: ``"nearest"``.
        align_corners (bool, optional): as for :func:`interpolate`. Default: ``None``.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")  # (deprecated, as PyTorch's: it warns)
        ...     F.upsample(nbgrad.tensor([[[1.0, 2.0]]]), scale_factor=2)
        tensor([[[1., 1., 2., 2.]]])
    """
    import warnings

    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` "
                  "instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """Resize with nearest-neighbour sampling: ``interpolate(..., mode="nearest")``.

    Deprecated (as in PyTorch, it warns): use :func:`interpolate`.

    Args:
        input (Tensor): the input, :math:`(N, C, *)`.
        size (int or sequence of int, optional): the output's spatial size. Default: ``None``.
        scale_factor (float or sequence of float, optional): the multiplier of each spatial
            size. Default: ``None``.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> F.upsample_nearest(nbgrad.tensor([[[1.0, 2.0]]]), size=3)
        tensor([[[1., 1., 2.]]])
    """
    import warnings

    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """Resize a 4-D input bilinearly: ``interpolate(..., mode="bilinear", align_corners=True)``.

    Deprecated (as in PyTorch, it warns): use :func:`interpolate`.

    Args:
        input (Tensor): the input, :math:`(N, C, H, W)`.
        size (int or sequence of int, optional): the output's spatial size. Default: ``None``.
        scale_factor (float or sequence of float, optional): the multiplier of each spatial
            size. Default: ``None``.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> F.upsample_bilinear(nbgrad.tensor([[[[0.0, 3.0]]]]), size=(1, 4))
        tensor([[[[0., 1., 2., 3.]]]])
    """
    import warnings

    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
