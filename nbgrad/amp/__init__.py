"""``nbgrad.amp``: PyTorch's mixed-precision training API. ``autocast`` runs matrix
products and convolutions in bfloat16 / float16 and precision-sensitive ops in float32, by
PyTorch's op lists; ``GradScaler`` scales losses and unscales gradients as PyTorch's does."""

from .autocast_mode import autocast, custom_bwd, custom_fwd, is_autocast_available
from .grad_scaler import GradScaler

__all__ = ["autocast", "custom_bwd", "custom_fwd", "GradScaler", "is_autocast_available"]
