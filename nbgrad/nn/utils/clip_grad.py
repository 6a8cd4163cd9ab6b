"""Gradient clipping, as ``torch.nn.utils.clip_grad``: in place on each parameter's
``.grad``, under ``no_grad``."""

import math
import types
import warnings

from ...autograd.grad_mode import no_grad
from ...tensor import Tensor


def _grads(parameters):
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The ``norm_type`` norm of ``tensors`` (a tensor or an iterable of them) taken
    together, as if concatenated into one vector: the norm of their norms. Computed under
    ``no_grad``.

    ``error_if_nonfinite``: raise when the result is nan or inf. ``foreach`` is accepted
    (one path here). An empty ``tensors`` gives ``tensor(0.)``.

    Example::

        >>> import nbgrad
        >>> from nbgrad.nn.utils import get_total_norm
        >>> get_total_norm([nbgrad.tensor([3.0]), nbgrad.tensor([4.0])])
        tensor(5.)
        >>> get_total_norm([nbgrad.tensor([3.0, -4.0])], norm_type="inf")
        tensor(4.)
    """
    from ... import linalg, stack, tensor

    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return tensor(0.0)
    first_device = tensors[0].device
    with no_grad():
        norms = [linalg.vector_norm(t, norm_type).to(first_device) for t in tensors]
        total = linalg.vector_norm(stack(norms), norm_type)
    if error_if_nonfinite and not math.isfinite(float(total)):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the "
            "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`")
    return total


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scale the gradients of ``parameters`` in place by ``min(1, max_norm / (total_norm
    + 1e-6))``, ``total_norm`` computed beforehand (by ``get_total_norm``): the second half
    of ``clip_grad_norm_``. Gradients are only ever scaled down. Returns None.

    Example::

        >>> import nbgrad
        >>> from nbgrad.nn.utils import clip_grads_with_norm_, get_total_norm
        >>> w = nbgrad.zeros(2, requires_grad=True)
        >>> (w * nbgrad.tensor([3.0, 4.0])).sum().backward()
        >>> clip_grads_with_norm_([w], 1.0, get_total_norm([w.grad]))
        >>> w.grad
        tensor([0.6000, 0.8000])
    """
    grads = _grads(parameters)
    max_norm = float(max_norm)
    if not grads:
        return
    with no_grad():
        coef = (max_norm / (total_norm + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(coef.to(device=g.device, dtype=g.dtype))


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                    foreach=None):
    """Scale the gradients of ``parameters`` together so that their joint ``norm_type``
    norm (as of one vector) is at most ``max_norm``; returns that norm, before scaling.

    Each gradient is multiplied by ``min(1, max_norm / (norm + 1e-6))``, as in PyTorch:
    ``get_total_norm`` of the gradients, then ``clip_grads_with_norm_``.
    ``error_if_nonfinite``: raise when the norm is nan or inf (otherwise the gradients are
    scaled by it anyway). ``foreach`` is accepted (one path here). An empty generator of
    parameters warns, as PyTorch's.

    Example::

        >>> import nbgrad
        >>> from nbgrad.nn.utils import clip_grad_norm_
        >>> w = nbgrad.zeros(2, requires_grad=True)
        >>> (w * nbgrad.tensor([3.0, 4.0])).sum().backward()
        >>> clip_grad_norm_([w], max_norm=1.0)
        tensor(5.)
        >>> w.grad
        tensor([0.6000, 0.8000])
    """
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if is_generator and not parameters:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.",
                          stacklevel=2)
    grads = _grads(parameters)
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total, foreach)
    return total


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                   foreach=None):
    """Deprecated name of ``clip_grad_norm_`` (a FutureWarning, as PyTorch's), which it
    calls.

    Example::

        >>> import warnings
        >>> import nbgrad
        >>> w = nbgrad.zeros(2, requires_grad=True)
        >>> (w * nbgrad.tensor([3.0, 4.0])).sum().backward()
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     nbgrad.nn.utils.clip_grad_norm([w], max_norm=1.0)
        tensor(5.)
        >>> caught[0].category.__name__
        'FutureWarning'
    """
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`torch.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every gradient of ``parameters`` into ``[-clip_value, clip_value]``, in place.

    Example::

        >>> import nbgrad
        >>> from nbgrad.nn.utils import clip_grad_value_
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
