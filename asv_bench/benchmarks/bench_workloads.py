"""The PERF.md workloads in nbgrad (compare.py times the same code against PyTorch).

Each class builds its inputs in ``setup`` and runs the workload once there, so the timed
calls never include Numba compiling a kernel (``bench_startup`` measures that).
"""

import os
import statistics
import time

import nbgrad

from .workloads import WORKLOADS, set_device

# every device present (the CUDA simulator is no place to time anything)
DEVICES = ["cpu"] + (
    ["cuda"] if os.environ.get("NUMBA_ENABLE_CUDASIM") != "1" and nbgrad.cuda.is_available() else []
)


class _Workload:
    workload = ""
    timeout = 300
    warmup_time = 0.2
    params = [DEVICES]
    param_names = ["device"]

    def setup(self, device):
        set_device(device)
        self.w = WORKLOADS[self.workload]
        self.state = self.w.build(nbgrad, self.w.inputs(0))
        self.w.run(nbgrad, self.state)  # first call: compiles the kernels it uses
        self.sync = nbgrad.cuda.synchronize if device == "cuda" else (lambda: None)

    def time_run(self, device):
        self.w.run(nbgrad, self.state)
        self.sync()


class MlpStep(_Workload):
    """784-256-128-10 ReLU MLP, batch 256: forward + cross-entropy + backward + SGD."""

    workload = "mlp_step"

    def peakmem_ten_steps(self, device):
        """Peak memory (RSS) of ten training steps after the first."""
        for _ in range(10):
            self.w.run(nbgrad, self.state)

class Elementwise(_Workload):
    """``(tanh(x*w+b)*sigmoid(x) + exp(-x*x)).sum()`` on 4M floats, forward + backward."""

    workload = "elementwise"
    number = 1
    repeat = (1, 5, 10.0)


class SmallOps(_Workload):
    """A 1,000-op chain (+c, *d, tanh) of 16-element tensors, then sum; forward + backward."""

    workload = "small_ops"

    def track_us_per_op(self, device):
        """Median over 9 whole chains (forward + backward) of the time per op."""
        times = []
        for _ in range(9):
            t0 = time.perf_counter()
            self.w.run(nbgrad, self.state)
            self.sync()
            times.append(time.perf_counter() - t0)
        return statistics.median(times) / self.w.n_ops * 1e6

    track_us_per_op.unit = "us/op"


class DeepChain(_Workload):
    """The same chain with 20,000 ops, then backward."""

    workload = "deep_chain"
    number = 1
    repeat = (1, 5, 10.0)


class Hvp(_Workload):
    """Hessian-vector product of ``sum(tanh(A@x)**2)``, A 512x512, by double backward."""

    workload = "hvp"


class MatmulBwd(_Workload):
    """``(A@B).sum().backward()`` with A, B 1024x1024 (3 GEMMs)."""

    workload = "matmul_bwd"
    number = 1
    repeat = (1, 10, 10.0)


class GptBlock(_Workload):
    """nanoGPT's training step (2 blocks, width 128, 4 heads, context 64, batch 8), AdamW."""

    workload = "gpt_block"


class CnnStep(_Workload):
    """The MNIST CNN of pytorch/examples (batch 64): conv, conv, pool, dropout, fc, Adadelta."""

    workload = "cnn_step"
    number = 1
    repeat = (1, 10, 10.0)


class VaeStep(_Workload):
    """The VAE of pytorch/examples (784-400-20, batch 128): BCE + KL, Adam."""

    workload = "vae_step"
