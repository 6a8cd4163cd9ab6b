"""More elementwise math: log1p expm1 rsqrt sin cos tan erf clamp."""

import math

from ._core import Node, Tensor, needs_grad, record, save
from .elementwise import (
    SAVE_IN,
    SAVE_OUT,
    _binary,
    _unary_op,
    add,
    div,
    exp,
    ge,
    gt,
    le,
    logical_and,
    logical_or,
    lt,
    mul,
    neg,
    sum_to,
    where,
)


class Log1PBackward0(Node):
    __slots__ = ()

    def backward(self, saved, g):
        return (div(g, add(saved[0], 1.0)),)


def log1p(input):
    """``log(1 + input)``, accurate near 0."""
    return _unary_op("log1p", input, Log1PBackward0, SAVE_IN, True)


class Expm1Backward0(Node):
    __slots__ = ()

    def backward(self, saved, g):
        return (mul(g, add(saved[0], 1.0)),)


def expm1(input):
    """``exp(input) - 1``, accurate near 0."""
    return _unary_op("expm1", input, Expm1Backward0, SAVE_OUT, True)


class RsqrtBackward0(Node):
    __slots__ = ()

    def backward(self, saved, g):
        r = saved[0]
        return (mul(g, mul(mul(r, mul(r, r)), -0.5)),)


def rsqrt(input):
    """``1 / sqrt(input)``."""
    return _unary_op("rsqrt", input, RsqrtBackward0, SAVE_OUT, True)


class SinBackward0(Node):
    __slots__ = ()

    def backward(self, saved, g):
        return (mul(g, cos(saved[0])),)


def sin(input):
    """Elementwise sine."""
    return _unary_op("sin", input, SinBackward0, SAVE_IN, True)


class CosBackward0(Node):
    __slots__ = ()

    def backward(self, saved, g):
        return (mul(g, neg(sin(saved[0]))),)


def cos(input):
    """Elementwise cosine."""
    return _unary_op("cos", input, CosBackward0, SAVE_IN, True)


class TanBackward0(Node):
    __slots__ = ()

    def backward(self, saved, g):
        r = saved[0]
        return (mul(g, add(mul(r, r), 1.0)),)


def tan(input):
    """Elementwise tangent."""
    return _unary_op("tan", input, TanBackward0, SAVE_OUT, True)


class ErfBackward0(Node):
    __slots__ = ()

    def backward(self, saved, g):
        x = saved[0]
        return (mul(g, mul(exp(neg(mul(x, x))), 2.0 / math.sqrt(math.pi))),)


def erf(input):
    """The error function."""
    return _unary_op("erf", input, ErfBackward0, SAVE_IN, True)


class ClampBackward1(Node):
    """PyTorch's clamp_backward and clamp_backward_min_max: x gets the gradient where
    ``min <= x <= max``, min where ``x < min < max``, max where ``x > max`` or
    ``max < min`` (so nothing flows where a NaN is involved)."""

    __slots__ = ()

    def backward(self, saved, g):
        x, lo, hi = saved
        if lo is not None and hi is not None:
            in_x = logical_and(ge(x, lo), le(x, hi))
        elif lo is not None:
            in_x = ge(x, lo)
        else:
            in_x = le(x, hi)
        f = [e[0] for e in self.next_functions] + [None, None]
        gx = where(in_x, g, 0.0) if f[0] is not None else None
        glo = ghi = None
        if f[1] is not None:
            to_lo = lt(x, lo) if hi is None else logical_and(lt(x, lo), lt(lo, hi))
            glo = sum_to(where(to_lo, g, 0.0), lo.shape)
        if f[2] is not None:
            to_hi = gt(x, hi) if lo is None else logical_or(gt(x, hi), lt(hi, lo))
            ghi = sum_to(where(to_hi, g, 0.0), hi.shape)
        return (gx, glo, ghi)[: len(self.next_functions)]


def clamp(input, min=None, max=None):
    """Limit values to ``[min, max]`` (either may be None, a number or a tensor)."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    out = input
    from ..autograd.grad_mode import no_grad

    with no_grad():
        if min is not None:
            out = _binary("clamp_min", out, min)
        if max is not None:
            out = _binary("clamp_max", out, max)
    t_lo = isinstance(min, Tensor)
    t_hi = isinstance(max, Tensor)
    if needs_grad(input, min, max):
        ins = (input,) + ((min if t_lo else None,) if t_lo or t_hi else ()) + ((max,) if t_hi else ())
        record(ClampBackward1, out, ins, (save(input), save(min), save(max)))
    return out


def clamp_min(input, min):
    """``clamp(input, min=min)``."""
    return clamp(input, min=min)


def clamp_max(input, max):
    """``clamp(input, max=max)``."""
    return clamp(input, max=max)
