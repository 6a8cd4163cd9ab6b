"""The notebooks in notebooks/ are stored with their outputs, so a code browser shows them:
each was run top to bottom in one kernel, none holds an error, a traceback or a path of the
machine that ran it, and those that plot hold their pictures. JSON only (CI runs the
notebooks themselves with ``pytest --nbmake notebooks``).

To refresh the outputs after editing a notebook, run it in place with the kernel cache in a
temporary folder and nbgrad's compile notice off, e.g.::

    NBGRAD_QUIET=1 NBGRAD_CACHE_DIR="$(mktemp -d)" \\
        jupyter nbconvert --to notebook --execute --inplace notebooks/NAME.ipynb
"""

import json
import pathlib

import pytest

NOTEBOOKS = sorted((pathlib.Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))
FORBIDDEN = ("/tmp/", "/work/", "/home/", "/root/", "Traceback")
MAX_BYTES = 300_000


def _text(x):
    return "".join(x) if isinstance(x, list) else (x or "")


def _code_cells(nb):
    return [c for c in nb["cells"] if c["cell_type"] == "code"]


def _output_texts(output):
    """Every piece of text an output shows: a stream's text, a result's or display's text
    and HTML forms, an error's name, value and traceback."""
    if output.get("output_type") == "stream":
        yield _text(output.get("text"))
    elif output.get("output_type") == "error":
        yield output.get("ename", "") + ": " + output.get("evalue", "")
        yield "\n".join(output.get("traceback", []))
    for mime, value in output.get("data", {}).items():
        if mime.startswith("text/"):
            yield _text(value)


def test_there_are_notebooks():
    assert len(NOTEBOOKS) >= 6, [p.name for p in NOTEBOOKS]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_outputs_are_stored(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    cells = [c for c in _code_cells(nb) if _text(c["source"]).strip()]
    assert cells, f"{path.name} has no code cells"
    counts = [c.get("execution_count") for c in cells]
    assert counts == list(range(1, len(cells) + 1)), (
        f"{path.name}: execution counts {counts}; run it top to bottom in a fresh kernel "
        "and store the outputs (see this file's docstring)")
    outputs = [o for c in cells for o in c.get("outputs", [])]
    assert outputs, f"{path.name} has no stored outputs"
    errors = [o.get("ename") for o in outputs if o.get("output_type") == "error"]
    assert not errors, f"{path.name} holds error outputs: {errors}"
    for i, c in enumerate(cells, 1):
        for o in c.get("outputs", []):
            for text in _output_texts(o):
                bad = [s for s in FORBIDDEN if s in text]
                assert not bad, f"{path.name}, code cell {i}: output contains {bad}: {text[:300]!r}"
    stderr = [_text(o.get("text")) for o in outputs
              if o.get("output_type") == "stream" and o.get("name") == "stderr"]
    assert not any("compiling kernels" in s for s in stderr), (
        f"{path.name}: stored with nbgrad's compile notice; run it with NBGRAD_QUIET=1")


def _plotting(path):
    cells = _code_cells(json.loads(path.read_text(encoding="utf-8")))
    return any("matplotlib" in _text(c["source"]) for c in cells)


PLOTTING = [p for p in NOTEBOOKS if _plotting(p)]


def test_some_notebooks_plot():
    assert len(PLOTTING) >= 2, [p.name for p in PLOTTING]  # (02 and 06 draw curves)


@pytest.mark.parametrize("path", PLOTTING, ids=lambda p: p.name)
def test_plots_are_stored(path):
    cells = _code_cells(json.loads(path.read_text(encoding="utf-8")))
    images = [o for c in cells for o in c.get("outputs", []) if "image/png" in o.get("data", {})]
    assert images, f"{path.name} imports matplotlib but holds no image/png output"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_size(path):
    assert path.stat().st_size < MAX_BYTES, (
        f"{path.name} is {path.stat().st_size} bytes: make its figures smaller")
