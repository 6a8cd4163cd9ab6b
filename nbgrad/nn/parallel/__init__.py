"""``nn.parallel``: ``DataParallel`` (PyTorch's single-process wrapper)."""

from .data_parallel import DataParallel

__all__ = ["DataParallel"]
