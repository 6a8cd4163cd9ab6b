"""Matrix products on cuBLAS, through nvmath-python's low-level bindings
(``nvmath.bindings.cublas``), on Numba's device arrays as they are: no copy, no wrapper.

The bindings take raw device pointers (``device_ctypes_pointer``), so any strided device
array whose matrices BLAS can address (one unit stride and a leading dimension) goes in
place. nbgrad's arrays are row-major; cuBLAS reads column-major. A row-major ``C = A @ B``
(``n x m``) read column-major is ``C^T = B^T @ A^T``, so the call passes ``B`` before ``A``:
a row-major operand ``X`` (``r x c``, element strides ``(s0, s1)``) is, read column-major,
``X^T`` with leading dimension ``s0`` when ``s1 == 1`` (no transpose), and ``X`` itself with
leading dimension ``s1`` when ``s0 == 1`` (a transposed view, such as ``linear``'s
``weight.T``: cuBLAS transposes it). A batch is one ``*_strided_batched`` call (a batch
stride of 0 for an operand broadcast over the batch). An operand BLAS cannot address (a
zero stride inside a matrix, from ``expand``) is copied to a contiguous array first.

One handle per device, created at the first product on it, bound to the legacy default
stream (stream 0), where nbgrad's kernels run, so products and kernels stay in order
without a synchronisation. Scalars (alpha 1, beta 0) are host values (cuBLAS's default
pointer mode). float32 products use full float32 arithmetic unless
``nbgrad.backends.cuda.matmul.allow_tf32`` is True (then cuBLAS may use TF32 tensor cores,
as PyTorch's flag allows).

``NBGRAD_CUDA_BLAS`` (``_config``): ``auto`` (default) uses cuBLAS when nvmath-python
and the cuBLAS library load, else nbgrad's own tiled kernel (``linalg.py``) with a warning
once; ``nbgrad`` always the tiled kernel; ``cublas`` raises when cuBLAS cannot be loaded.
Under the CUDA simulator there is no cuBLAS: the tiled kernel runs.
"""

import warnings

import numpy as np

from ... import _config
from .. import flags
from ._view import SIMULATOR

_MODE = _config.CUDA_BLAS

# cuBLAS's enum values (cublasOperation_t, cublasMath_t), as the C header fixes them
OP_N, OP_T = 0, 1
DEFAULT_MATH, TF32_TENSOR_OP_MATH = 0, 3

_state = {"lib": None, "why": None}
_handles = {}  # device id -> [handle, tf32 setting it has]
_ONE = {np.dtype(np.float32): np.ones(1, np.float32), np.dtype(np.float64): np.ones(1)}
_ZERO = {np.dtype(np.float32): np.zeros(1, np.float32), np.dtype(np.float64): np.zeros(1)}
_GEMM = {np.dtype(np.float32): ("sgemm", "sgemm_strided_batched"),
         np.dtype(np.float64): ("dgemm", "dgemm_strided_batched")}


def _load():
    """nvmath's cuBLAS bindings, or None with the reason in ``_state["why"]``."""
    if _state["lib"] is not None or _state["why"] is not None:
        return _state["lib"]
    if SIMULATOR:
        _state["why"] = "the CUDA simulator has no cuBLAS"
    elif _MODE == "nbgrad":
        _state["why"] = "NBGRAD_CUDA_BLAS=nbgrad"
    else:
        try:
            from nvmath.bindings import cublas as lib
        except ImportError as e:
            _state["why"] = f"nvmath-python is not installed ({e}); pip install 'nbgrad[cuda]'"
        else:
            _state["lib"] = lib
    if _state["lib"] is None and _MODE == "cublas" and not SIMULATOR:
        raise RuntimeError(f"NBGRAD_CUDA_BLAS=cublas, but cuBLAS cannot be used: "
                           f"{_state['why']}")
    return _state["lib"]


def _device_id():
    from numba import cuda

    return cuda.get_current_device().id


def _handle(lib):
    """This device's handle (made on first use), set to the current TF32 choice."""
    dev = _device_id()
    h = _handles.get(dev)
    if h is None:
        handle = lib.create()
        lib.set_stream(handle, 0)
        h = _handles[dev] = [handle, None]
    tf32 = flags.ALLOW_TF32[0]
    if h[1] != tf32:
        lib.set_math_mode(h[0], TF32_TENSOR_OP_MATH if tf32 else DEFAULT_MATH)
        h[1] = tf32
    return h[0]


def available():
    """Whether products go to cuBLAS (loads the bindings on first call)."""
    try:
        return _load() is not None
    except RuntimeError:
        return False


def unavailable_reason():
    """Why cuBLAS is not used (None when it is)."""
    available()
    return _state["why"]


def operand(shape, strides):
    """How cuBLAS reads a row-major matrix of ``shape`` ``(r, c)`` and element ``strides``
    as its column-major transpose: ``(op, ld)`` (``OP_N``: the buffer is the ``c x r``
    column-major transpose with leading dimension ``ld``; ``OP_T``: it is the ``r x c``
    matrix column-major, which cuBLAS transposes), or None when BLAS cannot address it (a
    zero or negative stride). The stride of a dimension of length 1 is never read."""
    r, c = shape
    s0, s1 = strides
    if r == 1 and c == 1:
        return OP_N, 1
    if r == 1:  # a row: unit stride is the N form, any other the T form of a column
        return (OP_N, c) if s1 == 1 else ((OP_T, s1) if s1 >= 1 else None)
    if c == 1:
        s1 = 1
    if s1 == 1 and s0 >= max(1, c):
        return OP_N, s0
    if s0 == 1 and s1 >= r:
        return OP_T, s1
    return None


def _ptr(arr):
    return arr.device_ctypes_pointer.value


def gemm(a, b, out, ptr=_ptr, compact=None):
    """``out[i] = a[i] @ b[i]`` on cuBLAS for float32 / float64 3-d device arrays ``a``
    ``(Ba, n, k)``, ``b`` ``(Bb, k, m)``, ``out`` ``(B, n, m)`` (``Ba``, ``Bb`` 1 or
    ``B``); ``out`` must have unit column stride. Returns False (nothing done) when cuBLAS
    is not used or the dtype is not float32 / float64. ``ptr`` and ``compact`` (a C-order
    copy of an array) are the device's; tests pass host stand-ins."""
    names = _GEMM.get(np.dtype(out.dtype))
    if names is None or a.dtype != out.dtype or b.dtype != out.dtype:
        return False
    lib = _load()
    if lib is None:
        _warn_fallback()
        return False
    B, n, m = out.shape
    k = a.shape[2]
    if not out.size:
        return True
    if k == 0:  # (an empty sum: the tiled kernel writes the zeros; no BLAS call needed)
        return False
    try:
        h = _handle(lib)
    except Exception as e:  # (the library did not load or start: whatever nvmath raised)
        if _MODE == "cublas":
            raise RuntimeError(f"NBGRAD_CUDA_BLAS=cublas, but cuBLAS did not start: {e}") from e
        _state["lib"], _state["why"] = None, f"cuBLAS did not start: {type(e).__name__}: {e}"
        _warn_fallback()
        return False
    if compact is None:
        compact = _compact
    it = out.dtype.itemsize
    so = [st // it for st in out.strides]
    oc = operand((n, m), so[1:])
    if oc is None or oc[0] != OP_N:
        raise ValueError("cuBLAS gemm: the output needs rows of unit stride")
    ldc = oc[1]
    ops = []
    for x, shape in ((b, (k, m)), (a, (n, k))):
        sx = [st // it for st in x.strides]
        o = operand(shape, sx[1:])
        if o is None or (x.shape[0] > 1 and sx[0] < 0):
            x = compact(x)
            sx = [st // it for st in x.strides]
            o = operand(shape, sx[1:])
        ops.append((x, o, sx[0] if x.shape[0] > 1 else 0))
    (bx, (opb, ldb), sb), (ax, (opa, lda), sa) = ops
    if max(m, n, k, lda, ldb, ldc) >= 2**31:  # (the 32-bit API's ints)
        return False
    one = _ONE[np.dtype(out.dtype)].ctypes.data
    zero = _ZERO[np.dtype(out.dtype)].ctypes.data
    if B == 1:
        getattr(lib, names[0])(h, opb, opa, m, n, k, one, ptr(bx), ldb, ptr(ax), lda, zero,
                               ptr(out), ldc)
    else:
        getattr(lib, names[1])(h, opb, opa, m, n, k, one, ptr(bx), ldb, sb, ptr(ax), lda, sa,
                               zero, ptr(out), ldc, so[0], B)
    return True


_COPY = []  # the target's strided copy (its elementwise loop over scalar.ident), made once


def _compact(x):
    """A C-contiguous device copy of 3-d ``x``."""
    from numba import cuda

    if not _COPY:
        from .. import scalar
        from .elementwise import UnaryKernel

        _COPY.append(UnaryKernel(scalar.ident))
    out = cuda.device_array(tuple(x.shape), x.dtype)
    if out.size:
        _COPY[0](x, out)
    return out


def _warn_fallback():
    """Once per process on a real GPU: float products run on the tiled kernel."""
    if not SIMULATOR and _MODE == "auto" and not _state.get("warned"):
        _state["warned"] = True
        warnings.warn(f"nbgrad: cuBLAS is not available ({_state['why']}); CUDA matrix "
                      "products run on nbgrad's own tiled kernel, several times slower",
                      RuntimeWarning, stacklevel=4)
