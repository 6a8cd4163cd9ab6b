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


def _vs(v, against, fname):
    """``v`` as a tuple, one tensor per tensor of ``against``, of its shape (PyTorch's
    checks and messages)."""
    if not isinstance(v, (tuple, _tensor.Tensor)):
        raise TypeError(f"The v given to {fname} must be either a Tensor or a tuple of Tensors "
                        f"but the given v has type {type(v)}.")
    vs = v if isinstance(v, tuple) else (v,)
    if len(vs) != len(against):
        raise RuntimeError(f"v is a tuple of invalid length: should be {len(against)} but got "
                           f"{len(vs)}.")
    for vi, a in zip(vs, against):
        if tuple(vi.shape) != tuple(a.shape):
            raise RuntimeError(f"v has invalid size: should be {a.shape} but got {vi.shape}.")
    return vs


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
    _require_grad(outs, "outputs", strict)


_NO_GRAD = {  # PyTorch's strict-mode messages for a tensor that does not require grad
    "outputs": "Output {i} of the user-provided function does not require gradients. The "
               "outputs must be computed in a differentiable manner from the input when "
               "running in strict mode.",
    "grad_inputs": "The gradient with respect to input {i} is independent of the inputs of "
                   "the user-provided function. This is not allowed in strict mode.",
    "jacobian": "While computing the hessian, found that the jacobian of the user-provided "
                "function with respect to input {i} is independent of the input. This is not "
                "allowed in strict mode. You should ensure that your function is twice "
                "differentiable and that the jacobian depends on the inputs (this would be "
                "violated by a linear function for example).",
}
_UNUSED = {  # ... and for a gradient that is None, by the backward pass that gave it
    "back": "The output of the user-provided function is independent of input {i}. This is "
            "not allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the "
                  "grad_outputs when using the double backward trick to compute forward mode "
                  "gradients. This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. "
                   "This is not allowed in strict mode.",
}


def _require_grad(ts, kind, strict):
    """PyTorch's strict-mode check that each of ``ts`` is there and requires grad."""
    if not strict:
        return
    for i, t in enumerate(ts):
        if t is None:
            raise RuntimeError(_UNUSED["back"].format(i=i))
        if not t.requires_grad:
            raise RuntimeError(_NO_GRAD[kind].format(i=i))


def _raw_grads(outs, ins, vs, create_graph):
    """Gradients of ``outs`` (weighted by ``vs``) for ``ins``; None for an unused input."""
    outs_rg = [(o, v) for o, v in zip(outs, vs) if o.requires_grad]
    if not outs_rg:
        return (None,) * len(ins)
    return _grad([o for o, _ in outs_rg], ins, [v for _, v in outs_rg],
                 create_graph=create_graph, retain_graph=True, allow_unused=True)


def _grads(outs, ins, vs, create_graph, strict, stage):
    """``_raw_grads`` with zeros for unused inputs (strict mode: PyTorch's error instead)."""
    from ..creation import zeros_like

    res = []
    for i, (g, x) in enumerate(zip(_raw_grads(outs, ins, vs, create_graph), ins)):
        if g is None:
            if strict:
                raise RuntimeError(_UNUSED[stage].format(i=i))
            g = zeros_like(x)
        elif strict and create_graph and not g.requires_grad:
            part = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {part} of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode when "
                               "create_graph=True.")
        res.append(g if create_graph else g.detach())
    return tuple(res)


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """The vector-Jacobian product of ``func`` at ``inputs`` with the vector ``v``.

    Computes ``v^T J``, where ``J`` is the Jacobian of ``func`` at ``inputs``, by one
    reverse-mode (backward) pass: the gradient of ``sum(v * func(inputs))`` with respect to
    each input.

    Args:
        func (callable): takes the tensors of ``inputs`` as positional arguments and
            returns a tensor or a tuple of tensors.
        inputs (Tensor or tuple of Tensor): the point at which to differentiate.
        v (Tensor or tuple of Tensor, optional): the vector, one tensor per output of
            ``func``, of the output's shape. May be omitted (``None``) only when ``func``
            returns a single one-element tensor. Default: ``None``.
        create_graph (bool, optional): make the results differentiable (they keep a
            graph back to ``inputs``), for higher derivatives. Default: ``False``: the
            results are detached, and the caller's tensors gain no graph.
        strict (bool, optional): raise ``RuntimeError`` when an output does not depend on
            an input (the result would be all zeros) instead of returning zeros.
            Default: ``False``.

    Returns:
        tuple: ``(func_output, vjp)``: the output of ``func(inputs)``, and the product,
        shaped like ``inputs`` (a tensor or a tuple, as ``inputs`` was given).

    Example::

        >>> f = lambda x: x ** 2
        >>> x = nbgrad.tensor([1.0, 2.0, 3.0])
        >>> nbgrad.autograd.functional.vjp(f, x, nbgrad.ones(3))
        (tensor([1., 4., 9.]), tensor([2., 4., 6.]))
    """
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
            vs = _vs(v, outs, "vjp")
        g = _grads(outs, ins, vs, create_graph, strict, "back")
    outs = tuple(o if create_graph else o.detach() for o in outs)
    return _untup(outs, out_t), _untup(g, in_t)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """The Jacobian-vector product of ``func`` at ``inputs`` with the vector ``v``.

    Computes ``J v``, where ``J`` is the Jacobian of ``func`` at ``inputs``: the
    directional derivative of ``func`` along ``v``.

    Args:
        func (callable): takes the tensors of ``inputs`` as positional arguments and
            returns a tensor or a tuple of tensors.
        inputs (Tensor or tuple of Tensor): the point at which to differentiate.
        v (Tensor or tuple of Tensor, optional): the vector, one tensor per input, of the
            input's shape. May be omitted (``None``) only when the input is a single
            one-element tensor. Default: ``None``.
        create_graph (bool, optional): make the results differentiable (they keep a
            graph back to ``inputs``), for higher derivatives. Default: ``False``: the
            results are detached, and the caller's tensors gain no graph.
        strict (bool, optional): raise ``RuntimeError`` when an output does not depend on
            an input (the result would be all zeros) instead of returning zeros.
            Default: ``False``.

    Returns:
        tuple: ``(func_output, jvp)``: the output of ``func(inputs)``, and the product,
        shaped like that output.

    .. note::
        As PyTorch's, this uses the "double backward trick" (two reverse-mode passes, the
        second through the first), not forward-mode differentiation: ``func`` must be
        twice differentiable by autograd, and it costs about two backward passes.

    Example::

        >>> f = lambda x: x ** 2
        >>> x = nbgrad.tensor([1.0, 2.0, 3.0])
        >>> nbgrad.autograd.functional.jvp(f, x, nbgrad.tensor([1.0, 0.0, 1.0]))
        (tensor([1., 4., 9.]), tensor([2., 0., 6.]))
    """
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
            vs = _vs(v, ins, "jvp")
        us = tuple(zeros_like(o).requires_grad_(True) for o in outs)
        g = _raw_grads(outs, ins, us, True)
        _require_grad(g, "grad_inputs", strict)
        g = tuple(zeros_like(x) if gi is None else gi for gi, x in zip(g, ins))
        res = _grads(g, us, vs, create_graph, strict, "back_trick")
    outs = tuple(o if create_graph else o.detach() for o in outs)
    return _untup(outs, out_t), _untup(res, out_t)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """The Jacobian of ``func`` at ``inputs``.

    Args:
        func (callable): takes the tensors of ``inputs`` as positional arguments and
            returns a tensor or a tuple of tensors.
        inputs (Tensor or tuple of Tensor): the point at which to differentiate.
        create_graph (bool, optional): make the results differentiable (they keep a
            graph back to ``inputs``), for higher derivatives. Default: ``False``: the
            results are detached, and the caller's tensors gain no graph.
        strict (bool, optional): raise ``RuntimeError`` when an output does not depend on
            an input (the result would be all zeros) instead of returning zeros.
            Default: ``False``.
        vectorize (bool, optional): accepted for PyTorch compatibility; ignored (nbgrad
            always computes row by row). Default: ``False``.
        strategy (str, optional): ``"reverse-mode"``, the only one nbgrad supports
            (``"forward-mode"`` raises ``NotImplementedError``). Default:
            ``"reverse-mode"``.

    Returns:
        Tensor, or tuple of Tensor, or tuple of tuples of Tensor: for output ``i`` and
        input ``j``, the tensor ``J[i][j]`` of shape
        ``output_i.shape + input_j.shape``, holding ``d output_i / d input_j``. When
        ``func`` has one output and ``inputs`` is one tensor, that tensor alone; when
        only one of them is a tuple, a tuple indexed by the other one.

    .. note::
        The Jacobian is built with one backward pass per output element: keep the outputs
        small (for a scalar function, :func:`nbgrad.autograd.grad` is one pass).

    Example::

        >>> f = lambda x: x ** 2
        >>> nbgrad.autograd.functional.jacobian(f, nbgrad.tensor([1.0, 2.0]))
        tensor([[2., 0.],
                [0., 4.]])
        >>> g = lambda a, b: a * b
        >>> nbgrad.autograd.functional.jacobian(g, (nbgrad.tensor([3.0]), nbgrad.tensor([5.0])))
        (tensor([[5.]]), tensor([[3.]]))
    """
    from ..creation import zeros_like
    from ..memory_formats import contiguous_format
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
        for i, o in enumerate(outs):
            rows = [[] for _ in ins]
            for k in range(o.numel()):
                e = zeros_like(o, memory_format=contiguous_format)  # (written below)
                e._data.reshape(-1)[k] = 1
                for j, (g, x) in enumerate(zip(_raw_grads((o,), ins, (e,), create_graph), ins)):
                    if g is None:
                        if strict:  # (PyTorch's messages, its indices included)
                            raise RuntimeError(
                                f"Output {i} of the user-provided function is independent of "
                                f"input {j}. This is not allowed in strict mode.")
                        g = zeros_like(x)
                    elif strict and create_graph and not g.requires_grad:
                        raise RuntimeError(
                            "The jacobian of the user-provided function is independent of "
                            f"input {i}. This is not allowed in strict mode when "
                            "create_graph=True.")
                    g = g if create_graph else g.detach()
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
    """The Hessian (matrix of second derivatives) of a scalar ``func`` at ``inputs``.

    Args:
        func (callable): takes the tensors of ``inputs`` as positional arguments and
            returns a tensor with a single element.
        inputs (Tensor or tuple of Tensor): the point at which to differentiate.
        create_graph (bool, optional): make the results differentiable (they keep a
            graph back to ``inputs``), for higher derivatives. Default: ``False``: the
            results are detached, and the caller's tensors gain no graph.
        strict (bool, optional): raise ``RuntimeError`` when an output does not depend on
            an input (the result would be all zeros) instead of returning zeros.
            Default: ``False``.
        vectorize (bool, optional): accepted for PyTorch compatibility; ignored.
            Default: ``False``.
        outer_jacobian_strategy (str, optional): accepted for PyTorch compatibility;
            nbgrad always uses reverse mode. Default: ``"reverse-mode"``.

    Returns:
        Tensor, or tuple of tuples of Tensor: for one input tensor, the Hessian of shape
        ``input.shape + input.shape``; for a tuple of inputs, ``H[i][j]`` of shape
        ``inputs[i].shape + inputs[j].shape``, holding ``d^2 func / d input_i d input_j``.

    Example::

        >>> f = lambda x: (x ** 3).sum()
        >>> nbgrad.autograd.functional.hessian(f, nbgrad.tensor([1.0, 2.0]))
        tensor([[ 6.,  0.],
                [ 0., 12.]])
    """
    _, in_t = _tup(inputs)

    def jac_fn(*xs):
        out = func(*xs)
        if not isinstance(out, _tensor.Tensor) or out.numel() != 1:
            raise RuntimeError(
                "The Tensor returned by the function given to hessian should contain a single element"
            )
        _require_grad((out,), "outputs", strict)
        gs = _first(out, xs)
        _require_grad(gs, "jacobian", strict)
        return gs if in_t else gs[0]

    return jacobian(jac_fn, inputs, create_graph=create_graph, strict=strict)


def _ones_like(x):
    from ..creation import ones_like

    return ones_like(x)


def _zeros_like(x):
    from ..creation import zeros_like

    return zeros_like(x)


def _first(out, xs):
    from ..creation import ones_like, zeros_like

    gs = _grad(out, xs, ones_like(out), create_graph=True, allow_unused=True)
    return tuple(zeros_like(x) if g is None else g for g, x in zip(gs, xs))


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """The vector-Hessian product of a scalar ``func`` at ``inputs`` with the vector ``v``.

    Computes ``v^T H`` (``H`` the Hessian of ``func`` at ``inputs``) by differentiating the
    gradient of ``func`` once more, without forming ``H``.

    Args:
        func (callable): takes the tensors of ``inputs`` as positional arguments and
            returns a tensor with a single element.
        inputs (Tensor or tuple of Tensor): the point at which to differentiate.
        v (Tensor or tuple of Tensor, optional): the vector, one tensor per input, of the
            input's shape. May be omitted only when the input is a single one-element
            tensor. Default: ``None``.
        create_graph (bool, optional): make the results differentiable (they keep a
            graph back to ``inputs``), for higher derivatives. Default: ``False``: the
            results are detached, and the caller's tensors gain no graph.
        strict (bool, optional): raise ``RuntimeError`` when an output does not depend on
            an input (the result would be all zeros) instead of returning zeros.
            Default: ``False``.

    Returns:
        tuple: ``(func_output, vhp)``: the scalar output, and the product, shaped like
        ``inputs``.

    Example::

        >>> f = lambda x: (x ** 3).sum()
        >>> x = nbgrad.tensor([1.0, 2.0])
        >>> nbgrad.autograd.functional.vhp(f, x, nbgrad.tensor([1.0, 1.0]))
        (tensor(9.), tensor([ 6., 12.]))
    """
    ins, in_t = _tup(inputs)
    with enable_grad():
        ins = _prep(ins, create_graph)
        out = func(*ins)
        if not isinstance(out, _tensor.Tensor) or out.numel() != 1:
            raise RuntimeError(
                "The Tensor returned by the function given to hvp should contain a single element"
            )
        _require_grad((out,), "outputs", strict)
        gs = _raw_grads((out,), ins, (_ones_like(out),), True)
        _require_grad(gs, "jacobian", strict)
        gs = tuple(_zeros_like(x) if g is None else g for g, x in zip(gs, ins))
        if v is None and (len(ins) != 1 or ins[0].numel() != 1):
            raise RuntimeError(
                "The vector v can only be None if the input to the user-provided function "
                "is a single Tensor with a single element."
            )
        vs = (_ones_like(ins[0]),) if v is None else _vs(v, ins, "vhp")
        res = _grads(gs, ins, vs, create_graph, strict, "double_back")
    return (out if create_graph else out.detach()), _untup(res, in_t)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """The Hessian-vector product of a scalar ``func`` at ``inputs`` with the vector ``v``.

    Computes ``H v`` (``H`` the Hessian of ``func`` at ``inputs``) without forming ``H``.

    Args:
        func (callable): takes the tensors of ``inputs`` as positional arguments and
            returns a tensor with a single element.
        inputs (Tensor or tuple of Tensor): the point at which to differentiate.
        v (Tensor or tuple of Tensor, optional): the vector, one tensor per input, of the
            input's shape. May be omitted only when the input is a single one-element
            tensor. Default: ``None``.
        create_graph (bool, optional): make the results differentiable (they keep a
            graph back to ``inputs``), for higher derivatives. Default: ``False``: the
            results are detached, and the caller's tensors gain no graph.
        strict (bool, optional): raise ``RuntimeError`` when an output does not depend on
            an input (the result would be all zeros) instead of returning zeros.
            Default: ``False``.

    Returns:
        tuple: ``(func_output, hvp)``: the scalar output, and the product, shaped like
        ``inputs``.

    .. note::
        The Hessian of a twice continuously differentiable function is symmetric, so
        ``H v`` equals ``v^T H``: nbgrad computes it as :func:`vhp` does (PyTorch uses
        the slower double-backward trick here).

    Example::

        >>> f = lambda x: (x[0] * x[1]) ** 2
        >>> x = nbgrad.tensor([1.0, 2.0])
        >>> nbgrad.autograd.functional.hvp(f, x, nbgrad.tensor([1.0, 0.0]))
        (tensor(4.), tensor([8., 8.]))
    """
    return vhp(func, inputs, v, create_graph, strict)
