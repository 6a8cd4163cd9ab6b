"""PyTorch's legacy tensor types and constructor (``Tensor(2, 3)``, ``FloatTensor(data)``,
``isinstance(t, LongTensor)``, ``t.type(DoubleTensor)``), ``typename``, and
``copy.deepcopy`` / ``copy.copy`` of tensors, against PyTorch."""

import copy
import doctest

import numpy as np
import pytest

import nbgrad
from tests._errors import assert_same_error

torch = pytest.importorskip("torch")

_TYPES = ["BoolTensor", "ByteTensor", "CharTensor", "ShortTensor", "IntTensor", "LongTensor",
          "HalfTensor", "BFloat16Tensor", "FloatTensor", "DoubleTensor"]


@pytest.mark.parametrize("name", _TYPES)
def test_legacy_types_construct_and_check_as_torch(name):
    for args in ((), (2, 3), (nbgrad.Size([2, 2]),), ([1, 0, 2],), ((3, 4),),
                 (np.array([1, 2]),), (np.int64(3),)):
        targs = tuple(torch.Size(a) if isinstance(a, nbgrad.Size) else a for a in args)
        ours, theirs = getattr(nbgrad, name)(*args), getattr(torch, name)(*targs)
        assert str(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1]
        assert tuple(ours.shape) == tuple(theirs.shape)
        if args and not isinstance(args[0], (int, np.integer, nbgrad.Size)):
            assert ours.tolist() == theirs.tolist()
        assert not ours.requires_grad and ours.is_leaf
    T = getattr(nbgrad, name)
    assert isinstance(T(2), T) and isinstance(nbgrad.zeros(1, dtype=T.dtype), T)
    assert isinstance(T(2), nbgrad.Tensor) and type(T(2)) is nbgrad.Tensor
    others = [getattr(nbgrad, n) for n in _TYPES if n != name]
    assert not any(isinstance(T(2), o) for o in others)
    assert not isinstance(T(2), getattr(nbgrad.cuda, name)) and not T.is_cuda
    assert repr(T) == f"<class 'nbgrad.{name}'>" and T.__name__ == name
    assert nbgrad.ones(2).type(T).dtype is T.dtype
    t = T(3)
    assert T(t) is not t and T(t).data_ptr() == t.data_ptr()  # an alias of the same type


def test_tensor_constructor_is_the_default_float_type():
    assert nbgrad.Tensor(2, 3).dtype == nbgrad.float32 and nbgrad.Tensor(2, 3).shape == (2, 3)
    assert nbgrad.Tensor([1, 2]).tolist() == [1.0, 2.0] and nbgrad.Tensor().shape == (0,)
    i = nbgrad.tensor(3)
    assert nbgrad.Tensor(i).dtype == nbgrad.int64  # (Tensor(t) keeps any tensor's dtype)
    nbgrad.set_default_dtype(nbgrad.float64)
    try:
        assert nbgrad.Tensor(2).dtype == nbgrad.float64
    finally:
        nbgrad.set_default_dtype(nbgrad.float32)
    # the layer idiom of PyTorch programs that predate torch.tensor
    w = nbgrad.nn.Parameter(nbgrad.Tensor(4, 3))
    nbgrad.nn.init.kaiming_uniform_(w)
    assert isinstance(w, nbgrad.nn.Parameter) and w.requires_grad and w.shape == (4, 3)
    assert nbgrad.typename(nbgrad.ones(2, dtype=nbgrad.int64)) == "nbgrad.LongTensor"
    assert nbgrad.typename(3) == torch.typename(3) == "int"
    assert nbgrad.typename(np.zeros(1)) == torch.typename(np.zeros(1)) == "numpy.ndarray"


@pytest.mark.parametrize("call", [
    lambda m: m.Tensor(2.5), lambda m: m.Tensor("a"), lambda m: m.Tensor(True),
    lambda m: m.Tensor(-1), lambda m: m.Tensor(2, -1),
    lambda m: m.FloatTensor(m.ones(2, dtype=m.float64)),
    lambda m: m.LongTensor(m.ones(2)),
    lambda m: m.FloatTensor(2, device="cuda"),
])
def test_legacy_constructor_errors_match_torch(call):
    assert_same_error(call, torch, nbgrad)


def test_deepcopy_of_tensors_as_torch():
    for m in (nbgrad, torch):
        x = m.ones(3, 4, requires_grad=True)
        x.grad = m.full((3, 4), 2.0)
        d = copy.deepcopy({"a": x, "row": x[1].detach(), "again": x})
        assert d["a"] is d["again"] and d["a"] is not x
        assert d["a"].requires_grad and d["a"].is_leaf and d["a"].grad.tolist() == x.grad.tolist()
        assert d["a"].grad is not x.grad
        with m.no_grad():
            d["row"].fill_(5.0)  # shares memory with the copy of x, not with x
        assert d["a"][1].tolist() == [5.0] * 4 and x[1].tolist() == [1.0] * 4
        p = m.nn.Parameter(m.ones(2))
        assert isinstance(copy.deepcopy(p), m.nn.Parameter)
        t = m.ones(4, 3).t()
        assert copy.deepcopy(t).stride() == t.stride()
        sd = copy.deepcopy(m.nn.Linear(2, 2).state_dict())
        assert list(sd) == ["weight", "bias"]
    assert_same_error(lambda m: copy.deepcopy(m.ones(2, requires_grad=True) * 2), torch, nbgrad)


def test_shallow_copy_as_torch():
    for m in (nbgrad, torch):
        x = m.ones(3, requires_grad=True)
        x.grad = m.zeros(3)
        y = copy.copy(x)
        assert y is not x and y.data_ptr() == x.data_ptr()
        assert y.requires_grad and y.is_leaf and y.grad is None
        assert isinstance(copy.copy(m.nn.Parameter(m.ones(2))), m.nn.Parameter)


def test_deepcopy_of_a_parameter_or_module_drops_gradients():
    for m in (nbgrad, torch):
        lin = m.nn.Linear(2, 2)
        lin(m.ones(1, 2)).sum().backward()
        new = copy.deepcopy(lin)
        assert new.weight.grad is None and lin.weight.grad is not None
        assert new.weight.tolist() == lin.weight.tolist() and new.weight is not lin.weight
        assert isinstance(new.weight, m.nn.Parameter) and new.weight.requires_grad


def test_docstring_examples_run():
    from nbgrad import tensor_types

    res = doctest.testmod(tensor_types, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert res.attempted and not res.failed
