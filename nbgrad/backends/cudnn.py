"""``nbgrad.backends.cudnn``: nbgrad uses no cuDNN.

``is_available()`` is False and ``version()`` None, as in a PyTorch built without cuDNN.
The flags programs commonly set (``enabled``, ``benchmark``, ``deterministic``,
``allow_tf32``) are accepted with PyTorch's defaults and change nothing: nbgrad's CUDA
convolutions are its own kernels (im2col and a tiled matmul), with no algorithm search.
"""

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def is_available():
    r"""Return whether nbgrad can use cuDNN (never: it has its own CUDA kernels)."""
    return False


def version():
    r"""Return the cuDNN version in use (None: nbgrad uses no cuDNN)."""
    return None
