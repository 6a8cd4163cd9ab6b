"""In-place ops: values, version counters, the autograd rules that guard them, and gradients
through in-place updates of non-leaf tensors, against PyTorch on the same inputs."""

import re

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


INPLACE = {
    "add_": (lambda x: x.add_(2.0), lambda a: a + 2.0),
    "add_alpha": (lambda x: x.add_(1.0, alpha=3.0), lambda a: a + 3.0),
    "sub_": (lambda x: x.sub_(0.5), lambda a: a - 0.5),
    "mul_": (lambda x: x.mul_(-3.0), lambda a: a * -3.0),
    "div_": (lambda x: x.div_(4.0), lambda a: a / 4.0),
    "pow_": (lambda x: x.pow_(2.0), lambda a: a ** 2),
    "zero_": (lambda x: x.zero_(), lambda a: a * 0),
    "fill_": (lambda x: x.fill_(7.5), lambda a: np.full_like(a, 7.5)),
    "copy_": (lambda x: x.copy_(nbgrad.tensor([1.0, 2.0, 3.0]) if isinstance(x, nbgrad.Tensor)
                                else torch.tensor([1.0, 2.0, 3.0])),
              lambda a: np.broadcast_to([1.0, 2.0, 3.0], a.shape)),
    "clamp_": (lambda x: x.clamp_(-0.5, 0.5), lambda a: np.clip(a, -0.5, 0.5)),
    "clamp_min": (lambda x: x.clamp_(min=0.0), lambda a: np.maximum(a, 0.0)),
    "setitem_basic": (lambda x: x.__setitem__((0, slice(1, None)), 9.0), None),
    "setitem_adv": (lambda x: x.__setitem__(([0, 1], [2, 0]), -1.0), None),
    "setitem_mask": (lambda x: x.__setitem__(x > 0, 0.0), lambda a: np.where(a > 0, 0.0, a)),
    "iadd": (lambda x: x.__iadd__(1.0), lambda a: a + 1.0),
    "imul": (lambda x: x.__imul__(2.0), lambda a: a * 2.0),
}


def _expected_setitem(name, a):
    b = a.copy()
    if name == "setitem_basic":
        b[0, 1:] = 9.0
    else:
        b[[0, 1], [2, 0]] = -1.0
    return b


# ----- values and versions -----------------------------------------------------------------
@pytest.mark.parametrize("name", list(INPLACE))
def test_values_version_and_identity(name):
    fn, ref = INPLACE[name]
    a = rnd(2, 3, seed=1)
    x = nbgrad.tensor(a, dtype=nbgrad.float64)
    v0 = x._version
    r = fn(x)
    if not name.startswith("setitem"):
        assert r is x
    expected = ref(a) if ref is not None else _expected_setitem(name, a)
    np.testing.assert_allclose(x.numpy(), expected, rtol=1e-15)
    assert x.dtype == nbgrad.float64 and x.shape == (2, 3)
    assert x._version == v0 + 1
    # torch agrees on the value and on the version bump
    tx = torch.tensor(a)
    fn(tx)
    np.testing.assert_allclose(val(tx), expected, rtol=1e-15)
    assert tx._version == 1


def test_views_share_the_version_counter():
    x = nbgrad.zeros(2, 3)
    row, flat, tr = x[0], x.view(6), x.t()
    assert x._version == row._version == flat._version == tr._version == 0
    x.add_(1.0)
    assert row._version == flat._version == tr._version == 1
    row.mul_(2.0)  # writing through a view bumps the base (and every other view)
    assert x._version == flat._version == 2
    flat[5] = 4.0
    assert x._version == row._version == 3
    x[nbgrad.tensor([0])] = 1.0  # advanced key: one bump
    assert x._version == 4 and x.detach()._version == 4
    np.testing.assert_allclose(x.numpy(), [[1, 1, 1], [1, 1, 4]])
    # out-of-place results and clones get their own counter
    c = x.clone()
    c.add_(1)
    assert c._version == 1 and x._version == 4
    # torch counts the same way
    tx = torch.zeros(2, 3)
    tx.add_(1.0)
    tx[0].mul_(2.0)
    tx.view(6)[5] = 4.0
    tx[torch.tensor([0])] = 1.0
    assert tx._version == 4


def test_int_and_bool_tensors_in_place():
    i = nbgrad.tensor([1, 2, 3])
    i.add_(2)
    i.mul_(nbgrad.tensor([1, 0, 2]))
    assert i.tolist() == [3, 0, 10] and i.dtype == nbgrad.int64
    i.clamp_(1, 5)
    assert i.tolist() == [3, 1, 5]
    f = nbgrad.zeros(3)
    f.add_(nbgrad.ones(3, dtype=nbgrad.float64))  # float64 result cast into the float32 tensor
    assert f.dtype == nbgrad.float32 and f.tolist() == [1.0, 1.0, 1.0]
    f.copy_(nbgrad.tensor([1, 2, 3]))
    assert f.dtype == nbgrad.float32 and f.tolist() == [1.0, 2.0, 3.0]
    j = nbgrad.zeros(3, dtype=nbgrad.int64)
    j.copy_(nbgrad.tensor([1.7, 2.2, -1.5]))  # truncates like torch
    assert j.tolist() == torch.zeros(3, dtype=torch.int64).copy_(torch.tensor([1.7, 2.2, -1.5])).tolist()


# ----- errors ------------------------------------------------------------------------------------
LEAF_ERR = "a leaf Variable that requires grad is being used in an in-place operation."


@pytest.mark.parametrize("name", list(INPLACE))
def test_leaf_requiring_grad_raises(name):
    fn, _ = INPLACE[name]
    for lib in (nbgrad, torch):
        x = t(lib, rnd(2, 3, seed=2), True)
        with pytest.raises(RuntimeError, match=re.escape(LEAF_ERR[2:])):
            fn(x)
        assert x.is_leaf and x.grad_fn is None


@LIBS
def test_view_of_leaf_raises(lib):
    x = t(lib, rnd(2, 3), True)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad is being "
                                           "used in an in-place operation."):
        x[0].mul_(2.0)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        x.view(6).zero_()


@LIBS
def test_no_grad_on_leaf_works_optimizer_style(lib):
    a = rnd(3, seed=3)
    w = t(lib, a, True)
    (w * w).sum().backward()
    with lib.no_grad():
        w.sub_(0.1 * w.grad)  # an SGD step
        w.grad.zero_()
    np.testing.assert_allclose(val(w), a - 0.1 * 2 * a)
    assert w.is_leaf and w.requires_grad and w.grad_fn is None and w._version == 1
    assert val(w.grad).tolist() == [0.0, 0.0, 0.0]
    # the updated leaf trains on
    (w * 3).sum().backward()
    np.testing.assert_allclose(val(w.grad), [3.0, 3.0, 3.0])
    with lib.no_grad():
        w[0] = 5.0
        w.clamp_(max=1.0)
    assert val(w)[0] == 1.0 and w.grad_fn is None


@LIBS
@pytest.mark.parametrize("dtype,op,msg", [
    ("int64", lambda x: x.add_(1.5), "result type Float can't be cast to the desired output type Long"),
    ("int64", lambda x: x.mul_(nbgrad.tensor([0.5]) if isinstance(x, nbgrad.Tensor) else
                               torch.tensor([0.5])),
     "result type Float can't be cast to the desired output type Long"),
    ("int64", lambda x: x.div_(2), "result type Float can't be cast to the desired output type Long"),
    ("bool", lambda x: x.add_(1), "result type Long can't be cast to the desired output type Bool"),
], ids=["add_float", "mul_float_tensor", "div_int", "bool_add_int"])
def test_type_errors(lib, dtype, op, msg):
    x = lib.tensor([1, 0, 1] if dtype == "int64" else [True, False, True], dtype=getattr(lib, dtype))
    before = x.tolist()
    with pytest.raises(RuntimeError, match=re.escape(msg)):
        op(x)
    assert x.tolist() == before and x._version == 0


@LIBS
def test_broadcast_shape_errors(lib):
    with pytest.raises(RuntimeError, match=re.escape(
            "output with shape [3] doesn't match the broadcast shape [2, 3]")):
        lib.zeros(3).add_(lib.ones(2, 3))
    with pytest.raises(RuntimeError, match="The size of tensor a \\(3\\) must match the size of "
                                           "tensor b \\(2\\) at non-singleton dimension 0"):
        lib.zeros(3).mul_(lib.ones(2))
    with pytest.raises(RuntimeError):
        lib.zeros(2, 3).copy_(lib.ones(4))
    with pytest.raises(RuntimeError, match="The expanded size of the tensor \\(3\\) must match the "
                                           "existing size \\(4\\)"):
        lib.zeros(2, 3)[0] = lib.ones(4)
    with pytest.raises(RuntimeError, match="fill_ only supports 0-dimension value tensor"):
        lib.zeros(3).fill_(lib.tensor([1.0, 2.0]))
    # broadcasting the other way is fine
    x = lib.zeros(2, 3)
    x.add_(lib.tensor([1.0, 2.0, 3.0]))
    assert x.tolist() == [[1.0, 2.0, 3.0]] * 2


def _modified_error(lib):
    x = t(lib, [[1.0, 2.0, 3.0]], True)
    h = x * 2  # MulBackward0 produces h
    y = h.sin().sum()  # sin saves h
    h.add_(1.0)  # now h is output 0 of Add, at version 1
    with pytest.raises(RuntimeError) as e:
        y.backward()
    return str(e.value)


def test_modified_error_text_matches_torch():
    msg, tmsg = _modified_error(nbgrad), _modified_error(torch)
    assert "one of the variables needed for gradient computation has been modified by an inplace operation" in msg
    assert "[nbgrad.DoubleTensor [1, 3]]" in msg  # the tensor's type and shape
    assert "which is output 0 of Add" in msg  # the node that produced it
    assert "is at version 1; expected version 0 instead" in msg  # both versions
    # identical to torch's up to the library name, through the versions
    head = msg.split(" Hint")[0]
    assert head == tmsg.split(" Hint")[0].replace("torch.", "nbgrad.")
    assert "set_detect_anomaly(True" in msg


@LIBS
def test_modified_saved_output_names_producer(lib):
    x = t(lib, rnd(2, 2), True)
    h = x.exp()  # exp saves its output
    y = (h * 1.0).sum()
    h.mul_(2.0)
    h.mul_(2.0)
    with pytest.raises(RuntimeError, match=r"\[(nbgrad|torch)\.DoubleTensor \[2, 2\]\], which is "
                                           r"output 0 of Exp, is at version 2; expected version 0"):
        (y + h.sum()).backward()


# ----- gradients through in-place updates -------------------------------------------------------
CHAINS = {
    "mul_add_setitem": lambda L, x, z, w: _seq(x * 2, lambda y: y.mul_(3), lambda y: y.add_(z),
                                               lambda y: y.__setitem__(0, w)),
    "sub_div_pow": lambda L, x, z, w: _seq(x * 1.5, lambda y: y.sub_(z),
                                           lambda y: y.div_(z * z + 1), lambda y: y.pow_(2)),
    "clamp": lambda L, x, z, w: _seq(x * 1.0, lambda y: y.clamp_(-0.5, 0.7)),
    "copy": lambda L, x, z, w: _seq(x * 2, lambda y: y.copy_(w)) * x,
    "fill_zero": lambda L, x, z, w: (_seq(x * 2, lambda y: y.fill_(2.0)) * x
                                     + _seq(z * 3, lambda y: y.zero_()) + z),
    "setitem_adv": lambda L, x, z, w: _seq(x * 2, lambda y: y.__setitem__(L.tensor([0, 2]), w)),
    "setitem_mask": lambda L, x, z, w: _seq(x * 2, lambda y: y.__setitem__(z > 0, w[0])),
    "setitem_slice": lambda L, x, z, w: _seq(x.sin(), lambda y: y.__setitem__(
        (slice(None), slice(1, 3)), z[:, :2] * w[:2])),
    "saved_then_add": lambda L, x, z, w: _seq(x * z, lambda y: y.add_(1)) ** 2,
    "iadd_imul": lambda L, x, z, w: _seq(x * 1, lambda y: y.__iadd__(z), lambda y: y.__imul__(w)),
    "inplace_on_input_needing_no_grad": lambda L, x, z, w: _seq(z.detach() * 1, lambda y: y.mul_(x)),
}


def _seq(y, *steps):
    for s in steps:
        s(y)
    return y


@pytest.mark.parametrize("name", list(CHAINS))
def test_gradients_through_inplace_match_torch(name):
    a, b, c = rnd(3, 4, seed=4), rnd(3, 4, seed=5), rnd(4, seed=6)
    go = rnd(3, 4, seed=7)
    res = {}
    for L in (nbgrad, torch):
        x, z, w = t(L, a, True), t(L, b, True), t(L, c, True)
        y = CHAINS[name](L, x, z, w)
        assert y.requires_grad and not y.is_leaf
        y.backward(t(L, go))
        res[L] = (y, x.grad, z.grad, w.grad)
    for u, v in zip(res[nbgrad], res[torch]):
        assert (u is None) == (v is None)
        if u is not None:
            np.testing.assert_allclose(val(u), val(v), rtol=1e-12, atol=1e-14)


def test_inplace_grad_fn_names():
    x = t(nbgrad, rnd(3), True)
    y = x * 2
    y.mul_(3)
    assert y.grad_fn.name() == "MulBackward0" and not y.is_leaf
    y[0] = 1.0
    assert y.grad_fn.name() == "torch::autograd::CopySlices"
    y.clamp_(0, 1)
    assert y.grad_fn.name() == "ClampBackward1"


def test_gradcheck_and_gradgradcheck_through_inplace():
    x, z, w = (t(nbgrad, rnd(*s, seed=i), True) for i, s in enumerate([(2, 3), (2, 3), (3,)]))

    def f(x, z, w):
        y = x * 1.0
        y.mul_(z)
        y.add_(x)
        y[0] = w * w
        y.div_(z * z + 1)
        y.pow_(2)
        y[nbgrad.tensor([1]), nbgrad.tensor([2])] = w[0]
        return y

    def g(x, z):
        y = x.clone()
        y.copy_(z * x)
        y.clamp_(-0.5, 0.5)
        return y.sin()

    assert gradcheck(f, (x, z, w)) and gradgradcheck(f, (x, z, w))
    assert gradcheck(g, (x, z)) and gradgradcheck(g, (x, z))


def test_inplace_on_view_of_non_leaf_rebases_like_torch():
    # the base takes CopySlices (tests/test_view_inplace.py covers the cases)
    grads = []
    for lib in (nbgrad, torch):
        x = t(lib, rnd(2, 3), True)
        y = x * 2
        y[0].mul_(2.0)
        y[0][1] = 3.0
        (y * y).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12)
