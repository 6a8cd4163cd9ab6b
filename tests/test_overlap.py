"""In-place writes whose input shares memory with the written-to tensor, or whose written-to
tensor has several elements at one address (an expanded tensor): PyTorch refuses these with
its "unsupported operation" errors rather than giving values that depend on the loop order.
Every case runs on nbgrad and on torch and must agree (values or exception and message)."""

import warnings

import numpy as np
import pytest

import nbgrad

torch = pytest.importorskip("torch")

LIBS = pytest.mark.parametrize("lib", [nbgrad, torch], ids=["nbgrad", "torch"])
PARTIAL = "some elements of the input tensor and the written-to tensor refer to a single memory"
INTERNAL = "more than one element of the written-to tensor refers to a single memory location"


def ar(lib, n=6):
    return lib.arange(float(n), dtype=lib.float64)


def idx(lib, *v):
    return lib.tensor(list(v))


# name -> (fn(lib) returning the tensor to compare, None or the phrase of the error)
CASES = {
    # partial overlap of an input and the written-to tensor
    "add_ shifted": (lambda m: (lambda x: (x[1:].add_(x[:-1]), x)[1])(ar(m)), PARTIAL),
    "sub_ shifted": (lambda m: (lambda x: (x[1:].sub_(x[:-1]), x)[1])(ar(m)), PARTIAL),
    "mul_ shifted": (lambda m: (lambda x: (x[:-1].mul_(x[1:]), x)[1])(ar(m)), PARTIAL),
    "div_ shifted": (lambda m: (lambda x: (x[1:].div_(x[:-1]), x)[1])(ar(m)), PARTIAL),
    "pow_ shifted": (lambda m: (lambda x: (x[1:].pow_(x[:-1]), x)[1])(ar(m)), PARTIAL),
    "copy_ shifted": (lambda m: (lambda x: (x[1:].copy_(x[:-1]), x)[1])(ar(m)), PARTIAL),
    "copy_ shifted back": (lambda m: (lambda x: (x[:-1].copy_(x[1:]), x)[1])(ar(m)), PARTIAL),
    "clamp_ tensor bound": (lambda m: (lambda x: (x[1:].clamp_(x[:-1]), x)[1])(ar(m)), PARTIAL),
    "iadd shifted": (lambda m: (lambda x: (x[1:].__iadd__(x[:-1]), x)[1])(ar(m)), PARTIAL),
    "add_ broadcast part": (lambda m: (lambda x: (x.add_(x[:1]), x)[1])(ar(m)), PARTIAL),
    "add_ 0-d element": (lambda m: (lambda x: (x.add_(x[0]), x)[1])(ar(m)), PARTIAL),
    "add_ transpose": (lambda m: (lambda x: (x.add_(x.t()), x)[1])(ar(m, 4).view(2, 2)),
                       PARTIAL),
    "add_ other shape": (lambda m: (lambda x: (x.view(1, 6).add_(x), x)[1])(ar(m)), PARTIAL),
    "setitem shifted": (lambda m: (lambda x: (x.__setitem__(slice(1, None), x[:-1]), x)[1])(
        ar(m)), PARTIAL),
    "index_put_ shifted": (lambda m: (lambda x: (x.index_put_((idx(m, 0, 1),), x[1:3]), x)[1])(
        ar(m)), PARTIAL),
    "index_put_ same view": (lambda m: (lambda x: (x.index_put_((m.arange(6),), x), x)[1])(
        ar(m)), PARTIAL),
    "adv setitem shifted": (lambda m: (lambda x: (x.__setitem__(idx(m, 0, 1), x[1:3]), x)[1])(
        ar(m)), PARTIAL),
    "index_add_ shifted": (lambda m: (lambda x: (x.index_add_(0, idx(m, 0, 1), x[1:3]), x)[1])(
        ar(m)), PARTIAL),
    "scatter_add_ shifted": (
        lambda m: (lambda x: (x.scatter_add_(0, idx(m, 0, 1), x[1:3]), x)[1])(ar(m)), PARTIAL),
    # what PyTorch allows: the same view, disjoint parts, and views it cannot judge cheaply
    "add_ itself": (lambda m: (lambda x: (x.add_(x), x)[1])(ar(m)), None),
    "mul_ same view": (lambda m: (lambda x: (x.mul_(x.view(2, 3).view(6)), x)[1])(ar(m)), None),
    "copy_ itself": (lambda m: (lambda x: (x.copy_(x), x)[1])(ar(m)), None),
    "setitem all": (lambda m: (lambda x: (x.__setitem__(slice(None), x), x)[1])(ar(m)), None),
    "add_ disjoint": (lambda m: (lambda x: (x[:3].add_(x[3:]), x)[1])(ar(m)), None),
    "add_ interleaved": (lambda m: (lambda x: (x[::2].add_(x[1::2]), x)[1])(ar(m)), None),
    "add_ reshape copy": (lambda m: (lambda x: (x.add_(x.t().reshape(2, 3)), x)[1])(
        ar(m).view(2, 3)), None),
    "add_ empty": (lambda m: (lambda x: (x[:0].add_(x[:0]), x)[1])(ar(m)), None),
    # the written-to tensor is expanded
    "add_ expanded": (lambda m: m.zeros(1, 3, dtype=m.float64).expand(2, 3).add_(1), INTERNAL),
    "mul_ expanded col": (lambda m: m.ones(3, 1, dtype=m.float64).expand(3, 3).mul_(2),
                          INTERNAL),
    "pow_ expanded": (lambda m: m.zeros(1, 3, dtype=m.float64).expand(2, 3).pow_(2), INTERNAL),
    "clamp_ expanded": (lambda m: m.zeros(1, 3, dtype=m.float64).expand(2, 3).clamp_(0, 1),
                        INTERNAL),
    "copy_ expanded": (lambda m: m.zeros(1, 3, dtype=m.float64).expand(2, 3).copy_(
        m.ones(2, 3, dtype=m.float64)), INTERNAL),
    "setitem expanded": (lambda m: (lambda x: (x.__setitem__(slice(None), 1.0), x)[1])(
        m.zeros(1, 3, dtype=m.float64).expand(2, 3)), INTERNAL),
    "index_add_ expanded": (lambda m: m.zeros(1, 3, dtype=m.float64).expand(2, 3).index_add_(
        0, idx(m, 0), m.ones(1, 3, dtype=m.float64)), INTERNAL),
    "fill_ expanded": (lambda m: m.zeros(1, 3, dtype=m.float64).expand(2, 3).fill_(1), None),
    "zero_ expanded": (lambda m: m.ones(1, 3, dtype=m.float64).expand(2, 3).zero_(), None),
    "setitem row of expanded": (lambda m: (lambda x: (x.__setitem__(0, 1.0), x)[1])(
        m.zeros(1, 3, dtype=m.float64).expand(2, 3)), None),
    "add_ expanded empty": (lambda m: m.zeros(1, 0, dtype=m.float64).expand(2, 0).add_(1), None),
}


def _run(lib, name):
    fn, err = CASES[name]
    if err is None:
        return np.asarray(fn(lib).numpy())
    with pytest.raises(RuntimeError, match=err) as e:
        fn(lib)
    assert str(e.value).startswith("unsupported operation: ")
    assert str(e.value).endswith(
        "Please clone() the tensor before performing the operation.")
    return None


@pytest.mark.parametrize("name", list(CASES))
def test_overlap_matches_torch(name):
    got = _run(nbgrad, name)
    want = _run(torch, name)
    if want is not None:
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("grad", [False, True])
def test_overlap_checked_with_grad_mode(grad):
    """The checks hold whether or not autograd records the op (two code paths)."""
    x = nbgrad.arange(6.0, dtype=nbgrad.float64)
    y = nbgrad.arange(6.0, dtype=nbgrad.float64, requires_grad=True) * 1 if grad else x
    ctx = nbgrad.enable_grad() if grad else nbgrad.no_grad()
    with ctx, pytest.raises(RuntimeError, match=PARTIAL):
        y[1:].add_(y[:-1])
    np.testing.assert_array_equal(y.detach().numpy(), np.arange(6.0))


@pytest.mark.parametrize("opt", ["SGD", "SGD_momentum", "Adam", "AdamW"])
@LIBS
def test_optimizer_on_expanded_parameter(lib, opt):
    p = lib.nn.Parameter(lib.zeros(1, 3, dtype=lib.float64).expand(2, 3))
    p.grad = lib.ones(2, 3, dtype=lib.float64)
    kw = {"momentum": 0.9} if opt == "SGD_momentum" else {}
    o = getattr(lib.optim, opt.split("_")[0])([p], lr=0.1, **kw)
    with pytest.raises(RuntimeError, match=INTERNAL):
        o.step()
    np.testing.assert_array_equal(p.detach().numpy(), np.zeros((2, 3)))


def _readonly():
    a = np.arange(6.0)
    a.flags.writeable = False
    return a


@pytest.mark.parametrize("op", ["add_", "mul_", "copy_", "fill_", "zero_", "setitem", "clamp_",
                                "index_put_", "SGD", "Adam"])
def test_write_to_readonly_numpy_memory_raises(op):
    """PyTorch shares a read-only array's memory and calls writes to it undefined behaviour;
    nbgrad shares it too, warns as PyTorch does, and refuses the write with a clear error
    (never a Numba typing error), leaving the array as it was."""
    a = _readonly()
    with pytest.warns(UserWarning, match="The given NumPy array is not writable"):
        x = nbgrad.from_numpy(a)
    run = {
        "add_": lambda: x.add_(1.0),
        "mul_": lambda: x.mul_(x),
        "copy_": lambda: x.copy_(nbgrad.ones(6, dtype=nbgrad.float64)),
        "fill_": lambda: x.fill_(2.0),
        "zero_": lambda: x.zero_(),
        "setitem": lambda: x.__setitem__(slice(0, 2), 1.0),
        "clamp_": lambda: x.clamp_(0, 1),
        "index_put_": lambda: x.index_put_((nbgrad.tensor([0]),), nbgrad.tensor([1.0],
                                                                                 dtype=nbgrad.float64)),
    }
    if op in ("SGD", "Adam"):
        x.requires_grad_()
        x.grad = nbgrad.ones(6, dtype=nbgrad.float64)
        o = getattr(nbgrad.optim, op)([x], lr=0.1)
        run[op] = o.step
    with pytest.raises(RuntimeError, match="not writable"):
        run[op]()
    np.testing.assert_array_equal(a, np.arange(6.0))
    np.testing.assert_array_equal(x.detach().numpy() * 2, (x * 2).detach().numpy())  # still reads


def test_from_numpy_writable_array_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nbgrad.from_numpy(np.arange(3.0)).add_(1)


@pytest.mark.parametrize("code", [
    "v = T.ones(1, 2); v[:, None, :] = v",
    "v = T.ones(2, 1); v[:, 0] = v.view(2)",
    "v = T.ones(1, 3); v[None] = v",
])
def test_setitem_of_the_same_elements_is_allowed(code):
    # the same elements in the same order, size-1 dimensions aside: a no-op copy for torch
    torch = pytest.importorskip("torch")
    ns = {"T": torch}
    exec(code, ns)
    want = ns["v"].numpy().copy()
    ns = {"T": nbgrad}
    exec(code, ns)
    np.testing.assert_array_equal(ns["v"].numpy(), want)


def test_setitem_through_size_one_dims_still_refuses_partial_overlap():
    torch = pytest.importorskip("torch")
    for lib in (torch, nbgrad):
        v = lib.ones(1, 3)
        with pytest.raises(RuntimeError, match="refer to a single memory location"):
            v[:, None, 1:] = v[:, :2]
