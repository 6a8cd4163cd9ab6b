"""Helpers of the distributions: parameters broadcast together, probabilities and logits
converted into each other (clamped as PyTorch clamps them), lazily computed attributes."""

import numbers

from .. import dtypes as _dt
from ..creation import tensor
from ..nn import functional as F
from ..ops.rearrange import broadcast_tensors
from ..tensor import Tensor


class lazy_property:
    """An attribute computed on first read and then stored on the instance (PyTorch's: a
    distribution built from ``probs`` has ``logits`` only once asked)."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__
        self.__name__ = wrapped.__name__

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return self
        value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


def broadcast_all(*values):
    """Tensors and numbers broadcast to one shape; numbers become tensors of the default
    dtype (or of the tensors' dtype and device)."""
    if not all(isinstance(v, (Tensor, numbers.Number)) for v in values):
        raise ValueError("Input arguments must all be instances of numbers.Number, "
                         "torch.Tensor or objects implementing __torch_function__.")
    if not all(isinstance(v, Tensor) for v in values):
        like = next((v for v in values if isinstance(v, Tensor)), None)
        opts = (dict(dtype=_dt.get_default_dtype()) if like is None
                else dict(dtype=like.dtype, device=like.device))
        values = [v if isinstance(v, Tensor) else tensor(v, **opts) for v in values]
    return broadcast_tensors(*values)


def clamp_probs(probs):
    """``probs`` kept within ``[eps, 1 - eps]`` of its dtype (so logs stay finite)."""
    eps = _dt.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def logits_to_probs(logits, is_binary=False):
    """Probabilities of logits: the sigmoid (binary) or the softmax over the last dim."""
    if is_binary:
        return logits.sigmoid()
    return F.softmax(logits, dim=-1)


def probs_to_logits(probs, is_binary=False):
    """Logits of probabilities (clamped): ``log p - log1p(-p)`` (binary) or ``log p``."""
    ps_clamped = clamp_probs(probs)
    if is_binary:
        return ps_clamped.log() - (-ps_clamped).log1p()
    return ps_clamped.log()


def standard_normal(shape, dtype, device):
    """N(0, 1) samples (``empty(shape).normal_()``, PyTorch's draws for a seed)."""
    from ..creation import empty

    return empty(shape, dtype=dtype, device=device).normal_()


def sum_rightmost(value, dim):
    """``value`` summed over its last ``dim`` dims."""
    if dim == 0:
        return value
    return value.reshape(tuple(value.shape[:value.ndim - dim]) + (-1,)).sum(-1)


class BinaryProbsLogits:
    """``probs`` and ``logits`` of a distribution over {0, 1} outcomes, each computed from
    the other when read (a distribution keeps the one it was given)."""

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)


def count_and_param(dist, total_count, probs, logits):
    """Set ``dist.total_count`` and ``dist.probs`` or ``dist.logits`` (give one), broadcast
    together, the count in the parameter's dtype; ``dist._param`` is the one given."""
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")
    name, value = ("probs", probs) if probs is not None else ("logits", logits)
    count, param = broadcast_all(total_count, value)
    dist.total_count = count.type_as(param)
    setattr(dist, name, param)
    dist._param = param


def batch_shape_of(given, broadcast):
    """The batch shape of a distribution built from parameters ``given``: none when all
    are numbers, else that of their broadcast tensors."""
    import numbers

    from ..tensor import Size

    return Size() if all(isinstance(v, numbers.Number) for v in given) else broadcast.size()

