"""Weight normalization (https://arxiv.org/abs/1602.07868) through a forward pre-hook, as
``torch.nn.utils.weight_norm``: deprecated in favour of
``nn.utils.parametrizations.weight_norm``."""

import warnings

from ..parameter import Parameter, UninitializedParameter

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm"]


def _norm_except_dim(v, dim):
    """PyTorch's ``norm_except_dim(v, 2, dim)``: the 2-norm over every dimension but
    ``dim``, kept as size-1 dimensions; ``dim=-1`` means the norm of the whole tensor (a
    0-dim result), not the last dimension."""
    from ... import linalg

    if dim == -1:
        return linalg.vector_norm(v)
    nd = v.ndim
    if not -nd <= dim < nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, "
                         f"{nd - 1}], but got {dim})")
    dim %= nd
    others = tuple(d for d in range(nd) if d != dim)
    if not others:  # a vector normed along its only dimension: each element alone
        return v.abs()
    return linalg.vector_norm(v, 2, dim=others, keepdim=True)


def _weight_norm(v, g, dim):
    """PyTorch's ``_weight_norm(v, g, dim)``: ``v`` rescaled to the norm ``g``."""
    return v * (g / _norm_except_dim(v, dim))


class WeightNorm:
    """The forward pre-hook of ``weight_norm``: recomputes ``module.<name>`` from
    ``<name>_g`` and ``<name>_v`` before each forward."""

    def __init__(self, name, dim):
        if dim is None:
            dim = -1
        self.name = name
        self.dim = dim

    def compute_weight(self, module):
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return _weight_norm(v, g, self.dim)

    @staticmethod
    def apply(module, name, dim):
        warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                      "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning,
                      stacklevel=3)
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(
                    f"Cannot register two weight_norm hooks on the same parameter {name}")
        if dim is None:
            dim = -1
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        if isinstance(weight, UninitializedParameter):
            raise ValueError(
                "The module passed to `WeightNorm` can't have uninitialized parameters. "
                "Make sure to run the dummy forward before applying weight normalization")
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(_norm_except_dim(weight, dim).data))
        module.register_parameter(name + "_v", Parameter(weight.data))
        # a plain attribute now, recomputed by the hook before every forward
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module):
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.data))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    """Apply weight normalization to ``module.<name>``: it is replaced by the parameters
    ``<name>_g`` (the magnitude, the norm over every dimension but ``dim``) and
    ``<name>_v`` (the direction), and recomputed as ``g * v / ||v||`` by a forward
    pre-hook before every forward. ``dim=None`` takes the norm of the whole tensor.

    Deprecated (a FutureWarning, as PyTorch's): use
    ``nn.utils.parametrizations.weight_norm``, whose ``state_dict`` loads this one's.

    Args:
        module (Module): containing module.
        name (str, optional): name of the weight parameter. Default: ``"weight"``.
        dim (int, optional): dimension kept by the norm. Default: ``0``.

    Returns:
        The module, with the weight norm hook.

    Example::

        >>> import warnings
        >>> import nbgrad
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     m = nbgrad.nn.utils.weight_norm(nbgrad.nn.Linear(20, 40), name="weight")
        >>> m
        Linear(in_features=20, out_features=40, bias=True)
        >>> m.weight_g.size(), m.weight_v.size()
        (nbgrad.Size([40, 1]), nbgrad.Size([40, 20]))
    """
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name="weight"):
    """Remove the weight normalization of ``module.<name>``: it becomes a parameter again,
    holding the current normalized value.

    Example::

        >>> import warnings
        >>> import nbgrad
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     m = nbgrad.nn.utils.weight_norm(nbgrad.nn.Linear(20, 40))
        >>> m = nbgrad.nn.utils.remove_weight_norm(m)
        >>> sorted(m.state_dict())
        ['bias', 'weight']
    """
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
