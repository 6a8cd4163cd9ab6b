"""Flatten and Unflatten."""

from .module import Module

__all__ = ["Flatten", "Unflatten"]


class Flatten(Module):
    r"""Flatten a contiguous range of dimensions into one.

    By default every dimension but the first (the batch) is flattened, which turns a batch
    of feature maps into a batch of vectors, as before a ``Linear`` layer.

    Args:
        start_dim (int, optional): the first dimension to flatten. Default: ``1``.
        end_dim (int, optional): the last dimension to flatten (negative counts from the
            end). Default: ``-1``.

    Shape:
        - Input: :math:`(*, S_{\text{start}}, ..., S_{\text{end}}, *)`, any number of
          dimensions (at least ``start_dim + 1``).
        - Output: :math:`(*, \prod_{i=\text{start}}^{\text{end}} S_i, *)`.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.Flatten()
        >>> m
        Flatten(start_dim=1, end_dim=-1)
        >>> m(nbgrad.zeros(2, 3, 4, 5)).shape
        nbgrad.Size([2, 60])
        >>> nbgrad.nn.Flatten(0, 2)(nbgrad.zeros(2, 3, 4, 5)).shape
        nbgrad.Size([24, 5])
    """

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    r"""Unflatten one dimension into several: the inverse of ``Flatten``.

    Args:
        dim (int): the dimension to split (negative counts from the end).
        unflattened_size (tuple or list of ints): the sizes it is split into; their
            product must be the size of ``dim``, and one of them may be -1, to be inferred.

    Shape:
        - Input: :math:`(*, S_{\text{dim}}, *)`, any number of dimensions.
        - Output: :math:`(*, U_1, ..., U_n, *)`, with :math:`U` = ``unflattened_size`` and
          :math:`\prod_i U_i = S_{\text{dim}}`.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.Unflatten(1, (2, 3))
        >>> m
        Unflatten(dim=1, unflattened_size=(2, 3))
        >>> m(nbgrad.zeros(4, 6)).shape
        nbgrad.Size([4, 2, 3])
        >>> nbgrad.nn.Unflatten(-1, (2, -1))(nbgrad.zeros(4, 6)).shape
        nbgrad.Size([4, 2, 3])
    """

    def __init__(self, dim, unflattened_size):
        super().__init__()
        if not isinstance(unflattened_size, (tuple, list)):
            raise TypeError("unflattened_size must be a tuple of ints, but found type "
                            f"{type(unflattened_size).__name__}")
        for i, s in enumerate(unflattened_size):
            if not isinstance(s, int):
                raise TypeError("unflattened_size must be tuple of ints, but found element "
                                f"of type {type(s).__name__} at pos {i}")
        self.dim, self.unflattened_size = dim, unflattened_size

    def forward(self, input):
        shape = tuple(input.shape)
        d = self.dim + len(shape) if self.dim < 0 else self.dim
        if not 0 <= d < len(shape):
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-len(shape)}, {len(shape) - 1}], but got {self.dim})")
        return input.reshape(shape[:d] + tuple(self.unflattened_size) + shape[d + 1:])

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={tuple(self.unflattened_size)}"
