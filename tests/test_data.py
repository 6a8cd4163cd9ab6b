"""nbgrad.utils.data: datasets, samplers, DataLoader and default_collate, against
torch.utils.data where PyTorch is installed (same batches for the same order, same errors)."""

import collections
import doctest
import warnings

import numpy as np
import pytest

import nbgrad
from nbgrad.utils import data as D

try:
    import torch
    import torch.utils.data as TD
except ImportError:  # pragma: no cover
    torch = TD = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch not installed")
Point = collections.namedtuple("Point", "x y")


def _plain(v):
    """A batch as plain Python/NumPy values (tensors of either library as (dtype, array))."""
    if isinstance(v, nbgrad.Tensor):
        return ("tensor", str(v.dtype).split(".")[-1], v.numpy().tolist())
    if torch is not None and isinstance(v, torch.Tensor):
        return ("tensor", str(v.dtype).split(".")[-1], v.numpy().tolist())
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, tuple) and hasattr(v, "_fields"):
        return (type(v).__name__,) + tuple(_plain(x) for x in v)
    if isinstance(v, (list, tuple)):
        return (type(v).__name__, [_plain(x) for x in v])
    return v


class _Samples:
    """A map-style dataset of samples made by ``make(lib, i)``; a plain class (each library
    only needs __getitem__ and __len__)."""

    def __init__(self, lib, make, n=5):
        self.lib, self.make, self.n = lib, make, n

    def __getitem__(self, i):
        if i >= self.n:
            raise IndexError(i)
        return self.make(self.lib, i)

    def __len__(self):
        return self.n


SAMPLES = {
    "tensor": lambda lib, i: lib.full((2,), float(i)),
    "tuple of tensor and int": lambda lib, i: (lib.full((2, 2), float(i)), i),
    "numpy": lambda lib, i: np.full(3, i, np.float32),
    "numpy scalar": lambda lib, i: np.float64(i) / 2,
    "float, bool, str": lambda lib, i: [i / 3, i % 2 == 0, f"s{i}"],
    "dict": lambda lib, i: {"a": lib.full((1,), i, dtype=lib.int64), "b": i * 1.5},
    "namedtuple": lambda lib, i: Point(lib.full((2,), float(i)), i),
    "nested": lambda lib, i: {"p": (np.arange(2) + i, [i, -i])},
}


@needs_torch
@pytest.mark.parametrize("kind", sorted(SAMPLES))
@pytest.mark.parametrize("batch_size, drop_last", [(2, False), (2, True), (5, False), (None, False)])
def test_batches_equal_pytorchs(kind, batch_size, drop_last):
    make = SAMPLES[kind]
    ours = D.DataLoader(_Samples(nbgrad, make), batch_size=batch_size, drop_last=drop_last)
    theirs = TD.DataLoader(_Samples(torch, make), batch_size=batch_size, drop_last=drop_last)
    assert len(ours) == len(theirs)
    got, want = [_plain(b) for b in ours], [_plain(b) for b in theirs]
    assert got == want


@needs_torch
def test_tensor_dataset_subset_concat_and_an_iterable_dataset_match_pytorch():
    x = np.arange(12, dtype=np.float32).reshape(6, 2)
    y = np.arange(6)
    ours = D.TensorDataset(nbgrad.from_numpy(x), nbgrad.from_numpy(y))
    theirs = TD.TensorDataset(torch.from_numpy(x), torch.from_numpy(y))
    assert len(ours) == 6 and _plain(ours[4]) == _plain(theirs[4])
    sub, tsub = D.Subset(ours, [5, 1, 3]), TD.Subset(theirs, [5, 1, 3])
    cat, tcat = sub + ours, tsub + theirs
    assert isinstance(cat, D.ConcatDataset) and len(cat) == len(tcat) == 9
    for i in (0, 2, 3, 8, -1, -9):
        assert _plain(cat[i]) == _plain(tcat[i])
    with pytest.raises(ValueError, match="absolute value of index should not exceed"):
        cat[-10]
    with pytest.raises(IndexError):
        cat[9]
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        D.TensorDataset(nbgrad.zeros(3), nbgrad.zeros(4))

    class Stream(D.IterableDataset):
        def __iter__(self):
            return iter(range(7))

        def __len__(self):
            return 7

    class TStream(TD.IterableDataset):
        def __iter__(self):
            return iter(range(7))

        def __len__(self):
            return 7

    for bs, drop in [(3, False), (3, True), (None, False)]:
        a, b = D.DataLoader(Stream(), bs, drop_last=drop), TD.DataLoader(TStream(), bs,
                                                                          drop_last=drop)
        assert len(a) == len(b)
        assert [_plain(v) for v in a] == [_plain(v) for v in b]


def test_shuffle_is_a_new_permutation_each_pass_and_follows_the_seed():
    ds = D.TensorDataset(nbgrad.arange(20))
    loader = D.DataLoader(ds, batch_size=6, shuffle=True)

    def epoch():
        return [int(v) for b in loader for v in b[0].tolist()]

    nbgrad.manual_seed(3)
    a, b = epoch(), epoch()
    assert sorted(a) == sorted(b) == list(range(20)) and a != b
    assert [len(x[0]) for x in loader] == [6, 6, 6, 2]
    nbgrad.manual_seed(3)
    assert epoch() == a  # the seed gives the same order again
    g1, g2 = nbgrad.Generator().manual_seed(5), nbgrad.Generator().manual_seed(5)
    la = D.DataLoader(ds, batch_size=4, shuffle=True, generator=g1)
    lb = D.DataLoader(ds, batch_size=4, shuffle=True, generator=g2)
    assert [x[0].tolist() for x in la] == [x[0].tolist() for x in lb]
    with pytest.raises(TypeError, match="generator must be None"):
        D.DataLoader(ds, shuffle=True, generator=object())


def test_random_sampler_with_replacement_and_num_samples():
    nbgrad.manual_seed(0)
    s = D.RandomSampler(range(4), num_samples=10)
    got = list(s)
    assert len(s) == len(got) == 10 and sorted(got[:8]) == [0, 0, 1, 1, 2, 2, 3, 3]
    r = list(D.RandomSampler(range(3), replacement=True, num_samples=50))
    assert len(r) == 50 and set(r) <= {0, 1, 2}
    assert sorted(D.SubsetRandomSampler([4, 8, 9])) == [4, 8, 9]


@needs_torch
@pytest.mark.parametrize("lengths", [[7, 3], [0.7, 0.3], [0.5, 0.25, 0.25], [0.33, 0.33, 0.34]])
def test_random_split_lengths_match_pytorch(lengths):
    ds = list(range(10))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = D.random_split(ds, lengths)
        theirs = TD.random_split(ds, lengths)
    assert [len(s) for s in ours] == [len(s) for s in theirs]
    assert sorted(i for s in ours for i in s) == ds
    with pytest.warns(UserWarning, match="Length of split at index 1 is 0"):
        D.random_split(list(range(2)), [0.9, 0.1])


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return type(e), str(e)
    return None


@needs_torch
@pytest.mark.parametrize("kwargs", [
    dict(num_workers=-1), dict(timeout=-1), dict(prefetch_factor=2),
    dict(persistent_workers=True), dict(shuffle=True, sampler=[0, 1]),
    dict(batch_sampler=[[0]], batch_size=2), dict(batch_sampler=[[0]], drop_last=True),
    dict(batch_size=None, drop_last=True), dict(batch_size=0), dict(batch_size=True),
    dict(drop_last=1),
])
def test_bad_arguments_raise_pytorchs_errors(kwargs):
    ours = _error(lambda: D.DataLoader(list(range(4)), **kwargs))
    theirs = _error(lambda: TD.DataLoader(list(range(4)), **kwargs))
    assert ours is not None and ours == theirs


@needs_torch
def test_bad_samples_and_iterable_options_raise_pytorchs_errors():
    for batch in ([object(), object()], [np.array(["a"]), np.array(["b"])],
                  [[1, 2], [3]]):
        assert _error(lambda b=batch: D.default_collate(b)) == \
            _error(lambda b=batch: TD.default_collate(b))

    class Stream(D.IterableDataset):
        def __iter__(self):
            return iter(range(3))

    class TStream(TD.IterableDataset):
        def __iter__(self):
            return iter(range(3))

    for kw in (dict(shuffle=True), dict(sampler=[0]), dict(batch_sampler=[[0]])):
        ours = _error(lambda k=kw: D.DataLoader(Stream(), **k))
        theirs = _error(lambda k=kw: TD.DataLoader(TStream(), **k))
        assert ours[0] is theirs[0] is ValueError
        assert ours[1].split(", but got")[0] == theirs[1].split(", but got")[0]


def test_a_batch_sampler_num_workers_and_a_collate_fn():
    ds = D.TensorDataset(nbgrad.arange(6) * 10)
    loader = D.DataLoader(ds, batch_sampler=[[5, 0], [2]], num_workers=2,
                          collate_fn=lambda b: [int(s[0]) for s in b])
    assert len(loader) == 2 and list(loader) == [[50, 0], [20]]
    # (a dataset that reads several items at once)
    class Many(D.Dataset):
        def __getitems__(self, idx):
            return [("many", i) for i in idx]

        def __len__(self):
            return 3

    assert list(D.DataLoader(Many(), batch_size=2, collate_fn=list)) == [
        [("many", 0), ("many", 1)], [("many", 2)]]


def test_the_docstring_examples_run():
    from nbgrad.utils.data import dataloader, dataset, sampler

    for mod in (D, dataloader, dataset, sampler):
        res = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
        assert res.attempted and not res.failed, mod.__name__
