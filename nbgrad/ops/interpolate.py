"""``interpolate`` (``nn.Upsample``): resize the spatial dims of (N, C, *spatial) input by
``nearest``, ``nearest-exact``, ``linear`` or ``bilinear`` interpolation. Source indices
and weights are PyTorch's (computed on the host in the input's precision); the resize is
``index_select`` and products along each dim, so it runs on every device and
differentiates twice."""

import math

import numpy as np

from ..amp.policy import autocast_op
from ..creation import tensor
from ..dtypes import int64
from ._core import check_tensor
from .elementwise import add, mul

_LINEAR = {"linear": 3, "bilinear": 4}


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
            neighbour, as in image libraries), ``"linear"`` (3-D input) or ``"bilinear"`` (4-D
            input). PyTorch's other modes (``"bicubic"``, ``"trilinear"``, ``"area"``) raise
            ``NotImplementedError`` in nbgrad. Default: ``"nearest"``.
        align_corners (bool, optional): for the linear modes: ``True`` maps the centres of the
            corner pixels of input and output onto each other; ``False`` maps the corners of
            the grids, and samples outside the input take the edge value. Must stay ``None``
            for the nearest modes. Default: ``None`` (``False``).
        recompute_scale_factor (bool, optional): with ``scale_factor``, compute the sampling
            from the output size rather than from the scale itself (they differ when the size
            was rounded). Default: ``None``.
        antialias (bool, optional): not supported by nbgrad: ``True`` raises
            ``NotImplementedError``. Default: ``False``.

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
    """
    check_tensor(input, "interpolate")
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating "
                             "modes: linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    if antialias:
        raise NotImplementedError("interpolate(antialias=True) is not supported by nbgrad yet")
    if mode not in ("nearest", "nearest-exact", "linear", "bilinear"):
        raise NotImplementedError(f"interpolate(mode={mode!r}) is not supported by nbgrad yet "
                                  "(nearest, nearest-exact, linear and bilinear are)")
    if mode in _LINEAR and input.ndim != _LINEAR[mode]:
        raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs "
                                  f"{_LINEAR[mode]}D input")
    if input.ndim < 3:
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported "
                                  f"(got {input.ndim}D) for the modes: nearest | linear | "
                                  f"bilinear | bicubic | trilinear | area | nearest-exact "
                                  f"(got {mode})")
    out_sizes, scales = _sizes(input, size, scale_factor, recompute_scale_factor)
    if any(o <= 0 for o in out_sizes):
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input "
                           f"({', '.join(map(str, input.shape[2:]))}) and output "
                           f"({', '.join(map(str, out_sizes))})")
    t = input.dtype.np.type if input.dtype.is_floating_point else np.float32
    out = input
    for k, (n_out, scale) in enumerate(zip(out_sizes, scales)):
        d = 2 + k
        n_in = input.shape[d]
        if mode.startswith("nearest"):
            idx = _nearest(n_in, n_out, scale, mode == "nearest-exact")
            if not np.array_equal(idx, np.arange(n_in)) or n_in != n_out:
                out = out.index_select(d, tensor(idx, dtype=int64, device=input.device))
            continue
        i0, i1, w0, w1 = _linear(t, n_in, n_out, scale, align_corners)
        shape = [1] * input.ndim
        shape[d] = n_out

        def weight(w):
            return tensor(w, dtype=input.dtype, device=input.device).reshape(shape)

        def pick(i):
            return out.index_select(d, tensor(i, dtype=int64, device=input.device))

        out = add(mul(pick(i0), weight(w0)), mul(pick(i1), weight(w1)))
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
