"""Adam and AdamW (decoupled weight decay), with AMSGrad."""

from .. import dtypes as _dt
from ..kernels import updates
from ..tensor import Tensor
from .optimizer import Optimizer, _check_adam_args, _check_unsupported


def _next_step(state):
    """Increment ``state["step"]`` (a float32 0-d CPU tensor, as PyTorch keeps it; created
    first, so it leads the state's keys as in PyTorch); return it as a Python float."""
    from ..creation import tensor

    st = state.get("step")
    if not isinstance(st, Tensor):
        st = tensor(float(st or 0.0), dtype=_dt.float32)
        state["step"] = st
    if st._device.type == "cpu":
        st._data[...] = st._data + 1
        st._vc[0] += 1
        return float(st._data)
    from ..autograd.grad_mode import no_grad

    with no_grad():
        st.add_(1)
    return float(st.item())


class Adam(Optimizer):
    """The Adam algorithm (Kingma and Ba, "Adam: A Method for Stochastic Optimization").

    Each step follows PyTorch's update rule, with ``g`` the gradient and ``t`` the step
    count: ``m = lerp(m, g, 1 - beta1)``, ``v = beta2 * v + (1 - beta2) * g * g``
    (``vmax = max(vmax, v)`` with AMSGrad, used in place of ``v``),
    ``p -= lr / (1 - beta1**t) * m / (sqrt(v) / sqrt(1 - beta2**t) + eps)``.
    Weight decay adds ``weight_decay * p`` to ``g`` or, decoupled (AdamW), scales ``p`` by
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
        amsgrad (bool, optional): use the AMSGrad variant ("On the Convergence of Adam
            and Beyond"). Default: ``False``.
        maximize (bool, optional): maximize the objective rather than minimize it.
            Default: ``False``.
        foreach (bool, optional): accepted for compatibility with PyTorch; nbgrad always
            uses its fused kernels. Default: ``None``.
        capturable (bool, optional): only ``False`` is supported. Default: ``False``.
        differentiable (bool, optional): only ``False`` is supported. Default: ``False``.
        fused (bool, optional): accepted for compatibility with PyTorch. Default: ``None``.
        decoupled_weight_decay (bool, optional): decay the weights directly, as
            :class:`AdamW` does, rather than through the gradient. Default: ``False``.

    Example::

        >>> w = nbgrad.nn.Parameter(nbgrad.tensor([1.0, -2.0]))
        >>> opt = nbgrad.optim.Adam([w], lr=0.1)
        >>> (w ** 2).sum().backward()
        >>> opt.step()                           # the first step moves each entry by ~lr
        >>> w
        Parameter containing:
        tensor([ 0.9000, -1.9000], requires_grad=True)
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        _check_adam_args(lr, betas, eps, weight_decay)
        _check_unsupported(differentiable, capturable)
        # (PyTorch's implementation flags kept in the groups, in PyTorch's order)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        amsgrad=amsgrad, maximize=maximize, foreach=foreach,
                        capturable=capturable, differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One update of every parameter that has a ``.grad``; returns ``closure()``'s loss."""
        loss = self._closure(closure)
        for group in self.param_groups:
            beta1, beta2 = (float(b) for b in group["betas"])
            lr = float(group["lr"])
            eps = float(group["eps"])
            wd = float(group["weight_decay"])
            amsgrad = bool(group["amsgrad"])
            maximize = bool(group["maximize"])
            decoupled = bool(group.get("decoupled_weight_decay", False))
            for p, g, state in self._params_with_grad(group):
                step = _next_step(state)
                m = self._state_buffer(state, "exp_avg", p)
                v = self._state_buffer(state, "exp_avg_sq", p)
                bias_correction1 = 1 - beta1**step
                bias_correction2 = 1 - beta2**step
                step_size = lr / bias_correction1
                bc2_sqrt = bias_correction2**0.5
                hp = updates.adam_scalars(g.dtype, lr, beta1, beta2, eps, wd, step_size,
                                          bc2_sqrt, decoupled, maximize)
                if amsgrad:
                    vmax = self._state_buffer(state, "max_exp_avg_sq", p)
                    self._update(updates.adam_amsgrad, p, g, (m, v, vmax), hp)
                else:
                    self._update(updates.adam, p, g, (m, v), hp)
        return loss


class AdamW(Adam):
    """The AdamW algorithm: Adam with decoupled weight decay.

    From Loshchilov and Hutter, "Decoupled Weight Decay Regularization". Each step scales the parameter by ``1 - lr * weight_decay`` before the :class:`Adam`
    update, instead of adding ``weight_decay * p`` to the gradient. The same as
    ``Adam(..., decoupled_weight_decay=True)``, with a default decay of ``1e-2``.

    Args:
        params (iterable): the tensors to optimize, or dicts defining parameter groups
            (each with ``"params"`` and any of the options below, overriding them).
        lr (float, optional): learning rate. Default: ``1e-3``.
        betas (Tuple[float, float], optional): the coefficients of the running averages
            of the gradient and of its square. Default: ``(0.9, 0.999)``.
        eps (float, optional): term added to the denominator for numerical stability.
            Default: ``1e-8``.
        weight_decay (float, optional): weight decay coefficient. Default: ``1e-2``.
        amsgrad (bool, optional): use the AMSGrad variant. Default: ``False``.
        maximize (bool, optional): maximize the objective rather than minimize it.
            Default: ``False``.
        foreach (bool, optional): accepted for compatibility with PyTorch; nbgrad always
            uses its fused kernels. Default: ``None``.
        capturable (bool, optional): only ``False`` is supported. Default: ``False``.
        differentiable (bool, optional): only ``False`` is supported. Default: ``False``.
        fused (bool, optional): accepted for compatibility with PyTorch. Default: ``None``.

    Example::

        >>> w = nbgrad.nn.Parameter(nbgrad.tensor([1.0, -2.0]))
        >>> opt = nbgrad.optim.AdamW([w], lr=0.1)
        >>> (w ** 2).sum().backward()
        >>> opt.step()                           # decay by 1 - 0.1 * 0.01, then Adam
        >>> w
        Parameter containing:
        tensor([ 0.8990, -1.8980], requires_grad=True)
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize,
                         foreach=foreach, capturable=capturable, differentiable=differentiable,
                         fused=fused, decoupled_weight_decay=True)
