"""Finite-difference checks of first and second derivatives."""

import warnings

import numpy as np

from .. import tensor as _tensor  # the module (nbgrad.tensor the function comes later)


class GradcheckError(RuntimeError):
    """Raised by ``gradcheck`` when analytical and numerical gradients disagree."""


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
    """Compare autograd's gradients of ``func`` with central finite differences.

    Inputs that require grad should be float64. Returns True, or raises GradcheckError
    (returns False when ``raise_exception=False``).

    >>> x = nbgrad.randn(3, dtype=nbgrad.float64, requires_grad=True)
    >>> nbgrad.autograd.gradcheck(lambda t: (t * t).sum(), (x,))
    True
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
    """Check second derivatives: gradcheck of the map (inputs, v) -> v^T J.

    ``grad_outputs`` default to random float64 tensors that require grad.
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
