"""Identity, Linear, Bilinear and LazyLinear."""

import math

from .. import init
from .lazy import LazyModuleMixin
from .module import Module
from .utils import _factory

__all__ = ["Identity", "Linear", "NonDynamicallyQuantizableLinear", "Bilinear", "LazyLinear"]


class Identity(Module):
    """A placeholder layer that returns its input unchanged.

    Useful where a model needs a module but no computation: to switch a layer off (for
    example, replacing a classifier's last layer to read the features before it).

    Args:
        *args (Any): ignored.
        **kwargs (Any): ignored.

    Shape:
        - Input: :math:`(*)`, any shape.
        - Output: the input itself.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.Identity(54, unused_argument="ignored")
        >>> x = nbgrad.tensor([1.0, 2.0])
        >>> m(x) is x
        True
    """

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input



class Linear(Module):
    r"""Apply an affine transformation to the last dimension: ``y = x @ weight.T + bias``.

    Args:
        in_features (int): size of each input sample (the input's last dimension).
        out_features (int): size of each output sample.
        bias (bool, optional): if ``False``, the layer learns no additive bias.
            Default: ``True``.
        device (nbgrad.device, optional): the device of the parameters. Default: the
            default device.
        dtype (nbgrad.dtype, optional): the dtype of the parameters. Default: the default
            dtype.

    Shape:
        - Input: :math:`(*, H_{in})`, where :math:`*` is any number of dimensions
          (none included) and :math:`H_{in} = \text{in\_features}`.
        - Output: :math:`(*, H_{out})`, the input's shape but for the last dimension,
          :math:`H_{out} = \text{out\_features}`.

    Attributes:
        weight (Parameter): the learnable weights, of shape ``(out_features, in_features)``,
            initialized as PyTorch does, with ``kaiming_uniform_(a=sqrt(5))``: from
            :math:`\mathcal{U}(-\sqrt{k}, \sqrt{k})` with :math:`k = 1 / \text{in\_features}`.
        bias (Parameter or None): the learnable bias, of shape ``(out_features,)``
            (``None`` when ``bias=False``), drawn from
            :math:`\mathcal{U}(-\sqrt{k}, \sqrt{k})` with :math:`k = 1 / \text{in\_features}`.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> m = nbgrad.nn.Linear(4, 3)
        >>> m
        Linear(in_features=4, out_features=3, bias=True)
        >>> m(nbgrad.randn(2, 5, 4)).shape
        nbgrad.Size([2, 5, 3])
        >>> m.weight.shape, m.bias.shape
        (nbgrad.Size([3, 4]), nbgrad.Size([3]))
        >>> nbgrad.nn.Linear(4, 3, bias=False).bias is None
        True
    """

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        new = _factory(device, dtype)
        self.in_features = in_features
        self.out_features = out_features
        self.weight = new(out_features, in_features)
        if bias:
            self.bias = new(out_features)
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        from .. import functional as F

        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class NonDynamicallyQuantizableLinear(Linear):
    """``Linear``, under the name PyTorch gives ``MultiheadAttention.out_proj``."""


class Bilinear(Module):
    r"""Apply a bilinear transformation to two inputs: :math:`y = x_1^T A x_2 + b`.

    Each output feature :math:`k` is :math:`x_1^T A_k x_2 + b_k`, with :math:`A_k` the
    ``(in1_features, in2_features)`` matrix ``weight[k]``. The functional form is
    :func:`nbgrad.nn.functional.bilinear`.

    Args:
        in1_features (int): size of each sample of the first input.
        in2_features (int): size of each sample of the second input.
        out_features (int): size of each output sample.
        bias (bool, optional): if ``False``, the layer learns no additive bias.
            Default: ``True``.
        device (nbgrad.device, optional): the device of the parameters. Default: the
            default device.
        dtype (nbgrad.dtype, optional): the dtype of the parameters. Default: the default
            dtype.

    Shape:
        - Input1: :math:`(*, H_{in1})`, with :math:`H_{in1} = \text{in1\_features}`.
        - Input2: :math:`(*, H_{in2})`, the same leading dimensions, with
          :math:`H_{in2} = \text{in2\_features}`.
        - Output: :math:`(*, H_{out})`, with :math:`H_{out} = \text{out\_features}`.

    Attributes:
        weight (Parameter): the learnable weights, of shape
            ``(out_features, in1_features, in2_features)``, drawn from
            :math:`\mathcal{U}(-\sqrt{k}, \sqrt{k})` with :math:`k = 1 / \text{in1\_features}`.
        bias (Parameter or None): the learnable bias, of shape ``(out_features,)``, drawn
            from the same distribution (``None`` when ``bias=False``).

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> m = nbgrad.nn.Bilinear(2, 3, 4)
        >>> m
        Bilinear(in1_features=2, in2_features=3, out_features=4, bias=True)
        >>> m(nbgrad.randn(5, 2), nbgrad.randn(5, 3)).shape
        nbgrad.Size([5, 4])
        >>> m.weight.shape
        nbgrad.Size([4, 2, 3])
    """

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None,
                 dtype=None):
        super().__init__()
        new = _factory(device, dtype)
        self.in1_features, self.in2_features = in1_features, in2_features
        self.out_features = out_features
        self.weight = new(out_features, in1_features, in2_features)
        if bias:
            self.bias = new(out_features)
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        from .. import functional as F

        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


class LazyLinear(LazyModuleMixin, Linear):
    """A :class:`Linear` layer whose ``in_features`` is read from its first input.

    Until the first call ``weight`` and ``bias`` are
    :class:`~nbgrad.nn.UninitializedParameter`; the first call gives them their shapes
    from the input's last dimension, initializes them as ``Linear`` does and turns the
    module into a ``Linear``.

    Args:
        out_features (int): size of each output sample.
        bias (bool, optional): if ``False``, the layer learns no additive bias.
            Default: ``True``.
        device (nbgrad.device, optional): the device of the parameters. Default: the
            default device.
        dtype (nbgrad.dtype, optional): the dtype of the parameters. Default: the default
            dtype.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.LazyLinear(3)
        >>> tuple(m(nbgrad.ones(2, 5)).shape), type(m).__name__, m.in_features
        ((2, 3), 'Linear', 5)
    """

    cls_to_become = Linear
    _in_attr = "in_features"

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        super().__init__(0, 0, False, device, dtype)
        self.out_features = out_features
        self._lazy_start(("weight", "bias") if bias else ("weight",), device, dtype)

    def initialize_parameters(self, input, *args):
        n = input.shape[-1]
        self._shape(input, n, {"weight": (self.out_features, n), "bias": (self.out_features,)})
