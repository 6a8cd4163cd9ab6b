"""``nbgrad.nn.functional``: the functional form of layers, activations and losses."""

from ..ops import elementwise as _elementwise
from ..ops.activation import gelu, silu
from ..ops.conv import conv2d, max_pool2d
from ..ops.dropout import dropout
from ..ops.elementwise_loss import binary_cross_entropy_with_logits, mse_loss
from ..ops.index import embedding
from ..ops.linalg import linear
from ..ops.loss import cross_entropy, nll_loss
from ..ops.normalization import layer_norm
from ..ops.softmax import log_softmax, softmax

# the elementwise ops whose rows ask for an ``nn.functional`` name (relu, sigmoid, tanh)
_ELEMENTWISE = [op.name for op in _elementwise.TABLE.values() if op.functional]
globals().update({name: getattr(_elementwise, name) for name in _ELEMENTWISE})

__all__ = _ELEMENTWISE + [
    "gelu", "silu", "softmax", "log_softmax", "cross_entropy",
    "nll_loss", "mse_loss", "binary_cross_entropy_with_logits", "linear", "dropout",
    "layer_norm", "conv2d", "max_pool2d",
    "embedding",
]
