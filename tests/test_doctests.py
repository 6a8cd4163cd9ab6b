"""The examples in nbgrad's docstrings run and print what they show (a doctest sweep).

One test case per module of the ``nbgrad`` package: every ``>>>`` example of the module,
its functions, classes and methods (Tensor's autograd methods live in ``nbgrad.tensor``)
runs with only ``nbgrad`` and ``np`` predefined, as a reader would run it. A failure is a
documentation bug, unless the example shows a bug in nbgrad.
"""

import doctest
import importlib
import os
import pkgutil

import numpy as np
import pytest

import nbgrad

# Modules left out of the sweep, and why (prefix matches):
SKIP = {
    # the CUDA kernels: importing them needs numba.cuda and a GPU (or the simulator, which
    # must be switched on before numba.cuda is imported: tests/test_cuda.py's own run)
    "nbgrad.kernels.cuda": "CUDA kernels (numba.cuda)",
    # the CUDA storage backend: importing it imports numba.cuda, which eager CPU code never
    # does (and which would stay imported in this worker for the tests after this one)
    "nbgrad.storage.cuda": "CUDA storage backend (numba.cuda)",
    # command lines: nothing to document by example, and importing them parses argv
    "nbgrad.__main__": "command-line entry point",
    "nbgrad.run": "command-line entry point",
    # install() refuses once the real PyTorch is imported, as other tests in this worker
    # may have done: tests/test_compat.py runs these examples in a fresh process
    "nbgrad.compat": "run in a fresh process by test_compat.py",
}

OPTIONS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE

# Docstrings whose examples this sweep leaves to the test that already runs them (with the
# module's globals, there): each is the only example to compile its kernels (a rejection
# sampler, a norm's forward and backward), 2 to 4 s apiece on a cold kernel cache, about
# a quarter of the sweep's time, for no new coverage. (Excluding the convolution examples
# would not help: their kernels are shared, and the next example with a convolution would
# compile them.) Their text is still checked to be self-contained (it reads no name it
# does not define or import) by test_run_elsewhere_listed.
RUN_ELSEWHERE = {
    "nbgrad._aten_forms.native_batch_norm": "test_aten_forms.py",
    "nbgrad._aten_forms.native_layer_norm": "test_aten_forms.py",
    "nbgrad.distributions": "test_distributions.py",
    "nbgrad.distributions.binomial.Binomial": "test_distributions.py",
    "nbgrad.distributions.lkj_cholesky.LKJCholesky": "test_distributions_wishart_lkj.py",
    "nbgrad.distributions.von_mises.VonMises": "test_distributions_transformed.py",
    "nbgrad.nn.modules.adaptive.AdaptiveLogSoftmaxWithLoss": "test_adaptive_softmax.py",
    "nbgrad.ops.index.unravel_index": "test_asarray_unravel.py",
}


def _module_names():
    """Every module under ``nbgrad``, found from the files without importing any: a package
    is only imported by its own test case, so a skipped one (CUDA) never is. (Where
    ``pkgutil.walk_packages`` would import each package to recurse into it.)"""
    names = []

    def walk(path, prefix):
        for info in pkgutil.iter_modules([path], prefix):
            names.append(info.name)
            if info.ispkg:
                walk(os.path.join(path, info.name.rsplit(".", 1)[-1]), info.name + ".")

    names.append("nbgrad")
    walk(os.path.dirname(nbgrad.__file__), "nbgrad.")
    return sorted(names)


def _skip_reason(name):
    for prefix, why in SKIP.items():
        if name == prefix or name.startswith(prefix + "."):
            return why
    return None


MODULES = [n for n in _module_names() if _skip_reason(n) is None]


def _import(name):
    """The module, or a skip when it needs an optional package that is not installed
    (``examples`` needs scikit-learn, ``utils.tensorboard`` TensorBoard, ...)."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name and not e.name.split(".")[0] == "nbgrad":
            pytest.skip(f"{name} needs {e.name}, which is not installed")
        raise


def _tests(mod, elsewhere=False):
    """The module's docstrings with examples (those in RUN_ELSEWHERE only if ``elsewhere``)."""
    finder = doctest.DocTestFinder(exclude_empty=True)
    globs = {"nbgrad": nbgrad, "np": np}
    return [t for t in finder.find(mod, mod.__name__, globs=globs)
            if t.examples and (elsewhere or t.name not in RUN_ELSEWHERE)]


class _State:
    """The global settings an example may change (and should put back, but a failing one
    does not): restored after each module, so that other tests in this process see none
    of it. Grad mode is restored by conftest's fixture."""

    def __enter__(self):
        from nbgrad import _repr
        from nbgrad.autograd import anomaly_mode

        device = importlib.import_module("nbgrad.device")  # (nbgrad.device is the class)
        self.dtype = nbgrad.get_default_dtype()
        self.device = (device._default[0], list(device._entered))
        self.rng = nbgrad.get_rng_state()
        self.anomaly = list(anomaly_mode.ENABLED)
        self.print = dict(vars(_repr.PRINT_OPTS))
        return self

    def __exit__(self, *exc):
        from nbgrad import _repr
        from nbgrad.autograd import anomaly_mode

        device = importlib.import_module("nbgrad.device")

        nbgrad.set_default_dtype(self.dtype)
        device._default[0], device._entered[:] = self.device[0], self.device[1]
        nbgrad.set_rng_state(self.rng)
        anomaly_mode.ENABLED[:] = self.anomaly
        vars(_repr.PRINT_OPTS).clear()
        vars(_repr.PRINT_OPTS).update(self.print)
        return False


@pytest.mark.filterwarnings("ignore:.*is deprecated")  # (examples of deprecated functions)
@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    mod = _import(name)
    tests = _tests(mod)
    if not tests:
        return
    runner = doctest.DocTestRunner(optionflags=OPTIONS)
    with _State():
        for t in tests:
            runner.run(t)
    res = runner.summarize(verbose=False)
    assert res.failed == 0, f"{res.failed} of {res.attempted} examples failed in {name}"


@pytest.mark.parametrize("name", sorted(RUN_ELSEWHERE))
def test_run_elsewhere_listed(name):
    """A docstring left to another test: that test still runs its module's examples, and
    the examples name only what they import (checked without running them)."""
    import ast
    import builtins

    covering = os.path.join(os.path.dirname(__file__), RUN_ELSEWHERE[name])
    with open(covering, encoding="utf-8") as f:
        assert "doctest" in f.read(), f"{covering} no longer runs doctests"
    mod_name = name if name in MODULES else name.rsplit(".", 1)[0]
    (test,) = [t for t in _tests(_import(mod_name), elsewhere=True) if t.name == name]
    known = {"nbgrad", "np", *dir(builtins)}
    for ex in test.examples:
        tree = ast.parse(ex.source)
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                known.update((a.asname or a.name).split(".")[0] for a in node.names)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                known.add(node.id)
            elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                known.add(node.name)
            elif isinstance(node, ast.arg):
                known.add(node.arg)
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                assert node.id in known, f"{name}: the example reads {node.id!r}, never defined"


# The API whose docstrings document every argument and show an example (the issue "Docs do
# not answer"): each keeps its example, run by the sweep above, and an ``Args:`` section
# (False: it takes no argument a user passes).
DOCUMENTED = {
    "nbgrad.autograd.grad": True, "nbgrad.autograd.backward": True,
    "nbgrad.Tensor.backward": True, "nbgrad.Tensor.register_hook": True,
    "nbgrad.Tensor.retain_grad": False, "nbgrad.Tensor.detach": False,
    "nbgrad.Tensor.detach_": False, "nbgrad.Tensor.requires_grad_": True,
    "nbgrad.no_grad": False, "nbgrad.enable_grad": False, "nbgrad.set_grad_enabled": True,
    "nbgrad.inference_mode": True, "nbgrad.autograd.Function": False,
    "nbgrad.autograd.FunctionCtx.save_for_backward": True,
    "nbgrad.autograd.FunctionCtx.mark_dirty": True,
    "nbgrad.autograd.FunctionCtx.mark_non_differentiable": True,
    "nbgrad.autograd.FunctionCtx.set_materialize_grads": True,
    "nbgrad.autograd.once_differentiable": True, "nbgrad.autograd.gradcheck": True,
    "nbgrad.autograd.gradgradcheck": True, "nbgrad.autograd.functional.jacobian": True,
    "nbgrad.autograd.functional.hessian": True, "nbgrad.autograd.functional.vjp": True,
    "nbgrad.autograd.functional.jvp": True, "nbgrad.autograd.functional.hvp": True,
    "nbgrad.autograd.functional.vhp": True, "nbgrad.compile": True,
    "nbgrad.library.defop": True, "nbgrad.manual_seed": True, "nbgrad.save": True,
    "nbgrad.load": True, "nbgrad.tensor": True,
    "nbgrad.nn.Module.train": True, "nbgrad.nn.Module.eval": False,
    "nbgrad.nn.Module.parameters": True, "nbgrad.nn.Module.named_parameters": True,
    "nbgrad.nn.Module.state_dict": True, "nbgrad.nn.Module.load_state_dict": True,
    "nbgrad.nn.Module.zero_grad": True, "nbgrad.nn.Module.to": True,
    "nbgrad.optim.Optimizer.step": True, "nbgrad.optim.Optimizer.zero_grad": True,
    "nbgrad.optim.Optimizer.state_dict": False, "nbgrad.optim.Optimizer.load_state_dict": True,
    "nbgrad.nn.Linear": True, "nbgrad.optim.SGD": True, "nbgrad.optim.Adam": True,
    "nbgrad.optim.AdamW": True, "nbgrad.nn.functional.cross_entropy": True,
}


def _resolve(path):
    parts = path.split(".")
    obj = importlib.import_module(parts[0])
    for p in parts[1:]:
        obj = getattr(obj, p)
    return obj


@pytest.mark.parametrize("path", sorted(DOCUMENTED))
def test_documented_api(path):
    obj = _resolve(path)
    doc = obj.__doc__ or ""
    assert ">>>" in doc, f"{path}: no example"
    if DOCUMENTED[path]:
        assert "Args:" in doc, f"{path}: its arguments are not documented"
    assert obj.__module__ in MODULES, f"{path}: its module {obj.__module__} is not swept"
