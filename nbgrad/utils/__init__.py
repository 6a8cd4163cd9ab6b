"""``nbgrad.utils``: as ``torch.utils`` (``data``, ``dlpack``)."""

from . import data, dlpack

__all__ = ["data", "dlpack"]
