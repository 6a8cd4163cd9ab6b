"""A tensor's storage (``untyped_storage``, ``storage``), ``resize_`` / ``resize_as_`` /
``is_set_to``, the CPU-only Python maps (``apply_ map_ map2_``), ``dim_order``,
``pin_memory`` and the message for a Tensor attribute PyTorch has and nbgrad lacks,
against PyTorch."""

import doctest
import warnings

import numpy as np
import pytest

import nbgrad
from tests._errors import assert_same_error

torch = pytest.importorskip("torch")


def _both(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(nbgrad), fn(torch)


def test_storages_as_torch():
    def facts(m):
        x = m.arange(6.0).reshape(2, 3)
        u, v = x.untyped_storage(), x.t()[1:].untyped_storage()
        s = x[1].storage()
        return (u.nbytes(), u.size(), len(u), u.element_size(), u[4], u.tolist()[:8],
                u.data_ptr() == v.data_ptr() == x.data_ptr(), str(u.device),
                s.size(), s.element_size(), s.nbytes(), s[4], s.tolist(), len(s),
                m.ones(2).untyped_storage().data_ptr() == x.untyped_storage().data_ptr())
    assert _both(facts)[0] == _both(facts)[1]
    with pytest.warns(UserWarning, match="TypedStorage is deprecated"):
        s = nbgrad.ones(2).storage()
    assert isinstance(s, nbgrad.TypedStorage) and nbgrad.is_storage(s)
    assert isinstance(nbgrad.ones(2).untyped_storage(), nbgrad.UntypedStorage)
    assert not nbgrad.is_storage(nbgrad.ones(2)) and not torch.is_storage(torch.ones(2))


@pytest.mark.parametrize("make,sizes", [
    (lambda m: m.arange(6.0), (2, 2)),
    (lambda m: m.arange(6.0), (3, 3)),
    (lambda m: m.arange(6.0), (6,)),
    (lambda m: m.arange(6.0)[2:], (2,)),
    (lambda m: m.arange(6.0)[2:], (8,)),
    (lambda m: m.arange(6.0).reshape(2, 3).t(), (3, 2)),
    (lambda m: m.arange(6.0).reshape(2, 3).t(), (2, 2)),
    (lambda m: m.arange(4, dtype=m.int32), (0,)),
])
def test_resize_as_torch(make, sizes):
    def run(m):
        x = make(m)
        y = x.resize_(*sizes)
        n = min(x.numel(), 4)
        return (y is x, tuple(x.shape), x.stride(), x.storage_offset(),
                x.flatten()[:n].tolist() if x.numel() else [])
    got, want = _both(run)
    assert got == want


def test_resize_shares_memory_while_it_fits_and_resize_as():
    for m in (nbgrad, torch):
        x = m.arange(6.0)
        v = x[2:].resize_(2, 2)
        v.fill_(7.0)
        assert x.tolist() == [0.0, 1.0, 7.0, 7.0, 7.0, 7.0]
        assert m.arange(6.0).resize_as_(m.ones(2, 2)).tolist() == [[0.0, 1.0], [2.0, 3.0]]
        assert m.arange(3.0).resize_([3]).tolist() == [0.0, 1.0, 2.0]


@pytest.mark.parametrize("call", [
    lambda m: m.ones(2, requires_grad=True).resize_(3),
    lambda m: m.ones(2).resize_(-1), lambda m: m.ones(2).resize_(2, -3),
    lambda m: m.ones(2, requires_grad=True).apply_(lambda v: v),
    lambda m: m.ones(2).map_(m.ones(3), lambda a, b: a),
    lambda m: m.ones(2).is_set_to(3),
    lambda m: m.ones(2).nbgrad_has_no_such_attribute,
])
def test_errors_match_torch(call):
    assert_same_error(call, torch, nbgrad)


def test_an_attribute_only_pytorch_has_says_so():
    assert hasattr(torch.ones(2), "stft") and not hasattr(nbgrad.ones(2), "stft")
    with pytest.raises(AttributeError, match=r"^torch\.Tensor\.stft is not supported by "
                                             r"nbgrad yet$"):
        nbgrad.ones(2).stft


def test_is_set_to_dim_order_and_python_maps_as_torch():
    def run(m):
        x = m.arange(6.0)
        out = [x[1:].is_set_to(x[1:]), x.is_set_to(x), x.is_set_to(x.clone()),
               x[1:].is_set_to(x[2:]), x.view(2, 3).is_set_to(x),
               m.ones(2, 3).t().dim_order(), m.ones(2, 3, 4).permute(2, 0, 1).dim_order(),
               m.ones(2, 3).dim_order()]
        out.append(x.clone().apply_(lambda v: v * 2).tolist())
        out.append(x.clone().reshape(2, 3).map_(m.ones(3), lambda a, b: a + b).tolist())
        out.append(x.clone().map2_(m.ones(6), m.full((6,), 2.0), lambda a, b, c: a * c + b)
                   .tolist())
        out.append(m.ones(2, dtype=m.int64).apply_(lambda v: v * 2.7).tolist())
        return out
    got, want = _both(run)
    assert got == want


def test_python_maps_count_as_writes():
    # (PyTorch's apply_ leaves the version as it was; nbgrad counts the write, so that a
    # tensor saved for backward and changed by it is caught)
    x = nbgrad.ones(3)
    v0 = x._version
    x.apply_(lambda v: v)
    assert x._version > v0


def test_pin_memory_and_const_data_ptr():
    x = nbgrad.ones(2)
    assert x.const_data_ptr() == x.data_ptr()
    if nbgrad.cuda.is_available():
        assert x.pin_memory() is x
    else:
        assert_same_error(lambda m: m.ones(2).pin_memory(), torch, nbgrad)
    np.testing.assert_array_equal(x.numpy(), [1.0, 1.0])


def test_docstring_examples_run():
    from nbgrad import tensor_storage

    res = doctest.testmod(tensor_storage, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert res.attempted and not res.failed
