"""``python -m nbgrad warmup``: compile, ahead of a run, the kernels the common training
workloads use — an MLP, a CNN, a GPT-style transformer block, a VAE, and the elementwise
ops and reductions — for each dtype and size class asked for.

Each workload runs one training step (forward, backward, an optimizer step) at a small
size, whose kernels run their serial variants, and at a size past
``NBGRAD_PARALLEL_MIN``, whose kernels run (and so compile) their parallel variants. The
kernel cache being on (unless ``NBGRAD_CACHE=0``), later processes load what warmup
compiled.
"""

import sys
import time

import numpy as np


def _mlp(nb, dt, big):
    nn, F = nb.nn, nb.nn.functional
    b = 1024 if big else 8  # the hidden layer: 1024 x 128 elements, the parallel size
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10)).to(dt)
    x, y = nb.randn(b, 64, dtype=dt), nb.randint(0, 10, (b,))
    for opt in (nb.optim.SGD(model.parameters(), lr=0.1, momentum=0.9),
                nb.optim.Adam(model.parameters(), lr=1e-3)):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
    return loss


def _cnn(nb, dt, big):
    nn, F = nb.nn, nb.nn.functional
    b = 32 if big else 2  # the first convolution's output: 32 x 8 x 26 x 26
    conv1, conv2 = nn.Conv2d(1, 8, 3).to(dt), nn.Conv2d(8, 16, 3).to(dt)
    fc = nn.Linear(16 * 12 * 12, 10).to(dt)
    params = [*conv1.parameters(), *conv2.parameters(), *fc.parameters()]
    opt = nb.optim.Adadelta(params)
    x, y = nb.randn(b, 1, 28, 28, dtype=dt), nb.randint(0, 10, (b,))
    h = F.max_pool2d(F.relu(conv2(F.relu(conv1(x)))), 2)
    h = F.dropout(h, 0.25, training=True).flatten(1)
    loss = F.nll_loss(F.log_softmax(fc(h), dim=1), y)
    loss.backward()
    opt.step()
    return loss


def _gpt(nb, dt, big):
    nn, F = nb.nn, nb.nn.functional
    b, t, d, heads = (32, 32, 32, 4) if big else (2, 8, 32, 4)  # 4d-wide MLP: 32*32*128
    emb, pos = nn.Embedding(64, d).to(dt), nn.Embedding(t, d).to(dt)
    ln1, ln2 = nn.LayerNorm(d).to(dt), nn.LayerNorm(d).to(dt)
    qkv, proj = nn.Linear(d, 3 * d).to(dt), nn.Linear(d, d).to(dt)
    up, down, head = nn.Linear(d, 4 * d).to(dt), nn.Linear(4 * d, d).to(dt), nn.Linear(d, 64).to(dt)
    mods = (emb, pos, ln1, ln2, qkv, proj, up, down, head)
    opt = nb.optim.AdamW([p for m in mods for p in m.parameters()], lr=1e-3)
    idx = nb.randint(0, 64, (b, t))
    x = emb(idx) + pos(nb.arange(t))
    q, k, v = qkv(ln1(x)).split(d, dim=2)
    q, k, v = (z.view(b, t, heads, d // heads).transpose(1, 2) for z in (q, k, v))
    att = (q @ k.transpose(-2, -1)) * (d // heads) ** -0.5
    mask = nb.tril(nb.ones(t, t, dtype=nb.bool))
    att = F.softmax(att.masked_fill(~mask, float("-inf")), dim=-1)
    x = x + proj((att @ v).transpose(1, 2).contiguous().view(b, t, d))
    x = x + F.dropout(down(F.gelu(up(ln2(x)))), 0.1)
    y = F.scaled_dot_product_attention(q, k, v, is_causal=True)  # the fused path too
    loss = F.cross_entropy(head(x).view(b * t, 64), nb.randint(0, 64, (b * t,)))
    (loss + y.sum() * 0.0).backward()
    nn.utils.clip_grad_norm_([p for m in mods for p in m.parameters()], 1.0)
    opt.step()
    return loss


def _vae(nb, dt, big):
    nn, F = nb.nn, nb.nn.functional
    b = 2048 if big else 8  # the reconstruction: 2048 x 64
    enc, mu, logvar = nn.Linear(64, 32).to(dt), nn.Linear(32, 8).to(dt), nn.Linear(32, 8).to(dt)
    dec1, dec2 = nn.Linear(8, 32).to(dt), nn.Linear(32, 64).to(dt)
    mods = (enc, mu, logvar, dec1, dec2)
    opt = nb.optim.Adam([p for m in mods for p in m.parameters()], lr=1e-3)
    x = nb.rand(b, 64, dtype=dt)
    h = F.relu(enc(x))
    m, lv = mu(h), logvar(h)
    z = m + nb.randn_like(m) * (0.5 * lv).exp()
    recon = dec2(F.relu(dec1(z))).sigmoid()
    loss = F.binary_cross_entropy(recon, x, reduction="sum")
    loss = loss - 0.5 * (1 + lv - m.pow(2) - lv.exp()).sum()
    loss.backward()
    opt.step()
    return loss


def _elementwise(nb, dt, big):
    n = 1 << 17 if big else 8
    x = nb.randn(n, dtype=dt, requires_grad=True)
    w = nb.randn(n, dtype=dt, requires_grad=True)
    y = ((x * w + 1.0).tanh() * x.sigmoid() + (-(x * x)).exp() - x.relu() / 2.0)
    y = y + x.abs().sqrt().log1p() + x ** 2
    y.sum().backward()
    m = x.reshape(-1, 8)
    loss = m.amax(1).sum() + m.mean(0).sum() + m.max(1).values.sum()
    loss.backward()
    return loss


WORKLOADS = {"elementwise": _elementwise, "mlp": _mlp, "cnn": _cnn, "gpt": _gpt, "vae": _vae}


def _bar(done, total, what, stream, width=24):
    full = width * done // total
    stream.write(f"\r[{'#' * full}{'.' * (width - full)}] {done}/{total} {what:<30}")
    stream.flush()


def warmup(dtypes=("float32", "float64"), parallel=True, verbose=True, workloads=None,
           stream=None):
    """Compile the kernels of the common workloads for ``dtypes``: serial variants, and
    parallel ones too with ``parallel``. Prints a progress bar (to ``stream``, default
    stderr) and a line per dtype when ``verbose``; returns the seconds taken.

    Example (compiling takes a while, so this is not run as a doctest)::

        from nbgrad.__main__ import warmup
        seconds = warmup(("float32",), parallel=False, workloads=["mlp"])

    or from a shell: ``python -m nbgrad warmup --dtype float32 --workload mlp``.
    """
    import nbgrad
    from nbgrad.kernels.cpu import _notice, _par

    names = list(workloads or WORKLOADS)
    unknown = [n for n in names if n not in WORKLOADS]
    if unknown:
        raise ValueError(f"unknown warmup workload(s) {unknown}; choose from {list(WORKLOADS)}")
    sizes = (False, True) if parallel else (False,)
    stream = stream or sys.stderr
    total, done = len(dtypes) * len(sizes) * len(names), 0
    if verbose:
        _notice.hush()  # (the bar says it)
    tier_up, _par.TIER_UP = _par.TIER_UP, 0  # a first big call takes its parallel variant
    state = nbgrad.get_rng_state()
    t0 = time.perf_counter()
    try:
        nbgrad.manual_seed(0)
        for name in dtypes:
            dt = getattr(nbgrad, name)
            for big in sizes:
                for w in names:
                    if verbose:
                        _bar(done, total, f"{name} {w}{' (parallel)' if big else ''}", stream)
                    loss = WORKLOADS[w](nbgrad, dt, big)
                    if not np.isfinite(loss.item()):
                        raise RuntimeError(f"warmup: the {w} step gave a loss of {loss.item()}")
                    done += 1
            if verbose:
                _bar(done, total, f"{name} done", stream)
                stream.write("\n")
                print(f"warmed {name} in {time.perf_counter() - t0:.1f} s", flush=True)
    finally:
        _par.TIER_UP = tier_up
        nbgrad.set_rng_state(state)
    return time.perf_counter() - t0
