"""``python -m nbgrad.run script.py [args ...]``: run a PyTorch program on nbgrad, unchanged.

``import torch`` and its submodules inside the program load nbgrad (``nbgrad.compat``);
the script runs as ``__main__`` with ``sys.argv`` = ``[script.py, args ...]`` and its folder
first on ``sys.path``, as ``python script.py`` would run it. ``python -m nbgrad.run -m
module [args ...]`` runs a module the same way.
"""

import os
import runpy
import sys

USAGE = "usage: python -m nbgrad.run script.py [args ...]\n" \
        "       python -m nbgrad.run -m module [args ...]"


def main(argv=None):
    """Run the script (or ``-m`` module) that ``argv`` names with nbgrad serving
    ``torch``; the exit status for the command line (the script's own ``sys.exit`` goes
    through)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help") or argv == ["-m"]:
        print(USAGE, file=sys.stderr if not argv or argv == ["-m"] else sys.stdout)
        return 0 if argv and argv[0] in ("-h", "--help") else 2
    from .compat import install

    install()
    if argv[0] == "-m":
        sys.argv = argv[1:]
        sys.path.insert(0, os.getcwd())
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        return 0
    script = argv[0]
    if not os.path.exists(script):
        print(f"python -m nbgrad.run: can't open file {script!r}: no such file",
              file=sys.stderr)
        return 2
    sys.argv = argv
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
