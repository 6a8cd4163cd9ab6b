"""Dropout: a random keep mask, scaled by ``1/(1-p)``, multiplied in. The mask is PyTorch's
CPU one for the same seed (``bernoulli_(1 - p)`` from the default generator)."""

import numpy as np

from .. import _distributions as _D
from ..random import default_generator
from ..tensor import _wrap
from ._core import backend
from .elementwise import mul


def dropout(input, p=0.5, training=True, inplace=False):
    """Zero elements with probability ``p`` and scale the rest by ``1/(1-p)`` (training)."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0:
        return input
    if p == 1:
        return mul(input, 0.0)
    keep = _keep(tuple(input.shape), p)
    scale = (keep / (1.0 - p)).astype(input._dtype.np)
    mask = _wrap(backend(input._device).from_host(scale), input._dtype, input._device)
    return mul(input, mask)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels (dim 1 of (N, C, H, W); dim 0 of unbatched (C, H, W)) with
    probability ``p`` and scale the rest by ``1/(1-p)`` (training)."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if input.ndim not in (3, 4):
        raise RuntimeError("dropout2d: expected a 3D (C, H, W) or 4D (N, C, H, W) input, "
                           f"got {input.ndim}D")
    if not training or p == 0:
        return input
    if p == 1:
        return mul(input, 0.0)
    keep = _keep(tuple(input.shape[:input.ndim - 2]) + (1, 1), p)
    scale = (keep / (1.0 - p)).astype(input._dtype.np)
    mask = _wrap(backend(input._device).from_host(scale), input._dtype, input._device)
    return mul(input, mask)


def _keep(shape, p):
    return _D.bernoulli(default_generator, int(np.prod(shape)), 1.0 - p).reshape(shape)
