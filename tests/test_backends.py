"""nbgrad.backends: PyTorch's flags module (torch.backends), the subset true of nbgrad."""

import subprocess
import sys

import numba
import pytest

import nbgrad
import nbgrad.backends.cudnn as cudnn


@pytest.mark.parametrize("features,expected", [
    ("+avx512f,+avx2,+fma", "AVX512"),
    ("+avx2,-avx512f,+fma", "AVX2"),
    ("-avx2,-avx512f,+sse4.2", "DEFAULT"),
    ("", "DEFAULT"),
])
def test_cpu_capability_follows_the_features_numba_compiles_for(monkeypatch, features, expected):
    monkeypatch.setattr(numba.config, "CPU_FEATURES", features)
    assert nbgrad.backends.cpu.get_cpu_capability() == expected


def test_cpu_capability_of_this_host():
    cap = nbgrad.backends.cpu.get_cpu_capability()
    assert cap in ("AVX512", "AVX2", "DEFAULT")
    from numba.core.codegen import get_host_cpu_features

    host = get_host_cpu_features().split(",")
    if numba.config.CPU_FEATURES is None and numba.config.CPU_NAME is None:
        assert (cap == "AVX512") == ("+avx512f" in host)
        assert (cap == "AVX2") == ("+avx2" in host and "+avx512f" not in host)


def test_flags_modules_import_no_numba_cuda():
    code = (
        "import sys, nbgrad\n"
        "b = nbgrad.backends\n"
        "assert b.cuda.is_built() is True\n"
        "b.cuda.matmul.allow_tf32 = True\n"
        "b.cpu.get_cpu_capability(); b.openmp.is_available(); b.cudnn.is_available()\n"
        "print('numba.cuda' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_matmul_allow_tf32_flag():
    m = nbgrad.backends.cuda.matmul
    assert m.allow_tf32 is False  # PyTorch's default
    try:
        m.allow_tf32 = True
        assert m.allow_tf32 is True
        m.allow_tf32 = False
        assert m.allow_tf32 is False
    finally:
        m.allow_tf32 = False


@pytest.mark.parametrize("lib", ["nbgrad", "torch"])
def test_matmul_flags_errors_as_torch(lib):
    mod = pytest.importorskip(lib)
    m = mod.backends.cuda.matmul
    with pytest.raises(AttributeError, match="^Unknown attribute allow_tf23$"):
        m.allow_tf23
    with pytest.raises(AttributeError, match="^Unknown attribute allow_tf23$"):
        m.allow_tf23 = True
    with pytest.raises(RuntimeError, match="set_allow_tf32_cublas expects a bool, but got int"):
        m.allow_tf32 = 1
    assert m.allow_tf32 is False


def test_cudnn_is_not_used_and_its_flags_keep_torch_defaults():
    torch = pytest.importorskip("torch")
    assert cudnn.is_available() is False
    assert cudnn.version() is None
    for flag in ("enabled", "benchmark", "deterministic", "allow_tf32"):
        assert getattr(cudnn, flag) == getattr(torch.backends.cudnn, flag), flag
    cudnn.benchmark = True  # what training scripts write; accepted, changes nothing
    try:
        assert nbgrad.backends.cudnn.benchmark is True
        x = nbgrad.ones(2, 3)
        assert (x @ x.t()).tolist() == [[3.0, 3.0], [3.0, 3.0]]
    finally:
        cudnn.benchmark = False


def test_backends_nbgrad_does_not_have():
    b = nbgrad.backends
    assert b.mkldnn.is_available() is False
    assert b.mps.is_available() is False
    assert b.mps.is_built() is False
    assert isinstance(b.openmp.is_available(), bool)
    assert sorted(b.__all__) == ["cpu", "cuda", "cudnn", "mkldnn", "mps", "openmp"]
