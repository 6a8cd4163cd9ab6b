"""Neural-network building blocks."""

from . import functional, init, parallel, utils
from .modules import *  # noqa: F403  (the layers, by modules.__all__)
from .modules import __all__ as _layers
from .parallel import DataParallel
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter

__all__ = ["functional", "init", "Parameter", "Buffer", "UninitializedParameter",
           "UninitializedBuffer", "utils", "parallel", "DataParallel", *_layers]
