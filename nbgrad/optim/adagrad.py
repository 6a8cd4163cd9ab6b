"""Adagrad (Duchi et al., 2011): per-element steps scaled by the root of the summed squared
gradients."""

from .. import dtypes as _dt
from ..creation import full_like, tensor
from ..kernels import updates
from .adam import _next_step
from .optimizer import Optimizer, _check_unsupported


class Adagrad(Optimizer):
    """The Adagrad algorithm (Duchi et al., "Adaptive Subgradient Methods for Online
    Learning and Stochastic Optimization").

    Each step follows PyTorch's update rule:
    ``g = grad + weight_decay * p``, ``clr = lr / (1 + (step - 1) * lr_decay)``,
    ``sum += g * g``, ``p -= clr * g / (sqrt(sum) + eps)``. The state (``step``, ``sum``)
    is made when the optimizer is, as PyTorch's. Each parameter is updated by one fused
    kernel.

    Args:
        params (iterable): the tensors to optimize, or dicts defining parameter groups
            (each with ``"params"`` and any of the options below, overriding them).
        lr (float, optional): learning rate. Default: ``1e-2``.
        lr_decay (float, optional): learning rate decay. Default: ``0``.
        weight_decay (float, optional): weight decay (L2 penalty). Default: ``0``.
        initial_accumulator_value (float, optional): the starting value of the sums of
            squared gradients. Default: ``0``.
        eps (float, optional): term added to the denominator for numerical stability.
            Default: ``1e-10``.
        foreach (bool, optional): accepted for compatibility with PyTorch; nbgrad always
            uses its fused kernels. Default: ``None``.
        maximize (bool, optional): maximize the objective rather than minimize it
            (keyword only). Default: ``False``.
        differentiable (bool, optional): only ``False`` is supported. Default: ``False``.
        fused (bool, optional): accepted for compatibility with PyTorch. Default: ``None``.

    Example::

        >>> import nbgrad
        >>> w = nbgrad.nn.Parameter(nbgrad.tensor([1.0, -2.0]))
        >>> opt = nbgrad.optim.Adagrad([w], lr=0.1)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> [round(v, 4) for v in w.tolist()]
        [0.9, -1.9]
    """

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0,
                 eps=1e-10, foreach=None, *, maximize=False, differentiable=False, fused=None):
        for name, v in (("learning rate", lr), ("lr_decay value", lr_decay),
                        ("weight_decay value", weight_decay),
                        ("initial_accumulator_value value", initial_accumulator_value),
                        ("epsilon value", eps)):
            if not 0.0 <= v:
                raise ValueError(f"Invalid {name}: {v}")
        _check_unsupported(differentiable)
        # (PyTorch's implementation flags kept in the groups, in PyTorch's order)
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value,
                        foreach=foreach, maximize=maximize, differentiable=differentiable,
                        fused=fused)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = tensor(0.0, dtype=_dt.float32)
                state["sum"] = full_like(p.detach(), group["initial_accumulator_value"])

    def step(self, closure=None):
        """One update of every parameter that has a ``.grad``; returns ``closure()``'s loss."""
        loss = self._closure(closure)
        for group in self.param_groups:
            lr, lr_decay, eps, wd = (float(group[k]) for k in ("lr", "lr_decay", "eps",
                                                              "weight_decay"))
            maximize = bool(group["maximize"])
            for p, g, state in self._params_with_grad(group):
                step = _next_step(state)
                acc = self._state_buffer(state, "sum", p)
                clr = lr / (1 + (step - 1) * lr_decay)
                hp = updates.adagrad_scalars(g.dtype, clr, eps, wd, maximize)
                self._update(updates.adagrad, p, g, (acc,), hp)
        return loss
