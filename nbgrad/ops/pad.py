"""Padding (``F.pad``), composed of ops that have rows: a constant pad is a ``cat`` with
filled blocks (a negative pad a ``narrow``), the other modes an ``index_select`` of the
positions each mode reads (reflect, replicate, circular). Every device; gradients of any
order through the parts."""

import numpy as np

from ..creation import full, tensor
from .concat import cat, narrow
from .index import index_select

_MODES = ("constant", "reflect", "replicate", "circular")


def _source(n, lo, hi, mode):
    """For each position of a dim of size ``n`` padded by ``lo`` / ``hi``: the input
    position it reads."""
    i = np.arange(-lo, n + hi)
    if mode == "replicate":
        return np.clip(i, 0, n - 1)
    if mode == "circular":
        return i % n
    period = 2 * (n - 1)  # reflect: mirrored about the edges, the edge itself once
    j = np.abs(i) % period if period else np.zeros_like(i)
    return np.where(j >= n, period - j, j)


def _constant(input, pairs, value):
    out = input
    for d, (lo, hi) in pairs:
        for amount, at_end in ((lo, False), (hi, True)):
            if amount < 0:
                n = out.shape[d]
                out = narrow(out, d, 0 if at_end else -amount, n + amount)
            elif amount > 0:
                shape = list(out.shape)
                shape[d] = amount
                block = full(tuple(shape), value, dtype=out.dtype, device=out.device)
                out = cat([out, block] if at_end else [block, out], d)
    return out


def pad(input, pad, mode="constant", value=None):
    """Pad the last dimensions of ``input``.

    ``pad`` lists the amounts from the last dimension backwards, two per dimension:
    ``(left, right)`` pads the last dim, ``(left, right, top, bottom)`` the last two, and so on.

    Args:
        input (Tensor): the tensor to pad.
        pad (sequence of int): the padding sizes, an even number of them, at most two per
            dimension of ``input``. With ``"constant"`` a negative size crops.
        mode (str, optional): ``"constant"`` (fill with ``value``), ``"reflect"`` (mirror about
            the edge element, not repeating it; each size below the dimension's),
            ``"replicate"`` (repeat the edge element) or ``"circular"`` (wrap around). The last
            three pad the last 1, 2 or 3 dims of a batched or unbatched input (2-D to 5-D).
            Default: ``"constant"``.
        value (float, optional): the fill of ``"constant"`` padding. Default: ``None``, 0.

    Shape:
        - Input: :math:`(*, D_1, ..., D_k)` for ``len(pad) == 2 k``.
        - Output: :math:`(*, D_1', ..., D_k')`, each :math:`D_i` plus its two padding sizes.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> F.pad(nbgrad.tensor([[1, 2, 3]]), (1, 2), value=9)
        tensor([[9, 1, 2, 3, 9, 9]])
        >>> x = nbgrad.arange(4.0).reshape(1, 1, 4)
        >>> F.pad(x, (2, 1), mode="reflect")
        tensor([[[2., 1., 0., 1., 2., 3., 2.]]])
        >>> F.pad(x, (2, 1), mode="replicate")
        tensor([[[0., 0., 0., 1., 2., 3., 3.]]])
        >>> F.pad(x, (2, 1), mode="circular")
        tensor([[[2., 3., 0., 1., 2., 3., 0.]]])
        >>> F.pad(nbgrad.ones(1, 2, 3), (0, 0, 1, 1)).shape
        nbgrad.Size([1, 4, 3])
    """
    if mode not in _MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    k, nd = len(pad) // 2, input.ndim
    if k > nd:
        raise RuntimeError("Padding length should be less than or equal to two times the "
                           f"input dimension but got padding length {len(pad)} and input of "
                           f"dimension {nd}")
    pairs = [(nd - 1 - j, (pad[2 * j], pad[2 * j + 1])) for j in range(k)]
    if mode == "constant":
        return _constant(input, pairs, 0 if value is None else value)
    if value:
        raise RuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument")
    if not (1 <= k <= 3 and k + 1 <= nd <= k + 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {nd}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    out = input
    for d, (lo, hi) in pairs:
        n = out.shape[d]
        if mode == "reflect" and (lo >= n or hi >= n):
            raise RuntimeError(
                f"Argument #4: Padding size should be less than the corresponding input "
                f"dimension, but got: padding ({lo}, {hi}) at dimension {d} of input "
                f"{list(input.shape)}")
        if mode == "circular" and (lo > n or hi > n):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        idx = tensor(_source(n, lo, hi, mode), device=out.device)
        out = index_select(out, d, idx)
    return out
