"""Memory formats against PyTorch: ``channels_last`` (and 3-d) through ``contiguous``,
``is_contiguous``, ``clone``, ``to``, the ``*_like`` factories (samples included), ``empty``
and ``nn.Module.to``; strides, values, gradients, PyTorch's errors; the constants and
layout attributes programs read."""

import math
import pickle

import numpy as np
import pytest

import nbgrad
from tests._errors import assert_same_error

torch = pytest.importorskip("torch")


def _pair(shape, seed=0):
    a = np.random.default_rng(seed).standard_normal(shape)
    return nbgrad.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)


@pytest.mark.parametrize("shape,fmt", [((2, 3, 4, 5), "channels_last"),
                                       ((2, 1, 4, 5), "channels_last"),
                                       ((2, 3, 2, 4, 5), "channels_last_3d")])
def test_contiguous_in_a_format_has_pytorchs_strides_values_and_gradients(shape, fmt):
    x, tx = _pair(shape)
    y = x.contiguous(memory_format=getattr(nbgrad, fmt))
    ty = tx.contiguous(memory_format=getattr(torch, fmt))
    assert y.stride() == ty.stride()
    for f in ("contiguous_format", fmt):
        assert y.is_contiguous(memory_format=getattr(nbgrad, f)) == ty.is_contiguous(
            memory_format=getattr(torch, f))
    assert y.is_contiguous() == ty.is_contiguous()
    np.testing.assert_array_equal(y.detach().numpy(), ty.detach().numpy())
    assert y._base is None  # a copy, not a view
    g = np.random.default_rng(1).standard_normal(shape)
    (y * nbgrad.tensor(g)).sum().backward()
    (ty * torch.tensor(g)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())
    # already in the format: the tensor itself
    assert y.contiguous(memory_format=getattr(nbgrad, fmt)) is y
    back = y.contiguous()
    assert back.stride() == ty.contiguous().stride()
    np.testing.assert_array_equal(back.detach().numpy(), x.detach().numpy())


def test_clone_to_and_the_like_factories_keep_a_channels_last_input_so():
    x, tx = _pair((2, 3, 4, 5))
    cl, tcl = x.contiguous(memory_format=nbgrad.channels_last), tx.contiguous(
        memory_format=torch.channels_last)
    assert nbgrad.empty_like(cl).stride() == torch.empty_like(tcl).stride()
    for fn in (lambda m, t: t.clone(),
               lambda m, t: t.clone(memory_format=m.contiguous_format),
               lambda m, t: m.zeros_like(t), lambda m, t: m.ones_like(t),
               lambda m, t: m.full_like(t, 2.5),
               lambda m, t: m.zeros_like(t, memory_format=m.contiguous_format),
               lambda m, t: t.to(m.float32), lambda m, t: t.to(memory_format=m.contiguous_format)):
        a, b = fn(nbgrad, cl), fn(torch, tcl)
        assert a.stride() == b.stride()
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    # a row-major input converted to channels_last by to()
    y, ty = x.to(memory_format=nbgrad.channels_last), tx.to(memory_format=torch.channels_last)
    assert y.stride() == ty.stride() and y.grad_fn is not None
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.ones((2, 3, 4, 5)))
    e = nbgrad.empty(2, 3, 4, 5, memory_format=nbgrad.channels_last)
    assert e.stride() == torch.empty(2, 3, 4, 5, memory_format=torch.channels_last).stride()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_samples_like_a_channels_last_tensor_are_pytorchs(dtype):
    out = []
    for m in (nbgrad, torch):
        x = m.zeros(2, 3, 4, 5, dtype=getattr(m, dtype)).contiguous(
            memory_format=m.channels_last)
        m.manual_seed(3)
        r, rn, ri = m.rand_like(x), m.randn_like(x), m.randint_like(x, 10)
        assert r.stride() == rn.stride() == ri.stride() == (60, 1, 15, 3)
        out.append([t.numpy() for t in (r, rn, ri)])
    for a, b in zip(*out):
        np.testing.assert_allclose(a, b, rtol=1e-6 if dtype == "float32" else 0)


def test_module_to_channels_last_reaches_4d_parameters_and_trains_as_before():
    nbgrad.manual_seed(0)
    m = nbgrad.nn.Sequential(nbgrad.nn.Conv2d(3, 4, 3), nbgrad.nn.ReLU(), nbgrad.nn.Flatten(),
                             nbgrad.nn.Linear(4 * 3 * 3, 2))
    x = nbgrad.randn(2, 3, 5, 5)
    want = m(x)
    w = m[0].weight
    assert m.to(memory_format=nbgrad.channels_last) is m and m[0].weight is w
    assert w.stride() == (27, 1, 9, 3) and m[3].weight.is_contiguous()
    got = m(x.contiguous(memory_format=nbgrad.channels_last))
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-5,
                               atol=1e-6)
    got.sum().backward()
    assert w.grad.shape == w.shape


def test_memory_format_errors_are_pytorchs():
    for fn in (lambda m: m.zeros(2, 3).contiguous(memory_format=m.channels_last),
               lambda m: m.zeros(2, 3, 4, 5).transpose(0, 1).contiguous(
                   memory_format=m.preserve_format),
               lambda m: m.zeros(2, 3, 4).to(memory_format=m.channels_last),
               lambda m: m.zeros(2, 3, 4, 5).clone(memory_format=m.channels_last_3d),
               lambda m: m.empty(2, 3, memory_format=m.channels_last)):
        assert_same_error(fn, torch, nbgrad)


def test_constants_layout_and_dense_attributes():
    assert (nbgrad.pi, nbgrad.e) == (math.pi, math.e) and nbgrad.inf == math.inf
    assert math.isnan(nbgrad.nan) and nbgrad.newaxis is None
    x = nbgrad.zeros(2, 3)
    assert x[:, nbgrad.newaxis].shape == (2, 1, 3)
    assert x.layout is nbgrad.strided and repr(nbgrad.strided) == "torch.strided"
    assert repr(nbgrad.channels_last) == "torch.channels_last"
    assert isinstance(nbgrad.channels_last, nbgrad.memory_format)
    assert isinstance(nbgrad.strided, nbgrad.layout)
    assert pickle.loads(pickle.dumps(nbgrad.channels_last)) is nbgrad.channels_last
    for name in ("is_sparse", "is_quantized", "is_meta", "is_mkldnn", "is_nested"):
        assert getattr(x, name) is False and getattr(torch.zeros(1), name) is False
    assert x.is_pinned() is False and x.is_shared() is False
    y = nbgrad.zeros(2, 3, 4, 5)
    assert y.contiguous(memory_format=nbgrad.preserve_format) is y
    assert y.is_contiguous(memory_format=nbgrad.preserve_format)
    assert not x.is_contiguous(memory_format=nbgrad.channels_last)
    with pytest.raises(TypeError, match="memory_format"):
        x.contiguous(memory_format="channels_last")
