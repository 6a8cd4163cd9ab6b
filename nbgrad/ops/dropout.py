"""Dropout: a random keep mask, scaled by ``1/(1-p)``, multiplied in. The mask is PyTorch's
CPU one for the same seed (``bernoulli_(1 - p)`` from the default generator)."""

import numpy as np

from .. import _distributions as _D
from .. import random as _random
from ..random import default_generator
from ..tensor import _wrap
from ._core import backend
from .elementwise import mul


def dropout(input, p=0.5, training=True, inplace=False):
    """Zero elements with probability ``p`` and scale the rest by ``1/(1-p)`` (training)."""
    return _masked(input, p, training, tuple(input.shape))


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels (dim 1 of (N, C, H, W); dim 0 of unbatched (C, H, W)) with
    probability ``p`` and scale the rest by ``1/(1-p)`` (training)."""
    _check_p(p)
    if input.ndim not in (3, 4):
        raise RuntimeError("dropout2d: expected a 3D (C, H, W) or 4D (N, C, H, W) input, "
                           f"got {input.ndim}D")
    return _channels(input, p, training, 4)


def _check_p(p):
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _keep(shape, p):
    _random._no_random_in_vmap()
    return _D.bernoulli(default_generator, int(np.prod(shape)), 1.0 - p).reshape(shape)


def _masked(input, p, training, mask_shape):
    """``input`` times a keep mask of ``mask_shape`` (broadcast over the rest) scaled by
    ``1/(1-p)``; ``input`` itself when not training or ``p`` is 0."""
    _check_p(p)
    if not training or p == 0:
        return input
    if p == 1:
        return mul(input, 0.0)
    scale = (_keep(mask_shape, p) / (1.0 - p)).astype(input._dtype.np)
    return mul(input, _wrap(backend(input._device).from_host(scale), input._dtype,
                            input._device))


def _channels(input, p, training, batched_ndim):
    """Dropout of whole channels: dim 1 of a batched input of ``batched_ndim`` dims, dim 0
    of an unbatched one."""
    lead = tuple(input.shape[:2 if input.ndim == batched_ndim else 1])
    return _masked(input, p, training, lead + (1,) * (input.ndim - len(lead)))


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of (N, C, L) or (C, L) with probability ``p`` (training)."""
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D input. Note "
            "that dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
            "dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D "
            "inputs).")
    return _channels(input, p, training, 3)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of (N, C, D, H, W) or (C, D, H, W) with probability ``p``."""
    if input.ndim not in (4, 5):
        import warnings

        warnings.warn(f"dropout3d: Received a {input.ndim}-D input to dropout3d, which is "
                      "deprecated and will result in an error in a future release. To retain "
                      "the behavior and silence this warning, please use dropout instead. "
                      "Note that dropout3d exists to provide channel-wise dropout on inputs "
                      "with 3 spatial dimensions, a channel dimension, and an optional batch "
                      "dimension (i.e. 4D or 5D inputs).", stacklevel=2)
    return _channels(input, p, training, 5)


_SELU_ALPHA = 1.7580993408473766  # (-SELU's negative saturation, scale * alpha)


def _alpha(input, p, training, feature):
    _check_p(p)
    if not training or p == 0:
        return input
    if p == 1:
        return mul(input, 0.0)
    from .elementwise import add

    shape = tuple(input.shape)
    if feature:
        shape = shape[:2] + (1,) * (input.ndim - 2)
    keep = _keep(shape, p)
    a = 1.0 / np.sqrt((_SELU_ALPHA * _SELU_ALPHA * p + 1) * (1 - p))
    # (PyTorch's: dropped values go to SELU's saturation, then an affine map keeps the mean
    # and variance)
    b = ((keep - 1.0) * (_SELU_ALPHA * a) + _SELU_ALPHA * a * p).astype(input._dtype.np)
    be = backend(input._device)
    mask = _wrap(be.from_host((keep * a).astype(input._dtype.np)), input._dtype, input._device)
    return add(mul(input, mask), _wrap(be.from_host(b), input._dtype, input._device))


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout for SELU networks: dropped values set to SELU's negative saturation, then
    scaled and shifted to keep the mean and variance (training only)."""
    return _alpha(input, p, training, False)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """``alpha_dropout`` of whole channels (dim 1)."""
    return _alpha(input, p, training, True)
