"""Strided views of device arrays, built from their buffers (real GPU or the simulator).

The kernels need them to present operands in the shapes a kernel indexes (a 2-d matrix as
a batch of one); storage builds its views (reshape, permute, expand, getitem) on them too.
"""

import numpy as np
from numba import config as _nb_config

SIMULATOR = bool(_nb_config.ENABLE_CUDASIM)

if SIMULATOR:
    from numba.cuda.simulator.cudadrv.devicearray import FakeCUDAArray as _Fake
else:
    from numba.cuda.cudadrv.devicearray import DeviceNDArray as _DeviceNDArray


def view(arr, shape, strides, offset=0):
    """A view of device array ``arr``'s buffer with ``shape`` and byte ``strides``, starting
    ``offset`` bytes in (no copy)."""
    if SIMULATOR:
        base = arr._ary
        if offset:
            base = base.reshape(-1)[offset // base.itemsize:] if base.flags.c_contiguous else None
            if base is None:
                raise NotImplementedError("offset view of a non-contiguous simulated array")
        return _Fake(np.lib.stride_tricks.as_strided(base, tuple(shape), tuple(strides)))
    data = arr.gpu_data.view(offset) if offset else arr.gpu_data
    return _DeviceNDArray(tuple(shape), tuple(strides), arr.dtype, gpu_data=data)
