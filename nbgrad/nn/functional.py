"""``nbgrad.nn.functional``: the functional form of layers, activations and losses."""

from ..ops import elementwise as _elementwise
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
from ..ops.softmax import gumbel_softmax, log_softmax, softmax
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
    """``fractional_max_pool2d`` with the indices, whatever ``return_indices`` says."""
    return fractional_max_pool2d(input, kernel_size, output_size, output_ratio, True,
                                 _random_samples)


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None,
                                       output_ratio=None, return_indices=False,
                                       _random_samples=None):
    """``fractional_max_pool3d`` with the indices, whatever ``return_indices`` says."""
    return fractional_max_pool3d(input, kernel_size, output_size, output_ratio, True,
                                 _random_samples)


def relu(input, inplace=False):
    """``max(input, 0)``, in place if ``inplace``.

    Example::

        >>> import nbgrad
        >>> from nbgrad.nn.functional import relu
        >>> relu(nbgrad.tensor([-1.0, 2.0]))
        tensor([0., 2.])
    """
    return input.relu_() if inplace else _elementwise.relu(input)


def relu_(input):
    """``relu(input, inplace=True)``."""
    return input.relu_()


def _in_place_form(fn):
    def form(input, *args, **kwargs):
        return fn(input, *args, inplace=True, **kwargs)

    form.__name__ = form.__qualname__ = fn.__name__ + "_"
    form.__doc__ = f"``{fn.__name__}(..., inplace=True)``."
    return form


elu_, leaky_relu_, hardtanh_, celu_, selu_, rrelu_, threshold_ = (
    _in_place_form(f) for f in (elu, leaky_relu, hardtanh, celu, selu, rrelu, threshold))


def _with_indices(fn):
    def form(*args, **kwargs):
        kwargs["return_indices"] = True
        return fn(*args, **kwargs)

    form.__name__ = form.__qualname__ = fn.__name__ + "_with_indices"
    form.__doc__ = f"``{fn.__name__}(..., return_indices=True)``: (values, indices)."
    return form


adaptive_max_pool1d_with_indices, adaptive_max_pool2d_with_indices, \
    adaptive_max_pool3d_with_indices = (_with_indices(adaptive_max_pool1d),
                                        _with_indices(adaptive_max_pool2d),
                                        _with_indices(adaptive_max_pool3d))
max_pool1d_with_indices, max_pool2d_with_indices, max_pool3d_with_indices = (
    _with_indices(max_pool1d), _with_indices(max_pool2d), _with_indices(max_pool3d))
