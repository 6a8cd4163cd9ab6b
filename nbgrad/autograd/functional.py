"""Higher-level derivatives built on ``grad``: vjp, jvp, jacobian, hessian, hvp, vhp.

Arguments and results follow ``torch.autograd.functional``: a function of one tensor or of
a tuple of tensors, returning one tensor or a tuple.
"""

import sys as _sys

from .api import grad as _grad
from .grad_mode import enable_grad

_tensor = _sys.modules["nbgrad.tensor"]  # the module; nbgrad.tensor is the function


def _tup(x):
    return (tuple(x), True) if isinstance(x, (tuple, list)) else ((x,), False)


def _untup(x, was_tuple):
    return tuple(x) if was_tuple else x[0]


def _prep(inputs, create_graph):
    # fresh leaves so the caller's tensors gain no graph (unless create_graph)
    return tuple(t if create_graph and t.requires_grad else t.detach().requires_grad_(True)
                 for t in inputs)


def _check_out(outs, strict, what):
    for o in outs:
        if not isinstance(o, _tensor.Tensor):
            raise TypeError(f"The outputs of the user-provided function given to {what} must be Tensors")


def _grads(outs, ins, vs, create_graph, strict, what):
    outs_rg = [(o, v) for o, v in zip(outs, vs) if o.requires_grad]
    if not outs_rg:
        gs = (None,) * len(ins)
    else:
        gs = _grad([o for o, _ in outs_rg], ins, [v for _, v in outs_rg],
                   create_graph=create_graph, retain_graph=True, allow_unused=True)
    res = []
    for i, (g, x) in enumerate(zip(gs, ins)):
        if g is None:
            if strict:
                raise RuntimeError(
                    f"The output of the user-provided function is independent of input {i}. "
                    f"This is not allowed in strict mode ({what})."
                )
            from ..creation import zeros_like

            g = zeros_like(x)
        res.append(g if create_graph else g.detach())
    return tuple(res)


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), v^T J)``."""
    from ..creation import ones_like

    ins, in_t = _tup(inputs)
    with enable_grad():
        ins = _prep(ins, create_graph)
        outs, out_t = _tup(func(*ins))
        _check_out(outs, strict, "vjp")
        if v is None:
            if len(outs) != 1 or outs[0].numel() != 1:
                raise RuntimeError(
                    "The vector v can only be None if the user-provided function returns a "
                    "single Tensor with a single element."
                )
            vs = (ones_like(outs[0]),)
        else:
            vs, _ = _tup(v)
        g = _grads(outs, ins, vs, create_graph, strict, "vjp")
    outs = tuple(o if create_graph else o.detach() for o in outs)
    return _untup(outs, out_t), _untup(g, in_t)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), J v)`` by the double-vjp trick."""
    from ..creation import ones_like, zeros_like

    ins, in_t = _tup(inputs)
    with enable_grad():
        ins = _prep(ins, create_graph)
        outs, out_t = _tup(func(*ins))
        _check_out(outs, strict, "jvp")
        if v is None:
            if len(ins) != 1 or ins[0].numel() != 1:
                raise RuntimeError(
                    "The vector v can only be None if the input to the user-provided function "
                    "is a single Tensor with a single element."
                )
            vs = (ones_like(ins[0]),)
        else:
            vs, _ = _tup(v)
        us = tuple(zeros_like(o).requires_grad_(True) for o in outs)
        g = _grads(outs, ins, us, True, strict, "jvp")
        res = _grads(g, us, vs, create_graph, strict, "jvp")
    outs = tuple(o if create_graph else o.detach() for o in outs)
    return _untup(outs, out_t), _untup(res, out_t)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """The Jacobian of ``func`` at ``inputs`` (row by row, by reverse mode)."""
    from ..creation import zeros_like
    from ..ops import shape as _s
    from ..ops.elementwise import mul
    from ..ops.shape import reshape

    if strategy != "reverse-mode":
        raise NotImplementedError("jacobian: only strategy='reverse-mode' is supported by nbgrad")
    ins, in_t = _tup(inputs)
    with enable_grad():
        ins = _prep(ins, create_graph)
        outs, out_t = _tup(func(*ins))
        _check_out(outs, strict, "jacobian")
        table = []
        for o in outs:
            rows = [[] for _ in ins]
            for k in range(o.numel()):
                e = zeros_like(o)
                e._data.reshape(-1)[k] = 1
                gs = _grads((o,), ins, (e,), create_graph, strict, "jacobian")
                for j, g in enumerate(gs):
                    rows[j].append(reshape(g, (1,) + tuple(g.shape)))
            per_in = []
            for j, x in enumerate(ins):
                if rows[j]:
                    from ..ops.concat import cat

                    J = cat(rows[j], 0)
                else:
                    J = reshape(mul(zeros_like(x), 0), (0,) + tuple(x.shape))
                per_in.append(_s.reshape(J, tuple(o.shape) + tuple(x.shape)))
            table.append(tuple(per_in))
    if not out_t and not in_t:
        return table[0][0]
    if not out_t:
        return table[0]
    if not in_t:
        return tuple(r[0] for r in table)
    return tuple(table)


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    """The Hessian of scalar ``func`` at ``inputs``."""
    _, in_t = _tup(inputs)

    def jac_fn(*xs):
        out = func(*xs)
        if not isinstance(out, _tensor.Tensor) or out.numel() != 1:
            raise RuntimeError(
                "The Tensor returned by the function given to hessian should contain a single element"
            )
        gs = _first(out, xs)
        return gs if in_t else gs[0]

    return jacobian(jac_fn, inputs, create_graph=create_graph, strict=strict)


def _ones_like(x):
    from ..creation import ones_like

    return ones_like(x)


def _first(out, xs):
    from ..creation import ones_like, zeros_like

    gs = _grad(out, xs, ones_like(out), create_graph=True, allow_unused=True)
    return tuple(zeros_like(x) if g is None else g for g, x in zip(gs, xs))


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), v^T H)`` by double backward."""
    ins, in_t = _tup(inputs)
    with enable_grad():
        ins = _prep(ins, create_graph)
        out = func(*ins)
        if not isinstance(out, _tensor.Tensor) or out.numel() != 1:
            raise RuntimeError(
                "The Tensor returned by the function given to hvp should contain a single element"
            )
        gs = _first(out, ins)
        if v is None and (len(ins) != 1 or ins[0].numel() != 1):
            raise RuntimeError(
                "The vector v can only be None if the input to the user-provided function "
                "is a single Tensor with a single element."
            )
        vs = (_ones_like(ins[0]),) if v is None else _tup(v)[0]
        res = _grads(gs, ins, vs, create_graph, strict, "vhp")
    return (out if create_graph else out.detach()), _untup(res, in_t)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), H v)``; equal to ``vhp`` for twice-differentiable ``func``."""
    return vhp(func, inputs, v, create_graph, strict)
