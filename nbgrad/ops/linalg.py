"""Matrix products: matmul (1-d, 2-d, batched with broadcasting), mm, bmm, dot, linear
(``input @ weight.T + bias``); outer products; vector norms."""

import math

from numpy import ndarray as _ndarray

from .. import dtypes as _dt
from ..autograd.grad_mode import STATE as _STATE
from ..storage._cpupool import empty as _pool_empty
from ..storage.layout import copy_data, layout3
from ..tensor import _fresh, _wrap
from ._core import (
    SCALAR_TYPE,
    Node,
    Tensor,
    backend,
    broadcast_shapes,
    check_tensor,
    kernel,
    needs_grad,
    record,
    record_multi,
    same_device,
    save,
    save_output,
    to_dtype_data,
    wrap,
)
from .elementwise import abs, add_grads, div, eq, mul, pow, sign, sum_to, where
from .reduce import _arb, _dims, _out_shape, _restore, reduce_data
from .reduce import sum as _sum
from .shape import expand, reshape, transpose, unsqueeze


def _mm_shapes_error(a, b):
    sa, sb = tuple(a.shape), tuple(b.shape)
    if len(sa) == 1 and len(sb) == 1:
        return RuntimeError(
            f"inconsistent tensor size, expected tensor [{sa[0]}] and src [{sb[0]}] to have the "
            f"same number of elements, but got {sa[0]} and {sb[0]} elements respectively"
        )
    ra = sa if len(sa) > 1 else (1,) + sa
    rb = sb if len(sb) > 1 else sb + (1,)
    return RuntimeError(
        f"mat1 and mat2 shapes cannot be multiplied ({ra[-2]}x{ra[-1]} and {rb[-2]}x{rb[-1]})"
        if len(sa) <= 2 and len(sb) <= 2 else
        f"Expected size for first two dimensions of batch2 tensor to be: "
        f"[{ra[:-2][-1] if len(ra) > 2 else 1}, {ra[-1]}] but got: [{rb[:-2][-1] if len(rb) > 2 else 1}, {rb[-2]}]."
    )


def matmul_data(a, b, dt, dev):
    """``a @ b`` on storage arrays (1-d operands are promoted and squeezed as NumPy does)."""
    a1, b1 = a.ndim == 1, b.ndim == 1
    a2 = a.reshape(1, -1) if a1 else a
    b2 = b.reshape(-1, 1) if b1 else b
    batch = broadcast_shapes(tuple(a2.shape[:-2]), tuple(b2.shape[:-2]))
    shape = batch + (a2.shape[-2], b2.shape[-1])
    be = backend(dev)
    if a2.shape[-1] == 0:
        out = be.zeros(shape, dt.np)  # an empty sum
    else:
        out = be.empty(shape, dt.np)
        if out.size:
            if b2.ndim == 2 and a2.ndim > 2 and a2.__class__ is _ndarray and a2.flags.c_contiguous:
                # (..., m, k) @ (k, n) is one (batch*m, k) @ (k, n) product: NumPy would
                # call BLAS once per matrix of the batch (twice the time for linear's
                # (8, 64, 128) inputs)
                kernel("matmul", dev)(a2.reshape(-1, a2.shape[-1]), b2,
                                      out.reshape(-1, shape[-1]))
            else:
                kernel("matmul", dev)(a2, b2, out)
    if a1 and b1:
        return out.reshape(())
    if a1:
        return out.reshape(shape[:-2] + (shape[-1],))
    if b1:
        return out.reshape(shape[:-1])
    return out


_LINEAR = object()  # first attr of linear's nodes (its operands are input and weight)


def _linear_grads(node, saved, g):
    x, w = saved  # each saved only when the other side needs its gradient
    _, xshape, _ = node.attrs
    fx, fw, *fb = node.next_functions
    mask = (fx[0] is not None, fw[0] is not None, bool(fb) and fb[0][0] is not None)
    gx, gw, gb = linear_backward(g, x, w, mask, xshape)
    return (gx, gw, gb) if fb else (gx, gw)


def _reshape_data(d, shape, dt, dev):
    """Storage ``d`` with ``shape``: a view when the layout allows, else a copy."""
    if tuple(d.shape) == tuple(shape):
        return d
    v = backend(dev).reshape_view(d, shape) if d.size else None
    return v if v is not None else copy_data(d, dt, dev).reshape(shape)


def _rows_data(d, n, dt, dev):
    """Storage ``d`` as ``(-1, n)`` rows (a view when the layout allows)."""
    return d if d.ndim == 2 else _reshape_data(d, (d.size // n if n else 0, n), dt, dev)


def linear_backward(grad, input, weight, mask, xshape):
    """``linear``'s gradients ``(grad_input, grad_weight, grad_bias)``, None where ``mask``
    is False, for ``input`` of shape ``xshape``: over the rows of ``grad`` flattened to
    ``(-1, out)``, ``grad @ weight``, ``grad.T @ input`` (one product over all the leading
    dims) and ``grad``'s column sums. One op: recorded as one node, whose backward is in
    nbgrad ops, so derivatives of any order stay exact. ``input`` is needed only for the
    weight's gradient, ``weight`` only for the input's."""
    dt, dev = grad._dtype, grad._device  # linear's operands all have the output's dtype
    n_out = grad._data.shape[-1]
    g2 = _rows_data(grad._data, n_out, dt, dev)
    if 0 in g2.strides and g2.size and sum(mask) > 1:
        # an expanded gradient (a loss's sum or mean): BLAS cannot read zero strides, and
        # each use would copy it; make it whole once
        g2 = copy_data(g2, dt, dev)
    gx = gw = gb = None
    if mask[0]:
        gx = _fresh(matmul_data(g2, to_dtype_data(weight, dt, dev), dt, dev).reshape(xshape),
                    dt, dev)
    if mask[1]:
        x2 = _rows_data(to_dtype_data(input, dt, dev), xshape[-1], dt, dev)
        gw = _fresh(matmul_data(backend(dev).permute(g2, (1, 0)), x2, dt, dev), dt, dev)
    if mask[2]:
        gb = _fresh(reduce_data("sum", g2, (0,), False, dt, dev), dt, dev)
    if needs_grad(grad, input, weight):
        record_multi(LinearBackwardBackward0, [o for o in (gx, gw, gb) if o is not None],
                     (grad, input, weight), (save(grad), save(input), save(weight)),
                     (mask, tuple(xshape)))
    return gx, gw, gb


class LinearBackwardBackward0(Node):
    """Derivatives of ``linear_backward``'s ``(grad_input, grad_weight, grad_bias)`` with
    respect to ``(grad, input, weight)``: each output is linear in ``grad`` and in one of
    ``input`` / ``weight``, so every term is a product (or a broadcast) of the incoming
    gradients with the saved tensors."""

    __slots__ = ()
    materialize_grads = False

    def backward(self, saved, *ggs):
        g, x, w = saved
        mask, xshape = self.attrs
        it = iter(ggs)
        ggx, ggw, ggb = (next(it) if m else None for m in mask)
        fg, fx, fw = (f[0] is not None for f in self.next_functions)
        g2 = reshape(g, (-1, g.shape[-1]))
        dg = dx = dw = None
        if ggx is not None:  # grad_input = g2 @ w
            ggx2 = reshape(ggx, (-1, xshape[-1]))
            if fg:
                dg = matmul(ggx2, transpose(w, 0, 1))
            if fw:
                dw = matmul(transpose(g2, 0, 1), ggx2)
        if ggw is not None:  # grad_weight = g2.T @ x2
            if fg:
                dg = add_grads(dg, matmul(reshape(x, (-1, xshape[-1])), transpose(ggw, 0, 1)))
            if fx:
                dx = reshape(matmul(g2, ggw), xshape)
        if ggb is not None and fg:  # grad_bias = g2's column sums
            dg = add_grads(dg, expand(ggb, tuple(g2.shape)))
        if dg is not None:
            dg = reshape(dg, tuple(g.shape))
        return dg, dx, dw


class AddmmBackward0(Node):
    """Backward of ``linear`` with a bias."""

    __slots__ = ()

    def backward(self, saved, g):
        return _linear_grads(self, saved, g)


class MmBackward0(Node):
    """Backward of a matrix product ``a @ b``; also ``linear``'s without a bias (PyTorch's
    name there too), whose attrs start with ``_LINEAR``."""

    __slots__ = ()

    def backward(self, saved, g):
        if self.attrs[0] is _LINEAR:
            return _linear_grads(self, saved, g)
        b, a = saved  # each saved only when the other side needs its gradient
        fa, fb = self.next_functions
        sa, sb = self.attrs
        a1, b1 = len(sa) == 1, len(sb) == 1
        if (a1 or b1) and len(sa) <= 2 and len(sb) <= 2:
            return _vector_grads(a, b, g, fa[0] is not None, fb[0] is not None, a1, b1)
        return matmul_backward(g, a, b, (fa[0] is not None, fb[0] is not None), sa, sb)


def _sum_to_data(r, shape, dt, dev):
    """Storage ``r`` summed over the dims that broadcasting added to ``shape``."""
    if tuple(r.shape) == tuple(shape):
        return r
    lead = r.ndim - len(shape)
    dims = list(range(lead)) + [i + lead for i, n in enumerate(shape)
                                if n == 1 and r.shape[i + lead] != 1]
    return reduce_data("sum", r, tuple(dims), True, dt, dev).reshape(shape)


def _promoted(sa, sb):
    """Forward's matrix shapes for operands of shapes ``sa``, ``sb`` (a 1-d ``a`` is a row,
    a 1-d ``b`` a column) and its product's shape, before squeezing."""
    pa = (1,) + tuple(sa) if len(sa) == 1 else tuple(sa)
    pb = tuple(sb) + (1,) if len(sb) == 1 else tuple(sb)
    pg = broadcast_shapes(pa[:-2], pb[:-2]) + (pa[-2], pb[-1])
    return pa, pb, pg


def matmul_backward(grad, a, b, mask, sa, sb):
    """``(grad_a, grad_b)`` of ``a @ b`` (operands of shapes ``sa``, ``sb``; None where
    ``mask`` is False): ``grad @ b.T`` and ``a.T @ grad`` on storage, each summed over the
    batch dims broadcasting added, 1-d operands promoted as forward did. One op: recorded
    as one node (``MmBackwardBackward0``), whose backward is in nbgrad ops. ``b`` is needed
    only for ``a``'s gradient, ``a`` only for ``b``'s."""
    dt, dev = grad._dtype, grad._device
    be = backend(dev)
    pa, pb, pg = _promoted(sa, sb)
    g2 = _reshape_data(grad._data, pg, dt, dev)
    if mask[0] and mask[1] and 0 in g2.strides and g2.size:
        # an expanded gradient (from sum or mean): BLAS cannot read zero strides, so each
        # product would copy it; make it whole once
        g2 = copy_data(g2, dt, dev)
    last2 = lambda d: be.permute(d, tuple(range(d.ndim - 2)) + (d.ndim - 1, d.ndim - 2))  # noqa: E731
    ga = gb = None
    if mask[0]:
        bd = _reshape_data(to_dtype_data(b, dt, dev), pb, dt, dev)
        r = _sum_to_data(matmul_data(g2, last2(bd), dt, dev), pa, dt, dev)
        ga = _fresh(r.reshape(sa), dt, dev)
    if mask[1]:
        ad = _reshape_data(to_dtype_data(a, dt, dev), pa, dt, dev)
        if len(pb) == 2 and len(pa) > 2:
            # a matrix times a batch: its gradient sums over the batch, which one
            # (k, batch*m) @ (batch*m, n) product does without a batch of products
            a2 = _rows_data(ad, pa[-1], dt, dev)
            r = matmul_data(be.permute(a2, (1, 0)), _rows_data(g2, pb[-1], dt, dev), dt, dev)
        else:
            r = _sum_to_data(matmul_data(last2(ad), g2, dt, dev), pb, dt, dev)
        gb = _fresh(r.reshape(sb), dt, dev)
    if needs_grad(grad, a, b):
        record_multi(MmBackwardBackward0, [o for o in (ga, gb) if o is not None],
                     (grad, a, b), (save(grad), save(a), save(b)), (mask, sa, sb))
    return ga, gb


class MmBackwardBackward0(Node):
    """Derivatives of ``matmul_backward``'s ``(grad_a, grad_b)`` with respect to ``(grad,
    a, b)``: both are bilinear, so every term is a product of an incoming gradient with a
    saved tensor (``grad_a = grad @ b.T`` gives ``gga @ b`` to ``grad`` and ``gga.T @
    grad`` to ``b``; ``grad_b = a.T @ grad`` gives ``a @ ggb`` and ``grad @ ggb.T``)."""

    __slots__ = ()
    materialize_grads = False

    def backward(self, saved, *ggs):
        g, a, b = saved
        mask, sa, sb = self.attrs
        it = iter(ggs)
        gga, ggb = (next(it) if m else None for m in mask)
        fg, fa, fb = (f[0] is not None for f in self.next_functions)
        pa, pb, pg = _promoted(sa, sb)
        G = reshape(g, pg)
        dg = da = db = None
        if gga is not None:
            GGA = reshape(gga, pa)
            if fg:
                dg = matmul(GGA, reshape(b, pb))
            if fb:
                db = reshape(sum_to(matmul(transpose(GGA, -1, -2), G), pb), sb)
        if ggb is not None:
            GGB = reshape(ggb, pb)
            if fg:
                dg = add_grads(dg, matmul(reshape(a, pa), GGB))
            if fa:
                da = reshape(sum_to(matmul(G, transpose(GGB, -1, -2)), pa), sa)
        if dg is not None:
            dg = reshape(dg, tuple(g.shape))
        return dg, da, db


def _vector_grads(a, b, g, want_a, want_b, a1, b1):
    """Gradients of ``a @ b`` when an operand is a vector: straight matrix-vector
    products and outer products, no reshaping of ``g``."""
    ga = gb = None
    if a1 and b1:  # dot: g is 0-d
        ga = mul(g, b) if want_a else None
        gb = mul(g, a) if want_b else None
    elif b1:  # (m, k) @ (k,) -> (m,)
        ga = matmul(unsqueeze(g, -1), unsqueeze(b, 0)) if want_a else None
        gb = matmul(g, a) if want_b else None  # a.T @ g: the same BLAS gemv, no view
    else:  # (k,) @ (k, n) -> (n,)
        ga = matmul(b, g) if want_a else None
        gb = matmul(unsqueeze(a, -1), unsqueeze(g, 0)) if want_b else None
    return ga, gb


class DotBackward0(MmBackward0):
    __slots__ = ()


class MvBackward0(MmBackward0):
    __slots__ = ()


class BmmBackward0(MmBackward0):
    __slots__ = ()


def matmul(input, other):
    """Matrix product with NumPy's rules for 1-d operands and batch broadcasting."""
    if input.__class__ is not Tensor or other.__class__ is not Tensor:
        raise TypeError("matmul(): both arguments must be Tensors")
    out = _cpu_matmul(input, other)
    if out is not None:
        return out
    dev = same_device("matmul", input, other)
    if input.ndim == 0 or other.ndim == 0:
        raise RuntimeError(
            "both arguments to matmul need to be at least 1D, but they are "
            f"{input.ndim}D and {other.ndim}D"
        )
    ka = input._data.shape[-1]
    kb = other._data.shape[-2] if other.ndim > 1 else other._data.shape[0]
    if ka != kb:
        raise _mm_shapes_error(input, other)
    if input._dtype is not other._dtype:
        raise RuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: {input._dtype.name} != "
            f"{other._dtype.name}"
        )
    dt = input._dtype
    out = wrap(matmul_data(to_dtype_data(input, dt, dev), to_dtype_data(other, dt, dev), dt, dev), dev)
    if needs_grad(input, other):
        na, nb = input.ndim, other.ndim
        cls = (DotBackward0 if na == nb == 1 else MvBackward0 if nb == 1 and na == 2
               else MmBackward0 if na <= 2 and nb <= 2 else BmmBackward0)
        record(cls, out, (input, other),
               (save(other) if input._rg else None, save(input) if other._rg else None),
               (tuple(input.shape), tuple(other.shape)))
    return out


def _cpu_matmul(a, b):
    """``a @ b`` for CPU matrix-matrix, matrix-vector and vector-matrix products of one
    float dtype, straight to the BLAS kernel (None for anything else: the general path
    checks and reports)."""
    ad, bd = a._data, b._data
    dt = a._dtype
    if not (ad.__class__ is _ndarray and bd.__class__ is _ndarray and dt is b._dtype
            and dt._cat == 2 and 1 <= ad.ndim <= 2 and 1 <= bd.ndim <= 2
            and ad.ndim + bd.ndim > 2 and ad.shape[-1] == bd.shape[0] and ad.size
            and bd.size):
        return None
    if ad.ndim == 1:  # (k,) @ (k, n): what a matrix-vector product's backward asks
        shape = (bd.shape[1],)
    else:
        shape = (ad.shape[0], bd.shape[1]) if bd.ndim == 2 else (ad.shape[0],)
    o = _pool_empty(shape, dt.np, shape[0] * (shape[1] if len(shape) == 2 else 1) * dt.itemsize)
    kernel("matmul", a._device)(ad, bd, o)
    out = _fresh(o, dt, a._device)
    ra, rb = a._rg, b._rg
    if (ra or rb) and _STATE.enabled:
        record(MvBackward0 if bd.ndim == 1 else MmBackward0, out, (a, b),
               (save(b) if ra else None, save(a) if rb else None), (ad.shape, bd.shape))
    return out


def mm(input, mat2):
    """Product of two 2-d matrices."""
    if input.ndim != 2 or mat2.ndim != 2:
        raise RuntimeError("self must be a matrix" if input.ndim != 2 else "mat2 must be a matrix")
    return matmul(input, mat2)


def bmm(input, mat2):
    """Batched product of two 3-d tensors with equal batch sizes."""
    if input.ndim != 3 or mat2.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor" if input.ndim != 3 else "batch2 must be a 3D tensor")
    if input.shape[0] != mat2.shape[0]:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: "
            f"[{input.shape[0]}, {input.shape[2]}] but got: [{mat2.shape[0]}, {mat2.shape[1]}]."
        )
    return matmul(input, mat2)


def dot(input, other):
    """Inner product of two 1-d tensors."""
    if input.ndim != 1 or other.ndim != 1:
        raise RuntimeError(
            f"1D tensors expected, but got {input.ndim}D and {other.ndim}D tensors"
        )
    return matmul(input, other)


def linear(input, weight, bias=None):
    """``input @ weight.T + bias`` for input (..., in), weight (out, in), bias (out,)."""
    if not isinstance(input, Tensor) or not isinstance(weight, Tensor):
        raise TypeError("linear(): input and weight must be Tensors")
    xs, ws = input._data.shape, weight._data.shape
    if len(ws) != 2:
        raise RuntimeError(f"linear(): weight must be 2-D, got {len(ws)}-D")
    if not xs or xs[-1] != ws[1]:
        lead = xs[:-1]
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied "
            f"({math.prod(lead) if len(xs) > 1 else 1}x"
            f"{xs[-1] if xs else 0} and {ws[1]}x{ws[0]})"
        )
    if input._dtype is not weight._dtype or (bias is not None and bias._dtype is not input._dtype):
        raise RuntimeError(
            "mat1 and mat2 must have the same dtype, but got "
            f"{input._dtype.name} and {weight._dtype.name}"
        )
    dev = same_device("linear", input, weight, bias)
    be = backend(dev)
    data = matmul_data(input._data, be.permute(weight._data, (1, 0)), input._dtype, dev)
    if bias is not None:
        if bias._data.shape != (ws[0],):
            raise RuntimeError(
                f"linear(): bias of shape {list(bias.shape)} does not match "
                f"{ws[0]} output features"
            )
        bd = bias._data
        if data.size and bd.__class__ is _ndarray and bd.flags.c_contiguous:
            # the rows of a fresh product, in place (as (1, rows, n) and (1, 1, n))
            n = ws[0]
            kernel("add", dev).into(data.reshape(1, -1, n), bd.reshape(1, 1, n))
        elif data.size:
            views = layout3(be, data.shape, [data, bias._data, data])
            if views is None:
                d2 = data.reshape(-1, data.shape[-1])
                views = layout3(be, d2.shape, [d2, bias._data, d2])
            kernel("add", dev)(*views)
    out = _wrap(data, input._dtype, dev)
    if needs_grad(input, weight, bias):
        cls = AddmmBackward0 if bias is not None else MmBackward0
        ins = (input, weight, bias) if bias is not None else (input, weight)
        record(cls, out, ins,
               (save(input) if weight._rg else None, save(weight) if input._rg else None),
               (_LINEAR, xs, ws[0]))
    return out


# ----- outer ----------------------------------------------------------------------------
def outer(input, vec2):
    """Outer product of two 1-d tensors: ``out[i, j] = input[i] * vec2[j]``."""
    check_tensor(input, "outer")
    check_tensor(vec2, "outer")
    for name, t in (("self", input), ("vec2", vec2)):
        if t.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t.ndim}-D")
    return mul(unsqueeze(input, 1), unsqueeze(vec2, 0))


ger = outer


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
    check_tensor(input, "norm")
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
            f"Got {SCALAR_TYPE[input._dtype.name]}"
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



def _norm_method(self, p="fro", dim=None, keepdim=False, dtype=None):
    return norm(self, p, dim, keepdim, dtype=dtype)
