"""Scaled dot-product attention and multi-head attention, composed of ops that have rows
(PyTorch's math path): ``softmax(q k^T * scale + mask) v``. Every device; gradients of any
order through the parts."""

import math

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
    """Attention of ``query`` (..., L, E) over ``key`` (..., S, E) and ``value`` (..., S, Ev):
    ``softmax(query @ key^T * scale + mask) @ value``, ``scale`` ``1/sqrt(E)`` by default.
    ``attn_mask`` is bool (True: may attend) or added to the scores; ``is_causal`` masks
    position ``j > i`` (no ``attn_mask`` then); a query that may attend nowhere gets zeros,
    as PyTorch's. ``dropout_p`` drops attention weights; ``enable_gqa`` shares each key /
    value head among ``Hq / Hk`` query heads.

    Example::

        >>> import nbgrad
        >>> q = k = v = nbgrad.ones(1, 2, 3)
        >>> nbgrad.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True).shape
        nbgrad.Size([1, 2, 3])
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
    """Multi-head attention of sequence-first ``query`` (L, N, E) over ``key`` / ``value``
    (S, N, E) (or unbatched (L, E)), PyTorch's math: ``(output, weights)``, the weights
    averaged over heads unless ``average_attn_weights=False``, None unless
    ``need_weights``. A bool ``attn_mask`` / ``key_padding_mask`` is True where attention is
    not allowed; a float one is added to the scores."""
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
