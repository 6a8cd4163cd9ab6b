"""Wrappers that keep a public function's own signature.

A layer over a public function (autocast's casting, PyTorch's ``out=``) must not cost the
calls that do not use it: a ``*args, **kwargs`` wrapper packs a tuple and a dict on every
call (twice the cost of a small op's front). ``guarded`` generates, from the function's
signature, a function with the same parameters (plus any extra keyword-only ones) that runs
one test and calls the function straight through when the test fails.
"""

import functools
import inspect
import types


def guarded(fn, test, slow, extra=(), sig=None):
    """A function of ``fn``'s signature (plus keyword-only parameters ``extra``, each
    defaulting to None) that returns ``slow(args, kwargs, *extra)`` when the Python
    expression ``test`` (over the parameters' names and ``_env``) is true, else
    ``fn(...)`` with the arguments as given. ``args`` holds the positional parameters'
    values, ``kwargs`` the keyword-only ones'. ``_env`` is ``slow.env`` when ``slow``
    has one (state the test reads without a global lookup). ``sig``: ``fn``'s signature,
    when the caller has it already (it costs ~30 us)."""
    sig = inspect.signature(fn) if sig is None else sig
    params, pos, kws, kw_call = [], [], [], []
    defaults = {}
    star = False
    ps = list(sig.parameters.values())
    if any(p.kind is p.VAR_POSITIONAL for p in ps):
        # after ``*args``, the keyword-only parameters go through as given (naming each
        # one in the call costs more than the dict of those a call names)
        kw = next((p.name for p in ps if p.kind is p.VAR_KEYWORD), "_kw")
        ps = [p for p in ps if p.kind is not p.KEYWORD_ONLY and p.kind is not p.VAR_KEYWORD]
        ps.append(inspect.Parameter(kw, inspect.Parameter.VAR_KEYWORD))
    for p in ps:
        text = p.name
        if p.default is not p.empty:
            defaults[f"_d_{p.name}"] = p.default
            text += f"=_d_{p.name}"
        if p.kind is p.VAR_POSITIONAL:
            star = True
            params.append("*" + p.name)
            pos.append("*" + p.name)
        elif p.kind is p.VAR_KEYWORD:
            params.append("**" + p.name)
            kws.append("**" + p.name)
            kw_call.append("**" + p.name)
        elif p.kind is p.KEYWORD_ONLY:
            if not star:
                star = True
                params.append("*")
            params.append(text)
            kws.append(f"{p.name!r}: {p.name}")
            kw_call.append(f"{p.name}={p.name}")
        else:
            params.append(text)
            pos.append(p.name)
    if extra:
        var_kw = params and params[-1].startswith("**")
        tail = [params.pop()] if var_kw else []
        if not star:
            params.append("*")
        params += [f"{e}=None" for e in extra] + tail
    names = ["_env", "_slow", "_fn"] + list(defaults)
    src = (f"def make({', '.join(names)}):\n"
           f"    def front({', '.join(params)}):\n"
           f"        if {test}:\n"
           f"            return _slow(({''.join(a + ', ' for a in pos)}), "
           f"{{{', '.join(kws)}}}{''.join(', ' + e for e in extra)})\n"
           f"        return _fn({', '.join(pos + kw_call)})\n"
           f"    return front\n")
    env = {}
    exec(src, env)  # noqa: S102  (source built above from fn's own signature)
    made = env["make"](getattr(slow, "env", None), slow, fn, *defaults.values())
    # (in fn's module, as fn: doctest and help() find it there)
    front = types.FunctionType(made.__code__, fn.__globals__, fn.__name__, made.__defaults__,
                               made.__closure__)
    front.__kwdefaults__ = made.__kwdefaults__
    front = functools.update_wrapper(front, fn)
    if extra:  # (help() and inspect show fn's parameters and the extra ones)
        ps = [p for p in sig.parameters.values() if p.kind is not p.VAR_KEYWORD]
        ps += [inspect.Parameter(e, inspect.Parameter.KEYWORD_ONLY, default=None)
               for e in extra]
        ps += [p for p in sig.parameters.values() if p.kind is p.VAR_KEYWORD]
        front.__signature__ = sig.replace(parameters=ps)
    return front
