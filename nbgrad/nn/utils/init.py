"""``skip_init``, as ``torch.nn.utils.init``: a module built without initializing its
parameters and buffers."""

import inspect

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """``module_cls(*args, **kwargs)`` without its initialization: the parameters and
    buffers hold arbitrary values (as made by ``nbgrad.empty``) and the random number
    generator is left where it was. The module must take a ``device`` argument, and its
    constructor must do nothing with the parameters but initialize them.

    Unlike PyTorch (which builds the module on the ``meta`` device, where nbgrad has none),
    the module is built on its final device with ``reset_parameters`` made a no-op and the
    generator's state restored afterwards: values a constructor sets outside
    ``reset_parameters`` are then kept, which "arbitrary" allows.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.utils.skip_init(nbgrad.nn.Linear, 5, 1)
        >>> m.weight.shape
        nbgrad.Size([1, 5])
        >>> m2 = nbgrad.nn.utils.skip_init(nbgrad.nn.Linear, in_features=6, out_features=1)
        >>> m2.weight.shape
        nbgrad.Size([1, 6])
    """
    from ...random import fork_rng
    from ..modules.module import Module

    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    kwargs.setdefault("device", "cpu")
    # reset_parameters is where the layers draw their initial values: skipping it is what
    # makes the construction cheap
    uninit = type(module_cls.__name__, (module_cls,), {
        "reset_parameters": lambda self: None, "__module__": module_cls.__module__,
        "__qualname__": module_cls.__qualname__})
    with fork_rng():
        module = uninit(*args, **kwargs)
    module.__class__ = module_cls
    return module
