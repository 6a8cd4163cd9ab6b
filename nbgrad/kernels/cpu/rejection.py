"""PyTorch's CPU samplers that draw an unknown number of times per element (rejection and
inversion loops: gamma, binomial, Poisson) and the reparameterized gradients of gamma and Dirichlet
samples, step for step as ATen's ``Distributions.h`` computes them.

The samplers read the generator's 32-bit draws from a buffer (uint64 array of 32-bit
values) and stop before an element they cannot finish with it; ``state`` carries, across
calls, the buffer position and the generator's cached second normal sample:
``state = [pos, has_cached_normal, cached_normal]``. Float32 arithmetic that PyTorch does in
``float`` is done here in float64 and rounded after each operation (exact for ``+ - * /``
and ``sqrt``: float64 has more than twice float32's precision), and its ``logf``/``powf``
calls are made on float32 values.
"""

import math

import numpy as np
from numba import njit

from ... import _config

_opts = dict(nogil=True, error_model="numpy", cache=_config.CACHE, no_cfunc_wrapper=True)

_MASK53 = np.uint64((1 << 53) - 1)
_TWO_M53 = 2.0**-53
_ONE_THIRD_F = float(np.float32(1.0) / np.float32(3.0))  # PyTorch's 1.0f / 3.0f
_C0331_F = float(np.float32(0.0331))
_F32_TINY = float(np.finfo(np.float32).tiny)
_F64_TINY = float(np.finfo(np.float64).tiny)


@njit(**_opts)
def _rf(x):
    """``x`` rounded to float32 (as float64): one float32 operation's result."""
    return float(np.float32(x))


@njit(**_opts)
def _r(x, f32):
    """``x`` rounded to float32 when ``f32``."""
    return float(np.float32(x)) if f32 else x


@njit(**_opts)
def _uniform(words, state):
    """A float64 uniform in [0, 1) from a 64-bit draw (two 32-bit words, the first the high
    half); NaN once the buffer is spent."""
    pos = int(state[0])
    if pos + 2 > words.size:
        state[0] = words.size + 1.0
        return math.nan
    v = ((words[pos] << np.uint64(32)) | words[pos + 1]) & _MASK53
    state[0] = pos + 2.0
    return float(v) * _TWO_M53


@njit(**_opts)
def _normal(words, state):
    """A float64 N(0, 1): the cached sample, or the cosine of a fresh Box-Muller pair
    (caching the sine), as PyTorch's ``normal_distribution<double>``."""
    if state[1] != 0.0:
        state[1] = 0.0
        return state[2]
    u1 = _uniform(words, state)
    u2 = _uniform(words, state)
    r = math.sqrt(-2.0 * math.log1p(-u2))
    theta = 2.0 * math.pi * u1
    state[1] = 1.0
    state[2] = r * math.sin(theta)
    return r * math.cos(theta)


@njit(**_opts)
def _spent(words, state):
    return state[0] > words.size


@njit(**_opts)
def _gamma_one(alpha, f32, words, state):
    """One Marsaglia-Tsang gamma sample of ``alpha`` (float64 arithmetic with PyTorch's
    float constants; ``alpha``'s own steps in float32 when ``f32``)."""
    scale = 1.0
    if alpha < 1.0:
        if alpha == 0.0:
            return 0.0
        inv = _rf(1.0 / alpha) if f32 else 1.0 / alpha
        scale *= (1.0 - _uniform(words, state)) ** inv
        alpha = _rf(alpha + 1.0) if f32 else alpha + 1.0
    d = _rf(alpha - _ONE_THIRD_F) if f32 else alpha - _ONE_THIRD_F
    c = 1.0 / math.sqrt(9.0 * d)
    while not _spent(words, state):
        x = _normal(words, state)
        y = 1.0 + c * x
        while y <= 0.0 and not _spent(words, state):
            x = _normal(words, state)
            y = 1.0 + c * x
        v = y * y * y
        u = 1.0 - _uniform(words, state)
        xx = x * x
        if u < 1.0 - _C0331_F * xx * xx:
            return scale * d * v
        if math.log(u) < 0.5 * xx + d * (1.0 - v + math.log(v)):
            return scale * d * v
    return math.nan


@njit(**_opts)
def gamma(alpha, f32, out, start, words, state):
    """``out[i]`` for ``i`` from ``start``: a standard gamma sample of ``alpha[i]`` (float64
    arrays; ``f32``: PyTorch's float32 kernel, whose result is rounded and at least float32's
    tiny). Returns the index it stopped at (``alpha.size`` when done); ``state`` is left as
    before that element."""
    tiny = _F32_TINY if f32 else _F64_TINY
    for i in range(start, alpha.size):
        before0, before1, before2 = state[0], state[1], state[2]
        s = _gamma_one(alpha[i], f32, words, state)
        if _spent(words, state):
            state[0], state[1], state[2] = before0, before1, before2
            return i
        if f32:
            s = _rf(s)
        out[i] = s if tiny < s else tiny  # (std::max(tiny, s): a NaN gives tiny)
    return alpha.size


# ---- binomial: inversion for small means, Hoermann's BTRS otherwise (TensorFlow's, as
# PyTorch adapts it)
_TAIL = np.array([0.0810614667953272, 0.0413406959554092, 0.0276779256849983,
                  0.02079067210376509, 0.0166446911898211, 0.0138761288230707,
                  0.0118967099458917, 0.0104112652619720, 0.00925546218271273,
                  0.00833056343336287])


@njit(**_opts)
def _stirling_tail(k):
    if k <= 9:
        return _TAIL[int(k)]
    kp1sq = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)


@njit(**_opts)
def _binomial_inversion(count, prob, f32, words, state):
    logprob = float(math.log1p(np.float32(-prob))) if f32 else math.log1p(-prob)
    geom_sum = 0.0
    num_geom = 0.0
    while not _spent(words, state):
        u = _uniform(words, state)
        geom_sum += math.ceil(math.log(u) / logprob)
        if geom_sum > count:
            break
        num_geom += 1.0
    return num_geom


@njit(**_opts)
def _btrs(count, prob, f32, words, state):
    stddev = math.sqrt(_r(_r(count * prob, f32) * _r(1.0 - prob, f32), f32))
    if f32:
        stddev = _rf(stddev)
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = _r(count * prob, f32) + 0.5
    v_r = 0.92 - 4.2 / b
    r = _r(prob / _r(1.0 - prob, f32), f32)
    alpha = (2.83 + 5.1 / b) * stddev
    m = math.floor(_r(_r(count + 1.0, f32) * prob, f32))
    while not _spent(words, state):
        u = _uniform(words, state) - 0.5
        v = _uniform(words, state)
        us = 0.5 - abs(u)
        k = math.floor((2 * a / us + b) * u + c)
        if f32:
            k = _rf(k)
        if k < 0 or k > count:
            continue
        if us >= 0.07 and v <= v_r:
            return k
        v = math.log(v * alpha / (a / (us * us) + b))
        nk1 = _r(_r(count - k, f32) + 1.0, f32)  # (count - k + 1, in count's precision)
        upper = ((m + 0.5) * math.log((m + 1) / (r * (count - m + 1)))
                 + _r(count + 1.0, f32) * math.log((count - m + 1) / nk1)
                 + (k + 0.5) * math.log(r * nk1 / _r(k + 1.0, f32))
                 + _stirling_tail(m) + _stirling_tail(count - m)
                 - _stirling_tail(k) - _stirling_tail(_r(count - k, f32)))
        if v <= upper:
            return k
    return math.nan


@njit(**_opts)
def _binomial_one(count, prob, f32, words, state):
    if count <= 0.0 or prob <= 0.0:
        return 0.0
    if prob >= 1.0:
        return count
    if prob <= 0.5:
        if (_rf(count * prob) if f32 else count * prob) >= 10.0:
            return _btrs(count, prob, f32, words, state)
        return _binomial_inversion(count, prob, f32, words, state)
    if prob > 0.5:
        q = _rf(1.0 - prob) if f32 else 1.0 - prob
        if (_rf(count * q) if f32 else count * q) >= 10.0:
            return count - _btrs(count, q, f32, words, state)
        return count - _binomial_inversion(count, q, f32, words, state)
    return math.nan


@njit(**_opts)
def binomial(count, prob, f32, out, start, words, state):
    """``out[i]`` for ``i`` from ``start``: a binomial sample of ``count[i]`` trials of
    success probability ``prob[i]``; returns and leaves ``state`` as ``gamma`` does."""
    for i in range(start, count.size):
        before = state[0]
        s = _binomial_one(count[i], prob[i], f32, words, state)
        if _spent(words, state):
            state[0] = before
            return i
        out[i] = s
    return count.size


# ---- Poisson: Hoermann's transformed rejection for rates of 10 or more, else the product
# of uniforms against exp(-rate)
_INT64_MIN = -(2.0**63)


@njit(**_opts)
def _to_int64(x):
    """``(int64_t) x`` as x86 computes it: the integer, or INT64_MIN where it does not fit
    (an infinite or huge rate's count, as PyTorch returns it)."""
    return x if -(2.0**63) <= x < 2.0**63 else _INT64_MIN


@njit(**_opts)
def _poisson_one(rate, words, state):
    if rate >= 10:
        slam = math.sqrt(rate)
        loglam = math.log(rate)
        b = 0.931 + 2.53 * slam
        a = -0.059 + 0.02483 * b
        invalpha = 1.1239 + 1.1328 / (b - 3.4)
        vr = 0.9277 - 3.6224 / (b - 2)
        while not _spent(words, state):
            u = _uniform(words, state) - 0.5
            v = _uniform(words, state)
            us = 0.5 - abs(u)
            k = _to_int64(math.floor((2 * a / us + b) * u + rate + 0.43))
            if us >= 0.07 and v <= vr:
                return k
            if k < 0 or (us < 0.013 and v > us):
                continue
            if (math.log(v) + math.log(invalpha) - math.log(a / (us * us) + b)
                    <= -rate + k * loglam - math.lgamma(k + 1.0)):
                return k
        return math.nan
    if rate == 0:
        return 0.0
    enlam = math.exp(-rate)
    x = 0.0
    prod = 1.0
    while not _spent(words, state):
        prod *= _uniform(words, state)
        if prod > enlam:
            x += 1.0
        else:
            return x
    return math.nan


@njit(**_opts)
def poisson(rate, out, start, words, state):
    """``out[i]`` for ``i`` from ``start``: a Poisson count of rate ``rate[i]``; returns and
    leaves ``state`` as ``gamma`` does."""
    for i in range(start, rate.size):
        before = state[0]
        s = _poisson_one(rate[i], words, state)
        if _spent(words, state):
            state[0] = before
            return i
        out[i] = s
    return rate.size


# ---- reparameterized gradients
_DIGAMMA_A = np.array([8.33333333333333333333E-2, -2.10927960927960927961E-2,
                       7.57575757575757575758E-3, -4.16666666666666666667E-3,
                       3.96825396825396825397E-3, -8.33333333333333333333E-3,
                       8.33333333333333333333E-2])
_PSI_10 = 2.25175258906672110764
_E17_F = float(np.float32(1.0e17))


@njit(**_opts)
def _logf(x):
    return float(math.log(np.float32(x)))


@njit(**_opts)
def _powf(x, y):
    return float(np.float32(x) ** np.float32(y))


@njit(**_opts)
def _digamma(x, f32):
    """ATen's ``digamma_one`` (its argument and steps in float32 when ``f32``)."""
    if f32:
        x = _rf(x)
    if x == 0:
        return math.inf
    extra = 0.0
    if x < 0:
        if x == math.floor(x):
            return math.inf
        if f32:
            pi = _rf(math.pi)
            extra = _rf(-pi / float(math.tan(np.float32(_rf(pi * x)))))
        else:
            extra = -math.pi / math.tan(math.pi * x)
        x = _rf(1.0 - x) if f32 else 1.0 - x
    result = 0.0
    while x < 10:
        result -= _rf(1.0 / x) if f32 else 1.0 / x
        x = _rf(x + 1.0) if f32 else x + 1.0
    if x == 10:
        out = result + _PSI_10 + extra
        return _rf(out) if f32 else out
    y = 0.0
    if x < _E17_F:
        z = 1.0 / (_rf(x * x) if f32 else x * x)
        p = 0.0
        for i in range(7):
            p = p * z + _DIGAMMA_A[i]
        y = z * p
    if f32:
        return _rf(result + _logf(x) - _rf(0.5 / x) - y + extra)
    return result + math.log(x) - 0.5 / x - y + extra


_COEF_UV = np.array([
    [0.16009398, -0.094634809, 0.025146376, -0.0030648343,
     1, 0.32668115, 0.10406089, 0.0014179084],
    [0.53487893, 0.1298071, 0.065735949, -0.0015649758,
     0.16639465, 0.020070113, -0.0035938915, -0.00058392623],
    [0.040121004, -0.0065914022, -0.0026286047, -0.0013441777,
     0.017050642, -0.0021309326, 0.00085092367, -1.5247877e-07]])
_F08, _F09, _F11 = (float(np.float32(v)) for v in (0.8, 0.9, 1.1))


@njit(**_opts)
def _standard_gamma_grad_one(alpha, x):
    """d(sample)/d(alpha) of a standard gamma sample ``x``: ``-(dF/dalpha) / pdf`` (float64;
    a Taylor series for small ``x``, Rice's saddle point for large ``alpha``, else a
    bivariate rational fit)."""
    if x < _F08:
        numer = 1.0
        denom = alpha
        series1 = numer / denom
        series2 = numer / (denom * denom)
        for i in range(1, 6):
            numer *= -x / i
            denom += 1
            series1 += numer / denom
            series2 += numer / (denom * denom)
        pow_x_alpha = x ** alpha
        pdf = x ** (alpha - 1) * math.exp(-x)
        cdf = pow_x_alpha * series1
        cdf_alpha = (math.log(x) - _digamma(alpha, False)) * cdf - pow_x_alpha * series2
        result = -cdf_alpha / pdf
        return 0.0 if math.isnan(result) else result
    if alpha > 8.0:
        if _F09 * alpha <= x and x <= _F11 * alpha:
            numer_1 = 1 + 24 * alpha * (1 + 12 * alpha)
            numer_2 = (1440 * (alpha * alpha) + 6 * x * (53 - 120 * x)
                       - 65 * x * x / alpha + alpha * (107 + 3600 * x))
            denom = 1244160 * (alpha * alpha) * (alpha * alpha)
            return numer_1 * numer_2 / denom
        denom = math.sqrt(8 * alpha)
        term2 = denom / (alpha - x)
        term3 = (x - alpha - alpha * math.log(x / alpha)) ** -1.5
        term23 = term2 - term3 if x < alpha else term2 + term3
        term1 = (math.log(x / alpha) * term23
                 - math.sqrt(2 / alpha) * (alpha + x) / ((alpha - x) * (alpha - x)))
        stirling = 1 + 1 / (12 * alpha) * (1 + 1 / (24 * alpha))
        return -stirling * (x * term1) / denom
    u = math.log(x / alpha)
    v = math.log(alpha)
    cv = np.empty(8)
    for i in range(8):
        cv[i] = _COEF_UV[0, i] + u * (_COEF_UV[1, i] + u * _COEF_UV[2, i])
    p = cv[0] + v * (cv[1] + v * (cv[2] + v * cv[3]))
    q = cv[4] + v * (cv[5] + v * (cv[6] + v * cv[7]))
    return math.exp(p / q)


@njit(**_opts)
def standard_gamma_grad(alpha, x, f32, out):
    """``out[i]``: the reparameterized gradient of gamma sample ``x[i]`` wrt ``alpha[i]``
    (float64 arrays of one size; rounded to float32 when ``f32``)."""
    for i in range(alpha.size):
        g = _standard_gamma_grad_one(alpha[i], x[i])
        out[i] = _rf(g) if f32 else g


@njit(**_opts)
def _beta_alpha_small(x, alpha, beta, f32):
    lg = _logf(x) if f32 else math.log(x)
    factor = _r(_r(_digamma(alpha, f32) - _digamma(_r(alpha + beta, f32), f32), f32) - lg, f32)
    numer = 1.0
    series = _r(_r(numer / alpha, f32) * _r(factor + _r(1.0 / alpha, f32), f32), f32)
    for i in range(1, 11):
        ci = float(i)
        numer = _r(numer * _r(_r(_r(ci - beta, f32) * x, f32) / ci, f32), f32)
        denom = _r(alpha + ci, f32)
        term = _r(_r(numer / denom, f32) * _r(factor + _r(1.0 / denom, f32), f32), f32)
        series = _r(series + term, f32)
    pw = _powf(_r(1.0 - x, f32), -beta) if f32 else (1.0 - x) ** -beta
    result = _r(_r(x * pw, f32) * series, f32)
    return 0.0 if math.isnan(result) else result


@njit(**_opts)
def _beta_beta_small(x, alpha, beta, f32):
    factor = _r(_digamma(_r(alpha + beta, f32), f32) - _digamma(beta, f32), f32)
    numer = 1.0
    betas = 1.0
    dbetas = 0.0
    series = _r(factor / alpha, f32)
    for i in range(1, 9):
        ci = float(i)
        numer = _r(numer * _r(-x / ci, f32), f32)
        dbetas = _r(_r(dbetas * _r(beta - ci, f32), f32) + betas, f32)
        betas = _r(betas * _r(beta - ci, f32), f32)
        term = _r(_r(numer / _r(alpha + ci, f32), f32)
                  * _r(dbetas + _r(factor * betas, f32), f32), f32)
        series = _r(series + term, f32)
    pw = _powf(_r(1.0 - x, f32), _r(1.0 - beta, f32)) if f32 else (1.0 - x) ** (1.0 - beta)
    result = -_r(pw * series, f32)
    return 0.0 if math.isnan(result) else result


@njit(**_opts)
def _beta_alpha_mid(x, alpha, beta):
    total = alpha + beta
    mean = alpha / total
    std = math.sqrt(alpha * beta / (total + 1)) / total
    if mean - 0.1 * std <= x and x <= mean + 0.1 * std:
        poly = 47 * x * (beta * beta) * (beta * beta) + alpha * (
            (43 + 20 * (16 + 27 * beta) * x) * (beta * beta) * beta + alpha * (
                3 * (59 + 180 * beta - 90 * x) * (beta * beta) + alpha * (
                    (453 + 1620 * beta * (1 - x) - 455 * x) * beta + alpha * (
                        8 * (1 - x) * (135 * beta - 11)))))
        prefactor_num = (1 + 12 * alpha) * (1 + 12 * beta) / (total * total)
        prefactor_den = 12960 * alpha * alpha * alpha * beta * beta * (1 + 12 * total)
        return prefactor_num / (1 - x) * poly / prefactor_den
    prefactor = -x / math.sqrt(2 * alpha * beta / total)
    stirling = ((1 + 1 / (12 * alpha) + 1 / (288 * alpha * alpha))
                * (1 + 1 / (12 * beta) + 1 / (288 * beta * beta))
                / (1 + 1 / (12 * total) + 1 / (288 * total * total)))
    term1_num = 2 * (alpha * alpha) * (x - 1) + alpha * beta * (x - 1) - x * (beta * beta)
    axbx = alpha * (x - 1) + beta * x
    term1_den = math.sqrt(2 * alpha / beta) * total ** 1.5 * axbx * axbx
    term1 = term1_num / term1_den
    term2 = 0.5 * math.log(alpha / (total * x))
    term3 = math.sqrt(8 * alpha * beta / total) / (beta * x + alpha * (x - 1))
    term4 = (beta * math.log(beta / (total * (1 - x)))
             + alpha * math.log(alpha / (total * x))) ** -1.5
    term1234 = term1 + term2 * (term3 + (term4 if x < mean else -term4))
    return stirling * prefactor * term1234


_DIR_C = np.array([
    [[[1.003668233, -0.01061107488, -0.0657888334, 0.01201642863],
      [0.6336835991, -0.3557432599, 0.05486251648, -0.001465281033],
      [-0.03276231906, 0.004474107445, 0.002429354597, -0.0001557569013]],
     [[0.221950385, -0.3187676331, 0.01799915743, 0.01074823814],
      [-0.2951249643, 0.06219954479, 0.01535556598, 0.001550077057],
      [0.02155310298, 0.004170831599, 0.001292462449, 6.976601077e-05]],
     [[-0.05980841433, 0.008441916499, 0.01085618172, 0.002319392565],
      [0.02911413504, 0.01400243777, -0.002721828457, 0.000751041181],
      [0.005900514878, -0.001936558688, -9.495446725e-06, 5.385558597e-05]]],
    [[[1, -0.02924021934, -0.04438342661, 0.007285809825],
      [0.6357567472, -0.3473456711, 0.05454656494, -0.002407477521],
      [-0.03301322327, 0.004845219414, 0.00231480583, -0.0002307248149]],
     [[0.5925320577, -0.1757678135, 0.01505928619, 0.000564515273],
      [0.1014815858, -0.06589186703, 0.01272886114, -0.0007316646956],
      [-0.007258481865, 0.001096195486, 0.0003934994223, -4.12701925e-05]],
     [[0.06469649321, -0.0236701437, 0.002902096474, -5.896963079e-05],
      [0.001925008108, -0.002869809258, 0.0008000589141, -6.063713228e-05],
      [-0.0003477407336, 6.959756487e-05, 1.097287507e-05, -1.650964693e-06]]]])


@njit(**_opts)
def _dirichlet_grad_one(x, alpha, total, f32):
    beta = _r(total - alpha, f32)
    boundary = _r(_r(total * x, f32) * _r(1.0 - x, f32), f32)
    if x <= 0.5 and boundary < 2.5:
        return _beta_alpha_small(x, alpha, beta, f32)
    if x >= 0.5 and boundary < 0.75:
        return -_beta_beta_small(_r(1.0 - x, f32), beta, alpha, f32)
    if alpha > 6 and beta > 6:
        g = _beta_alpha_mid(x, alpha, total - alpha)
        return _r(g, f32)
    u = math.log(x)
    a = math.log(alpha) - u
    b = math.log(total) - a
    pu = (1.0, u, u * u)
    pa = (1.0, a, a * a)
    p = 0.0
    q = 0.0
    for i in range(3):
        for j in range(3):
            ua = pu[i] * pa[j]
            p += ua * (_DIR_C[0, i, j, 0] + b * (_DIR_C[0, i, j, 1] + b * (
                _DIR_C[0, i, j, 2] + b * _DIR_C[0, i, j, 3])))
            q += ua * (_DIR_C[1, i, j, 0] + b * (_DIR_C[1, i, j, 1] + b * (
                _DIR_C[1, i, j, 2] + b * _DIR_C[1, i, j, 3])))
    approx = x * _r(_digamma(total, f32) - _digamma(alpha, f32), f32) / (total - alpha)
    return _r(p / q * approx, f32)


@njit(**_opts)
def dirichlet_grad(x, alpha, total, f32, out):
    """``out[i]``: the reparameterized gradient of Beta sample ``x[i]`` wrt ``alpha[i]``
    with ``total[i] = alpha[i] + beta[i]``, scaled by ``1 / (1 - x)`` (ATen's
    ``dirichlet_grad_one``; float64 arrays of one size)."""
    for i in range(x.size):
        out[i] = _dirichlet_grad_one(x[i], alpha[i], total[i], f32)
