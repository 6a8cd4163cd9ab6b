"""WeightedRandomSampler, StackDataset, ChainDataset and get_worker_info of nbgrad.utils.data
against torch.utils.data: the same indices for the same seed, the same items, PyTorch's
errors."""

import doctest

import numpy as np
import pytest

import nbgrad
from nbgrad.utils import data as D
from tests._errors import assert_same_error

torch = pytest.importorskip("torch")
TD = torch.utils.data

WEIGHTS = [0.1, 0.9, 0.4, 0.7, 3.0, 0.6, 0.0, 1.5]


def _draws(lib, weights, num_samples, replacement, seed, generator=False, passes=2):
    """The indices of ``passes`` iterations, seeded through the default generator or one of
    the sampler's own."""
    if generator:
        gen = lib.Generator().manual_seed(seed)
    else:
        lib.manual_seed(seed)
        gen = None
    sampler = lib.utils.data.WeightedRandomSampler(weights, num_samples,
                                                   replacement=replacement, generator=gen)
    return len(sampler), [list(sampler) for _ in range(passes)]


@pytest.mark.parametrize("generator", [False, True])
@pytest.mark.parametrize("num_samples, replacement", [(1, True), (5, True), (200, True),
                                                      (1, False), (5, False), (7, False)])
def test_weighted_sampler_draws_pytorchs_indices(num_samples, replacement, generator):
    for seed in (0, 3, 1234):
        ours = _draws(nbgrad, WEIGHTS, num_samples, replacement, seed, generator)
        theirs = _draws(torch, WEIGHTS, num_samples, replacement, seed, generator)
        assert ours == theirs
        assert all(i != 6 for i in ours[1][0])  # (a weight of zero is never drawn)


@pytest.mark.parametrize("weights", [
    (3, 1, 2, 5),  # ints, a tuple
    np.array([0.25, 0.5, 1.0, 2.0], np.float32),
    "tensor",
])
def test_weighted_sampler_takes_any_1d_sequence(weights):
    def make(lib):
        w = lib.tensor([1.0, 0.0, 2.0, 3.0]) if isinstance(weights, str) else weights
        return _draws(lib, w, 9, True, 5)

    assert make(nbgrad) == make(torch)
    sampler = D.WeightedRandomSampler(weights if not isinstance(weights, str) else [1.0], 2)
    assert sampler.weights.dtype == nbgrad.float64 and sampler.replacement


def test_a_loader_with_a_weighted_sampler_gives_pytorchs_batches():
    def batches(lib):
        lib.manual_seed(11)
        ds = lib.utils.data.TensorDataset(lib.arange(8.0))
        sampler = lib.utils.data.WeightedRandomSampler(WEIGHTS, 10)
        loader = lib.utils.data.DataLoader(ds, batch_size=4, sampler=sampler)
        return [b[0].tolist() for b in loader]

    assert batches(nbgrad) == batches(torch)


@pytest.mark.parametrize("call", [
    lambda d: d.WeightedRandomSampler(WEIGHTS, 0),
    lambda d: d.WeightedRandomSampler(WEIGHTS, True),
    lambda d: d.WeightedRandomSampler(WEIGHTS, 2.0),
    lambda d: d.WeightedRandomSampler(WEIGHTS, 3, replacement=1),
    lambda d: d.WeightedRandomSampler([[1.0, 2.0], [3.0, 4.0]], 3),
    lambda d: list(d.WeightedRandomSampler([1.0, 2.0], 3, replacement=False)),
    lambda d: list(d.WeightedRandomSampler([1.0, -2.0, 1.0], 2, replacement=False)),
    lambda d: list(d.WeightedRandomSampler([0.0, 0.0], 3)),
    lambda d: d.StackDataset(),
    lambda d: d.StackDataset([1, 2], b=[3, 4]),
    lambda d: d.StackDataset([1, 2], [3, 4, 5]),
    lambda d: d.StackDataset(a=[1, 2, 3], b=[3, 4]),
    lambda d: d.StackDataset([1, 2], [3, 4])[2],
    lambda d: list(d.ChainDataset([[1, 2]])),
    lambda d: len(d.ChainDataset([[1, 2]])),
])
def test_bad_arguments_raise_pytorchs_errors(call):
    assert_same_error(lambda lib: call(lib.utils.data), torch, nbgrad)


def _stream(lib, items, sized=True):
    base = lib.utils.data.IterableDataset

    class Stream(base):
        def __iter__(self):
            return iter(items)

    if sized:
        Stream.__len__ = lambda self: len(items)
    return Stream()


class _Batched:
    """A map-style dataset with ``__getitems__``, as a tensor-backed one may have."""

    def __init__(self, values):
        self.values = values

    def __getitem__(self, i):
        return self.values[i]

    def __getitems__(self, indices):
        return [self.values[i] * 10 for i in indices]

    def __len__(self):
        return len(self.values)


def test_stack_dataset_gives_tuples_or_dicts_as_pytorch():
    for lib in (nbgrad, torch):
        d = lib.utils.data
        pair = d.StackDataset(["a", "b", "c"], [1, 2, 3])
        named = d.StackDataset(text=["a", "b", "c"], label=[1, 2, 3])
        assert len(pair) == len(named) == 3
        assert pair[2] == ("c", 3) and named[1] == {"text": "b", "label": 2}
        assert isinstance(pair.datasets, tuple) and isinstance(named.datasets, dict)
        assert pair.__getitems__([2, 0]) == [("c", 3), ("a", 1)]
        assert named.__getitems__([1]) == [{"text": "b", "label": 2}]
        mixed = d.StackDataset(_Batched([1, 2, 3]), ["x", "y", "z"])
        assert mixed.__getitems__([0, 2]) == [(10, "x"), (30, "z")]
        assert d.StackDataset(v=_Batched([4, 5])).__getitems__([1]) == [{"v": 50}]


def test_stack_dataset_batches_in_a_loader_as_pytorchs():
    def batches(lib):
        ds = lib.utils.data.StackDataset(x=lib.arange(10.0).reshape(5, 2), y=list(range(5)))
        return [(b["x"].tolist(), b["y"].tolist())
                for b in lib.utils.data.DataLoader(ds, batch_size=2)]

    assert batches(nbgrad) == batches(torch)


def test_chain_dataset_reads_streams_in_turn_as_pytorch():
    for lib in (nbgrad, torch):
        d = lib.utils.data
        chain = d.ChainDataset([_stream(lib, [1, 2]), _stream(lib, []), _stream(lib, [3])])
        assert list(chain) == [1, 2, 3] and list(chain) == [1, 2, 3] and len(chain) == 3
        plus = _stream(lib, [4]) + _stream(lib, [5, 6])
        assert isinstance(plus, d.ChainDataset) and list(plus) == [4, 5, 6]
        unsized = d.ChainDataset([_stream(lib, [1], sized=False)])
        with pytest.raises(TypeError):
            len(unsized)
        loader = d.DataLoader(d.ChainDataset([_stream(lib, [1.0, 2.0]),
                                              _stream(lib, [3.0])]), batch_size=2)
        assert [b.tolist() for b in loader] == [[1.0, 2.0], [3.0]]


def test_get_worker_info_is_none_in_the_calling_process():
    assert D.get_worker_info() is None and TD.get_worker_info() is None
    seen = []

    class Probe(D.IterableDataset):
        def __iter__(self):
            seen.append(D.get_worker_info())
            return iter([1, 2, 3])

    # (nbgrad's workers load in the calling process: no worker information there either)
    assert [b.tolist() for b in D.DataLoader(Probe(), batch_size=2, num_workers=2)] == \
        [[1, 2], [3]]
    assert seen == [None]


def test_new_names_are_exported_as_pytorch_exports_them():
    for name in ("WeightedRandomSampler", "StackDataset", "ChainDataset", "get_worker_info"):
        assert name in D.__all__ and name in TD.__all__ and hasattr(D, name)


def test_docstring_examples_run():
    from nbgrad.utils.data import dataset, sampler

    for mod in (D, dataset, sampler):
        res = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
        assert res.attempted and not res.failed, mod.__name__
