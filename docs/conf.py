"""Sphinx configuration of nbgrad's API reference (``sphinx-build -b html docs docs/_build``).

The pages are generated from the docstrings (autodoc), written in Google style with
``Args:`` / ``Returns:`` sections as PyTorch's (napoleon reads them).
"""

import os
import sys

# the checkout's nbgrad, also when it is not installed
sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..")))
# importing nbgrad must not print its first-compile notice into the build's output
os.environ.setdefault("NBGRAD_QUIET", "1")

import nbgrad  # noqa: E402


def _write_pages():
    """The reference's page of top-level functions (one generated page per function) and
    its table of Tensor methods, written at build time from what is documented (an
    example in the docstring; a Tensor method referring to a function), so that a newly
    documented name appears without editing a page. Both files are not kept in git."""
    import inspect
    import re

    def documented(obj):
        doc = getattr(obj, "__doc__", None) or ""
        return ">>>" in doc or "See :func:`nbgrad." in doc or "Alias for :func:`nbgrad." in doc

    here = os.path.join(os.path.dirname(__file__), "api")
    elsewhere = set()  # (functions that a page of their own documents already)
    for page in os.listdir(here):
        if page.endswith(".rst") and page not in ("functions.rst", "tensor_methods.rst"):
            with open(os.path.join(here, page), encoding="utf-8") as f:
                elsewhere.update(re.findall(r"autofunction:: nbgrad\.(\w+)\s", f.read()))
    funcs = []
    for name in sorted(dir(nbgrad)):
        if name in elsewhere:
            continue
        obj = getattr(nbgrad, name, None)
        if name.startswith("_") or inspect.ismodule(obj) or not callable(obj) \
                or isinstance(obj, nbgrad.dtype) or inspect.isclass(obj):
            continue
        if (getattr(obj, "__module__", None) or "").startswith("nbgrad") and documented(obj):
            funcs.append(name)
    methods = [name for name in sorted(vars(nbgrad.Tensor)) if not name.startswith("_")
               and callable(getattr(nbgrad.Tensor, name)) and documented(
                   getattr(nbgrad.Tensor, name))]
    pages = {
        "functions.rst": (
            "Tensor operations (``nbgrad.*``)\n================================\n\n"
            ".. currentmodule:: nbgrad\n\nThe top-level functions, with PyTorch's names, "
            "arguments and defaults (``torch.X`` is ``nbgrad.X``), each with its whole "
            "docstring, whose example the test suite runs.\n\n"
            + "".join(f".. autofunction:: {n}\n\n" for n in funcs)),
        "tensor_methods.rst": (
            "Tensor methods\n==============\n\n.. currentmodule:: nbgrad\n\nThe methods of "
            ":class:`nbgrad.Tensor` that are also top-level functions refer to them "
            "(``Tensor.sin`` to :func:`nbgrad.sin`), as PyTorch's do; in-place forms end in "
            "``_``.\n\n.. autosummary::\n   :nosignatures:\n\n"
            + "".join(f"   Tensor.{n}\n" for n in methods)),
    }
    for fname, text in pages.items():
        path = os.path.join(here, fname)
        if not os.path.exists(path) or open(path, encoding="utf-8").read() != text:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)


_write_pages()

project = "nbgrad"
author = "the nbgrad authors"
copyright = "the nbgrad authors"  # noqa: A001
version = release = nbgrad.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.autosummary",
]

# Google style only; "Example::" stays a literal block of doctest lines (as PyTorch's)
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_rtype = False
autodoc_member_order = "bysource"
autodoc_typehints = "none"
# each name of the summary tables gets its own page (written to docs/api/generated/ at
# build time, not kept in git) with its whole docstring
autosummary_generate = True

exclude_patterns = ["_build"]
html_theme = "alabaster"
html_static_path = []


_SIGNATURE_LINE = None


def _literal_signature_line(app, what, name, obj, options, lines):
    """A docstring that starts with PyTorch's signature line (``zero_() -> Tensor``) shows
    it as code: as reStructuredText, ``zero_`` would be a link and ``*`` emphasis."""
    import re

    global _SIGNATURE_LINE
    if _SIGNATURE_LINE is None:
        _SIGNATURE_LINE = re.compile(r"^[A-Za-z_][\w.]*\(.*\)( -> .+)?$")
    if lines and _SIGNATURE_LINE.match(lines[0].strip()) and "``" not in lines[0]:
        lines[0] = f"``{lines[0].strip()}``"


def setup(app):
    app.connect("autodoc-process-docstring", _literal_signature_line)
