"""``nbgrad.compat`` and ``python -m nbgrad.run``: PyTorch programs run unchanged, with
``torch`` and its submodules served by nbgrad. Each case runs in a fresh process (the test
process may have imported the real PyTorch)."""

import os
import subprocess
import sys

import numpy as np
import pytest

SCRIPTS = os.path.join(os.path.dirname(__file__), "scripts")
MLP = os.path.join(SCRIPTS, "pytorch_mlp.py")
GPT = os.path.join(SCRIPTS, "pytorch_gpt.py")
CNN = os.path.join(SCRIPTS, "pytorch_mnist_cnn.py")
WORD_LM = os.path.join(SCRIPTS, "pytorch_word_lm.py")


def _run(args, cwd=None, env=None):
    return subprocess.run([sys.executable, *args], capture_output=True, text=True,
                          timeout=300, cwd=cwd, env=env)


def _losses(out):
    return [float(line.split()[-1]) for line in out.splitlines() if line.startswith("step ")]


def _has_torch():
    import importlib.util

    return importlib.util.find_spec("torch") is not None


@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
def test_a_pytorch_training_script_runs_unchanged(optimizer, tmp_path):
    r = _run(["-m", "nbgrad.run", MLP, "--steps", "15", "--optimizer", optimizer],
             cwd=tmp_path)  # (its helper module found beside the script, not in the cwd)
    assert r.returncode == 0, r.stderr
    losses = _losses(r.stdout)
    assert len(losses) == 15 and losses[-1] < losses[0]
    assert "tensor type ok: True" in r.stdout
    if _has_torch():  # the same script on PyTorch: the same losses
        t = _run([MLP, "--steps", "15", "--optimizer", optimizer], cwd=tmp_path)
        assert t.returncode == 0, t.stderr
        want = _losses(t.stdout)
        assert losses == pytest.approx(want, rel=1e-5, abs=1e-6)


def test_a_pytorch_gpt_script_trains_and_samples_unchanged(tmp_path):
    # nanoGPT's idioms: a tril buffer and masked_fill, scaled_dot_product_attention, AdamW
    # with a cosine schedule, GradScaler and autocast, clipping, top-k and multinomial
    r = _run(["-m", "nbgrad.run", GPT, "40"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    losses = _losses(r.stdout)
    assert len(losses) == 40 and np.mean(losses[-5:]) < 0.75 * np.mean(losses[:5])
    sample = r.stdout.strip().splitlines()[-1]
    assert sample.startswith("sample: '") and len(sample) == len("sample: ''") + 21
    if _has_torch():  # the same seed, so PyTorch's weights, batches and samples: its output
        t = _run([GPT, "40"], cwd=tmp_path)
        assert t.returncode == 0, t.stderr
        assert losses == pytest.approx(_losses(t.stdout), abs=2e-4)  # (printed to 4 places)
        assert sample == t.stdout.strip().splitlines()[-1]


# PyTorch's own examples (pytorch/examples: mnist, word_language_model) as their users
# write them: seeded, so PyTorch's weights, dropout masks and shuffles, and its losses
@pytest.mark.slow
@pytest.mark.parametrize("script,args", [
    (CNN, ["--save-model"]),  # Adadelta, StepLR, a DataLoader, torch.accelerator, save/load
    (WORD_LM, []),  # LSTM, detached hidden states, clip_grad_norm_, p.data.add_(p.grad)
], ids=["mnist_cnn", "word_lm_lstm"])
def test_pytorch_examples_run_unchanged(script, args, tmp_path):
    r = _run(["-m", "nbgrad.run", script, *args], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    losses = _losses(r.stdout)
    assert len(losses) >= 10 and losses[-1] < losses[0]
    if script == CNN:
        assert "Accuracy: 200/200" in r.stdout and "nbgrad.Size([10])" in r.stdout
    if _has_torch():
        t = _run([script, *args], cwd=tmp_path)
        assert t.returncode == 0, t.stderr
        # (printed to 6 places; lr 20 on float32 makes rounding grow over 50 steps)
        assert losses == pytest.approx(_losses(t.stdout), rel=1e-4, abs=1e-5)


def test_the_script_gets_its_arguments_main_name_and_exit_status(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text("import sys, torch\n"
                      "print(__name__, sys.argv[1:], type(torch.ones(1)).__module__)\n"
                      "sys.exit(int(sys.argv[1]))\n")
    r = _run(["-m", "nbgrad.run", str(script), "7", "--x"])
    assert r.returncode == 7
    assert r.stdout.split() == ["__main__", "['7',", "'--x']", "nbgrad.tensor"]
    bad = tmp_path / "bad.py"
    bad.write_text("import torch\nraise ValueError('from the script')\n")
    r = _run(["-m", "nbgrad.run", str(bad)])
    assert r.returncode == 1 and "ValueError: from the script" in r.stderr


def test_a_module_runs_with_dash_m(tmp_path):
    (tmp_path / "progmod.py").write_text(
        "import sys\nimport torch.nn as nn\nprint(nn.Linear(2, 3).weight.shape, sys.argv[1:])\n")
    r = _run(["-m", "nbgrad.run", "-m", "progmod", "a"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "nbgrad.Size([3, 2]) ['a']"


def test_usage_and_a_missing_script():
    r = _run(["-m", "nbgrad.run"])
    assert r.returncode == 2 and "usage: python -m nbgrad.run script.py" in r.stderr
    r = _run(["-m", "nbgrad.run", "--help"])
    assert r.returncode == 0 and "usage:" in r.stdout
    r = _run(["-m", "nbgrad.run", "no_such_script.py"])
    assert r.returncode == 2 and "can't open file 'no_such_script.py'" in r.stderr


_NAMES = """
import nbgrad, nbgrad.compat
nbgrad.compat.install()
nbgrad.compat.install()  # (a second call changes nothing)
import torch
import torch.nn.functional as F
from torch import nn, optim
from torch.nn import Linear, functional
import torch.nn.modules.linear as L
from torch.autograd import grad
assert torch.Tensor is nbgrad.Tensor and nn.Linear is L.Linear is Linear is nbgrad.nn.Linear
assert F.relu is nbgrad.nn.functional.relu and functional is F and optim.SGD is nbgrad.optim.SGD
assert torch.float32 is nbgrad.float32 and torch.__version__ == nbgrad.__version__
assert torch.cuda.is_available() is nbgrad.cuda.is_available()
assert not torch.backends.cudnn.is_available()
assert "Linear" in dir(nn) and not hasattr(torch, "no_such_api")
for get in (lambda: torch.no_such_api, lambda: nn.NoSuchLayer):
    try:
        get()
    except AttributeError as e:
        print(e)
for stmt in ("import torch.no_such_module", "from torch.nn import NoSuchLayer",
             "from torch.optim import no_such_module"):
    try:
        exec(stmt)
    except ModuleNotFoundError as e:
        print(e)
try:
    import torch.no_such_module
except ImportError:  # (a program's optional import still falls back)
    print("fell back")
nbgrad.compat.uninstall()
import sys
assert "torch" not in sys.modules and "torch.nn" not in sys.modules
print("ok")
"""


def test_torch_names_are_nbgrads_and_missing_ones_say_so():
    r = _run(["-c", _NAMES])
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [
        "torch.no_such_api is not supported by nbgrad yet",
        "torch.nn.NoSuchLayer is not supported by nbgrad yet",
        "torch.no_such_module is not supported by nbgrad yet",
        "torch.nn.NoSuchLayer is not supported by nbgrad yet",
        "torch.optim.no_such_module is not supported by nbgrad yet",
        "fell back",
        "ok",
    ]


@pytest.mark.skipif(not _has_torch(), reason="PyTorch not installed")
def test_install_refuses_once_the_real_pytorch_is_imported():
    r = _run(["-c", "import torch, nbgrad.compat\nnbgrad.compat.install()"])
    assert r.returncode == 1
    assert "RuntimeError: nbgrad.compat.install(): PyTorch is already imported" in r.stderr


def test_the_docstring_examples_run():
    code = ("import doctest, nbgrad.compat, nbgrad.run\n"
            "r = doctest.testmod(nbgrad.compat)\n"
            "assert r.attempted and not r.failed, r\nprint('ok')")
    r = _run(["-c", code])
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout + r.stderr
