"""Datasets: ``Dataset`` (map-style: ``__getitem__`` and ``__len__``), ``IterableDataset``,
``TensorDataset``, ``StackDataset``, ``Subset``, ``ConcatDataset``, ``ChainDataset`` and
``random_split``, as in ``torch.utils.data.dataset``."""

import bisect
import itertools
import math
import warnings

from ...creation import randperm
from .sampler import _check_generator


class Dataset:
    """A map-style dataset: subclasses give ``__getitem__(index)`` (and ``__len__``, which
    the default sampler needs). ``a + b`` concatenates two datasets."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """A dataset read as a stream: subclasses give ``__iter__``. A ``DataLoader`` batches
    what it yields, in order (no sampler, no shuffle). ``a + b`` chains two streams."""

    def __iter__(self):
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")

    def __add__(self, other):
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    """Samples of tensors that share their first dimension: item ``i`` is
    ``tuple(t[i] for t in tensors)``.

    Example::

        >>> import nbgrad
        >>> from nbgrad.utils.data import TensorDataset
        >>> ds = TensorDataset(nbgrad.zeros(3, 2), nbgrad.tensor([4, 5, 6]))
        >>> len(ds), ds[1][1]
        (3, tensor(5))
    """

    def __init__(self, *tensors):
        assert all(tensors[0].size(0) == t.size(0) for t in tensors), \
            "Size mismatch between tensors"
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)


class StackDataset(Dataset):
    """Several datasets of one length side by side: item ``i`` is the tuple of their items
    ``i`` (datasets given by position) or the dict of them (given by keyword).

    Example::

        >>> from nbgrad.utils.data import StackDataset
        >>> StackDataset(["a", "b"], [1, 2])[1]
        ('b', 2)
        >>> StackDataset(text=["a", "b"], label=[1, 2])[0]
        {'text': 'a', 'label': 1}
    """

    def __init__(self, *args, **kwargs):
        if args and kwargs:
            # (PyTorch's message, missing space and all)
            raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via "
                             "``kwargs``) like input/output, but both types are given.")
        if not args and not kwargs:
            raise ValueError("At least one dataset should be passed")
        parts = list(args) if args else list(kwargs.values())
        self._length = len(parts[0])
        if any(len(d) != self._length for d in parts):
            raise ValueError("Size mismatch between datasets")
        self.datasets = args if args else kwargs

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __getitems__(self, indices):
        """Items at ``indices``, a batch at once from each dataset that has
        ``__getitems__``."""
        named = isinstance(self.datasets, dict)
        parts = self.datasets.items() if named else enumerate(self.datasets)
        batch = [{} if named else [] for _ in indices]
        for key, d in parts:
            if callable(getattr(d, "__getitems__", None)):
                items = d.__getitems__(indices)
                if len(items) != len(indices):
                    raise ValueError("Nested dataset's output size mismatch. Expected "
                                     f"{len(indices)}, got {len(items)}")
            else:
                items = [d[i] for i in indices]
            for sample, item in zip(batch, items):
                if named:
                    sample[key] = item
                else:
                    sample.append(item)
        return batch if named else [tuple(sample) for sample in batch]

    def __len__(self):
        return self._length


class ChainDataset(IterableDataset):
    """Several ``IterableDataset`` streams one after another, read as they are iterated.

    Example::

        >>> from nbgrad.utils.data import ChainDataset, IterableDataset
        >>> class Count(IterableDataset):
        ...     def __init__(self, n):
        ...         self.n = n
        ...     def __iter__(self):
        ...         return iter(range(self.n))
        ...     def __len__(self):
        ...         return self.n
        >>> ds = ChainDataset([Count(2), Count(3)])
        >>> list(ds), len(ds)
        ([0, 1, 0, 1, 2], 5)
    """

    def __init__(self, datasets):
        super().__init__()
        self.datasets = datasets

    def _streams(self):
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield d

    def __iter__(self):
        for d in self._streams():
            yield from d

    def __len__(self):
        return sum(len(d) for d in self._streams())


class Subset(Dataset):
    """The items of ``dataset`` at ``indices``, in that order.

    Example::

        >>> from nbgrad.utils.data import Subset
        >>> Subset(["a", "b", "c"], [2, 0])[0]
        'c'
    """

    def __init__(self, dataset, indices):
        self.dataset, self.indices = dataset, indices

    def __getitem__(self, index):
        if isinstance(index, list):
            return self.dataset[[self.indices[i] for i in index]]
        return self.dataset[self.indices[index]]

    def __len__(self):
        return len(self.indices)


class ConcatDataset(Dataset):
    """The items of ``datasets`` one after another.

    Example::

        >>> from nbgrad.utils.data import ConcatDataset
        >>> ds = ConcatDataset([["a", "b"], ["c"]])
        >>> len(ds), ds[2], ds[-1]
        (3, 'c', 'c')
    """

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = list(itertools.accumulate(len(d) for d in self.datasets))

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, index):
        if index < 0:
            if -index > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            index += len(self)
        d = bisect.bisect_right(self.cumulative_sizes, index)
        if d == len(self.datasets):
            raise IndexError(f"index {index} is out of range for a dataset of {len(self)}")
        return self.datasets[d][index - (self.cumulative_sizes[d - 1] if d else 0)]


def random_split(dataset, lengths, generator=None):
    """``dataset`` split at random into ``Subset``s of ``lengths`` (counts that sum to its
    length, or fractions that sum to 1: the remainder goes one item each to the first
    subsets, as PyTorch does), PyTorch's split for the same seed. ``generator``: an
    ``nbgrad.Generator`` (default: the default generator, seeded by ``nbgrad.manual_seed``).

    Example::

        >>> import nbgrad
        >>> from nbgrad.utils.data import random_split
        >>> _ = nbgrad.manual_seed(0)
        >>> train, test = random_split(range(10), [0.8, 0.2])
        >>> len(train), len(test), sorted(list(train) + list(test)) == list(range(10))
        (8, 2, True)
    """
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        counts = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            counts.append(int(math.floor(len(dataset) * frac)))
        for i in range(len(dataset) - sum(counts)):
            counts[i % len(counts)] += 1
        lengths = counts
        for i, n in enumerate(lengths):
            if n == 0:
                warnings.warn(f"Length of split at index {i} is 0. "
                              "This might result in an empty dataset.", stacklevel=2)
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    order = randperm(sum(lengths), generator=_check_generator(generator)).tolist()
    return [Subset(dataset, order[end - n:end])
            for end, n in zip(itertools.accumulate(lengths), lengths)]
