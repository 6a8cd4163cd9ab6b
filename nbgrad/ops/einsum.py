"""``einsum``: Einstein summation, parsed here and contracted pairwise through
``matmul``/``mul``/``sum``/``permute``, so gradients (and double backward) come from those
ops and it needs no backward rule of its own."""

from .. import dtypes as _dt
from ..amp.policy import autocast_op
from ._core import SCALAR_TYPE, Tensor
from .elementwise import mul, where
from .linalg import matmul
from .reduce import _numel
from .reduce import sum as _sum
from .shape import expand, permute, reshape

__all__ = ["einsum"]

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


@autocast_op("einsum")
def einsum(equation, *operands):
    """Sum products of elements of the operands over the indices an equation in Einstein notation
    names.

    The equation gives each operand's dims a letter (``a-z``, ``A-Z``), the operands'
    subscripts separated by commas, as in ``"ij,jk->ik"`` (a matrix product). The letters
    after ``->`` are the output's dims, in that order; the letters left out of the output are
    summed over. Without ``->``, the output has the letters that occur once, in alphabetical
    order. A letter repeated within one operand takes its diagonal (``"ii->i"``). An
    ellipsis ``...`` stands for dims that broadcast between operands (kept, in front, in an
    implicit output; summed when an explicit output leaves it out). Dims of size 1 broadcast
    against the same letter's size in other operands. The operands must share a dtype; they
    are contracted pairwise, left to right, through ``matmul``, so the result is
    differentiable (twice too).

    Args:
        equation (str): the subscripts, as described above.
        *operands (Tensor): the tensors, one per subscript group (or one list of them).

    Returns:
        Tensor: the result, with the output's dims.

    Example::

        >>> import nbgrad
        >>> a = nbgrad.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> b = nbgrad.tensor([[1.0, 0.0], [1.0, 1.0]])
        >>> nbgrad.einsum("ij,jk->ik", a, b)
        tensor([[3., 2.],
                [7., 4.]])
        >>> nbgrad.einsum("ii", a)
        tensor(5.)
        >>> nbgrad.einsum("ij->j", a)
        tensor([4., 6.])
        >>> nbgrad.einsum("i,j->ij", nbgrad.tensor([1.0, 2.0]), nbgrad.tensor([3.0, 4.0, 5.0]))
        tensor([[ 3.,  4.,  5.],
                [ 6.,  8., 10.]])
        >>> x, y = nbgrad.ones(5, 2, 3), nbgrad.ones(5, 3, 4)
        >>> nbgrad.einsum("bij,bjk->bik", [x, y]).shape
        nbgrad.Size([5, 2, 4])
        >>> nbgrad.einsum("...ij->...ji", x).shape
        nbgrad.Size([5, 3, 2])
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
                    f"expected scalar type {SCALAR_TYPE[dt0.name]} but found {SCALAR_TYPE[t._dtype.name]}"
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

