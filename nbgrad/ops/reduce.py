"""Reductions: sum, mean, amax/amin, max/min (with indices), argmax/argmin, prod and
logsumexp. Each runs one kernel over the ``(A, R, B)`` layout of ``_arb`` (reduced dims in
the middle); variance and norms (ops/stats.py, ops/linalg.py) use that layout too."""

from collections import namedtuple

import numpy as np

from .. import dtypes as _dt
from ..autograd.grad_mode import STATE as _STATE
from ..autograd.grad_mode import no_grad
from ..storage.layout import copy_data
from ..tensor import _fresh, _wrap
from ._core import (
    SCALAR_TYPE,
    Node,
    Tensor,
    backend,
    check_tensor,
    is_c,
    kernel,
    needs_grad,
    record,
    save,
    save_output,
    small_key,
)
from .elementwise import div, eq, exp, logical_and, mul, sub, where
from .shape import ExpandBackward0, _view, expand, permute, reshape, unsqueeze

_FROM_NP = _dt._FROM_NP
_np_empty = np.empty

max_result = namedtuple("max", ["values", "indices"])
min_result = namedtuple("min", ["values", "indices"])


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


# ----- sum and mean ------------------------------------------------------------------
def _restore(g, shape, dims, keepdim):
    """Gradient of a reduction brought back to the input's rank (keepdim form)."""
    if not keepdim and dims:
        for d in dims:
            g = unsqueeze(g, d)
    return g


def _expand_scalar(g, shape):
    """``expand(g, shape)`` for the 0-d gradient of a whole-tensor reduction (``shape`` a
    tuple of ints, as the node recorded it): the usual scalar loss, without parsing sizes."""
    d = g._data
    if d.__class__ is not np.ndarray or d.ndim or not shape:
        return expand(g, shape)
    out = _view(g, np.ndarray(shape, d.dtype, d, 0, (0,) * len(shape)))
    if g._rg and _STATE.enabled:
        record(ExpandBackward0, out, (g,), (), ())
    return out


class SumBackward0(Node):
    __slots__ = ()

    def backward(self, saved, g):
        return (_expand_scalar(g, self.attrs),)


class SumBackward1(Node):
    __slots__ = ()

    def backward(self, saved, g):
        shape, dims, keepdim = self.attrs
        return (expand(_restore(g, shape, dims, keepdim), shape),)


def _sum_dtype(x, dtype):
    if dtype is not None:
        return _dt.as_dtype(dtype)
    return x._dtype if x._dtype.is_floating_point else _dt.int64


class _SumFlat(dict):
    """dtype -> (entry point, float64 zero, zero of the dtype) of the small whole-tensor sum."""

    def __missing__(self, dt):
        from ..kernels.cpu.reduce import sum_flat_entry

        v = self[dt] = (sum_flat_entry(dt.np), np.float64(0.0), dt.np.type(0))
        return v


_SUM_FLAT = _SumFlat()


def sum(input, dim=None, keepdim=False, *, dtype=None):
    """Sum over ``dim`` (int or tuple; all dims when None)."""
    if dim is None and dtype is None and not keepdim and input.__class__ is Tensor:
        sk = input._sk
        if sk is None:
            sk = small_key(input)
        if sk and sk.float:  # a small float tensor: one compiled call, no views
            f, zero, bz = _SUM_FLAT[sk.dt]
            o = _np_empty((), sk.np)
            f(input._data if sk.flat else input._data.reshape(-1), o, zero, bz)
            out = _fresh(o, sk.dt, input._device)
            if input._rg and _STATE.enabled:
                record(SumBackward0, out, (input,), (), sk.shape)
            return out
    odt = _sum_dtype(input, dtype)
    dims = _dims(dim, input.ndim)
    x = input._data if input._dtype is odt else copy_data(input._data, odt, input._device)
    if x.dtype.kind == "b":
        x = copy_data(x, _dt.int64, input._device)
    out = _fresh(reduce_data("sum", x, dims, keepdim, odt, input._device), odt, input._device)
    if needs_grad(input):
        shape = tuple(input.shape)
        if dim is None:
            record(SumBackward0, out, (input,), (), shape)
        else:
            record(SumBackward1, out, (input,), (), (shape, dims, keepdim))
    return out


class MeanBackward0(Node):
    __slots__ = ()

    def backward(self, saved, g):
        shape, n = self.attrs
        return (div(_expand_scalar(g, shape), n),)


class MeanBackward1(Node):
    __slots__ = ()

    def backward(self, saved, g):
        shape, dims, keepdim, n = self.attrs
        return (div(expand(_restore(g, shape, dims, keepdim), shape), n),)


def mean(input, dim=None, keepdim=False, *, dtype=None):
    """Mean over ``dim`` (int or tuple; all dims when None)."""
    odt = _dt.as_dtype(dtype) if dtype is not None else input._dtype
    if not odt.is_floating_point:
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point "
            f"or complex dtype. Got: {SCALAR_TYPE[input._dtype.name]}"
        )
    dims = _dims(dim, input.ndim)
    n = 1
    for d in dims:
        n *= input._data.shape[d]
    x = input._data if input._dtype is odt else copy_data(input._data, odt, input._device)
    s = reduce_data("sum", x, dims, keepdim, odt, input._device)
    if n != 1:
        s = _scale(s, n, odt, input._device)
    out = _wrap(s, odt, input._device)
    if needs_grad(input):
        shape = tuple(input.shape)
        if dim is None:
            record(MeanBackward0, out, (input,), (), (shape, n))
        else:
            record(MeanBackward1, out, (input,), (), (shape, dims, keepdim, n))
    return out




def _scale(s, n, odt, device):
    from .elementwise import binary_data

    return binary_data("div", _wrap(s, odt, device), n, odt, odt, device)


# ----- max / min -----------------------------------------------------------------------
class AmaxBackward0(Node):
    """Ties share the gradient evenly, as in PyTorch."""

    __slots__ = ()

    def backward(self, saved, g):
        x, y = saved
        shape, dims, keepdim = self.attrs
        y = _restore(y, shape, dims, keepdim)
        g = _restore(g, shape, dims, keepdim)
        mask = eq(x, y)
        count = sum(mask, dims, keepdim=True)
        return (div(where(mask, g, 0.0), count),)  # not g * (1 / count): that is float32


class AminBackward0(AmaxBackward0):
    __slots__ = ()


class MaxBackward1(Node):
    """``max()`` of a whole tensor: PyTorch's evenly_distribute_backward. Ties share the
    gradient; a NaN result shares it among the NaNs (amax gives NaN everywhere instead)."""

    __slots__ = ()

    def backward(self, saved, g):
        from .elementwise import ne

        x, y = saved
        mask = eq(x, y)
        if bool(ne(y, y).item()):
            mask = ne(x, x)
        count = sum(mask)
        return (div(where(mask, g, 0.0), count),)


class MinBackward1(MaxBackward1):
    __slots__ = ()


def _extreme(kname, cls, input, dim, keepdim, opname):
    dims = _dims(dim, input.ndim)
    if input._data.size == 0:
        if dim is None or dim == () or dim == []:
            raise RuntimeError(
                f"{opname}(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument."
            )
        for d in dim if isinstance(dim, (tuple, list)) else (dim,):
            if input._data.shape[_dims(d, input.ndim)[0]] == 0:  # torch names d as given
                raise IndexError(f"{opname}(): Expected reduction dim {d} to have non-zero size.")
    out = _wrap(reduce_data(kname, input._data, dims, keepdim, input._dtype, input._device),
                input._dtype, input._device)
    if needs_grad(input):
        record(cls, out, (input,), (save(input), save_output(out)),
               (tuple(input.shape), dims, keepdim))
    return out


def amax(input, dim=(), keepdim=False):
    """Largest value over ``dim`` (all dims by default); ties share the gradient."""
    return _extreme("amax", AmaxBackward0, input, dim, keepdim, "amax")


def amin(input, dim=(), keepdim=False):
    """Smallest value over ``dim`` (all dims by default); ties share the gradient."""
    return _extreme("amin", AminBackward0, input, dim, keepdim, "amin")


class MaxBackward0(Node):
    """``max(dim)``: the gradient goes to the selected index."""

    __slots__ = ()

    def backward(self, saved, g, gi=None):
        (idx,) = saved
        shape, dim, keepdim = self.attrs
        if not shape:
            return (g,)
        return (_select_backward(g, idx, shape, dim, keepdim),)


class MinBackward0(MaxBackward0):
    __slots__ = ()


def _select_backward(g, idx, shape, dim, keepdim):
    if not keepdim:
        g = unsqueeze(g, dim)
        idx = unsqueeze(idx, dim)
    n = shape[dim]
    rng = [1] * len(shape)
    rng[dim] = n
    from ..creation import arange

    pos = reshape(arange(n, device=g.device), tuple(rng))
    return where(eq(pos, idx), g, 0.0)


def _with_indices(kname, cls, result_t, input, dim, keepdim, opname):
    n = input.ndim
    d = _dims(dim, n)
    d = d[0] if d else 0
    if n and input._data.shape[d] == 0:  # other empty dims give an empty result
        raise IndexError(
            f"{opname}(): Expected reduction dim {d} to have non-zero size."
        )
    be = backend(input._device)
    x3, A, B = _arb(input._data, (d,) if n else (), input._device)
    vals = be.empty((A, B), input._dtype.np)
    idx = be.empty((A, B), np.int64)
    kernel(kname, input._device)(x3, vals, idx)
    oshape = _out_shape(input._data.shape, (d,) if n else (), keepdim)
    v = _wrap(vals.reshape(oshape), input._dtype, input._device)
    i = _wrap(idx.reshape(oshape), _dt.int64, input._device)
    if needs_grad(input):
        record(cls, v, (input,), (save(i),), (tuple(input.shape), d, keepdim))
    return result_t(v, i)


def max(input, dim=None, keepdim=False, *, other=None):
    """``max(x)``: the largest value; ``max(x, dim)``: (values, indices); ``max(x, y)``:
    the elementwise maximum."""
    if isinstance(dim, Tensor):
        return maximum(input, dim)
    if dim is None:
        return _extreme("amax", MaxBackward1, input, None, False, "max")
    return _with_indices("argmax", MaxBackward0, max_result, input, dim, keepdim, "max")


def min(input, dim=None, keepdim=False):
    """``min(x)``: the smallest value; ``min(x, dim)``: (values, indices)."""
    if isinstance(dim, Tensor):
        return minimum(input, dim)
    if dim is None:
        return _extreme("amin", MinBackward1, input, None, False, "min")
    return _with_indices("argmin", MinBackward0, min_result, input, dim, keepdim, "min")


def argmax(input, dim=None, keepdim=False):
    """Index of the largest value (of the flattened tensor when ``dim`` is None)."""
    with no_grad():
        if dim is None:
            if input._data.size == 0:
                raise IndexError(
                    "argmax(): Expected reduction dim to be specified for input.numel() == 0."
                )
            return _with_indices("argmax", MaxBackward0, max_result, reshape(input, -1), 0, False, "argmax").indices
        return _with_indices("argmax", MaxBackward0, max_result, input, dim, keepdim, "argmax").indices


def argmin(input, dim=None, keepdim=False):
    """Index of the smallest value (of the flattened tensor when ``dim`` is None)."""
    with no_grad():
        if dim is None:
            if input._data.size == 0:
                raise IndexError(
                    "argmin(): Expected reduction dim to be specified for input.numel() == 0."
                )
            return _with_indices("argmin", MinBackward0, min_result, reshape(input, -1), 0, False, "argmin").indices
        return _with_indices("argmin", MinBackward0, min_result, input, dim, keepdim, "argmin").indices


class MaximumBackward0(Node):
    """PyTorch's rule: ties split the gradient in half, and where either side is NaN (no
    order) both sides get all of it."""

    __slots__ = ()
    _drop = "lt"  # the side that lost gets nothing: a < b drops a's gradient

    def backward(self, saved, g):
        from .elementwise import _shape, gt, lt, sum_to

        a, b = saved
        fa, fb = self.next_functions
        half = where(eq(a, b), mul(g, 0.5), g)
        lose_a, lose_b = (lt, gt) if self._drop == "lt" else (gt, lt)
        ga = sum_to(where(lose_a(a, b), 0.0, half), _shape(a)) if fa[0] is not None else None
        gb = sum_to(where(lose_b(a, b), 0.0, half), _shape(b)) if fb[0] is not None else None
        return ga, gb


class MinimumBackward0(MaximumBackward0):
    __slots__ = ()
    _drop = "gt"


def _elementwise_extreme(kname, cls, input, other):
    from .elementwise import _binary

    # clamp_min(a, b) is max(a, b) with NaN on either side propagated (a tie gives a)
    out = _binary(kname, input, other)
    if needs_grad(input, other):
        record(cls, out, (input, other), (save(input), save(other)))
    return out


def maximum(input, other):
    """Elementwise maximum; NaN on either side gives NaN (ties share the gradient)."""
    return _elementwise_extreme("clamp_min", MaximumBackward0, input, other)


def minimum(input, other):
    """Elementwise minimum; NaN on either side gives NaN (ties share the gradient)."""
    return _elementwise_extreme("clamp_max", MinimumBackward0, input, other)


def _numel(shape, dims):
    n = 1
    for d in dims:
        n *= shape[d]
    return n


# ----- prod --------------------------------------------------------------------------------
_EXACT_LIMIT = 1 << 24  # elements of the (K, R, R) tensor the exact zero rule may build
_PRODUCT_LIMIT = 1 << 18  # the same, when no graph is built (a cheaper rule exists)


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


class ProdBackward0(Node):
    """``g * prod / x`` without zeros; with one zero in a slice only that position gets
    the product of the others; with two or more, the gradient is 0 (as PyTorch)."""

    __slots__ = ()

    def backward(self, saved, g):
        x, y = saved
        shape, dims, keepdim = self.attrs
        g = _restore(g, shape, dims, keepdim)
        y = _restore(y, shape, dims, keepdim)
        zero = eq(x, 0)
        with no_grad():
            any_zero = bool(sum(zero).item()) if x.numel() else False
        if not any_zero:
            return (mul(g, div(y, x)),)
        R = _numel(shape, dims)
        K = x.numel() // (R or 1)  # (this module's max is the op)
        if K * R * R <= (_EXACT_LIMIT if needs_grad(x, g) else _PRODUCT_LIMIT):
            # building a graph (create_graph): a rule whose own derivative is right at zeros;
            # otherwise, as PyTorch once any element is 0, products of the others with no
            # division, so a slice holding infinities keeps finite gradients
            return (mul(g, _others_product(x, dims)),)
        count = sum(zero, dims, keepdim=True)
        safe = where(zero, 1.0, x)
        rest = prod(safe, dims, keepdim=True)  # product of the non-zero elements
        one_zero = where(logical_and(zero, eq(count, 1)), rest, 0.0)
        return (mul(g, where(eq(count, 0), div(y, safe), one_zero)),)


def prod(input, dim=None, keepdim=False, *, dtype=None):
    """Product over ``dim`` (all dims when None; nbgrad also takes a tuple). Integer and
    bool inputs give int64. Floats multiply in float64 inside the kernel."""
    check_tensor(input, "prod")
    if dtype is not None:
        odt = _dt.as_dtype(dtype)
        if odt is not input._dtype:
            input = input.to(odt)
    odt = input._dtype if input._dtype.is_floating_point else _dt.int64
    dims = _dims(dim, input.ndim)
    x = input._data if input._dtype is odt else copy_data(input._data, odt, input._device)
    out = _wrap(reduce_data("prod", x, dims, keepdim, odt, input._device), odt, input._device)
    if odt.is_floating_point and needs_grad(input):
        record(ProdBackward0, out, (input,), (save(input), save_output(out)),
               (tuple(input.shape), dims, keepdim))
    return out


# ----- logsumexp -------------------------------------------------------------------------
class LogsumexpBackward0(Node):
    __slots__ = ()

    def backward(self, saved, g):
        x, y = saved
        shape, dims, keepdim = self.attrs
        g = _restore(g, shape, dims, keepdim)
        y = _restore(y, shape, dims, keepdim)
        return (mul(g, exp(sub(x, y))),)


def logsumexp(input, dim, keepdim=False):
    """``log(sum(exp(input), dim))``, computed stably (the max is taken out first), so
    logits like +-1e4 stay finite. Integer inputs give the default float dtype."""
    check_tensor(input, "logsumexp")
    if not input._dtype.is_floating_point:
        input = input.to(_dt.get_default_dtype())
    dims = _dims(dim, input.ndim)
    data = reduce_data("logsumexp", input._data, dims, keepdim, input._dtype, input._device)
    out = _wrap(data, input._dtype, input._device)
    if needs_grad(input):
        record(LogsumexpBackward0, out, (input,), (save(input), save_output(out)),
               (tuple(input.shape), dims, keepdim))
    return out
