"""Identity, Linear, Bilinear and LazyLinear."""

import math

from .. import init
from .lazy import LazyModuleMixin
from .module import Module
from .utils import _factory

__all__ = ["Identity", "Linear", "NonDynamicallyQuantizableLinear", "Bilinear", "LazyLinear"]


class Identity(Module):
    """Returns its input."""

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
    """``y = x1 @ weight @ x2 + bias`` per output feature; weight ``(out_features,
    in1_features, in2_features)``, initialised as PyTorch: U(-1/sqrt(in1), 1/sqrt(in1))."""

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
    """A ``Linear`` layer whose ``in_features`` is the first input's last dim.

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
