"""Docstrings of the elementwise math rows (``ops/elementwise.py``, ``ops/special_functions.py``):
exponentials and logarithms, roots, trigonometric and hyperbolic functions, the error and
gamma functions, rounding."""

from ..ops import elementwise as E
from ..ops import special_functions as SF
from . import add_docstr

# ----- exponentials and logarithms -------------------------------------------------------
add_docstr(E.exp, r"""The exponential of each element.

    .. math::
        \text{out}_i = e^{\text{input}_i}

    An integer input gives a tensor of the default floating dtype.

    Args:
        {input}

    Example::

        >>> import nbgrad
        >>> nbgrad.exp(nbgrad.tensor([0.0, 1.0, -1.0]))
        tensor([1.0000, 2.7183, 0.3679])
    """)

add_docstr(E.exp2, r"""Two to the power of each element.

    .. math::
        \text{out}_i = 2^{\text{input}_i}

    Args:
        {input}

    Example::

        >>> import nbgrad
        >>> nbgrad.exp2(nbgrad.tensor([0.0, 3.0, -1.0]))
        tensor([1.0000, 8.0000, 0.5000])
    """)

add_docstr(E.expm1, r"""The exponential of each element minus one, accurate for small inputs
    (where ``exp(input) - 1`` would lose the digits).

    .. math::
        \text{out}_i = e^{\text{input}_i} - 1

    Args:
        {input}

    Example::

        >>> import nbgrad
        >>> nbgrad.expm1(nbgrad.tensor([0.0, 1e-10, 1.0]))
        tensor([0.0000e+00, 1.0000e-10, 1.7183e+00])
    """)

add_docstr(E.log, r"""The natural logarithm of each element.

    .. math::
        \text{out}_i = \log_e(\text{input}_i)

    ``log(0)`` is ``-inf`` and the logarithm of a negative number is ``nan``. An integer
    input gives a tensor of the default floating dtype.

    Args:
        {input}

    Example::

        >>> import nbgrad
        >>> nbgrad.log(nbgrad.tensor([1.0, 2.718281828, 0.0, -1.0]))
        tensor([0., 1., -inf, nan])
    """)

add_docstr(E.log2, r"""The base-2 logarithm of each element.

    .. math::
        \text{out}_i = \log_2(\text{input}_i)

    Args:
        {input}

    Example::

        >>> import nbgrad
        >>> nbgrad.log2(nbgrad.tensor([1.0, 8.0, 0.5]))
        tensor([ 0.,  3., -1.])
    """)

add_docstr(E.log10, r"""The base-10 logarithm of each element.

    .. math::
        \text{out}_i = \log_{10}(\text{input}_i)

    Args:
        {input}

    Example::

        >>> import nbgrad
        >>> nbgrad.log10(nbgrad.tensor([1.0, 1000.0, 0.1]))
        tensor([ 0.,  3., -1.])
    """)

add_docstr(E.log1p, r"""The natural logarithm of one plus each element, accurate for small
    inputs (where ``log(1 + input)`` would lose the digits).

    .. math::
        \text{out}_i = \log_e(1 + \text{input}_i)

    Args:
        {input}

    Example::

        >>> import nbgrad
        >>> nbgrad.log1p(nbgrad.tensor([0.0, 1e-10, 1.0]))
        tensor([0.0000e+00, 1.0000e-10, 6.9315e-01])
    """)

# ----- roots ---------------------------------------------------------------------------
add_docstr(E.sqrt, r"""The square root of each element.

    .. math::
        \text{out}_i = \sqrt{\text{input}_i}

    The square root of a negative number is ``nan``. An integer input gives a tensor of the
    default floating dtype.

    Args:
        {input}

    Example::

        >>> import nbgrad
        >>> nbgrad.sqrt(nbgrad.tensor([4.0, 2.0, 0.0, -1.0]))
        tensor([2.0000, 1.4142, 0.0000,    nan])
    """)

add_docstr(E.rsqrt, r"""The reciprocal of the square root of each element.

    .. math::
        \text{out}_i = \frac{1}{\sqrt{\text{input}_i}}

    ``rsqrt(0)`` is ``inf`` and a negative element gives ``nan``.

    Args:
        {input}

    Example::

        >>> import nbgrad
        >>> nbgrad.rsqrt(nbgrad.tensor([4.0, 0.25, 0.0]))
        tensor([0.5000, 2.0000,    inf])
    """)

# ----- trigonometric and hyperbolic functions ------------------------------------------
add_docstr(E.sin, r"""The sine of each element (in radians).

    .. math::
        \text{out}_i = \sin(\text{input}_i)

    An integer input gives a tensor of the default floating dtype.

    Args:
        {input}

    Example::

        >>> import nbgrad, math
        >>> nbgrad.sin(nbgrad.tensor([0.0, math.pi / 6, math.pi / 2]))
        tensor([0.0000, 0.5000, 1.0000])
    """)

add_docstr(E.cos, r"""The cosine of each element (in radians).

    .. math::
        \text{out}_i = \cos(\text{input}_i)

    Args:
        {input}

    Example::

        >>> import nbgrad, math
        >>> nbgrad.cos(nbgrad.tensor([0.0, math.pi / 3, math.pi]))
        tensor([ 1.0000,  0.5000, -1.0000])
    """)

add_docstr(E.tan, r"""The tangent of each element (in radians).

    .. math::
        \text{out}_i = \tan(\text{input}_i)

    Args:
        {input}

    Example::

        >>> import nbgrad, math
        >>> nbgrad.tan(nbgrad.tensor([0.0, math.pi / 4, -math.pi / 4]))
        tensor([ 0.,  1., -1.])
    """)

add_docstr(E.asin, r"""The arcsine of each element, in radians in :math:`[-\pi/2, \pi/2]`.

    .. math::
        \text{out}_i = \sin^{-1}(\text{input}_i)

    An element outside ``[-1, 1]`` gives ``nan``. :func:`nbgrad.arcsin` is another name for
    it.

    Args:
        {input}

    Example::

        >>> import nbgrad
        >>> nbgrad.asin(nbgrad.tensor([0.0, 0.5, 1.0, 2.0]))
        tensor([0.0000, 0.5236, 1.5708,    nan])
    """)

add_docstr(E.acos, r"""The arccosine of each element, in radians in :math:`[0, \pi]`.

    .. math::
        \text{out}_i = \cos^{-1}(\text{input}_i)

    An element outside ``[-1, 1]`` gives ``nan``. :func:`nbgrad.arccos` is another name for
    it.

    Args:
        {input}

    Example::

        >>> import nbgrad
        >>> nbgrad.acos(nbgrad.tensor([1.0, 0.5, -1.0]))
        tensor([0.0000, 1.0472, 3.1416])
    """)

add_docstr(E.atan, r"""The arctangent of each element, in radians in :math:`(-\pi/2, \pi/2)`.

    .. math::
        \text{out}_i = \tan^{-1}(\text{input}_i)

    :func:`nbgrad.arctan` is another name for it; :func:`nbgrad.atan2` gives the angle of a
    point in all four quadrants.

    Args:
        {input}

    Example::

        >>> import nbgrad
        >>> nbgrad.atan(nbgrad.tensor([0.0, 1.0, -1.0]))
        tensor([ 0.0000,  0.7854, -0.7854])
    """)

add_docstr(E.atan2, r"""The angle, in radians in :math:`(-\pi, \pi]`, of the point
    ``(other, input)``: the arctangent of ``input / other`` in the right quadrant.

    .. math::
        \text{out}_i = \operatorname{atan2}(\text{input}_i, \text{other}_i)

    The operands broadcast together. The gradient at the origin is 0. :func:`nbgrad.arctan2`
    is another name for it.

    Args:
        input (Tensor): the y coordinates.
        other (Tensor): the x coordinates, broadcast with ``input``.

    Example::

        >>> import nbgrad
        >>> y = nbgrad.tensor([1.0, 1.0, -1.0, 0.0])
        >>> x = nbgrad.tensor([1.0, -1.0, -1.0, -1.0])
        >>> nbgrad.atan2(y, x)
        tensor([ 0.7854,  2.3562, -2.3562,  3.1416])
    """)

add_docstr(E.sinh, r"""The hyperbolic sine of each element.

    .. math::
        \text{out}_i = \sinh(\text{input}_i)

    Args:
        {input}

    Example::

        >>> import nbgrad
        >>> nbgrad.sinh(nbgrad.tensor([0.0, 1.0, -1.0]))
        tensor([ 0.0000,  1.1752, -1.1752])
    """)

add_docstr(E.cosh, r"""The hyperbolic cosine of each element.

    .. math::
        \text{out}_i = \cosh(\text{input}_i)

    Args:
        {input}

    Example::

        >>> import nbgrad
        >>> nbgrad.cosh(nbgrad.tensor([0.0, 1.0, -1.0]))
        tensor([1.0000, 1.5431, 1.5431])
    """)

add_docstr(E.asinh, r"""The inverse hyperbolic sine of each element.

    .. math::
        \text{out}_i = \sinh^{-1}(\text{input}_i)

    :func:`nbgrad.arcsinh` is another name for it.

    Args:
        {input}

    Example::

        >>> import nbgrad
        >>> nbgrad.asinh(nbgrad.tensor([0.0, 1.1752, -1.1752]))
        tensor([ 0.0000,  1.0000, -1.0000])
    """)

add_docstr(E.acosh, r"""The inverse hyperbolic cosine of each element.

    .. math::
        \text{out}_i = \cosh^{-1}(\text{input}_i)

    An element below 1 gives ``nan``. :func:`nbgrad.arccosh` is another name for it.

    Args:
        {input}

    Example::

        >>> import nbgrad
        >>> nbgrad.acosh(nbgrad.tensor([1.0, 1.5431, 0.5]))
        tensor([0.0000, 1.0000,    nan])
    """)

add_docstr(E.atanh, r"""The inverse hyperbolic tangent of each element.

    .. math::
        \text{out}_i = \tanh^{-1}(\text{input}_i)

    ``atanh(1)`` is ``inf``, ``atanh(-1)`` is ``-inf`` and an element outside ``[-1, 1]``
    gives ``nan``. :func:`nbgrad.arctanh` is another name for it.

    Args:
        {input}

    Example::

        >>> import nbgrad
        >>> nbgrad.atanh(nbgrad.tensor([0.0, 0.5, 1.0, 2.0]))
        tensor([0.0000, 0.5493,    inf,    nan])
    """)

# ----- error and gamma functions ----------------------------------------------------------
add_docstr(E.erf, r"""The error function of each element.

    .. math::
        \mathrm{erf}(x) = \frac{2}{\sqrt{\pi}} \int_{0}^{x} e^{-t^2} dt

    Args:
        {input}

    Example::

        >>> import nbgrad
        >>> nbgrad.erf(nbgrad.tensor([0.0, 0.5, -2.0]))
        tensor([ 0.0000,  0.5205, -0.9953])
    """)

add_docstr(E.erfc, r"""The complementary error function of each element, accurate in the
    tails where ``1 - erf(input)`` would lose the digits.

    .. math::
        \mathrm{erfc}(x) = 1 - \frac{2}{\sqrt{\pi}} \int_{0}^{x} e^{-t^2} dt

    Args:
        {input}

    Example::

        >>> import nbgrad
        >>> nbgrad.erfc(nbgrad.tensor([0.0, 0.5, 5.0]))
        tensor([1.0000e+00, 4.7950e-01, 1.5375e-12])
    """)

add_docstr(E.erfinv, r"""The inverse error function of each element: ``erf(erfinv(y)) == y``
    for ``y`` in ``(-1, 1)``.

    ``erfinv(1)`` is ``inf``, ``erfinv(-1)`` is ``-inf`` and an element outside ``[-1, 1]``
    gives ``nan``.

    Args:
        {input}

    Example::

        >>> import nbgrad
        >>> nbgrad.erfinv(nbgrad.tensor([0.0, 0.5, -1.0]))
        tensor([0.0000, 0.4769,   -inf])
    """)

add_docstr(E.lgamma, r"""The natural logarithm of the absolute value of the gamma function of
    each element.

    .. math::
        \text{out}_i = \log |\Gamma(\text{input}_i)|

    It is ``inf`` at zero and at the negative integers, where gamma has poles.

    Args:
        {input}

    Example::

        >>> import nbgrad
        >>> nbgrad.lgamma(nbgrad.tensor([1.0, 5.0, 0.5, -0.5]))
        tensor([0.0000, 3.1781, 0.5724, 1.2655])
    """)

add_docstr(E.digamma, r"""The digamma function of each element: the derivative of the log of
    the gamma function.

    .. math::
        \psi(x) = \frac{d}{dx} \ln\left(\Gamma\left(x\right)\right) = \frac{\Gamma'(x)}{\Gamma(x)}

    ``digamma(0)`` is ``-inf`` (PyTorch's convention) and it is ``nan`` at the negative
    integers.

    Args:
        {input}

    Example::

        >>> import nbgrad
        >>> nbgrad.digamma(nbgrad.tensor([1.0, 0.5, 0.0]))
        tensor([-0.5772, -1.9635,    -inf])
    """)

add_docstr(E.polygamma, r"""The ``n``-th derivative of the digamma function of each element
    (``n = 0`` gives :func:`nbgrad.digamma` itself).

    .. math::
        \psi^{(n)}(x) = \frac{d^{(n)}}{dx^{(n)}} \psi(x)

    Note the order of the arguments: ``n`` first, then the tensor (``input.polygamma(n)``
    as a method).

    Args:
        n (int): the order of the derivative, at least 0.
        {input}

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([1.0, 0.5])
        >>> nbgrad.polygamma(1, x)
        tensor([1.6449, 4.9348])
        >>> nbgrad.polygamma(2, x)
        tensor([ -2.4041, -16.8288])
    """)

add_docstr(SF.i0, r"""The modified Bessel function of the first kind of order zero, of each
    element.

    .. math::
        \text{out}_i = I_0(\text{input}_i)
        = \sum_{k=0}^{\infty} \frac{(\text{input}_i^2/4)^k}{(k!)^2}

    Args:
        {input}

    Example::

        >>> import nbgrad
        >>> nbgrad.i0(nbgrad.tensor([0.0, 1.0, 2.0]))
        tensor([1.0000, 1.2661, 2.2796])
    """)

add_docstr(SF.igamma, r"""The regularized lower incomplete gamma function of ``input`` (the
    shape :math:`a > 0`) and ``other`` (the bound :math:`x \geq 0`).

    .. math::
        \text{out}_i = \frac{1}{\Gamma(a_i)} \int_0^{x_i} t^{a_i - 1} e^{-t} dt

    :func:`nbgrad.igammac` is its complement, ``1 - igamma``. The gradient with respect to
    ``input`` is not implemented (as in PyTorch).

    Args:
        input (Tensor): the shapes :math:`a`.
        other (Tensor): the bounds :math:`x`, broadcast with ``input``.

    Example::

        >>> import nbgrad
        >>> a = nbgrad.tensor([1.0, 2.0, 3.0])
        >>> nbgrad.igamma(a, nbgrad.tensor([1.0, 1.0, 1.0]))
        tensor([0.6321, 0.2642, 0.0803])
    """)

add_docstr(SF.igammac, r"""The regularized upper incomplete gamma function of ``input`` (the
    shape :math:`a > 0`) and ``other`` (the bound :math:`x \geq 0`).

    .. math::
        \text{out}_i = \frac{1}{\Gamma(a_i)} \int_{x_i}^{\infty} t^{a_i - 1} e^{-t} dt

    It is ``1 - igamma(input, other)``, computed without the cancellation. The gradient with
    respect to ``input`` is not implemented (as in PyTorch).

    Args:
        input (Tensor): the shapes :math:`a`.
        other (Tensor): the bounds :math:`x`, broadcast with ``input``.

    Example::

        >>> import nbgrad
        >>> a = nbgrad.tensor([1.0, 2.0, 3.0])
        >>> nbgrad.igammac(a, nbgrad.tensor([1.0, 1.0, 1.0]))
        tensor([0.3679, 0.7358, 0.9197])
    """)

# ----- rounding --------------------------------------------------------------------------
add_docstr(E.floor, r"""The largest integer not greater than each element.

    .. math::
        \text{out}_i = \left\lfloor \text{input}_i \right\rfloor

    The result keeps ``input``'s dtype; an integer tensor is returned unchanged. The
    gradient is zero.

    Args:
        {input}

    Example::

        >>> import nbgrad
        >>> nbgrad.floor(nbgrad.tensor([1.5, -1.5, 2.0]))
        tensor([ 1., -2.,  2.])
    """)

add_docstr(E.ceil, r"""The smallest integer not less than each element.

    .. math::
        \text{out}_i = \left\lceil \text{input}_i \right\rceil

    The result keeps ``input``'s dtype; an integer tensor is returned unchanged. The
    gradient is zero.

    Args:
        {input}

    Example::

        >>> import nbgrad
        >>> nbgrad.ceil(nbgrad.tensor([1.5, -1.5, 2.0]))
        tensor([ 2., -1.,  2.])
    """)

add_docstr(E.trunc, r"""Each element rounded towards zero (its fractional part dropped).

    The result keeps ``input``'s dtype; an integer tensor is returned unchanged. The
    gradient is zero. :func:`nbgrad.fix` is another name for it.

    Args:
        {input}

    Example::

        >>> import nbgrad
        >>> nbgrad.trunc(nbgrad.tensor([1.7, -1.7, 0.2]))
        tensor([ 1., -1.,  0.])
        >>> nbgrad.fix(nbgrad.tensor([2.5, -2.5]))
        tensor([ 2., -2.])
    """)

add_docstr(E.frac, r"""The fractional part of each element, with its sign.

    .. math::
        \text{out}_i = \text{input}_i - \operatorname{trunc}(\text{input}_i)

    Floating-point tensors only. Its gradient is one.

    Args:
        input (Tensor): a floating-point tensor.

    Example::

        >>> import nbgrad
        >>> nbgrad.frac(nbgrad.tensor([1.25, -2.75, 3.0]))
        tensor([ 0.2500, -0.7500,  0.0000])
    """)

add_docstr(E.round, r"""Round each element to the nearest integer, or to ``decimals`` decimal
    places.

    A half is rounded to the nearest even integer ("banker's rounding", as NumPy and
    PyTorch). With ``decimals`` the result is ``round(input * 10**decimals) /
    10**decimals`` (a negative ``decimals`` rounds to tens, hundreds...), which is for
    floating-point tensors only. The result keeps ``input``'s dtype; the gradient is zero.

    Args:
        {input}
        decimals (int, optional): the number of decimal places to round to. Default:
            ``None``, round to an integer (PyTorch's default is ``0``, the same rounding).

    Example::

        >>> import nbgrad
        >>> nbgrad.round(nbgrad.tensor([0.5, 1.5, 2.5, -0.6]))
        tensor([ 0.,  2.,  2., -1.])
        >>> nbgrad.round(nbgrad.tensor([1.2345, 123.45]), decimals=2)
        tensor([  1.2300, 123.4500])
        >>> nbgrad.round(nbgrad.tensor([1234.5]), decimals=-2)
        tensor([1200.])
    """)

add_docstr(E.relu, r"""The rectified linear unit of each element: the element where it is
    positive, else 0.

    .. math::
        \text{out}_i = \max(0, \text{input}_i)

    Its gradient at 0 is 0. The layer form is :class:`nbgrad.nn.ReLU`.

    Args:
        {input}

    Example::

        >>> import nbgrad
        >>> nbgrad.relu(nbgrad.tensor([-1.0, 0.0, 2.0]))
        tensor([0., 0., 2.])
    """)


add_docstr(E.sigmoid, r"""The logistic sigmoid of each element, computed without overflow for large
    ``|input|``.

    .. math::
        \text{out}_i = \frac{1}{1 + e^{-\text{input}_i}}

    The layer form is :class:`nbgrad.nn.Sigmoid`; ``nbgrad.nn.functional.sigmoid`` is this
    function.

    Args:
        {input}

    Example::

        >>> import nbgrad
        >>> nbgrad.sigmoid(nbgrad.tensor([-2.0, 0.0, 3.0]))
        tensor([0.1192, 0.5000, 0.9526])
    """)

add_docstr(E.tanh, r"""The hyperbolic tangent of each element.

    .. math::
        \text{out}_i = \tanh(\text{input}_i)

    The layer form is :class:`nbgrad.nn.Tanh`; ``nbgrad.nn.functional.tanh`` is this
    function.

    Args:
        {input}

    Example::

        >>> import nbgrad
        >>> nbgrad.tanh(nbgrad.tensor([-1.0, 0.0, 0.5]))
        tensor([-0.7616,  0.0000,  0.4621])
    """)

add_docstr(E.softplus, r"""The softplus of each element, a smooth ReLU: the input itself where
    ``beta * input`` exceeds ``threshold`` (for numerical stability).

    .. math::
        \text{out}_i = \frac{1}{\beta} \log\left(1 + e^{\beta \, \text{input}_i}\right)

    Args:
        {input}
        beta (float, optional): the :math:`\beta` of the formula. Default: ``1.0``.
        threshold (float, optional): above it, the linear function is used. Default: ``20.0``.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> F.softplus(nbgrad.tensor([-1.0, 0.0, 30.0]))
        tensor([ 0.3133,  0.6931, 30.0000])
        >>> F.softplus(nbgrad.tensor([1.0]), beta=2.0)
        tensor([1.0635])
    """)
