"""Elementwise kernels on storage: the general path of PyTorch's broadcasting that every
launch plan of ``ops/dispatch.py`` is built from, and that ops computing on arrays call
directly. Operands are Tensors or storage arrays (converted to the compute dtype) or
numbers; results are new arrays, never Tensors or graph nodes."""

import numpy as np

from .. import dtypes as _dt
from ..storage.layout import _bstrides, bcast3, cast_data, copy_data, is_c, layout3, unexpand
from ..tensor import Tensor
from ._core import backend, broadcast_shapes, kernel, to_dtype_data


def _operand(x, dt, dev, be):
    """Storage of ``x`` as dtype ``dt``: an array, or a NumPy scalar for a number."""
    if x.__class__ is Tensor:
        return to_dtype_data(x, dt, dev)
    if isinstance(x, (bool, int, float, np.generic)):
        return dt.number(x)
    return cast_data(x, dt, dev)  # a storage array


def binary_data(kname, a, b, cdt, odt, dev):
    """Run binary kernel ``kname`` on ``a`` and ``b`` (Tensors, storage arrays or numbers) in
    dtype ``cdt``; the result array has dtype ``odt``."""
    be = backend(dev)
    k = kernel(kname, dev)
    ad = _operand(a, cdt, dev, be)
    bd = _operand(b, cdt, dev, be)
    a_arr = ad.__class__ is not cdt.np.type
    b_arr = bd.__class__ is not cdt.np.type
    if a_arr and b_arr:
        shape = broadcast_shapes(ad.shape, bd.shape)
    else:
        shape = ad.shape if a_arr else bd.shape
    out = be.empty(shape, odt.np)
    if out.size == 0:
        return out
    cpu = out.__class__ is np.ndarray
    if cpu:  # expanded operands read as the small arrays they are
        ad = unexpand(ad) if a_arr else ad
        bd = unexpand(bd) if b_arr else bd
    if a_arr and b_arr:
        if ad.shape == shape and bd.shape == shape and is_c(ad) and is_c(bd):
            k(ad.reshape(-1), bd.reshape(-1), out.reshape(-1))
            return out
        if bd.size == 1 and ad.shape == shape and is_c(ad):
            k(ad.reshape(-1), bd.reshape(()), out.reshape(-1))
            return out
        if ad.size == 1 and bd.shape == shape and is_c(bd):
            k(ad.reshape(()), bd.reshape(-1), out.reshape(-1))
            return out
    elif a_arr:
        if ad.shape == shape and is_c(ad):
            k(ad.reshape(-1), bd, out.reshape(-1))
            return out
    elif bd.shape == shape and is_c(bd):
        k(ad, bd.reshape(-1), out.reshape(-1))
        return out
    if cpu:  # contiguous operands that broadcast: one pass, no strided views
        arrs = [x if x.__class__ is not cdt.np.type else np.full((1,), x, cdt.np)
                for x in (ad, bd)]
        if arrs[0].size == 1 and arrs[1].size == 1:  # e.g. an expanded scalar gradient
            one = np.empty(1, odt.np)
            k(arrs[0].reshape(-1), arrs[1].reshape(-1), one)
            out.fill(one[0])
            return out
        if arrs[0].flags.c_contiguous and arrs[1].flags.c_contiguous:
            b3 = bcast3(shape, arrs)
            if b3 is not None:
                k.broadcast(b3[1][0], b3[1][1], out.reshape(b3[0]))
                return out
    arrs = [x if x.__class__ is not cdt.np.type else be.full((), x, cdt.np) for x in (ad, bd)]
    views = layout3(be, shape, arrs + [out])
    if views is None and cpu:  # the CPU loops also take 4-d views
        views = layout3(be, shape, arrs + [out], 4)
    if views is None:
        arrs = [copy_data(be.as_strided(x, shape, tuple(_bstrides(x, shape))), cdt, dev) for x in arrs]
        k(arrs[0].reshape(-1), arrs[1].reshape(-1), out.reshape(-1))
        return out
    k(views[0], views[1], views[2])
    return out


def unary_data(kname, x, odt, dev):
    """Run unary kernel ``kname`` on Tensor ``x`` (converted to ``odt``)."""
    be = backend(dev)
    k = kernel(kname, dev)
    xd = to_dtype_data(x, odt, dev)
    out = be.empty(xd.shape, odt.np)
    if out.size == 0:
        return out
    if is_c(xd):
        k(xd.reshape(-1), out.reshape(-1))
        return out
    views = layout3(be, xd.shape, [xd, out])
    if views is None and out.__class__ is np.ndarray:  # the CPU loops also take 4-d views
        views = layout3(be, xd.shape, [xd, out], 4)
    if views is None:
        xd = copy_data(xd, odt, dev)
        k(xd.reshape(-1), out.reshape(-1))
        return out
    k(views[0], views[1])
    return out


def ternary_data(name, arrs, shape, dt, be, dev, last=None):
    """Run ternary elementwise kernel ``name`` on arrays ``arrs`` (broadcast to ``shape``)
    into a new ``dt`` array; ``last``, when not None, is the third operand as a number (a
    flat pass takes it as a value, without a broadcast view)."""
    out = be.empty(shape, dt.np)
    if out.size:
        k = kernel(name, dev)
        if (last is not None and arrs[0].shape == shape and arrs[1].shape == shape
                and is_c(arrs[0]) and is_c(arrs[1])):
            k.flat_s(arrs[0].reshape(-1), arrs[1].reshape(-1),
                     arrs[2].dtype.type(_dt.checked_value(last, arrs[2].dtype)), out.reshape(-1))
            return out
        if all(a.shape == shape and is_c(a) for a in arrs):
            k(*[a.reshape(-1) for a in arrs], out.reshape(-1))
        else:
            views = layout3(be, shape, arrs + [out])
            if views is None:
                arrs = [copy_data(be.as_strided(a, shape, tuple(_bstrides(a, shape))), _dt._FROM_NP[a.dtype], dev) for a in arrs]
                k(*[a.reshape(-1) for a in arrs], out.reshape(-1))
            else:
                k(*views)
    return out
