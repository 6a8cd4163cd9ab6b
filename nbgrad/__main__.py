"""``python -m nbgrad warmup``: compile the common kernels ahead of a run;
``python -m nbgrad cache info|clear``: the on-disk kernel cache.

Kernels compile lazily, on first use for each dtype; ``warmup`` runs a small forward and
backward pass of the common ops in float32 and float64 (serial and parallel variants),
so a later program in the same process starts fast, and (the kernel cache being on unless
``NBGRAD_CACHE=0``) so do later processes.
"""

import argparse
import sys

from nbgrad._warmup import WORKLOADS, warmup  # noqa: F401 (warmup: the function too)


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m nbgrad")
    sub = p.add_subparsers(dest="cmd", required=True)
    w = sub.add_parser("warmup", help="precompile the common kernels")
    w.add_argument("--dtype", action="append", choices=["float32", "float64"],
                   help="dtypes to compile for (default: both)")
    w.add_argument("--serial-only", action="store_true", help="skip the parallel variants")
    w.add_argument("--workload", action="append", choices=list(WORKLOADS),
                   help="workloads to run (default: all)")
    c = sub.add_parser("cache", help="show or clear the on-disk kernel cache")
    c.add_argument("action", choices=["info", "clear"],
                   help="info: where it is and its size; clear: remove it")
    args = p.parse_args(argv)
    if args.cmd == "warmup":
        warmup(tuple(args.dtype or ("float32", "float64")), not args.serial_only,
               workloads=args.workload)
    elif args.cmd == "cache":
        from nbgrad.kernels.cpu import _disk

        if args.action == "info":
            print("\n".join(_disk.info()))
        else:
            print(f"removed {_disk.clear() / 2**20:.1f} MiB from {_disk.root()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
