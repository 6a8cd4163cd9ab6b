"""``nbgrad.nn.functional``: the functional form of layers, activations and losses."""

from ..ops.activation import gelu, silu
from ..ops.conv import conv2d, max_pool2d
from ..ops.dropout import dropout
from ..ops.elementwise import relu, sigmoid, tanh
from ..ops.index import embedding
from ..ops.linalg import linear
from ..ops.loss import binary_cross_entropy_with_logits, cross_entropy, mse_loss, nll_loss
from ..ops.normalization import layer_norm
from ..ops.softmax import log_softmax, softmax

__all__ = [
    "relu", "sigmoid", "tanh", "gelu", "silu", "softmax", "log_softmax", "cross_entropy",
    "nll_loss", "mse_loss", "binary_cross_entropy_with_logits", "linear", "dropout",
    "layer_norm", "conv2d", "max_pool2d",
    "embedding",
]
