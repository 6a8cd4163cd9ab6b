"""searchsorted, bucketize, bincount, histc, unique, unique_consecutive and isin against
PyTorch: values, dtypes, shapes and errors."""

import doctest

import numpy as np
import pytest

import nbgrad
from nbgrad.ops import search

torch = pytest.importorskip("torch")

S = np.array([1, 3, 5, 7, 9])
V = np.array([[3, 6, 9], [0, 5, 10]])
F = np.array([0.5, 2.5, 2.5, -1.0, 7.25, 2.5, 0.0])

CALLS = [
    lambda m: m.searchsorted(m.tensor(S), m.tensor(V)),
    lambda m: m.searchsorted(m.tensor(S), m.tensor(V), right=True),
    lambda m: m.searchsorted(m.tensor(S), m.tensor(V), side="right", out_int32=True),
    lambda m: m.searchsorted(m.tensor(S), 5),
    lambda m: m.searchsorted(m.tensor([[1, 3], [2, 4]]), m.tensor([[2], [3]])),
    lambda m: m.searchsorted(m.tensor([5, 1, 3]), m.tensor([2, 4]),
                             sorter=m.tensor([1, 2, 0])),
    lambda m: m.searchsorted(m.tensor(S.astype(float)).half(), m.tensor([2.5, 7.0]).half()),
    lambda m: m.bucketize(m.tensor(V), m.tensor(S)),
    lambda m: m.bucketize(m.tensor(F), m.tensor([0.0, 2.5, 5.0]), right=True),
    lambda m: m.bucketize(3.5, m.tensor(S)),
    lambda m: m.bincount(m.tensor([1, 3, 1, 0])),
    lambda m: m.bincount(m.tensor([1, 3, 1, 0]), minlength=6),
    lambda m: m.bincount(m.tensor([1, 3, 1, 0]), m.tensor([0.5, 1.0, 2.0, 3.0])),
    lambda m: m.bincount(m.tensor([1, 3, 1, 0]), m.tensor([1, 2, 3, 4])),
    lambda m: m.bincount(m.tensor([], dtype=m.int64)),
    lambda m: m.tensor([2, 2, 0], dtype=m.uint8).bincount(),
    lambda m: m.histc(m.tensor(F), bins=4, min=0, max=3),
    lambda m: m.tensor(F).histc(bins=5),
    lambda m: m.histc(m.tensor([2.0, 2.0]), bins=3),
    lambda m: m.unique(m.tensor([3, 1, 3, 2])),
    lambda m: m.unique(m.tensor(F), return_inverse=True, return_counts=True),
    lambda m: m.unique(m.tensor([[1, 2], [1, 2], [0, 5]]), dim=0, return_inverse=True),
    lambda m: m.tensor([[1, 2, 1], [3, 4, 3]]).unique(dim=1, return_counts=True),
    lambda m: m.unique(m.tensor([3.0, 1, 3]), sorted=False),
    lambda m: m.unique(m.tensor(F).bfloat16()),
    lambda m: m.unique_consecutive(m.tensor([1, 1, 2, 2, 3, 1, 1, 2]), return_inverse=True,
                                   return_counts=True),
    lambda m: m.tensor([[1, 1], [1, 1], [2, 3]]).unique_consecutive(dim=0, return_counts=True),
    lambda m: m.isin(m.tensor([1, 2, 3]), m.tensor([2, 5])),
    lambda m: m.isin(m.tensor([1, 2, 3]), 2, invert=True),
    lambda m: m.isin(m.tensor([1.0, 2.0]), m.tensor([2])),
]


def _flat(r):
    return [(str(t.dtype).split(".")[-1], tuple(t.shape), t.double().numpy().tolist())
            for t in (r if isinstance(r, tuple) else (r,))]


@pytest.mark.parametrize("k", range(len(CALLS)))
def test_matches_torch(k):
    assert _flat(CALLS[k](nbgrad)) == _flat(CALLS[k](torch))


ERRORS = [
    (lambda m: m.bincount(m.tensor([-1])), RuntimeError, "1-d non-negative integral"),
    (lambda m: m.bincount(m.tensor([[1]])), RuntimeError, "1-d non-negative integral"),
    (lambda m: m.bincount(m.tensor([1.0])), NotImplementedError, "bincount_cpu"),
    (lambda m: m.histc(m.tensor([1, 2]), bins=3), NotImplementedError, "histogram_cpu"),
    (lambda m: m.searchsorted(m.tensor(S), m.tensor(V), right=True, side="left"),
     RuntimeError, "side and right can't be set to opposites"),
    (lambda m: m.searchsorted(m.tensor([[1, 3], [2, 4]]), m.tensor([[2]])), RuntimeError,
     "first N-1 dimensions of boundaries tensor and input value tensor must match"),
    (lambda m: m.bucketize(m.tensor([1]), m.tensor([[1, 2]])), RuntimeError,
     "boundaries tensor must be 1 dimension"),
]


@pytest.mark.parametrize("call,exc,match", ERRORS)
def test_errors_match_torch(call, exc, match):
    for m in (nbgrad, torch):
        with pytest.raises(exc, match=match):
            call(m)


def test_the_docstring_examples_run():
    res = doctest.testmod(search)
    assert res.attempted >= 7 and not res.failed
