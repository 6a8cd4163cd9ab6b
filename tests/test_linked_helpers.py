"""Helpers compiled only inside their callers (kernels/_linked.py): the same results, no
standalone optimization or machine code, and callers that cache and load as before."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest
from numba import njit, prange

from nbgrad.kernels import _linked
from nbgrad.kernels.cpu import nn, reduce  # noqa: F401  (their helpers use _linked)


def test_the_installed_numba_takes_the_linked_path():
    # (a fallback to plain options would still be correct, only slower to compile cold:
    # this says so when a Numba upgrade changes the internals it relies on)
    assert _linked._READY
    opts = _linked.inner(dict(nogil=True, cache=True))
    assert opts["pipeline_class"] is _linked.LinkedCompiler
    assert opts["cache"] is False and opts["no_cpython_wrapper"] and opts["nogil"]


def test_without_the_internals_inner_gives_plain_options(monkeypatch):
    monkeypatch.setattr(_linked, "_READY", False)
    opts = _linked.inner(dict(nogil=True, cache=True))
    assert opts == dict(nogil=True, cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)


def _helpers():
    opts = _linked.inner({})

    @njit(**opts)
    def plus_one(x):
        return x + 1.0

    @njit(**opts)
    def twice(x):  # the same signature as plus_one: each must keep its own entry
        return x * 2.0

    @njit(**opts)
    def both(x):  # a linked helper calling linked helpers
        return twice(plus_one(x))

    return plus_one, twice, both


def test_callers_compute_with_linked_helpers_serial_and_parallel():
    plus_one, twice, both = _helpers()

    @njit
    def serial(a, out):
        for i in range(a.size):
            out[i] = plus_one(a[i]) - twice(a[i]) + both(a[i])

    @njit(parallel=True)
    def par(a, out):
        for i in prange(a.size):
            out[i] = plus_one(a[i]) - twice(a[i]) + both(a[i])

    a = np.linspace(-3, 3, 1001)
    want = (a + 1) - 2 * a + 2 * (a + 1)
    for f in (serial, par):
        out = np.empty_like(a)
        f(a, out)
        np.testing.assert_array_equal(out, want)


def test_a_linked_helper_is_never_emitted_on_its_own():
    plus_one, _, both = _helpers()

    @njit
    def caller(x):
        return both(x)

    assert caller(1.5) == 5.0
    for helper in (plus_one, both):
        (cres,) = helper.overloads.values()
        lib = cres.library
        assert isinstance(lib, _linked._LinkOnlyLibrary) and lib._finalized
        engine = lib._codegen._engine
        assert not engine.is_symbol_defined(cres.fndesc.llvm_func_name)
        assert lib.get_pointer_to_function(cres.fndesc.llvm_func_name) == 0


_MODULE = """
import numpy as np
from numba import njit
from nbgrad.kernels import _linked

@njit(**_linked.inner({}))
def _cube(x):
    return x * x * x

@njit(cache=True)
def total(a):
    s = 0.0
    for v in a:
        s += _cube(v)
    return s

print(total(np.arange(5.0)), sum(total.stats.cache_hits.values()))
"""


def test_a_caching_caller_saves_and_loads_the_helpers_code(tmp_path):
    (tmp_path / "linked_mod.py").write_text(textwrap.dedent(_MODULE))
    env_cmd = [sys.executable, "-c", "import linked_mod"]
    runs = [subprocess.run(env_cmd, cwd=tmp_path, capture_output=True, text=True, timeout=300)
            for _ in range(2)]
    for r in runs:
        assert r.returncode == 0, r.stderr[-2000:]
    first, second = (r.stdout.split() for r in runs)
    assert float(first[0]) == float(second[0]) == 100.0
    assert (first[1], second[1]) == ("0", "1")  # compiled, then loaded from the cache


@pytest.mark.parametrize("name", ["exp", "log", "tanh", "sigmoid"])
def test_vmath_publics_stay_callable_from_python(name):
    from nbgrad.kernels import vmath

    assert getattr(vmath, name)(np.float32(0.5)) == getattr(vmath, f"{name}_f32")(np.float32(0.5))
