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
autosummary_generate = False  # tables of one-line summaries; no stub pages

exclude_patterns = ["_build"]
html_theme = "alabaster"
html_static_path = []
