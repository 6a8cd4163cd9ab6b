"""Averaged SGD (Polyak & Juditsky, 1992): SGD with a decaying step size, keeping a running
average of the iterates."""

from .. import dtypes as _dt
from ..kernels import updates
from .adam import _next_step
from .nadam import _scalar_state, _set_scalar
from .optimizer import Optimizer, _check_lr, _check_unsupported


class ASGD(Optimizer):
    """Averaged stochastic gradient descent (Polyak and Juditsky, "Acceleration of
    Stochastic Approximation by Averaging").

    Each step follows PyTorch's update rule:
    ``g = grad + weight_decay * p``, ``p = p * (1 - lambd * eta) - eta * g``; the average
    ``ax`` is ``p`` itself while ``mu == 1``, then ``ax += (p - ax) * mu``; after the step
    ``eta = lr / (1 + lambd * lr * step)**alpha`` and ``mu = 1 / max(1, step - t0)`` (both
    float32 scalars in the state, as PyTorch keeps them). Each parameter is updated by one
    fused kernel.

    Args:
        params (iterable): the tensors to optimize, or dicts defining parameter groups
            (each with ``"params"`` and any of the options below, overriding them).
        lr (float, optional): learning rate. Default: ``1e-2``.
        lambd (float, optional): decay term. Default: ``1e-4``.
        alpha (float, optional): power of the step size's decay. Default: ``0.75``.
        t0 (float, optional): the step at which averaging starts. Default: ``1e6``.
        weight_decay (float, optional): weight decay (L2 penalty). Default: ``0``.
        foreach (bool, optional): accepted for compatibility with PyTorch; nbgrad always
            uses its fused kernels. Default: ``None``.
        maximize (bool, optional): maximize the objective rather than minimize it.
            Default: ``False``.
        differentiable (bool, optional): only ``False`` is supported. Default: ``False``.
        capturable (bool, optional): only ``False`` is supported. Default: ``False``.

    Example::

        >>> import nbgrad
        >>> w = nbgrad.nn.Parameter(nbgrad.tensor([1.0, -2.0]))
        >>> opt = nbgrad.optim.ASGD([w], lr=0.1)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> [round(v, 4) for v in w.tolist()]
        [0.8, -1.6]
    """

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
                 foreach=None, maximize=False, differentiable=False, capturable=False):
        _check_lr(lr)
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        _check_unsupported(differentiable, capturable)
        # (PyTorch's implementation flags kept in the groups, in PyTorch's order)
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize, differentiable=differentiable,
                        capturable=capturable)
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One update of every parameter that has a ``.grad``; returns ``closure()``'s loss."""
        from ..creation import zeros

        loss = self._closure(closure)
        for group in self.param_groups:
            lr, lambd, alpha, t0, wd = (float(group[k]) for k in (
                "lr", "lambd", "alpha", "t0", "weight_decay"))
            maximize = bool(group["maximize"])
            for p, g, state in self._params_with_grad(group):
                if not state:  # PyTorch's keys, in its order, on the parameter's device
                    state["step"] = zeros((), dtype=_dt.float32, device=p._device)
                _scalar_state(state, "eta", lr, p._device)
                _scalar_state(state, "mu", 1.0, p._device)
                ax = self._state_buffer(state, "ax", p)
                eta, mu = state["eta"], state["mu"]
                step = _next_step(state)
                hp = updates.asgd_scalars(g.dtype, eta.item(), lambd, wd, mu.item(), maximize)
                self._update(updates.asgd, p, g, (ax,), hp)
                # PyTorch makes each new value a tensor of the default dtype first (and so
                # rounds it there) before copying it into the state's, which loading may
                # have made the parameter's
                for t, value in ((eta, lr / ((1 + lambd * lr * step) ** alpha)),
                                 (mu, 1 / max(1, step - t0))):
                    _set_scalar(t, float(_dt.get_default_dtype().np.type(value)))
        return loss
