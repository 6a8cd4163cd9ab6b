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


def assert_same_error(call, torch, nbgrad, expected=lambda text: text):
    """``call(torch)`` and ``call(nbgrad)`` both raise, with the same message (PyTorch's
    passed through ``expected``, for a text naming its own types) and an exception type of
    nbgrad's that is PyTorch's, or a RuntimeError where PyTorch's is one (its LinAlgError)."""
    want = error_of(lambda: call(torch))
    got = error_of(lambda: call(nbgrad))
    assert want is not None, "PyTorch raised nothing"
    assert got is not None, f"nbgrad raised nothing, PyTorch {want}"
    kind = RuntimeError if issubclass(want[0], RuntimeError) else want[0]
    assert issubclass(got[0], kind) and got[1] == expected(want[1]), (got, want)
