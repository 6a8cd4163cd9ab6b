"""RMSprop (Hinton): steps scaled by a running root mean square of the gradients, optionally
centered and with momentum."""

from ..kernels import updates
from .adam import _next_step
from .optimizer import Optimizer, _check_unsupported

_BODIES = {(False, False): updates.rmsprop, (False, True): updates.rmsprop_momentum,
           (True, False): updates.rmsprop_centered,
           (True, True): updates.rmsprop_centered_momentum}


class RMSprop(Optimizer):
    """The RMSprop algorithm (Hinton, lecture 6e of "Neural Networks for Machine Learning").

    Each step follows PyTorch's update rule:
    ``g = grad + weight_decay * p``, ``square_avg = alpha * square_avg + (1 - alpha) * g * g``;
    centered: ``grad_avg = lerp(grad_avg, g, 1 - alpha)``, ``avg = sqrt(square_avg -
    grad_avg^2) + eps``, else ``avg = sqrt(square_avg) + eps``; with momentum ``buf =
    momentum * buf + g / avg``, ``p -= lr * buf``, else ``p -= lr * g / avg``. Each parameter
    is updated by one fused kernel.

    Args:
        params (iterable): the tensors to optimize, or dicts defining parameter groups
            (each with ``"params"`` and any of the options below, overriding them).
        lr (float, optional): learning rate. Default: ``1e-2``.
        alpha (float, optional): smoothing constant of the running average of the
            squared gradients. Default: ``0.99``.
        eps (float, optional): term added to the denominator for numerical stability.
            Default: ``1e-8``.
        weight_decay (float, optional): weight decay (L2 penalty). Default: ``0``.
        momentum (float, optional): momentum factor. Default: ``0``.
        centered (bool, optional): normalize by an estimate of the gradient's variance
            rather than of its second moment. Default: ``False``.
        capturable (bool, optional): only ``False`` is supported. Default: ``False``.
        foreach (bool, optional): accepted for compatibility with PyTorch; nbgrad always
            uses its fused kernels. Default: ``None``.
        maximize (bool, optional): maximize the objective rather than minimize it.
            Default: ``False``.
        differentiable (bool, optional): only ``False`` is supported. Default: ``False``.

    Example::

        >>> import nbgrad
        >>> w = nbgrad.nn.Parameter(nbgrad.tensor([1.0, -2.0]))
        >>> opt = nbgrad.optim.RMSprop([w], lr=0.01)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> [round(v, 4) for v in w.tolist()]
        [0.9, -1.9]
    """

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        for name, v in (("learning rate", lr), ("epsilon value", eps),
                        ("momentum value", momentum), ("weight_decay value", weight_decay),
                        ("alpha value", alpha)):
            if not 0.0 <= v:
                raise ValueError(f"Invalid {name}: {v}")
        _check_unsupported(differentiable, capturable)
        # (PyTorch's implementation flags kept in the groups, in PyTorch's order)
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, capturable=capturable, foreach=foreach,
                        maximize=maximize, differentiable=differentiable)
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One update of every parameter that has a ``.grad``; returns ``closure()``'s loss."""
        loss = self._closure(closure)
        for group in self.param_groups:
            lr, alpha, eps, wd, momentum = (float(group[k]) for k in (
                "lr", "alpha", "eps", "weight_decay", "momentum"))
            centered, maximize = bool(group["centered"]), bool(group["maximize"])
            for p, g, state in self._params_with_grad(group):
                _next_step(state)
                bufs = [self._state_buffer(state, "square_avg", p)]
                if momentum > 0:
                    bufs.append(self._state_buffer(state, "momentum_buffer", p))
                if centered:
                    bufs.append(self._state_buffer(state, "grad_avg", p))
                hp = updates.rmsprop_scalars(g.dtype, lr, alpha, eps, wd, momentum, maximize)
                self._update(_BODIES[centered, momentum > 0], p, g, tuple(bufs), hp)
        return loss
