"""Random op programs for the differential test against PyTorch (tests/test_differential.py).

A program is plain Python source written against PyTorch's API (``torch.``, ``F.``), so one
text runs under both libraries: under nbgrad with ``torch`` bound to ``nbgrad``. Its repr is
that text, a ready reproducer (``import nbgrad as torch`` and paste).

Programs are drawn step by step while PyTorch runs them, so each op is chosen knowing the
actual values it gets: ops with kinks or ties (relu, abs, max, maximum, clamp, ...) are only
applied where every element is at least ``MARGIN`` from the kink, divisions and logs only
where the argument is bounded away from 0, and no value may exceed ``LIMIT``. A mismatch is
then a bug, not float64 rounding deciding a tie differently. A drawn op that does not fit
its operands is left out, so shrinking a failure still gives a valid (shorter) program.

PyTorch's results (the loss, gradients, second-order gradients, or the exception a step or
the backward raised) are recorded while drawing; the test runs the text under nbgrad only.
"""

import math
import os

import numpy as np
from hypothesis import strategies as st

MARGIN = 1e-6  # distance kept from a kink, a tie, or a branch of where()
LIMIT = 1e4  # largest magnitude any intermediate value may reach
TOO_SMALL = 0.05  # arguments of log, sqrt, division, ... stay this far from 0
# For soak runs that look past a known failure: op names (keys of OPS) to leave out, and
# "views" for no in-place op on a view, e.g. NBGRAD_DIFF_EXCLUDE=views,maximum
EXCLUDE = {s for s in os.environ.get("NBGRAD_DIFF_EXCLUDE", "").split(",") if s}


def _lit(a):
    """Source text of a float64 constant tensor holding ``a``."""
    return f"torch.tensor({np.asarray(a).tolist()!r}, dtype=torch.float64)"


def _raises(exc_type, fn, phrase=""):
    """Run ``fn``; pass only when it raises ``exc_type`` (the step PyTorch refused), with
    ``phrase`` in its message."""
    try:
        fn()
    except exc_type as e:
        if phrase not in str(e):
            raise AssertionError(f"expected {phrase!r} in the message, got: {e}") from e
        return
    except Exception as e:  # noqa: BLE001  (any other exception is the wrong one)
        raise AssertionError(f"expected {exc_type.__name__}, got {type(e).__name__}: {e}") from e
    raise AssertionError(f"expected {exc_type.__name__}, nothing was raised")


class Program:
    """Source lines plus PyTorch's recorded results.

    ``mode`` says how the gradients are taken: ``grad`` (``autograd.grad``), ``backward``
    (``.backward()`` into ``.grad``, sometimes twice so that it accumulates) or ``double``
    (``create_graph=True`` then the gradient of a weighted sum of the gradients).
    ``expected`` maps ``loss``/``grads``/``grads2`` to NumPy arrays (None for an unused
    leaf), or ``raises`` to the exception type name the final stage raised in PyTorch.
    """

    def __init__(self):
        self.lines = []
        self.leaves = []
        self.mode = "grad"
        self.expected = {}
        self.ops = []  # names of the ops used, for coverage statistics

    def source(self):
        return "\n".join(self.lines)

    def __repr__(self):
        head = "import nbgrad as torch\nF = torch.nn.functional\n"
        return f"Program(mode={self.mode!r}):\n{head}{self.source()}\n# torch: {self._summary()}"

    def _summary(self):
        if "raises" in self.expected:
            return f"the loss or gradient step raises {self.expected['raises']}"
        parts = [f"loss = {self.expected['loss']!r}"]
        for key in ("grads", "grads2"):
            if key in self.expected:
                parts.append(f"{key} = {self.expected[key]!r}")
        return "; ".join(parts)

    def run(self, lib):
        """Execute the source with ``torch`` bound to ``lib``; return its namespace."""
        ns = {"torch": lib, "F": lib.nn.functional, "_raises": _raises, "math": math}
        exec(compile(self.source(), "<program>", "exec"), ns)
        return ns


# ----- value guards (on PyTorch's float64 values) ---------------------------------------------
def _np(t):
    if t._is_zerotensor():  # PyTorch's lazily-zero gradients do not convert
        return np.zeros(tuple(t.shape))
    return t.detach().numpy()


def _away(x, c=0.0, m=MARGIN):
    return bool(np.all(np.abs(_np(x) - c) > m))


def _min_abs_diff(a, b):
    da, db = np.broadcast_arrays(_np(a), _np(b))
    return float(np.min(np.abs(da - db))) if da.size else math.inf


def _no_ties(x, dims, largest=True):
    """True when the extreme over ``dims`` of every slice is unique by ``MARGIN``."""
    a = _np(x)
    if a.ndim == 0:
        return True
    dims = tuple(d % a.ndim for d in dims) if dims is not None else tuple(range(a.ndim))
    keep = [d for d in range(a.ndim) if d not in dims]
    a = np.transpose(a, keep + list(dims)).reshape(*[a.shape[d] for d in keep], -1)
    if a.shape[-1] < 2:
        return True
    s = np.sort(a, axis=-1)
    gap = (s[..., -1] - s[..., -2]) if largest else (s[..., 1] - s[..., 0])
    return bool(np.all(gap > MARGIN))


# ----- the op table --------------------------------------------------------------------------
# Each generator takes (draw, builder) and returns None (does not fit) or a Cand.
class Cand:
    """One step: ``expr`` gives a new value (a tensor); with ``inplace`` set, ``expr`` is a
    statement that changes existing values, and ``check_expr`` (its out-of-place equivalent)
    is what the guards look at first (a ``{out}`` in such a statement names a value it also
    makes). ``ok`` is a guard on the new value. ``args`` are the slots the step consumes (so
    they are not summed into the loss on their own). With ``may_raise``, PyTorch refusing the
    step makes it a check that nbgrad refuses it too."""

    def __init__(self, expr, args, ok=None, inplace=False, check_expr=None, may_raise=False):
        self.expr, self.args, self.ok = expr, args, ok
        self.inplace, self.check_expr, self.may_raise = inplace, check_expr, may_raise


def _unary(template, guard=None, pre=None):
    """``template`` with ``{a}``; ``guard(x)`` on the input, ``pre`` a predicate on its shape."""

    def gen(draw, b):
        i = b.pick(draw, lambda t: (pre is None or pre(t)) and (guard is None or guard(t)))
        if i is None:
            return None
        return Cand(template.format(a=b.name(i)), [i])

    return gen


def _scalar_op(template, values, guard=None):
    def gen(draw, b):
        c = draw(st.sampled_from(values))
        i = b.pick(draw, lambda t: guard is None or guard(t, c))
        if i is None:
            return None
        return Cand(template.format(a=b.name(i), c=c), [i])

    return gen


def _binary(template, guard=None, same_shape=False):
    """``template`` with ``{a}``, ``{b}``: two values that broadcast (or have one shape)."""

    def gen(draw, b):
        i = b.pick(draw, lambda t: True)
        ta = b.val(i)

        def fits(t):
            if same_shape:
                ok = t.shape == ta.shape
            else:
                ok = b.broadcastable(ta.shape, t.shape)
            return ok and (guard is None or guard(ta, t))

        j = b.pick(draw, fits)
        if j is None:
            return None
        return Cand(template.format(a=b.name(i), b=b.name(j)), [i, j])

    return gen


def _pos(t):
    return _away(t, 0.0, 0) and bool(np.all(_np(t) > TOO_SMALL))


def _nonzero(t):
    return bool(np.all(np.abs(_np(t)) > TOO_SMALL))


def _dim_op(template, guard=None, min_ndim=1, keepdim=True, multi=False):
    """``template`` with ``{a}``, ``{d}`` (a dim or a tuple of dims) and ``{k}`` (keepdim)."""

    def gen(draw, b):
        i = b.pick(draw, lambda t: t.ndim >= min_ndim)
        if i is None:
            return None
        t = b.val(i)
        if multi and t.ndim >= 2 and draw(st.booleans()):
            dims = tuple(sorted(draw(st.sets(st.integers(0, t.ndim - 1), min_size=1,
                                             max_size=t.ndim))))
            d = dims
        else:
            d = draw(st.integers(-t.ndim, t.ndim - 1)) if t.ndim else 0
            dims = (d,)
        if guard is not None and not guard(t, dims):
            return None
        k = draw(st.booleans()) if keepdim else False
        return Cand(template.format(a=b.name(i), d=d, k=k), [i])

    return gen


def _g_full_reduce(template, guard=None):
    def gen(draw, b):
        i = b.pick(draw, lambda t: t.numel() >= 1 and (guard is None or guard(t)))
        if i is None:
            return None
        return Cand(template.format(a=b.name(i)), [i])

    return gen


def _g_reshape(draw, b):
    i = b.pick(draw, lambda t: t.numel() >= 1)
    t = b.val(i)
    n = t.numel()
    shapes = [(n,), (-1,), (1, n), (n, 1)]
    shapes += [(f, n // f) for f in range(2, n) if n % f == 0]
    shapes += [(1, f, n // f) for f in range(2, n) if n % f == 0]
    shape = draw(st.sampled_from(shapes))
    how = draw(st.sampled_from(["reshape", "view"]))
    # view raises on strides it cannot express; PyTorch's error is then expected from nbgrad
    return Cand(f"{b.name(i)}.{how}{shape!r}", [i], may_raise=how == "view")


def _g_flatten(draw, b):
    i = b.pick(draw, lambda t: t.ndim >= 2)
    if i is None:
        return None
    n = b.val(i).ndim
    s = draw(st.integers(0, n - 2))
    e = draw(st.integers(s + 1, n - 1))
    return Cand(f"{b.name(i)}.flatten({s}, {e})", [i])


def _g_transpose(draw, b):
    i = b.pick(draw, lambda t: t.ndim >= 2)
    if i is None:
        return None
    n = b.val(i).ndim
    d0, d1 = draw(st.integers(-n, n - 1)), draw(st.integers(-n, n - 1))
    forms = ["{a}.transpose({d0}, {d1})", "torch.transpose({a}, {d0}, {d1})", "{a}.mT"]
    form = draw(st.sampled_from(forms + (["{a}.T", "{a}.t()"] if n == 2 else [])))
    return Cand(form.format(a=b.name(i), d0=d0, d1=d1), [i])


def _g_permute(draw, b):
    i = b.pick(draw, lambda t: t.ndim >= 2)
    if i is None:
        return None
    n = b.val(i).ndim
    perm = tuple(draw(st.permutations(range(n))))
    return Cand(f"{b.name(i)}.permute{perm!r}", [i])


def _g_unsqueeze(draw, b):
    i = b.pick(draw, lambda t: t.ndim <= 3)
    if i is None:
        return None
    n = b.val(i).ndim
    d = draw(st.integers(-n - 1, n))
    return Cand(f"{b.name(i)}.unsqueeze({d})", [i])


def _g_squeeze(draw, b):
    i = b.pick(draw, lambda t: 1 in t.shape)
    if i is None:
        return None
    t = b.val(i)
    if draw(st.booleans()):
        return Cand(f"{b.name(i)}.squeeze()", [i])
    d = draw(st.sampled_from([k for k, s in enumerate(t.shape) if s == 1]))
    return Cand(f"{b.name(i)}.squeeze({d})", [i])


def _g_expand(draw, b):
    i = b.pick(draw, lambda t: t.ndim <= 3)
    if i is None:
        return None
    t = b.val(i)
    sizes = [draw(st.integers(2, 3)) if s == 1 and draw(st.booleans()) else
             draw(st.sampled_from([s, -1])) for s in t.shape]
    if t.ndim < 3 and draw(st.booleans()):
        sizes = [draw(st.integers(1, 3))] + sizes
    return Cand(f"{b.name(i)}.expand({', '.join(map(str, sizes))})" if sizes else
                f"{b.name(i)}.expand(())", [i])


def _key(draw, shape):
    """A basic indexing key (ints, slices with steps, None, Ellipsis) valid for ``shape``."""
    parts = []
    for s in shape:
        kind = draw(st.sampled_from(["all", "int", "slice", "none"]))
        if kind == "int":
            parts.append(str(draw(st.integers(-s, s - 1))))
        elif kind == "slice":
            lo = draw(st.integers(0, s - 1))
            hi = draw(st.integers(lo + 1, s))
            step = draw(st.integers(1, 2))
            parts.append(f"{lo}:{hi}" + (f":{step}" if step > 1 else ""))
        elif kind == "none":
            parts.append("None")
            parts.append(":")
        else:
            parts.append(":")
    if shape and draw(st.booleans()):
        cut = draw(st.integers(0, len(parts)))
        parts = parts[:cut] + ["..."]
    return ", ".join(parts) if parts else "..."


def _g_getitem(draw, b):
    i = b.pick(draw, lambda t: t.ndim >= 1)
    if i is None:
        return None
    return Cand(f"{b.name(i)}[{_key(draw, tuple(b.val(i).shape))}]", [i])


def _g_index(draw, b):
    """Advanced indexing with repeated indices: the gradient must accumulate."""
    i = b.pick(draw, lambda t: t.ndim >= 1)
    if i is None:
        return None
    t = b.val(i)
    n = t.shape[0]
    idx = draw(st.lists(st.integers(-n, n - 1), min_size=1, max_size=4))
    if draw(st.booleans()):
        return Cand(f"{b.name(i)}[torch.tensor({idx!r})]", [i])
    d = draw(st.integers(0, t.ndim - 1))
    idx = [k % t.shape[d] for k in idx]
    return Cand(f"torch.index_select({b.name(i)}, {d}, torch.tensor({idx!r}))", [i])


def _g_flip(draw, b):
    i = b.pick(draw, lambda t: t.ndim >= 1)
    if i is None:
        return None
    n = b.val(i).ndim
    dims = sorted(draw(st.sets(st.integers(0, n - 1), min_size=1, max_size=n)))
    return Cand(f"{b.name(i)}.flip({dims!r})", [i])


def _g_split(draw, b):
    i = b.pick(draw, lambda t: t.ndim >= 1 and max(t.shape) >= 2)
    if i is None:
        return None
    t = b.val(i)
    d = draw(st.sampled_from([k for k, s in enumerate(t.shape) if s >= 2]))
    size = draw(st.integers(1, t.shape[d] - 1))
    pieces = -(-t.shape[d] // size)
    k = draw(st.integers(0, pieces - 1))
    form = draw(st.sampled_from(["{a}.split({s}, {d})[{k}]", "torch.chunk({a}, {p}, {d})[0]"]))
    return Cand(form.format(a=b.name(i), s=size, d=d, k=k, p=pieces), [i])


def _g_cat(draw, b):
    i = b.pick(draw, lambda t: t.ndim >= 1)
    if i is None:
        return None
    ta = b.val(i)
    d = draw(st.integers(0, ta.ndim - 1))

    def fits(t):
        return t.ndim == ta.ndim and all(
            s == r for k, (s, r) in enumerate(zip(t.shape, ta.shape)) if k != d)

    j = b.pick(draw, fits)
    return Cand(f"torch.cat([{b.name(i)}, {b.name(j)}], {d})", [i, j])


def _g_stack(draw, b):
    i = b.pick(draw, lambda t: t.ndim <= 3)
    if i is None:
        return None
    ta = b.val(i)
    j = b.pick(draw, lambda t: t.shape == ta.shape)
    d = draw(st.integers(-ta.ndim - 1, ta.ndim))
    return Cand(f"torch.stack([{b.name(i)}, {b.name(j)}], {d})", [i, j])


def _g_matmul(draw, b):
    i = b.pick(draw, lambda t: t.ndim >= 1)
    if i is None:
        return None
    ta = b.val(i)
    k = ta.shape[-1]

    def fits(t):
        if t.ndim == 1:
            return t.shape[0] == k
        if t.ndim >= 2 and t.shape[-2] == k:
            return ta.ndim == 1 or b.broadcastable(ta.shape[:-2], t.shape[:-2])
        return False

    def fits_t(t):  # a @ t.mT
        return (t.ndim >= 2 and ta.ndim >= 1 and t.shape[-1] == k
                and (ta.ndim == 1 or b.broadcastable(ta.shape[:-2], t.shape[:-2])))

    if draw(st.booleans()):
        j = b.pick(draw, fits)
        if j is not None:
            return Cand(draw(st.sampled_from(["{a} @ {b}", "torch.matmul({a}, {b})"])).format(
                a=b.name(i), b=b.name(j)), [i, j])
    j = b.pick(draw, fits_t)
    if j is None:
        return None
    return Cand(f"{b.name(i)} @ {b.name(j)}.mT", [i, j])


def _g_linear(draw, b):
    i = b.pick(draw, lambda t: t.ndim >= 1)
    if i is None:
        return None
    k = b.val(i).shape[-1]
    w = b.pick(draw, lambda t: t.ndim == 2 and t.shape[1] == k)
    if w is None:
        return None
    out = b.val(w).shape[0]
    bias = b.pick(draw, lambda t: t.ndim == 1 and t.shape[0] == out) if draw(st.booleans()) else None
    if bias is None:
        return Cand(f"F.linear({b.name(i)}, {b.name(w)})", [i, w])
    return Cand(f"F.linear({b.name(i)}, {b.name(w)}, {b.name(bias)})", [i, w, bias])


def _g_outer(draw, b):
    i = b.pick(draw, lambda t: t.ndim == 1)
    if i is None:
        return None
    if draw(st.booleans()):
        j = b.pick(draw, lambda t: t.ndim == 1)
        return Cand(f"torch.outer({b.name(i)}, {b.name(j)})", [i, j])
    n = b.val(i).shape[0]
    j = b.pick(draw, lambda t: t.ndim == 1 and t.shape[0] == n)
    return Cand(f"torch.dot({b.name(i)}, {b.name(j)})", [i, j])


def _g_where(draw, b):
    i = b.pick(draw, lambda t: _away(t))
    if i is None:
        return None
    ta = b.val(i)
    j = b.pick(draw, lambda t: b.broadcastable(ta.shape, t.shape))
    return Cand(f"torch.where({b.name(i)} > 0, {b.name(i)}, {b.name(j)})", [i, j])


def _g_layer_norm(draw, b):
    def ok(t):
        if t.ndim < 1 or t.shape[-1] < 2:
            return False
        return bool(np.all(np.var(_np(t), axis=-1) > 1e-3))

    i = b.pick(draw, ok)
    if i is None:
        return None
    n = b.val(i).shape[-1]
    if draw(st.booleans()):
        w = b.pick(draw, lambda t: tuple(t.shape) == (n,))
        c = b.pick(draw, lambda t: tuple(t.shape) == (n,))
        if w is not None and c is not None:
            return Cand(f"F.layer_norm({b.name(i)}, ({n},), {b.name(w)}, {b.name(c)})",
                        [i, w, c])
    return Cand(f"F.layer_norm({b.name(i)}, ({n},))", [i])


def _g_losses(draw, b):
    i = b.pick(draw, lambda t: t.numel() >= 1)
    ta = b.val(i)
    j = b.pick(draw, lambda t: t.shape == ta.shape)
    form = draw(st.sampled_from([
        "F.mse_loss({a}, {b})",
        "F.binary_cross_entropy_with_logits({a}, torch.sigmoid({b}))",
    ]))
    return Cand(form.format(a=b.name(i), b=b.name(j)), [i, j])


def _g_cross_entropy(draw, b):
    i = b.pick(draw, lambda t: t.ndim == 2)
    if i is None:
        return None
    n, c = b.val(i).shape
    target = draw(st.lists(st.integers(0, c - 1), min_size=n, max_size=n))
    return Cand(f"F.cross_entropy({b.name(i)}, torch.tensor({target!r}))", [i])


def _g_inplace(draw, b):
    """``a.op_(b)`` on an intermediate (a leaf or a view of one: PyTorch's error expected)."""
    ok = (lambda t: t._base is None) if "views" in EXCLUDE else (lambda t: True)
    # often a value that has views: they must see the change, in values and in gradients
    bases = {id(b.val(k)._base) for k in range(len(b.names)) if b.val(k)._base is not None}
    i = None
    if bases and draw(st.booleans()):
        i = b.pick(draw, lambda t: id(t) in bases and ok(t))
    if i is None:
        i = b.pick(draw, ok, prefer_nonleaf=True)
    if i is None:
        return None
    ta = b.val(i)
    op = draw(st.sampled_from(["add_", "sub_", "mul_", "div_"]))
    sym = {"add_": "+", "sub_": "-", "mul_": "*", "div_": "/"}[op]

    def fits(t):
        if not b.broadcastable(ta.shape, t.shape):
            return False
        if tuple(np.broadcast_shapes(tuple(ta.shape), tuple(t.shape))) != tuple(ta.shape):
            return False
        return op != "div_" or _nonzero(t)

    if draw(st.booleans()):
        j = b.pick(draw, fits)
        if j is None:
            return None
        other = b.name(j)
        args = [j]
    else:
        c = draw(st.sampled_from([0.5, -2.0, 3.0]))
        other, args = repr(c), []
    return Cand(f"{b.name(i)}.{op}({other})", args, inplace=True,
                check_expr=f"{b.name(i)} {sym} {other}", may_raise=True)


def _g_inplace_view(draw, b):
    """An in-place op through a view (``a[key].mul_(b)``, ``a[key] = b``): the base changes."""
    i = b.pick(draw, lambda t: t.ndim >= 1, prefer_nonleaf=True)
    if i is None:
        return None
    ta = b.val(i)
    key = _key(draw, tuple(ta.shape))
    view = b.eval(f"{b.name(i)}[{key}]")
    if view is None:
        return None

    def fits(t):
        try:
            return tuple(np.broadcast_shapes(tuple(view.shape), tuple(t.shape))) == tuple(view.shape)
        except ValueError:
            return False

    j = b.pick(draw, fits)
    if j is None:
        return None
    a, o = b.name(i), b.name(j)
    if draw(st.booleans()):
        return Cand(f"{a}[{key}] = {o}", [j], inplace=True, check_expr=o, may_raise=True)
    op = draw(st.sampled_from(["add_", "mul_"]))
    sym = {"add_": "+", "mul_": "*"}[op]
    return Cand(f"{a}[{key}].{op}({o})", [j], inplace=True,
                check_expr=f"{a}[{key}] {sym} {o}", may_raise=True)


def _g_view_then_inplace(draw, b):
    """A view of an intermediate, then an in-place op on the intermediate: the view must see
    the new values, and its gradient must flow through the in-place op."""
    i = b.pick(draw, lambda t: t._base is None, prefer_nonleaf=True)
    if i is None or b.leaf[i]:
        return None
    ta, a = b.val(i), b.name(i)
    forms = ["{a}.unsqueeze(0)", "{a}.view(-1)"]
    if ta.ndim >= 1:
        forms.append(f"{{a}}[{_key(draw, tuple(ta.shape))}]")
    if ta.ndim >= 2:
        forms.append("{a}.mT")
    view = draw(st.sampled_from(forms)).format(a=a)
    op, c = draw(st.sampled_from(["mul_", "add_", "sub_"])), draw(st.sampled_from([2.0, -0.5]))
    sym = {"add_": "+", "sub_": "-", "mul_": "*"}[op]
    return Cand(f"{{out}} = {view}; {a}.{op}({c})", [i], inplace=True,
                check_expr=f"{a} {sym} {c}", may_raise=True)


def _g_max_dim(draw, b):
    i = b.pick(draw, lambda t: t.ndim >= 1)
    if i is None:
        return None
    t = b.val(i)
    d = draw(st.integers(-t.ndim, t.ndim - 1))
    which = draw(st.sampled_from(["max", "min"]))
    if not _no_ties(t, (d,), largest=which == "max"):
        return None
    k = draw(st.booleans())
    form = draw(st.sampled_from(["{a}.{w}({d}, keepdim={k}).values", "torch.{w}({a}, {d}, {k})[0]"]))
    return Cand(form.format(a=b.name(i), w=which, d=d, k=k), [i])


def _g_extreme(draw, b):
    which = draw(st.sampled_from(["amax", "amin"]))
    return _dim_op("{a}.%s({d}, keepdim={k})" % which,
                   guard=lambda t, dims: _no_ties(t, dims, largest=which == "amax"),
                   multi=True)(draw, b)


def _g_max_all(draw, b):
    which = draw(st.sampled_from(["max", "min"]))
    return _g_full_reduce("{a}.%s()" % which,
                          guard=lambda t: _no_ties(t, None, largest=which == "max"))(draw, b)


def _var_ok(t, dims):
    if not all(t.shape[d] >= 2 for d in dims):
        return False
    return bool(np.all(np.var(_np(t), axis=tuple(d % t.ndim for d in dims)) > 1e-3))


OPS = {
    # unary, any finite input
    "tanh": _unary("{a}.tanh()"),
    "sigmoid": _unary("torch.sigmoid({a})"),
    "sin": _unary("torch.sin({a})"),
    "cos": _unary("{a}.cos()"),
    "neg": _unary("-{a}"),
    "erf": _unary("torch.erf({a})"),
    "gelu": _unary("F.gelu({a})"),
    "gelu_tanh": _unary("F.gelu({a}, approximate='tanh')"),
    "silu": _unary("F.silu({a})"),
    "square": _unary("{a} * {a}"),
    "pow2": _unary("{a} ** 2"),
    "sqrt1": _unary("({a} * {a} + 1).sqrt()"),
    "log_sq1": _unary("torch.log({a} * {a} + 1)"),
    "log1p_sq": _unary("({a} * {a}).log1p()"),
    "exp": _unary("{a}.exp()", guard=lambda t: bool(np.all(_np(t) < 6))),
    "expm1": _unary("torch.expm1({a})", guard=lambda t: bool(np.all(_np(t) < 6))),
    "clone": _unary("{a}.clone()"),
    "contiguous": _unary("{a}.contiguous()"),
    # unary with a kink or a domain
    "relu": _unary("{a}.relu()", guard=_away),
    "F.relu": _unary("F.relu({a})", guard=_away),
    "abs": _unary("{a}.abs()", guard=_away),
    "sign": _unary("torch.sign({a}) * {a}", guard=_away),
    "log": _unary("{a}.log()", guard=_pos),
    "sqrt": _unary("torch.sqrt({a})", guard=_pos),
    "rsqrt": _unary("{a}.rsqrt()", guard=_pos),
    "log1p": _unary("torch.log1p({a})", guard=lambda t: bool(np.all(_np(t) > -1 + TOO_SMALL))),
    "tan": _unary("torch.tan({a})", guard=lambda t: bool(np.all(np.abs(np.cos(_np(t))) > 0.2))),
    "reciprocal": _unary("1 / {a}", guard=_nonzero),
    "clamp": _scalar_op("{a}.clamp(-{c}, {c})", [0.5, 1.0, 2.0],
                        guard=lambda t, c: _away(t, c) and _away(t, -c)),
    "clamp_min": _scalar_op("torch.clamp_min({a}, {c})", [-0.5, 0.25],
                            guard=lambda t, c: _away(t, c)),
    # with a scalar
    "mul_scalar": _scalar_op("{a} * {c}", [-1.5, 0.5, 2]),
    "add_scalar": _scalar_op("{a} + {c}", [-1.0, 0.5, 3]),
    "rsub_scalar": _scalar_op("{c} - {a}", [1.0, -2]),
    "div_scalar": _scalar_op("{a} / {c}", [4.0, -0.5]),
    "rdiv_scalar": _scalar_op("{c} / {a}", [1.0, -2.0], guard=lambda t, c: _nonzero(t)),
    "pow_scalar": _scalar_op("{a} ** {c}", [0.5, 1.5, 3, -0.5, -2],
                             guard=lambda t, c: _pos(t)),
    "rpow_scalar": _scalar_op("{c} ** {a}", [2.0, 0.5], guard=lambda t, c: bool(np.all(_np(t) < 8))),
    # binary, broadcasting
    "add": _binary("{a} + {b}"),
    "add_alpha": _binary("torch.add({a}, {b}, alpha=0.5)"),
    "sub": _binary("{a} - {b}"),
    "mul": _binary("{a} * {b}"),
    "div": _binary("{a} / {b}", guard=lambda a, b: _nonzero(b)),
    "maximum": _binary("torch.maximum({a}, {b})", guard=lambda a, b: _min_abs_diff(a, b) > MARGIN),
    "minimum": _binary("torch.minimum({a}, {b})", guard=lambda a, b: _min_abs_diff(a, b) > MARGIN),
    "max_binary": _binary("torch.max({a}, {b})", guard=lambda a, b: _min_abs_diff(a, b) > MARGIN),
    "pow": _binary("torch.pow({a}, {b})",
                   guard=lambda a, b: _pos(a) and bool(np.all(np.abs(_np(b)) < 3))),
    "where": _g_where,
    # reductions
    "sum_dim": _dim_op("{a}.sum({d}, keepdim={k})", multi=True),
    "sum_all": _g_full_reduce("{a}.sum()"),
    "torch.sum": _dim_op("torch.sum({a}, {d}, {k})", multi=True),
    "mean_dim": _dim_op("{a}.mean({d}, keepdim={k})", multi=True),
    "mean_all": _g_full_reduce("torch.mean({a})"),
    "amax_amin": _g_extreme,
    "max_dim": _g_max_dim,
    "max_all": _g_max_all,
    "logsumexp": _dim_op("torch.logsumexp({a}, {d}, keepdim={k})"),
    "softmax": _dim_op("F.softmax({a}, dim={d})", keepdim=False),
    "log_softmax": _dim_op("F.log_softmax({a}, {d})", keepdim=False),
    "var": _dim_op("{a}.var({d}, keepdim={k})", guard=_var_ok, multi=True),
    "std": _dim_op("torch.std({a}, {d}, keepdim={k})", guard=_var_ok),
    "prod": _dim_op("{a}.prod({d}, keepdim={k})", guard=lambda t, dims: _nonzero(t)),
    "norm": _dim_op("{a}.norm(dim={d}, keepdim={k})",
                    guard=lambda t, dims: bool(np.all(np.abs(_np(t)) > TOO_SMALL))),
    # shapes and views
    "reshape_view": _g_reshape,
    "flatten": _g_flatten,
    "transpose": _g_transpose,
    "permute": _g_permute,
    "unsqueeze": _g_unsqueeze,
    "squeeze": _g_squeeze,
    "expand": _g_expand,
    "getitem": _g_getitem,
    "index": _g_index,
    "flip": _g_flip,
    "split_chunk": _g_split,
    "cat": _g_cat,
    "stack": _g_stack,
    # products and nn
    "matmul": _g_matmul,
    "linear": _g_linear,
    "outer_dot": _g_outer,
    "layer_norm": _g_layer_norm,
    "losses": _g_losses,
    "cross_entropy": _g_cross_entropy,
    # in place
    "inplace": _g_inplace,
    "inplace_view": _g_inplace_view,
    "view_then_inplace": _g_view_then_inplace,
}


_OFTEN = {"inplace", "inplace_view", "view_then_inplace", "matmul", "linear"}


# ----- drawing -------------------------------------------------------------------------------
class _Builder:
    """Holds PyTorch's namespace while a program is drawn."""

    def __init__(self, torch):
        self.torch = torch
        self.ns = {"torch": torch, "F": torch.nn.functional, "math": math}
        self.names = []  # slot -> variable name
        self.leaf = []  # slot -> is a leaf
        self.consumed = set()
        self.prog = Program()

    def name(self, i):
        return self.names[i]

    def val(self, i):
        return self.ns[self.names[i]]

    def broadcastable(self, s1, s2):
        try:
            np.broadcast_shapes(tuple(s1), tuple(s2))
            return True
        except ValueError:
            return False

    def pick(self, draw, pred, prefer_nonleaf=False):
        cands = [k for k in range(len(self.names)) if pred(self.val(k))]
        if prefer_nonleaf and any(not self.leaf[k] for k in cands) and draw(st.integers(0, 7)):
            cands = [k for k in cands if not self.leaf[k]]
        if not cands:
            return None
        # recent values first, so that shrinking towards index 0 keeps programs chained
        return draw(st.sampled_from(cands[::-1]))

    def eval(self, expr):
        try:
            return eval(expr, self.ns)
        except Exception:  # noqa: BLE001  (a drawn key PyTorch refuses: skip the op)
            return None

    def add_leaf(self, arr):
        k = len(self.names)
        name = f"x{k}"
        line = f"{name} = torch.tensor({arr.tolist()!r}, dtype=torch.float64, requires_grad=True)"
        exec(line, self.ns)
        self.names.append(name)
        self.leaf.append(True)
        self.prog.lines.append(line)
        self.prog.leaves.append(name)

    @staticmethod
    def _sane(t, torch):
        if not isinstance(t, torch.Tensor) or t.dtype != torch.float64:
            return False
        a = _np(t)
        return bool(np.all(np.isfinite(a)) and np.all(np.abs(a) <= LIMIT))

    def try_step(self, opname, cand):
        torch = self.torch
        if cand.inplace:
            pred = self.eval(cand.check_expr)
            if pred is None or not self._sane(pred, torch) or (cand.ok and not cand.ok(pred)):
                return False
            name = f"v{len(self.names)}"
            expr = cand.expr.replace("{out}", name)  # a statement that also makes a value
            try:
                exec(expr, self.ns)
            except Exception as e:  # noqa: BLE001
                return self._expect_raise(cand, e)
            self.prog.lines.append(expr)
            if name in self.ns:
                self.names.append(name)
                self.leaf.append(False)
        else:
            try:
                out = eval(cand.expr, self.ns)
            except Exception as e:  # noqa: BLE001
                return self._expect_raise(cand, e)
            if not self._sane(out, torch) or (cand.ok and not cand.ok(out)):
                return False
            name = f"v{len(self.names)}"
            self.ns[name] = out
            self.names.append(name)
            self.leaf.append(False)
            self.prog.lines.append(f"{name} = {cand.expr}")
        self.consumed.update(cand.args)
        self.prog.ops.append(opname)
        return True

    def _expect_raise(self, cand, e):
        phrase = next((p for p in _PHRASES if p in str(e)), "")
        if not isinstance(e, RuntimeError) or not (cand.may_raise or phrase):
            return False  # a drawn combination PyTorch refuses: leave the op out
        # PyTorch refused the step before changing anything: nbgrad must refuse it too
        self.prog.lines += ["def _step():", f"    {cand.expr}", f"_raises(RuntimeError, _step, {phrase!r})"]
        self.prog.ops.append("raises")
        return True


def _values(seed, shape):
    """Well-spread values in [-3, 3] with two decimals (readable reproducers); ties and
    zeros that this may create are what the guards keep away from kinks."""
    rng = np.random.default_rng(seed)
    return np.round(rng.uniform(-3, 3, size=shape), 2)


@st.composite
def programs(draw, torch, max_steps=12):
    """A random program, drawn while PyTorch (the module ``torch``) runs it."""
    b = _Builder(torch)
    rank = draw(st.integers(0, 3))
    base = tuple(draw(st.integers(1, 3)) for _ in range(rank))
    seed = draw(st.integers(0, 2**16))
    n_leaves = draw(st.integers(1, 3))
    for k in range(n_leaves):
        kind = draw(st.sampled_from(["bcast", "matrix"])) if rank else "bcast"
        if kind == "matrix":
            shape = (base[-1], draw(st.integers(1, 3)))
        else:
            shape = base[draw(st.integers(0, rank)):]
            shape = tuple(1 if s > 1 and draw(st.integers(0, 3)) == 0 else s for s in shape)
        b.add_leaf(_values(seed + k, shape))
    names = [k for k in OPS if k not in EXCLUDE and not (k == "inplace_view" and "views" in EXCLUDE)]
    # in-place and matrix ops are few among many elementwise ones: draw them more often
    names += [k for k in names if k in _OFTEN] * 3
    done = tries = 0
    # a "go on" draw before each step past the third (rather than a length drawn up front)
    # lets shrinking drop trailing steps one at a time
    while done < max_steps and tries < 3 * max_steps:
        if done >= 3 and draw(st.integers(0, 3)) == 0:
            break
        tries += 1
        opname = draw(st.sampled_from(names))
        cand = OPS[opname](draw, b)
        if cand is not None and b.try_step(opname, cand):
            done += 1
    _finish(draw, b, seed)
    return b.prog


# what PyTorch's errors about values changed in place say, and nbgrad's must say too: a saved
# tensor changed before the backward, a view (of several views from one op, as split's) used
# after its base changed
_PHRASES = ("modified by an inplace operation", "has been modified inplace")


def _finish(draw, b, seed):
    """The loss (every unconsumed value, weighted), then the gradient step of the mode."""
    prog, rng = b.prog, np.random.default_rng(seed + 1000)
    sinks = [k for k in range(len(b.names)) if k not in b.consumed and not b.leaf[k]]
    if not sinks:
        sinks = [len(b.names) - 1]
    terms = []
    for k in sinks:
        t = b.val(k)
        w = np.round(rng.uniform(-1, 1, size=tuple(t.shape)), 2)
        terms.append(f"({b.name(k)} * {w.item()!r}).sum()" if t.ndim == 0 else
                     f"({b.name(k)} * {_lit(w)}).sum()")
    stmt = "loss = " + " + ".join(terms)
    leaves = "[" + ", ".join(prog.leaves) + "]"
    mode = draw(st.sampled_from(["grad", "backward", "double"]))
    prog.mode = mode
    try:
        exec(stmt, b.ns)
    except RuntimeError as e:  # a view used after its base changed, where PyTorch forbids it
        phrase = next((p for p in _PHRASES if p in str(e)), "")
        prog.lines += ["def _step():", f"    {stmt}", f"_raises(RuntimeError, _step, {phrase!r})"]
        prog.expected["raises"] = "RuntimeError"
        return
    prog.lines.append(stmt)
    loss = b.ns["loss"]
    prog.expected["loss"] = _np(loss).copy()
    if mode == "grad":
        stmt = [f"grads = torch.autograd.grad(loss, {leaves}, allow_unused=True)"]
    elif mode == "backward":
        twice = draw(st.booleans())
        stmt = (["loss.backward(retain_graph=True)"] if twice else []) + ["loss.backward()"]
        stmt.append(f"grads = [{', '.join(x + '.grad' for x in prog.leaves)}]")
    else:
        stmt = [f"grads = torch.autograd.grad(loss, {leaves}, create_graph=True, allow_unused=True)"]
    try:
        for s in stmt:
            exec(s, b.ns)
    except RuntimeError as e:
        prog.lines.append("def _step():")
        prog.lines.extend("    " + s for s in stmt)
        phrase = next((p for p in _PHRASES if p in str(e)), "")
        prog.lines.append(f"_raises(RuntimeError, _step, {phrase!r})")
        prog.expected["raises"] = "RuntimeError"
        prog.expected["message"] = str(e)
        return
    prog.lines.extend(stmt)
    grads = b.ns["grads"]
    prog.expected["grads"] = [None if g is None else _np(g).copy() for g in grads]
    if mode != "double":
        return
    # second order: gradient of sum(u_i * g_i) over the gradients that depend on the leaves
    terms = []
    for k, g in enumerate(grads):
        if g is not None and g.requires_grad:
            u = np.round(rng.uniform(-1, 1, size=tuple(g.shape)), 2)
            terms.append(f"(grads[{k}] * {u.item()!r}).sum()" if g.ndim == 0 else
                         f"(grads[{k}] * {_lit(u)}).sum()")
    if not terms:
        return
    stmt = ["gsum = " + " + ".join(terms),
            f"grads2 = torch.autograd.grad(gsum, {leaves}, allow_unused=True)"]
    for s in stmt:
        exec(s, b.ns)
    prog.lines.extend(stmt)
    prog.expected["grads2"] = [None if g is None else _np(g).copy() for g in b.ns["grads2"]]
