"""Matrix products: matmul (1-d, 2-d, batched with broadcasting), mm, bmm, dot, linear
(``input @ weight.T + bias``) and outer products (vector norms: ``ops/norm.py``)."""

import math

from numpy import ndarray as _ndarray

from ..amp.policy import autocast_op
from ..storage._cpupool import empty as _pool_empty
from ..storage.layout import cast_data, copy_data, layout3
from ._core import (
    Tensor,
    backend,
    broadcast_shapes,
    check_tensor,
    kernel,
    same_device,
)
from .elementwise import add_grads, mul, sum_to
from .funcdef import deffunc, same_dtype, surface
from .reduce import reduce_data
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


# ----- matrix products: rows --------------------------------------------------------------
def _matmul_forward(a, b, odt, dev):
    """``a @ b`` on storage: CPU matrix-matrix, matrix-vector and vector-matrix products of
    one float dtype straight to the BLAS kernel, into the buffer pool; anything else
    through ``matmul_data``."""
    # (a dtype object other than NumPy's own, e.g. byte-swapped, takes the general path)
    if a.__class__ is _ndarray and b.__class__ is _ndarray and a.dtype is b.dtype \
            and odt._cat == 2 and a.size and b.size:
        na, nb = a.ndim, b.ndim
        if na == 2:
            if nb == 2:
                m, n = a.shape[0], b.shape[1]
                o = _pool_empty((m, n), odt.np, m * n * odt.itemsize)
            elif nb == 1:
                m = a.shape[0]
                o = _pool_empty((m,), odt.np, m * odt.itemsize)
            else:
                return matmul_data(a, b, odt, dev)
        elif na == 1 and nb == 2:  # (k,) @ (k, n): what a matrix-vector product's backward asks
            n = b.shape[1]
            o = _pool_empty((n,), odt.np, n * odt.itemsize)
        else:
            return matmul_data(a, b, odt, dev)
        kernel("matmul", dev)(a, b, o)
        return o
    return matmul_data(a, b, odt, dev)


def _matmul_shape(sa, sb):
    _, _, pg = _promoted(sa, sb)
    if len(sa) == 1:
        pg = pg[:-2] + pg[-1:]
    if len(sb) == 1:
        pg = pg[:-1]
    return tuple(pg)


def matmul_grads(grad, a, b, mask):
    """``(grad_a, grad_b)`` of ``a @ b`` for the operands ``mask`` asks for: straight
    products for a vector operand, else ``matmul_backward`` (one op on storage)."""
    na, nb = a._data.ndim, b._data.ndim
    if (na == 1 or nb == 1) and na <= 2 and nb <= 2:
        return _vector_grads(a, b, grad, mask[0], mask[1], na == 1, nb == 1)
    return matmul_backward(grad, a, b, mask, a._data.shape, b._data.shape)


def _product_row(name, node, params):
    # one row per PyTorch op that a product becomes (mm, mv, dot, bmm), named and saved as
    # there; the matmul front picks one by the operands' dims
    return deffunc(name, params=params, kernels=("matmul",), forward=_matmul_forward,
                   dtype=same_dtype, shape=_matmul_shape, node=node, fn=False, method=False,
                   grads={", ".join(params): f"matmul_grads(grad, {params[0]}, {params[1]}, "
                          "grad_input_mask)"})


MM = _product_row("mm", "MmBackward0", ("input", "mat2"))
MV = _product_row("mv", "MvBackward0", ("input", "vec"))
DOT = _product_row("dot", "DotBackward0", ("input", "tensor"))
BMM = _product_row("bmm", "BmmBackward0", ("input", "mat2"))


def _linear_forward(x, w, b, odt, dev):
    data = matmul_data(x, backend(dev).permute(w, (1, 0)), odt, dev)
    if b is not None and data.size:
        n = w.shape[0]
        if b.__class__ is _ndarray and b.flags.c_contiguous:
            # the rows of a fresh product, in place (as (1, rows, n) and (1, 1, n))
            kernel("add", dev).into(data.reshape(1, -1, n), b.reshape(1, 1, n))
        else:
            be = backend(dev)
            views = layout3(be, data.shape, [data, b, data])
            if views is None:
                d2 = data.reshape(-1, n)
                views = layout3(be, d2.shape, [d2, b, d2])
            kernel("add", dev)(*views)
    return data


def _linear_shape(sx, sw, sb):
    return tuple(sx[:-1]) + (sw[0],)


_LINEAR_GRADS = ("linear_backward(grad, input, weight, grad_input_mask + (False,), "
                 "input_shape)[:2]")
# linear(input, weight, bias): one node for the product and the bias (PyTorch's addmm's,
# for any number of leading dims), or the product's alone without a bias
LINEAR = deffunc("linear", params=("input", "weight", "bias"), optional=("bias",),
                 kernels=("matmul", "add"), forward=_linear_forward,
                 dtype=lambda x, w, b: x, shape=_linear_shape, node="AddmmBackward0",
                 grads={"input, weight, bias": "linear_backward(grad, input, weight, "
                        "grad_input_mask, input_shape)"},
                 torch_names={}, fn=False, method=False)
LINEAR_NO_BIAS = deffunc("linear", overload="no_bias", params=("input", "weight"),
                         kernels=("matmul",), forward=lambda x, w, odt, dev:
                         _linear_forward(x, w, None, odt, dev),
                         dtype=lambda x, w: x, shape=lambda sx, sw: _linear_shape(sx, sw, None),
                         node="MmBackward0", grads={"input, weight": _LINEAR_GRADS},
                         torch_names={}, fn=False, method=False)


def _reshape_data(d, shape, dt, dev):
    """Storage ``d`` with ``shape``: a view when the layout allows, else a copy."""
    if tuple(d.shape) == tuple(shape):
        return d
    v = backend(dev).reshape_view(d, shape) if d.size else None
    return v if v is not None else copy_data(d, dt, dev).reshape(shape)


def _rows_data(d, n, dt, dev):
    """Storage ``d`` as ``(-1, n)`` rows (a view when the layout allows)."""
    return d if d.ndim == 2 else _reshape_data(d, (d.size // n if n else 0, n), dt, dev)


# ----- the backward steps: rows whose own derivatives are products again -------------------
def _linear_backward_forward(g, x, w, odts, dev, mask, xshape):
    dt = odts[0]  # linear's operands all have the output's dtype
    n_out = g.shape[-1]
    g2 = _rows_data(cast_data(g, dt, dev), n_out, dt, dev)
    if 0 in g2.strides and g2.size and sum(mask) > 1:
        # an expanded gradient (a loss's sum or mean): BLAS cannot read zero strides, and
        # each use would copy it; make it whole once
        g2 = copy_data(g2, dt, dev)
    gx = gw = gb = None
    if mask[0]:
        gx = matmul_data(g2, cast_data(w, dt, dev), dt, dev).reshape(xshape)
    if mask[1]:
        x2 = _rows_data(cast_data(x, dt, dev), xshape[-1], dt, dev)
        gw = matmul_data(backend(dev).permute(g2, (1, 0)), x2, dt, dev)
    if mask[2]:
        gb = reduce_data("sum", g2, (0,), False, dt, dev)
    return gx, gw, gb


def _linear_backward_shape(sg, sx, sw, mask, xshape):
    return tuple(s if m else None for s, m in zip((tuple(xshape), tuple(sw), tuple(sw[:1])), mask))


def _dtype3(g, x, w, *args):
    return g, g, g


LINEAR_BACKWARD = deffunc(
    "linear_backward", params=("grad", "input", "weight"), kernels=("matmul", "sum"),
    forward=_linear_backward_forward, dtype=_dtype3, shape=_linear_backward_shape,
    args=("mask", "xshape"), outputs=("result0", "result1", "result2"), differentiable=3,
    grads={"grad, input, weight": "linear_double_backward(grads[0], grads[1], grads[2], grad, "
           "input, weight, xshape, grad_input_mask)"},
    node="LinearBackwardBackward0", torch_names={}, fn=False, method=False)


@surface(LINEAR_BACKWARD)
def linear_backward(grad, input, weight, mask, xshape):
    """``linear``'s gradients ``(grad_input, grad_weight, grad_bias)``, None where ``mask``
    is False, for ``input`` of shape ``xshape``: over the rows of ``grad`` flattened to
    ``(-1, out)``, ``grad @ weight``, ``grad.T @ input`` (one product over all the leading
    dims) and ``grad``'s column sums. One op (a row with three outputs), whose derivatives
    are products again (``linear_double_backward``), so any order stays exact."""
    return LINEAR_BACKWARD.call(grad, input, weight, tuple(mask), tuple(xshape))


def linear_double_backward(ggx, ggw, ggb, g, x, w, xshape, mask):
    """Derivatives of ``linear_backward``'s ``(grad_input, grad_weight, grad_bias)`` with
    respect to ``(grad, input, weight)`` (those ``mask`` asks for): each output is linear
    in ``grad`` and in one of ``input`` / ``weight``, so every term is a product (or a
    broadcast) of the incoming gradients with the saved tensors."""
    fg, fx, fw = mask
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


def _matmul_backward_forward(g, a, b, odts, dev, mask, sa, sb):
    dt = odts[0]
    be = backend(dev)
    pa, pb, pg = _promoted(sa, sb)
    g2 = _reshape_data(cast_data(g, dt, dev), pg, dt, dev)
    if mask[0] and mask[1] and 0 in g2.strides and g2.size:
        # an expanded gradient (from sum or mean): BLAS cannot read zero strides, so each
        # product would copy it; make it whole once
        g2 = copy_data(g2, dt, dev)
    last2 = lambda d: be.permute(d, tuple(range(d.ndim - 2)) + (d.ndim - 1, d.ndim - 2))  # noqa: E731
    ga = gb = None
    if mask[0]:
        bd = _reshape_data(cast_data(b, dt, dev), pb, dt, dev)
        ga = _sum_to_data(matmul_data(g2, last2(bd), dt, dev), pa, dt, dev).reshape(sa)
    if mask[1]:
        ad = _reshape_data(cast_data(a, dt, dev), pa, dt, dev)
        if len(pb) == 2 and len(pa) > 2:
            # a matrix times a batch: its gradient sums over the batch, which one
            # (k, batch*m) @ (batch*m, n) product does without a batch of products
            a2 = _rows_data(ad, pa[-1], dt, dev)
            r = matmul_data(be.permute(a2, (1, 0)), _rows_data(g2, pb[-1], dt, dev), dt, dev)
        else:
            r = _sum_to_data(matmul_data(last2(ad), g2, dt, dev), pb, dt, dev)
        gb = r.reshape(sb)
    return ga, gb


def _matmul_backward_shape(sg, sa_, sb_, mask, sa, sb):
    return tuple(tuple(s) if m else None for s, m in zip((sa, sb), mask))


MATMUL_BACKWARD = deffunc(
    "matmul_backward", params=("grad", "a", "b"), kernels=("matmul", "sum"),
    forward=_matmul_backward_forward, dtype=_dtype3, shape=_matmul_backward_shape,
    args=("mask", "sa", "sb"), outputs=("result0", "result1"), differentiable=2,
    grads={"grad, a, b": "mm_double_backward(grads[0], grads[1], grad, a, b, sa, sb, "
           "grad_input_mask)"},
    node="MmBackwardBackward0", torch_names={}, fn=False, method=False)


@surface(MATMUL_BACKWARD)
def matmul_backward(grad, a, b, mask, sa, sb):
    """``(grad_a, grad_b)`` of ``a @ b`` (operands of shapes ``sa``, ``sb``; None where
    ``mask`` is False): ``grad @ b.T`` and ``a.T @ grad`` on storage, each summed over the
    batch dims broadcasting added, 1-d operands promoted as forward did. One op (a row
    with two outputs), whose derivatives are products again (``mm_double_backward``)."""
    return MATMUL_BACKWARD.call(grad, a, b, tuple(mask), tuple(sa), tuple(sb))


def mm_double_backward(gga, ggb, g, a, b, sa, sb, mask):
    """Derivatives of ``matmul_backward``'s ``(grad_a, grad_b)`` with respect to ``(grad,
    a, b)`` (those ``mask`` asks for): both are bilinear, so every term is a product of an
    incoming gradient with a saved tensor (``grad_a = grad @ b.T`` gives ``gga @ b`` to
    ``grad`` and ``gga.T @ grad`` to ``b``; ``grad_b = a.T @ grad`` gives ``a @ ggb`` and
    ``grad @ ggb.T``)."""
    fg, fa, fb = mask
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
        ga = _product(unsqueeze(g, -1), unsqueeze(b, 0)) if want_a else None
        gb = _product(g, a) if want_b else None  # a.T @ g: the same BLAS gemv, no view
    else:  # (k,) @ (k, n) -> (n,)
        ga = _product(b, g) if want_a else None
        gb = _product(unsqueeze(a, -1), unsqueeze(g, 0)) if want_b else None
    return ga, gb


# ----- the public functions -----------------------------------------------------------------
@autocast_op("matmul")
def matmul(input, other):
    """Matrix product of two tensors, with NumPy's rules for 1-d operands and batch broadcasting.

    What it computes depends on the operands' dimensions:

    - both 1-d: their dot product, a 0-dim tensor;
    - both 2-d: the matrix-matrix product;
    - ``input`` 1-d, ``other`` 2-d: ``input`` is taken as a row (a 1 prepended to its shape),
      multiplied, and that dimension removed again;
    - ``input`` 2-d, ``other`` 1-d: the matrix-vector product;
    - either at least 3-d: a batched product. The last two dims are the matrices (a 1-d
      operand becomes a row or a column as above, removed afterwards) and the leading, batch
      dims broadcast against each other.

    Both operands must have the same dtype (there is no type promotion).

    Args:
        input (Tensor): the first operand, at least 1-d.
        other (Tensor): the second operand, at least 1-d.

    Returns:
        Tensor: the product.

    Shape:
        - Input: :math:`(*, n, m)` (or :math:`(m)`), other :math:`(*, m, p)` (or :math:`(m)`),
          the :math:`*` broadcasting.
        - Output: :math:`(*, n, p)`, without the dims of the 1-d operands.

    Example::

        >>> import nbgrad
        >>> nbgrad.matmul(nbgrad.tensor([[1.0, 2.0]]), nbgrad.tensor([[3.0], [4.0]]))
        tensor([[11.]])
        >>> a = nbgrad.ones(5, 2, 3)
        >>> b = nbgrad.ones(3, 4)
        >>> nbgrad.matmul(a, b).shape
        nbgrad.Size([5, 2, 4])
        >>> nbgrad.matmul(nbgrad.tensor([1.0, 2.0]), nbgrad.tensor([3.0, 4.0]))
        tensor(11.)
    """
    if input.__class__ is not Tensor or other.__class__ is not Tensor:
        raise TypeError("matmul(): both arguments must be Tensors")
    na, nb = input._meta.ndim, other._meta.ndim
    if na == 0 or nb == 0:
        raise RuntimeError(
            "both arguments to matmul need to be at least 1D, but they are "
            f"{input.ndim}D and {other.ndim}D"
        )
    ka = input._meta.shape[-1]
    kb = other._meta.shape[-2] if nb > 1 else other._meta.shape[0]
    if ka != kb:
        raise _mm_shapes_error(input, other)
    if input._dtype is not other._dtype:
        raise RuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: {input._dtype.name} != "
            f"{other._dtype.name}"
        )
    if input._device is not other._device and input._device != other._device:
        same_device("matmul", input, other)
    return _product(input, other)


_matmul = matmul.__wrapped__  # (mm, bmm, dot and mv: each its own autocast policy)


def _product(a, b):
    """``a @ b`` through the row PyTorch's matmul would pick, unchecked: for operands that
    ``matmul`` checked, or that a backward formula made."""
    na, nb = a._meta.ndim, b._meta.ndim
    return (DOT if na == nb == 1 else MV if nb == 1 and na == 2
            else MM if na <= 2 and nb <= 2 else BMM).call(a, b)


@surface(MM)
@autocast_op("mm")
def mm(input, mat2):
    """Matrix product of two 2-d tensors, without broadcasting (see :func:`nbgrad.matmul`).

    Args:
        input (Tensor): the first matrix, of shape :math:`(n, m)`.
        mat2 (Tensor): the second matrix, of shape :math:`(m, p)`, of ``input``'s dtype.

    Returns:
        Tensor: ``input @ mat2``, of shape :math:`(n, p)`.

    Example::

        >>> import nbgrad
        >>> a = nbgrad.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> nbgrad.mm(a, nbgrad.tensor([[1.0, 0.0], [1.0, 1.0]]))
        tensor([[3., 2.],
                [7., 4.]])
    """
    if input.ndim != 2 or mat2.ndim != 2:
        raise RuntimeError("self must be a matrix" if input.ndim != 2 else "mat2 must be a matrix")
    return _matmul(input, mat2)


@surface(BMM)
@autocast_op("bmm")
def bmm(input, mat2):
    """Batched matrix product: ``out[b] = input[b] @ mat2[b]`` for each batch index ``b``.

    Both operands are 3-d, with the same batch size; nothing broadcasts (see
    :func:`nbgrad.matmul` for that).

    Args:
        input (Tensor): the first batch of matrices, of shape :math:`(b, n, m)`.
        mat2 (Tensor): the second batch, of shape :math:`(b, m, p)`, of ``input``'s dtype.

    Returns:
        Tensor: the batch of products, of shape :math:`(b, n, p)`.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> out = nbgrad.bmm(nbgrad.randn(10, 3, 4), nbgrad.randn(10, 4, 5))
        >>> out.shape
        nbgrad.Size([10, 3, 5])
        >>> nbgrad.bmm(nbgrad.ones(1, 1, 2), nbgrad.tensor([[[2.0], [3.0]]]))
        tensor([[[5.]]])
    """
    if input.ndim != 3 or mat2.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor" if input.ndim != 3 else "batch2 must be a 3D tensor")
    if input.shape[0] != mat2.shape[0]:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: "
            f"[{input.shape[0]}, {input.shape[2]}] but got: [{mat2.shape[0]}, {mat2.shape[1]}]."
        )
    return _matmul(input, mat2)


@surface(DOT)
@autocast_op("dot")
def dot(input, other):
    """Dot product (the sum of the elementwise products) of two 1-d tensors.

    Unlike NumPy's ``dot``, it takes only 1-d tensors of the same size and dtype.

    Args:
        input (Tensor): the first vector.
        other (Tensor): the second vector.

    Returns:
        Tensor: a 0-dim tensor.

    Example::

        >>> import nbgrad
        >>> nbgrad.dot(nbgrad.tensor([2.0, 3.0]), nbgrad.tensor([2.0, 1.0]))
        tensor(7.)
    """
    if input.ndim != 1 or other.ndim != 1:
        raise RuntimeError(
            f"1D tensors expected, but got {input.ndim}D and {other.ndim}D tensors"
        )
    return _matmul(input, other)


@surface(MV)
@autocast_op("mv")
def mv(input, vec):
    """Matrix-vector product: ``out[i] = sum_j input[i, j] * vec[j]``.

    Args:
        input (Tensor): the matrix, of shape :math:`(n, m)`.
        vec (Tensor): the vector, of shape :math:`(m)`, of ``input``'s dtype.

    Returns:
        Tensor: a vector of shape :math:`(n)`.

    Example::

        >>> import nbgrad
        >>> mat = nbgrad.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        >>> nbgrad.mv(mat, nbgrad.tensor([1.0, -1.0]))
        tensor([-1., -1., -1.])
    """
    if input.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {vec.ndim}, {input.ndim}, "
                           f"{vec.ndim}")
    return _matmul(input, vec)


@surface(LINEAR, LINEAR_NO_BIAS)
@autocast_op("linear")
def linear(input, weight, bias=None):
    """The affine map ``input @ weight.T + bias`` over the last dimension: the functional
    form of :class:`nbgrad.nn.Linear` (one matrix product over all the leading dims).

    Args:
        input (Tensor): of shape ``(*, in_features)``.
        weight (Tensor): of shape ``(out_features, in_features)``.
        bias (Tensor, optional): of shape ``(out_features,)``. Default: ``None``.

    Shape:
        - Output: ``(*, out_features)``.

    Example::

        >>> import nbgrad
        >>> nbgrad.nn.functional.linear(nbgrad.ones(1, 2), nbgrad.ones(3, 2), nbgrad.zeros(3))
        tensor([[2., 2., 2.]])
    """
    if not isinstance(input, Tensor) or not isinstance(weight, Tensor):
        raise TypeError("linear(): input and weight must be Tensors")
    xs, ws = input._meta.shape, weight._meta.shape
    if len(ws) != 2:
        raise RuntimeError(f"linear(): weight must be 2-D, got {len(ws)}-D")
    if not xs or xs[-1] != ws[1]:
        lead = xs[:-1]
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied "
            f"({math.prod(lead) if len(xs) > 1 else 1}x"
            f"{xs[-1] if xs else 0} and {ws[1]}x{ws[0]})"
        )
    if input._dtype is not weight._dtype:  # (PyTorch's words: addmm's, or matmul's)
        if bias is None:
            raise RuntimeError("expected m1 and m2 to have the same dtype, but got: "
                               f"{input._dtype.cpp} != {weight._dtype.cpp}")
        raise RuntimeError("mat1 and mat2 must have the same dtype, but got "
                           f"{input._dtype.scalar_type} and {weight._dtype.scalar_type}")
    if bias is not None and bias._dtype is not input._dtype:
        raise RuntimeError("self and mat2 must have the same dtype, but got "
                           f"{bias._dtype.scalar_type} and {weight._dtype.scalar_type}")
    if bias is None:
        if input._device is not weight._device and input._device != weight._device:
            same_device("linear", input, weight)
        return LINEAR_NO_BIAS.call(input, weight)
    same_device("linear", input, weight, bias)
    if bias._data.shape != (ws[0],):
        raise RuntimeError(
            f"linear(): bias of shape {list(bias.shape)} does not match {ws[0]} output features"
        )
    return LINEAR.call(input, weight, bias)


# ----- outer ----------------------------------------------------------------------------
def outer(input, vec2):
    """Outer product of two 1-d tensors: ``out[i, j] = input[i] * vec2[j]``.

    :func:`nbgrad.ger` is another name of this function (PyTorch's older one).

    Args:
        input (Tensor): the first vector, of size :math:`n`.
        vec2 (Tensor): the second vector, of size :math:`m`.

    Returns:
        Tensor: a matrix of shape :math:`(n, m)` (the operands' promoted dtype).

    Example::

        >>> import nbgrad
        >>> nbgrad.outer(nbgrad.tensor([1.0, 2.0, 3.0]), nbgrad.tensor([1.0, 10.0]))
        tensor([[ 1., 10.],
                [ 2., 20.],
                [ 3., 30.]])
        >>> nbgrad.ger(nbgrad.tensor([1, 2]), nbgrad.tensor([3, 4]))
        tensor([[3, 4],
                [6, 8]])
    """
    check_tensor(input, "outer")
    check_tensor(vec2, "outer")
    for name, t in (("self", input), ("vec2", vec2)):
        if t.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t.ndim}-D")
    return mul(unsqueeze(input, 1), unsqueeze(vec2, 0))


ger = outer


def bilinear(input1, input2, weight, bias=None):
    r"""Bilinear transformation: ``y[..., o] = input1[..., i] weight[o, i, j] input2[..., j]
    + bias[o]`` (summed over ``i`` and ``j``).

    The same function as :func:`nbgrad.nn.functional.bilinear`, the computation of
    :class:`nbgrad.nn.Bilinear`.

    Args:
        input1 (Tensor): the first input, of shape :math:`(*, \text{in1})`.
        input2 (Tensor): the second input, of shape :math:`(*, \text{in2})` (the same leading
            dims as ``input1``).
        weight (Tensor): the weights, of shape :math:`(\text{out}, \text{in1}, \text{in2})`.
        bias (Tensor, optional): added to the result, of shape :math:`(\text{out})`.
            Default: ``None``.

    Shape:
        - Input1: :math:`(*, \text{in1})`; input2: :math:`(*, \text{in2})`.
        - Output: :math:`(*, \text{out})`.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> x1, x2 = nbgrad.randn(8, 3), nbgrad.randn(8, 5)
        >>> nbgrad.bilinear(x1, x2, nbgrad.randn(4, 3, 5), nbgrad.zeros(4)).shape
        nbgrad.Size([8, 4])
        >>> nbgrad.bilinear(nbgrad.tensor([[1.0, 2.0]]), nbgrad.tensor([[3.0]]),
        ...                 nbgrad.ones(1, 2, 1))
        tensor([[9.]])
    """
    from .einsum import einsum

    if input1.shape[:-1] != input2.shape[:-1]:
        raise RuntimeError(f"bilinear(): input batch dimensions do not match: got "
                           f"{list(input1.shape[:-1])} and {list(input2.shape[:-1])}")
    if weight.ndim != 3 or (weight.shape[1], weight.shape[2]) != (input1.shape[-1],
                                                                 input2.shape[-1]):
        raise RuntimeError(f"bilinear(): weight of shape {list(weight.shape)} does not match "
                           f"the inputs' last dims {input1.shape[-1]} and {input2.shape[-1]}")
    out = einsum("...i,oij,...j->...o", input1, weight, input2)
    return out if bias is None else out + bias
