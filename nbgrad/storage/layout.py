"""Copies and broadcasting layouts of device arrays, shared by every device's storage.

These see arrays (NumPy's or a device's), never Tensors: the ops hand them storage and get
storage back.
"""

import numpy as np

from .._config import PARALLEL_MIN as _PAR_MIN
from ..dtypes import _FROM_NP
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


_LAYOUTS = {}  # (shape, (array shape, strides)...) -> the merged dims (see _collapse)


def _collapse(shape, arrays):
    """``shape`` with its size-1 dims dropped and adjacent dims merged where every array
    (broadcast to ``shape``) steps through them as one: ``(dims, strides per array)``.
    Cached by layout: ``contiguous()``, the strided elementwise ops and gradients' copies
    meet the same few layouts on every step."""
    key = (shape,) + tuple((a.shape, a.strides) for a in arrays)
    r = _LAYOUTS.get(key)
    if r is not None:
        return r
    strides = [_bstrides(a, shape) for a in arrays]
    cshape = []
    cstr = [[] for _ in arrays]
    for i, d in enumerate(shape):
        if d == 1:
            continue
        if cshape and all(cs[-1] == st[i] * d for cs, st in zip(cstr, strides)):
            cshape[-1] *= d
            for cs, st in zip(cstr, strides):
                cs[-1] = st[i]
        else:
            cshape.append(d)
            for cs, st in zip(cstr, strides):
                cs.append(st[i])
    r = (tuple(cshape), tuple(tuple(cs) for cs in cstr))
    if len(_LAYOUTS) >= 4096:  # many layouts (e.g. varying lengths): start over
        _LAYOUTS.clear()
    _LAYOUTS[key] = r
    return r


def layout3(be, shape, arrays, ndim=3):
    """Views of ``arrays`` broadcast to ``shape`` and collapsed to ``ndim`` (3 or 4) dims.

    Adjacent dims merge where every array steps through them as one; the result is
    padded with leading ones. Returns None when more than ``ndim`` dims remain.
    """
    shape = tuple(shape)
    cshape, cstr = _collapse(shape, arrays)
    pad = ndim - len(cshape)
    if pad < 0:
        return None
    cshape = (1,) * pad + cshape
    views = []
    for a, cs in zip(arrays, cstr):
        if a.__class__ is np.ndarray and a.shape == shape:
            # the merged dims are a reshape of ``a`` without a copy: ~1 µs where
            # as_strided takes ~10 (setting .shape raises rather than copy)
            v = a.view()
            v.shape = cshape
        else:
            v = be.as_strided(a, cshape, (0,) * pad + cs)
        views.append(v)
    return views


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
    if dt.low or src.dtype.char in _LOW_CHARS:
        return _low_copy(src, dt, device, be, out)
    if dt._narrow and src.dtype.kind == "f":  # through int64: truncated, then wrapped
        src = copy_data(src, _FROM_NP[np.dtype(np.int64)], device)
    if out is None:
        out = be.empty(src.shape, dt.np)
    k = kernel("copy", device)
    if src.size == 0:
        return out
    if (src.__class__ is np.ndarray and out.__class__ is np.ndarray and src.dtype == out.dtype
            and src.size < _PAR_MIN):
        # a CPU copy without a cast: NumPy's is a memcpy where both are contiguous and moves
        # each contiguous inner run whole where strided (~2x faster than the loop on a
        # transpose's copy), and compiles nothing (a cold start's first copy took ~0.08 s
        # for the loop); the parallel loop for large ones
        np.copyto(out, src)
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
    if views is None and src.__class__ is np.ndarray:  # the CPU loops also take 4-d views
        views = layout3(be, src.shape, [src, out], 4)
    if views is None:
        for i in range(src.shape[0]):
            copy_data(src[i], dt, device, out[i])
        return out
    k(views[0], views[1])
    return out


_LOW_CHARS = "eE"  # NumPy's float16 and ml_dtypes' bfloat16
_F32 = np.dtype(np.float32)
_BITS = np.dtype(np.uint16)


class _Bits16:
    """Stands for a dtype in ``copy_data``: 16-bit patterns, which the copy kernel moves."""

    np = _BITS
    low = _narrow = False


def _low_copy(src, dt, device, be, out):
    """``copy_data`` where either side is float16 or bfloat16, which Numba's kernels do not
    take. Without a cast the copy kernel moves the 16-bit patterns; a cast runs on the host
    with NumPy, through float32 as PyTorch's conversions go (a double or an integer becomes
    a float before it is rounded to 16 bits; a 16-bit float is widened before it becomes
    anything else but float32), so the rounding is PyTorch's."""
    if out is None:
        out = be.empty(src.shape, dt.np)
    if src.dtype == dt.np:
        copy_data(src.view(_BITS), _Bits16, device, out.view(_BITS))
        return out
    host = be.to_host(src)
    if host.dtype != _F32 and dt.np != _F32:
        host = host.astype(_F32)
    with np.errstate(over="ignore", invalid="ignore"):  # (inf and nan, as PyTorch gives)
        host = host.astype(dt.np)
    if out.__class__ is np.ndarray:
        np.copyto(out, host)
    else:
        copy_data(be.from_host(np.ascontiguousarray(host)), dt, device, out)
    return out


def cast_data(a, dt, device):
    """Array ``a`` as dtype ``dt`` (a copy only when it is another dtype)."""
    if a.dtype is not dt.np and a.dtype != dt.np:
        a = copy_data(a, dt, device)
    return a


def c_data(a, device, dt=None):
    """Array ``a`` C-contiguous and of dtype ``dt`` (its own when None): a copy only when
    it is not already."""
    if dt is None:
        return a if is_c(a) else copy_data(a, _FROM_NP[a.dtype], device)
    return a if is_c(a) and a.dtype == dt.np else copy_data(a, dt, device)


def is_c(a):
    """Whether storage array ``a`` (a NumPy array or a device array) is C-contiguous."""
    if a.__class__ is np.ndarray or isinstance(a, np.ndarray):
        return a.flags.c_contiguous
    return a.is_c_contiguous()
