"""nbgrad.save / nbgrad.load: round trips, the documented format, and refusal of bad files."""

import errno
import io
import json
import math
import os
import pickle
import signal
import stat
import struct
import subprocess
import sys
import tracemalloc
import zipfile

import numpy as np
import pytest

import nbgrad
import nbgrad.nn as nn


def roundtrip(obj):
    buf = io.BytesIO()
    nbgrad.save(obj, buf)
    buf.seek(0)
    return nbgrad.load(buf)


def same(a, b):
    assert a.dtype == b.dtype and tuple(a.shape) == tuple(b.shape)
    assert np.array_equal(a.detach().numpy(), b.detach().numpy(), equal_nan=a.is_floating_point())


@pytest.mark.parametrize("t", [
    nbgrad.tensor([[1.5, -2.0], [math.inf, math.nan]]),
    nbgrad.tensor([1.0, 2.0], dtype=nbgrad.float64),
    nbgrad.tensor([[1, -(2**40)]], dtype=nbgrad.int64),
    nbgrad.tensor([3, -4], dtype=nbgrad.int32),
    nbgrad.tensor([True, False, True]),
    nbgrad.tensor(2.5),
    nbgrad.zeros(0, 3),
    nbgrad.arange(24.0).reshape(2, 3, 4).permute(2, 0, 1),  # non-contiguous
])
def test_tensor_roundtrip(t):
    r = roundtrip(t)
    same(r, t)
    assert r.is_contiguous() and r.device == t.device


def test_requires_grad_and_parameter_flags():
    p = nn.Parameter(nbgrad.ones(2))
    q = nbgrad.ones(2, requires_grad=True)
    r = roundtrip({"p": p, "q": q, "plain": nbgrad.ones(1)})
    assert isinstance(r["p"], nn.Parameter) and r["p"].requires_grad and r["p"].is_leaf
    assert r["q"].requires_grad and not isinstance(r["q"], nn.Parameter)
    assert not r["plain"].requires_grad


def test_nested_structures():
    t = nbgrad.randn(3)
    obj = {
        "a": [1, 2.0, -3.5e-300, 2**100, True, None, "s\u00e9", float("inf"), -math.inf],
        "nan": math.nan,
        7: (t, t, (nbgrad.zeros(1),)),  # int key; the same tensor twice
        (1, "x"): {"deep": [[{}], []]},
        None: nbgrad.Size([2, 3]),
        2.5: nbgrad.float64,
        False: nbgrad.device("cpu"),
        "np": [np.float32(1.5), np.int64(3), np.bool_(True)],
    }
    r = roundtrip(obj)
    assert list(r) == list(obj)
    assert r["a"][:7] == obj["a"][:7] and r["a"][7] == math.inf and r["a"][8] == -math.inf
    assert isinstance(r["a"][1], float) and isinstance(r["a"][3], int)
    assert math.isnan(r["nan"])
    assert isinstance(r[7], tuple) and r[7][0] is r[7][1] and isinstance(r[7][2], tuple)
    same(r[7][0], t)
    assert r[(1, "x")] == {"deep": [[{}], []]}
    assert r[None] == (2, 3)
    assert r[2.5] is nbgrad.float64 and r[False] == nbgrad.device("cpu")
    assert r["np"] == [1.5, 3, True]
    assert roundtrip(None) is None and roundtrip("x") == "x" and roundtrip([]) == []


def test_paths_and_file_objects(tmp_path):
    t = nbgrad.randn(4, 5)
    path = tmp_path / "t.nbg"
    nbgrad.save(t, path)  # pathlib
    same(nbgrad.load(path), t)
    nbgrad.save({"t": t}, str(path))  # str path, overwrite
    same(nbgrad.load(str(path))["t"], t)
    with open(path, "rb") as f:
        same(nbgrad.load(f)["t"], t)
    with pytest.raises(FileNotFoundError):
        nbgrad.load(tmp_path / "missing.nbg")


def test_deterministic_bytes():
    sd = nn.Linear(3, 2).state_dict()
    a, b = io.BytesIO(), io.BytesIO()
    nbgrad.save(sd, a)
    nbgrad.save(sd, b)
    assert a.getvalue() == b.getvalue()


def test_documented_format():
    t = nbgrad.tensor([[1.0, 2.0]], dtype=nbgrad.float64)
    buf = io.BytesIO()
    nbgrad.save({"w": t, "n": 3}, buf)
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as zf:
        assert sorted(zf.namelist()) == ["nbgrad.json", "tensors/0"]
        assert all(i.compress_type == zipfile.ZIP_STORED for i in zf.infolist())
        header = json.loads(zf.read("nbgrad.json"))
        assert header["format"] == "nbgrad" and header["version"] == 1
        assert header["tensors"] == [{"dtype": "float64", "shape": [1, 2], "device": "cpu",
                                      "requires_grad": False, "parameter": False,
                                      "data": "tensors/0"}]
        assert header["root"] == {"$dict": [["w", {"$tensor": 0}], ["n", 3]]}
        assert zf.read("tensors/0") == np.array([1.0, 2.0], dtype="<f8").tobytes()


def test_model_state_dict_roundtrip(tmp_path):
    nbgrad.manual_seed(0)
    m = nn.Sequential(nn.Linear(4, 8), nn.LayerNorm(8), nn.GELU(), nn.Linear(8, 3))
    path = tmp_path / "model.nbg"
    nbgrad.save(m.state_dict(), path)
    m2 = nn.Sequential(nn.Linear(4, 8), nn.LayerNorm(8), nn.GELU(), nn.Linear(8, 3))
    res = m2.load_state_dict(nbgrad.load(path))
    assert not res.missing_keys and not res.unexpected_keys
    x = nbgrad.randn(5, 4)
    assert np.array_equal(m(x).detach().numpy(), m2(x).detach().numpy())


@pytest.mark.parametrize("cls,kwargs", [(nbgrad.optim.Adam, dict(lr=0.05, amsgrad=True)),
                                        (nbgrad.optim.SGD, dict(lr=0.05, momentum=0.9))])
def test_optimizer_checkpoint_resume(tmp_path, cls, kwargs):
    nbgrad.manual_seed(1)
    x, y = nbgrad.randn(16, 3), nbgrad.randn(16, 1)

    def train(model, opt, steps):
        for _ in range(steps):
            opt.zero_grad()
            ((model(x) - y) ** 2).mean().backward()
            opt.step()

    ref = nn.Linear(3, 1)
    ref_opt = cls(ref.parameters(), **kwargs)
    m = nn.Linear(3, 1)
    m.load_state_dict(ref.state_dict())
    opt = cls(m.parameters(), **kwargs)
    train(ref, ref_opt, 5)
    train(m, opt, 2)
    path = tmp_path / "ckpt.nbg"
    nbgrad.save({"model": m.state_dict(), "optim": opt.state_dict(), "epoch": 2}, path)
    ck = nbgrad.load(path)
    assert ck["epoch"] == 2 and sorted(ck["optim"]["state"]) == [0, 1]
    m2 = nn.Linear(3, 1)
    m2.load_state_dict(ck["model"])
    opt2 = cls(m2.parameters(), lr=1.0)
    opt2.load_state_dict(ck["optim"])
    train(m2, opt2, 3)
    for a, b in zip(m2.parameters(), ref.parameters()):
        assert np.array_equal(a.detach().numpy(), b.detach().numpy())


def test_map_location():
    r = roundtrip(nbgrad.ones(2))
    buf = io.BytesIO()
    nbgrad.save(r, buf)
    buf.seek(0)
    assert nbgrad.load(buf, map_location="cpu").device == nbgrad.device("cpu")
    buf.seek(0)
    with pytest.raises(TypeError):
        nbgrad.load(buf, map_location=lambda s, loc: s)


def test_unsupported_objects():
    with pytest.raises(TypeError, match="state_dict"):
        nbgrad.save(nn.Linear(1, 1), io.BytesIO())
    with pytest.raises(TypeError, match="from_numpy"):
        nbgrad.save(np.zeros(2), io.BytesIO())
    with pytest.raises(TypeError):
        nbgrad.save({"f": lambda: 1}, io.BytesIO())
    with pytest.raises(TypeError):
        nbgrad.save({1, 2}, io.BytesIO())
    with pytest.raises(TypeError, match="dict keys"):
        nbgrad.save({nbgrad.ones(1): 1}, io.BytesIO())
    cyc = []
    cyc.append(cyc)
    with pytest.raises(ValueError, match="cycle"):
        nbgrad.save(cyc, io.BytesIO())


def test_pickle_round_trips_as_pytorch():
    """``pickle`` (multiprocessing, caches) keeps values, dtype, strides, requires_grad
    and the parameter mark, drops ``.grad`` and the history, as PyTorch's; modules and
    optimizers pickle as the Python objects they are."""
    torch = pytest.importorskip("torch")
    got = []
    for L in (nbgrad, torch):
        x = L.tensor([1.0, -2.0], requires_grad=True)
        x.grad = L.ones(2)
        y = pickle.loads(pickle.dumps(x))
        z = pickle.loads(pickle.dumps(x * 2))
        p = pickle.loads(pickle.dumps(L.nn.Parameter(L.ones(2))))
        t = pickle.loads(pickle.dumps(L.arange(6.0).reshape(3, 2).t()))
        a, b = pickle.loads(pickle.dumps((L.arange(3), L.tensor([True]))))
        h = pickle.loads(pickle.dumps(L.ones(2, dtype=L.bfloat16)))
        L.manual_seed(0)
        m = L.nn.Sequential(L.nn.Linear(2, 2), L.nn.ReLU())
        opt = L.optim.Adam(m.parameters())
        m(L.ones(2)).sum().backward()
        opt.step()
        m2, opt2 = pickle.loads(pickle.dumps((m, opt)))
        got.append([
            (y.tolist(), y.requires_grad, y.grad, y.is_leaf), (z.tolist(), z.is_leaf,
                                                               z.requires_grad),
            (p.requires_grad, repr(p).split("\n")[0]), (t.tolist(), t.stride()),
            (a.tolist(), str(a.dtype)[-5:], b.tolist(), str(h.dtype)[-8:]),
            (repr(m2), L.equal(m2[0].weight, m[0].weight),
             repr(m2[0].weight).split("\n")[0], opt2.state_dict()["state"][0]["step"].item(),
             opt2.state_dict()["state"][0]["exp_avg"].tolist()),
            (pickle.loads(pickle.dumps(L.Size([2, 3]))) == (2, 3),
             pickle.loads(pickle.dumps(L.float16)) is L.float16),
        ])
    assert got[0] == got[1]
    assert got[0][5][1]


# ----- refusing bad files --------------------------------------------------------------------
class _Evil:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.mkdir, (self.marker,))


def _zip(entries):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
    return buf.getvalue()


def _load_bytes(b):
    return nbgrad.load(io.BytesIO(b))


def test_pickle_payload_never_runs(tmp_path):
    marker = str(tmp_path / "pwned")
    payload = pickle.dumps({"w": _Evil(marker)})
    path = tmp_path / "evil.pt"
    path.write_bytes(payload)
    with pytest.raises(RuntimeError, match="not a valid nbgrad file.*pickle"):
        nbgrad.load(path)
    # the same payload inside a torch.save-style zip archive
    with pytest.raises(RuntimeError, match="pickle"):
        _load_bytes(_zip({"archive/data.pkl": payload, "archive/version": b"3"}))
    # ... and inside an nbgrad archive, as a "tensor" with a non-numeric dtype
    header = {"format": "nbgrad", "version": 1, "root": {"$tensor": 0},
              "tensors": [{"dtype": "object", "shape": [1], "data": "tensors/0"}]}
    with pytest.raises(RuntimeError, match="unsupported dtype"):
        _load_bytes(_zip({"nbgrad.json": json.dumps(header), "tensors/0": payload}))
    # ... and as an unknown tag in the header
    header = {"format": "nbgrad", "version": 1, "tensors": [],
              "root": {"$pickle": payload.hex()}}
    with pytest.raises(RuntimeError, match="unknown tag"):
        _load_bytes(_zip({"nbgrad.json": json.dumps(header)}))
    assert not os.path.exists(marker)


def test_torch_save_file_is_refused(tmp_path):
    torch = pytest.importorskip("torch")
    path = tmp_path / "t.pt"
    torch.save({"w": torch.ones(2)}, path)
    with pytest.raises(RuntimeError, match="torch.save/pickle"):
        nbgrad.load(path)


def _good_bytes():
    buf = io.BytesIO()
    nbgrad.save({"w": nbgrad.arange(100.0), "b": nbgrad.ones(3, dtype=nbgrad.int64)}, buf)
    return buf.getvalue()


def test_truncated_files():
    good = _good_bytes()
    assert _load_bytes(good)["w"].shape == (100,)
    for n in [0, 1, 3, 10, 100, len(good) // 2, len(good) - 30, len(good) - 1]:
        with pytest.raises(RuntimeError, match="not a valid nbgrad file"):
            _load_bytes(good[:n])


def test_corrupted_files():
    good = _good_bytes()
    # flip one byte inside the float data of tensor "w": the CRC check catches it
    i = good.index(np.array([50.0], dtype="<f4").tobytes())
    bad = bytearray(good)
    bad[i] ^= 0xFF
    with pytest.raises(RuntimeError, match="not a valid nbgrad file"):
        _load_bytes(bytes(bad))
    # flip a byte in the JSON header
    j = good.index(b'"format"')
    bad = bytearray(good)
    bad[j + 2] ^= 0x20
    with pytest.raises(RuntimeError, match="not a valid nbgrad file"):
        _load_bytes(bytes(bad))
    with pytest.raises(RuntimeError, match="not a valid nbgrad file"):
        _load_bytes(b"just some text, not an archive")


def _header(**over):
    h = {"format": "nbgrad", "version": 1, "root": {"$tensor": 0},
         "tensors": [{"dtype": "float32", "shape": [2], "data": "tensors/0"}]}
    h.update(over)
    return json.dumps(h)


@pytest.mark.parametrize("entries,match", [
    ({"nbgrad.json": _header(), "tensors/0": b"\0" * 4}, "expected 8"),
    ({"nbgrad.json": _header(), "tensors/0": b"\0" * 12}, "expected 8"),
    ({"nbgrad.json": _header()}, "missing data entry"),
    ({"nbgrad.json": _header(root={"$tensor": 3}), "tensors/0": b"\0" * 8}, "out of range"),
    ({"nbgrad.json": _header(version=99), "tensors/0": b"\0" * 8}, "newer"),
    ({"nbgrad.json": _header(format="other"), "tensors/0": b"\0" * 8}, "not an nbgrad header"),
    ({"nbgrad.json": b"{not json", "tensors/0": b"\0" * 8}, "unreadable header"),
    ({"nbgrad.json": _header(tensors=[{"dtype": "float32", "shape": [-1], "data": "tensors/0"}]),
      "tensors/0": b""}, "bad shape"),
    ({"nbgrad.json": _header(root={"$dict": [[[1], 2]]}), "tensors/0": b"\0" * 8}, "dict key"),
    ({"nbgrad.json": _header(root=float("nan")).replace("NaN", "NaN"), "tensors/0": b"\0" * 8},
     "JSON constant"),
    ({"other.txt": b"hello"}, "no nbgrad.json"),
])
def test_malformed_archives(entries, match):
    with pytest.raises(RuntimeError, match=match):
        _load_bytes(_zip(entries))


def test_compressed_entries_are_refused():
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("nbgrad.json", _header())
        zf.writestr("tensors/0", b"\0" * 8)
    with pytest.raises(RuntimeError, match="compressed"):
        _load_bytes(buf.getvalue())


# ----- device strings (from files and from users) ----------------------------------------------
_BAD_DEVICES = ["cuda:-7", "cuda: 1_0", "cuda:01", "cuda:1_0", "cuda:+1", "cuda:1 ", "cuda:",
                "cuda:0:1", " cpu", "cuda:\uff11", "cuda:0x1", "cuda:2147483648",
                "cuda:99999999999", "CUDA:0"]


@pytest.mark.parametrize("s", _BAD_DEVICES)
def test_bad_device_strings_match_torch(s):
    torch = pytest.importorskip("torch")
    with pytest.raises(Exception) as ref:
        torch.device(s)
    with pytest.raises(type(ref.value)) as got:
        nbgrad.device(s)
    assert str(got.value) == str(ref.value)
    with pytest.raises(type(ref.value), match="device"):
        nbgrad.ones(1).to(s)


@pytest.mark.parametrize("s", ["meta", "xpu:1", "mps"])
def test_pytorch_device_types_nbgrad_lacks_are_named_as_such(s):
    for make in (nbgrad.device, lambda s: nbgrad.ones(1, device=s), nbgrad.ones(1).to):
        with pytest.raises(RuntimeError, match=f"nbgrad has cpu and cuda devices only: '{s}' "
                                               "names a PyTorch device type it does not have"):
            make(s)


def test_device_index_argument_matches_torch():
    torch = pytest.importorskip("torch")
    for args in [("cuda", -7), ("cpu", -1), ("cuda", True), ("cuda", "1"), ("cuda", 1.0)]:
        with pytest.raises(Exception) as ref:
            torch.device(*args)
        with pytest.raises(type(ref.value)) as got:
            nbgrad.device(*args)
        assert str(got.value) == str(ref.value)
    with pytest.raises(RuntimeError, match="^Device index must not be negative$"):
        nbgrad.ones(1).to(-7)
    assert nbgrad.device("cuda", np.int64(2)) == nbgrad.device("cuda:2")
    assert nbgrad.device("cpu") != "cuda:-7"  # unequal, as torch, not an error
    for s in ["cpu", "cuda", "cuda:0", "cuda:12", "cpu:0", "cuda:2147483647"]:
        d, ref = nbgrad.device(s), torch.device(s)
        assert d.type == ref.type and (d.index == ref.index or ref.index is None)


def test_device_caches_stay_bounded():
    devmod = sys.modules["nbgrad.device"]  # nbgrad.device is the class; this is its module

    for i in range(500):
        assert devmod.as_device(f"cuda:{1000 + i}").index == 1000 + i
        assert nbgrad.device(f"cpu:{1000 + i}").index == 1000 + i
    assert len(devmod._cache) <= 64 and len(getattr(devmod, "_parsed", {})) <= 64


@pytest.mark.parametrize("s", ["cuda:-7", "cuda: 1_0", "cuda:01"])
def test_bad_device_strings_in_files(s):
    bad_meta = {"nbgrad.json": _header(tensors=[{"dtype": "float32", "shape": [2],
                                                 "device": s, "data": "tensors/0"}]),
                "tensors/0": b"\0" * 8}
    with pytest.raises(RuntimeError, match=f"not a valid nbgrad file.*Invalid device string: '{s}'"):
        _load_bytes(_zip(bad_meta))
    bad_value = {"nbgrad.json": _header(tensors=[], root={"$device": s})}
    with pytest.raises(RuntimeError, match=f"not a valid nbgrad file.*Invalid device string: '{s}'"):
        _load_bytes(_zip(bad_value))


# ----- saving never destroys the previous file ---------------------------------------------------
_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_OLD = {"w": nbgrad.arange(10.0), "step": 7}


def _assert_old_file_intact(folder, path):
    r = nbgrad.load(path)
    assert r["step"] == 7
    same(r["w"], _OLD["w"])
    assert sorted(os.listdir(folder)) == [os.path.basename(path)]  # no temporary left behind


def _run_child(tmp_path, code, path):
    script = tmp_path / "child.py"
    script.write_text(f"import sys\nsys.path.insert(0, {_ROOT!r})\nimport nbgrad\n{code}")
    env = dict(os.environ, PYTHONPATH=_ROOT)
    return subprocess.Popen([sys.executable, str(script), str(path)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, text=True)


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_save_killed_midway_keeps_old_file(tmp_path):
    folder = tmp_path / "ckpt"
    folder.mkdir()
    path = folder / "model.nbg"
    nbgrad.save(_OLD, path)
    # The child blocks inside its first write to the archive, so it is killed mid-save.
    child = _run_child(tmp_path, """
import time, zipfile
write = zipfile._ZipWriteFile.write
def blocking_write(self, data):
    write(self, data)
    self._fileobj.flush()
    print("writing", flush=True)
    time.sleep(120)
zipfile._ZipWriteFile.write = blocking_write
nbgrad.save({"w": nbgrad.ones(300_000), "step": 8}, sys.argv[1])
""", path)
    try:
        line = child.stdout.readline()
        assert line == "writing\n", child.stderr.read()
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.kill()
        child.wait()
    assert child.returncode == -signal.SIGKILL
    if not hasattr(os, "O_TMPFILE"):  # a killed process cannot remove a named temporary
        for name in os.listdir(folder):
            if name != "model.nbg":
                assert name.startswith(".model.nbg.") and name.endswith(".tmp")
                os.unlink(folder / name)
    _assert_old_file_intact(folder, path)


@pytest.mark.skipif(not hasattr(signal, "SIGXFSZ"), reason="needs RLIMIT_FSIZE")
def test_save_over_file_size_limit_keeps_old_file(tmp_path):
    folder = tmp_path / "ckpt"
    folder.mkdir()
    path = folder / "model.nbg"
    nbgrad.save(_OLD, path)
    # a real write error from the OS: the file-size limit stops the write with EFBIG
    child = _run_child(tmp_path, """
import resource, signal
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (50_000, 50_000))
try:
    nbgrad.save({"w": nbgrad.ones(300_000), "step": 8}, sys.argv[1])
except OSError as e:
    print("OSError", e.errno)
""", path)
    out, err = child.communicate(timeout=120)
    assert out == f"OSError {errno.EFBIG}\n", err
    _assert_old_file_intact(folder, path)


@pytest.mark.parametrize("tmpfile", [True, False])
def test_save_failing_with_oserror_keeps_old_file(tmp_path, monkeypatch, tmpfile):
    if not tmpfile:  # the named temporary used where O_TMPFILE is missing
        monkeypatch.delattr(os, "O_TMPFILE", raising=False)
    path = tmp_path / "model.nbg"
    nbgrad.save(_OLD, path)
    calls = []
    write = zipfile._ZipWriteFile.write

    def full_disk(self, data):
        calls.append(len(data))
        if len(calls) == 2:  # the header went through; the disk fills during the tensor
            raise OSError(errno.ENOSPC, "No space left on device")
        return write(self, data)

    monkeypatch.setattr(zipfile._ZipWriteFile, "write", full_disk)
    with pytest.raises(OSError, match="No space left"):
        nbgrad.save({"w": nbgrad.ones(1000), "step": 8}, path)
    assert len(calls) == 2
    monkeypatch.undo()
    _assert_old_file_intact(tmp_path, path)
    # a failure before anything is written (an unsavable object) touches nothing either
    with pytest.raises(TypeError):
        nbgrad.save({"w": object()}, path)
    _assert_old_file_intact(tmp_path, path)


def test_save_permissions_like_open(tmp_path, monkeypatch):
    new = tmp_path / "new.nbg"
    old_umask = os.umask(0o027)
    try:
        nbgrad.save(_OLD, new)
        with open(tmp_path / "plain", "wb"):
            pass
    finally:
        os.umask(old_umask)
    assert stat.S_IMODE(os.stat(new).st_mode) == stat.S_IMODE(os.stat(tmp_path / "plain").st_mode)
    assert stat.S_IMODE(os.stat(new).st_mode) == 0o640
    os.chmod(new, 0o604)  # overwriting keeps an existing file's mode, as open() does
    nbgrad.save(_OLD, new)
    assert stat.S_IMODE(os.stat(new).st_mode) == 0o604
    # a file open() could not write is not replaced either (os.access is faked, since root
    # may write anything)
    os.chmod(new, 0o444)
    with monkeypatch.context() as m:
        m.setattr(os, "access", lambda p, mode: False)
        with pytest.raises(PermissionError, match="Permission denied"):
            nbgrad.save({"w": nbgrad.zeros(2), "step": 8}, new)
    assert nbgrad.load(new)["step"] == 7 and sorted(os.listdir(tmp_path)) == ["new.nbg", "plain"]
    os.chmod(new, 0o604)
    # through a symlink the target is replaced and the link kept, as open() writes through it
    link = tmp_path / "link.nbg"
    os.symlink(new, link)
    nbgrad.save({"w": nbgrad.zeros(2), "step": 9}, link)
    assert os.path.islink(link) and nbgrad.load(new)["step"] == 9
    assert sorted(os.listdir(tmp_path)) == ["link.nbg", "new.nbg", "plain"]


def test_save_to_file_object_writes_in_place(tmp_path):
    path = tmp_path / "f.nbg"
    with open(path, "wb") as fh:
        fh.write(b"prefix")
        nbgrad.save(_OLD, fh)
    data = path.read_bytes()
    assert data.startswith(b"prefix")
    r = nbgrad.load(io.BytesIO(data[6:]))
    assert r["step"] == 7 and sorted(os.listdir(tmp_path)) == ["f.nbg"]


# ----- crafted files cost memory and time in proportion to their size ---------------------------
def _peak_load(data):
    """Load ``data``, expecting a RuntimeError; returns (the error, peak traced bytes)."""
    buf = io.BytesIO(data)
    tracemalloc.start()
    try:
        with pytest.raises(RuntimeError) as e:
            nbgrad.load(buf)
        return e.value, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_many_tensors_naming_one_data_entry():
    one = 1 << 18
    metas = [{"dtype": "float32", "shape": [one // 4], "data": "tensors/0"}] * 200
    header = {"format": "nbgrad", "version": 1, "tensors": metas,
              "root": [{"$tensor": i} for i in range(200)]}
    data = _zip({"nbgrad.json": json.dumps(header), "tensors/0": b"\0" * one})
    err, peak = _peak_load(data)
    assert "tensor 1: data entry 'tensors/0' is already used by tensor 0" in str(err)
    assert peak < one  # refused before any tensor is allocated (200 would take 50 MiB)


def test_overlapping_entries_declaring_more_than_the_file():
    """Distinct names whose directory records all point at one stored block."""
    one = 1 << 18
    metas = [{"dtype": "float32", "shape": [one // 4],
              "data": f"tensors/{i}"} for i in range(8)]
    header = {"format": "nbgrad", "version": 1, "tensors": metas, "root": None}
    data = _zip({"nbgrad.json": json.dumps(header), "tensors/0": b"\0" * one})
    cd = data.rindex(b"PK\x01\x02")  # tensors/0's central directory record, the last one
    eocd = data.rindex(b"PK\x05\x06")
    record = data[cd:eocd]
    extra = b"".join(record.replace(b"tensors/0", f"tensors/{i}".encode()) for i in range(1, 8))
    n, cd_size, cd_off = struct.unpack("<HII", data[eocd + 10:eocd + 20])
    tail = data[eocd:eocd + 8] + struct.pack("<HHII", n + 7, n + 7, cd_size + len(extra),
                                             cd_off) + data[eocd + 20:]
    crafted = data[:eocd] + extra + tail
    assert len(zipfile.ZipFile(io.BytesIO(crafted)).namelist()) == 9
    err, peak = _peak_load(crafted)
    assert f"the tensors declare {8 * one} bytes in a file of {len(crafted)}" in str(err)
    assert peak < one


def test_declared_sizes_larger_than_the_data():
    # the shape says 40 GB; the entry holds 8 bytes
    h = _header(tensors=[{"dtype": "float32", "shape": [10**5, 10**5], "data": "tensors/0"}])
    err, peak = _peak_load(_zip({"nbgrad.json": h, "tensors/0": b"\0" * 8}))
    assert "holds 8 bytes, expected 40000000000" in str(err) and peak < 1 << 20
    # the entry's directory record also says 40 GB, more than the file holds
    data = _zip({"nbgrad.json": h, "tensors/0": b"\0" * 8})
    cd = data.rindex(b"PK\x01\x02")
    fake = struct.pack("<II", 40 * 10**8 % 2**32, 40 * 10**8 % 2**32)
    crafted = data[:cd + 20] + fake + data[cd + 28:]
    err, peak = _peak_load(crafted)
    assert "not a valid nbgrad file" in str(err) and peak < 1 << 20


def test_colliding_dict_keys_are_refused():
    # ints k * (2**61 - 1) all hash to 0: building a dict of n of them costs O(n**2)
    keys = [k * (2**61 - 1) for k in range(1, 3001)]
    h = _header(tensors=[], root={"$dict": [[k, 0] for k in keys]})
    with pytest.raises(RuntimeError, match="more than 64 keys of one dict share a hash value"):
        _load_bytes(_zip({"nbgrad.json": h}))
    # ordinary int keys (and -1/-2, which share a hash) load
    d = {i: i for i in range(-5, 5000)}
    assert roundtrip(d) == d


def test_nesting_depth_is_bounded():
    deep = []
    for _ in range(150):
        deep = [deep]
    with pytest.raises(ValueError, match="more than 100 deep"):
        nbgrad.save(deep, io.BytesIO())
    ok = []
    for _ in range(99):
        ok = [ok]
    assert roundtrip(ok) == ok
    for depth in [150, 100_000]:
        h = _header(tensors=[]).replace('"root": {"$tensor": 0}',
                                        '"root": ' + "[" * depth + "]" * depth)
        with pytest.raises(RuntimeError, match="nested more than 100 deep|unreadable header"):
            _load_bytes(_zip({"nbgrad.json": h}))


def test_header_size_and_ndim_are_bounded(monkeypatch):
    s = sys.modules["nbgrad.serialization"]
    monkeypatch.setattr(s, "MAX_HEADER_BYTES", 1000)
    with pytest.raises(ValueError, match="more than the 1000 nbgrad.load accepts"):
        nbgrad.save(list(range(1000)), io.BytesIO())
    h = _header(tensors=[], root=list(range(1000)))
    with pytest.raises(RuntimeError, match="the header is larger than 1000 bytes"):
        _load_bytes(_zip({"nbgrad.json": h}))
    monkeypatch.undo()
    h = _header(tensors=[{"dtype": "float32", "shape": [1] * 65, "data": "tensors/0"}])
    with pytest.raises(RuntimeError, match=r"tensor 0: bad shape \(a list of 65\)"):
        _load_bytes(_zip({"nbgrad.json": h, "tensors/0": b"\0" * 4}))


def test_depth_limit_is_the_same_for_save_and_load():
    t = nbgrad.ones(1)
    obj = t
    for i in range(100):  # 100 containers deep, a tensor innermost: the most save accepts
        obj = [obj] if i % 3 == 0 else ((obj,) if i % 3 == 1 else {"k": obj})
    r = roundtrip(obj)
    for i in reversed(range(100)):
        r = r[0] if i % 3 != 2 else r["k"]
    same(r, t)
    key = 0
    for _ in range(99):  # a dict (1) whose key is a tuple nested 99 deep
        key = (key,)
    assert list(roundtrip({key: 1})) == [key]
    with pytest.raises(ValueError, match="more than 100 deep"):
        nbgrad.save({(key,): 1}, io.BytesIO())
    with pytest.raises(ValueError, match="more than 100 deep"):
        nbgrad.save([obj], io.BytesIO())
