"""The backward engine under threads and interruptions (issue #13).

Several threads may run backward into the same leaves at once: each gradient must land in
``.grad`` exactly once, as PyTorch's AccumulateGrad (one lock per leaf) makes it. And an
exception raised anywhere in backward's setup (a KeyboardInterrupt at the wrong moment)
must leave grad mode, the garbage collector and the engine's lent gradient as they were.
"""

import gc
import inspect
import sys
import threading
import warnings

import numpy as np
import pytest

import nbgrad
from nbgrad.autograd import api, engine, grad_mode

# 1024 x 1024 float32 is above NBGRAD_PARALLEL_MIN: the threads also contend for Numba's
# parallel kernels (only one may enter them; the others run the serial variants)
N = 1024


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def _small_ints(seed, shape=(N, N)):
    # small integers: every sum of them is exact in float32, so a result compares exactly
    return np.random.default_rng(seed).integers(0, 8, shape).astype(np.float32)


def _run_threads(n, work):
    """Run ``work(k)`` in ``n`` threads started together; re-raise the first error."""
    barrier = threading.Barrier(n)
    errors = []

    def body(k):
        try:
            barrier.wait()
            work(k)
        except BaseException as e:  # noqa: BLE001 (handed to the main thread)
            errors.append(e)

    ts = [threading.Thread(target=body, args=(k,)) for k in range(n)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    if errors:
        raise errors[0]


def test_concurrent_backward_into_a_shared_leaf():
    threads, steps = 8, 25
    c_np = _small_ints(0)
    w = nbgrad.zeros((N, N), requires_grad=True)
    c = nbgrad.from_numpy(c_np)

    def work(k):
        for _ in range(steps):
            (w * c).sum().backward()

    _run_threads(threads, work)
    wrong = int((w.grad.numpy() != threads * steps * c_np).sum())
    assert wrong == 0, f"{wrong} of {N * N} gradient elements lost an update"


def test_first_gradient_of_a_leaf_from_many_threads():
    # .grad is None when every thread arrives (a hook holds them all at the leaf and keeps
    # each gradient, so that the engine copies it): exactly one may install its gradient
    threads = 8
    c_np = _small_ints(1, (512, 512))
    c = nbgrad.from_numpy(c_np)
    for _ in range(4):
        w = nbgrad.zeros((512, 512), requires_grad=True)
        gate = threading.Barrier(threads)
        kept = []

        def hook(g):
            kept.append(g)
            gate.wait()

        w.register_hook(hook)
        _run_threads(threads, lambda k: (w * c).sum().backward())
        np.testing.assert_array_equal(w.grad.numpy(), threads * c_np)


def test_concurrent_grad_of_a_shared_graph():
    # autograd.grad accumulates nothing: each thread gets its own, exact, gradient, through
    # a graph the threads share (retain_graph) and through graphs of their own
    threads, steps = 8, 4
    w = nbgrad.from_numpy(_small_ints(2)).requires_grad_()
    c_np = [_small_ints(10 + k) for k in range(threads)]
    shared = (w * w).sum()
    two_w = 2 * w.detach().numpy()

    def work(k):
        c = nbgrad.from_numpy(c_np[k])
        for _ in range(steps):
            (g,) = nbgrad.autograd.grad((w * c).sum(), w)
            np.testing.assert_array_equal(g.numpy(), c_np[k])
            (g,) = nbgrad.autograd.grad(shared, w, retain_graph=True)
            np.testing.assert_array_equal(g.numpy(), two_w)

    _run_threads(threads, work)
    assert w.grad is None


def test_retain_grad_from_many_threads():
    # a shared non-leaf's retained .grad is accumulated by every thread's backward (a hook
    # lets the threads reach it together)
    threads, steps = 8, 5
    for _ in range(3):
        w = nbgrad.zeros(3, requires_grad=True)
        h = w * 1.0
        h.retain_grad()
        gate = threading.Barrier(threads)

        def hook(g):
            gate.wait()

        h.register_hook(hook)
        y = (h * 3.0).sum()
        _run_threads(threads, lambda k: [y.backward(retain_graph=True) for _ in range(steps)])
        expect = np.full(3, 3.0 * threads * steps, np.float32)
        np.testing.assert_array_equal(h.grad.numpy(), expect)
        np.testing.assert_array_equal(w.grad.numpy(), expect)


def test_one_grad_accumulator_per_leaf_across_threads():
    # every thread's graph must reach a leaf through the same AccumulateGrad (its lock is
    # what serializes the leaf's accumulation); anomaly mode makes node creation slow, so
    # that threads arriving together at a new leaf would often make one each
    threads, rounds = 4, 100
    leaves = [nbgrad.zeros(1, requires_grad=True) for _ in range(rounds)]
    seen = [[None] * rounds for _ in range(threads)]
    gate = threading.Barrier(threads)

    def work(k):
        for i, w in enumerate(leaves):
            gate.wait()
            seen[k][i] = (w * 1.0).grad_fn.next_functions[0][0]

    with nbgrad.autograd.set_detect_anomaly(True):
        _run_threads(threads, work)
    split = sum(any(s[i] is not seen[0][i] for s in seen) for i in range(rounds))
    assert split == 0, f"{split} of {rounds} leaves got more than one AccumulateGrad"
    assert all(a.variable is w for a, w in zip(seen[0], leaves))


# ----- an exception at any line of backward ---------------------------------------------


class _Injected(BaseException):
    """Stands in for a KeyboardInterrupt (which pytest would take for the user's)."""


# the frames to interrupt: the public entry points and the engine, whose setup changes
# grad mode and the garbage collector
_TRACED = {f.__code__ for f in (api.backward, api.grad, engine.execute, engine._execute, engine._accumulate)}


def _traced(fn, local):
    """Run ``fn()`` with ``local`` as the line tracer of the frames of ``_TRACED``."""

    def start(frame, event, arg):
        return local if frame.f_code in _TRACED else None

    old = sys.gettrace()
    sys.settrace(start)
    try:
        fn()
    finally:
        sys.settrace(old)


def _lines_run(fn):
    """The ``(code, line)`` pairs of ``_TRACED`` that ``fn()`` runs, in first-run order."""
    seen = {}

    def local(frame, event, arg):
        if event == "line":
            seen.setdefault((frame.f_code, frame.f_lineno), None)
        return local

    _traced(fn, local)
    return list(seen)


def _interrupted_at(fn, where):
    """Run ``fn()``, raising ``_Injected`` when it first reaches line ``where``."""

    def local(frame, event, arg):
        if event == "line" and (frame.f_code, frame.f_lineno) == where:
            raise _Injected  # (raised by a tracer: it appears at that line of that frame)
        return local

    with pytest.raises(_Injected):
        _traced(fn, local)


@pytest.fixture
def restore_gc():
    was = gc.isenabled()
    yield
    if was:
        gc.enable()


def _chain(x, n=260):
    # more than 256 nodes: the engine turns the garbage collector off while it runs
    y = x
    for _ in range(n):
        y = y * 1.0
    return (y * 3.0).sum()


_CALLS = {
    "backward": lambda loss, x: loss.backward(),
    "backward(inputs=)": lambda loss, x: loss.backward(inputs=[x]),
    "grad": lambda loss, x: nbgrad.autograd.grad(loss, x),
    # grad mode off around a backward that builds a graph: the engine turns it on
    "grad(create_graph=True)": lambda loss, x: nbgrad.autograd.grad(loss, x, create_graph=True),
}


def _cleanup_lines(fn):
    """The lines of ``fn``'s ``finally`` clause: an exception there is beyond any code's
    reach (Python gives no way to finish a cleanup it interrupts)."""
    src, first = inspect.getsourcelines(fn)
    fin = next(i for i, line in enumerate(src) if line.strip() == "finally:")
    end = next(i for i in range(fin + 1, len(src)) if src[i].strip().startswith("return"))
    return set(range(first + fin + 1, first + end))


@pytest.mark.parametrize("call", list(_CALLS))
def test_an_exception_at_any_line_of_backward_restores_state(call, restore_gc):
    x = nbgrad.ones(4, dtype=nbgrad.float64, requires_grad=True)
    enabled = call != "grad(create_graph=True)"
    run = _CALLS[call]
    run(_chain(x), x)  # (the first backward of a process also binds the engine's ops)
    x.grad = None
    lines = _lines_run(lambda loss=_chain(x): run(loss, x))
    cleanup = _cleanup_lines(engine._execute)
    lines = [w for w in lines if not (w[0] is engine._execute.__code__ and w[1] in cleanup)]
    assert len(lines) > 30
    for where in lines:
        x.grad = None
        loss = _chain(x)
        nbgrad.set_grad_enabled(enabled)
        _interrupted_at(lambda: run(loss, x), where)
        state = (nbgrad.is_grad_enabled(), gc.isenabled(), grad_mode.STATE.owned)
        nbgrad.set_grad_enabled(True)
        gc.enable()
        assert state == (enabled, True, None), f"after an exception at line {where[1]}"
        # and backward works again, into the same leaf
        x.grad = None
        _chain(x, 3).backward()
        np.testing.assert_array_equal(x.grad.numpy(), np.full(4, 3.0))


def test_detect_anomaly_failing_to_start_leaves_anomaly_mode_off():
    # its warning, made an error, must stop it before it turns anomaly mode on (torch warns
    # before it does anything)
    from nbgrad.autograd import anomaly_mode

    was = list(anomaly_mode.ENABLED)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with pytest.raises(UserWarning, match="Anomaly Detection has been enabled"):
                with nbgrad.autograd.detect_anomaly():
                    pass
            with pytest.raises(UserWarning, match="Anomaly Detection has been enabled"):
                nbgrad.autograd.detect_anomaly()(lambda: None)()
        assert not nbgrad.autograd.is_anomaly_enabled()
    finally:
        anomaly_mode.ENABLED[:] = was


def test_hooks_registered_during_backward(torch):
    # a hook that hooks (or retains) another output of the same node while the engine runs
    # that node's hooks: the new ones wait for the next backward, as in torch
    def run(lib):
        class Two(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 1.0, x * 2.0

            @staticmethod
            def backward(ctx, ga, gb):
                return ga + 2 * gb

        x = lib.ones(4, dtype=lib.float64, requires_grad=True)
        a, b = Two.apply(x)
        log = []

        def hook_a(g):
            log.append("a")
            b.register_hook(lambda g: log.append("b") or g * 10)
            b.retain_grad()

        a.register_hook(hook_a)
        (a.sum() + b.sum()).backward(retain_graph=True)
        first = (list(log), x.grad.numpy().copy(), b.grad.numpy().copy())
        (a.sum() + b.sum()).backward()
        return first, (log, x.grad.numpy(), b.grad.numpy())

    ours, theirs = run(nbgrad), run(torch)
    # first backward: ["a"], x.grad 3, b.grad 1; second: both hooks on b run, b.grad 101
    assert [r[0] for r in ours] == [r[0] for r in theirs] == [["a"], ["a", "a", "b", "b"]]
    for mine, ref in zip(ours, theirs):
        np.testing.assert_array_equal(mine[1], ref[1])
        np.testing.assert_array_equal(mine[2], ref[2])
