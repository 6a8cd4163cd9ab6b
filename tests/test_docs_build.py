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
    for name in ("tensor", "nn", "optim", "library", "compile", "utilities"):
        assert (out / "api" / f"{name}.html").is_file()
    assert "cast_inputs" in (out / "api" / "library.html").read_text(encoding="utf-8")
