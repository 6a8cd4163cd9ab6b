"""Dropout and its channel and alpha forms."""

from .module import Module

__all__ = ["Dropout", "Dropout2d", "Dropout1d", "Dropout3d", "AlphaDropout",
           "FeatureAlphaDropout"]


class Dropout(Module):
    r"""Randomly zero elements of the input while training, a regularizer.

    In training mode each element is zeroed with probability ``p``, independently, and the
    others are scaled by :math:`\frac{1}{1 - p}`, so that the expected value of every
    element is unchanged; in evaluation mode (``eval()``) the layer returns its input. The
    draws come from nbgrad's random generator (``nbgrad.manual_seed`` fixes them).

    Args:
        p (float, optional): the probability of zeroing an element, in :math:`[0, 1]` (a
            ``ValueError`` otherwise). Default: ``0.5``.
        inplace (bool, optional): write the result into the input and return it (while
            training, the input must then not be a leaf that requires grad).
            Default: ``False``.

    Shape:
        - Input: :math:`(*)`, any number of dimensions.
        - Output: :math:`(*)`, the shape of the input.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> m = nbgrad.nn.Dropout(p=0.5)
        >>> m
        Dropout(p=0.5, inplace=False)
        >>> x = nbgrad.ones(2, 4)
        >>> m(x)
        tensor([[0., 0., 2., 0.],
                [0., 0., 2., 2.]])
        >>> _ = m.eval()
        >>> m(x)
        tensor([[1., 1., 1., 1.],
                [1., 1., 1., 1.]])
    """

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input):
        from .. import functional as F

        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


def _variant(name, fn, doc):
    """A ``Dropout`` whose forward is ``F.<fn>(input, p, training, inplace)``."""
    def forward(self, input):
        from .. import functional as F

        return getattr(F, fn)(input, self.p, self.training, self.inplace)

    return type(name, (Dropout,), {"forward": forward, "__doc__": doc, "__module__": __name__})


Dropout1d = _variant("Dropout1d", "dropout1d", r"""
    Randomly zero whole channels of 1-d feature maps while training.

    In training mode each channel (a row of length :math:`L`) is zeroed with probability
    ``p``, independently per sample, and the others are scaled by :math:`\frac{1}{1 - p}`;
    in evaluation mode the layer returns its input. Where neighbouring positions are
    strongly correlated (as after a convolution) this regularizes better than ``Dropout``.

    Args:
        p (float, optional): the probability of zeroing a channel, in :math:`[0, 1]`.
            Default: ``0.5``.
        inplace (bool, optional): write the result into the input and return it (while
            training, the input must then not be a leaf that requires grad).
            Default: ``False``.

    Shape:
        - Input: :math:`(N, C, L)` or :math:`(C, L)`.
        - Output: the shape of the input.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> m = nbgrad.nn.Dropout1d(p=0.5)
        >>> y = m(nbgrad.ones(2, 4, 3))
        >>> y[0]
        tensor([[0., 0., 0.],
                [0., 0., 0.],
                [2., 2., 2.],
                [0., 0., 0.]])
    """)
Dropout2d = _variant("Dropout2d", "dropout2d", r"""
    Randomly zero whole channels of 2-d feature maps while training.

    In training mode each channel (an :math:`H \times W` map) is zeroed with probability
    ``p``, independently per sample, and the others are scaled by :math:`\frac{1}{1 - p}`;
    in evaluation mode the layer returns its input. As PyTorch's, a 3-dimensional input is
    read, with a warning, as :math:`(N, C, L)` (channel-wise 1-d dropout), not as one
    unbatched :math:`(C, H, W)` sample, and other ranks as :math:`(N, C, *)`.

    Args:
        p (float, optional): the probability of zeroing a channel, in :math:`[0, 1]`.
            Default: ``0.5``.
        inplace (bool, optional): write the result into the input and return it (while
            training, the input must then not be a leaf that requires grad).
            Default: ``False``.

    Shape:
        - Input: :math:`(N, C, H, W)`.
        - Output: the shape of the input.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> m = nbgrad.nn.Dropout2d(p=0.5)
        >>> y = m(nbgrad.ones(1, 4, 2, 2))
        >>> y.shape
        nbgrad.Size([1, 4, 2, 2])
        >>> y[0, :, 0, 0]
        tensor([0., 0., 2., 0.])
    """)
Dropout3d = _variant("Dropout3d", "dropout3d", r"""
    Randomly zero whole channels of 3-d feature maps while training.

    In training mode each channel (a :math:`D \times H \times W` volume) is zeroed with
    probability ``p``, independently per sample, and the others are scaled by
    :math:`\frac{1}{1 - p}`; in evaluation mode the layer returns its input.

    Args:
        p (float, optional): the probability of zeroing a channel, in :math:`[0, 1]`.
            Default: ``0.5``.
        inplace (bool, optional): write the result into the input and return it (while
            training, the input must then not be a leaf that requires grad).
            Default: ``False``.

    Shape:
        - Input: :math:`(N, C, D, H, W)` or :math:`(C, D, H, W)`.
        - Output: the shape of the input.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> m = nbgrad.nn.Dropout3d(p=0.5)
        >>> y = m(nbgrad.ones(1, 4, 2, 2, 2))
        >>> y.shape
        nbgrad.Size([1, 4, 2, 2, 2])
        >>> y[0, :, 0, 0, 0]
        tensor([0., 0., 2., 0.])
    """)
AlphaDropout = _variant("AlphaDropout", "alpha_dropout", r"""
    Randomly drop elements while training, keeping the mean and variance of the input (for
    ``SELU`` networks).

    In training mode each element is dropped with probability ``p`` and set to SELU's
    negative saturation value, :math:`-\lambda \alpha \approx -1.7581`, instead of zero;
    then every element is transformed by the affine map that restores a zero mean and unit
    variance for a standard-normal input (as in "Self-Normalizing Neural Networks"). In
    evaluation mode the layer returns its input.

    Args:
        p (float, optional): the probability of dropping an element, in :math:`[0, 1]`.
            Default: ``0.5``.
        inplace (bool, optional): write the result into the input and return it (while
            training, the input must then not be a leaf that requires grad).
            Default: ``False``.

    Shape:
        - Input: :math:`(*)`, any number of dimensions.
        - Output: :math:`(*)`, the shape of the input.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> m = nbgrad.nn.AlphaDropout(p=0.5)
        >>> m(nbgrad.zeros(6))
        tensor([-0.7792, -0.7792,  0.7792, -0.7792, -0.7792, -0.7792])
        >>> _ = m.eval()
        >>> m(nbgrad.zeros(6))
        tensor([0., 0., 0., 0., 0., 0.])
    """)
FeatureAlphaDropout = _variant("FeatureAlphaDropout", "feature_alpha_dropout", r"""
    Randomly drop whole channels while training, as ``AlphaDropout`` does elements.

    In training mode each channel (dimension 1 of a batch, with everything after it) is
    dropped with probability ``p``, independently per sample, taking SELU's negative
    saturation value; then the affine map of ``AlphaDropout`` keeps the mean and variance.
    In evaluation mode the layer returns its input.

    Args:
        p (float, optional): the probability of dropping a channel, in :math:`[0, 1]`.
            Default: ``0.5``.
        inplace (bool, optional): write the result into the input and return it (while
            training, the input must then not be a leaf that requires grad).
            Default: ``False``.

    Shape:
        - Input: :math:`(N, C, *)`, such as :math:`(N, C, D, H, W)`.
        - Output: the shape of the input.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> m = nbgrad.nn.FeatureAlphaDropout(p=0.5)
        >>> m(nbgrad.zeros(1, 4, 3))
        tensor([[[-0.7792, -0.7792, -0.7792],
                 [-0.7792, -0.7792, -0.7792],
                 [ 0.7792,  0.7792,  0.7792],
                 [-0.7792, -0.7792, -0.7792]]])
    """)
