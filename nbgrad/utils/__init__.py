"""``nbgrad.utils``: as ``torch.utils`` (``data``)."""

from . import data

__all__ = ["data"]
