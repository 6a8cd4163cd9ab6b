"""What each op saves for backward, checked against PyTorch through in-place changes.

An op that saved a tensor raises "modified by an inplace operation" when that tensor is
changed in place before backward; one that did not gives a gradient. PyTorch's choice of
what to save (derivatives.yaml) is thus visible, and nbgrad must make the same one: raising
where PyTorch gives a gradient refuses a valid program, and giving a gradient where PyTorch
raises means nbgrad read something else (right or silently wrong). For every differentiable
op of the op table (tests/test_ops.py) and of ``nn.functional``:

- each input in turn is a non-leaf ``a = x * 1`` changed by ``a.mul_(1.5)`` after the op;
- the op's output is changed by ``out.mul_(1.5)`` (PyTorch raises iff the op saved its output);

both libraries must raise, or both give the same gradients. Also: relu's and the other
activations' gradient under ``create_graph`` depends on the input as PyTorch's does (second
derivative zeros, not None).
"""


import numpy as np
import pytest
from test_ops import OPS, _inputs

import nbgrad

torch = pytest.importorskip("torch")

MSG = "modified by an inplace operation"


def _f(name):
    return lambda m, *a: getattr(m.nn.functional, name)(*a)


# (name, fn(m, *tensors), input shapes, domain, indices of inputs that are integer targets)
EXTRA = [
    ("log1p", lambda m, a: m.log1p(a), [(3, 4)], "pos"),
    ("expm1", lambda m, a: m.expm1(a), [(3, 4)], "any"),
    ("rsqrt", lambda m, a: m.rsqrt(a), [(3, 4)], "pos"),
    ("sin", lambda m, a: m.sin(a), [(3, 4)], "any"),
    ("cos", lambda m, a: m.cos(a), [(3, 4)], "any"),
    ("tan", lambda m, a: m.tan(a), [(3, 4)], "any"),
    ("erf", lambda m, a: m.erf(a), [(3, 4)], "any"),
    ("clamp", lambda m, a: m.clamp(a, -0.5, 0.5), [(3, 4)], "any"),
    ("clamp_min", lambda m, a: m.clamp(a, min=0.1), [(3, 4)], "any"),
    ("clamp_max", lambda m, a: m.clamp(a, max=0.1), [(3, 4)], "any"),
    ("clamp_tensor", lambda m, a, lo, hi: m.clamp(a, lo, hi), [(3, 4), (4,), (3, 1)], "any"),
    ("F.relu", _f("relu"), [(3, 4)], "nz"),
    ("F.sigmoid", lambda m, a: m.sigmoid(a), [(3, 4)], "any"),
    ("F.gelu", _f("gelu"), [(3, 4)], "any"),
    ("F.gelu_tanh", lambda m, a: m.nn.functional.gelu(a, approximate="tanh"), [(3, 4)], "any"),
    ("F.silu", _f("silu"), [(3, 4)], "any"),
    ("F.softmax", lambda m, a: m.nn.functional.softmax(a, 1), [(3, 4)], "any"),
    ("F.log_softmax", lambda m, a: m.nn.functional.log_softmax(a, 1), [(3, 4)], "any"),
    ("F.mse_loss", _f("mse_loss"), [(3, 4), (3, 4)], "any"),
    ("F.mse_loss_sum", lambda m, a, b: m.nn.functional.mse_loss(a, b, reduction="sum"),
     [(3, 4), (3, 4)], "any"),
    ("F.mse_loss_none", lambda m, a, b: m.nn.functional.mse_loss(a, b, reduction="none"),
     [(3, 4), (3, 4)], "any"),
    ("F.bce_logits", _f("binary_cross_entropy_with_logits"), [(3, 4), (3, 4)], "pos"),
    ("F.linear", _f("linear"), [(3, 4), (2, 4)], "any"),
    ("F.linear_bias", _f("linear"), [(3, 4), (2, 4), (2,)], "any"),
    ("F.layer_norm", lambda m, a, w, b: m.nn.functional.layer_norm(a, (4,), w, b),
     [(3, 4), (4,), (4,)], "any"),
]
# losses with class-index targets: (name, fn(m, logits, target), logits shape)
TARGETS = [
    ("F.cross_entropy", lambda m, a, t: m.nn.functional.cross_entropy(a, t), (3, 4)),
    ("F.cross_entropy_sum",
     lambda m, a, t: m.nn.functional.cross_entropy(a, t, reduction="sum"), (3, 4)),
    ("F.cross_entropy_none",
     lambda m, a, t: m.nn.functional.cross_entropy(a, t, reduction="none"), (3, 4)),
    ("F.cross_entropy_3d", lambda m, a, t: m.nn.functional.cross_entropy(a, t), (2, 4, 3)),
    ("F.cross_entropy_smooth",
     lambda m, a, t: m.nn.functional.cross_entropy(a, t, label_smoothing=0.1), (3, 4)),
    ("F.nll_loss",
     lambda m, a, t: m.nn.functional.nll_loss(m.nn.functional.log_softmax(a, 1), t), (3, 4)),
]


def _cases():
    out = []
    for op in OPS:
        if not op.grad:
            continue
        shapes = op.shapes[0]
        arrs = _inputs(op, shapes, "float64")
        for i in range(len(shapes)):
            out.append(pytest.param(op.fn, arrs, i, id=f"{op.name}-in{i}"))
        out.append(pytest.param(op.fn, arrs, None, id=f"{op.name}-out"))
    rng = np.random.default_rng(0)
    for name, fn, shapes, dom in EXTRA:
        arrs = []
        for s in shapes:
            a = rng.uniform(0.5, 2.0, s) if dom == "pos" else rng.standard_normal(s)
            if dom == "nz":
                a = rng.uniform(0.5, 2.0, s) * rng.choice([-1.0, 1.0], s)
            arrs.append(a)
        for i in range(len(shapes)):
            out.append(pytest.param(fn, arrs, i, id=f"{name}-in{i}"))
        out.append(pytest.param(fn, arrs, None, id=f"{name}-out"))
    for name, fn, shape in TARGETS:
        t = rng.integers(0, shape[1], (shape[0],) + shape[2:])
        arrs = [rng.standard_normal(shape), t]
        out.append(pytest.param(fn, arrs, 0, id=f"{name}-in0"))
        out.append(pytest.param(fn, arrs, None, id=f"{name}-out"))
    return out


def _run(m, fn, arrs, which):
    """Leaves from ``arrs`` (integer arrays stay targets); input ``which`` (or the output,
    for None) changed in place after the op; backward of the sum. The leaves' gradients,
    or the exception."""
    leaves = [m.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrs]
    # non-leaf inputs: in-place on the output of an op that returns its input is allowed
    ins = [t * 1 if t.requires_grad else t for t in leaves]
    out = fn(m, *ins)
    try:
        # (writing into an expanded output is refused: then both libraries must refuse it)
        (ins[which] if which is not None else out).mul_(1.5)
        out.sum().backward()
    except RuntimeError as e:
        return e
    return [None if t.grad is None else np.asarray(t.grad.detach().numpy()) for t in leaves]


@pytest.mark.parametrize("fn,arrs,which", _cases())
def test_inplace_after_op_matches_torch(fn, arrs, which):
    want = _run(torch, fn, arrs, which)
    got = _run(nbgrad, fn, arrs, which)
    if isinstance(want, Exception):
        msg = MSG if MSG in str(want) else "more than one element of the written-to tensor"
        assert msg in str(want)
        assert isinstance(got, RuntimeError), f"torch raised, nbgrad gave gradients {got}"
        assert msg in str(got)
        return
    assert not isinstance(got, Exception), f"nbgrad raised {got!r}; torch gave {want}"
    assert len(got) == len(want)
    for g, w in zip(got, want):
        if w is None:
            assert g is None
        else:
            assert g is not None
            np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)


# ----- second derivatives: does the gradient depend on the input, as PyTorch's does? ---------
ACTIVATIONS = [
    ("relu", lambda m, a: m.relu(a)),
    ("F.relu", lambda m, a: m.nn.functional.relu(a)),
    ("relu_twice", lambda m, a: m.relu(m.relu(a) - 0.5)),
    ("abs", lambda m, a: m.abs(a)),
    ("sign", lambda m, a: m.sign(a) * a),
    ("tanh", lambda m, a: m.tanh(a)),
    ("sigmoid", lambda m, a: m.sigmoid(a)),
    ("where", lambda m, a: m.where(a > 0, a, 0.0)),
    ("maximum", lambda m, a: m.maximum(a, a * 0.5)),
    ("minimum", lambda m, a: m.minimum(a, a * 0.5)),
    ("clamp", lambda m, a: m.clamp(a, -0.5, 0.5)),
    ("clamp_min", lambda m, a: m.clamp(a, min=0.0)),
    ("clamp_tensor", lambda m, a: m.clamp(a, min=a * 0.5)),
    ("amax", lambda m, a: a.amax()),
    ("max_dim", lambda m, a: a.reshape(2, 2).max(1).values),
    ("F.gelu", lambda m, a: m.nn.functional.gelu(a)),
    ("F.silu", lambda m, a: m.nn.functional.silu(a)),
    ("F.softmax", lambda m, a: m.nn.functional.softmax(a, 0)),
    ("F.mse_loss", lambda m, a: m.nn.functional.mse_loss(a, a.detach() * 0.5)),
]


def _second_order(m, fn):
    x = m.tensor([0.7, -1.2, 0.3, -0.4], dtype=m.float64, requires_grad=True)
    (g,) = m.autograd.grad(fn(m, x).sum(), [x], create_graph=True)
    if not g.requires_grad:
        return g.detach().numpy(), None
    (gg,) = m.autograd.grad(g.sum(), [x], allow_unused=True)
    if gg is None:
        return g.detach().numpy(), None
    # (PyTorch's second derivative of abs is a ZeroTensor, which numpy() refuses)
    return g.detach().numpy(), (m.zeros(4, dtype=m.float64) + gg.detach()).numpy()


@pytest.mark.parametrize("fn", [a[1] for a in ACTIVATIONS], ids=[a[0] for a in ACTIVATIONS])
def test_second_derivative_defined_as_torch(fn):
    """With create_graph, a piecewise-linear op's gradient still depends on the input (its
    second derivative is zeros, not None), as PyTorch's does."""
    g, gg = _second_order(nbgrad, fn)
    tg, tgg = _second_order(torch, fn)
    np.testing.assert_allclose(g, tg, rtol=1e-12, atol=1e-14)
    assert (gg is None) == (tgg is None), f"second derivative: nbgrad {gg}, torch {tgg}"
    if tgg is not None:
        np.testing.assert_allclose(gg, tgg, rtol=1e-12, atol=1e-14)


def test_relu_only_route_second_derivative():
    """relu the only route from x: autograd.grad of its gradient gives zeros (it raised
    "does not require grad" before)."""
    x = nbgrad.tensor([0.7, -1.2], dtype=nbgrad.float64, requires_grad=True)
    (g,) = nbgrad.autograd.grad(x.relu().sum(), [x], create_graph=True)
    assert g.requires_grad
    (gg,) = nbgrad.autograd.grad(g.sum(), [x])
    assert gg.dtype == nbgrad.float64
    np.testing.assert_array_equal(gg.numpy(), [0.0, 0.0])
