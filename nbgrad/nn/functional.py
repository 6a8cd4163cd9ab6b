"""``nbgrad.nn.functional``: the functional form of layers, activations and losses."""

from ..ops.conv import conv2d, max_pool2d
from ..ops.elementwise import relu, sigmoid, tanh
from ..ops.index import embedding
from ..ops.nn_ops import (
    binary_cross_entropy_with_logits,
    cross_entropy,
    dropout,
    gelu,
    layer_norm,
    linear,
    log_softmax,
    mse_loss,
    nll_loss,
    silu,
    softmax,
)

__all__ = [
    "relu", "sigmoid", "tanh", "gelu", "silu", "softmax", "log_softmax", "cross_entropy",
    "nll_loss", "mse_loss", "binary_cross_entropy_with_logits", "linear", "dropout",
    "layer_norm", "conv2d", "max_pool2d",
    "embedding",
]
