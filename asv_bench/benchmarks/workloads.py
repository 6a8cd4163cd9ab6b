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

Compiled variants (``compare.py``'s nbgrad.compile and torch.compile columns): with
``COMPILE[0]`` set to the library's ``compile``, each workload calls the compiled form of
its forward function (``staged``): the chain, the elementwise loss, the MLP loss, the
model's forward. Backward, the update and the optimizer stay as they are.
"""

import functools
import math

import numpy as np

SMALL_N = 1_000
DEEP_N = 20_000
MLP_SIZES = (784, 256, 128, 10)
MLP_BATCH = 256
MLP_LR = 0.05


COMPILE = [None]  # the library's compile function in a compiled variant, else None
_STAGED = {}


def staged(lib, fn, *bound):
    """``fn`` with its first arguments ``lib, *bound`` bound: compiled (once per library,
    function and bound arguments) when ``COMPILE[0]`` is set, else as it is."""
    if COMPILE[0] is None:
        return functools.partial(fn, lib, *bound)
    key = (lib.__name__, fn, bound)
    f = _STAGED.get(key)
    if f is None:
        f = _STAGED[key] = COMPILE[0](functools.partial(fn, lib, *bound))
    return f


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
        loss = staged(lib, chain)(x, s["c"], s["d"], self.n_ops)
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
        loss = staged(lib, elementwise_loss)(x, w, b)
        loss.backward()
        return {"loss": loss, "w.grad": w.grad, "b.grad": b.grad}


def elementwise_loss(lib, x, w, b):
    return (lib.tanh(x * w + b) * lib.sigmoid(x) + lib.exp(-x * x)).sum()


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
    loss = staged(lib, mlp_loss)(s["X"], s["y"], params)
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


# ----- model workloads: what users run (PERF.md gpt_block, cnn_step, vae_step) ------------
#
# Each is a model as its usual source writes it (nanoGPT's GPT, and the MNIST CNN and VAE of
# pytorch/examples), nn.Module classes built per library by ``_models(lib)``, and one training
# step: zero_grad, forward, loss, backward, optimizer step. The weights come from the inputs
# (float32 arrays named ``param.<state-dict key>``), loaded with ``load_state_dict``.
#
# Where nbgrad lacks what the source uses (``Tensor.masked_fill``,
# ``F.binary_cross_entropy``, ``optim.Adadelta``), the workload calls the library's own
# function when it has one and otherwise the same computation written with what both
# libraries have (``_causal_mask``, ``_bce_sum``, ``_Adadelta``): PyTorch always runs the
# program as written, and nbgrad picks up its own function as soon as it has one.
#
# Checked results: the first step's loss, gradients of several parameters, and parameters
# after the update. For Adam(W) only small parameters (layer-norm weights, biases) are
# checked after the update: Adam's first step moves each weight by about ``lr * sign(g)``,
# so an element whose gradient is ~0 may move either way by float32 rounding alone; the
# gradients, checked in full, cover the rest.

GPT = dict(batch=8, block=64, width=128, heads=4, vocab=65, layers=2)
CNN_BATCH = 64
VAE_BATCH = 128

_MODELS = {}


def _params_from(lib, a):
    """The state dict held in inputs ``a`` (keys ``param.<name>``), as ``lib`` tensors."""
    return {k[len("param."):]: lib.from_numpy(np.array(v, copy=True))
            for k, v in a.items() if k.startswith("param.")}


def _load(lib, model, a):
    model.load_state_dict(_params_from(lib, a))
    return model.to(DEVICE[0])


def _default_init(rng, a, name, shape):
    """nn.Linear's and nn.Conv2d's default init of ``name`` (weight ``shape``, and a bias):
    U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for both."""
    bound = 1.0 / np.sqrt(np.prod(shape[1:]))
    a[f"param.{name}.weight"] = _f32(rng.uniform(-bound, bound, shape))
    a[f"param.{name}.bias"] = _f32(rng.uniform(-bound, bound, shape[0]))


def _causal_mask(lib, att, tril, neg):
    """nanoGPT's ``att.masked_fill(tril == 0, -inf)``; where ``lib`` has no
    ``Tensor.masked_fill``, ``att + neg`` (``neg``: 0 on and below the diagonal, -inf
    above), which gives the same values and gradients."""
    if hasattr(lib.Tensor, "masked_fill"):
        return att.masked_fill(tril == 0, float("-inf"))
    return att + neg


def _bce_sum(lib, p, x):
    """``F.binary_cross_entropy(p, x, reduction="sum")``; where ``lib`` has none, the same
    sum written out, with PyTorch's clamp of each log at -100."""
    F = lib.nn.functional
    if hasattr(F, "binary_cross_entropy"):
        return F.binary_cross_entropy(p, x, reduction="sum")
    return -(x * lib.clamp(lib.log(p), min=-100.0)
             + (1 - x) * lib.clamp(lib.log(1 - p), min=-100.0)).sum()


class _Adadelta:
    """``torch.optim.Adadelta(params, lr, rho=0.9, eps=1e-6)`` for a library without one:
    PyTorch's own update for CPU tensors (its single-tensor path, one parameter at a time),
    written with the in-place ops nbgrad has (no ``addcmul_``/``sqrt_``)."""

    def __init__(self, lib, params, lr=1.0, rho=0.9, eps=1e-6):
        self.lib = lib
        self.params = list(params)
        self.lr, self.rho, self.eps = lr, rho, eps
        self.state = [(lib.zeros_like(p), lib.zeros_like(p)) for p in self.params]

    def zero_grad(self, set_to_none=True):
        for p in self.params:
            p.grad = None

    def step(self):
        rho, eps = self.rho, self.eps
        with self.lib.no_grad():
            for p, (square_avg, acc_delta) in zip(self.params, self.state):
                g = p.grad
                if g is None:
                    continue
                square_avg.mul_(rho).add_(g * g, alpha=1 - rho)
                std = (square_avg + eps).sqrt()
                delta = (acc_delta + eps).sqrt().div_(std).mul_(g)
                acc_delta.mul_(rho).add_(delta * delta, alpha=1 - rho)
                p.add_(delta, alpha=-self.lr)


def _models(lib):
    """The three models' classes written against ``lib`` (built once per library)."""
    if lib.__name__ in _MODELS:
        return _MODELS[lib.__name__]
    nn = lib.nn
    F = lib.nn.functional

    class CausalSelfAttention(nn.Module):
        def __init__(self, width, heads, block):
            super().__init__()
            self.c_attn = nn.Linear(width, 3 * width)
            self.c_proj = nn.Linear(width, width)
            self.n_head = heads
            self.n_embd = width
            tril = np.tril(np.ones((block, block), np.float32)).reshape(1, 1, block, block)
            self.register_buffer("tril", lib.from_numpy(tril), persistent=False)
            neg = np.where(tril == 0, -np.inf, 0).astype(np.float32)
            self.register_buffer("neg", lib.from_numpy(neg), persistent=False)

        def forward(self, x):
            B, T, C = x.size()
            q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
            hs = C // self.n_head
            k = k.view(B, T, self.n_head, hs).transpose(1, 2)
            q = q.view(B, T, self.n_head, hs).transpose(1, 2)
            v = v.view(B, T, self.n_head, hs).transpose(1, 2)
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hs))
            att = _causal_mask(lib, att, self.tril[:, :, :T, :T], self.neg[:, :, :T, :T])
            att = F.softmax(att, dim=-1)
            y = att @ v
            y = y.transpose(1, 2).contiguous().view(B, T, C)
            return self.c_proj(y)

    class MLP(nn.Module):
        def __init__(self, width):
            super().__init__()
            self.c_fc = nn.Linear(width, 4 * width)
            self.gelu = nn.GELU()
            self.c_proj = nn.Linear(4 * width, width)

        def forward(self, x):
            return self.c_proj(self.gelu(self.c_fc(x)))

    class Block(nn.Module):
        def __init__(self, width, heads, block):
            super().__init__()
            self.ln_1 = nn.LayerNorm(width)
            self.attn = CausalSelfAttention(width, heads, block)
            self.ln_2 = nn.LayerNorm(width)
            self.mlp = MLP(width)

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            x = x + self.mlp(self.ln_2(x))
            return x

    class GPTModel(nn.Module):
        def __init__(self, vocab, block, width, heads, layers):
            super().__init__()
            self.wte = nn.Embedding(vocab, width)
            self.wpe = nn.Embedding(block, width)
            self.h = nn.ModuleList([Block(width, heads, block) for _ in range(layers)])
            self.ln_f = nn.LayerNorm(width)
            self.lm_head = nn.Linear(width, vocab, bias=False)
            self.wte.weight = self.lm_head.weight  # weight tying, as nanoGPT

        def forward(self, idx, targets):
            b, t = idx.size()
            pos = lib.arange(0, t, dtype=lib.long, device=idx.device)
            x = self.wte(idx) + self.wpe(pos)
            for block in self.h:
                x = block(x)
            x = self.ln_f(x)
            logits = self.lm_head(x)
            return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1),
                                   ignore_index=-1)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 32, 3, 1)
            self.conv2 = nn.Conv2d(32, 64, 3, 1)
            self.dropout1 = nn.Dropout(0.25)
            self.dropout2 = nn.Dropout(0.5)
            self.fc1 = nn.Linear(9216, 128)
            self.fc2 = nn.Linear(128, 10)

        def forward(self, x, masks=None):
            # masks (the checked step only): dropout's scaled keep-masks, given as inputs
            x = self.conv1(x)
            x = F.relu(x)
            x = self.conv2(x)
            x = F.relu(x)
            x = F.max_pool2d(x, 2)
            x = self.dropout1(x) if masks is None else x * masks[0]
            x = lib.flatten(x, 1)
            x = self.fc1(x)
            x = F.relu(x)
            x = self.dropout2(x) if masks is None else x * masks[1]
            x = self.fc2(x)
            return F.log_softmax(x, dim=1)

    class VAE(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(784, 400)
            self.fc21 = nn.Linear(400, 20)
            self.fc22 = nn.Linear(400, 20)
            self.fc3 = nn.Linear(20, 400)
            self.fc4 = nn.Linear(400, 784)

        def encode(self, x):
            h1 = F.relu(self.fc1(x))
            return self.fc21(h1), self.fc22(h1)

        def reparameterize(self, mu, logvar, eps=None):
            # eps (the checked step only): the standard normal noise, given as an input
            std = lib.exp(0.5 * logvar)
            if eps is None:
                eps = lib.randn_like(std)
            return mu + eps * std

        def decode(self, z):
            h3 = F.relu(self.fc3(z))
            return lib.sigmoid(self.fc4(h3))

        def forward(self, x, eps=None):
            mu, logvar = self.encode(x.view(-1, 784))
            z = self.reparameterize(mu, logvar, eps)
            return self.decode(z), mu, logvar

    _MODELS[lib.__name__] = m = dict(GPT=GPTModel, Net=Net, VAE=VAE)
    return m


class _ModelStep:
    """A training step: ``opt.zero_grad()``, ``loss(lib, s)`` (forward and loss),
    ``loss.backward()``, ``opt.step()``. Returns the loss, ``grad:<name>`` for the names in
    ``grads`` and ``updated:<name>`` (the parameter after the step) for those in
    ``updated``."""

    scale = 1
    unit = "s"
    grads = updated = ()

    def run(self, lib, s):
        model, opt = s["model"], s["opt"]
        opt.zero_grad()
        if COMPILE[0] is not None and "forward" not in s:
            s["forward"] = COMPILE[0](model)
        loss = self.loss(lib, s)
        loss.backward()
        opt.step()
        params = dict(model.named_parameters())
        out = {"loss": loss}
        out.update({f"grad:{n}": params[n].grad for n in self.grads})
        out.update({f"updated:{n}": params[n] for n in self.updated})
        return out


class GptBlock(_ModelStep):
    """nanoGPT's training step: token + position embedding (tied with the output layer),
    2 blocks of layer norm, causal self-attention (4 heads) and GELU MLP, cross-entropy;
    AdamW (lr 1e-3, betas (0.9, 0.99), weight decay 0.1 on matrices only, as nanoGPT
    groups them); batch 8, context 64, width 128, vocabulary 65. No dropout (nanoGPT's
    default) and no gradient clipping (nbgrad has no ``clip_grad_norm_``)."""

    name = "gpt_block"
    grads = ("wte.weight", "wpe.weight", "h.0.attn.c_attn.weight", "h.1.attn.c_proj.weight",
             "h.1.mlp.c_fc.weight", "h.0.ln_1.weight", "ln_f.weight")
    updated = ("h.0.ln_1.weight", "h.0.ln_2.bias", "h.1.attn.c_proj.bias", "ln_f.weight",
               "ln_f.bias")

    def inputs(self, seed=0):
        rng = np.random.default_rng(seed)
        c = GPT
        V, T, C, L = c["vocab"], c["block"], c["width"], c["layers"]
        seq = rng.integers(0, V, (c["batch"], T + 1)).astype(np.int64)
        a = {"idx": np.ascontiguousarray(seq[:, :-1]), "targets": np.ascontiguousarray(seq[:, 1:])}

        def normal(name, shape, std=0.02):
            a[f"param.{name}"] = _f32(rng.normal(0.0, std, shape))

        # nanoGPT's init: N(0, 0.02) weights, c_proj scaled by 1/sqrt(2 * layers), zero
        # biases, layer norms at ones and zeros
        normal("wte.weight", (V, C))
        a["param.lm_head.weight"] = a["param.wte.weight"]
        normal("wpe.weight", (T, C))
        proj_std = 0.02 / math.sqrt(2 * L)
        for i in range(L):
            p = f"h.{i}."
            for ln in ("ln_1", "ln_2"):
                a[f"param.{p}{ln}.weight"] = np.ones(C, np.float32)
                a[f"param.{p}{ln}.bias"] = np.zeros(C, np.float32)
            for name, n_in, n_out, std in (("attn.c_attn", C, 3 * C, 0.02),
                                           ("attn.c_proj", C, C, proj_std),
                                           ("mlp.c_fc", C, 4 * C, 0.02),
                                           ("mlp.c_proj", 4 * C, C, proj_std)):
                normal(f"{p}{name}.weight", (n_out, n_in), std)
                a[f"param.{p}{name}.bias"] = np.zeros(n_out, np.float32)
        a["param.ln_f.weight"] = np.ones(C, np.float32)
        a["param.ln_f.bias"] = np.zeros(C, np.float32)
        return a

    def build(self, lib, a):
        c = GPT
        model = _load(lib, _models(lib)["GPT"](c["vocab"], c["block"], c["width"], c["heads"],
                                               c["layers"]), a)
        decay = [p for p in model.parameters() if p.dim() >= 2]
        no_decay = [p for p in model.parameters() if p.dim() < 2]
        opt = lib.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                               {"params": no_decay, "weight_decay": 0.0}],
                              lr=1e-3, betas=(0.9, 0.99))
        return {"model": model, "opt": opt,
                "idx": _on_device(lib.from_numpy(a["idx"].copy())),
                "targets": _on_device(lib.from_numpy(a["targets"].copy()))}

    def loss(self, lib, s):
        return s.get("forward", s["model"])(s["idx"], s["targets"])


class CnnStep(_ModelStep):
    """The MNIST CNN of pytorch/examples: conv 1->32 3x3, ReLU, conv 32->64 3x3, ReLU,
    max-pool 2, dropout 0.25, linear 9216->128, ReLU, dropout 0.5, linear 128->10,
    log_softmax + nll_loss, Adadelta (lr 1.0); batch 64 of 28x28 normalised images.

    The checked (first) step applies dropout as given keep-masks scaled by 1/(1-p) (inputs
    ``mask1``, ``mask2``: the values ``F.dropout`` multiplies by), so both libraries drop the
    same elements; later (timed) steps call ``nn.Dropout``, each library drawing its own."""

    name = "cnn_step"
    grads = ("conv1.weight", "conv2.weight", "conv2.bias", "fc1.weight", "fc2.weight",
             "fc2.bias")
    updated = ("conv1.weight", "conv2.weight", "fc1.weight", "fc2.weight")

    def inputs(self, seed=0):
        rng = np.random.default_rng(seed)
        # MNIST-like: mostly blank pixels, normalised by the example's (0.1307, 0.3081)
        img = rng.random((CNN_BATCH, 1, 28, 28)) * (rng.random((CNN_BATCH, 1, 28, 28)) < 0.2)
        a = {"data": _f32((img - 0.1307) / 0.3081),
             "target": rng.integers(0, 10, CNN_BATCH).astype(np.int64)}
        _default_init(rng, a, "conv1", (32, 1, 3, 3))
        _default_init(rng, a, "conv2", (64, 32, 3, 3))
        _default_init(rng, a, "fc1", (128, 9216))
        _default_init(rng, a, "fc2", (10, 128))
        for name, shape, p in (("mask1", (CNN_BATCH, 64, 12, 12), 0.25),
                               ("mask2", (CNN_BATCH, 128), 0.5)):
            keep = (rng.random(shape) >= p).astype(np.float32)
            a[name] = keep / np.float32(1 - p)
        return a

    def build(self, lib, a):
        model = _load(lib, _models(lib)["Net"](), a)
        model.train()
        Adadelta = getattr(lib.optim, "Adadelta", None)
        opt = (Adadelta(model.parameters(), lr=1.0) if Adadelta is not None
               else _Adadelta(lib, model.parameters(), lr=1.0))
        return {"model": model, "opt": opt,
                "data": _leaf(lib, a["data"]),
                "target": _on_device(lib.from_numpy(a["target"].copy())),
                "masks": (_leaf(lib, a["mask1"]), _leaf(lib, a["mask2"]))}

    def loss(self, lib, s):
        masks = s.pop("masks", None)  # the first step only
        output = s.get("forward", s["model"])(s["data"], masks)
        return lib.nn.functional.nll_loss(output, s["target"])


class VaeStep(_ModelStep):
    """The VAE of pytorch/examples: 784-400-(20, 20)-400-784, ReLU, reparameterisation,
    sigmoid output, binary cross-entropy (sum) + KL term, Adam (lr 1e-3); batch 128 of
    MNIST-like pixels in [0, 1].

    The checked (first) step takes the reparameterisation noise as an input (``eps``); later
    (timed) steps draw it with ``randn_like``, each library its own."""

    name = "vae_step"
    grads = ("fc1.weight", "fc1.bias", "fc21.weight", "fc22.weight", "fc3.weight",
             "fc4.weight", "fc4.bias")
    updated = ("fc21.bias", "fc22.bias", "fc4.bias")

    def inputs(self, seed=0):
        rng = np.random.default_rng(seed)
        shape = (VAE_BATCH, 1, 28, 28)
        a = {"data": _f32(rng.random(shape) * (rng.random(shape) < 0.2)),
             "eps": _f32(rng.standard_normal((VAE_BATCH, 20)))}
        for name, n_in, n_out in (("fc1", 784, 400), ("fc21", 400, 20), ("fc22", 400, 20),
                                  ("fc3", 20, 400), ("fc4", 400, 784)):
            _default_init(rng, a, name, (n_out, n_in))
        return a

    def build(self, lib, a):
        model = _load(lib, _models(lib)["VAE"](), a)
        model.train()
        return {"model": model, "opt": lib.optim.Adam(model.parameters(), lr=1e-3),
                "data": _leaf(lib, a["data"]), "eps": _leaf(lib, a["eps"])}

    def loss(self, lib, s):
        eps = s.pop("eps", None)  # the first step only
        data = s["data"]
        recon, mu, logvar = s.get("forward", s["model"])(data, eps)
        bce = _bce_sum(lib, recon, data.view(-1, 784))
        kld = -0.5 * lib.sum(1 + logvar - mu.pow(2) - logvar.exp())
        return bce + kld


WORKLOADS = {w.name: w for w in (MlpStep(), Elementwise(), SmallOps(), DeepChain(), Hvp(),
                                 MatmulBwd(), GptBlock(), CnnStep(), VaeStep())}

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

# The first ``steps`` mlp_steps of a fresh process, each one's time (seconds, JSON): what
# compiling costs after the first step too (nbgrad compiles a kernel's parallel variant
# once the kernel has run a while: NBGRAD_TIER_UP).
FIRST_STEPS_CODE = """\
import json, sys, time
sys.path.insert(0, {bench_dir!r})
import {lib} as lib
{setup}
from benchmarks import workloads as w
s = w.mlp_build(lib, w.mlp_inputs(0))
ts = []
for _ in range({steps}):
    t0 = time.perf_counter()
    w.mlp_step(lib, s)
    ts.append(time.perf_counter() - t0)
print(json.dumps(ts))
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
