"""The layering walls (CONTRIBUTING.md, "Layers"), read from the source with ``ast``.

kernels (arrays only) <- kernel table (kernels/table.py) <- storage per device
(nbgrad/storage) <- ops <- autograd engine <- Tensor's methods, nn, optim. Every import
counts, including those inside functions.
"""

import ast
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent / "nbgrad"


def _module_name(path):
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path):
    """Every module ``path`` imports, as absolute dotted names, with line numbers.
    ``from pkg import name`` yields ``pkg.name`` (a submodule or an attribute of pkg)."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module
            out += [(f"{mod}.{a.name}", node.lineno) for a in node.names]
    return out


def _files(sub=""):
    return sorted((ROOT / sub).rglob("*.py"))


def _within(mod, prefixes):
    return any(mod == p or mod.startswith(p + ".") for p in prefixes)


def _violations(files, forbidden=(), allowed_nbgrad=None):
    bad = []
    for f in files:
        for mod, line in _imports(f):
            if _within(mod, forbidden) or (
                allowed_nbgrad is not None and _within(mod, ("nbgrad",))
                and not _within(mod, allowed_nbgrad)
            ):
                bad.append(f"{f.relative_to(ROOT.parent)}:{line} imports {mod}")
    return bad


def test_the_parser_sees_imports():
    # the checks below pass vacuously if imports are not found: make sure they are
    mods = dict(_imports(ROOT / "ops" / "_core.py"))
    assert "nbgrad.tensor.Tensor" in mods
    assert "nbgrad.kernels.table.kernel" in mods
    assert any(m.startswith("nbgrad.kernels.") for m, _ in _imports(ROOT / "storage" / "cuda.py"))
    assert len(_files("kernels")) > 15


def test_kernels_see_arrays_only():
    # no Tensor, node, op, storage or flags module: the kernels, the kernel table and the
    # shared scalar/row bodies import only each other and the environment knobs
    bad = _violations(
        _files("kernels"),
        forbidden=("nbgrad.tensor", "nbgrad.autograd", "nbgrad.ops", "nbgrad.backends",
                   "nbgrad.storage"),
        allowed_nbgrad=("nbgrad.kernels", "nbgrad._config", "nbgrad._version"),
    )
    assert not bad, "\n".join(bad)


def test_cuda_kernels_do_not_import_the_cpu_target():
    bad = _violations(_files("kernels/cuda"), forbidden=("nbgrad.kernels.cpu",))
    assert not bad, "\n".join(bad)


def test_storage_sits_below_the_ops():
    # storage may use the kernel table (copies) but nothing above it: no import circle
    bad = _violations(
        _files("storage"),
        allowed_nbgrad=("nbgrad.storage", "nbgrad.kernels", "nbgrad._config", "nbgrad.device",
                        "nbgrad.dtypes"),
    )
    assert not bad, "\n".join(bad)


def test_tensor_imports_no_storage_backend_no_nn_and_no_op():
    # the storage lookup (nbgrad.storage.for_device) is all tensor.py needs of storage; the
    # methods that run ops are bound from above by nbgrad/_methods.py
    bad = _violations(
        [ROOT / "tensor.py"],
        forbidden=("nbgrad.storage.cpu", "nbgrad.storage.cuda", "nbgrad.storage._cpupool",
                   "nbgrad.storage.layout", "nbgrad.nn", "nbgrad.ops", "nbgrad.backends"),
    )
    assert not bad, "\n".join(bad)


def test_ops_do_not_import_nn_or_optim():
    bad = _violations(_files("ops"), forbidden=("nbgrad.nn", "nbgrad.optim", "nbgrad.library"))
    assert not bad, "\n".join(bad)


def test_the_compiler_sits_above_eager_code():
    # eager code runs without it (issue #15: the compiler reads the op table, not the
    # reverse); nbgrad/__init__.py re-exports nbgrad.compile, Module.compile calls it
    others = [f for f in _files() if not f.is_relative_to(ROOT / "compiler")
              and f not in (ROOT / "__init__.py", ROOT / "nn" / "modules" / "module.py")]
    bad = _violations(others, forbidden=("nbgrad.compiler",))
    assert not bad, "\n".join(bad)
    assert _files("compiler")


def test_engine_imports_no_numpy():
    bad = _violations([ROOT / "autograd" / "engine.py"], forbidden=("numpy",))
    assert not bad, "\n".join(bad)


def test_init_only_reexports():
    # imports, and one block of them under ``with _gc_importing():`` (the collector paused
    # while import builds the tables, what they hold frozen after: see nbgrad/_gc.py)
    tree = ast.parse((ROOT / "__init__.py").read_text())
    body = []
    for i, node in enumerate(tree.body):
        if i == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue  # the docstring
        if isinstance(node, ast.With):
            (item,) = node.items
            call = item.context_expr
            assert (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                    and call.func.id == "_gc_importing" and not call.args
                    and item.optional_vars is None), (
                f"nbgrad/__init__.py:{node.lineno}: only `with _gc_importing():` may hold imports")
            body += node.body
        else:
            body.append(node)
    for node in body:
        assert isinstance(node, (ast.Import, ast.ImportFrom)), (
            f"nbgrad/__init__.py:{node.lineno} is not an import"
        )


def _binds_onto_tensor(node):
    if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return any(
            isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name)
            and t.value.id in ("Tensor", "T") for t in targets
        )
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr":
        a = node.args[0] if node.args else None
        return isinstance(a, ast.Name) and a.id in ("Tensor", "T")
    return False


def test_tensor_methods_are_bound_in_one_place():
    places = sorted({
        str(f.relative_to(ROOT.parent))
        for f in _files() for node in ast.walk(ast.parse(f.read_text()))
        if _binds_onto_tensor(node)
    })
    assert places == ["nbgrad/_methods.py"]


def test_tensor_methods_table_binds_every_row():
    import nbgrad
    from nbgrad import _methods

    for name, fn in _methods.METHODS.items():
        assert nbgrad.Tensor.__dict__[name] is fn, name
    assert len(_methods.METHODS) > 100


def test_import_nbgrad_leaves_numba_cuda_unimported():
    code = (
        "import sys, nbgrad\n"
        "x = nbgrad.ones(3, requires_grad=True)\n"
        "(x * 2).sum().backward()\n"
        "print(sorted(m for m in ('numba.cuda', 'nbgrad.storage.cuda', 'nbgrad.kernels.cuda')"
        " if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
