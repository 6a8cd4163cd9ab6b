"""``backward`` and ``grad``: argument checks, seed gradients, then the engine."""

import warnings

from numpy import array as _np_array

from .. import tensor as _tensor  # the module (nbgrad.tensor the function comes later)
from .._warnings import warn_once
from ..device import CPU as _CPU
from ..storage import for_device
from . import engine
from .graph import edge_of


def _as_tuple(x, what):
    if x is None:
        return None
    if isinstance(x, _tensor.Tensor):
        return (x,)
    if isinstance(x, (list, tuple)):
        return tuple(x)
    raise TypeError(f"{what} must be a Tensor or a sequence of Tensors, got {type(x).__name__}")


def _grads_tuple(grads, n):
    if grads is None:
        return (None,) * n
    if isinstance(grads, _tensor.Tensor):
        grads = (grads,)
    grads = tuple(grads)
    if len(grads) < n:  # extra entries are ignored, as torch's zip() in _make_grads does
        raise RuntimeError(f"got {n} tensors and {len(grads)} gradients")
    return grads[:n]


def _make_grads(outputs, grads):
    """Seed gradients: given ones are checked against their output, missing ones are
    ``ones_like`` for scalar outputs that require grad."""
    seeds = []
    for i, (out, g) in enumerate(zip(outputs, grads)):
        if not isinstance(out, _tensor.Tensor):
            raise TypeError(f"element {i} of tensors is a {type(out).__name__}, not a Tensor")
        if isinstance(g, _tensor.Tensor):
            if tuple(g.shape) != tuple(out.shape):
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and "
                    f"output[{i}] has a shape of {out.shape}."
                )
            if g._device is not out._device and g._device != out._device:
                raise RuntimeError(
                    f"grad_output[{i}] is on {g._device} but output[{i}] is on {out._device}"
                )
            if g._dtype is not out._dtype:  # (PyTorch's engine casts it, an integer one too)
                g = g.to(out._dtype)
            seeds.append(g)
        elif g is None:
            if out._rg:
                if out._meta.size != 1:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                if not out._dtype.is_floating_point:
                    raise RuntimeError(
                        "grad can be implicitly created only for real scalar outputs but got "
                        f"{out._dtype}"
                    )
                dt, dev = out._dtype, out._device
                shape = out._meta.shape
                if dev is _CPU and not shape:  # the usual scalar loss: skip np.full's wrapper
                    one = _np_array(1, dt.np)
                else:
                    one = for_device(dev).full(shape, 1, dt.np)
                seeds.append(_tensor._wrap(one, dt, dev))
            else:
                seeds.append(None)
        else:
            raise TypeError(
                f"gradients can be either Tensors or None, but got {type(g).__name__}"
            )
    return seeds


def _roots(outputs):
    roots = []
    for i, t in enumerate(outputs):
        if not t._rg:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn"
            )
        roots.append(edge_of(t))
    return roots


def _check_inputs(inputs, msg="One of the differentiated Tensors does not require grad"):
    for t in inputs:
        if not isinstance(t, _tensor.Tensor):
            raise TypeError(f"inputs must be Tensors, got {type(t).__name__}")
        if not t._rg:
            raise RuntimeError(msg)




def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None,
             *, grad_variables=None):
    """Compute the gradients of ``tensors`` and accumulate them into the graph's leaves.

    Runs the chain rule backwards from ``tensors`` through the recorded graph and **adds**
    the result to the ``.grad`` of every leaf tensor that requires grad (or, with
    ``inputs``, of those tensors only). A second call adds again: zero the gradients
    between optimization steps (``optimizer.zero_grad()``).

    For a non-scalar tensor the gradient is a vector-Jacobian product: its ``grad_tensors``
    entry is the vector, "the gradient of some loss with respect to that tensor". A scalar
    (one-element) tensor may leave it out: its vector is then ``1``.

    Args:
        tensors (Tensor or sequence of Tensor): the tensors whose gradients are
            computed (typically one scalar loss). Each must require grad.
        grad_tensors (Tensor or sequence of Tensor or None, optional): the vector of each
            vector-Jacobian product, one per element of ``tensors`` and of the same shape.
            ``None`` (for all, or as one entry) means ``ones_like(tensor)``, which is allowed
            only for a one-element floating-point tensor. Extra entries are ignored; too few
            is an error. Default: ``None``.
        retain_graph (bool, optional): keep the graph's saved tensors after the pass, so
            the same graph can be run backward again. When ``False`` they are freed as each
            node runs, and a second pass through a node that saved tensors raises
            ``RuntimeError`` ("Trying to backward through the graph a second time").
            Default: the value of ``create_graph``.
        create_graph (bool, optional): record the backward pass itself, so that the
            accumulated gradients have a ``grad_fn`` and can be differentiated again
            (double backward, gradient penalties). Default: ``False``.
        inputs (Tensor or sequence of Tensor, optional): accumulate only into these tensors
            and leave every other ``.grad`` untouched. A non-leaf tensor listed here gets
            its ``.grad`` filled as if ``retain_grad()`` had been called on it. Must not be
            empty, and each must require grad. Default: ``None`` (all leaves).
        grad_variables (Tensor or sequence of Tensor, optional): deprecated, as in PyTorch
            (a ``FutureWarning``): ``grad_tensors`` by its old name; both at once is an
            error. Keyword only here (PyTorch's fifth positional argument; ``inputs`` is
            nbgrad's). Default: ``None``.

    Returns:
        None. The results are in the ``.grad`` attributes.

    .. note::
        Tensors listed in ``inputs`` that the graph does not reach are not an error: their
        ``.grad`` is simply left as it was. :func:`grad` is the form that returns the
        gradients instead of accumulating them.

    Example::

        >>> w = nbgrad.tensor([1.0, 2.0], requires_grad=True)
        >>> y = w * 3                                   # a non-scalar output
        >>> nbgrad.autograd.backward(y, nbgrad.tensor([1.0, 0.5]))
        >>> w.grad
        tensor([3.0000, 1.5000])
        >>> nbgrad.autograd.backward((w ** 2).sum())   # a scalar: no vector needed
        >>> w.grad                                      # accumulated: 3 + 2, 1.5 + 4
        tensor([5.0000, 5.5000])
    """
    if grad_variables is not None:
        warnings.warn("`grad_variables` is deprecated. Use `grad_tensors` instead.",
                      FutureWarning, stacklevel=2)
        if grad_tensors is not None:
            raise RuntimeError("`grad_tensors` and `grad_variables` (deprecated) arguments "
                               "both passed to `backward()`. Please only use `grad_tensors`.")
        grad_tensors = grad_variables
    tensors = _as_tuple(tensors, "tensors")
    if inputs is not None:
        inputs = _as_tuple(inputs, "inputs")
        if len(inputs) == 0:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
        _check_inputs(inputs, "can't retain_grad on Tensor that has requires_grad=False")
    grads = _grads_tuple(grad_tensors, len(tensors))
    seeds = _make_grads(tensors, grads)
    if retain_graph is None:
        retain_graph = create_graph
    roots = _roots(tensors)
    if create_graph:
        warn_once(
            "backward create_graph",
            "Using backward() with create_graph=True will create a reference cycle between "
            "the parameter and its gradient which can cause a memory leak. We recommend using "
            "autograd.grad when creating the graph to avoid this. If you have to use this "
            "function, make sure to reset the .grad fields of your parameters to None after "
            "use to break the cycle and avoid the leak.")
    engine.execute(roots, seeds, retain_graph, create_graph, inputs, accumulate=True)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         allow_unused=None, is_grads_batched=False, materialize_grads=False, *,
         only_inputs=True):
    """Compute and return the gradients of ``outputs`` with respect to ``inputs``.

    For each input, the result is the sum over the outputs of the vector-Jacobian products
    ``grad_outputs[i]^T . d outputs[i] / d input``. Unlike :func:`backward`, nothing is
    accumulated: no tensor's ``.grad`` changes, and the gradients come back as a tuple
    (hooks registered on tensors with ``register_hook`` still run).

    Args:
        outputs (Tensor or sequence of Tensor): the differentiated function's outputs.
            Each must require grad.
        inputs (Tensor or sequence of Tensor): the tensors to differentiate with respect
            to; leaves or intermediate results, each requiring grad. Must not be empty.
        grad_outputs (Tensor or sequence of Tensor or None, optional): the vector of each
            vector-Jacobian product, one per output, of the output's shape. ``None`` (for
            all, or as one entry) means ``ones_like(output)``, which is allowed only for a
            one-element floating-point output. Default: ``None``.
        retain_graph (bool, optional): keep the graph's saved tensors after the pass, so
            the graph can be differentiated again; when ``False`` they are freed as the
            pass goes. Default: the value of ``create_graph``.
        create_graph (bool, optional): record the backward pass, so that the returned
            gradients have a ``grad_fn`` and can themselves be differentiated
            (Hessian-vector products, gradient penalties). Default: ``False``.
        allow_unused (bool or None, optional): what to do with an input the outputs do not
            depend on: ``False`` raises ``RuntimeError`` ("appears to not have been used in
            the graph"), ``True`` returns ``None`` for it. Default: ``None``, which takes
            the value of ``materialize_grads``.
        is_grads_batched (bool, optional): read the first dimension of every
            ``grad_outputs`` entry as a batch dimension and compute one vector-Jacobian
            product per row, all at once; each result gets that batch dimension in front.
            Default: ``False``.
        materialize_grads (bool, optional): return zeros (of the input's shape) rather than
            ``None`` for unused inputs. Implies ``allow_unused=True``; combining it with
            ``allow_unused=False`` raises ``ValueError``. Default: ``False``.
        only_inputs (bool, optional): deprecated and ignored, as in PyTorch (``False``
            warns): gradients are only ever computed for ``inputs``. Keyword only here
            (PyTorch's sixth positional argument; ``allow_unused`` is nbgrad's).
            Default: ``True``.

    Returns:
        tuple of Tensor: one gradient per input, of the input's shape (``(B, *shape)``
        with ``is_grads_batched=True`` and a batch of ``B``), or ``None`` for an unused
        input when ``allow_unused=True``.

    .. note::
        nbgrad runs ``is_grads_batched=True`` as a loop of one backward pass per batch row
        (PyTorch vectorizes it with ``vmap``): same results, cost linear in the batch size.

    Example::

        >>> x = nbgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
        >>> y = (x ** 3).sum()
        >>> (dx,) = nbgrad.autograd.grad(y, x, create_graph=True)
        >>> dx                                   # 3 x^2, itself differentiable
        tensor([ 3., 12., 27.], grad_fn=<MulBackward0>)
        >>> x.grad is None                       # nothing was accumulated
        True
        >>> nbgrad.autograd.grad(dx.sum(), x)    # the second derivative, 6 x
        (tensor([ 6., 12., 18.]),)
        >>> z = nbgrad.tensor(1.0, requires_grad=True)
        >>> nbgrad.autograd.grad(2 * x.sum(), (x, z), materialize_grads=True)
        (tensor([2., 2., 2.]), tensor(0.))
    """
    if not only_inputs:
        warnings.warn("only_inputs argument is deprecated and is ignored now (defaults to "
                      "True). To accumulate gradient for other parts of the graph, please use "
                      "torch.autograd.backward.", FutureWarning, stacklevel=2)
    if materialize_grads and allow_unused is False:
        raise ValueError(
            "Expected allow_unused to be True or not passed when materialize_grads=True, "
            "but got: allow_unused=False."
        )
    if allow_unused is None:
        allow_unused = materialize_grads
    if is_grads_batched:
        return _batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph,
                             allow_unused, materialize_grads)
    outputs = _as_tuple(outputs, "outputs")
    inputs = _as_tuple(inputs, "inputs")
    if not inputs:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    _check_inputs(inputs)
    grads = _grads_tuple(grad_outputs, len(outputs))
    seeds = _make_grads(outputs, grads)
    if retain_graph is None:
        retain_graph = create_graph
    roots = _roots(outputs)
    result = engine.execute(roots, seeds, retain_graph, create_graph, inputs, accumulate=False)
    out = []
    for i, (t, g) in enumerate(zip(inputs, result)):
        if g is None:
            if materialize_grads:
                from ..creation import zeros_like

                g = zeros_like(t)
            elif not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in "
                    "the graph. Set allow_unused=True if this is the desired behavior."
                )
        out.append(g)
    return tuple(out)


def _batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused,
                  materialize_grads):
    """``grad`` with ``is_grads_batched=True``: one vector-Jacobian product per row of the
    grad_outputs' first dimension, stacked (a loop over the rows, where PyTorch uses vmap)."""
    from ..ops.concat import stack

    outputs = _as_tuple(outputs, "outputs")
    inputs = _as_tuple(inputs, "inputs")
    if not inputs:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    grads = _grads_tuple(grad_outputs, len(outputs))
    n = None
    for i, (out, g) in enumerate(zip(outputs, grads)):
        if g is None:
            _make_grads((out,), (None,))  # PyTorch's error for a missing non-scalar seed
            raise RuntimeError(
                "grad(): is_grads_batched=True needs a grad_output with a batch dimension "
                f"for output {i}"
            )
        if g.ndim == 0 or tuple(g.shape[1:]) != tuple(out.shape):
            raise RuntimeError(
                "If `is_grads_batched=True`, we interpret the first dimension of each "
                "grad_output as the batch dimension. The sizes of the remaining dimensions are "
                "expected to match the shape of corresponding output, but a mismatch was "
                f"detected: grad_output[{i}] has a shape of {g.shape[1:] if g.ndim else g.shape} "
                f"and output[{i}] has a shape of {out.shape}. If you only want some tensors in "
                "`grad_output` to be considered batched, consider using vmap."
            )
        if n is not None and g.shape[0] != n:
            raise RuntimeError(
                "grad(): with is_grads_batched=True every grad_output needs the same batch "
                f"size, got {n} and {g.shape[0]}"
            )
        n = g.shape[0]
    if n == 0:
        from ..creation import zeros

        return tuple(zeros((0,) + tuple(t.shape), dtype=t.dtype, device=t.device)
                     for t in inputs)
    if retain_graph is None:
        retain_graph = create_graph
    rows = [grad(outputs, inputs, [g[b] for g in grads],
                 retain_graph=retain_graph if b == n - 1 else True,
                 create_graph=create_graph, allow_unused=True) for b in range(n)]
    result = []
    for i, t in enumerate(inputs):
        col = [r[i] for r in rows]
        if all(c is None for c in col):
            if materialize_grads:
                from ..creation import zeros_like

                result.append(zeros_like(t))  # unbatched, as PyTorch gives it
                continue
            if not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in "
                    "the graph. Set allow_unused=True if this is the desired behavior."
                )
            result.append(None)
            continue
        if any(c is None for c in col):
            from ..creation import zeros_like

            col = [zeros_like(t) if c is None else c for c in col]
        result.append(stack(col))
    return tuple(result)
