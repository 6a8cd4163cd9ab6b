"""Rearranging tensors (ops/rearrange.py): meshgrid, broadcast_tensors / broadcast_to,
movedim, swapdims, unflatten, the stacks, atleast_Nd, flips and rot90, the splits, select,
take, repeat_interleave: values, shapes and gradients against PyTorch, finite
differences in float64."""

import doctest
import warnings

import numpy as np
import pytest

import nbgrad
from nbgrad.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

rng = np.random.default_rng(0)
X = rng.standard_normal((3, 4, 2))
V = rng.standard_normal(4)
W = rng.standard_normal(3)
calls = [
 lambda m, x, v, w: m.meshgrid(v, w), lambda m, x, v, w: m.meshgrid(v, w, indexing="xy"), lambda m, x, v, w: m.meshgrid([v, w, v[:2]]),
  lambda m, x, v, w: m.broadcast_tensors(x, v[:2]), lambda m, x, v, w: v[:2].broadcast_to((3, 2)), lambda m, x, v, w: m.movedim(x, 0, -1), lambda m, x, v, w: x.movedim((0, 1), (2, 0)), lambda m, x, v, w: m.moveaxis(x, -1, 0),
  lambda m, x, v, w: x.swapdims(0, 2), lambda m, x, v, w: x.unflatten(1, (2, -1)), lambda m, x, v, w: m.vstack([v, v]), lambda m, x, v, w: m.hstack([v, w]), lambda m, x, v, w: m.hstack([x, x]),
  lambda m, x, v, w: m.dstack([x[:, :, 0], x[:, :, 1]]), lambda m, x, v, w: m.column_stack([v, v * 2]), lambda m, x, v, w: m.atleast_2d(v), lambda m, x, v, w: m.atleast_3d(x[0]), lambda m, x, v, w: m.atleast_1d(v[0]),
  lambda m, x, v, w: m.fliplr(x), lambda m, x, v, w: m.flipud(x), lambda m, x, v, w: m.rot90(x), lambda m, x, v, w: m.rot90(x, 2, (1, 2)), lambda m, x, v, w: m.rot90(x, -1),
  lambda m, x, v, w: m.tensor_split(x, 2, 1), lambda m, x, v, w: m.tensor_split(x, [1, 3]), lambda m, x, v, w: x.hsplit(2), lambda m, x, v, w: m.vsplit(x, [1]), lambda m, x, v, w: m.select(x, 1, 2), lambda m, x, v, w: x.select(-1, 0),
  lambda m, x, v, w: m.dsplit(x, 2), lambda m, x, v, w: x.dsplit([1]), lambda m, x, v, w: m.hsplit(v, [1, 3]),
  lambda m, x, v, w: x.unsafe_chunk(2, 1), lambda m, x, v, w: x.unsafe_split(3, 1), lambda m, x, v, w: x.unsafe_split_with_sizes([1, 3], 1),
  lambda m, x, v, w: m.take(x, m.tensor([[0, 5], [-1, 7]])), lambda m, x, v, w: m.repeat_interleave(v, 2), lambda m, x, v, w: x.repeat_interleave(m.tensor([1, 0, 2]), dim=0), lambda m, x, v, w: m.repeat_interleave(m.tensor([2, 1]))]


@pytest.mark.parametrize("call", calls)
def test_matches_pytorch(call):
    got = []
    for m in (nbgrad, torch):
        x, v, w = (m.tensor(a, requires_grad=True) for a in (X, V, W))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (PyTorch's meshgrid indexing notice)
            out = call(m, x, v, w)
        outs = out if isinstance(out, tuple) else (out,)
        s = sum((o.double() * m.arange(o.numel(), dtype=m.float64).reshape(o.shape)).sum()
                for o in outs if o.dtype.is_floating_point)
        if hasattr(s, "backward"):
            s.backward()
        got.append([o.detach().numpy() for o in outs]
                   + [t.grad.numpy() if t.grad is not None else np.zeros(1) for t in (x, v, w)])
    assert len(got[0]) == len(got[1])
    for a, b in zip(*got):
        assert a.shape == b.shape and a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)


def test_finite_differences():
    x = nbgrad.tensor(X, requires_grad=True)
    for f in [lambda t: nbgrad.rot90(t, 1, (1, 2)), lambda t: t.movedim(0, 2),
              lambda t: nbgrad.take(t, nbgrad.tensor([3, 0, 3])),
              lambda t: t.repeat_interleave(nbgrad.tensor([2, 0, 1]), dim=0),
              lambda t: nbgrad.meshgrid(t[0, :, 0], t[:, 0, 1], indexing="xy")[1]]:
        assert gradcheck(f, (x,)) and gradgradcheck(f, (x,))


def test_docstring_examples_run():
    from nbgrad.ops import rearrange

    res = doctest.testmod(rearrange, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert res.attempted and not res.failed


@pytest.mark.parametrize("call", [
    lambda m: m.dsplit(m.zeros(2, 3), 2), lambda m: m.dsplit(m.zeros(2, 3, 3), 2),
    lambda m: m.hsplit(m.zeros(()), 2), lambda m: m.hsplit(m.zeros(5), 2),
    lambda m: m.hsplit(m.zeros(2, 5), 0), lambda m: m.vsplit(m.zeros(5), 2),
    lambda m: m.vsplit(m.zeros(5, 2), 2)])
def test_split_errors_are_pytorchs(call):
    from tests._errors import assert_same_error

    assert_same_error(call, torch, nbgrad, lambda text: text.replace("torch.", "nbgrad."))

