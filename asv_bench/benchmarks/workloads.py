"""The PERF.md workloads, written once against the torch-style API.

Every function takes the library module (``nbgrad`` or ``torch``) as ``lib`` and runs the
same code with either, so ``compare.py`` can time both on the same float32 inputs and
check that they compute the same numbers. The asv benchmarks use the same code with
``lib = nbgrad``.

A workload is a class with:

- ``inputs(seed)``: a dict of float32 NumPy arrays (fixed seed), made once and handed to
  both libraries;
- ``build(lib, arrays)``: a state dict of tensors (leaves that need grad marked);
- ``run(lib, state)``: the timed body (forward + backward [+ update]); returns a dict of
  tensors to check;
- ``scale``: how many "units" one ``run`` is (ops for small_ops, so results read per op).

The MLP uses ``nn.functional`` (linear, relu, cross_entropy) and an in-place SGD update
under ``no_grad``, as a training loop would.
"""

import numpy as np

SMALL_N = 1_000
DEEP_N = 20_000
MLP_SIZES = (784, 256, 128, 10)
MLP_BATCH = 256
MLP_LR = 0.05


def _f32(a):
    return np.ascontiguousarray(a, dtype=np.float32)


DEVICE = ["cpu"]  # where build() puts tensors; the asv benchmarks set it per parameter


def set_device(device):
    """Build later workloads' tensors on ``device`` ("cpu" or "cuda")."""
    DEVICE[0] = device


def _on_device(t):
    return t if DEVICE[0] == "cpu" else t.to(DEVICE[0])


def _leaf(lib, a, requires_grad=False):
    t = _on_device(lib.from_numpy(np.array(a, dtype=np.float32, copy=True)))
    return t.requires_grad_() if requires_grad else t


def to_numpy(t):
    """A private float copy of tensor ``t`` (detached), or a float for a number."""
    if isinstance(t, (float, int)):
        return np.asarray(t, dtype=np.float64)
    return np.array(t.detach().cpu().numpy(), copy=True)


def chain(lib, x, c, d, n):
    """``n`` ops on ``x``: step i does ``+c``, ``*d`` or ``tanh`` as i % 3 is 0, 1, 2."""
    y = x
    for i in range(n):
        m = i % 3
        if m == 0:
            y = y + c
        elif m == 1:
            y = y * d
        else:
            y = lib.tanh(y)
    return y.sum()


class SmallOps:
    """16-element tensors, a chain of 1,000 ops then sum; forward + backward."""

    name = "small_ops"
    n_ops = SMALL_N
    scale = SMALL_N  # report per op
    unit = "us/op"

    def inputs(self, seed=0):
        rng = np.random.default_rng(seed)
        # tanh contracts, so a chain of thousands of ops drives most inputs' gradient to 0
        # (nothing left to check). A small c and d just above 1 keep the fixed point near 0
        # where tanh' ~ 1: the gradient stays ~1e-4..1 after 1,000 ops and ~1e-9..1 after
        # 20,000.
        return {
            "x": _f32(0.5 * rng.standard_normal(16)),
            "c": _f32(1e-5 * rng.standard_normal(16)),
            "d": _f32(rng.uniform(1.0002, 1.0008, 16)),
        }

    def build(self, lib, a):
        return {"x": _leaf(lib, a["x"], True), "c": _leaf(lib, a["c"]), "d": _leaf(lib, a["d"])}

    def run(self, lib, s):
        x = s["x"]
        x.grad = None
        loss = chain(lib, x, s["c"], s["d"], self.n_ops)
        loss.backward()
        return {"loss": loss, "x.grad": x.grad}


class DeepChain(SmallOps):
    """The same chain with 20,000 ops, then backward (must not recurse)."""

    name = "deep_chain"
    n_ops = DEEP_N
    scale = 1
    unit = "s"


class Elementwise:
    """``(tanh(x*w+b)*sigmoid(x) + exp(-x*x)).sum()`` on 4,194,304 floats; grads of w, b."""

    name = "elementwise"
    scale = 1
    unit = "s"
    n = 4_194_304

    def inputs(self, seed=0):
        rng = np.random.default_rng(seed)
        return {
            "x": _f32(rng.standard_normal(self.n)),
            "w": _f32(rng.standard_normal(self.n)),
            "b": _f32(rng.standard_normal(self.n)),
        }

    def build(self, lib, a):
        return {"x": _leaf(lib, a["x"]), "w": _leaf(lib, a["w"], True),
                "b": _leaf(lib, a["b"], True)}

    def run(self, lib, s):
        x, w, b = s["x"], s["w"], s["b"]
        w.grad = None
        b.grad = None
        loss = (lib.tanh(x * w + b) * lib.sigmoid(x) + lib.exp(-x * x)).sum()
        loss.backward()
        return {"loss": loss, "w.grad": w.grad, "b.grad": b.grad}


class Hvp:
    """Hessian-vector product of ``sum(tanh(A@x)**2)``, A 512x512, by double backward."""

    name = "hvp"
    scale = 1
    unit = "s"
    n = 512

    def inputs(self, seed=0):
        rng = np.random.default_rng(seed)
        return {
            "A": _f32(rng.standard_normal((self.n, self.n)) / np.sqrt(self.n)),
            "x": _f32(rng.standard_normal(self.n)),
            "v": _f32(rng.standard_normal(self.n)),
        }

    def build(self, lib, a):
        return {"A": _leaf(lib, a["A"]), "x": _leaf(lib, a["x"], True), "v": _leaf(lib, a["v"])}

    def run(self, lib, s):
        A, x, v = s["A"], s["x"], s["v"]
        f = (lib.tanh(A @ x) ** 2).sum()
        (g,) = lib.autograd.grad(f, x, create_graph=True)
        (hv,) = lib.autograd.grad(g, x, grad_outputs=v)
        return {"f": f, "grad": g, "hvp": hv}


class MatmulBwd:
    """``C = A@B`` with A, B 1024x1024, ``C.sum().backward()`` (3 GEMMs)."""

    name = "matmul_bwd"
    scale = 1
    unit = "s"
    n = 1024

    def inputs(self, seed=0):
        rng = np.random.default_rng(seed)
        return {"A": _f32(rng.standard_normal((self.n, self.n))),
                "B": _f32(rng.standard_normal((self.n, self.n)))}

    def build(self, lib, a):
        return {"A": _leaf(lib, a["A"], True), "B": _leaf(lib, a["B"], True)}

    def run(self, lib, s):
        A, B = s["A"], s["B"]
        A.grad = None
        B.grad = None
        C = A @ B
        C.sum().backward()
        return {"C": C, "A.grad": A.grad, "B.grad": B.grad}


def mlp_inputs(seed=0):
    """Batch, class targets and nn.Linear-style weights (out, in) of the 784-256-128-10 MLP."""
    rng = np.random.default_rng(seed)
    a = {"X": _f32(rng.standard_normal((MLP_BATCH, MLP_SIZES[0])))}
    a["y"] = rng.integers(0, MLP_SIZES[-1], MLP_BATCH).astype(np.int64)
    for i, (n_in, n_out) in enumerate(zip(MLP_SIZES[:-1], MLP_SIZES[1:])):
        bound = 1.0 / np.sqrt(n_in)  # nn.Linear's default init range
        a[f"W{i}"] = _f32(rng.uniform(-bound, bound, (n_out, n_in)))
        a[f"b{i}"] = _f32(rng.uniform(-bound, bound, n_out))
    return a


def mlp_build(lib, a):
    n = len(MLP_SIZES) - 1
    params = []
    for i in range(n):
        params.append(_leaf(lib, a[f"W{i}"], True))
        params.append(_leaf(lib, a[f"b{i}"], True))
    return {"X": _leaf(lib, a["X"]), "y": _on_device(lib.from_numpy(a["y"].copy())), "params": params}


def mlp_loss(lib, X, y, params):
    """Mean softmax cross-entropy of the ReLU MLP."""
    F = lib.nn.functional
    h = X
    n = len(params) // 2
    for i in range(n):
        h = F.linear(h, params[2 * i], params[2 * i + 1])
        if i < n - 1:
            h = F.relu(h)
    return F.cross_entropy(h, y)


def mlp_step(lib, s, lr=MLP_LR):
    """Forward, backward and an in-place SGD update, as a training loop does."""
    params = s["params"]
    for p in params:
        p.grad = None
    loss = mlp_loss(lib, s["X"], s["y"], params)
    loss.backward()
    grads = [p.grad for p in params]
    with lib.no_grad():
        for p, g in zip(params, grads):
            p.sub_(g * lr)
    return loss, grads


class MlpStep:
    """MLP 784-256-128-10, ReLU, softmax cross-entropy, batch 256; forward+backward+SGD."""

    name = "mlp_step"
    scale = 1
    unit = "s"

    def inputs(self, seed=0):
        return mlp_inputs(seed)

    def build(self, lib, a):
        return mlp_build(lib, a)

    def run(self, lib, s):
        loss, grads = mlp_step(lib, s)
        out = {"loss": loss}
        for i, g in enumerate(grads):
            out[f"grad{i}"] = g
        for i, p in enumerate(s["params"]):
            out[f"param{i}"] = p
        return out


WORKLOADS = {w.name: w for w in (MlpStep(), Elementwise(), SmallOps(), DeepChain(), Hvp(),
                                 MatmulBwd())}

# A fresh process: import the library, build the MLP, run the first mlp_step (PERF.md's
# cold_start). Run as ``python -c COLD_START_CODE.format(lib=..., bench_dir=...)``.
COLD_START_CODE = """\
import sys
sys.path.insert(0, {bench_dir!r})
import {lib} as lib
{setup}
from benchmarks import workloads as w
s = w.mlp_build(lib, w.mlp_inputs(0))
loss, _ = w.mlp_step(lib, s)
print(float(loss.item()))
"""

# The first forward/backward of a small expression on a dtype the process has not used:
# what compiling kernels (Numba's JIT) costs at first use. Prints JSON timings in seconds.
FIRST_CALL_CODE = """\
import json, time
t0 = time.perf_counter()
import {lib} as lib
t1 = time.perf_counter()
def f(dt):
    x = lib.ones(16, dtype=dt).requires_grad_()
    y = lib.full((16,), 2.0, dtype=dt).requires_grad_()
    (x * y + x / y - y).tanh().exp().sum().backward()
    return x.grad
f(lib.{dtype})
t2 = time.perf_counter()
f(lib.{dtype})
t3 = time.perf_counter()
print(json.dumps({{"import": t1 - t0, "first": t2 - t1, "second": t3 - t2}}))
"""
