"""Activation layers: ReLU, GELU, Tanh, Sigmoid, Softmax, LogSoftmax."""

from .module import Module

__all__ = ["ReLU", "GELU", "Tanh", "Sigmoid", "Softmax", "LogSoftmax"]


class ReLU(Module):
    """``max(x, 0)``. ``inplace=True`` is accepted; the result is computed out of place."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        from .. import functional as F

        return F.relu(input)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""



class GELU(Module):
    """Gaussian error linear unit (``approximate='none'`` or ``'tanh'``)."""

    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        from .. import functional as F

        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"



class Tanh(Module):
    def forward(self, input):
        from .. import functional as F

        return F.tanh(input)



class Sigmoid(Module):
    def forward(self, input):
        from .. import functional as F

        return F.sigmoid(input)


class Softmax(Module):
    """``softmax`` along ``dim`` (None: PyTorch's legacy choice of dim, with its warning).

    Example::

        >>> import nbgrad
        >>> Softmax(dim=1)(nbgrad.zeros(1, 4))
        tensor([[0.2500, 0.2500, 0.2500, 0.2500]])
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
    """``log_softmax`` along ``dim``."""

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        from .. import functional as F

        return F.log_softmax(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"
