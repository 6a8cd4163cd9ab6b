"""``nbgrad.utils.tensorboard``: as ``torch.utils.tensorboard``, a ``SummaryWriter`` that
writes TensorBoard's event files (scalars, histograms, images, text, hyperparameters).
Like PyTorch's, it needs the ``tensorboard`` package (``pip install tensorboard``)."""

try:
    import tensorboard  # noqa: F401
except ImportError:
    raise ImportError("nbgrad.utils.tensorboard needs the tensorboard package, as "
                      "torch.utils.tensorboard does: pip install tensorboard") from None

from .writer import SummaryWriter

__all__ = ["SummaryWriter"]
