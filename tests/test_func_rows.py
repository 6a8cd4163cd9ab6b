"""The rows of the ops that are not elementwise (ops/funcdef.py's table: reductions,
statistics, softmax, layer norm, products, convolution, pooling and their backward steps),
checked row by row: every row has a case here; each case's values, gradients, node name,
edges and saved values (``grad_fn._saved_*``) match PyTorch's (or, where nbgrad's node
is its own, PyTorch's composed ops' values and gradients); the row's shape and dtype rules
give what the op returns; gradcheck and gradgradcheck pass in float64; the public surface
comes from the rows' flags."""

import re

import numpy as np
import pytest

import nbgrad
from nbgrad.autograd import gradcheck, gradgradcheck
from nbgrad.ops import reduce as R  # noqa: F401  (the rows join the table on import)
from nbgrad.ops import softmax as Sm  # noqa: F401
from nbgrad.ops import stats as St  # noqa: F401
from nbgrad.ops.advanced_index import _plan, index_put_zeros, index_zero
from nbgrad.ops.conv import col2im, conv_mm, im2col, max_pool2d_backward, max_pool2d_gather
from nbgrad.ops.ctc import _ctc_loss, _ctc_loss_backward
from nbgrad.ops.elementwise import clamp_grad
from nbgrad.ops.funcdef import TABLE
from nbgrad.ops.linalg import linear_backward, matmul_backward
from nbgrad.ops.loss import cross_entropy_backward, nll_loss_backward
from nbgrad.ops.normalization import native_layer_norm, native_layer_norm_backward
from nbgrad.ops.shape import index_backward

torch = pytest.importorskip("torch")

_MASK = np.array([[True, False, False, True], [False, False, True, False], [True] * 4])
TIES = np.array([[1.0, 3.0, 3.0, -1.0], [2.0, 2.0, 0.0, 2.0], [0.5, -4.0, 7.0, 7.0]])


def _ln_stats(x):
    m = x.mean(-1, keepdims=True)
    return [m, 1 / np.sqrt(((x - m) ** 2).mean(-1, keepdims=True) + 1e-5)]


_LN_X = np.random.default_rng(5).standard_normal((3, 5)) * 2 + 1
_CTC_LP = np.log(np.random.default_rng(6).dirichlet(np.ones(3), (4, 2)))  # (T, N, C)
# (its losses and log-alphas, for the backward's case: the forward's case compares them)
_CTC_OUT = [t.detach().numpy() for t in _ctc_loss(nbgrad.tensor(_CTC_LP),
                                                  nbgrad.tensor([[1, 2], [2, 2]]), [4, 4],
                                                  [2, 2])]


_ALPHA = np.array([[0.5, 2.0, 9.0], [0.05, 1.0, 30.0]])
_GAMMA_X = np.array([[0.3, 1.5, 10.0], [1e-3, 0.7, 28.0]])
_BETA_X = np.array([[0.1, 0.5, 0.9], [0.02, 0.3, 0.7]])


def _seeded(m, fn, *xs):
    m.manual_seed(0)
    return fn(*xs)


def _ln(m, x, w, b):
    if m is torch:
        return torch.ops.aten.native_layer_norm(x, [5], w, b, 1e-5)
    return native_layer_norm(x, (5,), w, b, 1e-5)


def _ln_backward(m, g, x, mean, rstd, w, b):
    if m is torch:
        return torch.ops.aten.native_layer_norm_backward(g, x, [5], mean, rstd, w, b, [True] * 3)
    return native_layer_norm_backward(g, x, (5,), mean, rstd, w, b, (True,) * 3)


_POOL_X = np.random.default_rng(9).standard_normal((2, 3, 6, 6))
_POOL_IDX = torch.nn.functional.max_pool2d(torch.tensor(_POOL_X), 2, return_indices=True)[1]


def _pool_backward(m, g, idx):
    if m is torch:
        return torch.ops.aten.max_pool2d_with_indices_backward(
            g, torch.tensor(_POOL_X), [2, 2], [2, 2], [0, 0], [1, 1], False, idx)
    return max_pool2d_backward(g, idx, _POOL_X.shape)


def _pool_gather(m, x, idx):
    if m is torch:
        return x.flatten(-2).gather(-1, idx.flatten(-2)).view_as(idx)
    return max_pool2d_gather(x, idx)


def _linear_backward(m, g, x, w):
    if m is torch:
        return g @ w, g.reshape(-1, 5).T @ x.reshape(-1, 4), g.reshape(-1, 5).sum(0)
    return linear_backward(g, x, w, (True, True, True), (2, 3, 4))


def _matmul_backward(m, g, a, b):
    if m is torch:
        return g @ b.T, (a.transpose(-1, -2) @ g).sum(0)
    return matmul_backward(g, a, b, (True, True), (2, 3, 4), (4, 5))


ROWS_202 = _plan(nbgrad.zeros(3, 4), (nbgrad.tensor([2, 0, 2]),))
COND = np.array([[True, False, True, True], [False, False, True, False],
                 [True, True, False, False]])


# (row, input: shape or array, or a list of them for several operands, public call
# fn(m, *operands), the row's normalized args[, options]); options: "gradcheck" (default
# True), "requires" (which operands require grad), "torch_node" (whether torch's output
# has the same node; default True), "saved" (whether it saves what torch's does), "rtol"
# for the gradients
_SPD = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, -0.2], [0.5, -0.2, 2.0]])
_LAPACK = {"low": False}
_GAUGE = {"low": False, "gauge": True}
_SVD = dict(_GAUGE, saved=False)


CASES = [
    ("sum", (3, 4), lambda m, x: x.sum(), (None,)),
    ("sum.dim_IntList", (3, 4, 2), lambda m, x: m.sum(x, (0, 2)), ((0, 2), False, None)),
    ("sum.dim_IntList", (3, 4), lambda m, x: x.sum(dim=None, keepdim=True),
     ((0, 1), True, None)),
    # (through float32: values and gradients to float32 precision, no gradcheck)
    ("sum", (3, 4), lambda m, x: m.sum(x.float(), dtype=m.float64), (nbgrad.float64,),
     {"gradcheck": False, "rtol": 1e-6}),
    ("mean", (3, 4), lambda m, x: x.mean(), (None,)),
    ("mean", (3, 4), lambda m, x: x.mean(dtype=m.float64), (nbgrad.float64,)),
    ("mean.dim", (3, 4), lambda m, x: m.mean(x, 1, keepdim=True), ((1,), True, None)),
    ("amax", (3, 4), lambda m, x: x.amax(1), ((1,), False)),
    ("amax", TIES, lambda m, x: x.amax(1), ((1,), False)),
    ("amin", (2, 3, 4), lambda m, x: m.amin(x, (0, 2), keepdim=True), ((0, 2), True)),
    ("amin", TIES, lambda m, x: x.amin(), ((0, 1), False)),
    ("max", (3, 4), lambda m, x: x.max(), ()),
    ("max", TIES, lambda m, x: m.max(x), ()),
    ("min", (3, 4), lambda m, x: x.min(), ()),
    ("max.dim", (3, 4), lambda m, x: x.max(1).values, (1, False)),
    ("min.dim", (3, 4), lambda m, x: m.min(x, 0, keepdim=True).values, (0, True)),
    ("argmax", (3, 4), lambda m, x: x.argmax(1), (1, False)),
    ("argmin", (3, 4), lambda m, x: m.argmin(x, 0, keepdim=True), (0, True)),
    ("prod", (3, 4), lambda m, x: x.prod(), ()),
    ("prod.dim_int", (3, 4), lambda m, x: m.prod(x, 1), ((1,), False)),
    ("prod.dim_int", np.array([[1.5, 0.0, 2.0], [0.0, 0.0, 3.0], [1.0, 2.0, -1.0]]),
     lambda m, x: x.prod(0, keepdim=True), ((0,), True)),
    ("logsumexp", (3, 4), lambda m, x: x.logsumexp(1), ((1,), False)),
    ("var.correction", (3, 4), lambda m, x: x.var(1), ((1,), 1, False)),
    ("var.correction", (3, 4), lambda m, x: m.var(x), ((0, 1), 1, False)),
    ("std.correction", (3, 4), lambda m, x: m.std(x, 0, correction=0, keepdim=True),
     ((0,), 0, True)),
    ("var_mean.correction", (3, 4), lambda m, x: m.var_mean(x, 1), ((1,), 1, False)),
    ("std_mean.correction", (2, 3, 4), lambda m, x: m.std_mean(x, (0, 2), correction=0),
     ((0, 2), 0, False)),
    ("softmax", (3, 4), lambda m, x: m.softmax(x, 1), (1,)),
    ("softmax", (2, 3, 4), lambda m, x: x.softmax(-2), (1,)),
    ("softmax", (2, 3), lambda m, x: m.nn.functional.softmax(x, dim=0), (0,)),
    ("log_softmax", (3, 4), lambda m, x: m.log_softmax(x, 0), (0,)),
    ("log_softmax", (2, 3, 4), lambda m, x: x.log_softmax(2), (2,)),
    ("_softmax_backward_data", [(3, 4), (3, 4)],
     lambda m, g, y: m._softmax_backward_data(g, y, 1, y.dtype), (1,)),
    ("_softmax_backward_data", [(2, 3, 4), (2, 3, 4)],
     lambda m, g, y: m._softmax_backward_data(g, y, -1, y.dtype), (2,)),
    ("_log_softmax_backward_data", [(3, 4), (3, 4)],
     lambda m, g, y: m._log_softmax_backward_data(g, y, 0, y.dtype), (0,)),
    ("native_layer_norm", [(3, 5), (5,), (5,)], _ln, ((5,), 1e-5)),
    ("native_layer_norm", [(2, 3, 5), (5,), (5,)],
     lambda m, x, w, b: m.nn.functional.layer_norm(x, (5,), w, b), ((5,), 1e-5)),
    # (its statistics are the input's, and its derivative in the input assumes so: no
    # gradcheck with them as separate operands; test_functional checks it on the input's)
    ("native_layer_norm_backward", [(3, 5), _LN_X, *_ln_stats(_LN_X), (5,), (5,)],
     _ln_backward, ((5,), (True,) * 3),
     {"gradcheck": False, "requires": (True, True, False, False, True, True)}),
    ("linalg_vector_norm", (3, 4), lambda m, x: m.linalg.vector_norm(x) if m is torch
     else x.norm(), (2.0, (0, 1), False)),
    ("linalg_vector_norm", (3, 4), lambda m, x: m.linalg.vector_norm(x, 1, 1, True)
     if m is torch else m.norm(x, 1, 1, True), (1.0, (1,), True)),
    ("linalg_vector_norm", (2, 3, 4), lambda m, x: m.linalg.vector_norm(x, 3.5, (0, 2))
     if m is torch else m.norm(x, 3.5, (0, 2)), (3.5, (0, 2), False)),
    ("linalg_vector_norm", (3, 4), lambda m, x: m.linalg.vector_norm(x, float("inf"), 1)
     if m is torch else m.norm(x, float("inf"), 1), (float("inf"), (1,), False)),
    # views (their outputs share the input's storage) and the shape ops that copy
    ("view", (3, 4), lambda m, x: x.view(2, 6), ((2, 6),)),
    ("view", (3, 4), lambda m, x: x.reshape(-1), ((12,),)),
    ("reshape.copy", (3, 4), lambda m, x: x.t().reshape(12), ((12,),), {"torch_node": False}),
    ("permute", (2, 3, 4), lambda m, x: x.permute(2, 0, 1), ((2, 0, 1),)),
    ("transpose.int", (2, 3, 4), lambda m, x: x.transpose(0, -1), (0, 2)),
    ("expand", (3, 1), lambda m, x: x.expand(2, 3, 4), ((2, 3, 4),)),
    ("squeeze", (3, 1, 4, 1), lambda m, x: x.squeeze(), ()),
    ("squeeze.dim", (3, 1, 4), lambda m, x: m.squeeze(x, 1), ((1,),), {"saved": False}),
    ("squeeze.dims", (3, 1, 4, 1), lambda m, x: m.squeeze(x, (1, -1)), ((1, 3),),
     {"saved": False}),
    ("unsqueeze", (3, 4), lambda m, x: x.unsqueeze(1), (1,)),
    ("getitem.select", (3, 4), lambda m, x: x[1], ((1,),), {"saved": False}),
    ("getitem.slice", (3, 4), lambda m, x: x[:, 1:3], ((slice(None), slice(1, 3)),),
     {"saved": False}),
    ("index_backward", (4,), lambda m, g: torch.ops.aten.select_backward(g, (3, 4), 0, 1)
     if m is torch else index_backward(g, (3, 4), (1,)), ((3, 4), (1,)),
     {"torch_node": False}),
    ("repeat", (2, 3), lambda m, x: x.repeat(2, 1, 2), ((2, 1, 2),)),
    ("flip", (2, 3, 4), lambda m, x: x.flip(0, 2), ((0, 2),)),
    # (rates of zero: the same counts whatever the generator's state)
    ("poisson", [np.zeros((2, 3))], lambda m, x: m.poisson(x), (None,),
     {"gradcheck": False, "saved": False}),
    # (the samplers: each call seeds its generator first, so both libraries draw the same
    # numbers; a sample is no smooth function of its parameters, so no finite differences)
    ("_standard_gamma", [_ALPHA], lambda m, a: _seeded(m, m._standard_gamma, a), (None,),
     {"gradcheck": False, "low": False}),
    ("_standard_gamma_grad", [_ALPHA, _GAMMA_X], lambda m, a, x: m._standard_gamma_grad(a, x),
     (), {"requires": (True, False), "derivative": False, "gradcheck": False, "low": False}),
    ("_sample_dirichlet", [_ALPHA], lambda m, a: _seeded(m, m._sample_dirichlet, a), (None,),
     {"derivative": False, "gradcheck": False, "low": False, "torch_node": False}),
    ("_dirichlet_grad", [_BETA_X, _ALPHA, _ALPHA + 2.0],
     lambda m, x, a, t: m._dirichlet_grad(x, a, t), (),
     {"derivative": False, "gradcheck": False, "low": False, "torch_node": False}),
    # (the random offsets given: the windows are fixed)
    ("fractional_max_pool2d", [(2, 3, 7, 6), np.array([[[0.3, 0.8]] * 3, [[0.6, 0.1]] * 3])],
     lambda m, x, s: m.nn.functional.fractional_max_pool2d(x, 2, (3, 4), None, True, s),
     ((2, 2), (3, 4), "float64"), {"requires": (True, False)}),
    ("fractional_max_pool3d", [(1, 2, 5, 6, 5), np.array([[[0.3, 0.8, 0.5]] * 2])],
     lambda m, x, s: m.nn.functional.fractional_max_pool3d(x, (2, 1, 2), (3, 4, 2), None,
                                                           True, s),
     ((2, 1, 2), (3, 4, 2), "float64"), {"requires": (True, False)}),
    ("binomial", [np.array([[10.0, 100.0, 3.0], [40.0, 0.0, 7.0]]), np.array([0.5, 0.2, 0.9])],
     lambda m, c, p: _seeded(m, m.binomial, c, p), (None,),
     {"derivative": False, "gradcheck": False, "low": False, "torch_node": False}),
    ("clone", (3, 4), lambda m, x: x.clone(), (None,)),
    ("clone", (2, 3, 2, 2), lambda m, x: x.clone(memory_format=m.channels_last),
     ((0, 2, 3, 1),)),
    # (torch keeps the input's dtype and device unnamed: no _saved_ attributes)
    ("to", (3, 4), lambda m, x: x.to(m.float32), (nbgrad.float32, nbgrad.device("cpu"), None),
     {"gradcheck": False, "rtol": 1e-6, "saved": False}),
    # where: by which of input / other is a number (PyTorch wraps a number in a tensor,
    # with an edge of its own: nbgrad's node has edges for tensors only); the sizes it
    # keeps to undo broadcasting are attrs torch does not have
    ("where.self", [COND, (3, 4), (4,)], lambda m, c, x, y: m.where(c, x, y),
     (nbgrad.float64,), {"requires": (False, True, True), "saved": False}),
    ("where.ScalarOther", [COND, (1, 4)], lambda m, c, x: m.where(c, x, 0.5),
     (0.5, nbgrad.float64), {"requires": (False, True), "torch_node": False}),
    ("where.ScalarSelf", [COND, (3, 4)], lambda m, c, y: m.where(c, -1.0, y),
     (-1.0, nbgrad.float64), {"requires": (False, True), "torch_node": False}),
    ("where.Scalar", [COND], lambda m, c: m.where(c, 1.0, 2.0), (1.0, 2.0, nbgrad.float32),
     {"requires": (False,)}),
    ("clamp", (3, 4), lambda m, x: x.clamp(-0.5, 1.0), (-0.5, 1.0, nbgrad.float64)),
    ("clamp", (3, 4), lambda m, x: m.clamp(x, min=0.2), (0.2, None, nbgrad.float64)),
    ("clamp.Tensor", [(3, 4), (4,), (3, 1)], lambda m, x, lo, hi: m.clamp(x, lo, hi + 1.0),
     (nbgrad.float64,)),
    # clamp's backward step per bound (torch's is a where of a comparison)
    ("clamp_grad.min", [(3, 4), (3, 4), (4,)], lambda m, g, x, b: torch.where(x >= b, g, 0.0)
     if m is torch else clamp_grad(g, x, b, "min"), (nbgrad.float64,),
     {"requires": (True, False, False), "torch_node": False}),
    ("clamp_grad.max", [(3, 4), (3, 4), (4,)], lambda m, g, x, b: torch.where(x <= b, g, 0.0)
     if m is torch else clamp_grad(g, x, b, "max"), (nbgrad.float64,),
     {"requires": (True, False, False), "torch_node": False}),
    ("clamp_grad.min_Scalar", [(3, 4), (3, 4)], lambda m, g, x: torch.where(x >= 0.6, g, 0.0)
     if m is torch else clamp_grad(g, x, 0.6, "min"), (0.6, nbgrad.float64),
     {"requires": (True, False), "torch_node": False}),
    ("clamp_grad.max_Scalar", [(3, 4), (3, 4)], lambda m, g, x: torch.where(x <= 0.6, g, 0.0)
     if m is torch else clamp_grad(g, x, 0.6, "max"), (0.6, nbgrad.float64),
     {"requires": (True, False), "torch_node": False}),
    # a list of outputs (views), one node for all
    ("split.Tensor", (5, 3), lambda m, x: x.split(2), ((2, 2, 1), 0), {"saved": False}),
    ("split.sizes", (2, 5), lambda m, x: x.split([1, 4], 1), ((1, 4), 1), {"saved": False}),
    # a list operand: an edge per tensor
    ("cat", [(2, 3), (4, 3), (1, 3)], lambda m, a, b, c: m.cat([a, b, c]), (0,),
     {"saved": False}),
    ("cat", [(2, 3), (2, 1)], lambda m, a, b: m.cat([a, b], -1), (1,),
     {"requires": (False, True), "saved": False}),
    ("stack", [(2, 3), (2, 3), (2, 3)], lambda m, a, b, c: m.stack([a, b, c], 1), (1,),
     {"saved": False}),
    ("stack", [(3,), (3,)], lambda m, a, b: m.stack([a, b], -1), (1,),
     {"requires": (True, False), "saved": False}),
    # advanced indexing on a plan of offsets (rows 2, 0, 2 of a (3, 4) tensor)
    ("index.Tensor", (3, 4), lambda m, x: x[m.tensor([2, 0, 2])], (ROWS_202,),
     {"saved": False}),
    ("index_put_zeros", (3, 4), lambda m, g: torch.zeros(3, 4, dtype=g.dtype).index_put(
        (torch.tensor([2, 0, 2]),), g, accumulate=True) if m is torch
     else index_put_zeros(g, ROWS_202), (ROWS_202,), {"torch_node": False}),
    ("index_zero", (3, 4), lambda m, g: g * torch.tensor([[0.0], [1.0], [0.0]], dtype=g.dtype)
     if m is torch else index_zero(g, ROWS_202), (ROWS_202,), {"torch_node": False}),
    # in place: the op's output is its first operand, with a new history
    ("fill_.Scalar", (3, 4), lambda m, x: (x * 1).fill_(0.5), (0.5,)),
    ("index_put_", [(3, 4), (4,)], lambda m, x, v: (x * 1).index_put_((m.tensor([2, 0]),), v),
     (None, None, False), {"saved": False}),
    ("index_put_", (3, 4), lambda m, x: (x * 1).index_put_((m.tensor([1, 1]),), m.tensor(2.0, dtype=x.dtype),
                                                           accumulate=True),
     (None, None, True), {"saved": False, "torch_node": False}),
    # products: the node and its edges as PyTorch's mm / mv / dot / bmm (mm's saved
    # strides and layout are not kept: no formula reads them)
    ("mm", [(3, 4), (4, 2)], lambda m, a, b: m.mm(a, b), (), {"saved": False}),
    ("mm", [(4,), (4, 2)], lambda m, a, b: a @ b, (), {"torch_node": False}),  # (k,) @ (k, n)
    ("mv", [(3, 4), (4,)], lambda m, a, b: m.mv(a, b), ()),
    ("dot", [(4,), (4,)], lambda m, a, b: m.dot(a, b), ()),
    ("bmm", [(2, 3, 4), (2, 4, 2)], lambda m, a, b: m.bmm(a, b), ()),
    # linear: one node (torch's composes addmm / mm with views and a transpose)
    ("linear", [(3, 4), (5, 4), (5,)], lambda m, x, w, b: m.nn.functional.linear(x, w, b), (),
     {"torch_node": False}),
    ("linear.no_bias", [(2, 3, 4), (5, 4)], lambda m, x, w: m.nn.functional.linear(x, w), (),
     {"torch_node": False}),
    # convolution and pooling (the columns ops as torch's unfold / fold)
    ("conv2d", [(2, 3, 6, 5), (4, 3, 3, 2), (4,)],
     lambda m, x, w, b: m.nn.functional.conv2d(x, w, b, padding=1, stride=(1, 2)),
     ((1, 2), (1, 1), (1, 1), 1, (6, 3)), {"saved": False}),
    ("conv2d", [(1, 4, 5, 5), (2, 2, 1, 1)],  # 1x1, grouped, no bias
     lambda m, x, w: m.nn.functional.conv2d(x, w, groups=2),
     ((1, 1), (0, 0), (1, 1), 2, (5, 5)), {"saved": False}),
    ("conv_mm", [(2, 3, 4), (2, 2, 4, 5)],
     lambda m, a, b: a[None] @ b if m is torch else conv_mm(a, b), (), {"torch_node": False}),
    ("im2col", (2, 3, 6, 5),
     lambda m, x: m.nn.functional.unfold(x, (3, 2), padding=1, stride=(1, 2)) if m is torch
     else im2col(x, (3, 2), (1, 2), (1, 1), (1, 1), (6, 3)),
     ((3, 2), (1, 2), (1, 1), (1, 1), (6, 3)), {"saved": False}),
    ("col2im", (2, 18, 18),
     lambda m, c: m.nn.functional.fold(c, (6, 5), (3, 2), padding=1, stride=(1, 2))
     if m is torch else col2im(c, (6, 5), (3, 2), (1, 2), (1, 1), (1, 1), (6, 3)),
     ((6, 5), (3, 2), (1, 2), (1, 1), (1, 1), (6, 3)), {"saved": False}),
    ("max_pool2d", _POOL_X, lambda m, x: m.nn.functional.max_pool2d(x, 2, return_indices=True),
     ((2, 2), (2, 2), (0, 0), (1, 1), (3, 3)), {"saved": False}),
    ("max_pool2d_backward", [(2, 3, 3, 3), _POOL_IDX.numpy()], _pool_backward,
     (_POOL_X.shape,), {"torch_node": False, "requires": (True, False)}),
    ("max_pool2d_gather", [(2, 3, 6, 6), _POOL_IDX.numpy()], _pool_gather, (),
     {"torch_node": False, "requires": (True, False)}),
    # indexing along a dim (the index an operand without an edge)
    ("index_select", [(5, 3), np.array([0, 2, 2, 4])], lambda m, x, i: m.index_select(x, 0, i),
     (0,), {"requires": (True, False)}),
    ("gather", [(5, 3), np.array([[0], [2], [1], [0], [2]])], lambda m, x, i: x.gather(1, i),
     (1,), {"requires": (True, False), "saved": False}),
    ("index_add", [(5, 3), np.array([0, 2, 2, 4]), (4, 3)],
     lambda m, x, i, s: x.index_add(0, i, s), (0,),
     {"requires": (True, False, True), "saved": False}),
    ("scatter_add", [(5, 3), np.array([[0, 2, 1], [1, 1, 0]]), (2, 3)],
     lambda m, x, i, s: x.scatter_add(0, i, s), (0,), {"requires": (True, False, True)}),
    ("scatter.src", [(5, 3), np.array([[0, 2, 1], [1, 3, 0]]), (2, 3)],
     lambda m, x, i, s: x.scatter(0, i, s), (0,), {"requires": (True, False, True)}),
    ("scatter.src", [(4, 3), np.array([[0], [2]]), (3, 2)],  # (src's corner is read)
     lambda m, x, i, s: m.scatter(x, 1, i, s), (1,), {"requires": (True, False, False)}),
    ("scatter.value", [(5, 3), np.array([[1], [0], [2], [1], [0]])],
     lambda m, x, i: x.scatter(1, i, -1.0), (-1.0, 1), {"requires": (True, False)}),
    ("index_fill", [(5, 3), np.array([1, 3])], lambda m, x, i: x.index_fill(0, i, 7.0),
     (7.0, 0), {"requires": (True, False)}),
    ("index_copy", [(5, 3), np.array([2, 0]), (5, 2)],
     lambda m, x, i, s: x.index_copy(1, i, s), (1,), {"requires": (True, False, True),
                                                       "saved": False}),  # (torch's: source)
    ("embedding", [(5, 3), np.array([[0, 2], [2, 4]])],
     lambda m, w, i: m.nn.functional.embedding(i, w), (-1, False),
     {"requires": (True, False), "saved": False}),
    # (padding_idx and scale_grad_by_freq: a gradient that is not the derivative, as torch's)
    ("embedding", [(5, 3), np.array([[0, 2], [2, 4]])],
     lambda m, w, i: m.nn.functional.embedding(i, w, padding_idx=2, scale_grad_by_freq=True),
     (2, True), {"requires": (True, False), "saved": False, "gradcheck": False}),
    # losses
    ("nll_loss", [(3, 4), np.array([0, 3, 1]), np.array([0.5, 1.0, 2.0, 1.5])],
     lambda m, x, t, w: m.nn.functional.nll_loss(x, t, w), (1, -100),
     {"requires": (True, False, False)}),
    ("nll_loss", [(2, 4, 3), np.array([[0, 3, 1], [2, 2, -100]])],
     lambda m, x, t: m.nn.functional.nll_loss(x, t, reduction="none"), (0, -100),
     {"requires": (True, False), "torch_node": False}),  # (torch's: nll_loss2d and views)
    # (torch's cross_entropy is log_softmax then nll_loss: its NllLossBackward0 has an edge
    # to LogSoftmaxBackward0, ours to the logits; the saved values are compared in
    # test_functional.py)
    ("cross_entropy_loss", [(3, 4), np.array([0, 3, 1]), np.array([0.5, 1.0, 2.0, 1.5])],
     lambda m, x, t, w: m.nn.functional.cross_entropy(x, t, w), (1, -100, True),
     {"requires": (True, False, False), "torch_node": False}),
    ("cross_entropy_loss", [(2, 4, 3), np.array([[0, 3, 1], [2, 2, 1]])],
     lambda m, x, t: m.nn.functional.cross_entropy(x, t, reduction="none", ignore_index=2),
     (0, 2, True), {"requires": (True, False), "torch_node": False}),
    ("cross_entropy_backward", [(3,), (3, 4), np.array([0, 3, 1]),
                                np.array([0.5, 1.0, 2.0, 1.5])],
     lambda m, g, x, t, w: (
         torch.autograd.grad(m.nn.functional.cross_entropy(x, t, w, reduction="none"), x, g,
                             create_graph=True)[0]
         if m is torch else cross_entropy_backward(g, x, t, w)),
     (-100, False), {"requires": (True, True, False, False), "torch_node": False}),
    # (full lengths: torch leaves the log-alphas past a sample's lengths unwritten; its
    # gradient is exp(lp) - posterior, for log-probabilities out of a log_softmax, not the
    # derivative that finite differences measure)
    ("_ctc_loss", [_CTC_LP, np.array([[1, 2], [2, 2]])],
     lambda m, lp, t: (torch.ops.aten._ctc_loss if m is torch else _ctc_loss)(
         lp, t, [4, 4], [2, 2], 0, False), ((4, 4), (2, 2), 0, False),
     {"requires": (True, False), "gradcheck": False}),
    ("_ctc_loss_backward", [(2,), _CTC_LP, np.array([[1, 2], [2, 2]]), *_CTC_OUT],
     lambda m, g, lp, t, nll, la: (
         torch.ops.aten._ctc_loss_backward if m is torch else _ctc_loss_backward)(
             g, lp, t, [4, 4], [2, 2], nll, la, 0, False),
     ((4, 4), (2, 2), 0, False),
     {"requires": (True, True, False, False, False), "derivative": False, "gradcheck": False,
      "torch_node": False}),  # (torch's node: "torch::autograd::NotImplemented")
    # (torch's node also records its `pivot` flag; nbgrad's row pivots always)
    ("lu_factor_ex", [(3, 3)], lambda m, a: tuple(m.linalg.lu_factor_ex(a)), (),
     {"saved": False, "low": False}),
    ("lu_factor_ex", [(2, 4, 3)], lambda m, a: tuple(m.linalg.lu_factor_ex(a)), (),
     {"saved": False, "low": False}),
    # (total_weight: the weights the targets take, 0.5 + 1.5 + 1.0)
    ("nll_loss_backward", [np.array(1.3), (3, 4), np.array([0, 3, 1]),
                           np.array([0.5, 1.0, 2.0, 1.5]), np.array(3.0)],
     lambda m, g, x, t, w, tw: (torch.ops.aten.nll_loss_backward(g, x, t, w, 1, -100, tw)
                                if m is torch else nll_loss_backward(g, x, t, w, 1, -100, tw)),
     (1, -100), {"requires": (True, True, False, False, False)}),
    ("mse_loss", [(3, 4), (3, 4)], lambda m, x, t: m.nn.functional.mse_loss(x, t), (1,)),
    ("mse_loss", [(3, 4), (4,)],
     lambda m, x, t: m.nn.functional.mse_loss(x, t.expand(3, 4), reduction="sum"), (2,)),
    ("mse_loss", [(2, 3), (2, 3)],
     lambda m, x, t: m.nn.functional.mse_loss(x, t, reduction="none"), (0,)),
    ("binary_cross_entropy_with_logits", [(3, 4), np.full((3, 4), 0.3)],
     lambda m, x, t: m.nn.functional.binary_cross_entropy_with_logits(x, t), (1,)),
    ("binary_cross_entropy_with_logits", [(3, 4), (3, 4), (4,), (4,)],
     lambda m, x, t, w, pw: m.nn.functional.binary_cross_entropy_with_logits(
         x, t, w, reduction="sum", pos_weight=pw), (2,),
     {"requires": (True, True, False, False)}),
    # issue #16's rows: masks, scans, orderings, roll, binary cross-entropy of probabilities
    ("masked_fill.Scalar", [(3, 4), _MASK], lambda m, x, k: x.masked_fill(k, -2.0), (-2.0,),
     {"requires": (True, False)}),
    ("masked_fill.Tensor", [(3, 4), _MASK, np.array(0.25)],
     lambda m, x, k, v: m.masked_fill(x, k, v), (), {"requires": (True, False, True)}),
    ("tril", (3, 4), lambda m, x: m.tril(x, 1), (1,)),
    ("triu", (2, 3, 4), lambda m, x: x.triu(-1), (-1,)),
    # (PyTorch records self's dtype for cumsum's backward but shows no _saved_self_dtype)
    ("cumsum", (3, 4), lambda m, x: m.cumsum(x, 1), (1, None), {"saved": False}),
    ("cumsum", (3, 4), lambda m, x: x.cumsum(0, dtype=m.float32), (0, nbgrad.float32),
     {"gradcheck": False, "rtol": 1e-6, "saved": False}),
    ("cumprod", (3, 4), lambda m, x: m.cumprod(x, 1), (1, None)),
    ("logcumsumexp", (3, 4), lambda m, x: m.logcumsumexp(x, 1), (1,)),
    ("cumprod", [np.array([[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]])], lambda m, x: x.cumprod(1),
     (1, None)),
    ("diagonal", (3, 4), lambda m, x: x.diagonal(1), (1, 0, 1)),
    ("diagonal", (2, 3, 4), lambda m, x: m.diagonal(x, -1, 2, 0), (-1, 2, 0)),
    ("diagonal_backward", [(3,)], lambda m, x: m.ops.aten.diagonal_backward(x, (3, 4), 0, 0, 1)
     if m is torch else nbgrad.ops.strided.diagonal_backward(x, (3, 4), 0, 0, 1),
     ((3, 4), 0, 0, 1)),
    ("unfold", (3, 7), lambda m, x: x.unfold(1, 3, 2), (1, 3, 2)),
    # (PyTorch saves the input's geometry as one object, nbgrad its strides and offset)
    ("as_strided", (3, 4), lambda m, x: x.as_strided((2, 3), (1, 2), 1),
     ((2, 3), (1, 2), 1, (4, 1), 0), {"saved": False}),
    # (PyTorch's inverse / LU factors are saved under other names than nbgrad's result)
    ("inv", (2, 3, 3), lambda m, x: m.linalg.inv(x), (), {"saved": False}),
    ("det", (3, 3), lambda m, x: m.linalg.det(x), (), {"saved": False}),
    ("slogdet", (2, 3, 3), lambda m, x: m.linalg.slogdet(x), (), {"saved": False}),
    ("solve", [(2, 3, 3), (2, 3, 2)], lambda m, a, b: m.linalg.solve(a, b), (False,),
     {"saved": False}),
    # the decompositions (ops/linalg_decomp.py), LAPACK's in both. A symmetric input is
    # made symmetric in the call (as PyTorch's own gradchecks do: its formulas give the
    # gradient of a symmetric matrix), eigenvectors and singular vectors are compared up to
    # sign (``gauge``: the two LAPACKs may pick either), and none has a 16-bit kernel
    ("cholesky", [_SPD], lambda m, x: m.linalg.cholesky((x + x.mT) / 2), (False,), _LAPACK),
    ("cholesky", [_SPD], lambda m, x: m.linalg.cholesky((x + x.mT) / 2, upper=True), (True,),
     _LAPACK),
    # (nbgrad's node keeps A's and B's sizes to sum a broadcast gradient; PyTorch's engine
    # sums it, so its node keeps none)
    ("solve_triangular", [(2, 3, 3), (3, 2)], lambda m, a, b: m.linalg.solve_triangular(
        a + 3 * m.eye(3, dtype=a.dtype), b, upper=True), (True, True, False),
     dict(_LAPACK, saved=False)),
    ("solve_triangular", [(3, 3), (2, 3)], lambda m, a, b: m.linalg.solve_triangular(
        a, b, upper=False, left=False, unitriangular=True), (False, False, True),
     dict(_LAPACK, saved=False)),
    ("qr", (4, 3), lambda m, x: m.linalg.qr(x), ("reduced",), _LAPACK),
    ("geqrf", (2, 4, 3), lambda m, x: tuple(m.geqrf(x)), (),
     {"derivative": False, "gradcheck": False, "low": False}),
    ("qr", (2, 3, 4), lambda m, x: m.linalg.qr(x, "complete"), ("complete",), _LAPACK),
    ("eigh", [_SPD], lambda m, x: m.linalg.eigh((x + x.mT) / 2), ("L",), _GAUGE),
    ("scatter_reduce.two", [(3, 4), np.array([[0, 2, 0, 1], [2, 2, 1, 0]]), (2, 4)],
     lambda m, x, i, s: x.scatter_reduce(0, i, s, "mean", include_self=False),
     (0, "mean", False), {"requires": (True, False, True)}),
    ("scatter_reduce.two", [(3, 4), np.array([[0, 2, 0, 1], [2, 2, 1, 0]]), (2, 4)],
     lambda m, x, i, s: m.scatter_reduce(x, 0, i, s, "prod"), (0, "prod", True),
     {"requires": (True, False, True)}),
    ("pinv", (4, 3), lambda m, x: m.linalg.pinv(x), (None, None, False), _LAPACK),
    ("pinv", [_SPD], lambda m, x: m.linalg.pinv((x + x.mT) / 2, hermitian=True),
     (None, None, True), _LAPACK),
    # (PyTorch's node keeps S's length besides S; nbgrad's reads it from S)
    ("svd", (4, 3), lambda m, x: m.linalg.svd(x, full_matrices=False), (False,), _SVD),
    ("svd", (2, 3, 4), lambda m, x: m.linalg.svd(x, full_matrices=False), (False,), _SVD),
    # (a full decomposition's extra vectors get no gradient: PyTorch's rule, not
    # finite differences')
    ("svd", (2, 3, 4), lambda m, x: m.linalg.svd(x), (True,), dict(_SVD, gradcheck=False)),
    ("sort", (3, 4), lambda m, x: m.sort(x, 1, descending=True), (1, True)),
    ("topk", (3, 4), lambda m, x: x.topk(2, 0), (2, 0, True)),
    ("kthvalue", (3, 4), lambda m, x: m.kthvalue(x, 2, 1), (2, 1, False)),
    ("roll", (3, 4), lambda m, x: m.roll(x, (1, -1), (0, 1)), ((1, -1), (0, 1))),
    ("binary_cross_entropy", [np.full((3, 4), 0.3), np.full((3, 4), 0.6)],
     lambda m, x, t: m.nn.functional.binary_cross_entropy(x, t, reduction="sum"), (2,)),
    # the backward steps, against torch's products
    ("linear_backward", [(2, 3, 5), (2, 3, 4), (5, 4)], _linear_backward,
     ((True, True, True), (2, 3, 4)), {"torch_node": False}),
    ("matmul_backward", [(2, 3, 5), (2, 3, 4), (4, 5)], _matmul_backward,
     ((True, True), (2, 3, 4), (4, 5)), {"torch_node": False}),
]


def _input(data, k=0):
    if isinstance(data, tuple):
        return np.random.default_rng(len(data) + data[0] + 7 * k).standard_normal(data) + 0.5
    return data


def _inputs(data):
    return [_input(d, k) for k, d in enumerate(data)] if isinstance(data, list) else [_input(data)]


def _dims(d, ndim):
    if d is None or d == () or d == []:
        return tuple(range(ndim))
    return tuple(sorted(x % ndim for x in (d if isinstance(d, (tuple, list)) else (d,))))


def _listed(row, values):
    # a row whose operand is a list of tensors takes the operands' values as one list
    return [values] if row.listed else values


def _ids():
    return [f"{q}-{i}" for i, (q, *_rest) in enumerate(CASES)]


def test_every_row_has_a_case():
    assert set(TABLE) == {c[0] for c in CASES}


@pytest.mark.parametrize("case", CASES, ids=_ids())
def test_row_matches_torch(case):
    qualname, data, call, args = case[:4]
    row = TABLE[qualname]
    arrays = _inputs(data)
    opts = case[4] if len(case) > 4 else {}
    rg = opts.get("requires", (True,) * len(arrays))
    xs = [nbgrad.tensor(a, requires_grad=r) for a, r in zip(arrays, rg)]
    txs = [torch.tensor(a, requires_grad=r) for a, r in zip(arrays, rg)]
    y, ty = call(nbgrad, *xs), call(torch, *txs)
    ys, tys = (y, ty) if isinstance(y, tuple) else ((y,), (ty,))
    gauge = np.abs if opts.get("gauge") else (lambda v: v)
    for o, t in zip(ys, tys):
        np.testing.assert_allclose(gauge(o.detach().numpy()), gauge(t.detach().numpy()),
                                   rtol=1e-12, atol=1e-12)
        assert str(o.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    y, ty = ys[0], tys[0]
    # the rules a compiler reads, without running the op
    absent = () if row.listed else row.params[len(xs):]  # (trailing optional operands
    assert set(absent) <= set(row.optional)             # the case leaves out)
    got = y.grad_fn.next_functions if row.node is not None else ()
    shapes = row.shape(*_listed(row, [a.shape for a in arrays]), *[None] * len(absent), *args)
    if shapes and isinstance(shapes[0], tuple):  # one per output
        assert shapes[:len(ys)] == tuple(tuple(o.shape) for o in ys)
    else:
        assert shapes == tuple(y.shape)
    odt = row.dtype(*_listed(row, [x.dtype for x in xs]), *[None] * len(absent), *args)
    assert (odt[0] if isinstance(odt, tuple) else odt) is y.dtype
    if row.node is None:
        assert y.grad_fn is None and ty.grad_fn is None
        return
    assert type(y.grad_fn) is row.node
    assert len(got) == (len(xs) if row.listed else len(row.edges))
    if opts.get("torch_node", True):
        assert y.grad_fn.name() == ty.grad_fn.name()
        assert len(got) == len(ty.grad_fn.next_functions)
        for (f, _), (tf, _) in zip(got, ty.grad_fn.next_functions):
            assert (f is None) == (tf is None)
    names = {n for n in dir(ty.grad_fn) if n.startswith("_saved_")}
    ours = {n for n in dir(y.grad_fn) if n.startswith("_saved_")}
    if opts.get("torch_node", True) and opts.get("saved", True):
        assert names == ours
    for n in (names & ours) if opts.get("torch_node", True) else ():
        v, tv = getattr(y.grad_fn, n), getattr(ty.grad_fn, n)
        if isinstance(tv, int) and tv >= 2**63:  # (torch shows a negative int as uint64)
            tv -= 2**64
        if isinstance(tv, (tuple, list)):  # (in a list too: roll's shifts)
            tv = [t - 2**64 if isinstance(t, int) and t >= 2**63 else t for t in tv]
        if isinstance(tv, torch.Tensor):
            np.testing.assert_allclose(gauge(v.detach().numpy()), gauge(tv.detach().numpy()),
                                       rtol=1e-12)
        elif n == "_saved_correction":  # (torch keeps None for the default, 1)
            assert v == (1 if tv is None else tv)
        elif n == "_saved_dim":  # nbgrad records dims normalized: every dim for None/()
            assert _dims(v, arrays[-1].ndim) == _dims(tv, arrays[-1].ndim)
        else:
            assert (tuple(v) if isinstance(tv, (tuple, list)) else v) == (
                tuple(tv) if isinstance(tv, (tuple, list)) else tv), n
    if not opts.get("derivative", True):  # (PyTorch has none: a backward raises in both)
        for lib, outs, ins in ((nbgrad, ys, xs), (torch, tys, txs)):
            with pytest.raises(RuntimeError, match="is not implemented"):
                lib.autograd.grad(outs[0].sum(), [x for x, r in zip(ins, rg) if r])
        return
    rng = np.random.default_rng(1)
    diff = [(o, t) for o, t in zip(ys, tys) if t.grad_fn is not None]
    ws = [rng.standard_normal(tuple(o.shape)) for o, _ in diff]
    want = [x for x, r in zip(xs, rg) if r]
    # (squares: a loss that does not depend on the vectors' signs, for a gauge case)
    sq = (lambda v: v * v) if opts.get("gauge") else (lambda v: v)
    gs = nbgrad.autograd.grad(sum((sq(o) * nbgrad.tensor(w)).sum()
                                  for (o, _), w in zip(diff, ws)), want, allow_unused=True)
    tgs = torch.autograd.grad(sum((sq(t) * torch.tensor(w)).sum()
                                  for (_, t), w in zip(diff, ws)),
                              [x for x, r in zip(txs, rg) if r], allow_unused=True)
    # (through a float32 input torch rounds the float64 gradient to float32 on its way;
    # nbgrad, before and after the rows, hands it on unrounded)
    rtol = opts.get("rtol", 1e-10)
    for g, tg in zip(gs, tgs):
        assert (g is None) == (tg is None)
        if g is not None:
            np.testing.assert_allclose(g.numpy(), tg.numpy(), rtol=rtol, atol=1e-12)


@pytest.mark.parametrize(
    "case", [c for c in CASES if isinstance(c[1], (tuple, list)) and TABLE[c[0]].node is not None
             and (c[4:] or [{}])[0].get("gradcheck", True)], ids=lambda c: c[0])
def test_row_gradcheck_and_gradgradcheck(case):
    qualname, data, call, _args = case[:4]
    arrays = _inputs(data)
    rg = (case[4:] or [{}])[0].get("requires", (True,) * len(arrays))
    xs = tuple(nbgrad.tensor(a, requires_grad=r) for a, r in zip(arrays, rg))

    def f(*t):  # the differentiable output(s)
        y = call(nbgrad, *t)
        return tuple(o for o in y if o.grad_fn is not None) if isinstance(y, tuple) else y

    assert gradcheck(f, xs)
    assert gradgradcheck(f, xs)


@pytest.mark.parametrize("name", ["softmax", "log_softmax", "_softmax_backward_data",
                                  "_log_softmax_backward_data"])
@pytest.mark.parametrize("dim", [0, 1, 2])
def test_softmax_rows_take_any_layout(name, dim):
    # strided operands (a transposed view, an expanded one) give the contiguous values, and
    # a float32 grad_output is converted to the output's float64
    rng = np.random.default_rng(dim)
    a = rng.standard_normal((4, 3, 2))
    b = rng.standard_normal((4, 3, 2))
    want = _softmax_call(name, torch, [torch.tensor(a), torch.tensor(b)], dim)
    xs = [nbgrad.tensor(np.ascontiguousarray(a.transpose(2, 1, 0))).transpose(0, 2),
          nbgrad.tensor(np.ascontiguousarray(b.transpose(1, 0, 2))).transpose(0, 1)]
    np.testing.assert_allclose(_softmax_call(name, nbgrad, xs, dim).numpy(), want.numpy(),
                               rtol=1e-12, atol=1e-14)
    e = nbgrad.tensor(a[:1]).expand(4, 3, 2)
    te = torch.tensor(a[:1]).expand(4, 3, 2)
    np.testing.assert_allclose(_softmax_call(name, nbgrad, [e, e], dim).numpy(),
                               _softmax_call(name, torch, [te, te], dim).numpy(), rtol=1e-12)
    if name.startswith("_"):
        g32 = _softmax_call(name, nbgrad, [xs[0].float(), xs[1]], dim)
        assert g32.dtype is nbgrad.float64
        np.testing.assert_allclose(g32.numpy(), want.numpy(), rtol=1e-6, atol=1e-7)


def _softmax_call(name, m, xs, dim):
    if name.startswith("_"):
        return getattr(m, name)(xs[0], xs[1], dim, xs[1].dtype)
    return getattr(m, name)(xs[0], dim)


def test_surface_comes_from_the_rows():
    for row in TABLE.values():
        assert row.front is not None, row
        assert row.front.__name__ == row.name
        if row.fn:
            top = getattr(nbgrad, row.name)  # (or the layer taking out=: nbgrad/_out.py)
            assert top is row.front or top.__wrapped__ is row.front
        if row.method:  # (the front itself, or its copy whose docstring refers to it:
            # the same code, defaults and closure; nbgrad/_methods.py's _refer_to_functions)
            m = getattr(nbgrad.Tensor, row.name)
            assert m is row.front or (
                m.__code__ is row.front.__code__ and m.__closure__ == row.front.__closure__
                and m.__defaults__ == row.front.__defaults__
                and f"See :func:`nbgrad.{row.name}`" in m.__doc__), row.name


def test_saved_sizes_survive_backward():
    # sizes are attrs, not saved tensors: a second backward through SumBackward0 works
    x = nbgrad.tensor([1.0, 2.0], requires_grad=True)
    y = x.sum()
    y.backward()
    y.backward()
    assert y.grad_fn._saved_self_sym_sizes == (2,)
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0])


@pytest.mark.parametrize("call", [
    lambda m: m.arange(3).mean(5), lambda m: m.arange(3).var(5), lambda m: m.arange(3).std(5),
    lambda m: m.arange(3).sum(5), lambda m: m.zeros(0, 2).amax(5), lambda m: m.zeros(2, 0).max(1),
])
def test_errors_in_torch_order(call):
    # the dtype is refused before a dim is parsed, as PyTorch
    with pytest.raises(Exception) as want:
        call(torch)
    with pytest.raises(type(want.value)) as got:
        call(nbgrad)
    assert str(got.value)[:40] == str(want.value)[:40]


def test_rows_generate_their_call_and_record_on_first_use():
    # import generates no row's call or record (they took ~20 ms of `import nbgrad`);
    # the first use generates one and keeps it, so later calls skip the stub's frame
    import subprocess
    import sys

    code = """
import nbgrad
from nbgrad.ops import linalg
from nbgrad.ops.funcdef import TABLE as ROWS
from nbgrad.ops.opdef import TABLE as OPS
assert all(getattr(r.call, "__self__", None) is r for r in ROWS.values()), "call made at import"
assert all(getattr(o.record, "__self__", None) is o for o in OPS.values()
           if o.record is not None), "record made at import"
a = nbgrad.ones(2, 2, requires_grad=True)
y = nbgrad.tanh(a @ a)
assert not hasattr(linalg.MM.call, "__self__") and not hasattr(OPS["tanh"].record, "__self__")
y.sum().backward()
assert a.grad.shape == (2, 2) and y.grad_fn.name() == "TanhBackward0"
print("ok")
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip() == "ok"


_LOW_EPS = {"float16": 2.0**-10, "bfloat16": 2.0**-7}


# (float16 and bfloat16 by turns: both run the same float32 path; their casts are tested
# bit for bit in tests/test_low_precision.py)
@pytest.mark.parametrize("case,dtype", [(c, ("float16", "bfloat16")[i % 2]) for i, c in
                                        enumerate(CASES)],
                         ids=[f"{n}-{('float16', 'bfloat16')[i % 2]}"
                              for i, n in enumerate(_ids())])
def test_row_in_16_bit_floats(case, dtype):
    """Every row on float16 / bfloat16 operands (its float operands cast, the others kept):
    PyTorch's result dtypes, and values and gradients to a few 16-bit roundings of
    PyTorch's CPU (or, where PyTorch has no 16-bit kernel, of its float32 result)."""
    qualname, data, call, args = case[:4]
    arrays = _inputs(data)
    opts = case[4] if len(case) > 4 else {}
    rg = opts.get("requires", (True,) * len(arrays))
    tdt = getattr(torch, dtype)

    def lows(m, dt):
        out = []
        for a, r in zip(arrays, rg):
            t = m.tensor(a)
            if t.dtype.is_floating_point:
                t = t.to(dt).requires_grad_(r)
            out.append(t)
        return out

    xs, txs = lows(nbgrad, getattr(nbgrad, dtype)), lows(torch, tdt)
    if not opts.get("low", True):  # (no 16-bit kernel: PyTorch's error)
        with pytest.raises(Exception) as want:
            call(torch, *txs)
        with pytest.raises(type(want.value), match=re.escape(str(want.value))):
            call(nbgrad, *xs)
        return
    y = call(nbgrad, *xs)
    m = torch  # the oracle
    try:
        ty = call(torch, *txs)
    except (RuntimeError, NotImplementedError):  # no 16-bit kernel in PyTorch: float32's
        txs = [t.detach().float().requires_grad_(t.requires_grad) if t.dtype == tdt else t
               for t in txs]
        try:
            ty = call(torch, *txs)
        except RuntimeError:  # (a case whose torch call makes float64 operands itself:
            m = nbgrad         # nbgrad's float32 values, tested against torch above)
            txs = [m.tensor(t.detach().numpy()).requires_grad_(t.requires_grad) for t in txs]
            ty = call(m, *txs)
        low = getattr(m, dtype)
        ty = tuple(t.to(low) if t.dtype == m.float32 else t for t in ty) \
            if isinstance(ty, tuple) else (ty.to(low) if ty.dtype == m.float32 else ty)
    ys, tys = (y, ty) if isinstance(y, tuple) else ((y,), (ty,))
    eps = _LOW_EPS[dtype]
    for o, t in zip(ys, tys):
        assert str(o.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
        want = t.detach().double().numpy()
        scale = max(1.0, float(np.abs(want[np.isfinite(want)]).max(initial=0)))
        np.testing.assert_allclose(o.detach().double().numpy(), want, rtol=4 * eps,
                                   atol=4 * eps * scale)
    diff = [(o, t) for o, t in zip(ys, tys) if t.grad_fn is not None]
    if not diff or not all(o.grad_fn is not None for o, _ in diff) or not opts.get(
            "derivative", True):
        return
    rng = np.random.default_rng(1)
    ws = [rng.standard_normal(tuple(o.shape)) for o, _ in diff]
    want = [x for x in xs if x.requires_grad]
    gs = nbgrad.autograd.grad(sum((o.double() * nbgrad.tensor(w)).sum()
                                  for (o, _), w in zip(diff, ws)), want, allow_unused=True)
    tgs = m.autograd.grad(sum((t.double() * m.tensor(w)).sum()
                                  for (_, t), w in zip(diff, ws)),
                              [x for x in txs if x.requires_grad], allow_unused=True)
    for g, x, tg in zip(gs, want, tgs):
        assert (g is None) == (tg is None)
        if g is not None:
            assert g.dtype is x.dtype
            tgv = tg.double().numpy()
            scale = max(1.0, float(np.abs(tgv[np.isfinite(tgv)]).max(initial=0)))
            np.testing.assert_allclose(g.double().numpy(), tgv, rtol=8 * eps,
                                       atol=8 * eps * scale)
