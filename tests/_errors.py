"""The error a call raises, as ``(type, message)``, for tests that compare nbgrad's errors
with PyTorch's."""

import warnings


def error_of(call):
    """``(type, message)`` of what ``call()`` raises (its warnings silenced), None if it
    returns."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            call()
    except Exception as e:  # noqa: BLE001 (the type and the message are compared)
        return type(e), str(e)
    return None
