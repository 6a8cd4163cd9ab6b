"""``python -m nbgrad warmup``: compile the common kernels ahead of a run;
``python -m nbgrad cache info|clear``: the on-disk kernel cache.

Kernels compile lazily, on first use for each dtype; ``warmup`` runs a small forward and
backward pass of the common ops in float32 and float64 (serial and parallel variants),
so a later program in the same process starts fast, and (the kernel cache being on unless
``NBGRAD_CACHE=0``) so do later processes.
"""

import argparse
import sys
import time


def warmup(dtypes=("float32", "float64"), parallel=True, verbose=True):
    """Compile the kernels of the common ops for ``dtypes``."""
    import numpy as np

    import nbgrad
    import nbgrad.nn.functional as F
    from nbgrad.kernels.cpu import _par

    sizes = [8]
    if parallel:
        sizes.append(_par.PARALLEL_MIN)
        _par.TIER_UP = 0  # a kernel's first big call takes (compiles) its parallel variant
    t0 = time.perf_counter()
    for name in dtypes:
        dt = getattr(nbgrad, name)
        for n in sizes:
            x = nbgrad.randn(n, dtype=dt, requires_grad=True)
            w = nbgrad.randn(n, dtype=dt, requires_grad=True)
            y = ((x * w + 1.0).tanh() * x.sigmoid() + (-(x * x)).exp() - x.relu() / 2.0)
            y = y + x.abs().sqrt().log1p() + x ** 2
            y.sum().backward()
            m = x.reshape(-1, 8)
            (m.amax(1) + m.mean(0).sum() + m.max(1).values.sum()).backward()
            logits = nbgrad.randn(max(1, n // 8), 8, dtype=dt, requires_grad=True)
            tgt = nbgrad.tensor(np.arange(max(1, n // 8)) % 8)
            F.cross_entropy(logits, tgt).backward()
            (F.softmax(logits, 1) * logits).sum().backward()
            (logits @ nbgrad.randn(8, 4, dtype=dt)).t().contiguous().sum().backward()
        if verbose:
            print(f"warmed {name} in {time.perf_counter() - t0:.1f} s", flush=True)
    return time.perf_counter() - t0


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m nbgrad")
    sub = p.add_subparsers(dest="cmd", required=True)
    w = sub.add_parser("warmup", help="precompile the common kernels")
    w.add_argument("--dtype", action="append", choices=["float32", "float64"],
                   help="dtypes to compile for (default: both)")
    w.add_argument("--serial-only", action="store_true", help="skip the parallel variants")
    c = sub.add_parser("cache", help="show or clear the on-disk kernel cache")
    c.add_argument("action", choices=["info", "clear"],
                   help="info: where it is and its size; clear: remove it")
    args = p.parse_args(argv)
    if args.cmd == "warmup":
        warmup(tuple(args.dtype or ("float32", "float64")), not args.serial_only)
    elif args.cmd == "cache":
        from nbgrad.kernels.cpu import _disk

        if args.action == "info":
            print("\n".join(_disk.info()))
        else:
            print(f"removed {_disk.clear() / 2**20:.1f} MiB from {_disk.root()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
