"""``nbgrad.func``: PyTorch's composable function transforms (``torch.func``) — ``vmap``,
``grad``, ``grad_and_value``, ``vjp``, ``jvp``, ``jacrev``, ``jacfwd``, ``hessian`` — and
``functional_call`` / ``stack_module_state`` for calling a module with other parameters.

They are built on nbgrad's autograd and nest freely (``grad(grad(f))``, ``vmap(grad(f))``,
``jacrev(jacrev(f))``). ``vmap`` calls the function once per index of the mapped dims and
stacks the results, so any function works, Python control flow on values included (PyTorch
refuses data-dependent control flow and ``.item()`` inside ``vmap``); it is a loop, not a
batched kernel: for speed, batch by hand. ``jvp`` and ``jacfwd`` use reverse mode twice
(the double-vjp trick): their values are forward mode's, to rounding.

Example::

    >>> import nbgrad
    >>> from nbgrad.func import grad, vmap
    >>> x = nbgrad.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> vmap(grad(lambda v: (v ** 2).sum()))(x)
    tensor([[2., 4.],
            [6., 8.]])
"""

import contextlib
import functools

from .. import random as _random
from ..autograd import grad as _autograd_grad
from ..autograd.grad_mode import enable_grad, is_grad_enabled
from ..creation import zeros_like
from ..ops.concat import stack as _stack
from ..tensor import Tensor
from . import _tree

__all__ = ["functional_call", "functionalize", "grad", "grad_and_value", "hessian", "jacfwd",
           "jacrev", "jvp", "linearize", "replace_all_batch_norm_modules_",
           "stack_module_state", "vjp", "vmap"]


# ---- vmap ------------------------------------------------------------------------------
def _fname(func):
    return getattr(func, "__name__", repr(func))


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """``func`` mapped over a dim of its inputs: ``vmap(f)(x)[i] == f(x[i])``.

    Args:
        func: the function (of tensors, or nested tuples / lists / dicts of them).
        in_dims: the mapped dim of each input (an int for all, or a tuple with one entry
            per positional input, nested like the input; None: not mapped). Default 0.
        out_dims: where the mapped dim goes in each output (int, or nested like the
            outputs; None: the output does not depend on the index). Default 0.
        randomness: ``"error"`` (default: random ops inside ``func`` raise), ``"different"``
            (each index draws its own numbers) or ``"same"`` (every index draws the same).
        chunk_size: accepted for PyTorch's signature (the calls run one by one anyway).

    Example::

        >>> import nbgrad
        >>> from nbgrad.func import vmap
        >>> vmap(nbgrad.dot)(nbgrad.ones(3, 2), nbgrad.tensor([[1.0, 2.0]] * 3))
        tensor([3., 3., 3.])
    """
    if randomness not in ("error", "different", "same"):
        raise RuntimeError("Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")

    @functools.wraps(func)
    def mapped(*args, **kwargs):
        return _vmap_call(func, in_dims, out_dims, randomness, args, kwargs)

    return mapped


def _vmap_call(func, in_dims, out_dims, randomness, args, kwargs):
    where = f"vmap({_fname(func)}, in_dims={in_dims}, ...)(<inputs>)"
    if not isinstance(in_dims, (int, tuple)) or isinstance(in_dims, bool):
        raise ValueError(f"{where}: expected `in_dims` to be int or a (potentially nested) "
                         "tuple matching the structure of inputs, got: "
                         f"{type(in_dims)}.")
    if not args:
        raise ValueError(f"vmap({_fname(func)})(<inputs>): got no inputs. Maybe you forgot "
                         "to add inputs, or you are trying to vmap over a function with no "
                         "inputs. The latter is unsupported.")
    leaves, spec = _tree.flatten(args)
    try:
        dims = _tree.broadcast_prefix(in_dims, args)
    except ValueError:
        raise ValueError(f"{where}: in_dims is not compatible with the structure of `inputs`. "
                         f"in_dims has structure {_tree.describe(_tree.flatten(in_dims)[1])} "
                         f"but inputs has structure {_tree.describe(spec)}.") from None
    sizes = []
    for leaf, d in zip(leaves, dims):
        if d is None:
            continue
        if not isinstance(leaf, Tensor):
            raise ValueError(f"{where}: Got in_dim={d} for an input but the input is of type "
                             f"{type(leaf)}. We cannot vmap over non-Tensor arguments, please "
                             "use None as the respective in_dim")
        n = leaf.ndim
        if not -n <= d < n:
            raise ValueError(f"{where}: Got in_dim={d} for some input, but that input is a "
                             f"Tensor of dimensionality {n} so expected in_dim to satisfy "
                             f"-{n} <= in_dim < {n}.")
        sizes.append(leaf.shape[d])
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if len(set(sizes)) > 1:
        raise ValueError("vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")
    if sizes[0] == 0:  # an empty batch: one call on zeros of a sample's shape tells the
        # outputs' structure and shapes, and each gets an empty mapped dim
        from ..creation import zeros

        sliced = [zeros(tuple(leaf.shape[:d]) + tuple(leaf.shape[d + 1:]), dtype=leaf.dtype,
                        device=leaf.device) if d is not None else leaf
                  for leaf, d in zip(leaves, dims)]
        with _randomness(randomness):
            sample = func(*_tree.unflatten(sliced, spec), **kwargs)
        return _stack_outputs(func, [sample], out_dims, empty=True)
    results = []
    start_state = _random.default_generator.get_state() if randomness == "same" else None
    for i in range(sizes[0]):
        if start_state is not None:
            _random.default_generator.set_state(start_state)
        sliced = [leaf.select(d, i) if d is not None else leaf for leaf, d in zip(leaves, dims)]
        with _randomness(randomness):
            results.append(func(*_tree.unflatten(sliced, spec), **kwargs))
    return _stack_outputs(func, results, out_dims)


@contextlib.contextmanager
def _randomness(mode):
    before = _random._VMAP_RANDOMNESS
    _random._VMAP_RANDOMNESS = mode
    try:
        yield
    finally:
        _random._VMAP_RANDOMNESS = before


def _stack_outputs(func, results, out_dims, empty=False):
    flat = [_tree.flatten(r) for r in results]
    spec = flat[0][1]
    try:
        dims = _tree.broadcast_prefix(out_dims, results[0])
    except ValueError:
        raise ValueError(
            f"vmap({_fname(func)}, ..., out_dims={out_dims})(<inputs>): out_dims is not "
            "compatible with the structure of `outputs`. out_dims has structure "
            f"{_tree.describe(_tree.flatten(out_dims)[1])} but outputs has structure "
            f"{_tree.describe(spec)}.") from None
    out = []
    for k, d in enumerate(dims):
        column = [leaves[k] for leaves, _ in flat]
        if d is None:
            out.append(column[0])
            continue
        if not isinstance(column[0], Tensor):
            raise ValueError(f"vmap({_fname(func)}, ...): `{_fname(func)}` must only return "
                             f"Tensors, got type {type(column[0])}. Did you mean to set "
                             "out_dims= to None for output?")
        if empty:
            t = column[0]
            dd = d % (t.ndim + 1)
            out.append(t.new_empty(tuple(t.shape[:dd]) + (0,) + tuple(t.shape[dd:])))
            continue
        out.append(_stack(column, d))
    return _tree.unflatten(out, spec)


# ---- gradients -------------------------------------------------------------------------
def _prepare(args, argnums, what):
    """``args`` with the differentiated ones replaced by tensors that require grad (views
    of them when they already do, so an outer transform differentiates through)."""
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    for a in nums:
        if not -len(args) <= a < len(args):
            raise RuntimeError(f"Got argnum={a}, but only {len(args)} positional inputs")
    args = list(args)
    made = []
    for a in nums:
        leaves, spec = _tree.flatten(args[a])
        fresh = []
        for leaf in leaves:
            if not isinstance(leaf, Tensor):
                raise ValueError(f"Thing passed to transform API must be Tensor, got "
                                 f"{type(leaf)}")
            fresh.append(leaf.view_as(leaf) if leaf.requires_grad
                         else leaf.detach().requires_grad_())
        made.append((a, leaves, fresh, spec))
        args[a] = _tree.unflatten(fresh, spec)
    return args, made, isinstance(argnums, int)


def _outer(made):
    """Whether a result must stay differentiable: an input was already differentiable."""
    return is_grad_enabled() and any(leaf.requires_grad for _, leaves, _, _ in made
                                     for leaf in leaves if isinstance(leaf, Tensor))


def _finish(t, outer):
    return t if outer or not isinstance(t, Tensor) else t.detach()


def _vjps(out_leaves, inputs, us):
    """``d<outputs, us>/d inputs``, differentiable in ``us`` (None for an unused input);
    outputs that do not depend on the inputs add nothing."""
    pairs = [(o, u) for o, u in zip(out_leaves, us) if isinstance(o, Tensor) and o.requires_grad]
    if not pairs:
        return [None] * len(inputs)
    return _autograd_grad([o for o, _ in pairs], inputs, [u for _, u in pairs],
                          retain_graph=True, create_graph=True, allow_unused=True)


def _grads_of(out, made, grad_outputs, outer):
    inputs = [f for _, _, fresh, _ in made for f in fresh]
    # outputs that do not depend on the inputs contribute zeros (PyTorch's transforms)
    outs = out if isinstance(out, (list, tuple)) else [out]
    gos = (grad_outputs if isinstance(grad_outputs, (list, tuple)) else [grad_outputs]
           ) if grad_outputs is not None else [None] * len(outs)
    pairs = [(o, g) for o, g in zip(outs, gos) if isinstance(o, Tensor) and o.requires_grad]
    gs = _autograd_grad([o for o, _ in pairs], inputs, [g for _, g in pairs], retain_graph=True,
                        create_graph=outer, allow_unused=True) if pairs else [None] * len(inputs)
    gs = [zeros_like(x) if g is None else _finish(g, outer) for g, x in zip(gs, inputs)]
    it = iter(gs)
    return [_tree.unflatten([next(it) for _ in fresh], spec) for _, _, fresh, spec in made]


def grad_and_value(func, argnums=0, has_aux=False):
    """``(gradient, value)`` of scalar-valued ``func`` with respect to its inputs
    ``argnums`` (see ``grad``).

    Example::

        >>> import nbgrad
        >>> from nbgrad.func import grad_and_value
        >>> grad_and_value(lambda x: (x ** 2).sum())(nbgrad.tensor([1.0, 2.0]))
        (tensor([2., 4.]), tensor(5.))
    """
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        args, made, single = _prepare(args, argnums, "grad")
        with enable_grad():
            out = func(*args, **kwargs)
        aux = None
        if has_aux:
            if not (isinstance(out, tuple) and len(out) == 2):
                raise RuntimeError("grad_and_value(f)(*args): output of function f should be "
                                   "a tuple: (output, aux) if has_aux is True")
            out, aux = out
        if not isinstance(out, Tensor):
            raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a "
                               f"Tensor, got {type(out)}")
        if out.ndim != 0:
            raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a "
                               f"scalar Tensor, got tensor with {out.ndim} dims. Maybe you "
                               "wanted to use the vjp or jacrev APIs instead?")
        outer = _outer(made) or _reaches_other_leaves(out, made)
        gs = _grads_of(out, made, None, outer)
        g = gs[0] if single else tuple(gs)
        value = _finish(out, outer)
        if has_aux:
            return g, (value, _tree.unflatten([_finish(a, outer) for a in
                                               _tree.flatten(aux)[0]], _tree.flatten(aux)[1]))
        return g, value

    return wrapper


def _reaches_other_leaves(out, made):
    """Whether ``out`` depends on a tensor requiring grad other than the fresh inputs (a
    parameter ``func`` closes over): then its gradient stays differentiable, as PyTorch's."""
    ours = {id(f) for _, _, fresh, _ in made for f in fresh}
    seen, todo = set(), [out.grad_fn]
    while todo:
        node = todo.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        var = getattr(node, "variable", None)
        if var is not None and id(var) not in ours:
            return True
        todo.extend(f for f, _ in node.next_functions)
    return False


def grad(func, argnums=0, has_aux=False):
    """The gradient of scalar-valued ``func`` with respect to its positional inputs
    ``argnums`` (an int, or a tuple of them: a tuple of gradients), each of the input's
    structure (a tensor, or a dict / tuple of tensors). ``has_aux``: ``func`` returns
    ``(output, aux)`` and the result is ``(gradient, aux)``. Composes with itself and the
    other transforms.

    Example::

        >>> import nbgrad
        >>> from nbgrad.func import grad
        >>> grad(grad(lambda x: x ** 3))(nbgrad.tensor(2.0))
        tensor(12.)
    """
    gv = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        g, value = gv(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return wrapper


def _run_on_primals(func, primals, has_aux):
    """``func`` called on differentiable stand-ins of all ``primals``: ``(made, output
    leaves, output structure, aux, whether results stay differentiable)``."""
    args, made, _ = _prepare(primals, tuple(range(len(primals))), "vjp")
    with enable_grad():
        out = func(*args)
    aux = None
    if has_aux:
        out, aux = out
    out_leaves, out_spec = _tree.flatten(out)
    return made, out_leaves, out_spec, aux, _outer(made)


def vjp(func, *primals, has_aux=False):
    """``(output, vjp_fn)``: ``func(*primals)`` and the function that maps cotangents (of
    the output's structure) to the vector-Jacobian products, one per primal.

    Example::

        >>> import nbgrad
        >>> from nbgrad.func import vjp
        >>> out, vjp_fn = vjp(lambda x: x * 3, nbgrad.tensor([1.0, 2.0]))
        >>> vjp_fn(nbgrad.tensor([1.0, 1.0]))
        (tensor([3., 3.]),)
    """
    made, out_leaves, out_spec, aux, outer = _run_on_primals(func, primals, has_aux)

    def vjp_fn(cotangents):
        cts, _ = _tree.flatten(cotangents)
        if len(cts) != len(out_leaves):
            raise RuntimeError("Expected pytree structure of cotangents to be the same as "
                               "pytree structure of outputs to the function")
        return tuple(_grads_of(out_leaves, made, cts, outer))

    result = _tree.unflatten([_finish(o, outer) for o in out_leaves], out_spec)
    return (result, vjp_fn, aux) if has_aux else (result, vjp_fn)


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """``(output, jvp_out)``: ``func(*primals)`` and its Jacobian applied to ``tangents``
    (one per primal, of its shape).

    Example::

        >>> import nbgrad
        >>> from nbgrad.func import jvp
        >>> jvp(lambda x: x ** 2, (nbgrad.tensor([1.0, 2.0]),), (nbgrad.tensor([1.0, 0.5]),))
        (tensor([1., 4.]), tensor([2., 2.]))
    """
    if not isinstance(primals, tuple):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals to be a tuple. E.g. it "
                           "should be valid to call f(*primals).")
    if not isinstance(tangents, tuple) or len(tangents) != len(primals):
        raise RuntimeError("jvp(f, primals, tangents): Expected tangents to be a tuple of the "
                           "same length as primals")
    for p, t in zip(_tree.flatten(primals)[0], _tree.flatten(tangents)[0]):
        if tuple(p.shape) != tuple(t.shape):
            raise RuntimeError(
                "Trying to set a forward gradient that has a different size than that of the "
                f"original Tensor, this is not supported. Tensor is of size {list(p.shape)} "
                f"while the given forward gradient is of size {list(t.shape)}.")
    made, out_leaves, out_spec, aux, outer = _run_on_primals(func, primals, has_aux)
    # J t = d/du <J^T u, t>: a vjp with a dummy cotangent u, differentiated in u
    us = [zeros_like(o).requires_grad_() for o in out_leaves]
    inputs = [f for _, _, fresh, _ in made for f in fresh]
    vjps = _vjps(out_leaves, inputs, us)
    pairs = [(v, t) for v, t in zip(vjps, _tree.flatten(tangents)[0]) if v is not None]
    if pairs:
        jv = _autograd_grad([v for v, _ in pairs], us, [t for _, t in pairs],
                            retain_graph=True, create_graph=outer, allow_unused=True)
    else:
        jv = [None] * len(us)
    jv = [zeros_like(o) if g is None else _finish(g, outer) for g, o in zip(jv, out_leaves)]
    result = (_tree.unflatten([_finish(o, outer) for o in out_leaves], out_spec),
              _tree.unflatten(jv, out_spec))
    return result + (aux,) if has_aux else result


def linearize(func, *primals):
    """``(output, jvp_fn)``: ``func(*primals)`` and the function that maps tangents (one per
    primal, of its shape) to the Jacobian-vector product at ``primals``. ``func`` runs once:
    each ``jvp_fn`` call differentiates the graph kept from that run.

    Example::

        >>> import nbgrad
        >>> from nbgrad.func import linearize
        >>> out, jvp_fn = linearize(lambda x: x ** 2, nbgrad.tensor([1.0, 2.0]))
        >>> jvp_fn(nbgrad.tensor([1.0, 0.5]))
        tensor([2., 2.])
    """
    made, out_leaves, out_spec, _, outer = _run_on_primals(func, primals, False)
    flat_primals, primal_spec = _tree.flatten(primals)
    us = [zeros_like(o).requires_grad_() for o in out_leaves]
    inputs = [f for _, _, fresh, _ in made for f in fresh]
    vjps = _vjps(out_leaves, inputs, us)

    def jvp_fn(*tangents):
        flat, spec = _tree.flatten(tangents)
        if spec != primal_spec:
            raise RuntimeError(f"Expected the tangents {spec} to have the same argspec as the "
                               f"primals {primal_spec}")
        for i, (t, p) in enumerate(zip(flat, flat_primals)):
            for what in ("shape", "device", "dtype"):
                if getattr(t, what) != getattr(p, what):
                    raise RuntimeError(
                        f"tangent:{i} with {what} {getattr(t, what)} in flattened pytree "
                        f"doesn't match the {what} {getattr(p, what)} of the corresponding "
                        "primal.")
        pairs = [(v, t) for v, t in zip(vjps, flat) if v is not None]
        jv = _autograd_grad([v for v, _ in pairs], us, [t for _, t in pairs],
                            retain_graph=True, allow_unused=True) if pairs else [None] * len(us)
        jv = [zeros_like(o) if g is None else _finish(g, False) for g, o in zip(jv, out_leaves)]
        return _tree.unflatten(jv, out_spec)

    return _tree.unflatten([_finish(o, outer) for o in out_leaves], out_spec), jvp_fn


def functionalize(func, *, remove="mutations"):
    """``func`` itself: PyTorch's ``functionalize`` rewrites in-place ops out of a program
    for its compilers; nbgrad's transforms already run in-place ops correctly, so the
    function's results are the same.

    Example::

        >>> import nbgrad
        >>> from nbgrad.func import functionalize
        >>> def f(x):
        ...     y = x.clone()
        ...     y.add_(1)
        ...     return y * 2
        >>> functionalize(f)(nbgrad.tensor([1.0, 2.0]))
        tensor([4., 6.])
    """
    if remove not in ("mutations", "mutations_and_views"):
        raise RuntimeError(f"functionalize(f, remove='mutations'): received invalid argument "
                           f"for remove={remove}. Valid options are:\n     remove='mutations': "
                           "all inplace and out= operators will be removed from the program, "
                           "and replaced with their out-of-place equivalents.\n     "
                           "remove='mutations_and_views': In addition to the above, all aliasing "
                           "operators {view} will be replaced with their non-aliasing "
                           "counterparts, {view}_copy.\n")
    return func


def replace_all_batch_norm_modules_(root):
    """Make every batch norm in ``root`` use the batch's statistics, always: no running
    statistics (as ``vmap`` over a model needs). In place; returns ``root``.

    Example::

        >>> import nbgrad
        >>> from nbgrad.func import replace_all_batch_norm_modules_
        >>> m = replace_all_batch_norm_modules_(nbgrad.nn.BatchNorm1d(3))
        >>> m.running_mean is None, m.track_running_stats
        (True, False)
    """
    from ..nn.modules.batchnorm import _BatchNorm

    for module in root.modules():
        if isinstance(module, _BatchNorm):
            module.running_mean = None
            module.running_var = None
            module.num_batches_tracked = None
            module.track_running_stats = False
    return root


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """The Jacobian of ``func`` with respect to its inputs ``argnums``, by reverse mode: of
    shape ``output.shape + input.shape`` (a tuple per input for a tuple ``argnums``; nested
    like the outputs for several outputs).

    Example::

        >>> import nbgrad
        >>> from nbgrad.func import jacrev
        >>> jacrev(lambda x: x ** 2)(nbgrad.tensor([1.0, 2.0]))
        tensor([[2., 0.],
                [0., 4.]])
    """
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        args, made, single = _prepare(args, argnums, "jacrev")
        with enable_grad():
            out = func(*args, **kwargs)
        aux = None
        if has_aux:
            out, aux = out
        outer = _outer(made) or any(
            isinstance(o, Tensor) and _reaches_other_leaves(o, made)
            for o in _tree.flatten(out)[0] if o.grad_fn is not None)
        out_leaves, out_spec = _tree.flatten(out)
        per_output = []
        for o in out_leaves:
            flat = o.reshape(-1)
            rows = [_grads_of(flat[i], made, None, outer) for i in range(flat.shape[0])]
            jac = []
            for k, (_, leaves, fresh, spec) in enumerate(made):
                blocks = []
                for j, x in enumerate(fresh):
                    col = [_tree.flatten(r[k])[0][j] for r in rows]
                    blocks.append(
                        _stack(col, 0).reshape(tuple(o.shape) + tuple(x.shape)) if col
                        else x.new_zeros(tuple(o.shape) + tuple(x.shape)))
                jac.append(_tree.unflatten(blocks, spec))
            per_output.append(jac[0] if single else tuple(jac))
        result = _tree.unflatten(per_output, out_spec)
        return (result, aux) if has_aux else result

    return wrapper


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian of ``func`` with respect to its inputs ``argnums`` (``jacrev``'s layout;
    computed by reverse mode here: the same values, to rounding).

    Example::

        >>> import nbgrad
        >>> from nbgrad.func import jacfwd
        >>> jacfwd(lambda x: x.sin())(nbgrad.tensor([0.0]))
        tensor([[1.]])
    """
    return jacrev(func, argnums, has_aux=has_aux)


def hessian(func, argnums=0):
    """The Hessian of scalar-valued ``func`` with respect to its inputs ``argnums``:
    ``jacfwd(jacrev(func))``.

    Example::

        >>> import nbgrad
        >>> from nbgrad.func import hessian
        >>> hessian(lambda x: (x ** 3).sum())(nbgrad.tensor([1.0, 2.0]))
        tensor([[ 6.,  0.],
                [ 0., 12.]])
    """
    return jacfwd(jacrev(func, argnums), argnums)


# ---- modules as functions ------------------------------------------------------------
def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """Call ``module`` with its parameters and buffers named in
    ``parameter_and_buffer_dicts`` (a dict, or a tuple of dicts, of dotted names such as
    ``"0.weight"`` to tensors) in place of its own, which are back afterwards.

    Example::

        >>> import nbgrad
        >>> from nbgrad.func import functional_call
        >>> lin = nbgrad.nn.Linear(2, 1)
        >>> functional_call(lin, {"weight": nbgrad.ones(1, 2), "bias": nbgrad.zeros(1)},
        ...                 (nbgrad.tensor([[1.0, 2.0]]),))
        tensor([[3.]])
    """
    dicts = (parameter_and_buffer_dicts if isinstance(parameter_and_buffer_dicts, (tuple, list))
             else (parameter_and_buffer_dicts,))
    merged = {}
    for d in dicts:
        for k, v in d.items():
            if k in merged:
                raise ValueError(f"{k} appeared in multiple dictionaries; behavior of "
                                 "functional call is ambiguous")
            merged[k] = v
    if strict:
        expected = {n for n, _ in module.named_parameters()} | {
            n for n, _ in module.named_buffers()}
        missing, unexpected = sorted(expected - set(merged)), sorted(set(merged) - expected)
        if missing or unexpected:
            raise RuntimeError(f"Error(s) in reparametrizing for {module._get_name()}:\n\t"
                               + "\n\t".join(
                                   ([f"Unexpected key(s): {', '.join(map(repr, unexpected))}."]
                                    if unexpected else [])
                                   + ([f"Missing key(s): {', '.join(map(repr, missing))}."]
                                      if missing else [])))
    if tie_weights:  # a tensor shared under several names takes the one value given
        for name, t in list(_named_tensors(module)):
            for other, u in _named_tensors(module):
                if u is t and other in merged and name not in merged:
                    merged[name] = merged[other]
    saved = []
    try:
        for name, value in merged.items():
            path, _, leaf = name.rpartition(".")
            owner = module.get_submodule(path)
            store = owner._parameters if leaf in owner._parameters else (
                owner._buffers if leaf in owner._buffers else None)
            if store is None:
                raise AttributeError(f"{owner._get_name()} has no parameter or buffer "
                                     f"`{leaf}`")
            saved.append((store, leaf, store[leaf]))
            store[leaf] = value
        args = () if args is None else (args if isinstance(args, tuple) else (args,))
        return module(*args, **(kwargs or {}))
    finally:
        for store, leaf, old in reversed(saved):
            store[leaf] = old


def _named_tensors(module):
    for name, p in module.named_parameters(remove_duplicate=False):
        yield name, p
    for name, b in module.named_buffers(remove_duplicate=False):
        yield name, b


def stack_module_state(models):
    """``(params, buffers)``: each parameter and buffer of the same-structured ``models``
    stacked along a new first dim (parameters as new leaves that require grad), for
    ``vmap`` over an ensemble with ``functional_call``.

    Example::

        >>> import nbgrad
        >>> from nbgrad.func import stack_module_state
        >>> params, buffers = stack_module_state([nbgrad.nn.Linear(2, 3) for _ in range(4)])
        >>> params["weight"].shape
        nbgrad.Size([4, 3, 2])
    """
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same "
                           "training/eval mode.")
    first = models[0]
    if not all(type(m) is type(first) for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    params = {name: _stack([dict(m.named_parameters())[name] for m in models]).detach()
              .requires_grad_(p.requires_grad) for name, p in first.named_parameters()}
    buffers = {name: _stack([dict(m.named_buffers())[name] for m in models])
               for name, _ in first.named_buffers()}
    return params, buffers
