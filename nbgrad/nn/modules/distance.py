"""PairwiseDistance and CosineSimilarity (``F.pairwise_distance`` /
``F.cosine_similarity``)."""

from .module import Module

__all__ = ["PairwiseDistance", "CosineSimilarity"]


class PairwiseDistance(Module):
    """The ``p``-norm distance between the rows of two inputs (last dim)."""

    def __init__(self, p=2.0, eps=1e-6, keepdim=False):
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def forward(self, x1, x2):
        from .. import functional as F

        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class CosineSimilarity(Module):
    """The cosine similarity of two inputs along ``dim``."""

    def __init__(self, dim=1, eps=1e-8):
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1, x2):
        from .. import functional as F

        return F.cosine_similarity(x1, x2, self.dim, self.eps)
