"""Vector norms: ``linalg_vector_norm`` as a row (one float64-accumulating kernel over the
reduced dims, PyTorch's subgradients in nbgrad ops) and ``norm``, its PyTorch front."""

import math

from .. import dtypes as _dt
from ..amp.policy import autocast_op
from ._core import SCALAR_TYPE, backend, check_tensor, kernel, write_out
from .elementwise import abs, div, eq, mul, pow, sign, where, zeros_like
from .funcdef import deffunc, surface
from .reduce import _arb, _dims, _out_shape, _restore
from .reduce import sum as _sum


def _norm_kind(p):
    from ..kernels import rows as K

    if p == 0:
        return K.NORM_ZERO
    if p == 1:
        return K.NORM_ONE
    if p == 2:
        return K.NORM_TWO
    if p == math.inf:
        return K.NORM_INF
    if p == -math.inf:
        return K.NORM_NEGINF
    return K.NORM_P


def linalg_vector_norm_backward(grad, input, result, ord, dim, keepdim):
    """PyTorch's subgradients of the vector norm: 0 where the norm is 0; inf-norms share
    the gradient among the elements of largest (smallest) magnitude."""
    x, y, p = input, result, ord
    shape = tuple(x.shape)
    if p == 0:
        return zeros_like(x)  # (a count: zero gradient everywhere, as PyTorch's)
    g = _restore(grad, shape, dim, keepdim)
    if p == 1:
        return mul(g, sign(x))
    y = _restore(y, shape, dim, keepdim)
    if p in (math.inf, -math.inf):
        mask = eq(abs(x), y)
        count = _sum(mask, dim, keepdim=True)
        # where after the division: a NaN slice has no match (count 0), gradient 0
        return mul(sign(x), where(mask, div(g, count), 0.0))
    zero = eq(y, 0)
    ysafe = where(zero, 1.0, y)
    if p == 2:
        return mul(x, where(zero, 0.0, div(g, ysafe)))
    if p < 1:
        xz = eq(x, 0)
        a = where(xz, 1.0, abs(x))
        scaled = mul(sign(x), where(xz, 0.0, pow(a, p - 1)))
    elif p < 2:
        scaled = mul(sign(x), pow(abs(x), p - 1))
    else:
        scaled = mul(x, pow(abs(x), p - 2))
    return mul(scaled, where(zero, 0.0, div(g, pow(ysafe, p - 1))))


def _norm_forward(x, odt, dev, ord, dim, keepdim):
    x3, A, B = _arb(x, dim, dev)
    data = backend(dev).empty((A, B), odt.np)
    kernel("norm", dev)(x3, data, _norm_kind(ord), ord)
    return data.reshape(_out_shape(x.shape, dim, keepdim))


def _norm_dtype(dt, *args):
    if not dt.is_floating_point:
        raise RuntimeError(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. "
            f"Got {SCALAR_TYPE[dt.name]}"
        )
    return dt


LINALG_VECTOR_NORM = deffunc(
    "linalg_vector_norm", kernels=("norm",), forward=_norm_forward, dtype=_norm_dtype,
    shape=lambda s, ord, dim, keepdim: _out_shape(tuple(s), dim, keepdim),
    args=("ord", "dim", "keepdim"),
    grads=("linalg_vector_norm_backward(grad, input, result, ord, dim, keepdim)",),
    fn=False, method=False)


@surface(LINALG_VECTOR_NORM)
@autocast_op("linalg_vector_norm")
def linalg_vector_norm(input, ord=2, dim=None, keepdim=False, *, dtype=None):
    """The vector norm of order ``ord`` over ``dim`` (all dims when None): PyTorch's
    ``torch.linalg.vector_norm``. ``ord`` is any float: 2, 1, ``inf``, ``-inf``, 0 (the
    count of non-zeros) or another. Accumulates in float64."""
    check_tensor(input, "linalg.vector_norm")
    if dtype is not None:
        input = input.to(_dt.as_dtype(dtype))
    ord = float(ord)
    _norm_dtype(input._dtype)
    dims = _dims(dim, input.ndim)
    if math.isinf(ord) and input.numel() == 0:
        raise RuntimeError(
            "linalg.vector_norm cannot compute the inf norm on an empty tensor because the "
            "operation does not have an identity"
        )
    return LINALG_VECTOR_NORM.call(input, ord, dims, keepdim)


def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    r"""The norm of a tensor: of all its elements, or of the vectors along ``dim``.

    A number ``p`` or ``"fro"`` gives a vector norm (as ``nbgrad.linalg.vector_norm``):
    ``"fro"`` or 2 the Euclidean norm (over two dims, the Frobenius norm), ``inf`` the
    largest absolute value, ``-inf`` the smallest, 0 the number of non-zero elements, and
    any other number :math:`p` :math:`(\sum |x_i|^p)^{1/p}`. ``"nuc"`` gives the nuclear
    norm (the sum of the singular values) of the matrices in the two dims of ``dim``, or of
    a 2-d ``input``.

    Args:
        input (Tensor): the input, of a floating-point dtype.
        p (float or str, optional): the order of the norm, a number, ``"fro"`` or
            ``"nuc"``. Default: ``"fro"``.
        dim (int or tuple of ints, optional): the dim(s) holding the vectors. Default:
            ``None`` (all the elements).
        keepdim (bool, optional): whether the reduced dims stay, of size 1. Default:
            ``False``.
        dtype (nbgrad.dtype, optional): the dtype to compute and return in. Default: ``None``
            (``input``'s).

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([[3.0, 4.0], [-1.0, 0.0]])
        >>> nbgrad.norm(x)
        tensor(5.0990)
        >>> nbgrad.norm(x, dim=1)
        tensor([5., 1.])
        >>> nbgrad.norm(x, p=1, dim=0)
        tensor([4., 4.])
        >>> nbgrad.norm(x, p=float("inf"))
        tensor(4.)
    """
    check_tensor(input, "norm")
    if p is None or p == "fro":
        p = 2.0
    elif isinstance(p, str):
        if p == "nuc":  # (PyTorch's: the matrix norm, of the only two dims or the two given)
            from ..linalg import matrix_norm

            dims = (range(input.ndim) if dim is None else (dim,) if isinstance(dim, int)
                    else dim)
            return matrix_norm(input, "nuc", tuple(dims), keepdim, dtype=dtype)
        raise RuntimeError(f"linalg.matrix_norm: Order {p} not supported.")
    return linalg_vector_norm(input, p, dim, keepdim, dtype=dtype)


def _norm_method(self, p="fro", dim=None, keepdim=False, dtype=None):
    """norm(p="fro", dim=None, keepdim=False, dtype=None) -> Tensor

    The norm of this tensor. See :func:`nbgrad.norm`
    """
    return norm(self, p, dim, keepdim, dtype=dtype)


# ----- composed of the norm: normalize, cosine_similarity ------------------------------------
def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    r"""Divide ``input`` by its :math:`L_p` norm along ``dim``.

    Each vector :math:`v` along ``dim`` becomes :math:`v / \max(\lVert v \rVert_p, \epsilon)`.

    Args:
        input (Tensor): the input, of any shape.
        p (float, optional): the norm's exponent. Default: ``2.0``.
        dim (int or tuple of int, optional): the dimension(s) the norm is taken over.
            Default: ``1``.
        eps (float, optional): the smallest divisor, to avoid dividing by zero.
            Default: ``1e-12``.
        out (Tensor, optional): the tensor to write the result into (not differentiable).
            Default: ``None``.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> F.normalize(nbgrad.tensor([[3.0, 4.0]]))
        tensor([[0.6000, 0.8000]])
        >>> F.normalize(nbgrad.tensor([[3.0, 4.0], [0.0, 0.0]]), p=1.0, dim=1)
        tensor([[0.4286, 0.5714],
                [0.0000, 0.0000]])
    """
    from .selection import clamp

    check_tensor(input, "normalize")
    n = clamp(linalg_vector_norm(input, p, dim, keepdim=True), min=eps)
    if out is None:
        return div(input, n)
    return _into(out, lambda: div(input, n), input, "div")


def _into(out, compute, input, name):
    """``compute()`` written into ``out`` (resized, with PyTorch's warning, when its shape
    differs) and ``out`` returned: PyTorch's ``out=``, which records no graph."""
    from ..autograd.grad_mode import is_grad_enabled, no_grad

    if is_grad_enabled() and (input.requires_grad or out.requires_grad):
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support "
                           "automatic differentiation, but one of the arguments requires grad.")
    with no_grad():
        result = compute()
    return write_out(name, result, out)


@autocast_op("cosine_similarity")
def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    r"""Compute the cosine similarity of ``x1`` and ``x2`` along ``dim``.

    :math:`\frac{x_1}{\max(\lVert x_1 \rVert_2, \epsilon)} \cdot
    \frac{x_2}{\max(\lVert x_2 \rVert_2, \epsilon)}`, the inputs broadcast together.

    Args:
        x1 (Tensor): the first input.
        x2 (Tensor): the second input, broadcastable with ``x1``.
        dim (int, optional): the dimension of the vectors. Default: ``1``.
        eps (float, optional): the smallest norm, to avoid dividing by zero.
            Default: ``1e-8``.

    Shape:
        - Input: :math:`(*_1, D, *_2)` each, broadcastable, :math:`D` along ``dim``.
        - Output: :math:`(*_1, *_2)`, the broadcast shape without ``dim``.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> F.cosine_similarity(nbgrad.tensor([[1.0, 0.0]]), nbgrad.tensor([[1.0, 1.0]]))
        tensor([0.7071])
        >>> x = nbgrad.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> F.cosine_similarity(x, nbgrad.tensor([1.0, 0.0]), dim=-1)
        tensor([0.4472, 0.6000])
    """
    from ._core import broadcast_shapes
    from .selection import clamp
    from .shape import expand

    check_tensor(x1, "cosine_similarity")
    check_tensor(x2, "cosine_similarity")
    shape = broadcast_shapes(tuple(x1.shape), tuple(x2.shape))
    a, b = expand(x1, shape), expand(x2, shape)
    na = clamp(linalg_vector_norm(a, 2, dim, keepdim=True), min=eps)
    nb = clamp(linalg_vector_norm(b, 2, dim, keepdim=True), min=eps)
    return _sum(mul(div(a, na), div(b, nb)), dim)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    r"""Compute the :math:`p`-norm distance between ``x1`` and ``x2`` along the last dimension.

    :math:`\lVert x_1 - x_2 + \epsilon \rVert_p`, the inputs broadcast together.

    Args:
        x1 (Tensor): the first input, :math:`(N, D)` or :math:`(D)`.
        x2 (Tensor): the second input, broadcastable with ``x1``.
        p (float, optional): the norm's degree. Default: ``2.0``.
        eps (float, optional): added to the differences, to avoid a zero norm (where the
            gradient is undefined). Default: ``1e-6``.
        keepdim (bool, optional): keep the last dimension, of size 1. Default: ``False``.

    Shape:
        - Input: :math:`(N, D)` or :math:`(D)`, broadcastable.
        - Output: :math:`(N)` or :math:`()` (:math:`(N, 1)` or :math:`(1)` with ``keepdim``).

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> F.pairwise_distance(nbgrad.tensor([[1.0, 2.0]]), nbgrad.tensor([[0.0, 0.0]]))
        tensor([2.2361])
        >>> F.pairwise_distance(nbgrad.tensor([[1.0, 2.0], [3.0, 3.0]]), nbgrad.zeros(2), p=1.0)
        tensor([3.0000, 6.0000])
    """
    from .elementwise import add, sub

    check_tensor(x1, "pairwise_distance")
    check_tensor(x2, "pairwise_distance")
    d = add(sub(x1, x2), eps)
    return linalg_vector_norm(d, p, -1 if d.ndim else None, keepdim=keepdim)


def pdist(input, p=2.0):
    """Compute the :math:`p`-norm distance between every pair of rows of ``input``.

    The distances of the pairs :math:`(i, j)` with :math:`i < j`, in row-major order: the
    upper triangle of the distance matrix, without its diagonal.

    Args:
        input (Tensor): the rows, :math:`(N, M)`.
        p (float, optional): the norm's degree, at least 0. Default: ``2.0``.

    Shape:
        - Input: :math:`(N, M)`.
        - Output: :math:`(N (N - 1) / 2)`.

    Example::

        >>> import nbgrad
        >>> nbgrad.pdist(nbgrad.tensor([[0.0, 0.0], [3.0, 4.0], [6.0, 8.0]]))
        tensor([ 5., 10.,  5.])
        >>> import nbgrad.nn.functional as F
        >>> F.pdist(nbgrad.tensor([[0.0, 0.0], [3.0, 4.0], [6.0, 8.0]]), p=1.0)
        tensor([ 7., 14.,  7.])
    """
    check_tensor(input, "pdist")
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    from ..creation import triu_indices

    i, j = triu_indices(input.shape[0], input.shape[0], 1, device=input.device)
    return linalg_vector_norm(input.index_select(0, i) - input.index_select(0, j), p, 1)
