"""PyTorch's low-level and deprecated top-level functions that programs still call:
ATen's ``native_*`` forms (which return their saved statistics too), ``convolution``,
``constant_pad_nd``, the 1-d adaptive pools, ``triangular_solve``, ``frobenius_norm`` /
``nuclear_norm``, ``norm_except_dim``, ``nonzero_static``, ``empty_permuted``, ``fill``.
Each is composed of nbgrad's public functions, so it differentiates as they do."""


from . import return_types as RT
from .ops.linalg_decomp import _deprecated

__all__ = ["triangular_solve", "nonzero_static", "empty_permuted", "fill", "frobenius_norm",
           "nuclear_norm", "norm_except_dim", "constant_pad_nd", "convolution",
           "adaptive_avg_pool1d", "adaptive_max_pool1d", "max_pool1d_with_indices",
           "native_dropout", "native_layer_norm", "native_batch_norm", "is_distributed",
           "angle"]



def _F():
    from .nn import functional

    return functional


def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False):
    """triangular_solve(b, A, upper=True, transpose=False, unitriangular=False) -> (Tensor, Tensor)

    The solution ``X`` of ``op(A) X = b`` for a triangular matrix ``A`` (``op(A)``: ``A``,
    or its transpose when ``transpose``), and a copy of ``A``. Deprecated, as PyTorch's (it
    warns): :func:`nbgrad.linalg.solve_triangular` takes ``A`` first and returns ``X`` only.

    Args:
        b (Tensor): the right-hand sides, of shape ``(*, m, k)``.
        A (Tensor): the triangular matrices, of shape ``(*, m, m)``; only the triangle named
            by ``upper`` is read.
        upper (bool, optional): ``A`` is upper triangular (else lower). Default: ``True``.
        transpose (bool, optional): solve with ``A``'s transpose. Default: ``False``.
        unitriangular (bool, optional): take ``A``'s diagonal as all ones. Default: ``False``.

    Returns:
        (Tensor, Tensor): a named tuple ``(solution, cloned_coefficient)``.

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
    return RT.triangular_solve(x, A.clone())


def nonzero_static(input, *, size, fill_value=-1):
    """nonzero_static(input, *, size, fill_value=-1) -> Tensor

    The indices of the nonzero elements of ``input``, as :func:`nbgrad.nonzero`, in a
    result of exactly ``size`` rows: the first ``size`` when there are more, padded with rows
    of ``fill_value`` when there are fewer.

    Args:
        input (Tensor): the input tensor.
        size (int): the number of rows of the result.
        fill_value (int, optional): the value of the padding rows. Default: ``-1``.

    Shape:
        - Output: ``(size, input.ndim)``, of dtype ``int64``.

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
    r"""empty_permuted(size, physical_layout, \*, dtype=None, layout=None, device=None,
    requires_grad=False, pin_memory=False) -> Tensor

    An uninitialised tensor of shape ``size`` whose dims are laid out in memory in the order
    ``physical_layout`` (outermost first): ``physical_layout=(0, 2, 3, 1)`` of a 4-D size is
    the channels-last layout.

    Args:
        size (tuple of int): the shape of the result.
        physical_layout (tuple of int): a permutation of the dims: their order in memory,
            the outermost first.
        dtype (nbgrad.dtype, optional): the dtype. Default: ``None``, the default dtype.
        layout (nbgrad.layout, optional): accepted for PyTorch's signature. Default: ``None``.
        device (nbgrad.device or str, optional): the device. Default: ``None``, the default
            device.
        requires_grad (bool, optional): record operations on it for autograd. Default:
            ``False``.
        pin_memory (bool, optional): accepted for PyTorch's signature; unused. Default:
            ``False``.

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
    """fill(input, value) -> Tensor

    A new tensor of ``input``'s shape, dtype and device with every element ``value``
    (``input`` is left as it is; :meth:`Tensor.fill_` writes into it).

    Args:
        input (Tensor): the tensor whose shape, dtype and device to take.
        value (Number or Tensor): the value, a number or a 0-dim tensor.

    Example::

        >>> import nbgrad
        >>> nbgrad.fill(nbgrad.zeros(2), 5.0)
        tensor([5., 5.])
    """
    from .creation import full_like

    return full_like(input, value)


def frobenius_norm(input, dim=(), keepdim=False):
    """frobenius_norm(input, dim=(), keepdim=False) -> Tensor

    The Frobenius norm of ``input`` over the dims ``dim``: the square root of the sum of the
    squares. Deprecated, as PyTorch's (it warns): use
    ``nbgrad.linalg.vector_norm(input, 2, dim, keepdim)``.

    Args:
        input (Tensor): the input tensor.
        dim (int or tuple of int, optional): the dims to reduce; empty: all. Default: ``()``.
        keepdim (bool, optional): keep the reduced dims with size 1. Default: ``False``.

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
    """nuclear_norm(input, dim=None, keepdim=False) -> Tensor

    The nuclear norm (the sum of the singular values) of the matrices of ``input``.
    Deprecated, as PyTorch's (it warns): use ``nbgrad.linalg.matrix_norm(input, "nuc")``.
    ``nuclear_norm(input, keepdim)`` with a bool second argument is PyTorch's other form.

    Args:
        input (Tensor): the input, of at least 2 dims.
        dim (tuple of int, optional): the two dims that hold the matrices. Default: ``None``,
            the last two.
        keepdim (bool, optional): keep the reduced dims with size 1. Default: ``False``.

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
    """norm_except_dim(v, pow=2, dim=0) -> Tensor

    The ``pow``-norm of ``v`` over every dim but ``dim``, with the reduced dims kept with
    size 1 (the norm of weight normalization); ``dim=-1`` reduces over all the dims, to a
    0-dim tensor.

    Args:
        v (Tensor): the input tensor.
        pow (float, optional): the order of the norm. Default: ``2``.
        dim (int, optional): the dim not reduced; ``-1``: none. Default: ``0``.

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
    """constant_pad_nd(input, pad, value=0) -> Tensor

    ``input`` padded with the constant ``value``: ``nbgrad.nn.functional.pad(input, pad,
    "constant", value)``.

    Args:
        input (Tensor): the input tensor.
        pad (list of int): the padding sizes, in pairs ``(before, after)`` from the last dim
            backwards; negative sizes crop.
        value (Number, optional): the padding value. Default: ``0``.

    Example::

        >>> import nbgrad
        >>> nbgrad.constant_pad_nd(nbgrad.ones(2), [1, 0], 7.0)
        tensor([7., 1., 1.])
    """
    return _F().pad(input, list(pad), "constant", value)


def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
                groups):
    """convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
    groups) -> Tensor

    ATen's convolution of 1, 2 or 3 spatial dims (from the number of dims of ``weight``),
    plain or transposed: :func:`nbgrad.nn.functional.conv1d` ... ``conv3d`` or
    ``conv_transpose1d`` ... ``conv_transpose3d``, with every argument given.

    Args:
        input (Tensor): the input, of shape ``(N, C_in, *spatial)``.
        weight (Tensor): the filters, of shape ``(C_out, C_in / groups, *kernel)`` (for a
            transposed convolution ``(C_in, C_out / groups, *kernel)``).
        bias (Tensor or None): a bias of shape ``(C_out,)``, or ``None``.
        stride (list of int): the stride of each spatial dim.
        padding (list of int): the implicit zero padding of each spatial dim.
        dilation (list of int): the spacing of the kernel's elements in each spatial dim.
        transposed (bool): a transposed convolution.
        output_padding (list of int): the size added to one side of each spatial dim of a
            transposed convolution's output (ignored when not ``transposed``).
        groups (int): the number of blocked connections from the input channels to the
            output channels.

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
    """adaptive_avg_pool1d(input, output_size) -> Tensor

    The mean over ``output_size`` windows that cover the last dim of ``input``:
    :func:`nbgrad.nn.functional.adaptive_avg_pool1d`.

    Args:
        input (Tensor): the input, of shape ``(N, C, L)`` or ``(C, L)``.
        output_size (int or tuple of int): the length of the output.

    Example::

        >>> import nbgrad
        >>> nbgrad.adaptive_avg_pool1d(nbgrad.tensor([[[1.0, 3.0, 2.0, 5.0]]]), 2)
        tensor([[[2.0000, 3.5000]]])
    """
    return _F().adaptive_avg_pool1d(input, output_size)


def adaptive_max_pool1d(input, output_size):
    """adaptive_max_pool1d(input, output_size) -> (Tensor, Tensor)

    The maximum over ``output_size`` windows that cover the last dim of ``input``, and where
    each was: :func:`nbgrad.nn.functional.adaptive_max_pool1d` with
    ``return_indices=True``.

    Args:
        input (Tensor): the input, of shape ``(N, C, L)`` or ``(C, L)``.
        output_size (int or tuple of int): the length of the output.

    Returns:
        (Tensor, Tensor): the maxima, and their indices along the last dim.

    Example::

        >>> import nbgrad
        >>> nbgrad.adaptive_max_pool1d(nbgrad.tensor([[[1.0, 3.0, 2.0, 5.0]]]), 2)
        (tensor([[[3., 5.]]]), tensor([[[1, 3]]]))
    """
    return _F().adaptive_max_pool1d(input, output_size, return_indices=True)


def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1,
                            ceil_mode=False):
    """max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1,
    ceil_mode=False) -> (Tensor, Tensor)

    :func:`nbgrad.max_pool1d` that also returns where each maximum was
    (:func:`nbgrad.nn.functional.max_pool1d` with ``return_indices=True``).

    Args:
        input (Tensor): the input, of shape ``(N, C, L)`` or ``(C, L)``.
        kernel_size (int or tuple): the window size.
        stride (int or tuple, optional): the step between windows; empty: ``kernel_size``.
            Default: ``()``.
        padding (int or tuple, optional): implicit ``-inf`` padding on both sides. Default: ``0``.
        dilation (int or tuple, optional): the step between a window's elements. Default: ``1``.
        ceil_mode (bool, optional): round the output length up. Default: ``False``.

    Returns:
        (Tensor, Tensor): the maxima, and their indices along the last dim.

    Example::

        >>> import nbgrad
        >>> nbgrad.max_pool1d_with_indices(nbgrad.tensor([[[1.0, 3.0, 2.0, 5.0]]]), 2)
        (tensor([[[3., 5.]]]), tensor([[[1, 3]]]))
    """
    return _F().max_pool1d(input, kernel_size, stride if stride not in ((), []) else None,
                           padding, dilation, ceil_mode=ceil_mode, return_indices=True)


def native_dropout(input, p, train):
    """native_dropout(input, p, train) -> (Tensor, Tensor)

    Dropout that also returns its mask: when ``train``, each element is zeroed with
    probability ``p`` and the others scaled by ``1 / (1 - p)``; the mask is ``True`` where an
    element was kept (all ``True`` when not ``train``, and the output a copy of ``input``).

    Args:
        input (Tensor): the input tensor.
        p (float): the probability of zeroing an element, in ``[0, 1]``.
        train (bool): apply dropout.

    Returns:
        (Tensor, Tensor): ``(output, mask)``, the mask of dtype ``bool``.

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
    """native_layer_norm(input, normalized_shape, weight, bias, eps) -> (Tensor, Tensor, Tensor)

    Layer normalization (:func:`nbgrad.nn.functional.layer_norm`) that also returns the
    statistics it used: the mean and the reciprocal standard deviation over the normalized
    dims, which are kept with size 1.

    Args:
        input (Tensor): the input, of shape ``(*, *normalized_shape)``.
        normalized_shape (list of int): the shape of the trailing dims to normalize over.
        weight (Tensor or None): the scale, of shape ``normalized_shape``.
        bias (Tensor or None): the shift, of shape ``normalized_shape``.
        eps (float): added to the variance for stability.

    Returns:
        (Tensor, Tensor, Tensor): ``(output, mean, rstd)``.

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
    """native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum,
    eps) -> (Tensor, Tensor, Tensor)

    Batch normalization (:func:`nbgrad.nn.functional.batch_norm`) that also returns, when
    ``training``, the batch's mean and inverse standard deviation per channel (empty tensors
    when not).

    Args:
        input (Tensor): the input, of shape ``(N, C, *)``.
        weight (Tensor or None): the per-channel scale, of shape ``(C,)``.
        bias (Tensor or None): the per-channel shift, of shape ``(C,)``.
        running_mean (Tensor or None): the running mean, updated in place when ``training``.
        running_var (Tensor or None): the running variance, updated likewise.
        training (bool): normalize with the batch's statistics (else the running ones).
        momentum (float): the weight of the batch's statistics in the running ones' update.
        eps (float): added to the variance for stability.

    Returns:
        (Tensor, Tensor, Tensor): ``(output, save_mean, save_invstd)``.

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
    """is_distributed(input) -> bool

    Whether ``input`` is a distributed tensor. nbgrad has none: always ``False``.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> import nbgrad
        >>> nbgrad.is_distributed(nbgrad.ones(2))
        False
    """
    return False


def angle(input):
    """angle(input) -> Tensor

    The angle (argument) of each element taken as a complex number: ``0`` for a real number
    that is not negative, ``pi`` for a negative one; NaN stays NaN. An integer ``input``
    gives the default floating dtype. Its gradient is zero.

    Args:
        input (Tensor): the input tensor.

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
