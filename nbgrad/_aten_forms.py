"""PyTorch's low-level and deprecated top-level functions that programs still call:
ATen's ``native_*`` forms (which return their saved statistics too), ``convolution``,
``constant_pad_nd``, the 1-d adaptive pools, ``triangular_solve``, ``frobenius_norm`` /
``nuclear_norm``, ``norm_except_dim``, ``nonzero_static``, ``empty_permuted``, ``fill``.
Each is composed of nbgrad's public functions, so it differentiates as they do."""

from collections import namedtuple

from .ops.linalg_decomp import _deprecated

__all__ = ["triangular_solve", "nonzero_static", "empty_permuted", "fill", "frobenius_norm",
           "nuclear_norm", "norm_except_dim", "constant_pad_nd", "convolution",
           "adaptive_avg_pool1d", "adaptive_max_pool1d", "max_pool1d_with_indices",
           "native_dropout", "native_layer_norm", "native_batch_norm", "is_distributed",
           "angle"]

_TRIANGULAR = namedtuple("triangular_solve", ["solution", "cloned_coefficient"])


def _F():
    from .nn import functional

    return functional


def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False):
    """``(solution, cloned_coefficient)``: ``X`` with ``op(A) X = b`` for triangular ``A``
    (``op``: transposed when ``transpose``), and a copy of ``A``. Deprecated, as in
    PyTorch: ``linalg.solve_triangular(A, b)`` is the modern form.

    Example::

        >>> import nbgrad, warnings
        >>> A = nbgrad.tensor([[1.0, -2.0], [0.0, 4.0]])
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     nbgrad.triangular_solve(nbgrad.ones(2, 1), A).solution
        tensor([[1.5000],
                [0.2500]])
    """
    from .linalg import solve_triangular

    _deprecated("triangular_solve", "torch.triangular_solve is deprecated in favor of "
               "torch.linalg.solve_triangularand will be removed in a future PyTorch release."
               "\ntorch.linalg.solve_triangular has its arguments reversed and does not return "
               "a copy of one of the inputs.\nX = torch.triangular_solve(B, A).solution\nshould "
               "be replaced with\nX = torch.linalg.solve_triangular(A, B).")
    op = A.mT if transpose else A
    x = solve_triangular(op, b, upper=upper != transpose, unitriangular=unitriangular)
    return _TRIANGULAR(x, A.clone())


def nonzero_static(input, *, size, fill_value=-1):
    """``nonzero(input)`` with exactly ``size`` rows: cut, or padded with ``fill_value``.

    Example::

        >>> import nbgrad
        >>> nbgrad.nonzero_static(nbgrad.tensor([0, 1, 0, 2]), size=3)
        tensor([[ 1],
                [ 3],
                [-1]])
    """
    from .creation import full
    from .ops.concat import cat
    from .ops.condition import nonzero

    idx = nonzero(input)[:size]
    if idx.shape[0] < size:
        pad = full((size - idx.shape[0], input.ndim), fill_value, dtype=idx.dtype,
                   device=idx.device)
        idx = cat([idx, pad])
    return idx


def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None,
                   requires_grad=False, pin_memory=False):
    """An uninitialised tensor of ``size`` whose dims lie in memory in the order
    ``physical_layout`` (outermost first).

    Example::

        >>> import nbgrad
        >>> nbgrad.empty_permuted((2, 3, 4), (0, 2, 1)).stride()
        (12, 1, 3)
    """
    from .creation import empty

    size, order = tuple(size), tuple(physical_layout)
    if sorted(order) != list(range(len(size))):
        raise RuntimeError(f"Dimension out of range (expected to be in range of "
                           f"[{-len(size)}, {len(size) - 1}], but got {order})")
    t = empty(tuple(size[d] for d in order), dtype=dtype, device=device)
    inverse = [order.index(d) for d in range(len(size))]
    t = t.permute(*inverse)
    return t.requires_grad_(True) if requires_grad else t


def fill(input, value):
    """A new tensor of ``input``'s shape and dtype, every element ``value``.

    Example::

        >>> import nbgrad
        >>> nbgrad.fill(nbgrad.zeros(2), 5.0)
        tensor([5., 5.])
    """
    from .creation import full_like

    return full_like(input, value)


def frobenius_norm(input, dim=(), keepdim=False):
    """The 2-norm over ``dim`` (deprecated, as PyTorch's: ``linalg.vector_norm``).

    Example::

        >>> import nbgrad, warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     nbgrad.frobenius_norm(nbgrad.tensor([[3.0, 4.0]]), dim=(0, 1))
        tensor(5.)
    """
    from .linalg import vector_norm

    _deprecated("frobenius_norm", "at::frobenius_norm is deprecated and it is just left for "
               "JIT compatibility. It will be removed in a future PyTorch release. Please use "
               "`linalg.vector_norm(A, 2., dim, keepdim)` instead")
    return vector_norm(input, 2.0, dim if dim != () else None, keepdim)


def nuclear_norm(input, dim=None, keepdim=False):
    """The sum of singular values of the matrices over ``dim`` (default the two dims of a
    matrix); deprecated, as PyTorch's: ``linalg.matrix_norm(A, "nuc")``.

    Example::

        >>> import nbgrad, warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     nbgrad.nuclear_norm(nbgrad.eye(3))
        tensor(3.)
    """
    from .linalg import matrix_norm

    if isinstance(dim, bool):  # (the (input, keepdim) overload)
        dim, keepdim = None, dim
    _deprecated("nuclear_norm", "at::nuclear_norm is deprecated and it is just left for JIT "
               "compatibility. It will be removed in a future PyTorch release. Please use "
               "`linalg.matrix_norm(A, 'nuc', dim, keepdim)` instead")
    return matrix_norm(input, "nuc", (-2, -1) if dim is None else tuple(dim), keepdim)


def norm_except_dim(v, pow=2, dim=0):
    """The ``pow``-norm of ``v`` over every dim but ``dim``, kept as size-1 dims (weight
    normalization's norm); ``dim=-1``: over all, a scalar.

    Example::

        >>> import nbgrad
        >>> nbgrad.norm_except_dim(nbgrad.tensor([[3.0, 4.0], [0.0, 1.0]]))
        tensor([[5.],
                [1.]])
    """
    from .linalg import vector_norm

    if dim == -1:
        return vector_norm(v, pow)
    dim = dim % v.ndim
    others = tuple(d for d in range(v.ndim) if d != dim)
    return vector_norm(v, pow, others, keepdim=True)


def constant_pad_nd(input, pad, value=0):
    """``F.pad(input, pad, "constant", value)``.

    Example::

        >>> import nbgrad
        >>> nbgrad.constant_pad_nd(nbgrad.ones(2), [1, 0], 7.0)
        tensor([7., 1., 1.])
    """
    return _F().pad(input, list(pad), "constant", value)


def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
                groups):
    """ATen's one convolution of 1, 2 or 3 spatial dims, plain or transposed (``F.conv*d``
    and ``F.conv_transpose*d``, by the weight's dims).

    Example::

        >>> import nbgrad
        >>> nbgrad.convolution(nbgrad.ones(1, 1, 3), nbgrad.ones(1, 1, 2), None, [1], [0], [1],
        ...                    False, [0], 1)
        tensor([[[2., 2.]]])
    """
    F = _F()
    n = weight.ndim - 2
    if transposed:
        fn = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}[n]
        return fn(input, weight, bias, tuple(stride), tuple(padding), tuple(output_padding),
                  groups, tuple(dilation))
    fn = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}[n]
    return fn(input, weight, bias, tuple(stride), tuple(padding), tuple(dilation), groups)


def adaptive_avg_pool1d(input, output_size):
    """``F.adaptive_avg_pool1d``."""
    return _F().adaptive_avg_pool1d(input, output_size)


def adaptive_max_pool1d(input, output_size):
    """``(values, indices)`` of ``F.adaptive_max_pool1d``."""
    return _F().adaptive_max_pool1d(input, output_size, return_indices=True)


def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1,
                            ceil_mode=False):
    """``(values, indices)`` of ``F.max_pool1d`` (``stride=()``: the kernel size)."""
    return _F().max_pool1d(input, kernel_size, stride if stride not in ((), []) else None,
                           padding, dilation, ceil_mode=ceil_mode, return_indices=True)


def native_dropout(input, p, train):
    """``(output, mask)``: dropout that also returns its boolean keep-mask (all True
    when not ``train``).

    Example::

        >>> import nbgrad
        >>> nbgrad.native_dropout(nbgrad.ones(2), 0.0, True)
        (tensor([1., 1.]), tensor([True, True]))
    """
    from .creation import ones_like
    from .dtypes import bool_

    if not train or p == 0:
        return input.clone() if train else input * 1, ones_like(input, dtype=bool_)
    keep = _F().dropout(ones_like(input), p, True) != 0
    return input * keep / (1.0 - p), keep


def native_layer_norm(input, normalized_shape, weight, bias, eps):
    """``(output, mean, rstd)``: layer norm and its statistics, kept with size-1 dims over
    the normalized ones.

    Example::

        >>> import nbgrad
        >>> out, mean, rstd = nbgrad.native_layer_norm(nbgrad.tensor([[1.0, 3.0]]), [2], None,
        ...                                            None, 0.0)
        >>> out, mean, rstd
        (tensor([[-1.,  1.]]), tensor([[2.]]), tensor([[1.]]))
    """
    dims = tuple(range(input.ndim - len(normalized_shape), input.ndim))
    mean = input.mean(dims, keepdim=True)
    var = input.var(dims, unbiased=False, keepdim=True)
    rstd = (var + eps).rsqrt()
    out = _F().layer_norm(input, list(normalized_shape), weight, bias, eps)
    return out, mean.detach(), rstd.detach()


def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum,
                      eps):
    """``(output, save_mean, save_invstd)``: batch norm and, when ``training``, the batch's
    mean and inverse standard deviation per channel (empty when not).

    Example::

        >>> import nbgrad
        >>> out, m, s = nbgrad.native_batch_norm(nbgrad.tensor([[1.0], [3.0]]), None, None,
        ...                                      None, None, True, 0.1, 0.0)
        >>> out, m, s
        (tensor([[-1.],
                [ 1.]]), tensor([2.]), tensor([1.]))
    """
    from .creation import empty

    out = _F().batch_norm(input, running_mean, running_var, weight, bias, training, momentum,
                          eps)
    if not training:
        return out, empty(0, dtype=input.dtype), empty(0, dtype=input.dtype)
    dims = tuple(d for d in range(input.ndim) if d != 1)
    mean = input.detach().mean(dims)
    invstd = (input.detach().var(dims, unbiased=False) + eps).rsqrt()
    return out, mean, invstd


def is_distributed(input):
    """False: nbgrad has no distributed tensors."""
    return False


def angle(input):
    """The angle of each element as a complex number: 0 for a non-negative real number,
    pi for a negative one (NaN stays NaN); integers give the default float dtype.

    Example::

        >>> import nbgrad
        >>> nbgrad.angle(nbgrad.tensor([2.0, -1.0]))
        tensor([0.0000, 3.1416])
    """
    import math

    from .dtypes import get_default_dtype

    x = input if input.dtype.is_floating_point else input.to(get_default_dtype())
    out = (x < 0).to(x.dtype) * math.pi
    return out + x * 0  # (x * 0 carries NaN through, and the gradient: zero, as PyTorch's)
