"""Padding layers (``F.pad`` with a fixed padding and mode): ZeroPad, ConstantPad,
ReflectionPad, ReplicationPad and CircularPad for 1-d, 2-d and 3-d inputs, with PyTorch's
reprs."""

from .module import Module

__all__ = []


def _layer(name, mode, dims, constant, doc):
    def _setup(self, padding, value):
        Module.__init__(self)
        if isinstance(padding, int):
            padding = (padding,) * (2 * dims)
        self.padding = tuple(padding)
        if constant:
            self.value = value

    # PyTorch's signatures: ConstantPad's value is required, the others take none
    if name.startswith("Constant"):
        def __init__(self, padding, value):
            _setup(self, padding, value)
    else:
        def __init__(self, padding):
            _setup(self, padding, 0.0)
    __init__.__qualname__ = f"{name}.__init__"  # (named in a wrong call's TypeError)

    def forward(self, input):
        from .. import functional as F

        if mode == "constant":
            return F.pad(input, self.padding, "constant", self.value)
        return F.pad(input, self.padding, mode)

    def extra_repr(self):
        if name.startswith("Constant"):
            return f"padding={self.padding}, value={self.value}"
        return f"{self.padding}"

    cls = type(name, (Module,), {"__init__": __init__, "forward": forward,
                                  "extra_repr": extra_repr, "__doc__": doc,
                                  "__module__": __name__})
    __all__.append(name)
    return cls


ZeroPad1d = _layer("ZeroPad1d", "constant", 1, True, r"""
    Pad the last dimension of the input with zeros.

    Args:
        padding (int or tuple): the padding size: an int for both sides, or
            ``(left, right)``. Negative sizes crop.

    Shape:
        - Input: :math:`(C, W_{in})` or :math:`(N, C, W_{in})`.
        - Output: :math:`(C, W_{out})` or :math:`(N, C, W_{out})`, with
          :math:`W_{out} = W_{in} + \text{left} + \text{right}`.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.ZeroPad1d((1, 2))
        >>> m
        ZeroPad1d((1, 2))
        >>> m(nbgrad.tensor([[[1.0, 2.0, 3.0]]]))
        tensor([[[0., 1., 2., 3., 0., 0.]]])
    """)
ZeroPad2d = _layer("ZeroPad2d", "constant", 2, True, r"""
    Pad the last two dimensions of the input with zeros.

    Args:
        padding (int or tuple): the padding size: an int for all four sides, or
            ``(left, right, top, bottom)``. Negative sizes crop.

    Shape:
        - Input: :math:`(C, H_{in}, W_{in})` or :math:`(N, C, H_{in}, W_{in})`.
        - Output: :math:`(C, H_{out}, W_{out})` or :math:`(N, C, H_{out}, W_{out})`, with
          :math:`H_{out} = H_{in} + \text{top} + \text{bottom}` and
          :math:`W_{out} = W_{in} + \text{left} + \text{right}`.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.ZeroPad2d((1, 0, 0, 1))
        >>> m
        ZeroPad2d((1, 0, 0, 1))
        >>> m(nbgrad.tensor([[[1.0, 2.0], [3.0, 4.0]]]))
        tensor([[[0., 1., 2.],
                 [0., 3., 4.],
                 [0., 0., 0.]]])
    """)
ZeroPad3d = _layer("ZeroPad3d", "constant", 3, True, r"""
    Pad the last three dimensions of the input with zeros.

    Args:
        padding (int or tuple): the padding size: an int for all six sides, or
            ``(left, right, top, bottom, front, back)``. Negative sizes crop.

    Shape:
        - Input: :math:`(C, D_{in}, H_{in}, W_{in})` or :math:`(N, C, D_{in}, H_{in}, W_{in})`.
        - Output: :math:`(C, D_{out}, H_{out}, W_{out})` or
          :math:`(N, C, D_{out}, H_{out}, W_{out})`, with
          :math:`D_{out} = D_{in} + \text{front} + \text{back}`,
          :math:`H_{out} = H_{in} + \text{top} + \text{bottom}` and
          :math:`W_{out} = W_{in} + \text{left} + \text{right}`.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.ZeroPad3d(1)
        >>> m
        ZeroPad3d((1, 1, 1, 1, 1, 1))
        >>> m(nbgrad.ones(1, 2, 3, 4, 5)).shape
        nbgrad.Size([1, 2, 5, 6, 7])
    """)
ConstantPad1d = _layer("ConstantPad1d", "constant", 1, True, r"""
    Pad the last dimension of the input with a constant value.

    Args:
        padding (int or tuple): the padding size: an int for both sides, or
            ``(left, right)``. Negative sizes crop.
        value (float, optional): the fill value. Default: ``0.0`` (PyTorch requires it).

    Shape:
        - Input: :math:`(C, W_{in})` or :math:`(N, C, W_{in})`.
        - Output: :math:`(C, W_{out})` or :math:`(N, C, W_{out})`, with
          :math:`W_{out} = W_{in} + \text{left} + \text{right}`.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.ConstantPad1d((2, 1), 9.0)
        >>> m
        ConstantPad1d(padding=(2, 1), value=9.0)
        >>> m(nbgrad.tensor([[1.0, 2.0, 3.0]]))
        tensor([[9., 9., 1., 2., 3., 9.]])
    """)
ConstantPad2d = _layer("ConstantPad2d", "constant", 2, True, r"""
    Pad the last two dimensions of the input with a constant value.

    Args:
        padding (int or tuple): the padding size: an int for all four sides, or
            ``(left, right, top, bottom)``. Negative sizes crop.
        value (float, optional): the fill value. Default: ``0.0`` (PyTorch requires it).

    Shape:
        - Input: :math:`(C, H_{in}, W_{in})` or :math:`(N, C, H_{in}, W_{in})`.
        - Output: :math:`(C, H_{out}, W_{out})` or :math:`(N, C, H_{out}, W_{out})`, with
          :math:`H_{out} = H_{in} + \text{top} + \text{bottom}` and
          :math:`W_{out} = W_{in} + \text{left} + \text{right}`.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.ConstantPad2d(1, -1.0)
        >>> m
        ConstantPad2d(padding=(1, 1, 1, 1), value=-1.0)
        >>> m(nbgrad.tensor([[[1.0, 2.0], [3.0, 4.0]]]))
        tensor([[[-1., -1., -1., -1.],
                 [-1.,  1.,  2., -1.],
                 [-1.,  3.,  4., -1.],
                 [-1., -1., -1., -1.]]])
    """)
ConstantPad3d = _layer("ConstantPad3d", "constant", 3, True, r"""
    Pad the last three dimensions of the input with a constant value.

    Args:
        padding (int or tuple): the padding size: an int for all six sides, or
            ``(left, right, top, bottom, front, back)``. Negative sizes crop.
        value (float, optional): the fill value. Default: ``0.0`` (PyTorch requires it).

    Shape:
        - Input: :math:`(C, D_{in}, H_{in}, W_{in})` or :math:`(N, C, D_{in}, H_{in}, W_{in})`.
        - Output: :math:`(C, D_{out}, H_{out}, W_{out})` or
          :math:`(N, C, D_{out}, H_{out}, W_{out})`, with
          :math:`D_{out} = D_{in} + \text{front} + \text{back}`,
          :math:`H_{out} = H_{in} + \text{top} + \text{bottom}` and
          :math:`W_{out} = W_{in} + \text{left} + \text{right}`.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.ConstantPad3d((1, 0, 0, 1, 1, 1), 0.5)
        >>> m
        ConstantPad3d(padding=(1, 0, 0, 1, 1, 1), value=0.5)
        >>> m(nbgrad.ones(1, 1, 2, 2, 2)).shape
        nbgrad.Size([1, 1, 4, 3, 3])
    """)
ReflectionPad1d = _layer("ReflectionPad1d", "reflect", 1, False, r"""
    Pad the last dimension of the input with its reflection at the border.

    The padding mirrors the input about its edge element, which is not repeated: each
    padding size must be less than the size of the dimension.

    Args:
        padding (int or tuple): the padding size: an int for both sides, or
            ``(left, right)``.

    Shape:
        - Input: :math:`(C, W_{in})` or :math:`(N, C, W_{in})`.
        - Output: :math:`(C, W_{out})` or :math:`(N, C, W_{out})`, with
          :math:`W_{out} = W_{in} + \text{left} + \text{right}`.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.ReflectionPad1d((2, 1))
        >>> m
        ReflectionPad1d((2, 1))
        >>> m(nbgrad.tensor([[[1.0, 2.0, 3.0, 4.0]]]))
        tensor([[[3., 2., 1., 2., 3., 4., 3.]]])
    """)
ReflectionPad2d = _layer("ReflectionPad2d", "reflect", 2, False, r"""
    Pad the last two dimensions of the input with its reflection at the border.

    The padding mirrors the input about its edge elements, which are not repeated: each
    padding size must be less than the size of its dimension.

    Args:
        padding (int or tuple): the padding size: an int for all four sides, or
            ``(left, right, top, bottom)``.

    Shape:
        - Input: :math:`(C, H_{in}, W_{in})` or :math:`(N, C, H_{in}, W_{in})`.
        - Output: :math:`(C, H_{out}, W_{out})` or :math:`(N, C, H_{out}, W_{out})`, with
          :math:`H_{out} = H_{in} + \text{top} + \text{bottom}` and
          :math:`W_{out} = W_{in} + \text{left} + \text{right}`.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.ReflectionPad2d((1, 1, 0, 1))
        >>> m
        ReflectionPad2d((1, 1, 0, 1))
        >>> m(nbgrad.tensor([[[1.0, 2.0], [3.0, 4.0]]]))
        tensor([[[2., 1., 2., 1.],
                 [4., 3., 4., 3.],
                 [2., 1., 2., 1.]]])
    """)
ReflectionPad3d = _layer("ReflectionPad3d", "reflect", 3, False, r"""
    Pad the last three dimensions of the input with its reflection at the border.

    The padding mirrors the input about its edge elements, which are not repeated: each
    padding size must be less than the size of its dimension.

    Args:
        padding (int or tuple): the padding size: an int for all six sides, or
            ``(left, right, top, bottom, front, back)``.

    Shape:
        - Input: :math:`(C, D_{in}, H_{in}, W_{in})` or :math:`(N, C, D_{in}, H_{in}, W_{in})`.
        - Output: :math:`(C, D_{out}, H_{out}, W_{out})` or
          :math:`(N, C, D_{out}, H_{out}, W_{out})`, with
          :math:`D_{out} = D_{in} + \text{front} + \text{back}`,
          :math:`H_{out} = H_{in} + \text{top} + \text{bottom}` and
          :math:`W_{out} = W_{in} + \text{left} + \text{right}`.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.ReflectionPad3d(1)
        >>> y = m(nbgrad.arange(8.0).reshape(1, 2, 2, 2))
        >>> y.shape
        nbgrad.Size([1, 4, 4, 4])
        >>> y[0, 0]
        tensor([[7., 6., 7., 6.],
                [5., 4., 5., 4.],
                [7., 6., 7., 6.],
                [5., 4., 5., 4.]])
    """)
ReplicationPad1d = _layer("ReplicationPad1d", "replicate", 1, False, r"""
    Pad the last dimension of the input by repeating its edge values.

    Args:
        padding (int or tuple): the padding size: an int for both sides, or
            ``(left, right)``.

    Shape:
        - Input: :math:`(C, W_{in})` or :math:`(N, C, W_{in})`.
        - Output: :math:`(C, W_{out})` or :math:`(N, C, W_{out})`, with
          :math:`W_{out} = W_{in} + \text{left} + \text{right}`.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.ReplicationPad1d((2, 1))
        >>> m
        ReplicationPad1d((2, 1))
        >>> m(nbgrad.tensor([[[1.0, 2.0, 3.0]]]))
        tensor([[[1., 1., 1., 2., 3., 3.]]])
    """)
ReplicationPad2d = _layer("ReplicationPad2d", "replicate", 2, False, r"""
    Pad the last two dimensions of the input by repeating its edge values.

    Args:
        padding (int or tuple): the padding size: an int for all four sides, or
            ``(left, right, top, bottom)``.

    Shape:
        - Input: :math:`(C, H_{in}, W_{in})` or :math:`(N, C, H_{in}, W_{in})`.
        - Output: :math:`(C, H_{out}, W_{out})` or :math:`(N, C, H_{out}, W_{out})`, with
          :math:`H_{out} = H_{in} + \text{top} + \text{bottom}` and
          :math:`W_{out} = W_{in} + \text{left} + \text{right}`.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.ReplicationPad2d((1, 0, 0, 1))
        >>> m
        ReplicationPad2d((1, 0, 0, 1))
        >>> m(nbgrad.tensor([[[1.0, 2.0], [3.0, 4.0]]]))
        tensor([[[1., 1., 2.],
                 [3., 3., 4.],
                 [3., 3., 4.]]])
    """)
ReplicationPad3d = _layer("ReplicationPad3d", "replicate", 3, False, r"""
    Pad the last three dimensions of the input by repeating its edge values.

    Args:
        padding (int or tuple): the padding size: an int for all six sides, or
            ``(left, right, top, bottom, front, back)``.

    Shape:
        - Input: :math:`(C, D_{in}, H_{in}, W_{in})` or :math:`(N, C, D_{in}, H_{in}, W_{in})`.
        - Output: :math:`(C, D_{out}, H_{out}, W_{out})` or
          :math:`(N, C, D_{out}, H_{out}, W_{out})`, with
          :math:`D_{out} = D_{in} + \text{front} + \text{back}`,
          :math:`H_{out} = H_{in} + \text{top} + \text{bottom}` and
          :math:`W_{out} = W_{in} + \text{left} + \text{right}`.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.ReplicationPad3d(1)
        >>> y = m(nbgrad.arange(8.0).reshape(1, 2, 2, 2))
        >>> y.shape
        nbgrad.Size([1, 4, 4, 4])
        >>> y[0, 0]
        tensor([[0., 0., 1., 1.],
                [0., 0., 1., 1.],
                [2., 2., 3., 3.],
                [2., 2., 3., 3.]])
    """)
CircularPad1d = _layer("CircularPad1d", "circular", 1, False, r"""
    Pad the last dimension of the input circularly: with the values from its other end.

    Args:
        padding (int or tuple): the padding size: an int for both sides, or
            ``(left, right)``.

    Shape:
        - Input: :math:`(C, W_{in})` or :math:`(N, C, W_{in})`.
        - Output: :math:`(C, W_{out})` or :math:`(N, C, W_{out})`, with
          :math:`W_{out} = W_{in} + \text{left} + \text{right}`.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.CircularPad1d((2, 1))
        >>> m
        CircularPad1d((2, 1))
        >>> m(nbgrad.tensor([[[1.0, 2.0, 3.0, 4.0]]]))
        tensor([[[3., 4., 1., 2., 3., 4., 1.]]])
    """)
CircularPad2d = _layer("CircularPad2d", "circular", 2, False, r"""
    Pad the last two dimensions of the input circularly: with the values from their other
    ends, as if the input tiled the plane.

    Args:
        padding (int or tuple): the padding size: an int for all four sides, or
            ``(left, right, top, bottom)``.

    Shape:
        - Input: :math:`(C, H_{in}, W_{in})` or :math:`(N, C, H_{in}, W_{in})`.
        - Output: :math:`(C, H_{out}, W_{out})` or :math:`(N, C, H_{out}, W_{out})`, with
          :math:`H_{out} = H_{in} + \text{top} + \text{bottom}` and
          :math:`W_{out} = W_{in} + \text{left} + \text{right}`.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.CircularPad2d((1, 0, 0, 1))
        >>> m
        CircularPad2d((1, 0, 0, 1))
        >>> m(nbgrad.tensor([[[1.0, 2.0], [3.0, 4.0]]]))
        tensor([[[2., 1., 2.],
                 [4., 3., 4.],
                 [2., 1., 2.]]])
    """)
CircularPad3d = _layer("CircularPad3d", "circular", 3, False, r"""
    Pad the last three dimensions of the input circularly: with the values from their
    other ends.

    Args:
        padding (int or tuple): the padding size: an int for all six sides, or
            ``(left, right, top, bottom, front, back)``.

    Shape:
        - Input: :math:`(C, D_{in}, H_{in}, W_{in})` or :math:`(N, C, D_{in}, H_{in}, W_{in})`.
        - Output: :math:`(C, D_{out}, H_{out}, W_{out})` or
          :math:`(N, C, D_{out}, H_{out}, W_{out})`, with
          :math:`D_{out} = D_{in} + \text{front} + \text{back}`,
          :math:`H_{out} = H_{in} + \text{top} + \text{bottom}` and
          :math:`W_{out} = W_{in} + \text{left} + \text{right}`.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.CircularPad3d(1)
        >>> m(nbgrad.ones(1, 1, 2, 3, 4)).shape
        nbgrad.Size([1, 1, 4, 5, 6])
    """)
