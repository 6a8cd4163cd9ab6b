"""nbgrad's Numba process setup: the vector-width choice and who may override it."""

import os

import numba
import pytest
from numba.core import codegen

from nbgrad import _threads
from nbgrad.kernels.cpu import _target


@pytest.fixture
def clean_config(monkeypatch):
    monkeypatch.setattr(numba.config, "CPU_FEATURES", None)
    monkeypatch.setattr(numba.config, "CPU_NAME", None)


def test_512_bit_vectors_only_where_the_cpu_has_avx512(monkeypatch, clean_config):
    monkeypatch.setattr(codegen, "get_host_cpu_features", lambda: "+sse2,+avx2,-avx512f")
    _threads._prefer_512_bit_vectors()
    assert numba.config.CPU_FEATURES is None
    monkeypatch.setattr(codegen, "get_host_cpu_features", lambda: "+avx2,+avx512f")
    _threads._prefer_512_bit_vectors()
    assert numba.config.CPU_FEATURES == "+avx2,+avx512f,-prefer-256-bit"


def test_vector_bits_follows_the_features_numba_compiles_for(monkeypatch, clean_config):
    assert _target.vector_bits() == 256  # Numba's defaults
    monkeypatch.setattr(codegen, "get_host_cpu_features", lambda: "+avx2,+avx512f")
    _threads._prefer_512_bit_vectors()
    assert _target.vector_bits() == 512
    monkeypatch.setattr(numba.config, "CPU_FEATURES", "+avx2,+avx512f")  # 256-bit preference
    assert _target.vector_bits() == 256
    monkeypatch.setattr(numba.config, "CPU_FEATURES", "+avx2,-prefer-256-bit")
    assert _target.vector_bits() == 256


@pytest.mark.parametrize("knob", ["CPU_FEATURES", "CPU_NAME"])
def test_a_users_numba_cpu_settings_win(monkeypatch, clean_config, knob):
    monkeypatch.setattr(codegen, "get_host_cpu_features", lambda: "+avx2,+avx512f")
    monkeypatch.setattr(numba.config, knob, "generic" if knob == "CPU_NAME" else "+sse2")
    _threads._prefer_512_bit_vectors()
    assert numba.config.CPU_FEATURES == (None if knob == "CPU_NAME" else "+sse2")


def test_no_host_information_leaves_numba_alone(monkeypatch, clean_config):
    def broken():
        raise RuntimeError("no host CPU information")

    monkeypatch.setattr(codegen, "get_host_cpu_features", broken)
    _threads._prefer_512_bit_vectors()
    assert numba.config.CPU_FEATURES is None


def _child_json(code, env=None):
    """What a fresh interpreter running ``code`` printed last, as JSON."""
    import json
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def _child_layer(env_extra):
    code = (
        "import json, os, nbgrad, numba; x = nbgrad.ones(1 << 20); (x * 2).sum();"
        "print(json.dumps([numba.threading_layer(), os.environ.get('OMP_WAIT_POLICY')]))"
    )
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("NBGRAD_THREADING", "NUMBA_THREADING", "OMP_WAIT"))}
    env.update(env_extra)
    return _child_json(code, env)


@pytest.mark.slow
def test_threading_layer_defaults_and_overrides():
    try:
        from numba.np.ufunc import omppool  # noqa: F401
        omp = True
    except ImportError:
        omp = False  # no GNU OpenMP here: Numba's next choice
    # OpenMP by default, its wait policy left to OpenMP (spin briefly, then sleep)
    layer, policy = _child_layer({})
    assert policy is None
    if omp:
        assert layer == "omp"
    assert _child_layer({"NUMBA_THREADING_LAYER": "workqueue"})[0] == "workqueue"
    assert _child_layer({"NBGRAD_THREADING_LAYER": "workqueue"})[0] == "workqueue"
    if omp:
        assert _child_layer({"OMP_WAIT_POLICY": "PASSIVE"}) == ["omp", "PASSIVE"]


@pytest.mark.parametrize("layer", ["workqueue", "omp"])
def test_a_forked_child_computes_big_kernels(layer):
    """Run in a fresh interpreter per layer (the layer is fixed once loaded)."""
    import subprocess
    import sys

    if layer == "omp":
        try:
            from numba.np.ufunc import omppool  # noqa: F401
        except ImportError:
            pytest.skip("no GNU OpenMP here")
    code = (
        "import os, sys; sys.path.insert(0, {here!r});"
        "import test_numba_setup as t; t._fork_check({serial!r})"
    ).format(here=os.path.dirname(__file__), serial=layer == "omp")
    env = dict(os.environ, NBGRAD_THREADING_LAYER=layer)
    env.pop("NUMBA_THREADING_LAYER", None)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    assert "fork ok" in out.stdout


def _fork_check(serial):
    import multiprocessing as mp

    import numpy as np

    import nbgrad
    from nbgrad.kernels.cpu import _par

    _par.PARALLEL_MIN = 131072
    x = nbgrad.ones(1 << 20)
    assert (x * 3.0).sum().item() == 3 * (1 << 20)  # the parent's pool is running
    assert _par._state["started"]
    m = nbgrad.ones(256, 256)
    assert (m @ m).sum().item() == 256**3  # a product on the pool (MKL's threads or ours)
    ctx = mp.get_context("fork")
    parent, child = ctx.Pipe()

    def work(conn):
        y = nbgrad.ones(1 << 20) * 2.0
        mm = float((m @ m).sum().item())  # no OpenMP threads here: computed serially
        conn.send((float(y.sum().item()), _par._state["forked"], float(np.tanh(y.numpy())[0]),
                   mm))

    p = ctx.Process(target=work, args=(child,))
    p.start()
    got = parent.recv() if parent.poll(120) else None
    p.join(60)
    assert p.exitcode == 0 and got is not None
    assert got[0] == 2.0 * (1 << 20) and got[1] is serial and got[3] == 256**3
    print("fork ok")


def test_import_builds_its_tables_without_collections_and_leaves_the_collector_on():
    # (a fresh process: nbgrad is imported once per process) a collection that starts while
    # one of nbgrad's modules runs its body is one the pause should have kept out; before
    # and after the pause (nbgrad/__init__.py itself, _gc.py) the collector may run
    code = (
        "import gc, json, sys, numpy, numba\n"
        "inside = []\n"
        "def cb(phase, info):\n"
        "    f = sys._getframe(1)\n"
        "    while phase == 'start' and f is not None:\n"
        "        name = f.f_code.co_filename.replace('\\\\', '/')\n"
        "        if ('/nbgrad/' in name and f.f_code.co_name == '<module>'\n"
        "                and not name.endswith(('/nbgrad/__init__.py', '/nbgrad/_gc.py'))):\n"
        "            inside.append(name)\n"
        "            break\n"
        "        f = f.f_back\n"
        "gc.callbacks.append(cb)\n"
        "import nbgrad\n"
        "print(json.dumps([inside, gc.isenabled()]))\n"
    )
    inside, on = _child_json(code)
    assert inside == []
    assert on
    # a program that turned the collector off keeps it off
    code = "import gc, json; gc.disable(); import nbgrad; print(json.dumps(gc.isenabled()))"
    assert _child_json(code) is False


def test_paused_collector_comes_back_after_an_error():
    import gc

    from nbgrad import _gc

    assert gc.isenabled()
    with pytest.raises(ImportError, match="no such module"):
        with _gc.paused():
            assert not gc.isenabled()
            raise ImportError("no such module")
    assert gc.isenabled()
    gc.disable()
    try:
        with _gc.paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_import_freezes_what_it_made_and_later_objects_are_collected():
    import os
    import subprocess
    import sys

    # what exists at the end of the import is frozen; the collector stays on
    frozen, on = _child_json("import gc, json, nbgrad; "
                             "print(json.dumps([gc.get_freeze_count(), gc.isenabled()]))")
    assert frozen > 10_000 and on
    # not where the user said no, turned the collector off, or works interactively
    env = dict(os.environ, NBGRAD_GC_FREEZE="0")
    assert _child_json("import gc, json, nbgrad; print(json.dumps(gc.get_freeze_count()))",
                       env) == 0
    assert _child_json("import gc, json; gc.disable(); import nbgrad; "
                       "print(json.dumps([gc.get_freeze_count(), gc.isenabled()]))") == [0, False]
    assert _child_json("import gc, json, sys; sys.ps1 = '>>> '; import nbgrad; "
                       "print(json.dumps(gc.get_freeze_count()))") == 0
    # a cycle made after the import is collected as ever: during the run, and at exit (a
    # module's objects are unfrozen then), its finalizer running (a file written only by it)
    code = (
        "import gc, json, sys, nbgrad\n"
        "class Node:\n"
        "    def __init__(self, path): self.me, self.path = self, path\n"
        "    def __del__(self, open=open): open(self.path, 'w').write('done')\n"
        "Node(sys.argv[1] + '.run')\n"
        "print(json.dumps(gc.collect() >= 1))\n"
        "keep = Node(sys.argv[1] + '.exit')\n"
    )
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        base = os.path.join(d, "node")
        out = subprocess.run([sys.executable, "-c", code, base], capture_output=True,
                             text=True, timeout=300)
        assert out.returncode == 0, out.stderr[-2000:]
        assert out.stdout.strip() == "true"
        for suffix in (".run", ".exit"):
            with open(base + suffix) as f:
                assert f.read() == "done"
