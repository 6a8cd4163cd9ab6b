"""Stochastic gradient descent, with momentum, dampening, Nesterov and weight decay."""

from ..kernels import updates
from .optimizer import Optimizer, _check_unsupported


class SGD(Optimizer):
    """Stochastic gradient descent, optionally with momentum (Nesterov's included).

    Each step follows PyTorch's update rule, with ``g`` the gradient (negated when
    ``maximize``): ``g = g + weight_decay * p``; with momentum,
    ``buf = momentum * buf + (1 - dampening) * g`` (``buf = g`` on the first step) and
    ``g = g + momentum * buf`` (Nesterov) or ``g = buf``; then ``p -= lr * g``. Each
    parameter is updated by one fused kernel.

    Args:
        params (iterable): the tensors to optimize, or dicts defining parameter groups
            (each with ``"params"`` and any of the options below, overriding them).
        lr (float, optional): learning rate. Default: ``1e-3``.
        momentum (float, optional): momentum factor. Default: ``0``.
        dampening (float, optional): dampening of the momentum. Default: ``0``.
        weight_decay (float, optional): L2 penalty, added to the gradient as
            ``weight_decay * p``. Default: ``0``.
        nesterov (bool, optional): use Nesterov momentum (which needs ``momentum > 0``
            and ``dampening == 0``). Default: ``False``.
        maximize (bool, optional): maximize the objective rather than minimize it.
            Default: ``False``.
        foreach (bool, optional): accepted for compatibility with PyTorch; nbgrad always
            uses its fused kernels. Default: ``None``.
        differentiable (bool, optional): only ``False`` is supported. Default: ``False``.
        fused (bool, optional): accepted for compatibility with PyTorch. Default: ``None``.

    Example::

        >>> w = nbgrad.nn.Parameter(nbgrad.tensor([1.0, -2.0]))
        >>> opt = nbgrad.optim.SGD([w], lr=0.1, momentum=0.9)
        >>> for _ in range(2):
        ...     opt.zero_grad()
        ...     (w ** 2).sum().backward()
        ...     opt.step()
        >>> w
        Parameter containing:
        tensor([ 0.4600, -0.9200], requires_grad=True)
    """

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0,
                 nesterov=False, *, maximize=False, foreach=None, differentiable=False,
                 fused=None):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        _check_unsupported(differentiable)
        # (PyTorch's implementation flags kept in the groups, in PyTorch's order)
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening,
                        weight_decay=weight_decay, nesterov=nesterov, maximize=maximize,
                        foreach=foreach, differentiable=differentiable, fused=fused)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One update of every parameter that has a ``.grad``; returns ``closure()``'s loss."""
        loss = self._closure(closure)
        for group in self.param_groups:
            lr = float(group["lr"])
            wd = float(group["weight_decay"])
            momentum = float(group["momentum"])
            dampening = float(group["dampening"])
            nesterov = bool(group["nesterov"])
            maximize = bool(group["maximize"])
            for p, g, state in self._params_with_grad(group):
                if momentum != 0:
                    first = state.get("momentum_buffer") is None
                    buf = self._state_buffer(state, "momentum_buffer", p)
                    hp = updates.sgd_momentum_scalars(g.dtype, lr, wd, momentum, dampening,
                                                      nesterov, maximize, first)
                    self._update(updates.sgd_momentum, p, g, (buf,), hp)
                else:
                    hp = updates.sgd_scalars(g.dtype, lr, wd, maximize)
                    self._update(updates.sgd, p, g, (), hp)
        return loss
