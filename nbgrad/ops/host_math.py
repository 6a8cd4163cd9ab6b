"""Elementwise functions PyTorch computes bit by bit, done on the host with NumPy's own
(the same integer and IEEE-754 results; no gradient, as PyTorch's): ``gcd lcm frexp
nextafter``. A device tensor makes a round trip."""


import numpy as np

from .. import dtypes as _dt
from .. import return_types as RT
from ..tensor import Tensor
from .dispatch import promote
from .index import _host


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
    """The greatest common divisor of integers, elementwise.

    The result is non-negative, and ``gcd(0, 0)`` is 0.

    Args:
        input (Tensor): an integer tensor.
        other (Tensor or int): integers (broadcast with ``input``).

    Example::

        >>> import nbgrad
        >>> nbgrad.gcd(nbgrad.tensor([12, -9, 0]), nbgrad.tensor([18, 6, 0]))
        tensor([6, 3, 0])
    """
    a, b, rt = _pair("gcd", input, other, False)
    return _on(np.gcd(a, b), rt, input)


def lcm(input, other):
    """The least common multiple of integers, elementwise.

    The result is non-negative, and 0 where either operand is 0.

    Args:
        input (Tensor): an integer tensor.
        other (Tensor or int): integers (broadcast with ``input``).

    Example::

        >>> import nbgrad
        >>> nbgrad.lcm(nbgrad.tensor([4, -6, 5]), nbgrad.tensor([6, 4, 0]))
        tensor([12, 12,  0])
    """
    a, b, rt = _pair("lcm", input, other, False)
    return _on(np.lcm(a, b), rt, input)


def nextafter(input, other):
    """The next representable floating-point value after ``input`` in the direction of
    ``other``, elementwise.

    Args:
        input (Tensor): a floating-point tensor (float32 or float64).
        other (Tensor or float): the direction (broadcast with ``input``).

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([1.0, 1.0], dtype=nbgrad.float64)
        >>> nbgrad.nextafter(x, nbgrad.tensor([2.0, 0.0], dtype=nbgrad.float64)) - x
        tensor([ 2.2204e-16, -1.1102e-16], dtype=nbgrad.float64)
    """
    a, b, rt = _pair("nextafter", input, other, True)
    if rt.low:
        raise RuntimeError(f"\"nextafter_cpu\" not implemented for '{rt.scalar_type}'")
    return _on(np.nextafter(a, b), rt, input)


def frexp(input):
    """Split each element into a mantissa and an exponent of 2:
    ``input = mantissa * 2 ** exponent``.

    The mantissa's absolute value is in :math:`[0.5, 1)` (0 for 0).

    Args:
        input (Tensor): a floating-point tensor.

    Returns:
        (Tensor, IntTensor): a named tuple ``(mantissa, exponent)``; the mantissa has
        ``input``'s dtype and the exponent is int32.

    Example::

        >>> import nbgrad
        >>> mantissa, exponent = nbgrad.frexp(nbgrad.tensor([8.0, -3.0, 0.0]))
        >>> mantissa
        tensor([ 0.5000, -0.7500,  0.0000])
        >>> exponent
        tensor([4, 2, 0], dtype=nbgrad.int32)
    """
    if not input.dtype.is_floating_point:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    m, e = np.frexp(_host(input).astype(np.float64 if input.dtype.low else input.dtype.np))
    return RT.frexp(_on(m, input.dtype, input), _on(e.astype(np.int32), _dt.int32, input))


__all__ = ["frexp", "gcd", "lcm", "nextafter"]
