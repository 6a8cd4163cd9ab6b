"""Two forms the documentation review found wrong, against PyTorch: ``max``/``min`` with
``other=`` (was silently the whole-tensor reduction) and ``cat`` after an empty 1-d tensor
(was an error)."""

import numpy as np
import pytest

import nbgrad

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("name", ["max", "min"])
def test_other_keyword_is_the_elementwise_form(name):
    a, b = [1.0, 5.0, -2.0], [3.0, 2.0, -2.5]
    ours = getattr(nbgrad, name)(nbgrad.tensor(a), other=nbgrad.tensor(b))
    theirs = getattr(torch, name)(torch.tensor(a), other=torch.tensor(b))
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    method = getattr(nbgrad.tensor(a), name)(other=nbgrad.tensor(b))
    np.testing.assert_array_equal(method.numpy(), theirs.numpy())
    x = nbgrad.tensor(a, requires_grad=True)
    getattr(nbgrad, name)(x, other=nbgrad.tensor(b)).sum().backward()
    t = torch.tensor(a, requires_grad=True)
    getattr(torch, name)(t, other=torch.tensor(b)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), t.grad.numpy())
    with pytest.raises(TypeError, match="invalid combination of arguments"):
        getattr(nbgrad, name)(nbgrad.tensor(a), 0, other=nbgrad.tensor(b))


def test_cat_skips_leading_empty_1d_tensors():
    for parts in ([[], [[1.0, 2.0], [3.0, 4.0]]], [[], [[1.0, 2.0]], []], [[], [5.0]],
                  [[], []]):
        ours = nbgrad.cat([nbgrad.tensor(p) for p in parts])
        theirs = torch.cat([torch.tensor(p) for p in parts])
        assert tuple(ours.shape) == tuple(theirs.shape)
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    x = nbgrad.ones(2, 2, requires_grad=True)
    nbgrad.cat([nbgrad.tensor([]), x]).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.ones((2, 2)))
    with pytest.raises(RuntimeError, match="Tensors must have same number of dimensions: "
                                           "got 2 and 1"):
        nbgrad.cat([nbgrad.ones(2, 2), nbgrad.ones(3)])
