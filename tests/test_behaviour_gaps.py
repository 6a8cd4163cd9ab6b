"""Behaviours PyTorch-behaviour tests found missing (issue #16): grad-mode decorators on
generator functions, inference tensors, the strict-mode errors of
``autograd.functional``, and the ones that already held, kept here as regression tests
(the freed-graph error after an indexed copy, a custom Function's gradient cast to its
input's dtype, ``materialize_grads`` through a higher-order chain, ``retain_grad`` without
a reference cycle). Each is compared with PyTorch where it is installed."""

import gc
import weakref

import numpy as np
import pytest

import nbgrad
from tests._errors import assert_same_error, error_of

try:
    import torch
except ImportError:  # pragma: no cover (the test extra installs it)
    torch = None

MODULES = [nbgrad] + ([torch] if torch is not None else [])


# ----- grad-mode decorators on generator functions ---------------------------------------
@pytest.mark.parametrize("m", MODULES, ids=lambda m: m.__name__)
def test_no_grad_decorated_generator_runs_its_body_without_grad(m):
    @m.no_grad()
    def steps():
        for _ in range(2):
            got = yield m.is_grad_enabled()
            assert got == "sent"

    g = steps()
    seen = [next(g), m.is_grad_enabled(), g.send("sent"), m.is_grad_enabled()]
    assert seen == [False, True, False, True]
    with pytest.raises(StopIteration):
        g.send("sent")

    @m.enable_grad()
    def inner():
        yield m.is_grad_enabled()
        return "done"

    with m.no_grad():
        it = inner()
        assert next(it) is True and not m.is_grad_enabled()
        with pytest.raises(StopIteration) as stop:
            next(it)
        assert stop.value.value == "done"

    @m.inference_mode()
    def gen_inf():
        yield m.is_inference_mode_enabled()

    assert next(gen_inf()) is True and not m.is_inference_mode_enabled()

    @m.no_grad()
    def catches():
        try:
            yield 1
        except ValueError:
            yield m.is_grad_enabled()

    c = catches()
    next(c)
    assert c.throw(ValueError()) is False and m.is_grad_enabled()
    c.close()


# ----- inference tensors -------------------------------------------------------------------
def _inference_calls():
    def make(m):
        with m.inference_mode():
            return m.ones(3), m.ones(3).exp()

    return [
        ("saved by mul", lambda m: (m.ones(3, requires_grad=True) * make(m)[0]).sum()),
        ("saved by exp's input", lambda m: m.ones(3, requires_grad=True).exp() * make(m)[1]),
        ("in place", lambda m: make(m)[0].add_(1)),
        ("in place under no_grad", lambda m: _under(m, lambda: make(m)[0].mul_(2))),
        ("in place through a view", lambda m: make(m)[0].view(3).add_(1)),
        ("fill_ of an element", lambda m: make(m)[0][0].fill_(2)),
        ("copy_", lambda m: make(m)[0].copy_(m.zeros(3))),
        ("setitem", lambda m: make(m)[0].__setitem__(0, 5.0)),
        ("requires_grad_", lambda m: make(m)[0].requires_grad_()),
        ("version", lambda m: make(m)[0]._version),
        ("add, which saves nothing", lambda m: (m.ones(3, requires_grad=True) + make(m)[0]).sum()),
        ("in place inside inference mode", lambda m: _inside(m, lambda: make(m)[0].add_(1))),
        ("a normal tensor in place inside", lambda m: _inside(m, lambda: m.ones(2).add_(1))),
        ("no grad use", lambda m: _under(m, lambda: make(m)[0] * 2)),
    ]


def _under(m, f):
    with m.no_grad():
        return f()


def _inside(m, f):
    with m.inference_mode():
        return f()


@pytest.mark.parametrize("name, call", _inference_calls(), ids=lambda x: x if isinstance(x, str) else "")
def test_inference_tensors_behave_as_pytorchs(name, call):
    ours = error_of(lambda: call(nbgrad))
    if torch is not None:
        assert ours == error_of(lambda: call(torch)), name
    if name in ("add, which saves nothing", "in place inside inference mode",
                "a normal tensor in place inside", "no grad use"):
        assert ours is None


def test_inference_flags_and_values():
    with nbgrad.inference_mode():
        a = nbgrad.ones(3)
        b = a + 1
        c = a.add_(1)  # in place inside inference mode: allowed
    assert a.is_inference() and b.is_inference() and c is a
    assert nbgrad.is_inference(a.detach()) and a.view(3).is_inference() and a[1:].is_inference()
    assert not (a + 1).is_inference() and not a.clone().is_inference()
    assert a.tolist() == [2.0, 2.0, 2.0] and not a.requires_grad
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor"):
        a.add_(1)
    assert a.tolist() == [2.0, 2.0, 2.0]  # refused before anything was written
    w = nbgrad.ones(3, requires_grad=True)
    (w * a.clone()).sum().backward()  # a clone is a normal tensor
    assert w.grad.tolist() == [2.0, 2.0, 2.0]
    with nbgrad.inference_mode(False):
        assert not nbgrad.ones(1).is_inference()
    assert not nbgrad.ones(1).is_inference()


# ----- autograd.functional in strict mode --------------------------------------------------
def _functional_calls(m):
    F, o = m.autograd.functional, m.ones
    return [
        lambda: F.jacobian(lambda t: o(2), o(2), strict=True),
        lambda: F.jacobian(lambda t: t.detach() * 2 + t.sum().detach(), o(2), strict=True),
        lambda: F.jacobian(lambda t, u: (t * 2, u.detach()), (o(2), o(2)), strict=True),
        lambda: F.jacobian(lambda t, u: (t * 2, u * 0 + t.sum().detach()), (o(2), o(2)),
                           strict=True),
        lambda: F.jacobian(lambda t, u: (t * 2, u * 0 + t.sum().detach()), (o(2), o(2)),
                           strict=True, create_graph=True),
        lambda: F.jacobian(lambda t: t * 2, o(2), strict=True, create_graph=True),
        lambda: F.vjp(lambda t: o(2), o(2), o(2), strict=True),
        lambda: F.vjp(lambda t, u: t * 2, (o(2), o(2)), o(2), strict=True),
        lambda: F.vjp(lambda t: t * 2, o(2), o(2), strict=True, create_graph=True),
        lambda: F.jvp(lambda t: o(2), o(2), o(2), strict=True),
        lambda: F.jvp(lambda t, u: t * 2, (o(2), o(2)), (o(2), o(2)), strict=True),
        lambda: F.hessian(lambda t: t.sum(), o(2), strict=True),
        lambda: F.hessian(lambda t: (t ** 3).sum(), o(2), strict=True),
        lambda: F.hessian(lambda t, u: (t ** 2).sum(), (o(2), o(2)), strict=True),
        lambda: F.vhp(lambda t: t.sum(), o(2), o(2), strict=True),
        lambda: F.vhp(lambda t, u: (t ** 2).sum(), (o(2), o(2)), (o(2), o(2)), strict=True),
        lambda: F.vhp(lambda t: (t ** 2).sum(), o(2), o(2), strict=True),
        lambda: F.vhp(lambda t: (t ** 2).sum().detach(), o(2), o(2), strict=True),
    ]


def test_functional_strict_mode_errors_are_pytorchs():
    ours = [error_of(c) for c in _functional_calls(nbgrad)]
    assert ours[0] == (RuntimeError, "Output 0 of the user-provided function does not "
                       "require gradients. The outputs must be computed in a differentiable "
                       "manner from the input when running in strict mode.")
    assert ours[3] == (RuntimeError, "Output 0 of the user-provided function is independent "
                       "of input 1. This is not allowed in strict mode.")
    assert ours[12] is None and ours[16] is None  # twice differentiable: no error
    if torch is not None:
        assert ours == [error_of(c) for c in _functional_calls(torch)]


# ----- behaviours that held; kept as regression tests --------------------------------------
@pytest.mark.parametrize("m", MODULES, ids=lambda m: m.__name__)
def test_second_backward_after_an_indexed_copy_raises(m):
    x = m.ones(4, requires_grad=True)
    z = m.zeros(4)
    z[m.tensor([0, 2])] = x.exp()[m.tensor([0, 2])]
    s = (z * z).sum()
    s.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second "
                                           "time"):
        s.backward()


@pytest.mark.parametrize("m", MODULES, ids=lambda m: m.__name__)
def test_custom_function_gradient_is_cast_to_the_input_dtype(m):
    class Twice(m.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return (g * 2).double()

    a = m.ones(2, requires_grad=True)
    Twice.apply(a).sum().backward()
    assert a.grad.dtype == m.float32 and a.grad.tolist() == [2.0, 2.0]


@pytest.mark.parametrize("m", MODULES, ids=lambda m: m.__name__)
def test_materialize_grads_through_a_higher_order_chain(m):
    x = m.tensor(1.0, requires_grad=True)
    (g,) = m.autograd.grad(x ** 2, x, create_graph=True)
    (gg,) = m.autograd.grad(g, x, materialize_grads=True)
    assert gg.item() == 2.0
    y = m.tensor(2.0, requires_grad=True)
    (g1,) = m.autograd.grad(x * 3, x, create_graph=True)  # constant: g1 has no graph
    with pytest.raises(RuntimeError, match="does not require grad"):
        m.autograd.grad(g1, x, materialize_grads=True)
    (z,) = m.autograd.grad((x * y).sum(), y, create_graph=True)
    (zz,) = m.autograd.grad(z, y, materialize_grads=True, allow_unused=True)
    assert zz.item() == 0.0  # unused: zeros, not None


@pytest.mark.parametrize("m", MODULES, ids=lambda m: m.__name__)
def test_retain_grad_leaves_no_reference_cycle(m):
    gc.disable()
    try:
        x = m.ones(3, requires_grad=True)
        y = x * 2
        y.retain_grad()
        ref = weakref.ref(y)
        y.sum().backward()
        assert y.grad.tolist() == [1.0, 1.0, 1.0]
        del y
        assert ref() is None  # freed by reference counting alone
    finally:
        gc.enable()


def test_old_programs_variable():
    # (``from torch.autograd import Variable``: tensors before PyTorch 0.4)
    import warnings

    for m in MODULES:
        Variable = m.autograd.Variable
        x = m.ones(2)
        v = Variable(x, requires_grad=True)
        assert v is not x and v.requires_grad and v.is_leaf and v.data_ptr() == x.data_ptr()
        assert isinstance(x, Variable) and not isinstance(3, Variable)
        y = Variable(m.ones(2, requires_grad=True) * 2)
        assert y.grad_fn is None and not y.requires_grad and tuple(Variable().shape) == (0,)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            Variable(x, volatile=True)
        assert "volatile was removed" in str(w[0].message)
    if torch is not None:
        assert_same_error(lambda m: m.autograd.Variable([1, 2]), torch, nbgrad)


def _fresh_warnings(body, lib="nbgrad"):
    """The warnings ``body`` (code using ``L``, the library) gives in a fresh process, as
    ``(category name, message)`` pairs (PyTorch's "Triggered internally" tail cut): a
    once-a-process warning needs its own process. None when ``lib`` cannot be imported."""
    import os
    import subprocess
    import sys
    import textwrap

    code = (f"import warnings, numpy as np, {lib} as L\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    warnings.simplefilter('always')\n"
            + textwrap.indent(textwrap.dedent(body), "    ") +
            "\nprint(repr([(x.category.__name__, str(x.message).split("
            "' (Triggered internally')[0]) for x in w]))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env={**os.environ, "NBGRAD_QUIET": "1"})
    if r.returncode and lib != "nbgrad" and "ModuleNotFoundError" in r.stderr:
        return None
    assert r.returncode == 0, r.stderr
    return eval(r.stdout)


def test_float_of_a_tensor_that_requires_grad_warns_once_as_pytorch():
    # PyTorch warns (once a process) when float() reads a tensor that requires grad with
    # grad mode on; not under no_grad, not for int() or item()
    got = _fresh_warnings("""
        b = L.ones(1, requires_grad=True)
        with L.no_grad():
            float(b)
        int(b); b.item(); float(b.detach()); float(L.ones(1))
        float(b * 2); float(b)
    """)
    assert got == [("UserWarning", "Converting a tensor with requires_grad=True to a scalar "
                    "may lead to unexpected behavior.\nConsider using tensor.detach() first.")]


def test_backward_with_create_graph_warns_once_as_pytorch():
    # PyTorch's engine warns once a process when backward() (not grad()) records its graph;
    # an erroring call gives no warning
    got = _fresh_warnings("""
        x = L.ones(2, requires_grad=True)
        L.autograd.grad((x * x).sum(), x, create_graph=True)
        (x * x).sum().backward()
        try:
            L.ones(2).sum().backward(create_graph=True)
        except RuntimeError:
            pass
        (x * x).sum().backward(create_graph=True)
        L.autograd.backward((x * x).sum(), create_graph=True)
    """)
    assert len(got) == 1 and got[0][0] == "UserWarning"
    assert got[0][1].startswith("Using backward() with create_graph=True will create a "
                                "reference cycle")
    assert "reset the .grad fields of your parameters to None after use" in got[0][1]


def test_set_warn_always_repeats_the_once_a_process_warnings_as_pytorch():
    # PyTorch's TORCH_WARN_ONCE warns every time while set_warn_always(True)
    body = """
        L.set_warn_always(True)
        b = L.ones(1, requires_grad=True)
        for _ in range(2):
            float(b)
            L.meshgrid(L.ones(2))
            L.cross(L.ones(3, 3), L.ones(3, 3))
            L.ones(3).T
            (b * b).sum().backward(create_graph=True)
            L.where(L.tensor([1, 0], dtype=L.uint8), 1., 0.)
            L.qr(L.eye(2))
        L.set_warn_always(False)
        float(b)
        L.ones(3).T
    """
    got = _fresh_warnings(body)
    heads = ["Converting a tensor with requires_grad", "torch.meshgrid: in an upcoming",
             "Using torch.cross without specifying", "The use of `x.T` on tensors",
             "Using backward() with create_graph=True", "where received a uint8 condition",
             "torch.qr is deprecated"]
    heads = heads * 2 + heads[:1] + heads[3:4]  # (those given while always do not count)
    assert len(got) == len(heads)
    assert all(c == "UserWarning" and m.startswith(h) for (c, m), h in zip(got, heads))
    want = _fresh_warnings(body, "torch")
    if want is not None:
        assert got == [(c, m.replace("torch.arange", "nbgrad.arange")) for c, m in want]


def _outcomes(code, value=lambda v: v):
    """What ``code`` (``L`` the library, ``F`` its ``nn.functional``) gives in nbgrad and in
    PyTorch: ``("ok", value(result))`` or ``(exception type, message)``, warnings ignored."""
    import warnings

    torch = pytest.importorskip("torch")
    got = []
    for lib in (nbgrad, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                got.append(("ok", value(eval(code, {"L": lib, "F": lib.nn.functional,
                                                     "np": np}))))
            except Exception as e:
                got.append((type(e).__name__,
                            str(e).replace("torch/", "nbgrad/").replace("torch.", "nbgrad.")))
    return got


def _listed(v):
    return (v.tolist(), str(v.dtype).split(".")[-1]) if hasattr(v, "tolist") else v


def _typed(v):
    return (type(v).__name__,) + _listed(v) if hasattr(v, "tolist") else v


def _warnings_of(fn):
    import warnings

    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        fn()
    return [(x.category, str(x.message).split(" (Triggered internally")[0]) for x in w]


@pytest.mark.parametrize("code", [
    "L.ones(0, 3).var(1)", "L.ones(3, 0).var(0)", "L.ones(2).var(correction=0)",
    "L.ones(2).var(correction=2)", "L.ones(2, 2).var((0, 1), correction=3)",
    "L.ones(2, 2).var((0, 1), correction=4)", "L.ones(2).var(correction=1.5)",
    "L.std_mean(L.ones(1), 0)", "L.ones(()).var()", "L.ones(1).std()",
    "L.var_mean(L.ones(3, 1), 1)", "L.ones(5).std(unbiased=False)",
])
def test_var_and_std_warn_of_no_degrees_of_freedom_as_pytorch(code):
    torch = pytest.importorskip("torch")
    got = [_warnings_of(lambda: eval(code, {"L": lib})) for lib in (nbgrad, torch)]
    assert got[0] == got[1]


def test_tensor_of_a_tensor_warns_as_pytorch():
    torch = pytest.importorskip("torch")
    (cat, msg), = _warnings_of(lambda: nbgrad.tensor(nbgrad.ones(2)))
    (tcat, tmsg), = _warnings_of(lambda: torch.tensor(torch.ones(2)))
    assert cat is tcat is UserWarning and msg == tmsg.replace("torch.tensor", "nbgrad.tensor")
    assert _warnings_of(lambda: nbgrad.as_tensor(nbgrad.ones(2))) == []
    assert _warnings_of(lambda: nbgrad.tensor([nbgrad.ones(()), nbgrad.ones(())])) == []


def test_T_of_other_than_2d_warns_once_per_kind_as_pytorch():
    body = "L.ones(2, 3).T; L.ones(3).T; L.ones(2, 3, 4).T; L.ones(()).T; L.ones(()).T"
    got, want = _fresh_warnings(body), _fresh_warnings(body, "torch")
    if want is None:
        pytest.skip("no torch")
    assert len(got) == 2
    assert got == [(c, m.replace("torch.arange", "nbgrad.arange")) for c, m in want]


def test_where_forms_and_errors_as_pytorch():
    torch = pytest.importorskip("torch")

    def run(lib):
        T = lambda v, dt=None: lib.tensor(v, dtype=dt)
        cases = [
            lambda: lib.where(T([True, False, True])),
            lambda: lib.where(T([1.5, 0.0])),
            lambda: lib.where(T([[0, 3], [1, 0]], lib.uint8)),
            lambda: lib.where(T([2, 0], lib.uint8), T([1., 2.]), T([3., 4.])),
            lambda: lib.where(T([1., 0.]), T([1., 2.]), T([3., 4.])),
            lambda: lib.where(T([1, 0]), 1.0, 2.0),
            lambda: lib.where(True, T([1., 2.]), T([3., 4.])),
            lambda: lib.where([True, False], 1.0, T([3., 4.])),
            lambda: lib.where(T([True, False]), T([1., 2.])),
            lambda: lib.where(T([True, False]), "a", T([1., 2.])),
            lambda: lib.where([1, 0]),
            lambda: T([1., 2.]).where(T([True, False]), 0.0),
            lambda: lib.where(T([True, False]), T([1., 2.]), np.float32(2.5)),
            lambda: lib.where(T([True, False]), np.int64(3), T([1, 2])),
            lambda: lib.where(T([True, False]), T([1., 2.]), np.array(2.0)),
        ]
        out = []
        for c in cases:
            try:
                with __import__("warnings").catch_warnings():
                    __import__("warnings").simplefilter("ignore")
                    r = c()
                out.append([x.tolist() for x in r] if isinstance(r, tuple)
                           else (r.tolist(), str(r.dtype).split(".")[-1]))
            except Exception as e:
                out.append((type(e).__name__, str(e).split("\n")[0]))
        return out

    for i, (g, w) in enumerate(zip(run(nbgrad), run(torch))):
        assert g == w, i


def test_where_of_a_uint8_condition_warns_once_as_pytorch():
    got = _fresh_warnings("""
        c = L.tensor([2, 0], dtype=L.uint8)
        L.where(c, 1.0, 0.0); L.where(c, 1.0, 0.0); L.where(c)
    """)
    assert got == [("UserWarning", "where received a uint8 condition tensor. This behavior is "
                    "deprecated and will be removed in a future version of PyTorch. Use a "
                    "boolean condition instead.")]


def test_once_a_process_deprecation_warnings_as_pytorch():
    # meshgrid without indexing, cross without dim, lu, set_default_tensor_type: each warns
    # once a process, as PyTorch's
    body = """
        for _ in range(2):
            L.meshgrid(L.ones(2), L.ones(3)); L.meshgrid(L.ones(2), indexing='xy')
            L.cross(L.ones(3, 3), L.ones(3, 3)); L.cross(L.ones(3), L.ones(3), dim=0)
            L.lu(L.eye(2))
            L.set_default_tensor_type(L.FloatTensor)
    """
    got, want = _fresh_warnings(body), _fresh_warnings(body, "torch")
    if want is None:
        pytest.skip("no torch")
    assert len(got) == 4 and got == want


@pytest.mark.parametrize("code", [
    "L.nn.functional.dropout(L.ones(2), 0.5, None)",
    "L.nn.functional.dropout(L.ones(2), 0.5, 1)",
    "L.nn.functional.dropout(L.ones(2), 2.0, None)",
    "L.nn.functional.dropout2d(L.ones(2, 3, 4, 4), 0.5, 1.0)",
    "L.nn.functional.dropout1d(L.ones(2, 3, 4), 0.5, 'yes')",
    "L.nn.functional.alpha_dropout(L.ones(2), 0.5, None)",
    "L.nn.functional.feature_alpha_dropout(L.ones(2, 3), 0.5, None)",
    "L.dropout(L.ones(2), 0.5, __import__('numpy').bool_(True))",
    "L.nn.functional.dropout(L.ones(2), 0.5, False)",
    "L.tensor([1], requires_grad=True)",
    "L.zeros(2, dtype=L.int32, requires_grad=True)",
    "L.arange(3, requires_grad=True)",
    "L.asarray([1, 2], requires_grad=True)",
    "L.set_default_tensor_type(L.LongTensor)",
    "L.set_default_tensor_type(3)",
    "L.set_default_tensor_type('xx')",
])
def test_argument_errors_as_pytorch(code):
    got = _outcomes(code, lambda v: None)
    assert got[0] == got[1]


@pytest.mark.parametrize("code", [
    "L.cuda.amp.GradScaler(enabled=False)", "L.cpu.amp.GradScaler(enabled=False)",
    "L.nn.Linear(2, 2).state_dict({}, 'p.')", "L.ones(2).new_tensor(L.ones(2))",
])
def test_deprecation_warnings_as_pytorch(code):
    torch = pytest.importorskip("torch")
    got = [[(c, m.replace("torch.", "nbgrad.")) for c, m in _warnings_of(
        lambda: eval(code, {"L": lib}))] for lib in (nbgrad, torch)]
    assert got[0] == [(c, m.replace("torch.", "nbgrad.")) for c, m in got[1]] and got[0]


def test_state_dict_reads_positional_arguments_as_pytorch():
    import warnings

    m = nbgrad.nn.Linear(2, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        d = m.state_dict({}, "p.", True)
    assert list(d) == ["p.weight", "p.bias"] and d["p.weight"] is m.weight
    s = nbgrad.cuda.amp.GradScaler
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert isinstance(s(enabled=False), nbgrad.amp.GradScaler)
        assert isinstance(s(enabled=False), nbgrad.cuda.amp.GradScaler)


@pytest.mark.parametrize("name", ["mse_loss", "smooth_l1_loss", "huber_loss", "l1_loss",
                                  "binary_cross_entropy", "binary_cross_entropy_with_logits",
                                  "kl_div"])
def test_pointwise_losses_refuse_integer_operands_as_pytorch(name):
    import warnings

    torch = pytest.importorskip("torch")
    got = []
    for L in (nbgrad, torch):
        i, f = L.ones(2, dtype=L.int64), L.ones(2) * 0.5
        i32, b = L.ones(2, dtype=L.int32), L.ones(2, dtype=L.bool)
        d = L.ones(2, dtype=L.float64) * 0.5
        out = []
        pairs = [(i, f), (f, i), (i32, i32), (b, b), (i, i), (d, f), (f, f)]
        if name == "binary_cross_entropy_with_logits":  # (PyTorch's mixed float32/float64
            del pairs[5]                                  # result dtype: not followed yet)
        for a, c in pairs:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    v = getattr(L.nn.functional, name)(a, c)
                out.append(("ok", str(v.dtype).split(".")[-1], round(float(v), 6)))
            except Exception as e:
                out.append((type(e).__name__, str(e)))
        got.append(out)
    assert got[0] == got[1]


@pytest.mark.parametrize("code", [
    "F.nll_loss(L.ones(2, 3), L.tensor([0., 1., 2.]))", "F.nll_loss(L.ones(2, 3), L.ones(2, 2))",
    "F.nll_loss(L.ones(2, 3, 4), L.ones(2, 5))", "F.nll_loss(L.ones(2, 3, 4), L.ones(2, 4))",
    "F.nll_loss(L.ones(3), L.tensor(1.))",
    "F.nll_loss(L.ones(2, 3), L.tensor([0, 1], dtype=L.int32))",
    "F.nll_loss(L.ones(2, 3), L.tensor([0, 1], dtype=L.uint8))",
    "F.nll_loss(L.ones(2, 3), L.tensor([True, False]))", "F.nll_loss(L.ones(2, 3), [0, 1])",
    "F.cross_entropy(L.ones(2, 3), L.ones(2, 3, dtype=L.int64))",
    "F.cross_entropy(L.ones(2, 3), L.tensor([True, False]))",
    "F.cross_entropy(L.ones(2, 3), L.tensor([0., 1.]), label_smoothing=0.1)",
    "F.cross_entropy(L.ones(2, 3), L.tensor([0, 1], dtype=L.int16))",
    "F.cross_entropy(L.ones(2, 3), L.tensor([0.0, 1.0]))", "F.cross_entropy(L.ones(2, 3), L.ones(2, 4))",
    "F.cross_entropy(L.ones(2, 3), L.tensor([0, 1], dtype=L.uint8))",
    "F.cross_entropy(L.ones(3), L.tensor(1))", "F.cross_entropy(L.ones(2, 3), L.ones(2, 3) / 3)",
    "F.cross_entropy(L.ones(2, 3, 4), L.ones(2, 4, dtype=L.int64))",
    "F.cross_entropy(L.ones(2, 3), [0, 1])", "F.cross_entropy([[1.0]], L.tensor([0]))",
])
def test_class_targets_as_pytorch_reads_them(code):
    # a target of the input's shape holds probabilities (a float dtype); any other, class
    # indices (int64 or uint8), checked after the shapes, in PyTorch's order
    got = _outcomes(code, lambda v: round(float(v), 5))
    assert got[0] == got[1]


@pytest.mark.parametrize("code", [
    "L.ones(3)[1.0]", "L.ones(3)['a']", "L.ones(2) & L.ones(2)",
    "L.ones(2, dtype=L.float64) << 1", "L.ones(2, dtype=L.int64) | 1.5",
    "L.randn(2, dtype=L.int64)", "L.rand_like(L.ones(2, dtype=L.int64))",
    "L.rand(2, dtype=L.bool)", "L.normal(L.ones(2, dtype=L.int64), 1.0)",
    "L.normal(L.ones(2), L.ones(2, dtype=L.int64)).shape",
    "L.manual_seed(1.5) and L.initial_seed()", "L.manual_seed('3') and L.initial_seed()",
    "L.lerp(L.ones(2, dtype=L.int64), L.ones(2, dtype=L.int64), L.ones(2, dtype=L.int64))",
    "L.lerp(L.ones(2), L.ones(2, dtype=L.int64), 0.5)",
    "L.lerp(L.ones(2), L.ones(2), L.ones(2, dtype=L.float64))",
    "L.lerp(L.ones(2, dtype=L.int32), L.ones(2, dtype=L.int32), 0.5)",
    "L.lerp(L.ones(2), L.zeros(2), L.tensor(0.5, dtype=L.float64))",
    "L.lerp(L.ones(2), L.zeros(2), L.tensor(0.5, dtype=L.int64))",
    "L.lerp(L.ones(2), L.zeros((), dtype=L.float64), 0.5)",
    "L.lerp(L.tensor([1e8, 0.3, -2.0]), L.tensor([1.0, 0.7, 5.0]), 1.0)",
    "L.lerp(L.tensor([1e8, 0.3, -2.0]), L.tensor([1.0, 0.7, 5.0]), L.tensor([1.0, 0.25, 0.75]))",
    "L.ones(3)[0].detach_()",
])
def test_tensor_errors_and_values_as_pytorch(code):
    got = _outcomes(code, _listed)
    assert got[0] == got[1]


_AS_TORCH = [
    # the losses PyTorch writes in input's dtype, and their integer inputs
    "F.huber_loss(L.ones(2), L.zeros(2, dtype=L.float64))",
    "F.huber_loss(L.ones(2), L.zeros(2, dtype=L.float64), reduction='none')",
    "F.huber_loss(L.ones(2, dtype=L.float64), L.zeros(2))",
    "F.soft_margin_loss(L.tensor([0.3, -2.0]), L.tensor([1.0, -1.0], dtype=L.float64))",
    "F.soft_margin_loss(L.tensor([0.0, 0.0]), L.tensor([1, -1]), reduction='none')",
    "F.soft_margin_loss(L.tensor([1, 2]), L.tensor([1, -1]))",
    "F.soft_margin_loss(L.tensor([1], dtype=L.int32), L.tensor([1.0]))",
    "F.hinge_embedding_loss(L.tensor([1, 3]), L.tensor([-1, 1]), reduction='sum')",
    "F.hinge_embedding_loss(L.tensor([1, 3]), L.tensor([-1, -1]), margin=2.7, reduction='none')",
    "F.hinge_embedding_loss(L.tensor([1, 3]), L.tensor([-1, -1]), margin=-2.7, reduction='none')",
    "F.hinge_embedding_loss(L.tensor([1, 3]), L.tensor([-1.0, 1.0]))",
    "F.multi_margin_loss(L.tensor([[1, 2]]), L.tensor([1]))",
    "F.multi_margin_loss(L.tensor([[1.0, 2.0]]), L.tensor([0]), weight=L.ones(2, dtype=L.float64))",
    "F.multilabel_margin_loss(L.tensor([[1, 2]]), L.tensor([[1, -1]]))",
    "F.multilabel_margin_loss(L.tensor([[1.0, 2.0]]), L.tensor([[1.0, -1.0]]))",
    "F.multilabel_margin_loss(L.tensor([[1.0, 2.0]]), L.tensor([[1, -1]], dtype=L.int32))",
    # a number beside a 16-bit tensor is rounded to its dtype first, as PyTorch's
    "L.tensor([3.0, 2.0], dtype=L.float16) == 2.0001",
    "L.tensor([3.0, 2.0], dtype=L.float16) - 1.9999", "1.9999 - L.tensor([2.0], dtype=L.float16)",
    "L.tensor([3.0, 2.0], dtype=L.bfloat16) > 1.999",
    "L.tensor([3.0, 2.0], dtype=L.bfloat16) * 0.1",
    "L.tensor([3.0, 2.0], dtype=L.float16) * 70000",
    # all / any keep uint8, take a 0-d input's dim 0
    "L.tensor([[1, 0], [1, 1]], dtype=L.uint8).all(1)", "L.tensor([[1, 0]], dtype=L.uint8).any()",
    "L.tensor(5.0).all(0)", "L.tensor(0.0).any(-1, keepdim=True)", "L.tensor(5.0).all(2)",
    # equal infinities, integer inputs of the float ops, integer powers of 0
    "L.logaddexp(L.tensor([-float('inf'), float('inf'), 1.0]), "
    "L.tensor([-float('inf'), float('inf'), 2.0]))",
    "L.logaddexp2(L.tensor([-float('inf'), float('inf')]), L.tensor([-float('inf'), float('inf')]))",
    "L.special.entr(L.tensor([250, 5], dtype=L.uint8))", "L.special.entr(L.tensor([-1, 2, 0]))",
    "L.logit(L.tensor([1, 0], dtype=L.uint8))", "L.logit(L.tensor([1, 0]), eps=0.25)",
    "L.tensor([0, 1, -1, 2, -3, 0, 5]) ** L.tensor([-3, -2, -3, -1, -2, 0, 2])",
    "L.tensor(0) ** L.tensor(-1)",
    # argmax keeping every dim; 0-d logcumsumexp; ldexp of 16-bit; NaNs stay apart in unique
    "L.tensor([[1, 2], [3, 0]]).argmax(keepdim=True)",
    "L.tensor([[1, 2], [3, 0]]).argmin(dim=None, keepdim=True)",
    "L.tensor(5.0).logcumsumexp(0)", "L.ldexp(L.tensor([1.5], dtype=L.float16), L.tensor([2]))",
    "[t.tolist() for t in L.unique(L.tensor([float('nan'), float('nan'), 1.0, 1.0]), "
    "return_inverse=True, return_counts=True)[1:]]",
    "L.unique(L.tensor([float('nan'), 1.0, float('nan')])).isnan().sum()",
    "L.tensor([3, 5]).add(L.tensor([1, 1]), alpha=0.5)", "L.tensor([3, 5]).sub(1, alpha=0.5)",
    # lp pooling's infinite norms, rms_norm's eps for 16-bit, integer hardtanh / relu6, the
    # refused integer masks and interpolations
    "F.lp_pool1d(L.tensor([[[0.5, -0.2, 0.3, -0.9]]]), float('inf'), 2)",
    "F.lp_pool1d(L.tensor([[[0.5, -0.2, 0.3, -0.9]]]), -float('inf'), 2)",
    "F.lp_pool2d(L.tensor([[[[0.5, -0.2, 1.0], [0.3, -0.9, 2.0]]]]), float('inf'), (1, 2), 1)",
    "F.rms_norm(L.tensor([0.02, 0.2, -0.1, 0.2], dtype=L.bfloat16), (4,))",
    "F.rms_norm(L.tensor([0.02, 0.2, -0.1, 0.2], dtype=L.float16), (4,))",
    "F.relu6(L.tensor([-1, 3, 9]))", "F.hardtanh(L.tensor([-3, 3, 9]))",
    "F.scaled_dot_product_attention(L.ones(1, 2, 4), L.ones(1, 2, 4), L.ones(1, 2, 4), "
    "attn_mask=L.zeros(2, 2, dtype=L.int64))",
    # 16-bit dtype= of reductions and scans (the input cast first); logical ops take tensors
    "L.tensor([1.0, 2, 3]).sum(dtype=L.float16)", "L.tensor([1.0, 2, 3]).sum(dtype=L.bfloat16)",
    "L.tensor([1, 2, 3]).mean(dtype=L.float16)", "L.tensor([[1.0, 2], [3, 4]]).sum(1, dtype=L.float16)",
    "L.tensor([1.0, 2, 3]).cumsum(0, dtype=L.bfloat16)",
    "L.tensor([1.0, 2, 3]).cumprod(0, dtype=L.float16)",
    "L.logical_or(L.tensor([1.0, float('nan')]), 0)", "L.logical_and(1, L.tensor([1.0]))",
    # numbers into integer tensors as PyTorch converts them (wrapped into unsigned types from
    # -max, else "without overflow"); 0-d inputs of diff / unique / quantile; histc of NaN
    "L.tensor([1, 2], dtype=L.uint8).fill_(-1)", "L.full((2,), -200, dtype=L.uint8)",
    "L.full((1,), -256, dtype=L.uint8)", "L.full((1,), 200, dtype=L.int8)",
    "L.full((1,), -1.5, dtype=L.int8)", "L.full((1,), -1.5, dtype=L.uint8)",
    "L.full((1,), 2 ** 31, dtype=L.int32)", "L.zeros(2, dtype=L.int8).fill_(1e10)",
    "L.where(L.tensor([False, True]), L.tensor([1, 2], dtype=L.uint8), -1)",
    "L.tensor([1, 2], dtype=L.uint8).masked_fill(L.tensor([True, False]), -1)",
    "L.tensor([1, 2], dtype=L.int8).masked_fill(L.tensor([True, False]), 200)",
    "L.full_like(L.tensor([1, 2], dtype=L.uint8), -2)",
    "L.tensor(5.0).diff()", "L.tensor(5.0).unique(dim=0)", "L.tensor(5.0).quantile(0.5, dim=0)",
    "L.tensor(5.0).nanquantile(0.5, dim=0, keepdim=True)",
    "L.tensor(5.0).quantile(L.tensor([0.2, 0.5]), dim=0)", "L.tensor(5.0).quantile(0.5, dim=2)",
    "type(L.tensor([1.0, 2.0]).histc(min=0.0, max=float('inf')))",
    # layers' edges: an empty batch in training, 16-bit average pooling, refused arguments
    "L.nn.BatchNorm1d(3)(L.ones(0, 3))",
    "(lambda m: (m(L.ones(0, 3)), m.running_mean.tolist(), m.num_batches_tracked.item())[1:])"
    "(L.nn.BatchNorm1d(3))",
    "F.avg_pool2d(L.ones(1, 1, 4, 4), 2, divisor_override=0)",
    "F.avg_pool2d(L.arange(16.0, dtype=L.bfloat16).reshape(1, 1, 4, 4), 2)",
    "F.avg_pool1d(L.arange(4.0, dtype=L.float16).reshape(1, 1, 4), 2)",
    "L.nn.LayerNorm([])(L.ones(2, 3))",
    "F.cross_entropy(L.ones(2, 3), L.softmax(L.ones(2, 3), 1), ignore_index=1)",
    "L.nn.LSTMCell(2, 3)(L.ones(2, 2), L.ones(2, 3))", "F.glu(L.ones(2, 4), dim=3)",
    # std's root taken in float64, rounded once (the root of a rounded variance is 1 ulp off)
    "L.std(L.tensor([1.5, 2.25, 3.125]), 0)", "L.std(L.tensor([[1.5, 2.25, 3.125]] * 2), 1)",
    "L.std(L.tensor([1.5, 2.25, 3.125], dtype=L.float16))",
    "L.std_mean(L.tensor([1.5, 2.25, 3.125]), 0)[0]",
    # C++'s type names in messages
    "L.ones(2).masked_fill(L.tensor([1, 0], dtype=L.uint8), 0)",
    "L.ones(2).masked_fill(L.tensor([1, 0], dtype=L.int16), 0)",
    "L.ones(2).masked_fill(L.tensor([1, 0], dtype=L.float16), 0)",
    "L.lerp(L.ones(2, dtype=L.float16), L.ones(2), 0.5)",
    # sizes and device strings
    "L.ones(2).new_zeros(-1)", "L.ones(2).new_zeros((2, -3))", "L.zeros(2, -1)",
    "L.device('tpu')", "L.ones(1).to('CUDA:0')",
    # requires_grad refusals
    "L.ones(2, dtype=L.int64).requires_grad_()",
    "setattr(L.ones(2, dtype=L.int64), 'requires_grad', True)",
    "L.nn.Parameter(L.ones(2, dtype=L.int64))",
    "str(L.nn.Parameter(L.ones(2, dtype=L.int64), requires_grad=False).dtype)[-5:]",
    # Module.type, Tensor.data, linear's dtype messages
    "F.linear(L.ones(3, 2, dtype=L.float64), L.ones(2, 2), L.ones(2))",
    "F.linear(L.ones(4, 3, 2, dtype=L.float64), L.ones(2, 2))",
    "F.linear(L.ones(2, dtype=L.float64), L.ones(2, 2), L.ones(2))",
    "F.linear(L.ones(2), L.ones(2, 2, dtype=L.float64))",
    "F.linear(L.ones(3, 2), L.ones(2, 2), L.ones(2, dtype=L.float64))",
    "[str(t.dtype)[-7:] for t in L.nn.BatchNorm1d(2).type(L.float64).state_dict().values()]",
    "str(L.nn.Linear(2, 2).type('torch.DoubleTensor').weight.dtype)[-7:]",
    "L.nn.Linear(2, 2).type(L.int64)",
    "setattr(L.ones(2, requires_grad=True), 'data', L.ones(2, dtype=L.int64))",
    "setattr(L.ones(2, requires_grad=True), 'data', 3)",
    "setattr(t := L.ones(2, requires_grad=True), 'data', L.ones(3)) or tuple(t.shape)",
    # binary_cross_entropy's range checks; activations' argument errors
    "F.binary_cross_entropy(L.tensor([1.5]), L.tensor([2.0]))",
    "F.binary_cross_entropy(L.tensor([0.5]), L.tensor([-0.1]))",
    "F.binary_cross_entropy(L.tensor([0.5]), L.tensor([float('nan')]))",
    "F.binary_cross_entropy(L.tensor([float('nan')]), L.tensor([0.5]))",
    "F.binary_cross_entropy(L.tensor([0.0, 1.0]), L.tensor([0.0, 1.0]))",
    "F.celu(L.ones(2), alpha=0)", "L.celu(L.ones(2), alpha=0.0)", "L.nn.CELU(0.0)(L.ones(2))",
    "F.gelu(L.ones(2), approximate='x')",
    # bitwise not of floats: the operator's TypeError, the function's missing kernel
    "~L.ones(2)", "L.ones(2).bitwise_not()", "L.bitwise_not(L.ones(2))",
    "L.ones(2).bitwise_not_()", "~L.tensor([1, 0])", "~L.tensor([True])",
    # Python's float as a dtype is float64, as in PyTorch (whatever the default dtype)
    "L.zeros(2, dtype=float)", "L.tensor([1, 2], dtype=float)", "L.ones(2).to(float)",
    "L.ones(2).sum(dtype=float)", "L.arange(3, dtype=float)", "L.finfo(float).bits",
    # .data: the same memory with its own version counter (writes hidden from autograd);
    # detach() shares the counter
    "(lambda w: (lambda y: (w.data.mul_(2), y.backward(), w.grad.tolist(), w._version)[2:])"
    "((w * w).sum()))(L.ones(2, requires_grad=True))",
    "(lambda w: (w.data.add_(1), w._version, w.tolist())[1:])(L.ones(2, requires_grad=True))",
    "(lambda w: (w.detach().add_(1), w._version)[1])(L.ones(2, requires_grad=True))",
    # tensor() of ranges and of lists of arrays (the arrays' dtypes count); Size slices
    "L.tensor(range(3))", "L.tensor([range(2), range(2)])", "L.as_tensor(range(3))",
    "L.tensor([np.array([1, 2]), np.array([3, 4])])",
    "L.tensor([np.array([1., 2.], dtype=np.float32), np.array([3., 4.], dtype=np.float32)])",
    "L.tensor([np.array([1, 2], dtype=np.int32), [3, 4]])",
    "L.tensor([np.array([1, 2]), np.array([3])])",
    "L.ones(2, 3, 4).shape[1:].numel()", "(L.ones(2, 3).shape + (1,)).numel()",
    "str(L.Size([2, 3]) * 2)[-14:]", "str(type(L.Size([2])[:1]).__name__)",
    # div_ with rounding_mode; arange(end=); float() / int() of many elements
    "L.tensor([5, -5]).div_(2, rounding_mode='floor')",
    "L.tensor([5, -5]).div_(2, rounding_mode='trunc')", "L.tensor([5, -5]).div_(2)",
    "L.tensor([5., -5.]).divide_(2, rounding_mode='floor')", "L.arange(end=4)",
    "float(L.ones(3))", "int(L.ones(3))", "float(L.ones(1, 1))",
    # setitem drops the value's leading 1s; copy_ does not
    "(lambda x: (x.__setitem__((0, 0), L.tensor([3.])), x)[1])(L.zeros(3, 4))",
    "(lambda x: (x.__setitem__(0, L.ones(1, 1, 4)), x)[1])(L.zeros(3, 4))",
    "(lambda x, v: (x.__setitem__(0, v), x.sum().backward(), v.grad.tolist())[2])"
    "(L.zeros(3, 4, requires_grad=True) * 1, L.ones(1, 1, 4, requires_grad=True))",
    "L.zeros(3).copy_(L.ones(1, 3))",
    # func transforms of outputs that do not depend on the inputs: zeros
    "L.func.hessian(lambda a: a.sum())(L.ones(3))",
    "L.func.grad(L.func.grad(lambda a: a * 3))(L.tensor(2.))",
    "L.func.jacrev(lambda a: L.ones(2))(L.ones(3))",
    "L.func.vmap(L.func.grad(lambda a, b: (a * a).sum(), argnums=1))(L.ones(2, 3), L.ones(2, 3))",
    "L.func.vjp(lambda a: L.ones(2), L.ones(3))[1](L.ones(2))[0]",
    "L.func.jacfwd(lambda a: L.ones(2))(L.ones(3))",
    "L.func.jvp(lambda a: L.ones(2), (L.ones(3),), (L.ones(3),))[1]",
    "L.func.linearize(lambda a: L.ones(2), L.ones(3))[1](L.ones(3)).tolist()",
    "L.func.jacrev(lambda a: (a * 2, L.ones(1)))(L.ones(2))[1]",
    # Sequential's + and * and pop (ModuleList's too); get_buffer, set_submodule
    '(lambda s: [type(m).__name__ for m in s + s])(L'
    '.nn.Sequential(L.nn.Linear(2, 2), L.nn.ReLU()))',
    '(lambda s: list((s + s)._modules))(L.nn.Sequential(L.nn.Linear(2, 2), L.nn.ReLU()))',
    '(lambda s: (s.__iadd__(L.nn.Sequential(L.nn.Tanh())), '
    'list(s._modules))[1])(L.nn.Sequential(L.nn.Linear(2, 2), L.nn.ReLU()))',
    '(lambda s: [list((s * 3)._modules), '
    '(s * 3)[0] is (s * 3)[2]])(L.nn.Sequential(L.nn.Linear(2, 2), L.nn.ReLU()))',
    '(lambda s: list((2 * s)._modules))(L.nn.Sequential(L.nn.Linear(2, 2), L.nn.ReLU()))',
    '(lambda s: (s.__imul__(3), list(s._modules), '
    'len(list(s.parameters())))[1:])(L.nn.Sequential(L.nn.Linear(2, 2), L.nn.ReLU()))',
    '(lambda s: s * 0)(L.nn.Sequential(L.nn.Linear(2, 2)))',
    '(lambda s: (type(s.pop(1)).__name__, '
    'list(s._modules)))(L.nn.Sequential(L.nn.Linear(2, 2), L.nn.ReLU(), L.nn.Tanh()))',
    '(lambda s: (type(s.pop(0)).__name__, '
    'list(s._modules)))(L.nn.ModuleList([L.nn.Linear(2, 2), L.nn.ReLU(), L.nn.Tanh()]))',
    '(lambda s: (len(s.pop(slice(0, 2))), '
    'list(s._modules)))(L.nn.Sequential(L.nn.Linear(2, 2), L.nn.ReLU(), L.nn.Tanh()))',
    '(lambda s: s + L.nn.ModuleList([L.nn.ReLU()]))(L.nn.Sequential(L.nn.Linear(2, 2)))',
    '(lambda s: s * 1.5)(L.nn.Sequential(L.nn.Linear(2, 2)))',
    'L.nn.Sequential(L.nn.BatchNorm1d(2)).get_buffer("0.running_var")',
    'L.nn.Sequential(L.nn.BatchNorm1d(2)).get_buffer("0.weight")',
    'L.nn.Sequential(L.nn.BatchNorm1d(2)).get_buffer("0.xx")',
    '(lambda n: (n.set_submodule("1", L.nn.Tanh()), '
    'str(n))[1])(L.nn.Sequential(L.nn.Linear(2, 2), L.nn.ReLU()))',
    '(lambda n: n.set_submodule("", L.nn.Tanh()))(L.nn.Sequential(L.nn.Linear(2, 2), L.nn.ReLU()))',
    '(lambda n: n.set_submodule("0.weight", '
    'L.nn.Tanh()))(L.nn.Sequential(L.nn.Linear(2, 2), L.nn.ReLU()))',
    '(lambda n: n.set_submodule("5", L.nn.Tanh(), '
    'strict=True))(L.nn.Sequential(L.nn.Linear(2, 2), L.nn.ReLU()))',
    '(lambda n: n.set_submodule("1", 3))(L.nn.Sequential(L.nn.Linear(2, 2), L.nn.ReLU()))',
    # vmap of an empty batch; set_grad_enabled's bool; the requires_grad setter on a
    # non-leaf; ParameterDict's sorted keys from a plain dict; functional's v checked
    'L.func.vmap(lambda a: a * 2)(L.ones(0, 3))',
    '[tuple(t.shape) for t in L.func.vmap(lambda a: (a.sum(), a * 2), out_dims=(0, 1))'
    '(L.ones(0, 3))]',
    'L.func.vmap(lambda a: a * 2)(L.ones(2, 3))',
    'L.set_grad_enabled(1)',
    'L.set_grad_enabled(None)',
    'setattr(L.ones(2, requires_grad=True) * 2, "requires_grad", True)',
    'list(L.nn.ParameterDict({"b": L.nn.Parameter(L.ones(1)), '
    '"a": L.nn.Parameter(L.ones(1))}).keys())',
    '(lambda d: (d.update({"z": L.nn.Parameter(L.ones(1)), "c": L.nn.Parameter(L.ones(1))}), '
    'list(d.keys()))[1])(L.nn.ParameterDict())',
    'L.autograd.functional.jvp(lambda a, b: a * b, (L.ones(3), L.ones(3)), (L.ones(3),))',
    'L.autograd.functional.vjp(lambda a: a * 2, L.ones(3), [L.ones(3)])',
    'L.autograd.functional.vjp(lambda a: (a * 2, a), L.ones(3), (L.ones(3),))',
    'L.autograd.functional.jvp(lambda a: a * 2, L.ones(3), L.ones(2))',
    'L.autograd.functional.vhp(lambda a, b: (a * b).sum(), (L.ones(3), L.ones(3)), (L.ones(3),))',
    'L.autograd.functional.hvp(lambda a: (a * a).sum(), L.ones(3), L.ones(2))',
    'L.autograd.functional.hvp(lambda a: (a * a * a).sum(), L.ones(3), L.ones(3))[1]',
    'L.autograd.functional.vjp(lambda a: a * 2, L.ones(3), L.ones(3))[1]',
    'L.autograd.functional.jvp(lambda a, b: a * b, (L.ones(3), L.ones(3) * 2), '
    '(L.ones(3), L.ones(3)))[1]',
    # median / nanmedian of all elements spread the gradient over ties (and NaNs)
    '(lambda x: (x.median().backward(), x.grad.tolist())[1])'
    '(L.tensor([3., 1., 2., 2.], requires_grad=True))',
    '(lambda x: (x.median().backward(), x.grad.tolist())[1])'
    "(L.tensor([float('nan'), 1., 2., 2.], requires_grad=True))",
    '(lambda x: (x.median().backward(), x.grad.tolist())[1])'
    '(L.tensor([[2., 2.], [1., 5.]], requires_grad=True))',
    '(lambda x: (x.nanmedian().backward(), x.grad.tolist())[1])'
    "(L.tensor([3., 1., float('nan'), 2., 2.], requires_grad=True))",
    '(lambda x: (x.median().backward(), x.grad.tolist())[1])'
    '(L.tensor([0.1, 0.1, 0.1, 0.3], requires_grad=True))',
    'L.tensor([0.1, 0.1, 0.1, 0.3], requires_grad=True).median().item()',
    'L.tensor([3., 1., 2., 2.]).median()',
    '(lambda x: (x.median(0)[0].backward(), x.grad.tolist())[1])'
    '(L.tensor([3., 1., 2., 2.], requires_grad=True))',
    "len(iter(L.utils.data.DataLoader(list(range(5)), batch_size=2)))",
    # pad_sequence: the first sequence's dtype, any iterable
    'L.nn.utils.rnn.pad_sequence([L.tensor([1, 2]), L.tensor([3.])])',
    'L.nn.utils.rnn.pad_sequence([L.tensor([1.5, 2]), L.tensor([3])])',
    'L.nn.utils.rnn.pad_sequence((t for t in [L.ones(2), L.ones(1)]))',
    'L.nn.utils.rnn.pad_sequence([L.tensor([1, 2]), L.tensor([3])], padding_value=0.5)',
    'L.nn.utils.rnn.pad_sequence([L.tensor([1, 2]), L.tensor([3])], batch_first=True, '
    'padding_side="left")',
    'L.nn.utils.rnn.pad_sequence([])',
    # a view made with grad off of a base that requires grad: not changed in place with
    # grad on (made and changed with grad off, or of a plain base: allowed)
    '(lambda z: [L.set_grad_enabled(False), (v := z[:2]), L.set_grad_enabled(True), v.mul_(2)][3]'
    ')(L.ones(3, requires_grad=True) * 1)',
    '(lambda w: [L.set_grad_enabled(False), (v := w[:2]), L.set_grad_enabled(True), v.mul_(2)][3]'
    ')(L.ones(3, requires_grad=True))',
    '(lambda x: [L.set_grad_enabled(False), (v := x[:2]), L.set_grad_enabled(True), v.mul_(2)][3]'
    ')(L.ones(3))',
    '(lambda z: [L.set_grad_enabled(False), (v := z[:2]), v.mul_(2), L.set_grad_enabled(True)][2]'
    ')(L.ones(3, requires_grad=True) * 1)',
    # augmented assignments run in place: a view (here ``v``, of ``m``) sees the result
    *[f"(lambda m: (lambda v: (v.__i{op}__({arg}), m)[1])(m[:]))(L.tensor([5, 6]))"
      for op, arg in (("pow", "2"), ("and", "L.tensor([1, 0])"), ("or", "2"), ("xor", "3"),
                      ("lshift", "1"), ("rshift", "1"))],
    "L.tensor([4, 9]).__ipow__(0.5)", "L.tensor([True, False]).__iand__(L.tensor([1, 1]))",
    "L.tensor([2., 3.], requires_grad=True).__ipow__(2)",
    # NumPy arrays beside tensors, as PyTorch: an operator returns NotImplemented for an operand
    # it does not take, so NumPy's reflected operator computes on the tensor's __array__ and
    # __array_wrap__ hands back a tensor (NumPy's dtype rules: float32 + float64 array is
    # float64; a bool result comes back as uint8); the function forms refuse the array, and
    # other operands end in Python's own TypeError
    "L.ones(2) + np.ones(2)", "L.ones(2) - np.arange(2)", "L.ones(2) * np.array(3.0)",
    "L.ones(2) / np.ones(2, dtype=np.float32)", "L.ones(2, dtype=L.int64) * np.array([3.5])",
    "L.ones(2, dtype=L.int32) + np.array([1, 2])", "L.ones(2) - np.ones(2, dtype=np.bool_)",
    "L.ones(2) ** np.ones(2)", "L.ones(2) @ np.ones(2)", "L.ones(2) % np.ones(2)",
    "L.ones(2) // np.ones(2)", "L.ones(2) + np.ones((2, 1))", "3 - L.ones(2) + np.ones(2)",
    "L.arange(4).reshape(2, 2) @ np.eye(2, dtype=np.int64)",
    "L.ones(2, dtype=L.int64) & np.ones(2, dtype=np.int64)", "L.tensor([True]) & np.array([True])",
    "(lambda r: (r.__iadd__(np.ones(2)), r))(L.ones(2))[1]",
    "(lambda r: r.__iadd__(np.ones(2)))(L.ones(2))",
    "L.ones(2) < np.ones(2)", "L.ones(2) + np.ones(3)", "np.ones(2) - L.ones(2)",
    "np.ones(2) * L.ones(2)", "L.ones(2, requires_grad=True) * np.ones(2)",
    "L.ones(2).__radd__(np.ones(2))",
    "np.exp(L.ones(2))", "np.add(L.ones(2), 1)", "np.sqrt(L.tensor(4.0))",
    "np.equal(L.ones(2), L.ones(2))",
    "L.ones(2) + 'a'", "L.ones(2) + None", "L.ones(2) @ 'a'", "L.ones(2) ** 'a'",
    "'a' ** L.ones(2)", "L.ones(2) + [1.0, 2.0]", "L.ones(2) < 'a'",
    "L.add(L.ones(2), np.ones(2))", "L.maximum(L.ones(2), np.ones(2))",
    "L.ones(2).copy_(np.ones(2))", "L.ones(2).copy_(L.zeros(2), non_blocking=True)",
    "L.ones(2).mul_(np.ones(2))", "L.ones(2, dtype=L.int64).__iand__(np.ones(2, dtype=np.int64))",
    # numbers of NumPy's own types stay numbers
    "L.ones(2) + np.float64(2)", "np.float64(2) + L.ones(2)",
    "np.float32(2) * L.ones(2, dtype=L.float64)", "np.int64(3) // L.ones(2)",
    "L.ones(2) > np.float64(0)",
    # the optimizers' defaults and param_groups keys, in PyTorch's order
] + [f"[list(o.defaults), list(o.state_dict()['param_groups'][0])] if (o := L.optim.{name}("
     "[L.ones(2, requires_grad=True)])) else 0" for name in (
         "SGD", "Adam", "AdamW", "Adamax", "Adadelta", "Adagrad", "RMSprop", "Rprop", "NAdam",
         "RAdam", "ASGD")]


@pytest.mark.parametrize("code", _AS_TORCH)
def test_values_dtypes_and_errors_as_pytorch(code):
    got = _outcomes(code, _typed)
    assert got[0] == got[1]


def test_lerp_gradients_and_an_integer_seed_gradient_as_pytorch():
    torch = pytest.importorskip("torch")
    got = []
    for L in (nbgrad, torch):
        a = L.tensor([1e8, 0.3, -2.0], requires_grad=True)
        b = L.tensor([1.0, 0.7, 5.0], requires_grad=True)
        w = L.tensor([1.0, 0.25, 0.75], requires_grad=True)
        L.lerp(a, b, w).backward(L.tensor([1, 2, 3]))  # (an integer gradient is cast)
        got.append([t.grad.tolist() for t in (a, b, w)])
    assert got[0] == got[1]


@pytest.mark.parametrize("code", [
    "L.ones(2, 4).view(L.int32)", "L.ones(2, 4).view(L.int16)", "L.ones(2, 4).view(L.float64)",
    "L.ones(2, 4).view(L.int8)", "L.ones(2, 4).t().view(L.int32)", "L.ones(2, 4).t().view(L.int16)",
    "L.ones(()).view(L.int32)", "L.ones(()).view(L.int16)",
    "L.ones(2, 3, dtype=L.int16).view(L.float32)",
    "L.ones(8, dtype=L.int16)[1:][:4].view(L.float32)",
    "L.tensor([1.5, 2.0]).view(L.bfloat16)", "L.ones(4, 4)[:, :2].view(L.float64)",
    "L.ones(4, 4)[:, 1:3].view(L.float64)", "L.tensor([True, False]).view(L.uint8)",
    "L.ones(2, 4, requires_grad=True).view(L.float32).requires_grad",
])
def test_view_as_another_dtype_as_pytorch(code):
    got = _outcomes(code, _listed)
    assert got[0] == got[1]


def test_weighted_interpolation_of_integers_is_refused():
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        nbgrad.nn.functional.interpolate(nbgrad.tensor([[[[1, 2], [3, 4]]]]), scale_factor=2,
                                         mode="bilinear")
    r = nbgrad.nn.functional.interpolate(nbgrad.tensor([[[1, 2]]]), scale_factor=2)
    assert r.tolist() == [[[1, 1, 2, 2]]] and r.dtype is nbgrad.int64


def test_a_dtype_view_shares_memory_and_version():
    x = nbgrad.ones(2)
    v = x.view(nbgrad.int32)
    v.add_(1)
    assert x._version == v._version == 1
    assert x.tolist() == [1.0000001192092896] * 2


def test_parameter_containers_print_as_pytorch():
    torch = pytest.importorskip("torch")
    reprs = []
    for L in (nbgrad, torch):
        reprs.append([repr(m).replace("torch.", "nbgrad.") for m in (
            L.nn.ParameterList([L.nn.Parameter(L.ones(2)), L.nn.Parameter(L.ones(2, 3).double()),
                                3]),
            L.nn.ParameterDict({"a": L.nn.Parameter(L.ones(2)), "b": L.ones(1)}),
            L.nn.Sequential(L.nn.Linear(1, 1), L.nn.ParameterList([L.nn.Parameter(L.ones(2))])),
        )])
    assert reprs[0] == reprs[1]


_NAMED_RESULTS = [
    "A.max(1)", "A.min(0, keepdim=True)", "A.sort(1)", "A.topk(1)", "A.kthvalue(1)",
    "A.median(0)", "A.nanmedian(1)", "A.mode(1)", "A.cummax(1)", "L.cummin(A, 0)",
    "A.aminmax()", "L.frexp(A)", "L.histogram(A.flatten(), 2)", "L.geqrf(A)", "L.qr(A)",
    "L.svd(A)", "L.slogdet(A)", "L.linalg.slogdet(A)", "L.triangular_solve(A, A.triu())",
    "L.lu_unpack(*L.linalg.lu_factor(A))", "L.linalg.qr(A)", "L.linalg.svd(A)",
    "L.linalg.eigh(A @ A.mT)", "L.linalg.cholesky_ex(A @ A.mT)", "L.linalg.inv_ex(A)",
    "L.linalg.solve_ex(A, A)", "L.linalg.lu(A)", "L.linalg.lu_factor(A)",
    "L.linalg.lu_factor_ex(A)", "L.linalg.lstsq(A, A)",
]


@pytest.mark.parametrize("code", _NAMED_RESULTS)
def test_named_results_are_return_types_as_pytorch(code):
    # PyTorch's torch.return_types: a tuple subclass named for the op, its fields as
    # attributes, printed one field a line; the class found by its name
    import pickle
    import warnings

    A = nbgrad.tensor([[4.0, 1.0, 2.0], [1.0, 3.0, 0.5], [2.0, 0.5, 5.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = eval(code, {"L": nbgrad, "A": A})
    cls = type(r)
    assert isinstance(r, tuple) and cls.__module__ == "nbgrad.return_types"
    assert getattr(nbgrad.return_types, cls.__name__) is cls
    assert all(getattr(r, f) is v for f, v in zip(cls._fields, r))
    assert pickle.loads(pickle.dumps(cls)) is cls
    assert repr(r).startswith(f"nbgrad.return_types.{cls.__name__}(\n{cls._fields[0]}=")
    torch = pytest.importorskip("torch")
    tA = torch.tensor(A.tolist())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = eval(code, {"L": torch, "A": tA})
    assert type(t).__module__ == "torch.return_types" and type(t).__name__ == cls.__name__
    assert [n for n in dir(t) if n in cls._fields] == sorted(cls._fields)
    assert len(t) == len(r)
    if code in ("A.max(1)", "A.aminmax()", "A.topk(1)"):
        assert repr(r).replace("nbgrad", "torch") == repr(t)
