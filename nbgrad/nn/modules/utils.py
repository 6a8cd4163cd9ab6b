"""Helpers shared by the layers."""

from ..parameter import mark


def _factory(device, dtype):
    """``new(*shape)``: an uninitialised parameter of ``dtype`` (the default when None) on
    ``device``, for a layer's ``reset_parameters`` to fill."""
    from ... import dtypes
    from ...creation import empty

    dt = dtype if dtype is not None else dtypes.get_default_dtype()
    return lambda *shape: mark(empty(*shape, dtype=dt, device=device).requires_grad_(True))



def _pair(x):
    if isinstance(x, (tuple, list)):
        return tuple(x)
    return (x, x)

