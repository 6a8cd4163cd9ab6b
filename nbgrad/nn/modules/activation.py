"""Activation layers: ReLU, GELU, Tanh, Sigmoid, Softmax, LogSoftmax, the layers of the
composed activations (LeakyReLU, ELU, SiLU, ...), and MultiheadAttention (where PyTorch
keeps it)."""

import warnings

from .. import init
from .linear import NonDynamicallyQuantizableLinear
from .module import Module
from .utils import REQUIRED, _factory, make_init

__all__ = ["Softmax2d", "ReLU", "GELU", "Tanh", "Sigmoid", "Softmax", "LogSoftmax", "LeakyReLU", "ELU",
           "CELU", "SELU", "SiLU", "Mish", "Hardtanh", "ReLU6", "Hardsigmoid", "Hardswish",
           "LogSigmoid", "Softsign", "Tanhshrink", "Hardshrink", "Softshrink", "Softplus", "Threshold", "GLU", "Softmin",
           "PReLU", "MultiheadAttention", "RReLU"]


class ReLU(Module):
    r"""Apply the rectified linear unit element-wise: :math:`\text{ReLU}(x) = \max(0, x)`.

    Args:
        inplace (bool, optional): write the result into the input and return it (the
            input must then not be a leaf that requires grad). Default: ``False``.

    Shape:
        - Input: :math:`(*)`, any number of dimensions (none included).
        - Output: :math:`(*)`, the shape of the input.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.ReLU()
        >>> m
        ReLU()
        >>> m(nbgrad.tensor([-2.0, -0.5, 0.0, 1.5]))
        tensor([0.0000, 0.0000, 0.0000, 1.5000])
    """

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):  # (the row's function itself: no F.relu frame on a layer)
        from ...ops.elementwise import relu

        return input.relu_() if self.inplace else relu(input)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""



class GELU(Module):
    r"""Apply the Gaussian error linear unit element-wise: :math:`\text{GELU}(x) = x \Phi(x)`.

    :math:`\Phi` is the cumulative distribution function of the standard normal
    distribution. With ``approximate='tanh'`` it is replaced by
    :math:`\frac{1}{2}(1 + \tanh(\sqrt{2 / \pi}\,(x + 0.044715\, x^3)))`.

    Args:
        approximate (str, optional): ``'none'`` for the exact form (through the error
            function), or ``'tanh'`` for the tanh approximation. Default: ``'none'``.

    Shape:
        - Input: :math:`(*)`, any number of dimensions (none included).
        - Output: :math:`(*)`, the shape of the input.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([-2.0, -0.5, 0.0, 1.5])
        >>> nbgrad.nn.GELU()(x)
        tensor([-0.0455, -0.1543,  0.0000,  1.3998])
        >>> nbgrad.nn.GELU(approximate='tanh')(x)
        tensor([-0.0454, -0.1543,  0.0000,  1.3996])
    """

    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        from .. import functional as F

        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"



class Tanh(Module):
    r"""Apply the hyperbolic tangent element-wise:
    :math:`\tanh(x) = \frac{e^x - e^{-x}}{e^x + e^{-x}}`, with values in :math:`(-1, 1)`.

    Shape:
        - Input: :math:`(*)`, any number of dimensions (none included).
        - Output: :math:`(*)`, the shape of the input.

    Example::

        >>> import nbgrad
        >>> nbgrad.nn.Tanh()(nbgrad.tensor([-2.0, 0.0, 0.5]))
        tensor([-0.9640,  0.0000,  0.4621])
    """

    def forward(self, input):
        from .. import functional as F

        return F.tanh(input)



class Sigmoid(Module):
    r"""Apply the logistic sigmoid element-wise: :math:`\sigma(x) = \frac{1}{1 + e^{-x}}`,
    with values in :math:`(0, 1)`.

    Shape:
        - Input: :math:`(*)`, any number of dimensions (none included).
        - Output: :math:`(*)`, the shape of the input.

    Example::

        >>> import nbgrad
        >>> nbgrad.nn.Sigmoid()(nbgrad.tensor([-2.0, 0.0, 0.5]))
        tensor([0.1192, 0.5000, 0.6225])
    """

    def forward(self, input):
        from .. import functional as F

        return F.sigmoid(input)


class Softmax(Module):
    r"""Apply softmax along a dimension, rescaling its slices into probabilities.

    :math:`\text{Softmax}(x_i) = \frac{\exp(x_i)}{\sum_j \exp(x_j)}`, the sum running over
    the dimension ``dim``: each slice along it becomes non-negative and sums to 1.

    Args:
        dim (int, optional): the dimension to normalize over. ``None`` picks a dimension
            as PyTorch's legacy rule does (0 for 0-, 1- and 3-dimensional inputs, else 1)
            and warns that the implicit choice is deprecated. Default: ``None``.

    Shape:
        - Input: :math:`(*)`, any number of dimensions.
        - Output: :math:`(*)`, the shape of the input.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.Softmax(dim=1)
        >>> m
        Softmax(dim=1)
        >>> p = m(nbgrad.tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]]))
        >>> p
        tensor([[0.0900, 0.2447, 0.6652],
                [0.3333, 0.3333, 0.3333]])
        >>> p.sum(dim=1)
        tensor([1., 1.])
    """

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        from .. import functional as F

        return F.softmax(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class LogSoftmax(Module):
    r"""Apply the logarithm of softmax along a dimension.

    :math:`\text{LogSoftmax}(x_i) = x_i - \log \sum_j \exp(x_j)`, the sum running over the
    dimension ``dim``. Computed in one stable step, it is more accurate than
    ``log(softmax(x))``; its output is what ``NLLLoss`` expects.

    Args:
        dim (int, optional): the dimension to normalize over. ``None`` picks a dimension
            as PyTorch's legacy rule does (0 for 0-, 1- and 3-dimensional inputs, else 1)
            and warns that the implicit choice is deprecated. Default: ``None``.

    Shape:
        - Input: :math:`(*)`, any number of dimensions.
        - Output: :math:`(*)`, the shape of the input.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.LogSoftmax(dim=1)
        >>> m(nbgrad.tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]]))
        tensor([[-2.4076, -1.4076, -0.4076],
                [-1.0986, -1.0986, -1.0986]])
    """

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        from .. import functional as F

        return F.log_softmax(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


def _layer(name, fn_name, params=(), doc="", shown=None):
    """A layer that calls ``F.<fn_name>(input, *params)``; its constructor has PyTorch's
    signature, ``params`` ((name, default) pairs; see ``make_init``), ``inplace`` among them
    where PyTorch's has it. ``shown``: the parameters its repr shows (default: all but
    ``inplace``, which shows when True), or a function of the layer giving the repr's text."""
    names = [p for p, _ in params if p != "*"]

    def setup(self, values):
        for p in names:
            setattr(self, p, values[p])

    def forward(self, input):
        from .. import functional as F

        return getattr(F, fn_name)(input, *[getattr(self, p) for p in names])

    def extra_repr(self):
        if callable(shown):
            return shown(self)
        parts = [f"{p}={getattr(self, p)}" for p in (names if shown is None else shown)
                 if p != "inplace"]
        if shown is None and getattr(self, "inplace", False):
            parts.append("inplace=True")
        return ", ".join(parts)

    body = {"forward": forward, "extra_repr": extra_repr, "__doc__": doc, "__module__": __name__}
    if params:  # (else Module's constructor, as PyTorch's layer has: it refuses any argument)
        body["__init__"] = make_init(name, params, setup)
    return type(name, (Module,), body)


LeakyReLU = _layer("LeakyReLU", "leaky_relu", (("negative_slope", 0.01), ("inplace", False)), r"""
    Apply the leaky rectified linear unit element-wise: :math:`x` where :math:`x \geq 0`,
    else :math:`\text{negative\_slope} \times x`.

    Args:
        negative_slope (float, optional): the slope for negative inputs. Default: ``0.01``.
        inplace (bool, optional): write the result into the input and return it (the
            input must then not be a leaf that requires grad). Default: ``False``.

    Shape:
        - Input: :math:`(*)`, any number of dimensions (none included).
        - Output: :math:`(*)`, the shape of the input.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.LeakyReLU(0.1)
        >>> m
        LeakyReLU(negative_slope=0.1)
        >>> m(nbgrad.tensor([-2.0, -0.5, 0.0, 1.5]))
        tensor([-0.2000, -0.0500,  0.0000,  1.5000])
    """)
ELU = _layer("ELU", "elu", (("alpha", 1.0), ("inplace", False)), r"""
    Apply the exponential linear unit element-wise: :math:`x` where :math:`x > 0`, else
    :math:`\alpha (e^x - 1)`.

    Args:
        alpha (float, optional): the :math:`\alpha` that scales the negative part (its
            limit towards :math:`-\infty` is :math:`-\alpha`). Default: ``1.0``.
        inplace (bool, optional): write the result into the input and return it (the
            input must then not be a leaf that requires grad). Default: ``False``.

    Shape:
        - Input: :math:`(*)`, any number of dimensions (none included).
        - Output: :math:`(*)`, the shape of the input.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.ELU()
        >>> m
        ELU(alpha=1.0)
        >>> m(nbgrad.tensor([-2.0, -0.5, 0.0, 1.5]))
        tensor([-0.8647, -0.3935,  0.0000,  1.5000])
    """)
CELU = _layer("CELU", "celu", (("alpha", 1.0), ("inplace", False)), r"""
    Apply the continuously differentiable ELU element-wise:
    :math:`\max(0, x) + \min(0, \alpha (e^{x / \alpha} - 1))`.

    Args:
        alpha (float, optional): the :math:`\alpha` of the formula. Default: ``1.0``.
        inplace (bool, optional): write the result into the input and return it (the
            input must then not be a leaf that requires grad). Default: ``False``.

    Shape:
        - Input: :math:`(*)`, any number of dimensions (none included).
        - Output: :math:`(*)`, the shape of the input.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.CELU(alpha=2.0)
        >>> m
        CELU(alpha=2.0)
        >>> m(nbgrad.tensor([-2.0, -0.5, 0.0, 1.5]))
        tensor([-1.2642, -0.4424,  0.0000,  1.5000])
    """)
SELU = _layer("SELU", "selu", (("inplace", False),), r"""
    Apply the scaled exponential linear unit element-wise:
    :math:`\text{scale} \times (\max(0, x) + \min(0, \alpha (e^x - 1)))`.

    The constants are fixed, :math:`\alpha \approx 1.6732632` and
    :math:`\text{scale} \approx 1.0507010`, chosen (in "Self-Normalizing Neural Networks")
    so that activations keep a zero mean and unit variance through the layers; pair it with
    ``AlphaDropout``.

    Args:
        inplace (bool, optional): write the result into the input and return it (the
            input must then not be a leaf that requires grad). Default: ``False``.

    Shape:
        - Input: :math:`(*)`, any number of dimensions (none included).
        - Output: :math:`(*)`, the shape of the input.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.SELU()
        >>> m(nbgrad.tensor([-2.0, -0.5, 0.0, 1.5]))
        tensor([-1.5202, -0.6918,  0.0000,  1.5761])
    """)
SiLU = _layer("SiLU", "silu", (("inplace", False),), r"""
    Apply the sigmoid linear unit (also called swish) element-wise:
    :math:`x \, \sigma(x)`, where :math:`\sigma` is the logistic sigmoid.

    Args:
        inplace (bool, optional): write the result into the input and return it (the
            input must then not be a leaf that requires grad). Default: ``False``.

    Shape:
        - Input: :math:`(*)`, any number of dimensions (none included).
        - Output: :math:`(*)`, the shape of the input.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.SiLU()
        >>> m(nbgrad.tensor([-2.0, -0.5, 0.0, 1.5]))
        tensor([-0.2384, -0.1888,  0.0000,  1.2264])
    """)
Mish = _layer("Mish", "mish", (("inplace", False),), r"""
    Apply the Mish function element-wise: :math:`x \tanh(\text{softplus}(x))`, with
    :math:`\text{softplus}(x) = \log(1 + e^x)`.

    Args:
        inplace (bool, optional): write the result into the input and return it (the
            input must then not be a leaf that requires grad). Default: ``False``.

    Shape:
        - Input: :math:`(*)`, any number of dimensions (none included).
        - Output: :math:`(*)`, the shape of the input.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.Mish()
        >>> m(nbgrad.tensor([-2.0, -0.5, 0.0, 1.5]))
        tensor([-0.2525, -0.2207,  0.0000,  1.4034])
    """)
class Hardtanh(Module):
    r"""Clip the input element-wise to ``[min_val, max_val]``: a piecewise-linear ``tanh``.

    Args:
        min_val (float, optional): the lower end of the linear region. Default: ``-1.0``.
        max_val (float, optional): the upper end of the linear region, greater than
            ``min_val`` (an ``AssertionError`` otherwise, as in PyTorch). Default: ``1.0``.
        inplace (bool, optional): write the result into the input and return it (the
            input must then not be a leaf that requires grad). Default: ``False``.
        min_value (float, optional): deprecated name of ``min_val`` (a ``FutureWarning``);
            overrides it when given. Default: ``None``.
        max_value (float, optional): deprecated name of ``max_val``, likewise.
            Default: ``None``.

    Shape:
        - Input: :math:`(*)`, any number of dimensions (none included).
        - Output: :math:`(*)`, the shape of the input.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.Hardtanh(-0.5, 1.0)
        >>> m
        Hardtanh(min_val=-0.5, max_val=1.0)
        >>> m(nbgrad.tensor([-2.0, -0.25, 0.0, 1.5]))
        tensor([-0.5000, -0.2500,  0.0000,  1.0000])
    """

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False, min_value=None,
                 max_value=None):
        super().__init__()
        if min_value is not None:
            warnings.warn("keyword argument `min_value` is deprecated and renamed to `min_val`",
                          FutureWarning, stacklevel=2)
            min_val = min_value
        if max_value is not None:
            warnings.warn("keyword argument `max_value` is deprecated and renamed to `max_val`",
                          FutureWarning, stacklevel=2)
            max_val = max_value
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace
        if self.max_val <= self.min_val:  # (PyTorch's error, an AssertionError)
            raise AssertionError(
                f"max_val ({self.max_val}) must be greater than min_val ({self.min_val})")

    def forward(self, input):
        from .. import functional as F

        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        return (f"min_val={self.min_val}, max_val={self.max_val}"
                + (", inplace=True" if self.inplace else ""))


ReLU6 = _layer("ReLU6", "relu6", (("inplace", False),), r"""
    Apply ReLU capped at 6 element-wise: :math:`\min(\max(0, x), 6)`.

    Args:
        inplace (bool, optional): write the result into the input and return it (the
            input must then not be a leaf that requires grad). Default: ``False``.

    Shape:
        - Input: :math:`(*)`, any number of dimensions (none included).
        - Output: :math:`(*)`, the shape of the input.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.ReLU6()
        >>> m(nbgrad.tensor([-2.0, 0.5, 3.0, 7.5]))
        tensor([0.0000, 0.5000, 3.0000, 6.0000])
    """)
Hardsigmoid = _layer("Hardsigmoid", "hardsigmoid", (("inplace", False),), shown=(), doc=r"""
    Apply a piecewise-linear sigmoid element-wise: 0 for :math:`x \leq -3`, 1 for
    :math:`x \geq 3`, and :math:`x / 6 + 1 / 2` between.

    Args:
        inplace (bool, optional): write the result into the input and return it (the
            input must then not be a leaf that requires grad). Default: ``False``.

    Shape:
        - Input: :math:`(*)`, any number of dimensions (none included).
        - Output: :math:`(*)`, the shape of the input.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.Hardsigmoid()
        >>> m(nbgrad.tensor([-4.0, -1.5, 0.0, 1.5, 4.0]))
        tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000])
    """)
Hardswish = _layer("Hardswish", "hardswish", (("inplace", False),), shown=(), doc=r"""
    Apply the hard swish element-wise: :math:`x \cdot \text{ReLU6}(x + 3) / 6` (0 for
    :math:`x \leq -3`, :math:`x` for :math:`x \geq 3`).

    Args:
        inplace (bool, optional): write the result into the input and return it (the
            input must then not be a leaf that requires grad). Default: ``False``.

    Shape:
        - Input: :math:`(*)`, any number of dimensions (none included).
        - Output: :math:`(*)`, the shape of the input.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.Hardswish()
        >>> m(nbgrad.tensor([-4.0, -1.5, 0.0, 1.5, 4.0]))
        tensor([ 0.0000, -0.3750,  0.0000,  1.1250,  4.0000])
    """)
LogSigmoid = _layer("LogSigmoid", "logsigmoid", (), r"""
    Apply the logarithm of the logistic sigmoid element-wise:
    :math:`\log \frac{1}{1 + e^{-x}}`, computed stably for large negative inputs.

    Args:
        none: the layer takes no arguments.

    Shape:
        - Input: :math:`(*)`, any number of dimensions (none included).
        - Output: :math:`(*)`, the shape of the input.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.LogSigmoid()
        >>> m(nbgrad.tensor([-2.0, 0.0, 2.0]))
        tensor([-2.1269, -0.6931, -0.1269])
    """)
Softsign = _layer("Softsign", "softsign", (), r"""
    Apply the softsign function element-wise: :math:`\frac{x}{1 + |x|}`, with values in
    :math:`(-1, 1)`.

    Args:
        none: the layer takes no arguments.

    Shape:
        - Input: :math:`(*)`, any number of dimensions (none included).
        - Output: :math:`(*)`, the shape of the input.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.Softsign()
        >>> m(nbgrad.tensor([-3.0, 0.0, 1.0]))
        tensor([-0.7500,  0.0000,  0.5000])
    """)
Tanhshrink = _layer("Tanhshrink", "tanhshrink", (), r"""
    Apply :math:`x - \tanh(x)` element-wise.

    Args:
        none: the layer takes no arguments.

    Shape:
        - Input: :math:`(*)`, any number of dimensions (none included).
        - Output: :math:`(*)`, the shape of the input.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.Tanhshrink()
        >>> m(nbgrad.tensor([-2.0, 0.0, 0.5]))
        tensor([-1.0360,  0.0000,  0.0379])
    """)
Hardshrink = _layer("Hardshrink", "hardshrink", (("lambd", 0.5),),
                    shown=lambda m: str(m.lambd), doc=r"""
    Apply hard shrinkage element-wise: :math:`x` where :math:`|x| > \lambda`, else 0.

    Args:
        lambd (float, optional): the threshold :math:`\lambda` (not negative).
            Default: ``0.5``.

    Shape:
        - Input: :math:`(*)`, any number of dimensions (none included).
        - Output: :math:`(*)`, the shape of the input.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.Hardshrink()
        >>> m
        Hardshrink(0.5)
        >>> m(nbgrad.tensor([-1.0, -0.25, 0.0, 0.5, 2.0]))
        tensor([-1.,  0.,  0.,  0.,  2.])
    """)
Softshrink = _layer("Softshrink", "softshrink", (("lambd", 0.5),),
                    shown=lambda m: str(m.lambd), doc=r"""
    Apply soft shrinkage element-wise: :math:`x - \lambda` where :math:`x > \lambda`,
    :math:`x + \lambda` where :math:`x < -\lambda`, else 0.

    Args:
        lambd (float, optional): the threshold :math:`\lambda` (not negative).
            Default: ``0.5``.

    Shape:
        - Input: :math:`(*)`, any number of dimensions (none included).
        - Output: :math:`(*)`, the shape of the input.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.Softshrink(0.5)
        >>> m
        Softshrink(0.5)
        >>> m(nbgrad.tensor([-1.0, -0.25, 0.0, 0.5, 2.0]))
        tensor([-0.5000,  0.0000,  0.0000,  0.0000,  1.5000])
    """)
Softplus = _layer("Softplus", "softplus", (("beta", 1.0), ("threshold", 20.0)), r"""
    Apply the softplus function element-wise: :math:`\frac{1}{\beta} \log(1 + e^{\beta x})`,
    a smooth approximation of ReLU with positive values.

    Where :math:`\beta x` exceeds ``threshold`` the layer returns :math:`x` itself (the
    formula's value to within rounding), for numerical stability.

    Args:
        beta (float, optional): the :math:`\beta` of the formula. Default: ``1.0``.
        threshold (float, optional): above this value of :math:`\beta x` the function is
            linear. Default: ``20.0``.

    Shape:
        - Input: :math:`(*)`, any number of dimensions (none included).
        - Output: :math:`(*)`, the shape of the input.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.Softplus()
        >>> m
        Softplus(beta=1.0, threshold=20.0)
        >>> m(nbgrad.tensor([-2.0, 0.0, 1.0, 30.0]))
        tensor([ 0.1269,  0.6931,  1.3133, 30.0000])
        >>> nbgrad.nn.Softplus(beta=2.0)(nbgrad.tensor([-2.0, 0.0, 1.0]))
        tensor([0.0091, 0.3466, 1.0635])
    """)
Threshold = _layer("Threshold", "threshold",
                   (("threshold", REQUIRED), ("value", REQUIRED), ("inplace", False)), r"""
    Threshold the input element-wise: :math:`x` where :math:`x > \text{threshold}`, else
    ``value``.

    Args:
        threshold (float): the threshold to compare with (strictly greater is kept).
        value (float): what replaces the elements at or below ``threshold``.
        inplace (bool, optional): write the result into the input and return it (the
            input must then not be a leaf that requires grad). Default: ``False``.

    Shape:
        - Input: :math:`(*)`, any number of dimensions (none included).
        - Output: :math:`(*)`, the shape of the input.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.Threshold(0.1, 20.0)
        >>> m
        Threshold(threshold=0.1, value=20.0)
        >>> m(nbgrad.tensor([-1.0, 0.1, 0.5, 2.0]))
        tensor([20.0000, 20.0000,  0.5000,  2.0000])
    """)
GLU = _layer("GLU", "glu", (("dim", -1),), r"""
    Apply the gated linear unit: split the input in halves :math:`a` and :math:`b` along
    ``dim`` and return :math:`a \otimes \sigma(b)`.

    Args:
        dim (int, optional): the dimension to split; its size must be even.
            Default: ``-1``.

    Shape:
        - Input: :math:`(*_1, N, *_2)`, with :math:`N` (the size of ``dim``) even.
        - Output: :math:`(*_1, M, *_2)`, with :math:`M = N / 2`.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.GLU()
        >>> m(nbgrad.tensor([[1.0, 2.0, 0.0, 1.0]]))
        tensor([[0.5000, 1.4621]])
        >>> nbgrad.nn.GLU(dim=0)(nbgrad.zeros(6, 3)).shape
        nbgrad.Size([3, 3])
    """)
Softmin = _layer("Softmin", "softmin", (("dim", None),), r"""
    Apply softmin along a dimension: the softmax of the negated input,
    :math:`\frac{\exp(-x_i)}{\sum_j \exp(-x_j)}`, so that the smallest entries weigh most.

    Args:
        dim (int, optional): the dimension to normalize over. ``None`` picks a dimension
            as PyTorch's legacy rule does (0 for 0-, 1- and 3-dimensional inputs, else 1)
            and warns that the implicit choice is deprecated. Default: ``None``.

    Shape:
        - Input: :math:`(*)`, any number of dimensions.
        - Output: :math:`(*)`, the shape of the input.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.Softmin(dim=1)
        >>> m(nbgrad.tensor([[1.0, 2.0, 3.0]]))
        tensor([[0.6652, 0.2447, 0.0900]])
    """)


class PReLU(Module):
    r"""Apply the parametric ReLU element-wise: :math:`\max(0, x) + a \min(0, x)`, with a
    learned slope :math:`a`.

    There is either one slope shared by all the channels, or one per channel: the channels
    are the input's dimension 1 (an input of fewer than 2 dimensions has one channel).

    Args:
        num_parameters (int, optional): the number of slopes: 1, or the number of channels
            of the input. Default: ``1``.
        init (float, optional): the initial value of every slope. Default: ``0.25``.
        device (nbgrad.device, optional): the device of the parameter. Default: the
            default device.
        dtype (nbgrad.dtype, optional): the dtype of the parameter. Default: the default
            dtype.

    Shape:
        - Input: :math:`(*)`, any number of dimensions; with several slopes, at least 2,
          dimension 1 being the channels.
        - Output: :math:`(*)`, the shape of the input.

    Attributes:
        weight (Parameter): the learnable slopes, of shape ``(num_parameters,)``, all equal
            to ``init`` at construction.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.PReLU()
        >>> m
        PReLU(num_parameters=1)
        >>> m.weight
        Parameter containing:
        tensor([0.2500], requires_grad=True)
        >>> m(nbgrad.tensor([-2.0, 0.0, 1.5]))
        tensor([-0.5000,  0.0000,  1.5000], grad_fn=<WhereBackward0>)
        >>> _ = nbgrad.manual_seed(0)
        >>> nbgrad.nn.PReLU(num_parameters=3)(nbgrad.randn(2, 3, 4, 4)).shape
        nbgrad.Size([2, 3, 4, 4])
    """

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        from ... import dtypes
        from ...creation import full
        from ..parameter import Parameter

        super().__init__()
        self.num_parameters = num_parameters
        dt = dtype if dtype is not None else dtypes.get_default_dtype()
        self.weight = Parameter(full((num_parameters,), init, dtype=dt, device=device))

    def forward(self, input):
        from .. import functional as F

        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


class MultiheadAttention(Module):
    r"""Attend from queries to keys and values with several heads in parallel.

    :math:`\text{MultiHead}(Q, K, V) = \text{Concat}(\text{head}_1, \dots,
    \text{head}_h) W^O`, where :math:`\text{head}_i = \text{Attention}(Q W_i^Q, K W_i^K,
    V W_i^V)` and :math:`\text{Attention}(q, k, v) = \text{softmax}(q k^T / \sqrt{d}) v`
    with :math:`d` = ``embed_dim // num_heads``, the width of a head.

    ``forward(query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
    average_attn_weights=True, is_causal=False)`` returns ``(output, weights)``:
    ``key_padding_mask`` (boolean: ``True`` marks a key to ignore; or float: added to the
    scores) masks keys per sample, ``attn_mask`` (the same two kinds) masks query-key pairs,
    ``need_weights=False`` returns ``None`` for the weights, ``average_attn_weights=False``
    returns them per head, and ``is_causal`` is a hint that needs ``attn_mask`` too.

    Args:
        embed_dim (int): the width :math:`E` of the queries and of the output.
        num_heads (int): the number of heads; ``embed_dim`` must be divisible by it.
        dropout (float, optional): the probability of dropping an attention weight while
            training. Default: ``0.0``.
        bias (bool, optional): if ``False``, the input and output projections learn no
            bias. Default: ``True``.
        add_bias_kv (bool, optional): if ``True``, learn a key and a value appended to the
            keys and values of every sample. Default: ``False``.
        add_zero_attn (bool, optional): if ``True``, append a key and a value of zeros to
            those of every sample. Default: ``False``.
        kdim (int, optional): the width of the keys. Default: ``None`` (``embed_dim``).
        vdim (int, optional): the width of the values. Default: ``None`` (``embed_dim``).
        batch_first (bool, optional): if ``True``, batched inputs and outputs are
            :math:`(N, L, E)` rather than :math:`(L, N, E)`. Default: ``False``.
        device (nbgrad.device, optional): the device of the parameters. Default: the
            default device.
        dtype (nbgrad.dtype, optional): the dtype of the parameters. Default: the default
            dtype.

    Shape:
        - query: :math:`(L, E)` unbatched, :math:`(L, N, E)`, or :math:`(N, L, E)` with
          ``batch_first=True``; :math:`L` the number of queries, :math:`N` the batch.
        - key: :math:`(S, E_k)`, :math:`(S, N, E_k)` or :math:`(N, S, E_k)`, with
          :math:`S` the number of keys and :math:`E_k` = ``kdim``.
        - value: :math:`(S, E_v)`, :math:`(S, N, E_v)` or :math:`(N, S, E_v)`, with
          :math:`E_v` = ``vdim``.
        - key_padding_mask: :math:`(S)` or :math:`(N, S)`.
        - attn_mask: :math:`(L, S)` or :math:`(N \cdot \text{num\_heads}, L, S)`.
        - Output: the attention output, of the query's shape (with :math:`E` =
          ``embed_dim``), and the attention weights: :math:`(L, S)` or :math:`(N, L, S)`
          averaged over the heads, else :math:`(\text{num\_heads}, L, S)` or
          :math:`(N, \text{num\_heads}, L, S)`.

    Attributes:
        in_proj_weight (Parameter or None): the query, key and value projections stacked,
            of shape ``(3 * embed_dim, embed_dim)``, Xavier-uniform initialized; ``None``
            when ``kdim`` or ``vdim`` differs from ``embed_dim``, where
            ``q_proj_weight``, ``k_proj_weight`` and ``v_proj_weight`` (of shapes
            ``(embed_dim, embed_dim)``, ``(embed_dim, kdim)``, ``(embed_dim, vdim)``)
            take its place.
        in_proj_bias (Parameter or None): the projections' bias, of shape
            ``(3 * embed_dim,)``, initialized to zeros (``None`` when ``bias=False``).
        out_proj (Linear): the output projection, ``embed_dim`` to ``embed_dim``, its bias
            initialized to zeros.
        bias_k, bias_v (Parameter or None): the learned key and value of
            ``add_bias_kv=True``, of shape ``(1, 1, embed_dim)``, Xavier-normal
            initialized.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> mha = nbgrad.nn.MultiheadAttention(embed_dim=8, num_heads=2, batch_first=True)
        >>> mha
        MultiheadAttention(
          (out_proj): NonDynamicallyQuantizableLinear(in_features=8, out_features=8, bias=True)
        )
        >>> x = nbgrad.randn(3, 5, 8)
        >>> out, weights = mha(x, x, x)
        >>> out.shape, weights.shape
        (nbgrad.Size([3, 5, 8]), nbgrad.Size([3, 5, 5]))
        >>> weights.sum(dim=-1).allclose(nbgrad.ones(3, 5))
        True
        >>> out, weights = mha(x, x, x, average_attn_weights=False)
        >>> weights.shape
        nbgrad.Size([3, 2, 5, 5])
        >>> mha.in_proj_weight.shape, mha.out_proj.weight.shape
        (nbgrad.Size([24, 8]), nbgrad.Size([8, 8]))
    """

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, device=None,
                 dtype=None):
        super().__init__()
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got "
                             f"embed_dim={embed_dim} and num_heads={num_heads} instead")
        if embed_dim % num_heads:
            raise AssertionError("embed_dim must be divisible by num_heads")
        self.embed_dim, self.num_heads, self.dropout = embed_dim, num_heads, dropout
        self.batch_first, self.head_dim = batch_first, embed_dim // num_heads
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        new = _factory(device, dtype)
        if self._qkv_same_embed_dim:
            self.in_proj_weight = new(3 * embed_dim, embed_dim)
            for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                self.register_parameter(name, None)
        else:  # keys and values of other widths: a projection each
            self.q_proj_weight = new(embed_dim, embed_dim)
            self.k_proj_weight = new(embed_dim, self.kdim)
            self.v_proj_weight = new(embed_dim, self.vdim)
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = new(3 * embed_dim)
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias,
                                                        device=device, dtype=dtype)
        if add_bias_kv:  # a learned key and value every query also attends to
            self.bias_k, self.bias_v = new(1, 1, embed_dim), new(1, 1, embed_dim)
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self):
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            for w in (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight):
                init.xavier_uniform_(w)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        for b in (self.bias_k, self.bias_v):
            if b is not None:
                init.xavier_normal_(b)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True,
                attn_mask=None, average_attn_weights=True, is_causal=False):
        if is_causal and attn_mask is None:
            raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use "
                               "the Transformer module method `generate_square_subsequent_mask`"
                               " to create this mask.")
        if self.batch_first and query.ndim == 3:
            query, key, value = (x.transpose(0, 1) for x in (query, key, value))
        from .. import functional as F

        out, weights = F.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight,
            self.in_proj_bias, self.bias_k, self.bias_v, self.add_zero_attn, self.dropout,
            self.out_proj.weight, self.out_proj.bias, self.training, key_padding_mask,
            need_weights, attn_mask, use_separate_proj_weight=not self._qkv_same_embed_dim,
            q_proj_weight=self.q_proj_weight, k_proj_weight=self.k_proj_weight,
            v_proj_weight=self.v_proj_weight, average_attn_weights=average_attn_weights)
        if self.batch_first and query.ndim == 3:
            out = out.transpose(0, 1)
        return out, weights


class RReLU(Module):
    r"""Apply the randomized leaky ReLU element-wise: :math:`x` where :math:`x \geq 0`, else
    :math:`a x`.

    While training, each element draws its own slope :math:`a` from the uniform
    distribution :math:`\mathcal{U}(\text{lower}, \text{upper})`; in evaluation mode
    :math:`a` is their mean, :math:`(\text{lower} + \text{upper}) / 2`.

    Args:
        lower (float, optional): the lower bound of the slopes. Default: ``1/8``.
        upper (float, optional): the upper bound of the slopes. Default: ``1/3``.
        inplace (bool, optional): write the result into the input and return it (the
            input must then not be a leaf that requires grad). Default: ``False``.

    Shape:
        - Input: :math:`(*)`, any number of dimensions (none included).
        - Output: :math:`(*)`, the shape of the input.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> m = nbgrad.nn.RReLU(0.1, 0.3)
        >>> m
        RReLU(lower=0.1, upper=0.3)
        >>> x = nbgrad.tensor([-2.0, -1.0, 0.0, 1.5])
        >>> m(x)
        tensor([-0.3985, -0.2536,  0.0000,  1.5000])
        >>> _ = m.eval()
        >>> m(x)
        tensor([-0.4000, -0.2000,  0.0000,  1.5000])
    """

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input):
        from .. import functional as F

        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        return f"lower={self.lower}, upper={self.upper}" + (", inplace=True" if self.inplace
                                                             else "")


class Softmax2d(Module):
    r"""Apply softmax over the channels at each spatial location.

    For an input of shape :math:`(N, C, H, W)` or :math:`(C, H, W)` this is softmax along
    dimension -3: at every pixel the :math:`C` values become probabilities.

    Shape:
        - Input: :math:`(N, C, H, W)` or :math:`(C, H, W)`.
        - Output: the shape of the input.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> m = nbgrad.nn.Softmax2d()
        >>> y = m(nbgrad.randn(2, 3, 4, 4))
        >>> y.shape
        nbgrad.Size([2, 3, 4, 4])
        >>> y.sum(dim=1).allclose(nbgrad.ones(2, 4, 4))
        True
    """

    def forward(self, input):
        if input.ndim not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.ndim}D "
                             "instead")
        from .. import functional as F

        return F.softmax(input, -3)
