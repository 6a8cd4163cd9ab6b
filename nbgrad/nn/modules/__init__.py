"""``nn.Module`` and the standard layers, with PyTorch's names, defaults and
initialisations, in PyTorch's submodules (``nbgrad.nn.modules.linear.Linear``, ...).

>>> model = nbgrad.nn.Sequential(nbgrad.nn.Linear(4, 8), nbgrad.nn.ReLU(), nbgrad.nn.Linear(8, 2))
>>> loss = nbgrad.nn.CrossEntropyLoss()(model(x), y)
"""

from .activation import GELU, LogSoftmax, ReLU, Sigmoid, Softmax, Tanh
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .conv import Conv2d
from .dropout import Dropout
from .flatten import Flatten, Unflatten
from .linear import Identity, Linear
from .loss import CrossEntropyLoss, MSELoss, NLLLoss
from .module import Module
from .normalization import LayerNorm
from .sparse import Embedding

__all__ = [
    "Module", "Linear", "Conv2d", "ReLU", "GELU", "Tanh", "Sigmoid", "Identity", "Flatten",
    "Sequential", "ModuleList", "Dropout", "LayerNorm", "Embedding", "MSELoss",
    "CrossEntropyLoss", "NLLLoss", "Softmax", "LogSoftmax", "Unflatten", "ModuleDict",
    "ParameterList", "ParameterDict",
]
