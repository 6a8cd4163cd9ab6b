"""``DistributedSampler``: each process of a distributed job reads its own share of a
dataset, as ``torch.utils.data.distributed.DistributedSampler``."""

import math

from .sampler import Sampler


class DistributedSampler(Sampler):
    """The indices of ``dataset`` that one process reads: every ``num_replicas``-th index
    from ``rank``, of a permutation (``shuffle``) that every process draws alike from
    ``seed + epoch``. So that every process gets as many, the indices are padded by
    repeating the first ones (or, with ``drop_last``, the tail is dropped). The same
    indices, for the same arguments, as PyTorch's sampler.

    Args:
        dataset: the dataset (its ``len`` is used).
        num_replicas (int, optional): the number of processes. Default: the world size of
            the default process group.
        rank (int, optional): this process's rank. Default: its rank in the default group.
        shuffle (bool, optional): permute the indices (a new permutation at each
            ``set_epoch``). Default: ``True``.
        seed (int, optional): the permutation's seed, the same on every process.
            Default: ``0``.
        drop_last (bool, optional): drop the tail that does not divide evenly instead of
            padding. Default: ``False``.

    Example::

        >>> import nbgrad
        >>> from nbgrad.utils.data import DistributedSampler, TensorDataset
        >>> ds = TensorDataset(nbgrad.arange(10))
        >>> [list(DistributedSampler(ds, num_replicas=3, rank=r, shuffle=False))
        ...  for r in range(3)]
        [[0, 3, 6, 9], [1, 4, 7, 0], [2, 5, 8, 1]]
        >>> s = DistributedSampler(ds, num_replicas=3, rank=0, drop_last=True)
        >>> s.set_epoch(1)
        >>> len(s), len(list(s))
        (3, 3)
    """

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0,
                 drop_last=False):
        if num_replicas is None or rank is None:
            from ...distributed import get_rank, get_world_size, is_initialized

            if not is_initialized():
                raise RuntimeError("Requires distributed package to be available")
            num_replicas = get_world_size() if num_replicas is None else num_replicas
            rank = get_rank() if rank is None else rank
        if rank >= num_replicas or rank < 0:
            raise ValueError(
                f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        n = len(dataset)
        if drop_last and n % num_replicas != 0:
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self):
        n = len(self.dataset)
        if self.shuffle:
            from ... import Generator, randperm

            g = Generator()
            g.manual_seed(self.seed + self.epoch)
            indices = randperm(n, generator=g).tolist()
        else:
            indices = list(range(n))
        if not self.drop_last:
            pad = self.total_size - len(indices)
            if pad <= len(indices):
                indices += indices[:pad]
            else:
                indices += (indices * math.ceil(pad / len(indices)))[:pad]
        else:
            indices = indices[:self.total_size]
        assert len(indices) == self.total_size
        indices = indices[self.rank:self.total_size:self.num_replicas]
        assert len(indices) == self.num_samples
        return iter(indices)

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """Use ``seed + epoch`` for the next permutation (call it at each epoch's start
        on every process, or every epoch reads the same order).

        Args:
            epoch (int): the epoch number.
        """
        self.epoch = epoch
