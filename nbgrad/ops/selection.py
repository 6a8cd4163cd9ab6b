"""Selection: ``where`` (one row per PyTorch overload, by which of input and other is a
number), ``masked_fill`` and ``tril`` / ``triu`` (``where`` with a mask) and ``clamp`` (number bounds, PyTorch's ``clamp`` and ``ClampBackward1``; tensor
bounds, ``clamp.Tensor`` and ``ClampBackward0``), with clamp's backward step per bound as
rows of its own (``clamp_grad``: one fused pass, no boolean temporary). Rows of
``ops/funcdef.py``; the elementwise bodies they run are the kernel table's."""

import numbers

import numpy as np

from .. import dtypes as _dt
from .._warnings import warn_once
from ..storage.layout import cast_data
from ..tensor import Tensor
from ._core import backend, broadcast_shapes, check_tensor, same_device, type_name
from .dispatch import promote
from .elementwise import gt, logical_and, logical_or, lt, ne, sum_to
from .elementwise_data import binary_data, ternary_data
from .funcdef import deffunc, same_dtype, same_shape, surface


# ----- selection: where, one row per PyTorch overload (which of input / other is a number) --
def _where_data(c, x, y, odt, dev, x_num=False, y_num=False):
    """``where`` on storage: ``c`` a bool array, ``x`` / ``y`` arrays, or numbers where
    ``x_num`` / ``y_num`` say so; the result (broadcast shape) in ``odt``."""
    be = backend(dev)
    shape = tuple(c.shape)
    for v, num in ((x, x_num), (y, y_num)):
        if not num:
            shape = broadcast_shapes(shape, tuple(v.shape))
    xs = be.full((), x, odt.np) if x_num else cast_data(x, odt, dev)
    ys = be.full((), y, odt.np) if y_num else cast_data(y, odt, dev)
    return ternary_data("where", [c, xs, ys], shape, odt, be, dev, y if y_num else None)


def _where_shape(*shapes):
    out = ()
    for s in shapes:
        out = broadcast_shapes(out, tuple(s))
    return tuple(out)


def _where_dtype(*dtypes_and_args):
    return dtypes_and_args[-1]  # the front's promotion of input and other (its argument)


_WHERE_GRADS = {"input": "sum_to(where(condition, grad, 0.0), input_shape)",
                "other": "sum_to(where(condition, 0.0, grad), other_shape)"}
WHERE = deffunc("where", overload="self", params=("condition", "input", "other"),
                kernels=("where",),
                forward=lambda c, x, y, odt, dev, dtype: _where_data(c, x, y, odt, dev),
                dtype=_where_dtype,
                shape=lambda c, x, y, dtype: _where_shape(c, x, y), args=("dtype",),
                grads={"condition": None, **_WHERE_GRADS}, node="WhereBackward0",
                fn=False, method=False)


def _where_scalar_row(overload, tensor, number):
    # one of input / other a tensor operand, the other a number (an argument)
    x_num = number == "input"

    def forward(c, t, odt, dev, v, dtype):
        x, y = (v, t) if x_num else (t, v)
        return _where_data(c, x, y, odt, dev, x_num, not x_num)

    return deffunc("where", overload=overload, params=("condition", tensor), kernels=("where",),
                   forward=forward, dtype=_where_dtype,
                   shape=lambda c, t, v, dtype: _where_shape(c, t), args=(number, "dtype"),
                   grads={"condition": None, tensor: _WHERE_GRADS[tensor]},
                   node="WhereBackward0", fn=False, method=False)


WHERE_SCALAR_OTHER = _where_scalar_row("ScalarOther", "input", "other")
WHERE_SCALAR_SELF = _where_scalar_row("ScalarSelf", "other", "input")
WHERE_SCALAR = deffunc(
    "where", overload="Scalar", params=("condition",), kernels=("where",),
    forward=lambda c, odt, dev, x, y, dtype: _where_data(c, x, y, odt, dev, True, True),
    dtype=_where_dtype, shape=lambda c, x, y, dtype: tuple(c), args=("input", "other", "dtype"),
    fn=False, method=False)


_NOT_GIVEN = object()
_WHERE_FORMS = (" * (Tensor condition)\n"
                " * (Tensor condition, Tensor input, Tensor other, *, Tensor out = None)\n"
                " * (Tensor condition, Number self, Tensor other)\n"
                " * (Tensor condition, Tensor input, Number other)\n"
                " * (Tensor condition, Number self, Number other)\n")


def _is_value(a):
    """A ``where`` operand PyTorch takes: a tensor or a number (NumPy's scalars too)."""
    return a.__class__ is Tensor or isinstance(a, (Tensor, numbers.Number, np.bool_))


def _where_condition(condition, input, other):
    """``condition`` as a bool tensor, after PyTorch's checks (a uint8 one is read as its
    nonzeros, with PyTorch's deprecation warning once)."""
    if not (condition.__class__ is Tensor and input is not _NOT_GIVEN
            and other is not _NOT_GIVEN and _is_value(input) and _is_value(other)):
        got = ", ".join("Tensor" if isinstance(a, Tensor) else type_name(a)
                        for a in (condition, input, other) if a is not _NOT_GIVEN)
        raise TypeError(f"where() received an invalid combination of arguments - got ({got}), "
                        f"but expected one of:\n{_WHERE_FORMS}")
    if condition._dtype is _dt.uint8:
        warn_once("where uint8", "where received a uint8 condition tensor. This behavior is "
                  "deprecated and will be removed in a future version of PyTorch. Use a "
                  "boolean condition instead.", stacklevel=3)
        return ne(condition.detach(), 0)
    if condition._dtype is not _dt.bool_:
        raise RuntimeError("where expected condition to be a boolean tensor, but got a tensor "
                           f"with dtype {condition._dtype.scalar_type}")
    return condition


@surface(WHERE, WHERE_SCALAR_OTHER, WHERE_SCALAR_SELF, WHERE_SCALAR)
def where(condition, input=_NOT_GIVEN, other=_NOT_GIVEN):
    r"""The elements of ``input`` where ``condition`` holds, and of ``other`` elsewhere.

    .. math::
        \text{out}_i = \begin{cases}
            \text{input}_i & \text{if } \text{condition}_i \\
            \text{other}_i & \text{otherwise}
        \end{cases}

    The three broadcast together; ``input`` and ``other`` may be numbers, and their dtypes
    are promoted. Gradients flow to ``input`` where the condition holds and to ``other``
    elsewhere.

    ``where(condition)`` alone is ``nonzero(condition, as_tuple=True)``.

    Args:
        condition (Tensor): a bool tensor: where to take ``input`` (a uint8 tensor is read
            as its nonzeros, with PyTorch's deprecation warning).
        input (Tensor or Number): the values taken where ``condition`` is ``True``.
        other (Tensor or Number): the values taken where ``condition`` is ``False``.

    Returns:
        Tensor: a tensor of the broadcast shape.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([-1.0, 2.0])
        >>> nbgrad.where(x > 0, x, 0.0)
        tensor([0., 2.])
    """
    if input is _NOT_GIVEN and other is _NOT_GIVEN:  # where(condition): its nonzeros
        from .condition import nonzero

        if not isinstance(condition, Tensor):
            raise TypeError("where(): argument 'condition' (position 1) must be Tensor, not "
                            f"{type(condition).__name__}")
        return nonzero(condition, as_tuple=True)
    condition = _where_condition(condition, input, other)
    if isinstance(input, np.generic):  # (NumPy's scalars as the numbers they hold)
        input = input.item()
    if isinstance(other, np.generic):
        other = other.item()
    same_device("where", condition, input, other)
    dt = promote(input, other)
    if input.__class__ is Tensor:
        if other.__class__ is Tensor:
            return WHERE.call(condition, input, other, dt)
        return WHERE_SCALAR_OTHER.call(condition, input, other, dt)
    if other.__class__ is Tensor:
        return WHERE_SCALAR_SELF.call(condition, other, input, dt)
    return WHERE_SCALAR.call(condition, input, other, dt)


# ----- clamp: PyTorch's clamp (number bounds, ClampBackward1) and clamp.Tensor (tensor
# bounds, ClampBackward0); the backward step per bound is one fused pass (clamp_grad) ------
def clamp_backward(grad, input, min, max):
    """d/d input of clamp: ``grad`` where ``min <= input <= max``, else 0 (nothing where a
    NaN is involved): one ``clamp_grad`` pass per bound."""
    if min is not None:
        grad = clamp_grad(grad, input, min, "min")
    if max is not None:
        grad = clamp_grad(grad, input, max, "max")
    return grad


def clamp_backward_min(grad, input, min, max):
    """d/d min of clamp.Tensor: ``grad`` where ``input < min`` (and ``min < max``)."""
    to_lo = lt(input, min) if max is None else logical_and(lt(input, min), lt(min, max))
    return sum_to(where(to_lo, grad, 0.0), min.shape)


def clamp_backward_max(grad, input, min, max):
    """d/d max of clamp.Tensor: ``grad`` where ``input > max`` (or ``max < min``)."""
    to_hi = gt(input, max) if min is None else logical_or(gt(input, max), lt(max, min))
    return sum_to(where(to_hi, grad, 0.0), max.shape)


def _clamp_data(x, lo, hi, odt, dev):
    # (the front passes at least one bound)
    out = x
    if lo is not None:
        out = binary_data("clamp_min", out, lo, odt, odt, dev)
    if hi is not None:
        out = binary_data("clamp_max", out, hi, odt, odt, dev)
    return out


def _clamp_shape(*shapes):
    return _where_shape(*[s for s in shapes if s is not None])


CLAMP = deffunc("clamp", kernels=("clamp_min", "clamp_max"),
                forward=lambda x, odt, dev, lo, hi, dtype: _clamp_data(x, lo, hi, odt, dev),
                dtype=lambda x, lo, hi, dtype: dtype, shape=same_shape,
                args=("min", "max", "dtype"), grads=("clamp_backward(grad, input, min, max)",),
                node="ClampBackward1", fn=False, method=False)
CLAMP_TENSOR = deffunc(
    "clamp", overload="Tensor", params=("input", "min", "max"), optional=("min", "max"),
    kernels=("clamp_min", "clamp_max"),
    forward=lambda x, lo, hi, odt, dev, dtype: _clamp_data(x, lo, hi, odt, dev),
    dtype=lambda x, lo, hi, dtype: dtype,
    shape=lambda s, lo, hi, dtype: _clamp_shape(s, lo, hi), args=("dtype",),
    grads={"input": "clamp_backward(grad, input, min, max)",
           "min": "clamp_backward_min(grad, input, min, max)",
           "max": "clamp_backward_max(grad, input, min, max)"},
    node="ClampBackward0", fn=False, method=False)


@surface(CLAMP, CLAMP_TENSOR)
def clamp(input, min=None, max=None):
    r"""Clamp the elements of ``input`` into the range ``[min, max]``.

    .. math::
        y_i = \min(\max(x_i, \text{min}_i), \text{max}_i)

    Either bound may be left out (``None``), not both; a bound may be a number or a tensor
    that broadcasts with ``input``. Where ``min`` is greater than ``max`` the result is
    ``max``. The gradient flows to ``input`` where it lies within the bounds.
    :func:`nbgrad.clip` is another name for it.

    Args:
        input (Tensor): the input tensor.
        min (Number or Tensor, optional): the lower bound. Default: ``None``, none.
        max (Number or Tensor, optional): the upper bound. Default: ``None``, none.

    Example::

        >>> import nbgrad
        >>> nbgrad.clamp(nbgrad.tensor([-2.0, 0.5, 3.0]), min=0.0, max=1.0)
        tensor([0.0000, 0.5000, 1.0000])
        >>> nbgrad.clip(nbgrad.tensor([-2.0, 0.5, 3.0]), max=1.0)
        tensor([-2.0000,  0.5000,  1.0000])
    """
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    t_lo, t_hi = min.__class__ is Tensor, max.__class__ is Tensor
    dt = _dt.result_type([t for t in (input, min, max) if t.__class__ is Tensor],
                         [v for v in (min, max) if v is not None and v.__class__ is not Tensor])
    if not (t_lo or t_hi):
        for v in (min, max):
            if v is not None:
                promote(input, v)  # (PyTorch's TypeError for a bound that is no number)
        return CLAMP.call(input, min, max, dt)
    same_device("clamp", input, min, max)
    # a number beside a tensor bound becomes a 0-d tensor, as PyTorch's clamp.Tensor takes it
    lo = min if t_lo or min is None else _wrap_number(min, input)
    hi = max if t_hi or max is None else _wrap_number(max, input)
    return CLAMP_TENSOR.call(input, lo, hi, dt)


def _wrap_number(v, like):
    from ..creation import tensor

    return tensor(v, device=like._device)


def _clamp_grad_data(g, x, bound, odt, dev, dtype, side, num):
    # input and bound compared in their promoted dtype (``dtype``), grad passed through in
    # it; the result in grad's dtype (``odt``)
    be = backend(dev)
    shape = tuple(g.shape)
    for v in (x,) if num else (x, bound):
        shape = broadcast_shapes(shape, tuple(v.shape))
    arrs = [cast_data(g, dtype, dev), cast_data(x, dtype, dev),
            be.full((), bound, dtype.np) if num else cast_data(bound, dtype, dev)]
    res = ternary_data("clamp_min_backward" if side == "min" else "clamp_max_backward", arrs,
                       shape, dtype, be, dev, bound if num else None)
    return cast_data(res, odt, dev)


def _clamp_grad_rows(side):
    kname = f"clamp_{side}_backward"
    grads = {"grad_output": f"clamp_grad(grad, input, bound, {side!r})"}
    tensor = deffunc(
        "clamp_grad", overload=side, params=("grad_output", "input", "bound"),
        kernels=(kname,), forward=lambda g, x, b, odt, dev, dtype: _clamp_grad_data(
            g, x, b, odt, dev, dtype, side, False),
        dtype=lambda g, x, b, dtype: g, shape=lambda g, x, b, dtype: _where_shape(g, x, b),
        args=("dtype",), grads=grads, node="WhereBackward0", torch_names={}, fn=False,
        method=False)
    scalar = deffunc(
        "clamp_grad", overload=side + "_Scalar", params=("grad_output", "input"),
        kernels=(kname,), forward=lambda g, x, odt, dev, b, dtype: _clamp_grad_data(
            g, x, b, odt, dev, dtype, side, True),
        dtype=lambda g, x, b, dtype: g, shape=lambda g, x, b, dtype: _where_shape(g, x),
        args=("bound", "dtype"), grads=grads, node="WhereBackward0", torch_names={},
        fn=False, method=False)
    return tensor, scalar


CLAMP_GRAD = {side: _clamp_grad_rows(side) for side in ("min", "max")}


@surface(*[row for pair in CLAMP_GRAD.values() for row in pair])
def clamp_grad(grad, input, bound, side):
    """``grad`` where ``input >= bound`` (``side='min'``) or ``input <= bound`` (``'max'``),
    else 0, in one pass: clamp's backward step (its derivative in ``grad`` is itself; its
    node is named as PyTorch's there, whose clamp_backward is a ``where``)."""
    dt = promote(input, bound)
    tensor, scalar = CLAMP_GRAD[side]
    if bound.__class__ is Tensor:
        return tensor.call(grad, input, bound, dt)
    return scalar.call(grad, input, bound, dt)


# ----- masked_fill: where with the fill as its input; tril / triu: where with a band mask --


def _fill_data(x, mask, value, odt, dev, number):
    return _where_data(mask, value, x, odt, dev, x_num=number)


MASKED_FILL = deffunc(
    "masked_fill", overload="Scalar", params=("input", "mask"), kernels=("where",),
    forward=lambda x, m, odt, dev, value: _fill_data(x, m, value, odt, dev, True),
    dtype=lambda x, m, value: x, shape=lambda x, m, value: _where_shape(x, m),
    args=("value",), grads={"input": "where(mask, 0.0, grad)", "mask": None},
    node="MaskedFillBackward0", fn=False, method=False)
MASKED_FILL_TENSOR = deffunc(
    "masked_fill", overload="Tensor", params=("input", "mask", "value"), kernels=("where",),
    forward=lambda x, m, v, odt, dev: _fill_data(x, m, v, odt, dev, False),
    dtype=lambda x, m, v: x, shape=lambda x, m, v: _where_shape(x, m),
    grads={"input": "where(mask, 0.0, grad)", "mask": None,
           "value": "where(mask, grad, 0.0).sum()"},
    node="MaskedFillBackward1", fn=False, method=False)


@surface(MASKED_FILL, MASKED_FILL_TENSOR)
def masked_fill(input, mask, value):
    """A copy of ``input`` with ``value`` written where ``mask`` is ``True``.

    ``mask`` broadcasts to ``input``'s shape (the result has ``input``'s shape); ``value``
    is cast to ``input``'s dtype. The gradient flows to ``input`` where the mask is
    ``False`` (and to a tensor ``value`` where it is ``True``). ``input.masked_fill_``
    writes in place.

    Args:
        input (Tensor): the input tensor.
        mask (Tensor): a bool tensor: where to write ``value``.
        value (Number or Tensor): the value to write (a number or a 0-dim tensor).

    Example::

        >>> import nbgrad
        >>> scores = nbgrad.zeros(2, 2)
        >>> scores.masked_fill(nbgrad.tril(nbgrad.ones(2, 2)) == 0, float("-inf"))
        tensor([[0., -inf],
                [0., 0.]])
        >>> nbgrad.masked_fill(nbgrad.tensor([1.0, 2.0, 3.0]),
        ...                    nbgrad.tensor([True, False, True]), 0.0)
        tensor([0., 2., 0.])
    """
    if input.__class__ is not Tensor or mask.__class__ is not Tensor:
        bad = "input" if input.__class__ is not Tensor else "mask"
        raise TypeError(f"masked_fill(): argument '{bad}' must be Tensor, "
                        f"not {type(input if bad == 'input' else mask).__name__}")
    if mask._dtype is not _dt.bool_:
        raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with "
                           f"dtype {mask._dtype.cpp}")
    same_device("masked_fill", input, mask, value)
    shape = _where_shape(input.shape, mask.shape)
    if shape != tuple(input.shape):  # (as PyTorch: the input expanded, then filled)
        from .shape import expand

        input = expand(input, shape)
    if value.__class__ is Tensor:
        if value.ndim:
            raise RuntimeError("masked_fill_ only supports a 0-dimensional value tensor, but "
                               f"got tensor with {value.ndim} dimension(s).")
        return MASKED_FILL_TENSOR.call(input, mask, value)
    promote(input, value)  # (PyTorch's TypeError for a value that is no number)
    return MASKED_FILL.call(input, mask, value)


def _band(shape, diagonal, lower, dev):
    """The bool mask of ``shape``'s last two dims that tril (``lower``) or triu keeps."""
    n, m = shape[-2], shape[-1]
    keep = np.tri(n, m, diagonal, dtype=bool) if lower else ~np.tri(n, m, diagonal - 1,
                                                                       dtype=bool)
    return backend(dev).from_host(keep)


def _band_row(name, lower):
    return deffunc(
        name, kernels=("where",), args=("diagonal",), dtype=same_dtype, shape=same_shape,
        forward=lambda x, odt, dev, diagonal: _where_data(
            _band(x.shape, diagonal, lower, dev), x, 0, odt, dev, y_num=True),
        grads=(f"{name}(grad, diagonal)",), fn=False, method=False)


TRIL, TRIU = _band_row("tril", True), _band_row("triu", False)


def _banded(row):
    name = row.name

    @surface(row)
    def band(input, diagonal=0):
        check_tensor(input, name)
        if input.ndim < 2:
            raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
        return row.call(input, int(diagonal))

    band.__name__ = band.__qualname__ = name
    return band


tril = _banded(TRIL)
tril.__doc__ = """The lower triangle of the matrices in ``input``, the other elements set to 0.

    The matrices are the last two dimensions (the others are batch dimensions). The
    elements kept are those on and below the ``diagonal``-th diagonal: 0 is the main
    diagonal, a positive ``diagonal`` is above it, a negative one below.

    Args:
        input (Tensor): the input tensor, of at least 2 dimensions.
        diagonal (int, optional): the diagonal on and below which elements are kept.
            Default: ``0``.

    Example::

        >>> import nbgrad
        >>> nbgrad.tril(nbgrad.ones(2, 3))
        tensor([[1., 0., 0.],
                [1., 1., 0.]])
        >>> nbgrad.tril(nbgrad.ones(3, 3), diagonal=-1)
        tensor([[0., 0., 0.],
                [1., 0., 0.],
                [1., 1., 0.]])
    """
triu = _banded(TRIU)
triu.__doc__ = """The upper triangle of the matrices in ``input``, the other elements set to 0.

    The matrices are the last two dimensions (the others are batch dimensions). The
    elements kept are those on and above the ``diagonal``-th diagonal: 0 is the main
    diagonal, a positive ``diagonal`` is above it, a negative one below. It is the
    complement of ``tril(input, diagonal - 1)``.

    Args:
        input (Tensor): the input tensor, of at least 2 dimensions.
        diagonal (int, optional): the diagonal on and above which elements are kept.
            Default: ``0``.

    Example::

        >>> import nbgrad
        >>> nbgrad.triu(nbgrad.ones(2, 3), diagonal=1)
        tensor([[0., 1., 1.],
                [0., 0., 1.]])
    """
