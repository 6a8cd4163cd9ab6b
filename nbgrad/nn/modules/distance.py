"""PairwiseDistance and CosineSimilarity (``F.pairwise_distance`` /
``F.cosine_similarity``)."""

from .module import Module

__all__ = ["PairwiseDistance", "CosineSimilarity"]


class PairwiseDistance(Module):
    r"""Compute the p-norm distance between corresponding vectors of two inputs.

    The vectors lie along the last dimension:
    :math:`\text{dist}(x_1, x_2) = \lVert x_1 - x_2 + \epsilon \rVert_p`, the small
    :math:`\epsilon` added to every difference keeping the gradient finite where the
    vectors are equal.

    Args:
        p (float, optional): the order of the norm (may be negative). Default: ``2.0``.
        eps (float, optional): the :math:`\epsilon` added to the differences.
            Default: ``1e-6``.
        keepdim (bool, optional): whether to keep the last dimension, with size 1.
            Default: ``False``.

    Shape:
        - Input1: :math:`(N, D)` or :math:`(D)`, with :math:`D` the vectors' size.
        - Input2: :math:`(N, D)` or :math:`(D)`, broadcastable with input1.
        - Output: :math:`(N)` or :math:`()`; :math:`(N, 1)` or :math:`(1)` with
          ``keepdim=True``.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.PairwiseDistance()
        >>> x1 = nbgrad.tensor([[0.0, 0.0], [1.0, 2.0]])
        >>> x2 = nbgrad.tensor([[3.0, 4.0], [1.0, 1.0]])
        >>> m(x1, x2)
        tensor([5.0000, 1.0000])
        >>> nbgrad.nn.PairwiseDistance(p=1.0, keepdim=True)(x1, x2)
        tensor([[7.0000],
                [1.0000]])
    """

    def __init__(self, p=2.0, eps=1e-6, keepdim=False):
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def forward(self, x1, x2):
        from .. import functional as F

        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class CosineSimilarity(Module):
    r"""Compute the cosine similarity of two inputs along a dimension.

    :math:`\text{similarity} = \frac{x_1}{\max(\lVert x_1 \rVert_2, \epsilon)} \cdot
    \frac{x_2}{\max(\lVert x_2 \rVert_2, \epsilon)}`, the dot product and norms taken along
    ``dim``: 1 for vectors pointing the same way, -1 for opposite ones, 0 for orthogonal
    ones.

    Args:
        dim (int, optional): the dimension of the vectors. Default: ``1``.
        eps (float, optional): the floor of each norm, against division by zero.
            Default: ``1e-8``.

    Shape:
        - Input1: :math:`(*_1, D, *_2)`, with :math:`D` at position ``dim``.
        - Input2: :math:`(*_1, D, *_2)`, broadcastable with input1.
        - Output: :math:`(*_1, *_2)`, the broadcast shape without ``dim``.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.CosineSimilarity(dim=1)
        >>> x1 = nbgrad.tensor([[1.0, 0.0], [1.0, 1.0], [2.0, 0.0]])
        >>> x2 = nbgrad.tensor([[0.0, 1.0], [2.0, 2.0], [-1.0, 0.0]])
        >>> m(x1, x2)
        tensor([ 0.0000,  1.0000, -1.0000])
    """

    def __init__(self, dim=1, eps=1e-8):
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1, x2):
        from .. import functional as F

        return F.cosine_similarity(x1, x2, self.dim, self.eps)
