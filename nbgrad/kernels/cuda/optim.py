"""Fused optimizer updates on the device: one thread per parameter element, grid-stride.

Same contract as kernels/cpu/optim.py (flat C-contiguous arrays of the parameter's dtype,
a step body of ``kernels/updates.py``): ``update_kernel`` makes the kernel of any step body,
compiled as a device function, so a CUDA step follows PyTorch's single-tensor
SGD/Adam/Adadelta the same way the CPU step does.
"""

from numba import cuda

from ._launch import device_fn, grid


def update_kernel(f):
    """The grid-stride kernel of step body ``f`` over a flat parameter."""
    body = device_fn(f)

    @cuda.jit
    def kernel(p, g, s, hp):
        i = cuda.grid(1)
        step = cuda.gridsize(1)
        while i < p.size:
            body(i, p, g, s, hp)
            i += step

    return kernel


_KERNELS = {}  # step body -> kernel, built on first use


def update(f, p, g, s, hp):
    """Run step body ``f`` over every element of ``p`` (state arrays ``s``, hyperparameters
    ``hp``)."""
    if p.size:
        k = _KERNELS.get(f)
        if k is None:
            k = _KERNELS[f] = update_kernel(f)
        k[grid(p.size)](p, g, s, hp)
