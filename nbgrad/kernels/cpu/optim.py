"""Fused optimizer updates: one pass over a parameter updates it and its state buffers.

Every array is flat and C-contiguous, of the parameter's dtype. The per-element update is
``kernels/updates.py``'s (shared with the CUDA kernels); these loops load, call it and store.
Its hyperparameters arrive cast to the parameter's dtype, so a float32 loop runs in float32
and vectorizes. AMSGrad has its own loop: without it there is no ``vmax`` to store, and a
store that may alias ``v`` would keep LLVM from vectorizing.
"""

from numba import njit, prange

from ... import _config
from .. import updates
from . import _par

# (no_cfunc_wrapper: see reduce.py)
_opts = dict(nogil=True, error_model="numpy", cache=_config.CACHE, no_cfunc_wrapper=True)


class _Loops:
    """The serial or the parallel loop of each update."""

    def __init__(self, parallel):
        rng = prange if parallel else range

        @njit(parallel=parallel, **_opts)
        def _sgd(p, g, lr, wd, maximize):
            for i in rng(p.size):
                p[i] = updates.sgd(p[i], g[i], lr, wd, maximize)

        @njit(parallel=parallel, **_opts)
        def _sgd_momentum(p, g, buf, lr, wd, momentum, damp1, nesterov, maximize,
                          first):
            for i in rng(p.size):
                p[i], buf[i] = updates.sgd_momentum(p[i], g[i], buf[i], lr, wd, momentum,
                                                    damp1, nesterov, maximize, first)

        @njit(parallel=parallel, **_opts)
        def _adam(p, g, m, v, lr_decay, w, w1, lerp_lo, beta2, beta2c, eps, wd, step_size,
                  bc2_sqrt, decoupled, maximize):
            for i in rng(p.size):
                vi = v[i]
                p[i], m[i], v[i], _ = updates.adam(
                    p[i], g[i], m[i], vi, vi, lr_decay, w, w1, lerp_lo, beta2, beta2c, eps,
                    wd, step_size, bc2_sqrt, decoupled, maximize, False)

        @njit(parallel=parallel, **_opts)
        def _adam_amsgrad(p, g, m, v, vmax, lr_decay, w, w1, lerp_lo, beta2, beta2c, eps,
                          wd, step_size, bc2_sqrt, decoupled, maximize):
            for i in rng(p.size):
                p[i], m[i], v[i], vmax[i] = updates.adam(
                    p[i], g[i], m[i], v[i], vmax[i], lr_decay, w, w1, lerp_lo, beta2, beta2c,
                    eps, wd, step_size, bc2_sqrt, decoupled, maximize, True)

        @njit(parallel=parallel, **_opts)
        def _adadelta(p, g, sq, acc, rho, rho1, eps, wd, neg_lr, maximize):
            for i in rng(p.size):
                p[i], sq[i], acc[i] = updates.adadelta(p[i], g[i], sq[i], acc[i], rho, rho1,
                                                       eps, wd, neg_lr, maximize)

        self.sgd, self.sgd_momentum = _sgd, _sgd_momentum
        self.adam, self.adam_amsgrad = _adam, _adam_amsgrad
        self.adadelta = _adadelta


_S = _Loops(False)
_P = _Loops(True)


def sgd(p, g, lr, wd, maximize):
    """``p -= lr * (g + wd * p)`` (``g`` negated when maximizing)."""
    _par.run(_S.sgd, _P.sgd, p.size, p, g, *updates.sgd_scalars(p.dtype, lr, wd, maximize))


def sgd_momentum(p, g, buf, lr, wd, momentum, dampening, nesterov, maximize, first):
    """SGD with a momentum buffer (``first``: the buffer starts as the gradient)."""
    s = updates.sgd_momentum_scalars(p.dtype, lr, wd, momentum, dampening, nesterov,
                                     maximize, first)
    _par.run(_S.sgd_momentum, _P.sgd_momentum, p.size, p, g, buf, *s)


def adam(p, g, m, v, vmax, lr, beta1, beta2, eps, wd, step_size, bc2_sqrt, decoupled,
         amsgrad, maximize):
    """One Adam/AdamW step; ``vmax`` is read and written only with ``amsgrad``."""
    s = updates.adam_scalars(p.dtype, lr, beta1, beta2, eps, wd, step_size, bc2_sqrt,
                             decoupled, maximize)
    if amsgrad:
        _par.run(_S.adam_amsgrad, _P.adam_amsgrad, p.size, p, g, m, v, vmax, *s)
    else:
        _par.run(_S.adam, _P.adam, p.size, p, g, m, v, *s)


def adadelta(p, g, sq, acc, lr, rho, eps, wd, maximize):
    """One Adadelta step (``sq``: the running mean of squared gradients, ``acc``: of
    squared updates)."""
    s = updates.adadelta_scalars(p.dtype, lr, rho, eps, wd, maximize)
    _par.run(_S.adadelta, _P.adadelta, p.size, p, g, sq, acc, *s)
