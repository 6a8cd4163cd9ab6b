"""``nbgrad.cuda``: is there a CUDA device, how many, wait for it.

These import ``numba.cuda`` on first call (``import nbgrad`` does not). Under Numba's CUDA
simulator (``NUMBA_ENABLE_CUDASIM=1`` set before the first import) one simulated device is
available, which is how the CUDA code is tested on machines without a GPU.
"""


def _cuda():
    try:
        from numba import cuda
    except ImportError:
        return None
    return cuda


def is_available():
    """True when a CUDA device (or the simulator) can be used."""
    cuda = _cuda()
    if cuda is None:
        return False
    try:
        return bool(cuda.is_available())
    except Exception:  # a broken driver reads as no device
        return False


def device_count():
    """Number of CUDA devices."""
    if not is_available():
        return 0
    return len(_cuda().gpus)


def synchronize(device=None):
    """Wait for all queued work on the device to finish."""
    if is_available():
        _cuda().synchronize()


def current_device():
    """Index of the current CUDA device (always 0 for nbgrad)."""
    return 0
