"""``nbgrad.backends.cuda``: whether nbgrad can run on CUDA devices, and the matmul flag.

Whether a device is present now is ``nbgrad.cuda.is_available()``.
"""

import importlib.util


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

    ``allow_tf32`` (default False) is accepted as in PyTorch but changes nothing: nbgrad's
    CUDA matmul is its own tiled kernel that multiplies float32 in full float32 precision
    and never uses TF32 tensor cores (``nbgrad.float32`` results match with it on or off).
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
            return
        raise AttributeError("Unknown attribute " + name)


matmul = _Matmul()
