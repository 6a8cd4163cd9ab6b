"""RAdam (Liu et al., 2019): Adam whose adaptive step is switched on, and scaled, by a
variance rectification term once enough steps have been seen."""

from ..kernels import updates
from .adam import _next_step
from .optimizer import Optimizer, _check_adam_args, _check_unsupported


class RAdam(Optimizer):
    """The RAdam algorithm: Adam with a rectified adaptive step (Liu et al., "On the
    Variance of the Adaptive Learning Rate and Beyond").

    Each step follows PyTorch's update rule:
    ``exp_avg = lerp(exp_avg, g, 1 - beta1)``, ``exp_avg_sq = beta2 * exp_avg_sq + (1 -
    beta2) * g * g``; ``rho_inf = 2 / (1 - beta2) - 1``, ``rho_t = rho_inf - 2 t beta2**t /
    (1 - beta2**t)``. While ``rho_t <= 5``: ``p -= lr * exp_avg / (1 - beta1**t)``; after,
    that step is scaled by ``sqrt(1 - beta2**t) / (sqrt(exp_avg_sq) + eps)`` and
    ``r_t = sqrt((rho_t - 4)(rho_t - 2) rho_inf / ((rho_inf - 4)(rho_inf - 2) rho_t))``.
    Weight decay adds ``weight_decay * p`` to ``g`` or, decoupled, scales ``p`` by
    ``1 - lr * weight_decay`` first. Each parameter is updated by one fused kernel.

    Args:
        params (iterable): the tensors to optimize, or dicts defining parameter groups
            (each with ``"params"`` and any of the options below, overriding them).
        lr (float, optional): learning rate. Default: ``1e-3``.
        betas (Tuple[float, float], optional): the coefficients of the running averages
            of the gradient and of its square. Default: ``(0.9, 0.999)``.
        eps (float, optional): term added to the denominator for numerical stability.
            Default: ``1e-8``.
        weight_decay (float, optional): weight decay (L2 penalty). Default: ``0``.
        decoupled_weight_decay (bool, optional): decay the weights directly, as AdamW
            does, rather than through the gradient. Default: ``False``.
        foreach (bool, optional): accepted for compatibility with PyTorch; nbgrad always
            uses its fused kernels (keyword only). Default: ``None``.
        maximize (bool, optional): maximize the objective rather than minimize it
            (keyword only). Default: ``False``.
        capturable (bool, optional): only ``False`` is supported. Default: ``False``.
        differentiable (bool, optional): only ``False`` is supported. Default: ``False``.

    Example::

        >>> import nbgrad
        >>> w = nbgrad.nn.Parameter(nbgrad.tensor([1.0, -2.0]))
        >>> opt = nbgrad.optim.RAdam([w], lr=0.1)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> [round(v, 4) for v in w.tolist()]
        [0.8, -1.6]
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False,
                 capturable=False, differentiable=False):
        _check_adam_args(lr, betas, eps, weight_decay)
        _check_unsupported(differentiable, capturable)
        # (PyTorch's implementation flags kept in the groups, in PyTorch's order)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        maximize=maximize, foreach=foreach, capturable=capturable,
                        decoupled_weight_decay=decoupled_weight_decay,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One update of every parameter that has a ``.grad``; returns ``closure()``'s loss."""
        loss = self._closure(closure)
        for group in self.param_groups:
            beta1, beta2 = (float(b) for b in group["betas"])
            lr, eps, wd = (float(group[k]) for k in ("lr", "eps", "weight_decay"))
            maximize = bool(group["maximize"])
            decoupled = bool(group.get("decoupled_weight_decay", False))
            for p, g, state in self._params_with_grad(group):
                step = _next_step(state)
                m = self._state_buffer(state, "exp_avg", p)
                v = self._state_buffer(state, "exp_avg_sq", p)
                bias_correction1 = 1 - beta1**step
                bias_correction2 = 1 - beta2**step
                rho_inf = 2 / (1 - beta2) - 1
                rho_t = rho_inf - 2 * step * (beta2**step) / bias_correction2
                rectify = rho_t > 5.0
                rect = (((rho_t - 4) * (rho_t - 2) * rho_inf
                         / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5 if rectify else 1.0)
                hp = updates.radam_scalars(g.dtype, lr, beta1, beta2, eps, wd,
                                           bias_correction1, bias_correction2**0.5, rect,
                                           rectify, decoupled, maximize)
                self._update(updates.radam, p, g, (m, v), hp)
        return loss
