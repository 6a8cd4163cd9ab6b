"""Helpers shared by the layers."""

import inspect

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



# ----- constructors made from a table of parameters -------------------------------------
REQUIRED = inspect.Parameter.empty  # the default of a parameter that has none
KEYWORD_ONLY = ("*", None)  # a parameter-list entry: the ones after it are keyword-only


def make_init(owner, params, setup, defined_in=None):
    """An ``__init__(self, ...)`` for layer class ``owner`` with the signature ``params``
    (``(name, default)`` pairs in PyTorch's order, ``REQUIRED`` for no default, and
    ``KEYWORD_ONLY`` before keyword-only ones): it binds a call as a ``def`` of that
    signature would, refusing any other with the TypeError CPython raises for one (PyTorch's
    layers are plain ``def``\\ s), then runs ``setup(self, values)``, ``values`` a dict by name.
    ``defined_in``: the class whose ``__init__`` the messages name, where PyTorch's layer
    inherits its constructor (``_Loss``). Its ``__signature__`` is that signature, for
    ``inspect`` and ``help``."""
    star = params.index(KEYWORD_ONLY) if KEYWORD_ONLY in params else len(params)
    positional, keyword = list(params[:star]), list(params[star + 1:])
    names = [n for n, _ in positional + keyword]
    defaults = dict(positional + keyword)

    def __init__(self, *args, **kwargs):
        from .module import Module

        values = _bind(defined_in or owner, positional, keyword, names, args, kwargs)
        for n in names:
            values.setdefault(n, defaults[n])
        Module.__init__(self)
        setup(self, values)

    P = inspect.Parameter
    __init__.__signature__ = inspect.Signature(
        [P("self", P.POSITIONAL_OR_KEYWORD)]
        + [P(n, P.POSITIONAL_OR_KEYWORD, default=d) for n, d in positional]
        + [P(n, P.KEYWORD_ONLY, default=d) for n, d in keyword])
    __init__.__qualname__ = f"{defined_in or owner}.__init__"
    return __init__


def _bind(owner, positional, keyword, names, args, kwargs):
    where = f"{owner}.__init__()"
    if len(args) > len(positional):
        most = len(positional) + 1  # (self counts, as in CPython's message)
        least = 1 + sum(d is REQUIRED for _, d in positional)
        takes = f"from {least} to {most}" if least < most else str(most)
        given = f"{len(args) + 1}"
        n_kw = sum(k in dict(keyword) for k in kwargs)
        if n_kw:
            given += (f" positional arguments (and {n_kw} keyword-only argument"
                      f"{'s' if n_kw > 1 else ''})")
        raise TypeError(f"{where} takes {takes} positional argument{'s' if most > 1 else ''} "
                        f"but {given} were given")
    values = dict(zip(names, args))
    for k, v in kwargs.items():
        if k not in names:
            raise TypeError(f"{where} got an unexpected keyword argument '{k}'")
        if k in values:
            raise TypeError(f"{where} got multiple values for argument '{k}'")
        values[k] = v
    missing = [f"'{n}'" for n, d in positional if d is REQUIRED and n not in values]
    if missing:
        listed = missing[0] if len(missing) == 1 else (
            " and ".join(missing) if len(missing) == 2
            else ", ".join(missing[:-1]) + ", and " + missing[-1])
        raise TypeError(f"{where} missing {len(missing)} required positional argument"
                        f"{'s' if len(missing) > 1 else ''}: {listed}")
    return values
