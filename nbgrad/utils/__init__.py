"""``nbgrad.utils``: as ``torch.utils`` (``checkpoint``, ``data``, ``dlpack``, ``hooks``)."""

from . import checkpoint, data, dlpack, hooks

__all__ = ["checkpoint", "data", "dlpack", "hooks"]
