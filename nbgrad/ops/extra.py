"""More reductions (var, std, prod, logsumexp, norm), products (outer, einsum) and
copies (repeat, tile, flip).

The reductions run one Numba kernel each (kernels/cpu/reduce.py) over the ``(A, R, B)``
layout of ops/reduce.py; their backward rules are written with nbgrad ops, so gradients
are differentiable again. ``outer`` and ``einsum`` are compositions of existing
differentiable ops and need no backward rule of their own.
"""

import math

from .. import dtypes as _dt
from ..autograd.grad_mode import no_grad
from ..tensor import _wrap
from ._core import (
    Node,
    Tensor,
    backend,
    copy_data,
    kernel,
    needs_grad,
    record,
    save,
    save_output,
)
from .elementwise import (
    _unary,
    abs,
    div,
    eq,
    exp,
    logical_and,
    mul,
    pow,
    sign,
    sub,
    where,
)
from .linalg import matmul
from .reduce import _TYPE, _arb, _dims, _out_shape, _restore, mean, reduce_data
from .reduce import sum as _sum
from .shape import _shape_arg, _wrap_dim, expand, permute, reshape, unsqueeze

__all__ = [
    "var", "std", "var_mean", "std_mean", "prod", "logsumexp", "norm",
    "outer", "ger", "einsum", "tile", "flip",
]


def _check_tensor(x, op):
    if x.__class__ is not Tensor:
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}")


def _numel(shape, dims):
    n = 1
    for d in dims:
        n *= shape[d]
    return n


# ----- var / std -------------------------------------------------------------------------
def _correction(op, dim, unbiased, correction):
    """PyTorch's two spellings: ``unbiased`` (bool, also as a bool ``dim``) or ``correction``."""
    if isinstance(dim, bool):
        if unbiased is not None:
            raise TypeError(f"{op}() received an invalid combination of arguments")
        dim, unbiased = None, dim
    if unbiased is not None and correction is not None:
        raise TypeError(
            f"{op}() received an invalid combination of arguments - got both 'unbiased' and "
            "'correction'"
        )
    if correction is None:
        correction = 0 if unbiased is False else 1
    return dim, correction


def _var_data(input, dims, keepdim, correction):
    dev = input._device
    x3, A, B = _arb(input._data, dims, dev)
    out = backend(dev).empty((A, B), input._dtype.np)
    kernel("var", dev)(x3, out, correction)
    return out.reshape(_out_shape(input._data.shape, dims, keepdim))


def _var_grad(g, x, dims, n, correction):
    """``g * 2 (x - mean) / (n - correction)``; ``g`` already has the keepdim shape."""
    dof = n - correction
    scale = 2.0 / dof if dof != 0 else math.inf
    return mul(mul(g, sub(x, mean(x, dims, keepdim=True))), scale)


class VarBackward0(Node):
    __slots__ = ()

    def backward(self, saved, g):
        (x,) = saved
        shape, dims, keepdim, n, c = self.attrs
        return (_var_grad(_restore(g, shape, dims, keepdim), x, dims, n, c),)


class StdBackward0(Node):
    """Through ``var``'s rule with ``g / (2 std)``; 0 where std is 0, as PyTorch."""

    __slots__ = ()

    def backward(self, saved, g):
        x, y = saved
        shape, dims, keepdim, n, c = self.attrs
        g = _restore(g, shape, dims, keepdim)
        y = _restore(y, shape, dims, keepdim)
        zero = eq(y, 0)
        gv = where(zero, 0.0, div(g, mul(where(zero, 1.0, y), 2.0)))
        return (_var_grad(gv, x, dims, n, c),)


def _var_std(op, input, dim, unbiased, keepdim, correction):
    _check_tensor(input, op)
    dim, c = _correction(op, dim, unbiased, correction)
    if not input._dtype.is_floating_point:
        raise RuntimeError("std and var only support floating point and complex dtypes")
    dims = _dims(dim, input.ndim)
    n = _numel(input._data.shape, dims)
    data = _var_data(input, dims, keepdim, c)
    out = _wrap(data, input._dtype, input._device)
    return out, dims, n, c


def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Variance over ``dim`` (int or tuple; all dims when None) with ``n - correction``
    degrees of freedom (``correction=1`` by default; ``unbiased=False`` means 0).
    Accumulates in float64 in two passes."""
    out, dims, n, c = _var_std("var", input, dim, unbiased, keepdim, correction)
    if needs_grad(input):
        record(VarBackward0, out, (input,), (save(input),), (tuple(input.shape), dims, keepdim, n, c))
    return out


def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Standard deviation: ``sqrt(var(...))`` with the same arguments. Its gradient is 0
    where the result is 0 (PyTorch's choice)."""
    v, dims, n, c = _var_std("std", input, dim, unbiased, keepdim, correction)
    out = _unary("sqrt", v, True)
    if needs_grad(input):
        record(StdBackward0, out, (input,), (save(input), save_output(out)),
               (tuple(input.shape), dims, keepdim, n, c))
    return out


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """``(var(input, ...), mean(input, ...))`` over the same dims."""
    d = None if isinstance(dim, bool) else dim
    return (var(input, dim, unbiased, keepdim, correction=correction),
            mean(input, d, keepdim))


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """``(std(input, ...), mean(input, ...))`` over the same dims."""
    d = None if isinstance(dim, bool) else dim
    return (std(input, dim, unbiased, keepdim, correction=correction),
            mean(input, d, keepdim))


# ----- prod --------------------------------------------------------------------------------
_EXACT_LIMIT = 1 << 24  # elements of the (K, R, R) tensor the exact zero rule may build
_PRODUCT_LIMIT = 1 << 18  # the same, when no graph is built (a cheaper rule exists)


def _others_product(x, dims):
    """For each element, the product of the other elements of its reduced slice, built
    from ``(K, R, R)`` copies with ones on the diagonal: differentiable at zeros."""
    n = x.ndim
    kept = [i for i in range(n) if i not in dims]
    perm = kept + list(dims)
    shp = tuple(x.shape)
    kshape = tuple(shp[i] for i in kept)
    rshape = tuple(shp[i] for i in dims)
    K, R = _numel(shp, kept), _numel(shp, dims)
    xp = reshape(permute(x, perm), (K, 1, R))
    from ..creation import eye

    diag = eye(R, dtype=_dt.bool_, device=x.device)
    m = where(diag, 1.0, expand(xp, (K, R, R)))
    others = prod(m, 2)  # (K, R): row r is the product over j != r
    inv = [0] * n
    for i, p in enumerate(perm):
        inv[p] = i
    return permute(reshape(others, kshape + rshape), inv)


class ProdBackward0(Node):
    """``g * prod / x`` without zeros; with one zero in a slice only that position gets
    the product of the others; with two or more, the gradient is 0 (as PyTorch)."""

    __slots__ = ()

    def backward(self, saved, g):
        x, y = saved
        shape, dims, keepdim = self.attrs
        g = _restore(g, shape, dims, keepdim)
        y = _restore(y, shape, dims, keepdim)
        zero = eq(x, 0)
        with no_grad():
            any_zero = bool(_sum(zero).item()) if x.numel() else False
        if not any_zero:
            return (mul(g, div(y, x)),)
        K = x.numel() // max(_numel(shape, dims), 1)
        R = _numel(shape, dims)
        if K * R * R <= (_EXACT_LIMIT if needs_grad(x, g) else _PRODUCT_LIMIT):
            # building a graph (create_graph): a rule whose own derivative is right at zeros;
            # otherwise, as PyTorch once any element is 0, products of the others with no
            # division, so a slice holding infinities keeps finite gradients
            return (mul(g, _others_product(x, dims)),)
        count = _sum(zero, dims, keepdim=True)
        safe = where(zero, 1.0, x)
        rest = prod(safe, dims, keepdim=True)  # product of the non-zero elements
        one_zero = where(logical_and(zero, eq(count, 1)), rest, 0.0)
        return (mul(g, where(eq(count, 0), div(y, safe), one_zero)),)


def prod(input, dim=None, keepdim=False, *, dtype=None):
    """Product over ``dim`` (all dims when None; nbgrad also takes a tuple). Integer and
    bool inputs give int64. Floats multiply in float64 inside the kernel."""
    _check_tensor(input, "prod")
    if dtype is not None:
        odt = _dt.as_dtype(dtype)
        if odt is not input._dtype:
            input = input.to(odt)
    odt = input._dtype if input._dtype.is_floating_point else _dt.int64
    dims = _dims(dim, input.ndim)
    x = input._data if input._dtype is odt else copy_data(input._data, odt, input._device)
    out = _wrap(reduce_data("prod", x, dims, keepdim, odt, input._device), odt, input._device)
    if odt.is_floating_point and needs_grad(input):
        record(ProdBackward0, out, (input,), (save(input), save_output(out)),
               (tuple(input.shape), dims, keepdim))
    return out


# ----- logsumexp -------------------------------------------------------------------------
class LogsumexpBackward0(Node):
    __slots__ = ()

    def backward(self, saved, g):
        x, y = saved
        shape, dims, keepdim = self.attrs
        g = _restore(g, shape, dims, keepdim)
        y = _restore(y, shape, dims, keepdim)
        return (mul(g, exp(sub(x, y))),)


def logsumexp(input, dim, keepdim=False):
    """``log(sum(exp(input), dim))``, computed stably (the max is taken out first), so
    logits like +-1e4 stay finite. Integer inputs give the default float dtype."""
    _check_tensor(input, "logsumexp")
    if not input._dtype.is_floating_point:
        input = input.to(_dt.get_default_dtype())
    dims = _dims(dim, input.ndim)
    data = reduce_data("logsumexp", input._data, dims, keepdim, input._dtype, input._device)
    out = _wrap(data, input._dtype, input._device)
    if needs_grad(input):
        record(LogsumexpBackward0, out, (input,), (save(input), save_output(out)),
               (tuple(input.shape), dims, keepdim))
    return out


# ----- norm ---------------------------------------------------------------------------------
def _norm_kind(p):
    from ..kernels import rows as K

    if p == 0:
        return K.NORM_ZERO
    if p == 1:
        return K.NORM_ONE
    if p == 2:
        return K.NORM_TWO
    if p == math.inf:
        return K.NORM_INF
    if p == -math.inf:
        return K.NORM_NEGINF
    return K.NORM_P


class NormBackward1(Node):
    """PyTorch's subgradients: 0 where the norm is 0; inf-norms share the gradient among
    the elements of largest (smallest) magnitude."""

    __slots__ = ()

    def backward(self, saved, g):
        x, y = saved
        shape, dims, keepdim, p = self.attrs
        if p == 0:
            return (None,)
        g = _restore(g, shape, dims, keepdim)
        if p == 1:
            return (mul(g, sign(x)),)
        y = _restore(y, shape, dims, keepdim)
        if p in (math.inf, -math.inf):
            mask = eq(abs(x), y)
            count = _sum(mask, dims, keepdim=True)
            # where after the division: a NaN slice has no match (count 0), gradient 0
            return (mul(sign(x), where(mask, div(g, count), 0.0)),)
        zero = eq(y, 0)
        ysafe = where(zero, 1.0, y)
        if p == 2:
            return (mul(x, where(zero, 0.0, div(g, ysafe))),)
        if p < 1:
            xz = eq(x, 0)
            a = where(xz, 1.0, abs(x))
            scaled = mul(sign(x), where(xz, 0.0, pow(a, p - 1)))
        elif p < 2:
            scaled = mul(sign(x), pow(abs(x), p - 1))
        else:
            scaled = mul(x, pow(abs(x), p - 2))
        return (mul(scaled, where(zero, 0.0, div(g, pow(ysafe, p - 1)))),)


def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """Vector norm over ``dim`` (all dims when None): ``p`` = 2 or ``'fro'``, 1, ``inf``,
    ``-inf``, 0 (count of non-zeros) or any other float. Accumulates in float64.
    nbgrad differs: ``p='nuc'`` (a matrix norm) is not supported."""
    _check_tensor(input, "norm")
    if dtype is not None:
        input = input.to(_dt.as_dtype(dtype))
    if p is None or p == "fro":
        p = 2.0
    elif isinstance(p, str):
        if p == "nuc":
            raise NotImplementedError("norm(): p='nuc' is not supported by nbgrad")
        raise RuntimeError(f"norm(): unsupported norm type {p!r}")
    p = float(p)
    if not input._dtype.is_floating_point:
        raise RuntimeError(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. "
            f"Got {_TYPE[input._dtype.name]}"
        )
    dims = _dims(dim, input.ndim)
    if math.isinf(p) and input.numel() == 0:
        raise RuntimeError(
            "linalg.vector_norm cannot compute the inf norm on an empty tensor because the "
            "operation does not have an identity"
        )
    dev = input._device
    x3, A, B = _arb(input._data, dims, dev)
    data = backend(dev).empty((A, B), input._dtype.np)
    kernel("norm", dev)(x3, data, _norm_kind(p), p)
    out = _wrap(data.reshape(_out_shape(input._data.shape, dims, keepdim)), input._dtype, dev)
    if needs_grad(input):
        record(NormBackward1, out, (input,), (save(input), save_output(out)),
               (tuple(input.shape), dims, keepdim, p))
    return out


# ----- outer / einsum ---------------------------------------------------------------------
def outer(input, vec2):
    """Outer product of two 1-d tensors: ``out[i, j] = input[i] * vec2[j]``."""
    from .elementwise import mul as _mul

    _check_tensor(input, "outer")
    _check_tensor(vec2, "outer")
    for name, t in (("self", input), ("vec2", vec2)):
        if t.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t.ndim}-D")
    return _mul(unsqueeze(input, 1), unsqueeze(vec2, 0))


ger = outer

_ELL = "..."


def _parse_term(term, offset):
    """Labels of one subscript term: letters, and at most one ``_ELL``."""
    labels = []
    i = 0
    while i < len(term):
        ch = term[i]
        if ch == ".":
            if term[i : i + 3] != "..." or _ELL in labels:
                raise RuntimeError(
                    "einsum(): found '.' for operand that is not part of any ellipsis"
                    if term[i : i + 3] != "..." else
                    "einsum(): found more than one ellipsis ('...') in a subscript"
                )
            labels.append(_ELL)
            i += 3
            continue
        if not ch.isascii() or not ch.isalpha():
            raise RuntimeError(
                f"einsum(): invalid subscript given at index {offset + i} in the equation "
                "string, subscripts must be in [a-zA-Z]"
            )
        labels.append(ch)
        i += 1
    return labels


def _diagonal(x, labels):
    """Take the diagonal for every label repeated within one operand (``'ii->i'``)."""
    from ..creation import eye

    while len(set(labels)) != len(labels):
        seen = {}
        for q, lab in enumerate(labels):
            if lab in seen:
                break
            seen[lab] = q
        p = seen[lab]
        a = x.shape[p]  # equal to x.shape[q]: checked with the other sizes
        shp = [1] * x.ndim
        shp[p] = shp[q] = a
        mask = reshape(eye(a, dtype=_dt.bool_, device=x.device), tuple(shp))
        x = _sum(where(mask, x, 0), q)
        labels = labels[:q] + labels[q + 1 :]
    return x, labels


def _sum_labels(x, labels, drop):
    """Sum out the dims whose label is in ``drop``."""
    dims = tuple(i for i, lab in enumerate(labels) if lab in drop)
    if not dims:
        return x, labels
    return _sum(x, dims), [lab for lab in labels if lab not in drop]


def _contract(a, la, b, lb, keep, sizes):
    """Contract ``a`` (labels ``la``) with ``b`` (labels ``lb``), keeping labels in ``keep``."""
    a, la = _sum_labels(a, la, {x for x in la if x not in lb and x not in keep})
    b, lb = _sum_labels(b, lb, {x for x in lb if x not in la and x not in keep})
    batch = [x for x in la if x in lb and x in keep]
    contr = [x for x in la if x in lb and x not in keep]
    aonly = [x for x in la if x not in lb]
    bonly = [x for x in lb if x not in la]

    def arrange(t, labs, order):
        t = permute(t, [labs.index(x) for x in order]) if labs != order else t
        full = tuple(sizes[x] for x in order)
        return expand(t, full) if tuple(t.shape) != full else t

    def n(ls):
        return _numel([sizes[x] for x in ls], range(len(ls)))

    out_labels = batch + aonly + bonly
    if not contr:
        # no contraction: a broadcast product
        ta = arrange(a, la, batch + aonly)
        tb = arrange(b, lb, batch + bonly)
        ta = reshape(ta, tuple(ta.shape) + (1,) * len(bonly))
        tb = reshape(tb, tuple(sizes[x] for x in batch) + (1,) * len(aonly) + tuple(tb.shape[len(batch):]))
        return mul(ta, tb), out_labels
    ta = reshape(arrange(a, la, batch + aonly + contr), (n(batch), n(aonly), n(contr)))
    tb = reshape(arrange(b, lb, batch + contr + bonly), (n(batch), n(contr), n(bonly)))
    r = matmul(ta, tb)
    return reshape(r, tuple(sizes[x] for x in out_labels)), out_labels


def einsum(equation, *operands):
    """Einstein summation, e.g. ``einsum('bij,bjk->bik', a, b)``.

    Supported: any number of operands (also as one list), explicit (``->``) or implicit
    output (labels seen once, sorted), ``a-zA-Z`` subscripts, repeated subscripts within
    one operand (diagonals, ``'ii->i'``; taken by masking, so a nan/inf off the diagonal
    is harmless), an ellipsis ``...`` (broadcast dims; left out of an explicit output,
    they are summed), and size-1 dims broadcasting against other operands. Operands are
    contracted pairwise, left to right, through ``matmul``/``mul``/``sum``/``permute``,
    so gradients (and double backward) come from those ops. Operands must share a dtype.
    """
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not isinstance(equation, str):
        raise TypeError(f"einsum(): argument 'equation' must be str, not {type(equation).__name__}")
    if not operands:
        raise RuntimeError("einsum(): must provide at least one operand")
    for t in operands:
        if t.__class__ is not Tensor:
            raise TypeError(f"einsum(): expected Tensor operands, got {type(t).__name__}")
    if len(operands) > 1:
        dt0 = operands[0]._dtype
        for t in operands[1:]:
            if t._dtype is not dt0:
                raise RuntimeError(
                    f"expected scalar type {_TYPE[dt0.name]} but found {_TYPE[t._dtype.name]}"
                )
    eq_ = equation.replace(" ", "")
    if eq_.count("->") > 1:
        raise RuntimeError("einsum(): more than one '->' found in the equation")
    lhs, arrow, rhs = eq_.partition("->")
    terms = lhs.split(",")
    if len(terms) > len(operands):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    if len(terms) < len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    offset = 0
    parsed = []
    for t in terms:
        parsed.append(_parse_term(t, offset))
        offset += len(t) + 1
    # ellipsis dims get labels (_ELL, k), right-aligned across operands
    n_ell = 0
    for i, (labs, t) in enumerate(zip(parsed, operands)):
        nl = len([x for x in labs if x != _ELL])
        if _ELL in labs:
            if nl > t.ndim:
                raise RuntimeError(
                    f"einsum(): the number of subscripts in the equation ({nl}) is more than "
                    f"the number of dimensions ({t.ndim}) for operand {i}"
                )
            n_ell = max(n_ell, t.ndim - nl)
        elif nl != t.ndim:
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({nl}) does not match the "
                f"number of dimensions ({t.ndim}) for operand {i} and no ellipsis was given"
            )
    ell = [(_ELL, k) for k in range(n_ell)]
    labels = []
    for labs, t in zip(parsed, operands):
        if _ELL in labs:
            ne = t.ndim - (len(labs) - 1)
            j = labs.index(_ELL)
            labs = labs[:j] + ell[n_ell - ne :] + labs[j + 1 :]
        labels.append(labs)
    sizes = {}
    for i, (labs, t) in enumerate(zip(labels, operands)):
        mine = {}
        for lab, s in zip(labs, t.shape):
            if mine.setdefault(lab, s) != s:
                raise RuntimeError(
                    f"einsum(): subscript {lab} is repeated for operand {i} but the sizes don't "
                    f"match, {s} != {mine[lab]}"
                )
            prev = sizes.get(lab)
            if prev is None or prev == 1:
                sizes[lab] = s
            elif s != 1 and s != prev:
                name = "..." if isinstance(lab, tuple) else lab
                raise RuntimeError(
                    f"einsum(): subscript {name} has size {s} for operand {i} which does not "
                    f"broadcast with previously seen size {prev}"
                )
    if arrow:
        out = _parse_term(rhs, len(lhs) + 2)
        if _ELL in out:
            j = out.index(_ELL)
            out = out[:j] + ell + out[j + 1 :]
        for k, lab in enumerate(out):
            if lab in out[:k]:
                raise RuntimeError(f"einsum(): output subscript {lab} appears more than once in the output")
            if lab not in sizes:
                raise RuntimeError(
                    f"einsum(): output subscript {lab} does not appear in the equation for any input operand"
                )
    else:
        counts = {}
        for labs in labels:
            for lab in labs:
                if not isinstance(lab, tuple):
                    counts[lab] = counts.get(lab, 0) + 1
        out = ell + sorted(lab for lab, c in counts.items() if c == 1)
    # each operand: diagonals, then labels used nowhere else are summed at once
    ops = []
    for i, (labs, t) in enumerate(zip(labels, operands)):
        t, labs = _diagonal(t, labs)
        elsewhere = set(out)
        for j, other in enumerate(labels):
            if j != i:
                elsewhere.update(other)
        t, labs = _sum_labels(t, labs, {x for x in labs if x not in elsewhere})
        ops.append((t, labs))
    cur, cl = ops[0]
    for k in range(1, len(ops)):
        keep = set(out)
        for _, labs in ops[k + 1 :]:
            keep.update(labs)
        cur, cl = _contract(cur, cl, ops[k][0], ops[k][1], keep, sizes)
    cur, cl = _sum_labels(cur, cl, {x for x in cl if x not in out})
    if cl != out:
        cur = permute(cur, [cl.index(x) for x in out])
    full = tuple(sizes[x] for x in out)
    if tuple(cur.shape) != full:
        cur = expand(cur, full)
    if any(cur is t for t in operands):
        cur = reshape(cur, full)  # a new view, not the operand itself (as PyTorch)
    return cur


# ----- repeat / tile / flip ---------------------------------------------------------------
class RepeatBackward0(Node):
    __slots__ = ()

    def backward(self, saved, g):
        inter, rdims, shape = self.attrs
        return (reshape(_sum(reshape(g, inter), rdims), shape),)


def repeat(input, *sizes):
    """``Tensor.repeat``: tile ``input`` ``sizes[i]`` times along dim ``i`` (leading new
    dims when ``sizes`` is longer than ``input.ndim``). Always a new tensor."""
    sizes = _shape_arg(sizes)
    n = input.ndim
    if len(sizes) < n:
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor"
        )
    pad = len(sizes) - n
    xs = (1,) * pad + tuple(input.shape)
    out_shape = tuple(r * s for r, s in zip(sizes, xs))
    for s in sizes:
        if s < 0:
            raise RuntimeError(
                f"Trying to create tensor with negative dimension {s}: {list(out_shape)}"
            )
    inter1, inter2 = [], []
    for r, s in zip(sizes, xs):
        inter1 += [1, s]
        inter2 += [r, s]
    with no_grad():
        e = expand(reshape(input, tuple(inter1)), tuple(inter2))
    data = copy_data(e._data, input._dtype, input._device).reshape(out_shape)
    out = _wrap(data, input._dtype, input._device)
    if needs_grad(input):
        record(RepeatBackward0, out, (input,), (),
               (tuple(inter2), tuple(range(0, 2 * len(sizes), 2)), tuple(input.shape)))
    return out


def tile(input, dims):
    """``repeat`` with ``dims`` padded by leading ones to ``input.ndim``."""
    dims = tuple(dims) if isinstance(dims, (tuple, list)) else (dims,)
    if len(dims) < input.ndim:
        dims = (1,) * (input.ndim - len(dims)) + dims
    return repeat(input, dims)


def _tile_method(self, *dims):
    return tile(self, _shape_arg(dims))


class FlipBackward0(Node):
    __slots__ = ()

    def backward(self, saved, g):
        return (flip(g, self.attrs),)


def flip(input, dims):
    """A copy of ``input`` with the order of elements reversed along ``dims``."""
    _check_tensor(input, "flip")
    ds = dims if isinstance(dims, (tuple, list)) else (dims,)
    n = input.ndim
    seen = []
    for d in ds:
        d = _wrap_dim(int(d), n)
        if d in seen:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        seen.append(d)
    key = tuple(slice(None, None, -1) if i in seen else slice(None) for i in range(n))
    be = backend(input._device)
    src = be.getitem(input._data, key) if seen else input._data
    out = _wrap(copy_data(src, input._dtype, input._device), input._dtype, input._device)
    if needs_grad(input):
        record(FlipBackward0, out, (input,), (), tuple(seen))
    return out


def _flip_method(self, *dims):
    return flip(self, _shape_arg(dims))


def _norm_method(self, p="fro", dim=None, keepdim=False, dtype=None):
    return norm(self, p, dim, keepdim, dtype=dtype)


METHODS = {
    "var": var, "std": std, "prod": prod, "logsumexp": logsumexp, "norm": _norm_method,
    "outer": outer, "ger": outer, "repeat": repeat, "tile": _tile_method, "flip": _flip_method,
}
