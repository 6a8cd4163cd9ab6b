"""Settings the CUDA kernels read at call time, set from the public flags
(``nbgrad.backends.cuda.matmul.allow_tf32``) without importing Numba's CUDA target."""

# float32 products may use TF32 tensor cores (cuBLAS's TF32 math mode)
ALLOW_TF32 = [False]
