"""PyTorch's top-level forms of functions nbgrad has elsewhere: ``torch.exp_(x)`` is
``x.exp_()``, ``torch.dropout(x, p, train)`` is ``F.dropout``, ``torch.kl_div`` takes its
reduction as PyTorch's integer enum, ``torch.concat`` is ``cat``, ``torch.t_copy`` a copy of
``t``. Each name takes PyTorch's arguments for it (those of its C++ signature, which differ
from ``nn.functional``'s: ``torch.embedding(weight, indices)``, ``torch.batch_norm`` with
the parameters before the statistics)."""

import functools

# ``torch.newaxis``: an index of None adds a dim of size 1, as NumPy's
newaxis = None

# in-place ops PyTorch also offers as functions of the tensor
_INPLACE_METHODS = (
    "abs_ acos_ acosh_ arccos_ arccosh_ arcsin_ arcsinh_ arctan_ arctanh_ asin_ asinh_ atan_ "
    "atanh_ ceil_ clamp_ clamp_max_ clamp_min_ clip_ cos_ cosh_ deg2rad_ erf_ erfc_ exp2_ "
    "exp_ expm1_ fix_ floor_ frac_ gcd_ lcm_ ldexp_ log10_ log1p_ log2_ log_ logit_ "
    "nan_to_num_ neg_ negative_ rad2deg_ reciprocal_ round_ rsqrt_ sigmoid_ sin_ sinc_ "
    "sinh_ sqrt_ square_ tan_ tanh_ trunc_ xlogy_ fill_ zero_ index_put_ detach_ mvlgamma_"
).split()
# Tensor methods PyTorch also offers as functions
_METHODS = ("detach msort ravel narrow_copy split_with_sizes is_nonzero is_same_size "
            "is_signed get_device is_complex is_conj is_neg resolve_conj resolve_neg "
            "conj adjoint unsafe_chunk unsafe_split unsafe_split_with_sizes geqrf orgqr "
            "ormqr").split()
# view ops whose ``*_copy`` form returns a copy that shares no storage
_COPIES = ("view permute t transpose squeeze unsqueeze expand diagonal select narrow "
           "unfold detach alias").split()
_COPIES_MULTI = ("split split_with_sizes unbind").split()

# (PyTorch's integer enum; its top-level forms default to 0, no reduction, unlike
# nn.functional's "mean")
_REDUCTION = {0: "none", 1: "mean", 2: "sum"}


def _method_function(name):
    def fn(input, *args, **kwargs):
        return getattr(input, name)(*args, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``input.{name}(...)``: PyTorch's ``torch.{name}``."
    return fn


def _copy_function(name, multi):
    def fn(input, *args, **kwargs):
        out = getattr(input, name)(*args, **kwargs) if name != "alias" else input.view_as(
            input)
        return tuple(o.clone() for o in out) if multi else out.clone()

    fn.__name__ = fn.__qualname__ = name + "_copy"
    fn.__doc__ = f"A copy of ``input.{name}(...)`` (shares no storage): PyTorch's " \
                 f"``torch.{name}_copy``."
    return fn


def _reduction(r):
    if r not in _REDUCTION:
        raise ValueError(f"{r} is not a valid value for reduction")
    return _REDUCTION[r]


def _F():
    from .nn import functional

    return functional


def dropout(input, p, train):
    """``F.dropout(input, p, train)``."""
    return _F().dropout(input, p, train)


def dropout_(input, p, train):
    """``F.dropout(input, p, train, inplace=True)``."""
    return _F().dropout(input, p, train, inplace=True)


def alpha_dropout(input, p, train):
    """``F.alpha_dropout(input, p, train)``."""
    return _F().alpha_dropout(input, p, train)


def alpha_dropout_(input, p, train):
    """``F.alpha_dropout(input, p, train, inplace=True)``."""
    return _F().alpha_dropout(input, p, train, inplace=True)


def feature_alpha_dropout(input, p, train):
    """``F.feature_alpha_dropout(input, p, train)``."""
    return _F().feature_alpha_dropout(input, p, train)


def feature_alpha_dropout_(input, p, train):
    """``F.feature_alpha_dropout(input, p, train, inplace=True)``."""
    return _F().feature_alpha_dropout(input, p, train, inplace=True)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05,
               cudnn_enable=True):
    """``F.layer_norm`` (``cudnn_enable`` is accepted)."""
    return _F().layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True):
    """``F.group_norm`` (``cudnn_enabled`` is accepted)."""
    return _F().group_norm(input, num_groups, weight, bias, eps)


def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
               cudnn_enabled):
    """``F.batch_norm`` with PyTorch's top-level argument order (parameters first)."""
    return _F().batch_norm(input, running_mean, running_var, weight, bias, training, momentum,
                           eps)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum,
                  eps, cudnn_enabled):
    """``F.instance_norm`` with PyTorch's top-level argument order (parameters first)."""
    return _F().instance_norm(input, running_mean, running_var, weight, bias, use_input_stats,
                              momentum, eps)


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """``F.embedding(indices, weight, ...)`` (``padding_idx=-1``: none)."""
    return _F().embedding(indices, weight, None if padding_idx == -1 else padding_idx,
                          scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


def kl_div(input, target, reduction=0, *, log_target=False):
    """``F.kl_div`` with the reduction as PyTorch's enum (0 none, 1 mean, 2 sum)."""
    return _F().kl_div(input, target, reduction=_reduction(reduction), log_target=log_target)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=0,
             zero_infinity=False):
    """``F.ctc_loss`` with the reduction as PyTorch's enum."""
    return _F().ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                         _reduction(reduction), zero_infinity)


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
    """``F.margin_ranking_loss`` with the reduction as PyTorch's enum."""
    return _F().margin_ranking_loss(input1, input2, target, margin,
                                    reduction=_reduction(reduction))


def hinge_embedding_loss(input, target, margin=1.0, reduction=0):
    """``F.hinge_embedding_loss`` with the reduction as PyTorch's enum."""
    return _F().hinge_embedding_loss(input, target, margin, reduction=_reduction(reduction))


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    """``F.cosine_embedding_loss`` with the reduction as PyTorch's enum."""
    return _F().cosine_embedding_loss(input1, input2, target, margin,
                                      reduction=_reduction(reduction))


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False,
                        reduction=0):
    """``F.triplet_margin_loss`` with the reduction as PyTorch's enum."""
    return _F().triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                    reduction=_reduction(reduction))


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    """``F.poisson_nll_loss`` with every argument given, the reduction as PyTorch's enum."""
    return _F().poisson_nll_loss(input, target, log_input, full, eps=eps,
                                 reduction=_reduction(reduction))


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None,
                                     reduction=0):
    """``F.binary_cross_entropy_with_logits`` with the reduction as PyTorch's enum."""
    return _F().binary_cross_entropy_with_logits(input, target, weight,
                                                 reduction=_reduction(reduction),
                                                 pos_weight=pos_weight)


def celu(input, alpha=1.0):
    """``F.celu``."""
    return _F().celu(input, alpha)


def celu_(input, alpha=1.0):
    """``F.celu(input, alpha, inplace=True)``."""
    return _F().celu(input, alpha, inplace=True)


def selu(input):
    """``F.selu``."""
    return _F().selu(input)


def selu_(input):
    """``F.selu(input, inplace=True)``."""
    return _F().selu(input, inplace=True)


def rrelu(input, lower=0.125, upper=1.0 / 3.0, training=False, generator=None):
    """``F.rrelu``."""
    return _F().rrelu(input, lower, upper, training)


def rrelu_(input, lower=0.125, upper=1.0 / 3.0, training=False, generator=None):
    """``F.rrelu(..., inplace=True)``."""
    return _F().rrelu(input, lower, upper, training, inplace=True)


def threshold(input, threshold, value):
    """``F.threshold``."""
    return _F().threshold(input, threshold, value)


def threshold_(input, threshold, value):
    """``F.threshold(input, threshold, value, inplace=True)``."""
    return _F().threshold(input, threshold, value, inplace=True)


def relu_(input):
    """``input.relu_()``."""
    return input.relu_()


def max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """``F.max_pool1d`` (an empty ``stride``: the kernel size)."""
    return _F().max_pool1d(input, kernel_size, stride or None, padding, dilation, ceil_mode)


def max_pool3d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """``F.max_pool3d`` (an empty ``stride``: the kernel size)."""
    return _F().max_pool3d(input, kernel_size, stride or None, padding, dilation, ceil_mode)


def avg_pool1d(input, kernel_size, stride=(), padding=0, ceil_mode=False,
               count_include_pad=True):
    """``F.avg_pool1d`` (an empty ``stride``: the kernel size)."""
    return _F().avg_pool1d(input, kernel_size, stride or None, padding, ceil_mode,
                           count_include_pad)


def _same_as_functional(name):
    @functools.wraps(getattr(_F(), name))
    def fn(*args, **kwargs):
        return getattr(_F(), name)(*args, **kwargs)

    return fn


# nn.functional names whose top-level form takes the same arguments
_SAME = ("conv1d conv_transpose1d conv_transpose2d conv3d conv_transpose3d cosine_similarity "
         "pairwise_distance pixel_shuffle pixel_unshuffle bilinear rms_norm").split()


def names():
    """``{name: function}`` of every top-level form this module makes."""
    from .tensor import Tensor

    out = {n: _method_function(n) for n in _INPLACE_METHODS + _METHODS if hasattr(Tensor, n)}
    out.update({n + "_copy": _copy_function(n, False) for n in _COPIES})
    out.update({n + "_copy": _copy_function(n, True) for n in _COPIES_MULTI})
    out.update({n: _same_as_functional(n) for n in _SAME})
    g = globals()
    out.update({n: g[n] for n in (
        "dropout dropout_ alpha_dropout alpha_dropout_ feature_alpha_dropout "
        "feature_alpha_dropout_ layer_norm group_norm batch_norm "
        "instance_norm embedding kl_div ctc_loss margin_ranking_loss hinge_embedding_loss "
        "cosine_embedding_loss triplet_margin_loss poisson_nll_loss "
        "binary_cross_entropy_with_logits celu celu_ selu selu_ rrelu rrelu_ threshold "
        "threshold_ relu_ max_pool1d avg_pool1d max_pool3d").split()})
    return out


def row_stack(tensors):
    """``vstack`` (PyTorch's other name)."""
    from .ops.rearrange import vstack

    return vstack(tensors)


def chain_matmul(*matrices):
    """``linalg.multi_dot(matrices)`` (PyTorch's older name, deprecated there).

    Example::

        >>> import nbgrad
        >>> nbgrad.chain_matmul(nbgrad.eye(2), nbgrad.ones(2, 2))
        tensor([[1., 1.],
                [1., 1.]])
    """
    from .linalg import multi_dot
    from .ops.linalg_decomp import _deprecated

    _deprecated("chain_matmul")
    if len(matrices) == 1:
        return matrices[0].clone()
    return multi_dot(matrices)


def broadcast_shapes(*shapes):
    """The shape that tensors of ``shapes`` broadcast to (an int is a 1-d shape).

    Example::

        >>> import nbgrad
        >>> nbgrad.broadcast_shapes((2, 1), (3,))
        nbgrad.Size([2, 3])
    """
    from .tensor import Size

    out = []
    for i, s in enumerate(shapes):
        s = (s,) if isinstance(s, int) else tuple(s)
        if any(d < 0 for d in s):
            raise RuntimeError(f"Trying to create tensor with negative dimension {min(s)}: "
                               f"{list(s)}")
        full = [1] * (len(s) - len(out)) + out
        padded = [1] * (len(full) - len(s)) + list(s)
        for k, (a, b) in enumerate(zip(full, padded)):
            if a != b and a != 1 and b != 1:
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {b} at "
                    f"{k - len(padded)}! Mismatching argument at index {i} had {s}; but "
                    f"expected shape should be broadcastable to {full}")
            full[k] = b if a == 1 else a
        out = full
    return Size(out)


def result_type(tensor1, tensor2):
    """The dtype an arithmetic op of ``tensor1`` and ``tensor2`` (tensors or numbers)
    gives, by PyTorch's promotion.

    Example::

        >>> import nbgrad
        >>> nbgrad.result_type(nbgrad.tensor([1, 2]), 2.5)
        nbgrad.float32
    """
    from . import dtypes as _dt
    from .tensor import Tensor

    ts = [t for t in (tensor1, tensor2) if isinstance(t, Tensor)]
    scalars = [s for s in (tensor1, tensor2) if not isinstance(s, Tensor)]
    if not ts:  # (two numbers: as 0-dim tensors of their default dtypes)
        from .creation import tensor

        ts, scalars = [tensor(s) for s in scalars], []
    return _dt.result_type(ts, scalars)


def can_cast(from_, to):
    """Whether PyTorch's type promotion allows a cast from ``from_`` to ``to``: not from a
    floating dtype to an integer or bool one, nor from an integer one to bool.

    Example::

        >>> import nbgrad
        >>> nbgrad.can_cast(nbgrad.float32, nbgrad.int32)
        False
    """
    if from_.is_floating_point and not to.is_floating_point:
        return False
    return not (to.name == "bool" and from_.name != "bool")


def scalar_tensor(s, *, dtype=None, layout=None, device=None, pin_memory=None,
                  requires_grad=False):
    """A 0-dim tensor of the number ``s``, of the default floating dtype unless ``dtype``.

    Example::

        >>> import nbgrad
        >>> nbgrad.scalar_tensor(3)
        tensor(3.)
    """
    from . import dtypes as _dt
    from .creation import tensor

    return tensor(s, dtype=_dt.get_default_dtype() if dtype is None else dtype, device=device,
                  requires_grad=requires_grad)


def _exported():
    """The generated forms as this module's globals, and the names ``from _torch_names
    import *`` gives ``nbgrad``: those it does not define already (it imports this module
    last)."""
    import sys

    forms = names()
    globals().update({k: v for k, v in forms.items() if k not in globals()})
    pkg = sys.modules.get(__name__.rsplit(".", 1)[0])
    return sorted(k for k in forms if pkg is None or not hasattr(pkg, k))


__all__ = _exported()
