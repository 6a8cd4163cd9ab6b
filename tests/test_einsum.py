"""Tests of outer/ger (ops/linalg.py) and einsum (ops/einsum.py)."""

import numpy as np
import pytest
from _gradrows import check_gradients, check_grads_match_torch

import nbgrad
from nbgrad.autograd import gradcheck, gradgradcheck


def _rng(seed=0):
    return np.random.default_rng(seed)


def _t(a, rg=False):
    return nbgrad.tensor(a, requires_grad=rg)



GRAD_FNS = [  # (name, fn(m, x) with m = nbgrad or torch)
    ("outer", lambda m, x: m.outer(x[0, 0], x[1, :, 0])),
    ("einsum", lambda m, x: m.einsum("ijk,ijl->kl", x, x * x)),
]


@pytest.mark.parametrize("name,fn", GRAD_FNS, ids=[n for n, _ in GRAD_FNS])
def test_gradcheck(name, fn):
    check_gradients(fn)


@pytest.mark.parametrize("name,fn", GRAD_FNS, ids=[n for n, _ in GRAD_FNS])
def test_grads_match_torch(name, fn):
    check_grads_match_torch(fn)


# ----- values and errors -------------------------------------------------------------------------
def test_outer():
    a, b = _rng(9).standard_normal(3), _rng(10).standard_normal(4)
    np.testing.assert_allclose(nbgrad.outer(_t(a), _t(b)).numpy(), np.outer(a, b))
    np.testing.assert_allclose(_t(a).ger(_t(b)).numpy(), np.outer(a, b))
    with pytest.raises(RuntimeError, match="Expected 1-D argument self"):
        nbgrad.outer(nbgrad.ones(2, 2), nbgrad.ones(2))


EINSUM = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 2)]),
    ("i,i->", [(5,), (5,)]),
    ("ij->ji", [(3, 4)]),
    ("ij->", [(3, 4)]),
    ("i,j->ij", [(3,), (4,)]),
    ("ijk,ik->ij", [(2, 3, 4), (2, 4)]),
    ("ij,jk", [(3, 4), (4, 2)]),  # implicit output
    ("ba,ac", [(3, 4), (4, 2)]),  # implicit output, sorted labels
    ("i,i,i->i", [(4,), (4,), (4,)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
    ("ii->i", [(3, 3)]),
    ("ii", [(3, 3)]),
    ("iij->j", [(3, 3, 2)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (4, 2)]),
    ("b...,b->...", [(2, 3, 2), (2,)]),
    ("ij,kj->ikj", [(2, 3), (4, 3)]),
    ("ij,j->i", [(2, 1), (3,)]),  # size-1 broadcast
    ("i,j,k->ijk", [(2,), (3,), (2,)]),
    ("Ab,bC->AC", [(2, 3), (3, 2)]),
]


@pytest.mark.parametrize("eq,shapes", EINSUM, ids=[e for e, _ in EINSUM])
def test_einsum(eq, shapes):
    rng = _rng(11)
    arrs = [rng.standard_normal(s) for s in shapes]
    xs = [nbgrad.tensor(a, requires_grad=True) for a in arrs]
    y = nbgrad.einsum(eq, *xs)
    try:
        ref = np.einsum(eq, *arrs)
    except ValueError:  # NumPy does not broadcast size-1 subscripts
        ref = np.einsum(eq, *[np.broadcast_to(arrs[0], (2, 3))] + arrs[1:])
    np.testing.assert_allclose(y.detach().numpy(), ref, rtol=1e-10, atol=1e-12)
    assert tuple(y.shape) == ref.shape
    assert gradcheck(lambda *ts: nbgrad.einsum(eq, *ts), tuple(xs))
    assert gradgradcheck(lambda *ts: nbgrad.einsum(eq, *ts), tuple(xs))


def test_einsum_matches_torch_and_list_form():
    torch = pytest.importorskip("torch")
    a, b = _rng(12).standard_normal((2, 3, 4)), _rng(13).standard_normal((2, 4, 5))
    y = nbgrad.einsum("bij,bjk->bik", [_t(a), _t(b)])
    yt = torch.einsum("bij,bjk->bik", [torch.tensor(a), torch.tensor(b)])
    np.testing.assert_allclose(y.numpy(), yt.numpy())
    y = nbgrad.einsum("...ij,...jk", _t(np.ones((5, 1, 2, 3))), _t(np.ones((4, 3, 2))))
    assert tuple(y.shape) == (5, 4, 2, 2)
    i = _t(np.ones(1))
    assert nbgrad.einsum("i,i", i, _t(np.ones(3))).item() == 3.0  # size 1 broadcasts
    s = nbgrad.tensor(5.0)
    assert nbgrad.einsum(",->", s, s).item() == 25.0
    np.testing.assert_allclose(nbgrad.einsum("i...->i", _t(np.ones((2, 3)))).numpy(), [3.0, 3.0])


@pytest.mark.parametrize("eq,shapes,msg", [
    ("ij,jk->ik", [(2, 3), (2, 2)], "does not broadcast with previously seen size"),
    ("ij", [(2, 3, 4)], "does not match the number of dimensions"),
    ("ij,jk", [(2, 3)], "fewer operands were provided"),
    ("i", [(2,), (2,)], "more operands were provided"),
    ("ij->ii", [(2, 3)], "appears more than once in the output"),
    ("ij->k", [(2, 3)], "does not appear in the equation for any input operand"),
    ("i1", [(2, 3)], "subscripts must be in"),
    ("ii", [(2, 3)], "is repeated for operand 0 but the sizes don't match"),
    ("i.j", [(2, 3)], "not part of any ellipsis"),
])
def test_einsum_errors(eq, shapes, msg):
    with pytest.raises(RuntimeError, match=msg):
        nbgrad.einsum(eq, *[nbgrad.ones(*s) for s in shapes])


def test_einsum_dtype_mismatch():
    with pytest.raises(RuntimeError, match="expected scalar type Float but found Double"):
        nbgrad.einsum("ij,jk", nbgrad.ones(2, 2), nbgrad.ones(2, 2, dtype=nbgrad.float64))
