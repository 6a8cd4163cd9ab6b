"""Each per-row kernel body is written once (kernels/rows.py; the optimizer updates in
kernels/updates.py) and both targets' loops
call it: the CPU kernels through the shared
module, the CUDA kernels through ``device_fn`` of the same function. Read from the sources
(no numba.cuda import here), so a body copied back into a target's loop fails this test.
"""

import ast
import importlib
import inspect

import pytest

# (shared module, body, CPU module, CPU kernels calling it, CUDA module, CUDA kernels)
BODIES = [
    ("rows", "log_softmax_row", "nn", ["log_softmax"], "nn", ["_log_softmax"]),
    ("rows", "softmax_row", "nn", ["softmax"], "nn", ["_softmax"]),
    ("rows", "log_softmax_bwd_row", "nn", ["log_softmax_bwd"], "nn", ["_log_softmax_bwd"]),
    ("rows", "softmax_bwd_row", "nn", ["softmax_bwd"], "nn", ["_softmax_bwd"]),
    ("rows", "max_pool_window", "conv", ["max_pool"], "conv", ["_max_pool"]),
    ("rows", "max_pool_bwd_plane", "conv", ["max_pool_bwd"], "conv", ["_pool_bwd_lanes"]),
    ("rows", "max_pool_gather_elem", "conv", ["max_pool_gather"], "conv", ["_pool_gather"]),
    ("updates", "sgd", "optim", ["_sgd"], "optim", ["_sgd"]),
    ("updates", "sgd_momentum", "optim", ["_sgd_momentum"], "optim", ["_sgd_momentum"]),
    ("updates", "adam", "optim", ["_adam", "_adam_amsgrad"], "optim", ["_adam"]),
]


def _tree(path):
    with open(path) as fh:
        return ast.parse(fh.read())


def _functions(tree):
    return {n.name: n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}


def _calls(fn):
    """Names called in ``fn``: ``f(...)`` gives 'f', ``m.f(...)`` gives 'm.f'."""
    out = set()
    for n in ast.walk(fn):
        if isinstance(n, ast.Call):
            f = n.func
            if isinstance(f, ast.Name):
                out.add(f.id)
            elif isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name):
                out.add(f"{f.value.id}.{f.attr}")
    return out


def _aliases(tree, module):
    """Local names under which ``tree`` imports ``nbgrad.kernels.<module>``."""
    names = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.ImportFrom) and n.level == 2 and n.module is None:
            names |= {a.asname or a.name for a in n.names if a.name == module}
    return names


def _device_names(tree, aliases, body):
    """Module-level names bound to ``device_fn(<alias>.<body>)``."""
    out = set()
    for n in tree.body:
        if (isinstance(n, ast.Assign) and isinstance(n.value, ast.Call)
                and isinstance(n.value.func, ast.Name) and n.value.func.id == "device_fn"
                and len(n.value.args) == 1 and isinstance(n.value.args[0], ast.Attribute)
                and isinstance(n.value.args[0].value, ast.Name)
                and n.value.args[0].value.id in aliases and n.value.args[0].attr == body):
            out |= {t.id for t in n.targets if isinstance(t, ast.Name)}
    return out


@pytest.mark.parametrize("shared,body,cpu_mod,cpu_k,cuda_mod,cuda_k", BODIES,
                         ids=[b[1] for b in BODIES])
def test_both_targets_call_the_shared_body(shared, body, cpu_mod, cpu_k, cuda_mod, cuda_k):
    mod = importlib.import_module(f"nbgrad.kernels.{shared}")
    assert callable(getattr(mod, body))
    root = inspect.getfile(mod).rsplit("/", 1)[0]

    cpu = _tree(f"{root}/cpu/{cpu_mod}.py")
    fns = _functions(cpu)
    for alias in _aliases(cpu, shared) or {shared}:
        if all(f"{alias}.{body}" in _calls(fns[k]) for k in cpu_k):
            break
    else:
        pytest.fail(f"kernels/cpu/{cpu_mod}.py: {cpu_k} do not call {shared}.{body}")
    # the CPU module's global is the shared module itself, not a copy
    cpu_py = importlib.import_module(f"nbgrad.kernels.cpu.{cpu_mod}")
    assert any(v is mod for v in vars(cpu_py).values())

    cuda = _tree(f"{root}/cuda/{cuda_mod}.py")
    dev = _device_names(cuda, _aliases(cuda, shared), body)
    assert dev, f"kernels/cuda/{cuda_mod}.py compiles no device_fn({shared}.{body})"
    fns = _functions(cuda)
    for k in cuda_k:
        assert _calls(fns[k]) & dev, f"CUDA kernel {k} does not call {shared}.{body}"
