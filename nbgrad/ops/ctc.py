"""The connectionist temporal classification loss (``F.ctc_loss``, ``nn.CTCLoss``): PyTorch's
``_ctc_loss`` and its backward as rows, computed on the host with NumPy (the alpha-beta
recursions in log space, vectorized over the batch; a CUDA tensor makes a round trip).
As PyTorch's, the backward's gradient is ``exp(log_probs) - posterior`` — the gradient for
log-probabilities that come out of a log_softmax (its backward then leaves it unchanged) —
and it has no derivative of its own."""

import numpy as np

from ..tensor import Tensor
from ._core import backend, same_device
from .elementwise import clamp, div, eq, not_implemented, where  # noqa: F401  (a formula)
from .funcdef import deffunc, surface
from .shape import squeeze, unsqueeze

_NEG = -np.inf


def _logsumexp3(a, b, c):
    m = np.maximum(np.maximum(a, b), c)
    safe = np.where(m == _NEG, 0, m)
    with np.errstate(divide="ignore"):
        return np.log(np.exp(a - safe) + np.exp(b - safe) + np.exp(c - safe)) + safe


def _shift(a, k):
    """``a`` moved ``k`` places right along its last dim (-inf coming in)."""
    out = np.full_like(a, _NEG)
    out[..., k:] = a[..., :a.shape[-1] - k]
    return out


def _extended(targets, target_lengths, N, blank):
    """The labels with blanks between and around them, (N, 2 * S + 1), S the longest target;
    which places a target's own extended labels fill; where a label may skip the blank
    before it (it differs from the label two places back)."""
    tl = np.asarray(target_lengths, np.int64)
    S = int(tl.max()) if N else 0
    L = 2 * S + 1
    ext = np.full((N, L), blank, np.int64)
    if targets.ndim == 2:
        rows = [targets[n, :tl[n]] for n in range(N)]
    else:  # (the targets one after another)
        ends = np.cumsum(tl)
        rows = [targets[e - n:e] for e, n in zip(ends, tl)]
    for n, r in enumerate(rows):
        ext[n, 1:2 * len(r):2] = r
    s = np.arange(L)
    valid = s[None, :] < (2 * tl + 1)[:, None]
    skip = np.zeros((N, L), bool)
    skip[:, 2:] = (s[None, 2:] % 2 == 1) & (ext[:, 2:] != ext[:, :-2])
    return ext, valid, skip


def _picked(lp, ext):
    """``lp[t, n, ext[n, s]]``, (T, N, L)."""
    return np.take_along_axis(lp, np.broadcast_to(ext[None], (lp.shape[0],) + ext.shape), 2)


def _alphas(lp, ext, valid, skip, il):
    T, N = lp.shape[:2]
    pe = _picked(lp, ext)
    alpha = np.full((T,) + ext.shape, _NEG, lp.dtype)
    if T:
        alpha[0, :, :2] = pe[0, :, :2]
        alpha[0] = np.where(valid & (il[:, None] > 0), alpha[0], _NEG)
    for t in range(1, T):
        prev = alpha[t - 1]
        new = _logsumexp3(prev, _shift(prev, 1), np.where(skip, _shift(prev, 2), _NEG)) + pe[t]
        alpha[t] = np.where(valid & (t < il)[:, None], new, _NEG)
    return alpha, pe


def _ends(a, tl):
    """Per batch element: the log of the summed probabilities at the target's last label and
    the blank after it."""
    n = np.arange(a.shape[0])
    last = a[n, 2 * tl]
    before = np.where(tl > 0, a[n, np.maximum(2 * tl - 1, 0)], _NEG)
    return np.logaddexp(last, before)


def _host_inputs(lp, targets, dev):
    be = backend(dev)
    return np.asarray(be.to_host(lp)), np.asarray(be.to_host(targets)).astype(np.int64)


def _ctc_forward(lp, targets, odts, dev, input_lengths, target_lengths, blank, zero_infinity):
    lp, targets = _host_inputs(lp, targets, dev)
    T, N = lp.shape[:2]
    il, tl = np.asarray(input_lengths, np.int64), np.asarray(target_lengths, np.int64)
    ext, valid, skip = _extended(targets, tl, N, blank)
    alpha, _ = _alphas(lp, ext, valid, skip, il)
    last = alpha[np.maximum(il - 1, 0), np.arange(N)]  # (N, L)
    nll = -_ends(last, tl)
    # (an infinite loss stays so here: the backward zeroes its gradient by it, and
    # ctc_loss, as PyTorch's, makes it 0 after)
    nll = np.where(il > 0, nll, np.where(tl > 0, np.inf, 0.0)).astype(lp.dtype)
    be = backend(dev)
    return be.from_host(nll), be.from_host(np.ascontiguousarray(alpha.transpose(1, 0, 2)))


def _ctc_backward_forward(g, lp, targets, nll, log_alpha, odt, dev, input_lengths,
                          target_lengths, blank, zero_infinity):
    be = backend(dev)
    lp, targets = _host_inputs(lp, targets, dev)
    g, nll = np.asarray(be.to_host(g)), np.asarray(be.to_host(nll))
    alpha = np.asarray(be.to_host(log_alpha)).transpose(1, 0, 2)
    T, N, C = lp.shape
    il, tl = np.asarray(input_lengths, np.int64), np.asarray(target_lengths, np.int64)
    ext, valid, skip = _extended(targets, tl, N, blank)
    pe = _picked(lp, ext)
    skip_next = np.zeros_like(skip)  # (s + 2 may be reached from s)
    skip_next[:, :-2] = skip[:, 2:]
    beta = np.full_like(alpha, _NEG)
    n = np.arange(N)
    for t in range(T - 1, -1, -1):
        at_end = (t == il - 1)[:, None]
        start = np.full((N, ext.shape[1]), _NEG, lp.dtype)
        start[n, 2 * tl] = pe[t, n, 2 * tl]
        has = tl > 0
        start[n[has], 2 * tl[has] - 1] = pe[t, n[has], 2 * tl[has] - 1]
        if t + 1 < T:
            nxt = beta[t + 1]
            step = _logsumexp3(nxt, _shift(nxt[..., ::-1], 1)[..., ::-1],
                               np.where(skip_next, _shift(nxt[..., ::-1], 2)[..., ::-1], _NEG))
            step = step + pe[t]
        else:
            step = start
        beta[t] = np.where(valid & (t < il)[:, None], np.where(at_end, start, step), _NEG)
    ab = alpha + beta  # (T, N, L)
    lcab = np.full((T, N, C), _NEG, lp.dtype)
    for s in range(ext.shape[1]):
        lab = ext[:, s]
        lcab[:, n, lab] = np.logaddexp(lcab[:, n, lab], ab[:, :, s])
    with np.errstate(over="ignore", invalid="ignore"):
        grad = (np.exp(lp) - np.exp(lcab + nll[None, :, None] - lp)) * g[None, :, None]
    live = (np.arange(T)[:, None] < il[None, :])[..., None]
    if zero_infinity:
        live = live & ~np.isinf(nll)[None, :, None]
    grad = np.where(live, grad, 0).astype(lp.dtype)
    return be.from_host(grad)


CTC_LOSS = deffunc(
    "_ctc_loss", params=("log_probs", "targets"), kernels=(), forward=_ctc_forward,
    dtype=lambda lp, t, *args: (lp, lp),
    shape=lambda slp, st, il, tl, blank, zi: ((slp[1],), (slp[1], slp[0], 2 * max(tl, default=0) + 1)),
    args=("input_lengths", "target_lengths", "blank", "zero_infinity"),
    outputs=("result", "result1"), node="CtcLossBackward0", torch_names={"result": "result0"},
    grads=("_ctc_loss_backward(grad, log_probs, targets, input_lengths, target_lengths, "
           "result, result1, blank, zero_infinity)", None), fn=False, method=False)
CTC_LOSS_BACKWARD = deffunc(
    "_ctc_loss_backward", params=("grad_output", "log_probs", "targets", "neg_log_likelihood",
                                  "log_alpha"),
    kernels=(), forward=_ctc_backward_forward, dtype=lambda g, lp, *rest: lp,
    shape=lambda sg, slp, *rest: tuple(slp),
    args=("input_lengths", "target_lengths", "blank", "zero_infinity"), node="NotImplemented",
    grads=("not_implemented('_ctc_loss_backward')",) * 2 + (None, None, None),
    fn=False, method=False)


@surface(CTC_LOSS)
def _ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, zero_infinity=False):
    """PyTorch's ``aten._ctc_loss``: the per-sample negative log-likelihoods (N,) and the
    log-alphas (N, T, 2 * S + 1) of ``log_probs`` (T, N, C); no checks (``ctc_loss``'s)."""
    return CTC_LOSS.call(log_probs, targets, _lengths(input_lengths), _lengths(target_lengths),
                         int(blank), bool(zero_infinity))


@surface(CTC_LOSS_BACKWARD)
def _ctc_loss_backward(grad, log_probs, targets, input_lengths, target_lengths,
                       neg_log_likelihood, log_alpha, blank, zero_infinity=False):
    """PyTorch's ``aten._ctc_loss_backward`` (its argument order): the gradient
    ``(exp(log_probs) - posterior) * grad`` (T, N, C), none past a sample's input length."""
    return CTC_LOSS_BACKWARD.call(grad, log_probs, targets, neg_log_likelihood, log_alpha,
                                  _lengths(input_lengths), _lengths(target_lengths), int(blank),
                                  bool(zero_infinity))


def _lengths(v):
    if isinstance(v, Tensor):
        v = np.asarray(backend(v._device).to_host(v._data)).reshape(-1).tolist()
    elif isinstance(v, int):
        v = [v]
    return tuple(int(x) for x in v)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    r"""Compute the connectionist temporal classification (CTC) loss.

    The loss of a sample is the negative log of the total probability of all alignments of
    its target to its input sequence: paths over the :math:`C` classes (one a blank) that
    reduce to the target once repeats are merged and blanks removed (Graves et al., 2006).

    Args:
        log_probs (Tensor): the log-probabilities of the classes at each step (e.g. from
            :func:`log_softmax`), :math:`(T, N, C)` or unbatched :math:`(T, C)`.
        targets (Tensor): the target sequences: padded, :math:`(N, S)`, or all concatenated,
            :math:`(\sum \text{target\_lengths})`; class indices, never ``blank``.
        input_lengths (Tensor or sequence of int): the length of each input sequence,
            :math:`(N)`, each at most :math:`T`.
        target_lengths (Tensor or sequence of int): the length of each target, :math:`(N)`.
        blank (int, optional): the blank class. Default: ``0``.
        reduction (str, optional): ``"none"`` (the loss of each sample), ``"mean"`` (each
            loss divided by its target length, then the batch mean) or ``"sum"``.
            Default: ``"mean"``.
        zero_infinity (bool, optional): replace infinite losses (inputs too short for their
            targets), and their gradients, by 0. Default: ``False``.

    Returns:
        Tensor: the loss; a scalar unless ``reduction="none"`` (then :math:`(N)`).

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> lp = nbgrad.zeros(3, 1, 2).log_softmax(2)
        >>> F.ctc_loss(lp, nbgrad.tensor([[1]]), [3], [1], reduction="sum")
        tensor(0.2877)
        >>> _ = nbgrad.manual_seed(0)
        >>> lp = nbgrad.randn(6, 2, 4).log_softmax(2).requires_grad_()
        >>> loss = F.ctc_loss(lp, nbgrad.tensor([[1, 2, 2], [3, 1, 0]]), [6, 5], [3, 2])
        >>> loss.backward()
        >>> lp.grad.shape
        nbgrad.Size([6, 2, 4])
    """
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    unbatched = log_probs.ndim == 2
    if unbatched:
        log_probs, targets = unsqueeze(log_probs, 1), unsqueeze(targets, 0)
    same_device("ctc_loss", log_probs, targets)
    T, N, C = log_probs.shape
    il, tl = _lengths(input_lengths), _lengths(target_lengths)
    if not 0 <= blank < C:
        raise RuntimeError("blank must be in label range")
    if len(il) != N:
        raise RuntimeError("input_lengths must be of size batch_size")
    if len(tl) != N:
        raise RuntimeError("target_lengths must be of size batch_size")
    check = "(while checking arguments for ctc_loss_allocate_outputs)"
    if targets.ndim == 1:
        if sum(tl) != targets.shape[0]:
            raise RuntimeError(f"Expected tensor to have size {sum(tl)} at dimension 0, but got "
                               f"size {targets.shape[0]} for argument #2 'targets' {check}")
    elif max(tl, default=0) > targets.shape[1]:
        raise RuntimeError(f"Expected tensor to have size at least {max(tl)} at dimension 1, "
                           f"but got size {targets.shape[1]} for argument #2 'targets' {check}")
    for v in il:
        if v > T:
            raise RuntimeError(f"Expected input_lengths to have value at most {T}, but got "
                               f"value {v} {check}")
    loss = _ctc_loss(log_probs, targets, il, tl, blank, zero_infinity)[0]
    if zero_infinity:  # (as PyTorch's composite: an infinite loss is 0)
        loss = where(eq(loss, float("inf")), 0.0, loss)
    if reduction == "mean":
        loss = div(loss, clamp(_as_tensor(tl, loss), min=1)).mean()
    elif reduction == "sum":
        loss = loss.sum()
    return squeeze(loss, 0) if unbatched and reduction == "none" else loss


def _as_tensor(values, like):
    from ..creation import tensor

    return tensor(list(values), dtype=like.dtype, device=like.device)
