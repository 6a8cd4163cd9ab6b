"""Dropout: a random keep mask, scaled by ``1/(1-p)``, multiplied in. The mask is PyTorch's
CPU one for the same seed (``bernoulli_(1 - p)`` from the default generator)."""

import numpy as np

from .. import _distributions as _D
from .. import random as _random
from ..random import default_generator
from ..tensor import _wrap
from ._core import backend, type_name
from .elementwise import mul


def dropout(input, p=0.5, training=True, inplace=False):
    """Zero elements of ``input`` with probability ``p``, scaling the others by :math:`1 / (1 - p)`.

    The scaling keeps the expected value of each element, so nothing changes at evaluation
    (``training=False``, where ``input`` itself is returned). The mask is drawn from the
    default generator: for the same seed it is PyTorch's CPU mask.

    Args:
        input (Tensor): the input, of any shape.
        p (float, optional): the probability of zeroing each element, in :math:`[0, 1]`.
            Default: ``0.5``.
        training (bool, optional): apply dropout; ``False`` returns ``input`` unchanged.
            Default: ``True``.
        inplace (bool, optional): write the result into ``input`` and return ``input``
            itself (when training, not allowed on a leaf that requires grad).
            Default: ``False``.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> _ = nbgrad.manual_seed(0)
        >>> F.dropout(nbgrad.ones(8), p=0.5)
        tensor([0., 0., 2., 0., 0., 0., 2., 2.])
        >>> F.dropout(nbgrad.ones(3), p=0.5, training=False)
        tensor([1., 1., 1.])
        >>> x = nbgrad.ones(4)
        >>> F.dropout(x, p=0.5, inplace=True) is x
        True
        >>> x
        tensor([0., 2., 2., 2.])
    """
    return _masked(input, p, training, tuple(input.shape), inplace, "dropout")


def dropout2d(input, p=0.5, training=True, inplace=False):
    r"""Zero whole channels with probability ``p``, scaling the others by :math:`1 / (1 - p)`.

    A channel is one :math:`2`-D feature map :math:`\text{input}[i, j]`; it is zeroed as a
    whole, which suits convolutional features whose neighbours are correlated.

    Args:
        input (Tensor): the input, :math:`(N, C, H, W)`. As PyTorch's, other ranks are
            read as :math:`(N, C, *)` with a warning; a 3-d input as :math:`(N, C, L)`
            (channel-wise 1-d dropout, as :func:`dropout1d`), not as unbatched
            :math:`(C, H, W)`.
        p (float, optional): the probability of zeroing each channel, in :math:`[0, 1]`.
            Default: ``0.5``.
        training (bool, optional): apply dropout; ``False`` returns ``input`` unchanged.
            Default: ``True``.
        inplace (bool, optional): write the result into ``input`` and return ``input``
            itself (when training, not allowed on a leaf that requires grad).
            Default: ``False``.

    Shape:
        - Input: :math:`(N, C, H, W)` (or :math:`(N, C, *)`, with a warning).
        - Output: the shape of the input.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> _ = nbgrad.manual_seed(0)
        >>> F.dropout2d(nbgrad.ones(1, 4, 2, 2)).sum((2, 3))
        tensor([[0., 0., 8., 0.]])
    """
    import warnings

    _check_p(p)
    if input.ndim not in (3, 4):
        warnings.warn(f"dropout2d: Received a {input.ndim}-D input to dropout2d, which is "
                      "deprecated and will result in an error in a future release. To retain "
                      "the behavior and silence this warning, please use dropout instead. "
                      "Note that dropout2d exists to provide channel-wise dropout on inputs "
                      "with 2 spatial dimensions, a channel dimension, and an optional batch "
                      "dimension (i.e. 3D or 4D inputs).", stacklevel=2)
    if input.ndim == 3:  # (PyTorch's reading of 3-d input, kept for now: see its issue 77081)
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that "
                      "channel-wise 1D dropout behavior is desired - input is interpreted as "
                      "shape (N, C, L), where C is the channel dim. This behavior will change "
                      "in a future release to interpret the input as one without a batch "
                      "dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise "
                      "dropout behavior, please switch to using dropout1d instead.",
                      stacklevel=2)
    # PyTorch's feature dropout: one draw per (dim 0, dim 1) pair, whatever the rank
    return _masked(input, p, training, _feature_shape, inplace, "feature_dropout")


def _feature_shape(input):
    """The keep mask's shape for dropout of whole features: dims 0 and 1, size 1 after."""
    if input.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    return tuple(input.shape[:2]) + (1,) * (input.ndim - 2)


def _check_p(p):
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _keep(shape, p, np_dtype=np.bool_, value=1):
    """The keep mask: ``value`` (of ``np_dtype``) where an element is kept, else 0."""
    _random._no_random_in_vmap()
    n = int(np.prod(shape))
    return _D.bernoulli(default_generator, n, 1.0 - p, np_dtype, value).reshape(shape)


def _check_train(name, training):
    # (PyTorch's kernels take ``train`` as a bool, nothing else)
    if training.__class__ is not bool:
        raise TypeError(f"{name}(): argument 'train' (position 3) must be bool, not "
                        f"{type_name(training)}")


def _masked(input, p, training, mask_shape, inplace, name):
    """``input`` times a keep mask of ``mask_shape`` (broadcast over the rest; a function
    of ``input`` that gives it, called only when a mask is drawn) scaled by ``1/(1-p)``;
    ``input`` itself when not training or ``p`` is 0. ``name``: PyTorch's kernel, for the
    errors."""
    _check_p(p)
    _check_train(name, training)
    if not training or p == 0:
        return input
    if p == 1:
        return _times(input, 0.0, inplace)
    if callable(mask_shape):
        mask_shape = mask_shape(input)
    scale = _keep(mask_shape, p, input._dtype.np, 1.0 / (1.0 - p))
    return _times(input, _wrap(backend(input._device).from_host(scale), input._dtype,
                               input._device), inplace)


def _times(input, factor, inplace):
    # the in-place form is PyTorch's ``input.mul_(mask)``: its checks, one version bump,
    # and the mask saved for backward (not ``input``, so later writes to it are allowed)
    return input.mul_(factor) if inplace else mul(input, factor)


def _channels(input, p, training, batched_ndim, inplace):
    """Dropout of whole channels: dim 1 of a batched input of ``batched_ndim`` dims, dim 0
    of an unbatched one."""
    lead = tuple(input.shape[:2 if input.ndim == batched_ndim else 1])
    return _masked(input, p, training, lead + (1,) * (input.ndim - len(lead)), inplace,
                   "feature_dropout")


def dropout1d(input, p=0.5, training=True, inplace=False):
    r"""Zero whole channels with probability ``p``, scaling the others by :math:`1 / (1 - p)`.

    A channel is one :math:`1`-D feature map :math:`\text{input}[i, j]`; it is zeroed as a
    whole, which suits convolutional features whose neighbours are correlated.

    Args:
        input (Tensor): the input, :math:`(N, C, L)` or unbatched :math:`(C, L)`.
        p (float, optional): the probability of zeroing each channel, in :math:`[0, 1]`.
            Default: ``0.5``.
        training (bool, optional): apply dropout; ``False`` returns ``input`` unchanged.
            Default: ``True``.
        inplace (bool, optional): write the result into ``input`` and return ``input``
            itself (when training, not allowed on a leaf that requires grad).
            Default: ``False``.

    Shape:
        - Input: :math:`(N, C, L)` or :math:`(C, L)`.
        - Output: the shape of the input.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> _ = nbgrad.manual_seed(0)
        >>> F.dropout1d(nbgrad.ones(1, 4, 3))
        tensor([[[0., 0., 0.],
                 [0., 0., 0.],
                 [2., 2., 2.],
                 [0., 0., 0.]]])
    """
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D input. Note "
            "that dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
            "dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D "
            "inputs).")
    return _channels(input, p, training, 3, inplace)


def dropout3d(input, p=0.5, training=True, inplace=False):
    r"""Zero whole channels with probability ``p``, scaling the others by :math:`1 / (1 - p)`.

    A channel is one :math:`3`-D feature map :math:`\text{input}[i, j]`; it is zeroed as a
    whole, which suits convolutional features whose neighbours are correlated.

    Other numbers of dimensions are accepted with a deprecation warning.

    Args:
        input (Tensor): the input, :math:`(N, C, D, H, W)` or unbatched :math:`(C, D, H, W)`.
        p (float, optional): the probability of zeroing each channel, in :math:`[0, 1]`.
            Default: ``0.5``.
        training (bool, optional): apply dropout; ``False`` returns ``input`` unchanged.
            Default: ``True``.
        inplace (bool, optional): write the result into ``input`` and return ``input``
            itself (when training, not allowed on a leaf that requires grad).
            Default: ``False``.

    Shape:
        - Input: :math:`(N, C, D, H, W)` or :math:`(C, D, H, W)`.
        - Output: the shape of the input.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> _ = nbgrad.manual_seed(0)
        >>> F.dropout3d(nbgrad.ones(1, 4, 2, 2, 2)).sum((2, 3, 4))
        tensor([[ 0.,  0., 16.,  0.]])
    """
    if input.ndim not in (4, 5):
        import warnings

        warnings.warn(f"dropout3d: Received a {input.ndim}-D input to dropout3d, which is "
                      "deprecated and will result in an error in a future release. To retain "
                      "the behavior and silence this warning, please use dropout instead. "
                      "Note that dropout3d exists to provide channel-wise dropout on inputs "
                      "with 3 spatial dimensions, a channel dimension, and an optional batch "
                      "dimension (i.e. 4D or 5D inputs).", stacklevel=2)
    return _channels(input, p, training, 5, inplace)


_SELU_ALPHA = 1.7580993408473766  # (-SELU's negative saturation, scale * alpha)


def _alpha(input, p, training, feature, inplace):
    _check_p(p)
    _check_train("feature_alpha_dropout" if feature else "alpha_dropout", training)
    if not training or p == 0:
        return input
    if p == 1:
        return _times(input, 0.0, inplace)
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
    shift = _wrap(be.from_host(b), input._dtype, input._device)
    if inplace:  # (PyTorch's ``input.mul_(a).add_(b)``: two version bumps)
        return input.mul_(mask).add_(shift)
    return add(mul(input, mask), shift)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    r"""Apply alpha dropout, which keeps the mean and variance of its input (for SELU networks).

    Each element is dropped with probability ``p``: set to SELU's negative saturation
    :math:`-\lambda \alpha \approx -1.7581` rather than 0; then an affine map :math:`a x + b`
    restores a zero mean and unit variance for inputs that had them.

    Args:
        input (Tensor): the input, of any shape.
        p (float, optional): the probability of dropping each element, in :math:`[0, 1]`.
            Default: ``0.5``.
        training (bool, optional): apply dropout; ``False`` returns ``input`` unchanged.
            Default: ``False``.
        inplace (bool, optional): write the result into ``input`` and return ``input``
            itself (when training, not allowed on a leaf that requires grad).
            Default: ``False``.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> _ = nbgrad.manual_seed(0)
        >>> x = nbgrad.randn(10000)
        >>> y = F.alpha_dropout(x, p=0.2, training=True)
        >>> abs(y.mean().item()) < 0.05, round(y.std().item(), 1)
        (True, 1.0)
        >>> F.alpha_dropout(x, p=0.2) is x
        True
    """
    return _alpha(input, p, training, False, inplace)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    r"""Apply alpha dropout to whole channels (dim 1): see :func:`alpha_dropout`.

    Each channel :math:`\text{input}[i, j]` is dropped as a whole, with probability ``p``.

    Args:
        input (Tensor): the input, :math:`(N, C, *)`.
        p (float, optional): the probability of dropping each channel, in :math:`[0, 1]`.
            Default: ``0.5``.
        training (bool, optional): apply dropout; ``False`` returns ``input`` unchanged.
            Default: ``False``.
        inplace (bool, optional): write the result into ``input`` and return ``input``
            itself (when training, not allowed on a leaf that requires grad).
            Default: ``False``.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> _ = nbgrad.manual_seed(0)
        >>> F.feature_alpha_dropout(nbgrad.zeros(1, 4, 2), p=0.5, training=True)
        tensor([[[-0.7792, -0.7792],
                 [-0.7792, -0.7792],
                 [ 0.7792,  0.7792],
                 [-0.7792, -0.7792]]])
    """
    return _alpha(input, p, training, True, inplace)
