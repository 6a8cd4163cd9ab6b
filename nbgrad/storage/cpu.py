"""CPU storage: NumPy arrays, kernels compiled by Numba."""

import numpy as np
from numpy.lib.stride_tricks import as_strided as _as_strided

from ..kernels import scalar as S
from ..kernels.cpu import elementwise as E
from ..ops.registry import register_kernel
from . import register_table
from ._cpupool import empty as _pool_empty
from ._cpupool import out_of_memory

NAME = "cpu"


def check_device(device):
    if device.index not in (None, 0):
        raise RuntimeError(f"Invalid device: {device}; the CPU has no index")


def empty(shape, np_dtype):
    n = 1
    for d in (shape if isinstance(shape, (tuple, list)) else (shape,)):
        n *= d
    return _pool_empty(shape, np_dtype, n * np.dtype(np_dtype).itemsize)


def _refused(shape, np_dtype):
    return out_of_memory(int(np.prod(shape, dtype=object)) * np.dtype(np_dtype).itemsize)


def zeros(shape, np_dtype):
    try:
        return np.zeros(shape, np_dtype)
    except MemoryError:
        raise _refused(shape, np_dtype) from None


def full(shape, value, np_dtype):
    try:
        return np.full(shape, value, np_dtype)
    except MemoryError:
        raise _refused(shape, np_dtype) from None


def from_host(nd):
    """A device array holding a copy of NumPy array ``nd`` (here: ``nd`` itself)."""
    return nd


def to_host(arr):
    return arr


def as_strided(arr, shape, strides):
    if arr.flags.c_contiguous and arr.size:
        # straight over arr's buffer: ~10x cheaper than numpy's as_strided
        return np.ndarray(shape, arr.dtype, arr, 0, strides)
    return _as_strided(arr, shape, strides)


def is_contiguous(arr):
    return arr.flags.c_contiguous


def scalar_of(arr):
    return arr.reshape(-1)[0].item()


UNARY = {
    "neg": S.neg, "exp": S.exp, "log": S.log, "sqrt": S.sqrt, "abs": S.abs_,
    "tanh": S.tanh, "sigmoid": S.sigmoid, "relu": S.relu, "copy": S.ident, "sign": S.sign,
    "log1p": S.log1p, "expm1": S.expm1, "rsqrt": S.rsqrt, "sin": S.sin, "cos": S.cos,
    "tan": S.tan, "erf": S.erf,
}
BINARY = {
    "add": S.add, "sub": S.sub, "mul": S.mul, "div": S.div, "pow": S.pow_,
    "eq": S.eq, "ne": S.ne, "lt": S.lt, "le": S.le, "gt": S.gt, "ge": S.ge,
    "tanh_backward": S.tanh_bwd, "sigmoid_backward": S.sigmoid_bwd,
    "twice_mul": S.twice_mul, "neg_twice_mul": S.neg_twice_mul,
    "relu_backward": S.relu_bwd, "clamp_min": S.clamp_min, "clamp_max": S.clamp_max,
}
TERNARY = {"where": S.where}

# the CPU loops use the vectorizable float32 math (the CUDA backend registers UNARY)
VECTOR_MATH = {
    "exp": S.exp_v, "log": S.log_v, "log1p": S.log1p_v, "expm1": S.expm1_v, "tanh": S.tanh_v,
    "sigmoid": S.sigmoid_v, "erf": S.erf_v,
}
for _n, _f in UNARY.items():
    register_kernel(_n, NAME, E.UnaryKernel(VECTOR_MATH.get(_n, _f)))
for _n, _f in BINARY.items():
    register_kernel(_n, NAME, E.BinaryKernel(_f))
for _n, _f in TERNARY.items():
    register_kernel(_n, NAME, E.TernaryKernel(_f))
register_table(NAME, "nbgrad.kernels.cpu")


# ----- views (share storage) ------------------------------------------------------------
def reshape_view(arr, shape):
    """A view of ``arr`` with ``shape``, or None when that needs a copy."""
    v = arr.view()
    try:
        v.shape = shape
    except AttributeError:
        return None
    return v


def permute(arr, perm):
    return arr.transpose(perm)


def getitem(arr, key):
    r = arr[key]
    # all-int keys give a NumPy scalar (a copy); "..." at the end gives a 0-d view instead
    return r if isinstance(r, np.ndarray) else arr[key + (Ellipsis,)]


def expand(arr, shape, strides):
    return as_strided(arr, shape, strides)
