"""Finite-difference checks of first and second derivatives."""

import warnings

import numpy as np

from .. import tensor as _tensor  # the module (nbgrad.tensor the function comes later)


class GradcheckError(RuntimeError):
    """Raised by :func:`gradcheck` and :func:`gradgradcheck` when the gradients autograd
    computes and the finite-difference ones disagree."""


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _outputs(fn, inputs):
    return tuple(o for o in _as_tuple(fn(*inputs)) if isinstance(o, _tensor.Tensor))


def _numerical(fn, inputs, i, out_idx, eps):
    """Jacobian of output ``out_idx`` w.r.t. input ``i`` by central differences."""
    x = inputs[i]
    host = x._data
    on_host = isinstance(host, np.ndarray)
    if not on_host:
        raise NotImplementedError("gradcheck perturbs inputs on the CPU; move them with .cpu()")
    cols = []
    # grad mode stays on: gradgradcheck's function differentiates inside
    for idx in np.ndindex(*host.shape):
        orig = host[idx].item()
        host[idx] = orig - eps
        lo = _outputs(fn, inputs)[out_idx]._data.astype(np.float64).reshape(-1).copy()
        host[idx] = orig + eps
        hi = _outputs(fn, inputs)[out_idx]._data.astype(np.float64).reshape(-1).copy()
        host[idx] = orig
        cols.append((hi - lo) / (2 * eps))
    n_out = _outputs(fn, inputs)[out_idx].numel()
    if not cols:
        return np.zeros((0, n_out))
    return np.stack(cols, 0)  # (n_in, n_out)


def _analytical(fn, inputs, diff_idx, out_idx):
    from ..creation import zeros_like
    from ..memory_formats import contiguous_format
    from .api import grad

    outs = _outputs(fn, inputs)
    y = outs[out_idx]
    n_out = y.numel()
    jac = [np.zeros((inputs[i].numel(), n_out)) for i in diff_idx]
    if not y.requires_grad:
        return jac
    for k in range(n_out):
        go = zeros_like(y, memory_format=contiguous_format)  # (its memory written below)
        go._data.reshape(-1)[k] = 1
        gs = grad(y, [inputs[i] for i in diff_idx], go, retain_graph=True, allow_unused=True)
        for j, g in enumerate(gs):
            if g is not None:
                if tuple(g.shape) != tuple(inputs[diff_idx[j]].shape):
                    raise GradcheckError(
                        f"Gradient for input {diff_idx[j]} has shape {tuple(g.shape)}, "
                        f"expected {tuple(inputs[diff_idx[j]].shape)}"
                    )
                jac[j][:, k] = np.asarray(g.detach().numpy(), dtype=np.float64).reshape(-1)
    return jac


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, **_ignored):
    """Check the gradients autograd computes for ``func`` against finite differences.

    For every floating-point output of ``func`` and every input that requires grad, the
    Jacobian is computed twice: by autograd (one backward pass per output element) and
    numerically, by central differences ``(f(x + eps) - f(x - eps)) / (2 eps)`` on each
    input element in turn. They must agree elementwise within
    ``|analytical - numerical| <= atol + rtol * |numerical|``.

    Args:
        func (callable): takes the tensors of ``inputs`` as positional arguments and
            returns a tensor or a tuple of tensors (non-tensor entries are ignored).
        inputs (Tensor or tuple of Tensor): the point to check at. Those that require grad
            are checked; they should be ``float64`` (single precision cannot meet the
            default tolerances; a warning says so) and on the CPU.
        eps (float, optional): the finite-difference step. Default: ``1e-6``.
        atol (float, optional): absolute tolerance. Default: ``1e-5``.
        rtol (float, optional): relative tolerance. Default: ``1e-3``.
        raise_exception (bool, optional): raise :class:`GradcheckError` with both
            Jacobians on a mismatch; if ``False``, return ``False`` instead.
            Default: ``True``.

    Returns:
        bool: ``True`` when every Jacobian matches.

    Raises:
        GradcheckError: a mismatch (or a gradient of the wrong shape), when
            ``raise_exception`` is ``True``.
        ValueError: no input requires grad.

    .. note::
        PyTorch's other options (``nondet_tol``, ``check_undefined_grad``,
        ``check_batched_grad``, ``fast_mode``, ...) are accepted and ignored: nbgrad always
        runs the full (slow-mode) comparison above. The inputs are perturbed in place
        during the check and restored afterwards. The cost grows with the number of input
        and output elements: keep the tensors small.

    Example::

        >>> x = nbgrad.randn(3, dtype=nbgrad.float64, requires_grad=True)
        >>> nbgrad.autograd.gradcheck(lambda t: (t * t).sum(), (x,))
        True
        >>> class BadSquare(nbgrad.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, t):
        ...         return t * t
        ...     @staticmethod
        ...     def backward(ctx, g):
        ...         return g                          # wrong: should be 2 t g
        >>> nbgrad.autograd.gradcheck(BadSquare.apply, (x,), raise_exception=False)
        False
    """
    inputs = _as_tuple(inputs)
    diff_idx = [i for i, t in enumerate(inputs) if isinstance(t, _tensor.Tensor) and t.requires_grad]
    for i in diff_idx:
        if inputs[i].dtype.name != "float64":
            warnings.warn(
                f"Input #{i} requires gradient and is not a double precision floating point. "
                "This check will likely fail if all the inputs are not of double precision "
                "floating point.", UserWarning, stacklevel=2,
            )
    if not diff_idx:
        raise ValueError("gradcheck expects at least one input tensor to require gradient")
    outs = _outputs(func, inputs)
    for o_i in range(len(outs)):
        if not outs[o_i].dtype.is_floating_point:
            continue
        ana = _analytical(func, inputs, diff_idx, o_i)
        for j, i in enumerate(diff_idx):
            num = _numerical(func, inputs, i, o_i, eps)
            a = ana[j]
            if not np.allclose(a, num, rtol=rtol, atol=atol, equal_nan=False):
                msg = (
                    f"Jacobian mismatch for output {o_i} with respect to input {i},\n"
                    f"numerical:{num}\nanalytical:{a}\n"
                )
                if raise_exception:
                    raise GradcheckError(msg)
                return False
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  raise_exception=True, gen_non_contig_grad_outputs=False, **_ignored):
    """Check the second derivatives autograd computes for ``func``.

    Runs :func:`gradcheck` on the first-order gradient map ``(inputs, v) -> v^T J`` (the
    vector-Jacobian product of ``func`` at ``inputs``, computed with
    ``create_graph=True``): its gradients with respect to both the inputs and ``v`` are
    second derivatives of ``func``, and they are compared with finite differences.

    Args:
        func (callable): as for :func:`gradcheck`.
        inputs (Tensor or tuple of Tensor): as for :func:`gradcheck` (``float64``).
        grad_outputs (Tensor or tuple of Tensor, optional): the vectors ``v``, one per
            differentiable output of ``func``, of its shape; they should require grad.
            Default: ``None``, random normal tensors of the outputs' dtype that require
            grad (seed the generator with ``nbgrad.manual_seed`` for a repeatable check).
        eps (float, optional): the finite-difference step. Default: ``1e-6``.
        atol (float, optional): absolute tolerance. Default: ``1e-5``.
        rtol (float, optional): relative tolerance. Default: ``1e-3``.
        raise_exception (bool, optional): raise on a mismatch rather than return ``False``.
            Default: ``True``.
        gen_non_contig_grad_outputs (bool, optional): accepted for PyTorch compatibility
            and ignored. Default: ``False``.

    Returns:
        bool: ``True`` when the second derivatives match.

    Raises:
        GradcheckError: a mismatch, when ``raise_exception`` is ``True``.

    Example::

        >>> x = nbgrad.randn(3, dtype=nbgrad.float64, requires_grad=True)
        >>> nbgrad.autograd.gradgradcheck(lambda t: (t ** 3).sum(), (x,))
        True
    """
    from ..creation import randn
    from .api import grad

    inputs = _as_tuple(inputs)
    outs = _outputs(func, inputs)
    if grad_outputs is None:
        grad_outputs = tuple(
            randn(tuple(o.shape), dtype=o.dtype, device=o.device, requires_grad=True)
            for o in outs if o.dtype.is_floating_point and o.requires_grad
        )
    grad_outputs = _as_tuple(grad_outputs)
    n = len(inputs)
    diff_idx = [i for i, t in enumerate(inputs) if isinstance(t, _tensor.Tensor) and t.requires_grad]

    def first_grads(*args):
        ins, gos = args[:n], args[n:]
        ys = [o for o in _outputs(func, ins) if o.dtype.is_floating_point and o.requires_grad]
        gs = grad(ys, [ins[i] for i in diff_idx], gos, create_graph=True, allow_unused=True)
        return tuple(g for g in gs if g is not None)

    return gradcheck(first_grads, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
