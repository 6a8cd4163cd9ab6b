"""cross_entropy's reduction happens inside its forward kernel (the losses' sum as the
``sum`` kernel adds them, then over the weight sum for a mean): the value must be what
summing the per-row losses and dividing by the weight sum gives, to the bit, and the edge
cases (no weight: nan; an empty batch) as PyTorch's."""

import math

import numpy as np
import pytest

import nbgrad
import nbgrad.nn.functional as F


def _by_ops(x, y, w, reduction):
    s = F.cross_entropy(x, y, weight=w, reduction="none").sum()
    if reduction == "sum":
        return s
    yv = y.numpy()
    ws = 0.0  # the kernel's order: one row after another, in float64
    for k in yv[yv != -100]:
        ws += float(w.numpy()[k]) if w is not None else 1.0
    return s / ws


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("M", [1, 7, 255, 256, 257, 1000])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_reduced_loss_is_the_rows_sum_over_the_weight_sum(dtype, M, weighted, reduction):
    rng = np.random.default_rng(M)
    C = 10
    x = nbgrad.tensor((rng.standard_normal((M, C)) * 3).astype(dtype))
    t = rng.integers(0, C, M)
    t[1::7] = -100
    y = nbgrad.tensor(t)
    w = nbgrad.tensor(rng.random(C).astype(dtype)) if weighted else None
    got = F.cross_entropy(x, y, weight=w, reduction=reduction)
    want = _by_ops(x, y, w, reduction)
    assert got.shape == () and got.dtype == x.dtype
    assert got.numpy().tobytes() == want.numpy().tobytes()


def test_no_weight_gives_nan_and_an_empty_batch_sums_to_zero():
    x = nbgrad.randn(4, 3)
    ignored = nbgrad.tensor([-100] * 4)
    assert math.isnan(F.cross_entropy(x, ignored).item())
    assert F.cross_entropy(x, ignored, reduction="sum").item() == 0.0
    # weights that sum to zero over the rows: the sum over 0, an infinity (as PyTorch's)
    w = nbgrad.tensor([1.0, -1.0, 0.5])
    t2 = nbgrad.tensor([0, 1])
    rows = F.cross_entropy(x[:2], t2, weight=w, reduction="none")
    got = F.cross_entropy(x[:2], t2, weight=w).item()
    assert math.isinf(got) and (got > 0) == (rows.sum().item() > 0)
    empty = nbgrad.zeros(0, 3)
    assert math.isnan(F.cross_entropy(empty, nbgrad.zeros(0, dtype=nbgrad.int64)).item())
    assert F.cross_entropy(empty, nbgrad.zeros(0, dtype=nbgrad.int64),
                           reduction="sum").item() == 0.0
