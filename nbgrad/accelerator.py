"""``nbgrad.accelerator``: PyTorch's device-agnostic queries; nbgrad's accelerator is CUDA
(a GPU, or Numba's simulator)."""

from . import cuda


def is_available():
    """Whether an accelerator (a CUDA device) can be used."""
    return cuda.is_available()


def current_accelerator(check_available=False):
    """``device("cuda")`` when one can be used, else None."""
    from .device import device

    return device("cuda") if cuda.is_available() else None


def device_count():
    """How many accelerator devices there are."""
    return cuda.device_count()


def current_device_index():
    return cuda.current_device()


def synchronize(device=None):
    """Wait for the accelerator's queued work."""
    cuda.synchronize()
