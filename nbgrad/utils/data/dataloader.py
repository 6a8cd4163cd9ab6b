"""``DataLoader``: a dataset's samples in batches, as ``torch.utils.data.DataLoader``
(its arguments, checks and default collation). Batches are loaded in the calling process:
``num_workers`` > 0 gives the same batches, without worker processes (so
``worker_init_fn`` is not called), and ``pin_memory`` changes nothing on the CPU."""

import collections.abc
import re

import numpy as np

from ...creation import empty
from ...dtypes import int64
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler, _check_generator

_COLLATE_ERR = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts "
                "or lists; found {}")
_STRINGS = re.compile(r"[SaUO]")  # NumPy dtype kinds of strings and objects


def default_convert(data):
    """``data`` with NumPy arrays made tensors, inside dicts, tuples and lists too (the
    ``collate_fn`` of a loader that does not batch, ``batch_size=None``)."""
    from ... import as_tensor

    if isinstance(data, np.ndarray) and not _STRINGS.search(data.dtype.str):
        return as_tensor(data)
    if isinstance(data, np.generic) and not _STRINGS.search(data.dtype.str):
        return as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return {k: default_convert(v) for k, v in data.items()}
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # a namedtuple
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return [default_convert(d) for d in data]
    return data


def default_collate(batch):
    """One batch from a list of samples: tensors (and NumPy arrays) stacked along a new
    first dim, Python floats into a float64 tensor, ints into an int64 one (bools a bool
    one), strings kept as they come (the batch, or a field's tuple), and dicts, namedtuples, tuples and lists collated field
    by field (tuples and lists give lists), as PyTorch's ``default_collate``.

    Example::

        >>> import nbgrad
        >>> from nbgrad.utils.data import default_collate
        >>> default_collate([(nbgrad.ones(2), 1), (nbgrad.zeros(2), 0)])
        [tensor([[1., 1.],
                [0., 0.]]), tensor([1, 0])]
    """
    from ... import Tensor, as_tensor, float64, stack, tensor

    elem = batch[0]
    if isinstance(elem, Tensor):
        return stack(list(batch), 0)
    if isinstance(elem, np.ndarray):
        if _STRINGS.search(elem.dtype.str):
            raise TypeError(_COLLATE_ERR.format(elem.dtype))
        return stack([as_tensor(b) for b in batch], 0)
    if isinstance(elem, np.generic):
        if _STRINGS.search(elem.dtype.str):
            raise TypeError(_COLLATE_ERR.format(elem.dtype))
        return as_tensor(np.array(batch))
    if isinstance(elem, float):
        return tensor(batch, dtype=float64)
    if isinstance(elem, int):  # (bools too: a bool tensor)
        return tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        return {k: default_collate([d[k] for d in batch]) for k in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # a namedtuple
        return type(elem)(*(default_collate(s) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        n = len(elem)
        if any(len(b) != n for b in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        return [default_collate(s) for s in zip(*batch)]
    raise TypeError(_COLLATE_ERR.format(type(elem)))


class DataLoader:
    """Iterate over ``dataset`` in batches of ``batch_size`` samples, combined by
    ``collate_fn``; ``shuffle`` for a new random order each pass (PyTorch's order for the
    same seed: from the default generator, or ``generator``, an ``nbgrad.Generator``), or your
    own ``sampler`` / ``batch_sampler``. ``batch_size=None`` yields single samples.

    Example::

        >>> import nbgrad
        >>> from nbgrad.utils.data import DataLoader
        >>> from nbgrad.utils.data import TensorDataset
        >>> ds = TensorDataset(nbgrad.arange(10.0))
        >>> loader = DataLoader(ds, batch_size=4, drop_last=True)
        >>> len(loader), [b[0].tolist() for b in loader]
        (2, [[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0]])
    """

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=None, persistent_workers=False, pin_memory_device="",
                 in_order=True):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 "
                             "to disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in "
                             "multiprocessing.let num_workers > 0 to enable multiprocessing, "
                             "otherwise set prefetch_factor to None.")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        self.dataset = dataset
        self.num_workers, self.pin_memory, self.timeout = num_workers, pin_memory, timeout
        self.worker_init_fn = worker_init_fn
        self.generator = _check_generator(generator)
        self.prefetch_factor, self.persistent_workers = prefetch_factor, persistent_workers
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            if shuffle not in (False, None):
                raise ValueError("DataLoader with IterableDataset: expected unspecified "
                                 f"shuffle option, but got shuffle={shuffle}")
            if sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified "
                                 f"sampler option, but got sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified "
                                 f"batch_sampler option, but got batch_sampler={batch_sampler}")
        else:
            shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")
        if sampler is None and not self._iterable:
            sampler = (RandomSampler(dataset, generator=generator) if shuffle
                       else SequentialSampler(dataset))
        if batch_size is not None and batch_sampler is None and not self._iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size, self.drop_last = batch_size, drop_last
        self.sampler, self.batch_sampler = sampler, batch_sampler
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None or (self._iterable and self.batch_size is not None)

    def __iter__(self):
        # PyTorch draws its workers' base seed as each pass starts: drawn here too, so the
        # shuffles that follow are PyTorch's for the same seed
        empty((), dtype=int64).random_(generator=self.generator)
        return _LoaderIter(self)

    def _batches(self):
        collate, ds = self.collate_fn, self.dataset
        if self._iterable:
            if self.batch_size is None:
                for sample in ds:
                    yield collate(sample)
                return
            batch = []
            for sample in ds:
                batch.append(sample)
                if len(batch) == self.batch_size:
                    yield collate(batch)
                    batch = []
            if batch and not self.drop_last:
                yield collate(batch)
            return
        if self.batch_sampler is not None:
            many = getattr(ds, "__getitems__", None)
            for indices in self.batch_sampler:
                yield collate(many(indices) if many is not None else [ds[i] for i in indices])
            return
        for i in self.sampler:
            yield collate(ds[i])

    def __len__(self):
        if self._iterable:
            n = len(self.dataset)
            if self.batch_size is not None:
                n = n // self.batch_size if self.drop_last else -(-n // self.batch_size)
            return n
        return len(self.batch_sampler if self.batch_sampler is not None else self.sampler)


class _LoaderIter:
    """A pass over a DataLoader: its batches, and its length (``len(iter(loader))``, as
    PyTorch's iterators have)."""

    __slots__ = ("_loader", "_gen")

    def __init__(self, loader):
        self._loader = loader
        self._gen = loader._batches()

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._gen)

    def __len__(self):
        return len(self._loader)
