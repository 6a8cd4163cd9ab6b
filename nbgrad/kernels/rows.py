"""Per-row bodies shared by the CPU loops and the CUDA kernels (compiled for each target:
``@njit`` here, ``kernels.cuda._launch.device_fn`` on the device), so both targets compute
a row the same way. Like ``kernels/scalar.py``, this module imports no target.
"""

import math

from numba import njit

from .. import _config

# vector norm kinds (the op layer maps p to one of these)
NORM_ZERO, NORM_ONE, NORM_TWO, NORM_INF, NORM_NEGINF, NORM_P = 0, 1, 2, 3, 4, 5


@njit(nogil=True, error_model="numpy", cache=_config.CACHE, no_cfunc_wrapper=True)
def logsumexp_row(x, a, b, R):
    """``log(sum_r exp(x[a, r, b]))``: the max is taken out first, so any finite logits stay
    finite; +-inf maxima are not subtracted. An empty or all ``-inf`` row gives ``-inf``
    (spelled out: the CUDA simulator runs ``log(0)`` as Python, which raises)."""
    m = -math.inf
    for r in range(R):
        v = x[a, r, b]
        if v > m or v != v:
            m = v
            if v != v:
                break
    if m == math.inf or m == -math.inf:
        m = 0.0
    s = 0.0
    for r in range(R):
        s += math.exp(x[a, r, b] - m)
    if s == 0.0:
        return -math.inf
    return math.log(s) + m


# error_model="numpy": a negative p divides by zero at zeros (inf, as PyTorch), not raises
@njit(nogil=True, error_model="numpy", cache=_config.CACHE, no_cfunc_wrapper=True)
def norm_row(x, a, b, R, kind, p):
    """The vector norm of ``x[a, :, b]`` (``R`` long) of kind ``kind``, in float64."""
    if kind == NORM_INF or kind == NORM_NEGINF:
        m = math.inf if kind == NORM_NEGINF else 0.0
        for r in range(R):
            v = abs(x[a, r, b]) * 1.0
            if v != v:
                return v
            if (kind == NORM_INF and v > m) or (kind == NORM_NEGINF and v < m):
                m = v
        return m
    s = 0.0
    for r in range(R):
        v = abs(x[a, r, b]) * 1.0
        if kind == NORM_TWO:
            s += v * v
        elif kind == NORM_ONE:
            s += v
        elif kind == NORM_ZERO:
            if v != 0.0:
                s += 1.0
        else:
            s += v ** p
    if kind == NORM_TWO:
        return math.sqrt(s)
    if kind == NORM_P:
        return s ** (1.0 / p)
    return s
