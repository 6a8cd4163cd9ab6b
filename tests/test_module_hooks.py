"""nn.Module's hooks against PyTorch's: full backward hooks and pre-hooks (what they see,
replacing gradients, their errors, order through nested modules), forward hooks with
kwargs, always_call and prepend; a leaf node's hooks; a Function's non-differentiable
returned input."""

import pytest

import nbgrad


def _lists(ts):
    return [None if t is None else t.tolist() for t in ts]


def _error(call):
    try:
        call()
    except Exception as e:  # noqa: BLE001  (any error is the outcome compared)
        return type(e).__name__, str(e)
    return "ok"


def _backward_hooks(L):
    out = {}
    nn = L.nn
    L.manual_seed(0)
    m = nn.Linear(2, 3)
    seen = []
    m.register_full_backward_hook(lambda mod, gi, go: seen.append((_lists(gi), _lists(go))))
    x = L.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = m(x)
    out["name"] = y.grad_fn.name()
    y.sum().backward()
    out["full"], out["xgrad"] = seen, x.grad.tolist()

    m = nn.Linear(2, 1)  # a pre-hook scales grad_output
    m.register_full_backward_pre_hook(lambda mod, go: (go[0] * 10,))
    x = L.ones(1, 2, requires_grad=True)
    m(x).sum().backward()
    out["pre"], out["pre_w"] = x.grad.tolist(), m.weight.grad.tolist()

    m = nn.ReLU()  # a hook replaces grad_input
    m.register_full_backward_hook(lambda mod, gi, go: (gi[0] * 0 + 7,))
    x = L.tensor([1.0, -1.0], requires_grad=True)
    m(x).sum().backward()
    out["replaced"] = x.grad.tolist()

    m = nn.Linear(2, 1)  # no input needs a gradient: grad_input is None
    seen = []
    m.register_full_backward_hook(lambda mod, gi, go: seen.append((gi, tuple(go[0].shape))))
    m(L.ones(1, 2)).sum().backward()
    out["no_input_grad"] = seen

    m = nn.ReLU()
    m.register_full_backward_hook(lambda mod, gi, go: (gi[0], gi[0]))
    out["bad_count"] = _error(lambda: m(L.ones(2, requires_grad=True)).sum().backward())

    class Two(nn.Module):  # several outputs, and arguments that are not tensors
        def forward(self, a, k, b):
            return a * k, b * 2, "x"

    m, seen = Two(), []
    m.register_full_backward_hook(lambda mod, gi, go: seen.append((_lists(gi), _lists(go))))
    a = L.ones(2, requires_grad=True)
    r = m(a, 3.0, L.ones(2))
    (r[0].sum() + r[1].sum()).backward()
    out["two"], out["two_grad"] = seen, a.grad.tolist()

    m, seen = nn.ReLU(), []
    m.register_full_backward_hook(lambda *a: seen.append(1)).remove()
    m(L.ones(2, requires_grad=True)).sum().backward()
    with L.no_grad():
        o = nn.ReLU()(L.ones(2, requires_grad=True))
    out["removed_and_no_grad"] = (seen, o.requires_grad)

    seq, order = nn.Sequential(nn.Linear(2, 2), nn.ReLU()), []
    for i, mod in enumerate(seq):
        mod.register_full_backward_hook(lambda mod, gi, go, i=i: order.append(i))
    seq.register_full_backward_hook(lambda mod, gi, go: order.append("seq"))
    seq(L.ones(1, 2, requires_grad=True)).sum().backward()
    out["order"] = order
    return out


def _forward_hooks(L):
    out = {}

    class Scale(L.nn.Module):
        def forward(self, a, scale=1.0):
            if scale < 0:
                raise ValueError("negative scale")
            return a * scale

    m, order = Scale(), []
    m.register_forward_pre_hook(lambda mod, args, kwargs: (args, {"scale": 3.0}),
                                with_kwargs=True)
    m.register_forward_hook(lambda mod, args, kwargs, o: order.append(kwargs) or o + 1,
                            with_kwargs=True)
    m.register_forward_hook(lambda mod, args, o: order.append("first"), prepend=True)
    out["kwargs"], out["order"] = m(L.ones(1), scale=2.0).tolist(), order

    m, called = Scale(), []
    m.register_forward_hook(lambda mod, args, o: called.append(o), always_call=True)
    m.register_forward_hook(lambda mod, args, o: called.append("not on error"))
    out["always_call"] = (_error(lambda: m(L.ones(1), scale=-1.0)), called)

    m = Scale()
    m.register_forward_pre_hook(lambda mod, args, kwargs: 5, with_kwargs=True)
    out["bad_pre"] = _error(lambda: m(L.ones(1)))
    return out


@pytest.mark.filterwarnings("ignore:Full backward hook is firing")
@pytest.mark.parametrize("run", [_backward_hooks, _forward_hooks])
def test_module_hooks_as_pytorch(run):
    got = run(nbgrad)
    if run is _backward_hooks:
        assert got["name"] == "BackwardHookFunctionBackward" and got["order"] == [1, 0, "seq"]
        assert got["pre_w"] == [[10.0, 10.0]] and got["replaced"] == [7.0, 7.0]
        assert got["bad_count"] == ("RuntimeError", "Backward hook returned an invalid "
                                    "number of grad_input, got 2, but expected 1")
    else:
        assert got["kwargs"] == [4.0] and got["order"] == ["first", {"scale": 3.0}]
        assert got["always_call"] == (("ValueError", "negative scale"), [None])
    torch = pytest.importorskip("torch")
    want = run(torch)
    assert got.keys() == want.keys()
    for k in want:
        assert str(got[k]).replace("nbgrad", "L") == str(want[k]).replace("torch", "L"), k


def test_function_returning_a_non_differentiable_input():
    class Id(nbgrad.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.mark_non_differentiable(b)
            return a, b

        @staticmethod
        def backward(ctx, ga, gb):
            return ga, None

    x, y = nbgrad.ones(2, requires_grad=True), nbgrad.ones(2, requires_grad=True)
    a, b = Id.apply(x, y)
    assert a.requires_grad and a is not x and not b.requires_grad and b.grad_fn is None


def _leaf_node_hooks(L):
    # hooks on a leaf's AccumulateGrad node (the "gradient ready" signal of DDP-style code):
    # the pre-hook may replace the gradient, the post-hook sees .grad already updated
    out = {}
    x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
    acc = x.expand_as(x).grad_fn.next_functions[0][0]
    seen = []
    acc.register_hook(lambda gi, go: seen.append((gi, go[0].tolist(), x.grad.tolist())))
    acc.register_prehook(lambda go: (go[0] * 10,))
    (x * x).sum().backward()
    out["post"], out["grad"] = seen, x.grad.tolist()
    x.grad = None
    L.autograd.grad((x * x).sum(), x)  # (no accumulation: no post-hook)
    out["grad_call"] = (len(seen), x.grad)
    return out


def test_leaf_node_hooks_as_pytorch():
    got = _leaf_node_hooks(nbgrad)
    assert got["post"] == [((), [20.0, 40.0, 60.0], [20.0, 40.0, 60.0])]
    assert got["grad_call"] == (1, None)
    torch = pytest.importorskip("torch")
    assert got == _leaf_node_hooks(torch)


def test_hook_handles_have_ids_as_pytorch():
    m = nbgrad.nn.Linear(2, 2)
    h = m.register_forward_hook(lambda *a: None)
    assert h.id in m._forward_hooks and isinstance(h.id, int)
    h.remove()
    assert h.id not in m._forward_hooks


def test_full_backward_hook_without_input_gradients_warns_as_pytorch():
    m = nbgrad.nn.Linear(2, 1)
    m.register_full_backward_hook(lambda mod, gi, go: None)
    with pytest.warns(UserWarning, match="Full backward hook is firing when gradients are "
                                         "computed with respect to module outputs"):
        m(nbgrad.ones(1, 2)).sum().backward()


def test_extra_state_round_trips_as_pytorch():
    """``get_extra_state`` / ``set_extra_state``: the object is in the state dict under
    ``<prefix>_extra_state``, restored by ``load_state_dict``; missing, it is a missing key
    only when strict; a module that does not override them has no such key."""
    torch = pytest.importorskip("torch")
    got = []
    for L in (nbgrad, torch):
        class Counter(L.nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = L.nn.Linear(1, 1)
                self.calls = 0

            def get_extra_state(self):
                return {"calls": self.calls}

            def set_extra_state(self, state):
                self.calls = state["calls"]

        a, b = L.nn.Sequential(Counter()), L.nn.Sequential(Counter())
        a[0].calls = 3
        sd = a.state_dict()
        res = b.load_state_dict(sd)
        loose = L.nn.Sequential(Counter()).load_state_dict(
            {k: v for k, v in sd.items() if "extra" not in k}, strict=False)
        try:
            L.nn.Sequential(Counter()).load_state_dict(
                {k: v for k, v in sd.items() if "extra" not in k})
            strict = "loaded"
        except RuntimeError as e:
            strict = str(e).split("\n")[1].strip()
        plain = L.nn.Linear(1, 1).load_state_dict(
            dict(L.nn.Linear(1, 1).state_dict(), _extra_state=1), strict=False)
        got.append((list(sd), sd["0._extra_state"], b[0].calls, repr(res), repr(loose),
                    strict, repr(plain)))
    assert got[0] == got[1]
