"""Instance norm layers: InstanceNorm1d, InstanceNorm2d, InstanceNorm3d, their lazy forms (the batch-norm layers' parameters
and buffers, ``F.instance_norm``'s statistics)."""

from .batchnorm import _BatchNorm
from .lazy import lazy_norm

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LazyInstanceNorm1d",
           "LazyInstanceNorm2d", "LazyInstanceNorm3d"]


class _InstanceNorm(_BatchNorm):
    """Instance norm (``F.instance_norm``): each sample's channels over their positions;
    PyTorch's defaults (no affine, no running statistics) and unbatched input."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False,
                 track_running_stats=False, device=None, dtype=None):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype)

    def forward(self, input):
        from .. import functional as F

        batched = self._dims[-1]
        if input.ndim not in (batched - 1, batched):
            raise ValueError(f"expected {batched - 1}D or {batched}D input (got {input.ndim}D "
                             "input)")
        if input.ndim == batched - 1:
            return self.forward(input.unsqueeze(0)).squeeze(0)
        out = F.instance_norm(input, self.running_mean, self.running_var, self.weight,
                              self.bias, self.training or not self.track_running_stats,
                              self.momentum if self.momentum is not None else 0.0, self.eps)
        return out


class InstanceNorm1d(_InstanceNorm):
    """Instance norm over (N, C, L) or (C, L) input."""

    _dims = (3,)


class InstanceNorm2d(_InstanceNorm):
    """Instance norm over (N, C, H, W) or (C, H, W) input."""

    _dims = (4,)


class InstanceNorm3d(_InstanceNorm):
    """Instance norm over (N, C, D, H, W) or (C, D, H, W) input."""

    _dims = (5,)


LazyInstanceNorm1d, LazyInstanceNorm2d, LazyInstanceNorm3d = (
    lazy_norm(f"LazyInstanceNorm{n}d", b)
    for n, b in ((1, InstanceNorm1d), (2, InstanceNorm2d), (3, InstanceNorm3d)))
