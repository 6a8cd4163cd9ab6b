"""autograd.Function's less common forms, as PyTorch runs them: outputs that are not
tensors (or None) beside tensor outputs, and ``forward`` without ``ctx`` plus
``setup_context``; mark_dirty on views."""

import pytest

import nbgrad


def _forms(L):
    out = {}

    class NotTensor(L.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2, 5

        @staticmethod
        def backward(ctx, g, g_number):
            return g * 2

    class WithNone(L.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2, None

        @staticmethod
        def backward(ctx, g, g_none):
            return g * 3

    for name, fn in (("not_tensor", NotTensor), ("none", WithNone)):
        x = L.ones(2, requires_grad=True)
        y, other = fn.apply(x)
        y.sum().backward()  # (the other output's gradient is None, not materialized)
        out[name] = (x.grad.tolist(), other)

    class Scale(L.autograd.Function):
        @staticmethod
        def forward(a, k):
            return a * k

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.k = inputs[1]
            ctx.save_for_backward(inputs[0])

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return g * ctx.k + a * 0, None

    x = L.tensor([1.0, 2.0], requires_grad=True)
    y = Scale.apply(x, 5.0)
    y.sum().backward()
    out["setup_context"] = (y.tolist(), x.grad.tolist(), y.grad_fn.name())

    class SinCos(L.autograd.Function):
        @staticmethod
        def forward(a):
            return a.sin(), a.cos()

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(*output)  # (outputs saved)

        @staticmethod
        def backward(ctx, g_sin, g_cos):
            s, c = ctx.saved_tensors
            return g_sin * c - g_cos * s

    x = L.tensor([0.5], requires_grad=True)
    a, b = SinCos.apply(x)
    (a + b).sum().backward()
    out["saved_outputs"] = [round(v, 6) for v in x.grad.tolist()]
    return out


def test_function_forms_as_pytorch():
    got = _forms(nbgrad)
    assert got["not_tensor"] == ([2.0, 2.0], 5) and got["none"] == ([3.0, 3.0], None)
    assert got["setup_context"] == ([5.0, 10.0], [5.0, 5.0], "ScaleBackward")
    torch = pytest.importorskip("torch")
    want = _forms(torch)
    assert got == want


def _dirty_views(L):
    # a Function that changes its input in place (mark_dirty): when the input is a view,
    # the base's history takes the change (its other elements keep theirs)
    class Double(L.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            a.mul_(2)
            ctx.mark_dirty(a)
            return a

        @staticmethod
        def backward(ctx, g):
            return g * 2

    out = {}
    for name, view in (("slice", lambda b: b[:, :2]), ("t", lambda b: b.t()),
                       ("row", lambda b: b[1]), ("itself", lambda b: b)):
        x = L.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        b = x * 1
        Double.apply(view(b))
        b.sum().backward()
        out[name] = (x.grad.tolist(), b.tolist())
    x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = x * 1
    v = b[:2]  # a view of a base changed in place sees the change
    Double.apply(b)
    (v.sum() + b.sum()).backward()
    out["view_of_dirty_base"] = x.grad.tolist()
    return out


def test_mark_dirty_on_views_as_pytorch():
    got = _dirty_views(nbgrad)
    assert got["slice"][0] == [[2.0, 2.0, 1.0], [2.0, 2.0, 1.0]]
    assert got["row"][0] == [[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]]
    torch = pytest.importorskip("torch")
    assert got == _dirty_views(torch)
