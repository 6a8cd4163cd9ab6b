"""``nbgrad.autograd.Function``: custom forward/backward pairs, the ctx API and its rules,
checked against ``torch.autograd.Function`` running the same class body."""

import numpy as np
import pytest

import nbgrad
from nbgrad.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

LIBS = pytest.mark.parametrize("lib", [nbgrad, torch], ids=["nbgrad", "torch"])


def rnd(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def t(lib, a, rg=False):
    return lib.tensor(np.asarray(a, dtype=np.float64), dtype=lib.float64, requires_grad=rg)


def val(x):
    return np.asarray(x.detach().numpy(), dtype=np.float64)


def close(a, b, rtol=1e-12, atol=1e-14):
    assert tuple(a.shape) == tuple(b.shape)
    np.testing.assert_allclose(val(a), val(b), rtol=rtol, atol=atol)


# ----- Function classes, written once and built for either library -------------------------
def make(lib):
    F = lib.autograd.Function
    ns = {}

    class Square(F):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    class MulSin(F):
        """f(x, y) = x * sin(y); backward in library ops, so it is twice differentiable."""

        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(x, y)
            return x * y.sin()

        @staticmethod
        def backward(ctx, g):
            x, y = ctx.saved_tensors
            gx = g * y.sin() if ctx.needs_input_grad[0] else None
            gy = g * x * y.cos() if ctx.needs_input_grad[1] else None
            return gx, gy

    class Scale(F):
        """Non-tensor arguments: a float and a string."""

        @staticmethod
        def forward(ctx, x, k, mode):
            ctx.k = k
            ctx.log = [lib.is_grad_enabled(), tuple(ctx.needs_input_grad), mode]
            return x * k if mode == "mul" else x / k

        @staticmethod
        def backward(ctx, g):
            ctx.log.append(tuple(ctx.needs_input_grad))
            return g * ctx.k, None, None

    class ScaleBadGrad(F):
        @staticmethod
        def forward(ctx, x, k):
            return x * k

        @staticmethod
        def backward(ctx, g):
            return g * 2.0, g  # a gradient for the float: an error

    class SortedVals(F):
        @staticmethod
        def forward(ctx, x):
            idx = lib.tensor(np.argsort(x.detach().numpy(), kind="stable"))
            ctx.mark_non_differentiable(idx)
            ctx.save_for_backward(idx)
            return x[idx], idx

        @staticmethod
        def backward(ctx, gv, gi):
            ns["gi"] = gi
            (idx,) = ctx.saved_tensors
            g = lib.zeros_like(gv)
            g[idx] = gv
            return g

    class DoubleInPlace(F):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return 2 * g

    class TwoOut(F):
        @staticmethod
        def forward(ctx, x, materialize):
            ctx.set_materialize_grads(materialize)
            ctx.save_for_backward(x)
            return x * 2, x * x

        @staticmethod
        def backward(ctx, ga, gb):
            ns.setdefault("grads", []).append((ga, gb))
            (x,) = ctx.saved_tensors
            g = None
            if ga is not None:
                g = 2 * ga
            if gb is not None:
                g = 2 * x * gb if g is None else g + 2 * x * gb
            return g, None

    class OnceSquare(F):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @lib.autograd.function.once_differentiable
        def backward(ctx, g):
            ns["once_grad_mode"] = lib.is_grad_enabled()
            (x,) = ctx.saved_tensors
            return 2 * x * g

    class WrongCount(F):
        @staticmethod
        def forward(ctx, x, y):
            return x * y

        @staticmethod
        def backward(ctx, g):
            return g

    class TooMany(F):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g, g, g

    class TrailingNones(F):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return 2 * g, None, None  # extra Nones are tolerated, like torch

    class WrongShape(F):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g.sum()

    class Identity(F):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    class SaveOutput(F):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, g):
            (y,) = ctx.saved_tensors
            return g * y

    class SaveInt(F):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x, 3)
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g

    class Boom(F):
        @staticmethod
        def forward(ctx, x):
            raise ValueError("boom in forward")

        @staticmethod
        def backward(ctx, g):
            return g

    for k, v in list(locals().items()):
        if isinstance(v, type):
            ns[k] = v
    return ns


@pytest.fixture(scope="module")
def fns():
    return {nbgrad: make(nbgrad), torch: make(torch)}


# ----- basics -----------------------------------------------------------------------------
@LIBS
def test_forward_backward_apply(lib, fns):
    Square = fns[lib]["Square"]
    a = rnd(4, seed=1)
    x = t(lib, a, True)
    y = Square.apply(x)
    assert y.requires_grad and not y.is_leaf and y.dtype == lib.float64
    assert type(y.grad_fn).__name__ == "SquareBackward" and y.grad_fn.name() == "SquareBackward"
    assert y.grad_fn.next_functions[0][0] is not None
    assert y.grad_fn.next_functions[0][0].name().endswith("AccumulateGrad")
    np.testing.assert_allclose(val(y), a * a)
    y.backward(t(lib, np.arange(4.0)))
    np.testing.assert_allclose(val(x.grad), 2 * a * np.arange(4.0))


def test_values_and_grads_match_torch(fns):
    a, b = rnd(3, 2, seed=2), rnd(3, 2, seed=3)
    res = []
    for lib in (nbgrad, torch):
        x, y = t(lib, a, True), t(lib, b, True)
        out = (fns[lib]["MulSin"].apply(x, y) * fns[lib]["Square"].apply(y)).sum()
        out.backward()
        res.append((out, x.grad, y.grad))
    for u, v in zip(*res):
        close(u, v)


def test_function_inside_a_larger_graph(fns):
    a = rnd(2, 3, seed=4)
    res = []
    for lib in (nbgrad, torch):
        x = t(lib, a, True)
        h = (x * 2 + 1).tanh()
        y = fns[lib]["Square"].apply(h)
        z = fns[lib]["MulSin"].apply(y, x)  # x used twice: fan-out through the custom node
        loss = (z.exp() * h).sum() / 3
        (g,) = lib.autograd.grad(loss, x, create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), x)
        res.append((loss, g, gg))
    for u, v in zip(*res):
        close(u, v, rtol=1e-10)


def test_gradcheck_and_gradgradcheck(fns):
    F = fns[nbgrad]
    x, y = t(nbgrad, rnd(2, 3, seed=5), True), t(nbgrad, rnd(2, 3, seed=6), True)
    assert gradcheck(F["MulSin"].apply, (x, y))
    assert gradgradcheck(F["MulSin"].apply, (x, y))
    assert gradcheck(F["Square"].apply, (x,))
    assert gradgradcheck(F["Square"].apply, (x,))
    assert gradcheck(lambda v: F["TwoOut"].apply(v, True), (x,))
    assert gradgradcheck(lambda v: F["TwoOut"].apply(v, True), (x,))


@LIBS
def test_needs_input_grad_and_non_tensor_arguments(lib, fns):
    Scale = fns[lib]["Scale"]
    x, w = t(lib, [1.0, 2.0], True), t(lib, [3.0, 4.0])
    y = Scale.apply(x, 2.5, "mul")
    z = Scale.apply(w, 2.0, "div")
    assert not z.requires_grad and z.grad_fn is None
    np.testing.assert_allclose(val(z), [1.5, 2.0])
    y.sum().backward()
    np.testing.assert_allclose(val(x.grad), [2.5, 2.5])
    # forward runs with grad mode off; needs_input_grad covers every argument
    assert y.grad_fn.log == [False, (True, False, False), "mul", (True, False, False)]
    assert tuple(y.grad_fn.needs_input_grad) == (True, False, False)


@LIBS
def test_non_none_gradient_for_non_tensor_raises(lib, fns):
    x = t(lib, [1.0, 2.0], True)
    y = fns[lib]["ScaleBadGrad"].apply(x, 2.0)
    with pytest.raises(RuntimeError, match="returned a gradient different than None at position 2, "
                                           "but the corresponding forward input was not a Variable"):
        y.sum().backward()


@LIBS
def test_no_grad_and_inputs_without_grad(lib, fns):
    Square = fns[lib]["Square"]
    x = t(lib, [1.0, 2.0], True)
    with lib.no_grad():
        y = Square.apply(x)
    assert not y.requires_grad and y.grad_fn is None and y.is_leaf
    np.testing.assert_allclose(val(y), [1.0, 4.0])
    y2 = Square.apply(t(lib, [1.0, 2.0]))
    assert not y2.requires_grad and y2.grad_fn is None


@LIBS
def test_exception_in_forward_restores_grad_mode(lib, fns):
    with pytest.raises(ValueError, match="boom in forward"):
        fns[lib]["Boom"].apply(t(lib, [1.0], True))
    assert lib.is_grad_enabled()


@LIBS
def test_input_returned_as_is_is_a_new_output(lib, fns):
    x = t(lib, [1.0, 2.0], True)
    y = fns[lib]["Identity"].apply(x)
    assert y is not x and y.grad_fn.name() == "IdentityBackward" and x.is_leaf
    (y * 3).sum().backward()
    np.testing.assert_allclose(val(x.grad), [3.0, 3.0])


# ----- saved tensors ---------------------------------------------------------------------
@LIBS
def test_saved_tensors_freed_after_backward(lib, fns):
    Square = fns[lib]["Square"]
    x = t(lib, [1.0, 2.0], True)
    y = Square.apply(x)
    y.sum().backward(retain_graph=True)
    assert len(y.grad_fn.saved_tensors) == 1
    y.sum().backward()
    np.testing.assert_allclose(val(x.grad), [4.0, 8.0])
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.sum().backward()
    with pytest.raises(RuntimeError, match="Specify retain_graph=True"):
        y.grad_fn.saved_tensors


@LIBS
def test_saved_tensor_modified_in_place(lib, fns):
    x = t(lib, [1.0, 2.0], True)
    h = x * 1.0
    y = fns[lib]["Square"].apply(h)
    with lib.no_grad():
        h.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation") as e:
        y.sum().backward()
    assert "is at version 1; expected version 0 instead" in str(e.value)
    assert "which is output 0 of Mul" in str(e.value)


@LIBS
def test_saved_output_modified_in_place(lib, fns):
    x = t(lib, [0.0, 1.0], True)
    y = fns[lib]["SaveOutput"].apply(x)
    loss = (y * 2).sum()
    close_ = val(y)
    np.testing.assert_allclose(close_, np.exp([0.0, 1.0]))
    with lib.no_grad():
        y.mul_(2.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()
    # unmodified, saving the output works (and does not keep a reference cycle alive)
    x2 = t(lib, [0.0, 1.0], True)
    fns[lib]["SaveOutput"].apply(x2).sum().backward()
    np.testing.assert_allclose(val(x2.grad), np.exp([0.0, 1.0]))


@LIBS
def test_save_for_backward_rejects_non_tensors(lib, fns):
    with pytest.raises(TypeError, match="save_for_backward can only save variables, but argument 1 "
                                        "is of type int"):
        fns[lib]["SaveInt"].apply(t(lib, [1.0, 2.0], True))


# ----- ctx flags ------------------------------------------------------------------------------
@LIBS
def test_mark_non_differentiable_sorted_values_and_indices(lib, fns):
    ns = fns[lib]
    x = t(lib, [3.0, 1.0, 2.0], True)
    v, i = ns["SortedVals"].apply(x)
    np.testing.assert_allclose(val(v), [1.0, 2.0, 3.0])
    assert i.tolist() == [1, 2, 0] and i.dtype == lib.int64
    assert v.requires_grad and not i.requires_grad and i.grad_fn is None
    (v * t(lib, [1.0, 10.0, 100.0])).sum().backward()
    np.testing.assert_allclose(val(x.grad), [100.0, 1.0, 10.0])
    assert ns["gi"].tolist() == [0, 0, 0]  # materialized zeros for the index output


@LIBS
def test_mark_non_differentiable_float_output(lib):
    class Two(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            a, b = x * 2, x * 3
            ctx.mark_non_differentiable(b)
            return a, b

        @staticmethod
        def backward(ctx, ga, gb):
            return 2 * ga

    x = t(lib, [1.0, 2.0], True)
    a, b = Two.apply(x)
    assert a.requires_grad and not b.requires_grad and b.is_leaf
    with pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn"):
        b.sum().backward()
    (a.sum() + b.sum()).backward()
    np.testing.assert_allclose(val(x.grad), [2.0, 2.0])


@LIBS
def test_mark_dirty(lib, fns):
    D = fns[lib]["DoubleInPlace"]
    x = t(lib, [1.0, 2.0], True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad has been used in an "
                                           "in-place operation"):
        D.apply(x)  # (forward has already doubled x's storage, as in torch)
    np.testing.assert_allclose(val(x), [2.0, 4.0])
    x = t(lib, [1.0, 2.0], True)
    h = x * 1.0
    v0 = h._version
    r = D.apply(h)
    assert r is h and h._version > v0
    assert h.grad_fn.name() == "DoubleInPlaceBackward"
    np.testing.assert_allclose(val(h), [2.0, 4.0])
    (h * h).sum().backward()
    np.testing.assert_allclose(val(x.grad), 2 * 2 * np.array([2.0, 4.0]))
    # without grad: still in place, no graph
    w = t(lib, [1.0, 5.0])
    assert D.apply(w) is w and val(w).tolist() == [2.0, 10.0] and w.grad_fn is None


@LIBS
def test_multiple_outputs_and_materialize_grads(lib, fns):
    ns = fns[lib]
    ns["grads"] = []
    x = t(lib, [1.0, 2.0], True)
    a, b = ns["TwoOut"].apply(x, True)
    assert a.grad_fn is b.grad_fn and a.grad_fn.name() == "TwoOutBackward"
    (a.sum() * 3 + (b * b).sum()).backward()
    np.testing.assert_allclose(val(x.grad), 6.0 + 2 * 2 * np.array([1.0, 8.0]))
    # only the first output used: the default materializes zeros for the second
    a, b = ns["TwoOut"].apply(x, True)
    a.sum().backward()
    ga, gb = ns["grads"][-1]
    assert gb is not None and val(gb).tolist() == [0.0, 0.0]
    # set_materialize_grads(False): backward receives None
    a, b = ns["TwoOut"].apply(x, False)
    x.grad = None
    b.sum().backward()
    ga, gb = ns["grads"][-1]
    assert ga is None and gb is not None
    np.testing.assert_allclose(val(x.grad), [2.0, 4.0])


@LIBS
def test_once_differentiable(lib, fns):
    ns = fns[lib]
    x = t(lib, [1.0, 2.0, 3.0], True)
    y = ns["OnceSquare"].apply(x)
    y.sum().backward()
    np.testing.assert_allclose(val(x.grad), [2.0, 4.0, 6.0])
    assert ns["once_grad_mode"] is False
    # the gradient flowing in requires grad (create_graph): the result can't be differentiated
    y = ns["OnceSquare"].apply(x)
    (g,) = lib.autograd.grad((y * y).sum(), x, create_graph=True)
    np.testing.assert_allclose(val(g), 4 * np.array([1.0, 2.0, 3.0]) ** 3)
    assert g.requires_grad
    with pytest.raises(RuntimeError, match="trying to differentiate twice a function that was "
                                           "marked with @once_differentiable"):
        g.sum().backward()


# ----- gradient validation -------------------------------------------------------------------
@LIBS
def test_wrong_number_of_gradients(lib, fns):
    ns = fns[lib]
    x = t(lib, [1.0, 2.0], True)
    with pytest.raises(RuntimeError, match=r"function WrongCountBackward returned an incorrect "
                                           r"number of gradients \(expected 2, got 1\)"):
        ns["WrongCount"].apply(x, x).sum().backward()
    with pytest.raises(RuntimeError, match=r"returned an incorrect number of gradients "
                                           r"\(expected 1, got 3\)"):
        ns["TooMany"].apply(x).sum().backward()
    ns["TrailingNones"].apply(x).sum().backward()
    np.testing.assert_allclose(val(x.grad), [2.0, 2.0])


@LIBS
def test_wrong_gradient_shape(lib, fns):
    x = t(lib, [1.0, 2.0, 3.0], True)
    with pytest.raises(RuntimeError, match=r"Function WrongShapeBackward returned an invalid gradient "
                                           r"at index 0 - got \[\] but expected shape compatible "
                                           r"with \[3\]"):
        fns[lib]["WrongShape"].apply(x).sum().backward()
