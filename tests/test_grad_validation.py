"""What the engine makes of a gradient on its way to an input (PyTorch's validate_outputs and
hook checks): an op that promoted operands of two dtypes hands each its own dtype back; a
custom Function's gradient is cast to its input's dtype; a hook that changes a gradient's
dtype, size or count, or returns something else than a tensor, is PyTorch's error."""

import numpy as np
import pytest

import nbgrad

# (name, f(lib, a, b)) with a float32 and b float64, both requiring grad
MIXED = [
    ("mul", lambda L, a, b: a * b),
    ("add", lambda L, a, b: a + b),
    ("div", lambda L, a, b: a / b),
    ("pow", lambda L, a, b: a ** b),
    ("maximum", lambda L, a, b: L.maximum(a, b)),
    ("broadcast", lambda L, a, b: a.reshape(3, 1) * b),
    ("chain", lambda L, a, b: a.exp() * b.sin()),
    ("zero_dim", lambda L, a, b: a * b.sum()),
    ("where", lambda L, a, b: L.where(a > 1.5, a, b)),
    ("clamp", lambda L, a, b: L.clamp(a, min=b)),
    ("cat", lambda L, a, b: L.cat([a, b])),
    ("stack", lambda L, a, b: L.stack([a, b])),
    ("mse_loss", lambda L, a, b: L.nn.functional.mse_loss(a, b)),
]
A = [1.0, 2.0, 3.0]
B = [1.5, 2.5, 0.5]


def _grads(L, f):
    a = L.tensor(A, dtype=L.float32, requires_grad=True)
    b = L.tensor(B, dtype=L.float64, requires_grad=True)
    f(L, a, b).sum().backward()
    return a.grad, b.grad


@pytest.mark.parametrize("name,f", MIXED, ids=[m[0] for m in MIXED])
def test_an_op_of_two_dtypes_gives_each_operand_a_gradient_of_its_dtype(name, f):
    ga, gb = _grads(nbgrad, f)
    assert ga.dtype is nbgrad.float32 and gb.dtype is nbgrad.float64
    torch = pytest.importorskip("torch")
    ta, tb = _grads(torch, f)
    np.testing.assert_array_equal(ga.numpy(), ta.numpy())
    np.testing.assert_array_equal(gb.numpy(), tb.numpy())


def test_autograd_grad_and_double_backward_keep_the_input_dtype():
    a = nbgrad.tensor(A, dtype=nbgrad.float32, requires_grad=True)
    b = nbgrad.tensor(B, dtype=nbgrad.float64, requires_grad=True)
    g, = nbgrad.autograd.grad((a * a * b).sum(), a, create_graph=True)
    assert g.dtype is nbgrad.float32 and g.requires_grad
    gg, = nbgrad.autograd.grad(g.sum(), a)
    assert gg.dtype is nbgrad.float32
    np.testing.assert_array_equal(gg.numpy(), (2 * np.array(B)).astype(np.float32))


def _function(backward):
    class F(nbgrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

    F.backward = staticmethod(backward)
    return F


def test_a_custom_functions_gradient_is_cast_to_its_inputs_dtype():
    F = _function(lambda ctx, g: g.to(nbgrad.float64) * 2)
    a = nbgrad.ones(2, requires_grad=True)
    F.apply(a * 1).exp().sum().backward()
    assert a.grad.dtype is nbgrad.float32
    np.testing.assert_allclose(a.grad.numpy(), 2 * np.exp(2.0), rtol=1e-6)


def test_a_custom_function_returning_a_number_is_pytorchs_error():
    F = _function(lambda ctx, g: 3)
    with pytest.raises(RuntimeError, match=r"expected Variable or None \(got int\)"):
        F.apply(nbgrad.ones(2, requires_grad=True)).sum().backward()


def _backward(x, y):
    y.sum().backward()
    return x.grad


def test_a_tensor_hook_that_changes_size_or_dtype_or_returns_a_number_is_an_error():
    def resize(g):
        return nbgrad.ones(3)

    x = nbgrad.ones(2, requires_grad=True)
    x.register_hook(resize)
    with pytest.raises(RuntimeError, match="hook 'resize' has changed the size of value"):
        _backward(x, x * 2)
    x = nbgrad.ones(2, requires_grad=True)
    x.register_hook(lambda g: g.double())
    with pytest.raises(RuntimeError, match=r"hook '<lambda>' has changed the type of value "
                                           r"\(was nbgrad.FloatTensor got nbgrad.DoubleTensor\)"):
        _backward(x, x * 2)
    x = nbgrad.ones(2, requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: 3)  # a non-leaf's hook, the same checks
    with pytest.raises(TypeError, match="expected Variable, but hook returned 'int'"):
        _backward(x, y * 3)
    assert x.grad is None  # nothing reached the leaf
    x = nbgrad.ones(2, requires_grad=True)
    x.register_hook(lambda g: g * 5)  # a tensor of the same kind: used
    assert _backward(x, x * 2).tolist() == [10.0, 10.0]


def test_a_node_hook_returning_the_wrong_count_or_size_is_an_error():
    def pre(grads):
        return grads + grads

    x = nbgrad.ones(2, requires_grad=True)
    y = x * 2
    y.grad_fn.register_prehook(pre)
    with pytest.raises(RuntimeError, match=r"hook 'pre' has returned an incorrect number of "
                                           r"values \(got 2, but expected 1\)"):
        _backward(x, y)
    x = nbgrad.ones(2, requires_grad=True)
    y = x * 2
    y.grad_fn.register_prehook(lambda grads: [grads[0]])
    with pytest.raises(TypeError, match="expected tuple, but hook returned 'list'"):
        _backward(x, y)
    x = nbgrad.ones(2, requires_grad=True)
    y = x * 2
    y.grad_fn.register_prehook(lambda grads: (nbgrad.ones(3),))
    with pytest.raises(RuntimeError, match="has changed the size of value"):
        _backward(x, y)
    x = nbgrad.ones(2, requires_grad=True)
    y = x * 2  # MulBackward0 has two inputs; the number's gets None
    y.grad_fn.register_hook(lambda gi, go: (nbgrad.ones(3),))
    with pytest.raises(RuntimeError, match=r"incorrect number of values \(got 1, but "
                                           r"expected 2\)"):
        _backward(x, y)
    x = nbgrad.ones(2, requires_grad=True)
    y = x * 2
    y.grad_fn.register_hook(lambda gi, go: (nbgrad.ones(2), nbgrad.ones(2)))
    with pytest.raises(RuntimeError, match="can't replace a None gradient with a non-None"):
        _backward(x, y)
    x = nbgrad.ones(2, requires_grad=True)
    y = x * 2
    y.grad_fn.register_hook(lambda gi, go: (gi[0] * 3, None))  # allowed: used
    assert _backward(x, y).tolist() == [6.0, 6.0]


@pytest.mark.parametrize("lib", ["nbgrad", "torch"])
def test_the_hook_errors_match_pytorch(lib):
    L = nbgrad if lib == "nbgrad" else pytest.importorskip("torch")
    x = L.ones(2, requires_grad=True)
    x.register_hook(lambda g: g[:1])
    with pytest.raises(RuntimeError, match="hook '<lambda>' has changed the size of value"):
        _backward(x, x * 2)
