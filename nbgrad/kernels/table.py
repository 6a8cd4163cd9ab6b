"""The kernel table: kernels by (op name, device type).

It sits above the kernels (it imports each target's kernel package, by name, the first time a
kernel of that device type is asked for) and below storage and the ops, which look kernels
up here. ``kernel`` reads only ``device.type``; a new target adds a package under
``nbgrad/kernels/`` that implements ``KERNELS`` and the elementwise loop classes, and an entry
in ``_TARGETS``.
"""

import importlib

_KERNELS = {}  # op name -> {device type: callable}
_TARGETS = {"cpu": "nbgrad.kernels.cpu", "cuda": "nbgrad.kernels.cuda"}
_LOADED = set()  # device types whose built-in kernels are registered

# op name -> (module, function) inside each target's kernel package (nbgrad.kernels.cpu,
# nbgrad.kernels.cuda): every target implements the same kernels under the same names
KERNELS = (
    ("sum", "reduce", "sum_arb"),
    ("amax", "reduce", "amax_arb"),
    ("amin", "reduce", "amin_arb"),
    ("argmax", "reduce", "argmax_arb"),
    ("argmin", "reduce", "argmin_arb"),
    ("matmul", "linalg", "matmul"),
    ("log_softmax", "nn", "log_softmax"),
    ("softmax", "nn", "softmax"),
    ("log_softmax_backward", "nn", "log_softmax_backward"),
    ("softmax_backward", "nn", "softmax_backward"),
    ("class_mask", "nn", "class_mask"),
    ("optim_update", "optim", "update"),
    ("index_gather", "index", "gather"),
    ("index_scatter_add", "index", "scatter_add"),
    ("index_take", "index", "take"),
    ("index_put", "index", "put"),
    ("im2col", "conv", "im2col"),
    ("col2im", "conv", "col2im"),
    ("conv2d_bias_add", "conv", "bias_add"),
    ("conv_mm", "conv", "conv_mm"),
    ("conv2d_forward", "conv", "conv2d_forward"),
    ("conv2d_input_grad", "conv", "conv2d_input_grad"),
    ("conv2d_weight_grad", "conv", "conv2d_weight_grad"),
    ("max_pool2d", "conv", "max_pool2d"),
    ("max_pool2d_backward", "conv", "max_pool2d_backward"),
    ("max_pool2d_gather", "conv", "max_pool2d_gather"),
    ("var", "reduce", "var_arb"),
    ("prod", "reduce", "prod_arb"),
    ("logsumexp", "reduce", "logsumexp_arb"),
    ("norm", "reduce", "norm_arb"),
    ("scan", "reduce", "scan_arb"),
    ("cross_entropy", "nn", "cross_entropy"),
    ("cross_entropy_backward", "nn", "cross_entropy_backward"),
    ("layer_norm", "nn", "layer_norm"),
    ("layer_norm_backward", "nn", "layer_norm_backward"),
    ("nll_loss", "nn", "nll_loss"),
    ("nll_loss_backward", "nn", "nll_loss_backward"),
)


def register_kernel(name, device_type, fn=None):
    """Register ``fn`` as op ``name``'s kernel for ``device_type``; usable as a decorator."""
    if fn is None:
        return lambda f: register_kernel(name, device_type, f)
    _KERNELS.setdefault(name, {})[device_type] = fn
    return fn


def kernel(name, device):
    """The kernel of op ``name`` for ``device``, or a NotImplementedError naming both."""
    per = _KERNELS.get(name)
    if per is not None:
        k = per.get(device.type)
        if k is not None:
            return k
    if device.type not in _LOADED and device.type in _TARGETS:
        load(device.type)
        return kernel(name, device)
    have = ", ".join(sorted(per)) if per else "no device"
    raise NotImplementedError(
        f"Could not run 'nbgrad::{name}' with arguments from the '{device.type}' backend. "
        f"'{name}' is only available for: {have}."
    )


def registered_ops():
    """Names of every op with at least one kernel, with the device types it has."""
    return {k: sorted(v) for k, v in _KERNELS.items()}


def load(device_type):
    """Register the built-in kernels of target ``device_type`` (once; compiles nothing)."""
    if device_type in _LOADED:
        return
    package = _TARGETS[device_type]
    loops = importlib.import_module(f"{package}.elementwise")
    unary, binary, ternary = _elementwise(device_type)

    def builtin(name, fn):
        # a kernel the program registered before this first lookup stays
        _KERNELS.setdefault(name, {}).setdefault(device_type, fn)

    for name, f in unary.items():
        builtin(name, loops.UnaryKernel(f))
    for name, f in binary.items():
        builtin(name, loops.BinaryKernel(f))
    for name, f in ternary.items():
        builtin(name, loops.TernaryKernel(f))
    for op, module, fn in KERNELS:
        builtin(op, getattr(importlib.import_module(f"{package}.{module}"), fn))
    _LOADED.add(device_type)


def _elementwise(device_type):
    """The per-element bodies of the storage layer's own elementwise kernels, ``(unary,
    binary, ternary)`` dicts of op name -> ``kernels.scalar`` function. The elementwise ops
    register theirs from their rows (ops/elementwise.py), with one body for every target."""
    from . import scalar as S  # (numba: imported with the first kernel, not with nbgrad)

    return {"copy": S.ident}, {}, {"where": S.where, "clamp_min_backward": S.clamp_min_bwd,
                                   "clamp_max_backward": S.clamp_max_bwd}


def loops(device_type):
    """Target ``device_type``'s elementwise loop classes (``UnaryKernel``, ``BinaryKernel``):
    the module that turns a per-element body into that target's kernels."""
    return importlib.import_module(f"{_TARGETS[device_type]}.elementwise")
