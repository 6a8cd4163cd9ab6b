"""Advanced indexing with gradients: ``x[idx]``, ``x[mask]``, ``x[idx] = v``, ``index_put``.

Keys follow PyTorch (which follows NumPy except for ints): ints and slices are applied
first as a view; the index tensors (a bool mask counts as its ``nonzero()`` components)
broadcast together, and their result dims replace them in place when they are adjacent,
else go first. The op layer turns a key into a ``_Plan`` of flat offsets
``offp[p] + offm[m] + offq[q]`` into the C-contiguous input, and validates every index
there, so the kernels never see a bad index. The backward of ``x[idx]``
(``IndexBackward0``) is an accumulating index_put into zeros, itself differentiable: rows
``index.Tensor``, ``index_put_zeros`` and ``index_zero`` on a precomputed plan.
"""

import warnings

import numpy as np

from .. import dtypes as _dt
from ..amp.policy import autocast_op
from ..storage.layout import _bstrides, c_data, copy_data
from ._core import (
    SCALAR_TYPE,
    Tensor,
    backend,
    broadcast_shapes,
    is_c,
    kernel,
)
from .funcdef import deffunc, same_dtype, same_shape, surface
from .index import _ERR_DTYPE, _cstrides, _first_bad, _host, _need_tensor, _offsets
from .shape import _adv_key, getitem, reshape

__all__ = ["index_put"]


class _Plan:
    """Where ``x[key]`` reads in a C-contiguous ``x`` of ``in_shape``: the result, viewed as
    ``(P, M, Q)``, takes element ``offp[p] + offm[m] + offq[q]``."""

    __slots__ = ("in_shape", "out_shape", "pmq", "offp", "offm", "offq")

    def __init__(self, in_shape, out_shape, offp, offm, offq, be):
        self.in_shape = in_shape
        self.out_shape = out_shape
        self.pmq = (offp.size, offm.size, offq.size)
        self.offp, self.offm, self.offq = be.from_host(offp), be.from_host(offm), be.from_host(offq)


def is_advanced(key):
    """True when indexing with ``key`` needs advanced indexing (tensors, lists, masks)."""
    return _adv_key(key)


def _norm_item(k, dev, tensors_adv):
    if isinstance(k, Tensor):
        if k._device != dev:
            raise RuntimeError(
                "indices should be either on cpu or on the same device as the indexed tensor "
                f"({dev})"
            )
        cat = k._dtype._cat
        if cat == 2 or k._dtype in (_dt.int8, _dt.int16):
            raise IndexError(_ERR_DTYPE)
        h = _host(k)
        if cat == 0:
            return ("m", h)
        if k._dtype is _dt.uint8:  # a mask, as PyTorch still reads one (and warns)
            warnings.warn("indexing with dtype nbgrad.uint8 is now deprecated, please use a "
                          "dtype nbgrad.bool instead.", UserWarning, stacklevel=3)
            return ("m", h.astype(np.bool_))
        if h.ndim == 0 and not tensors_adv:
            return ("i", int(h))
        return ("a", h.astype(np.int64, copy=False))
    if isinstance(k, (bool, np.bool_)):
        return ("m", np.asarray(bool(k)))
    if isinstance(k, (int, np.integer)):
        return ("i", int(k))
    if isinstance(k, slice):
        if k.step is not None and int(k.step) <= 0:
            raise ValueError("step must be greater than zero")
        return ("s", k)
    if k is None:
        return ("n",)
    if k is Ellipsis:
        return ("e",)
    if isinstance(k, (list, tuple, np.ndarray)):
        h = np.asarray(k)
        if h.dtype == np.bool_:
            return ("m", h)
        if h.dtype.kind in "iu":
            return ("i", int(h)) if h.ndim == 0 else ("a", h.astype(np.int64))
        if h.size == 0:
            return ("a", h.astype(np.int64))
        raise IndexError(_ERR_DTYPE)
    raise IndexError(
        "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
        f"valid indices (got {type(k).__name__})"
    )


def _basic_key(items):
    conv = {"n": None, "e": Ellipsis}
    return tuple(conv[it[0]] if it[0] in conv else it[1] for it in items)


def _plan(x, key, tensors_adv=False):
    """The ``_Plan`` of ``x[key]``, or a basic key (ints, slices, None, ...) when ``key``
    turns out to hold no index array (e.g. a 0-d integer ndarray)."""
    shape = tuple(x.shape)
    dev = x._device
    items = [_norm_item(k, dev, tensors_adv) for k in (key if key.__class__ is tuple else (key,))]
    if not any(it[0] in "am" for it in items):
        return _basic_key(items)
    nd = len(shape)
    if sum(1 for it in items if it[0] == "e") > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = sum(1 if it[0] in "isa" else (it[1].ndim if it[0] == "m" else 0) for it in items)
    if used > nd:
        raise IndexError(f"too many indices for tensor of dimension {nd}")
    full = ("s", slice(None))
    exp = []
    for it in items:
        exp.extend([full] * (nd - used) if it[0] == "e" else [it])
    if not any(it[0] == "e" for it in items):
        exp.extend([full] * (nd - used))

    cst = _cstrides(shape)
    vshape, vstr, adv, masks = [], [], [], []
    off = dim = n_adv = 0
    for it in exp:
        t = it[0]
        if t == "n":
            vshape.append(1)
            vstr.append(0)
        elif t == "i":
            size, k = shape[dim], it[1]
            if not -size <= k < size:
                raise IndexError(f"index {k} is out of bounds for dimension {dim} with size {size}")
            off += (k + size if k < 0 else k) * cst[dim]
            dim += 1
        elif t == "s":
            start, stop, step = it[1].indices(shape[dim])
            n = len(range(start, stop, step))
            if n:
                off += start * cst[dim]
            vshape.append(n)
            vstr.append(step * cst[dim])
            dim += 1
        elif t == "a":
            size, h = shape[dim], it[1]
            bad = _first_bad(h, size, wrap=True)
            if bad is not None:
                raise IndexError(
                    f"index {bad} is out of bounds for dimension {n_adv} with size {size}"
                )
            if h.size and h.min() < 0:
                h = np.where(h < 0, h + size, h)
            adv.append((len(vshape), h))
            n_adv += 1
            vshape.append(size)
            vstr.append(cst[dim])
            dim += 1
        else:  # a bool mask: its nonzero() components index its dims
            h = it[1]
            if h.ndim == 0:  # a bool scalar adds a dim of size 1 (True) or 0 (False)
                adv.append((len(vshape), np.zeros(1 if h else 0, np.int64)))
                n_adv += 1
                vshape.append(1)
                vstr.append(0)
                continue
            masks.append((len(vshape), h))
            for j, nz in enumerate(np.nonzero(h)):
                adv.append((len(vshape), nz.astype(np.int64)))
                n_adv += 1
                vshape.append(shape[dim])
                vstr.append(cst[dim])
                dim += 1
    for vpos, h in masks:
        for j, s in enumerate(h.shape):
            if s != vshape[vpos + j]:
                raise IndexError(
                    f"The shape of the mask {list(h.shape)} at index {j} does not match the "
                    f"shape of the indexed tensor {vshape} at index {vpos + j}"
                )
    try:
        bshape = np.broadcast_shapes(*(h.shape for _, h in adv))
    except ValueError:
        raise IndexError(
            "shape mismatch: indexing tensors could not be broadcast together with shapes "
            + ", ".join(str(list(h.shape)) for _, h in adv)
        ) from None
    offm = np.full(bshape, off, np.int64)
    for vpos, h in adv:
        offm = offm + h * vstr[vpos]
    pos = [p for p, _ in adv]
    basic = [i for i in range(len(vshape)) if i not in set(pos)]
    if pos == list(range(pos[0], pos[0] + len(pos))):  # adjacent: result dims stay in place
        pre = [i for i in basic if i < pos[0]]
        post = [i for i in basic if i > pos[-1]]
    else:
        pre, post = [], basic
    out_shape = (tuple(vshape[i] for i in pre) + tuple(bshape)
                 + tuple(vshape[i] for i in post))
    offp = _offsets([vshape[i] for i in pre], [vstr[i] for i in pre])
    offq = _offsets([vshape[i] for i in post], [vstr[i] for i in post])
    return _Plan(shape, out_shape, offp, np.ascontiguousarray(offm).reshape(-1), offq,
                 backend(dev))


def _take_data(data, plan, dt, dev):
    out = backend(dev).empty(plan.out_shape, dt.np)
    if out.size:
        kernel("index_take", dev)(data.reshape(-1), plan.offp, plan.offm, plan.offq,
                                  out.reshape(plan.pmq))
    return out


def _put_data(dst, plan, v3, accumulate, dev):
    """Write (or add) ``v3``, shaped ``(P, M, Q)``, at ``plan``'s positions of the
    C-contiguous array ``dst``."""
    if v3.size:
        kernel("index_put", dev)(dst.reshape(-1), plan.offp, plan.offm, plan.offq, v3,
                                 accumulate)


def _const3(value, plan, dt, dev):
    be = backend(dev)
    return be.as_strided(be.full((1,), value, dt.np), plan.pmq, (0, 0, 0))


# x[key] with index tensors, its backward (an accumulating put into zeros) and the zeroing
# an assignment's backward needs: rows on a precomputed ``_Plan`` of offsets, each one
# differentiable by another of them
def _index_forward(x, odt, dev, plan):
    return _take_data(c_data(x, dev), plan, odt, dev)


def _index_put_zeros_forward(g, odt, dev, plan):
    data = backend(dev).zeros(plan.in_shape, odt.np)
    _put_data(data, plan, c_data(g, dev).reshape(plan.pmq), True, dev)
    return data


def _index_zero_forward(g, odt, dev, plan):
    data = copy_data(g, odt, dev)
    _put_data(data, plan, _const3(0, plan, odt, dev), False, dev)
    return data


INDEX = deffunc("index", overload="Tensor", kernels=("index_take",), forward=_index_forward,
                dtype=same_dtype, shape=lambda s, plan: tuple(plan.out_shape), args=("plan",),
                grads=("index_put_zeros(grad, plan)",), fn=False, method=False)
INDEX_PUT_ZEROS = deffunc(
    "index_put_zeros", params=("grad_output",), kernels=("index_put",),
    forward=_index_put_zeros_forward, dtype=same_dtype, shape=lambda s, plan: tuple(plan.in_shape),
    args=("plan",), grads=("index(grad, plan)",), node="IndexPutZerosBackward0",
    torch_names={}, fn=False, method=False)
INDEX_ZERO = deffunc(
    "index_zero", params=("grad_output",), kernels=("index_put",), forward=_index_zero_forward,
    dtype=same_dtype, shape=same_shape, args=("plan",),
    grads=("index_zero(grad, plan)",), node="IndexZeroBackward0", torch_names={}, fn=False,
    method=False)


@surface(INDEX)
def index(x, plan):
    """``x[key]`` as a copy (differentiable), ``key`` given as its ``_Plan``."""
    return INDEX.call(x, plan)


@surface(INDEX_PUT_ZEROS)
def index_put_zeros(grad_output, plan):
    """Zeros of ``plan.in_shape`` with ``grad_output`` added at ``plan``'s positions
    (duplicates accumulate): ``x[key]``'s backward, differentiable."""
    return INDEX_PUT_ZEROS.call(grad_output, plan)


@surface(INDEX_ZERO)
def index_zero(grad_output, plan):
    """``grad_output`` with zeros written at ``plan``'s positions (differentiable;
    self-adjoint)."""
    return INDEX_ZERO.call(grad_output, plan)


def advanced_getitem(input, key):
    """``input[key]`` for keys with index tensors, lists or bool masks (a copy)."""
    plan = _plan(input, key)
    if plan.__class__ is not _Plan:
        return getitem(input, plan)
    return index(input, plan)


def index_put_values_backward(grad, plan, vshape, vdt):
    """The gradient of ``x[key] = values`` for ``values`` (of shape ``vshape``, dtype
    ``vdt``): ``grad`` at ``key``, summed to ``values``' shape."""
    from .elementwise import sum_to

    gv = index(grad, plan)
    if vdt is not gv._dtype:
        gv = gv.to(vdt)
    vs = _strip(vshape, len(plan.out_shape))
    gv = sum_to(gv, vs)
    return reshape(gv, vshape) if vs != vshape else gv


def _values3(v, plan, dt, dev):
    """``x[key] = v``'s values as the kernel takes them, ``(P, M, Q)`` of ``dt``: array ``v``
    broadcast to the indexing result, or a number."""
    if isinstance(v, (bool, int, float, np.generic)):
        return _const3(v, plan, dt, dev)
    tgt = plan.out_shape
    vs = _strip(tuple(v.shape), len(tgt))
    vd = v.reshape(vs)
    if vs != tgt:
        vd = backend(dev).as_strided(vd, tgt, tuple(_bstrides(vd, tgt)))
    return copy_data(vd, dt, dev).reshape(plan.pmq)


def _index_put_forward(x, v, odt, dev, plan, value, accumulate):
    v3 = _values3(value if v is None else v, plan, odt, dev)
    if is_c(x):
        _put_data(x, plan, v3, accumulate, dev)
    else:
        tmp = copy_data(x, odt, dev)
        _put_data(tmp, plan, v3, accumulate, dev)
        copy_data(tmp, odt, dev, out=x)
    return x


# x[key] = values (or +=, accumulate) in place; values is None for a number (``value``)
INDEX_PUT_ = deffunc(
    "index_put_", params=("input", "values"), optional=("values",), kernels=("index_put",),
    forward=_index_put_forward, dtype=lambda dt, vdt, plan, value, accumulate: dt,
    shape=same_shape,
    args=("plan", "value", "accumulate"), inplace=True, node="IndexPutBackward0",
    grads={"input": "grad if accumulate else index_zero(grad, plan)",
           "values": "index_put_values_backward(grad, plan, values_shape, values_dtype)"},
    fn=False, method=False)


def _strip(vshape, n):
    while len(vshape) > n and vshape[0] == 1:
        vshape = vshape[1:]
    return vshape


def _index_put(t, key, value, accumulate, op, tensors_adv=False):
    from . import view_inplace as _views
    from .inplace import (
        _check_view,
        _graph_on,
        assert_no_overlap,
        assert_writable,
        check_inplace,
        setitem,
    )

    plan = _plan(t, key, tensors_adv)
    if plan.__class__ is not _Plan:
        return setitem(t, plan, value)
    check_inplace(t)
    # PyTorch only warns (deprecated) for an expanded tensor and writes in loop order;
    # refused here, as PyTorch's other in-place ops do
    assert_writable(t)
    assert_no_overlap(t, value)
    dev = t._device
    tgt = plan.out_shape
    if isinstance(value, Tensor):
        if value._device != dev:
            raise RuntimeError(
                "Expected all tensors to be on the same device, but found at least two "
                f"devices, {dev} and {value._device}!"
            )
        vshape = tuple(value.shape)
        vs = _strip(vshape, len(tgt))
        try:
            ok = broadcast_shapes(vs, tgt) == tgt
        except RuntimeError:
            ok = False
        if not ok:
            raise RuntimeError(
                f"shape mismatch: value tensor of shape {list(vshape)} cannot be broadcast to "
                f"indexing result of shape {list(tgt)}"
            )
        vt, vn = value, None
    else:
        if not isinstance(value, (bool, int, float, np.number)):
            raise TypeError(
                f"can't assign a {type(value).__name__} to a {t._dtype} tensor"
            )
        vt, vn = None, value
    tracked = _graph_on() and (t._rg or (vt is not None and vt._rg))
    if tracked:
        _check_view(t, op)
    INDEX_PUT_.call(t, vt, plan, vn, bool(accumulate))
    if tracked:
        _views.after_inplace(t)
    return t


def advanced_setitem(t, key, value):
    """``t[key] = value`` for keys with index tensors, lists or bool masks."""
    return _index_put(t, key, value, False, "__setitem__")


@surface(INDEX_PUT_)
def index_put_(input, indices, values, accumulate=False):
    """``input[indices] = values`` in place (``+=`` with ``accumulate``, where duplicate
    indices add up); ``indices`` is a tuple of index tensors."""
    if not isinstance(indices, (tuple, list)):
        raise TypeError(
            "index_put_(): argument 'indices' (position 1) must be tuple of Tensors, not "
            f"{type(indices).__name__}"
        )
    _need_tensor(values, "index_put_", "values", 2)
    if values._dtype is not input._dtype:
        raise RuntimeError(
            "Index put requires the source and destination dtypes match, got "
            f"{SCALAR_TYPE[input._dtype.name]} for the destination and "
            f"{SCALAR_TYPE[values._dtype.name]} for the source."
        )
    key = tuple(slice(None) if k is None else k for k in indices)
    return _index_put(input, key, values, bool(accumulate), "index_put_", tensors_adv=True)


@autocast_op("index_put")
def index_put(input, indices, values, accumulate=False):
    """A copy of ``input`` with ``values`` written at the positions ``indices`` gives: the
    out-of-place form of ``input[indices] = values``.

    ``indices`` is a tuple with one index tensor per leading dim of ``input`` (integer or
    bool tensors, broadcast together, as in advanced indexing); ``values`` broadcasts to the
    indexed shape.

    Args:
        input (Tensor): the input.
        indices (tuple of Tensor): the index tensors.
        values (Tensor): the values to write (``input``'s dtype).
        accumulate (bool, optional): add the values to those already there (indices may
            then repeat, and all their values are added) instead of replacing them. Default:
            ``False``.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.zeros(2, 3)
        >>> rows, cols = nbgrad.tensor([0, 1]), nbgrad.tensor([2, 0])
        >>> nbgrad.index_put(x, (rows, cols), nbgrad.tensor([1.0, 2.0]))
        tensor([[0., 0., 1.],
                [2., 0., 0.]])
        >>> idx = (nbgrad.tensor([0, 0]),)
        >>> nbgrad.index_put(nbgrad.zeros(3), idx, nbgrad.tensor([1.0, 2.0]), accumulate=True)
        tensor([3., 0., 0.])
        >>> x
        tensor([[0., 0., 0.],
                [0., 0., 0.]])
    """
    from .convert import clone

    return index_put_(clone(input), indices, values, accumulate)
