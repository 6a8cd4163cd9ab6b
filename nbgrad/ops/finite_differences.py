"""``torch.gradient``: derivatives of sampled values by finite differences (central inside,
one-sided of first or second order at the ends, with even or given coordinates), as
NumPy's ``gradient``. Composed of slices and elementwise ops, so it differentiates."""

import numbers

from ._core import check_tensor
from .concat import cat

__all__ = ["gradient"]


def _dims(dim, ndim):
    if dim is None:
        return list(range(ndim))
    dims = [dim] if isinstance(dim, numbers.Integral) else list(dim)
    out = []
    for d in dims:
        d = d + ndim if d < 0 else d
        if not 0 <= d < max(ndim, 1):
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-max(ndim, 1)}, {max(ndim, 1) - 1}], but got {d})")
        if d in out:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        out.append(d)
    return out


def _along(f, d, start, stop):
    return f.narrow(d, start, stop - start)


def _uniform(f, d, h, edge_order):
    n = f.shape[d]
    inner = (_along(f, d, 2, n) - _along(f, d, 0, n - 2)) / (2.0 * h)
    if edge_order == 1:
        first = (_along(f, d, 1, 2) - _along(f, d, 0, 1)) / h
        last = (_along(f, d, n - 1, n) - _along(f, d, n - 2, n - 1)) / h
    else:
        first = (-1.5 * _along(f, d, 0, 1) + 2.0 * _along(f, d, 1, 2)
                 - 0.5 * _along(f, d, 2, 3)) / h
        last = (0.5 * _along(f, d, n - 3, n - 2) - 2.0 * _along(f, d, n - 2, n - 1)
                + 1.5 * _along(f, d, n - 1, n)) / h
    return cat([first, inner, last], d)


def _shaped(v, d, ndim):
    """1-d ``v`` shaped to broadcast along dim ``d`` of an ``ndim``-d tensor."""
    return v.reshape((-1,) + (1,) * (ndim - 1 - d))


def _coordinates(f, d, x, edge_order):
    n, nd = f.shape[d], f.ndim
    dx = x[1:] - x[:-1]
    dx1, dx2 = _shaped(dx[:-1], d, nd), _shaped(dx[1:], d, nd)
    a = -dx2 / (dx1 * (dx1 + dx2))
    b = (dx2 - dx1) / (dx1 * dx2)
    c = dx1 / (dx2 * (dx1 + dx2))
    inner = a * _along(f, d, 0, n - 2) + b * _along(f, d, 1, n - 1) + c * _along(f, d, 2, n)
    if edge_order == 1:
        first = (_along(f, d, 1, 2) - _along(f, d, 0, 1)) / dx[0]
        last = (_along(f, d, n - 1, n) - _along(f, d, n - 2, n - 1)) / dx[-1]
    else:
        h1, h2 = dx[0], dx[1]
        first = (-(2.0 * h1 + h2) / (h1 * (h1 + h2)) * _along(f, d, 0, 1)
                 + (h1 + h2) / (h1 * h2) * _along(f, d, 1, 2)
                 - h1 / (h2 * (h1 + h2)) * _along(f, d, 2, 3))
        h1, h2 = dx[-2], dx[-1]
        last = (h2 / (h1 * (h1 + h2)) * _along(f, d, n - 3, n - 2)
                - (h2 + h1) / (h1 * h2) * _along(f, d, n - 2, n - 1)
                + (2.0 * h2 + h1) / (h2 * (h1 + h2)) * _along(f, d, n - 1, n))
    return cat([first, inner, last], d)


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """Estimate the derivative of a function from its samples, along one or more dims, by
    finite differences.

    ``input`` holds the values :math:`f(x)` of a function at sample points. Inside, the
    derivative comes from central differences (second-order accurate, also for unevenly
    spaced points); at the two ends from one-sided differences of order ``edge_order``. As
    NumPy's ``gradient``. Integer inputs give the default floating-point dtype.

    Args:
        input (Tensor): the sampled values; each dim differentiated needs at least
            ``edge_order + 1`` samples.
        spacing (Number or list, optional): the spacing of the samples: one number for every
            dim, one number per dim of ``dim``, or one 1-d tensor per dim of ``dim`` holding the
            sample coordinates along it. Default: ``1``.
        dim (int or list of ints, optional): the dim(s) to differentiate along. Default:
            ``None`` (every dim).
        edge_order (int, optional): the order (1 or 2) of the differences at the ends.
            Default: ``1``.

    Returns:
        tuple of Tensor: one derivative per dim, each of ``input``'s shape.

    Example::

        >>> import nbgrad
        >>> nbgrad.gradient(nbgrad.tensor([1.0, 4.0, 9.0, 16.0]))
        (tensor([3., 4., 6., 7.]),)
        >>> nbgrad.gradient(nbgrad.tensor([1.0, 4.0, 9.0, 16.0]), spacing=2.0, edge_order=2)
        (tensor([1., 2., 3., 4.]),)
        >>> coords = [nbgrad.tensor([0.0, 1.0, 3.0])]
        >>> nbgrad.gradient(nbgrad.tensor([0.0, 1.0, 9.0]), spacing=coords)
        (tensor([1., 2., 4.]),)
        >>> x = nbgrad.tensor([[1.0, 2.0, 4.0], [2.0, 5.0, 8.0]])
        >>> nbgrad.gradient(x, dim=1)
        (tensor([[1.0000, 1.5000, 2.0000],
                [3.0000, 3.0000, 3.0000]]),)
    """
    from ..dtypes import get_default_dtype

    check_tensor(input, "gradient")
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    dims = _dims(dim, input.ndim)
    if isinstance(spacing, (list, tuple)):
        if len(spacing) != len(dims):
            raise RuntimeError(
                "torch.gradient expected spacing to be unspecified, a scalar or it's spacing "
                "and dim arguments to have the same length, but got a spacing argument of "
                f"length {len(spacing)} and a dim argument of length {len(dims)}.")
        steps = list(spacing)
    else:
        steps = [spacing] * len(dims)
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least "
                               "edge_order+1")
    f = input if input.dtype.is_floating_point else input.to(get_default_dtype())
    out = []
    for d, h in zip(dims, steps):
        if hasattr(h, "ndim") and h.ndim == 1:
            if h.shape[0] != input.shape[d]:
                raise RuntimeError(f"torch.gradient expected each tensor to be on the same "
                                   f"device and to have as many elements as the input has "
                                   f"along dim {d}")
            out.append(_coordinates(f, d, h, edge_order))
        else:
            out.append(_uniform(f, d, float(h) if not hasattr(h, "ndim") else h, edge_order))
    return tuple(out)
