"""``nbgrad.nn.init``: fill tensors in place with the initialisations PyTorch uses.

Every function writes into the tensor's storage without recording a graph (as under
``no_grad``), bumps its version counter and returns it. Random samples are PyTorch's for the
same seed: from the default generator (``nbgrad.manual_seed``), or from ``generator`` (an
``nbgrad.Generator``).
"""

import math
import warnings

import numpy as np

from ..autograd.grad_mode import no_grad
from ..tensor import Tensor

__all__ = [
    "calculate_gain", "uniform_", "normal_", "constant_", "zeros_", "ones_", "eye_",
    "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_", "orthogonal_",
    "trunc_normal_", "dirac_", "sparse_", "uniform", "normal", "constant", "eye", "dirac",
    "xavier_uniform", "xavier_normal", "kaiming_uniform", "kaiming_normal", "orthogonal",
    "sparse",
]


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for ``nonlinearity`` (PyTorch's table)."""
    linear_fns = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
                  "conv_transpose2d", "conv_transpose3d"]
    if nonlinearity in linear_fns or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _check(tensor):
    if not isinstance(tensor, Tensor):
        raise TypeError(f"init: expected a Tensor, got {type(tensor).__name__}")


def _write(tensor, host):
    """Copy the host array ``host`` (``tensor``'s shape) into ``tensor``, bump its version."""
    dev = tensor._device
    if dev.type == "cpu":
        np.copyto(tensor._data, host, casting="unsafe")
    else:
        from ..storage import for_device
        from ..storage.layout import copy_data

        src = for_device(dev).from_host(np.ascontiguousarray(host, dtype=tensor._dtype.np))
        copy_data(src, tensor._dtype, dev, out=tensor._data)
    tensor._vc[0] += 1
    return tensor


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fill with samples from U(a, b)."""
    _check(tensor)
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fill with samples from N(mean, std**2)."""
    _check(tensor)
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Fill with samples from N(mean, std**2) truncated to [a, b], drawn as PyTorch draws
    them (so the same numbers for the same seed): when the interval holds more than 30% of
    the mass, normal samples with the outside ones drawn again; else uniform samples on
    [a, b] kept with probability pdf(x) / pdf(mode), the rejected ones drawn again.

    Example::

        >>> import nbgrad
        >>> w = nbgrad.nn.init.trunc_normal_(nbgrad.empty(1000), std=0.02, a=-0.04, b=0.04)
        >>> bool(w.abs().max() <= 0.04)
        True
    """
    _check(tensor)

    def cdf(x):
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
                      "The distribution of values may be incorrect.", stacklevel=2)
    from ..ops.selection import where

    with no_grad():
        if cdf((b - mean) / std) - cdf((a - mean) / std) > 0.3:
            # (the bounds as the tensor's dtype holds them: the test sees those values)
            lo, hi = tensor.new_tensor(a).item(), tensor.new_tensor(b).item()
            result = tensor.normal_(mean, std, generator=generator)
            while True:
                outside = (result < lo) | (result > hi)
                if not outside.any():
                    break
                fresh = tensor.new_empty(tuple(tensor.shape)).normal_(mean, std,
                                                                      generator=generator)
                result = where(outside, fresh, result)
            if result is not tensor:
                tensor.copy_(result)
            return tensor
        mode = max(a, min(mean, b))
        log_peak = -0.5 * ((mode - mean) / std) ** 2
        candidates = tensor.new_empty(tuple(tensor.shape))
        accept = tensor.new_empty(tuple(tensor.shape))

        def log_ratio(x):  # log(pdf(x) / pdf(mode)), in place on x
            return x.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)

        tensor.uniform_(a, b, generator=generator)
        candidates.copy_(tensor)
        pending = accept.uniform_(generator=generator).log_().gt(log_ratio(candidates))
        result = tensor
        while pending.any():
            candidates.uniform_(a, b, generator=generator)
            result = where(pending, candidates, result)
            redraw = accept.uniform_(generator=generator).log_().gt(log_ratio(candidates))
            pending = where(pending, redraw, pending)
        if result is not tensor:
            tensor.copy_(result)
    return tensor


def orthogonal_(tensor, gain=1, generator=None):
    """Fill with a (semi-)orthogonal matrix: the Q of a QR decomposition of normal samples,
    its columns' signs fixed by R's diagonal, times ``gain`` (dimensions past the second
    are flattened).

    Example::

        >>> import nbgrad
        >>> w = nbgrad.nn.init.orthogonal_(nbgrad.empty(3, 3))
        >>> bool(nbgrad.allclose(w @ w.T, nbgrad.eye(3), atol=1e-6))
        True
    """
    _check(tensor)
    if tensor.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    with no_grad():
        flat = tensor.new_empty((rows, cols)).normal_(0, 1, generator=generator).numpy()
    if rows < cols:
        flat = flat.T
    q, r = np.linalg.qr(flat)
    q = q * np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    return _write(tensor, (q * gain).reshape(tuple(tensor.shape)))


def constant_(tensor, val):
    """Fill with ``val``."""
    _check(tensor)
    return _write(tensor, np.full(tuple(tensor.shape), val))


def zeros_(tensor):
    """Fill with zeros."""
    return constant_(tensor, 0)


def ones_(tensor):
    """Fill with ones."""
    return constant_(tensor, 1)


def eye_(tensor):
    """Fill a 2-D tensor with the identity matrix."""
    _check(tensor)
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return _write(tensor, np.eye(*tensor.shape))


def _calculate_fan_in_and_fan_out(tensor):
    dimensions = tensor.ndim
    if dimensions < 2:
        raise ValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"
        )
    num_input_fmaps = tensor.shape[1]
    num_output_fmaps = tensor.shape[0]
    receptive_field_size = 1
    for s in tensor.shape[2:]:
        receptive_field_size *= s
    return num_input_fmaps * receptive_field_size, num_output_fmaps * receptive_field_size


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def _no_op_if_empty(tensor):
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        return True
    return False


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """Glorot uniform: U(-a, a) with ``a = gain * sqrt(6 / (fan_in + fan_out))``."""
    _check(tensor)
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """Glorot normal: N(0, std**2) with ``std = gain * sqrt(2 / (fan_in + fan_out))``."""
    _check(tensor)
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He uniform: U(-bound, bound) with ``bound = gain * sqrt(3 / fan)``."""
    _check(tensor)
    if _no_op_if_empty(tensor):
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    std = gain / math.sqrt(fan)
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He normal: N(0, std**2) with ``std = gain / sqrt(fan)``."""
    _check(tensor)
    if _no_op_if_empty(tensor):
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    return normal_(tensor, 0.0, gain / math.sqrt(fan), generator)


def dirac_(tensor, groups=1):
    """Fill a 3-, 4- or 5-d convolution weight with the Dirac delta: each output channel
    (per group) passes its input channel through unchanged, where there is one.

    Example::

        >>> import nbgrad
        >>> nbgrad.nn.init.dirac_(nbgrad.empty(2, 2, 3))[:, :, 1]
        tensor([[1., 0.],
                [0., 1.]])
    """
    _check(tensor)
    if tensor.ndim not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tuple(tensor.shape)
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    per_group = sizes[0] // groups
    host = np.zeros(sizes)
    centre = tuple(s // 2 for s in sizes[2:])
    for g in range(groups):
        for d in range(min(per_group, sizes[1])):
            host[(g * per_group + d, d) + centre] = 1
    return _write(tensor, host)


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """Fill a 2-d tensor with N(0, std) samples, then zero ``ceil(sparsity * rows)``
    randomly chosen rows of each column (PyTorch's draws: the normals, then one
    permutation per column).

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> w = nbgrad.nn.init.sparse_(nbgrad.empty(4, 3), sparsity=0.5)
        >>> (w == 0).sum(0)
        tensor([2, 2, 2])
    """
    from ..creation import randperm

    _check(tensor)
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    zeros = math.ceil(sparsity * rows)
    normal_(tensor, 0.0, std, generator=generator)
    with no_grad():
        for col in range(cols):
            # (the default generator, as PyTorch's: its permutations ignore ``generator``)
            tensor[randperm(rows)[:zeros], col] = 0
    return tensor


def _deprecated(fn):
    """PyTorch's old name of ``fn`` (without the trailing underscore): it warns and calls
    ``fn``."""
    old = fn.__name__[:-1]

    def call(*args, **kwargs):
        warnings.warn(f"`nn.init.{old}` is now deprecated in favor of `nn.init.{fn.__name__}`.",
                      FutureWarning, stacklevel=2)
        return fn(*args, **kwargs)

    call.__name__ = old
    call.__doc__ = f"Deprecated: ``{fn.__name__}``."
    return call


uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
eye = _deprecated(eye_)
dirac = _deprecated(dirac_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)
sparse = _deprecated(sparse_)
