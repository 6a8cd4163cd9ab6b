"""Embedding and EmbeddingBag."""

from ...autograd.grad_mode import no_grad
from .. import init
from ..parameter import Parameter
from .module import Module
from .utils import _factory

__all__ = ["Embedding", "EmbeddingBag"]


def _lookup_options(layer):
    """The repr's part for the options Embedding and EmbeddingBag share (each shown when not
    its default, as PyTorch's)."""
    s = ""
    if layer.max_norm is not None:
        s += ", max_norm={max_norm}"
    if layer.norm_type != 2:
        s += ", norm_type={norm_type}"
    if layer.scale_grad_by_freq is not False:
        s += ", scale_grad_by_freq={scale_grad_by_freq}"
    return s


class Embedding(Module):
    """A lookup table of ``num_embeddings`` vectors of size ``embedding_dim``, through
    ``nn.functional.embedding``; weight initialised N(0, 1), the ``padding_idx`` row zero."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, scale_grad_by_freq=False, sparse=False, _weight=None,
                 _freeze=False, device=None, dtype=None):
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        if padding_idx is not None:
            if padding_idx > 0:
                if padding_idx >= num_embeddings:
                    raise AssertionError("Padding_idx must be within num_embeddings")
            elif padding_idx < 0:
                if padding_idx < -num_embeddings:
                    raise AssertionError("Padding_idx must be within num_embeddings")
                padding_idx = num_embeddings + padding_idx
        self.padding_idx = padding_idx
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        self.sparse = sparse
        if _weight is None:
            self.weight = _factory(device, dtype)(num_embeddings, embedding_dim)
            if _freeze:
                self.weight.requires_grad_(False)
            self.reset_parameters()
        else:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise AssertionError("Shape of weight does not match num_embeddings and embedding_dim")
            self.weight = Parameter(_weight, requires_grad=not _freeze)

    def reset_parameters(self):
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx] = 0.0

    def forward(self, input):
        from .. import functional as F

        kw = {}
        if self.padding_idx is not None:
            kw["padding_idx"] = self.padding_idx
        if self.max_norm is not None:
            kw["max_norm"] = self.max_norm
            kw["norm_type"] = self.norm_type
        if self.scale_grad_by_freq:
            kw["scale_grad_by_freq"] = True
        if self.sparse:
            kw["sparse"] = True
        return F.embedding(input, self.weight, **kw)

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, padding_idx=None, max_norm=None,
                        norm_type=2.0, scale_grad_by_freq=False, sparse=False):
        if embeddings.ndim != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        return cls(rows, cols, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse,
                   _weight=embeddings, _freeze=freeze)

    def extra_repr(self):
        s = "{num_embeddings}, {embedding_dim}"
        if self.padding_idx is not None:
            s += ", padding_idx={padding_idx}"
        s += _lookup_options(self)
        if self.sparse is not False:
            s += ", sparse=True"
        return s.format(**self.__dict__)


class EmbeddingBag(Module):
    """Sums, means or maxima of bags of embedding rows (``nn.functional.embedding_bag``);
    weight initialised N(0, 1), the ``padding_idx`` row zero."""

    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, mode="mean", sparse=False, _weight=None,
                 include_last_offset=False, padding_idx=None, device=None, dtype=None):
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq, self.mode, self.sparse = scale_grad_by_freq, mode, sparse
        self.include_last_offset = include_last_offset
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise AssertionError("padding_idx must be within num_embeddings")
            padding_idx %= num_embeddings
        self.padding_idx = padding_idx
        if _weight is None:
            self.weight = _factory(device, dtype)(num_embeddings, embedding_dim)
            self.reset_parameters()
        else:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise AssertionError("Shape of weight does not match num_embeddings and "
                                     "embedding_dim")
            self.weight = Parameter(_weight)

    reset_parameters = Embedding.reset_parameters

    def forward(self, input, offsets=None, per_sample_weights=None):
        from .. import functional as F

        return F.embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type,
                               self.scale_grad_by_freq, self.mode, self.sparse,
                               per_sample_weights, self.include_last_offset, self.padding_idx)

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, max_norm=None, norm_type=2.0,
                        scale_grad_by_freq=False, mode="mean", sparse=False,
                        include_last_offset=False, padding_idx=None):
        if embeddings.ndim != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        bag = cls(rows, cols, max_norm, norm_type, scale_grad_by_freq, mode, sparse,
                  embeddings, include_last_offset, padding_idx)
        bag.weight.requires_grad_(not freeze)
        return bag

    def extra_repr(self):
        s = "{num_embeddings}, {embedding_dim}" + _lookup_options(self) + ", mode={mode}"
        if self.padding_idx is not None:
            s += ", padding_idx={padding_idx}"
        return s.format(**dict(self.__dict__, mode=repr(self.mode)))
