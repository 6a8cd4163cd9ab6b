"""The docstrings of nbgrad's functions that are generated from op-table rows (the ``defop``
rows of ``ops/elementwise.py`` and ``ops/special_functions.py``), in the manner of PyTorch's
``torch/_torch_docs.py``: a generated function has no source of its own to hold its
docstring, so each is written here once, by hand, and attached when nbgrad is imported
(``_methods`` imports this package before it binds Tensor's methods, whose docstrings refer
to these). Argument descriptions shared by many functions are written once, in ``COMMON``,
and substituted for ``{input}``, ``{other}``... The examples are run by the doctest sweep
(tests/test_doctests.py) through the functions that hold them.

One module per concern: ``arithmetic`` (add, mul, div, pow, ...), ``math_ops`` (exp, log, the
trigonometric and special functions, rounding) and ``comparison`` (eq, lt, ...).
"""

import re

# argument descriptions shared by many docstrings (one line each: they are substituted into
# an ``Args:`` section, at its indentation)
COMMON = {
    "input": "input (Tensor): the input tensor.",
    "other": "other (Tensor or Number): the second operand, broadcast with ``input``.",
    "other_tensor": "other (Tensor): the second tensor, broadcast with ``input``.",
}

# a field is alone on its line: ``\text{input}`` in a formula is not one
_FIELD = re.compile(r"^([ \t]*)\{(\w+)\}[ \t]*$", re.M)


def add_docstr(fn, doc):
    """Give ``fn`` the docstring ``doc``, its ``{name}`` lines replaced by the shared
    descriptions of ``COMMON`` (other braces are left as they are)."""
    fn.__doc__ = _FIELD.sub(
        lambda m: m.group(1) + COMMON[m.group(2)] if m.group(2) in COMMON else m.group(0), doc)


from . import arithmetic, comparison, math_ops  # noqa: E402,F401  (each attaches its docstrings)
