"""Fused optimizer updates on the device: one thread per parameter element, grid-stride.

Same contract and arithmetic as kernels/cpu/optim.py (flat C-contiguous arrays of the
parameter's dtype, float64 scalars, bool flags), statement for statement, so a CUDA step
follows PyTorch's single-tensor SGD/Adam the same way the CPU step does.
"""

import math

from numba import cuda

from ._launch import grid


@cuda.jit
def _sgd(p, g, lr, wd, maximize):
    i = cuda.grid(1)
    s = cuda.gridsize(1)
    while i < p.size:
        gi = -g[i] if maximize else g[i]
        if wd != 0.0:
            gi = gi + wd * p[i]
        p[i] = p[i] - lr * gi
        i += s


@cuda.jit
def _sgd_momentum(p, g, buf, lr, wd, momentum, dampening, nesterov, maximize, first):
    i = cuda.grid(1)
    s = cuda.gridsize(1)
    while i < p.size:
        gi = -g[i] if maximize else g[i]
        if wd != 0.0:
            gi = gi + wd * p[i]
        if first:
            buf[i] = gi
        else:
            buf[i] = buf[i] * momentum + (1.0 - dampening) * gi
        b = buf[i]
        if nesterov:
            gi = gi + momentum * b
        else:
            gi = b
        p[i] = p[i] - lr * gi
        i += s


@cuda.jit
def _adam(p, g, m, v, vmax, lr, beta1, beta2, eps, wd, step_size, bc2_sqrt, decoupled,
          amsgrad, maximize):
    w = 1.0 - beta1
    i = cuda.grid(1)
    s = cuda.gridsize(1)
    while i < p.size:
        gi = -g[i] if maximize else g[i]
        if wd != 0.0:
            if decoupled:
                p[i] = p[i] * (1.0 - lr * wd)
            else:
                gi = gi + wd * p[i]
        mi = m[i]
        if w < 0.5:
            m[i] = mi + w * (gi - mi)
        else:
            m[i] = gi - (gi - mi) * (1.0 - w)
        v[i] = v[i] * beta2
        v[i] = v[i] + (1.0 - beta2) * gi * gi
        vi = v[i]
        if amsgrad:
            vm = vmax[i]
            if vi > vm or vi != vi:
                vm = vi
            vmax[i] = vm
            vi = vm
        denom = math.sqrt(vi) / bc2_sqrt + eps
        p[i] = p[i] - step_size * (m[i] / denom)
        i += s


def sgd(p, g, lr, wd, maximize):
    """``p -= lr * (g + wd * p)`` (``g`` negated when maximizing)."""
    if p.size:
        _sgd[grid(p.size)](p, g, float(lr), float(wd), bool(maximize))


def sgd_momentum(p, g, buf, lr, wd, momentum, dampening, nesterov, maximize, first):
    """SGD with a momentum buffer (``first``: the buffer starts as the gradient)."""
    if p.size:
        _sgd_momentum[grid(p.size)](p, g, buf, float(lr), float(wd), float(momentum),
                                    float(dampening), bool(nesterov), bool(maximize),
                                    bool(first))


def adam(p, g, m, v, vmax, lr, beta1, beta2, eps, wd, step_size, bc2_sqrt, decoupled,
         amsgrad, maximize):
    """One Adam/AdamW step; ``vmax`` is read and written only with ``amsgrad``."""
    if p.size:
        _adam[grid(p.size)](p, g, m, v, vmax, float(lr), float(beta1), float(beta2),
                            float(eps), float(wd), float(step_size), float(bc2_sqrt),
                            bool(decoupled), bool(amsgrad), bool(maximize))
