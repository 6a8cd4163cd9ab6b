"""``nbgrad.backends.mps``: nbgrad has no Apple MPS backend (devices are ``cpu`` and ``cuda``)."""


def is_available():
    r"""Return whether an MPS device can be used (never in nbgrad)."""
    return False


def is_built():
    r"""Return whether nbgrad is built with MPS support (it is not)."""
    return False
