"""Spectral normalization (https://arxiv.org/abs/1802.05957) through a forward pre-hook, as
``torch.nn.utils.spectral_norm`` (``nn.utils.parametrizations.spectral_norm`` is the newer
form)."""

from ...autograd.grad_mode import no_grad
from ..parameter import Parameter, UninitializedParameter

__all__ = ["SpectralNorm", "spectral_norm", "remove_spectral_norm"]


def _default_dim(module):
    from ..modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d

    # a transposed convolution's weight is (in, out, ...): its outputs are dimension 1
    return 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)) else 0


class SpectralNorm:
    """The forward pre-hook of ``spectral_norm``: recomputes ``module.<name>`` as
    ``<name>_orig / sigma`` before each forward, running the power iteration on the
    buffers ``<name>_u`` and ``<name>_v`` (in place) when the module is training."""

    _version = 1

    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but "
                             f"got n_power_iterations={n_power_iterations}")
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight):
        w = weight
        if self.dim != 0:
            w = w.permute(self.dim, *[d for d in range(w.dim()) if d != self.dim])
        return w.reshape(w.size(0), -1)

    def compute_weight(self, module, do_power_iteration):
        from ... import dot, mv
        from .. import functional as F

        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                # in place: the buffers (and anything sharing them) carry the estimate on
                for _ in range(self.n_power_iterations):
                    v.copy_(F.normalize(mv(weight_mat.t(), u), dim=0, eps=self.eps))
                    u.copy_(F.normalize(mv(weight_mat, v), dim=0, eps=self.eps))
                # copies, so that a later iteration does not change what this graph saved
                u = u.clone()
                v = v.clone()
        sigma = dot(u, mv(weight_mat, v))
        return weight / sigma

    def remove(self, module):
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name,
                self.compute_weight(module, do_power_iteration=module.training))

    @staticmethod
    def apply(module, name, n_power_iterations, dim, eps):
        from .. import functional as F

        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(
                    f"Cannot register two spectral_norm hooks on the same parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        if isinstance(weight, UninitializedParameter):
            raise ValueError(
                "The module passed to `SpectralNorm` can't have uninitialized parameters. "
                "Make sure to run the dummy forward before applying spectral normalization")
        with no_grad():
            weight_mat = fn.reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            # random starting vectors (PyTorch's draws, in this order)
            u = F.normalize(weight.new_empty(h).normal_(0, 1), dim=0, eps=fn.eps)
            v = F.normalize(weight.new_empty(w).normal_(0, 1), dim=0, eps=fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        # a plain attribute until the first forward recomputes it
        setattr(module, fn.name, weight.data)
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        return fn


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Apply spectral normalization to ``module.<name>``: before every forward it is
    recomputed as ``<name>_orig / sigma``, ``sigma`` the largest singular value of the
    weight (reshaped to a matrix with dimension ``dim`` first), estimated by power
    iteration on the buffers ``<name>_u`` and ``<name>_v`` (``n_power_iterations`` steps at
    each forward in training mode, none in eval mode).

    Args:
        module (nn.Module): containing module.
        name (str, optional): name of the weight parameter. Default: ``"weight"``.
        n_power_iterations (int, optional): power iterations per forward. Default: ``1``.
        eps (float, optional): floor of the norms, for numerical stability.
            Default: ``1e-12``.
        dim (int, optional): the dimension of the outputs. Default: ``0``, except ``1``
            for ``ConvTranspose{1,2,3}d``.

    Returns:
        The module, with the spectral norm hook.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.utils.spectral_norm(nbgrad.nn.Linear(20, 40))
        >>> m
        Linear(in_features=20, out_features=40, bias=True)
        >>> m.weight_u.size()
        nbgrad.Size([40])
    """
    if dim is None:
        dim = _default_dim(module)
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module, name="weight"):
    """Remove the spectral normalization of ``module.<name>``: it becomes a parameter
    again, holding ``<name>_orig / sigma`` with the current ``u`` and ``v``.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.utils.spectral_norm(nbgrad.nn.Linear(40, 10))
        >>> m = nbgrad.nn.utils.remove_spectral_norm(m)
        >>> sorted(m.state_dict())
        ['bias', 'weight']
    """
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"spectral_norm of '{name}' not found in {module}")
