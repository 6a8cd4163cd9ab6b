"""Samplers: which dataset indices a ``DataLoader`` reads, in which order, in which batches
(``torch.utils.data.sampler``'s classes and checks).

Shuffled orders are PyTorch's for the same seed: ``RandomSampler`` draws a seed from the
default generator (``nbgrad.manual_seed``) for a generator of its own each pass, or draws
from ``generator`` (an ``nbgrad.Generator``).
"""

from ...creation import empty, randint, randperm
from ...dtypes import int64
from ...random import Generator


def _check_generator(generator):
    if generator is not None and not isinstance(generator, Generator):
        raise TypeError("generator must be None (the default generator, seeded by "
                        "nbgrad.manual_seed) or an nbgrad.Generator, not "
                        f"{type(generator).__name__}")
    return generator


def _fresh_generator():
    """PyTorch's RandomSampler without a generator: a new one, seeded from the default."""
    seed = int(empty((), dtype=int64).random_().item())
    return Generator().manual_seed(seed)


class Sampler:
    """Base class: an iterable of dataset indices (or of lists of them, for a batch
    sampler), with ``__len__`` where it is known."""

    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    """Indices ``0 .. len(data_source) - 1`` in order.

    Example::

        >>> from nbgrad.utils.data import SequentialSampler
        >>> list(SequentialSampler(range(3)))
        [0, 1, 2]
    """

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """Indices of ``data_source`` in a random order: a permutation per pass
    (``num_samples`` of them in all, default ``len(data_source)``), or drawn with
    ``replacement``. A new order at each iteration.

    Example::

        >>> import nbgrad
        >>> from nbgrad.utils.data import RandomSampler
        >>> _ = nbgrad.manual_seed(0)
        >>> sorted(RandomSampler(range(4)))
        [0, 1, 2, 3]
    """

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = _check_generator(generator)
        if not isinstance(replacement, bool):
            raise TypeError("replacement should be a boolean value, but got "
                            f"replacement={replacement}")
        if (isinstance(self.num_samples, bool) or not isinstance(self.num_samples, int)
                or self.num_samples <= 0):
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        gen = self.generator if self.generator is not None else _fresh_generator()
        if self.replacement:
            for _ in range(self.num_samples // 32):
                yield from randint(high=n, size=(32,), generator=gen).tolist()
            yield from randint(high=n, size=(self.num_samples % 32,), generator=gen).tolist()
            return
        for _ in range(self.num_samples // n):
            yield from randperm(n, generator=gen).tolist()
        yield from randperm(n, generator=gen).tolist()[:self.num_samples % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given ``indices`` in a random order (a new one at each iteration).

    Example::

        >>> from nbgrad.utils.data import SubsetRandomSampler
        >>> sorted(SubsetRandomSampler([5, 7, 9]))
        [5, 7, 9]
    """

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = _check_generator(generator)

    def __iter__(self):
        for i in randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices of ``weights`` (a 1-d sequence, not normalised), index ``i``
    drawn with probability ``weights[i] / sum(weights)``; with ``replacement`` (the
    default) an index may come again, without it at most once. The draws are
    ``nbgrad.multinomial``'s, so PyTorch's for the same seed (the default generator, or
    ``generator``, an ``nbgrad.Generator``); a new draw at each iteration.

    Example::

        >>> import nbgrad
        >>> from nbgrad.utils.data import WeightedRandomSampler
        >>> sampler = WeightedRandomSampler([0.0, 1.0, 0.0, 3.0], 6)
        >>> len(sampler), sorted(set(sampler))
        (6, [1, 3])
        >>> sorted(WeightedRandomSampler([0.5, 0.0, 2.0], 3, replacement=False))
        [0, 1, 2]
    """

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        from ... import as_tensor, float64

        if isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples <= 0:
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError("replacement should be a boolean value, but got "
                             f"replacement={replacement}")
        weights = as_tensor(weights, dtype=float64)
        if weights.ndim != 1:
            raise ValueError("weights should be a 1d sequence but given weights have shape "
                             f"{tuple(weights.shape)}")
        self.weights, self.num_samples, self.replacement = weights, num_samples, replacement
        self.generator = _check_generator(generator)

    def __iter__(self):
        from ... import multinomial

        draws = multinomial(self.weights, self.num_samples, self.replacement,
                            generator=self.generator)
        yield from draws.tolist()

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Lists of ``batch_size`` indices from ``sampler``; the last one shorter unless
    ``drop_last``.

    Example::

        >>> from nbgrad.utils.data import BatchSampler, SequentialSampler
        >>> list(BatchSampler(SequentialSampler(range(5)), batch_size=2, drop_last=False))
        [[0, 1], [2, 3], [4]]
    """

    def __init__(self, sampler, batch_size, drop_last):
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0:
            raise ValueError("batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self):
        batch = []
        for i in self.sampler:
            batch.append(i)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
