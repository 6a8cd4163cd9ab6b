"""Rprop (Riedmiller & Braun, 1993): per-element step sizes that grow while the gradient
keeps its sign and shrink when it flips; only the gradient's sign moves the parameter."""

from ..creation import full
from ..kernels import updates
from .adam import _next_step
from .optimizer import Optimizer, _check_lr, _check_unsupported


class Rprop(Optimizer):
    """The resilient backpropagation algorithm (Riedmiller and Braun, "A Direct Adaptive
    Method for Faster Backpropagation Learning: The RPROP Algorithm").

    Each step follows PyTorch's update rule, per element:
    where ``grad * prev > 0`` the step size is multiplied by ``etaplus``, where ``< 0`` by
    ``etaminus`` (and the gradient counts as 0 this step), then clamped to ``step_sizes``;
    ``p -= sign(grad) * step_size``, ``prev = grad``. The step sizes start at ``lr``. Each
    parameter is updated by one fused kernel.

    Args:
        params (iterable): the tensors to optimize, or dicts defining parameter groups
            (each with ``"params"`` and any of the options below, overriding them).
        lr (float, optional): the initial step size. Default: ``1e-2``.
        etas (Tuple[float, float], optional): ``(etaminus, etaplus)``, the factors that
            shrink and grow the step sizes. Default: ``(0.5, 1.2)``.
        step_sizes (Tuple[float, float], optional): the smallest and largest step sizes.
            Default: ``(1e-6, 50)``.
        capturable (bool, optional): only ``False`` is supported (keyword only).
            Default: ``False``.
        foreach (bool, optional): accepted for compatibility with PyTorch; nbgrad always
            uses its fused kernels. Default: ``None``.
        maximize (bool, optional): maximize the objective rather than minimize it.
            Default: ``False``.
        differentiable (bool, optional): only ``False`` is supported. Default: ``False``.

    Example::

        >>> import nbgrad
        >>> w = nbgrad.nn.Parameter(nbgrad.tensor([1.0, -2.0]))
        >>> opt = nbgrad.optim.Rprop([w], lr=0.1)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> [round(v, 4) for v in w.tolist()]
        [0.9, -1.9]
    """

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        _check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        _check_unsupported(differentiable, capturable)
        # (PyTorch's implementation flags kept in the groups, in PyTorch's order)
        defaults = dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One update of every parameter that has a ``.grad``; returns ``closure()``'s loss."""
        loss = self._closure(closure)
        for group in self.param_groups:
            etaminus, etaplus = (float(e) for e in group["etas"])
            lo, hi = (float(s) for s in group["step_sizes"])
            lr = float(group["lr"])
            maximize = bool(group["maximize"])
            for p, g, state in self._params_with_grad(group):
                fresh = not state
                _next_step(state)
                prev = self._state_buffer(state, "prev", p)
                if fresh:
                    state["step_size"] = full(tuple(p.shape), lr, dtype=p._dtype,
                                              device=p._device)
                size = self._state_buffer(state, "step_size", p)
                hp = updates.rprop_scalars(g.dtype, etaminus, etaplus, lo, hi, maximize)
                self._update(updates.rprop, p, g, (prev, size), hp)
        return loss
