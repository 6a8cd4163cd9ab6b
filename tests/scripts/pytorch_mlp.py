"""A PyTorch training script, as a tutorial writes one: it runs on PyTorch (``python
pytorch_mlp.py``) and, unchanged, on nbgrad (``python -m nbgrad.run pytorch_mlp.py``).
tests/test_compat.py runs it both ways and compares the printed losses."""

import argparse
import sys

import numpy as np
import torch
import torch.nn.functional as F
from mlp_data import make_data  # a module beside the script
from torch import nn, optim


class Net(nn.Module):
    def __init__(self, sizes):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(sizes[0], sizes[1]), nn.ReLU(),
                                  nn.Linear(sizes[1], sizes[2]))

    def forward(self, x):
        return self.body(x)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--optimizer", choices=["sgd", "adam"], default="sgd")
    args = p.parse_args()
    rng = np.random.default_rng(0)
    torch.manual_seed(0)
    model = Net([8, 16, 3])
    with torch.no_grad():  # weights from NumPy: the same start on either library
        for prm in model.parameters():
            prm.copy_(torch.from_numpy(
                rng.uniform(-0.3, 0.3, tuple(prm.shape)).astype(np.float32)))
    x, y = make_data(rng)
    x, y = torch.from_numpy(x), torch.from_numpy(y)
    if args.optimizer == "sgd":
        opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    else:
        opt = optim.Adam(model.parameters(), lr=0.01)
    model.train()
    for step in range(args.steps):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        print(f"step {step} loss {loss.item():.6f}")
    model.eval()
    with torch.no_grad():
        acc = (model(x).argmax(dim=1) == y).float().mean().item()
    print(f"accuracy {acc:.4f}")
    print(f"tensor type ok: {isinstance(x, torch.Tensor) and isinstance(model.body[0], nn.Module)}")
    return 0 if acc > 0 else 3


if __name__ == "__main__":
    sys.exit(main())
