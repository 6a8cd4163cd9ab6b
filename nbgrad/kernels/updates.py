"""Per-element optimizer updates (SGD, SGD with momentum, Adam/AdamW with AMSGrad,
Adadelta), written once for the CPU loops (``kernels/cpu/optim.py``) and the CUDA
grid-stride kernels (``kernels/cuda/optim.py``, through ``device_fn``). Like
``kernels/scalar.py``, this module imports no target; each target imports it.

A body takes one element of each array and the hyperparameters as scalars and returns the
new values; the target's loop does the loads and stores. The arithmetic follows PyTorch's
single-tensor SGD/Adam/Adadelta step by step. The hyperparameters come in already cast to the
parameter's dtype (the ``*_scalars`` helpers below, run on the host), and the bodies hold no
float literal, so a float32 parameter is updated in float32 arithmetic, as PyTorch does, and
its CPU loop vectorizes at float32 width.
"""

import math

import numpy as np
from numba import njit

# inlined into the CPU loops as if written there (a parallel loop stays one parfor); the
# device compiles the same Python source (kernels.cuda._launch.device_fn)
_jit = njit(inline="always", nogil=True)


@_jit
def sgd(p, g, lr, wd, maximize):
    """New ``p``: ``p - lr * (g + wd * p)`` (``g`` negated when maximizing)."""
    gi = -g if maximize else g
    if wd != 0:
        gi = gi + wd * p
    return p - lr * gi


@_jit
def sgd_momentum(p, g, buf, lr, wd, momentum, damp1, nesterov, maximize, first):
    """New ``(p, buf)`` of SGD with momentum: ``buf = momentum * buf + damp1 * g`` (``g`` on
    the ``first`` step); ``damp1`` is ``1 - dampening``."""
    gi = -g if maximize else g
    if wd != 0:
        gi = gi + wd * p
    if first:
        buf = gi
    else:
        buf = buf * momentum + damp1 * gi
    if nesterov:
        gi = gi + momentum * buf
    else:
        gi = buf
    return p - lr * gi, buf


@_jit
def adam(p, g, m, v, vmax, lr_decay, w, w1, lerp_lo, beta2, beta2c, eps, wd, step_size,
         bc2_sqrt, decoupled, maximize, amsgrad):
    """New ``(p, m, v, vmax)`` of one Adam/AdamW step (``vmax`` passes through unless
    ``amsgrad``).

    ``m`` follows ``torch.lerp(m, g, w)`` (``w = 1 - beta1``, ``w1 = 1 - w``, ``lerp_lo``:
    ``|w| < 0.5``); ``beta2c`` is ``1 - beta2``; ``lr_decay`` is AdamW's ``1 - lr * wd``.
    """
    gi = -g if maximize else g
    if wd != 0:
        if decoupled:
            p = p * lr_decay
        else:
            gi = gi + wd * p
    if lerp_lo:
        m = m + w * (gi - m)
    else:
        m = gi - (gi - m) * w1
    v = v * beta2
    v = v + beta2c * gi * gi
    vi = v
    if amsgrad:
        if v > vmax or v != v:  # torch.maximum: nan wins
            vmax = v
        vi = vmax
    denom = math.sqrt(vi) / bc2_sqrt + eps
    return p - step_size * (m / denom), m, v, vmax


@_jit
def adadelta(p, g, sq, acc, rho, rho1, eps, wd, neg_lr, maximize):
    """New ``(p, sq, acc)`` of one Adadelta step: ``sq = rho * sq + (1 - rho) * g * g``,
    ``delta = sqrt(acc + eps) / sqrt(sq + eps) * g``, ``acc = rho * acc + (1 - rho) *
    delta * delta``, ``p += -lr * delta``; ``rho1`` is ``1 - rho``, ``neg_lr`` is ``-lr``."""
    gi = -g if maximize else g
    if wd != 0:
        gi = gi + wd * p
    sq = sq * rho + rho1 * gi * gi  # mul_(rho).addcmul_(g, g, value=1 - rho)
    std = math.sqrt(sq + eps)
    delta = math.sqrt(acc + eps) / std * gi
    acc = acc * rho + rho1 * delta * delta
    return p + neg_lr * delta, sq, acc


# ----- the hyperparameters as the bodies take them (host side, shared by both targets) -----
# PyTorch casts each Python scalar to the tensor's dtype where an op takes it (``mul_(beta2)``,
# ``lerp_(g, 1 - beta1)``, ``addcdiv_(m, denom, value=-step_size)``), and computes ``1 - w``
# inside lerp in that dtype; so do these.


def sgd_scalars(dtype, lr, wd, maximize):
    t = np.dtype(dtype).type
    return t(lr), t(wd), bool(maximize)


def sgd_momentum_scalars(dtype, lr, wd, momentum, dampening, nesterov, maximize, first):
    t = np.dtype(dtype).type
    return (t(lr), t(wd), t(momentum), t(1.0 - dampening), bool(nesterov), bool(maximize),
            bool(first))


def adam_scalars(dtype, lr, beta1, beta2, eps, wd, step_size, bc2_sqrt, decoupled, maximize):
    """The scalars after ``(p, g, m, v, vmax)`` of ``adam``, less ``amsgrad``."""
    t = np.dtype(dtype).type
    w = t(1.0 - beta1)
    return (t(1.0 - lr * wd), w, t(1) - w, bool(abs(w) < 0.5), t(beta2), t(1.0 - beta2),
            t(eps), t(wd), t(step_size), t(bc2_sqrt), bool(decoupled), bool(maximize))


def adadelta_scalars(dtype, lr, rho, eps, wd, maximize):
    """The scalars after ``(p, g, sq, acc)`` of ``adadelta``."""
    t = np.dtype(dtype).type
    return t(rho), t(1.0 - rho), t(eps), t(wd), t(-lr), bool(maximize)
