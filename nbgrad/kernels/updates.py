"""Optimizer updates (SGD, SGD with momentum, Adam/AdamW with AMSGrad, Adadelta, RMSprop,
Adagrad, Adamax, NAdam, RAdam, ASGD, Rprop), each
written once as a per-element step body for both targets' loops.

A step body ``f(i, p, g, s, hp)`` updates element ``i`` of the flat parameter ``p`` from its
gradient ``g``, reading and writing the state arrays of the tuple ``s`` (``()`` for plain
SGD); ``hp`` is the tuple of hyperparameters its ``*_scalars`` helper made. Each target makes
its loops from any such body with one loop factory (``update_loops`` in
``kernels/cpu/optim.py``: a serial and a parallel loop; ``update_kernel`` in
``kernels/cuda/optim.py``: a grid-stride kernel), so a new update is a body and a
scalars helper here, and nothing in a target.

The arithmetic follows PyTorch's single-tensor SGD/Adam/Adadelta step by step. The
hyperparameters come in already cast to the parameter's dtype (the helpers run on the host),
and the bodies hold no float literal, so a float32 parameter is updated in float32
arithmetic, as PyTorch does, and its CPU loop vectorizes at float32 width. Like
``kernels/scalar.py``, this module imports no target; each target imports it.
"""

import math

import numpy as np
from numba import njit

# inlined into the CPU loops as if written there (a parallel loop stays one parfor); the
# device compiles the same Python source (kernels.cuda._launch.device_fn)
_jit = njit(inline="always", nogil=True)


@_jit
def _signed(g, p, wd, maximize):
    """The gradient the update follows: negated when maximizing, plus ``wd * p`` (L2)."""
    gi = -g if maximize else g
    if wd != 0:
        gi = gi + wd * p
    return gi


@_jit
def sgd(i, p, g, s, hp):
    """``p -= lr * (g + wd * p)``; ``hp``: ``sgd_scalars``, ``s``: ``()``."""
    lr, wd, maximize = hp
    pi = p[i]
    p[i] = pi - lr * _signed(g[i], pi, wd, maximize)


@_jit
def sgd_momentum(i, p, g, s, hp):
    """SGD with a momentum buffer ``s[0]``: ``buf = momentum * buf + (1 - dampening) * g``
    (``g`` itself on the ``first`` step); ``hp``: ``sgd_momentum_scalars``."""
    lr, wd, momentum, damp1, nesterov, maximize, first = hp
    buf = s[0]
    pi = p[i]
    gi = _signed(g[i], pi, wd, maximize)
    b = gi if first else buf[i] * momentum + damp1 * gi
    buf[i] = b
    p[i] = pi - lr * (gi + momentum * b if nesterov else b)


@_jit
def _adam(p, g, m, v, vmax, hp, amsgrad):
    """New ``(p, m, v, vmax)`` of one Adam/AdamW step (``vmax`` passes through unless
    ``amsgrad``).

    ``m`` follows ``torch.lerp(m, g, w)`` (``w = 1 - beta1``, ``w1 = 1 - w``, ``lerp_lo``:
    ``|w| < 0.5``); ``beta2c`` is ``1 - beta2``; ``lr_decay`` is AdamW's ``1 - lr * wd``.
    """
    (lr_decay, w, w1, lerp_lo, beta2, beta2c, eps, wd, step_size, bc2_sqrt, decoupled,
     maximize) = hp
    if decoupled:
        gi = -g if maximize else g
        if wd != 0:
            p = p * lr_decay
    else:
        gi = _signed(g, p, wd, maximize)
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
def adam(i, p, g, s, hp):
    """One Adam/AdamW step; ``s``: ``(exp_avg, exp_avg_sq)``, ``hp``: ``adam_scalars``."""
    m, v = s[0], s[1]
    vi = v[i]
    p[i], m[i], v[i], _ = _adam(p[i], g[i], m[i], vi, vi, hp, False)


@_jit
def adam_amsgrad(i, p, g, s, hp):
    """``adam`` with AMSGrad; ``s``: ``(exp_avg, exp_avg_sq, max_exp_avg_sq)``. (Its own
    body: without AMSGrad there is no ``vmax`` to store, and a store that may alias ``v``
    would keep LLVM from vectorizing the loop.)"""
    m, v, vmax = s[0], s[1], s[2]
    p[i], m[i], v[i], vmax[i] = _adam(p[i], g[i], m[i], v[i], vmax[i], hp, True)


@_jit
def adadelta(i, p, g, s, hp):
    """One Adadelta step; ``s``: ``(square_avg, acc_delta)``: ``sq = rho * sq + (1 - rho) *
    g * g``, ``delta = sqrt(acc + eps) / sqrt(sq + eps) * g``, ``acc = rho * acc + (1 -
    rho) * delta * delta``, ``p += -lr * delta``; ``hp``: ``adadelta_scalars``."""
    rho, rho1, eps, wd, neg_lr, maximize = hp
    sq, acc = s[0], s[1]
    pi = p[i]
    gi = _signed(g[i], pi, wd, maximize)
    q = sq[i] * rho + rho1 * gi * gi  # mul_(rho).addcmul_(g, g, value=1 - rho)
    delta = math.sqrt(acc[i] + eps) / math.sqrt(q + eps) * gi
    sq[i] = q
    acc[i] = acc[i] * rho + rho1 * delta * delta
    p[i] = pi + neg_lr * delta


@_jit
def _rmsprop(pi, gi, q, b, a, hp, centered, momentum):
    """One element's RMSprop step on values (``q`` square_avg, ``b`` momentum buffer, ``a``
    grad_avg: unused ones pass through); returns the new ``(p, q, b, a)``. (Values, not
    arrays: the simulator runs a body's helpers as compiled CPU code.)"""
    alpha, alpha1, eps, wd, neg_lr, mom, w, w_small, maximize = hp
    gi = _signed(gi, pi, wd, maximize)
    q = q * alpha + alpha1 * gi * gi  # mul_(alpha).addcmul_(g, g, value=1 - alpha)
    if centered:  # grad_avg.lerp_(g, 1 - alpha); avg = sqrt(sq - grad_avg^2) + eps
        a = a + w * (gi - a) if w_small else gi - (gi - a) * (1 - w)
        avg = math.sqrt(q + -1 * a * a) + eps
    else:
        avg = math.sqrt(q) + eps
    if momentum:  # buf.mul_(momentum).addcdiv_(g, avg); p.add_(buf, alpha=-lr)
        b = b * mom + gi / avg
        return pi + neg_lr * b, q, b, a
    return pi + neg_lr * (gi / avg), q, b, a  # p.addcdiv_(g, avg, value=-lr)


@_jit
def rmsprop(i, p, g, s, hp):
    """One RMSprop step; ``s``: ``(square_avg,)``; ``hp``: ``rmsprop_scalars``."""
    sq = s[0]
    p[i], sq[i], _, _ = _rmsprop(p[i], g[i], sq[i], sq[i], sq[i], hp, False, False)


@_jit
def rmsprop_momentum(i, p, g, s, hp):
    """RMSprop with momentum; ``s``: ``(square_avg, momentum_buffer)``."""
    sq, buf = s[0], s[1]
    p[i], sq[i], buf[i], _ = _rmsprop(p[i], g[i], sq[i], buf[i], sq[i], hp, False, True)


@_jit
def rmsprop_centered(i, p, g, s, hp):
    """Centered RMSprop; ``s``: ``(square_avg, grad_avg)``."""
    sq, ga = s[0], s[1]
    p[i], sq[i], _, ga[i] = _rmsprop(p[i], g[i], sq[i], sq[i], ga[i], hp, True, False)


@_jit
def rmsprop_centered_momentum(i, p, g, s, hp):
    """Centered RMSprop with momentum; ``s``: ``(square_avg, momentum_buffer, grad_avg)``."""
    sq, buf, ga = s[0], s[1], s[2]
    p[i], sq[i], buf[i], ga[i] = _rmsprop(p[i], g[i], sq[i], buf[i], ga[i], hp, True, True)


@_jit
def adagrad(i, p, g, s, hp):
    """One Adagrad step; ``s``: ``(sum,)``: ``sum += g * g``, ``p += -clr * g / (sqrt(sum)
    + eps)``; ``hp``: ``adagrad_scalars``."""
    neg_clr, eps, wd, one, maximize = hp
    acc = s[0]
    pi = p[i]
    gi = _signed(g[i], pi, wd, maximize)
    a = acc[i] + one * gi * gi  # addcmul_(g, g, value=1)
    acc[i] = a
    p[i] = pi + neg_clr * (gi / (math.sqrt(a) + eps))


@_jit
def _lerp(a, b, w, w1, lo):
    """``torch.lerp(a, b, w)``: from ``a`` when ``|w| < 0.5`` (``lo``), else from ``b``
    (``w1 = 1 - w``, made in the dtype as lerp makes it)."""
    return a + w * (b - a) if lo else b - (b - a) * w1


@_jit
def _adamax(pi, gi, m, u, hp):
    """One element's Adamax step on values: ``m = lerp(m, g, 1 - beta1)``, ``u = max(beta2 *
    u, |g| + eps)`` (NaN wins, as torch.maximum), ``p += -clr * m / u``."""
    w, w1, lerp_lo, beta2, eps, wd, neg_clr, maximize = hp
    gi = _signed(gi, pi, wd, maximize)
    m = _lerp(m, gi, w, w1, lerp_lo)
    a = u * beta2
    b = abs(gi) + eps
    u = a if a >= b or a != a else b
    return pi + (neg_clr * m) / u, m, u  # addcdiv_: (value * t1) / t2


@_jit
def adamax(i, p, g, s, hp):
    """One Adamax step; ``s``: ``(exp_avg, exp_inf)``, ``hp``: ``adamax_scalars``."""
    m, u = s[0], s[1]
    p[i], m[i], u[i] = _adamax(p[i], g[i], m[i], u[i], hp)


@_jit
def _nadam(pi, gi, m, v, hp):
    """One element's NAdam step on values; ``c_grad`` and ``c_avg`` are the host's
    ``-lr * (1 - mu) / (1 - mu_product)`` and ``-lr * mu_next / (1 - mu_product * mu_next)``."""
    (w, w1, lerp_lo, beta2, beta2c, bc2, eps, wd, wd_scale, c_grad, c_avg, decoupled,
     maximize) = hp
    if decoupled:
        gi = -gi if maximize else gi
        if wd != 0:
            pi = pi * wd_scale
    else:
        gi = _signed(gi, pi, wd, maximize)
    m = _lerp(m, gi, w, w1, lerp_lo)
    v = v * beta2 + beta2c * gi * gi
    denom = math.sqrt(v / bc2) + eps
    pi = pi + (c_grad * gi) / denom
    return pi + (c_avg * m) / denom, m, v


@_jit
def nadam(i, p, g, s, hp):
    """One NAdam step; ``s``: ``(exp_avg, exp_avg_sq)``, ``hp``: ``nadam_scalars``."""
    m, v = s[0], s[1]
    p[i], m[i], v[i] = _nadam(p[i], g[i], m[i], v[i], hp)


@_jit
def _radam(pi, gi, m, v, hp):
    """One element's RAdam step on values. ``rect`` (the variance rectification term) and
    whether to use it (``rho_t > 5``) come from the host; torch forms ``bc2_sqrt /
    (sqrt(v) + eps)`` as ``bc2_sqrt * (1 / (sqrt(v) + eps))``, and so does this."""
    (w, w1, lerp_lo, beta2, beta2c, eps, wd, wd_scale, bc1, lr, bc2_sqrt, rect, one,
     rectify, decoupled, maximize) = hp
    if decoupled:
        gi = -gi if maximize else gi
        if wd != 0:
            pi = pi * wd_scale
    else:
        gi = _signed(gi, pi, wd, maximize)
    m = _lerp(m, gi, w, w1, lerp_lo)
    v = v * beta2 + beta2c * gi * gi
    upd = m / bc1 * lr
    if rectify:
        upd = upd * (bc2_sqrt * (one / (math.sqrt(v) + eps))) * rect
    return pi - upd, m, v


@_jit
def radam(i, p, g, s, hp):
    """One RAdam step; ``s``: ``(exp_avg, exp_avg_sq)``, ``hp``: ``radam_scalars``."""
    m, v = s[0], s[1]
    p[i], m[i], v[i] = _radam(p[i], g[i], m[i], v[i], hp)


@_jit
def asgd(i, p, g, s, hp):
    """One ASGD step; ``s``: ``(ax,)``: ``p = p * (1 - lambd * eta) - eta * g``, then ``ax
    += (p - ax) * mu``, or ``ax = p`` while ``mu`` is 1 (``average`` False); ``hp``:
    ``asgd_scalars``."""
    decay, neg_eta, wd, mu, average, maximize = hp
    ax = s[0]
    pi = p[i]
    gi = _signed(g[i], pi, wd, maximize)
    pi = pi * decay + neg_eta * gi
    p[i] = pi
    a = ax[i]
    ax[i] = a + (pi - a) * mu if average else pi


@_jit
def _sign(x, one, zero):
    """torch.sign as the CPU computes it: 0 for NaN."""
    if x > zero:
        return one
    if x < zero:
        return -one
    return zero


@_jit
def _rprop(pi, gi, prev, size, hp):
    """One element's Rprop step on values; returns the new ``(p, prev, step_size)``.

    The factor follows torch's masked writes in their order (``sign > 0`` to ``etaplus``,
    then ``< 0`` to ``etaminus``, then ``== 0`` to 1), the step size is clamped with NaN
    passing through, and where the factor equals ``etaminus`` the gradient counts as 0."""
    etaplus, etaminus, one, zero, lo, hi, maximize = hp
    gi = -gi if maximize else gi
    f = _sign(gi * prev, one, zero)
    if f > zero:
        f = etaplus
    if f < zero:
        f = etaminus
    if f == zero:
        f = one
    size = size * f
    if size < lo:
        size = lo
    if size > hi:
        size = hi
    if f == etaminus:
        gi = zero
    return pi - _sign(gi, one, zero) * size, gi, size


@_jit
def rprop(i, p, g, s, hp):
    """One Rprop step; ``s``: ``(prev, step_size)``, ``hp``: ``rprop_scalars``."""
    prev, size = s[0], s[1]
    p[i], prev[i], size[i] = _rprop(p[i], g[i], prev[i], size[i], hp)


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
    t = np.dtype(dtype).type
    w = t(1.0 - beta1)
    return (t(1.0 - lr * wd), w, t(1) - w, bool(abs(w) < 0.5), t(beta2), t(1.0 - beta2),
            t(eps), t(wd), t(step_size), t(bc2_sqrt), bool(decoupled), bool(maximize))


def adadelta_scalars(dtype, lr, rho, eps, wd, maximize):
    t = np.dtype(dtype).type
    return t(rho), t(1.0 - rho), t(eps), t(wd), t(-lr), bool(maximize)


def rmsprop_scalars(dtype, lr, alpha, eps, wd, momentum, maximize):
    t = np.dtype(dtype).type
    w = t(1.0 - alpha)
    return (t(alpha), t(1.0 - alpha), t(eps), t(wd), t(-lr), t(momentum), w,
            bool(abs(w) < 0.5), bool(maximize))


def adagrad_scalars(dtype, clr, eps, wd, maximize):
    t = np.dtype(dtype).type
    return t(-clr), t(eps), t(wd), t(1), bool(maximize)


def _lerp_weights(t, w):
    """``(w, 1 - w, |w| < 0.5)`` as torch.lerp takes its weight, in the dtype ``t``."""
    w = t(w)
    return w, t(1) - w, bool(abs(w) < 0.5)


def adamax_scalars(dtype, clr, beta1, beta2, eps, wd, maximize):
    t = np.dtype(dtype).type
    return (*_lerp_weights(t, 1.0 - beta1), t(beta2), t(eps), t(wd), t(-clr), bool(maximize))


def nadam_scalars(dtype, lr, beta1, beta2, eps, wd, bias_correction2, c_grad, c_avg,
                  decoupled, maximize):
    t = np.dtype(dtype).type
    return (*_lerp_weights(t, 1.0 - beta1), t(beta2), t(1.0 - beta2), t(bias_correction2),
            t(eps), t(wd), t(1.0 - lr * wd), t(c_grad), t(c_avg), bool(decoupled),
            bool(maximize))


def radam_scalars(dtype, lr, beta1, beta2, eps, wd, bias_correction1, bc2_sqrt, rect,
                  rectify, decoupled, maximize):
    t = np.dtype(dtype).type
    return (*_lerp_weights(t, 1.0 - beta1), t(beta2), t(1.0 - beta2), t(eps), t(wd),
            t(1.0 - lr * wd), t(bias_correction1), t(lr), t(bc2_sqrt), t(rect), t(1),
            bool(rectify), bool(decoupled), bool(maximize))


def asgd_scalars(dtype, eta, lambd, wd, mu, maximize):
    t = np.dtype(dtype).type
    return t(1.0 - lambd * eta), t(-eta), t(wd), t(mu), bool(mu != 1), bool(maximize)


def rprop_scalars(dtype, etaminus, etaplus, step_size_min, step_size_max, maximize):
    t = np.dtype(dtype).type
    return (t(etaplus), t(etaminus), t(1), t(0), t(step_size_min), t(step_size_max),
            bool(maximize))
