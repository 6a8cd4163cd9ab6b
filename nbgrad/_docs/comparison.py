"""Docstrings of the comparison rows of the elementwise op table (``ops/elementwise.py``)."""

from ..ops import elementwise as E
from . import add_docstr

add_docstr(E.eq, r"""Where ``input`` equals ``other``: ``input == other``, as a bool tensor.

    The operands broadcast together and are compared in their promoted dtype; a comparison
    with NaN is False. The ``==`` operator calls this function.

    Args:
        {input}
        other (Tensor or Number): the values to compare with, broadcast with ``input``.

    Returns:
        Tensor: a bool tensor of the broadcast shape.

    Example::

        >>> import nbgrad
        >>> a = nbgrad.tensor([1.0, 2.0, 3.0])
        >>> nbgrad.eq(a, nbgrad.tensor([2.0, 2.0, 2.0]))
        tensor([False,  True, False])
        >>> nbgrad.eq(a, 3)
        tensor([False, False,  True])
    """)

add_docstr(E.ne, r"""Where ``input`` differs from ``other``: ``input != other``, as a bool tensor.

    The operands broadcast together and are compared in their promoted dtype; a comparison
    with NaN is True. The ``!=`` operator calls this function.
    :func:`nbgrad.not_equal` is another name for it.

    Args:
        {input}
        other (Tensor or Number): the values to compare with, broadcast with ``input``.

    Returns:
        Tensor: a bool tensor of the broadcast shape.

    Example::

        >>> import nbgrad
        >>> a = nbgrad.tensor([1.0, 2.0, 3.0])
        >>> nbgrad.ne(a, nbgrad.tensor([2.0, 2.0, 2.0]))
        tensor([ True, False,  True])
        >>> nbgrad.not_equal(a, 3)
        tensor([ True,  True, False])
    """)

add_docstr(E.lt, r"""Where ``input`` is less than ``other``: ``input < other``, as a bool tensor.

    The operands broadcast together and are compared in their promoted dtype; a comparison
    with NaN is False. The ``<`` operator calls this function.
    :func:`nbgrad.less` is another name for it.

    Args:
        {input}
        other (Tensor or Number): the values to compare with, broadcast with ``input``.

    Returns:
        Tensor: a bool tensor of the broadcast shape.

    Example::

        >>> import nbgrad
        >>> a = nbgrad.tensor([1.0, 2.0, 3.0])
        >>> nbgrad.lt(a, nbgrad.tensor([2.0, 2.0, 2.0]))
        tensor([ True, False, False])
        >>> nbgrad.less(a, 3)
        tensor([ True,  True, False])
    """)

add_docstr(E.le, r"""Where ``input`` is at most ``other``: ``input <= other``, as a bool tensor.

    The operands broadcast together and are compared in their promoted dtype; a comparison
    with NaN is False. The ``<=`` operator calls this function.
    :func:`nbgrad.less_equal` is another name for it.

    Args:
        {input}
        other (Tensor or Number): the values to compare with, broadcast with ``input``.

    Returns:
        Tensor: a bool tensor of the broadcast shape.

    Example::

        >>> import nbgrad
        >>> a = nbgrad.tensor([1.0, 2.0, 3.0])
        >>> nbgrad.le(a, nbgrad.tensor([2.0, 2.0, 2.0]))
        tensor([ True,  True, False])
        >>> nbgrad.less_equal(a, 3)
        tensor([True, True, True])
    """)

add_docstr(E.gt, r"""Where ``input`` is greater than ``other``: ``input > other``, as a bool
    tensor.

    The operands broadcast together and are compared in their promoted dtype; a comparison
    with NaN is False. The ``>`` operator calls this function.
    :func:`nbgrad.greater` is another name for it.

    Args:
        {input}
        other (Tensor or Number): the values to compare with, broadcast with ``input``.

    Returns:
        Tensor: a bool tensor of the broadcast shape.

    Example::

        >>> import nbgrad
        >>> a = nbgrad.tensor([1.0, 2.0, 3.0])
        >>> nbgrad.gt(a, nbgrad.tensor([2.0, 2.0, 2.0]))
        tensor([False, False,  True])
        >>> nbgrad.greater(a, 3)
        tensor([False, False, False])
    """)

add_docstr(E.ge, r"""Where ``input`` is at least ``other``: ``input >= other``, as a bool tensor.

    The operands broadcast together and are compared in their promoted dtype; a comparison
    with NaN is False. The ``>=`` operator calls this function.
    :func:`nbgrad.greater_equal` is another name for it.

    Args:
        {input}
        other (Tensor or Number): the values to compare with, broadcast with ``input``.

    Returns:
        Tensor: a bool tensor of the broadcast shape.

    Example::

        >>> import nbgrad
        >>> a = nbgrad.tensor([1.0, 2.0, 3.0])
        >>> nbgrad.ge(a, nbgrad.tensor([2.0, 2.0, 2.0]))
        tensor([False,  True,  True])
        >>> nbgrad.greater_equal(a, 3)
        tensor([False, False,  True])
    """)
