"""Gradient clipping, as ``torch.nn.utils.clip_grad``: in place on each parameter's
``.grad``, under ``no_grad``."""

import math

from ...autograd.grad_mode import no_grad
from ...tensor import Tensor


def _grads(parameters):
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def _norm(x, p):
    """The ``p``-norm of all of ``x``'s elements (``inf``: the largest magnitude)."""
    from ... import norm

    return norm(x.reshape(-1), p)


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                    foreach=None):
    """Scale the gradients of ``parameters`` together so that their joint ``norm_type``
    norm (as of one vector) is at most ``max_norm``; returns that norm, before scaling.

    Each gradient is multiplied by ``min(1, max_norm / (norm + 1e-6))``, as in PyTorch.
    ``error_if_nonfinite``: raise when the norm is nan or inf (otherwise the gradients are
    scaled by it anyway). ``foreach`` is accepted (one path here).

    Example::

        >>> import nbgrad
        >>> w = nbgrad.zeros(2, requires_grad=True)
        >>> (w * nbgrad.tensor([3.0, 4.0])).sum().backward()
        >>> clip_grad_norm_([w], max_norm=1.0)
        tensor(5.)
        >>> w.grad
        tensor([0.6000, 0.8000])
    """
    from ... import stack, tensor

    grads = _grads(parameters)
    max_norm, norm_type = float(max_norm), float(norm_type)
    if not grads:
        return tensor(0.0)
    with no_grad():
        total = _norm(stack([_norm(g, norm_type) for g in grads]), norm_type)
        if error_if_nonfinite and not math.isfinite(float(total)):
            raise RuntimeError(
                f"The total norm of order {norm_type} for gradients from `parameters` is "
                "non-finite, so it cannot be clipped. To disable this error and scale the "
                "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`")
        coef = (max_norm / (total + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(coef.to(g.dtype))
    return total


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every gradient of ``parameters`` into ``[-clip_value, clip_value]``, in place.

    Example::

        >>> import nbgrad
        >>> w = nbgrad.zeros(2, requires_grad=True)
        >>> (w * nbgrad.tensor([3.0, -0.5])).sum().backward()
        >>> clip_grad_value_([w], 1.0)
        >>> w.grad
        tensor([ 1.0000, -0.5000])
    """
    clip_value = float(clip_value)
    with no_grad():
        for g in _grads(parameters):
            g.clamp_(min=-clip_value, max=clip_value)
