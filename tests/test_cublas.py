"""kernels/cuda/cublas.py: row-major products mapped onto cuBLAS's column-major gemm, checked
on the host. A stand-in for nvmath's bindings computes each call as cuBLAS defines it
(operands read column-major through their pointers, leading dimensions and batch strides),
with NumPy arrays in place of device arrays; so every layout nbgrad passes (transposed
views, sliced rows, broadcast batches, degenerate dims, operands BLAS cannot address) is
checked without a GPU. The real library runs in ``python -m nbgrad.testing.gpu_check``."""

import ctypes

import numpy as np
import pytest

from nbgrad.kernels.cuda import cublas

N, T = cublas.OP_N, cublas.OP_T


def _view(ptr, dt, op, rows, cols, ld):
    """op(M) (``rows x cols``) of the column-major matrix M stored at ``ptr``."""
    sr, sc = (rows, cols) if op == N else (cols, rows)
    assert ld >= max(1, sr), "cuBLAS requires ld >= max(1, rows)"
    it = np.dtype(dt).itemsize
    n = ld * (sc - 1) + sr
    buf = np.frombuffer((ctypes.c_char * (n * it)).from_address(ptr), dt)
    m = np.lib.stride_tricks.as_strided(buf, (sr, sc), (it, ld * it))
    return m if op == N else m.T


class FakeCublas:
    """gemm and strided-batched gemm with cuBLAS's argument order and meaning."""

    def __init__(self):
        self.calls = []
        self.mode = None

    def create(self):
        return 7

    def set_stream(self, handle, stream):
        assert handle == 7 and stream == 0

    def set_math_mode(self, handle, mode):
        self.mode = mode

    def _gemm(self, dt, name, h, ta, tb, m, n, k, alpha, a, lda, sa, b, ldb, sb, beta, c, ldc,
              sc, count):
        assert h == 7
        self.calls.append((name, ta, tb))
        it = np.dtype(dt).itemsize
        al = np.frombuffer((ctypes.c_char * it).from_address(alpha), dt)[0]
        be = np.frombuffer((ctypes.c_char * it).from_address(beta), dt)[0]
        assert al == 1 and be == 0
        for i in range(count):
            A = _view(a + i * sa * it, dt, ta, m, k, lda)
            B = _view(b + i * sb * it, dt, tb, k, n, ldb)
            C = _view(c + i * sc * it, dt, N, m, n, ldc)
            C[...] = A @ B  # (beta 0: C is not read)

    def sgemm(self, h, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc):
        self._gemm(np.float32, "sgemm", h, ta, tb, m, n, k, alpha, a, lda, 0, b, ldb, 0, beta,
                   c, ldc, 0, 1)

    def dgemm(self, h, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc):
        self._gemm(np.float64, "dgemm", h, ta, tb, m, n, k, alpha, a, lda, 0, b, ldb, 0, beta,
                   c, ldc, 0, 1)

    def sgemm_strided_batched(self, h, ta, tb, m, n, k, alpha, a, lda, sa, b, ldb, sb, beta,
                              c, ldc, sc, count):
        self._gemm(np.float32, "sgemm_strided_batched", h, ta, tb, m, n, k, alpha, a, lda, sa,
                   b, ldb, sb, beta, c, ldc, sc, count)

    def dgemm_strided_batched(self, h, ta, tb, m, n, k, alpha, a, lda, sa, b, ldb, sb, beta,
                              c, ldc, sc, count):
        self._gemm(np.float64, "dgemm_strided_batched", h, ta, tb, m, n, k, alpha, a, lda, sa,
                   b, ldb, sb, beta, c, ldc, sc, count)


@pytest.fixture
def fake(monkeypatch):
    lib = FakeCublas()
    monkeypatch.setitem(cublas._state, "lib", lib)
    monkeypatch.setitem(cublas._state, "why", None)
    monkeypatch.setattr(cublas, "_handles", {})
    monkeypatch.setattr(cublas, "_device_id", lambda: 0)
    return lib


def _gemm(a, b, copies):
    out = np.full((max(a.shape[0], b.shape[0]), a.shape[1], b.shape[2]), np.nan, a.dtype)

    def compact(x):
        copies.append(x.shape)
        return np.ascontiguousarray(x)

    assert cublas.gemm(a, b, out, ptr=lambda x: x.ctypes.data, compact=compact)
    return out


def _batch1(x):
    """A 2-d matrix as a batch of one, as linalg.matmul presents it (batch stride 0)."""
    return np.lib.stride_tricks.as_strided(x, (1,) + x.shape, (0,) + x.strides)


def _layouts(rng, B, r, c, dt):
    """(name, array (B, r, c), whether BLAS reads it in place) in the layouts products see."""
    base = rng.standard_normal((B, r, c)).astype(dt)
    wide = rng.standard_normal((B, r, c + 3)).astype(dt)
    tr = np.ascontiguousarray(base.transpose(0, 2, 1)).transpose(0, 2, 1)
    yield "contiguous", base, True
    yield "transposed", tr, True
    yield "sliced rows", wide[:, :, 1:c + 1], True
    yield "broadcast batch", _batch1(base[0]), True
    yield "a batch of one", base[:1], True  # (its batch stride is not 0: never read)
    if r > 1 and c > 1:
        yield "expanded", np.broadcast_to(base[:, :1, :], (B, r, c)), False
        yield "flipped", base[:, ::-1, :], False
        yield "column stride 2", rng.standard_normal((B, r, 2 * c)).astype(dt)[:, :, ::2], \
            False


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("B,n,k,m", [(1, 5, 4, 3), (3, 5, 4, 3), (1, 1, 4, 3), (2, 5, 1, 3),
                                     (1, 5, 4, 1), (2, 1, 1, 1), (1, 6, 7, 1)])
def test_gemm_maps_every_layout_onto_column_major_cublas(fake, dt, B, n, k, m):
    rng = np.random.default_rng(B * 100 + n * 10 + k + m)
    for na, a, a_ok in _layouts(rng, B, n, k, dt):
        for nb, b, b_ok in _layouts(rng, B, k, m, dt):
            copies = []
            got = _gemm(a, b, copies)
            want = np.matmul(a.astype(np.float64), b.astype(np.float64))
            tol = 1e-5 if dt == np.float32 else 1e-12
            np.testing.assert_allclose(got, want, rtol=tol, atol=tol, err_msg=f"{na} @ {nb}")
            # zero-copy for every operand BLAS can address
            assert len(copies) == (not a_ok) + (not b_ok), (na, nb, copies)
            name = ("s" if dt == np.float32 else "d") + "gemm"
            batched = max(a.shape[0], b.shape[0]) > 1
            assert fake.calls[-1][0] == name + ("_strided_batched" if batched else "")


def test_transposed_weight_is_read_transposed_not_copied(fake):
    # linear's x @ weight.T: the weight's buffer goes to cuBLAS as it is, with op T
    rng = np.random.default_rng(0)
    x = _batch1(rng.standard_normal((8, 5)).astype(np.float32))
    w = rng.standard_normal((3, 5)).astype(np.float32)
    copies = []
    got = _gemm(x, _batch1(w.T), copies)
    np.testing.assert_allclose(got[0], x[0] @ w.T, rtol=1e-6)
    assert copies == []
    # C^T = (w.T)^T-as-stored ... : B (w.T) is passed first, as column-major w: op T
    assert fake.calls == [("sgemm", T, N)]


def test_operand_forms():
    assert cublas.operand((3, 4), (4, 1)) == (N, 4)
    assert cublas.operand((3, 4), (6, 1)) == (N, 6)  # a slice of wider rows
    assert cublas.operand((3, 4), (1, 3)) == (T, 3)  # a transposed view
    assert cublas.operand((3, 4), (1, 5)) == (T, 5)
    assert cublas.operand((1, 4), (99, 1)) == (N, 4)  # a row: its row stride is never read
    assert cublas.operand((1, 4), (99, 3)) == (T, 3)
    assert cublas.operand((3, 1), (2, 77)) == (N, 2)  # a column
    assert cublas.operand((1, 1), (0, 0)) == (N, 1)
    assert cublas.operand((3, 4), (0, 1)) is None  # expanded rows
    assert cublas.operand((3, 4), (4, 2)) is None  # no unit stride
    assert cublas.operand((3, 4), (-4, 1)) is None  # flipped
    assert cublas.operand((3, 4), (2, 1)) is None  # overlapping rows


def test_tf32_flag_sets_the_math_mode(fake):
    import nbgrad

    rng = np.random.default_rng(1)
    a, b = (_batch1(rng.standard_normal((2, 2)).astype(np.float32)) for _ in range(2))
    _gemm(a, b, [])
    assert fake.mode == cublas.DEFAULT_MATH
    nbgrad.backends.cuda.matmul.allow_tf32 = True
    try:
        _gemm(a, b, [])
        assert fake.mode == cublas.TF32_TENSOR_OP_MATH
    finally:
        nbgrad.backends.cuda.matmul.allow_tf32 = False
    _gemm(a, b, [])
    assert fake.mode == cublas.DEFAULT_MATH


def test_an_empty_sum_is_left_to_the_tiled_kernel(fake):
    a, b = np.ones((1, 3, 0), np.float32), np.ones((1, 0, 2), np.float32)
    assert not cublas.gemm(a, b, np.empty((1, 3, 2), np.float32), ptr=None)
    assert fake.calls == []


def test_other_dtypes_and_no_library_fall_back(fake, monkeypatch):
    a = _batch1(np.ones((2, 2), np.int64))
    assert not cublas.gemm(a, a, np.empty((1, 2, 2), np.int64), ptr=None)
    h = _batch1(np.ones((2, 2), np.float16))
    assert not cublas.gemm(h, h, np.empty((1, 2, 2), np.float16), ptr=None)
    monkeypatch.setitem(cublas._state, "lib", None)
    monkeypatch.setitem(cublas._state, "why", "no library here")
    monkeypatch.setitem(cublas._state, "warned", True)
    f = _batch1(np.ones((2, 2), np.float32))
    assert not cublas.gemm(f, f, np.empty((1, 2, 2), np.float32), ptr=None)
    assert fake.calls == []


def test_without_nvmath_the_reason_says_how_to_install(monkeypatch):
    import sys

    monkeypatch.setitem(cublas._state, "lib", None)
    monkeypatch.setitem(cublas._state, "why", None)
    monkeypatch.setitem(sys.modules, "nvmath", None)  # (an import of it fails)
    monkeypatch.setitem(sys.modules, "nvmath.bindings", None)
    if cublas.SIMULATOR or cublas._MODE != "auto":
        pytest.skip("the reason differs under the simulator or NBGRAD_CUDA_BLAS")
    assert not cublas.available()
    assert "pip install 'nbgrad[cuda]'" in cublas.unavailable_reason()


def test_a_library_that_does_not_start_falls_back_once_with_the_reason(fake, monkeypatch):
    def broken():
        raise OSError("libcublas.so.13: cannot open shared object file")

    monkeypatch.setattr(fake, "create", broken)
    monkeypatch.setitem(cublas._state, "warned", False)
    monkeypatch.setattr(cublas, "SIMULATOR", False)
    monkeypatch.setattr(cublas, "_MODE", "auto")
    f = _batch1(np.ones((2, 2), np.float32))
    with pytest.warns(RuntimeWarning, match="cuBLAS did not start: OSError: libcublas"):
        assert not cublas.gemm(f, f, np.empty((1, 2, 2), np.float32), ptr=None)
    assert not cublas.available() and "libcublas" in cublas.unavailable_reason()
    monkeypatch.setattr(cublas, "_MODE", "cublas")
    monkeypatch.setitem(cublas._state, "lib", fake)
    with pytest.raises(RuntimeError, match="NBGRAD_CUDA_BLAS=cublas, but cuBLAS did not start"):
        cublas.gemm(f, f, np.empty((1, 2, 2), np.float32), ptr=None)
