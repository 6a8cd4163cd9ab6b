"""Testing helpers, as ``torch.testing``: ``assert_close``. ``python -m
nbgrad.testing.gpu_check`` runs the CUDA checks on a GPU."""

from ._comparison import assert_close

__all__ = ["assert_close"]
