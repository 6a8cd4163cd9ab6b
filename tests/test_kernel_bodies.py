"""Each per-row kernel body is written once (kernels/rows.py) and both targets' loops
call it: the CPU kernels through the shared
module, the CUDA kernels through ``device_fn`` of the same function; or, for bodies made by a
factory (compiled per target around that target's exp / log), both targets build them
with the same factory call. The optimizer updates (kernels/updates.py) go through one loop
factory per target that takes any step body. Read from the sources (no numba.cuda import here), so a body
copied back into a target's loop fails this test.
"""

import ast
import importlib
import inspect

import pytest

# (shared module, body, CPU module, CPU kernels calling it, CUDA module, CUDA kernels)
BODIES = [
    ("rows", "max_pool_window", "conv", ["max_pool"], "conv", ["_max_pool"]),
    ("rows", "max_pool_bwd_plane", "conv", ["max_pool_bwd"], "conv", ["_pool_bwd_lanes"]),
    ("rows", "max_pool_gather_elem", "conv", ["max_pool_gather"], "conv", ["_pool_gather"]),
    ("rows", "nll_elem", "nn", ["_nll_fwd"], "nn", ["_nll_fwd"]),
    ("rows", "nll_grad_elem", "nn", ["nll_bwd"], "nn", ["_nll_bwd"]),
    ("rows", "nll_grad_row", "nn", ["nll_bwd"], "nn", ["_nll_bwd"]),
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


# (shared module, factory, CPU module, {body index: CPU functions calling it},
#  CUDA module, {body index: CUDA kernels calling it})
FACTORIES = [
    ("rows", "softmax_bodies", "nn", {1: ["softmax"], 2: ["log_softmax"], 3: ["softmax_backward"],
                                      4: ["log_softmax_backward"]},
     "nn", {1: ["_softmax"], 2: ["_log_softmax"], 3: ["_softmax_bwd"],
            4: ["_log_softmax_bwd"]}),
    # layer norm and cross-entropy: the CPU runs whole-row bodies, a CUDA block per row the
    # element functions they are built from
    ("rows", "norm_loss_bodies", "nn", {7: ["ln_fwd"], 8: ["ln_bwd"], 9: ["ce_fwd"],
                                        10: ["ce_bwd"]},
     "nn", {0: ["_ln_fwd"], 2: ["_ln_fwd"], 1: ["_ln_bwd", "_ln_affine_part"], 3: ["_ln_bwd"],
            4: ["_ce_fwd"], 5: ["_ce_fwd"], 6: ["_ce_bwd"]}),
]


def _factory_names(tree, aliases, factory):
    """The names, by position, bound at module level to ``<alias>.<factory>(...)``."""
    for n in tree.body:
        if (isinstance(n, ast.Assign) and isinstance(n.value, ast.Call)
                and isinstance(n.value.func, ast.Attribute)
                and isinstance(n.value.func.value, ast.Name)
                and n.value.func.value.id in aliases and n.value.func.attr == factory):
            (target,) = n.targets
            if isinstance(target, ast.Tuple):
                return [t.id if isinstance(t, ast.Name) else None for t in target.elts]
    return []


def _reaches(fns, start, names, module_globals):
    """Whether ``start`` calls one of ``names``, directly or through module-level names
    (functions or objects built around a body) it calls."""
    seen, todo = set(), [start]
    while todo:
        f = todo.pop()
        if f in seen:
            continue
        seen.add(f)
        calls = _calls(fns[f]) if f in fns else set()
        if calls & names:
            return True
        todo += [c for c in calls if c in fns]
        # a module-level object built around a body: ``_X = _RowKernel(body, ...)``
        for c in calls:
            if c in module_globals and module_globals[c] & names:
                return True
    return False


def _module_bindings(tree):
    """Module-level ``name = Call(..., args)``: name -> the names among its arguments."""
    out = {}
    for n in tree.body:
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call):
            args = {a.id for a in n.value.args if isinstance(a, ast.Name)}
            for t in n.targets:
                if isinstance(t, ast.Name):
                    out[t.id] = args
    return out


@pytest.mark.parametrize("shared,factory,cpu_mod,cpu_use,cuda_mod,cuda_use", FACTORIES,
                         ids=[f[1] for f in FACTORIES])
def test_both_targets_build_bodies_from_one_factory(shared, factory, cpu_mod, cpu_use, cuda_mod,
                                                    cuda_use):
    mod = importlib.import_module(f"nbgrad.kernels.{shared}")
    assert callable(getattr(mod, factory))
    root = inspect.getfile(mod).rsplit("/", 1)[0]
    for target, name, use in (("cpu", cpu_mod, cpu_use), ("cuda", cuda_mod, cuda_use)):
        tree = _tree(f"{root}/{target}/{name}.py")
        bound = _factory_names(tree, _aliases(tree, shared) | {shared}, factory)
        assert bound, f"kernels/{target}/{name}.py does not build its bodies by {shared}.{factory}"
        fns = _functions(tree)
        glob = _module_bindings(tree)
        for i, users in use.items():
            for u in users:
                assert _reaches(fns, u, {bound[i]}, glob), (
                    f"kernels/{target}/{name}.py: {u} does not run {bound[i]} "
                    f"(body {i} of {shared}.{factory})")


def test_factory_bodies_agree_across_exp_implementations():
    # the CPU build (vmath, vectorized) and a build around math.exp / math.log, as the
    # device's, give the same rows to float rounding
    import math

    import numpy as np
    from numba import njit

    from nbgrad.kernels import rows, vmath

    cpu = rows.softmax_bodies(vmath.exp, vmath.log, njit(fastmath={"reassoc"}))
    ref = rows.softmax_bodies(math.exp, math.log, njit)
    rng = np.random.default_rng(0)
    for R in (1, 5, 37):
        x = (rng.standard_normal((R, 1)) * 4).astype(np.float32)
        g = rng.standard_normal((R, 1)).astype(np.float32)
        z = np.float32(0)
        for i in (1, 2):
            a, b = np.empty_like(x), np.empty_like(x)
            cpu[i](x, a, 0, z)
            ref[i](x, b, 0, z)
            np.testing.assert_allclose(a, b, rtol=2e-6, atol=1e-6)
        y = np.empty_like(x)
        ref[1](x, y, 0, z)
        for i in (3, 4):
            a, b = np.empty_like(x), np.empty_like(x)
            cpu[i](g, y, a, 0, z)
            ref[i](g, y, b, 0, z)
            np.testing.assert_allclose(a, b, rtol=2e-6, atol=1e-6)
    # the max skips nothing that matters: a nan anywhere makes the softmax row nan
    x = np.array([[1.0]] * 20 + [[np.nan]], np.float32)
    out = np.empty_like(x)
    cpu[1](x, out, 0, np.float32(0))
    assert np.isnan(out).all()


def test_norm_loss_rows_agree_across_exp_implementations():
    import math

    import numpy as np
    from numba import njit

    from nbgrad.kernels import rows, vmath

    cpu = rows.norm_loss_bodies(vmath.exp, vmath.log, njit, njit(fastmath={"reassoc"}))
    ref = rows.norm_loss_bodies(math.exp, math.log, njit, njit)
    rng = np.random.default_rng(1)
    x = (rng.standard_normal((3, 37)) * 3).astype(np.float32)
    w, b = rng.standard_normal(37).astype(np.float32), rng.standard_normal(37).astype(np.float32)
    z = np.float32(0)
    for i in range(3):
        outs = []
        for bodies in (cpu, ref):
            out = np.empty_like(x)
            mean, rstd = np.empty(3, np.float32), np.empty(3, np.float32)
            bodies[7](x, i, i + 1, w, b, True, True, 1e-5, out, mean, rstd, z)
            m, s = mean[i], rstd[i]
            target = np.full(3, 5, np.int64)
            loss, stats = np.empty(3, np.float32), np.empty((3, 2), np.float32)
            bodies[9](x, i, i + 1, target, w, True, np.int64(-100), z, loss, stats)
            gx = np.empty_like(x)
            bodies[10](np.full(3, 0.5, np.float32), x, i, i + 1, target, w, False,
                       np.int64(-100), stats, z, gx)
            outs.append((m, s, out[i], loss[i], stats[i, 0], stats[i, 1], gx[i]))
        for a, r in zip(*outs):
            np.testing.assert_allclose(a, r, rtol=2e-6, atol=1e-6)
        # against the definitions
        v = x[i].astype(np.float64)
        np.testing.assert_allclose(outs[0][2], (v - v.mean()) / np.sqrt(v.var() + 1e-5) * w + b,
                                   rtol=1e-5, atol=1e-5)
        lse = np.log(np.exp(v - v.max()).sum()) + v.max()
        np.testing.assert_allclose(outs[0][3], w[5] * (lse - v[5]), rtol=1e-5)
        p = np.exp(v - lse)
        p[5] -= 1
        np.testing.assert_allclose(outs[0][6], 0.5 * p, rtol=1e-5, atol=1e-6)


def test_optimizer_updates_run_through_one_loop_factory_per_target():
    """Every optimizer's step body reaches each target through the same loop factory: the
    CPU's ``update_loops`` and CUDA's ``update_kernel`` call the body they are given, and
    the optimizers pass bodies of kernels/updates.py (no update is written into a target)."""
    from nbgrad import optim
    from nbgrad.kernels import updates

    root = inspect.getfile(updates).rsplit("/", 1)[0]
    for target, factory in (("cpu", "update_loops"), ("cuda", "update_kernel")):
        tree = _tree(f"{root}/{target}/optim.py")
        fns = _functions(tree)
        assert not _aliases(tree, "updates"), f"kernels/{target}/optim.py names an update"
        inner = [n for n in ast.walk(fns[factory])
                 if isinstance(n, ast.FunctionDef) and n is not fns[factory]]
        called = set().union(*(_calls(n) for n in inner))
        assert called & {"f", "body"}, f"{target}: {factory} does not run its body"
    bodies = {"sgd", "sgd_momentum", "adam", "adam_amsgrad", "adadelta", "rmsprop",
              "rmsprop_momentum", "rmsprop_centered", "rmsprop_centered_momentum", "adagrad"}
    used = set()
    for name in ("sgd", "adam", "adadelta", "rmsprop", "adagrad"):
        tree = _tree(inspect.getfile(getattr(optim, name)))
        used |= {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)
                 and isinstance(n.value, ast.Name) and n.value.id == "updates"}
    assert bodies <= used
    for b in bodies:
        assert callable(getattr(updates, b))
