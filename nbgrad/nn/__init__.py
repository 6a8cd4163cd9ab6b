"""Neural-network building blocks."""

from . import functional, init
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
    Module,
    ModuleList,
    MSELoss,
    ReLU,
    Sequential,
    Sigmoid,
    Tanh,
)
from .parameter import Parameter

__all__ = [
    "functional", "init", "Parameter", "Module", "Linear", "Conv2d", "ReLU", "GELU", "Tanh",
    "Sigmoid", "Identity", "Flatten", "Sequential", "ModuleList", "Dropout", "LayerNorm",
    "Embedding", "MSELoss", "CrossEntropyLoss",
]
