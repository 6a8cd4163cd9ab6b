"""Compiling parallel variants on a background thread.

A kernel that has earned its parallel variant (``_par``) keeps running its serial one while
one daemon thread compiles the parallel one, and switches when it is ready: compiling a
``parallel=True`` loop takes 0.2-1.5 s, which a program in a loop would otherwise stall on
at some later step (an MLP's third, a compiled function's third call). Numba compiles under
one process-wide lock, and LLVM's share of the work runs without the GIL, so the program's
own thread keeps going on another core (it waits only if it needs to compile something
itself while a job runs: at most that one job). A job starts only once no other thread
has compiled for ``QUIET`` seconds: a first step compiles its serial kernels one after
another, and should not queue behind a parallel loop between two of them.

Jobs are not run after interpreter exit starts, and exit waits for the one in progress:
LLVM's static objects are destroyed at exit, under a thread still inside LLVM. ``fork``
also waits for it (a child would otherwise inherit Numba's compiler lock held by a thread it
does not have); a child hands its parent's queued jobs straight to their ``done``, so those
kernels compile in the child's own thread when next called.
"""

import atexit
import collections
import os
import threading
import time

_pending = collections.deque()  # (job, done)
QUIET = 0.2
# other threads' use of Numba's compiler lock: how many hold or await it, and when one
# last took or left it (a listener on Numba's event of the lock)
_others = {"depth": 0, "last": 0.0, "lock": threading.Lock()}
_state = {"thread": None, "closed": False, "wake": threading.Condition()}
# held while a job runs: exit and fork wait on it
_busy = threading.Lock()


def submit(job, done):
    """Run ``job()`` on the background thread, then ``done()``. ``done`` runs after a
    failed job too: a kernel's next call then compiles in the caller's thread and raises
    there, with the caller's traceback."""
    wake = _state["wake"]
    with wake:
        if _state["closed"]:
            return
        _pending.append((job, done))
        if _state["thread"] is None:
            _watch_compiles()
            t = threading.Thread(target=_work, name="nbgrad-compile", daemon=True)
            _state["thread"] = t
            t.start()
        wake.notify()


def idle():
    """Whether no job is queued or running (tests wait on it)."""
    return not _pending and not _busy.locked()


def wait(timeout=None):
    """Block until every queued job has run; False if ``timeout`` seconds passed first."""
    end = None if timeout is None else time.monotonic() + timeout
    while not idle():
        if end is not None and time.monotonic() > end:
            return False
        time.sleep(0.005)
    return True


def _work():
    while True:
        wake = _state["wake"]
        with wake:
            while not _pending:
                wake.wait()
            if _state["closed"]:
                return
            # taken while still holding ``wake``: idle() never sees an empty queue and
            # an idle worker between the pop and the job
            _busy.acquire()
            job, done = _pending.popleft()
        try:
            if not _wait_for_quiet():  # exiting
                return
            try:
                job()
            except Exception:  # (see submit: the caller's thread compiles and raises)
                pass
            done()
        finally:
            _busy.release()


def _wait_for_quiet():
    """Wait until no other thread has compiled for ``QUIET`` seconds; False if the
    interpreter began to exit meanwhile."""
    while not _state["closed"]:
        with _others["lock"]:
            quiet = (time.monotonic() - _others["last"]) if not _others["depth"] else 0.0
        if quiet >= QUIET:
            return True
        time.sleep(QUIET - quiet)
    return False


def _watch_compiles():
    if _state.get("watching"):
        return
    from numba.core import event

    class Others(event.Listener):
        def _step(self, d):
            if threading.current_thread() is not _state["thread"]:
                with _others["lock"]:
                    _others["depth"] += d
                    _others["last"] = time.monotonic()

        def on_start(self, _):
            self._step(1)

        def on_end(self, _):
            self._step(-1)

    event.register("numba:compiler_lock", Others())
    _state["watching"] = True


def _close():
    with _state["wake"]:
        _state["closed"] = True
    with _busy:  # the job in progress, if any
        pass


atexit.register(_close)


def _before_fork():
    _busy.acquire()


def _after_fork_in_parent():
    _busy.release()


def _after_fork_in_child():
    _busy.release()
    _state["wake"] = threading.Condition()
    _others["lock"] = threading.Lock()
    _state["thread"] = None
    while _pending:
        _pending.popleft()[1]()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=_before_fork, after_in_parent=_after_fork_in_parent,
                        after_in_child=_after_fork_in_child)
