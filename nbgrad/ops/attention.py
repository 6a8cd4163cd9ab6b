"""Scaled dot-product attention and multi-head attention, composed of ops that have rows
(PyTorch's math path): ``softmax(q k^T * scale + mask) v``. Every device; gradients of any
order through the parts."""

import math

from .. import dtypes as _dt
from ..amp.policy import autocast_op
from ..creation import ones, zeros
from .concat import cat
from .dropout import dropout
from .elementwise import add, eq, logical_not, mul, where
from .linalg import linear, matmul
from .pad import pad
from .selection import masked_fill, tril
from .shape import expand, reshape, transpose, unsqueeze
from .softmax import softmax


def _repeat_heads(t, groups):
    """(..., Hk, S, E) with each head repeated ``groups`` times: (..., Hk * groups, S, E)."""
    if groups == 1:
        return t
    s = tuple(t.shape)
    wide = expand(unsqueeze(t, -3), s[:-2] + (groups,) + s[-2:])
    return reshape(wide, s[:-3] + (s[-3] * groups,) + s[-2:])


@autocast_op("scaled_dot_product_attention")
def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    r"""Compute scaled dot-product attention, :math:`\text{softmax}(Q K^T s + M) V`.

    Each query attends over the keys; the weights of its softmax pick a mixture of the
    values. :math:`s` is ``scale``; ``attn_mask`` or ``is_causal`` give :math:`M`. A query
    that may attend to no key gets zeros (as in PyTorch), not NaN. The computation is the
    plain composed one (no fused or flash kernel).

    Args:
        query (Tensor): the queries, :math:`(N, ..., L, E)`.
        key (Tensor): the keys, :math:`(N, ..., S, E)`.
        value (Tensor): the values, :math:`(N, ..., S, E_v)`.
        attn_mask (Tensor, optional): a boolean mask, ``True`` where a query may attend to a
            key, or a float mask added to the scores; broadcast to :math:`(N, ..., L, S)`.
            Default: ``None``.
        dropout_p (float, optional): the probability of dropping each attention weight (the
            dropout applies whatever the mode: pass 0 at evaluation). Default: ``0.0``.
        is_causal (bool, optional): let query :math:`i` attend only to keys :math:`j \le i`
            (then ``attn_mask`` must be ``None``). Default: ``False``.
        scale (float, optional): the scale of the scores. Default: ``None``,
            :math:`1 / \sqrt{E}`.
        enable_gqa (bool, optional): grouped-query attention: the :math:`H_q` query heads
            (dim -3) share the :math:`H_k` key and value heads, :math:`H_q / H_k` each.
            Default: ``False``.

    Shape:
        - Query: :math:`(N, ..., L, E)`; key: :math:`(N, ..., S, E)`; value:
          :math:`(N, ..., S, E_v)`.
        - Output: :math:`(N, ..., L, E_v)`.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> q = k = v = nbgrad.ones(1, 2, 3)
        >>> F.scaled_dot_product_attention(q, k, v, is_causal=True).shape
        nbgrad.Size([1, 2, 3])
        >>> q = nbgrad.tensor([[[1.0, 0.0]]])
        >>> k = nbgrad.tensor([[[1.0, 0.0], [0.0, 1.0]]])
        >>> v = nbgrad.tensor([[[10.0], [20.0]]])
        >>> F.scaled_dot_product_attention(q, k, v)
        tensor([[[13.3024]]])
        >>> F.scaled_dot_product_attention(q, k, v, attn_mask=nbgrad.tensor([[False, True]]))
        tensor([[[20.]]])
        >>> _ = nbgrad.manual_seed(0)
        >>> q, k, v = nbgrad.randn(2, 8, 5, 4), nbgrad.randn(2, 2, 6, 4), nbgrad.randn(2, 2, 6, 3)
        >>> F.scaled_dot_product_attention(q, k, v, enable_gqa=True).shape
        nbgrad.Size([2, 8, 5, 3])
    """
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be "
                           "set when is_causal=True")
    L, S = query.shape[-2], key.shape[-2]
    if enable_gqa:
        hq, hk = query.shape[-3], key.shape[-3]
        key, value = _repeat_heads(key, hq // hk), _repeat_heads(value, hq // hk)
    s = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    scores = mul(matmul(query, transpose(key, -2, -1)), s)
    if is_causal:
        attn_mask = tril(ones(L, S, dtype=query.dtype, device=query.device)) != 0
    if attn_mask is not None:
        md = attn_mask.dtype
        if md is not _dt.bool_ and not md.is_floating_point and md is not query.dtype:
            raise RuntimeError(
                "Expected attn_mask dtype to be bool or float or to match query dtype, but got "
                f"attn_mask.dtype: {md.cpp} and  query.dtype: {query.dtype.cpp} instead.")
        if attn_mask.dtype.is_floating_point:
            scores = add(scores, attn_mask)
        else:
            scores = masked_fill(scores, logical_not(attn_mask), float("-inf"))
    weights = softmax(scores, -1)
    if attn_mask is not None:  # (a row masked everywhere: zeros, not softmax's NaN)
        nowhere = eq(scores, float("-inf")).all(-1, keepdim=True)
        weights = where(nowhere, 0.0, weights)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, training=True)
    return matmul(weights, value)


def _heads(x, static, nh, hd, what):
    """(S, N, E) keys or values as (N * heads, S, head_dim), or the ``static`` ones."""
    if static is None:
        return x.reshape(x.shape[0], nh, hd).transpose(0, 1)
    for d, want in ((0, nh), (2, hd)):
        if static.shape[d] != want:
            raise AssertionError(f"expecting static_{what[0]}.size({d}) of {want}, but got "
                                 f"{static.shape[d]}")
    return static


def _float_mask(mask, like):
    """A bool mask (True: masked out) as 0 / -inf of ``like``'s dtype; a float mask as is."""
    if mask is None or mask.dtype.is_floating_point:
        return mask
    return where(mask, float("-inf"), 0.0).to(like.dtype)


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn,
                                 dropout_p, out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights=True, is_causal=False):
    r"""Compute multi-head attention, the forward of :class:`nbgrad.nn.MultiheadAttention`.

    The inputs are projected to queries, keys and values, split into ``num_heads`` heads,
    attended (:func:`scaled_dot_product_attention`, scale :math:`1 / \sqrt{E / h}`), joined and
    projected out. The inputs are sequence-first.

    Args:
        query (Tensor): the queries, :math:`(L, N, E)` or unbatched :math:`(L, E)`.
        key (Tensor): the keys, :math:`(S, N, E_k)` or :math:`(S, E_k)`.
        value (Tensor): the values, :math:`(S, N, E_v)` or :math:`(S, E_v)`.
        embed_dim_to_check (int): the expected :math:`E`, checked against ``query``.
        num_heads (int): the number of heads :math:`h`; it must divide :math:`E`.
        in_proj_weight (Tensor or None): the stacked input projections, :math:`(3E, E)`
            (when ``use_separate_proj_weight=False``).
        in_proj_bias (Tensor or None): their stacked biases, :math:`(3E)`.
        bias_k (Tensor or None): an extra key appended to each sequence, :math:`(1, 1, E)`.
        bias_v (Tensor or None): an extra value appended likewise (with ``bias_k``).
        add_zero_attn (bool): append a key and a value of zeros to each sequence.
        dropout_p (float): the dropout probability of the attention weights.
        out_proj_weight (Tensor): the output projection, :math:`(E, E)`.
        out_proj_bias (Tensor or None): its bias, :math:`(E)`.
        training (bool, optional): apply the dropout. Default: ``True``.
        key_padding_mask (Tensor, optional): :math:`(N, S)` (or :math:`(S)`): a boolean
            mask, ``True`` for the keys to ignore, or a float mask added to the scores.
            Default: ``None``.
        need_weights (bool, optional): also return the attention weights. Default: ``True``.
        attn_mask (Tensor, optional): :math:`(L, S)` or :math:`(N h, L, S)`: boolean,
            ``True`` where a query may not attend, or float, added to the scores.
            Default: ``None``.
        use_separate_proj_weight (bool, optional): project with ``q_proj_weight``,
            ``k_proj_weight`` and ``v_proj_weight`` rather than ``in_proj_weight``.
            Default: ``False``.
        q_proj_weight (Tensor, optional): :math:`(E, E)`. Default: ``None``.
        k_proj_weight (Tensor, optional): :math:`(E, E_k)`. Default: ``None``.
        v_proj_weight (Tensor, optional): :math:`(E, E_v)`. Default: ``None``.
        static_k (Tensor, optional): keys already projected and split,
            :math:`(N h, S, E / h)`, used instead of projecting ``key``. Default: ``None``.
        static_v (Tensor, optional): values likewise. Default: ``None``.
        average_attn_weights (bool, optional): average the returned weights over the heads.
            Default: ``True``.
        is_causal (bool, optional): a hint that ``attn_mask`` is the causal mask; nbgrad
            applies ``attn_mask`` as given. Default: ``False``.

    Returns:
        (Tensor, Tensor or None): the output, :math:`(L, N, E)` (or :math:`(L, E)`), and the
        attention weights, :math:`(N, L, S)` (:math:`(N, h, L, S)` without averaging), or
        ``None`` when ``need_weights=False``.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> _ = nbgrad.manual_seed(0)
        >>> E, h = 4, 2
        >>> x = nbgrad.randn(3, 1, E)
        >>> w_in, b_in = nbgrad.randn(3 * E, E), nbgrad.zeros(3 * E)
        >>> w_out, b_out = nbgrad.randn(E, E), nbgrad.zeros(E)
        >>> out, weights = F.multi_head_attention_forward(
        ...     x, x, x, E, h, w_in, b_in, None, None, False, 0.0, w_out, b_out)
        >>> out.shape, weights.shape
        (nbgrad.Size([3, 1, 4]), nbgrad.Size([1, 3, 3]))
        >>> weights.sum(-1)
        tensor([[1., 1., 1.]])
    """
    if query.shape[-1] != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but "
                             f"got {query.shape[-1]}")
    batched = query.ndim == 3
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    L, N, E = query.shape
    if E % num_heads:
        raise AssertionError(f"embed_dim {E} not divisible by num_heads {num_heads}")
    hd = E // num_heads
    bs = in_proj_bias.chunk(3) if in_proj_bias is not None else (None,) * 3
    if use_separate_proj_weight:
        ws = (q_proj_weight, k_proj_weight, v_proj_weight)
        if any(w is None for w in ws):
            raise AssertionError("use_separate_proj_weight is True but q_proj_weight, "
                                 "k_proj_weight or v_proj_weight is None")
    else:
        ws = in_proj_weight.chunk(3)
    q, k, v = (linear(x, w, b) for x, w, b in zip((query, key, value), ws, bs))
    S = k.shape[0]
    mask = _float_mask(attn_mask, q)
    if mask is not None and mask.ndim == 2:
        if tuple(mask.shape) != (L, S):
            raise RuntimeError(f"The shape of the 2D attn_mask is {mask.shape}, but "
                               f"should be {(L, S)}.")
        mask = mask.unsqueeze(0)
    elif mask is not None and tuple(mask.shape) != (N * num_heads, L, S):
        raise RuntimeError(f"The shape of the 3D attn_mask is {mask.shape}, but should be "
                           f"{(N * num_heads, L, S)}.")
    kpm = None
    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (N, S):
            raise AssertionError(f"expecting key_padding_mask shape of {(N, S)}, but got "
                                 f"{tuple(key_padding_mask.shape)}")
        kpm = _float_mask(key_padding_mask, q)
    if bias_k is not None or bias_v is not None:
        if bias_k is None or bias_v is None or static_k is not None or static_v is not None:
            raise AssertionError("bias_k and bias_v go together, and cannot be added to a "
                                 "static key or value")
        k = cat([k, bias_k.repeat(1, N, 1)], 0)  # one more key (and value) per sequence
        v = cat([v, bias_v.repeat(1, N, 1)], 0)
        mask, kpm = (None if t is None else pad(t, (0, 1)) for t in (mask, kpm))
    q = q.reshape(L, N * num_heads, hd).transpose(0, 1)
    k = _heads(k, static_k, N * num_heads, hd, "key")
    v = _heads(v, static_v, N * num_heads, hd, "value")
    if add_zero_attn:  # and one more, of zeros
        zero = zeros((N * num_heads, 1, hd), dtype=k.dtype, device=k.device)
        k, v = cat([k, zero], 1), cat([v, zero], 1)
        mask, kpm = (None if t is None else pad(t, (0, 1)) for t in (mask, kpm))
    S = k.shape[1]
    if kpm is not None:
        kpm = kpm.reshape(N, 1, 1, S).expand(N, num_heads, 1, S).reshape(N * num_heads, 1, S)
        mask = kpm if mask is None else add(mask, kpm)
    scores = q.mul(math.sqrt(1.0 / hd)) @ k.transpose(-2, -1)
    if mask is not None:
        scores = add(scores, mask)
    weights = softmax(scores, -1)
    if dropout_p > 0.0 and training:
        weights = dropout(weights, dropout_p, True)
    out = (weights @ v).transpose(0, 1).reshape(L * N, E)
    out = linear(out, out_proj_weight, out_proj_bias).reshape(L, N, E)
    if need_weights:
        weights = weights.reshape(N, num_heads, L, S)
        if average_attn_weights:
            weights = weights.mean(1)
    else:
        weights = None
    if not batched:
        out = out.squeeze(1)
        weights = weights.squeeze(0) if weights is not None else None
    return out, weights
