"""PyTorch's ``out=`` argument on the functions of the ``nbgrad`` namespace.

``nbgrad.add(a, b, out=c)`` computes what the call without ``out`` computes, writes it into
``c`` (in place: views of ``c`` see it, its version counts the write) and returns ``c``.
As PyTorch's out= forms:

- no autograd: with grad mode on, an argument (or ``out``) that requires grad is refused
  ("add(): functions with out=... arguments don't support automatic differentiation, but
  one of the arguments requires grad.");
- a function that takes ``dtype`` computes in ``out``'s dtype when the call gives none
  (``nbgrad.zeros(3, out=t)``, ``nbgrad.sum(x, 0, out=t)``); otherwise the result is cast
  to ``out``'s dtype where PyTorch's casting rule allows ("result type Float can't be cast
  to the desired output type Long" where it does not);
- ``out`` of another shape is resized to the result's (with PyTorch's warning when it had
  elements); a function of several results takes a tuple of tensors, one per result.

The result is computed into new memory and copied (PyTorch's kernels write into ``out``
directly): ``out=`` saves no memory here. Where PyTorch refuses an ``out`` whose dtype
differs though the cast would be allowed (``mm``, ``softmax``, ``amax``, ``argmax``), this
computes and casts.
"""

import sys

from ._signatures import guarded
from .autograd.grad_mode import STATE as _GRAD
from .ops._core import write_out
from .tensor import Tensor

# the functions of PyTorch's namespace that take ``out=`` (its ``_VariableFunctions``
# signatures, 2.13) and that nbgrad defines, less the deprecated ones that warn so
# (``cholesky lu_solve qr range triangular_solve``): their warning names the caller's
# line, where a wrapper's frame would stand
NAMES = (
    "abs absolute acos acosh add addbmm addcdiv addcmul addmm addmv addr alias_copy all amax "
    "amin aminmax angle any arange arccos arccosh arcsin arcsinh arctan arctan2 arctanh "
    "argmax argmin argsort asin asinh atan atan2 atanh baddbmm bernoulli bitwise_and "
    "bitwise_left_shift bitwise_not bitwise_or bitwise_right_shift bitwise_xor bmm bucketize "
    "cat ceil cholesky_inverse cholesky_solve clamp clamp_max clamp_min clip "
    "column_stack concat concatenate copysign cos cosh cross cummax cummin cumprod cumsum "
    "deg2rad detach_copy diag diagonal_copy diff digamma div divide dot dstack empty eq erf "
    "erfc erfinv exp exp2 expand_copy expm1 eye fix float_power floor floor_divide fmax fmin "
    "fmod frac frexp frobenius_norm full gather gcd ge geqrf ger greater greater_equal gt "
    "hardshrink heaviside histc histogram hstack hypot i0 igamma igammac index_add "
    "index_copy index_reduce index_select inner inverse isin isneginf isposinf kron kthvalue "
    "lcm ldexp le lerp less less_equal lgamma linspace log log10 log1p log2 log_softmax "
    "logaddexp logaddexp2 logcumsumexp logical_and logical_not logical_or logical_xor logit "
    "logspace logsumexp lt lu_unpack masked_select matmul matrix_power max maximum "
    "mean median min minimum mm mode msort mul multinomial multiply mv mvlgamma nan_to_num "
    "nanmean nanmedian nanquantile nansum narrow_copy native_batch_norm ne neg negative "
    "nextafter nonzero nonzero_static normal not_equal nuclear_norm ones orgqr ormqr outer "
    "permute_copy polygamma pow prod quantile rad2deg rand randint randn randperm "
    "reciprocal remainder renorm round row_stack rsqrt scatter scatter_add scatter_reduce "
    "searchsorted select_copy sgn sigmoid sign signbit sin sinc sinh slice_scatter slogdet "
    "softmax sort split_copy split_with_sizes_copy sqrt square squeeze_copy stack std sub "
    "subtract sum svd t_copy take take_along_dim tan tanh threshold topk transpose_copy "
    "tril triu true_divide trunc unbind_copy unfold_copy unsqueeze_copy var "
    "vdot view_copy vstack where xlogy zeros").split()


def _needs_grad(values):
    for v in values:
        if v.__class__ is Tensor:
            if v._rg:
                return True
        elif isinstance(v, (tuple, list)) and _needs_grad(v):
            return True
    return False


def _into(name, fn, takes_dtype):
    def slow(args, kwargs, out):
        if _GRAD.enabled and (_needs_grad(args) or _needs_grad(kwargs.values())
                              or _needs_grad(out if isinstance(out, (tuple, list)) else (out,))):
            raise RuntimeError(
                f"{name}(): functions with out=... arguments don't support automatic "
                "differentiation, but one of the arguments requires grad.")
        if takes_dtype is not None and out.__class__ is Tensor:
            i = takes_dtype
            if 0 <= i < len(args):
                if args[i] is None:
                    args = args[:i] + (out._dtype,) + args[i + 1:]
            elif kwargs.get("dtype") is None:
                kwargs = dict(kwargs, dtype=out._dtype)
        result = fn(*args, **kwargs)
        if isinstance(result, tuple):
            if not isinstance(out, (tuple, list)) or len(out) != len(result):
                raise TypeError(f"{name}(): out= of this form takes a tuple of "
                                f"{len(result)} tensors, got {type(out).__name__}")
            for r, o in zip(result, out):
                write_out(name, r, o)
            return type(result)(*out) if hasattr(result, "_fields") else tuple(out)
        if isinstance(out, (tuple, list)):
            raise TypeError(f"{name}(): argument 'out' must be Tensor, not "
                            f"{type(out).__name__}")
        return write_out(name, result, out)

    return slow


def with_out(name, fn):
    """``fn`` taking PyTorch's ``out=`` (keyword-only, default None): a call without it is
    ``fn``'s own."""
    import inspect

    sig = inspect.signature(fn)
    takes_dtype = None
    for i, p in enumerate(sig.parameters.values()):
        if p.name == "dtype":
            positional = p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
            takes_dtype = i if positional else -1
    return guarded(fn, "out is not None", _into(name, fn, takes_dtype), extra=("out",),
                   sig=sig)


def install(namespace):
    """Give each function of ``NAMES`` in ``namespace`` (``nbgrad``'s globals) ``out=``."""
    for name in NAMES:
        fn = namespace.get(name)
        if fn is not None and callable(fn) and not isinstance(fn, type):
            namespace[name] = with_out(name, fn)


# (imported last by ``nbgrad/__init__.py``: the namespace is complete by then)
install(vars(sys.modules[__package__]))
