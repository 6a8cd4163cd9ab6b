"""Elementwise functions PyTorch computes bit by bit, done on the host with NumPy's own
(the same integer and IEEE-754 results; no gradient, as PyTorch's): ``gcd lcm frexp
nextafter``. A device tensor makes a round trip."""

from collections import namedtuple

import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor
from .dispatch import promote
from .index import _host

frexp_result = namedtuple("frexp", ["mantissa", "exponent"])


def _on(values, dtype, like):
    from ..creation import tensor

    return tensor(np.asarray(values), dtype=dtype, device=like.device)


def _pair(name, input, other, floats):
    """The two operands' host arrays and the result dtype; PyTorch's error for a dtype the
    function has no kernel for."""
    if not isinstance(other, Tensor):
        other = _on(other, input.dtype, input)
    rt = promote(input, other)
    if rt.is_floating_point != floats or rt is _dt.bool_:
        raise RuntimeError(f"\"{name}_cpu\" not implemented for '{rt.scalar_type}'")
    return _host(input).astype(rt.np), _host(other).astype(rt.np), rt


def gcd(input, other):
    """Greatest common divisor of integers (non-negative; ``gcd(0, 0)`` is 0)."""
    a, b, rt = _pair("gcd", input, other, False)
    return _on(np.gcd(a, b), rt, input)


def lcm(input, other):
    """Least common multiple of integers (non-negative; 0 where either is 0)."""
    a, b, rt = _pair("lcm", input, other, False)
    return _on(np.lcm(a, b), rt, input)


def nextafter(input, other):
    """The next floating-point value after ``input`` towards ``other``."""
    a, b, rt = _pair("nextafter", input, other, True)
    if rt.low:
        raise RuntimeError(f"\"nextafter_cpu\" not implemented for '{rt.scalar_type}'")
    return _on(np.nextafter(a, b), rt, input)


def frexp(input):
    """``(mantissa, exponent)`` with ``input = mantissa * 2 ** exponent``, ``|mantissa|`` in
    [0.5, 1) (0 for 0); the exponent is int32."""
    if not input.dtype.is_floating_point:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    m, e = np.frexp(_host(input).astype(np.float64 if input.dtype.low else input.dtype.np))
    return frexp_result(_on(m, input.dtype, input), _on(e.astype(np.int32), _dt.int32, input))


__all__ = ["frexp", "gcd", "lcm", "nextafter"]
