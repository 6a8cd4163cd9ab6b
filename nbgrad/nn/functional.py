"""``nbgrad.nn.functional``: the functional form of layers, activations and losses."""

import inspect

from ..ops import elementwise as _elementwise
from ..ops import softmax as _softmax
from ..ops.activation import (
    celu,
    elu,
    gelu,
    glu,
    hardshrink,
    hardsigmoid,
    hardswish,
    hardtanh,
    leaky_relu,
    logsigmoid,
    mish,
    prelu,
    relu6,
    rrelu,
    selu,
    silu,
    softmin,
    softshrink,
    softsign,
    tanhshrink,
    threshold,
)
from ..ops.attention import multi_head_attention_forward, scaled_dot_product_attention
from ..ops.batch_norm import batch_norm
from ..ops.conv import conv2d, max_pool2d
from ..ops.conv_variants import (
    avg_pool1d,
    conv1d,
    conv_transpose1d,
    conv_transpose2d,
    max_pool1d,
)
from ..ops.ctc import ctc_loss
from ..ops.dropout import (
    alpha_dropout,
    dropout,
    dropout1d,
    dropout2d,
    dropout3d,
    feature_alpha_dropout,
)
from ..ops.elementwise_loss import (
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    gaussian_nll_loss,
    huber_loss,
    kl_div,
    l1_loss,
    mse_loss,
    smooth_l1_loss,
)
from ..ops.embedding_bag import embedding_bag
from ..ops.fractional_pool import fractional_max_pool2d, fractional_max_pool3d
from ..ops.grid_sample import affine_grid, grid_sample
from ..ops.group_norm import group_norm, instance_norm, rms_norm
from ..ops.index import embedding, one_hot
from ..ops.interpolate import interpolate, upsample, upsample_bilinear, upsample_nearest
from ..ops.linalg import bilinear, linear
from ..ops.loss import cross_entropy, nll_loss
from ..ops.margin_loss import (
    cosine_embedding_loss,
    hinge_embedding_loss,
    margin_ranking_loss,
    multi_margin_loss,
    multilabel_margin_loss,
    multilabel_soft_margin_loss,
    poisson_nll_loss,
    soft_margin_loss,
    triplet_margin_loss,
    triplet_margin_with_distance_loss,
)
from ..ops.norm import cosine_similarity, normalize, pairwise_distance, pdist
from ..ops.normalization import layer_norm
from ..ops.pad import pad
from ..ops.pixel_shuffle import channel_shuffle, pixel_shuffle, pixel_unshuffle
from ..ops.pooling import adaptive_avg_pool2d, avg_pool2d
from ..ops.pooling_more import (
    adaptive_avg_pool1d,
    adaptive_max_pool1d,
    adaptive_max_pool2d,
    fold,
    local_response_norm,
    lp_pool1d,
    lp_pool2d,
    max_unpool1d,
    max_unpool2d,
    unfold,
)
from ..ops.softmax import gumbel_softmax
from ..ops.volumetric import (
    adaptive_avg_pool3d,
    adaptive_max_pool3d,
    avg_pool3d,
    conv3d,
    conv_transpose3d,
    lp_pool3d,
    max_pool3d,
    max_unpool3d,
)

# the elementwise ops whose rows ask for an ``nn.functional`` name (relu, sigmoid, tanh)
_ELEMENTWISE = [op.name for op in _elementwise.TABLE.values() if op.functional]
globals().update({name: getattr(_elementwise, name) for name in _ELEMENTWISE})

__all__ = _ELEMENTWISE + [
    "gelu", "silu", "softmax", "log_softmax", "cross_entropy",
    "nll_loss", "mse_loss", "binary_cross_entropy_with_logits", "linear", "dropout",
    "layer_norm", "conv2d", "max_pool2d", "conv1d", "conv_transpose1d", "conv_transpose2d",
    "max_pool1d", "avg_pool1d", "group_norm", "instance_norm", "rms_norm",
    "pairwise_distance", "pixel_shuffle", "pixel_unshuffle", "interpolate", "upsample",
    "cosine_embedding_loss", "hinge_embedding_loss", "margin_ranking_loss",
    "multilabel_soft_margin_loss", "poisson_nll_loss", "soft_margin_loss", "triplet_margin_loss",
    "embedding", "binary_cross_entropy", "l1_loss", "smooth_l1_loss", "huber_loss", "kl_div",
    "batch_norm", "dropout2d", "dropout1d", "dropout3d", "alpha_dropout",
    "feature_alpha_dropout", "gumbel_softmax", "bilinear", "rrelu", "gaussian_nll_loss",
    "multi_margin_loss", "avg_pool2d", "adaptive_avg_pool2d", "leaky_relu", "elu",
    "celu", "selu", "hardtanh", "relu6", "hardsigmoid", "hardswish", "logsigmoid", "softsign",
    "hardshrink", "softshrink",
    "tanhshrink", "mish", "threshold", "glu", "softmin", "prelu", "one_hot", "pad",
    "normalize", "cosine_similarity", "scaled_dot_product_attention",
    "multi_head_attention_forward", "adaptive_avg_pool1d", "adaptive_max_pool1d",
    "adaptive_max_pool2d", "adaptive_max_pool1d_with_indices",
    "adaptive_max_pool2d_with_indices", "max_pool1d_with_indices", "max_pool2d_with_indices",
    "fold", "unfold", "local_response_norm", "lp_pool1d", "lp_pool2d", "max_unpool1d",
    "max_unpool2d", "relu_", "elu_", "leaky_relu_", "hardtanh_", "celu_", "selu_", "rrelu_",
    "threshold_", "embedding_bag", "multilabel_margin_loss",
    "triplet_margin_with_distance_loss", "pdist", "channel_shuffle", "native_channel_shuffle",
    "upsample_nearest", "upsample_bilinear", "grid_sample", "affine_grid", "conv3d",
    "max_pool3d", "avg_pool3d", "adaptive_avg_pool3d", "adaptive_max_pool3d",
    "adaptive_max_pool3d_with_indices", "max_pool3d_with_indices", "conv_transpose3d",
    "ctc_loss", "lp_pool3d", "max_unpool3d", "fractional_max_pool2d", "fractional_max_pool3d",
    "fractional_max_pool2d_with_indices", "fractional_max_pool3d_with_indices",
]

native_channel_shuffle = channel_shuffle


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None,
                                       output_ratio=None, return_indices=False,
                                       _random_samples=None):
    """Apply :func:`fractional_max_pool2d` and return the indices of the maxima too.

    The indices come back whatever ``return_indices`` says.

    Args:
        input (Tensor): the input, :math:`(N, C, H, W)` or :math:`(C, H, W)`.
        kernel_size (int or tuple): the window's size.
        output_size (int or tuple, optional): the output's size in the pooled dimensions.
            Default: ``None``; give it or ``output_ratio``.
        output_ratio (float or tuple, optional): the output's size as a fraction of the
            input's. Default: ``None``.
        return_indices (bool, optional): ignored: the indices are always returned.
            Default: ``False``.
        _random_samples (Tensor, optional): the random offsets, as for
            :func:`fractional_max_pool2d`. Default: ``None``.

    Returns:
        (Tensor, Tensor): the maxima and, as int64, the flat position ``h * W + w`` of each
        in its input plane.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> x = nbgrad.arange(25.0).reshape(1, 1, 5, 5)
        >>> u = nbgrad.full((1, 1, 2), 0.5)
        >>> F.fractional_max_pool2d_with_indices(x, 2, output_size=2, _random_samples=u)
        (tensor([[[[ 6.,  9.],
                  [21., 24.]]]]), tensor([[[[ 6,  9],
                  [21, 24]]]]))
    """
    return fractional_max_pool2d(input, kernel_size, output_size, output_ratio, True,
                                 _random_samples)


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None,
                                       output_ratio=None, return_indices=False,
                                       _random_samples=None):
    """Apply :func:`fractional_max_pool3d` and return the indices of the maxima too.

    The indices come back whatever ``return_indices`` says.

    Args:
        input (Tensor): the input, :math:`(N, C, T, H, W)` or :math:`(C, T, H, W)`.
        kernel_size (int or tuple): the window's size.
        output_size (int or tuple, optional): the output's size in the pooled dimensions.
            Default: ``None``; give it or ``output_ratio``.
        output_ratio (float or tuple, optional): the output's size as a fraction of the
            input's. Default: ``None``.
        return_indices (bool, optional): ignored: the indices are always returned.
            Default: ``False``.
        _random_samples (Tensor, optional): the random offsets, as for
            :func:`fractional_max_pool3d`. Default: ``None``.

    Returns:
        (Tensor, Tensor): the maxima and, as int64, the flat position
        ``(t * H + h) * W + w`` of each in its input volume.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> x = nbgrad.arange(64.0).reshape(1, 1, 4, 4, 4)
        >>> u = nbgrad.full((1, 1, 3), 0.5)
        >>> F.fractional_max_pool3d_with_indices(x, 2, output_size=1, _random_samples=u)
        (tensor([[[[[63.]]]]]), tensor([[[[[63]]]]]))
    """
    return fractional_max_pool3d(input, kernel_size, output_size, output_ratio, True,
                                 _random_samples)


def relu(input, inplace=False):
    r"""Apply the rectified linear unit elementwise: :math:`\text{ReLU}(x) = \max(0, x)`.

    Args:
        input (Tensor): the input tensor.
        inplace (bool, optional): overwrite ``input`` with the result and return it (as
            :meth:`Tensor.relu_`). Default: ``False``.

    Example::

        >>> import nbgrad
        >>> from nbgrad.nn.functional import relu
        >>> relu(nbgrad.tensor([-1.0, 2.0]))
        tensor([0., 2.])
        >>> x = nbgrad.tensor([-3.0, 0.5])
        >>> relu(x, inplace=True) is x
        True
        >>> x
        tensor([0.0000, 0.5000])
    """
    return input.relu_() if inplace else _elementwise.relu(input)


def relu_(input):
    """Apply :func:`relu` in place: ``relu(input, inplace=True)``.

    Args:
        input (Tensor): the tensor to overwrite with its ReLU; it is also returned.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> x = nbgrad.tensor([-1.0, 2.0])
        >>> F.relu_(x)
        tensor([0., 2.])
        >>> x
        tensor([0., 2.])
    """
    return input.relu_()


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    r"""Apply softmax along ``dim``: :math:`\exp(x_i) / \sum_j \exp(x_j)` (see
    :func:`nbgrad.softmax`).

    This is PyTorch's functional signature, whose third positional argument is
    ``_stacklevel``, not the ``dtype`` of ``nbgrad.softmax(input, dim, dtype)``.

    Args:
        input (Tensor): the input tensor (floating point).
        dim (int, optional): the dimension along which the result sums to 1. ``None``
            (deprecated, with a warning) picks PyTorch's legacy choice: 0 for 0-, 1- and
            3-D inputs, else 1. Default: ``None``.
        _stacklevel (int, optional): unused; kept for PyTorch's signature. Default: ``3``.
        dtype (nbgrad.dtype, optional): if given, ``input`` is converted to this dtype
            first. Default: ``None``.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> F.softmax(nbgrad.tensor([[1.0, 2.0, 3.0]]), 1)
        tensor([[0.0900, 0.2447, 0.6652]])
    """
    return _softmax.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    r"""Apply :math:`\log(\text{softmax}(x))` along ``dim``, stably (see
    :func:`nbgrad.log_softmax`).

    This is PyTorch's functional signature, whose third positional argument is
    ``_stacklevel``, not the ``dtype`` of ``nbgrad.log_softmax(input, dim, dtype)``.

    Args:
        input (Tensor): the input tensor (floating point).
        dim (int, optional): the dimension to normalize along. ``None`` (deprecated, with
            a warning) picks PyTorch's legacy choice: 0 for 0-, 1- and 3-D inputs, else 1.
            Default: ``None``.
        _stacklevel (int, optional): unused; kept for PyTorch's signature. Default: ``3``.
        dtype (nbgrad.dtype, optional): if given, ``input`` is converted to this dtype
            first. Default: ``None``.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> F.log_softmax(nbgrad.tensor([[1.0, 2.0, 3.0]]), 1)
        tensor([[-2.4076, -1.4076, -0.4076]])
    """
    return _softmax.log_softmax(input, dim, dtype=dtype)


def _in_place_form(fn):
    def form(input, *args, **kwargs):
        return fn(input, *args, inplace=True, **kwargs)

    form.__name__ = form.__qualname__ = fn.__name__ + "_"
    form.__doc__ = f"``{fn.__name__}(..., inplace=True)``."
    return form


elu_, leaky_relu_, hardtanh_, celu_, selu_, rrelu_, threshold_ = (
    _in_place_form(f) for f in (elu, leaky_relu, hardtanh, celu, selu, rrelu, threshold))


def _with_indices(fn):
    # PyTorch's form takes ``fn``'s arguments, ``return_indices`` included (positionally
    # too), and returns the indices whatever that says
    at = list(inspect.signature(fn).parameters).index("return_indices")

    def form(*args, **kwargs):
        if len(args) > at:
            args = args[:at] + (True,) + args[at + 1:]
        else:
            kwargs["return_indices"] = True
        return fn(*args, **kwargs)

    form.__name__ = form.__qualname__ = fn.__name__ + "_with_indices"
    form.__signature__ = inspect.signature(fn)
    form.__doc__ = f"``{fn.__name__}(..., return_indices=True)``: (values, indices)."
    return form


adaptive_max_pool1d_with_indices, adaptive_max_pool2d_with_indices, \
    adaptive_max_pool3d_with_indices = (_with_indices(adaptive_max_pool1d),
                                        _with_indices(adaptive_max_pool2d),
                                        _with_indices(adaptive_max_pool3d))
max_pool1d_with_indices, max_pool2d_with_indices, max_pool3d_with_indices = (
    _with_indices(max_pool1d), _with_indices(max_pool2d), _with_indices(max_pool3d))


# the docstrings of the forms made above
elu_.__doc__ = r"""Apply :func:`elu` in place: ``elu(input, alpha, inplace=True)``.

``input`` is overwritten with the result and returned. As for every in-place op,
``input`` must not be a leaf that requires grad (nor a view of one) while autograd
records; otherwise gradients flow as through :func:`elu`.

Args:
    input (Tensor): the tensor to overwrite.
    alpha (float, optional): as for :func:`elu`. Default: ``1.0``.

Example::

    >>> import nbgrad
    >>> import nbgrad.nn.functional as F
    >>> x = nbgrad.tensor([-1.0, 2.0])
    >>> F.elu_(x)
    tensor([-0.6321,  2.0000])
    >>> x
    tensor([-0.6321,  2.0000])
"""

leaky_relu_.__doc__ = r"""Apply :func:`leaky_relu` in place:
``leaky_relu(input, negative_slope, inplace=True)``.

``input`` is overwritten with the result and returned. As for every in-place op,
``input`` must not be a leaf that requires grad (nor a view of one) while autograd
records; otherwise gradients flow as through :func:`leaky_relu`.

Args:
    input (Tensor): the tensor to overwrite.
    negative_slope (float, optional): as for :func:`leaky_relu`. Default: ``0.01``.

Example::

    >>> import nbgrad
    >>> import nbgrad.nn.functional as F
    >>> x = nbgrad.tensor([-1.0, 2.0])
    >>> F.leaky_relu_(x, 0.2) is x
    True
    >>> x
    tensor([-0.2000,  2.0000])
"""

hardtanh_.__doc__ = r"""Apply :func:`hardtanh` in place:
``hardtanh(input, min_val, max_val, inplace=True)``.

``input`` is overwritten with the result and returned. As for every in-place op,
``input`` must not be a leaf that requires grad (nor a view of one) while autograd
records; otherwise gradients flow as through :func:`hardtanh`.

Args:
    input (Tensor): the tensor to overwrite.
    min_val (float, optional): the lower bound. Default: ``-1.0``.
    max_val (float, optional): the upper bound. Default: ``1.0``.

Example::

    >>> import nbgrad
    >>> import nbgrad.nn.functional as F
    >>> x = nbgrad.tensor([-3.0, 0.5, 3.0])
    >>> F.hardtanh_(x)
    tensor([-1.0000,  0.5000,  1.0000])
    >>> x
    tensor([-1.0000,  0.5000,  1.0000])
"""

celu_.__doc__ = r"""Apply :func:`celu` in place: ``celu(input, alpha, inplace=True)``.

``input`` is overwritten with the result and returned. As for every in-place op,
``input`` must not be a leaf that requires grad (nor a view of one) while autograd
records; otherwise gradients flow as through :func:`celu`.

Args:
    input (Tensor): the tensor to overwrite.
    alpha (float, optional): as for :func:`celu`. Default: ``1.0``.

Example::

    >>> import nbgrad
    >>> import nbgrad.nn.functional as F
    >>> x = nbgrad.tensor([-1.0, 2.0])
    >>> F.celu_(x)
    tensor([-0.6321,  2.0000])
    >>> x
    tensor([-0.6321,  2.0000])
"""

selu_.__doc__ = r"""Apply :func:`selu` in place: ``selu(input, inplace=True)``.

``input`` is overwritten with the result and returned. As for every in-place op,
``input`` must not be a leaf that requires grad (nor a view of one) while autograd
records; otherwise gradients flow as through :func:`selu`.

Args:
    input (Tensor): the tensor to overwrite.

Example::

    >>> import nbgrad
    >>> import nbgrad.nn.functional as F
    >>> x = nbgrad.tensor([-1.0, 2.0])
    >>> F.selu_(x)
    tensor([-1.1113,  2.1014])
    >>> x
    tensor([-1.1113,  2.1014])
"""

rrelu_.__doc__ = r"""Apply :func:`rrelu` in place:
``rrelu(input, lower, upper, training, inplace=True)``.

``input`` is overwritten with the result and returned. As for every in-place op,
``input`` must not be a leaf that requires grad (nor a view of one) while autograd
records; otherwise gradients flow as through :func:`rrelu`.

Args:
    input (Tensor): the tensor to overwrite.
    lower (float, optional): the lower bound of the slopes. Default: ``1 / 8``.
    upper (float, optional): the upper bound of the slopes. Default: ``1 / 3``.
    training (bool, optional): draw random slopes, as for :func:`rrelu`. Default: ``False``.

Example::

    >>> import nbgrad
    >>> import nbgrad.nn.functional as F
    >>> x = nbgrad.tensor([-1.0, 2.0])
    >>> F.rrelu_(x)
    tensor([-0.2292,  2.0000])
    >>> x
    tensor([-0.2292,  2.0000])
"""

threshold_.__doc__ = r"""Apply :func:`threshold` in place:
``threshold(input, threshold, value, inplace=True)``.

``input`` is overwritten with the result and returned. As for every in-place op,
``input`` must not be a leaf that requires grad (nor a view of one) while autograd
records; otherwise gradients flow as through :func:`threshold`.

Args:
    input (Tensor): the tensor to overwrite.
    threshold (float): the threshold.
    value (float): the value of the elements at or below the threshold.

Example::

    >>> import nbgrad
    >>> import nbgrad.nn.functional as F
    >>> x = nbgrad.tensor([-1.0, 2.0])
    >>> F.threshold_(x, 0.0, 5.0)
    tensor([5., 2.])
    >>> x
    tensor([5., 2.])
"""

max_pool1d_with_indices.__doc__ = r"""
Apply :func:`max_pool1d` and return the indices of the maxima too.

The same as ``max_pool1d(..., return_indices=True)``.

Args:
    input (Tensor): the input, :math:`(N, C, L)` or :math:`(C, L)`.
    kernel_size, stride, padding, dilation, ceil_mode: as for :func:`max_pool1d`.

Returns:
    (Tensor, Tensor): the pooled values and, as an int64 tensor of their shape,
    the position ``l`` of each maximum along :math:`L`.

Example::

    >>> import nbgrad
    >>> import nbgrad.nn.functional as F
    >>> x = nbgrad.tensor([[[1.0, 5.0, 2.0, 0.0, 3.0, 4.0]]])
    >>> F.max_pool1d_with_indices(x, 2)
    (tensor([[[5., 2., 4.]]]), tensor([[[1, 2, 5]]]))
"""

max_pool2d_with_indices.__doc__ = r"""
Apply :func:`max_pool2d` and return the indices of the maxima too.

The same as ``max_pool2d(..., return_indices=True)``.

Args:
    input (Tensor): the input, :math:`(N, C, H, W)` or :math:`(C, H, W)`.
    kernel_size, stride, padding, dilation, ceil_mode: as for :func:`max_pool2d`.

Returns:
    (Tensor, Tensor): the pooled values and, as an int64 tensor of their shape,
    the flat position ``h * W + w`` of each maximum in its input plane.

Example::

    >>> import nbgrad
    >>> import nbgrad.nn.functional as F
    >>> x = nbgrad.arange(16.0).reshape(1, 1, 4, 4)
    >>> F.max_pool2d_with_indices(x, 2)
    (tensor([[[[ 5.,  7.],
              [13., 15.]]]]), tensor([[[[ 5,  7],
              [13, 15]]]]))
"""

max_pool3d_with_indices.__doc__ = r"""
Apply :func:`max_pool3d` and return the indices of the maxima too.

The same as ``max_pool3d(..., return_indices=True)``.

Args:
    input (Tensor): the input, :math:`(N, C, D, H, W)` or :math:`(C, D, H, W)`.
    kernel_size, stride, padding, dilation, ceil_mode: as for :func:`max_pool3d`.

Returns:
    (Tensor, Tensor): the pooled values and, as an int64 tensor of their shape,
    the flat position ``(d * H + h) * W + w`` of each maximum in its input volume.

Example::

    >>> import nbgrad
    >>> import nbgrad.nn.functional as F
    >>> x = nbgrad.arange(8.0).reshape(1, 1, 2, 2, 2)
    >>> F.max_pool3d_with_indices(x, 2)
    (tensor([[[[[7.]]]]]), tensor([[[[[7]]]]]))
"""

adaptive_max_pool1d_with_indices.__doc__ = r"""
Apply :func:`adaptive_max_pool1d` and return the indices of the maxima too.

The same as ``adaptive_max_pool1d(..., return_indices=True)``.

Args:
    input (Tensor): the input, :math:`(N, C, L)` or :math:`(C, L)`.
    output_size: as for :func:`adaptive_max_pool1d`.

Returns:
    (Tensor, Tensor): the pooled values and, as an int64 tensor of their shape,
    the position ``l`` of each maximum along :math:`L`.

Example::

    >>> import nbgrad
    >>> import nbgrad.nn.functional as F
    >>> x = nbgrad.tensor([[[1.0, 5.0, 2.0, 0.0, 3.0, 4.0]]])
    >>> F.adaptive_max_pool1d_with_indices(x, 2)
    (tensor([[[5., 4.]]]), tensor([[[1, 5]]]))
"""

adaptive_max_pool2d_with_indices.__doc__ = r"""
Apply :func:`adaptive_max_pool2d` and return the indices of the maxima too.

The same as ``adaptive_max_pool2d(..., return_indices=True)``.

Args:
    input (Tensor): the input, :math:`(N, C, H, W)` or :math:`(C, H, W)`.
    output_size: as for :func:`adaptive_max_pool2d`.

Returns:
    (Tensor, Tensor): the pooled values and, as an int64 tensor of their shape,
    the flat position ``h * W + w`` of each maximum in its input plane.

Example::

    >>> import nbgrad
    >>> import nbgrad.nn.functional as F
    >>> x = nbgrad.arange(16.0).reshape(1, 1, 4, 4)
    >>> F.adaptive_max_pool2d_with_indices(x, 1)
    (tensor([[[[15.]]]]), tensor([[[[15]]]]))
"""

adaptive_max_pool3d_with_indices.__doc__ = r"""
Apply :func:`adaptive_max_pool3d` and return the indices of the maxima too.

The same as ``adaptive_max_pool3d(..., return_indices=True)``.

Args:
    input (Tensor): the input, :math:`(N, C, D, H, W)` or :math:`(C, D, H, W)`.
    output_size: as for :func:`adaptive_max_pool3d`.

Returns:
    (Tensor, Tensor): the pooled values and, as an int64 tensor of their shape,
    the flat position ``(d * H + h) * W + w`` of each maximum in its input volume.

Example::

    >>> import nbgrad
    >>> import nbgrad.nn.functional as F
    >>> x = nbgrad.arange(8.0).reshape(1, 1, 2, 2, 2)
    >>> F.adaptive_max_pool3d_with_indices(x, 1)
    (tensor([[[[[7.]]]]]), tensor([[[[[7]]]]]))
"""
