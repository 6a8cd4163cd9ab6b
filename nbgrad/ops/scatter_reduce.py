"""``scatter_reduce`` and ``index_reduce``: values of ``src`` reduced (sum, prod, mean, amax,
amin) into ``input`` at the positions an index gives, with or without ``input``'s own
values. The forward is NumPy's unbuffered ``ufunc.at`` on the host (a round trip for
device tensors); the backward is PyTorch's (``scatter_reduce_backward``), in nbgrad ops,
including its rule for ties of amax / amin (the gradient shared among the equal values,
``input``'s counted even when ``include_self=False``)."""

import numpy as np

from ..tensor import Tensor, _wrap_dim
from ._core import backend
from .funcdef import deffunc, surface
from .index import _scatter_args, gather, scatter, scatter_add

_REDUCES = ("sum", "prod", "mean", "amax", "amin")
_UFUNC = {"sum": np.add, "prod": np.multiply, "mean": np.add, "amax": np.maximum,
          "amin": np.minimum}


def _positions(idx, dim):
    """Index arrays into ``input`` for every element of ``idx`` (along ``dim``: its
    values, elsewhere: the element's own position)."""
    pos = list(np.indices(idx.shape, sparse=True))
    pos[dim] = idx
    return tuple(pos)


def _identity(reduce, dt):
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    big = np.inf if dt.kind == "f" else (np.iinfo(dt).max if dt.kind in "iu" else True)
    small = -np.inf if dt.kind == "f" else (np.iinfo(dt).min if dt.kind in "iu" else False)
    return small if reduce == "amax" else big


def _forward(x, idx, src, odt, dev, dim, reduce, include_self):
    be = backend(dev)
    out = np.array(be.to_host(x), dtype=odt.np)
    i = np.asarray(be.to_host(idx)).astype(np.int64)
    s = np.asarray(be.to_host(src)).astype(odt.np)
    pos = _positions(i, dim)
    if not include_self:
        out[pos] = _identity(reduce, out.dtype)
    with np.errstate(invalid="ignore"):
        _UFUNC[reduce].at(out, pos, s)
    if reduce == "mean":
        count = np.full(out.shape, 1 if include_self else 0, np.int64)
        np.add.at(count, pos, 1)
        count[count == 0] = 1
        out = out / count if out.dtype.kind == "f" else out // count
    return be.from_host(np.asarray(out, odt.np))


SCATTER_REDUCE = deffunc(
    "scatter_reduce", overload="two", params=("input", "index", "src"), kernels=(),
    forward=_forward, dtype=lambda dt, *args: dt, shape=lambda sx, *args: tuple(sx),
    args=("dim", "reduce", "include_self"), node="ScatterReduceBackward0",
    torch_names={"input": "self"},
    grads={"input, src": "scatter_reduce_backward(grad, input, dim, index, src, reduce, "
                         "include_self, result, grad_input_mask)"},
    fn=False, method=False)


def scatter_reduce_backward(grad, input, dim, index, src, reduce, include_self, result, mask):
    """PyTorch's ``scatter_reduce_backward``: ``(grad_input, grad_src)``."""
    from ..creation import ones_like, zeros_like
    from .elementwise import eq
    from .selection import where

    if reduce == "sum":
        g_in, g_src = grad, gather(grad, dim, index)
    elif reduce == "mean":
        n = (ones_like(grad) if include_self else zeros_like(grad))
        n = scatter_add(n, dim, index, ones_like(src))
        n = where(eq(n, 0), 1, n)
        g_in, g_src = grad / n, gather(grad, dim, index) / gather(n, dim, index)
    elif reduce == "prod":
        masked_in = where(eq(input, 0), 1, input)
        g_in = grad * scatter_reduce(masked_in, dim, index, src, "prod",
                                     include_self=include_self) / masked_in
        src_zero = eq(src, 0)
        zeros_there = gather(scatter_add(zeros_like(input), dim, index, src_zero.to(
            input.dtype)), dim, index)
        single = src_zero & eq(zeros_there, 1)
        masked_result = scatter_reduce(input, dim, index, where(single, 1, src), "prod",
                                       include_self=include_self)
        g_src = where(single, gather(grad * masked_result, dim, index),
                      gather(grad * result, dim, index) / where(src_zero, 1, src))
    else:  # amax, amin: the gradient shared among the values equal to the result
        value = gather(result, dim, index)
        in_is = eq(input, result).to(input.dtype)
        src_is = eq(src, value).to(input.dtype)
        shared = grad / scatter_add(in_is, dim, index, src_is)
        g_in, g_src = in_is * shared, src_is * gather(shared, dim, index)
    if not include_self:
        g_in = scatter(g_in, dim, index, 0.0)
    return (g_in if mask[0] else None), (g_src if mask[1] else None)


@surface(SCATTER_REDUCE)
def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    """Reduce the values of ``src`` into ``input`` at the positions ``index`` gives along a dim.

    For a 2-d tensor and ``dim=0``, ``src[i][j]`` goes into ``out[index[i][j]][j]`` (for
    ``dim=1``, into ``out[i][index[i][j]]``), and the values that meet at a position are
    reduced by ``reduce``: ``"sum"``, ``"prod"``, ``"mean"``, ``"amax"`` or ``"amin"``. With
    ``include_self`` the reduction includes ``input``'s value at that position; without it,
    only the values scattered there. Positions that receive nothing keep ``input``'s value.

    Args:
        input (Tensor): the input.
        dim (int): the dim along which to index.
        index (LongTensor): the positions along ``dim``, of ``src``'s number of dims (and no
            larger than it).
        src (Tensor): the values to scatter.
        reduce (str): ``"sum"``, ``"prod"``, ``"mean"``, ``"amax"`` or ``"amin"``.
        include_self (bool, optional): whether ``input``'s values take part in the
            reduction. Default: ``True``.

    Example::

        >>> import nbgrad
        >>> src = nbgrad.tensor([1.0, 2.0, 3.0, 4.0])
        >>> index = nbgrad.tensor([0, 1, 0, 1])
        >>> nbgrad.scatter_reduce(nbgrad.zeros(2), 0, index, src, "amax")
        tensor([3., 4.])
        >>> nbgrad.scatter_reduce(nbgrad.ones(3), 0, index, src, "sum")
        tensor([5., 7., 1.])
        >>> nbgrad.scatter_reduce(nbgrad.ones(3), 0, index, src, "mean", include_self=False)
        tensor([2., 3., 1.])
    """
    if reduce not in _REDUCES:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, "
                           f"got {reduce}")
    if isinstance(input, Tensor) and input.ndim == 0:
        r = scatter_reduce(input.reshape(1), 0, index.reshape(1) if index.ndim == 0 else index,
                           src.reshape(1) if src.ndim == 0 else src, reduce,
                           include_self=include_self)
        return r.reshape(())
    d, src = _scatter_args("scatter_reduce", input, dim, index, src)
    return SCATTER_REDUCE.call(input, index, src, d, reduce, bool(include_self))


def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    """Reduce slices of ``source`` into the slices of ``input`` that ``index`` names, along a dim.

    For ``dim=0``, row ``i`` of ``source`` is reduced into row ``index[i]`` of the result,
    with ``reduce``: ``"prod"``, ``"mean"``, ``"amax"`` or ``"amin"``. With ``include_self``
    the reduction includes ``input``'s values; without it, only the slices reduced there.

    Args:
        input (Tensor): the input.
        dim (int): the dim along which to index.
        index (LongTensor): a 1-d tensor, one index per slice of ``source`` along ``dim``.
        source (Tensor): the slices to reduce.
        reduce (str): ``"prod"``, ``"mean"``, ``"amax"`` or ``"amin"``.
        include_self (bool, optional): whether ``input``'s values take part in the
            reduction. Default: ``True``.

    Example::

        >>> import nbgrad
        >>> source = nbgrad.tensor([[2.0, 3.0], [4.0, 5.0]])
        >>> nbgrad.index_reduce(nbgrad.ones(2, 2), 0, nbgrad.tensor([1, 1]), source, "prod")
        tensor([[ 1.,  1.],
                [ 8., 15.]])
        >>> nbgrad.index_reduce(nbgrad.ones(2, 2), 0, nbgrad.tensor([0, 1]), source, "amax",
        ...                     include_self=False)
        tensor([[2., 3.],
                [4., 5.]])
    """
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or "
                           f"amin but got {reduce}.")
    d = _wrap_dim(int(dim), max(input.ndim, 1))
    if index.ndim > 1:
        raise IndexError("index_reduce_(): Index is supposed to be a vector")
    if source.ndim and index.numel() != source.shape[d]:
        raise IndexError("index_reduce_(): Number of indices (" f"{index.numel()}) should be "
                         f"equal to source.size(dim) ({source.shape[d]})")
    shape = [1] * source.ndim
    shape[d] = -1
    spread = index.reshape(tuple(shape)).expand(tuple(source.shape))
    return scatter_reduce(input, d, spread, source, reduce, include_self=include_self)


def scatter_reduce_(input, dim, index, src, reduce, *, include_self=True):
    """In-place ``scatter_reduce``."""
    from .inplace import inplace_binary

    return inplace_binary("scatter_reduce_", lambda a, b: scatter_reduce(
        a, dim, index, b, reduce, include_self=include_self), input, src)


def index_reduce_(input, dim, index, source, reduce, *, include_self=True):
    """In-place ``index_reduce``."""
    from .inplace import inplace_binary

    return inplace_binary("index_reduce_", lambda a, b: index_reduce(
        a, dim, index, b, reduce, include_self=include_self), input, source)
