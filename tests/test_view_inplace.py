"""In-place ops through views: the base takes CopySlices, every view sees the new history
(PyTorch's semantics, checked against torch in float64)."""

import numpy as np
import pytest

import nbgrad
from nbgrad.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

F64 = {nbgrad: nbgrad.float64, torch: torch.float64}
X = [0.7, 0.2, 0.4, -0.3, 0.9, 0.15]


def _grads(T, prog, create_graph=False):
    """Run ``prog(T, x)`` on a fresh float64 leaf ``x`` (shape (2, 3)); return the output's
    value and x's gradient (and the gradient of that gradient's weighted sum when
    ``create_graph``)."""
    x = T.tensor(X, dtype=F64[T]).reshape(2, 3).detach().requires_grad_(True)
    out = prog(T, x)
    w = T.tensor([0.3, -1.1, 0.5, 0.8, 1.7, -0.4][: out.numel()], dtype=F64[T]).reshape(out.shape)
    (g,) = (T.autograd.grad((out * w).sum(), x, create_graph=create_graph))
    res = [out.detach().numpy().copy(), g.detach().numpy().copy()]
    if create_graph:
        (gg,) = T.autograd.grad((g * g).sum(), x)
        res.append(gg.numpy().copy())
    return res


def _same(prog, create_graph=False):
    got = _grads(nbgrad, prog, create_graph)
    want = _grads(torch, prog, create_graph)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def _c(T, vals):
    return T.tensor(vals, dtype=F64[T])


# ----- the reproducers ------------------------------------------------------------------------
def test_view_taken_before_inplace_on_base():
    def prog(T, x):
        a = x.reshape(-1)[:3] * 1.5
        v = a[0:2]
        a.mul_(2.0)
        return v * _c(T, [0.04, 0.21])

    _same(prog)


def test_inplace_on_view_of_nonleaf_adds_itself():
    def prog(T, x):
        v = x.reshape(-1)[:1].tanh() * 1
        v[:].add_(v)
        return v * 0.5

    _same(prog)


def test_base_without_grad_gets_history_from_source():
    def prog(T, x):
        a = T.zeros(3, dtype=F64[T])
        a[0:2].add_(x[0, :1].expand(2))
        assert a.requires_grad and type(a.grad_fn).__name__ == "CopySlices"
        return a * 2

    _same(prog)


# ----- every view kind, written through or read after a write to the base -------------------
VIEWS = {
    "slice": lambda a: a[0:2],
    "slice_step": lambda a: a[:, ::2],
    "int": lambda a: a[1],
    "none_ellipsis": lambda a: a[None, ..., 1:],
    "view": lambda a: a.view(3, 2),
    "reshape": lambda a: a.reshape(6),
    "unsqueeze": lambda a: a.unsqueeze(1),
    "squeeze": lambda a: a[0:1].squeeze(0),
    "transpose": lambda a: a.transpose(0, 1),
    "permute": lambda a: a.permute(1, 0),
    "T": lambda a: a.T,
    "mT": lambda a: a.mT,
    "view_of_view": lambda a: a[:, 1:].transpose(0, 1)[1:],
}


@pytest.mark.parametrize("kind", sorted(VIEWS))
def test_read_view_after_inplace_on_base(kind):
    def prog(T, x):
        a = x * 1.5
        v = VIEWS[kind](a)
        a.mul_(a.detach() + 2.0)
        a.add_(x)
        return v.sin() if v.numel() <= 6 else v

    _same(prog)


@pytest.mark.parametrize("kind", sorted(VIEWS))
def test_write_through_view_updates_base(kind):
    def prog(T, x):
        a = x * 1.5
        v = VIEWS[kind](a)
        v.mul_(v.detach() - 0.5)
        v.add_(x.sum())
        return a.exp()

    _same(prog)


def test_expand_view_read_after_inplace_on_base():
    def prog(T, x):
        a = x[:, :1] * 1.5
        v = a.expand(2, 3)
        a.mul_(3.0)
        return v.sin()

    _same(prog)


# ----- in-place op kinds ----------------------------------------------------------------------
OPS = {
    "add_t": lambda T, v, x: v.add_(x[1, : v.shape[-1]] * 2),
    "add_alpha": lambda T, v, x: v.add_(x[1, :2], alpha=0.5),
    "add_n": lambda T, v, x: v.add_(3.0),
    "sub_t": lambda T, v, x: v.sub_(x[1, :2].exp()),
    "mul_t": lambda T, v, x: v.mul_(x[1, :2]),
    "mul_n": lambda T, v, x: v.mul_(-2.0),
    "div_t": lambda T, v, x: v.div_(x[1, :2] + 2.0),
    "div_n": lambda T, v, x: v.div_(4.0),
    "pow_n": lambda T, v, x: v.pow_(2.0),
    "clamp_": lambda T, v, x: v.clamp_(0.3, 0.9),
    "fill_": lambda T, v, x: v.fill_(0.25),
    "zero_": lambda T, v, x: v.zero_(),
    "copy_": lambda T, v, x: v.copy_(x[1, :2] * 3),
    "copy_bcast": lambda T, v, x: v.copy_(x[1, :1]),
    "setitem_t": lambda T, v, x: v.__setitem__(0, x[1, 2] * 4),
    "setitem_n": lambda T, v, x: v.__setitem__(slice(0, 1), 7.0),
    "index_put_": lambda T, v, x: v.index_put_((T.tensor([1]),), x[1, 1:2] * 5),
}


@pytest.mark.parametrize("op", sorted(OPS))
def test_inplace_op_on_view(op):
    def prog(T, x):
        a = x[0] * 1.5
        w = a[1:]  # another view, read afterwards
        v = a[0:2]
        OPS[op](T, v, x)
        return a * 1.0 + T.cat([w, w[:1]]) * 0.5

    _same(prog)


# ----- chains, double backward, retain_graph ---------------------------------------------------
def test_chain_view_then_base_then_other_view():
    def prog(T, x):
        a = x * 1.0
        v1 = a[0]
        v2 = a[:, 1]
        vv = v1[1:]  # a view of a view
        v1.mul_(x[1])
        a.add_(x.cos())
        v2.mul_(v2.detach() + x[0, :2])
        vv.sub_(x[1, :2] * x[1, :2])
        return a * 1.0 + v1.sum() + v2.sum() * 0.1

    _same(prog)


def test_double_backward_through_copyslices():
    def prog(T, x):
        a = x.sin() * 1.0
        v = a[:, 1:]
        v.mul_(x[:, :2])
        a[0].add_(x[1] * x[1])
        return a * v.sum()

    _same(prog, create_graph=True)


def test_gradcheck_and_gradgradcheck():
    def f(x):
        a = x * x
        v = a[1:3]
        v.mul_(x[:2].sin())
        a[3:4].add_(v[:1])  # (a[0:2].add_(v) overlaps partially: PyTorch refuses it)
        return a

    x = nbgrad.tensor([0.3, -0.6, 0.8, 1.1], dtype=nbgrad.float64, requires_grad=True)
    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))


def test_retain_graph_twice_same_grad():
    grads = {}
    for T in (nbgrad, torch):
        x = T.tensor(X[:3], dtype=F64[T], requires_grad=True)
        a = x * 2.0
        v = a[1:]
        v.mul_(x[:2])
        loss = (a * a).sum()
        loss.backward(retain_graph=True)
        g1 = x.grad.clone()
        loss.backward()
        grads[T] = (g1.numpy(), x.grad.numpy())
    np.testing.assert_allclose(grads[nbgrad][0], grads[torch][0], rtol=1e-12)
    np.testing.assert_allclose(grads[nbgrad][1], grads[torch][1], rtol=1e-12)
    np.testing.assert_allclose(grads[nbgrad][1], 2 * grads[nbgrad][0], rtol=1e-12)


def test_grad_fn_names_and_requires_grad():
    x = nbgrad.tensor(X[:3], dtype=nbgrad.float64, requires_grad=True)
    a = x * 1.0
    v = a[0:2]
    w = a[1:]
    v.add_(1.0)
    assert type(a.grad_fn).__name__ == "CopySlices"
    assert type(v.grad_fn).__name__ == "AsStridedBackward0"
    assert type(w.grad_fn).__name__ == "AsStridedBackward0"
    assert w.grad_fn.next_functions[0][0] is a.grad_fn
    b = nbgrad.zeros(3, dtype=nbgrad.float64)
    u = b[0:1]
    u.add_(x[:1])
    assert u.requires_grad and b.requires_grad and not b.is_leaf
    assert b._version == 1 and u._version == 1


# ----- what must not change ---------------------------------------------------------------------
def test_no_grad_mode_unchanged():
    x = nbgrad.tensor(X[:3], dtype=nbgrad.float64, requires_grad=True)
    with nbgrad.no_grad():
        a = x * 1.0
        v = a[0:2]
        v.mul_(3.0)
        a.add_(1.0)
    assert a.grad_fn is None and v.grad_fn is None and not a.requires_grad
    np.testing.assert_allclose(a.numpy(), [3.1, 1.6, 1.4])
    np.testing.assert_allclose(v.numpy(), [3.1, 1.6])
    v.mul_(x[:2])  # grad mode again: the base takes the history (torch: the same)
    (a * a).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2 * 3.1 * 3.1 * 0.7, 2 * 1.6 * 1.6 * 0.2, 0.0])


def test_no_history_when_nothing_requires_grad():
    a = nbgrad.zeros(3, dtype=nbgrad.float64)
    v = a[1:]
    v.add_(nbgrad.ones(2, dtype=nbgrad.float64))
    assert a.grad_fn is None and not a.requires_grad and not v.requires_grad
    np.testing.assert_allclose(a.numpy(), [0.0, 1.0, 1.0])
    x = nbgrad.tensor([2.0, 3.0], dtype=nbgrad.float64, requires_grad=True)
    v.mul_(x)
    assert a.requires_grad and v.requires_grad
    (a * nbgrad.tensor([1.0, 10.0, 100.0], dtype=nbgrad.float64)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [10.0, 100.0])


def test_view_of_leaf_still_raises():
    for T in (nbgrad, torch):
        x = T.tensor(X[:3], dtype=F64[T], requires_grad=True)
        with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad is "
                                               "being used in an in-place operation."):
            x[0:2].mul_(2.0)
        y = x * 1.0  # a view of a non-leaf is fine
        y[0:2].mul_(2.0)
        y.sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0, 1.0])


# ----- multi-view outputs (split, chunk) -----------------------------------------------------------
MULTI = {
    "split": (lambda a: a.split(1)[1], "Output 1 of Split"),
    "chunk": (lambda a: a.chunk(3)[1], "Output 1 of Split"),
    "split_sizes": (lambda a: a.split([1, 2])[1], "Output 1 of SplitWithSizes"),
    "view_of_split": (lambda a: a.split(1)[1].view(1), "Output 0 of View"),
}


@pytest.mark.parametrize("kind", sorted(MULTI))
def test_multi_view_modified_inplace_raises(kind):
    make, who = MULTI[kind]
    for T in (nbgrad, torch):
        x = T.tensor(X[:3], dtype=F64[T], requires_grad=True)
        s = make(x * 1.0)
        with pytest.raises(RuntimeError) as e:
            s.mul_(2.0)
        assert str(e.value).startswith(who + " is a view and is being modified inplace. This "
                                       "view is the output of a function that returns multiple "
                                       "views.")


def test_multi_view_of_leaf_gets_the_multi_view_error():
    for T in (nbgrad, torch):
        x = T.tensor(X[:3], dtype=F64[T], requires_grad=True)
        with pytest.raises(RuntimeError, match="^Output 0 of Split is a view and is being "):
            x.split(1)[0].mul_(2.0)


@pytest.mark.parametrize("kind", sorted(MULTI))
def test_multi_view_used_after_base_modified_raises(kind):
    make, who = MULTI[kind]
    for T in (nbgrad, torch):
        x = T.tensor(X[:3], dtype=F64[T], requires_grad=True)
        a = x * 1.0
        s = make(a)
        a.mul_(2.0)
        for use in (lambda: s * 2, lambda: s.exp()):
            with pytest.raises(RuntimeError) as e:
                use()
            assert str(e.value).startswith(who + " is a view and its base or another view of "
                                           "its base has been modified inplace.")
        with T.no_grad():
            np.testing.assert_allclose((s * 2).numpy(), np.asarray(make(_c(T, X[:3]))) * 4)


@pytest.mark.parametrize("kind", sorted(MULTI))
def test_multi_view_saved_before_base_modified_raises_in_backward(kind):
    make, who = MULTI[kind]
    for T in (nbgrad, torch):
        x = T.tensor(X[:3], dtype=F64[T], requires_grad=True)
        a = x * 1.0
        s = make(a)
        out = s * x[:1]  # saves s
        a.mul_(2.0)
        with pytest.raises(RuntimeError) as e:
            out.sum().backward()
        assert str(e.value).startswith(who + " is a view and its base or another view of its "
                                       "base has been modified inplace.")


def test_multi_view_fine_without_inplace_and_in_no_grad():
    x = nbgrad.tensor(X[:3], dtype=nbgrad.float64, requires_grad=True)
    a = x * 1.0
    s0, s1, s2 = a.split(1)
    (s0 * 2 + s2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 0.0, 1.0])
    with pytest.raises(RuntimeError, match="Output 1 of Split is a view and is being modified"):
        s1.mul_(2.0)
    with nbgrad.no_grad():
        b = x * 1.0
        b.split(1)[0].mul_(2.0)
    np.testing.assert_allclose(b.numpy(), [1.4, 0.2, 0.4])
