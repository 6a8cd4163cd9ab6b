"""Settings kernels read at call time, set by the public flags (such as
``nbgrad.backends.cuda.matmul.allow_tf32``) without importing a target's kernels."""

# float32 products may use TF32 tensor cores (cuBLAS's TF32 math mode)
ALLOW_TF32 = [False]
