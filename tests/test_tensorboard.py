"""nbgrad.utils.tensorboard.SummaryWriter writes the events PyTorch's writes for the same
calls (read back with TensorBoard's own loader, compared field by field)."""

import io
import os

import numpy as np
import pytest

import nbgrad

pytest.importorskip("tensorboard")
torch = pytest.importorskip("torch")
# (the loader that returns the events as written, not migrated to newer summary forms)
from tensorboard.backend.event_processing.event_file_loader import (  # noqa: E402
    LegacyEventFileLoader,
)

from nbgrad.utils.tensorboard import SummaryWriter  # noqa: E402

RNG = np.random.default_rng(0)
VALUES = RNG.standard_normal(1000) * 3
IMG = RNG.uniform(0, 1, (3, 5, 4))
BATCH = RNG.uniform(0, 1, (3, 1, 4, 4))


def _log(m, w):
    """The same calls with module ``m``'s tensors."""
    w.add_scalar("loss", m.tensor(0.25), 1)
    w.add_scalar("loss", 0.125, 2, walltime=5.0)
    w.add_scalar("acc", m.tensor([0.5]), 3, new_style=True)
    w.add_scalar("acc64", np.float64(0.1), 4, new_style=True, double_precision=True)
    w.add_histogram("w", m.tensor(VALUES), 0)
    w.add_histogram("w16", m.tensor(VALUES, dtype=m.float32), 1, bins=10)
    w.add_histogram("w_max", VALUES, 2, bins="auto", max_bins=7)
    w.add_image("img", m.tensor(IMG), 0)
    w.add_image("img_hwc", (IMG.transpose(1, 2, 0) * 255).astype(np.uint8), 1,
                dataformats="HWC")
    w.add_image("gray", m.tensor(IMG[0]), 2, dataformats="HW")
    w.add_images("batch", m.tensor(BATCH), 3)
    w.add_text("note", "**hello** world", 4)
    w.add_hparams({"lr": 0.1, "bs": 32, "opt": "adam", "flag": True},
                  {"hparam/loss": 0.5}, hparam_domain_discrete={"opt": ["adam", "sgd"]},
                  run_name="hp", global_step=7)


def _events(root):
    """Every event under ``root`` but the file-version header, by (run, step, tag)."""
    out = {}
    for d, _, files in os.walk(root):
        for f in files:
            for ev in LegacyEventFileLoader(os.path.join(d, f)).Load():
                if ev.HasField("file_version"):
                    continue
                run = os.path.relpath(d, root)
                for v in ev.summary.value:
                    out[(run, ev.step, v.tag)] = (ev, v)
                if ev.HasField("session_log"):
                    out[(run, ev.step, "session_log")] = (ev, ev.session_log)
    return out


def _pixels(v):
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(v.image.encoded_image_string)))


def test_events_match_pytorchs(tmp_path):
    from torch.utils.tensorboard import SummaryWriter as TorchWriter

    with SummaryWriter(str(tmp_path / "nb"), purge_step=3) as w:
        _log(nbgrad, w)
        w.add_scalars("run", {"a": 1.0, "b": nbgrad.tensor(2.0)}, 5)
        assert w.get_logdir() == str(tmp_path / "nb")
    with TorchWriter(str(tmp_path / "th"), purge_step=3) as w:
        _log(torch, w)
        w.add_scalars("run", {"a": 1.0, "b": torch.tensor(2.0)}, 5)
    ours, theirs = _events(tmp_path / "nb"), _events(tmp_path / "th")
    assert set(ours) == set(theirs) and len(ours) >= 18
    for key, (ev, v) in theirs.items():
        mev, mv = ours[key]
        assert mev.step == ev.step
        if key[2] == "loss" and key[1] == 2:
            assert mev.wall_time == ev.wall_time == 5.0
        if key[2] == "session_log":
            assert mv == v
        elif v.HasField("image"):
            assert (mv.image.height, mv.image.width, mv.image.colorspace) == (
                v.image.height, v.image.width, v.image.colorspace)
            np.testing.assert_array_equal(_pixels(mv), _pixels(v))
        elif v.HasField("histo"):
            np.testing.assert_allclose(list(mv.histo.bucket_limit), list(v.histo.bucket_limit),
                                       rtol=1e-12)
            assert list(mv.histo.bucket) == list(v.histo.bucket)
            for f in ("min", "max", "num", "sum", "sum_squares"):
                assert getattr(mv.histo, f) == pytest.approx(getattr(v.histo, f), rel=1e-12)
        else:  # scalars, text, hparams: the same protocol buffers
            assert mv == v, key


def test_reopens_after_close_and_refuses_what_it_lacks(tmp_path):
    w = SummaryWriter(str(tmp_path))
    w.add_scalar("x", 1.0, 0)
    w.close()
    w.add_scalar("x", 2.0, 1)  # a new file, as PyTorch's writer does
    w.flush()
    w.close()
    got = sorted((k[1], v.simple_value) for k, (_, v) in _events(tmp_path).items())
    assert got == [(0, 1.0), (1, 2.0)]
    with pytest.raises(NotImplementedError, match="add_graph is not supported by nbgrad"):
        w.add_graph(nbgrad.nn.Linear(2, 2), nbgrad.ones(1, 2))
    with pytest.raises(ValueError, match="scalar should be 0D"):
        w.add_scalar("bad", nbgrad.ones(2), 0)
    with pytest.raises(TypeError, match="dictionaries"):
        w.add_hparams([1], {})
    w.close()


def test_default_log_dir_and_the_torch_name(tmp_path, monkeypatch):
    import subprocess
    import sys

    monkeypatch.chdir(tmp_path)
    w = SummaryWriter(comment="_exp")
    assert w.get_logdir().startswith("runs" + os.sep) and w.get_logdir().endswith("_exp")
    w.close()
    # a PyTorch program's import reaches nbgrad's writer (in a process without torch)
    code = ("import nbgrad.compat; nbgrad.compat.install()\n"
            "from torch.utils.tensorboard import SummaryWriter\n"
            "print(SummaryWriter.__module__)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=300)
    assert r.stdout.strip() == "nbgrad.utils.tensorboard.writer", r.stderr


def test_the_docstring_example_runs():
    import doctest

    from nbgrad.utils.tensorboard import writer

    res = doctest.testmod(writer)
    assert res.attempted and not res.failed
