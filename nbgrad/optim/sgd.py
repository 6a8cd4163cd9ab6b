"""Stochastic gradient descent, with momentum, dampening, Nesterov and weight decay."""

from ..kernels import updates
from .optimizer import Optimizer, _check_unsupported


class SGD(Optimizer):
    """``SGD(params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
    maximize=False)``, PyTorch's update rule:

    ``g = grad + weight_decay * p``; with momentum ``buf = momentum * buf + (1 - dampening) * g``
    (``buf = g`` on the first step) and ``g = g + momentum * buf`` (Nesterov) or ``g = buf``;
    then ``p -= lr * g``. Each parameter is updated by one fused kernel.
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
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening,
                        weight_decay=weight_decay, nesterov=nesterov, maximize=maximize)
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
