"""What eager code tells the compiler's tracer (``nbgrad/compiler/trace.py``) while it
records a function: ``RECORDER[0]`` is the active recorder, else None.

The dispatch path checks its own flag (``ops/dispatch._TRACING``, a module global: the
cheapest test on every op); what a trace cannot contain (a Tensor method that reads
values into Python, a backward pass, an op on another thread) calls ``end``, which ends the
traced region (the values it reads would be baked into the trace).
"""

RECORDER = [None]


def end(why):
    """Tell the active recorder (if any) that the traced function did something a trace
    cannot hold: ``why`` says what."""
    r = RECORDER[0]
    if r is not None:
        r.end(why)


def recorded(fn):
    """Decorator of a creation function (``nbgrad.zeros``, ``arange``, ``randn_like``,
    ...): while a recorder is active, the call goes through it (``Recorder.creation``),
    which records it as a call to replay; otherwise one test of ``RECORDER``."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        r = RECORDER[0]
        if r is None:
            return fn(*args, **kwargs)
        return r.creation(wrapper, fn, args, kwargs)

    return wrapper


def stand_ins():
    """Whether the op running now computes on the tracer's stand-ins (a shapes-only
    recording, whose floating values are NaN and never read): a forward whose errors depend
    on the values (LAPACK's) must not raise then."""
    r = RECORDER[0]
    return r is not None and getattr(r, "inside", 0) > 0 and getattr(r, "shapes_only", False)
