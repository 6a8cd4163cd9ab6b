"""Transformer layers: TransformerEncoderLayer, TransformerEncoder, TransformerDecoderLayer,
TransformerDecoder, Transformer (of ``activation.MultiheadAttention``), with PyTorch's
parameter names, initialisation, masks, defaults, ``batch_first`` and ``norm_first``.
Composed of nbgrad ops, so they run on every device and differentiate twice."""

import copy

from ...creation import full
from ...ops.selection import triu
from .. import init
from .activation import MultiheadAttention
from .container import ModuleList
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .normalization import LayerNorm

__all__ = ["TransformerEncoderLayer", "TransformerEncoder", "TransformerDecoderLayer",
           "TransformerDecoder", "Transformer"]


def _activation(activation):
    if callable(activation):
        return activation
    from .. import functional as F

    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


def _build(layer, d_model, nhead, dim_feedforward, dropout, activation, eps, batch_first,
           norm_first, bias, kw, cross):
    """An encoder (``cross=False``) or decoder layer's submodules, registered in PyTorch's
    order (its state_dict keys): attention(s), feed-forward, norms, dropouts."""
    layer.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                         batch_first=batch_first, **kw)
    if cross:
        layer.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                                  batch_first=batch_first, **kw)
    layer.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kw)
    layer.dropout = Dropout(dropout)
    layer.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kw)
    layer.norm_first = norm_first
    for k in range(1, 4 if cross else 3):
        setattr(layer, f"norm{k}", LayerNorm(d_model, eps=eps, bias=bias, **kw))
    for k in range(1, 4 if cross else 3):
        setattr(layer, f"dropout{k}", Dropout(dropout))
    layer.activation = _activation(activation)


class _TransformerLayer(Module):
    """What the encoder and decoder layers share: the constructor (``_cross``: the decoder's
    attention over the memory) and the self-attention block."""

    _cross = False

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu",
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True,
                 device=None, dtype=None):
        super().__init__()
        _build(self, d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
               batch_first, norm_first, bias, dict(device=device, dtype=dtype), cross=self._cross)

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           need_weights=False, is_causal=is_causal)[0]
        return self.dropout1(x)


class TransformerEncoderLayer(_TransformerLayer):
    r"""One layer of a Transformer encoder: self-attention, then a feed-forward network.

    From Vaswani et al., "Attention Is All You Need". Each of the two blocks (a
    :class:`~nbgrad.nn.MultiheadAttention` of the input with itself, and
    ``linear2(dropout(activation(linear1(x))))``) is followed by dropout and added to its
    input, the sum layer-normalized (``norm_first=False``: ``x = norm(x + block(x))``);
    with ``norm_first`` the norm comes first (``x = x + block(norm(x))``).

    ``forward(src, src_mask=None, src_key_padding_mask=None, is_causal=False)``: the
    masks are :class:`~nbgrad.nn.MultiheadAttention`'s ``attn_mask`` (which positions a
    position may attend to) and ``key_padding_mask`` (which keys of each sequence are
    padding); ``is_causal`` tells that ``src_mask`` is the causal mask.

    Args:
        d_model (int): the number of features of the input (the embedding size).
        nhead (int): the number of attention heads; it must divide ``d_model``.
        dim_feedforward (int, optional): the hidden size of the feed-forward network.
            Default: ``2048``.
        dropout (float, optional): the dropout probability. Default: ``0.1``.
        activation (str or callable, optional): the feed-forward network's activation,
            ``"relu"``, ``"gelu"`` or a function of one tensor. Default: ``"relu"``.
        layer_norm_eps (float, optional): the ``eps`` of the layer norms.
            Default: ``1e-5``.
        batch_first (bool, optional): take and give ``(batch, seq, feature)`` tensors
            rather than ``(seq, batch, feature)``. Default: ``False``.
        norm_first (bool, optional): normalize before each block rather than after.
            Default: ``False``.
        bias (bool, optional): give the linear layers and layer norms biases.
            Default: ``True``.
        device (nbgrad.device, optional): the device of the parameters. Default: the
            default device.
        dtype (nbgrad.dtype, optional): the dtype of the parameters. Default: the default
            dtype.

    Shape:
        - src: :math:`(S, N, E)`, :math:`(N, S, E)` with ``batch_first``, or
          :math:`(S, E)` unbatched, with :math:`E` = ``d_model``.
        - Output: the shape of ``src``.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> layer = nbgrad.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16,
        ...                                           batch_first=True)
        >>> layer(nbgrad.randn(3, 5, 8)).shape
        nbgrad.Size([3, 5, 8])
        >>> sorted(name for name, _ in layer.named_children())
        ['dropout', 'dropout1', 'dropout2', 'linear1', 'linear2', 'norm1', 'norm2', 'self_attn']
    """

    def _ff_block(self, x):
        return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(x)))))

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            return x + self._ff_block(self.norm2(x))
        x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
        return self.norm2(x + self._ff_block(x))


class TransformerDecoderLayer(_TransformerLayer):
    r"""One layer of a Transformer decoder: self-attention, attention over the encoder's
    output, then a feed-forward network.

    As :class:`TransformerEncoderLayer`, with a second attention block between the two
    (``multihead_attn``: queries from the decoder, keys and values from ``memory``); each
    block has its dropout, residual connection and layer norm.

    ``forward(tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
    memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False)``: the
    ``tgt_*`` masks go to the self-attention, the ``memory_*`` ones to the attention over
    ``memory``.

    Args:
        d_model (int): the number of features of the input (the embedding size).
        nhead (int): the number of attention heads; it must divide ``d_model``.
        dim_feedforward (int, optional): the hidden size of the feed-forward network.
            Default: ``2048``.
        dropout (float, optional): the dropout probability. Default: ``0.1``.
        activation (str or callable, optional): the feed-forward network's activation,
            ``"relu"``, ``"gelu"`` or a function of one tensor. Default: ``"relu"``.
        layer_norm_eps (float, optional): the ``eps`` of the layer norms.
            Default: ``1e-5``.
        batch_first (bool, optional): take and give ``(batch, seq, feature)`` tensors
            rather than ``(seq, batch, feature)``. Default: ``False``.
        norm_first (bool, optional): normalize before each block rather than after.
            Default: ``False``.
        bias (bool, optional): give the linear layers and layer norms biases.
            Default: ``True``.
        device (nbgrad.device, optional): the device of the parameters. Default: the
            default device.
        dtype (nbgrad.dtype, optional): the dtype of the parameters. Default: the default
            dtype.

    Shape:
        - tgt: :math:`(T, N, E)`, :math:`(N, T, E)` with ``batch_first``, or
          :math:`(T, E)` unbatched.
        - memory: :math:`(S, N, E)`, likewise.
        - Output: the shape of ``tgt``.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> layer = nbgrad.nn.TransformerDecoderLayer(8, 2, dim_feedforward=16,
        ...                                           batch_first=True)
        >>> memory, tgt = nbgrad.randn(3, 5, 8), nbgrad.randn(3, 4, 8)
        >>> layer(tgt, memory).shape
        nbgrad.Size([3, 4, 8])
    """

    _cross = True

    def _mha_block(self, x, mem, attn_mask, key_padding_mask, is_causal=False):
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask,
                                key_padding_mask=key_padding_mask, is_causal=is_causal,
                                need_weights=False)[0]
        return self.dropout2(x)

    def _ff_block(self, x):
        return self.dropout3(self.linear2(self.dropout(self.activation(self.linear1(x)))))

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask,
                                    memory_key_padding_mask, memory_is_causal)
            return x + self._ff_block(self.norm3(x))
        x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
        x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask,
                                           memory_is_causal))
        return self.norm3(x + self._ff_block(x))


def _clones(module, n):
    return ModuleList([copy.deepcopy(module) for _ in range(n)])


class TransformerEncoder(Module):
    r"""A stack of ``num_layers`` Transformer encoder layers.

    Each layer is a deep copy of ``encoder_layer`` (so they share no parameters), applied
    in turn; ``norm``, if given, is applied to the last one's output.
    ``forward(src, mask=None, src_key_padding_mask=None, is_causal=None)`` passes the
    masks to every layer.

    Args:
        encoder_layer (TransformerEncoderLayer): the layer to copy.
        num_layers (int): the number of layers.
        norm (Module, optional): a last normalization (a :class:`LayerNorm`, say).
            Default: ``None``.
        enable_nested_tensor (bool, optional): accepted for compatibility with PyTorch
            (whose fast path packs padded sequences); it has no effect. Default: ``True``.
        mask_check (bool, optional): accepted for compatibility with PyTorch; no effect.
            Default: ``True``.

    Shape:
        As :class:`TransformerEncoderLayer`'s.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> layer = nbgrad.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16)
        >>> encoder = nbgrad.nn.TransformerEncoder(layer, num_layers=2)
        >>> encoder(nbgrad.randn(5, 3, 8)).shape
        nbgrad.Size([5, 3, 8])
        >>> len(encoder.layers)
        2
    """

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True,
                 mask_check=True):
        super().__init__()
        self.layers = _clones(encoder_layer, num_layers)
        self.num_layers, self.norm = num_layers, norm

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        out = src
        for layer in self.layers:
            out = layer(out, src_mask=mask, src_key_padding_mask=src_key_padding_mask,
                        is_causal=bool(is_causal))
        return self.norm(out) if self.norm is not None else out


class TransformerDecoder(Module):
    r"""A stack of ``num_layers`` Transformer decoder layers.

    Each layer is a deep copy of ``decoder_layer``, applied in turn to the target with
    the same ``memory``; ``norm``, if given, is applied to the last one's output.
    ``forward(tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
    memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False)`` passes
    the masks to every layer.

    Args:
        decoder_layer (TransformerDecoderLayer): the layer to copy.
        num_layers (int): the number of layers.
        norm (Module, optional): a last normalization. Default: ``None``.

    Shape:
        As :class:`TransformerDecoderLayer`'s.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> layer = nbgrad.nn.TransformerDecoderLayer(8, 2, dim_feedforward=16)
        >>> decoder = nbgrad.nn.TransformerDecoder(layer, 2, norm=nbgrad.nn.LayerNorm(8))
        >>> memory, tgt = nbgrad.randn(5, 3, 8), nbgrad.randn(4, 3, 8)
        >>> causal = nbgrad.nn.Transformer.generate_square_subsequent_mask(4)
        >>> decoder(tgt, memory, tgt_mask=causal).shape
        nbgrad.Size([4, 3, 8])
    """

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _clones(decoder_layer, num_layers)
        self.num_layers, self.norm = num_layers, norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False):
        out = tgt
        for layer in self.layers:
            out = layer(out, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                        tgt_key_padding_mask=tgt_key_padding_mask,
                        memory_key_padding_mask=memory_key_padding_mask,
                        tgt_is_causal=bool(tgt_is_causal), memory_is_causal=memory_is_causal)
        return self.norm(out) if self.norm is not None else out


class Transformer(Module):
    r"""A Transformer: an encoder and a decoder, after "Attention Is All You Need".

    The encoder is a :class:`TransformerEncoder` of ``num_encoder_layers``
    :class:`TransformerEncoderLayer`, the decoder a :class:`TransformerDecoder` of
    ``num_decoder_layers`` :class:`TransformerDecoderLayer`, each stack ending in a
    :class:`LayerNorm`. Every parameter of two or more dimensions is then re-drawn by
    :func:`~nbgrad.nn.init.xavier_uniform_`, as PyTorch does. It holds no embedding nor
    output projection: give it embedded sequences.

    ``forward(src, tgt, src_mask=None, tgt_mask=None, memory_mask=None,
    src_key_padding_mask=None, tgt_key_padding_mask=None, memory_key_padding_mask=None,
    src_is_causal=None, tgt_is_causal=None, memory_is_causal=False)`` encodes ``src``
    and decodes ``tgt`` against it; :meth:`generate_square_subsequent_mask` makes the
    causal ``tgt_mask``.

    Args:
        d_model (int, optional): the number of features of the inputs. Default: ``512``.
        nhead (int, optional): the number of attention heads. Default: ``8``.
        num_encoder_layers (int, optional): the encoder's layers. Default: ``6``.
        num_decoder_layers (int, optional): the decoder's layers. Default: ``6``.
        dim_feedforward (int, optional): the hidden size of the feed-forward networks.
            Default: ``2048``.
        dropout (float, optional): the dropout probability. Default: ``0.1``.
        activation (str or callable, optional): the feed-forward networks' activation,
            ``"relu"``, ``"gelu"`` or a function of one tensor. Default: ``"relu"``.
        custom_encoder (Module, optional): an encoder to use instead. Default: ``None``.
        custom_decoder (Module, optional): a decoder to use instead. Default: ``None``.
        layer_norm_eps (float, optional): the ``eps`` of the layer norms.
            Default: ``1e-5``.
        batch_first (bool, optional): take and give ``(batch, seq, feature)`` tensors
            rather than ``(seq, batch, feature)``. Default: ``False``.
        norm_first (bool, optional): normalize before each block rather than after.
            Default: ``False``.
        bias (bool, optional): give the linear layers and layer norms biases.
            Default: ``True``.
        device (nbgrad.device, optional): the device of the parameters. Default: the
            default device.
        dtype (nbgrad.dtype, optional): the dtype of the parameters. Default: the default
            dtype.

    Shape:
        - src: :math:`(S, N, E)`, :math:`(N, S, E)` with ``batch_first``, or
          :math:`(S, E)` unbatched.
        - tgt: :math:`(T, N, E)`, :math:`(N, T, E)` with ``batch_first``, or
          :math:`(T, E)` unbatched.
        - Output: the shape of ``tgt``.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> model = nbgrad.nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1,
        ...                               num_decoder_layers=1, dim_feedforward=16,
        ...                               batch_first=True)
        >>> src, tgt = nbgrad.randn(3, 5, 8), nbgrad.randn(3, 4, 8)
        >>> mask = nbgrad.nn.Transformer.generate_square_subsequent_mask(4)
        >>> model(src, tgt, tgt_mask=mask).shape
        nbgrad.Size([3, 4, 8])
        >>> nbgrad.nn.Transformer.generate_square_subsequent_mask(3)
        tensor([[0., -inf, -inf],
                [0., 0., -inf],
                [0., 0., 0.]])
    """

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
                 dim_feedforward=2048, dropout=0.1, activation="relu", custom_encoder=None,
                 custom_decoder=None, layer_norm_eps=1e-5, batch_first=False, norm_first=False,
                 bias=True, device=None, dtype=None):
        super().__init__()
        kw = dict(device=device, dtype=dtype)
        args = (d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                batch_first, norm_first, bias)
        self.encoder = custom_encoder or TransformerEncoder(
            TransformerEncoderLayer(*args, **kw), num_encoder_layers,
            LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw))
        self.decoder = custom_decoder or TransformerDecoder(
            TransformerDecoderLayer(*args, **kw), num_decoder_layers,
            LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw))
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first
        for p in self.parameters():
            if p.ndim > 1:
                init.xavier_uniform_(p)

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None,
                src_key_padding_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
                memory_is_causal=False):
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
                              is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask,
                            tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz, device=None, dtype=None):
        """The (sz, sz) float mask of a causal model: -inf above the diagonal, 0 on and
        below it."""
        return triu(full((sz, sz), float("-inf"), dtype=dtype, device=device), diagonal=1)

