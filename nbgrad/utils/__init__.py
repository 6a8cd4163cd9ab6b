"""``nbgrad.utils``: as ``torch.utils`` (``data``, ``dlpack``, ``hooks``)."""

from . import data, dlpack, hooks

__all__ = ["data", "dlpack", "hooks"]
