"""Automatic differentiation: ``backward``, ``grad``, grad modes, and graph nodes."""

from .anomaly_mode import detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from .api import backward, grad
from .function import Function, FunctionCtx, once_differentiable
from .grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .graph import AccumulateGrad, Node
from .variable import Variable

__all__ = [
    "backward", "grad", "no_grad", "enable_grad", "set_grad_enabled", "inference_mode",
    "is_grad_enabled", "is_inference_mode_enabled", "gradcheck", "gradgradcheck",
    "Node", "AccumulateGrad", "Function", "FunctionCtx", "once_differentiable",
    "GradcheckError", "detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled",
    "Variable",
]

from . import functional  # noqa: E402,F401
