"""``nn.Module`` and the standard layers, with PyTorch's names, defaults and
initialisations, in PyTorch's submodules (``nbgrad.nn.modules.linear.Linear``, ...).

>>> model = nbgrad.nn.Sequential(nbgrad.nn.Linear(4, 8), nbgrad.nn.ReLU(), nbgrad.nn.Linear(8, 2))
>>> x, y = nbgrad.randn(3, 4), nbgrad.tensor([0, 1, 1])   # a batch of 3, its class labels
>>> loss = nbgrad.nn.CrossEntropyLoss()(model(x), y)
>>> loss.backward()
"""

from . import padding as _padding
from .activation import *  # noqa: F403
from .activation import __all__ as _activations
from .adaptive import AdaptiveLogSoftmaxWithLoss
from .batchnorm import (
    BatchNorm1d,
    BatchNorm2d,
    BatchNorm3d,
    LazyBatchNorm1d,
    LazyBatchNorm2d,
    LazyBatchNorm3d,
    SyncBatchNorm,
)
from .channelshuffle import ChannelShuffle
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .conv import (
    Conv1d,
    Conv2d,
    Conv3d,
    ConvTranspose1d,
    ConvTranspose2d,
    ConvTranspose3d,
    LazyConv1d,
    LazyConv2d,
    LazyConv3d,
    LazyConvTranspose1d,
    LazyConvTranspose2d,
    LazyConvTranspose3d,
)
from .distance import CosineSimilarity, PairwiseDistance
from .dropout import (
    AlphaDropout,
    Dropout,
    Dropout1d,
    Dropout2d,
    Dropout3d,
    FeatureAlphaDropout,
)
from .flatten import Flatten, Unflatten
from .fold import Fold, Unfold
from .instancenorm import (
    InstanceNorm1d,
    InstanceNorm2d,
    InstanceNorm3d,
    LazyInstanceNorm1d,
    LazyInstanceNorm2d,
    LazyInstanceNorm3d,
)
from .lazy import LazyModuleMixin  # noqa: F401  (torch.nn.modules.lazy's)
from .linear import Bilinear, Identity, LazyLinear, Linear
from .loss import (
    BCELoss,
    BCEWithLogitsLoss,
    CosineEmbeddingLoss,
    CrossEntropyLoss,
    CTCLoss,
    GaussianNLLLoss,
    HingeEmbeddingLoss,
    HuberLoss,
    KLDivLoss,
    L1Loss,
    MarginRankingLoss,
    MSELoss,
    MultiLabelMarginLoss,
    MultiLabelSoftMarginLoss,
    MultiMarginLoss,
    NLLLoss,
    NLLLoss2d,
    PoissonNLLLoss,
    SmoothL1Loss,
    SoftMarginLoss,
    TripletMarginLoss,
    TripletMarginWithDistanceLoss,
)
from .module import Module
from .normalization import GroupNorm, LayerNorm, LocalResponseNorm, RMSNorm
from .padding import *  # noqa: F403  (ZeroPad2d, ReflectionPad2d, ...)
from .pixelshuffle import PixelShuffle, PixelUnshuffle
from .pooling import (
    AdaptiveAvgPool1d,
    AdaptiveAvgPool2d,
    AdaptiveAvgPool3d,
    AdaptiveMaxPool1d,
    AdaptiveMaxPool2d,
    AdaptiveMaxPool3d,
    AvgPool1d,
    AvgPool2d,
    AvgPool3d,
    FractionalMaxPool2d,
    FractionalMaxPool3d,
    LPPool1d,
    LPPool2d,
    LPPool3d,
    MaxPool1d,
    MaxPool2d,
    MaxPool3d,
    MaxUnpool1d,
    MaxUnpool2d,
    MaxUnpool3d,
)
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase
from .sparse import Embedding, EmbeddingBag
from .transformer import (
    Transformer,
    TransformerDecoder,
    TransformerDecoderLayer,
    TransformerEncoder,
    TransformerEncoderLayer,
)
from .upsampling import Upsample, UpsamplingBilinear2d, UpsamplingNearest2d

__all__ = [
    *_activations, "Module", "Linear", "Conv1d", "Conv2d", "ConvTranspose1d",
    "ConvTranspose2d", "MaxPool1d", "AvgPool1d", "GroupNorm", "RMSNorm", "InstanceNorm1d",
    "InstanceNorm2d", "CosineSimilarity", "PairwiseDistance", "PixelShuffle", "PixelUnshuffle",
    "Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d", "CosineEmbeddingLoss",
    "HingeEmbeddingLoss", "MarginRankingLoss", "MultiLabelSoftMarginLoss", "PoissonNLLLoss",
    "SoftMarginLoss", "TripletMarginLoss",
    *_padding.__all__, "Identity", "Flatten",
    "Sequential", "ModuleList", "Dropout", "LayerNorm", "Embedding", "MSELoss",
    "CrossEntropyLoss", "NLLLoss", "Unflatten", "ModuleDict",
    "ParameterList", "ParameterDict", "BatchNorm1d", "BatchNorm2d", "Dropout2d", "MaxPool2d",
    "AvgPool2d", "AdaptiveAvgPool2d", "L1Loss", "SmoothL1Loss", "HuberLoss", "BCELoss",
    "BCEWithLogitsLoss", "KLDivLoss", "RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase",
    "RNNCell", "LSTMCell", "GRUCell", "TransformerEncoderLayer",
    "TransformerEncoder", "TransformerDecoderLayer", "TransformerDecoder", "Transformer",
    "Bilinear", "Dropout1d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout",
    "GaussianNLLLoss", "MultiMarginLoss", "AdaptiveAvgPool1d", "AdaptiveMaxPool1d",
    "AdaptiveMaxPool2d", "LPPool1d", "LPPool2d", "MaxUnpool1d", "MaxUnpool2d", "Fold", "Unfold",
    "LocalResponseNorm", "EmbeddingBag", "ChannelShuffle", "MultiLabelMarginLoss",
    "TripletMarginWithDistanceLoss", "Conv3d", "MaxPool3d", "AvgPool3d", "AdaptiveAvgPool3d",
    "AdaptiveMaxPool3d", "BatchNorm3d", "InstanceNorm3d", "ConvTranspose3d",
    "CTCLoss", "LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d",
    "LazyConvTranspose2d", "LazyConvTranspose3d", "LazyBatchNorm1d", "LazyBatchNorm2d",
    "LazyBatchNorm3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d",
    "LPPool3d", "MaxUnpool3d", "NLLLoss2d", "AdaptiveLogSoftmaxWithLoss", "SyncBatchNorm",
    "FractionalMaxPool2d", "FractionalMaxPool3d",
]
