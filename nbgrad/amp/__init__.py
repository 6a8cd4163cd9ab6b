"""``nbgrad.amp``: PyTorch's mixed-precision training API. ``autocast`` does not cast to
float16 / bfloat16 yet, so it runs every op in its own dtype; ``GradScaler``
scales losses and unscales gradients as PyTorch's does (it is harmless at full precision),
so training scripts written for AMP run unchanged."""

from .autocast_mode import autocast, is_autocast_available
from .grad_scaler import GradScaler

__all__ = ["autocast", "GradScaler", "is_autocast_available"]
