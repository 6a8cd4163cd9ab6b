"""The API reference (docs/) builds with Sphinx, every warning an error, and holds the
docstrings' argument sections."""

import importlib.util
import os
import pathlib
import subprocess
import sys

import pytest

DOCS = pathlib.Path(__file__).resolve().parent.parent / "docs"


@pytest.mark.skipif(importlib.util.find_spec("sphinx") is None,
                    reason="Sphinx is not installed (it is in the 'test' extra)")
def test_api_reference_builds(tmp_path):
    out = tmp_path / "html"
    env = dict(os.environ, NBGRAD_QUIET="1")
    proc = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
         "-d", str(tmp_path / "doctrees"), str(DOCS), str(out)],
        capture_output=True, text=True, env=env, timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    page = (out / "api" / "autograd.html").read_text(encoding="utf-8")
    # grad's Args section, rendered by napoleon as a parameter list
    for text in ("grad_outputs", "allow_unused", "materialize_grads", "is_grads_batched"):
        assert text in page, f"{text} missing from api/autograd.html"
    assert "Parameters" in page
    for name in ("tensor", "tensor_methods", "functions", "nn", "optim", "distributed",
                 "library", "compile", "utilities"):
        assert (out / "api" / f"{name}.html").is_file()
    # every top-level function on one page with its whole docstring; every layer,
    # functional op, optimizer and scheduler on a page of its own
    functions = (out / "api" / "functions.html").read_text(encoding="utf-8")
    for text in ('id="nbgrad.matmul"', 'id="nbgrad.sigmoid"', "Alias for"):
        assert text in functions, f"{text} missing from api/functions.html"
    conv = (out / "api" / "generated" / "nbgrad.nn.Conv2d.html").read_text(encoding="utf-8")
    assert "padding_mode" in conv and "Parameters" in conv
    assert "cast_inputs" in (out / "api" / "library.html").read_text(encoding="utf-8")
