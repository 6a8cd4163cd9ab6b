"""nbgrad.compile across graph breaks (issue #15, compiler/lazy.py): a call whose trace
breaks runs its Python every time with its ops deferred; the ops between two breaks run
as one compiled segment, the code at the break eagerly, with eager's values, gradients,
autograd history and side effects."""

import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_compiler_compile import _graphs, _run_graph, check_graph_program

import nbgrad
import nbgrad.nn.functional as F
from nbgrad import nn
from nbgrad.compiler import api, kernel_count, lazy
from nbgrad.compiler.trace import Trace


def _t(*shape, seed=0, dtype=np.float32, rg=False):
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return nbgrad.tensor(a, requires_grad=rg)


def _same(a, b):
    assert a.dtype is b.dtype and a.shape == b.shape
    assert a.requires_grad == b.requires_grad
    np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


def _segments(f):
    """The traces of ``f``'s compiled segments."""
    return [e for hit in f._segments.values() if isinstance(hit[0], api.CompiledFunction)
            for e in hit[0]._cache.values()]


def test_a_break_splits_the_call_into_compiled_segments():
    seen = []

    def fn(x, w):
        h = nbgrad.tanh(x * w) + 1
        seen.append(h.sum().item())  # a graph break, every call
        return (h * h - 0.5).exp().sum()

    f = nbgrad.compile(fn)
    for i in range(4):
        x = _t(300, seed=i % 2)
        w, w2 = _t(300, seed=9, rg=True), _t(300, seed=9, rg=True)
        out, want = f(x, w), fn(x, w2)
        _same(out, want)
        out.backward()
        want.backward()
        _same(w.grad, w2.grad)
    assert len(seen) == 8  # the Python (its side effects) ran at every call
    assert seen[0::2] == seen[1::2]
    segs = _segments(f)
    assert len(segs) == 2 and all(isinstance(e, Trace) for e in segs)
    assert sorted(len(e.graph.ops) for e in segs) == [4, 4]
    assert type(out.grad_fn).__name__ == "CompiledFunctionBackward"
    # a compiled call runs fewer kernels than eager (two fused regions, one each side)
    assert kernel_count(f, x, w)[1] < kernel_count(fn, x, w)[1]


def test_control_flow_on_values_takes_each_branch_as_eager():
    def fn(x):
        h = nbgrad.sin(x) * 2
        if h.sum() > 0:  # bool of a tensor: a break
            return (h + 1).exp()
        return (h - 1).tanh()

    f = nbgrad.compile(fn)
    xs = [_t(50, seed=s) for s in range(6)]
    signs = {bool((nbgrad.sin(x) * 2).sum() > 0) for x in xs}
    assert signs == {True, False}  # (both branches are taken)
    for x in xs + xs:
        _same(f(x), fn(x))
    assert len(f._segments) == 3  # the head, and one segment per branch


def test_a_training_step_with_backward_and_an_optimizer_inside():
    rs = np.random.RandomState(0)
    X = nbgrad.tensor(rs.randn(64, 16).astype(np.float32))
    Y = nbgrad.tensor(rs.randint(0, 5, 64))
    runs = {}
    for mode in ("eager", "compiled"):
        nbgrad.manual_seed(0)
        model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 5))
        opt = nbgrad.optim.Adam(model.parameters(), lr=1e-2)

        def step(x, y, model=model, opt=opt):
            opt.zero_grad()
            h = model(x)
            loss = F.cross_entropy(h, y) + 1e-4 * (h * h).mean()
            loss.backward()  # a break: the forward before it is one compiled segment
            opt.step()
            return loss

        s = nbgrad.compile(step) if mode == "compiled" else step
        runs[mode] = ([s(X, Y).item() for _ in range(8)],
                      [p.detach().numpy().copy() for p in model.parameters()])
        if mode == "compiled":
            assert any(isinstance(e, Trace) for e in _segments(s))
    (le, pe), (lc, pc) = runs["eager"], runs["compiled"]
    np.testing.assert_allclose(lc, le, rtol=1e-6)
    assert le[-1] < le[0]
    for a, b in zip(pc, pe):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_a_segment_with_nothing_to_fuse_runs_eagerly():
    def fn(x, w):
        h = nbgrad.tanh(x @ w)  # one elementwise op: nothing to fuse
        float(h.sum())
        return nbgrad.exp(h) * 2 + 1  # three: one fused kernel

    f = nbgrad.compile(fn)
    x, w = _t(4, 5), _t(5, 3, seed=1)
    for _ in range(3):
        _same(f(x, w), fn(x, w))
    # (the first segment ran as eager runs it, looked up nowhere)
    kinds = [type(hit[0]).__name__ for hit in f._segments.values()]
    assert kinds == ["CompiledFunction"]


def test_in_place_writes_and_no_grad_inside_a_lazy_call():
    def fn(x, c):
        u = c + 1  # reads c before the write below: it must see the old values
        c.add_(1)
        v = u * x
        print_ = v.sum().item()  # noqa: F841 (a break)
        c.mul_(2)
        with nbgrad.no_grad():
            q = v * 3
        return v + c, q

    f = nbgrad.compile(fn)
    for _ in range(3):
        x = _t(5, rg=True)
        c, c2 = nbgrad.ones(5), nbgrad.ones(5)
        (a, q), (b, q2) = f(x, c), fn(x, c2)
        _same(a, b)
        _same(q, q2)
        _same(c, c2)
        assert not q.requires_grad and a.requires_grad


def test_views_and_stored_tensors_keep_their_values_and_history():
    store = []

    def fn(x):
        h = nbgrad.tanh(x) * 2
        v = h.view(4, 5)  # a view alive at the break
        store.append(h)  # a tensor kept outside the call
        s = float(v.sum())  # a break
        return v * s, h

    f = nbgrad.compile(fn)
    for _ in range(3):
        x = _t(20, rg=True)
        out, h = f(x)
        want, hw = fn(x.detach().requires_grad_())
        _same(out, want)
        assert out.grad_fn is not None and h._base is None
        assert store[-2] is h  # the tensor the call stored is the one it returned
        _same(store[-2], hw)
    (v,) = [o for o in (out,)]
    assert v._base is None  # (a fresh product, not a view)


def test_a_view_returned_across_a_break_is_a_view_of_the_returned_base():
    def fn(x):
        h = x * 2
        v = h[1:3]
        float(h.sum())  # a break with the view alive
        return h, v

    f = nbgrad.compile(fn)
    for _ in range(3):
        h, v = f(_t(6))
        assert v._base is h
        v.mul_(10)  # a write through the view reaches the base, as eager
        hw, vw = fn(_t(6))
        vw.mul_(10)
        _same(h, hw)


def test_a_hook_and_a_grad_of_a_pending_tensor():
    grads = []

    def fn(x):
        h = nbgrad.exp(x) * 3
        h.register_hook(lambda g: grads.append(g.clone()))  # needs h's history: a flush
        return (h * h).sum()

    f = nbgrad.compile(fn)
    x, x2 = _t(8, rg=True), _t(8, rg=True)
    for _ in range(2):
        f(x).backward()
        fn(x2).backward()
    assert len(grads) == 4
    _same(grads[2], grads[3])
    _same(x.grad, x2.grad)


def test_numbers_read_from_values_are_checked_not_baked_in():
    def fn(x):
        s = float((x * x).sum())  # a number computed from values at every call
        return nbgrad.exp(x) * s

    f = nbgrad.compile(fn)
    for seed in range(4):
        x = _t(10, seed=seed)
        _same(f(x), fn(x))


def test_an_exception_inside_keeps_what_was_stored():
    store = []

    def fn(x):
        h = nbgrad.exp(x) + 1
        store.append(h)
        float(h.sum())
        store.append(h * 2)
        raise ValueError("boom")

    f = nbgrad.compile(fn)
    for _ in range(2):
        with pytest.raises(ValueError, match="boom"):
            f(_t(4))
    _same(store[-1], (nbgrad.exp(_t(4)) + 1) * 2)  # flushed on the way out


def test_fullgraph_still_raises_at_the_break():
    f = nbgrad.compile(lambda x: x * float(x.sum()), fullgraph=True)
    with pytest.raises(RuntimeError, match="graph break: Tensor.item"):
        f(_t(3))


def test_explain_lists_each_segment_and_break():
    def fn(x):
        y = nbgrad.exp(x) * 2
        if y.sum() > 100:
            y = y * 0
        return nbgrad.tanh(y) + 1

    out = nbgrad.compiler.explain(fn, nbgrad.ones(3))
    assert (out.graph_count, out.graph_break_count) == (2, 1)
    assert out.regions == [["exp", "mul"], ["tanh", "add"]]  # (gt alone: a call)
    assert "gt" in out.calls
    assert out.break_reasons[0].startswith("Tensor.item reads tensor values into Python")
    assert "test_compiler_lazy.py:" in out.break_reasons[0]
    assert "Graph 1:" in str(out)


def test_a_pending_tensor_looks_like_a_tensor_until_its_values_are_read():
    seen = {}

    def fn(x):
        h = x * 2 + 1
        seen["class"] = h.__class__
        seen["meta"] = (h.shape, h.dtype, h.requires_grad, h.dim(), h.size(0), len(h))
        seen["pending"] = type(h) is lazy._Pending
        h.numpy()  # values: a flush
        seen["after"] = type(h) is nbgrad.Tensor
        return h

    f = nbgrad.compile(fn)
    x = _t(3, 4)
    _same(f(x), fn(x))  # traced (a break), then lazy below
    f(x)
    assert seen["class"] is nbgrad.Tensor and seen["pending"] and seen["after"]
    assert seen["meta"] == ((3, 4), nbgrad.float32, False, 2, 3, 3)


def test_reset_forgets_the_segments():
    f = nbgrad.compile(lambda x: (x * 2 + 1) * float(x.sum()))
    f(_t(3))
    f(_t(3))
    assert f._segments
    nbgrad.compiler.reset()
    assert not f._segments and not f._cache


def test_a_lazy_call_from_another_thread_while_one_traces_runs_eagerly():
    f = nbgrad.compile(lambda x: x * float(x.sum()))
    x = _t(3)
    f(x)
    with api._TRACE_LOCK:
        import threading

        out = []
        t = threading.Thread(target=lambda: out.append(f(x)))
        t.start()
        t.join()
    _same(out[0], x * float(x.sum()))


# ----- random programs with breaks: values, numbers and branches read in Python ----------
@st.composite
def _broken_graphs(draw):
    """A random graph (test_compiler_compile's) and where it breaks: after each step, maybe
    a number read from the last value (``float(sum)``) that the next step multiplies by
    (0.5 or -2.0, chosen by the number's sign: a branch on values)."""
    dt, shapes, steps, outs, seed = draw(_graphs())
    breaks = [draw(st.booleans()) for _ in steps]
    return dt, shapes, steps, outs, seed, breaks


def _run_broken(steps, outs, n_in, breaks):
    base = _run_graph(steps, outs, n_in)

    def fn(m, *xs):
        vals = list(xs)
        for (op, args), brk in zip(steps, breaks):
            base_step = _run_graph([(op, args)], [len(vals)], len(vals))
            vals.append(base_step(m, *vals)[0])
            if brk:
                s = float(vals[-1].sum())  # a graph break
                vals[-1] = vals[-1] * (0.5 if s > 0 else -2.0)
        return tuple(vals[i] for i in outs)

    assert base is not None
    return fn


@settings(max_examples=25, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(_broken_graphs())
def test_random_programs_with_breaks_equal_eager_values_and_gradients(case):
    dt, shapes, steps, outs, seed, breaks = case
    # (an input read by two segments sums its two gradients in another order than eager's
    # engine, which adds each op's as it comes: an ulp apart at most)
    check_graph_program(_run_broken(steps, outs, len(shapes), breaks), dt, shapes, seed,
                        grad_tol=1e-6 if dt == np.float32 else 1e-14, whole=False)


def test_a_segment_that_no_trace_holds_runs_eagerly_not_lazily_again():
    calls = []

    def seg(x):  # (as a segment that breaks: it reads a value)
        calls.append(1)
        return x * float(x.sum())

    cf = api.CompiledFunction(seg, False, split=False)
    for _ in range(3):
        _same(cf(_t(3)), seg(_t(3)))
    # (its first call traced it shapes-only, then ran it for its values: a segment has no
    # side effects; then eagerly once a call)
    assert len(cf._cache) == 1 and not cf._segments and len(calls) == 7


def test_a_float_read_from_values_is_a_segment_argument_an_int_compiles_twice():
    def fn(x, step):
        k = float(step.sum())  # (read from a tensor: a break)
        rate = 0.5 ** k  # a float: the next segment's argument, any value
        return nbgrad.exp(x) * rate + int(k) % 3  # an int: by value

    f = nbgrad.compile(fn)
    x = _t(6)
    for k in range(7):
        step = nbgrad.full((1,), float(k))
        _same(f(x, step), fn(x, step))
    # the tail for two of the three ints (then eager; the head, a sum, fuses nothing and
    # runs eagerly): the rates changed at every call and compiled nothing
    assert len(f._segments) == 2
    assert sorted(f._segments.variants.values()) == [2]


def test_the_functions_own_exception_propagates_not_a_flushs(monkeypatch):
    calls = []

    def fn(x):
        h = nbgrad.exp(x) * 2 + 1
        float(h.sum())
        h = h * 3  # queued when the function raises
        calls.append(1)
        if len(calls) > 1:
            raise KeyError("the function's")
        return h

    f = nbgrad.compile(fn)
    f(_t(3))  # (traced: a break)

    def failing(self, why=None):
        if self.ops and sys.exc_info()[0] is not None:  # (a flush on the way out fails)
            raise ValueError("a flush's")
        return real(self, why) if why is not None else real(self)

    real = lazy.LazyRecorder.flush
    monkeypatch.setattr(lazy.LazyRecorder, "flush", failing)
    with pytest.raises(KeyError, match="the function's"):
        f(_t(3))


def test_a_row_without_a_derivative_makes_no_gradient_in_a_lazy_segment():
    # (a segment's recording computes shapes only: its outputs required grad by their
    # operands even from rows that record no node, clamp_min's kernel row)
    from nbgrad.ops.opdef import TABLE

    row = TABLE["clamp_min"]

    def f(x):
        y = row(x * 2, x)
        s = float(y.sum())  # (a break: the segment before it runs)
        return y, x * s

    g = nbgrad.compile(f)
    for _ in range(3):
        x = _t(4).requires_grad_()
        y, z = g(x)
        assert not y.requires_grad and z.requires_grad
        _same(y, f(x)[0])


def test_a_loss_reads_shapes_not_values_so_only_the_real_read_breaks():
    # cross_entropy checked its operands' shapes through their data: in a compiled function
    # that ran the queue, a second break (reason: an untraced read) before item's
    import nbgrad.nn.functional as F

    x = nbgrad.randn(4, 3)
    t = nbgrad.tensor([0, 2, 1, 1])

    def fn(x, t):
        loss = F.cross_entropy(x * 2, t)
        if loss.item() > 100:
            loss = loss * 0
        return loss

    out = nbgrad.compiler.explain(fn, x, t)
    assert out.graph_break_count == 1
    assert out.break_reasons[0].startswith("Tensor.item reads tensor values into Python")
