"""The shipped examples and the ``python -m nbgrad`` command line run end to end."""

import os
import re
import subprocess
import sys

import numpy as np
import pytest

import nbgrad

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _floats(line):
    return [float(v) for v in re.findall(r"-?\d+\.\d+(?:e[-+]\d+)?", line)]


def test_quickstart_prints_the_tour(capsys):
    from nbgrad.examples import quickstart

    assert quickstart.main() is None
    out = capsys.readouterr().out
    lines = out.splitlines()
    headers = [ln for ln in lines if re.match(r"^\d\. ", ln)]
    assert [h[:2] for h in headers] == ["1.", "2.", "3.", "4.", "5.", "6."]
    assert "1. backward() accumulates into the leaves' .grad" in lines
    assert "6. no_grad() builds no graph" in lines
    x, w = np.array([1.0, 2.0, 3.0]), np.array([0.5, -1.0, 2.0])

    def line(prefix):
        (ln,) = [ln for ln in lines if ln.strip().startswith(prefix)]
        return ln

    # 1. d/dx sum(tanh(x*w) + x^2) = w (1 - tanh^2) + 2x, printed to 4 decimals
    dydx = w * (1 - np.tanh(x * w) ** 2) + 2 * x
    np.testing.assert_allclose(_floats(line("dy/dx = tensor([2.")), dydx, atol=6e-5)
    # 2. grad() gives w and leaves .grad as it was
    ln = line("dy/dx = tensor([ 0.5")
    assert "x.grad still" in ln
    np.testing.assert_allclose(_floats(ln)[:3], w)
    np.testing.assert_allclose(_floats(ln)[3:], dydx, atol=6e-5)
    # 3. two accumulated passes of d/dx sum(exp(x) w)
    np.testing.assert_allclose(_floats(line("twice-accumulated")), 2 * np.exp(x) * w, rtol=1e-4)
    assert "a third time without retain_graph: Trying to backward through the graph a second time" in out
    # 4. x^3 at 2: 12, 12, 6
    assert "   first 12.0, second 12.0, third 6.0" in lines
    # 5. vector-Jacobian product of 2x
    np.testing.assert_allclose(_floats(line("x.grad =")), [2.0, 0.2, 0.02])
    assert "   requires_grad inside no_grad: False" in lines


@pytest.mark.slow
def test_digits_trains_and_writes_artifacts(tmp_path, capsys, monkeypatch):
    pytest.importorskip("sklearn")
    pytest.importorskip("matplotlib")
    pytest.importorskip("tqdm")
    from nbgrad.examples import digits

    titles, real = [], digits.save_plot
    monkeypatch.setattr(digits, "save_plot",
                        lambda *a: (titles.append(a[3]), real(*a)))
    acc = digits.main(["--epochs", "1", "--out", str(tmp_path), "--no-progress"])
    assert titles == ["nbgrad: MLP on scikit-learn digits, 1 epoch"]  # names the model
    assert isinstance(acc, float) and 0.5 < acc <= 1.0
    ckpt, png = tmp_path / "digits_mlp.nbg", tmp_path / "digits_mlp.png"
    assert ckpt.is_file() and png.is_file()
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    out = capsys.readouterr().out
    assert re.search(r"epoch  1/1  loss \d+\.\d{4}  test accuracy \d+\.\d{2}%", out)
    assert f"test accuracy: {acc * 100:.2f}% (mlp, 1 epochs" in out
    assert f"wrote {ckpt}" in out and f"wrote {png}" in out
    state = nbgrad.load(str(ckpt))
    assert isinstance(state, dict) and {"model", "optimizer", "epochs"} <= set(state)
    assert state["epochs"] == 1
    model = digits.MLP()
    model.load_state_dict(state["model"])
    assert set(state["model"]) == set(model.state_dict())
    assert state["model"]["net.0.weight"].shape == (128, 64)
    # the reloaded model gives the reported accuracy
    _, _, xte, yte = digits.load_data(0)
    assert digits.evaluate(model, xte, yte, "cpu") == pytest.approx(acc)


@pytest.mark.slow
def test_digits_trains_compiled_to_the_same_accuracy(tmp_path, capsys):
    pytest.importorskip("sklearn")
    pytest.importorskip("matplotlib")
    pytest.importorskip("tqdm")
    from nbgrad.examples import digits

    args = ["--epochs", "2", "--out", str(tmp_path), "--no-progress"]
    eager = digits.main(args)
    compiled = digits.main(args + ["--compile"])
    # (equal here; a fused region may round differently in the last bits on another CPU)
    assert compiled == pytest.approx(eager, abs=0.006)  # at most 2 of 359 test digits
    out = capsys.readouterr().out
    assert f"test accuracy: {compiled * 100:.2f}% (mlp, compiled, 2 epochs" in out


@pytest.mark.slow
def test_warmup_command_line():
    # every workload at the small size: its kernels compile and its steps give finite losses
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run([sys.executable, "-m", "nbgrad", "warmup", "--serial-only", "--dtype",
                        "float32"], capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)
    assert r.returncode == 0, r.stderr
    assert re.search(r"warmed float32 in \d+\.\d s", r.stdout)
    assert "float64" not in r.stdout
    assert "[########################] 5/5 float32 done" in r.stderr  # the progress bar


AFTER_WARMUP = """
import nbgrad
from nbgrad import _warmup
nbgrad.manual_seed(0)
for big in (False, True):
    _warmup._mlp(nbgrad, nbgrad.float32, big)
"""


@pytest.mark.slow
def test_warmup_at_the_parallel_size_leaves_nothing_to_compile(tmp_path):
    # warmup's parallel size really takes the parallel variants (the old warmup crashed
    # there), and a later process running the workload loads every kernel from the cache:
    # the first-compile line would say otherwise
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               NBGRAD_CACHE_DIR=str(tmp_path / "cache"))
    for k in ("NBGRAD_QUIET", "NBGRAD_CACHE", "NBGRAD_TIER_UP"):
        env.pop(k, None)
    r = subprocess.run([sys.executable, "-m", "nbgrad", "warmup", "--dtype", "float32",
                        "--workload", "mlp"], capture_output=True, text=True, env=env,
                       cwd=ROOT, timeout=600)
    assert r.returncode == 0, r.stderr
    assert "2/2 float32 done" in r.stderr and "compiling" not in r.stderr
    later = subprocess.run([sys.executable, "-c", AFTER_WARMUP], capture_output=True, text=True,
                           env=dict(env, NBGRAD_TIER_UP="0"), cwd=ROOT, timeout=600)
    assert later.returncode == 0, later.stderr
    assert "nbgrad: compiling" not in later.stderr


def test_warmup_refuses_an_unknown_workload():
    from nbgrad.__main__ import warmup

    with pytest.raises(ValueError, match=r"unknown warmup workload\(s\) \['resnet'\]"):
        warmup(("float32",), workloads=["resnet"], verbose=False)


def test_digits_help_names_the_command_as_run(capsys):
    from nbgrad.examples import digits

    with pytest.raises(SystemExit) as e:
        digits.main(["--help"])
    assert e.value.code == 0
    assert capsys.readouterr().out.startswith("usage: python -m nbgrad.examples.digits ")


def test_command_line_usage_errors():
    from nbgrad.__main__ import main

    with pytest.raises(SystemExit) as e:
        main([])
    assert e.value.code == 2
    with pytest.raises(SystemExit) as e:
        main(["warmup", "--dtype", "float16"])
    assert e.value.code == 2
    with pytest.raises(SystemExit) as e:
        main(["cache", "purge"])
    assert e.value.code == 2
