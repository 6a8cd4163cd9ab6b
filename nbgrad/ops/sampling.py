"""Sampling from a tensor of weights: ``multinomial``. It draws on the host from nbgrad's
generator (``creation._rng``, seeded by ``manual_seed``) and returns int64 indices on the
weights' device; the result has no gradient."""

import numpy as np

from ..creation import _no_generator, _rng
from ._core import SCALAR_TYPE, backend, check_tensor, wrap


def multinomial(input, num_samples, replacement=False, *, generator=None):
    """``num_samples`` indices drawn for each row of ``input`` (1-d, or 2-d: one row per
    distribution), index ``i`` with probability ``input[i] / input.sum()``; without
    ``replacement`` an index is drawn at most once per row (weights of zero are drawn last,
    once the others are used up).

    Example::

        >>> import nbgrad
        >>> nbgrad.multinomial(nbgrad.tensor([0.0, 1.0, 0.0]), 2, replacement=True)
        tensor([1, 1])
    """
    check_tensor(input, "multinomial")
    _no_generator(generator)
    if input.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not input._dtype.is_floating_point:
        raise RuntimeError("multinomial only supports floating-point dtypes for input, got: "
                           f"{SCALAR_TYPE[input._dtype.name]}")
    n = int(num_samples)
    if n <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and n > input.shape[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    be = backend(input._device)
    w = np.asarray(be.to_host(input.detach()._data), np.float64).reshape(-1, input.shape[-1])
    if not np.isfinite(w).all() or (w < 0).any():
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    sums = w.sum(1)
    if (sums <= 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    rng = _rng[0]
    if replacement:
        out = np.stack([rng.choice(w.shape[1], n, p=row / s) for row, s in zip(w, sums)])
    else:
        # PyTorch's way: the n largest of w / Exp(1) draws (an index drawn with probability
        # w_i / sum, then the next among the rest, ...); zero weights come last, in order
        keys = w / rng.exponential(size=w.shape)
        out = np.argsort(-keys, axis=1, kind="stable")[:, :n]
    out = out.astype(np.int64)
    out = out.reshape(tuple(input.shape[:-1]) + (n,))
    return wrap(be.from_host(out), input._device)
