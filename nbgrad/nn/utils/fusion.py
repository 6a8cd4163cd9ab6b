"""Folding an eval-mode BatchNorm into the convolution or linear layer before it, as
``torch.nn.utils.fusion``."""

import copy

from ..parameter import Parameter

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval",
           "fuse_linear_bn_weights"]


def fuse_conv_bn_eval(conv, bn, transpose=False):
    """A new convolution computing ``bn(conv(x))`` of the eval-mode ``conv`` and ``bn``
    (whose running statistics are used); ``transpose=True`` for a transposed convolution,
    whose output channels are its weight's dimension 1.

    Example::

        >>> import nbgrad
        >>> from nbgrad.nn.utils import fuse_conv_bn_eval
        >>> conv, bn = nbgrad.nn.Conv2d(2, 3, 3).eval(), nbgrad.nn.BatchNorm2d(3).eval()
        >>> x = nbgrad.randn(1, 2, 5, 5)
        >>> nbgrad.allclose(fuse_conv_bn_eval(conv, bn)(x), bn(conv(x)), atol=1e-6)
        True
    """
    if conv.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused_conv = copy.deepcopy(conv)
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")
    fused_conv.weight, fused_conv.bias = fuse_conv_bn_weights(
        fused_conv.weight, fused_conv.bias, bn.running_mean, bn.running_var, bn.eps,
        bn.weight, bn.bias, transpose)
    return fused_conv


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, transpose=False):
    """The ``(weight, bias)`` parameters of a convolution equal to the convolution
    ``(conv_w, conv_b)`` followed by the eval-mode BatchNorm of running mean ``bn_rm``,
    running variance ``bn_rv``, ``bn_eps``, weight ``bn_w`` and bias ``bn_b`` (each of
    ``conv_b``, ``bn_w``, ``bn_b`` may be None). Each keeps its input's dtype and
    ``requires_grad``.

    Example::

        >>> import nbgrad
        >>> from nbgrad.nn.utils import fuse_conv_bn_weights
        >>> w, b = fuse_conv_bn_weights(nbgrad.ones(2, 1, 1), None, nbgrad.zeros(2),
        ...                             nbgrad.full((2,), 4.0), 0.0, None, nbgrad.ones(2))
        >>> w.flatten(), b
        (tensor([0.5000, 0.5000]), Parameter containing:
        tensor([1., 1.]))
    """
    from ... import ones_like, rsqrt, zeros_like

    w_dtype = conv_w.dtype
    b_dtype = conv_b.dtype if conv_b is not None else w_dtype
    if conv_b is None:
        conv_b = zeros_like(bn_rm)
    if bn_w is None:
        bn_w = ones_like(bn_rm)
    if bn_b is None:
        bn_b = zeros_like(bn_rm)
    bn_var_rsqrt = rsqrt(bn_rv + bn_eps)
    # the channels are the weight's dimension 0 (1 when transposed)
    extra = [1] * (len(conv_w.shape) - 2)
    shape = [1, -1, *extra] if transpose else [-1, 1, *extra]
    fused_w = (conv_w * (bn_w * bn_var_rsqrt).reshape(shape)).to(dtype=w_dtype)
    fused_b = ((conv_b - bn_rm) * bn_var_rsqrt * bn_w + bn_b).to(dtype=b_dtype)
    return Parameter(fused_w, conv_w.requires_grad), Parameter(fused_b, conv_b.requires_grad)


def fuse_linear_bn_eval(linear, bn):
    """A new linear layer computing ``bn(linear(x))`` of the eval-mode ``linear`` and
    ``bn`` (whose running statistics are used); ``bn.num_features`` must be
    ``linear.out_features`` or 1, so that the weight and bias keep their shapes.

    Example::

        >>> import nbgrad
        >>> from nbgrad.nn.utils import fuse_linear_bn_eval
        >>> lin, bn = nbgrad.nn.Linear(4, 3).eval(), nbgrad.nn.BatchNorm1d(3).eval()
        >>> x = nbgrad.randn(2, 4)
        >>> nbgrad.allclose(fuse_linear_bn_eval(lin, bn)(x), bn(lin(x)), atol=1e-6)
        True
    """
    if linear.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused_linear = copy.deepcopy(linear)
    # bn acts on the features, linear's output's last dimension: they must broadcast
    if linear.out_features != bn.num_features and bn.num_features != 1:
        raise AssertionError(
            "To fuse, linear.out_features == bn.num_features or bn.num_features == 1, "
            f"got linear.out_features={linear.out_features} and "
            f"bn.num_features={bn.num_features}")
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")
    fused_linear.weight, fused_linear.bias = fuse_linear_bn_weights(
        fused_linear.weight, fused_linear.bias, bn.running_mean, bn.running_var, bn.eps,
        bn.weight, bn.bias)
    return fused_linear


def fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    """The ``(weight, bias)`` parameters of a linear layer equal to the linear layer
    ``(linear_w, linear_b)`` (``linear_b`` may be None) followed by the eval-mode
    BatchNorm of running mean ``bn_rm``, running variance ``bn_rv``, ``bn_eps``, weight
    ``bn_w`` and bias ``bn_b``.

    Example::

        >>> import nbgrad
        >>> from nbgrad.nn.utils import fuse_linear_bn_weights
        >>> w, b = fuse_linear_bn_weights(nbgrad.ones(2, 1), None, nbgrad.zeros(2),
        ...                               nbgrad.full((2,), 4.0), 0.0, nbgrad.ones(2),
        ...                               nbgrad.ones(2))
        >>> w.flatten(), b.flatten()
        (tensor([0.5000, 0.5000]), tensor([1., 1.]))
    """
    from ... import rsqrt, zeros_like

    w_dtype = linear_w.dtype
    b_dtype = linear_b.dtype if linear_b is not None else w_dtype
    if linear_b is None:
        linear_b = zeros_like(bn_rm)
    bn_scale = bn_w * rsqrt(bn_rv + bn_eps)
    fused_w = linear_w * bn_scale.unsqueeze(-1).to(dtype=w_dtype)
    fused_b = ((linear_b - bn_rm) * bn_scale + bn_b).to(dtype=b_dtype)
    return Parameter(fused_w, linear_w.requires_grad), Parameter(fused_b, linear_b.requires_grad)
