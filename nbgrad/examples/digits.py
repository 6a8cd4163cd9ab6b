"""Train a classifier on scikit-learn's bundled handwritten digits (8x8 images, 10 classes).

Run: ``python -m nbgrad.examples.digits`` (an MLP) or ``--model cnn`` (a small conv net);
``--compile`` trains through ``nbgrad.compile`` (the forward and loss traced once per batch
shape, then run as fused kernels and row calls, forward and backward). It shows a progress
bar per epoch, prints the test accuracy, saves a checkpoint and writes a PNG of the loss and
accuracy curves into the current directory (or ``--out DIR``).

``mpiexec -n 2 python -m nbgrad.examples.digits --ddp`` trains on 2 processes with
``DistributedDataParallel``: each reads its share of every epoch (``DistributedSampler``) in
batches of ``--batch-size / processes``, so the batch over all processes stays
``--batch-size``; rank 0 shows the progress, evaluates and writes the files.
"""

import argparse
import os
import time

import numpy as np

import nbgrad
import nbgrad.nn as nn
import nbgrad.nn.functional as F


class MLP(nn.Module):
    """64 -> 128 -> 64 -> 10 with ReLU."""

    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, 10)
        )

    def forward(self, x):
        return self.net(x.reshape(x.shape[0], 64))


class CNN(nn.Module):
    """Two 3x3 conv layers with 2x2 max pooling, then a linear classifier."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc = nn.Linear(32 * 2 * 2, 10)

    def forward(self, x):
        x = x.reshape(x.shape[0], 1, 8, 8)
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc(x.flatten(1))


def load_data(seed):
    """Digits scaled to [0, 1], split 80/20 with a fixed permutation."""
    from sklearn.datasets import load_digits

    d = load_digits()
    x = (d.data / 16.0).astype(np.float32)
    y = d.target.astype(np.int64)
    perm = np.random.default_rng(seed).permutation(len(y))
    n_test = len(y) // 5
    test, train = perm[:n_test], perm[n_test:]
    return x[train], y[train], x[test], y[test]


def evaluate(model, x, y, device):
    """Accuracy of ``model`` on arrays ``x``, ``y``."""
    model.eval()
    with nbgrad.no_grad():
        logits = model(nbgrad.tensor(x, device=device))
        pred = logits.argmax(1).cpu().numpy()
    model.train()
    return float((pred == y).mean())


def save_plot(losses, accs, path, title="nbgrad on scikit-learn digits"):
    """Write the loss and test-accuracy curves to ``path`` (PNG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (a1, a2) = plt.subplots(1, 2, figsize=(9, 3.5))
    a1.plot(np.arange(1, len(losses) + 1), losses, marker="o")
    a1.set_xlabel("epoch")
    a1.set_ylabel("training loss")
    a2.plot(np.arange(1, len(accs) + 1), np.array(accs) * 100, marker="o", color="tab:green")
    a2.set_xlabel("epoch")
    a2.set_ylabel("test accuracy (%)")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m nbgrad.examples.digits",
                                description=__doc__.splitlines()[0])
    p.add_argument("--model", choices=["mlp", "cnn"], default="mlp")
    p.add_argument("--epochs", type=int, default=None, help="default: 20 (mlp), 12 (cnn)")
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--lr", type=float, default=None, help="Adam learning rate (default 2e-3)")
    p.add_argument("--device", default="cpu", help="cpu or cuda")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=".", help="folder for the checkpoint and the plot")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--compile", action="store_true",
                   help="compute the forward and loss through nbgrad.compile")
    p.add_argument("--ddp", action="store_true",
                   help="data-parallel training on the processes mpiexec started "
                        "(DistributedDataParallel on MPI)")
    args = p.parse_args(argv)
    if args.ddp:
        return _main_ddp(args)
    from tqdm import tqdm

    if args.device.startswith("cuda") and not nbgrad.cuda.is_available():
        p.error("--device cuda: no CUDA device is available here")
    epochs = args.epochs or (20 if args.model == "mlp" else 12)
    lr = args.lr or 2e-3
    nbgrad.manual_seed(args.seed)
    xtr, ytr, xte, yte = load_data(args.seed)
    model = (MLP() if args.model == "mlp" else CNN()).to(args.device)
    opt = nbgrad.optim.Adam(model.parameters(), lr=lr)
    rng = np.random.default_rng(args.seed)
    losses, accs = [], []

    def loss_of(xb, yb):
        return F.cross_entropy(model(xb), yb)

    if args.compile:  # (traced on the first batch of each size: the last one is smaller)
        loss_of = nbgrad.compile(loss_of)
    t0 = time.perf_counter()
    for epoch in range(1, epochs + 1):
        order = rng.permutation(len(ytr))
        batches = range(0, len(order), args.batch_size)
        bar = tqdm(batches, desc=f"epoch {epoch:2d}/{epochs}", unit="batch", leave=False,
                   disable=args.no_progress)
        total, count = 0.0, 0
        for start in bar:
            idx = order[start:start + args.batch_size]
            xb = nbgrad.tensor(xtr[idx], device=args.device)
            yb = nbgrad.tensor(ytr[idx], device=args.device)
            loss = loss_of(xb, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(idx)
            count += len(idx)
            bar.set_postfix(loss=f"{total / count:.4f}")
        bar.close()
        losses.append(total / count)
        accs.append(evaluate(model, xte, yte, args.device))
        print(f"epoch {epoch:2d}/{epochs}  loss {losses[-1]:.4f}  test accuracy {accs[-1] * 100:.2f}%")
    elapsed = time.perf_counter() - t0
    how = ", compiled" if args.compile else ""
    print(f"test accuracy: {accs[-1] * 100:.2f}% ({args.model}{how}, {epochs} epochs, "
          f"{elapsed:.1f} s)")
    os.makedirs(args.out, exist_ok=True)
    ckpt = os.path.join(args.out, f"digits_{args.model}.nbg")
    nbgrad.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "epochs": epochs}, ckpt)
    png = os.path.join(args.out, f"digits_{args.model}.png")
    how = ", compiled" if args.compile else ""
    save_plot(losses, accs, png, f"nbgrad: {args.model.upper()}{how} on scikit-learn digits, "
              f"{epochs} epoch{'s' * (epochs != 1)}")
    print(f"wrote {os.path.abspath(ckpt)}")
    print(f"wrote {os.path.abspath(png)}")
    return accs[-1]


def _main_ddp(args):
    """``--ddp``: the same training, data-parallel over the processes mpiexec started."""
    import nbgrad.distributed as dist
    from nbgrad.nn.parallel import DistributedDataParallel as DDP
    from nbgrad.utils.data import DataLoader, DistributedSampler, TensorDataset

    dist.init_process_group("mpi")
    rank, world = dist.get_rank(), dist.get_world_size()
    lead = rank == 0
    epochs = args.epochs or (20 if args.model == "mlp" else 12)
    lr = args.lr or 2e-3
    nbgrad.manual_seed(args.seed)
    xtr, ytr, xte, yte = load_data(args.seed)
    model = DDP(MLP() if args.model == "mlp" else CNN())  # (rank 0's weights, everywhere)
    opt = nbgrad.optim.Adam(model.parameters(), lr=lr)
    data = TensorDataset(nbgrad.tensor(xtr), nbgrad.tensor(ytr))
    sampler = DistributedSampler(data, seed=args.seed)
    loader = DataLoader(data, batch_size=max(1, args.batch_size // world), sampler=sampler)
    if lead:
        from tqdm import tqdm
    losses, accs = [], []
    sums = nbgrad.zeros(2, dtype=nbgrad.float64)
    t0 = time.perf_counter()
    for epoch in range(1, epochs + 1):
        sampler.set_epoch(epoch)
        bar = tqdm(loader, desc=f"epoch {epoch:2d}/{epochs}", unit="batch", leave=False,
                   disable=args.no_progress) if lead else loader
        total, count = 0.0, 0
        for xb, yb in bar:
            loss = F.cross_entropy(model(xb), yb)
            opt.zero_grad()
            loss.backward()  # (returns with the gradients averaged over the processes)
            opt.step()
            total += loss.item() * len(yb)
            count += len(yb)
            if lead:
                bar.set_postfix(loss=f"{total / count:.4f}")
        if lead:
            bar.close()
        sums[0], sums[1] = total, count
        dist.all_reduce(sums)  # (the epoch's loss over every process's samples)
        losses.append(float(sums[0] / sums[1]))
        if lead:
            accs.append(evaluate(model.module, xte, yte, "cpu"))
            print(f"epoch {epoch:2d}/{epochs}  loss {losses[-1]:.4f}  "
                  f"test accuracy {accs[-1] * 100:.2f}%")
    elapsed = time.perf_counter() - t0
    if not lead:
        dist.destroy_process_group()
        return None
    print(f"test accuracy: {accs[-1] * 100:.2f}% ({args.model}, {epochs} epochs, "
          f"{world} processes, {elapsed:.1f} s)")
    os.makedirs(args.out, exist_ok=True)
    ckpt = os.path.join(args.out, f"digits_{args.model}.nbg")
    nbgrad.save({"model": model.module.state_dict(), "optimizer": opt.state_dict(),
                 "epochs": epochs}, ckpt)
    png = os.path.join(args.out, f"digits_{args.model}.png")
    save_plot(losses, accs, png, f"nbgrad: {args.model.upper()} on scikit-learn digits, "
              f"{epochs} epoch{'s' * (epochs != 1)}, {world} processes")
    print(f"wrote {os.path.abspath(ckpt)}")
    print(f"wrote {os.path.abspath(png)}")
    dist.destroy_process_group()
    return accs[-1]


if __name__ == "__main__":
    main()
