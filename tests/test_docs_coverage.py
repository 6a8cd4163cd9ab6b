"""Every public API has a PyTorch-style docstring: an example that runs (the doctest sweep
of test_doctests.py runs it) and, where it takes arguments, an ``Args:`` section.

The namespaces a user reaches (``nbgrad``, ``nbgrad.nn``, ``nbgrad.nn.functional``,
``nbgrad.optim``, ``nbgrad.optim.lr_scheduler`` and ``Tensor``'s methods) are walked; a
Tensor method may instead refer to the function that documents it, as PyTorch's do
("See :func:`nbgrad.sin`"). The names not documented yet are listed, one per line, in the
files of ``tests/docs_pending/``: the list is the record of what is left, and it can only
shrink — a listed name that is documented (or gone) fails the test until it is taken off.
"""

import inspect
import os
import re

import pytest

import nbgrad

PENDING_DIR = os.path.join(os.path.dirname(__file__), "docs_pending")
NAMESPACES = ("nbgrad", "nbgrad.nn", "nbgrad.nn.functional", "nbgrad.optim",
              "nbgrad.optim.lr_scheduler", "nbgrad.Tensor")


def _namespace(path):
    obj = nbgrad
    for part in path.split(".")[1:]:
        obj = getattr(obj, part)
    return obj


def _public(path):
    """(qualified name, object) of each public callable of a namespace, modules, constants,
    dtypes and what a module re-exports from elsewhere (lr_scheduler's ``Counter``, as
    PyTorch's) left out."""
    ns = _namespace(path)
    out = []
    for name in sorted(dir(ns)):
        if name.startswith("_"):
            continue
        obj = getattr(ns, name, None)
        if inspect.ismodule(obj) or not callable(obj) or isinstance(obj, nbgrad.dtype):
            continue
        if not (getattr(obj, "__module__", None) or "nbgrad").startswith("nbgrad"):
            continue
        out.append((f"{path}.{name}", obj))
    return out


def _takes_arguments(obj):
    if inspect.isclass(obj) and obj.__init__ is nbgrad.nn.Module.__init__:
        return False  # (it refuses every argument, as PyTorch's: nn.Tanh(5) is an error)
    target = obj.__init__ if inspect.isclass(obj) else obj
    try:
        params = list(inspect.signature(target).parameters.values())
    except (TypeError, ValueError):
        return True
    return any(p.name not in ("self", "cls") for p in params)


# The one line by which a generated top-level form says which function documents it, as
# PyTorch's do: an alias ("Alias for :func:`nbgrad.vstack`."), an in-place form ("In-place
# version of :func:`nbgrad.exp`") or a copying form of a view ("Performs the same operation
# as :meth:`nbgrad.Tensor.view`, but ..."); test_generated_forms_compute_what_they_refer_to
# checks that each computes what it names.
_REFERENCE = re.compile(r"(Alias for|In-place version of|Performs the same operation as) "
                        r":(?:func|meth):`(nbgrad(?:\.\w+)+)`")


def _resolve(qualname):
    """The object ``nbgrad.a.b`` names, or None."""
    obj = nbgrad
    for part in qualname.split(".")[1:]:
        obj = getattr(obj, part, None)
    return obj


def _reference(qualname, doc):
    """(kind, qualified name) of the function a top-level form's docstring refers to, or
    None."""
    m = _REFERENCE.search(doc)
    if m is None or qualname.startswith("nbgrad.Tensor.") or m.group(2) == qualname:
        return None
    return m.groups()


def _problem(qualname, obj):
    """Why this API is not documented yet, or None."""
    doc = inspect.getdoc(obj) or ""
    if qualname.startswith("nbgrad.Tensor."):
        ref = f"nbgrad.{qualname.rsplit('.', 1)[1].rstrip('_')}"
        if f"See :func:`{ref}`" in doc or f"See :meth:`{ref}`" in doc:
            return None if _problem(ref, getattr(nbgrad, ref[7:], None)) is None \
                else f"refers to {ref}, which is not documented"
    if (found := _reference(qualname, doc)) is not None:
        ref = found[1]
        return None if _problem(ref, _resolve(ref)) is None \
            else f"refers to {ref}, which is not documented"
    if obj is None:
        return "missing"
    if ">>>" not in doc:
        return "no example"
    if _takes_arguments(obj) and "Args:" not in doc:
        return "no Args: section"
    return None


def _pending():
    names = {}
    for fname in sorted(os.listdir(PENDING_DIR)):
        with open(os.path.join(PENDING_DIR, fname), encoding="utf-8") as f:
            for line in f:
                line = line.split("#", 1)[0].strip()
                if line:
                    names[line] = fname
    return names


PENDING = _pending()


@pytest.mark.parametrize("path", NAMESPACES)
def test_public_api_documented(path):
    missing = [f"{q}: {why}" for q, obj in _public(path)
               if q not in PENDING and (why := _problem(q, obj))]
    assert not missing, "undocumented (document them, or list them in tests/docs_pending/):\n" \
        + "\n".join(missing)


def test_pending_list_only_shrinks():
    """A name on the pending list is public and still undocumented: once documented (or
    removed) it must come off the list, so the list is always what is left."""
    public = {q: obj for path in NAMESPACES for q, obj in _public(path)}
    stale = [f"{q} ({PENDING[q]}): " + ("not public" if q not in public else "documented now")
             for q in sorted(PENDING) if q not in public or _problem(q, public[q]) is None]
    assert not stale, "take these off tests/docs_pending/:\n" + "\n".join(stale)


def test_generated_method_docs_refer_to_their_own_function():
    """The Tensor methods whose docstring ``_methods`` generates to refer to the top-level
    function (``sin() -> Tensor``, then ``See :func:`nbgrad.sin```) are that function,
    copied (the same code): the reference is true. An in-place method refers to the
    function of its out-of-place form, itself such a copy."""
    generated = re.compile(r"(\w+)\([^\n]*\) -> [^\n]+\n\n(?:In-place version of "
                           r":meth:`nbgrad\.Tensor\.(\w+)`\.\n\n)?See :func:`nbgrad\.(\w+)`")
    seen = 0
    for name, fn in vars(nbgrad.Tensor).items():
        m = generated.fullmatch(getattr(fn, "__doc__", None) or "")
        if m is None:
            continue
        seen += 1
        method, inplace_of, function = m.groups()
        assert method == name, name
        twin = name if inplace_of is None else inplace_of
        assert twin == function and name in (function, function + "_"), name
        code = vars(nbgrad.Tensor)[twin].__code__
        top = getattr(nbgrad, function)
        while top.__code__ is not code and hasattr(top, "__wrapped__"):
            top = top.__wrapped__  # (the layer that takes out=: nbgrad/_out.py)
        if top.__code__ in _FORMS:  # (a generated form of _torch_names: ``nbgrad.msort(x)``
            # is ``x.msort()``, the method this docstring is on; ``nbgrad.narrow_copy`` a
            # copy of ``x.narrow(...)``, which the method makes too)
            cells = dict(zip(top.__code__.co_freevars, top.__closure__))
            assert cells["name"].cell_contents in (function, function[:-5]), name
        else:
            assert code is top.__code__, name
    assert seen > 100


# the code of the top-level forms _torch_names generates from a method's name
_FORMS = (nbgrad._torch_names._method_function("msort").__code__,
          nbgrad._torch_names._copy_function("narrow", False).__code__)


def _x():
    return nbgrad.tensor([[0.25, 0.5], [0.75, 0.125]])


def _ints():
    return nbgrad.tensor([[4, 6], [9, 12]])


# the arguments to call a form and the function it refers to with (a function making fresh
# ones for each call: an in-place form overwrites them); _x() alone where not listed
_FORM_ARGS = {
    "acosh_": lambda: (_x() + 1,), "arccosh_": lambda: (_x() + 1,),
    "clamp_": lambda: (_x(), 0.3, 0.6), "clip_": lambda: (_x(), 0.3, 0.6),
    "clamp_max_": lambda: (_x(), 0.3), "clamp_min_": lambda: (_x(), 0.3),
    "gcd_": lambda: (_ints(), nbgrad.tensor([[6, 4], [6, 8]])),
    "lcm_": lambda: (_ints(), nbgrad.tensor([[6, 4], [6, 8]])),
    "ldexp_": lambda: (_x(), nbgrad.tensor([[1, 2], [3, 0]])),
    "xlogy_": lambda: (_x(), _x() + 1),
    "fill_": lambda: (_x(), 2.0),
    "index_put_": lambda: (_x(), (nbgrad.tensor([0]),), nbgrad.tensor(9.0)),
    "nan_to_num_": lambda: (nbgrad.tensor([float("nan"), 1.0, float("inf")]),),
    "view_copy": lambda: (_x(), 4), "permute_copy": lambda: (_x(), (1, 0)),
    "transpose_copy": lambda: (_x(), 0, 1), "squeeze_copy": lambda: (_x()[None],),
    "unsqueeze_copy": lambda: (_x(), 0), "expand_copy": lambda: (_x()[0], (3, 2)),
    "select_copy": lambda: (_x(), 0, 1), "narrow_copy": lambda: (_x(), 1, 0, 1),
    "unfold_copy": lambda: (_x(), 1, 1, 1), "split_copy": lambda: (_x(), 1),
    "split_with_sizes_copy": lambda: (_x(), [1, 1]),
    "unsafe_chunk": lambda: (_x(), 2), "unsafe_split": lambda: (_x(), 1),
    "unsafe_split_with_sizes": lambda: (_x(), [1, 1]), "row_stack": lambda: ([_x(), _x()],),
    "dropout_": lambda: (_x(), 0.5, True), "alpha_dropout_": lambda: (_x(), 0.5, True),
    "feature_alpha_dropout_": lambda: (_x()[None], 0.5, True),
    "celu_": lambda: (_x() - 0.5,), "selu_": lambda: (_x() - 0.5,),
    "rrelu_": lambda: (_x() - 0.5,), "relu_": lambda: (_x() - 0.5,),
    "threshold_": lambda: (_x(), 0.3, -1.0),
}


def _referring_forms():
    return sorted(q for q, obj in _public("nbgrad")
                  if _reference(q, inspect.getdoc(obj) or "") is not None)


def _as_tuple(out):
    return tuple(out) if isinstance(out, (tuple, list)) else (out,)


def test_referring_forms_found():
    forms = _referring_forms()
    assert {"nbgrad.exp_", "nbgrad.view_copy", "nbgrad.unsafe_chunk"} <= set(forms)
    assert len(forms) > 80


@pytest.mark.parametrize("qualname", _referring_forms())
def test_generated_forms_compute_what_they_refer_to(qualname):
    """A top-level form whose docstring says it is an alias, the in-place version or the
    copying form of a function (which documents it: ``_problem``) names a function that
    exists, and computes what that function does: the same values; an in-place form into
    its input, which it returns; a copying form into new memory (zeroing its outputs
    leaves the input as it was)."""
    form = _resolve(qualname)
    kind, ref = _reference(qualname, inspect.getdoc(form))
    target = _resolve(ref)
    assert callable(target), f"{qualname} refers to {ref}, which does not exist"
    make = _FORM_ARGS.get(qualname.rsplit(".", 1)[1], lambda: (_x(),))
    nbgrad.manual_seed(0)
    expected = _as_tuple(target(*make()))
    args = make()
    before = args[0].clone() if isinstance(args[0], nbgrad.Tensor) else None
    nbgrad.manual_seed(0)
    got = form(*args)
    if kind == "In-place version of":
        assert got is args[0], f"{qualname} does not return its input"
    got = _as_tuple(got)
    assert len(got) == len(expected), qualname
    for g, e in zip(got, expected):
        assert g.shape == e.shape and g.dtype == e.dtype, qualname
        assert nbgrad.allclose(g, e, equal_nan=True), qualname
    if kind == "Performs the same operation as":
        for g in got:
            g.zero_()
        assert nbgrad.equal(args[0], before), f"{qualname} returned a view of its input"
