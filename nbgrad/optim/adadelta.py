"""Adadelta (Zeiler, 2012): per-element step sizes from running means of squared gradients
and squared updates."""

from ..kernels import updates
from .adam import _next_step
from .optimizer import Optimizer, _check_unsupported


class Adadelta(Optimizer):
    """The Adadelta algorithm (Zeiler, "ADADELTA: An Adaptive Learning Rate Method").

    Each step follows PyTorch's update rule:
    ``g = grad + weight_decay * p``, ``square_avg = rho * square_avg + (1 - rho) * g * g``,
    ``delta = sqrt(acc_delta + eps) / sqrt(square_avg + eps) * g``,
    ``acc_delta = rho * acc_delta + (1 - rho) * delta * delta``, ``p -= lr * delta``.
    Each parameter is updated by one fused kernel (PyTorch's single-tensor step runs
    about ten elementwise passes).

    Args:
        params (iterable): the tensors to optimize, or dicts defining parameter groups
            (each with ``"params"`` and any of the options below, overriding them).
        lr (float, optional): coefficient that scales the update. Default: ``1.0``.
        rho (float, optional): coefficient of the running averages of the squared
            gradients and squared updates. Default: ``0.9``.
        eps (float, optional): term added inside the square roots for numerical
            stability. Default: ``1e-6``.
        weight_decay (float, optional): weight decay (L2 penalty). Default: ``0``.
        foreach (bool, optional): accepted for compatibility with PyTorch; nbgrad always
            uses its fused kernels. Default: ``None``.
        capturable (bool, optional): only ``False`` is supported. Default: ``False``.
        maximize (bool, optional): maximize the objective rather than minimize it
            (keyword only). Default: ``False``.
        differentiable (bool, optional): only ``False`` is supported. Default: ``False``.

    Example::

        >>> import nbgrad
        >>> w = nbgrad.nn.Parameter(nbgrad.tensor([1.0, -2.0]))
        >>> opt = nbgrad.optim.Adadelta([w], lr=1.0)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> [round(v, 4) for v in w.tolist()]
        [0.9968, -1.9968]
    """

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 capturable=False, maximize=False, differentiable=False):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        _check_unsupported(differentiable, capturable)
        # (PyTorch's implementation flags kept in the groups, in PyTorch's order)
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                        capturable=capturable, foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One update of every parameter that has a ``.grad``; returns ``closure()``'s loss."""
        loss = self._closure(closure)
        for group in self.param_groups:
            lr, rho, eps, wd = (float(group[k]) for k in ("lr", "rho", "eps", "weight_decay"))
            maximize = bool(group["maximize"])
            for p, g, state in self._params_with_grad(group):
                _next_step(state)
                sq = self._state_buffer(state, "square_avg", p)
                acc = self._state_buffer(state, "acc_delta", p)
                hp = updates.adadelta_scalars(g.dtype, lr, rho, eps, wd, maximize)
                self._update(updates.adadelta, p, g, (sq, acc), hp)
        return loss
