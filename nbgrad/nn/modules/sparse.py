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
    r"""A lookup table of embeddings: it maps each index of the input to a learned vector.

    Row :math:`i` of ``weight`` is the vector of index :math:`i`; the output replaces each
    index by its row. Build one from existing vectors with ``Embedding.from_pretrained``.

    Args:
        num_embeddings (int): the size of the table (indices run from 0 to
            ``num_embeddings - 1``).
        embedding_dim (int): the size of each vector.
        padding_idx (int, optional): an index whose row is initialized to zeros and gets
            no gradient, so it stays fixed (a "padding" entry); negative counts from the
            end. Default: ``None``.
        max_norm (float, optional): if given, each row looked up whose ``norm_type``-norm
            exceeds ``max_norm`` is rescaled, in ``weight`` itself, to norm ``max_norm``.
            Default: ``None``.
        norm_type (float, optional): the order of the norm for ``max_norm``.
            Default: ``2.0``.
        scale_grad_by_freq (bool, optional): if ``True``, the gradient of each row is
            divided by the number of times its index occurs in the input. Default: ``False``.
        sparse (bool, optional): PyTorch's sparse gradients; nbgrad has none, and a
            forward with ``sparse=True`` raises ``NotImplementedError``. Default: ``False``.
        _weight (Tensor, optional): the initial table, of shape ``(num_embeddings,
            embedding_dim)``, used instead of a random one. Default: ``None``.
        _freeze (bool, optional): if ``True``, the table gets ``requires_grad=False``.
            Default: ``False``.
        device (nbgrad.device, optional): the device of the table. Default: the default
            device.
        dtype (nbgrad.dtype, optional): the dtype of the table. Default: the default dtype.

    Shape:
        - Input: :math:`(*)`, an integer tensor of indices of any shape.
        - Output: :math:`(*, H)`, with :math:`H` = ``embedding_dim``.

    Attributes:
        weight (Parameter): the learnable table, of shape ``(num_embeddings,
            embedding_dim)``, initialized from :math:`\mathcal{N}(0, 1)` (the
            ``padding_idx`` row zero).

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> emb = nbgrad.nn.Embedding(10, 3)
        >>> emb
        Embedding(10, 3)
        >>> emb(nbgrad.tensor([[1, 2, 4, 5], [4, 3, 2, 9]])).shape
        nbgrad.Size([2, 4, 3])
        >>> emb = nbgrad.nn.Embedding(10, 3, padding_idx=0)
        >>> emb(nbgrad.tensor([0, 2]))
        tensor([[ 0.0000,  0.0000,  0.0000],
                [-0.2303, -0.3918, -1.5810]], grad_fn=<EmbeddingBackward0>)
        >>> weights = nbgrad.tensor([[1.0, 2.3, 3.0], [4.0, 5.1, 6.3]])
        >>> emb = nbgrad.nn.Embedding.from_pretrained(weights)
        >>> emb(nbgrad.tensor([1]))
        tensor([[4.0000, 5.1000, 6.3000]])
    """

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
        r"""Create an ``Embedding`` whose table is the given 2-d tensor.

        Args:
            embeddings (Tensor): the table, of shape ``(num_embeddings, embedding_dim)``.
            freeze (bool, optional): if ``True``, the table is not trained
                (``requires_grad=False``). Default: ``True``.
            padding_idx (int, optional): as in the constructor (the row is kept as
                given, not zeroed). Default: ``None``.
            max_norm (float, optional): as in the constructor. Default: ``None``.
            norm_type (float, optional): as in the constructor. Default: ``2.0``.
            scale_grad_by_freq (bool, optional): as in the constructor.
                Default: ``False``.
            sparse (bool, optional): as in the constructor. Default: ``False``.

        Returns:
            Embedding: the layer.

        Example::

            >>> import nbgrad
            >>> weights = nbgrad.tensor([[1.0, 2.3, 3.0], [4.0, 5.1, 6.3]])
            >>> emb = nbgrad.nn.Embedding.from_pretrained(weights)
            >>> emb(nbgrad.tensor([1]))
            tensor([[4.0000, 5.1000, 6.3000]])
            >>> emb.weight.requires_grad
            False
        """
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
    r"""Compute sums, means or maxima of bags of embeddings, without building the
    embeddings in between.

    Each bag is a group of indices; its output is the sum, mean or maximum of their rows of
    ``weight``. ``forward(input, offsets=None, per_sample_weights=None)``: a 2-d ``input``
    :math:`(B, L)` holds :math:`B` bags of :math:`L` indices each (``offsets`` must be
    ``None``); a 1-d ``input`` holds the bags one after the other, ``offsets`` giving the
    position where each starts. ``per_sample_weights`` (of the input's shape, ``mode='sum'``
    only) scales each row before the sum.

    Args:
        num_embeddings (int): the size of the table.
        embedding_dim (int): the size of each vector.
        max_norm (float, optional): if given, each row looked up whose ``norm_type``-norm
            exceeds ``max_norm`` is rescaled, in ``weight`` itself, to norm ``max_norm``.
            Default: ``None``.
        norm_type (float, optional): the order of the norm for ``max_norm``.
            Default: ``2.0``.
        scale_grad_by_freq (bool, optional): if ``True``, the gradient of each row is
            divided by the number of times its index occurs in the input.
            Default: ``False``.
        mode (str, optional): ``'sum'``, ``'mean'`` or ``'max'``, the reduction over each
            bag. Default: ``'mean'``.
        sparse (bool, optional): PyTorch's sparse gradients; accepted, but the gradient of
            ``weight`` is dense in nbgrad. Default: ``False``.
        _weight (Tensor, optional): the initial table, of shape ``(num_embeddings,
            embedding_dim)``, used instead of a random one. Default: ``None``.
        include_last_offset (bool, optional): if ``True``, ``offsets`` has one more entry,
            the end of the last bag (the CSR layout). Default: ``False``.
        padding_idx (int, optional): an index whose row is initialized to zeros, gets no
            gradient and is left out of its bag (of the mean's count too); negative counts
            from the end. Default: ``None``.
        device (nbgrad.device, optional): the device of the table. Default: the default
            device.
        dtype (nbgrad.dtype, optional): the dtype of the table. Default: the default dtype.

    Shape:
        - Input: :math:`(B, L)`, or :math:`(S)` with offsets :math:`(B)` (:math:`(B + 1)`
          with ``include_last_offset=True``): integer tensors.
        - Per_sample_weights: the shape of the input.
        - Output: :math:`(B, H)`, with :math:`H` = ``embedding_dim``.

    Attributes:
        weight (Parameter): the learnable table, of shape ``(num_embeddings,
            embedding_dim)``, initialized from :math:`\mathcal{N}(0, 1)` (the
            ``padding_idx`` row zero).

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> bag = nbgrad.nn.EmbeddingBag(10, 3, mode='sum')
        >>> bag
        EmbeddingBag(10, 3, mode='sum')
        >>> input = nbgrad.tensor([1, 2, 4, 5, 4, 3, 2, 9])
        >>> bag(input, offsets=nbgrad.tensor([0, 4])).shape
        nbgrad.Size([2, 3])
        >>> weights = nbgrad.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        >>> bag = nbgrad.nn.EmbeddingBag.from_pretrained(weights)
        >>> bag(nbgrad.tensor([[0, 2], [1, 1]]))
        tensor([[3., 4.],
                [3., 4.]])
        >>> bag(nbgrad.tensor([0, 2, 1]), nbgrad.tensor([0, 2]))
        tensor([[3., 4.],
                [3., 4.]])
    """

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
        r"""Create an ``EmbeddingBag`` whose table is the given 2-d tensor.

        Args:
            embeddings (Tensor): the table, of shape ``(num_embeddings, embedding_dim)``.
            freeze (bool, optional): if ``True``, the table is not trained
                (``requires_grad=False``). Default: ``True``.
            max_norm (float, optional): as in the constructor. Default: ``None``.
            norm_type (float, optional): as in the constructor. Default: ``2.0``.
            scale_grad_by_freq (bool, optional): as in the constructor.
                Default: ``False``.
            mode (str, optional): as in the constructor. Default: ``'mean'``.
            sparse (bool, optional): as in the constructor. Default: ``False``.
            include_last_offset (bool, optional): as in the constructor.
                Default: ``False``.
            padding_idx (int, optional): as in the constructor (the row is kept as
                given, not zeroed). Default: ``None``.

        Returns:
            EmbeddingBag: the layer.

        Example::

            >>> import nbgrad
            >>> weights = nbgrad.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
            >>> bag = nbgrad.nn.EmbeddingBag.from_pretrained(weights, mode='max')
            >>> bag(nbgrad.tensor([[0, 2], [1, 1]]))
            tensor([[5., 6.],
                    [3., 4.]])
        """
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
