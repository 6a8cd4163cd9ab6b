"""Docstrings of the arithmetic rows of the elementwise op table (``ops/elementwise.py``)."""

from ..ops import elementwise as E
from . import add_docstr

add_docstr(E.add, r"""Add ``other``, scaled by ``alpha``, to ``input``.

    .. math::
        \text{out}_i = \text{input}_i + \text{alpha} \times \text{other}_i

    The operands broadcast together and their dtypes are promoted as in PyTorch (an integer
    tensor plus a float number gives a float tensor). ``input + other`` calls this function.

    Args:
        {input}
        {other}
        alpha (Number, optional): the multiplier of ``other`` (an integer for integer
            operands). Default: ``1``.

    Returns:
        Tensor: the sum, of the broadcast shape.

    Example::

        >>> import nbgrad
        >>> a = nbgrad.tensor([1.0, 2.0, 3.0])
        >>> nbgrad.add(a, 10)
        tensor([11., 12., 13.])
        >>> nbgrad.add(a, nbgrad.tensor([[1.0], [2.0]]), alpha=10)
        tensor([[11., 12., 13.],
                [21., 22., 23.]])
    """)

add_docstr(E.sub, r"""Subtract ``other``, scaled by ``alpha``, from ``input``.

    .. math::
        \text{out}_i = \text{input}_i - \text{alpha} \times \text{other}_i

    The operands broadcast together and their dtypes are promoted. Subtracting bool tensors
    is an error (use :func:`nbgrad.logical_xor` or ``~``). ``input - other`` calls this
    function, and :func:`nbgrad.subtract` is another name for it.

    Args:
        {input}
        {other}
        alpha (Number, optional): the multiplier of ``other``. Default: ``1``.

    Returns:
        Tensor: the difference, of the broadcast shape.

    Example::

        >>> import nbgrad
        >>> a = nbgrad.tensor([5.0, 6.0])
        >>> nbgrad.sub(a, nbgrad.tensor([1.0, 2.0]), alpha=2)
        tensor([3., 2.])
        >>> nbgrad.subtract(a, 1)
        tensor([4., 5.])
    """)

add_docstr(E.rsub, r"""Subtract ``input``, scaled by ``alpha``, from ``other``: the operands of
    :func:`nbgrad.sub` the other way round.

    .. math::
        \text{out}_i = \text{other}_i - \text{alpha} \times \text{input}_i

    Args:
        {input}
        {other}
        alpha (Number, optional): the multiplier of ``input``. Default: ``1``.

    Example::

        >>> import nbgrad
        >>> nbgrad.rsub(nbgrad.tensor([1.0, 2.0]), 10)
        tensor([9., 8.])
        >>> nbgrad.rsub(nbgrad.tensor([1.0, 2.0]), 10, alpha=3)
        tensor([7., 4.])
    """)

add_docstr(E.mul, r"""Multiply ``input`` by ``other``, element by element.

    .. math::
        \text{out}_i = \text{input}_i \times \text{other}_i

    The operands broadcast together and their dtypes are promoted. ``input * other`` calls
    this function, and :func:`nbgrad.multiply` is another name for it.

    Args:
        {input}
        {other}

    Returns:
        Tensor: the product, of the broadcast shape.

    Example::

        >>> import nbgrad
        >>> a = nbgrad.tensor([1.0, 2.0, 3.0])
        >>> nbgrad.mul(a, 2)
        tensor([2., 4., 6.])
        >>> nbgrad.multiply(a, nbgrad.tensor([[1.0], [-1.0]]))
        tensor([[ 1.,  2.,  3.],
                [-1., -2., -3.]])
    """)

add_docstr(E.div, r"""Divide ``input`` by ``other``, element by element.

    .. math::
        \text{out}_i = \frac{\text{input}_i}{\text{other}_i}

    Without a ``rounding_mode`` this is true division: integer operands give a tensor of the
    default floating dtype. With one, the quotient is rounded and keeps the operands'
    promoted dtype (integers stay integers; an integer division by zero raises). ``input /
    other`` calls this function, and :func:`nbgrad.divide` is another name for it.

    Args:
        input (Tensor or Number): the dividend.
        other (Tensor or Number): the divisor, broadcast with ``input``.
        rounding_mode (str, optional): ``None`` for true division, ``"trunc"`` to round
            the quotient towards zero (C's integer division), ``"floor"`` to round it down
            (Python's ``//``, as :func:`nbgrad.floor_divide`). Default: ``None``.

    Returns:
        Tensor: the quotient, of the broadcast shape.

    Example::

        >>> import nbgrad
        >>> a = nbgrad.tensor([7, -7])
        >>> nbgrad.div(a, 2)
        tensor([ 3.5000, -3.5000])
        >>> nbgrad.div(a, 2, rounding_mode="trunc"), nbgrad.divide(a, 2, rounding_mode="floor")
        (tensor([ 3, -3]), tensor([ 3, -4]))
    """)

add_docstr(E.floor_divide, r"""Divide ``input`` by ``other`` and round the quotient down (towards
    minus infinity), as Python's ``//``.

    The same as ``div(input, other, rounding_mode="floor")``, in the operands' promoted dtype
    (an integer division by zero raises). ``input // other`` calls this function. It has no
    derivative: a backward pass through it raises, as in PyTorch.

    Args:
        input (Tensor or Number): the dividend.
        other (Tensor or Number): the divisor, broadcast with ``input``.

    Example::

        >>> import nbgrad
        >>> nbgrad.floor_divide(nbgrad.tensor([7, -7]), 2)
        tensor([ 3, -4])
        >>> nbgrad.floor_divide(nbgrad.tensor([7.5, -7.5]), 2)
        tensor([ 3., -4.])
    """)

add_docstr(E.remainder, r"""The remainder of ``input`` divided by ``other``, with Python's sign
    convention: a nonzero result has the sign of the divisor ``other``.

    .. math::
        \text{out}_i = \text{input}_i - \left\lfloor \frac{\text{input}_i}{\text{other}_i}
        \right\rfloor \times \text{other}_i

    ``input % other`` calls this function; :func:`nbgrad.fmod` is the remainder with C's
    convention (the sign of the dividend). An integer division by zero raises.

    Args:
        input (Tensor or Number): the dividend.
        other (Tensor or Number): the divisor, broadcast with ``input``.

    Example::

        >>> import nbgrad
        >>> nbgrad.remainder(nbgrad.tensor([-3, -2, -1, 1, 2, 3]), 2)
        tensor([1, 0, 1, 1, 0, 1])
        >>> nbgrad.remainder(nbgrad.tensor([5.0, -5.0]), -1.5)
        tensor([-1.0000, -0.5000])
    """)

add_docstr(E.fmod, r"""The remainder of ``input`` divided by ``other``, with C's sign
    convention (``fmod``): a nonzero result has the sign of the dividend ``input``.

    .. math::
        \text{out}_i = \text{input}_i - \operatorname{trunc}\left(\frac{\text{input}_i}
        {\text{other}_i}\right) \times \text{other}_i

    :func:`nbgrad.remainder` is the remainder with Python's convention. An integer division
    by zero raises.

    Args:
        input (Tensor): the dividend.
        other (Tensor or Number): the divisor, broadcast with ``input``.

    Example::

        >>> import nbgrad
        >>> nbgrad.fmod(nbgrad.tensor([-3, -2, -1, 1, 2, 3]), 2)
        tensor([-1,  0, -1,  1,  0,  1])
        >>> nbgrad.fmod(nbgrad.tensor([5.0, -5.0]), -1.5)
        tensor([ 0.5000, -0.5000])
    """)

add_docstr(E.pow, r"""Raise ``input`` to the power ``exponent``, element by element.

    .. math::
        \text{out}_i = \text{input}_i ^ {\text{exponent}_i}

    Either operand may be a number (not both); tensors broadcast together and dtypes are
    promoted. An integer tensor raised to a negative integer number raises an error.
    ``input ** exponent`` and ``number ** tensor`` call this function.

    Args:
        input (Tensor or Number): the base.
        exponent (Tensor or Number): the exponent.

    Returns:
        Tensor: the powers, of the broadcast shape.

    Example::

        >>> import nbgrad
        >>> a = nbgrad.tensor([1.0, 2.0, 3.0])
        >>> nbgrad.pow(a, 2)
        tensor([1., 4., 9.])
        >>> nbgrad.pow(a, nbgrad.tensor([3.0, 2.0, 1.0]))
        tensor([1., 4., 3.])
        >>> nbgrad.pow(2, a)
        tensor([2., 4., 8.])
    """)

add_docstr(E.neg, r"""The negative of each element, ``-input``.

    ``-input`` calls this function, and :func:`nbgrad.negative` is another name for it.
    Negating a bool tensor is an error (use ``~`` or :func:`nbgrad.logical_not`).

    Args:
        {input}

    Example::

        >>> import nbgrad
        >>> nbgrad.neg(nbgrad.tensor([1.5, 0.0, -2.0]))
        tensor([-1.5000, -0.0000,  2.0000])
        >>> nbgrad.negative(nbgrad.tensor([1, -2]))
        tensor([-1,  2])
    """)

add_docstr(E.reciprocal, r"""The reciprocal of each element, ``1 / input``.

    An integer input gives a tensor of the default floating dtype; the reciprocal of 0 is
    ``inf``.

    Args:
        {input}

    Example::

        >>> import nbgrad
        >>> nbgrad.reciprocal(nbgrad.tensor([2.0, -0.5, 0.0]))
        tensor([ 0.5000, -2.0000,     inf])
        >>> nbgrad.reciprocal(nbgrad.tensor([4]))
        tensor([0.2500])
    """)

add_docstr(E.abs, r"""The absolute value of each element.

    .. math::
        \text{out}_i = |\text{input}_i|

    ``abs(input)`` (Python's builtin) calls this function, and :func:`nbgrad.absolute` is
    another name for it. Its gradient at 0 is 0. Bool tensors are not supported.

    Args:
        {input}

    Example::

        >>> import nbgrad
        >>> nbgrad.abs(nbgrad.tensor([-1.5, 0.0, 2.0]))
        tensor([1.5000, 0.0000, 2.0000])
        >>> nbgrad.absolute(nbgrad.tensor([-3, 4]))
        tensor([3, 4])
    """)

add_docstr(E.sign, r"""The sign of each element: -1 for a negative one, 0 for zero, 1 for a
    positive one (in ``input``'s dtype).

    :func:`nbgrad.sgn` is another name for it (in PyTorch it differs for complex tensors,
    which nbgrad does not have). Its gradient is zero.

    Args:
        {input}

    Example::

        >>> import nbgrad
        >>> nbgrad.sign(nbgrad.tensor([-2.5, 0.0, 3.0]))
        tensor([-1.,  0.,  1.])
        >>> nbgrad.sgn(nbgrad.tensor([-7, 0, 7]))
        tensor([-1,  0,  1])
    """)

add_docstr(E.clamp_min, r"""Raise each element below ``min`` to ``min``: ``clamp(input,
    min=min)``.

    Args:
        {input}
        min (Number or Tensor): the lower bound (a tensor broadcasts with ``input``).

    Example::

        >>> import nbgrad
        >>> nbgrad.clamp_min(nbgrad.tensor([-1.0, 0.5, 2.0]), 0.0)
        tensor([0.0000, 0.5000, 2.0000])
    """)

add_docstr(E.clamp_max, r"""Lower each element above ``max`` to ``max``: ``clamp(input,
    max=max)``.

    Args:
        {input}
        max (Number or Tensor): the upper bound (a tensor broadcasts with ``input``).

    Example::

        >>> import nbgrad
        >>> nbgrad.clamp_max(nbgrad.tensor([-1.0, 0.5, 2.0]), 1.0)
        tensor([-1.0000,  0.5000,  1.0000])
    """)

add_docstr(E.maximum, r"""The larger of ``input`` and ``other``, element by element.

    A NaN on either side gives NaN (:func:`nbgrad.fmax` ignores it instead). Where the two
    are equal, the gradient is shared between them in halves.

    Args:
        {input}
        {other_tensor}

    Example::

        >>> import nbgrad
        >>> nbgrad.maximum(nbgrad.tensor([1.0, 5.0, float("nan")]),
        ...                nbgrad.tensor([3.0, 2.0, 0.0]))
        tensor([3., 5., nan])
    """)

add_docstr(E.minimum, r"""The smaller of ``input`` and ``other``, element by element.

    A NaN on either side gives NaN (:func:`nbgrad.fmin` ignores it instead). Where the two
    are equal, the gradient is shared between them in halves.

    Args:
        {input}
        {other_tensor}

    Example::

        >>> import nbgrad
        >>> nbgrad.minimum(nbgrad.tensor([1.0, 5.0, float("nan")]),
        ...                nbgrad.tensor([3.0, 2.0, 0.0]))
        tensor([1., 2., nan])
    """)

add_docstr(E.fmax, r"""The larger of ``input`` and ``other``, element by element, ignoring NaN:
    where one side is NaN the other is taken (NaN only where both are), as C's ``fmax``.

    Where the two are equal, the gradient goes to ``input``.

    Args:
        {input}
        {other_tensor}

    Example::

        >>> import nbgrad
        >>> nbgrad.fmax(nbgrad.tensor([1.0, 5.0, float("nan")]),
        ...             nbgrad.tensor([3.0, float("nan"), 0.0]))
        tensor([3., 5., 0.])
    """)

add_docstr(E.fmin, r"""The smaller of ``input`` and ``other``, element by element, ignoring NaN:
    where one side is NaN the other is taken (NaN only where both are), as C's ``fmin``.

    Where the two are equal, the gradient goes to ``input``.

    Args:
        {input}
        {other_tensor}

    Example::

        >>> import nbgrad
        >>> nbgrad.fmin(nbgrad.tensor([1.0, 5.0, float("nan")]),
        ...             nbgrad.tensor([3.0, float("nan"), 0.0]))
        tensor([1., 5., 0.])
    """)


add_docstr(E.bitwise_and, r"""The bitwise and of ``input`` and ``other``, ``input & other``.

    For integer tensors it works on the bits (two's complement); for bool tensors it is the
    logical and. Floating-point operands are an error. There is no gradient.

    Args:
        input (Tensor): an integer or bool tensor.
        other (Tensor or int or bool): the second operand, broadcast with ``input``.

    Example::

        >>> import nbgrad
        >>> nbgrad.bitwise_and(nbgrad.tensor([12, -1, 5]), nbgrad.tensor([10, 7, 0]))
        tensor([8, 7, 0])
        >>> nbgrad.bitwise_and(nbgrad.tensor([True, True]), nbgrad.tensor([True, False]))
        tensor([ True, False])
    """)

add_docstr(E.bitwise_or, r"""The bitwise or of ``input`` and ``other``, ``input | other``.

    For integer tensors it works on the bits (two's complement); for bool tensors it is the
    logical or. Floating-point operands are an error. There is no gradient.

    Args:
        input (Tensor): an integer or bool tensor.
        other (Tensor or int or bool): the second operand, broadcast with ``input``.

    Example::

        >>> import nbgrad
        >>> nbgrad.bitwise_or(nbgrad.tensor([12, -1, 5]), nbgrad.tensor([10, 7, 0]))
        tensor([14, -1,  5])
        >>> nbgrad.bitwise_or(nbgrad.tensor([True, False]), False)
        tensor([ True, False])
    """)

add_docstr(E.bitwise_xor, r"""The bitwise exclusive or of ``input`` and ``other``, ``input ^
    other``.

    For integer tensors it works on the bits (two's complement); for bool tensors it is the
    logical exclusive or. Floating-point operands are an error. There is no gradient.

    Args:
        input (Tensor): an integer or bool tensor.
        other (Tensor or int or bool): the second operand, broadcast with ``input``.

    Example::

        >>> import nbgrad
        >>> nbgrad.bitwise_xor(nbgrad.tensor([12, -1, 5]), nbgrad.tensor([10, 7, 0]))
        tensor([ 6, -8,  5])
        >>> nbgrad.bitwise_xor(nbgrad.tensor([True, False]), True)
        tensor([False,  True])
    """)

add_docstr(E.bitwise_left_shift, r"""Shift the bits of ``input`` left by ``other`` places,
    ``input << other``.

    For an integer input this is multiplication by ``2 ** other`` in the promoted integer
    dtype (bits shifted past the width are lost); a shift by a negative amount or by the
    dtype's width or more gives 0. There is no gradient.

    Args:
        input (Tensor or int): the integer values to shift.
        other (Tensor or int): the number of places, broadcast with ``input``.

    Example::

        >>> import nbgrad
        >>> nbgrad.bitwise_left_shift(nbgrad.tensor([1, -3, 5]), nbgrad.tensor([1, 2, 3]))
        tensor([  2, -12,  40])
        >>> nbgrad.bitwise_left_shift(nbgrad.tensor([1], dtype=nbgrad.int8), 7)
        tensor([-128], dtype=nbgrad.int8)
    """)

add_docstr(E.bitwise_right_shift, r"""Shift the bits of ``input`` right by ``other`` places,
    ``input >> other``.

    An arithmetic shift: the sign bit is copied in, so it is division by ``2 ** other``
    rounded down. A shift by a negative amount or by the dtype's width or more gives 0 for
    a non-negative element and -1 for a negative one. There is no gradient.

    Args:
        input (Tensor or int): the integer values to shift.
        other (Tensor or int): the number of places, broadcast with ``input``.

    Example::

        >>> import nbgrad
        >>> nbgrad.bitwise_right_shift(nbgrad.tensor([16, -16, 5]), 2)
        tensor([ 4, -4,  1])
    """)
