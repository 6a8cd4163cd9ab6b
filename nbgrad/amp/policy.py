"""Autocast's state and its casting table: which ops run in the lower precision, which in
float32, which at the widest of their inputs' types, per device type, as PyTorch's
``autocast_mode.cpp`` lists them (``AutocastCPU`` / ``AutocastCUDA``).

An op takes part by its public function's name (``autocast_op`` on a hand-written front;
the elementwise rows' generated functions look their name up themselves). While autocast is
off for every device type, a listed op pays one test of a thread-local flag.

The policies, each applied to the floating-point tensor arguments on the region's device
type (float64 ones are left alone, as PyTorch's):

- ``LOWER``: cast to the region's dtype (bfloat16 on the CPU, float16 on CUDA by default);
  a float32 leaf that requires grad is cast once per region (the cast cache), so a weight
  used by many calls has one cast node, as PyTorch's.
- ``FP32``: cast to float32 (so 16-bit inputs compute and return float32).
- ``FP32_DTYPE``: reductions with a ``dtype=`` argument run with ``dtype=float32`` unless
  the call gives one.
- ``PROMOTE``: cast to the widest type among them (float32 over the region's dtype); any
  other mix (float16 under a bfloat16 region) is PyTorch's "Unexpected floating ScalarType".
- ``BANNED``: refused with PyTorch's message (``binary_cross_entropy`` under CUDA autocast).

Inside a listed op the region is suspended, as PyTorch excludes its autocast key while the
op runs: the ops it is made of see the dtypes it chose.
"""

import functools
import inspect
import threading

from .. import dtypes as _dt
from .._signatures import guarded

LOWER, FP32, FP32_DTYPE, PROMOTE, BANNED = "lower", "fp32", "fp32_dtype", "promote", "banned"

_CPU_LOWER = (
    "conv1d conv2d conv3d bmm mm linalg_vecdot baddbmm addmm addbmm linear matmul "
    "conv_transpose1d conv_transpose2d conv_transpose3d prelu scaled_dot_product_attention")
_CPU_FP32 = (
    "avg_pool3d binary_cross_entropy binary_cross_entropy_with_logits grid_sample prod "
    "quantile nanquantile cdist trace inverse pinverse max_pool3d adaptive_avg_pool3d "
    "adaptive_max_pool3d mse_loss cosine_embedding_loss nll_loss hinge_embedding_loss "
    "poisson_nll_loss smooth_l1_loss cross_entropy l1_loss huber_loss margin_ranking_loss "
    "soft_margin_loss triplet_margin_loss multi_margin_loss multilabel_margin_loss ctc_loss "
    "kl_div linalg_inv linalg_solve linalg_cholesky linalg_eigh linalg_svd linalg_qr "
    "linalg_lstsq")
_CUDA_LOWER = (
    "conv1d conv2d conv3d conv_transpose1d conv_transpose2d conv_transpose3d prelu addmm "
    "addmv addr matmul einsum mm mv linalg_vecdot linear addbmm baddbmm bmm chain_matmul "
    "linalg_multi_dot lstm_cell gru_cell rnn_tanh_cell rnn_relu_cell "
    "scaled_dot_product_attention")
# (cross_entropy is a composite in PyTorch, of log_softmax in float32 and nll_loss in
# float32: one float32 op here)
_CUDA_FP32 = (
    "acos asin cosh erfinv exp expm1 log log10 log2 log1p reciprocal rsqrt sinh tan pow "
    "softplus layer_norm rms_norm group_norm nuclear_norm cosine_similarity poisson_nll_loss "
    "cosine_embedding_loss nll_loss hinge_embedding_loss kl_div l1_loss smooth_l1_loss "
    "huber_loss mse_loss margin_ranking_loss multilabel_margin_loss soft_margin_loss "
    "triplet_margin_loss multi_margin_loss binary_cross_entropy_with_logits dist pdist cdist "
    "renorm logsumexp interpolate cross_entropy")
_CUDA_FP32_DTYPE = ("prod softmax log_softmax cumprod cumsum linalg_vector_norm "
                    "linalg_matrix_norm sum")
_CUDA_PROMOTE = ("addcdiv addcmul atan2 bilinear cross dot vdot grid_sample index_put "
                 "tensordot scatter_add")

TABLE = {
    "cpu": {LOWER: _CPU_LOWER.split(), FP32: _CPU_FP32.split(),
            PROMOTE: "stack cat index_copy".split()},
    "cuda": {LOWER: _CUDA_LOWER.split(), FP32: _CUDA_FP32.split(),
             FP32_DTYPE: _CUDA_FP32_DTYPE.split(), PROMOTE: _CUDA_PROMOTE.split(),
             BANNED: ["binary_cross_entropy"]},
}

_BANNED_MESSAGE = (
    "torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast.\n"
    "Many models use a sigmoid layer right before the binary cross entropy layer.\n"
    "In this case, combine the two layers using "
    "torch.nn.functional.binary_cross_entropy_with_logits\n"
    "or torch.nn.BCEWithLogitsLoss.  binary_cross_entropy_with_logits and BCEWithLogits are\n"
    "safe to autocast.")


def policies(name):
    """``{device_type: policy}`` of the op whose public function is ``name``."""
    return {dev: pol for dev, rows in TABLE.items() for pol, names in rows.items()
            if name in names}


# how many threads have autocast on for some device type: the one test a listed op makes
# while it is 0 (a list item, cheaper than a thread-local attribute)
ACTIVE = [0]
_LOCK = threading.Lock()


class _State(threading.local):
    """Per thread, as PyTorch's: enabled and dtype per device type, the cast cache."""

    def __init__(self):
        self.on = False  # any device type enabled in this thread
        self.suspended = False  # inside a listed op that applied a policy
        self.enabled = {"cpu": False, "cuda": False}
        self.dtype = {"cpu": _dt.bfloat16, "cuda": _dt.float16}
        self.cache_enabled = True
        self.nesting = 0
        self.cache = {}  # id(float32 leaf) -> (leaf, its cast)

    def refresh(self):
        on = any(self.enabled.values())
        if on != self.on:
            with _LOCK:
                ACTIVE[0] += 1 if on else -1
            self.on = on


STATE = _State()


def autocast_op(name):
    """Decorator: the public function ``name`` takes part in autocast by the table's policy
    for its name (its arguments are cast before it runs)."""
    if not policies(name):
        raise KeyError(f"autocast_op: {name!r} is in no autocast list")
    return lambda fn: wrap(name, fn)


def wrap(name, fn):
    """``fn``, or, when ``name`` is listed, a function of ``fn``'s signature that tests
    ``ACTIVE`` and calls ``fn`` (``_signatures.guarded``: a ``*args, **kwargs`` wrapper
    costs a listed op twice as much while autocast is off)."""
    pols = policies(name)
    if not pols:
        return fn
    dtype_at = None
    for i, p in enumerate(inspect.signature(fn).parameters.values()):
        if p.name == "dtype" and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            dtype_at = i
    slow = functools.partial(call, fn, (pols, dtype_at))
    slow.env = ACTIVE
    return guarded(fn, "_env[0]", slow)


def call(fn, spec, args, kwargs):
    """``fn(*args, **kwargs)`` with its arguments cast by the policies of ``spec`` (and
    where its ``dtype`` argument sits) for the device types whose autocast is on in this
    thread, the region suspended while it runs (when a policy applied: an op listed for
    another device type runs as unlisted, its parts cast)."""
    st = STATE
    if st.suspended or not st.on:
        return fn(*args, **kwargs)
    pols, dtype_at = spec
    applied = False
    for dev, pol in pols.items():
        if not st.enabled[dev]:
            continue
        applied = True
        if pol == BANNED:
            raise RuntimeError(_BANNED_MESSAGE)
        if pol == FP32_DTYPE:
            given = kwargs.get("dtype") is not None or (
                dtype_at is not None and len(args) > dtype_at and args[dtype_at] is not None)
            if not given and args and _eligible(args[0], dev):
                if dtype_at is not None and len(args) > dtype_at:
                    args = args[:dtype_at] + (_dt.float32,) + args[dtype_at + 1:]
                else:
                    kwargs = dict(kwargs, dtype=_dt.float32)
            continue
        to = (st.dtype[dev] if pol == LOWER else _dt.float32 if pol == FP32
              else _promoted(st.dtype[dev], dev, (args, kwargs)))
        args = _cast(args, to, dev)
        kwargs = _cast(kwargs, to, dev)
    if not applied:
        return fn(*args, **kwargs)
    st.suspended = True
    try:
        return fn(*args, **kwargs)
    finally:
        st.suspended = False


def _eligible(x, dev):
    from ..tensor import Tensor

    return (x.__class__ is Tensor and x._device.type == dev
            and x._dtype.is_floating_point and x._dtype is not _dt.float64)


def _tensors(obj):
    if isinstance(obj, dict):
        obj = obj.values()
    for x in obj:
        if isinstance(x, (list, tuple, dict)):
            yield from _tensors(x)
        else:
            yield x


def _promoted(lower, dev, args):
    """PyTorch's ``prioritize``: float32 wins over the region's dtype; float64 is ignored."""
    from ..tensor import Tensor

    current = lower
    for x in _tensors(args):
        if x.__class__ is not Tensor or x._device.type != dev:
            continue
        nxt = x._dtype
        if not nxt.is_floating_point or nxt is _dt.float64:
            continue
        if current is _dt.float32 or nxt is _dt.float32:
            current = _dt.float32
        elif not (current is lower and nxt is lower):
            raise RuntimeError("Unexpected floating ScalarType in at::autocast::prioritize")
    return current


def _cast(obj, to, dev):
    """``obj`` (a tensor, or a list / tuple / dict holding some) with its eligible tensors
    cast to ``to``."""
    from ..tensor import Tensor

    if obj.__class__ is Tensor:
        return _cast_one(obj, to) if _eligible(obj, dev) and obj._dtype is not to else obj
    if isinstance(obj, dict):
        return {k: _cast(v, to, dev) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(_cast(x, to, dev) for x in obj)
    return obj


def _cast_one(t, to):
    from ..autograd.grad_mode import STATE as _GRAD
    from ..tensor import Tensor

    st = STATE
    # a float32 leaf that requires grad (a weight) is cast once per region, while grad
    # mode is on (a cast made under no_grad would carry no history)
    # (type(): a compiler's pending tensor, never a leaf, is not asked for its history)
    cache = (st.cache_enabled and to.low and t._dtype is _dt.float32 and t.requires_grad
             and type(t) is Tensor and t.grad_fn is None and t._base is None
             and _GRAD.enabled)
    if cache:
        hit = st.cache.get(id(t))
        if hit is not None and hit[0] is t:
            return hit[1]
    out = t.to(to)
    if cache:
        st.cache[id(t)] = (t, out)
    return out
