"""Reductions: sum, mean, amax/amin, max/min (with indices), argmax/argmin, prod and
logsumexp, one ``deffunc`` row per PyTorch overload (``ops/funcdef.py``): its forward,
dtype and shape rules and derivative formula. Each forward runs one kernel over the
``(A, R, B)`` layout of ``_arb`` (reduced dims in the middle); variance and norms
(ops/stats.py, ops/linalg.py) use that layout too. The formulas call the helpers below,
PyTorch's FunctionsManual names (``sum_backward``, ``restore_reduced_dims``, ...), written
in nbgrad ops so that double backward needs nothing more."""


import numpy as np

from .. import dtypes as _dt
from .. import return_types as RT
from ..amp.policy import autocast_op
from ..autograd.grad_mode import no_grad
from ..storage.layout import cast_data, copy_data
from ..tensor import _wrap
from ._core import (
    SCALAR_TYPE,
    SMALL_N,
    Tensor,
    backend,
    check_tensor,
    is_c,
    kernel,
    needs_grad,
)
from .elementwise import div, eq, exp, logical_and, maximum, minimum, mul, sub, where
from .funcdef import deffunc, same_dtype, surface
from .shape import EXPAND, expand, permute, reshape, unsqueeze

_FROM_NP = _dt._FROM_NP
_np_empty = np.empty



def _dims(dim, ndim):
    """Sorted, unique, non-negative reduced dims; ``None`` or ``()`` means all."""
    if dim is None:
        return tuple(range(ndim))
    ds = dim if isinstance(dim, (tuple, list)) else (dim,)
    if len(ds) == 0:
        return tuple(range(ndim))
    m = ndim if ndim > 0 else 1
    out = []
    for d in ds:
        d = int(d)
        if not -m <= d < m:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{-m}, {m - 1}], but got {d})"
            )
        d = d + m if d < 0 else d
        if d in out:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        out.append(d)
    if ndim == 0:
        return ()
    return tuple(sorted(out))


def _out_shape(shape, dims, keepdim):
    if keepdim:
        return tuple(1 if i in dims else s for i, s in enumerate(shape))
    return tuple(s for i, s in enumerate(shape) if i not in dims)


_SPLITTABLE = ("sum", "amax", "amin")


def _arb(x, dims, device):
    """View (or copy) storage ``x`` as ``(A, R, B)`` with the reduced dims in the middle."""
    shape = x.shape
    A = R = B = 1
    if not dims:
        return x.reshape(1, 1, -1) if x.size else x.reshape(1, 0, 1), 1, 1
    d0, d1 = dims[0], dims[-1]
    contiguous_block = d1 - d0 + 1 == len(dims)
    if contiguous_block and is_c(x):
        for s in shape[:d0]:
            A *= s
        for s in shape[d0 : d1 + 1]:
            R *= s
        for s in shape[d1 + 1 :]:
            B *= s
        return x.reshape(A, R, B), A, B
    kept = [i for i in range(len(shape)) if i not in dims]
    be = backend(device)
    xp = be.permute(x, tuple(kept + list(dims)))
    xp = copy_data(xp, _FROM_NP[x.dtype], device)
    for i in kept:
        A *= shape[i]
    for i in dims:
        R *= shape[i]
    return xp.reshape(A, R, 1), A, 1


def reduce_data(kname, x, dims, keepdim, out_dt, device):
    """Run reduction kernel ``kname`` over ``dims`` of storage ``x``."""
    be = backend(device)
    if len(dims) > 1 and dims[-1] - dims[0] + 1 != len(dims) and kname in _SPLITTABLE:
        # dims in separate runs (e.g. N, H, W of NCHW): reduce the innermost run first, then
        # the rest, instead of copying the tensor into a reduction-friendly order
        runs = [[dims[0]]]
        for d in dims[1:]:
            if d == runs[-1][-1] + 1:
                runs[-1].append(d)
            else:
                runs.append([d])
        part = reduce_data(kname, x, tuple(runs[-1]), True, out_dt, device)
        rest = tuple(d for r in runs[:-1] for d in r)
        full = reduce_data(kname, part, rest, True, out_dt, device)
        return full if keepdim else full.reshape(_out_shape(x.shape, dims, False))
    x3, A, B = _arb(x, dims, device)
    out = be.empty((A, B), out_dt.np)
    kernel(kname, device)(x3, out)
    return out.reshape(_out_shape(x.shape, dims, keepdim))


# ----- derivative helpers: PyTorch's FunctionsManual, in nbgrad ops (differentiable) ---------
def restore_reduced_dims(g, dim, keepdim):
    """Gradient (or output) of a reduction over sorted dims ``dim`` brought back to the
    input's rank (the keepdim form)."""
    if not keepdim and dim:
        for d in dim:
            g = unsqueeze(g, d)
    return g


def _restore(g, shape, dims, keepdim):  # (ops/linalg.py's name)
    return restore_reduced_dims(g, dims, keepdim)


def expand_to(g, shape):
    """``expand(g, shape)``; for the 0-d gradient of a whole-tensor reduction (the usual
    scalar loss) a strided view without parsing sizes."""
    if g._data.ndim or not shape:
        return expand(g, shape)
    return EXPAND.call(g, tuple(shape))


def sum_backward(grad, sizes, dim, keepdim):
    return expand(restore_reduced_dims(grad, dim, keepdim), sizes)


def mean_backward(grad, sizes, dim, numel, keepdim):
    # the count of each output's slice: numel for a whole-tensor mean
    return div(sum_backward(grad, sizes, dim, keepdim), _numel(sizes, dim))


def scale_grad_by_count(grad, mask, dim):
    """``grad`` shared evenly among the ``mask`` positions of each reduced slice (ties of
    amax / amin)."""
    return div(where(mask, grad, 0.0), sum(mask, dim, keepdim=True))  # not g * (1 / count)


def evenly_distribute_backward(grad, input, result):
    """``max()`` / ``min()`` of a whole tensor: ties share the gradient; a NaN result
    shares it among the NaNs (amax gives NaN everywhere instead)."""
    from .elementwise import ne

    mask = eq(input, result)
    if bool(ne(result, result).item()):
        mask = ne(input, input)
    return div(where(mask, grad, 0.0), sum(mask))


def value_selecting_reduction_backward(grad, dim, indices, sizes, keepdim):
    """``max(dim)`` / ``min(dim)``: the gradient goes to the selected index."""
    if not sizes:
        return grad
    if not keepdim:
        grad = unsqueeze(grad, dim)
        indices = unsqueeze(indices, dim)
    rng = [1] * len(sizes)
    rng[dim] = sizes[dim]
    from ..creation import arange

    pos = reshape(arange(sizes[dim], device=grad.device), tuple(rng))
    return where(eq(pos, indices), grad, 0.0)


_EXACT_LIMIT = 1 << 24  # elements of the (K, R, R) tensor the exact zero rule may build
_PRODUCT_LIMIT = 1 << 18  # the same, when no graph is built (a cheaper rule exists)


def prod_backward(grad, input, result, dim=None, keepdim=False):
    """``g * prod / x`` without zeros; with one zero in a slice only that position gets
    the product of the others; with two or more, the gradient is 0 (as PyTorch)."""
    dims = tuple(range(input.ndim)) if dim is None else dim
    shape = tuple(input.shape)
    g = restore_reduced_dims(grad, dims, keepdim)
    y = restore_reduced_dims(result, dims, keepdim)
    zero = eq(input, 0)
    with no_grad():
        any_zero = bool(sum(zero).item()) if input.numel() else False
    if not any_zero:
        return mul(g, div(y, input))
    R = _numel(shape, dims)
    K = input.numel() // (R or 1)
    if K * R * R <= (_EXACT_LIMIT if needs_grad(input, g) else _PRODUCT_LIMIT):
        # building a graph (create_graph): a rule whose own derivative is right at zeros;
        # otherwise, as PyTorch once any element is 0, products of the others with no
        # division, so a slice holding infinities keeps finite gradients
        return mul(g, _others_product(input, dims))
    count = sum(zero, dims, keepdim=True)
    safe = where(zero, 1.0, input)
    rest = prod(safe, dims, keepdim=True)  # product of the non-zero elements
    one_zero = where(logical_and(zero, eq(count, 1)), rest, 0.0)
    return mul(g, where(eq(count, 0), div(y, safe), one_zero))


def logsumexp_backward(grad, input, result, dim, keepdim):
    g = restore_reduced_dims(grad, dim, keepdim)
    return mul(g, exp(sub(input, restore_reduced_dims(result, dim, keepdim))))


def _numel(shape, dims):
    n = 1
    for d in dims:
        n *= shape[d]
    return n


def _others_product(x, dims):
    """For each element, the product of the other elements of its reduced slice, built
    from ``(K, R, R)`` copies with ones on the diagonal: differentiable at zeros."""
    n = x.ndim
    kept = [i for i in range(n) if i not in dims]
    perm = kept + list(dims)
    shp = tuple(x.shape)
    kshape = tuple(shp[i] for i in kept)
    rshape = tuple(shp[i] for i in dims)
    K, R = _numel(shp, kept), _numel(shp, dims)
    xp = reshape(permute(x, perm), (K, 1, R))
    from ..creation import eye

    diag = eye(R, dtype=_dt.bool_, device=x.device)
    m = where(diag, 1.0, expand(xp, (K, R, R)))
    others = prod(m, 2)  # (K, R): row r is the product over j != r
    inv = [0] * n
    for i, p in enumerate(perm):
        inv[p] = i
    return permute(reshape(others, kshape + rshape), inv)


# ----- forwards: arrays in, arrays out ----------------------------------------------------------
class _SumFlat(dict):
    """dtype -> (entry point, float64 zero, zero of the dtype) of the small whole-tensor sum."""

    def __missing__(self, dt):
        from ..kernels.cpu.reduce import sum_flat_entry

        v = self[dt] = (sum_flat_entry(dt.np), np.float64(0.0), dt.np.type(0))
        return v


_SUM_FLAT = _SumFlat()
_ALL = None  # the dims of a whole-tensor overload: every dim


def _sum_all_forward(x, odt, dev, dtype):
    if (x.__class__ is np.ndarray and x.dtype is odt.np and odt._cat == 2
            and 0 < x.size < SMALL_N and x.flags.c_contiguous):
        # a small float tensor: one compiled call, no views
        f, zero, bz = _SUM_FLAT[odt]
        o = _np_empty((), odt.np)
        f(x if x.ndim == 1 else x.reshape(-1), o, zero, bz)
        return o
    return reduce_data("sum", cast_data(x, odt, dev), tuple(range(x.ndim)), False, odt, dev)


def _sum_forward(x, odt, dev, dims, keepdim, dtype):
    return reduce_data("sum", cast_data(x, odt, dev), dims, keepdim, odt, dev)


def _mean_all_forward(x, odt, dev, dtype):
    return _mean_forward(x, odt, dev, tuple(range(x.ndim)), False, dtype)


def _mean_forward(x, odt, dev, dims, keepdim, dtype):
    from .elementwise_data import binary_data

    s = reduce_data("sum", cast_data(x, odt, dev), dims, keepdim, odt, dev)
    n = _numel(x.shape, dims)
    if n != 1:
        s = binary_data("div", _wrap(s, odt, dev), n, odt, odt, dev)
    return s


def _reducer(kname):
    """The forward of a reduction by kernel ``kname`` over ``dims`` (every dim for a
    whole-tensor overload, whose args hold no dims)."""
    def forward(x, odt, dev, dims=_ALL, keepdim=False):
        dims = tuple(range(x.ndim)) if dims is _ALL else dims
        return reduce_data(kname, cast_data(x, odt, dev), dims, keepdim, odt, dev)

    forward.__name__ = f"_{kname}_forward"
    return forward


def _with_indices(kname, x, dev, d, keepdim):
    """Values and int64 indices of reduction ``kname`` ("argmax"/"argmin") along dim ``d``."""
    be = backend(dev)
    dims = (d,) if x.ndim else ()
    x3, A, B = _arb(x, dims, dev)
    vals = be.empty((A, B), x.dtype)
    idx = be.empty((A, B), np.int64)
    kernel(kname, dev)(x3, vals, idx)
    oshape = _out_shape(x.shape, dims, keepdim)
    return vals.reshape(oshape), idx.reshape(oshape)


def _selecting(kname):
    def forward(x, odt, dev, d, keepdim):
        return _with_indices(kname, x, dev, d, keepdim)

    return forward


def _indexing(kname):
    def forward(x, odt, dev, d, keepdim):
        return _with_indices(kname, x, dev, d, keepdim)[1]

    return forward


# ----- dtype and shape rules -------------------------------------------------------------
def low_dtype_first(input, dtype):
    """``(input, dtype)`` of a reduction or scan: a 16-bit ``dtype`` casts the input first
    and leaves none (no kernel accumulates into 16 bits; a 16-bit input is summed in
    float32 and rounded once, PyTorch's result for ``dtype=`` too)."""
    if dtype is not None:
        odt = _dt.as_dtype(dtype)
        if odt.low and input._dtype is not odt:
            return input.to(odt), None
    return input, dtype


def _sum_dtype(idt, *args):
    dtype = args[-1] if args else None
    if dtype is not None:
        return _dt.as_dtype(dtype)
    return idt if idt.is_floating_point else _dt.int64


def _mean_dtype(idt, *args):
    dtype = args[-1] if args else None
    odt = _dt.as_dtype(dtype) if dtype is not None else idt
    if not odt.is_floating_point:
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point "
            f"or complex dtype. Got: {SCALAR_TYPE[idt.name]}"
        )
    return odt


def _prod_dtype(idt, *args):
    return idt if idt.is_floating_point else _dt.int64


def _values_indices_dtype(idt, *args):
    return idt, _dt.int64


def _index_dtype(idt, *args):
    return _dt.int64


def _all_shape(shape, *args):
    return ()


def _dims_shape(shape, dims, keepdim, *args):
    return _out_shape(tuple(shape), dims, keepdim)


def _dim_shape(shape, d, keepdim):
    return _out_shape(tuple(shape), (d,) if len(shape) else (), keepdim)


# ----- the rows ----------------------------------------------------------------------------
_DIMS = ("dim", "keepdim")

SUM = deffunc("sum", kernels=("sum",), forward=_sum_all_forward, dtype=_sum_dtype,
              shape=_all_shape, args=("dtype",), grads=("expand_to(grad, input_shape)",))
SUM_DIM = deffunc("sum", overload="dim_IntList", kernels=("sum",), forward=_sum_forward,
                  dtype=_sum_dtype, shape=_dims_shape, args=(*_DIMS, "dtype"),
                  grads=("sum_backward(grad, input_shape, dim, keepdim)",),
                  node="SumBackward1")
MEAN = deffunc("mean", kernels=("sum", "div"), forward=_mean_all_forward, dtype=_mean_dtype,
               shape=_all_shape, args=("dtype",),
               grads=("div(expand_to(grad, input_shape), input_numel)",))
MEAN_DIM = deffunc("mean", overload="dim", kernels=("sum", "div"), forward=_mean_forward,
                   dtype=_mean_dtype, shape=_dims_shape, args=(*_DIMS, "dtype"),
                   grads=("mean_backward(grad, input_shape, dim, input_numel, keepdim)",),
                   node="MeanBackward1")
_AMAX = ("scale_grad_by_count(restore_reduced_dims(grad, dim, keepdim), "
         "eq(input, restore_reduced_dims(result, dim, keepdim)), dim)",)
AMAX = deffunc("amax", kernels=("amax",), forward=_reducer("amax"), dtype=same_dtype,
               shape=_dims_shape, args=_DIMS, grads=_AMAX)
AMIN = deffunc("amin", kernels=("amin",), forward=_reducer("amin"), dtype=same_dtype,
               shape=_dims_shape, args=_DIMS, grads=_AMAX)
MAX = deffunc("max", kernels=("amax",), forward=_reducer("amax"), dtype=same_dtype,
              shape=_all_shape, grads=("evenly_distribute_backward(grad, input, result)",),
              node="MaxBackward1")
MIN = deffunc("min", kernels=("amin",), forward=_reducer("amin"), dtype=same_dtype,
              shape=_all_shape, grads=("evenly_distribute_backward(grad, input, result)",),
              node="MinBackward1")
_SELECT = ("value_selecting_reduction_backward(grad, dim, indices, input_shape, keepdim)",)
MAX_DIM = deffunc("max", overload="dim", kernels=("argmax",), forward=_selecting("argmax"),
                  dtype=_values_indices_dtype, shape=_dim_shape, args=_DIMS,
                  outputs=("values", "indices"), grads=_SELECT, node="MaxBackward0")
MIN_DIM = deffunc("min", overload="dim", kernels=("argmin",), forward=_selecting("argmin"),
                  dtype=_values_indices_dtype, shape=_dim_shape, args=_DIMS,
                  outputs=("values", "indices"), grads=_SELECT, node="MinBackward0")
ARGMAX = deffunc("argmax", kernels=("argmax",), forward=_indexing("argmax"),
                 dtype=_index_dtype, shape=_dim_shape, args=_DIMS)
ARGMIN = deffunc("argmin", kernels=("argmin",), forward=_indexing("argmin"),
                 dtype=_index_dtype, shape=_dim_shape, args=_DIMS)
PROD = deffunc("prod", kernels=("prod",), forward=_reducer("prod"), dtype=_prod_dtype,
               shape=_all_shape, grads=("prod_backward(grad, input, result)",))
PROD_DIM = deffunc("prod", overload="dim_int", kernels=("prod",), forward=_reducer("prod"),
                   dtype=_prod_dtype, shape=_dims_shape, args=_DIMS,
                   grads=("prod_backward(grad, input, result, dim, keepdim)",),
                   node="ProdBackward1")
LOGSUMEXP = deffunc("logsumexp", kernels=("logsumexp",), forward=_reducer("logsumexp"),
                    dtype=same_dtype, shape=_dims_shape, args=_DIMS,
                    grads=("logsumexp_backward(grad, input, result, dim, keepdim)",))


# ----- the public functions: PyTorch's arguments, then one row ------------------------------
@surface(SUM, SUM_DIM)
@autocast_op("sum")
def sum(input, dim=None, keepdim=False, *, dtype=None):
    """The sum of the elements of ``input``, over all of them or along ``dim``.

    With ``dim`` the dimensions listed are reduced (each to size 1 with ``keepdim=True``,
    removed otherwise); without it the result is a 0-dim tensor. Bool and integer inputs are
    summed as ``int64`` unless ``dtype`` says otherwise.

    Args:
        input (Tensor): the input tensor.
        dim (int or tuple of ints, optional): the dimension or dimensions to reduce.
            Default: ``None``, all of them.
        keepdim (bool, optional): keep the reduced dimensions, with size 1. Default:
            ``False``.
        dtype (nbgrad.dtype, optional): the dtype of the result; ``input`` is cast to it
            before the sum. Default: ``None``, ``input``'s dtype (``int64`` for bool and
            integer inputs).

    Returns:
        Tensor: the sums.

    Example::

        >>> import nbgrad
        >>> a = nbgrad.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        >>> nbgrad.sum(a)
        tensor(21.)
        >>> nbgrad.sum(a, dim=0)
        tensor([5., 7., 9.])
        >>> nbgrad.sum(a, dim=1, keepdim=True)
        tensor([[ 6.],
                [15.]])
        >>> nbgrad.sum(nbgrad.tensor([True, True, False]))
        tensor(2)
    """
    input, dtype = low_dtype_first(input, dtype)
    if dim is None:
        if not keepdim:
            return SUM.call(input, dtype)
        return SUM_DIM.call(input, _dims(None, input.ndim), True, dtype)
    return SUM_DIM.call(input, _dims(dim, input.ndim), keepdim, dtype)


@surface(MEAN, MEAN_DIM)
def mean(input, dim=None, keepdim=False, *, dtype=None):
    """The mean of the elements of ``input``, over all of them or along ``dim``.

    ``input`` must have a floating-point dtype, or ``dtype`` must give one. The mean of an
    empty selection is ``nan``.

    Args:
        input (Tensor): the input tensor.
        dim (int or tuple of ints, optional): the dimension or dimensions to reduce.
            Default: ``None``, all of them.
        keepdim (bool, optional): keep the reduced dimensions, with size 1. Default:
            ``False``.
        dtype (nbgrad.dtype, optional): the floating-point dtype of the result; ``input``
            is cast to it first. Default: ``None``, ``input``'s dtype.

    Returns:
        Tensor: the means.

    Example::

        >>> import nbgrad
        >>> a = nbgrad.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        >>> nbgrad.mean(a)
        tensor(3.5000)
        >>> nbgrad.mean(a, dim=1)
        tensor([2., 5.])
        >>> nbgrad.mean(nbgrad.tensor([1, 2]), dtype=nbgrad.float64)
        tensor(1.5000, dtype=nbgrad.float64)
    """
    _mean_dtype(input._dtype, dtype)  # PyTorch refuses the dtype before it parses dims
    input, dtype = low_dtype_first(input, dtype)
    if dim is None and not keepdim:
        return MEAN.call(input, dtype)
    return MEAN_DIM.call(input, _dims(dim, input.ndim), keepdim, dtype)


def _check_nonempty(input, dim, opname):
    if input._data.size == 0:
        if dim is None or dim == () or dim == []:
            raise RuntimeError(
                f"{opname}(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument."
            )
        for d in dim if isinstance(dim, (tuple, list)) else (dim,):
            if input._data.shape[_dims(d, input.ndim)[0]] == 0:  # torch names d as given
                raise IndexError(f"{opname}(): Expected reduction dim {d} to have non-zero size.")


@surface(AMAX)
def amax(input, dim=(), keepdim=False):
    """The largest element of ``input`` along ``dim``, without its index.

    Unlike :func:`nbgrad.max` with a ``dim``, it returns the values only and may reduce
    several dimensions at once. Where several elements are equal to the maximum, the
    gradient is shared evenly among them. A NaN in a slice gives NaN.

    Args:
        input (Tensor): the input tensor.
        dim (int or tuple of ints, optional): the dimension or dimensions to reduce.
            Default: ``()``, all of them.
        keepdim (bool, optional): keep the reduced dimensions, with size 1. Default:
            ``False``.

    Example::

        >>> import nbgrad
        >>> a = nbgrad.tensor([[1.0, 5.0], [4.0, 2.0]])
        >>> nbgrad.amax(a), nbgrad.amax(a, dim=0)
        (tensor(5.), tensor([4., 5.]))
        >>> nbgrad.amax(a, dim=1, keepdim=True)
        tensor([[5.],
                [4.]])
    """
    dims = _dims(dim, input.ndim)
    _check_nonempty(input, dim, "amax")
    return AMAX.call(input, dims, keepdim)


@surface(AMIN)
def amin(input, dim=(), keepdim=False):
    """The smallest element of ``input`` along ``dim``, without its index.

    Unlike :func:`nbgrad.min` with a ``dim``, it returns the values only and may reduce
    several dimensions at once. Where several elements are equal to the minimum, the
    gradient is shared evenly among them. A NaN in a slice gives NaN.

    Args:
        input (Tensor): the input tensor.
        dim (int or tuple of ints, optional): the dimension or dimensions to reduce.
            Default: ``()``, all of them.
        keepdim (bool, optional): keep the reduced dimensions, with size 1. Default:
            ``False``.

    Example::

        >>> import nbgrad
        >>> a = nbgrad.tensor([[1.0, 5.0], [4.0, 2.0]])
        >>> nbgrad.amin(a), nbgrad.amin(a, dim=0)
        (tensor(1.), tensor([1., 2.]))
        >>> nbgrad.amin(a, dim=1, keepdim=True)
        tensor([[1.],
                [2.]])
    """
    dims = _dims(dim, input.ndim)
    _check_nonempty(input, dim, "amin")
    return AMIN.call(input, dims, keepdim)


def _dim_of(input, dim, opname):
    """The one reduced dim of ``max(dim)`` and the like, checked non-empty."""
    n = input.ndim
    d = _dims(dim, n)
    d = d[0] if d else 0
    if n and input._data.shape[d] == 0:  # other empty dims give an empty result
        raise IndexError(f"{opname}(): Expected reduction dim {d} to have non-zero size.")
    return d


@surface(MAX, MAX_DIM)
def max(input, dim=None, keepdim=False, *, other=None):
    """The largest element of ``input``, or the largest along ``dim`` with its index.

    Three forms, as PyTorch's:

    * ``max(input)``: the largest element, as a 0-dim tensor (NaN if there is one);
    * ``max(input, dim, keepdim=False)``: a named tuple ``(values, indices)`` of the
      largest element of each slice along ``dim`` and its position in the slice (the
      first one where there are ties);
    * ``max(input, other)`` with a tensor ``other``: :func:`nbgrad.maximum`.

    Args:
        input (Tensor): the input tensor.
        dim (int or Tensor, optional): the dimension to reduce, or the tensor ``other`` of
            the elementwise form. Default: ``None``, the whole tensor.
        keepdim (bool, optional): keep the reduced dimension, with size 1. Default:
            ``False``.
        other (Tensor, optional): the keyword form of ``max(input, other)``: the
            elementwise :func:`nbgrad.maximum` (not with ``dim``). Default: ``None``.

    Returns:
        Tensor or (Tensor, Tensor): the largest element, or the named tuple ``(values,
        indices)`` with ``dim``.

    Example::

        >>> import nbgrad
        >>> a = nbgrad.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
        >>> nbgrad.max(a)
        tensor(6.)
        >>> values, indices = nbgrad.max(a, dim=1)
        >>> values, indices
        (tensor([5., 6.]), tensor([1, 2]))
        >>> nbgrad.max(a, 0, keepdim=True).indices
        tensor([[1, 0, 1]])
    """
    if other is not None:
        _other_form("max", dim, keepdim)
        return maximum(input, other)
    if isinstance(dim, Tensor):
        return maximum(input, dim)
    if dim is None:
        _check_nonempty(input, None, "max")
        return MAX.call(input)
    return RT.max(*MAX_DIM.call(input, _dim_of(input, dim, "max"), keepdim))


@surface(MIN, MIN_DIM)
def min(input, dim=None, keepdim=False, *, other=None):
    """The smallest element of ``input``, or the smallest along ``dim`` with its index.

    Three forms, as PyTorch's:

    * ``min(input)``: the smallest element, as a 0-dim tensor (NaN if there is one);
    * ``min(input, dim, keepdim=False)``: a named tuple ``(values, indices)`` of the
      smallest element of each slice along ``dim`` and its position in the slice (the
      first one where there are ties);
    * ``min(input, other)`` with a tensor ``other``: :func:`nbgrad.minimum`.

    Args:
        input (Tensor): the input tensor.
        dim (int or Tensor, optional): the dimension to reduce, or the tensor ``other`` of
            the elementwise form. Default: ``None``, the whole tensor.
        keepdim (bool, optional): keep the reduced dimension, with size 1. Default:
            ``False``.
        other (Tensor, optional): the keyword form of ``min(input, other)``: the
            elementwise :func:`nbgrad.minimum` (not with ``dim``). Default: ``None``.

    Returns:
        Tensor or (Tensor, Tensor): the smallest element, or the named tuple ``(values,
        indices)`` with ``dim``.

    Example::

        >>> import nbgrad
        >>> a = nbgrad.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
        >>> nbgrad.min(a)
        tensor(1.)
        >>> nbgrad.min(a, dim=1)
        nbgrad.return_types.min(
        values=tensor([1., 2.]),
        indices=tensor([0, 1]))
        >>> nbgrad.min(a, nbgrad.tensor([2.0, 2.0, 2.0]))
        tensor([[1., 2., 2.],
                [2., 2., 2.]])
    """
    if other is not None:
        _other_form("min", dim, keepdim)
        return minimum(input, other)
    if isinstance(dim, Tensor):
        return minimum(input, dim)
    if dim is None:
        _check_nonempty(input, None, "min")
        return MIN.call(input)
    return RT.min(*MIN_DIM.call(input, _dim_of(input, dim, "min"), keepdim))


def _other_form(name, dim, keepdim):
    """``max``/``min`` with ``other=`` is the elementwise form: no ``dim`` with it."""
    if dim is not None or keepdim:
        raise TypeError(f"{name}() received an invalid combination of arguments - got "
                        f"(Tensor, {type(dim).__name__ if dim is not None else 'keepdim'}, "
                        "other=Tensor): other= is the elementwise form, which takes no dim")


def _arg(op, opname, input, dim, keepdim):
    if dim is None:
        if input._data.size == 0:
            raise IndexError(
                f"{opname}(): Expected reduction dim to be specified for input.numel() == 0."
            )
        shape = (1,) * input.ndim if keepdim else ()  # (every dim kept, with size 1)
        with no_grad():
            return reshape(op(reshape(input, -1), 0, False), shape)
    return op(input, _dim_of(input, dim, opname), keepdim)


@surface(ARGMAX)
def argmax(input, dim=None, keepdim=False):
    """The index of the largest element of ``input``, or of each slice along ``dim``.

    Without ``dim`` the index is into the flattened tensor. Where several elements are
    equal to the maximum, the first one's index is returned. The result is an ``int64``
    tensor.

    Args:
        input (Tensor): the input tensor.
        dim (int, optional): the dimension to reduce. Default: ``None``, the flattened
            tensor.
        keepdim (bool, optional): keep the reduced dimension, with size 1 (with ``dim``
            only). Default: ``False``.

    Example::

        >>> import nbgrad
        >>> a = nbgrad.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
        >>> nbgrad.argmax(a), nbgrad.argmax(a, dim=1), nbgrad.argmax(a, dim=0, keepdim=True)
        (tensor(5), tensor([1, 2]), tensor([[1, 0, 1]]))
    """
    return _arg(ARGMAX, "argmax", input, dim, keepdim)


@surface(ARGMIN)
def argmin(input, dim=None, keepdim=False):
    """The index of the smallest element of ``input``, or of each slice along ``dim``.

    Without ``dim`` the index is into the flattened tensor. Where several elements are
    equal to the minimum, the first one's index is returned. The result is an ``int64``
    tensor.

    Args:
        input (Tensor): the input tensor.
        dim (int, optional): the dimension to reduce. Default: ``None``, the flattened
            tensor.
        keepdim (bool, optional): keep the reduced dimension, with size 1 (with ``dim``
            only). Default: ``False``.

    Example::

        >>> import nbgrad
        >>> a = nbgrad.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
        >>> nbgrad.argmin(a), nbgrad.argmin(a, dim=1)
        (tensor(0), tensor([0, 1]))
    """
    return _arg(ARGMIN, "argmin", input, dim, keepdim)


@surface(PROD, PROD_DIM)
@autocast_op("prod")
def prod(input, dim=None, keepdim=False, *, dtype=None):
    """The product of the elements of ``input``, over all of them or along ``dim``.

    Bool and integer inputs give an ``int64`` result unless ``dtype`` says otherwise. The
    gradient is right where a slice holds zeros too.

    Args:
        input (Tensor): the input tensor.
        dim (int or tuple of ints, optional): the dimension to reduce (PyTorch takes one;
            nbgrad also takes a tuple). Default: ``None``, all of them.
        keepdim (bool, optional): keep the reduced dimensions, with size 1. Default:
            ``False``.
        dtype (nbgrad.dtype, optional): the dtype of the result; ``input`` is cast to it
            first. Default: ``None``, ``input``'s dtype (``int64`` for bool and integer
            inputs).

    Example::

        >>> import nbgrad
        >>> a = nbgrad.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> nbgrad.prod(a), nbgrad.prod(a, dim=0)
        (tensor(24.), tensor([3., 8.]))
        >>> nbgrad.prod(nbgrad.tensor([2, 3, 4]))
        tensor(24)
    """
    check_tensor(input, "prod")
    if dtype is not None:
        odt = _dt.as_dtype(dtype)
        if odt is not input._dtype:
            input = input.to(odt)
    if dim is None and not keepdim:
        return PROD.call(input)
    return PROD_DIM.call(input, _dims(dim, input.ndim), keepdim)


@surface(LOGSUMEXP)
@autocast_op("logsumexp")
def logsumexp(input, dim, keepdim=False):
    r"""The logarithm of the sum of the exponentials of ``input`` along ``dim``.

    .. math::
        \text{logsumexp}(x)_i = \log \sum_j \exp(x_{ij})

    Computed stably: the maximum is taken out before the exponentials, so large inputs
    (logits of 1e4) give a finite result. Integer inputs give the default floating dtype.

    Args:
        input (Tensor): the input tensor.
        dim (int or tuple of ints): the dimension or dimensions to reduce.
        keepdim (bool, optional): keep the reduced dimensions, with size 1. Default:
            ``False``.

    Example::

        >>> import nbgrad
        >>> a = nbgrad.tensor([[0.0, 0.0], [1000.0, 1000.0]])
        >>> nbgrad.logsumexp(a, dim=1)
        tensor([6.9315e-01, 1.0007e+03])
        >>> nbgrad.logsumexp(nbgrad.tensor([1.0, 2.0, 3.0]), dim=0)
        tensor(3.4076)
    """
    check_tensor(input, "logsumexp")
    if not input._dtype.is_floating_point:
        input = input.to(_dt.get_default_dtype())
    return LOGSUMEXP.call(input, _dims(dim, input.ndim), keepdim)
