"""``grid_sample`` and ``affine_grid``, PyTorch's spatial-transformer pair, composed of
nbgrad ops: a sample is a gather of the input at the corners around each grid point,
weighted by the point's fractional position. The input's gradient (gather's scatter-add)
and the grid's (through the weights and the padding's reflections and clamps) come from
those ops' rules, on every device and to any order."""

import math
import warnings

from ..creation import linspace, ones
from ._core import SCALAR_TYPE, Tensor, same_device
from .concat import stack
from .elementwise import abs as _abs
from .elementwise import (
    add,
    clamp,
    div,
    eq,
    floor,
    fmod,
    ge,
    logical_and,
    lt,
    mul,
    round,
    rsub,
    sub,
    where,
)
from .index import gather
from .linalg import matmul
from .shape import expand, reshape, unsqueeze

_MODES = ("bilinear", "nearest", "bicubic")
_PADDINGS = ("zeros", "border", "reflection")
_CUBIC_A = -0.75  # the cubic convolution's parameter, as PyTorch's


def _default_corners(align_corners):
    if align_corners is None:
        warnings.warn(
            "Default grid_sample and affine_grid behavior has changed to align_corners=False "
            "since 1.3.0. Please specify align_corners=True if the old behavior is desired. See "
            "the documentation of grid_sample for details.", stacklevel=3)
        return False
    return bool(align_corners)


def _unnormalize(c, size, align_corners):
    """Grid coordinates in [-1, 1] to pixel coordinates along a dim of ``size``."""
    if align_corners:  # -1 and 1 are the centres of the corner pixels
        return mul(add(c, 1), (size - 1) / 2)
    return mul(sub(mul(add(c, 1), size), 1), 0.5)  # -1 and 1 are their outer edges


def _reflect(c, twice_low, twice_high):
    """``c`` reflected into [twice_low / 2, twice_high / 2] as often as it takes."""
    if twice_low == twice_high:
        return mul(c, 0)
    low = twice_low / 2
    span = (twice_high - twice_low) / 2
    c = _abs(sub(c, low))
    extra = fmod(c, span)
    flips = floor(div(c, span))
    return where(eq(fmod(flips, 2), 0), add(extra, low), add(rsub(extra, span), low))


def _padded(c, size, padding_mode, align_corners):
    """Pixel coordinates moved inside the input as ``padding_mode`` says (zeros: as they
    are; the samples outside count as 0)."""
    if padding_mode == "border":
        return clamp(c, 0, size - 1)
    if padding_mode == "reflection":
        if align_corners:
            c = _reflect(c, 0, 2 * (size - 1))
        else:
            c = _reflect(c, -1, 2 * size - 1)
        return clamp(c, 0, size - 1)
    return c


def _gather(flat, coords, sizes, N, C, L):
    """The input's values (N, C, L) at integer pixel coordinates ``coords`` (one (N, L)
    tensor per spatial dim, outermost first; any value), and where each lies inside."""
    inside = None
    index = None
    for c, n in zip(coords, sizes):
        ok = logical_and(ge(c, 0), lt(c, n))
        inside = ok if inside is None else logical_and(inside, ok)
        k = where(ok, c, 0).long()  # (an index outside, or of a NaN, reads 0 and is masked)
        index = k if index is None else add(mul(index, n), k)
    v = gather(flat, 2, expand(unsqueeze(index, 1), (N, C, L)))
    return v, inside


def _weighted(total, v, w, inside):
    w = where(inside, w, 0.0)
    term = mul(v, unsqueeze(w, 1))
    return term if total is None else add(total, term)


def _cubic(t):
    """The four cubic-convolution weights of the taps at -1, 0, 1, 2 for fraction ``t``."""
    A = _CUBIC_A

    def near(x):  # |x| <= 1
        return add(mul(mul(sub(mul(x, A + 2), A + 3), x), x), 1)

    def far(x):  # 1 < |x| < 2
        return sub(mul(add(mul(sub(mul(x, A), 5 * A), x), 8 * A), x), 4 * A)

    return far(add(t, 1)), near(t), near(rsub(t, 1)), far(rsub(t, 2))


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Sample ``input`` at the points of ``grid``, given in normalized coordinates.

    ``grid[n, h, w]`` holds a point :math:`(x, y)` of ``input[n]`` (:math:`(x, y, z)` for a 5-D
    input), each coordinate in :math:`[-1, 1]` across the input's width, height (and depth):
    :math:`(-1, -1)` is the top-left corner. The output at :math:`(h, w)` is the input's value
    there, interpolated per ``mode``. Differentiable with respect to ``input`` and ``grid``
    (e.g. a spatial transformer, with :func:`affine_grid`).

    Args:
        input (Tensor): the input, :math:`(N, C, H_{in}, W_{in})` or
            :math:`(N, C, D_{in}, H_{in}, W_{in})`, floating point.
        grid (Tensor): the sampling points, :math:`(N, H_{out}, W_{out}, 2)` or
            :math:`(N, D_{out}, H_{out}, W_{out}, 3)`, of the input's dtype.
        mode (str, optional): ``"bilinear"`` (trilinear for a 5-D input), ``"nearest"`` or
            ``"bicubic"`` (4-D input only). Default: ``"bilinear"``.
        padding_mode (str, optional): what points outside the input read: ``"zeros"``,
            ``"border"`` (the nearest edge value) or ``"reflection"`` (mirrored into the
            input). Default: ``"zeros"``.
        align_corners (bool, optional): ``True``: -1 and 1 are the centres of the corner
            pixels; ``False``: their outer edges, which makes the sampling independent of the
            input's resolution. Default: ``None`` (``False``).

    Shape:
        - Input: :math:`(N, C, H_{in}, W_{in})` or :math:`(N, C, D_{in}, H_{in}, W_{in})`.
        - Grid: :math:`(N, H_{out}, W_{out}, 2)` or :math:`(N, D_{out}, H_{out}, W_{out}, 3)`.
        - Output: :math:`(N, C, H_{out}, W_{out})` or :math:`(N, C, D_{out}, H_{out}, W_{out})`.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> x = nbgrad.arange(4.0).reshape(1, 1, 2, 2)
        >>> grid = nbgrad.tensor([[[[0.0, 0.0]]]])
        >>> F.grid_sample(x, grid, align_corners=True)
        tensor([[[[1.5000]]]])
        >>> grid = nbgrad.tensor([[[[-1.0, -1.0], [1.0, -1.0], [2.0, 0.0]]]])
        >>> F.grid_sample(x, grid, align_corners=True, padding_mode="border")
        tensor([[[[0., 1., 2.]]]])
        >>> F.grid_sample(x, grid, mode="nearest", align_corners=True)
        tensor([[[[0., 1., 0.]]]])
    """
    if mode not in _MODES:
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in _PADDINGS:
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    align_corners = _default_corners(align_corners)
    for name, t in (("input", input), ("grid", grid)):
        if not isinstance(t, Tensor):
            raise TypeError(f"grid_sample(): argument '{name}' must be Tensor, not "
                            f"{type(t).__name__}")
    same_device("grid_sampler", input, grid)
    ishape, gshape = list(input.shape), list(grid.shape)
    if ishape[:1] != gshape[:1] or input.ndim < 1:
        raise RuntimeError("grid_sampler(): expected grid and input to have same batch size, "
                           f"but got input with sizes {ishape} and grid with sizes {gshape}")
    k = input.ndim - 2
    if gshape[-1] != k:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {k} in last "
                           f"dimension, but got grid with sizes {gshape}")
    for d in range(2, input.ndim):
        if ishape[d] == 0:
            raise RuntimeError("grid_sampler(): expected input to have non-empty spatial "
                               f"dimensions, but input has sizes {ishape} with dimension {d} "
                               "being empty")
    if k not in (2, 3) or grid.ndim != input.ndim:
        raise RuntimeError("grid_sampler(): expected 4D or 5D input and grid with same number "
                           f"of dimensions, but got input with sizes {ishape} and grid with "
                           f"sizes {gshape}")
    if mode == "bicubic" and k != 2:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f'"grid_sampler_{k}d_cpu_kernel_impl" not implemented for '
                                  f"'{SCALAR_TYPE[input.dtype.name]}'")
    if grid.dtype is not input.dtype:
        raise RuntimeError(f"expected scalar type {SCALAR_TYPE[input.dtype.name]} but found "
                           f"{SCALAR_TYPE[grid.dtype.name]}")
    N, C = ishape[0], ishape[1]
    sizes = ishape[2:]  # outermost first (D, H, W); the grid's last dim is (x, y, z)
    out_sizes = gshape[1:-1]
    L = math.prod(out_sizes)
    flat = reshape(input, (N, C, math.prod(sizes)))
    g = reshape(grid, (N, L, k))
    coords = [_unnormalize(g[:, :, k - 1 - d], n, align_corners) for d, n in enumerate(sizes)]
    if mode == "bicubic":
        out = _bicubic(flat, coords, sizes, N, C, L, padding_mode, align_corners)
    else:
        coords = [_padded(c, n, padding_mode, align_corners) for c, n in zip(coords, sizes)]
        if mode == "nearest":  # (ties to even, as PyTorch's nearbyint)
            picks = [round(c) for c in coords]
            v, inside = _gather(flat, picks, sizes, N, C, L)
            # a weight of 1 that depends on the grid: its gradient is round's, zeros (not
            # None), as PyTorch's for this mode
            w = None
            for r in picks:
                w = add(sub(r, r.detach()), 1) if w is None else add(w, sub(r, r.detach()))
            out = _weighted(None, v, w, inside)
        else:
            out = _linear(flat, coords, sizes, N, C, L)
    return reshape(out, (N, C, *out_sizes))


def _linear(flat, coords, sizes, N, C, L):
    """Bilinear (trilinear) sampling: the 2**k corners, each weighted by the product of
    the point's distances from the opposite corner along every dim."""
    lows = [floor(c.detach()) for c in coords]
    fracs = [sub(c, lo) for c, lo in zip(coords, lows)]
    total = None
    for corner in range(1 << len(coords)):
        picks, w = [], None
        for d, (lo, f) in enumerate(zip(lows, fracs)):
            high = (corner >> (len(coords) - 1 - d)) & 1
            picks.append(add(lo, 1) if high else lo)
            wd = f if high else rsub(f, 1)
            w = wd if w is None else mul(w, wd)
        v, inside = _gather(flat, picks, sizes, N, C, L)
        total = _weighted(total, v, w, inside)
    return total


def _bicubic(flat, coords, sizes, N, C, L, padding_mode, align_corners):
    """Bicubic sampling: 4 x 4 taps around each point, each tap's coordinate moved in by
    the padding mode (as PyTorch's ``get_value_bounded``)."""
    (cy, cx), (H, W) = coords, sizes
    y0, x0 = floor(cy.detach()), floor(cx.detach())
    wy, wx = _cubic(sub(cy, y0)), _cubic(sub(cx, x0))
    total = None
    for i in range(4):
        ty = _padded(add(y0, i - 1), H, padding_mode, align_corners)
        for j in range(4):
            tx = _padded(add(x0, j - 1), W, padding_mode, align_corners)
            v, inside = _gather(flat, [ty, tx], sizes, N, C, L)
            total = _weighted(total, v, mul(wy[i], wx[j]), inside)
    return total


def _base(n, align_corners, like):
    """The normalized coordinates of ``n`` pixel centres along a dim."""
    c = linspace(-1, 1, n, dtype=like.dtype, device=like.device)
    if not align_corners:
        c = mul(c, (n - 1) / n)
    return c


def affine_grid(theta, size, align_corners=None):
    """Build the sampling grid of a batch of affine maps, for :func:`grid_sample`.

    For each output pixel, the grid holds the normalized point :math:`(x, y)` (or
    :math:`(x, y, z)`) of the input it reads: ``theta`` applied to the pixel's own normalized
    coordinates, in :math:`[-1, 1]`. Differentiable with respect to ``theta``.

    Args:
        theta (Tensor): the affine maps, :math:`(N, 2, 3)` for 2-D or :math:`(N, 3, 4)` for
            3-D, floating point.
        size (sequence of int): the output's size, :math:`(N, C, H, W)` or
            :math:`(N, C, D, H, W)`.
        align_corners (bool, optional): as for :func:`grid_sample`, with which it should
            agree. Default: ``None`` (``False``).

    Returns:
        Tensor: the grid, :math:`(N, H, W, 2)` or :math:`(N, D, H, W, 3)`.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> theta = nbgrad.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
        >>> F.affine_grid(theta, (1, 1, 2, 2), align_corners=False)
        tensor([[[[-0.5000, -0.5000],
                  [ 0.5000, -0.5000]],
        <BLANKLINE>
                 [[-0.5000,  0.5000],
                  [ 0.5000,  0.5000]]]])
        >>> x = nbgrad.arange(4.0).reshape(1, 1, 2, 2)
        >>> flip = nbgrad.tensor([[[-1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
        >>> F.grid_sample(x, F.affine_grid(flip, (1, 1, 2, 2), align_corners=False),
        ...               align_corners=False)
        tensor([[[[1., 0.],
                  [3., 2.]]]])
    """
    align_corners = _default_corners(align_corners)
    if not isinstance(theta, Tensor):
        raise TypeError(f"affine_grid(): argument 'theta' must be Tensor, not "
                        f"{type(theta).__name__}")
    if not theta.dtype.is_floating_point:
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    shown, size = size, tuple(int(s) for s in size)
    if len(size) not in (4, 5):
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  f"affine transforms, respectively. Got size {shown}.")
    k = len(size) - 2
    if theta.ndim != 3 or tuple(theta.shape[1:]) != (k, k + 1):
        raise ValueError(f"Expected a batch of {k}D affine matrices of shape Nx{k}x{k + 1} for "
                         f"size {shown}. Got {theta.shape}.")
    if align_corners and min(size[2:]) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size "
                      "grids when align_corners=True. This is not an intended use case of "
                      "affine_grid. See the documentation of affine_grid for details.",
                      stacklevel=2)
    if min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {shown}")
    N = size[0]
    if theta.shape[0] != N:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{N}, {k + 1}] but got: [{theta.shape[0]}, {k + 1}].")
    spatial = size[2:]  # (D,) H, W
    axes = [_base(n, align_corners, theta) for n in reversed(spatial)]  # x, y(, z)
    out = list(reversed(spatial))
    cols = []
    for d, a in enumerate(axes):  # coordinate d varies along spatial dim k - 1 - d
        shape = [1] * k
        shape[k - 1 - d] = out[d]
        cols.append(expand(reshape(a, tuple(shape)), tuple(spatial)))
    cols.append(ones(spatial, dtype=theta.dtype, device=theta.device))
    base = reshape(stack(cols, -1), (1, math.prod(spatial), k + 1))
    grid = matmul(base, theta.transpose(1, 2))  # (N, points, k)
    return reshape(grid, (N, *spatial, k))

