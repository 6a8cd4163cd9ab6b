"""Adamax (Kingma & Ba, 2015): Adam with the infinity norm of past gradients in place of
their root mean square."""

from ..kernels import updates
from .adam import _next_step
from .optimizer import Optimizer, _check_adam_args, _check_unsupported


class Adamax(Optimizer):
    """The Adamax algorithm: Adam with the infinity norm (Kingma and Ba, "Adam: A Method
    for Stochastic Optimization", section 7).

    Each step follows PyTorch's update rule:
    ``g = grad + weight_decay * p``, ``exp_avg = lerp(exp_avg, g, 1 - beta1)``,
    ``exp_inf = max(beta2 * exp_inf, |g| + eps)``,
    ``p -= lr / (1 - beta1**step) * exp_avg / exp_inf``. Each parameter is updated by one
    fused kernel.

    Args:
        params (iterable): the tensors to optimize, or dicts defining parameter groups
            (each with ``"params"`` and any of the options below, overriding them).
        lr (float, optional): learning rate. Default: ``2e-3``.
        betas (Tuple[float, float], optional): the coefficients of the running average
            of the gradient and of the decay of the infinity norm.
            Default: ``(0.9, 0.999)``.
        eps (float, optional): term added to the denominator for numerical stability.
            Default: ``1e-8``.
        weight_decay (float, optional): weight decay (L2 penalty). Default: ``0``.
        foreach (bool, optional): accepted for compatibility with PyTorch; nbgrad always
            uses its fused kernels. Default: ``None``.
        maximize (bool, optional): maximize the objective rather than minimize it
            (keyword only). Default: ``False``.
        differentiable (bool, optional): only ``False`` is supported. Default: ``False``.
        capturable (bool, optional): only ``False`` is supported. Default: ``False``.

    Example::

        >>> import nbgrad
        >>> w = nbgrad.nn.Parameter(nbgrad.tensor([1.0, -2.0]))
        >>> opt = nbgrad.optim.Adamax([w], lr=0.1)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> [round(v, 4) for v in w.tolist()]
        [0.9, -1.9]
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 foreach=None, *, maximize=False, differentiable=False, capturable=False):
        _check_adam_args(lr, betas, eps, weight_decay)
        _check_unsupported(differentiable, capturable)
        # (PyTorch's implementation flags kept in the groups, in PyTorch's order)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize, differentiable=differentiable,
                        capturable=capturable)
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One update of every parameter that has a ``.grad``; returns ``closure()``'s loss."""
        loss = self._closure(closure)
        for group in self.param_groups:
            beta1, beta2 = (float(b) for b in group["betas"])
            lr, eps, wd = (float(group[k]) for k in ("lr", "eps", "weight_decay"))
            maximize = bool(group["maximize"])
            for p, g, state in self._params_with_grad(group):
                step = _next_step(state)
                m = self._state_buffer(state, "exp_avg", p)
                u = self._state_buffer(state, "exp_inf", p)
                clr = lr / (1 - beta1**step)
                hp = updates.adamax_scalars(g.dtype, clr, beta1, beta2, eps, wd, maximize)
                self._update(updates.adamax, p, g, (m, u), hp)
        return loss
