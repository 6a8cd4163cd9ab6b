"""Fused optimizer updates on the device: one thread per parameter element, grid-stride.

Same contract as kernels/cpu/optim.py (flat C-contiguous arrays of the parameter's dtype),
and the same per-element update, ``kernels/updates.py``'s, compiled as device functions, so a
CUDA step follows PyTorch's single-tensor SGD/Adam/Adadelta the same way the CPU step does.
"""

from numba import cuda

from .. import updates
from ._launch import device_fn, grid

_sgd_body = device_fn(updates.sgd)
_sgd_momentum_body = device_fn(updates.sgd_momentum)
_adam_body = device_fn(updates.adam)
_adadelta_body = device_fn(updates.adadelta)


@cuda.jit
def _sgd(p, g, lr, wd, maximize):
    i = cuda.grid(1)
    s = cuda.gridsize(1)
    while i < p.size:
        p[i] = _sgd_body(p[i], g[i], lr, wd, maximize)
        i += s


@cuda.jit
def _sgd_momentum(p, g, buf, lr, wd, momentum, damp1, nesterov, maximize, first):
    i = cuda.grid(1)
    s = cuda.gridsize(1)
    while i < p.size:
        p[i], buf[i] = _sgd_momentum_body(p[i], g[i], buf[i], lr, wd, momentum, damp1,
                                          nesterov, maximize, first)
        i += s


@cuda.jit
def _adam(p, g, m, v, vmax, lr_decay, w, w1, lerp_lo, beta2, beta2c, eps, wd, step_size,
          bc2_sqrt, decoupled, maximize, amsgrad):
    i = cuda.grid(1)
    s = cuda.gridsize(1)
    while i < p.size:
        # without amsgrad ``vmax`` is ``v``: the body passes it through, rewritten unchanged
        p[i], m[i], v[i], vm = _adam_body(p[i], g[i], m[i], v[i], vmax[i], lr_decay, w, w1,
                                          lerp_lo, beta2, beta2c, eps, wd, step_size,
                                          bc2_sqrt, decoupled, maximize, amsgrad)
        if amsgrad:
            vmax[i] = vm
        i += s


@cuda.jit
def _adadelta(p, g, sq, acc, rho, rho1, eps, wd, neg_lr, maximize):
    i = cuda.grid(1)
    s = cuda.gridsize(1)
    while i < p.size:
        p[i], sq[i], acc[i] = _adadelta_body(p[i], g[i], sq[i], acc[i], rho, rho1, eps, wd,
                                             neg_lr, maximize)
        i += s


def sgd(p, g, lr, wd, maximize):
    """``p -= lr * (g + wd * p)`` (``g`` negated when maximizing)."""
    if p.size:
        _sgd[grid(p.size)](p, g, *updates.sgd_scalars(p.dtype, lr, wd, maximize))


def sgd_momentum(p, g, buf, lr, wd, momentum, dampening, nesterov, maximize, first):
    """SGD with a momentum buffer (``first``: the buffer starts as the gradient)."""
    if p.size:
        s = updates.sgd_momentum_scalars(p.dtype, lr, wd, momentum, dampening, nesterov,
                                         maximize, first)
        _sgd_momentum[grid(p.size)](p, g, buf, *s)


def adam(p, g, m, v, vmax, lr, beta1, beta2, eps, wd, step_size, bc2_sqrt, decoupled,
         amsgrad, maximize):
    """One Adam/AdamW step; ``vmax`` is read and written only with ``amsgrad``."""
    if p.size:
        s = updates.adam_scalars(p.dtype, lr, beta1, beta2, eps, wd, step_size, bc2_sqrt,
                                 decoupled, maximize)
        _adam[grid(p.size)](p, g, m, v, vmax, *s, bool(amsgrad))


def adadelta(p, g, sq, acc, lr, rho, eps, wd, maximize):
    """One Adadelta step (``sq``: the running mean of squared gradients, ``acc``: of
    squared updates)."""
    if p.size:
        _adadelta[grid(p.size)](p, g, sq, acc,
                                *updates.adadelta_scalars(p.dtype, lr, rho, eps, wd, maximize))
