"""In-place updates of storage. Each bumps the version counter that views share."""

import numpy as np

from .. import _recording
from .. import dtypes as _dt
from ..autograd.grad_mode import STATE as _STATE
from ..autograd.grad_mode import check_not_inference
from ..storage.layout import copy_data, layout3
from ..tensor import Tensor
from . import elementwise as E
from . import view_inplace as _views
from ._core import (
    Node,
    backend,
    broadcast_shapes,
    is_c,
    kernel,
    record,
    same_device,
    small_key,
    to_dtype_data,
    type_name,
)
from .elementwise import zeros_like  # noqa: F401  (a formula names it)
from .funcdef import deffunc, same_dtype, same_shape, surface


def add_into(dst, src):
    """``dst += src`` on storage, outside autograd (used to accumulate ``.grad``)."""
    sk = dst._sk
    if sk is None:
        sk = small_key(dst)
    if sk and (sk is src._sk or (src._sk is None and small_key(src) is sk)):
        d = dst._data
        if sk.flat:
            E._INTO["add"][sk.dt](d, src._data)
        else:
            E._INTO["add"][sk.dt](d.reshape(-1), src._data.reshape(-1))
        dst._vc[0] += 1
        return dst
    dev = dst._device
    d = dst._data
    s = to_dtype_data(src, dst._dtype, dev)
    k = kernel("add", dev)
    if d.shape == s.shape and is_c(d) and is_c(s):
        if d.__class__ is np.ndarray:
            k.into(d.reshape(-1), s.reshape(-1))
        else:
            k(d.reshape(-1), s.reshape(-1), d.reshape(-1))
    else:
        views = layout3(backend(dev), d.shape, [d, s, d])
        if views is None:
            raise NotImplementedError("add_into: more than 3 non-mergeable dims")
        k(*views)
    dst._vc[0] += 1
    return dst


# ----- memory overlap (PyTorch's MemOverlap rules) -----------------------------------------
_PARTIAL = (
    "unsupported operation: some elements of the input tensor and the written-to tensor refer "
    "to a single memory location. Please clone() the tensor before performing the operation."
)
_INTERNAL = (
    "unsupported operation: more than one element of the written-to tensor refers to a single "
    "memory location. Please clone() the tensor before performing the operation."
)
_READONLY = (
    "unsupported operation: the written-to tensor's memory is not writable (it shares memory "
    "with a read-only NumPy array, e.g. through from_numpy). Please clone() the tensor before "
    "performing the operation."
)


def zero_grads(tensors, set_to_none=True):
    """Clear the ``.grad`` of each tensor: to None, or (``set_to_none=False``) detached from
    any graph and zeroed in place. What ``Module.zero_grad`` and ``Optimizer.zero_grad`` do."""
    for p in tensors:
        g = p._grad
        if g is None:
            continue
        if set_to_none:
            p._grad = None
        else:
            if g._grad_fn is not None:
                g.detach_()
            else:
                g.requires_grad_(False)
            g.zero_()


def _dense(a):
    """PyTorch's ``is_non_overlapping_and_dense``: the elements tile one block of memory."""
    f = a.flags
    if f.c_contiguous or f.f_contiguous:
        return True
    expect = a.itemsize
    for st, n in sorted((abs(st), n) for n, st in zip(a.shape, a.strides) if n != 1):
        if st != expect:
            return False
        expect *= n
    return True


def _may_share(a, b):
    """Whether NumPy arrays ``a`` and ``b`` may share memory: cheap when they view different
    owning arrays (the common case), NumPy's bounds test otherwise."""
    ab, bb = a.base, b.base
    ra = a if ab is None else ab
    rb = b if bb is None else bb
    if ra is rb:
        return True
    if (ra.__class__ is np.ndarray and rb.__class__ is np.ndarray and ra.base is None
            and rb.base is None):
        return False  # two distinct owners of memory
    return np.may_share_memory(a, b)


def _lowest(a):
    p = a.__array_interface__["data"][0]
    for n, st in zip(a.shape, a.strides):
        if st < 0:
            p += (n - 1) * st
    return p


def overlap(a, b):
    """PyTorch's ``get_overlap_status`` of arrays ``a`` and ``b``: 0 none (or too hard to
    tell: some operand is not dense), 1 full (the same view), 2 partial."""
    if a is b:
        return 1
    if a.__class__ is not np.ndarray or b.__class__ is not np.ndarray:
        return 0
    if not a.size or not b.size or not _may_share(a, b) or not (_dense(a) and _dense(b)):
        return 0
    alo, blo = _lowest(a), _lowest(b)
    if alo == blo and a.shape == b.shape and a.strides == b.strides:
        return 1
    return 2 if alo < blo + b.nbytes and blo < alo + a.nbytes else 0


def _squeezed(a):
    """``a`` without its size-1 dimensions (a view): ``t[key] = v`` where ``t[key]`` and
    ``v`` are the same elements in the same order is a no-op copy that PyTorch allows, even
    when size-1 dimensions make their strides differ (``v[:, None, :] = v``)."""
    if a.__class__ is not np.ndarray or 1 not in a.shape:
        return a
    return a.reshape([n for n in a.shape if n != 1])


def assert_no_partial_overlap(t, other):
    """Raise PyTorch's error when ``other`` (read) and ``t`` (written) share some memory
    without being the same view: the result would depend on the order of the loop."""
    if other.__class__ is Tensor and overlap(t._data, other._data) == 2:
        raise RuntimeError(_PARTIAL)


def assert_no_overlap(t, other):
    """Like ``assert_no_partial_overlap``, but the same view is refused too (index_put_)."""
    if other.__class__ is Tensor and overlap(t._data, other._data):
        raise RuntimeError(_PARTIAL)


def assert_writable(t, internal=True):
    """Raise before writing into ``t`` when its storage cannot take the write: an expanded
    tensor (several elements at one address; PyTorch's error, unless ``internal`` is False as
    for ``fill_``) or memory NumPy marks read-only."""
    _check_writable(t._data, internal)


def _check_writable(d, internal):
    if _recording.RECORDER[0] is not None:  # (a traced region ends before the write)
        _recording.end("a tensor was modified in place")
    if d.__class__ is not np.ndarray:
        return
    f = d.flags
    if internal and not f.c_contiguous and d.size > 1:
        for n, st in zip(d.shape, d.strides):
            if st == 0 and n > 1:
                raise RuntimeError(_INTERNAL)
    if not f.writeable:
        raise RuntimeError(_READONLY)


# ----- in-place ops on tensors ----------------------------------------------------------
_CAT_NAMES = {0: "Bool", 1: "Long", 2: "Float"}


def check_inplace(t):
    """PyTorch's checks before writing into ``t`` while grad mode may record it."""
    if t._vc.__class__ is not list:
        check_not_inference(t)
    if not _STATE.enabled:
        return
    if t._rg and t._grad_fn is None:
        raise RuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation."
        )
    base = t._base
    if base is not None:
        if _views._NOGRAD:
            _views.check_made_without_grad(t)
        _views.before_inplace(t)  # first: PyTorch's split/chunk error wins over the leaf's
        if base._rg and base._grad_fn is None:
            raise RuntimeError(
                "a view of a leaf Variable that requires grad is being used in an in-place "
                "operation."
            )


def _write(t, data):
    """Copy ``data`` (same shape) into ``t``'s storage and bump its version."""
    copy_data(data, t._dtype, t._device, out=t._data)
    t._vc[0] += 1


def _rebase(t, result, op):
    """After an in-place op that autograd records, ``t`` takes ``result``'s history."""
    t._grad_fn = result._grad_fn
    t._output_nr = result._output_nr
    t._rg = result._rg
    t._retains_grad = False
    _views.after_inplace(t)


def _direct(fn, t, other):
    """Write ``fn(t, other)`` straight into ``t``'s storage when nothing is recorded and the
    operands line up (same dtype and shape, contiguous, or a number): one pass, no copy."""
    if not _DIRECT:
        _DIRECT.update({E.add: "add", E.sub: "sub", E.mul: "mul", E.div: "div"})
    kname = _DIRECT.get(fn)
    if t._vc.__class__ is not list:
        check_not_inference(t)
    if _recording.RECORDER[0] is not None:
        _recording.end("a tensor was modified in place")
    td = t._data
    if (kname is None or td.__class__ is not np.ndarray or not td.size or t._dtype is _dt.bool_
            or t._dtype.low):
        return False
    f = td.flags
    if not (f.c_contiguous and f.writeable):
        return False
    if other.__class__ is Tensor:
        od = other._data
        if (other._dtype is not t._dtype or od.__class__ is not np.ndarray
                or od.shape != td.shape or not od.flags.c_contiguous):
            return False
        if (od is not td and (td.base is not None or od.base is not None)
                and _may_share(td, od) and overlap(td, od) == 2):
            return False  # the general path raises PyTorch's error
        if kname == "div" and not t._dtype.is_floating_point:
            return False
        E._CPU[kname].into(td.reshape(-1), od.reshape(-1))
    elif isinstance(other, (int, float)) and not isinstance(other, bool) and t._dtype.is_floating_point:
        flat = td.reshape(-1)
        E._CPU[kname].flat_s(flat, t._dtype.np.type(other), flat)
    else:
        return False
    t._vc[0] += 1
    return True


_DIRECT = {}  # out-of-place op -> kernel name, filled on first use (import order)


def inplace_binary(op, fn, t, other):
    """``t = fn(t, other)`` in place: ``t.add_(y)`` and friends."""
    from .convert import clone

    if other.__class__ is not Tensor and not isinstance(other, (bool, int, float, np.number)):
        # (PyTorch's parser; an augmented operator then falls back to NumPy's operator)
        raise TypeError(f"{op}(): argument 'other' (position 1) must be Tensor, not "
                        f"{type_name(other)}")

    if not _STATE.enabled and _direct(fn, t, other):
        return t  # no graph, and the operands line up (so no promotion or device question)
    STATE = _STATE
    same_device(op, t, other)
    ts = [t] + ([other] if other.__class__ is Tensor else [])
    ss = [] if other.__class__ is Tensor else [other]
    rt = _dt.result_type(ts, ss)
    cat = max(rt._cat, 2) if op == "div_" else rt._cat  # true division: Float, even of ints
    if cat > t._dtype._cat:
        raise RuntimeError(
            f"result type {_CAT_NAMES[cat]} can't be cast to the desired output type "
            f"{_CAT_NAMES.get(t._dtype._cat)}"
        )
    check_inplace(t)
    record = STATE.enabled and (t._rg or (other.__class__ is Tensor and other._rg))
    if not record and _direct(fn, t, other):
        return t  # _direct declines read-only, expanded and overlapping operands
    assert_writable(t)
    assert_no_partial_overlap(t, other)
    if record:
        _check_view(t, op)  # before anything is written
        r = fn(clone(t), other)  # the clone keeps the old value for backward
    else:
        r = fn(t, other)
    if tuple(r.shape) != tuple(t.shape):
        raise RuntimeError(
            f"output with shape {list(t.shape)} doesn't match the broadcast shape {list(r.shape)}"
        )
    _write(t, r._data)
    if record:
        _rebase(t, r, op)
    return t


def _fill_forward(x, odt, dev, value):
    copy_data(backend(dev).full(x.shape, value, odt.np), odt, dev, out=x)
    return x


# the old value of a tensor overwritten by a constant gets no gradient (zeros, as PyTorch)
FILL_ = deffunc("fill_", overload="Scalar", kernels=("copy",), forward=_fill_forward,
                dtype=same_dtype, shape=same_shape, args=("value",),
                grads=("zeros_like(grad)",), node="FillBackward2", inplace=True, fn=False,
                method=False)


class CopyBackwards(Node):
    __slots__ = ()

    def backward(self, saved, g):
        from .convert import to
        from .elementwise import mul

        shape, dt = self.attrs
        f_old, f_src = self.next_functions
        g_old = mul(g, 0.0) if f_old[0] is not None else None
        g_src = _summed_to(to(g, dtype=dt), shape) if f_src[0] is not None else None
        return g_old, g_src


def _graph_on():
    return _STATE.enabled


@surface(FILL_)
def fill_(t, value):
    """fill_(value) -> Tensor

    Fill this tensor with ``value``, in place, and return it.

    ``value`` is cast to the tensor's dtype. An autograd-recorded tensor (not a leaf that
    requires grad) can be filled; its gradient there is then zero.

    Args:
        value (Number or Tensor): the value (a number or a one-element tensor).

    Example::

        >>> import nbgrad
        >>> x = nbgrad.zeros(2, 2)
        >>> x.fill_(2.5)
        tensor([[2.5000, 2.5000],
                [2.5000, 2.5000]])
        >>> nbgrad.zeros(3, dtype=nbgrad.int64).fill_(1.9)
        tensor([1, 1, 1])
    """
    check_inplace(t)
    if isinstance(value, Tensor):
        if value.numel() != 1:
            raise RuntimeError(
                "fill_ only supports 0-dimension value tensor but got tensor with "
                f"{value.ndim} dimensions."
            )
        value = value.item()
    assert_writable(t, internal=False)  # PyTorch fills an expanded tensor
    tracked = _graph_on() and t._grad_fn is not None
    if tracked:
        _check_view(t, "fill_")
    FILL_.call(t, value)
    if tracked:
        _views.after_inplace(t)
    return t


def _check_view(t, op):
    if t._base is not None:
        _views.before_inplace(t)  # PyTorch's error for an output of split/chunk


def zero_(t):
    """zero_() -> Tensor

    Fill this tensor with zeros, in place, and return it.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([1.0, 2.0])
        >>> x.zero_()
        tensor([0., 0.])
        >>> x
        tensor([0., 0.])
    """
    return fill_(t, 0)


def copy_(t, src, non_blocking=False):
    """copy_(src, non_blocking=False) -> Tensor

    Copy the elements of ``src`` into this tensor, in place, and return it.

    ``src`` is broadcast to this tensor's shape and converted to its dtype and device; the
    gradient flows back to ``src``.

    Args:
        src (Tensor): the values to copy, of a shape that broadcasts to this tensor's.
        non_blocking (bool): taken for PyTorch's signature; every copy here is done when
            the call returns (the CUDA target runs on one stream, so nothing can see the
            destination before the copy).

    Example::

        >>> import nbgrad
        >>> x = nbgrad.zeros(2, 3)
        >>> x.copy_(nbgrad.tensor([1, 2, 3]))
        tensor([[1., 2., 3.],
                [1., 2., 3.]])
    """
    from ..autograd.grad_mode import no_grad
    from .shape import expand

    if src.__class__ is not Tensor:
        raise TypeError(f"copy_(): argument 'other' (position 1) must be Tensor, not "
                        f"{type_name(src)}")
    check_inplace(t)
    assert_writable(t)
    assert_no_partial_overlap(t, src)
    if src.ndim > t.ndim:  # (a broadcast that would grow the destination)
        raise RuntimeError(f"output with shape {list(t.shape)} doesn't match the broadcast "
                           f"shape {list(broadcast_shapes(tuple(t.shape), tuple(src.shape)))}")
    with no_grad():
        src_b = expand(src, tuple(t.shape)) if tuple(src.shape) != tuple(t.shape) else src
        if src_b._device != t._device:
            src_b = src_b.to(t._device)
    tracked = _graph_on() and (t._rg or src._rg)
    if tracked:
        _check_view(t, "copy_")
    _write(t, src_b._data)
    if tracked:
        record(CopyBackwards, t, (t, src), (), (tuple(src.shape), src._dtype))
        t._output_nr = 0
        _views.after_inplace(t)
    return t


def _fitted(v, shape):
    """``v`` expanded to ``shape``, its leading 1s beyond ``shape``'s dims dropped first
    (PyTorch's rule for the source of a copy: ``x[0] = ones(1, 4)`` into a row of 4)."""
    from .shape import expand

    lead = v.ndim - len(shape)
    if lead > 0 and all(s == 1 for s in v.shape[:lead]):
        v = v.reshape(tuple(v.shape)[lead:])
    return expand(v, shape) if tuple(v.shape) != shape else v


def _summed_to(g, shape):
    """The gradient ``g`` of a copy's destination summed to its source's ``shape`` (which
    may have more leading 1s, see ``_fitted``)."""
    from .elementwise import sum_to
    from .shape import reshape

    lead = len(shape) - g.ndim
    if lead > 0:
        return reshape(sum_to(g, shape[lead:]), shape)
    return sum_to(g, shape)


class CopySlices(Node):
    """``x[key] = value``: the old ``x`` gets the gradient outside ``key``; ``value`` gets
    the part at ``key``, summed to its shape."""

    __slots__ = ()

    @classmethod
    def name(cls):
        return "torch::autograd::CopySlices"  # (PyTorch's C++ name; repr shows the short one)

    def backward(self, saved, g):
        from .elementwise import sub
        from .shape import getitem, index_backward

        key, vshape = self.attrs
        f_old, f_val = self.next_functions
        part = getitem(g, key)
        g_old = sub(g, index_backward(part, tuple(g.shape), key)) if f_old[0] is not None else None
        g_val = _summed_to(part, vshape) if f_val[0] is not None else None
        return g_old, g_val


def setitem(t, key, value):
    """``t[key] = value`` for basic keys (ints, slices, None, ...); advanced keys (index
    tensors, lists, bool masks) go to ``ops/advanced_index.py`` (index_put)."""
    from ..storage.layout import copy_data
    from ..tensor import Tensor
    from .shape import _adv_key, _check_key

    if _adv_key(key):
        from .advanced_index import advanced_setitem

        return advanced_setitem(t, key, value)
    check_inplace(t)
    key = _check_key(t, key)
    v_rg = isinstance(value, Tensor) and value._rg
    if _graph_on() and (t._rg or v_rg):
        _check_view(t, "__setitem__")  # before anything is written
    be = backend(t._device)
    dst = be.getitem(t._data, key)
    # PyTorch copies into the view t[key]: copy_'s checks, on that view
    _check_writable(dst, True)
    if value.__class__ is Tensor and overlap(_squeezed(dst), _squeezed(value._data)) == 2:
        raise RuntimeError(_PARTIAL)
    if isinstance(value, Tensor):
        from ..autograd.grad_mode import no_grad

        if value._device != t._device:
            raise RuntimeError(
                "Expected all tensors to be on the same device, but found at least two "
                f"devices, {t._device} and {value._device}!"
            )
        with no_grad():
            vb = _fitted(value, tuple(dst.shape))
        copy_data(vb._data, t._dtype, t._device, out=dst)
    else:
        copy_data(be.full(dst.shape, value, t._dtype.np), t._dtype, t._device, out=dst)
    t._vc[0] += 1
    if _graph_on() and (t._rg or v_rg):
        record(CopySlices, t, (t, value if v_rg else None), (),
               (key, tuple(value.shape) if v_rg else ()))
        t._output_nr = 0
        _views.after_inplace(t)
    return t


def view_in_place(t, view):
    """PyTorch's in-place view ops (``t_ transpose_ squeeze_ unsqueeze_``): ``t`` takes the
    geometry of ``view`` (the out-of-place op's result on it) and, when autograd recorded
    that, its history; its version is bumped; no data moves, so no other view of its
    storage changes."""
    t._data = view._data
    if view._grad_fn is not None:
        t._grad_fn, t._output_nr = view._grad_fn, view._output_nr
        t._retains_grad = False
    t._vc[0] += 1
    return t
