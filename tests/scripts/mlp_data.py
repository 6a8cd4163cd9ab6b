"""Data for pytorch_mlp.py (a module the script imports from its own folder)."""

import numpy as np


def make_data(rng, n=64):
    x = rng.standard_normal((n, 8)).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.int64) + (x[:, 1] > 0.5).astype(np.int64)
    return x, y
