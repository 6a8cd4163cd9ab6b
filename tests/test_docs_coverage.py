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


def _problem(qualname, obj):
    """Why this API is not documented yet, or None."""
    doc = inspect.getdoc(obj) or ""
    if qualname.startswith("nbgrad.Tensor."):
        ref = f"nbgrad.{qualname.rsplit('.', 1)[1].rstrip('_')}"
        if f"See :func:`{ref}`" in doc or f"See :meth:`{ref}`" in doc:
            return None if _problem(ref, getattr(nbgrad, ref[7:], None)) is None \
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
    import re

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
        assert code is getattr(nbgrad, function).__code__, name
    assert seen > 100
