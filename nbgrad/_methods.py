"""Every Tensor method and operator that runs an op, bound from one table.

``tensor.py`` defines what a Tensor is (storage, dtype, device, its place in the graph,
conversion to host values) and imports no op; each method that computes is a row of
``METHODS`` below, bound onto ``Tensor`` by the loop at the end. Add a method here, as a row.
"""

import re
import types

import numpy as np

from . import (
    _aten_forms,
    _docs,  # noqa: F401  (the op-table functions' docstrings, which methods refer to)
    tensor_types,
)
from . import creation as Cr
from . import dtypes as _dt
from . import tensor_storage as TS
from ._warnings import warn_once
from .device import as_device
from .memory_formats import contiguous_format, preserve_format, strided
from .ops import advanced_index as AIx
from .ops import comparison as Cmp
from .ops import compound as Cp
from .ops import concat as C
from .ops import condition as Cond
from .ops import convert
from .ops import elementwise as E
from .ops import host_math as HM
from .ops import index as Ix
from .ops import inplace as I
from .ops import linalg as L
from .ops import linalg_compose as LC
from .ops import linalg_decomp as LD
from .ops import linalg_householder as LH
from .ops import linalg_lu as LU_
from .ops import linalg_solve as LS
from .ops import linalg_spectral as LSp
from .ops import norm as Nm
from .ops import rearrange as Rr
from .ops import reduce as R  # noqa: F401  (its rows join the table)
from .ops import sampling as Smp
from .ops import scan as Scan
from .ops import scatter_into as ScI
from .ops import scatter_reduce as ScR
from .ops import search as Sr
from .ops import selection as Sel
from .ops import shape as S
from .ops import softmax as Sm  # noqa: F401  (its rows join the table)
from .ops import sort as Srt
from .ops import special_functions as SF  # noqa: F401  (its rows join the table)
from .ops import stats as St
from .ops import strided as Strd
from .ops.funcdef import public as func_rows
from .ops.opdef import TABLE
from .ops.view_inplace import _ptr
from .tensor import _TYPE_NAMES, Tensor


def _r(f):
    def reflected(self, other):
        return f(other, self)

    return reflected


def _cmp_or_identity(fn, default):
    # like torch: comparing with a non-number (None, a string) is plain Python equality
    def op(self, other):
        if isinstance(other, (Tensor, bool, int, float, np.number)):
            return fn(self, other)
        return default

    return op


def _inplace_method(name, fn, has_alpha):
    if has_alpha:
        def method(self, other, *, alpha=1):
            if alpha != 1:
                return I.inplace_binary(name, lambda a, b: fn(a, b, alpha=alpha), self, other)
            return I.inplace_binary(name, fn, self, other)
    else:
        def method(self, other):
            return I.inplace_binary(name, fn, self, other)

    method.__name__ = name
    method.__doc__ = f"In-place ``{fn.__name__}``; bumps ``_version``."
    return method


def _inplace_unary(name, fn, to_float):
    # the number operand decides the dtype check only: a float one (exp_) refuses integer
    # tensors as PyTorch does ("result type Float can't be cast to ... Long"), False none
    bound = 0.0 if to_float else False

    def method(self):
        return I.inplace_binary(name, lambda a, _b: fn(a), self, bound)

    method.__name__ = name
    method.__doc__ = f"In-place ``{fn.__name__}``; bumps ``_version``."
    return method


def _elementwise_methods():
    """The rows of the elementwise ops' methods, operators and in-place methods, from the
    flags of their definitions (ops/elementwise.py's table)."""
    rows = {}
    for op in TABLE.values():
        fn = getattr(E, op.name, None) or op.module_globals[op.name]
        if op.method:
            for name in (op.name,) + tuple(op.aliases):
                rows[name] = fn
        for d in op.dunders:
            if d in ("__eq__", "__ne__"):
                rows[d] = _cmp_or_identity(fn, d == "__ne__")
            elif d.startswith("__r") and d != f"__{op.name}__":
                rows[d] = _r(fn)
            else:
                rows[d] = fn
        # (an in-place form is in no autocast list: it runs the row without the cast)
        fn = getattr(fn, "__wrapped__", fn)
        if op.inplace and op.arity == 1:
            rows[op.name + "_"] = _inplace_unary(op.name + "_", fn, op.dtype == "float")
        elif op.inplace:
            method = _inplace_method(op.name + "_", fn, "alpha" in op.kwargs)
            rows[op.name + "_"] = method
            if op.inplace == "operator":
                rows["__i" + op.dunders[0][2:]] = method
        if op.inplace:  # (PyTorch's second names have in-place forms too: arccos_, sgn_)
            for alias in op.aliases:
                rows[alias + "_"] = rows[op.name + "_"]
    return rows


def _div_(plain):
    """``div_`` with PyTorch's ``rounding_mode`` (``"floor"``, ``"trunc"``: an integer
    tensor keeps its dtype); ``plain`` the row's in-place method (``x /= y`` stays it)."""
    def div_(self, other, *, rounding_mode=None):
        if rounding_mode is None:
            return plain(self, other)
        # (named apart from "div_", whose true division makes any result a float)
        return I.inplace_binary(f"div_{rounding_mode}",
                                lambda a, b: E.div(a, b, rounding_mode=rounding_mode), self, other)

    return div_


def _clamp_(self, min=None, max=None):
    bound = min if min is not None else (max if max is not None else 0)  # decides the dtype check
    return I.inplace_binary("clamp_", lambda a, _b: E.clamp(a, min, max), self, bound)


def _fill_diagonal_(self, fill_value, wrap=False):
    """fill_diagonal_(fill_value, wrap=False) -> Tensor

    Write ``fill_value`` on the main diagonal of this tensor, in place, and return it: the
    elements whose indices are all equal. A tensor of more than 2 dims must have every dim
    of the same size.

    Args:
        fill_value (Number): the value to write.
        wrap (bool, optional): for a matrix taller than wide, start the diagonal again after
            every ``cols + 1`` rows (as NumPy's ``fill_diagonal``). Default: ``False``.

    Example::

        >>> import nbgrad
        >>> nbgrad.zeros(3, 3).fill_diagonal_(5.0)
        tensor([[5., 0., 0.],
                [0., 5., 0.],
                [0., 0., 5.]])
        >>> nbgrad.zeros(5, 2).fill_diagonal_(1.0, wrap=True)[3:]
        tensor([[1., 0.],
                [0., 1.]])
    """
    if self.ndim < 2:
        raise RuntimeError("dimensions must larger than 1")
    if self.ndim > 2 and len(set(self.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    import numpy as np

    mask = np.zeros(tuple(self.shape), bool)
    np.fill_diagonal(mask, True, wrap=wrap)
    return _masked_fill_(self, Cr.tensor(mask, device=self._device), fill_value)


def _masked_fill_(self, mask, value):
    # (False: the fill is cast to self's dtype, no promotion to check)
    return I.inplace_binary("masked_fill_", lambda a, _b: Sel.masked_fill(a, mask, value),
                            self, False)


def _band_(name):
    fn = getattr(Sel, name)

    def method(self, diagonal=0):
        return I.inplace_binary(name + "_", lambda a, _b: fn(a, diagonal), self, False)

    method.__name__ = name + "_"
    return method


def _type(self, dtype=None, non_blocking=False, **kwargs):
    """type(dtype=None, non_blocking=False) -> str or Tensor

    Without ``dtype``, the name of this tensor's type (``"nbgrad.FloatTensor"``); with one,
    this tensor converted to it (itself if it already is that type).

    Args:
        dtype (nbgrad.dtype or type or str, optional): a dtype, a legacy tensor type such
            as ``nbgrad.DoubleTensor`` (which names the device type too), or such a type's
            name (``"torch.DoubleTensor"``). Default: ``None``, return the type's name.
        non_blocking (bool, optional): accepted for PyTorch's signature (copies here are
            synchronous). Default: ``False``.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([1.5, 2.5])
        >>> x.type()
        'nbgrad.FloatTensor'
        >>> x.type(nbgrad.int64), x.type("torch.DoubleTensor").dtype
        (tensor([1, 2]), nbgrad.float64)
    """
    if dtype is None:
        return self._type_name()
    if isinstance(dtype, tensor_types.TensorType):
        return self.to(dtype.dtype, device="cuda" if dtype.is_cuda else "cpu",
                       non_blocking=non_blocking)
    if isinstance(dtype, str):
        name = dtype.rsplit(".", 1)[-1]
        by_name = {v: k for k, v in _TYPE_NAMES.items()}
        if name not in by_name:
            raise ValueError(f"invalid type: '{dtype}'")
        dtype = getattr(_dt, {"bool": "bool_"}.get(by_name[name], by_name[name]))
    return self.to(dtype)


def _to(self, *args, **kwargs):
    """to(*args, **kwargs) -> Tensor

    This tensor on another device and/or with another dtype: a copy, or the tensor itself
    when nothing changes (unless ``copy=True``).

    The forms, as PyTorch's: ``to(dtype)``, ``to(device, dtype=None)``, ``to(other)``
    (``other``'s device and dtype), each with the keywords ``non_blocking=False``,
    ``copy=False`` and ``memory_format=nbgrad.preserve_format``. The copy is recorded for
    autograd: gradients flow back to this tensor.

    Args:
        *args: a dtype, a device (or a string such as ``"cpu"`` or ``"cuda:0"``), or a
            tensor; a device may be followed by a dtype.
        **kwargs: ``dtype``, ``device``, ``non_blocking`` (accepted; copies here are
            synchronous), ``copy`` (always copy) and ``memory_format`` (the copy's layout).

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([1.7, -2.2])
        >>> x.to(nbgrad.int64)
        tensor([ 1, -2])
        >>> x.to("cpu") is x, x.to("cpu", copy=True) is x
        (True, False)
        >>> x.to(nbgrad.zeros(1, dtype=nbgrad.float64)).dtype
        nbgrad.float64
    """
    return convert.to(self, *args, **kwargs)


def _cuda(self, device=None):
    """cuda(device=None) -> Tensor

    A copy of this tensor on a CUDA device (the tensor itself if it is there already). It
    needs a CUDA GPU (Numba's CUDA target).

    Args:
        device (nbgrad.device or int, optional): the CUDA device, or its index. Default:
            ``None``, the current CUDA device.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.ones(2)
        >>> y = x.cuda() if nbgrad.cuda.is_available() else x
        >>> y.shape
        nbgrad.Size([2])
    """
    return self.to("cuda" if device is None else as_device(device if not isinstance(device, int) else f"cuda:{device}"))


def _legacy_new(self, *args, device=None):
    """new(*args, device=None) -> Tensor

    PyTorch's legacy constructor, making a tensor of this tensor's dtype on its device:
    ``new(*sizes)`` or ``new(size)`` an uninitialised tensor of that shape, ``new(data)`` a
    tensor of the values of a sequence, ``new(tensor)`` that tensor's data (it must have this
    dtype), ``new()`` an empty tensor. The ``new_*`` methods (:meth:`new_zeros`,
    :meth:`new_tensor`, ...) are the modern forms.

    Args:
        *args: the sizes, the data or a tensor, as above.
        device (nbgrad.device or str, optional): the device. Default: ``None``, this tensor's.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([1.0, 2.0], dtype=nbgrad.float64)
        >>> x.new(2, 3).shape, x.new([3, 4])
        (nbgrad.Size([2, 3]), tensor([3., 4.], dtype=nbgrad.float64))
    """
    dev = self._device if device is None else as_device(device)
    return tensor_types.construct(self._dtype, dev, args)


def _contiguous(self, memory_format=contiguous_format):
    """contiguous(memory_format=nbgrad.contiguous_format) -> Tensor

    This tensor laid out densely in memory: itself if it already is, else a copy.

    Views such as a transpose or a strided slice are not contiguous; some operations
    (``view``) need a contiguous tensor.

    Args:
        memory_format (nbgrad.memory_format, optional): the layout wanted:
            ``nbgrad.contiguous_format`` (row-major) or ``nbgrad.channels_last`` (a 4-d
            tensor). Default: ``nbgrad.contiguous_format``.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([[1, 2], [3, 4]]).t()
        >>> x.is_contiguous(), x.contiguous().is_contiguous()
        (False, True)
        >>> y = x.contiguous()
        >>> y.contiguous() is y
        True
    """
    if self.is_contiguous(memory_format if memory_format is not contiguous_format else None):
        return self
    if memory_format is preserve_format:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    return convert.clone(self, memory_format=memory_format)


def _activation():
    # (imported on use: its rows join the table after this module's are read)
    from .ops import activation

    return activation


def _special():
    from . import special

    return special


def _is_nonzero(self):
    """The truth of a one-element tensor (PyTorch's errors for others)."""
    n = self.numel()
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(self.item() != 0)


def _float(self):
    """float() -> Tensor

    This tensor as ``nbgrad.float32``: ``self.to(nbgrad.float32)`` (the tensor itself if it
    already is).

    Example::

        >>> import nbgrad
        >>> nbgrad.tensor([1.7, -2.2]).float()
        tensor([ 1.7000, -2.2000])
    """
    return self.to(_dt.float32)


def _double(self):
    """double() -> Tensor

    This tensor as ``nbgrad.float64``: ``self.to(nbgrad.float64)`` (the tensor itself if it
    already is).

    Example::

        >>> import nbgrad
        >>> nbgrad.tensor([1.7, -2.2]).double()
        tensor([ 1.7000, -2.2000], dtype=nbgrad.float64)
    """
    return self.to(_dt.float64)


def _half(self):
    """half() -> Tensor

    This tensor as ``nbgrad.float16``: ``self.to(nbgrad.float16)`` (the tensor itself if it
    already is).

    Example::

        >>> import nbgrad
        >>> nbgrad.tensor([1.7, -2.2]).half()
        tensor([ 1.7002, -2.1992], dtype=nbgrad.float16)
    """
    return self.to(_dt.float16)


def _bfloat16(self):
    """bfloat16() -> Tensor

    This tensor as ``nbgrad.bfloat16``: ``self.to(nbgrad.bfloat16)`` (the tensor itself if it
    already is).

    Example::

        >>> import nbgrad
        >>> nbgrad.tensor([1.7, -2.2]).bfloat16()
        tensor([ 1.7031, -2.2031], dtype=nbgrad.bfloat16)
    """
    return self.to(_dt.bfloat16)


def _long(self):
    """long() -> Tensor

    This tensor as ``nbgrad.int64``: ``self.to(nbgrad.int64)`` (the tensor itself if it
    already is).

    Example::

        >>> import nbgrad
        >>> nbgrad.tensor([1.7, -2.2]).long()
        tensor([ 1, -2])
    """
    return self.to(_dt.int64)


def _int(self):
    """int() -> Tensor

    This tensor as ``nbgrad.int32``: ``self.to(nbgrad.int32)`` (the tensor itself if it
    already is).

    Example::

        >>> import nbgrad
        >>> nbgrad.tensor([1.7, -2.2]).int()
        tensor([ 1, -2], dtype=nbgrad.int32)
    """
    return self.to(_dt.int32)


def _short(self):
    """short() -> Tensor

    This tensor as ``nbgrad.int16``: ``self.to(nbgrad.int16)`` (the tensor itself if it
    already is).

    Example::

        >>> import nbgrad
        >>> nbgrad.tensor([1.7, -2.2]).short()
        tensor([ 1, -2], dtype=nbgrad.int16)
    """
    return self.to(_dt.int16)


def _char(self):
    """char() -> Tensor

    This tensor as ``nbgrad.int8``: ``self.to(nbgrad.int8)`` (the tensor itself if it
    already is).

    Example::

        >>> import nbgrad
        >>> nbgrad.tensor([1.7, -2.2]).char()
        tensor([ 1, -2], dtype=nbgrad.int8)
    """
    return self.to(_dt.int8)


def _byte(self):
    """byte() -> Tensor

    This tensor as ``nbgrad.uint8``: ``self.to(nbgrad.uint8)`` (the tensor itself if it
    already is).

    Example::

        >>> import nbgrad
        >>> nbgrad.tensor([1.7, 2.2]).byte()
        tensor([1, 2], dtype=nbgrad.uint8)
    """
    return self.to(_dt.uint8)


def _bool(self):
    """bool() -> Tensor

    This tensor as ``nbgrad.bool``: ``self.to(nbgrad.bool)`` (the tensor itself if it
    already is).

    Example::

        >>> import nbgrad
        >>> nbgrad.tensor([1.7, 0.0]).bool()
        tensor([ True, False])
    """
    return self.to(_dt.bool_)


def _cpu(self):
    """cpu() -> Tensor

    A copy of this tensor in CPU memory (the tensor itself if it is there already).

    Example::

        >>> import nbgrad
        >>> x = nbgrad.ones(2)
        >>> x.cpu() is x
        True
    """
    return self.to("cpu")


def _type_as(self, other):
    """type_as(other) -> Tensor

    This tensor as ``other``'s dtype: ``self.to(other.dtype)`` (itself if it already is).

    Args:
        other (Tensor): the tensor whose dtype to take.

    Example::

        >>> import nbgrad
        >>> nbgrad.tensor([1, 2]).type_as(nbgrad.zeros(1))
        tensor([1., 2.])
    """
    return self.to(other._dtype)


def _T(self):
    """``x.T``: the dims reversed; PyTorch's deprecation warnings for other than 2-d."""
    nd = self.ndim
    if nd != 2:
        warn_once(
            f"T {min(nd, 1)}",
            "Tensor.T is deprecated on 0-D tensors. This function is the identity in these "
            "cases." if nd == 0 else
            "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
            "deprecated and it will throw an error in a future release. Consider `x.mT` to "
            "transpose batches of matrices or `x.permute(*nbgrad.arange(x.ndim - 1, -1, -1))` "
            "to reverse the dimensions of a tensor.", stacklevel=3)
    return S.permute(self, tuple(range(nd - 1, -1, -1)))


def _view_as(self, other):
    """view_as(other) -> Tensor

    A view of this tensor with ``other``'s shape: ``self.view(other.size())`` (see
    :meth:`~nbgrad.Tensor.view`).

    Args:
        other (Tensor): the tensor whose shape to take.

    Example::

        >>> import nbgrad
        >>> nbgrad.arange(6).view_as(nbgrad.zeros(2, 3))
        tensor([[0, 1, 2],
                [3, 4, 5]])
    """
    return S.view(self, tuple(other.shape))


def _reshape_as(self, other):
    """reshape_as(other) -> Tensor

    This tensor with ``other``'s shape: ``self.reshape(other.size())``, a view when the
    strides allow it, else a copy (see :func:`nbgrad.reshape`).

    Args:
        other (Tensor): the tensor whose shape to take.

    Example::

        >>> import nbgrad
        >>> nbgrad.arange(6).reshape_as(nbgrad.zeros(3, 2))
        tensor([[0, 1],
                [2, 3],
                [4, 5]])
    """
    return S.reshape(self, tuple(other.shape))


def _where(self, condition, other):
    """where(condition, other) -> Tensor

    ``self.where(condition, other)`` is ``nbgrad.where(condition, self, other)``: this
    tensor's elements where ``condition`` holds, ``other``'s elsewhere.

    See :func:`nbgrad.where`

    Args:
        condition (Tensor): a bool tensor: where to keep this tensor's elements.
        other (Tensor or Number): the values taken where ``condition`` is ``False``.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([-1.0, 2.0, -3.0])
        >>> x.where(x > 0, 0.0)
        tensor([0., 2., 0.])
    """
    return E.where(condition, self, other)


def _ndimension(self):
    """ndimension() -> int

    The number of dimensions of this tensor: another name for :meth:`~nbgrad.Tensor.dim`.

    Example::

        >>> import nbgrad
        >>> nbgrad.zeros(2, 3, 4).ndimension()
        3
    """
    return self.ndim


def _polygamma_method(self, n):
    """polygamma(n) -> Tensor

    ``self.polygamma(n)`` is ``nbgrad.polygamma(n, self)`` (the arguments of the function
    the other way round).

    See :func:`nbgrad.polygamma`

    Args:
        n (int): the order of the derivative of digamma, at least 0.

    Example::

        >>> import nbgrad
        >>> nbgrad.tensor([1.0, 0.5]).polygamma(1)
        tensor([1.6449, 4.9348])
    """
    return E.polygamma(n, self)


def _polygamma_(self, n):
    """polygamma_(n) -> Tensor

    In-place version of :meth:`nbgrad.Tensor.polygamma`.

    See :func:`nbgrad.polygamma`

    Args:
        n (int): the order of the derivative of digamma, at least 0.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([1.0, 0.5])
        >>> _ = x.polygamma_(1)
        >>> x
        tensor([1.6449, 4.9348])
    """
    return I.inplace_binary("polygamma_", lambda a, _b: E.polygamma(n, a), self, 0.0)


# name -> function (or property), bound onto Tensor as is
METHODS = {
    # elementwise ops, operators and their in-place forms: from the op table
    **_elementwise_methods(),
    "__matmul__": L.matmul, "__rmatmul__": _r(L.matmul),
    "__getitem__": S.getitem, "__setitem__": I.setitem,
    "where": _where,
    "clamp": E.clamp, "clip": E.clamp, "clamp_": _clamp_, "clip_": _clamp_,
    "clamp_min_": lambda self, min: _clamp_(self, min=min),
    "clamp_max_": lambda self, max: _clamp_(self, max=max),
    "fill_diagonal_": _fill_diagonal_, "ndimension": _ndimension,
    # (Tensor.polygamma(n): the order of torch.polygamma(n, input) turned round)
    "polygamma": _polygamma_method, "polygamma_": _polygamma_,
    "masked_fill": Sel.masked_fill, "masked_fill_": _masked_fill_,
    "tril": Sel.tril, "triu": Sel.triu, "tril_": _band_("tril"), "triu_": _band_("triu"),
    "square": E.square, "__invert__": E.invert, "bitwise_not": E.bitwise_not,
    "__and__": E.bitwise_and, "__rand__": E.bitwise_and, "__or__": E.bitwise_or,
    "__ror__": E.bitwise_or, "__xor__": E.bitwise_xor, "__rxor__": E.bitwise_xor,
    "bitwise_and": E.bitwise_and, "bitwise_or": E.bitwise_or, "bitwise_xor": E.bitwise_xor,
    "__lshift__": E.bitwise_left_shift, "__rshift__": E.bitwise_right_shift,
    "__rlshift__": _r(E.bitwise_left_shift), "__rrshift__": _r(E.bitwise_right_shift),
    "bitwise_left_shift": E.bitwise_left_shift, "bitwise_right_shift": E.bitwise_right_shift,
    "logical_xor": E.logical_xor, "cumsum": Scan.cumsum, "cumsum_": Scan._cumsum_,
    "cumprod": Scan.cumprod, "cumprod_": Scan._cumprod_,
    "multinomial": Smp.multinomial, "sort": Srt.sort, "bernoulli": Smp.bernoulli,
    "median": Srt.median, "quantile": Srt.quantile, "cummax": Scan.cummax, "cummin": Scan.cummin,
    "nanmedian": Srt.nanmedian, "nanquantile": Srt.nanquantile,
    **{n: getattr(Smp, n) for n in (
        "uniform_", "normal_", "random_", "bernoulli_", "exponential_", "cauchy_",
        "log_normal_", "geometric_")},
    **{n: getattr(Cond, n) for n in ("nonzero", "argwhere", "masked_select", "diag")}, "argsort": Srt.argsort, "topk": Srt.topk, "kthvalue": Srt.kthvalue,
    "zero_": I.zero_, "fill_": I.fill_, "copy_": I.copy_,
    # reductions, statistics, softmax: from the flags of their rows (ops/reduce.py,
    # ops/stats.py, ops/softmax.py)
    **func_rows("method"),
    "norm": Nm._norm_method,
    # linear algebra
    "matmul": L.matmul, "mm": L.mm, "bmm": L.bmm, "dot": L.dot, "mv": L.mv, "outer": L.outer,
    "ger": L.outer, "inverse": LS.inv, "det": LS.det, "slogdet": LS.slogdet,
    # shape and views
    **{n: getattr(S, n) for n in (
        "reshape", "view", "flatten", "transpose", "permute", "t", "expand", "expand_as",
        "squeeze", "unsqueeze")},
    "view_as": _view_as, "reshape_as": _reshape_as,
    "swapaxes": S.transpose,
    "T": property(_T),
    "mT": property(lambda self: S.transpose(self, -2, -1)),
    "diagonal": Strd.diagonal, "unfold": Strd.unfold, "as_strided": Strd.as_strided,
    "as_strided_": lambda self, size, stride, storage_offset=None: _adopt_view(
        self, Strd.as_strided(self, size, stride, storage_offset)),
    **{n: getattr(Sr, n) for n in ("unique", "unique_consecutive", "bincount", "histc",
                                           "histogram")},
    **{n: getattr(Cp, n) for n in (
        "addmm", "addmv", "addbmm", "baddbmm", "addcmul", "addcdiv", "lerp", "hypot",
        "trace", "positive", "true_divide", "deg2rad", "rad2deg", "float_power", "signbit",
        "isneginf", "isposinf",
        "logaddexp", "logaddexp2", "xlogy", "logit", "sinc", "nan_to_num", "nansum", "nanmean",
        "diff", "cross", "count_nonzero", "aminmax", "addcmul_", "addcdiv_", "lerp_", "addmm_",
        "baddbmm_", "addr", "addr_", "addmv_", "addbmm_")},
    **{n: getattr(Rr, n) for n in (
        "broadcast_to", "movedim", "moveaxis", "swapdims", "unflatten", "fliplr", "flipud",
        "rot90", "tensor_split", "hsplit", "vsplit", "dsplit", "select", "take", "repeat_interleave")},
    "split": C.split, "chunk": C.chunk, "unbind": C.unbind, "narrow": C.narrow,
    "roll": C.roll,
    "repeat": S.repeat, "tile": S._tile_method, "flip": S._flip_method,
    # indexing
    **{n: getattr(Ix, n) for n in (
        "index_select", "index_add", "index_add_", "gather", "scatter_add", "scatter_add_",
        "scatter", "scatter_", "index_fill", "index_fill_", "index_copy", "index_copy_",
        "take_along_dim")},
    "index_put": AIx.index_put, "index_put_": AIx.index_put_,
    # tests of values (bool results)
    **{n: getattr(Cmp, n) for n in Cmp.__all__},
    # creations like this tensor
    **{n: getattr(Cr, n) for n in (
        "new_zeros", "new_ones", "new_empty", "new_full", "new_tensor", "new_empty_strided")},
    "new": _legacy_new,
    # copies and conversions
    "clone": convert.clone, "contiguous": _contiguous, "to": _to,
    "cpu": _cpu, "cuda": _cuda, "type_as": _type_as, "type": _type,
    "float": _float, "double": _double, "long": _long, "int": _int, "bool": _bool,
    "half": _half, "bfloat16": _bfloat16, "byte": _byte, "char": _char, "short": _short,
}



def _result_into_self(name, fn):
    """``Tensor.<name>(other)``: ``fn(self, other)`` written into ``self`` (a comparison's or
    logical op's bool result as ``self``'s dtype)."""
    def method(self, other):
        return I.inplace_binary(name, lambda a, b: fn(a, b).to(a.dtype), self, other)

    method.__name__ = name
    return method


def _unary_into_self(name, fn):
    def method(self, *args, **kwargs):
        return I.inplace_binary(name, lambda a, _b: fn(a, *args, **kwargs).to(a.dtype), self,
                                False)

    method.__name__ = name
    return method


def _storage_offset(self):
    """storage_offset() -> int

    The position of this tensor's first element in its storage, counted in elements (0 for
    a tensor that starts where its memory does).

    Example::

        >>> import nbgrad
        >>> x = nbgrad.arange(6.0).view(2, 3)
        >>> x.storage_offset(), x[1:].storage_offset(), x[:, 1].storage_offset()
        (0, 3, 1)
    """
    root = self._base if self._base is not None else self
    return (_ptr(self._data) - _ptr(root._data)) // self._dtype.itemsize


def _dim_order(self, *, ambiguity_check=False):
    """dim_order(*, ambiguity_check=False) -> tuple

    The order in which this tensor's dims are laid out in memory, the outermost first (by
    decreasing stride; dims of equal stride in their own order).

    Args:
        ambiguity_check (bool, optional): accepted for PyTorch's signature (PyTorch raises
            when the order is ambiguous); unused. Default: ``False``.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.zeros(2, 3)
        >>> x.dim_order(), x.t().dim_order()
        ((0, 1), (1, 0))
    """
    strides = self.stride()
    return tuple(sorted(range(self.ndim), key=lambda d: -strides[d]))


def _python_map(name, self, others, fn):
    """``self`` with ``fn`` applied to each element (and ``others``' broadcast elements)
    in Python, written in place: PyTorch's CPU-only ``apply_``/``map_``/``map2_``."""
    if self._device.type != "cpu":
        raise TypeError(f"{name} is only implemented on CPU tensors")
    if self._rg or any(o._rg for o in others):
        raise RuntimeError(f"Can't call {name}() on Variable that requires grad. Use "
                           f"var.detach().{name}() instead.")
    vals = [o.expand(tuple(self.shape)).numpy() for o in others]  # (expand's errors)
    mine = self.numpy()  # (this tensor's memory, whatever its strides)
    out = [fn(*(a.item() for a in t))
           for t in zip(mine.reshape(-1), *(v.reshape(-1) for v in vals))]
    if out:
        mine[...] = np.array(out, dtype=object).reshape(mine.shape).astype(mine.dtype)
    self._vc[0] += 1
    return self


def _apply_(self, callable):
    """apply_(callable) -> Tensor

    Replace each element ``v`` of this tensor by ``callable(v)``, in place, and return it.
    The function runs in Python, once per element: slow, for tests and small tensors (as
    PyTorch's). CPU tensors that do not require grad only.

    Args:
        callable (callable): a function of one number that returns a number.

    Example::

        >>> import nbgrad
        >>> nbgrad.tensor([1.0, 2.0, 3.0]).apply_(lambda v: v * 10)
        tensor([10., 20., 30.])
    """
    return _python_map("apply_", self, (), callable)


def _map_(self, tensor, callable):
    """map_(tensor, callable) -> Tensor

    Replace each element ``a`` of this tensor by ``callable(a, b)``, with ``b`` the element
    of ``tensor`` (broadcast to this tensor's shape) at the same place, in place. The
    function runs in Python, once per element; CPU tensors that do not require grad only.

    Args:
        tensor (Tensor): the second operand, broadcastable to this tensor.
        callable (callable): a function of two numbers that returns a number.

    Example::

        >>> import nbgrad
        >>> nbgrad.tensor([1.0, 2.0]).map_(nbgrad.tensor([10.0, 20.0]), lambda a, b: a + b)
        tensor([11., 22.])
    """
    return _python_map("map_", self, (tensor,), callable)


def _map2_(self, x, y, callable):
    """map2_(x, y, callable) -> Tensor

    Replace each element ``a`` of this tensor by ``callable(a, b, c)``, with ``b`` and ``c``
    the elements of ``x`` and ``y`` (broadcast) at the same place, in place. The function
    runs in Python, once per element; CPU tensors that do not require grad only.

    Args:
        x (Tensor): the second operand, broadcastable to this tensor.
        y (Tensor): the third operand, broadcastable to this tensor.
        callable (callable): a function of three numbers that returns a number.

    Example::

        >>> import nbgrad
        >>> x, y = nbgrad.tensor([10.0, 20.0]), nbgrad.tensor([2.0, 3.0])
        >>> nbgrad.tensor([1.0, 2.0]).map2_(x, y, lambda a, b, c: a + b * c)
        tensor([21., 62.])
    """
    return _python_map("map2_", self, (x, y), callable)


def _buffers():
    from . import buffers  # (it imports tensor.py's helpers: bound on first use)

    return buffers


def _pin_memory(self, device=None):
    """pin_memory(device=None) -> Tensor

    This tensor in page-locked ("pinned") host memory, from which PyTorch copies to a GPU
    faster. nbgrad's copies go through Numba, which needs no pinned memory: with a CUDA GPU
    it returns this tensor itself; without one it raises ``RuntimeError``, as PyTorch's
    does.

    Args:
        device (nbgrad.device or str, optional): accepted for PyTorch's signature. Default:
            ``None``.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.ones(2)
        >>> (x.pin_memory() is x) if nbgrad.cuda.is_available() else True
        True
    """
    from . import cuda

    if not cuda.is_available():
        raise RuntimeError("Cannot access accelerator device when none is available.")
    return self


def _no_imag(self):
    raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")


def _matrix_transpose(self):
    if self.ndim not in (0, 2):
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got "
                           f"{self.ndim}-D tensor.")
    return S.t(self) if self.ndim else self


def _adopt_view(self, view):
    """``self`` made into ``view`` (a view of its own storage): in-place view ops."""
    I.check_inplace(self)
    return I.view_in_place(self, view)


def _view_in_place(name, alias=None):
    """``Tensor.<name>_`` (or ``<alias>_``, another name of it): the view op ``name`` made
    in place, the tensor's own shape and strides changing."""
    def method(self, *args, **kwargs):
        return _adopt_view(self, getattr(S, name)(self, *args, **kwargs))

    method.__name__ = method.__qualname__ = (alias or name) + "_"
    method.__doc__ = f"``{name}`` in place: the tensor's own shape and strides change."
    if alias:
        method.__doc__ = f"""{alias}_(dim0, dim1) -> Tensor

    In-place version of :meth:`~nbgrad.Tensor.{alias}`: this tensor's own dims ``dim0`` and
    ``dim1`` are swapped (its shape and strides change; no data moves), and it is returned.

    See :func:`nbgrad.{alias}`

    Args:
        dim0 (int): the first dim.
        dim1 (int): the second dim.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.zeros(2, 3)
        >>> _ = x.{alias}_(0, 1)
        >>> x.shape
        nbgrad.Size([3, 2])
    """
    return method


METHODS.update({
    **{n + "_": _result_into_self(n + "_", getattr(E, n)) for n in (
        "eq", "ne", "lt", "le", "gt", "ge", "not_equal", "less", "less_equal", "greater",
        "greater_equal", "logical_and", "logical_or", "logical_xor", "bitwise_and",
        "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift")},
    "logical_and": E.logical_and, "logical_or": E.logical_or, "logical_not": E.logical_not,
    "logical_not_": _unary_into_self("logical_not_", E.logical_not),
    "bitwise_not_": _unary_into_self("bitwise_not_", E.bitwise_not),
    "div_": _div_(METHODS["div_"]), "divide_": _div_(METHODS["div_"]),
    # (PyTorch's second names of the in-place arithmetic)
    **{alias: METHODS[name] for alias, name in (
        ("multiply_", "mul_"), ("subtract_", "sub_"), ("divide_", "div_"),
        ("true_divide_", "div_"), ("fix_", "trunc_")) if alias not in METHODS},
    "square_": lambda self: METHODS["mul_"](self, self.clone()),
    **{n + "_": _unary_into_self(n + "_", getattr(Cp, n)) for n in (
        "logit", "sinc", "nan_to_num", "deg2rad", "rad2deg")},
    "hypot_": _result_into_self("hypot_", Cp.hypot),
    "xlogy_": _result_into_self("xlogy_", Cp.xlogy),
    "float_power_": _result_into_self("float_power_", Cp.float_power),
    "copysign_": _result_into_self("copysign_", Cp.copysign),
    "ldexp_": _result_into_self("ldexp_", Cp.ldexp),
    "heaviside": Cp.heaviside, "heaviside_": _result_into_self("heaviside_", Cp.heaviside),
    **{n: getattr(Cp, n) for n in ("inner", "vdot", "dist", "copysign", "ldexp", "renorm",
                                   "kron")},
    "renorm_": lambda self, p, dim, maxnorm: I.inplace_binary(
        "renorm_", lambda a, _b: Cp.renorm(a, p, dim, maxnorm), self, False),
    **{n: getattr(HM, n) for n in ("gcd", "lcm", "frexp", "nextafter")},
    **{n + "_": _result_into_self(n + "_", getattr(HM, n)) for n in ("gcd", "lcm", "nextafter")},
    "logcumsumexp": Scan.logcumsumexp, "cov": St.cov, "corrcoef": St.corrcoef,
    "diag_embed": Rr.diag_embed, "diagflat": Rr.diagflat,
    "matrix_power": LS.matrix_power, "logdet": LS.logdet, "matrix_exp": LC.matrix_exp,
    "svd": LD.svd_old, "qr": LD.qr_old, "cholesky": LD.cholesky_old,
    "cholesky_solve": LD.cholesky_solve, "cholesky_inverse": LD.cholesky_inverse,
    "pinverse": LSp.pinverse,
    "geqrf": LH.geqrf, "orgqr": LH.householder_product, "ormqr": LH.ormqr,
    "msort": lambda self: Srt.sort(self, 0).values,
    "ravel": lambda self: S.reshape(self, (-1,)),
    "prelu": lambda self, weight: _activation().prelu(self, weight),
    "hardshrink": lambda self, lambd=0.5: _activation().hardshrink(self, lambd),
    "split_with_sizes": lambda self, split_sizes, dim=0: C.split(self, list(split_sizes), dim),
    # (PyTorch's unsafe_ forms skip view tracking; here they are the same views)
    "unsafe_chunk": C.chunk, "unsafe_split": C.split,
    "unsafe_split_with_sizes": lambda self, split_sizes, dim=0: C.split(self, list(split_sizes),
                                                                        dim),
    "lu": LU_.lu_old,
    "lu_solve": lambda self, LU_data, LU_pivots: LU_.lu_solve_old(self, LU_data, LU_pivots),
    "narrow_copy": lambda self, dim, start, length: convert.clone(C.narrow(self, dim, start,
                                                                           length)),
    "sum_to_size": lambda self, *size: E.sum_to(self, tuple(
        size[0] if len(size) == 1 and isinstance(size[0], (tuple, list)) else size)),
    "is_nonzero": _is_nonzero,
    "is_same_size": lambda self, other: tuple(self.shape) == tuple(other.shape),
    "swapdims": S.transpose,
    "mvlgamma": lambda self, p: _special().multigammaln(self, p),
    "is_signed": lambda self: self._dtype.is_signed,
    "is_complex": lambda self: False, "is_conj": lambda self: False,
    "is_neg": lambda self: False,
    # (no complex dtypes: a tensor is its own conjugate and real part)
    **{n: (lambda self: self) for n in ("conj", "conj_physical", "resolve_conj",
                                        "resolve_neg")},
    "real": property(lambda self: self),
    "imag": property(_no_imag),
    "isreal": lambda self: Cr.ones_like(self, dtype=_dt.bool_),
    "mH": property(lambda self: S.transpose(self, -2, -1)),
    "data_ptr": lambda self: _ptr(self._data), "storage_offset": _storage_offset,
    "const_data_ptr": lambda self: _ptr(self._data),
    "untyped_storage": TS.untyped_storage, "storage": TS.typed_storage,
    "resize_": TS.resize_, "resize_as_": TS.resize_as_, "is_set_to": TS.is_set_to,
    "dim_order": _dim_order, "apply_": _apply_, "map_": _map_, "map2_": _map2_,
    "pin_memory": _pin_memory,
    **{n: getattr(_aten_forms, n) for n in ("angle", "triangular_solve", "nonzero_static",
                                            "is_distributed")},
    "__dlpack__": lambda self, **kwargs: _buffers().dlpack(self, **kwargs),
    "__dlpack_device__": lambda self: _buffers().dlpack_device(self),
    "adjoint": lambda self: S.transpose(self, -2, -1),
    "H": property(_matrix_transpose),
    **{n + "_": _view_in_place(n) for n in ("t", "transpose", "squeeze", "unsqueeze")},
    "swapdims_": _view_in_place("transpose", "swapdims"),
    "swapaxes_": _view_in_place("transpose", "swapaxes"),
    **{n: getattr(ScR, n) for n in ("scatter_reduce", "scatter_reduce_", "index_reduce",
                                    "index_reduce_")},
    **{n: getattr(ScI, n) for n in ("select_scatter", "slice_scatter", "diagonal_scatter",
                                    "masked_scatter", "masked_scatter_", "put", "put_")},
    "mode": Srt.mode,
    "get_device": lambda self: -1 if self._device.type == "cpu" else self._device.index or 0,
    "is_cpu": property(lambda self: self._device.type == "cpu"),
    "itemsize": property(lambda self: self._dtype.itemsize),
    "nbytes": property(lambda self: self._dtype.itemsize * self.numel()),
    "layout": property(lambda self: strided),
    # (dense CPU / CUDA tensors only: the layouts, backends and states nbgrad lacks are
    # never a tensor's)
    **{n: property(lambda self: False) for n in (
        "is_sparse", "is_sparse_csr", "is_quantized", "is_meta", "is_mkldnn", "is_nested",
        "is_xpu", "is_mps", "is_ipu", "is_xla", "is_vulkan", "is_maia", "is_mtia")},
    "is_pinned": lambda self, device=None: False,
    "is_shared": lambda self: False,
})



# ----- docstrings: a method that is a top-level function refers to it, as PyTorch's do ------
_CO_VARARGS, _CO_VARKEYWORDS = 0x04, 0x08  # (code flags: inspect.CO_VARARGS, CO_VARKEYWORDS)
_RETURNS = re.compile(r"Returns:\s*\n\s*([A-Za-z(][\w. ,()]*?):\s")  # (its first type)


def _signature(name, fn):
    """``name(...)``: ``fn``'s parameters after the first (the tensor the method is called
    on), read from its code (``inspect.signature`` would cost ~30 us a method at import)."""
    code, defaults, kwdefaults = fn.__code__, fn.__defaults__ or (), fn.__kwdefaults__ or {}
    n, k = code.co_argcount, code.co_kwonlyargcount
    params, first_default = [], n - len(defaults)
    for i, p in enumerate(code.co_varnames[:n]):
        params.append(p if i < first_default else f"{p}={defaults[i - first_default]!r}")
    star = code.co_flags & _CO_VARARGS
    if star:
        params.append("*" + code.co_varnames[n + k])
    elif k:
        params.append("*")
    params += [f"{p}={kwdefaults[p]!r}" if p in kwdefaults else p
               for p in code.co_varnames[n:n + k]]
    if code.co_flags & _CO_VARKEYWORDS:
        params.append("**" + code.co_varnames[n + k + (1 if star else 0)])
    return f"{name}({', '.join(params[1:] if n else params)})"


def _documents(fn, name):
    """Whether ``fn`` is documented as nbgrad's top-level ``name``: its docstring has an
    example, names ``nbgrad.<name>`` (its example calls it, or it says it is an alias) and
    describes ``fn``'s first parameter (``input``) among its ``Args:``, as a function's
    docstring does and a method's does not (its first parameter is ``self``)."""
    doc = fn.__doc__ or ""
    if ">>>" not in doc or not (f"nbgrad.{name}(" in doc or f":func:`nbgrad.{name}`" in doc):
        return False
    code, args = fn.__code__, doc.find("Args:")
    return code.co_argcount > 0 and args >= 0 and re.search(
        rf"\n +{code.co_varnames[0]} \(", doc[args:]) is not None


def _with_doc(fn, doc):
    """``fn`` as a new function object of the same code, defaults, closure and attributes
    (a call costs what ``fn``'s does) whose docstring is ``doc``."""
    out = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__,
                             fn.__closure__)
    out.__kwdefaults__ = fn.__kwdefaults__
    out.__dict__.update(fn.__dict__)
    out.__qualname__, out.__module__, out.__doc__ = fn.__qualname__, fn.__module__, doc
    return out


def _refer_to_functions(methods):
    """The rows of ``methods`` whose function is documented as nbgrad's top-level function
    of the same name (the same function object: ``Tensor.sin`` is ``nbgrad.sin``), and
    their in-place forms, as copies whose docstring refers to the function's, as PyTorch's
    methods do: ``sin() -> Tensor``, then ``See :func:`nbgrad.sin```. The other methods
    keep their own docstrings."""
    out = {}
    for name, fn in methods.items():
        if name[:1] == "_" or fn.__class__ is not types.FunctionType \
                or not _documents(fn, name):
            continue
        returns = _RETURNS.search(fn.__doc__)
        args = _signature(name, fn)[len(name):]
        see = f"See :func:`nbgrad.{name}`"
        out[name] = _with_doc(fn, f"{name}{args} -> "
                                  f"{returns.group(1) if returns else 'Tensor'}\n\n{see}")
        inplace = methods.get(name + "_")
        if inplace.__class__ is types.FunctionType:
            out[name + "_"] = _with_doc(inplace, f"{name}_{args} -> Tensor\n\nIn-place version "
                                                 f"of :meth:`nbgrad.Tensor.{name}`.\n\n{see}")
    return out


METHODS.update(_refer_to_functions(METHODS))

# the methods documented by a top-level function of their name that is not the same
# function (``nbgrad.msort(x)`` calls ``x.msort()``): name -> (what it returns, a note on
# the arguments where the method's differ from the function's, or "")
_SEE = {
    **dict.fromkeys(("adjoint", "conj", "resolve_conj", "resolve_neg", "msort", "ravel",
                     "narrow_copy", "orgqr", "ormqr"), ("Tensor", "")),
    **dict.fromkeys(("is_complex", "is_conj", "is_neg", "is_nonzero", "is_same_size",
                     "is_signed"), ("bool", "")),
    "get_device": ("int", ""), "geqrf": ("(Tensor, Tensor)", ""),
    **dict.fromkeys(("split_with_sizes", "unsafe_split_with_sizes"), ("List of Tensors", "")),
    "lu_solve": ("Tensor", "``b.lu_solve(LU_data, LU_pivots)`` is "
                           "``nbgrad.lu_solve(b, LU_data, LU_pivots)``."),
    **{n: ("Tensor", f"``x.{n}(...)`` is ``nbgrad.{n}(x, ...)``.")
       for n in ("mvlgamma", "hardshrink", "prelu")},
}

# the docstrings of the methods made by a lambda above (the ``def``s have theirs)
_OWN_DOCS = {
    "data_ptr": """data_ptr() -> int

    The address of this tensor's first element in memory (equal for tensors that start
    at the same element).

    Example::

        >>> import nbgrad
        >>> x = nbgrad.zeros(4)
        >>> x[1:].data_ptr() - x.data_ptr()
        4
    """,
    "const_data_ptr": """const_data_ptr() -> int

    The address of this tensor's first element, for reading only: the same as
    :meth:`data_ptr` (PyTorch's const form of it).

    Example::

        >>> import nbgrad
        >>> x = nbgrad.zeros(4)
        >>> x.const_data_ptr() == x.data_ptr()
        True
    """,
    "is_pinned": """is_pinned(device=None) -> bool

    Whether this tensor is in page-locked ("pinned") host memory. nbgrad never pins
    memory (see :meth:`pin_memory`): always ``False``.

    Args:
        device (nbgrad.device or str, optional): accepted for PyTorch's signature.
            Default: ``None``.

    Example::

        >>> import nbgrad
        >>> nbgrad.ones(2).is_pinned()
        False
    """,
    "is_shared": """is_shared() -> bool

    Whether this tensor is in shared memory (for ``torch.multiprocessing``). nbgrad has
    no shared-memory tensors: always ``False``.

    Example::

        >>> import nbgrad
        >>> nbgrad.ones(2).is_shared()
        False
    """,
    "isreal": """isreal() -> Tensor

    Whether each element is real (its imaginary part zero): a bool tensor of this tensor's
    shape. nbgrad's dtypes are all real: all ``True``.

    Example::

        >>> import nbgrad
        >>> nbgrad.tensor([1.0, float("nan")]).isreal()
        tensor([True, True])
    """,
    "conj_physical": """conj_physical() -> Tensor

    The complex conjugate of each element, computed (not a lazy view). For nbgrad's real
    dtypes every number is its own conjugate: it returns this tensor.

    Example::

        >>> import nbgrad
        >>> nbgrad.tensor([1.0, -2.0]).conj_physical()
        tensor([ 1., -2.])
    """,
    "sum_to_size": """sum_to_size(*size) -> Tensor

    This tensor summed down to the shape ``size``, to which it must be broadcastable: the
    dims that broadcasting would have expanded are summed (the reverse of
    :meth:`expand`, as the gradient of a broadcast op is reduced).

    Args:
        size (int... or tuple of int): the shape of the result, as separate ints or one
            sequence.

    Example::

        >>> import nbgrad
        >>> nbgrad.ones(2, 3).sum_to_size(1, 3)
        tensor([[2., 2., 2.]])
        >>> nbgrad.ones(2, 3).sum_to_size((3,))
        tensor([2., 2., 2.])
    """,
    "as_strided_": """as_strided_(size, stride, storage_offset=None) -> Tensor

    In-place version of :meth:`as_strided`: this tensor itself takes the shape ``size``
    and the strides ``stride`` over its storage (no data moves), and is returned.

    Args:
        size (tuple of int): the new shape.
        stride (tuple of int): the new strides, in elements.
        storage_offset (int, optional): the position of the first element in the storage.
            Default: ``None``, this tensor's.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.arange(6.0)
        >>> x.as_strided_((2, 2), (1, 2))
        tensor([[0., 2.],
                [1., 3.]])
    """,
    "zero_": """zero_() -> Tensor

    Fill this tensor with zeros, in place, and return it.

    Args:
        t (Tensor): the tensor (``self``: the method takes no argument).

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([1.5, -2.0])
        >>> x.zero_()
        tensor([0., 0.])
    """,
}


def _see_docs():
    """The rows of ``_SEE`` and ``_OWN_DOCS`` as copies of their functions with those
    docstrings (``_with_doc``: the same code)."""
    out = {}
    for name, (returns, note) in _SEE.items():
        fn = METHODS[name]
        doc = f"{_signature(name, fn)} -> {returns}\n\nSee :func:`nbgrad.{name}`"
        out[name] = _with_doc(fn, doc + (f"\n\n{note}" if note else ""))
    out.update({name: _with_doc(METHODS[name], doc) for name, doc in _OWN_DOCS.items()})
    return out


# the augmented assignments that PyTorch runs in place (``x **= 2`` writes into ``x``, so
# its views see it); the arithmetic ones come with their rows
def _augmented(name, inplace):
    def method(self, other):
        return inplace(self, other)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"``{name}``: :meth:`{inplace.__name__}`, in place."
    return method


METHODS.update({f"__i{op}__": _augmented(f"__i{op}__", METHODS[name]) for op, name in (
    ("pow", "pow_"), ("and", "bitwise_and_"), ("or", "bitwise_or_"), ("xor", "bitwise_xor_"),
    ("lshift", "bitwise_left_shift_"), ("rshift", "bitwise_right_shift_"))})
METHODS.update(_see_docs())


# PyTorch's binary operators turn a TypeError (an operand they do not take: a NumPy array,
# a string, None) into NotImplemented, so Python asks the other operand: NumPy's reflected
# operator computes on the tensor's ``__array__`` and hands the result back through
# ``Tensor.__array_wrap__`` (``t + np.ones(2)`` is a float64 tensor), anything else ends in
# Python's "unsupported operand type(s)"
def _operator(fn):
    def op(self, other):
        try:
            return fn(self, other)
        except TypeError:
            return NotImplemented

    op.__name__ = op.__qualname__ = fn.__name__
    op.__doc__ = fn.__doc__
    op.__wrapped__ = fn
    return op


_OPERATORS = [f"__{p}{op}__" for op in (
    "add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or", "xor",
    "lshift", "rshift") for p in ("", "r", "i")] + ["__lt__", "__le__", "__gt__", "__ge__"]
METHODS.update({n: _operator(METHODS[n]) for n in _OPERATORS if n in METHODS})

for _name, _fn in METHODS.items():
    setattr(Tensor, _name, _fn)

# (the doctest sweep finds the examples of this module's functions; these methods are
# lambdas or a factory's, found through this table)
__test__ = {f"Tensor.{n}": METHODS[n].__doc__ for n in (*_OWN_DOCS, "swapdims_", "swapaxes_")}
