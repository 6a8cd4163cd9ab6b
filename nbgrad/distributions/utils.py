"""Helpers of the distributions: parameters broadcast together, probabilities and logits
converted into each other (clamped as PyTorch clamps them), lazily computed attributes."""

import numbers

from .. import dtypes as _dt
from ..creation import ones, tensor
from ..nn import functional as F
from ..ops.rearrange import broadcast_tensors
from ..tensor import Size, Tensor


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


def _tril_mask(n, diag, device):
    """``n x n`` booleans, True on and below the ``diag``-th diagonal."""
    return ones(n, n, dtype=_dt.bool_, device=device).tril(diag)


def tril_matrix_to_vec(mat, diag=0):
    """The entries of ``mat``'s (batched, ``D x D``) lower triangle from the ``diag``-th
    diagonal down, read row by row into the last dim.

    Example::

        >>> import nbgrad
        >>> from nbgrad.distributions.utils import tril_matrix_to_vec
        >>> tril_matrix_to_vec(nbgrad.arange(9.0).reshape(3, 3), diag=-1)
        tensor([3., 6., 7.])
    """
    n = mat.shape[-1]
    if not -n <= diag < n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    return mat[..., _tril_mask(n, diag, mat.device)]


def vec_to_tril_matrix(vec, diag=0):
    """``tril_matrix_to_vec``'s inverse: the last dim of ``vec`` laid row by row into the
    lower triangle (from the ``diag``-th diagonal down) of ``D x D`` zeros.

    Example::

        >>> import nbgrad
        >>> from nbgrad.distributions.utils import vec_to_tril_matrix
        >>> vec_to_tril_matrix(nbgrad.tensor([1.0, 2.0, 3.0]), diag=-1)
        tensor([[0., 0., 0.],
                [1., 0., 0.],
                [2., 3., 0.]])
    """
    # D solves D**2 + (1 + 2 diag) D - |diag| (diag + 1) = 2 len(vec); as PyTorch, only a
    # root that rounds up is refused (one that rounds down fails where the values are put)
    b = 1 + 2 * diag
    n = (-b + (b * b + 8 * vec.shape[-1] + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    if round(n) - n > _dt.finfo(vec.dtype).eps:
        raise ValueError(f"The size of last dimension is {vec.shape[-1]} which cannot be "
                         "expressed as the lower triangular part of a square D x D matrix.")
    n = round(n)
    mat = vec.new_zeros(Size(tuple(vec.shape[:-1]) + (n, n)))
    mat[..., _tril_mask(n, diag, vec.device)] = vec
    return mat
