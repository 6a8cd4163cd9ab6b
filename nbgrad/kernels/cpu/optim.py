"""Fused optimizer updates: one pass over a parameter updates it and its state buffers.

Every array is flat and C-contiguous, of the parameter's dtype; scalars are float64 and
flags bool. The arithmetic follows PyTorch's single-tensor SGD/Adam step by step (state
buffers are stored, then reread, at the points where PyTorch materialises them).
"""

import math

from numba import njit, prange

from ... import _config
from . import _par

# (no_cfunc_wrapper: see reduce.py)
_opts = dict(nogil=True, error_model="numpy", cache=_config.CACHE, no_cfunc_wrapper=True)


def _make(parallel):
    rng = prange if parallel else range

    @njit(parallel=parallel, **_opts)
    def sgd(p, g, lr, wd, maximize):
        for i in rng(p.size):
            gi = -g[i] if maximize else g[i]
            if wd != 0.0:
                gi = gi + wd * p[i]
            p[i] = p[i] - lr * gi

    @njit(parallel=parallel, **_opts)
    def sgd_momentum(p, g, buf, lr, wd, momentum, dampening, nesterov, maximize, first):
        for i in rng(p.size):
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

    @njit(parallel=parallel, **_opts)
    def adam(p, g, m, v, vmax, lr, beta1, beta2, eps, wd, step_size, bc2_sqrt,
             decoupled, amsgrad, maximize):
        w = 1.0 - beta1
        for i in rng(p.size):
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

    return sgd, sgd_momentum, adam


_S = _make(False)
_P = _make(True)


def sgd(p, g, lr, wd, maximize):
    """``p -= lr * (g + wd * p)`` (``g`` negated when maximizing)."""
    _par.run(_S[0], _P[0], p.size, p, g, float(lr), float(wd), bool(maximize))


def sgd_momentum(p, g, buf, lr, wd, momentum, dampening, nesterov, maximize, first):
    """SGD with a momentum buffer (``first``: the buffer starts as the gradient)."""
    _par.run(_S[1], _P[1], p.size, p, g, buf, float(lr), float(wd), float(momentum),
             float(dampening), bool(nesterov), bool(maximize), bool(first))


def adam(p, g, m, v, vmax, lr, beta1, beta2, eps, wd, step_size, bc2_sqrt, decoupled,
         amsgrad, maximize):
    """One Adam/AdamW step; ``vmax`` is read and written only with ``amsgrad``."""
    _par.run(_S[2], _P[2], p.size, p, g, m, v, vmax, float(lr), float(beta1), float(beta2),
             float(eps), float(wd), float(step_size), float(bc2_sqrt), bool(decoupled),
             bool(amsgrad), bool(maximize))
