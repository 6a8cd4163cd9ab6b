"""Storage backends, one module per device type (allocation, host copies, strided views).

Each backend module registers its kernels with ``nbgrad.ops.registry`` when imported.
"""

import importlib

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
    ("sgd_step", "optim", "sgd"),
    ("sgd_momentum_step", "optim", "sgd_momentum"),
    ("adam_step", "optim", "adam"),
    ("index_gather", "index", "gather"),
    ("index_scatter_add", "index", "scatter_add"),
    ("index_take", "index", "take"),
    ("index_put", "index", "put"),
    ("im2col", "conv", "im2col"),
    ("col2im", "conv", "col2im"),
    ("conv2d_bias_add", "conv", "bias_add"),
    ("conv_mm", "conv", "conv_mm"),
    ("max_pool2d", "conv", "max_pool2d"),
    ("max_pool2d_backward", "conv", "max_pool2d_backward"),
    ("max_pool2d_gather", "conv", "max_pool2d_gather"),
    ("var", "reduce", "var_arb"),
    ("prod", "reduce", "prod_arb"),
    ("logsumexp", "reduce", "logsumexp_arb"),
    ("norm", "reduce", "norm_arb"),
    ("cross_entropy", "nn", "cross_entropy"),
    ("cross_entropy_backward", "nn", "cross_entropy_backward"),
    ("layer_norm", "nn", "layer_norm"),
    ("layer_norm_backward", "nn", "layer_norm_backward"),
)


def register_table(device_type, package):
    """Register every kernel of ``KERNELS`` from ``package`` for ``device_type``."""
    from ..ops.registry import register_kernel

    for op, module, fn in KERNELS:
        register_kernel(op, device_type, getattr(importlib.import_module(f"{package}.{module}"), fn))
