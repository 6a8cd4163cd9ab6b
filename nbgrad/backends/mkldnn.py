"""``nbgrad.backends.mkldnn``: nbgrad uses no oneDNN (MKL-DNN); its CPU kernels are Numba's."""


def is_available():
    r"""Return whether nbgrad is built with oneDNN (MKL-DNN) support (it is not)."""
    return False
