"""``nn.parallel``: ``DataParallel`` (PyTorch's single-process wrapper) and
``DistributedDataParallel`` (processes on MPI, see ``nbgrad.distributed``)."""

from .data_parallel import DataParallel
from .distributed import DistributedDataParallel

__all__ = ["DataParallel", "DistributedDataParallel"]
