"""Copies and broadcasting layouts of device arrays, shared by every device's storage.

These see arrays (NumPy's or a device's), never Tensors: the ops hand them storage and get
storage back.
"""

import numpy as np

from ..kernels.table import kernel
from . import for_device


def _bstrides(arr, shape):
    """Byte strides of ``arr`` broadcast to ``shape`` (zero where broadcast)."""
    n = len(shape)
    pad = n - arr.ndim
    st = [0] * pad
    for s, d in zip(arr.strides, arr.shape):
        st.append(0 if d == 1 else s)
    return st


def layout3(be, shape, arrays):
    """Views of ``arrays`` broadcast to ``shape`` and collapsed to 3 dims.

    Adjacent dims merge where every array steps through them as one; the result is
    padded with leading ones. Returns None when more than 3 dims remain.
    """
    strides = [_bstrides(a, shape) for a in arrays]
    dims = [i for i, d in enumerate(shape) if d != 1]
    cshape = []
    cstr = [[] for _ in arrays]
    for i in dims:
        d = shape[i]
        if cshape and all(
            cs[-1] == st[i] * d for cs, st in zip(cstr, strides)
        ):
            cshape[-1] *= d
            for cs, st in zip(cstr, strides):
                cs[-1] = st[i]
        else:
            cshape.append(d)
            for cs, st in zip(cstr, strides):
                cs.append(st[i])
    if len(cshape) > 3:
        return None
    pad = 3 - len(cshape)
    cshape = (1,) * pad + tuple(cshape)
    return [be.as_strided(a, cshape, (0,) * pad + tuple(cs)) for a, cs in zip(arrays, cstr)]


def unexpand(x):
    """``x`` without its expanded dims: each stride-0 dim of size > 1 becomes size 1 (a view
    that broadcasts back to ``x``), so an expanded operand reads as the small array it is."""
    st = x.strides
    if 0 not in st:
        return x
    return x[tuple(slice(0, 1) if s == 0 and d > 1 else _ALL for s, d in zip(st, x.shape))]


_ALL = slice(None)


def bcast3(shape, arrs):
    """C-contiguous ``arrs`` broadcasting to ``shape``, reshaped (as views) to 3 dims for a
    broadcasting kernel: ``(out_shape3, [views])``, or None past 3 dims.

    Adjacent dims merge when every operand is either whole or broadcast across both.
    """
    n = len(shape)
    padded = [(1,) * (n - a.ndim) + a.shape for a in arrs]
    out3 = []
    sizes = [[] for _ in arrs]
    last = None
    for i, d in enumerate(shape):
        if d == 1:
            continue
        pat = tuple(p[i] != 1 for p in padded)
        if pat == last:
            out3[-1] *= d
            for sz, on in zip(sizes, pat):
                if on:
                    sz[-1] *= d
        else:
            if len(out3) == 3:
                return None
            out3.append(d)
            for sz, on in zip(sizes, pat):
                sz.append(d if on else 1)
            last = pat
    pad = (1,) * (3 - len(out3))
    return pad + tuple(out3), [a.reshape(pad + tuple(sz)) for a, sz in zip(arrs, sizes)]


def copy_data(src, dt, device, out=None):
    """A C-contiguous copy of array ``src`` as dtype ``dt`` (into ``out`` if given)."""
    be = for_device(device)
    if out is None:
        out = be.empty(src.shape, dt.np)
    k = kernel("copy", device)
    if src.size == 0:
        return out
    if is_c(src) and is_c(out):
        k(src.reshape(-1), out.reshape(-1))
        return out
    if src.__class__ is np.ndarray and out.flags.c_contiguous:
        u = unexpand(src)  # an expanded source: read each element once
        if u.flags.c_contiguous:
            b3 = bcast3(src.shape, (u,))
            if b3 is not None:
                k.broadcast(b3[1][0], out.reshape(b3[0]))
                return out
    views = layout3(be, src.shape, [src, out])
    if views is None:
        for i in range(src.shape[0]):
            copy_data(src[i], dt, device, out[i])
        return out
    k(views[0], views[1])
    return out


def is_c(a):
    """Whether storage array ``a`` (a NumPy array or a device array) is C-contiguous."""
    if a.__class__ is np.ndarray or isinstance(a, np.ndarray):
        return a.flags.c_contiguous
    return a.is_c_contiguous()
