"""NAdam (Dozat, 2016): Adam with Nesterov momentum, its momentum warmed up by a decaying
schedule."""

import numpy as np

from .. import dtypes as _dt
from ..kernels import updates
from ..tensor import Tensor
from .adam import _next_step
from .optimizer import Optimizer, _check_adam_args, _check_unsupported


def _scalar_state(state, key, value, device=None):
    """``state[key]`` as a float32 0-d tensor (PyTorch keeps these per-parameter scalars so),
    made from ``value`` when missing."""
    from ..creation import tensor

    t = state.get(key)
    if not isinstance(t, Tensor):
        t = tensor(float(value if t is None else t), dtype=_dt.float32, device=device)
        state[key] = t
    return t


def _set_scalar(t, value):
    """Write ``value`` into 0-d tensor ``t`` (rounded to its dtype, as ``copy_`` does)."""
    from ..autograd.grad_mode import no_grad

    if t._device.type == "cpu":
        t._data[...] = value
        t._vc[0] += 1
    else:
        with no_grad():
            t.fill_(value)


class NAdam(Optimizer):
    """The NAdam algorithm: Adam with Nesterov momentum (Dozat, "Incorporating Nesterov
    Momentum into Adam").

    Each step follows PyTorch's update rule:
    ``mu_t = beta1 * (1 - 0.5 * 0.96**(t * momentum_decay))``, ``mu_product *= mu_t`` (a
    float32 scalar, as PyTorch keeps it); ``exp_avg = lerp(exp_avg, g, 1 - beta1)``,
    ``exp_avg_sq = beta2 * exp_avg_sq + (1 - beta2) * g * g``,
    ``denom = sqrt(exp_avg_sq / (1 - beta2**t)) + eps``, then
    ``p -= lr * (1 - mu_t) / (1 - mu_product) * g / denom`` and
    ``p -= lr * mu_{t+1} / (1 - mu_product * mu_{t+1}) * exp_avg / denom``. Weight decay
    adds ``weight_decay * p`` to ``g`` or, decoupled (NAdamW), scales ``p`` by
    ``1 - lr * weight_decay`` first. Each parameter is updated by one fused kernel.

    Args:
        params (iterable): the tensors to optimize, or dicts defining parameter groups
            (each with ``"params"`` and any of the options below, overriding them).
        lr (float, optional): learning rate. Default: ``2e-3``.
        betas (Tuple[float, float], optional): the coefficients of the running averages
            of the gradient and of its square. Default: ``(0.9, 0.999)``.
        eps (float, optional): term added to the denominator for numerical stability.
            Default: ``1e-8``.
        weight_decay (float, optional): weight decay (L2 penalty). Default: ``0``.
        momentum_decay (float, optional): the rate of the momentum's warm-up (the
            ``momentum_decay`` of ``mu_t`` above). Default: ``4e-3``.
        decoupled_weight_decay (bool, optional): decay the weights directly, as AdamW
            does (NAdamW), rather than through the gradient. Default: ``False``.
        foreach (bool, optional): accepted for compatibility with PyTorch; nbgrad always
            uses its fused kernels (keyword only). Default: ``None``.
        maximize (bool, optional): maximize the objective rather than minimize it
            (keyword only). Default: ``False``.
        capturable (bool, optional): only ``False`` is supported. Default: ``False``.
        differentiable (bool, optional): only ``False`` is supported. Default: ``False``.

    Example::

        >>> import nbgrad
        >>> w = nbgrad.nn.Parameter(nbgrad.tensor([1.0, -2.0]))
        >>> opt = nbgrad.optim.NAdam([w], lr=0.1)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> [round(v, 4) for v in w.tolist()]
        [0.8944, -1.8944]
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False):
        _check_adam_args(lr, betas, eps, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        _check_unsupported(differentiable, capturable)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize)
        # (PyTorch's implementation flags, kept in the groups as PyTorch keeps them)
        defaults.update(foreach=foreach, capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One update of every parameter that has a ``.grad``; returns ``closure()``'s loss."""
        loss = self._closure(closure)
        for group in self.param_groups:
            beta1, beta2 = (float(b) for b in group["betas"])
            lr, eps, wd, psi = (float(group[k]) for k in ("lr", "eps", "weight_decay",
                                                         "momentum_decay"))
            maximize = bool(group["maximize"])
            decoupled = bool(group.get("decoupled_weight_decay", False))
            for p, g, state in self._params_with_grad(group):
                step = _next_step(state)  # made first: "step" leads the keys
                mu_product = _scalar_state(state, "mu_product", 1.0)
                m = self._state_buffer(state, "exp_avg", p)
                v = self._state_buffer(state, "exp_avg_sq", p)
                mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * psi)))
                mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * psi)))
                # ``mu_product *= mu`` in the tensor's dtype: float32 as made, the
                # parameter's after load_state_dict (which casts it, as PyTorch's does)
                t = np.dtype(mu_product.dtype.np).type
                prod = float(t(mu_product.item()) * t(mu))
                _set_scalar(mu_product, prod)
                c_grad = -lr * (1.0 - mu) / (1.0 - prod)
                c_avg = (-lr * mu_next) / (1.0 - prod * mu_next)
                hp = updates.nadam_scalars(g.dtype, lr, beta1, beta2, eps, wd,
                                           1 - beta2**step, c_grad, c_avg, decoupled,
                                           maximize)
                self._update(updates.nadam, p, g, (m, v), hp)
        return loss
