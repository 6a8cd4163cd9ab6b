"""Neural-network building blocks."""

from . import functional, init, utils
from .modules import (
    GELU,
    Conv2d,
    CrossEntropyLoss,
    Dropout,
    Embedding,
    Flatten,
    Identity,
    LayerNorm,
    Linear,
    LogSoftmax,
    Module,
    ModuleDict,
    ModuleList,
    MSELoss,
    NLLLoss,
    ParameterDict,
    ParameterList,
    ReLU,
    Sequential,
    Sigmoid,
    Softmax,
    Tanh,
    Unflatten,
)
from .parameter import Parameter

__all__ = [
    "functional", "init", "Parameter", "Module", "Linear", "Conv2d", "ReLU", "GELU", "Tanh",
    "Sigmoid", "Identity", "Flatten", "Sequential", "ModuleList", "Dropout", "LayerNorm",
    "Embedding", "MSELoss", "CrossEntropyLoss", "NLLLoss", "Softmax", "LogSoftmax", "Unflatten",
    "ModuleDict", "ParameterList", "ParameterDict", "utils",
]
