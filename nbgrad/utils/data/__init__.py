"""``nbgrad.utils.data``: datasets, samplers and the ``DataLoader``, as ``torch.utils.data``.

>>> import nbgrad
>>> from nbgrad.utils.data import DataLoader, TensorDataset
>>> ds = TensorDataset(nbgrad.arange(6.0).reshape(3, 2), nbgrad.tensor([0, 1, 0]))
>>> [(x.shape, y.tolist()) for x, y in DataLoader(ds, batch_size=2)]
[(nbgrad.Size([2, 2]), [0, 1]), (nbgrad.Size([1, 2]), [0])]
"""

from .dataloader import DataLoader, default_collate, default_convert
from .dataset import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    StackDataset,
    Subset,
    TensorDataset,
    random_split,
)
from .distributed import DistributedSampler
from .sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)


def get_worker_info():
    """Information on the ``DataLoader`` worker process this runs in, or None in the main
    process: always None here, since nbgrad's ``DataLoader`` loads every batch in the
    calling process (so an ``IterableDataset`` that shards itself by worker reads it
    whole, as with ``num_workers=0`` in PyTorch).

    Example::

        >>> from nbgrad.utils.data import get_worker_info
        >>> get_worker_info() is None
        True
    """
    return None


__all__ = ["BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset",
           "DistributedSampler", "IterableDataset", "RandomSampler", "Sampler",
           "SequentialSampler", "StackDataset",
           "Subset", "SubsetRandomSampler", "TensorDataset", "WeightedRandomSampler",
           "default_collate", "default_convert", "get_worker_info", "random_split"]
