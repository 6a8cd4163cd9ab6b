"""``nbgrad.backends.cuda``: whether nbgrad can run on CUDA devices, and the matmul flag.

Whether a device is present now is ``nbgrad.cuda.is_available()``.
"""

import importlib.util

from ..kernels import flags as _flags


def is_built():
    r"""Return whether nbgrad is built with CUDA support.

    Note that this doesn't necessarily mean CUDA is available; just that if nbgrad were run
    on a machine with working CUDA drivers and devices, it could use them. nbgrad's CUDA
    kernels are compiled at run time by ``numba.cuda``, so this is whether that module is
    installed (it is not imported here).
    """
    return importlib.util.find_spec("numba.cuda") is not None


class _Matmul:
    """``nbgrad.backends.cuda.matmul``: flags of matrix products on CUDA devices.

    ``allow_tf32`` (default False, as PyTorch's): whether float32 matrix products on
    cuBLAS may use TF32 tensor cores (faster, ~10 bits of mantissa in the products). Off,
    they multiply in full float32 precision. nbgrad's own tiled kernel (the simulator, or
    no cuBLAS) never uses TF32.
    """

    __slots__ = ("_allow_tf32",)

    def __init__(self):
        object.__setattr__(self, "_allow_tf32", False)

    def __getattr__(self, name):
        if name == "allow_tf32":
            return self._allow_tf32
        raise AttributeError("Unknown attribute " + name)

    def __setattr__(self, name, value):
        if name == "allow_tf32":
            if not isinstance(value, bool):
                raise RuntimeError(
                    f"set_allow_tf32_cublas expects a bool, but got {type(value).__name__}"
                )
            object.__setattr__(self, "_allow_tf32", value)
            _flags.ALLOW_TF32[0] = value
            return
        raise AttributeError("Unknown attribute " + name)


matmul = _Matmul()
