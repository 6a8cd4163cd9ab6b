"""CPU storage: NumPy arrays, kernels compiled by Numba."""

import numpy as np
from numpy.lib.stride_tricks import as_strided as _as_strided

from ..kernels import scalar as S
from ..kernels.cpu import conv as CV
from ..kernels.cpu import elementwise as E
from ..kernels.cpu import extra as X
from ..kernels.cpu import index as IX
from ..kernels.cpu import linalg as L
from ..kernels.cpu import nn as NN
from ..kernels.cpu import optim as OPT
from ..kernels.cpu import reduce as R
from ..ops.registry import register_kernel

NAME = "cpu"


def check_device(device):
    if device.index not in (None, 0):
        raise RuntimeError(f"Invalid device: {device}; the CPU has no index")


def empty(shape, np_dtype):
    return np.empty(shape, np_dtype)


def zeros(shape, np_dtype):
    return np.zeros(shape, np_dtype)


def full(shape, value, np_dtype):
    return np.full(shape, value, np_dtype)


def from_host(nd):
    """A device array holding a copy of NumPy array ``nd`` (here: ``nd`` itself)."""
    return nd


def to_host(arr):
    return arr


def as_strided(arr, shape, strides):
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
register_kernel("sum", NAME, R.sum_arb)
register_kernel("amax", NAME, R.amax_arb)
register_kernel("amin", NAME, R.amin_arb)
register_kernel("argmax", NAME, R.argmax_arb)
register_kernel("argmin", NAME, R.argmin_arb)
register_kernel("matmul", NAME, L.matmul)
register_kernel("log_softmax", NAME, NN.log_softmax)
register_kernel("softmax", NAME, NN.softmax)
register_kernel("log_softmax_backward", NAME, NN.log_softmax_backward)
register_kernel("softmax_backward", NAME, NN.softmax_backward)
register_kernel("class_mask", NAME, NN.class_mask)
register_kernel("sgd_step", NAME, OPT.sgd)
register_kernel("sgd_momentum_step", NAME, OPT.sgd_momentum)
register_kernel("adam_step", NAME, OPT.adam)
register_kernel("index_gather", NAME, IX.gather)
register_kernel("index_scatter_add", NAME, IX.scatter_add)
register_kernel("index_take", NAME, IX.take)
register_kernel("index_put", NAME, IX.put)
register_kernel("im2col", NAME, CV.im2col)
register_kernel("col2im", NAME, CV.col2im)
register_kernel("conv2d_bias_add", NAME, CV.bias_add)
register_kernel("max_pool2d", NAME, CV.max_pool2d)
register_kernel("max_pool2d_backward", NAME, CV.max_pool2d_backward)
register_kernel("max_pool2d_gather", NAME, CV.max_pool2d_gather)
register_kernel("var", NAME, X.var_arb)
register_kernel("prod", NAME, X.prod_arb)
register_kernel("logsumexp", NAME, X.logsumexp_arb)
register_kernel("norm", NAME, X.norm_arb)
register_kernel("cross_entropy", NAME, NN.cross_entropy)
register_kernel("cross_entropy_backward", NAME, NN.cross_entropy_backward)
register_kernel("layer_norm", NAME, NN.layer_norm)
register_kernel("layer_norm_backward", NAME, NN.layer_norm_backward)


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
    return _as_strided(arr, shape, strides)
