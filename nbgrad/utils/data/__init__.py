"""``nbgrad.utils.data``: datasets, samplers and the ``DataLoader``, as ``torch.utils.data``.

>>> import nbgrad
>>> from nbgrad.utils.data import DataLoader, TensorDataset
>>> ds = TensorDataset(nbgrad.arange(6.0).reshape(3, 2), nbgrad.tensor([0, 1, 0]))
>>> [(x.shape, y.tolist()) for x, y in DataLoader(ds, batch_size=2)]
[(nbgrad.Size([2, 2]), [0, 1]), (nbgrad.Size([1, 2]), [0])]
"""

from .dataloader import DataLoader, default_collate, default_convert
from .dataset import (
    ConcatDataset,
    Dataset,
    IterableDataset,
    Subset,
    TensorDataset,
    random_split,
)
from .sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
)

__all__ = ["BatchSampler", "ConcatDataset", "DataLoader", "Dataset", "IterableDataset",
           "RandomSampler", "Sampler", "SequentialSampler", "Subset", "SubsetRandomSampler",
           "TensorDataset", "default_collate", "default_convert", "random_split"]
